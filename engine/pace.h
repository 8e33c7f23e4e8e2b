/* SPDX-License-Identifier: MIT */
/*
 * pace.h - a rate-limited job's schedule (pace.c): rate_iops' due times,
 * intended latency, late I/Os.  Included by pace.c, runner.h (a clone
 * keeps one per direction), clone.c, setup.c and test_pace.c.
 */
#ifndef RQ_ENGINE_PACE_H
#define RQ_ENGINE_PACE_H

#include <stdbool.h>
#include <stdint.h>

struct rq_dir_report;

/*
 * A rate-limited job's schedule (pace.c): due times fixed by the rate
 * alone, never by completions.  next_ns 0 = not started.
 */
struct pace {
	uint64_t next_ns;		/* due time of the next I/O */
	uint64_t mean_gap_ns;		/* 1e9 / rate_iops; 0 = no schedule */
	bool poisson;			/* rate_process=poisson: exponential gaps */
};

void eng_pace_init(struct pace *p, uint64_t rate_iops, bool poisson);
/*
 * May an I/O be issued at @now?  true: yes, *due = its due time (<= now:
 * a backlog is issued at once), the schedule moves on by one gap.  false:
 * not yet, *due = when.
 */
bool eng_pace_take(struct pace *p, uint64_t now, uint64_t *rng, uint64_t *due);
/* Account one completed paced I/O in @d: lat_intended, late_ios, max_lag_ns. */
void eng_pace_account(struct rq_dir_report *d, uint64_t mean_gap_ns, uint64_t due, uint64_t start,
		      uint64_t done);

#endif
