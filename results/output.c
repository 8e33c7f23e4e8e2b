// SPDX-License-Identifier: MIT
/*
 * output.c - render a run report as fio 3.33 renders its results.
 *
 * The unit of output is fio's thread_stat, here a "view": one job clone,
 * or - with group_reporting - the run of consecutive clones of one
 * reporting group merged as fio's __show_run_stats and sum_thread_stats
 * merge them (latencies merged, bytes and I/Os summed, runtime the
 * longest, job_runtime summed, bw/IOPS sample statistics summed, name and
 * description from the first clone, percentile settings and "job options"
 * from the last, error the first one seen).  unified_rw_reporting=mixed
 * folds reads and writes into one direction as fio does; =both adds the
 * folded direction after the others.  One view is built at a time, in a
 * buffer reused for the next, so memory does not grow with the clones.
 *
 * JSON: fio's top-level object and per-job keys in fio's order and
 * layout ("fio version" holds rqlock's version, e.g. rqlock-0.1.0), and one extra
 * top-level object, "rqlock", for the lock mode, lockstat, queues and
 * devices (fio's tools ignore keys they do not know).  json+ adds fio's
 * "bins" (bucket value -> count) to each latency that has percentiles.
 * fio's latency_ns/us/ms buckets are derived from the completion-latency
 * histogram: a histogram bucket that straddles one of fio's edges is
 * counted on the side of its reported value, so such a bucket can move at
 * most its own width (1/64 of the value) across the edge.
 *
 * Terse: fio's --minimal version 3 line per view.
 *
 * Normal: fio's per-job text, fio's per-group "Run status" lines, then a
 * rqlock section with the lock and queue counters and the devices
 * (output_rqlock.c writes that section and the JSON "rqlock" object).
 *
 * As fio, terse comes first, then JSON, then normal text.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "results/json_internal.h"
#include "results/output_internal.h"
#include "results/results.h"

#define LIST_MAX 20		/* fio's FIO_IO_U_LIST_MAX_LEN */
#define TERSE_VERSION 3

enum { UNIFIED_NONE = 0, UNIFIED_MIXED = 1, UNIFIED_BOTH = 2 };

static const char *const ddir_name[RQ_DDIR_NR] = {
	[RQ_DDIR_READ] = "read",
	[RQ_DDIR_WRITE] = "write",
	[RQ_DDIR_TRIM] = "trim",
};

/* fio's io_stat for bw/IOPS samples, merged by plain sums (sum_stat, pure_sum) */
struct sstat {
	uint64_t n, min, max;
	double mean, S;		/* S: sum of squared deviations, stddev^2 * (n - 1) */
};

/* fio's thread_stat: what one report entry shows. */
struct view {
	const struct rq_job_report *first, *last;
	unsigned int members;
	int error;
	int unified;
	unsigned int kb_base, sig_figs;
	double pct[LIST_MAX];		/* sorted, as fio sorts its list */
	unsigned int nr_pct, precision;
	bool clat_pct, lat_pct, slat_pct;
	struct rq_dir_report dir[RQ_DDIR_NR];	/* dir[0] only, when mixed */
	uint64_t runtime_ms[RQ_DDIR_NR];
	struct sstat bw[RQ_DDIR_NR], iops[RQ_DDIR_NR];
	uint64_t total_run_time;	/* ms, summed */
	double usr_ms, sys_ms;
	uint64_t ctx, majf, minf;
	uint64_t depth[RQ_DEPTH_BUCKETS], submit[RQ_DEPTH_BUCKETS], complete[RQ_DEPTH_BUCKETS];
	uint64_t total_submit, total_complete;
	int coe;
	uint64_t total_err;
	uint64_t zone_resets;
	int first_error;
	unsigned int iodepth;
	uint64_t lat_target_ns, lat_window_us;
	double lat_percentile;
	uint64_t sync_ios;		/* fsync=N's flushes */
	struct rq_lat_stat sync;
	/*
	 * dir[d].prio points here (view_wire()): the members' priorities,
	 * merged.  Last, and left out of the view's memset and copy: an entry
	 * is cleared when rq_prio_merge() adds it.
	 */
	struct rq_prio_stat prio_store[RQ_DDIR_NR][RQ_PRIOS_MAX];
};
#define VIEW_FIXED offsetof(struct view, prio_store)

/* An empty view whose directions' priorities live in its own storage. */
static void view_wire(struct view *v)
{
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		v->dir[d].prio = v->prio_store[d];
		v->dir[d].nr_prios = 0;
	}
}

/* fio's group_run_stats: one per reporting group */
struct group {
	uint64_t max_run[RQ_DDIR_NR], min_run[RQ_DDIR_NR];
	uint64_t max_bw[RQ_DDIR_NR], min_bw[RQ_DDIR_NR];
	uint64_t iobytes[RQ_DDIR_NR], agg[RQ_DDIR_NR];
	int unified;
	unsigned int kb_base, sig_figs;
	bool any;
};

/* What a render needs: the report, the groups, two view buffers. */
struct ctx {
	const struct rq_run_report *r;
	struct group *groups;
	int nr_groups;
	struct view *v, *mix;
	bool json_plus;
	struct rq_json *j;
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


/* ------------------------------------------------------------- views */

static void sstat_add(struct sstat *d, uint64_t n, uint64_t min, uint64_t max, double mean, double S)
{
	if (!n)
		return;
	if (!d->n) {
		d->n = n;
		d->min = min;
		d->max = max;
		d->mean = mean;
		d->S = S;
		return;
	}
	d->n += n;
	d->min += min;
	d->max += max;
	d->mean += mean;
	d->S += S;
}

static void sstat_add_sample(struct sstat *d, const struct rq_sample_stat *s)
{
	double S = s->samples > 1 ? s->stddev * s->stddev * (double)(s->samples - 1) : 0.0;

	sstat_add(d, s->samples, s->min, s->max, s->mean, S);
}

/* fio's calc_lat() on an io_stat: false when there are no samples */
static bool sstat_calc(const struct sstat *s, uint64_t *min, uint64_t *max, double *mean, double *dev)
{
	if (!s->n)
		return false;
	*min = s->min;
	*max = s->max;
	*mean = s->mean;
	*dev = s->n > 1 ? sqrt(s->S / (double)(s->n - 1)) : 0.0;
	return true;
}

/* rqlock's lat_intended, late_ios, max_lag_ns: merged like fio's latencies. */
static void intended_merge(struct rq_dir_report *o, const struct rq_dir_report *s)
{
	if (!s->paced)
		return;
	o->paced = true;
	rq_lat_merge(&o->lat_intended, &s->lat_intended);
	o->late_ios += s->late_ios;
	if (s->max_lag_ns > o->max_lag_ns)
		o->max_lag_ns = s->max_lag_ns;
}

/* Percentile settings of a member: fio's list, or the job's own, sorted. */
static void view_percentiles(struct view *v, const struct rq_job_report *m)
{
	v->nr_pct = rq_job_percentiles(m, v->pct, LIST_MAX, &v->precision);
	v->clat_pct = m->clat_percentiles;
	v->lat_pct = m->lat_percentiles;
	v->slat_pct = m->slat_percentiles;
}

/* Fold one member into the view, as sum_thread_stats (@full: latencies too). */
static void view_add(struct view *v, const struct rq_job_report *m, bool full)
{
	double rt;

	if (!v->members) {
		v->first = m;
		v->unified = m->unified_rw_reporting;
		v->kb_base = m->kb_base ? m->kb_base : 1024;
		v->sig_figs = m->sig_figs ? m->sig_figs : SIG_FIGS;
	}
	v->last = m;
	view_percentiles(v, m);
	if (!v->error) {
		if (!m->error && m->continue_on_error && m->first_error)
			v->error = m->first_error;
		else if (m->error)
			v->error = m->error;
	}
	v->coe = m->continue_on_error;
	v->total_err += m->total_err;
	v->zone_resets += m->zone_resets;
	v->first_error = m->first_error;
	v->iodepth = m->iodepth;
	v->lat_target_ns = m->latency_target_ns;
	v->sync_ios += m->sync_ios;
	if (full)
		rq_lat_merge(&v->sync, &m->sync);
	v->lat_window_us = m->latency_window_us;
	v->lat_percentile = m->latency_percentile;

	for (int d = 0; d < RQ_DDIR_NR; d++) {
		const struct rq_dir_report *s = &m->dir[d];
		int t = v->unified == UNIFIED_MIXED ? 0 : d;
		struct rq_dir_report *o = &v->dir[t];
		uint64_t rt_ms = dir_runtime_ms(s);

		if (full) {
			rq_lat_merge(&o->slat, &s->slat);
			rq_lat_merge(&o->clat, &s->clat);
			rq_lat_merge(&o->lat, &s->lat);
			intended_merge(o, s);
			rq_prio_merge(o, s);
		}
		sstat_add_sample(&v->bw[t], &s->bw);
		sstat_add_sample(&v->iops[t], &s->iops);
		o->io_bytes += s->io_bytes;
		o->total_ios += s->total_ios;
		if (rt_ms > v->runtime_ms[t])
			v->runtime_ms[t] = rt_ms;
	}
	rt = (double)(m->job_runtime_ns / 1000000);
	v->total_run_time += m->job_runtime_ns / 1000000;
	v->usr_ms += m->usr_cpu * rt / 100.0;
	v->sys_ms += m->sys_cpu * rt / 100.0;
	v->ctx += m->ctx;
	v->majf += m->majf;
	v->minf += m->minf;
	for (int i = 0; i < RQ_DEPTH_BUCKETS; i++) {
		v->depth[i] += m->depth_hist[i];
		v->submit[i] += m->submit_hist[i];
		v->complete[i] += m->complete_hist[i];
		v->total_submit += m->submit_hist[i];
		v->total_complete += m->complete_hist[i];
	}
	v->members++;
}

/*
 * The next view from clone *i on: fio starts a new thread_stat at a clone
 * without group_reporting, or one in another group than the clone before.
 */
static bool view_next(const struct rq_run_report *r, unsigned int *i, struct view *v, bool full)
{
	unsigned int a = *i, b;

	if (a >= r->nr_jobs)
		return false;
	for (b = a + 1; b < r->nr_jobs; b++)
		if (!r->jobs[b].group_reporting || r->jobs[b].groupid != r->jobs[b - 1].groupid)
			break;
	memset(v, 0, VIEW_FIXED);
	view_wire(v);
	for (unsigned int k = a; k < b; k++)
		view_add(v, &r->jobs[k], full);
	*i = b;
	return true;
}

/* fio's gen_mixed_ddir_stats_from_ts(): reads and writes of @v folded into @mix->dir[0]. */
static void view_mixed(struct view *mix, const struct view *v)
{
	memcpy(mix, v, VIEW_FIXED);
	memset(mix->dir, 0, sizeof(mix->dir));
	view_wire(mix);
	memset(mix->runtime_ms, 0, sizeof(mix->runtime_ms));
	memset(mix->bw, 0, sizeof(mix->bw));
	memset(mix->iops, 0, sizeof(mix->iops));
	mix->unified = UNIFIED_MIXED;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		const struct rq_dir_report *s = &v->dir[d];

		rq_lat_merge(&mix->dir[0].slat, &s->slat);
		rq_lat_merge(&mix->dir[0].clat, &s->clat);
		rq_lat_merge(&mix->dir[0].lat, &s->lat);
		intended_merge(&mix->dir[0], s);
		rq_prio_merge(&mix->dir[0], s);
		sstat_add(&mix->bw[0], v->bw[d].n, v->bw[d].min, v->bw[d].max, v->bw[d].mean, v->bw[d].S);
		sstat_add(&mix->iops[0], v->iops[d].n, v->iops[d].min, v->iops[d].max, v->iops[d].mean,
			  v->iops[d].S);
		mix->dir[0].io_bytes += s->io_bytes;
		mix->dir[0].total_ios += s->total_ios;
		if (v->runtime_ms[d] > mix->runtime_ms[0])
			mix->runtime_ms[0] = v->runtime_ms[d];
	}
}

/* fio's per-group run stats, over the views (not the clones) of each group. */
static int groups_build(struct ctx *c)
{
	const struct rq_run_report *r = c->r;
	unsigned int i = 0;
	int max = -1;

	for (unsigned int k = 0; k < r->nr_jobs; k++)
		if (r->jobs[k].groupid > max)
			max = r->jobs[k].groupid;
	c->nr_groups = max + 1;
	c->groups = calloc(c->nr_groups > 0 ? (size_t)c->nr_groups : 1, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	for (int g = 0; g < c->nr_groups; g++)
		for (int d = 0; d < RQ_DDIR_NR; d++)
			c->groups[g].min_bw[d] = c->groups[g].min_run[d] = UINT64_MAX;
	while (view_next(r, &i, c->v, false)) {
		const struct view *v = c->v;
		struct group *g;

		if (v->first->groupid < 0)
			continue;
		g = &c->groups[v->first->groupid];
		g->any = true;
		g->kb_base = v->kb_base;
		g->sig_figs = v->sig_figs;
		g->unified |= v->unified;
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			uint64_t bw;

			if (!v->runtime_ms[d])
				continue;
			if (v->runtime_ms[d] < g->min_run[d])
				g->min_run[d] = v->runtime_ms[d];
			if (v->runtime_ms[d] > g->max_run[d])
				g->max_run[d] = v->runtime_ms[d];
			bw = per_sec(v->dir[d].io_bytes, v->runtime_ms[d]);
			if (bw < g->min_bw[d])
				g->min_bw[d] = bw;
			if (bw > g->max_bw[d])
				g->max_bw[d] = bw;
			g->iobytes[d] += v->dir[d].io_bytes;
		}
	}
	for (int g = 0; g < c->nr_groups; g++)
		for (int d = 0; d < RQ_DDIR_NR; d++)
			if (c->groups[g].max_run[d])
				c->groups[g].agg[d] = per_sec(c->groups[g].iobytes[d], c->groups[g].max_run[d]);
	return 0;
}

static const struct group *group_of(const struct ctx *c, const struct view *v)
{
	int g = v->first->groupid;

	return g >= 0 && g < c->nr_groups ? &c->groups[g] : NULL;
}

/* fio's convert_agg_kbytes_percent(): the mean taken as an int, as fio passes it */
static double agg_percent(const struct group *g, int d, double mean)
{
	double p = 100.0;

	if (g && g->agg[d] > 1024) {
		p = (double)(int)mean * 100.0 / ((double)g->agg[d] / 1024.0);
		if (p > 100.0)
			p = 100.0;
	}
	return p;
}

/* fio's stat_calc_dist(): percent of @total, a non-zero count at least 0.1 */
static void calc_dist(const uint64_t *map, uint64_t total, double *out)
{
	for (int i = 0; i < RQ_DEPTH_BUCKETS; i++) {
		out[i] = 0.0;
		if (!total)
			continue;
		out[i] = (double)map[i] / (double)total * 100.0;
		if (out[i] < 0.1 && map[i])
			out[i] = 0.1;
	}
}

static uint64_t view_total_ios(const struct view *v)
{
	return v->dir[0].total_ios + v->dir[1].total_ios + v->dir[2].total_ios;
}

#define LAT_N_NR 10
#define LAT_U_NR 10
#define LAT_M_NR 12

/*
 * fio's latency_ns/us/ms percentages (stat_calc_lat*), from the completion
 * histograms: each histogram bucket is counted at its reported value.
 * Returns the count of I/Os under a microsecond (the terse format adds
 * them into its first microsecond bucket).
 */
static uint64_t calc_lat_buckets(const struct view *v, double *n, double *u, double *m)
{
	uint64_t cn[LAT_N_NR] = { 0 }, cu[LAT_U_NR] = { 0 }, cm[LAT_M_NR] = { 0 };
	uint64_t total = view_total_ios(v);

	for (int d = 0; d < RQ_DDIR_NR; d++) {
		const struct rq_lat_stat *s = &v->dir[d].clat;

		if (!s->n)
			continue;
		for (unsigned int i = 0; i < RQ_PLAT_NR; i++) {
			uint64_t ns;

			if (!s->plat[i])
				continue;
			ns = rq_plat_idx_to_val(i);
			if (ns < 1000)
				cn[rq_lat_bucket(ns) < LAT_N_NR ? rq_lat_bucket(ns) : LAT_N_NR - 1] += s->plat[i];
			else if (ns < 1000000)
				cu[rq_lat_bucket(ns / 1000) < LAT_U_NR ? rq_lat_bucket(ns / 1000) : LAT_U_NR - 1] += s->plat[i];
			else
				cm[rq_lat_bucket(ns / 1000000)] += s->plat[i];
		}
	}
	for (int i = 0; i < LAT_M_NR; i++) {
		double *out[3] = { i < LAT_N_NR ? &n[i] : NULL, i < LAT_U_NR ? &u[i] : NULL, &m[i] };
		const uint64_t cnt[3] = { i < LAT_N_NR ? cn[i] : 0, i < LAT_U_NR ? cu[i] : 0, cm[i] };

		for (int k = 0; k < 3; k++) {
			if (!out[k])
				continue;
			*out[k] = total ? (double)cnt[k] / (double)total * 100.0 : 0.0;
			if (total && *out[k] < 0.01 && cnt[k])
				*out[k] = 0.01;
		}
	}
	total = 0;
	for (int i = 0; i < LAT_N_NR; i++)
		total += cn[i];
	return total;
}

static void view_cpu(const struct view *v, double *usr, double *sys)
{
	*usr = *sys = 0.0;
	if (v->total_run_time) {
		*usr = v->usr_ms * 100.0 / (double)v->total_run_time;
		*sys = v->sys_ms * 100.0 / (double)v->total_run_time;
	}
}

/* Percentiles of @s over the view's list; 0 filled when @s is empty, as fio's walk gives. */
static unsigned int view_pcts(const struct view *v, const struct rq_lat_stat *s, uint64_t *out)
{
	if (rq_lat_percentiles(s, v->pct, (int)v->nr_pct, out) <= 0)
		memset(out, 0, v->nr_pct * sizeof(*out));
	return v->nr_pct;
}

/* ---------------------------------------------------------------- JSON */


static const struct rq_dir_report zero_dir;
static const struct sstat zero_sstat;

/* fio's add_ddir_lat_json() */
static void json_lat(struct ctx *c, const struct view *v, const char *key,
		     const struct rq_lat_stat *s, bool pct)
{
	struct rq_json *j = c->j;
	uint64_t val[LIST_MAX];
	char name[32];
	unsigned int i, nr;

	rq_json_obj_open(j, key);
	rq_json_u64(j, "min", s->n ? s->min_ns : 0);
	rq_json_u64(j, "max", s->n ? s->max_ns : 0);
	rq_json_dbl(j, "mean", rq_lat_mean(s));
	rq_json_dbl(j, "stddev", rq_lat_stddev(s));
	rq_json_u64(j, "N", s->n);
	/* as fio: no "percentile" object for an empty distribution */
	if (pct && s->n) {
		nr = view_pcts(v, s, val);
		rq_json_obj_open(j, "percentile");
		for (i = 0; i < nr; i++) {
			snprintf(name, sizeof(name), "%f", v->pct[i]);
			rq_json_u64(j, name, val[i]);
		}
		rq_json_obj_close(j);
		if (c->json_plus) {
			rq_json_obj_open(j, "bins");
			for (i = 0; i < RQ_PLAT_NR; i++) {
				if (!s->plat[i])
					continue;
				snprintf(name, sizeof(name), "%" PRIu64, rq_plat_idx_to_val(i));
				rq_json_u64(j, name, s->plat[i]);
			}
			rq_json_obj_close(j);
		}
	}
	rq_json_obj_close(j);
}

/* fio's get_nr_prios_with_samples() */
static unsigned int prios_with_samples(const struct rq_dir_report *dr)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < dr->nr_prios; i++)
		n += dr->prio[i].lat.n != 0;
	return n;
}

/*
 * fio's "prios": each priority's clat (lat under lat_percentiles), when two
 * or more have samples.
 */
static void json_prios(struct ctx *c, const struct view *v, const struct rq_dir_report *dr)
{
	struct rq_json *j = c->j;

	if (prios_with_samples(dr) < 2)
		return;
	rq_json_arr_open(j, "prios");
	for (unsigned int i = 0; i < dr->nr_prios; i++) {
		const struct rq_prio_stat *p = &dr->prio[i];

		if (!p->lat.n)
			continue;
		rq_json_obj_open(j, NULL);
		rq_json_u64(j, "prioclass", p->ioprio >> RQ_IOPRIO_CLASS_SHIFT);
		rq_json_u64(j, "prio", p->ioprio & ((1u << RQ_IOPRIO_CLASS_SHIFT) - 1));
		json_lat(c, v, v->lat_pct ? "lat_ns" : "clat_ns", &p->lat, v->clat_pct || v->lat_pct);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
}

/* fio's add_ddir_status_json() for a direction; @d < 0 is an idle one */
static void json_dir(struct ctx *c, const struct view *v, const char *key, int d)
{
	struct rq_json *j = c->j;
	const struct rq_dir_report *dr = d >= 0 ? &v->dir[d] : &zero_dir;
	const struct sstat *bw = d >= 0 ? &v->bw[d] : &zero_sstat;
	const struct sstat *io = d >= 0 ? &v->iops[d] : &zero_sstat;
	uint64_t runt = d >= 0 ? v->runtime_ms[d] : 0, bw_bytes = 0, min, max;
	double iops = 0.0, mean, dev, p;

	if (runt) {
		bw_bytes = per_sec(dr->io_bytes, runt);
		iops = 1000.0 * (double)dr->total_ios / (double)runt;
	}
	rq_json_obj_open(j, key);
	rq_json_u64(j, "io_bytes", dr->io_bytes);
	rq_json_u64(j, "io_kbytes", dr->io_bytes >> 10);
	rq_json_u64(j, "bw_bytes", bw_bytes);
	rq_json_u64(j, "bw", bw_bytes / 1024);
	rq_json_dbl(j, "iops", iops);
	rq_json_u64(j, "runtime", runt);
	rq_json_u64(j, "total_ios", dr->total_ios);
	rq_json_u64(j, "short_ios", 0);
	rq_json_u64(j, "drop_ios", 0);
	json_lat(c, v, "slat_ns", &dr->slat, v->slat_pct);
	json_lat(c, v, "clat_ns", &dr->clat, v->clat_pct);
	json_lat(c, v, "lat_ns", &dr->lat, v->lat_pct);
	json_prios(c, v, dr);
	/* rqlock's own, rate-limited jobs only: always with percentiles (the point of it) */
	if (dr->paced) {
		json_lat(c, v, "lat_intended_ns", &dr->lat_intended, true);
		rq_json_u64(j, "late_ios", dr->late_ios);
		rq_json_u64(j, "max_lag_ns", dr->max_lag_ns);
	}

	if (sstat_calc(bw, &min, &max, &mean, &dev)) {
		p = agg_percent(group_of(c, v), d, mean);
	} else {
		min = max = 0;
		p = mean = dev = 0.0;
	}
	rq_json_u64(j, "bw_min", min);
	rq_json_u64(j, "bw_max", max);
	rq_json_dbl(j, "bw_agg", p);
	rq_json_dbl(j, "bw_mean", mean);
	rq_json_dbl(j, "bw_dev", dev);
	rq_json_u64(j, "bw_samples", bw->n);
	if (!sstat_calc(io, &min, &max, &mean, &dev)) {
		min = max = 0;
		mean = dev = 0.0;
	}
	rq_json_u64(j, "iops_min", min);
	rq_json_u64(j, "iops_max", max);
	rq_json_dbl(j, "iops_mean", mean);
	rq_json_dbl(j, "iops_stddev", dev);
	rq_json_u64(j, "iops_samples", io->n);
	rq_json_obj_close(j);
}

static void json_opts(struct rq_json *j, const char *key, const char *const *keys,
		      const char *const *vals, unsigned int nr)
{
	/* fio leaves the object out when no option was given */
	if (!nr || !keys)
		return;
	rq_json_obj_open(j, key);
	for (unsigned int i = 0; i < nr; i++)
		if (keys[i])
			rq_json_str(j, keys[i], vals ? vals[i] : "");
	rq_json_obj_close(j);
}

static void json_dist(struct rq_json *j, const char *key, const char *const *names,
		      const uint64_t *map, uint64_t total)
{
	double dist[RQ_DEPTH_BUCKETS];

	calc_dist(map, total, dist);
	rq_json_obj_open(j, key);
	for (int i = 0; i < RQ_DEPTH_BUCKETS; i++)
		rq_json_dbl(j, names[i], dist[i]);
	rq_json_obj_close(j);
}

/* fio's show_thread_status_json() */
static void json_job(struct ctx *c, const struct view *v)
{
	static const char *const level[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	static const char *const ranges[] = { "2", "4", "10", "20", "50", "100", "250", "500",
					      "750", "1000", "2000", ">=2000" };
	struct rq_json *j = c->j;
	const struct rq_job_report *m = v->first;
	double lat_n[LAT_N_NR], lat_u[LAT_U_NR], lat_m[LAT_M_NR], usr, sys;
	uint64_t elapsed = (c->r->elapsed_ms + 999) / 1000;
	int i;

	rq_json_obj_open(j, NULL);
	rq_json_strn(j, "jobname", m->name, sizeof(m->name));
	rq_json_i64(j, "groupid", m->groupid);
	rq_json_i64(j, "error", v->error);
	/* fio's ETA: none before 3 s have passed, and nothing is left at the end */
	rq_json_i64(j, "eta", elapsed >= 3 ? 0 : INT_MAX);
	rq_json_u64(j, "elapsed", elapsed);
	json_opts(j, "job options", v->last->opt_keys, v->last->opt_vals, v->last->nr_opts);

	if (v->unified == UNIFIED_MIXED) {
		json_dir(c, v, "mixed", 0);
	} else {
		for (int d = 0; d < RQ_DDIR_NR; d++)
			json_dir(c, v, ddir_name[d], d);
	}
	/* fio leaves "sync" out too when everything is reported as mixed */
	if (v->unified != UNIFIED_MIXED) {
		rq_json_obj_open(j, "sync");
		rq_json_u64(j, "total_ios", v->sync_ios);
		json_lat(c, v, "lat_ns", &v->sync, v->clat_pct || v->lat_pct);
		rq_json_obj_close(j);
	}
	if (v->unified == UNIFIED_BOTH) {
		view_mixed(c->mix, v);
		json_dir(c, c->mix, "mixed", 0);
	}

	view_cpu(v, &usr, &sys);
	rq_json_u64(j, "job_runtime", v->total_run_time);
	rq_json_dbl(j, "usr_cpu", usr);
	rq_json_dbl(j, "sys_cpu", sys);
	rq_json_u64(j, "ctx", v->ctx);
	rq_json_u64(j, "majf", v->majf);
	rq_json_u64(j, "minf", v->minf);
	json_dist(j, "iodepth_level", level, v->depth, view_total_ios(v));
	json_dist(j, "iodepth_submit", batch, v->submit, v->total_submit);
	json_dist(j, "iodepth_complete", batch, v->complete, v->total_complete);

	calc_lat_buckets(v, lat_n, lat_u, lat_m);
	rq_json_obj_open(j, "latency_ns");
	for (i = 0; i < LAT_N_NR; i++)
		rq_json_dbl(j, ranges[i], lat_n[i]);
	rq_json_obj_close(j);
	rq_json_obj_open(j, "latency_us");
	for (i = 0; i < LAT_U_NR; i++)
		rq_json_dbl(j, ranges[i], lat_u[i]);
	rq_json_obj_close(j);
	rq_json_obj_open(j, "latency_ms");
	for (i = 0; i < LAT_M_NR; i++)
		rq_json_dbl(j, ranges[i], lat_m[i]);
	rq_json_obj_close(j);

	if (v->coe) {
		rq_json_u64(j, "total_err", v->total_err);
		rq_json_i64(j, "first_error", v->first_error);
	}
	/*
	 * fio writes its latency_target block whenever the job has a depth:
	 * the depth found (or iodepth), the target in ns, the window in us
	 */
	if (v->iodepth) {
		rq_json_u64(j, "latency_depth", v->iodepth);
		rq_json_u64(j, "latency_target", v->lat_target_ns);
		rq_json_dbl(j, "latency_percentile", v->lat_percentile);
		rq_json_u64(j, "latency_window", v->lat_window_us);
	}
	if (m->description && m->description[0])
		rq_json_str(j, "desc", m->description);
	/* fio takes the steady state of the view's last member (one judge per group) */
	if (v->last->ss)
		rq_ss_json(j, v->last->ss);
	rq_json_obj_close(j);
}

static int write_json(struct ctx *c, FILE *f)
{
	const struct rq_run_report *r = c->r;
	struct rq_json j;
	unsigned int i = 0;

	rq_json_begin(&j, f);
	c->j = &j;
	rq_json_obj_open(&j, NULL);
	rq_json_str(&j, "fio version", r->version ? r->version : "rqlock");	/* fio's key, our version: tools find the key they read */
	rq_json_u64(&j, "timestamp", r->timestamp);
	rq_json_u64(&j, "timestamp_ms", r->timestamp_ms);
	rq_json_strn(&j, "time", r->time, sizeof(r->time));
	json_opts(&j, "global options", r->global_opt_keys, r->global_opt_vals, r->nr_global_opts);
	rq_json_arr_open(&j, "jobs");
	while (view_next(r, &i, c->v, true))
		json_job(c, c->v);
	rq_json_arr_close(&j);
	rq_output_rqlock_json(&j, r);
	rq_json_obj_close(&j);
	c->j = NULL;
	return rq_json_end(&j);
}

/* ---------------------------------------------------------------- terse */

/* fio's calc_lat() in microseconds, for the terse fields */
static void terse_lat(struct rq_txt *t, const struct rq_lat_stat *s)
{
	if (s->n)
		rq_txt_out(t, ";%" PRIu64 ";%" PRIu64 ";%f;%f", s->min_ns / 1000, s->max_ns / 1000,
		    rq_lat_mean(s) / 1000.0, rq_lat_stddev(s) / 1000.0);
	else
		rq_txt_out(t, ";%llu;%llu;%f;%f", 0ULL, 0ULL, 0.0, 0.0);
}

/* fio's show_ddir_status_terse(), version 3 */
static void terse_dir(struct rq_txt *t, const struct ctx *c, const struct view *v, int d)
{
	const struct rq_dir_report *dr = &v->dir[d];
	const struct group *g = group_of(c, v);
	uint64_t runt = v->runtime_ms[d], bw = 0, iops = 0, min, max, val[LIST_MAX];
	const struct rq_lat_stat *ps = NULL;
	unsigned int nr = 0, i;
	double mean, dev;

	if (runt) {
		bw = per_sec(dr->io_bytes, runt) / 1024;
		iops = per_sec(dr->total_ios, runt);
	}
	rq_txt_out(t, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64, dr->io_bytes >> 10, bw, iops, runt);
	terse_lat(t, &dr->slat);
	terse_lat(t, &dr->clat);
	if (v->lat_pct)
		ps = &dr->lat;
	else if (v->clat_pct)
		ps = &dr->clat;
	if (ps)
		nr = view_pcts(v, ps, val);
	for (i = 0; i < LIST_MAX; i++) {
		if (i >= nr)
			rq_txt_out(t, ";0%%=0");
		else
			rq_txt_out(t, ";%f%%=%" PRIu64, v->pct[i], val[i] / 1000);
	}
	terse_lat(t, &dr->lat);
	if (sstat_calc(&v->bw[d], &min, &max, &mean, &dev)) {
		double p = 100.0;

		if (g && g->agg[d]) {
			p = mean * 100.0 / (double)(g->agg[d] / 1024);
			if (p > 100.0)
				p = 100.0;
		}
		rq_txt_out(t, ";%" PRIu64 ";%" PRIu64 ";%f%%;%f;%f", min, max, p, mean, dev);
	} else {
		rq_txt_out(t, ";%llu;%llu;%f%%;%f;%f", 0ULL, 0ULL, 0.0, 0.0, 0.0);
	}
}

/* fio's show_thread_status_terse_all(), version 3 */
static void terse_job(struct rq_txt *t, struct ctx *c, const struct view *v)
{
	const struct rq_job_report *m = v->first;
	double usr, sys, dist[RQ_DEPTH_BUCKETS], lat_n[LAT_N_NR], lat_u[LAT_U_NR], lat_m[LAT_M_NR];
	uint64_t total = view_total_ios(v), ns;
	int i;

	/* the terse format is ';'-separated: a ';' in a name would shift every field */
	rq_txt_out(t, "%d;%s;", TERSE_VERSION, c->r->version ? c->r->version : "rqlock");
	for (i = 0; i < (int)sizeof(m->name) && m->name[i]; i++)
		rq_txt_out(t, "%c", m->name[i] == ';' || (unsigned char)m->name[i] < 0x20 ? '_' : m->name[i]);
	rq_txt_out(t, ";%d;%d", m->groupid, v->error);
	terse_dir(t, c, v, 0);
	if (v->unified != UNIFIED_MIXED)
		terse_dir(t, c, v, 1);
	if (v->unified == UNIFIED_BOTH) {
		view_mixed(c->mix, v);
		terse_dir(t, c, c->mix, 0);
	}
	view_cpu(v, &usr, &sys);
	rq_txt_out(t, ";%f%%;%f%%;%" PRIu64 ";%" PRIu64 ";%" PRIu64, usr, sys, v->ctx, v->majf, v->minf);
	calc_dist(v->depth, total, dist);
	for (i = 0; i < RQ_DEPTH_BUCKETS; i++)
		rq_txt_out(t, ";%3.1f%%", dist[i]);
	ns = calc_lat_buckets(v, lat_n, lat_u, lat_m);
	/* fio adds the nanosecond buckets into the first microsecond one */
	if (total)
		lat_u[0] += 100.0 * (double)ns / (double)total;
	for (i = 0; i < LAT_U_NR; i++)
		rq_txt_out(t, ";%3.2f%%", lat_u[i]);
	for (i = 0; i < LAT_M_NR; i++)
		rq_txt_out(t, ";%3.2f%%", lat_m[i]);
	if (v->coe)
		rq_txt_out(t, ";%" PRIu64 ";%d", v->total_err, v->first_error);
	if (m->description && m->description[0]) {
		char d[256];

		rq_txt_out(t, ";%s", rq_txt_clean(d, sizeof(d), m->description, sizeof(d)));
	}
	rq_txt_out(t, "\n");
}

static int write_terse(struct ctx *c, FILE *f)
{
	struct rq_txt t = { .f = f };
	unsigned int i = 0;

	while (view_next(c->r, &i, c->v, true))
		terse_job(&t, c, c->v);
	return t.err;
}

/* -------------------------------------------------------------- normal */

static bool pow2_base(unsigned int kb_base)
{
	return kb_base && !(kb_base & (kb_base - 1));
}

/* fio's display_lat(): pick nsec, usec or msec by fio's thresholds. */
static void text_lat(struct rq_txt *t, const char *name, const struct rq_lat_stat *s)
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
	rq_txt_out(t, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, base,
	    rq_txt_n2s(a, sizeof(a), min, 6, false, ""), rq_txt_n2s(b, sizeof(b), max, 6, false, ""),
	    mean, dev);
}

/* fio's show_clat_percentiles() with the view's list and precision. */
static void text_percentiles(struct rq_txt *t, const struct view *v, const char *name,
			     const struct rq_lat_stat *s)
{
	uint64_t val[LIST_MAX], minv = UINT64_MAX, maxv = 0, div = 1;
	unsigned int scale = 0, width, per_line, k, nr, i, prec = v->precision;
	const char *unit = "nsec";

	if (!s->n)
		return;
	nr = view_pcts(v, s, val);
	for (i = 0; i < nr; i++) {
		minv = val[i] < minv ? val[i] : minv;
		maxv = val[i] > maxv ? val[i] : maxv;
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
	width = rq_txt_ndigits(maxv / div);
	if (width < 5)
		width = 5;
	per_line = (80 - 7) / (prec + 10 + width);

	rq_txt_out(t, "    %s percentiles (%s):\n     |", name, unit);
	for (i = 0; i < nr; i++) {
		bool last = i == nr - 1;

		if (i && i % per_line == 0)
			rq_txt_out(t, "     |");
		/* each scale step rounds up, as fio does */
		for (k = 0; k < scale; k++)
			val[i] = (val[i] + 999) / 1000;
		rq_txt_out(t, " %*.*fth=[%*" PRIu64 "]%c", (int)prec + 3, (int)prec, v->pct[i],
		    (int)width, val[i], last ? '\n' : ',');
		if (!last && i % per_line == per_line - 1)
			rq_txt_out(t, "\n");
	}
}

/*
 * fio's per-priority lines, when two or more priorities have samples:
 * their latencies (@pct false), or their percentiles with each one's share.
 */
static void text_prios(struct rq_txt *t, const struct view *v, const struct rq_dir_report *dr, bool pct)
{
	const char *type = v->lat_pct ? "lat" : "clat";
	uint64_t all = v->lat_pct ? dr->lat.n : dr->clat.n;
	char name[64];

	if (prios_with_samples(dr) < 2)
		return;
	for (unsigned int i = 0; i < dr->nr_prios; i++) {
		const struct rq_prio_stat *p = &dr->prio[i];
		unsigned int cls = p->ioprio >> RQ_IOPRIO_CLASS_SHIFT;
		unsigned int lvl = p->ioprio & ((1u << RQ_IOPRIO_CLASS_SHIFT) - 1);

		if (!p->lat.n)
			continue;
		if (!pct) {
			snprintf(name, sizeof(name), "%s prio %u/%u", type, cls, lvl);
			text_lat(t, name, &p->lat);
		} else {
			snprintf(name, sizeof(name), "%s prio %u/%u (%.2f%% of IOs)", type, cls, lvl,
				 all ? 100.0 * (double)p->lat.n / (double)all : 0.0);
			text_percentiles(t, v, name, &p->lat);
		}
	}
}

/* fio's show_ddir_status() */
static void text_dir(struct rq_txt *t, const struct ctx *c, const struct view *v, int d)
{
	const struct rq_dir_report *dr = &v->dir[d];
	const struct group *g = group_of(c, v);
	unsigned int kb_base = g ? g->kb_base : v->kb_base;
	bool i2p = pow2_base(kb_base);
	uint64_t runt = v->runtime_ms[d], bps, min, max;
	char io[32], bw[32], bw_alt[32], iops[32], resets[40] = "";
	double mean, dev;

	if (!runt)
		return;
	bps = per_sec(dr->io_bytes, runt);
	/* fio's write line always ends with its zone resets (zbd_write_status), 0 without zones */
	if (d == RQ_DDIR_WRITE && v->unified != UNIFIED_MIXED)
		snprintf(resets, sizeof(resets), "; %" PRIu64 " zone resets", v->zone_resets);
	rq_txt_out(t, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)%s\n",
	    v->unified == UNIFIED_MIXED ? "mixed" : ddir_name[d],
	    rq_txt_n2s(iops, sizeof(iops), per_sec(dr->total_ios, runt), v->sig_figs, false, ""),
	    rq_txt_n2s(bw, sizeof(bw), bps, v->sig_figs, i2p, "B/s"),
	    rq_txt_n2s(bw_alt, sizeof(bw_alt), bps, v->sig_figs, !i2p, "B/s"),
	    rq_txt_n2s(io, sizeof(io), dr->io_bytes, v->sig_figs, i2p, "B"), runt, resets);
	text_lat(t, "slat", &dr->slat);
	text_lat(t, "clat", &dr->clat);
	text_lat(t, " lat", &dr->lat);
	text_prios(t, v, dr, false);
	if (dr->paced) {
		text_lat(t, "lat_intended", &dr->lat_intended);
		rq_txt_out(t, "    late_ios=%" PRIu64 ", max_lag (usec)=%.1f\n", dr->late_ios,
		    (double)dr->max_lag_ns / 1000.0);
	}
	if (v->slat_pct)
		text_percentiles(t, v, "slat", &dr->slat);
	if (v->clat_pct)
		text_percentiles(t, v, "clat", &dr->clat);
	if (v->lat_pct)
		text_percentiles(t, v, "lat", &dr->lat);
	if (v->clat_pct || v->lat_pct)
		text_prios(t, v, dr, true);
	if (dr->paced)
		text_percentiles(t, v, "lat_intended", &dr->lat_intended);

	if (sstat_calc(&v->bw[d], &min, &max, &mean, &dev)) {
		double p = agg_percent(g, d, mean), kb = (double)kb_base;
		const char *unit = i2p ? "KiB" : "kB";

		if (mean > kb * kb) {
			min = (uint64_t)((double)min / kb);
			max = (uint64_t)((double)max / kb);
			mean /= kb;
			dev /= kb;
			unit = "MiB";
		}
		rq_txt_out(t, "   bw (%5s/s): min=%5" PRIu64 ", max=%5" PRIu64 ", per=%3.2f%%, avg=%5.02f, "
		    "stdev=%5.02f, samples=%" PRIu64 "\n", unit, min, max, p, mean, dev, v->bw[d].n);
	}
	if (sstat_calc(&v->iops[d], &min, &max, &mean, &dev))
		rq_txt_out(t, "   iops        : min=%5" PRIu64 ", max=%5" PRIu64 ", avg=%5.02f, stdev=%5.02f, "
		    "samples=%" PRIu64 "\n", min, max, mean, dev, v->iops[d].n);
}

/* fio's show_lat(): the buckets that have I/Os, five to a line */
static void text_lat_line(struct rq_txt *t, const double *lat, int nr, const char *const *ranges,
			  const char *unit)
{
	bool new_line = true, shown = false;
	int i, line = 0;

	for (i = 0; i < nr; i++) {
		if (lat[i] <= 0.0)
			continue;
		shown = true;
		if (new_line) {
			if (line)
				rq_txt_out(t, "\n");
			rq_txt_out(t, "  lat (%s)   : ", unit);
			new_line = false;
			line = 0;
		}
		if (line)
			rq_txt_out(t, ", ");
		rq_txt_out(t, "%s%3.2f%%", ranges[i], lat[i]);
		line++;
		if (line == 5)
			new_line = true;
	}
	if (shown)
		rq_txt_out(t, "\n");
}

static void text_dist(struct rq_txt *t, const char *head, const char *const *names,
		      const uint64_t *map, uint64_t total)
{
	double dist[RQ_DEPTH_BUCKETS];

	calc_dist(map, total, dist);
	rq_txt_out(t, "%s", head);
	for (int i = 0; i < RQ_DEPTH_BUCKETS; i++)
		rq_txt_out(t, "%s%s=%3.1f%%", i ? ", " : "", names[i], dist[i]);
	rq_txt_out(t, "\n");
}

/* fio's show_thread_status_normal() */
static void text_job(struct rq_txt *t, struct ctx *c, const struct view *v, const char *when)
{
	static const char *const ranges[] = { "2=", "4=", "10=", "20=", "50=", "100=", "250=",
					      "500=", "750=", "1000=", "2000=", ">=2000=" };
	static const char *const level[] = { "1", "2", "4", "8", "16", "32", ">=64" };
	static const char *const batch[] = { "0", "4", "8", "16", "32", "64", ">=64" };
	const struct rq_job_report *m = v->first;
	double lat_n[LAT_N_NR], lat_u[LAT_U_NR], lat_m[LAT_M_NR], usr, sys;
	char name[sizeof(m->name)], desc[256];
	int d;

	if (!v->dir[0].io_bytes && !v->dir[1].io_bytes && !v->dir[2].io_bytes && !view_total_ios(v))
		return;
	rq_txt_clean(name, sizeof(name), m->name, sizeof(m->name));
	/* fio prints the pid here; a clone has no process of its own */
	if (v->error)
		rq_txt_out(t, "%s: (groupid=%d, jobs=%u): err=%2d (%s): clone=%u%s%s\n", name,
		    m->groupid, v->members, v->error, strerror(v->error), m->clone,
		    *when ? ": " : "", when);
	else
		rq_txt_out(t, "%s: (groupid=%d, jobs=%u): err=%2d: clone=%u%s%s\n", name,
		    m->groupid, v->members, v->error, m->clone, *when ? ": " : "", when);
	if (m->description && m->description[0])
		rq_txt_out(t, "  Description  : [%s]\n", rq_txt_clean(desc, sizeof(desc), m->description, sizeof(desc)));
	for (d = 0; d < RQ_DDIR_NR; d++)
		if (v->dir[d].io_bytes)
			text_dir(t, c, v, d);
	if (v->unified == UNIFIED_BOTH) {
		view_mixed(c->mix, v);
		text_dir(t, c, c->mix, 0);
	}
	calc_lat_buckets(v, lat_n, lat_u, lat_m);
	text_lat_line(t, lat_n, LAT_N_NR, ranges, "nsec");
	text_lat_line(t, lat_u, LAT_U_NR, ranges, "usec");
	text_lat_line(t, lat_m, LAT_M_NR, ranges, "msec");
	/* fio's show_ddir_status(DDIR_SYNC): fsync=N's flushes */
	if (v->sync.n) {
		rq_txt_out(t, "  fsync/fdatasync/sync_file_range:\n");
		text_lat(t, "sync", &v->sync);
		text_percentiles(t, v, "sync", &v->sync);
	}

	view_cpu(v, &usr, &sys);
	rq_txt_out(t, "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%" PRIu64 ", majf=%" PRIu64
	    ", minf=%" PRIu64 "\n", usr, sys, v->ctx, v->majf, v->minf);
	text_dist(t, "  IO depths    : ", level, v->depth, view_total_ios(v));
	text_dist(t, "     submit    : ", batch, v->submit, v->total_submit);
	text_dist(t, "     complete  : ", batch, v->complete, v->total_complete);
	rq_txt_out(t, "     issued rwts: total=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 " short=0,0,0,0 "
	    "dropped=0,0,0,0\n", v->dir[0].total_ios, v->dir[1].total_ios, v->dir[2].total_ios, v->sync_ios);
	if (v->coe)
		rq_txt_out(t, "     errors    : total=%" PRIu64 ", first_error=%d/<%s>\n", v->total_err,
		    v->first_error, strerror(v->first_error));
	if (v->iodepth)
		rq_txt_out(t, "     latency   : target=%" PRIu64 ", window=%" PRIu64 ", percentile=%.2f%%, "
		    "depth=%u\n", v->lat_target_ns, v->lat_window_us, v->lat_percentile, v->iodepth);
	if (v->last->ss)
		rq_ss_text(t, v->last->ss, v->kb_base);
}

static void text_group_line(struct rq_txt *t, const char *label, bool i2p, unsigned int fig, uint64_t agg,
			    uint64_t min_bw, uint64_t max_bw, uint64_t io, uint64_t min_run, uint64_t max_run)
{
	char s[8][32];

	rq_txt_out(t, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%" PRIu64 "-%" PRIu64 "msec\n",
	    label,
	    rq_txt_n2s(s[0], 32, agg, fig, i2p, "B/s"), rq_txt_n2s(s[1], 32, agg, fig, !i2p, "B/s"),
	    rq_txt_n2s(s[2], 32, min_bw, fig, i2p, "B/s"), rq_txt_n2s(s[3], 32, max_bw, fig, i2p, "B/s"),
	    rq_txt_n2s(s[4], 32, min_bw, fig, !i2p, "B/s"), rq_txt_n2s(s[5], 32, max_bw, fig, !i2p, "B/s"),
	    rq_txt_n2s(s[6], 32, io, fig, i2p, "B"), rq_txt_n2s(s[7], 32, io, fig, !i2p, "B"),
	    min_run, max_run);
}

/* fio's show_group_stats(): one "Run status group" block per group id. */
static void text_groups(struct rq_txt *t, const struct ctx *c)
{
	static const char *const label[RQ_DDIR_NR] = { "   READ", "  WRITE", "   TRIM" };

	for (int gid = 0; gid < c->nr_groups; gid++) {
		const struct group *g = &c->groups[gid];
		bool i2p = pow2_base(g->kb_base ? g->kb_base : 1024);
		unsigned int fig = g->sig_figs ? g->sig_figs : SIG_FIGS;

		rq_txt_out(t, "\nRun status group %d (all jobs):\n", gid);
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			if (!g->max_run[d])
				continue;
			text_group_line(t, g->unified == UNIFIED_MIXED ? "  MIXED" : label[d], i2p, fig,
					g->agg[d], g->min_bw[d], g->max_bw[d], g->iobytes[d],
					g->min_run[d], g->max_run[d]);
		}
		if (g->unified == UNIFIED_BOTH) {
			uint64_t io = 0, agg = 0, min_bw = UINT64_MAX, max_bw = 0;
			uint64_t min_run = UINT64_MAX, max_run = 0;

			for (int d = 0; d < RQ_DDIR_NR; d++) {
				if (!g->max_run[d])
					continue;
				io += g->iobytes[d];
				agg += g->agg[d];
				min_bw = g->min_bw[d] < min_bw ? g->min_bw[d] : min_bw;
				max_bw = g->max_bw[d] > max_bw ? g->max_bw[d] : max_bw;
				min_run = g->min_run[d] < min_run ? g->min_run[d] : min_run;
				max_run = g->max_run[d] > max_run ? g->max_run[d] : max_run;
			}
			text_group_line(t, "  MIXED", i2p, fig, agg, min_bw, max_bw, io, min_run, max_run);
		}
	}
}

static int write_normal(struct ctx *c, FILE *f)
{
	const struct rq_run_report *r = c->r;
	struct rq_txt t = { .f = f };
	char when[sizeof(r->time)];
	unsigned int i = 0;

	rq_txt_clean(when, sizeof(when), r->time, sizeof(r->time));
	/* fio starts its results with an empty line */
	rq_txt_out(&t, "\n");
	while (view_next(r, &i, c->v, true))
		text_job(&t, c, c->v, when);
	text_groups(&t, c);
	rq_output_rqlock_text(&t, r);
	return t.err;
}

/* ---------------------------------------------------------------- API */

static const struct {
	const char *name;
	unsigned int flags;
} formats_table[] = {
	{ "normal", RQ_OUTPUT_NORMAL },
	{ "json", RQ_OUTPUT_JSON },
	{ "json+", RQ_OUTPUT_JSON | RQ_OUTPUT_JSON_PLUS },
	{ "terse", RQ_OUTPUT_TERSE },
};

#define ALL_FORMATS (RQ_OUTPUT_NORMAL | RQ_OUTPUT_JSON | RQ_OUTPUT_JSON_PLUS | RQ_OUTPUT_TERSE)

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
				set |= formats_table[i].flags;
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
	struct ctx c = { .r = r };
	int ret = 0, err;

	if (!r || !f || !formats || (formats & ~ALL_FORMATS) || !report_ok(r))
		return -EINVAL;
	/* json+ is json with bins */
	c.json_plus = formats & RQ_OUTPUT_JSON_PLUS;
	if (c.json_plus)
		formats |= RQ_OUTPUT_JSON;
	c.v = malloc(sizeof(*c.v));
	c.mix = malloc(sizeof(*c.mix));
	if (!c.v || !c.mix || groups_build(&c)) {
		ret = -ENOMEM;
		goto out;
	}

	/* fio's order: terse, then JSON, then normal */
	if (formats & RQ_OUTPUT_TERSE)
		ret = write_terse(&c, f);
	if (!ret && (formats & RQ_OUTPUT_JSON))
		ret = write_json(&c, f);
	if (!ret && (formats & RQ_OUTPUT_NORMAL))
		ret = write_normal(&c, f);
	if (ret)
		goto out;

	/* a full disk shows only when the stdio buffer is written out */
	if (fflush(f)) {
		err = errno;
		ret = err ? -err : -EIO;
		goto out;
	}
	ret = ferror(f) ? -EIO : 0;
out:
	free(c.v);
	free(c.mix);
	free(c.groups);
	return ret;
}

const char *rq_num2str(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2,
		       const char *unit)
{
	return rq_txt_n2s(buf, len, num, maxlen, pow2, unit);
}
