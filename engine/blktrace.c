// SPDX-License-Identifier: MIT
/*
 * blktrace.c - blktrace's binary traces (what `blkparse -d` leaves)
 * replayed as fio 3.33 replays them (its blktrace.c, read as the
 * specification; none of it copied).
 *
 * A trace is a run of records: struct blk_io_trace of the kernel's uapi
 * blktrace_api.h (48 bytes: magic and version, sequence, time in ns,
 * sector, bytes, action, pid, device, cpu, error, pdu_len) each followed
 * by pdu_len bytes of payload (a process name, a message, a remap).  The
 * first record's magic gives the byte order: a trace written on a machine
 * of the other endianness is read byte-swapped, as fio detects it.
 *
 * What a replay issues, as fio 3.33:
 *  - only queue events are I/Os (the low 16 bits of action say Q); the
 *    get-request, insert, issue, merge and complete events that follow
 *    are the block layer's own work, and notify records (process names,
 *    messages, timestamps) carry no I/O;
 *  - a queue event with the DISCARD category is a trim, else one with
 *    FLUSH is a flush (an fsync of the file: no offset, no bytes; a write
 *    with a preflush is traced with FLUSH too and fio replays it as a
 *    flush alone), else WRITE makes a write, else a read; a read or write
 *    of 0 bytes is not replayed (with one warning, as fio; rqlock drops
 *    a trim of 0 bytes the same way, which fio 3.33 would issue);
 *  - the offset is sector * 512, divided by replay_scale, rounded down to
 *    replay_align, which also rounds the length up;
 *  - each I/O is due its event's time step after the queue event before
 *    it (nanoseconds, in whole microseconds as fio keeps them, scaled by
 *    replay_time_scale), none after an event at time 0 or when time goes
 *    backwards; a skipped event (replay_skip) still takes the step, so
 *    the next I/O's step starts from it, as fio's last_ttime does;
 *  - each device (the trace's dev_t: major << 20 | minor) is replayed on
 *    its block device node under /dev, or on replay_redirect for all;
 *  - a job that gives no iodepth takes the trace's: per direction, the
 *    most queue events between two completions (merges take one back),
 *    at most 1024, at least 1 for a direction with I/O.
 *
 * Where rqlock is stricter than fio 3.33, on purpose: a truncated record,
 * a pdu running past the end, a device no node under /dev has (fio then
 * replays its I/O on the file of the device before it, or the job's
 * first) and a bad record anywhere are refused with one line naming the
 * trace and the record; fio stops at a short record and replays what it
 * read.
 *
 * merge_blktrace_file (rq_bt_merge): the traces' queue events of a
 * direction, merged by time, each trace's times scaled by its
 * merge_blktrace_scalars percent, pass k of its merge_blktrace_iters
 * shifted by k times its length (the time of its last record), written
 * with no pdus in this machine's byte order.  fio 3.33 documents this but
 * never does it (its read_trace() reads into the pointer, not the record:
 * every merge ends at "iolog short read" and fio replays the traces
 * unmerged); rqlock follows the repaired merge of later fio (commit
 * c55d29ef), without two slips it keeps: a pass's length taken after the
 * scaling (so scalars below 100 shift later passes too little) and the
 * last event of a pass written twice at the next pass.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "engine/blktrace.h"
#include "queues/queue.h"

#define REC_LEN		48
#define BT_MAGIC	0x65617400u	/* BLK_IO_TRACE_MAGIC: top 24 bits of magic */
#define BT_VERSION	0x07u		/* BLK_IO_TRACE_VERSION: its low 8 */
#define CAT(c)		((uint32_t)(c) << 16)	/* a category bit of action (BLK_TC_ACT) */
#define C_READ		CAT(1u << 0)
#define C_WRITE		CAT(1u << 1)
#define C_FLUSH		CAT(1u << 2)
#define C_NOTIFY	CAT(1u << 10)
#define C_DISCARD	CAT(1u << 13)
#define A_QUEUE		1u		/* the low 16 bits of action: __BLK_TA_* */
#define A_BACKMERGE	2u
#define A_FRONTMERGE	3u
#define A_COMPLETE	8u
#define DEPTH_MAX	1024		/* fio's cap on the probed depth (stacked devices lose completions) */
#define DEV_SCAN_DEPTH	16

/* One record, decoded. */
struct rec {
	uint32_t magic, seq, bytes, action, pid, device, cpu;
	uint64_t time, sector;
	uint16_t error, pdu_len;
};

/* Reading records off a stream: the byte order, which record this is, and where. */
struct reader {
	FILE *f;
	const struct rq_bt_where *w;
	bool big;			/* the trace is big-endian */
	uint64_t index;			/* the current record's number, from 1 */
	uint64_t pos, next;		/* its byte offset; the next one's */
};

static int bt_err(const struct rq_bt_where *w, const struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line on stderr: the job file's place, the trace and its record, why. */
static int bt_err(const struct rq_bt_where *w, const struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	fprintf(w->err, "%s:%d: job '%s': %s=%s", w->job->file, w->job->line, w->job->name, w->option,
		w->path);
	if (rd)
		fprintf(w->err, ", record %" PRIu64 " (byte %" PRIu64 ")", rd->index, rd->pos);
	fputs(": ", w->err);
	va_start(ap, fmt);
	vfprintf(w->err, fmt, ap);
	va_end(ap);
	fputc('\n', w->err);
	return -EINVAL;
}

static uint64_t get(const unsigned char *p, int n, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

static void put(unsigned char *p, int n, uint64_t v, bool big)
{
	for (int i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static void decode(const unsigned char *b, bool big, struct rec *r)
{
	r->magic = (uint32_t)get(b, 4, big);
	r->seq = (uint32_t)get(b + 4, 4, big);
	r->time = get(b + 8, 8, big);
	r->sector = get(b + 16, 8, big);
	r->bytes = (uint32_t)get(b + 24, 4, big);
	r->action = (uint32_t)get(b + 28, 4, big);
	r->pid = (uint32_t)get(b + 32, 4, big);
	r->device = (uint32_t)get(b + 36, 4, big);
	r->cpu = (uint32_t)get(b + 40, 4, big);
	r->error = (uint16_t)get(b + 44, 2, big);
	r->pdu_len = (uint16_t)get(b + 46, 2, big);
}

static void encode(unsigned char *b, bool big, const struct rec *r)
{
	put(b, 4, r->magic, big);
	put(b + 4, 4, r->seq, big);
	put(b + 8, 8, r->time, big);
	put(b + 16, 8, r->sector, big);
	put(b + 24, 4, r->bytes, big);
	put(b + 28, 4, r->action, big);
	put(b + 32, 4, r->pid, big);
	put(b + 36, 4, r->device, big);
	put(b + 40, 4, r->cpu, big);
	put(b + 44, 2, r->error, big);
	put(b + 46, 2, r->pdu_len, big);
}

bool rq_bt_is_trace(const unsigned char *b, size_t n)
{
	return n >= 4 && (((uint32_t)get(b, 4, false) & 0xffffff00u) == BT_MAGIC ||
			  ((uint32_t)get(b, 4, true) & 0xffffff00u) == BT_MAGIC);
}

/* Start reading @f from its beginning: the byte order from the first magic. */
static int reader_start(struct reader *rd, FILE *f, const struct rq_bt_where *w)
{
	unsigned char b[4];
	size_t n;

	memset(rd, 0, sizeof(*rd));
	rd->f = f;
	rd->w = w;
	rewind(f);
	n = fread(b, 1, sizeof(b), f);
	if (!rq_bt_is_trace(b, n))
		return bt_err(w, NULL, "not a blktrace: no blk_io_trace magic (0x656174xx) at its start");
	rd->big = ((uint32_t)get(b, 4, true) & 0xffffff00u) == BT_MAGIC;
	rewind(f);
	return 0;
}

/* Read past a record's pdu; false when the trace ends inside it. */
static bool skip_pdu(FILE *f, unsigned int len)
{
	unsigned char buf[4096];

	while (len) {
		size_t n = fread(buf, 1, len < sizeof(buf) ? len : sizeof(buf), f);

		if (!n)
			return false;
		len -= (unsigned int)n;
	}
	return true;
}

/*
 * The next record into @r, its pdu passed over: 1, 0 at the trace's end,
 * -errno after one line (a short record, a bad magic or version, a pdu
 * past the end).
 */
static int next_rec(struct reader *rd, struct rec *r)
{
	unsigned char b[REC_LEN];
	size_t n = fread(b, 1, sizeof(b), rd->f);
	int e = errno;

	if (!n && feof(rd->f))
		return 0;
	rd->index++;
	rd->pos = rd->next;
	if (ferror(rd->f))
		return bt_err(rd->w, rd, "%s", strerror(e));
	if (n < sizeof(b))
		return bt_err(rd->w, rd, "truncated: %zu of a record's %d bytes (fio 3.33 stops there and "
			      "replays the records before)", n, REC_LEN);
	decode(b, rd->big, r);
	if ((r->magic & 0xffffff00u) != BT_MAGIC)
		return bt_err(rd->w, rd, "magic 0x%08x is not blktrace's (0x656174xx; the trace is read %s-endian, "
			      "as its first record)", r->magic, rd->big ? "big" : "little");
	if ((r->magic & 0xffu) != BT_VERSION)
		return bt_err(rd->w, rd, "blktrace version %u; fio and rqlock read version %u", r->magic & 0xffu,
			      BT_VERSION);
	if (!skip_pdu(rd->f, r->pdu_len))
		return bt_err(rd->w, rd, "its pdu of %u bytes runs past the end of the trace", r->pdu_len);
	rd->next = rd->pos + REC_LEN + r->pdu_len;
	return 1;
}

/* fio's direction of a record for the depth probe and the merge: -1 for none. */
static int rec_ddir(uint32_t action)
{
	if (action & C_READ)
		return 0;
	if (action & C_WRITE)
		return 1;
	if (action & C_DISCARD)
		return 2;
	return -1;
}

/* A device seen in the trace and the file its I/Os go to. */
struct dev_map {
	uint32_t dev;
	char *file;
};

/* What reading one trace keeps between records. */
struct state {
	const struct rq_bt_where *w;
	const struct reader *rd;
	uint64_t last_t;		/* the last queue event's time (fio's last_ttime) */
	uint64_t at_ns;			/* when the last I/O is due */
	int this_depth[3], depth[3];	/* the depth probe, per direction */
	uint64_t ios[4];		/* I/Os replayed: reads, writes, trims, flushes */
	struct dev_map *devs;
	unsigned int nr_devs;
	bool warned_zero;
};

/* Depth-first under @path (its length @len) as fio walks /dev: the first block node of @maj:@min. */
static bool find_node(char *path, size_t size, size_t len, unsigned int maj, unsigned int min, int depth)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		struct stat st;
		int n;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n = snprintf(path + len, size - len, "/%s", de->d_name);
		if (n < 0 || (size_t)n >= size - len || lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < DEV_SCAN_DEPTH)
			found = find_node(path, size, len + (size_t)n, maj, min, depth + 1);
		else if (S_ISBLK(st.st_mode) && major(st.st_rdev) == maj && minor(st.st_rdev) == min)
			found = true;
		if (!found)
			path[len] = '\0';
	}
	closedir(d);
	return found;
}

/* The file device @dev's I/Os go to: replay_redirect, or its node under /dev. */
static int dev_file(struct state *s, uint32_t dev, const char **file)
{
	const struct rq_job *job = s->w->job;
	char path[RQ_JOB_PATH_MAX] = "/dev";
	unsigned int maj = dev >> 20, min = dev & 0xfffffu;
	struct dev_map *n;

	if (job->replay_redirect[0]) {
		*file = job->replay_redirect;
		return 0;
	}
	for (unsigned int i = 0; i < s->nr_devs; i++) {
		if (s->devs[i].dev == dev) {
			*file = s->devs[i].file;
			return 0;
		}
	}
	if (!find_node(path, sizeof(path), strlen(path), maj, min, 0))
		return bt_err(s->w, s->rd, "device %u:%u: no block device under /dev has that number "
			      "(replay_redirect=FILE replays the trace on one file or device)", maj, min);
	n = realloc(s->devs, (s->nr_devs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->devs = n;
	n[s->nr_devs].dev = dev;
	n[s->nr_devs].file = strdup(path);
	if (!n[s->nr_devs].file)
		return -ENOMEM;
	*file = n[s->nr_devs++].file;
	return 0;
}

/* fio's delay_since_ttime(): the step since the last queue event, ns */
static uint64_t time_step(const struct state *s, const struct rq_job *job, uint64_t t)
{
	if (!s->last_t || job->replay_no_stall || t < s->last_t)
		return 0;
	if (job->replay_time_scale == 100)
		return t - s->last_t;
	return (uint64_t)((double)(t - s->last_t) * (100.0 / (double)job->replay_time_scale));
}

#define SKIP RQ_OP_NR	/* event_op(): the event is not replayed */

/*
 * Which I/O a queue event of @len bytes (after replay_align) is: RQ_OP_*,
 * SKIP, or -errno.  A read's or write's device is looked up first: fio
 * adds it to the job even when replay_skip drops the I/O.
 */
static int event_op(struct state *s, const struct rec *r, uint64_t len, const char **file)
{
	const struct rq_job *job = s->w->job;
	int op, ret;

	if (r->action & C_DISCARD) {
		op = RQ_OP_DISCARD;
		if (job->replay_skip & RQ_REPLAY_SKIP_TRIM)
			return SKIP;
	} else if (r->action & C_FLUSH) {
		return job->replay_skip & RQ_REPLAY_SKIP_SYNC ? SKIP : RQ_OP_FLUSH;
	} else {
		ret = dev_file(s, r->device, file);
		if (ret)
			return ret;
		op = r->action & C_WRITE ? RQ_OP_WRITE : RQ_OP_READ;
		if (job->replay_skip & (op == RQ_OP_WRITE ? RQ_REPLAY_SKIP_WRITE : RQ_REPLAY_SKIP_READ))
			return SKIP;
	}
	if (len)
		return op;
	/* fio warns once and drops a read or write of 0 bytes; it would issue such a trim */
	if (!s->warned_zero)
		fprintf(s->w->err, "%s:%d: job '%s': %s=%s, record %" PRIu64 ": warning: a %s of 0 bytes "
			"(action 0x%x) is not replayed\n", job->file, job->line, job->name, s->w->option,
			s->w->path, s->rd->index, rq_op_name(op), r->action);
	s->warned_zero = true;
	return SKIP;
}

/* A queue event (fio's queue_trace()): the I/O it is handed to @emit, or nothing. */
static int queue_event(struct state *s, const struct rec *r, rq_bt_emit_fn emit, void *arg)
{
	const struct rq_job *job = s->w->job;
	struct rq_bt_io io = { .file = NULL };
	uint64_t step, len = r->bytes;
	int op, ret;

	/* a timestamp notify has the queue's number: the notify bit tells them apart */
	if ((r->action & 0xffffu) != A_QUEUE || (r->action & C_NOTIFY))
		return 0;
	step = time_step(s, job, r->time);
	s->last_t = r->time;
	if (job->replay_align)
		len = (len + job->replay_align - 1) & ~(job->replay_align - 1);
	op = event_op(s, r, len, &io.file);
	if (op < 0 || op == SKIP)
		return op < 0 ? op : 0;
	if (len > UINT32_MAX)
		return bt_err(s->w, s->rd, "%" PRIu64 " bytes after replay_align=%" PRIu64 ": more than "
			      "a request carries", len, job->replay_align);
	if (!io.file && (ret = dev_file(s, r->device, &io.file)))
		return ret;
	io.op = (uint8_t)op;
	if (op != RQ_OP_FLUSH) {
		io.offset = r->sector * 512 / job->replay_scale;
		if (job->replay_align)
			io.offset &= ~(job->replay_align - 1);
		io.len = (uint32_t)len;
	}
	/* fio keeps a step in whole microseconds */
	s->at_ns += step / 1000 * 1000;
	io.at_ns = s->at_ns;
	s->ios[op]++;
	return emit(arg, &io);
}

/* fio's depth probe, on every record but notifies */
static void probe_depth(struct state *s, const struct rec *r)
{
	unsigned int a = r->action & 0xffffu;
	int d = rec_ddir(r->action);

	if ((r->action & C_NOTIFY) || d < 0)
		return;
	if (a == A_QUEUE) {
		s->this_depth[d]++;
	} else if (a == A_BACKMERGE || a == A_FRONTMERGE) {
		s->this_depth[d]--;
	} else if (a == A_COMPLETE) {
		if (s->this_depth[d] > s->depth[d])
			s->depth[d] = s->this_depth[d];
		s->this_depth[d] = 0;
	}
}

static unsigned int probed_depth(const struct state *s)
{
	unsigned int max = 1;

	for (int d = 0; d < 3; d++) {
		unsigned int v = s->depth[d] > DEPTH_MAX ? DEPTH_MAX : s->depth[d] > 0 ? (unsigned int)s->depth[d] :
				 s->ios[d] ? 1 : 0;

		max = v > max ? v : max;
	}
	return max;
}

int rq_bt_read(FILE *f, const struct rq_bt_where *w, rq_bt_emit_fn emit, void *arg, unsigned int *depth)
{
	struct reader rd;
	struct state s = { .w = w, .rd = &rd };
	struct rec r = { 0 };
	int ret = reader_start(&rd, f, w);

	while (!ret && (ret = next_rec(&rd, &r)) > 0) {
		probe_depth(&s, &r);
		ret = queue_event(&s, &r, emit, arg);
	}
	if (!ret && !(s.ios[0] + s.ios[1] + s.ios[2] + s.ios[3]))
		ret = bt_err(w, NULL, "no I/O to replay: none of its %" PRIu64 " records is a read, write, "
			     "trim or flush queue event%s", rd.index,
			     w->job->replay_skip ? " that replay_skip keeps" : "");
	*depth = probed_depth(&s);
	for (unsigned int i = 0; i < s.nr_devs; i++)
		free(s.devs[i].file);
	free(s.devs);
	return ret;
}

/* ---- merge_blktrace_file ----------------------------------------------- */

/* One trace being merged: its next queue event, its scaling, its passes. */
struct cursor {
	struct reader rd;
	struct rq_bt_where w;
	FILE *f;
	struct rec r;			/* the next event, its time scaled */
	unsigned int scalar, iters, iter;
	uint64_t length;		/* one pass: the time of its last record */
	uint64_t last_t;		/* the last record's time this pass */
	bool live;
};

/* The cursor's next queue event with a direction: 1, 0 when its passes are done, -errno. */
static int cursor_next(struct cursor *c)
{
	for (;;) {
		int v = next_rec(&c->rd, &c->r);

		if (v < 0)
			return v;
		if (!v) {
			if (!c->iter)
				c->length = c->last_t;
			if (++c->iter >= c->iters)
				return 0;
			v = reader_start(&c->rd, c->f, &c->w);
			if (v)
				return v;
			continue;
		}
		c->last_t = c->r.time;
		if ((c->r.action & 0xffffu) != A_QUEUE || rec_ddir(c->r.action) < 0)
			continue;
		c->r.time = (c->r.time + c->iter * c->length) * c->scalar / 100;
		return 1;
	}
}

/* Append one record, no pdu, in this machine's byte order. */
static int out_rec(unsigned char **buf, size_t *len, size_t *cap, struct rec r)
{
	static const uint16_t one = 1;

	if (*len + REC_LEN > *cap) {
		size_t ncap = *cap ? *cap * 2 : 64 * REC_LEN;
		unsigned char *n = realloc(*buf, ncap);

		if (!n)
			return -ENOMEM;
		*buf = n;
		*cap = ncap;
	}
	r.pdu_len = 0;
	encode(*buf + *len, *(const uint8_t *)&one == 0, &r);
	*len += REC_LEN;
	return 0;
}

/* Open and prime the traces: 0, or -errno after one line naming the trace. */
static int merge_open(const struct rq_bt_where *w, struct cursor *cs, char *const *paths, unsigned int nr)
{
	const struct rq_job *job = w->job;
	int ret;

	for (unsigned int i = 0; i < nr; i++) {
		struct cursor *c = &cs[i];

		c->w = *w;
		c->w.option = "read_iolog";
		c->w.path = paths[i];
		/* fio keeps the whole part of each value */
		c->scalar = job->nr_merge_scalars ? (unsigned int)job->merge_blktrace_scalars[i] : 100;
		c->iters = job->nr_merge_iters ? (unsigned int)job->merge_blktrace_iters[i] : 1;
		c->f = fopen(paths[i], "rb");
		if (!c->f)
			return bt_err(&c->w, NULL, "%s", strerror(errno));
		ret = reader_start(&c->rd, c->f, &c->w);
		if (ret)
			return ret;
		ret = cursor_next(c);
		if (ret < 0)
			return ret;
		c->live = ret > 0;
	}
	return 0;
}

int rq_bt_merge(const struct rq_bt_where *w, char *const *paths, unsigned int nr, unsigned char **buf,
		size_t *len)
{
	const struct rq_job *job = w->job;
	struct cursor *cs;
	size_t cap = 0;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	if (job->nr_merge_scalars && job->nr_merge_scalars != nr)
		return bt_err(w, NULL, "merge_blktrace_scalars gives %u value%s for the %u traces of read_iolog",
			      job->nr_merge_scalars, job->nr_merge_scalars == 1 ? "" : "s", nr);
	if (job->nr_merge_iters && job->nr_merge_iters != nr)
		return bt_err(w, NULL, "merge_blktrace_iters gives %u value%s for the %u traces of read_iolog",
			      job->nr_merge_iters, job->nr_merge_iters == 1 ? "" : "s", nr);
	cs = calloc(nr, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	ret = merge_open(w, cs, paths, nr);
	for (;;) {
		struct cursor *min = NULL;

		for (unsigned int i = 0; !ret && i < nr; i++)
			if (cs[i].live && (!min || cs[i].r.time < min->r.time))
				min = &cs[i];
		if (ret || !min)
			break;
		ret = out_rec(buf, len, &cap, min->r);
		if (!ret) {
			int v = cursor_next(min);

			ret = v < 0 ? v : 0;
			min->live = v > 0;
		}
	}
	for (unsigned int i = 0; i < nr; i++)
		if (cs[i].f)
			fclose(cs[i].f);
	free(cs);
	if (!ret && !*len)
		ret = bt_err(w, NULL, "the traces of read_iolog hold no read, write or trim queue event to merge");
	if (ret) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return ret;
}
