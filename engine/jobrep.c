// SPDX-License-Identifier: MIT
/*
 * jobrep.c - the fields of a job's report that come from the job itself
 * (its options, as fio prints them), for the final report (run.c) and
 * the live one (status.c), and the clock both name: below run.c,
 * status.c and worker.c, so status.c (which run.c starts and stops and
 * worker.c feeds) calls back into neither.
 */
#include "engine/runner.h"
#include "lib/clock.h"

/* The clock the reports' times come from (rq_clock_name: TSC or clock_gettime). */
const char *rq_engine_clock(void)
{
	return rq_clock_name();
}

/* What a job report takes from the job itself, and the run time it covers. */
void eng_job_report_static(const struct rq_job *job, struct rq_job_report *r, uint64_t runtime_ns)
{
	r->continue_on_error = job->continue_on_error;
	if (!job->latency_target_ns)
		r->iodepth = job->iodepth;	/* else the search keeps it (lattarget.c) */
	r->latency_target_ns = job->latency_target_ns;
	r->latency_window_us = job->latency_window_ns / 1000;
	r->latency_percentile = job->latency_percentile;	/* fio prints its options even unused */
	r->kb_base = job->kb_base;
	r->sig_figs = job->sig_figs;
	r->slat_percentiles = job->slat_percentiles;
	r->percentile_precision = job->percentile_precision;
	r->job_runtime_ns = runtime_ns;
	r->group_reporting = job->group_reporting;
	r->description = job->description;
	r->percentiles = job->nr_percentiles ? job->percentile_list : NULL;
	r->nr_percentiles = job->nr_percentiles;
	r->lat_percentiles = job->lat_percentiles;
	r->clat_percentiles = job->clat_percentiles;
	r->unified_rw_reporting = job->unified_rw_reporting;
	r->opt_keys = (const char *const *)job->opt_keys;
	r->opt_vals = (const char *const *)job->opt_vals;
	r->nr_opts = job->nr_opts;
	for (int d = 0; d < RQ_DDIR_NR; d++)
		r->dir[d].runtime_ns = r->dir[d].total_ios ? runtime_ns : 0;
}
