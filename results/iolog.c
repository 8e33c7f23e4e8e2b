// SPDX-License-Identifier: MIT
/*
 * iolog.c - fio's log files (see results.h): the kinds of log, their
 * samples in memory, the windows of log_avg_msec and log_hist_msec, and
 * the lines fio 3.33 writes (iolog.c flush_samples, flush_hist_samples;
 * stat.c add_log_sample, __add_stat_to_log, add_clat_sample, __add_samples).
 *
 * Samples go into chunks of LOG_CHUNK entries, 32 bytes each, allocated
 * as a log grows: appending is a store and an increment, and a log never
 * moves what it holds.  Out of memory, a log stops taking samples (fio's
 * iolog->disabled) and says so when it is written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "results/results.h"

#define LOG_CHUNK 4096

struct log_sample {
	uint64_t t_ms;
	uint64_t val;			/* RQ_LOGS_HIST: a uint64_t[RQ_PLAT_NR] of counts */
	uint64_t offset;
	uint32_t bs;
	uint16_t ddir;
	uint16_t prio;			/* the I/O's priority (the kernel's value); 0 for a window */
};

struct log_chunk {
	struct log_chunk *next;
	unsigned int n;
	struct log_sample s[LOG_CHUNK];
};

/* fio's avg_window: mean (Welford, as fio's add_stat_sample) and maximum */
struct log_window {
	uint64_t n, max;
	double mean;
};

struct rq_log {
	char *path;
	const struct rq_log_kind_info *kind;
	struct rq_log_params p;
	struct log_chunk *head, *tail;
	bool any;			/* a sample was ever logged (fio's first-entry rule) */
	bool dropped;			/* out of memory: later samples are lost */
	struct log_window win[RQ_DDIR_NR];
	uint64_t avg_last[RQ_DDIR_NR];	/* ms: the current window began */
	uint64_t hist_last[RQ_DDIR_NR];	/* ms: the last histogram line */
	uint64_t *plat_last[RQ_DDIR_NR];	/* the histogram at the last line */
};

/* ---- the kinds ------------------------------------------------------ */

static uint64_t v_lat(const struct rq_log_io *io)
{
	return io->done_ns - io->start_ns;
}

static uint64_t v_slat(const struct rq_log_io *io)
{
	return io->issue_ns - io->start_ns;
}

static uint64_t v_clat(const struct rq_log_io *io)
{
	return io->done_ns - io->issue_ns;
}

/*
 * fio's add_bw_sample: bytes * 10^6 / clat in ns (KB/s give or take a unit:
 * fio's).  An I/O the device completed inside its submission (null, ram)
 * has clat 0 here: its time is all slat, where fio's synchronous engines
 * (ioengine=null too) count it as clat, so it is rated over its whole
 * latency, as fio rates it, not logged as 0 (issue 26).
 */
static uint64_t v_bw(const struct rq_log_io *io)
{
	uint64_t t = io->done_ns - io->issue_ns;

	if (!t)
		t = io->done_ns - io->start_ns;
	return t ? (uint64_t)io->bytes * 1000000ULL / t : 0;
}

static uint64_t v_iops(const struct rq_log_io *io)
{
	(void)io;
	return 1;
}

/* rqlock's: latency from the time the rate schedule wanted the I/O */
static uint64_t v_lat_intended(const struct rq_log_io *io)
{
	uint64_t from = io->due_ns ? io->due_ns : io->start_ns;

	return io->done_ns > from ? io->done_ns - from : 0;
}

const struct rq_log_kind_info rq_log_kinds[RQ_LOG_NR_KINDS] = {
	[RQ_LOG_LAT]	   = { "lat", "write_lat_log", RQ_LOGS_PER_IO, v_lat, false },
	[RQ_LOG_SLAT]	   = { "slat", "write_lat_log", RQ_LOGS_PER_IO, v_slat, false },
	[RQ_LOG_CLAT]	   = { "clat", "write_lat_log", RQ_LOGS_PER_IO, v_clat, false },
	[RQ_LOG_CLAT_HIST] = { "clat_hist", "write_hist_log", RQ_LOGS_HIST, NULL, false },
	[RQ_LOG_BW]	   = { "bw", "write_bw_log", RQ_LOGS_RATE, v_bw, true },
	[RQ_LOG_IOPS]	   = { "iops", "write_iops_log", RQ_LOGS_RATE, v_iops, false },
	[RQ_LOG_LAT_INTENDED] = { "lat_intended", "write_lat_log", RQ_LOGS_PER_IO,
				  v_lat_intended, false },
};

int rq_log_name(char *buf, size_t size, const char *prefix, const char *suffix, unsigned int n,
		bool per_job)
{
	if (per_job)
		return snprintf(buf, size, "%s_%s.%u.log", prefix, suffix, n);
	return snprintf(buf, size, "%s_%s.log", prefix, suffix);
}

/* ---- one log -------------------------------------------------------- */

struct rq_log *rq_log_new(const char *path, const struct rq_log_kind_info *kind,
			  const struct rq_log_params *p)
{
	struct rq_log *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->path = strdup(path);
	l->kind = kind;
	l->p = *p;
	if (l->p.hist_coarseness > RQ_PLAT_BITS)
		l->p.hist_coarseness = RQ_PLAT_BITS;
	if (!l->path) {
		free(l);
		return NULL;
	}
	if (kind && kind->sampling == RQ_LOGS_HIST) {
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			l->plat_last[d] = calloc(RQ_PLAT_NR, sizeof(uint64_t));
			if (!l->plat_last[d]) {
				rq_log_free(l);
				return NULL;
			}
		}
	}
	return l;
}

const char *rq_log_path(const struct rq_log *l)
{
	return l->path;
}

static struct log_sample *log_slot(struct rq_log *l)
{
	struct log_chunk *c = l->tail;

	if (l->dropped)
		return NULL;
	if (!c || c->n == LOG_CHUNK) {
		c = malloc(sizeof(*c));
		if (!c) {
			l->dropped = true;
			return NULL;
		}
		c->next = NULL;
		c->n = 0;
		if (l->tail)
			l->tail->next = c;
		else
			l->head = c;
		l->tail = c;
	}
	return &c->s[c->n++];
}

/* fio's __add_log_sample: the first line of a log starts the windows */
static void log_append(struct rq_log *l, uint64_t t_ms, uint64_t val, int ddir, uint64_t bs,
		       uint64_t offset, uint16_t prio)
{
	struct log_sample *s;

	if (!l->any) {
		l->any = true;
		l->avg_last[ddir] = t_ms;
	}
	s = log_slot(l);
	if (!s)
		return;
	s->t_ms = t_ms;
	s->val = val;
	s->ddir = (uint16_t)ddir;
	s->bs = (uint32_t)bs;
	s->offset = offset;
	s->prio = prio;
}

/* fio's __add_stat_to_log: a window's mean, rounded, or its maximum; bs and offset 0 */
static void window_flush(struct rq_log *l, int ddir, uint64_t t_ms)
{
	struct log_window *w = &l->win[ddir];

	if (w->n)
		log_append(l, t_ms, l->p.log_max ? w->max : (uint64_t)(w->mean + 0.50), ddir, 0, 0, 0);
	memset(w, 0, sizeof(*w));
}

/* fio's add_log_sample: a line of its own carries the I/O's priority, a window's none */
static void log_add(struct rq_log *l, uint64_t t_ms, uint64_t val, int ddir, uint64_t bs, uint64_t offset,
		    uint16_t prio)
{
	struct log_window *w;

	if (ddir < 0 || ddir >= RQ_DDIR_NR)
		return;
	if (!l->p.avg_msec) {
		log_append(l, t_ms, val, ddir, bs, offset, prio);
		return;
	}
	w = &l->win[ddir];
	w->n++;
	if (val > w->max)
		w->max = val;
	w->mean += ((double)val - w->mean) / (double)w->n;
	if (t_ms < l->avg_last[ddir] || t_ms - l->avg_last[ddir] < l->p.avg_msec)
		return;
	window_flush(l, ddir, t_ms);
	l->avg_last[ddir] = t_ms - t_ms % l->p.avg_msec;
}

void rq_log_add(struct rq_log *l, uint64_t t_ms, uint64_t val, int ddir, uint64_t bs, uint64_t offset)
{
	log_add(l, t_ms, val, ddir, bs, offset, 0);
}

void rq_log_finish(struct rq_log *l, uint64_t t_ms)
{
	if (!l->p.avg_msec)
		return;
	for (int d = 0; d < RQ_DDIR_NR; d++)
		window_flush(l, d, t_ms);
}

/*
 * fio's add_clat_sample, histogram part: every hist_msec (the window
 * starting at the first I/O), the counts since the last line; the next
 * window starts where this one should have ended, so lines do not drift.
 */
static void log_hist(struct rq_log *l, const struct rq_log_io *io)
{
	uint64_t *delta, window;
	struct log_sample *s;
	int d = io->ddir;

	if (!l->p.hist_msec || !io->clat_plat)
		return;
	if (!l->hist_last[d])
		l->hist_last[d] = io->t_ms;
	window = io->t_ms - l->hist_last[d];
	if (window < l->p.hist_msec)
		return;
	delta = malloc(RQ_PLAT_NR * sizeof(*delta));
	s = delta ? log_slot(l) : NULL;
	if (!s) {
		free(delta);
		l->dropped = true;
		return;
	}
	for (unsigned int i = 0; i < RQ_PLAT_NR; i++)
		delta[i] = io->clat_plat[i] - l->plat_last[d][i];
	memcpy(l->plat_last[d], io->clat_plat, RQ_PLAT_NR * sizeof(uint64_t));
	s->t_ms = io->t_ms;
	s->val = (uint64_t)(uintptr_t)delta;
	s->ddir = (uint16_t)d;
	s->prio = 0;			/* a histogram line shows none */
	s->bs = io->bytes;
	s->offset = io->offset;
	l->any = true;
	l->hist_last[d] = io->t_ms - (window - l->p.hist_msec);
}

static bool is_hist(const struct rq_log *l)
{
	return l->kind && l->kind->sampling == RQ_LOGS_HIST;
}

/* fio's flush_samples and flush_hist_samples */
static int write_samples(const struct rq_log *l, FILE *f)
{
	unsigned int stride = 1u << l->p.hist_coarseness;

	for (const struct log_chunk *c = l->head; c; c = c->next) {
		for (unsigned int i = 0; i < c->n; i++) {
			const struct log_sample *s = &c->s[i];

			if (is_hist(l)) {
				const uint64_t *h = (const uint64_t *)(uintptr_t)s->val;

				fprintf(f, "%" PRIu64 ", %u, %u, ", s->t_ms, s->ddir, s->bs);
				for (unsigned int j = 0; j < RQ_PLAT_NR; j += stride) {
					uint64_t sum = 0;

					for (unsigned int k = 0; k < stride; k++)
						sum += h[j + k];
					fprintf(f, j + stride < RQ_PLAT_NR ? "%" PRIu64 ", " : "%" PRIu64 "\n",
						sum);
				}
				continue;
			}
			fprintf(f, "%" PRIu64 ", %" PRId64 ", %u, %u, ", s->t_ms, (int64_t)s->val, s->ddir,
				s->bs);
			if (l->p.log_offset)
				fprintf(f, "%" PRIu64 ", ", s->offset);
			/* fio: the priority with log_prio, else whether its class is RT */
			if (l->p.log_prio)
				fprintf(f, "0x%04x\n", s->prio);
			else
				fprintf(f, "%d\n", s->prio >> 13 == 1);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/*
 * log_store_compressed: fio's .fz file is a series of zlib streams, each
 * the deflated bytes of an array of fio's in-memory samples (iolog.h's
 * struct io_sample, then the offset with log_offset; native byte order,
 * as fio writes them):
 *   0 time (ms, u64)  8 value (u64)  16 ddir | flag bits (u32)
 *   20 priority (u16) 24 bs (u64)   [32 offset (u64)]
 * The ddir's top bits say an offset (bit 31) and a priority (bit 30)
 * column follow, which is how an inflater knows the layout.  fio starts
 * a stream each time a sample array is compressed; here one every
 * log_compression bytes of samples (LOG_CHUNK samples without it).  The
 * inflated lines are the plain log's, byte for byte.
 */
#define GZ_SAMPLE	32
#define GZ_SAMPLE_OFF	40
#define GZ_DDIR_OFFSET	0x80000000u
#define GZ_DDIR_PRIO	0x40000000u
#define GZ_DDIR_MASK	(GZ_DDIR_OFFSET | GZ_DDIR_PRIO)

static size_t gz_pack(const struct rq_log *l, const struct log_sample *s, unsigned char *b)
{
	uint32_t ddir = s->ddir | (l->p.log_offset ? GZ_DDIR_OFFSET : 0) | (l->p.log_prio ? GZ_DDIR_PRIO : 0);
	uint64_t bs = s->bs;

	memset(b, 0, l->p.log_offset ? GZ_SAMPLE_OFF : GZ_SAMPLE);	/* @b holds one sample: no more */
	memcpy(b, &s->t_ms, 8);
	memcpy(b + 8, &s->val, 8);
	memcpy(b + 16, &ddir, 4);
	memcpy(b + 20, &s->prio, 2);
	memcpy(b + 24, &bs, 8);
	if (!l->p.log_offset)
		return GZ_SAMPLE;
	memcpy(b + 32, &s->offset, 8);
	return GZ_SAMPLE_OFF;
}

/* Deflate @len bytes of @in as one zlib stream onto @f. */
static int gz_stream(FILE *f, const unsigned char *in, size_t len)
{
	unsigned char out[65536];
	z_stream z = { 0 };
	int ret;

	if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR)
			break;
		fwrite(out, 1, sizeof(out) - z.avail_out, f);
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return ret == Z_STREAM_END && !ferror(f) ? 0 : -EIO;
}

static int write_samples_gz(const struct rq_log *l, FILE *f)
{
	size_t one = l->p.log_offset ? GZ_SAMPLE_OFF : GZ_SAMPLE;
	size_t per = l->p.gz_chunk ? l->p.gz_chunk / one : LOG_CHUNK;
	unsigned char *buf, *b;
	int ret = 0;

	if (!per)
		per = 1;
	buf = malloc(per * one);
	if (!buf)
		return -ENOMEM;
	b = buf;
	for (const struct log_chunk *c = l->head; c && !ret; c = c->next) {
		for (unsigned int i = 0; i < c->n && !ret; i++) {
			b += gz_pack(l, &c->s[i], b);
			if ((size_t)(b - buf) == per * one) {
				ret = gz_stream(f, buf, per * one);
				b = buf;
			}
		}
	}
	if (!ret && b > buf)
		ret = gz_stream(f, buf, (size_t)(b - buf));
	free(buf);
	return ret;
}

/* fio's flush_samples on one inflated stream: the first sample says the layout */
static int gz_print(const unsigned char *p, size_t len, FILE *out)
{
	uint32_t ddir;
	size_t one;

	if (!len)
		return 0;
	if (len < GZ_SAMPLE)
		return -EINVAL;
	memcpy(&ddir, p + 16, 4);
	one = ddir & GZ_DDIR_OFFSET ? GZ_SAMPLE_OFF : GZ_SAMPLE;
	if (len % one)
		return -EINVAL;
	for (size_t at = 0; at < len; at += one) {
		const unsigned char *b = p + at;
		uint64_t t, val, bs, off;
		uint16_t prio;

		memcpy(&t, b, 8);
		memcpy(&val, b + 8, 8);
		memcpy(&ddir, b + 16, 4);
		memcpy(&prio, b + 20, 2);
		memcpy(&bs, b + 24, 8);
		fprintf(out, "%" PRIu64 ", %" PRId64 ", %u, %" PRIu64 ", ", t, (int64_t)val,
			ddir & ~GZ_DDIR_MASK, bs);
		if (one == GZ_SAMPLE_OFF) {
			memcpy(&off, b + 32, 8);
			fprintf(out, "%" PRIu64 ", ", off);
		}
		/* fio prints the priority, or whether its class is RT (class 1 in bits 13-15) */
		if (ddir & GZ_DDIR_PRIO)
			fprintf(out, "0x%04x\n", prio);
		else
			fprintf(out, "%d\n", (prio >> 13) == 1);
	}
	return 0;
}

int rq_log_inflate(const char *path, FILE *out, FILE *err)
{
	FILE *f = fopen(path, "rb");
	unsigned char *in = NULL, *buf = NULL;
	size_t len = 0, cap = 0, at = 0;
	const char *why = NULL;
	int ret = 0;

	if (!f) {
		ret = -errno;
		fprintf(err, "rqlock: --inflate-log=%s: %s\n", path, strerror(-ret));
		return ret;
	}
	for (;;) {
		if (len == cap) {
			unsigned char *n = realloc(in, cap = cap ? cap * 2 : 1 << 16);

			if (!n) {
				ret = -ENOMEM;
				break;
			}
			in = n;
		}
		size_t got = fread(in + len, 1, cap - len, f);

		len += got;
		if (!got)
			break;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	/* each stream inflated whole, then printed: fio's iolog_file_inflate */
	while (!ret && at < len) {
		z_stream z = { 0 };
		size_t used = 0, bcap = 1 << 20;
		int zr = Z_OK;

		if (inflateInit2(&z, 15 + 32) != Z_OK) {
			ret = -ENOMEM;
			break;
		}
		z.next_in = in + at;
		z.avail_in = (uInt)(len - at);
		while (zr == Z_OK) {
			if (!buf || used == bcap) {
				unsigned char *n = realloc(buf, bcap = buf ? bcap * 2 : bcap);

				if (!n) {
					zr = Z_MEM_ERROR;
					break;
				}
				buf = n;
			}
			z.next_out = buf + used;
			z.avail_out = (uInt)(bcap - used);
			zr = inflate(&z, Z_NO_FLUSH);
			used = bcap - z.avail_out;
			if (zr == Z_BUF_ERROR && z.avail_out)
				break;		/* input ended inside the stream */
		}
		at = len - z.avail_in;
		inflateEnd(&z);
		if (zr == Z_MEM_ERROR) {
			ret = -ENOMEM;
		} else if (zr != Z_STREAM_END) {
			why = zr == Z_DATA_ERROR ? "not a compressed log (zlib data error)" : "truncated";
			ret = -EINVAL;
		} else if (gz_print(buf, used, out)) {
			why = "not fio's log samples (a stream's size is not a whole number of samples)";
			ret = -EINVAL;
		}
	}
	free(in);
	free(buf);
	if (ret)
		fprintf(err, "rqlock: --inflate-log=%s: %s\n", path, why ? why : strerror(-ret));
	return ret;
}

int rq_log_write(struct rq_log *l, bool append, FILE *err)
{
	FILE *f = fopen(l->path, append ? "ab" : "wb");
	int ret, e;

	if (!f) {
		e = errno;
		fprintf(err, "rqlock: log %s: %s\n", l->path, strerror(e));
		return -e;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	ret = l->p.store_gz ? write_samples_gz(l, f) : write_samples(l, f);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		fprintf(err, "rqlock: log %s: write failed\n", l->path);
	else if (l->dropped)
		fprintf(err, "rqlock: log %s: out of memory during the run, later samples are missing\n",
			l->path);
	return ret;
}

void rq_log_free(struct rq_log *l)
{
	struct log_chunk *c, *next;

	if (!l)
		return;
	for (c = l->head; c; c = next) {
		next = c->next;
		if (is_hist(l))
			for (unsigned int i = 0; i < c->n; i++)
				free((void *)(uintptr_t)c->s[i].val);
		free(c);
	}
	for (int d = 0; d < RQ_DDIR_NR; d++)
		free(l->plat_last[d]);
	free(l->path);
	free(l);
}

/* ---- a clone's logs ------------------------------------------------- */

struct rq_logs *rq_logs_new(const char *const paths[RQ_LOG_NR_KINDS], const struct rq_log_params *p)
{
	struct rq_logs *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return NULL;
	ls->avg_msec = p->avg_msec;
	ls->next_tick_ms = p->avg_msec;
	for (int k = 0; k < RQ_LOG_NR_KINDS; k++) {
		if (!paths[k])
			continue;
		ls->log[k] = rq_log_new(paths[k], &rq_log_kinds[k], p);
		if (!ls->log[k]) {
			rq_logs_free(ls);
			return NULL;
		}
	}
	return ls;
}

void rq_logs_io(struct rq_logs *ls, const struct rq_log_io *io)
{
	for (int k = 0; k < RQ_LOG_NR_KINDS; k++) {
		struct rq_log *l = ls->log[k];

		if (!l)
			continue;
		switch (l->kind->sampling) {
		case RQ_LOGS_RATE:
			if (ls->avg_msec)
				break;	/* rq_logs_tick() computes the windows' rates */
			/* fio's per_unit_log, a line per I/O */
			__attribute__((fallthrough));
		case RQ_LOGS_PER_IO:
			if (l->kind->value)
				log_add(l, io->t_ms, l->kind->value(io), io->ddir, io->bytes, io->offset,
					io->ioprio);
			break;
		case RQ_LOGS_HIST:
			log_hist(l, io);
			break;
		}
	}
}

/*
 * fio's __add_samples for the bw and iops logs under log_avg_msec: every
 * window, the rate of each direction that moved (KiB/s or IOPS, fio's
 * integer arithmetic on ms), into the log's window.
 */
void rq_logs_tick(struct rq_logs *ls, uint64_t t_ms, const uint64_t bytes[RQ_DDIR_NR],
		  const uint64_t ios[RQ_DDIR_NR])
{
	uint64_t spent;

	if (!ls->avg_msec || t_ms < ls->next_tick_ms)
		return;
	spent = t_ms - ls->tick_last_ms;
	for (int k = 0; k < RQ_LOG_NR_KINDS; k++) {
		struct rq_log *l = ls->log[k];

		if (!l || l->kind->sampling != RQ_LOGS_RATE)
			continue;
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			uint64_t now = l->kind->rate_bytes ? bytes[d] : ios[d];
			uint64_t delta = now - ls->tick_count[k][d], rate;

			if (!delta)
				continue;
			rate = spent ? delta * 1000 / spent : 0;
			if (l->kind->rate_bytes)
				rate /= 1024;
			rq_log_add(l, t_ms, rate, d, 0, 0);
			ls->tick_count[k][d] = now;
		}
	}
	ls->tick_last_ms = t_ms;
	ls->next_tick_ms = t_ms + ls->avg_msec;
}

void rq_logs_finish(struct rq_logs *ls, uint64_t t_ms)
{
	for (int k = 0; k < RQ_LOG_NR_KINDS; k++)
		if (ls->log[k])
			rq_log_finish(ls->log[k], t_ms);
}

void rq_logs_free(struct rq_logs *ls)
{
	if (!ls)
		return;
	for (int k = 0; k < RQ_LOG_NR_KINDS; k++)
		rq_log_free(ls->log[k]);
	free(ls);
}
