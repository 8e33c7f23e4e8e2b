// SPDX-License-Identifier: MIT
/*
 * output.c - render a run report as fio 3.33 renders its results.
 *
 * JSON: fio's top-level object and per-job, per-direction keys for
 * everything the report holds, in fio's order and layout, with "rqlock
 * version" in place of "fio version" and one extra top-level object,
 * "rqlock", for the lock mode, lockstat, queues and devices (fio's tools
 * ignore keys they do not know).  Keys fio derives from data rqlock does
 * not collect (bandwidth and IOPS samples, CPU usage, depth histograms)
 * are left out rather than written as zeros.
 *
 * Normal: fio's per-job text (header, IOPS/BW line, slat/clat/lat lines,
 * clat percentiles), fio's per-group "Run status" lines, then a rqlock
 * section with the lock and queue counters and the devices.
 *
 * As fio, JSON comes before normal text when both are asked for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "results/json_internal.h"
#include "results/results.h"

/* fio's display defaults: sig_figs=4, kb_base=1024, percentile_precision=2 */
#define SIG_FIGS 4
#define PCT_PRECISION 2

static const char *const ddir_name[RQ_DDIR_NR] = {
	[RQ_DDIR_READ] = "read",
	[RQ_DDIR_WRITE] = "write",
};

/*
 * A direction's runtime in ms as fio keeps it: elapsed microseconds,
 * rounded up to whole milliseconds (backend.c update_runtime()).
 */
static uint64_t dir_runtime_ms(const struct rq_dir_report *d)
{
	uint64_t us = d->runtime_ns / 1000;

	return (us + 999) / 1000;
}

/* floor(x * 1000 / ms) without overflowing x * 1000; ms > 0 */
static uint64_t per_sec(uint64_t x, uint64_t ms)
{
	return x / ms * 1000 + x % ms * 1000 / ms;
}

static unsigned int ndigits(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------- JSON */

static void json_lat(struct rq_json *j, const char *key, const struct rq_lat_stat *s, bool pct)
{
	uint64_t v[RQ_NR_PERCENTILES];
	char name[32];
	int i, nr;

	rq_json_obj_open(j, key);
	rq_json_u64(j, "min", s->n ? s->min_ns : 0);
	rq_json_u64(j, "max", s->n ? s->max_ns : 0);
	rq_json_dbl(j, "mean", rq_lat_mean(s));
	rq_json_dbl(j, "stddev", rq_lat_stddev(s));
	rq_json_u64(j, "N", s->n);

	/* as fio: no "percentile" object for an empty distribution */
	nr = pct ? rq_lat_percentiles(s, rq_default_percentiles, RQ_NR_PERCENTILES, v) : 0;
	if (nr > 0) {
		rq_json_obj_open(j, "percentile");
		for (i = 0; i < nr; i++) {
			snprintf(name, sizeof(name), "%f", rq_default_percentiles[i]);
			rq_json_u64(j, name, v[i]);
		}
		rq_json_obj_close(j);
	}
	rq_json_obj_close(j);
}

static void json_dir(struct rq_json *j, const char *key, const struct rq_dir_report *d)
{
	uint64_t runt = dir_runtime_ms(d), bw_bytes = 0;
	double iops = 0.0;

	if (runt) {
		bw_bytes = per_sec(d->io_bytes, runt);
		iops = 1000.0 * (double)d->total_ios / (double)runt;
	}

	rq_json_obj_open(j, key);
	rq_json_u64(j, "io_bytes", d->io_bytes);
	rq_json_u64(j, "io_kbytes", d->io_bytes >> 10);
	rq_json_u64(j, "bw_bytes", bw_bytes);
	rq_json_u64(j, "bw", bw_bytes / 1024);
	rq_json_dbl(j, "iops", iops);
	rq_json_u64(j, "runtime", runt);
	rq_json_u64(j, "total_ios", d->total_ios);
	rq_json_u64(j, "short_ios", 0);
	rq_json_u64(j, "drop_ios", 0);
	json_lat(j, "slat_ns", &d->slat, false);
	json_lat(j, "clat_ns", &d->clat, true);
	json_lat(j, "lat_ns", &d->lat, true);
	rq_json_obj_close(j);
}

static void json_job(struct rq_json *j, const struct rq_job_report *jr)
{
	unsigned int i;
	int d;

	rq_json_obj_open(j, NULL);
	rq_json_strn(j, "jobname", jr->name, sizeof(jr->name));
	rq_json_i64(j, "groupid", jr->groupid);
	rq_json_i64(j, "error", jr->error);

	/* fio leaves "job options" out when the job set none */
	if (jr->nr_opts && jr->opt_keys) {
		rq_json_obj_open(j, "job options");
		for (i = 0; i < jr->nr_opts; i++) {
			if (!jr->opt_keys[i])
				continue;
			rq_json_str(j, jr->opt_keys[i], jr->opt_vals ? jr->opt_vals[i] : "");
		}
		rq_json_obj_close(j);
	}

	for (d = 0; d < RQ_DDIR_NR; d++)
		json_dir(j, ddir_name[d], &jr->dir[d]);

	/* fio's total_run_time: whole milliseconds, truncated */
	rq_json_u64(j, "job_runtime", jr->job_runtime_ns / 1000000);
	rq_json_obj_close(j);
}

static void json_rqlock(struct rq_json *j, const struct rq_run_report *r)
{
	unsigned int i;

	rq_json_obj_open(j, "rqlock");
	rq_json_str(j, "lock_mode", r->lock_mode);
	rq_json_str(j, "lock_type", r->lock_type);
	rq_json_u64(j, "workers", r->workers);
	rq_json_u64(j, "bios_submitted", r->bios_submitted);
	rq_json_u64(j, "bios_completed", r->bios_completed);
	rq_json_u64(j, "sectors_verified", r->sectors_verified);

	rq_json_arr_open(j, "locks");
	for (i = 0; i < r->nr_locks; i++) {
		const struct rq_lock_report *l = &r->locks[i];

		rq_json_obj_open(j, NULL);
		rq_json_strn(j, "name", l->name, sizeof(l->name));
		rq_json_u64(j, "acquisitions", l->acquisitions);
		rq_json_u64(j, "contentions", l->contentions);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);

	rq_json_arr_open(j, "queues");
	for (i = 0; i < r->nr_queues; i++) {
		const struct rq_queue_report *q = &r->queues[i];

		rq_json_obj_open(j, NULL);
		rq_json_strn(j, "name", q->name, sizeof(q->name));
		rq_json_u64(j, "requests", q->requests);
		rq_json_u64(j, "bios", q->bios);
		rq_json_u64(j, "merges_front", q->merges_front);
		rq_json_u64(j, "merges_back", q->merges_back);
		rq_json_u64(j, "dispatched", q->dispatched);
		rq_json_u64(j, "completed", q->completed);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);

	rq_json_arr_open(j, "devices");
	for (i = 0; i < r->nr_devices; i++) {
		const struct rq_device_report *dv = &r->devices[i];

		rq_json_obj_open(j, NULL);
		rq_json_strn(j, "name", dv->name, sizeof(dv->name));
		rq_json_strn(j, "kind", dv->kind, sizeof(dv->kind));
		rq_json_strn(j, "subkind", dv->subkind, sizeof(dv->subkind));
		rq_json_strn(j, "path", dv->path, sizeof(dv->path));
		rq_json_strn(j, "model", dv->model, sizeof(dv->model));
		rq_json_u64(j, "size", dv->size);
		rq_json_u64(j, "logical_block_size", dv->logical_block_size);
		rq_json_u64(j, "queue_depth", dv->queue_depth);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);

	rq_json_obj_close(j);
}

static int write_json(const struct rq_run_report *r, FILE *f)
{
	struct rq_json j;
	unsigned int i;

	rq_json_begin(&j, f);
	rq_json_obj_open(&j, NULL);
	rq_json_str(&j, "rqlock version", r->version ? r->version : "rqlock");
	rq_json_u64(&j, "timestamp", r->timestamp);
	rq_json_u64(&j, "timestamp_ms", r->timestamp_ms);
	rq_json_strn(&j, "time", r->time, sizeof(r->time));
	rq_json_arr_open(&j, "jobs");
	for (i = 0; i < r->nr_jobs; i++)
		json_job(&j, &r->jobs[i]);
	rq_json_arr_close(&j);
	json_rqlock(&j, r);
	rq_json_obj_close(&j);
	return rq_json_end(&j);
}

/* -------------------------------------------------------------- normal */

/* Text sink with a sticky error, as the JSON writer has. */
struct txt {
	FILE *f;
	int err;
};

static void out(struct txt *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out(struct txt *t, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (t->err)
		return;
	va_start(ap, fmt);
	ret = vfprintf(t->f, fmt, ap);
	va_end(ap);
	if (ret < 0)
		t->err = -EIO;
}

/*
 * fio's num2str(): scale @num by 1000 (or 1024 with @pow2) until at most
 * @maxlen digits are left, then use the spare digits, if at least two,
 * for a fraction; with fewer, round the last division half up.  So
 * 8159232 bytes at 4 digits is "7968KiB" and 996000 is "996k".
 */
static const char *n2s(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2, const char *unit)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const iec[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	const char *const *pfx = pow2 ? iec : si;
	unsigned int thousand = pow2 ? 1024 : 1000, post = 0;
	uint64_t rem = 0;
	bool scaled = false, carry = false;
	char frac[32];
	int room;

	while (post < 6 && ndigits(num) > maxlen) {
		rem = num % thousand;
		num /= thousand;
		carry = rem >= thousand / 2;
		post++;
		scaled = true;
	}

	room = (int)maxlen - (int)ndigits(num);
	if (!scaled || room <= 1) {
		if (scaled && carry)
			num++;
		snprintf(buf, len, "%" PRIu64 "%s%s", num, pfx[post], unit);
		return buf;
	}

	/* "0.xyz" for the remainder; a carry into "1.000" bumps the integer */
	snprintf(frac, sizeof(frac), "%.*f", room - 1, (double)rem / (double)thousand);
	if (frac[0] == '1')
		num++;
	snprintf(buf, len, "%" PRIu64 ".%s%s%s", num, frac + 2, pfx[post], unit);
	return buf;
}

/* fio's display_lat(): pick nsec, usec or msec by fio's thresholds. */
static void text_lat(struct txt *t, const char *name, const struct rq_lat_stat *s)
{
	uint64_t min = s->min_ns, max = s->max_ns;
	double mean = rq_lat_mean(s), dev = rq_lat_stddev(s);
	const char *base = "(nsec)";
	char a[32], b[32];

	if (!s->n)
		return;
	if (min > 2000000 && max > 99999999ULL && dev > 1000000.0) {
		min /= 1000000;
		max /= 1000000;
		mean /= 1000000.0;
		dev /= 1000000.0;
		base = "(msec)";
	} else if (min > 2000 && max > 99999 && dev > 1000.0) {
		min /= 1000;
		max /= 1000;
		mean /= 1000.0;
		dev /= 1000.0;
		base = "(usec)";
	}
	out(t, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, base,
	    n2s(a, sizeof(a), min, 6, false, ""), n2s(b, sizeof(b), max, 6, false, ""),
	    mean, dev);
}

/* fio's show_clat_percentiles() with the default list and precision. */
static void text_percentiles(struct txt *t, const char *name, const struct rq_lat_stat *s)
{
	uint64_t v[RQ_NR_PERCENTILES], minv = UINT64_MAX, maxv = 0, div = 1;
	unsigned int scale = 0, width, per_line, k;
	const char *unit = "nsec";
	int i, nr;

	nr = rq_lat_percentiles(s, rq_default_percentiles, RQ_NR_PERCENTILES, v);
	if (nr <= 0)
		return;
	for (i = 0; i < nr; i++) {
		minv = v[i] < minv ? v[i] : minv;
		maxv = v[i] > maxv ? v[i] : maxv;
	}

	if (minv > 2000000 && maxv > 99999999ULL) {
		scale = 2;
		div = 1000000;
		unit = "msec";
	} else if (minv > 2000 && maxv > 99999) {
		scale = 1;
		div = 1000;
		unit = "usec";
	}
	width = ndigits(maxv / div);
	if (width < 5)
		width = 5;
	per_line = (80 - 7) / (PCT_PRECISION + 10 + width);

	out(t, "    %s percentiles (%s):\n     |", name, unit);
	for (i = 0; i < nr; i++) {
		bool last = i == nr - 1;

		if (i && i % per_line == 0)
			out(t, "     |");
		/* each scale step rounds up, as fio does */
		for (k = 0; k < scale; k++)
			v[i] = (v[i] + 999) / 1000;
		out(t, " %*.*fth=[%*" PRIu64 "]%c", PCT_PRECISION + 3, PCT_PRECISION,
		    rq_default_percentiles[i], (int)width, v[i], last ? '\n' : ',');
		if (!last && i % per_line == per_line - 1)
			out(t, "\n");
	}
}

static void text_dir(struct txt *t, const struct rq_dir_report *d, const char *name)
{
	uint64_t runt = dir_runtime_ms(d);
	char io[32], bw[32], bw_alt[32], iops[32];
	uint64_t bps;

	/* as fio: a direction with no bytes or no time is not shown */
	if (!d->io_bytes || !runt)
		return;

	bps = per_sec(d->io_bytes, runt);
	out(t, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)\n", name,
	    n2s(iops, sizeof(iops), per_sec(d->total_ios, runt), SIG_FIGS, false, ""),
	    n2s(bw, sizeof(bw), bps, SIG_FIGS, true, "B/s"),
	    n2s(bw_alt, sizeof(bw_alt), bps, SIG_FIGS, false, "B/s"),
	    n2s(io, sizeof(io), d->io_bytes, SIG_FIGS, true, "B"), runt);
	text_lat(t, "slat", &d->slat);
	text_lat(t, "clat", &d->clat);
	text_lat(t, " lat", &d->lat);
	text_percentiles(t, "clat", &d->clat);
}

/* Copy @s (at most @max bytes) for the terminal: control bytes become '?'. */
static const char *clean(char *buf, size_t len, const char *s, size_t max)
{
	size_t i, n;

	if (!s)
		s = "";
	n = strnlen(s, max);
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[n] = '\0';
	return buf;
}

static void text_job(struct txt *t, const struct rq_job_report *jr, const char *when)
{
	char name[sizeof(jr->name)];
	int d;

	clean(name, sizeof(name), jr->name, sizeof(jr->name));
	/* fio prints the pid here; a clone has no process of its own */
	if (jr->error)
		out(t, "%s: (groupid=%d, jobs=1): err=%2d (%s): clone=%u%s%s\n", name,
		    jr->groupid, jr->error, strerror(jr->error), jr->clone,
		    *when ? ": " : "", when);
	else
		out(t, "%s: (groupid=%d, jobs=1): err=%2d: clone=%u%s%s\n", name,
		    jr->groupid, jr->error, jr->clone, *when ? ": " : "", when);
	for (d = 0; d < RQ_DDIR_NR; d++)
		text_dir(t, &jr->dir[d], ddir_name[d]);
}

/*
 * fio's show_group_stats(): one "Run status group" block per group id
 * that has jobs, in ascending order (fio skips jobs with a negative id).
 */
static void text_groups(struct txt *t, const struct rq_run_report *r)
{
	static const char *const label[RQ_DDIR_NR] = { "   READ", "  WRITE" };
	int gid = -1, d;
	unsigned int i;

	for (;;) {
		bool found = false;
		int next = 0;

		/* the smallest id above the last one shown */
		for (i = 0; i < r->nr_jobs; i++) {
			int g = r->jobs[i].groupid;

			if (g > gid && (!found || g < next)) {
				next = g;
				found = true;
			}
		}
		if (!found)
			break;
		gid = next;

		out(t, "\nRun status group %d (all jobs):\n", gid);
		for (d = 0; d < RQ_DDIR_NR; d++) {
			uint64_t io = 0, min_run = 0, max_run = 0, min_bw = UINT64_MAX, max_bw = 0;
			char s[8][32];

			for (i = 0; i < r->nr_jobs; i++) {
				const struct rq_dir_report *dr = &r->jobs[i].dir[d];
				uint64_t runt = dir_runtime_ms(dr), bw;

				if (r->jobs[i].groupid != gid || !runt)
					continue;
				if (!min_run || runt < min_run)
					min_run = runt;
				if (runt > max_run)
					max_run = runt;
				bw = per_sec(dr->io_bytes, runt);
				min_bw = bw < min_bw ? bw : min_bw;
				max_bw = bw > max_bw ? bw : max_bw;
				io += dr->io_bytes;
			}
			if (!max_run)
				continue;
			out(t, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%" PRIu64 "-%" PRIu64 "msec\n",
			    label[d],
			    n2s(s[0], 32, per_sec(io, max_run), SIG_FIGS, true, "B/s"),
			    n2s(s[1], 32, per_sec(io, max_run), SIG_FIGS, false, "B/s"),
			    n2s(s[2], 32, min_bw, SIG_FIGS, true, "B/s"),
			    n2s(s[3], 32, max_bw, SIG_FIGS, true, "B/s"),
			    n2s(s[4], 32, min_bw, SIG_FIGS, false, "B/s"),
			    n2s(s[5], 32, max_bw, SIG_FIGS, false, "B/s"),
			    n2s(s[6], 32, io, SIG_FIGS, true, "B"),
			    n2s(s[7], 32, io, SIG_FIGS, false, "B"),
			    min_run, max_run);
		}
	}
}

/*
 * A small aligned table: the columns set in @left (bit per column)
 * left-aligned, the rest right-aligned, each as wide as its widest cell.  @cell formats one
 * cell; it is called twice per cell (measure, then print) so nothing is
 * buffered.
 */
#define TABLE_MAX_COLS 8
#define CELL_MAX 288

typedef void (*cell_fn)(const struct rq_run_report *r, unsigned int row, unsigned int col,
			char *buf, size_t len);

static void text_table(struct txt *t, const struct rq_run_report *r, const char *const *hdr,
		       unsigned int ncols, unsigned int left, unsigned int nrows, cell_fn cell)
{
	unsigned int w[TABLE_MAX_COLS], row, col;
	char buf[CELL_MAX];

	for (col = 0; col < ncols; col++)
		w[col] = strlen(hdr[col]);
	for (row = 0; row < nrows; row++)
		for (col = 0; col < ncols; col++) {
			cell(r, row, col, buf, sizeof(buf));
			if (strlen(buf) > w[col])
				w[col] = strlen(buf);
		}

	for (row = 0; row <= nrows; row++) {
		out(t, "  ");
		for (col = 0; col < ncols; col++) {
			/* row 0 is the header */
			if (row)
				cell(r, row - 1, col, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "%s", hdr[col]);
			/* no padding after the last column */
			if (col == ncols - 1 && (left & (1u << col)))
				out(t, "  %s", buf);
			else
				out(t, (left & (1u << col)) ? "  %-*s" : "  %*s", (int)w[col], buf);
		}
		out(t, "\n");
	}
}

static void lock_cell(const struct rq_run_report *r, unsigned int row, unsigned int col,
		      char *buf, size_t len)
{
	const struct rq_lock_report *l = &r->locks[row];

	switch (col) {
	case 0:
		clean(buf, len, l->name, sizeof(l->name));
		break;
	case 1:
		snprintf(buf, len, "%" PRIu64, l->acquisitions);
		break;
	case 2:
		snprintf(buf, len, "%" PRIu64, l->contentions);
		break;
	default:
		if (l->acquisitions)
			snprintf(buf, len, "%.2f%%", 100.0 * (double)l->contentions / (double)l->acquisitions);
		else
			snprintf(buf, len, "-");
		break;
	}
}

static void queue_cell(const struct rq_run_report *r, unsigned int row, unsigned int col,
		       char *buf, size_t len)
{
	const struct rq_queue_report *q = &r->queues[row];
	const uint64_t v[] = { 0, q->bios, q->requests, q->merges_front, q->merges_back,
			       q->dispatched, q->completed };

	if (!col)
		clean(buf, len, q->name, sizeof(q->name));
	else
		snprintf(buf, len, "%" PRIu64, v[col]);
}

static void device_cell(const struct rq_run_report *r, unsigned int row, unsigned int col,
			char *buf, size_t len)
{
	const struct rq_device_report *dv = &r->devices[row];

	switch (col) {
	case 0:
		clean(buf, len, dv->name, sizeof(dv->name));
		break;
	case 1:
		clean(buf, len, dv->kind, sizeof(dv->kind));
		break;
	case 2:
		clean(buf, len, dv->subkind, sizeof(dv->subkind));
		break;
	case 3:
		clean(buf, len, dv->path, sizeof(dv->path));
		break;
	case 4:
		clean(buf, len, dv->model, sizeof(dv->model));
		break;
	case 5:
		n2s(buf, len, dv->size, SIG_FIGS, true, "B");
		return;
	case 6:
		snprintf(buf, len, "%" PRIu32, dv->logical_block_size);
		return;
	default:
		snprintf(buf, len, "%" PRIu32, dv->queue_depth);
		return;
	}
	if (!*buf)
		snprintf(buf, len, "-");
}

static void text_rqlock(struct txt *t, const struct rq_run_report *r)
{
	static const char *const lock_hdr[] = { "lock", "acquisitions", "contentions", "contended" };
	static const char *const queue_hdr[] = { "queue", "bios", "requests", "front merges",
						 "back merges", "dispatched", "completed" };
	static const char *const dev_hdr[] = { "device", "kind", "subkind", "path", "model",
					       "size", "lbs", "qd" };
	char mode[64], type[64];

	out(t, "\nrqlock: lock mode=%s, lock type=%s, workers=%u\n",
	    clean(mode, sizeof(mode), r->lock_mode, sizeof(mode)),
	    clean(type, sizeof(type), r->lock_type, sizeof(type)), r->workers);
	if (r->nr_locks) {
		out(t, "  locks:\n");
		text_table(t, r, lock_hdr, 4, 0x1, r->nr_locks, lock_cell);
	}
	if (r->nr_queues) {
		out(t, "  queues:\n");
		text_table(t, r, queue_hdr, 7, 0x1, r->nr_queues, queue_cell);
	}
	if (r->nr_devices) {
		out(t, "  devices:\n");
		text_table(t, r, dev_hdr, 8, 0x1f, r->nr_devices, device_cell);
	}
}

static int write_normal(const struct rq_run_report *r, FILE *f)
{
	struct txt t = { .f = f };
	char when[sizeof(r->time)];
	unsigned int i;

	clean(when, sizeof(when), r->time, sizeof(r->time));
	/* fio starts its results with an empty line */
	out(&t, "\n");
	for (i = 0; i < r->nr_jobs; i++)
		text_job(&t, &r->jobs[i], when);
	text_groups(&t, r);
	text_rqlock(&t, r);
	return t.err;
}

/* ---------------------------------------------------------------- API */

static const struct {
	const char *name;
	unsigned int flag;
} formats_table[] = {
	{ "normal", RQ_OUTPUT_NORMAL },
	{ "json", RQ_OUTPUT_JSON },
};

#define ALL_FORMATS (RQ_OUTPUT_NORMAL | RQ_OUTPUT_JSON)

int rq_output_parse_format(const char *s, unsigned int *formats)
{
	unsigned int set = 0, i;
	const char *p = s, *end;
	size_t len;

	if (!s || !formats)
		return -EINVAL;
	for (;;) {
		bool found = false;

		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(formats_table) / sizeof(formats_table[0]); i++) {
			if (strlen(formats_table[i].name) == len &&
			    !strncmp(formats_table[i].name, p, len)) {
				set |= formats_table[i].flag;
				found = true;
				break;
			}
		}
		if (!found)
			return -EINVAL;
		if (!end)
			break;
		p = end + 1;
	}
	*formats = set;
	return 0;
}

static bool report_ok(const struct rq_run_report *r)
{
	return (r->jobs || !r->nr_jobs) && (r->locks || !r->nr_locks) &&
	       (r->queues || !r->nr_queues) && (r->devices || !r->nr_devices);
}

int rq_output_write(const struct rq_run_report *r, unsigned int formats, FILE *f)
{
	int ret = 0, err;

	if (!r || !f || !formats || (formats & ~ALL_FORMATS) || !report_ok(r))
		return -EINVAL;

	if (formats & RQ_OUTPUT_JSON)
		ret = write_json(r, f);
	if (!ret && (formats & RQ_OUTPUT_NORMAL))
		ret = write_normal(r, f);
	if (ret)
		return ret;

	/* a full disk shows only when the stdio buffer is written out */
	if (fflush(f)) {
		err = errno;
		return err ? -err : -EIO;
	}
	return ferror(f) ? -EIO : 0;
}
