// SPDX-License-Identifier: MIT
/*
 * toy.c - a toy lock mode for tests/test_add_mode.sh, copied there as
 * queues/toy.c and registered by one line in queues/modes.def: the proof
 * that a mode is its file plus one registry line.  It is per-queue's
 * locking (one lock per queue around the elevator and the dispatch), and
 * reports two facts of its own per queue: "submits", the bios submitted,
 * and "completed", the requests its end_request ended (a device that
 * completes inside queue_rq ends them in rq_request_fn instead), counted
 * in each request's own area (.cmd_size, rq_request_pdu()) and summed over
 * the pool at the end.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "queues/driver.h"
#include "queues/queue_internal.h"
#include "results/results.h"

static const struct rq_lock_class toy_lock_class = { .name = "toy_lock" };

struct toy_queue {
	_Atomic uint64_t submits;
};

/* per request, in the area the pool sizes by .cmd_size; q->lock */
struct toy_rq {
	uint64_t completed;
};

static int toy_setup(const struct rq_mode_config *cfg)
{
	return rq_mode_locks_setup(cfg);
}

static int toy_queue_init(struct rq_queue *q)
{
	q->mode_priv = calloc(1, sizeof(struct toy_queue));
	if (!q->mode_priv)
		return -ENOMEM;
	rq_lock_init(&q->own_lock, &toy_lock_class, "toy_lock");
	q->lock = &q->own_lock;
	return 0;
}

static void toy_queue_exit(struct rq_queue *q)
{
	free(q->mode_priv);
	q->mode_priv = NULL;
}

static int toy_submit_bio(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio *bio)
{
	struct toy_queue *t = q->mode_priv;
	struct rq_bio *done = NULL;
	int id = rq_ctx_id(cpu);

	atomic_fetch_add_explicit(&t->submits, 1, memory_order_relaxed);
	rq_lock_for(q->lock, id, q->name);
	if (!rq_elv_insert_bio(q, bio)) {
		rq_unlock(q->lock, id);
		return -EAGAIN;
	}
	rq_request_fn(q, cpu, &done);
	rq_unlock(q->lock, id);
	rq_bios_end(cpu, done);
	return 0;
}

static void toy_end_request(struct rq_queue *q, struct rq_ctx *cpu, struct rq_request *rq, int error)
{
	struct rq_bio *bios, *done = NULL;
	int id = rq_ctx_id(cpu);

	rq_lock_for(q->lock, id, q->name);
	((struct toy_rq *)rq_request_pdu(rq))->completed++;
	bios = rq_request_finish(q, rq, error);
	q->stopped = false;
	if (q->head)
		rq_request_fn(q, cpu, &done);
	rq_unlock(q->lock, id);
	rq_bios_end(cpu, bios);
	rq_bios_end(cpu, done);
}

static void toy_run_queue(struct rq_queue *q, struct rq_ctx *cpu)
{
	struct rq_bio *done = NULL;
	int id = rq_ctx_id(cpu);

	rq_lock_for(q->lock, id, q->name);
	q->stopped = false;
	atomic_store_explicit(&q->needs_rerun, false, memory_order_relaxed);
	rq_request_fn(q, cpu, &done);
	rq_unlock(q->lock, id);
	rq_bios_end(cpu, done);
}

/* The queue's facts: the bios submitted to it, the requests its pool completed. */
static void toy_report(const struct rq_queue *q, struct rq_mode_queue_report *out)
{
	const struct toy_queue *t = q->mode_priv;
	uint64_t completed = 0;

	for (uint32_t i = 0; i < q->nr_requests; i++)
		completed += ((struct toy_rq *)rq_request_pdu(rq_request_at(q->pool, q->rq_stride, i)))->completed;
	rq_fact_add(&out->facts, "submits", (int64_t)atomic_load(&t->submits));
	rq_fact_add(&out->facts, "completed", (int64_t)completed);
}

const struct rq_queue_mode_ops rq_mode_toy = {
	.name = "toy",
	.help = "a toy: per-queue locking in a file of its own (tests/test_add_mode.sh)",
	.cmd_size = sizeof(struct toy_rq),
	.setup = toy_setup,
	.queue_init = toy_queue_init,
	.queue_exit = toy_queue_exit,
	.submit_bio = toy_submit_bio,
	.end_request = toy_end_request,
	.run_queue = toy_run_queue,
	.report = toy_report,
};
