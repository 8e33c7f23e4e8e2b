// SPDX-License-Identifier: MIT
/*
 * lattarget.c - latency_target: the deepest queue whose latency meets a
 * target, searched as fio 3.33 searches it (io_u.c: lat_target_init,
 * lat_target_check, lat_target_success, __lat_target_failed).
 *
 * The clone starts at depth 1 and judges windows of latency_window: a
 * window succeeds when at least latency_percentile of its I/Os completed
 * (lat: built -> completion) within latency_target.  While nothing has
 * failed the depth doubles; once a depth has failed, it bisects between
 * the deepest depth that met the target (low) and the shallowest that did
 * not (high).  A failure at depth 1 with latency_percentile=100 ends the
 * job with ETIMEDOUT, fio's "max latency exceeded"; with a lower
 * percentile the depth stays at 1.  When a success leaves the depth where
 * it was, the depth is found: one more window runs at it (fio's final
 * run) and the job ends after its success, unless latency_run=1, which
 * keeps adjusting for the whole run.  After a ramp down the clone drains
 * what is in flight before the next window (fio's io_u_quiesce), so I/Os
 * issued at the deeper queue do not judge the shallower one.
 *
 * Where rqlock differs from fio, and why:
 * - fio judges an empty window (no completions) as a failure (0/0 is not
 *   >= the percentile); rqlock waits for a completion before judging.
 * - fio's quiesce reaps through its normal completion path, so with
 *   latency_percentile=100 each late I/O of the old depth ramps down
 *   again; rqlock does not judge the I/Os drained by a quiesce.
 * - fio resets the job's statistics for its final run; rqlock's report
 *   covers the whole run, search included (its logs and status line count
 *   on from the start), and latency_depth is the result.
 *
 * Cost: one compare per completion; a window check per worker round.
 */
#include <errno.h>
#include <stdio.h>

#include "engine/runner.h"

void eng_lat_init(struct clone *c)
{
	struct lat_search *s = &c->lat;

	*s = (struct lat_search){ .qd = 1, .low = 1, .high = c->job->iodepth };
	c->rep.iodepth = s->qd;		/* fio's latency_depth: where the search is */
}

static void new_cycle(struct lat_search *s, uint64_t now)
{
	s->window_ns = now;
	s->ios = 0;
	s->failed = 0;
}

/*
 * The depth did not meet the target: ramp down, bisecting towards low.
 * true at depth 1: there is nowhere lower to go.
 */
static bool ramp_down(struct clone *c)
{
	struct lat_search *s = &c->lat;

	if (s->qd == 1)
		return true;
	s->high = s->qd;
	if (s->qd == s->low)
		s->low--;
	s->qd = (s->qd + s->low) / 2;
	s->stable = 0;
	s->quiesce = true;	/* the next window starts once the queue is empty */
	c->rep.iodepth = s->qd;
	return false;
}

/* The depth met the target: ramp up (double, or bisect towards high). */
static void ramp_up(struct clone *c, uint64_t now)
{
	struct lat_search *s = &c->lat;
	unsigned int depth = c->job->iodepth, was = s->qd;

	s->low = s->qd;
	/*
	 * Just below the failing depth the bisection cannot move: after three
	 * successes there, try one deeper (fio's latency_stable_count).
	 */
	if (s->qd + 1 == s->high && ++s->stable >= 3) {
		s->high++;
		s->stable = 0;
	}
	if (s->high != depth)
		s->qd = (s->qd + s->high) / 2;
	else
		s->qd *= 2;
	if (s->qd > depth)
		s->qd = depth;
	c->rep.iodepth = s->qd;
	if (!c->job->latency_run && s->qd == was) {
		if (s->end_run) {
			c->issue_done = true;	/* found, and held for a window: done */
			return;
		}
		s->end_run = true;	/* one more window at the depth found */
		s->quiesce = true;
		return;
	}
	new_cycle(s, now);
}

bool eng_lat_io(struct clone *c, uint64_t lat_ns)
{
	struct lat_search *s = &c->lat;
	const struct rq_job *job = c->job;

	if (s->quiesce)
		return false;	/* issued at the depth being left: not judged */
	s->ios++;
	if (lat_ns <= job->latency_target_ns)
		return false;
	if (job->latency_percentile < 100.0) {
		s->failed++;
		return false;
	}
	return ramp_down(c);
}

void eng_lat_check(struct clone *c, uint64_t now)
{
	struct lat_search *s = &c->lat;
	const struct rq_job *job = c->job;
	double ok;

	if (now < c->ramp_end_ns)
		return;
	if (s->quiesce) {
		if (c->inflight)
			return;
		s->quiesce = false;
		new_cycle(s, now);
		return;
	}
	if (!s->window_ns) {
		new_cycle(s, now);	/* the first window starts with the job (after ramp_time) */
		return;
	}
	if (now - s->window_ns < job->latency_window_ns || !s->ios)
		return;
	ok = (double)(s->ios - s->failed) * 100.0 / (double)s->ios;
	if (ok >= job->latency_percentile)
		ramp_up(c, now);
	else if (ramp_down(c))
		new_cycle(s, now);	/* at depth 1 it stays: only percentile=100 fails the job */
}
