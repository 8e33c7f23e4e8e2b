// SPDX-License-Identifier: MIT
/*
 * toy.c - a toy lock mode for tests/test_add_mode.sh, copied there as
 * queues/toy.c and registered by one line in queues/modes.def: the proof
 * that a mode is its file plus one registry line.  It is per-queue's
 * locking (one lock per queue around the elevator and the dispatch), and
 * reports one fact of its own, "submits" per queue.
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

/* The queue's fact: submits, the bios submitted to it. */
static void toy_report(const struct rq_queue *q, struct rq_mode_queue_report *out)
{
	const struct toy_queue *t = q->mode_priv;

	rq_fact_add(&out->facts, "submits", (int64_t)atomic_load(&t->submits));
}

const struct rq_queue_mode_ops rq_mode_toy = {
	.name = "toy",
	.help = "a toy: per-queue locking in a file of its own (tests/test_add_mode.sh)",
	.setup = toy_setup,
	.queue_init = toy_queue_init,
	.queue_exit = toy_queue_exit,
	.submit_bio = toy_submit_bio,
	.end_request = toy_end_request,
	.run_queue = toy_run_queue,
	.report = toy_report,
};
