/* SPDX-License-Identifier: MIT */
/*
 * cmdprio.h - a job's I/O priorities (cmdprio.c): its own (prio,
 * prioclass), every I/O's unless cmdprio gives it another, as fio's
 * engines/cmdprio.c does: cmdprio_percentage sends that share of a
 * direction's I/Os at cmdprio_class/cmdprio, cmdprio_bssplit a share per
 * block size at a priority per share; the rest go at the job's own.
 * Each I/O's priority goes to the kernel with it (queues/ rq_bio.ioprio)
 * and, with cmdprio, its latency into that priority's statistics
 * (results/ rq_prio_stat), index 0 being the job's own.  Included by
 * cmdprio.c, runner.h's users that pick (clone.c), set up (setup.c) and
 * report (run.c).
 */
#ifndef RQ_ENGINE_CMDPRIO_H
#define RQ_ENGINE_CMDPRIO_H

#include <stdint.h>

#include "jobfile/job.h"
#include "engine/offsets.h"
#include "queues/queue.h"

struct cmdprio_share {
	uint32_t bs;			/* cmdprio_bssplit: the block size it is for; 0: any */
	uint32_t pct;
	uint16_t ioprio;
	uint8_t idx;			/* its statistics: rq_dir_report.prio[idx] */
};

/* A clone's, per direction (read, write): its shares, bs-sorted. */
struct cmdprio {
	struct {
		unsigned int nr;
		struct cmdprio_share s[RQ_MAX_BSSPLIT];
	} dir[2];
	uint64_t rng;			/* its own stream, as fio's prio_state: offsets do not move */
	uint16_t own;			/* the job's priority (prio, prioclass; 0: none) */
};

struct clone;
struct rq_engine;
/*
 * Set up @c's priorities from its job: every bio at the job's own,
 * c->cmdprio (NULL when the job has none) and, per direction that has
 * shares, c->rep.dir[d].prio with the job's own priority first.  A
 * realtime priority the process may not give fails the clone (EPERM,
 * one line on stderr) as fio's ioprio_set() fails its job.  0 or -ENOMEM.
 */
int eng_cmdprio_init(struct clone *c, const struct rq_job *job, uint64_t seed);
void eng_cmdprio_free(struct clone *c);
/*
 * Once the clones are done, before their reports are copied: the
 * per-priority statistics fio keeps for a reporting group whose jobs
 * differ in priority (cmdprio.c).
 */
void eng_prio_report(struct rq_engine *e);

/*
 * The priority of an I/O of @op and @bs (fio's fio_cmdprio_set_ioprio()):
 * a draw 0..99 when the direction has shares for @bs, and the share it
 * falls in, else the job's own.
 */
static inline void eng_cmdprio_pick(struct cmdprio *p, struct rq_bio *bio, int op, uint32_t bs)
{
	uint32_t total = 0, r, acc = 0;

	bio->ioprio = p->own;
	bio->prio_idx = 0;
	if (op > 1)
		return;
	for (unsigned int i = 0; i < p->dir[op].nr; i++)
		if (!p->dir[op].s[i].bs || p->dir[op].s[i].bs == bs)
			total += p->dir[op].s[i].pct;
	if (!total)
		return;
	r = (uint32_t)(rq_rng_next(&p->rng) % 100);
	if (r >= total)
		return;
	for (unsigned int i = 0; i < p->dir[op].nr; i++) {
		const struct cmdprio_share *s = &p->dir[op].s[i];

		if (s->bs && s->bs != bs)
			continue;
		acc += s->pct;
		if (r < acc) {
			bio->ioprio = s->ioprio;
			bio->prio_idx = s->idx;
			return;
		}
	}
}

#endif
