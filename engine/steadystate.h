/* SPDX-License-Identifier: MIT */
/*
 * steadystate.h - fio 3.33's steady-state detection (ss=, ss_dur=,
 * ss_ramp=), inside engine/ only.
 *
 * A judge watches one clone, or with group_reporting every clone of the
 * reporting group together (fio sums the group's rates).  Once a second
 * the status thread (status.c, fio's helper thread) takes each running
 * member's IOPS and bytes per second since its last look, adds their sum
 * to the judge's window of ss_dur samples and, once the window is full,
 * judges it: the largest deviation from the window's mean (iops, bw) or
 * its least-squares slope (iops_slope, bw_slope), against the limit or
 * the limit's percentage of the mean.  Below it the judge is attained and
 * every member stops issuing, as fio marks its jobs to terminate: the
 * I/O in flight completes, no verify pass follows.
 *
 * Who touches what: a member's worker publishes its clone's counts and
 * state with atomic stores (eng_ss_tick(), every round of an ss clone)
 * and reads the judge's stop flag; the window, the members' last looks
 * and the report are the status thread's alone while the run goes on,
 * and are read by the report after that thread is joined (or by the
 * status thread itself, for --status-interval).
 */
#ifndef RQ_ENGINE_STEADYSTATE_H
#define RQ_ENGINE_STEADYSTATE_H

#include <stdint.h>
#include <stdio.h>

struct clone;
struct rq_cpu;
struct rq_engine;

/*
 * Before anything is written: refuse jobs of one reporting group whose
 * ss, ss_dur or ss_ramp differ (fio rejects them), then make a judge per
 * clone with a window of at least one second, or per group with
 * group_reporting, and point each member and its report at it.  0, or
 * -EINVAL / -ENOMEM after one line on @err.
 */
int eng_ss_setup(struct rq_engine *e, FILE *err);
void eng_ss_free(struct rq_engine *e);

/*
 * The status thread, once a second: sample and judge every judge not yet
 * attained (@now on rq_clock_ns()'s scale).
 */
void eng_ss_check(struct rq_engine *e, uint64_t now);

/*
 * A worker, each round, for a clone with a judge that has not finished
 * yet (and in the round it finishes): stop it once its judge attained,
 * publish its counts, when its samples may start, and that it ended.
 */
void eng_ss_tick(struct clone *c, uint64_t now);

/* A worker leaves its loop: its clones are no longer sampled, finished or not. */
void eng_ss_worker_exit(struct rq_cpu *cpu);

#endif /* RQ_ENGINE_STEADYSTATE_H */
