// SPDX-License-Identifier: MIT
/*
 * fio_ts.c - a run report rendered as fio 3.33's result packets: JOB_OPT,
 * TS (struct cmd_ts_pdu) and GS (struct group_run_stats), in the order a
 * fio server sends them (stat.c __show_run_stats, is_backend):
 *
 *     JOB_OPT (global options) ...
 *     for each thread_stat:  JOB_OPT (its options) ...  TS
 *     for each group:        GS
 *
 * A thread_stat is one job clone, or with group_reporting the run of
 * consecutive clones of one group, summed as fio's sum_thread_stats does:
 * latency io_stats merged (Welford's parallel formula), bandwidth and IOPS
 * sample stats plainly added, bytes and I/Os added, a direction's runtime
 * the longest, job_runtime added; unified_rw_reporting=mixed folds reads
 * and writes into direction 0.  The fio client does the rendering (normal,
 * JSON, json+) and builds "All clients" from these packets itself, so
 * every field it reads is filled in fio's units: times in ms, latencies in
 * ns, bandwidth samples in KiB/s, S = sum of squared deviations.  A TS
 * may carry more after the pdu, as fio's does: per-priority latencies
 * (cmdprio) and a steady-state job's window of samples.
 */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/results.h"
#include "server/fio_proto.h"
#include "server/server_internal.h"

_Static_assert(RQ_PLAT_NR == FIO_PLAT_NR, "rqlock's histogram is fio's io_u_plat");

enum { FIO_SLAT = 0, FIO_CLAT = 1, FIO_LAT = 2 };
enum { UNIFIED_MIXED = 1 };
/* what fio 3.33 sends by default (captured): unit_base N2S_BYTE, sig_figs 4 */
#define FIO_UNIT_BASE 4
#define FIO_SIG_FIGS 4

struct hstat {
	uint64_t min, max, samples;
	double mean, S;
};

/*
 * The job's settings a thread_stat carries: __show_run_stats copies them
 * from each td->o (and td->latency_qd) it sums, so with group_reporting
 * the last clone's stand.
 */
struct hts_opts {
	uint32_t clat_pct, lat_pct, slat_pct;
	uint64_t precision;
	double plist[FIO_LIST_MAX];
	uint32_t coe;			/* continue_on_error */
	uint32_t latency_depth;
	uint64_t latency_target, latency_window;	/* ns, us: as fio's thread_stat */
	double latency_percentile;
};

/* One I/O priority's latencies, as fio's clat_prio_stat (cmdprio jobs). */
struct hprio {
	uint32_t ioprio;
	struct hstat st;
	uint64_t plat[FIO_PLAT_NR];
};

/* fio's thread_stat in host order: the fields a client reads. */
struct hts {
	char name[128], verror[128], description[256];
	uint32_t error, thread_number, members, unified;
	int32_t groupid;
	struct hstat clat[FIO_DDIR_CNT], slat[FIO_DDIR_CNT], lat[FIO_DDIR_CNT];
	struct hstat bw[FIO_DDIR_CNT], iops[FIO_DDIR_CNT];
	uint64_t usr_ms, sys_ms, ctx, minf, majf;
	struct hts_opts o;
	uint64_t map[FIO_MAP_NR], submit[FIO_MAP_NR], complete[FIO_MAP_NR];
	uint64_t lat_n[FIO_LAT_N_NR], lat_u[FIO_LAT_U_NR], lat_m[FIO_LAT_M_NR];
	uint64_t plat[FIO_LAT_CNT][FIO_DDIR_CNT][FIO_PLAT_NR];
	uint64_t total_io_u[FIO_DDIR_SYNC_CNT];	/* [3]: fsync=N's flushes (DDIR_SYNC) */
	struct hstat sync;
	uint64_t sync_plat[FIO_PLAT_NR];
	uint64_t total_submit, total_complete;
	uint64_t io_bytes[FIO_DDIR_CNT], runtime[FIO_DDIR_CNT], total_run_time;
	uint32_t first_error;
	uint64_t total_err;
	uint32_t kb_base;
	unsigned int nr_prio[FIO_DDIR_CNT];
	const struct rq_ss_report *ss;	/* the last member's steady state, NULL = none */
	/* last, left out of hts_init()'s memset: hts_prio() clears an entry it adds */
	struct hprio prio[FIO_DDIR_CNT][RQ_PRIOS_MAX];
};

/* @p's entry in @t's direction @d, added if new; NULL past RQ_PRIOS_MAX */
static struct hprio *hts_prio(struct hts *t, int d, uint32_t ioprio)
{
	unsigned int k;

	for (k = 0; k < t->nr_prio[d] && t->prio[d][k].ioprio != ioprio; k++)
		;
	if (k == t->nr_prio[d]) {
		if (k == RQ_PRIOS_MAX)
			return NULL;
		memset(&t->prio[d][k], 0, sizeof(t->prio[d][k]));
		t->prio[d][k].ioprio = ioprio;
		t->prio[d][k].st.min = UINT64_MAX;
		t->nr_prio[d]++;
	}
	return &t->prio[d][k];
}

static void hstat_init(struct hstat *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

static void hts_init(struct hts *t)
{
	memset(t, 0, offsetof(struct hts, prio));
	t->o.latency_percentile = 100.0;
	for (int d = 0; d < FIO_DDIR_CNT; d++) {
		hstat_init(&t->clat[d]);
		hstat_init(&t->slat[d]);
		hstat_init(&t->lat[d]);
		hstat_init(&t->bw[d]);
		hstat_init(&t->iops[d]);
	}
	hstat_init(&t->sync);
	t->groupid = -1;
}

/* fio's sum_stat(): @pure adds bw/IOPS sample stats up instead of merging them */
static void hstat_sum(struct hstat *d, const struct hstat *s, bool pure)
{
	if (!s->samples)
		return;
	if (!d->samples) {
		*d = *s;
		return;
	}
	if (pure) {
		d->min += s->min;
		d->max += s->max;
		d->samples += s->samples;
		d->mean += s->mean;
		d->S += s->S;
		return;
	}
	if (s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	{
		double delta = s->mean - d->mean, n1 = (double)d->samples, n2 = (double)s->samples;

		d->mean = (s->mean * n2 + d->mean * n1) / (n1 + n2);
		d->S = s->S + d->S + delta * delta * n1 * n2 / (n1 + n2);
	}
	d->samples += s->samples;
}

static void hstat_from_lat(struct hstat *h, const struct rq_lat_stat *s)
{
	double sd;

	hstat_init(h);
	if (!s->n)
		return;
	h->samples = s->n;
	h->min = s->min_ns;
	h->max = s->max_ns;
	h->mean = rq_lat_mean(s);
	sd = rq_lat_stddev(s);
	h->S = sd * sd * (double)(s->n - 1);
}

static void hstat_from_sample(struct hstat *h, const struct rq_sample_stat *s)
{
	hstat_init(h);
	if (!s->samples)
		return;
	h->samples = s->samples;
	h->min = s->min;
	h->max = s->max;
	h->mean = s->mean;
	h->S = s->stddev * s->stddev * (double)(s->samples - 1);
}

/* A direction's runtime in ms as fio keeps it: microseconds rounded up (backend.c). */
static uint64_t runtime_ms(uint64_t ns)
{
	return (ns / 1000 + 999) / 1000;
}

/* One clone's report as fio's td->ts, plus the per-job settings fio copies from td->o. */
static void hts_from_job(struct hts *t, const struct rq_job_report *m)
{
	unsigned int precision;

	hts_init(t);
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		const struct rq_dir_report *s = &m->dir[d];

		hstat_from_lat(&t->slat[d], &s->slat);
		hstat_from_lat(&t->clat[d], &s->clat);
		hstat_from_lat(&t->lat[d], &s->lat);
		hstat_from_sample(&t->bw[d], &s->bw);
		hstat_from_sample(&t->iops[d], &s->iops);
		memcpy(t->plat[FIO_SLAT][d], s->slat.plat, sizeof(s->slat.plat));
		memcpy(t->plat[FIO_CLAT][d], s->clat.plat, sizeof(s->clat.plat));
		memcpy(t->plat[FIO_LAT][d], s->lat.plat, sizeof(s->lat.plat));
		for (unsigned int i = 0; i < s->nr_prios; i++) {
			struct hprio *p = hts_prio(t, d, s->prio[i].ioprio);

			if (!p)
				continue;
			hstat_from_lat(&p->st, &s->prio[i].lat);
			memcpy(p->plat, s->prio[i].lat.plat, sizeof(p->plat));
		}
		t->total_io_u[d] = s->total_ios;
		t->io_bytes[d] = s->io_bytes;
		t->runtime[d] = runtime_ms(s->runtime_ns);
		/* fio counts completion latencies into its lat_n/u/m buckets */
		for (unsigned int i = 0; i < RQ_PLAT_NR; i++) {
			uint64_t ns;

			if (!s->clat.plat[i])
				continue;
			ns = rq_plat_idx_to_val(i);
			if (ns < 1000)
				t->lat_n[rq_lat_bucket(ns)] += s->clat.plat[i];
			else if (ns < 1000000)
				t->lat_u[rq_lat_bucket(ns / 1000)] += s->clat.plat[i];
			else
				t->lat_m[rq_lat_bucket(ns / 1000000)] += s->clat.plat[i];
		}
	}
	t->total_io_u[FIO_DDIR_CNT] = m->sync_ios;
	hstat_from_lat(&t->sync, &m->sync);
	memcpy(t->sync_plat, m->sync.plat, sizeof(t->sync_plat));
	t->total_run_time = m->job_runtime_ns / 1000000;
	t->usr_ms = (uint64_t)llround(m->usr_cpu * (double)t->total_run_time / 100.0);
	t->sys_ms = (uint64_t)llround(m->sys_cpu * (double)t->total_run_time / 100.0);
	t->ctx = m->ctx;
	t->majf = m->majf;
	t->minf = m->minf;
	for (int i = 0; i < RQ_DEPTH_BUCKETS && i < FIO_MAP_NR; i++) {
		t->map[i] = m->depth_hist[i];
		t->submit[i] = m->submit_hist[i];
		t->complete[i] = m->complete_hist[i];
		t->total_submit += m->submit_hist[i];
		t->total_complete += m->complete_hist[i];
	}
	rq_job_percentiles(m, t->o.plist, FIO_LIST_MAX, &precision);
	t->o.precision = precision;
	t->o.clat_pct = m->clat_percentiles;
	t->o.lat_pct = m->lat_percentiles;
	t->o.slat_pct = m->slat_percentiles;
	t->o.coe = (uint32_t)m->continue_on_error;
	t->total_err = m->total_err;
	t->first_error = (uint32_t)m->first_error;
	t->error = (uint32_t)m->error;
	t->kb_base = m->kb_base ? m->kb_base : 1024;
	t->o.latency_depth = m->iodepth;
	t->o.latency_target = m->latency_target_ns;
	t->o.latency_window = m->latency_window_us;
	t->o.latency_percentile = m->latency_percentile;
	t->unified = (uint32_t)m->unified_rw_reporting;
}

/* fio's sum_thread_stats(@v, @s) and the per-td copying of __show_run_stats */
static void hts_sum(struct hts *v, const struct hts *s, const struct rq_job_report *m,
		    unsigned int thread_number, const char *desc_prefix)
{
	if (v->groupid == -1) {
		snprintf(v->name, sizeof(v->name), "%s", m->name);
		if (m->description && *m->description && desc_prefix && *desc_prefix)
			snprintf(v->description, sizeof(v->description), "%s; %s", desc_prefix,
				 m->description);
		else
			snprintf(v->description, sizeof(v->description), "%s",
				 m->description && *m->description ? m->description
								    : desc_prefix ? desc_prefix : "");
		v->thread_number = thread_number;
		v->groupid = m->groupid;
		v->kb_base = s->kb_base;
		v->unified = s->unified;
	}
	v->o = s->o;
	v->ss = m->ss;	/* fio: each td's in turn (or none), so the last one's */
	v->total_err += s->total_err;
	v->first_error = s->first_error;
	if (!v->error) {
		if (!s->error && s->o.coe && s->first_error)
			v->error = s->first_error;
		else
			v->error = s->error;
		if (v->error)
			snprintf(v->verror, sizeof(v->verror), "rqlock: %s", strerror((int)v->error));
	}

	for (int d = 0; d < FIO_DDIR_CNT; d++) {
		int t = v->unified == UNIFIED_MIXED ? 0 : d;

		hstat_sum(&v->clat[t], &s->clat[d], false);
		hstat_sum(&v->slat[t], &s->slat[d], false);
		hstat_sum(&v->lat[t], &s->lat[d], false);
		hstat_sum(&v->bw[t], &s->bw[d], true);
		hstat_sum(&v->iops[t], &s->iops[d], true);
		v->io_bytes[t] += s->io_bytes[d];
		if (v->runtime[t] < s->runtime[d])
			v->runtime[t] = s->runtime[d];
		v->total_io_u[t] += s->total_io_u[d];
		/* fio's sum_clat_prio_stats(): by priority value */
		for (unsigned int i = 0; i < s->nr_prio[d]; i++) {
			struct hprio *p = hts_prio(v, t, s->prio[d][i].ioprio);

			if (!p)
				continue;
			hstat_sum(&p->st, &s->prio[d][i].st, false);
			for (int k = 0; k < FIO_PLAT_NR; k++)
				p->plat[k] += s->prio[d][i].plat[k];
		}
		for (int k = 0; k < FIO_LAT_CNT; k++)
			for (int i = 0; i < FIO_PLAT_NR; i++)
				v->plat[k][t][i] += s->plat[k][d][i];
	}
	v->total_io_u[FIO_DDIR_CNT] += s->total_io_u[FIO_DDIR_CNT];
	hstat_sum(&v->sync, &s->sync, false);
	for (int i = 0; i < FIO_PLAT_NR; i++)
		v->sync_plat[i] += s->sync_plat[i];
	v->usr_ms += s->usr_ms;
	v->sys_ms += s->sys_ms;
	v->ctx += s->ctx;
	v->majf += s->majf;
	v->minf += s->minf;
	for (int i = 0; i < FIO_MAP_NR; i++) {
		v->map[i] += s->map[i];
		v->submit[i] += s->submit[i];
		v->complete[i] += s->complete[i];
	}
	for (int i = 0; i < FIO_LAT_N_NR; i++)
		v->lat_n[i] += s->lat_n[i];
	for (int i = 0; i < FIO_LAT_U_NR; i++)
		v->lat_u[i] += s->lat_u[i];
	for (int i = 0; i < FIO_LAT_M_NR; i++)
		v->lat_m[i] += s->lat_m[i];
	v->total_run_time += s->total_run_time;
	v->total_submit += s->total_submit;
	v->total_complete += s->total_complete;
	v->members++;
}

static uint64_t le64_double(double x)
{
	uint64_t bits;

	/* fio's pack754(x, 64, 11) is binary64 for the finite values sent here */
	if (!isfinite(x))
		x = 0.0;
	memcpy(&bits, &x, sizeof(bits));
	return htole64(bits);
}

static void put_stat(struct fio_wire_io_stat *w, const struct hstat *h)
{
	w->max_val = htole64(h->max);
	w->min_val = htole64(h->min);
	w->samples = htole64(h->samples);
	w->mean.bits = le64_double(h->mean);
	w->S.bits = le64_double(h->S);
}

/* @w is a member of a packed struct: written bytewise, no aligned pointer formed */
static void put_u64s(void *w, const uint64_t *h, size_t n)
{
	uint8_t *p = w;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = htole64(h[i]);

		memcpy(p + i * sizeof(v), &v, sizeof(v));
	}
}

/*
 * The steady-state fields fio_server_send_ts() sends: the judge's
 * criterion flags, verdict and last figures; send_ts() appends the
 * samples.  rqlock keeps the window oldest first, so ss_head names its
 * start as stat.c reads a ring: 0, or 1 when the window was full and not
 * attained (the client starts one before the head then).
 */
static void encode_ss(struct fio_wire_ts *w, const struct rq_ss_report *ss)
{
	uint32_t state = FIO_SS_DATA;
	bool full = ss->count == ss->dur;

	state |= ss->bw ? FIO_SS_BW : FIO_SS_IOPS;
	if (ss->slope)
		state |= FIO_SS_SLOPE;
	if (ss->pct)
		state |= FIO_SS_PCT;
	if (ss->attained)
		state |= FIO_SS_ATTAINED;
	if (ss->ramp_over)
		state |= FIO_SS_RAMP_OVER;
	if (full)
		state |= FIO_SS_BUFFER_FULL;
	w->ss_dur = htole64(ss->dur);
	w->ss_state = htole32(state);
	w->ss_head = htole32(full && !ss->attained ? 1 % ss->dur : 0);
	w->ss_limit.bits = le64_double(ss->limit);
	w->ss_slope.bits = le64_double(ss->slope_val);
	w->ss_deviation.bits = le64_double(ss->deviation);
	w->ss_criterion.bits = le64_double(ss->criterion);
}

static void encode_ts(struct fio_wire_ts *w, const struct hts *v)
{
	memset(w, 0, sizeof(*w));
	memcpy(w->name, v->name, sizeof(w->name));
	memcpy(w->verror, v->verror, sizeof(w->verror));
	memcpy(w->description, v->description, sizeof(w->description));
	w->error = htole32(v->error);
	w->thread_number = htole32(v->thread_number);
	w->groupid = htole32((uint32_t)v->groupid);
	w->pid = htole32((uint32_t)getpid());
	w->members = htole32(v->members);
	w->unified_rw_rep = htole32(v->unified);
	w->disable_prio_stat = htole32(1);	/* one priority: no clat_prio arrays follow */
	put_stat(&w->sync_stat, &v->sync);
	put_u64s(&w->io_u_sync_plat, v->sync_plat, FIO_PLAT_NR);
	for (int d = 0; d < FIO_DDIR_CNT; d++) {
		put_stat(&w->clat_stat[d], &v->clat[d]);
		put_stat(&w->slat_stat[d], &v->slat[d]);
		put_stat(&w->lat_stat[d], &v->lat[d]);
		put_stat(&w->bw_stat[d], &v->bw[d]);
		put_stat(&w->iops_stat[d], &v->iops[d]);
	}
	w->usr_time = htole64(v->usr_ms);
	w->sys_time = htole64(v->sys_ms);
	w->ctx = htole64(v->ctx);
	w->minf = htole64(v->minf);
	w->majf = htole64(v->majf);
	w->clat_percentiles = htole32(v->o.clat_pct);
	w->lat_percentiles = htole32(v->o.lat_pct);
	w->slat_percentiles = htole32(v->o.slat_pct);
	w->percentile_precision = htole64(v->o.precision);
	for (int i = 0; i < FIO_LIST_MAX; i++)
		w->percentile_list[i].bits = le64_double(v->o.plist[i]);
	put_u64s(&w->io_u_map, v->map, FIO_MAP_NR);
	put_u64s(&w->io_u_submit, v->submit, FIO_MAP_NR);
	put_u64s(&w->io_u_complete, v->complete, FIO_MAP_NR);
	put_u64s(&w->io_u_lat_n, v->lat_n, FIO_LAT_N_NR);
	put_u64s(&w->io_u_lat_u, v->lat_u, FIO_LAT_U_NR);
	put_u64s(&w->io_u_lat_m, v->lat_m, FIO_LAT_M_NR);
	for (int k = 0; k < FIO_LAT_CNT; k++)
		for (int d = 0; d < FIO_DDIR_CNT; d++)
			put_u64s(&w->io_u_plat[k][d], v->plat[k][d], FIO_PLAT_NR);
	put_u64s(&w->total_io_u, v->total_io_u, FIO_DDIR_SYNC_CNT);
	w->total_submit = htole64(v->total_submit);
	w->total_complete = htole64(v->total_complete);
	put_u64s(&w->io_bytes, v->io_bytes, FIO_DDIR_CNT);
	put_u64s(&w->runtime, v->runtime, FIO_DDIR_CNT);
	w->total_run_time = htole64(v->total_run_time);
	w->continue_on_error = htole32(v->o.coe & 0xffff);
	w->first_error = htole32(v->first_error);
	w->total_err_count = htole64(v->total_err);
	w->kb_base = htole32(v->kb_base);
	w->unit_base = htole32(FIO_UNIT_BASE);
	w->latency_depth = htole32(v->o.latency_depth);
	w->latency_target = htole64(v->o.latency_target);
	w->latency_percentile.bits = le64_double(v->o.latency_percentile);
	w->latency_window = htole64(v->o.latency_window);
	w->sig_figs = htole32(FIO_SIG_FIGS);
	if (v->ss && v->ss->dur)
		encode_ss(w, v->ss);
}

/* fio's group_run_stats, built from the thread_stats as __show_run_stats does */
struct hgs {
	uint64_t max_run[FIO_DDIR_CNT], min_run[FIO_DDIR_CNT];
	uint64_t max_bw[FIO_DDIR_CNT], min_bw[FIO_DDIR_CNT];
	uint64_t iobytes[FIO_DDIR_CNT], agg[FIO_DDIR_CNT];
	uint32_t kb_base, unified;
};

static void hgs_init(struct hgs *g)
{
	memset(g, 0, sizeof(*g));
	for (int d = 0; d < FIO_DDIR_CNT; d++)
		g->min_run[d] = g->min_bw[d] = UINT64_MAX;	/* as fio's init_group_run_stat */
}

static void hgs_add(struct hgs *g, const struct hts *v)
{
	g->kb_base = v->kb_base;
	g->unified |= v->unified;
	for (int d = 0; d < FIO_DDIR_CNT; d++) {
		uint64_t bw;

		if (!v->runtime[d])
			continue;
		if (v->runtime[d] < g->min_run[d] || !g->min_run[d])
			g->min_run[d] = v->runtime[d];
		if (v->runtime[d] > g->max_run[d])
			g->max_run[d] = v->runtime[d];
		bw = v->io_bytes[d] * 1000 / v->runtime[d];
		if (bw < g->min_bw[d])
			g->min_bw[d] = bw;
		if (bw > g->max_bw[d])
			g->max_bw[d] = bw;
		g->iobytes[d] += v->io_bytes[d];
	}
}

static void encode_gs(struct fio_wire_gs *w, struct hgs *g, int groupid)
{
	for (int d = 0; d < FIO_DDIR_CNT; d++) {
		if (g->max_run[d])
			g->agg[d] = g->iobytes[d] * 1000 / g->max_run[d];
		w->max_run[d] = htole64(g->max_run[d]);
		w->min_run[d] = htole64(g->min_run[d]);
		w->max_bw[d] = htole64(g->max_bw[d]);
		w->min_bw[d] = htole64(g->min_bw[d]);
		w->iobytes[d] = htole64(g->iobytes[d]);
		w->agg[d] = htole64(g->agg[d]);
	}
	w->kb_base = htole32(g->kb_base ? g->kb_base : 1024);
	w->unit_base = htole32(FIO_UNIT_BASE);
	w->sig_figs = htole32(FIO_SIG_FIGS);
	w->groupid = htole32((uint32_t)groupid);
	w->unified_rw_rep = htole32(g->unified);
}

static int send_opt(struct rq_fio_emit *em, bool global, uint32_t idx, const char *k, const char *v)
{
	struct fio_job_opt_pdu p;
	size_t kl = strlen(k), vl = v ? strlen(v) : 0;

	memset(&p, 0, sizeof(p));
	p.global = htole16(global);
	p.truncated = htole16(kl >= sizeof(p.name) || vl >= sizeof(p.value));
	p.groupid = htole32(idx);
	snprintf((char *)p.name, sizeof(p.name), "%s", k);
	snprintf((char *)p.value, sizeof(p.value), "%s", v ? v : "");
	return em->fn(em, FIO_NET_CMD_JOB_OPT, &p, sizeof(p));
}

/*
 * fio starts a new thread_stat at a clone without group_reporting, or at
 * one in another group than the thread_stat being built.
 */
static bool new_view(const struct rq_job_report *m, int last_gid, bool first)
{
	return first || !m->group_reporting || m->groupid != last_gid;
}

unsigned int rq_fio_nr_ts(const struct rq_job_list *jobs, unsigned int *nr_clones)
{
	unsigned int n = 0, c = 0;
	int last = -1;

	for (unsigned int i = 0; i < jobs->nr; i++) {
		const struct rq_job *j = &jobs->jobs[i];

		for (unsigned int k = 0; k < (j->numjobs ? j->numjobs : 1); k++, c++) {
			if (!c || !j->group_reporting || j->groupid != last)
				n++;
			last = j->groupid;
		}
	}
	*nr_clones = c;
	return n;
}

/* Build the thread_stat starting at clone @i; returns the clone after it. */
static unsigned int build_view(const struct rq_run_report *r, unsigned int i, struct hts *view,
			       struct hts *clone, const char *desc_prefix,
			       const struct rq_job_report **lastp)
{
	const struct rq_job_report *first = &r->jobs[i];
	unsigned int thread_number = i + 1;	/* fio: the first member's td->thread_number */

	hts_init(view);
	do {
		*lastp = &r->jobs[i];
		hts_from_job(clone, *lastp);
		hts_sum(view, clone, *lastp, thread_number, desc_prefix);
		i++;
	} while (i < r->nr_jobs && !new_view(&r->jobs[i], first->groupid, false));
	return i;
}

/* each direction's clat_prio records at @buf + *@off, their offsets and counts in @pdu */
static void put_prios(char *buf, size_t *off, struct fio_wire_ts_pdu *pdu, const struct hts *v)
{
	pdu->ts.disable_prio_stat = 0;
	for (int d = 0; d < FIO_DDIR_CNT; d++) {
		pdu->ts.nr_clat_prio[d] = htole32(v->nr_prio[d]);
		pdu->ts.clat_prio_offset[d] = v->nr_prio[d] ? htole64(*off) : 0;
		for (unsigned int i = 0; i < v->nr_prio[d]; i++, *off += sizeof(struct fio_wire_clat_prio)) {
			struct fio_wire_clat_prio r = { .ioprio = htole32(v->prio[d][i].ioprio) };

			put_u64s(r.io_u_plat, v->prio[d][i].plat, FIO_PLAT_NR);
			put_stat(&r.clat_stat, &v->prio[d][i].st);
			memcpy(buf + *off, &r, sizeof(r));
		}
	}
}

/*
 * One TS: the pdu, then - for a job with I/O priorities (cmdprio) - each
 * direction's clat_prio records, then - for a steady-state job - its IOPS
 * and bandwidth samples, as fio 3.33's fio_server_send_ts().
 */
static int send_ts(struct rq_fio_emit *em, struct fio_wire_ts_pdu *pdu, const struct hts *v)
{
	size_t nr = 0, off = sizeof(*pdu), ss_len = 0;
	char *buf;
	int ret;

	for (int d = 0; d < FIO_DDIR_CNT; d++)
		nr += v->nr_prio[d];
	if (pdu->ts.ss_state & htole32(FIO_SS_DATA))
		ss_len = (size_t)v->ss->dur * sizeof(uint64_t);
	if (!nr && !ss_len)
		return em->fn(em, FIO_NET_CMD_TS, pdu, sizeof(*pdu));
	buf = calloc(1, sizeof(*pdu) + nr * sizeof(struct fio_wire_clat_prio) + 2 * ss_len);
	if (!buf)
		return -ENOMEM;
	if (nr)
		put_prios(buf, &off, pdu, v);
	if (ss_len) {
		pdu->ts.ss_iops_data_offset = htole64(off);
		put_u64s(buf + off, v->ss->iops_data, v->ss->dur);
		off += ss_len;
		pdu->ts.ss_bw_data_offset = htole64(off);
		put_u64s(buf + off, v->ss->bw_data, v->ss->dur);
		off += ss_len;
	}
	memcpy(buf, pdu, sizeof(*pdu));
	ret = em->fn(em, FIO_NET_CMD_TS, buf, off);
	free(buf);
	return ret;
}

int rq_fio_send_results(const struct rq_run_report *r, const char *desc_prefix,
			unsigned int max_opt_ts, struct rq_fio_emit *em)
{
	struct bufs {
		struct hts view, clone;
		struct fio_wire_ts_pdu pdu;
	} *b = calloc(1, sizeof(*b));
	const struct rq_job_report *last;
	struct fio_wire_gs *gs = NULL;
	struct hgs *groups = NULL;
	int nr_groups = 0, ret = 0;
	unsigned int i, nts;

	if (!b)
		return -ENOMEM;
	for (unsigned int j = 0; j < r->nr_jobs; j++)
		if (r->jobs[j].groupid >= 0 && r->jobs[j].groupid + 1 > nr_groups)
			nr_groups = r->jobs[j].groupid + 1;
	groups = calloc(nr_groups ? (size_t)nr_groups : 1, sizeof(*groups));
	gs = calloc(nr_groups ? (size_t)nr_groups : 1, sizeof(*gs));
	if (!groups || !gs) {
		ret = -ENOMEM;
		goto out;
	}
	/* pass 1: the groups' run stats, which every TS carries complete */
	for (int g = 0; g < nr_groups; g++)
		hgs_init(&groups[g]);
	for (i = 0; i < r->nr_jobs;) {
		i = build_view(r, i, &b->view, &b->clone, desc_prefix, &last);
		if (b->view.groupid >= 0 && b->view.groupid < nr_groups)
			hgs_add(&groups[b->view.groupid], &b->view);
	}
	for (int g = 0; g < nr_groups; g++)
		encode_gs(&gs[g], &groups[g], g);

	/* pass 2: options and thread_stats, then the groups */
	for (unsigned int k = 0; k < r->nr_global_opts && !ret; k++)
		ret = send_opt(em, true, 0, r->global_opt_keys[k], r->global_opt_vals[k]);
	for (i = 0, nts = 0; !ret && i < r->nr_jobs; nts++) {
		i = build_view(r, i, &b->view, &b->clone, desc_prefix, &last);
		/* "job options": the last member's, as fio's opt_lists[j]; the client
		 * indexes an array of START's job count with it */
		for (unsigned int k = 0; nts < max_opt_ts && k < last->nr_opts && !ret; k++)
			ret = send_opt(em, false, nts, last->opt_keys[k], last->opt_vals[k]);
		if (ret)
			break;
		encode_ts(&b->pdu.ts, &b->view);
		if (b->view.groupid >= 0 && b->view.groupid < nr_groups)
			b->pdu.rs = gs[b->view.groupid];
		else
			memset(&b->pdu.rs, 0, sizeof(b->pdu.rs));
		ret = send_ts(em, &b->pdu, &b->view);
	}
	for (int g = 0; g < nr_groups && !ret; g++)
		ret = em->fn(em, FIO_NET_CMD_GS, &gs[g], sizeof(gs[g]));
out:
	free(gs);
	free(groups);
	free(b);
	return ret;
}
