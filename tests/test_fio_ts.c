// SPDX-License-Identifier: MIT
/*
 * test_fio_ts.c - server/fio_ts.c: a run report as fio 3.33's result
 * packets.  Two clones with group_reporting and a third in its own group
 * must give fio's packet order (global JOB_OPT, per thread_stat JOB_OPT +
 * TS, GS per group) and sum_thread_stats' rules: bytes and I/Os added,
 * the longer runtime, latency mean and variance merged as one sample set
 * would give them, bandwidth sample stats added; the group's agg bandwidth
 * is its bytes over its longest runtime.  The job settings a thread_stat
 * carries (percentile flags, continue_on_error, the latency target's) are
 * the last clone's, as __show_run_stats copies them from each td->o.
 *
 * Steady state (ss_check): a job with a judge's report sends fio's ss_*
 * fields and its IOPS and bandwidth samples after the pdu (after any
 * clat_prio records), placed so that stat.c's reading of the ring from
 * ss_head gives the window oldest first whether attained, full or not;
 * a job without one sends the plain pdu with every ss field 0, as before.
 */
#include <endian.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/fio_proto.h"
#include "server/server_internal.h"
#include "tests/helpers.h"

struct capture {
	struct rq_fio_emit em;
	uint16_t ops[64];
	unsigned int nr;
	struct fio_wire_ts_pdu ts[4];
	unsigned int nr_ts;
	struct fio_wire_gs gs[4];
	unsigned int nr_gs;
};

static int cap_fn(struct rq_fio_emit *em, uint16_t op, const void *pdu, size_t len)
{
	struct capture *c = (struct capture *)em;

	if (c->nr < 64)
		c->ops[c->nr++] = op;
	if (op == FIO_NET_CMD_TS && len == sizeof(struct fio_wire_ts_pdu) && c->nr_ts < 4)
		memcpy(&c->ts[c->nr_ts++], pdu, len);
	if (op == FIO_NET_CMD_GS && len == sizeof(struct fio_wire_gs) && c->nr_gs < 4)
		memcpy(&c->gs[c->nr_gs++], pdu, len);
	return 0;
}

static double dbl(const struct fio_wire_fp64 *f)
{
	uint64_t b = le64toh(f->bits);
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/* The TS packets of one run, whole (their length varies with what follows the pdu). */
struct whole {
	struct rq_fio_emit em;
	uint8_t *ts[4];
	size_t len[4];
	unsigned int nr;
};

static int whole_fn(struct rq_fio_emit *em, uint16_t op, const void *pdu, size_t len)
{
	struct whole *w = (struct whole *)em;

	if (op != FIO_NET_CMD_TS || w->nr == 4)
		return 0;
	w->ts[w->nr] = malloc(len);
	if (!w->ts[w->nr])
		return -1;
	memcpy(w->ts[w->nr], pdu, len);
	w->len[w->nr++] = len;
	return 0;
}

/*
 * The window as fio's stat.c shows it from packet @p (@len bytes): from
 * ss_head, or one before it when full and not attained; false when the
 * samples are missing or not inside the packet.
 */
static bool ss_window(const uint8_t *p, size_t len, uint64_t *iops, uint64_t *bw)
{
	const struct fio_wire_ts *t = (const struct fio_wire_ts *)p;
	uint64_t dur = le64toh(t->ss_dur), io = le64toh(t->ss_iops_data_offset);
	uint64_t bo = le64toh(t->ss_bw_data_offset);
	uint32_t state = le32toh(t->ss_state), head = le32toh(t->ss_head), j;

	if (!(state & FIO_SS_DATA) || !dur || dur > 16 || io < sizeof(struct fio_wire_ts_pdu) ||
	    io + dur * 8 > len || bo < sizeof(struct fio_wire_ts_pdu) || bo + dur * 8 > len)
		return false;
	if ((state & FIO_SS_ATTAINED) || !(state & FIO_SS_BUFFER_FULL))
		j = head;
	else
		j = head == 0 ? (uint32_t)dur - 1 : head - 1;
	for (uint64_t l = 0; l < dur; l++) {
		uint64_t k = (j + l) % dur, a, b;

		memcpy(&a, p + io + k * 8, 8);
		memcpy(&b, p + bo + k * 8, 8);
		iops[l] = le64toh(a);
		bw[l] = le64toh(b);
	}
	return true;
}

/* One clone with steady-state report @ss (and a second I/O priority when @prio). */
static void ss_case(const char *what, struct rq_ss_report *ss, bool prio, uint32_t want_state)
{
	static struct rq_job_report job;
	static struct rq_prio_stat prios[2];
	struct whole w = { .em.fn = whole_fn };
	struct rq_run_report r = { .jobs = &job, .nr_jobs = 1 };
	uint64_t iops[16], bw[16];
	size_t extra = prio ? 2 * sizeof(struct fio_wire_clat_prio) : 0;
	const struct fio_wire_ts *t;

	memset(&job, 0, sizeof(job));
	memset(prios, 0, sizeof(prios));
	snprintf(job.name, sizeof(job.name), "ss");
	job.ss = ss;
	if (prio) {
		for (int i = 0; i < 2; i++) {
			prios[i].ioprio = (uint32_t)i * 3;
			rq_lat_init(&prios[i].lat);
			rq_lat_add(&prios[i].lat, 1000);
		}
		job.dir[0].prio = prios;
		job.dir[0].nr_prios = 2;
	}
	CHECK(rq_fio_send_results(&r, "", 1, &w.em) == 0 && w.nr == 1, "%s: no TS", what);
	if (w.nr != 1)
		return;
	t = (const struct fio_wire_ts *)w.ts[0];
	if (!ss) {
		static const uint8_t zero[sizeof(t->ss_criterion)];

		CHECK(w.len[0] == sizeof(struct fio_wire_ts_pdu) + extra, "%s: %zu bytes", what, w.len[0]);
		CHECK(!t->ss_dur && !t->ss_state && !t->ss_head && !t->ss_iops_data_offset &&
		      !t->ss_bw_data_offset && !memcmp(&t->ss_limit, zero, sizeof(zero)) &&
		      !memcmp(&t->ss_criterion, zero, sizeof(zero)), "%s: ss fields set", what);
		free(w.ts[0]);
		return;
	}
	CHECK(w.len[0] == sizeof(struct fio_wire_ts_pdu) + extra + 2 * 8 * ss->dur,
	      "%s: %zu bytes", what, w.len[0]);
	CHECK(le64toh(t->ss_dur) == ss->dur && le32toh(t->ss_state) == want_state,
	      "%s: ss_dur %llu, state 0x%x, want 0x%x", what, (unsigned long long)le64toh(t->ss_dur),
	      le32toh(t->ss_state), want_state);
	CHECK(le64toh(t->ss_iops_data_offset) == sizeof(struct fio_wire_ts_pdu) + extra &&
	      le64toh(t->ss_bw_data_offset) == sizeof(struct fio_wire_ts_pdu) + extra + 8 * ss->dur,
	      "%s: samples after the pdu%s", what, prio ? " and the clat_prio records" : "");
	CHECK(dbl(&t->ss_limit) == ss->limit && dbl(&t->ss_criterion) == ss->criterion &&
	      dbl(&t->ss_deviation) == ss->deviation && dbl(&t->ss_slope) == ss->slope_val,
	      "%s: limit, criterion, deviation, slope", what);
	CHECK(ss_window(w.ts[0], w.len[0], iops, bw) &&
	      !memcmp(iops, ss->iops_data, ss->dur * 8) && !memcmp(bw, ss->bw_data, ss->dur * 8),
	      "%s: the client does not read the window oldest first", what);
	if (prio)
		CHECK(le32toh(t->nr_clat_prio[0]) == 2 &&
		      le64toh(t->clat_prio_offset[0]) == sizeof(struct fio_wire_ts_pdu),
		      "%s: clat_prio records", what);
	free(w.ts[0]);
}

static void ss_check(void)
{
	static const uint64_t iops[4] = { 10, 20, 30, 40 }, bw[4] = { 1000, 2000, 3000, 4000 };
	static const uint64_t part_i[4] = { 7, 8, 0, 0 }, part_b[4] = { 70, 80, 0, 0 };
	struct rq_ss_report ss = { .pct = true, .limit = 5.0, .criterion = 12.5, .deviation = 15.0,
				   .dur = 4, .count = 4, .ramp_over = true, .iops_data = iops,
				   .bw_data = bw };
	const uint32_t base = FIO_SS_DATA | FIO_SS_RAMP_OVER | FIO_SS_BUFFER_FULL;

	/* full, not attained: fio's client reads from one before the head */
	ss_case("full", &ss, false, base | FIO_SS_IOPS | FIO_SS_PCT);
	ss.attained = true;
	ss_case("attained", &ss, false, base | FIO_SS_IOPS | FIO_SS_PCT | FIO_SS_ATTAINED);
	ss.attained = false;
	ss.bw = ss.slope = true;
	ss.pct = false;
	ss.slope_val = -3.25;
	ss_case("bw_slope", &ss, false, base | FIO_SS_BW | FIO_SS_SLOPE);
	ss_case("with priorities", &ss, true, base | FIO_SS_BW | FIO_SS_SLOPE);
	/* two samples of four, still in ss_ramp: zeros after them */
	ss.count = 2;
	ss.ramp_over = false;
	ss.iops_data = part_i;
	ss.bw_data = part_b;
	ss_case("partial", &ss, false, FIO_SS_DATA | FIO_SS_BW | FIO_SS_SLOPE);
	/* a window of one */
	ss.dur = ss.count = 1;
	ss_case("one", &ss, false, FIO_SS_DATA | FIO_SS_BW | FIO_SS_SLOPE | FIO_SS_BUFFER_FULL);
	ss_case("no ss", NULL, false, 0);
	ss_case("no ss, priorities", NULL, true, 0);
}

int main(void)
{
	static struct rq_job_report jobs[3];
	static struct capture cap = { .em.fn = cap_fn };
	const char *keys[] = { "rw" }, *vals[] = { "randread" }, *gk[] = { "bs" }, *gv[] = { "4k" };
	struct rq_run_report r = { .jobs = jobs, .nr_jobs = 3, .global_opt_keys = gk,
				   .global_opt_vals = gv, .nr_global_opts = 1 };
	struct rq_lat_stat all;
	const struct fio_wire_ts *t;
	double S;

	rq_lat_init(&all);
	for (int i = 0; i < 3; i++) {
		struct rq_job_report *m = &jobs[i];

		snprintf(m->name, sizeof(m->name), i < 2 ? "grp" : "solo");
		m->groupid = i < 2 ? 0 : 1;
		m->group_reporting = i < 2;
		m->clone = i < 2 ? (unsigned int)i : 0;
		m->job_runtime_ns = 1000000000ULL * (uint64_t)(i + 1);
		m->opt_keys = keys;
		m->opt_vals = vals;
		m->nr_opts = 1;
		m->clat_percentiles = true;
		/* settings that differ per clone: the summed thread_stat shows clone 1's */
		m->slat_percentiles = i == 1;
		m->continue_on_error = i + 1;
		m->iodepth = 4 * (unsigned int)(i + 1);
		m->latency_target_ns = 1000 * (uint64_t)(i + 1);
		m->latency_window_us = 10 * (uint64_t)(i + 1);
		m->latency_percentile = 90.0 + i;
		rq_lat_init(&m->dir[0].clat);
		for (int k = 0; k < 100; k++) {
			uint64_t ns = 1000 + (uint64_t)(k * (i + 1) * 37 % 5000);

			rq_lat_add(&m->dir[0].clat, ns);
			if (i < 2)
				rq_lat_add(&all, ns);
		}
		m->dir[0].total_ios = 100;
		m->dir[0].io_bytes = 409600;
		m->dir[0].runtime_ns = 500000000ULL * (uint64_t)(i + 1);	/* 500, 1000 ms */
		m->dir[0].bw = (struct rq_sample_stat){ .samples = 2, .min = 100, .max = 300, .mean = 200, .stddev = 10 };
	}
	CHECK(rq_fio_send_results(&r, "rqlock lock=mq", 3, &cap.em) == 0);

	/* order: global opt, [opt, TS] x 2 thread_stats, GS x 2 groups */
	{
		const uint16_t want[] = { FIO_NET_CMD_JOB_OPT, FIO_NET_CMD_JOB_OPT, FIO_NET_CMD_TS,
					  FIO_NET_CMD_JOB_OPT, FIO_NET_CMD_TS, FIO_NET_CMD_GS, FIO_NET_CMD_GS };

		CHECK(cap.nr == sizeof(want) / sizeof(want[0]) && !memcmp(cap.ops, want, sizeof(want)));
	}
	CHECK(cap.nr_ts == 2 && cap.nr_gs == 2);
	t = &cap.ts[0].ts;
	CHECK(!strcmp(t->name, "grp") && le32toh(t->members) == 2 && le32toh(t->groupid) == 0);
	CHECK(le32toh(t->thread_number) == 1 && !strcmp(t->description, "rqlock lock=mq"));
	CHECK(le64toh(t->io_bytes[0]) == 819200 && le64toh(t->total_io_u[0]) == 200);
	CHECK(le64toh(t->runtime[0]) == 1000 && le64toh(t->total_run_time) == 3000);
	CHECK(le64toh(t->clat_stat[0].samples) == 200);
	CHECK(le64toh(t->clat_stat[0].min_val) == all.min_ns && le64toh(t->clat_stat[0].max_val) == all.max_ns);
	CHECK(fabs(dbl(&t->clat_stat[0].mean) - rq_lat_mean(&all)) < 1e-6 * rq_lat_mean(&all));
	S = rq_lat_stddev(&all) * rq_lat_stddev(&all) * 199.0;
	CHECK(fabs(dbl(&t->clat_stat[0].S) - S) < 1e-6 * S);
	/* bandwidth samples add up (fio's pure_sum) */
	CHECK(le64toh(t->bw_stat[0].samples) == 4 && le64toh(t->bw_stat[0].min_val) == 200 &&
	      dbl(&t->bw_stat[0].mean) == 400.0);
	/* empty stats as fio initialises them; the histogram is the clat one, summed */
	CHECK(le64toh(t->slat_stat[0].min_val) == UINT64_MAX && le64toh(t->clat_stat[1].samples) == 0);
	{
		uint64_t n = 0;

		for (int i = 0; i < FIO_PLAT_NR; i++)
			n += le64toh(t->io_u_plat[1][0][i]);
		CHECK(n == 200);
	}
	CHECK(dbl(&t->percentile_list[0]) == 1.0 && dbl(&t->percentile_list[16]) == 99.99 &&
	      dbl(&t->percentile_list[17]) == 0.0);
	CHECK(le32toh(t->clat_percentiles) == 1 && le32toh(t->slat_percentiles) == 1);
	CHECK(le32toh(t->continue_on_error) == 2 && le32toh(t->latency_depth) == 8);
	CHECK(le64toh(t->latency_target) == 2000 && le64toh(t->latency_window) == 20 &&
	      dbl(&t->latency_percentile) == 91.0);
	CHECK(le32toh(t->disable_prio_stat) == 1 && !t->nr_clat_prio[0] && !t->clat_prio_offset[0]);
	/* the TS carries its group's final stats */
	CHECK(le64toh(cap.ts[0].rs.iobytes[0]) == 819200 && le64toh(cap.ts[0].rs.max_run[0]) == 1000);
	CHECK(le64toh(cap.gs[0].agg[0]) == 819200 && le64toh(cap.gs[0].min_run[1]) == UINT64_MAX);
	/* the second thread_stat: clone 3, its own group */
	t = &cap.ts[1].ts;
	CHECK(!strcmp(t->name, "solo") && le32toh(t->thread_number) == 3 && le32toh(t->groupid) == 1);
	CHECK(le32toh(t->slat_percentiles) == 0 && le64toh(t->latency_target) == 3000);
	CHECK(le64toh(cap.gs[1].agg[0]) == 409600 * 1000 / 1500 && le32toh(cap.gs[1].groupid) == 1);

	CHECK(!t->ss_dur && !t->ss_state && !t->ss_iops_data_offset);
	ss_check();

	/* rq_fio_nr_ts counts what START announces the same way */
	{
		struct rq_job jl[2];
		struct rq_job_list list = { .jobs = jl, .nr = 2 };
		unsigned int clones;

		memset(jl, 0, sizeof(jl));
		jl[0].numjobs = 2;
		jl[0].group_reporting = true;
		jl[1].numjobs = 1;
		jl[1].groupid = 1;
		CHECK(rq_fio_nr_ts(&list, &clones) == 2 && clones == 3);
		jl[0].group_reporting = false;
		CHECK(rq_fio_nr_ts(&list, &clones) == 3);
	}
	if (failures) {
		fprintf(stderr, "FAIL: %d check(s)\n", failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
