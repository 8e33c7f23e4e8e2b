// SPDX-License-Identifier: MIT
/*
 * legacy.c - the request_fn lock modes of Linux 2.4 and 2.5.
 *
 * global (2.4): one io_request_lock for every queue on the machine.
 * per-queue (2.5): the same path, one lock per request queue.
 *
 * Locks:
 *   q->lock (&rq_io_request_lock, or &q->own_lock): protects the queue's
 *   elevator list, its request pool, q->inflight and the counters.  It is
 *   held across the merge/insert of a bio, the driver's dispatch
 *   (request_fn -> queue_rq) and the ending of a request, as 2.4 held
 *   io_request_lock through end_request.  Bios are ended after the lock
 *   is dropped.  It is the only lock of these modes: no ordering to keep
 *   (lockdep: one class, no edges).  The driver's queue_rq runs under it.
 *
 * Cost: two acquisitions per request when completions come back later
 * (submit, end), one when the device completes at once.  Under global,
 * every worker and every device serialise on one cache line.
 */
#include <errno.h>
#include <stdio.h>

#include "queues/driver.h"
#include "queues/queue_internal.h"

/* 2.4's one lock for every queue (global mode) */
struct rq_lock rq_io_request_lock;

static const struct rq_lock_class io_request_lock_class = { .name = "io_request_lock" };
static const struct rq_lock_class queue_lock_class = { .name = "queue_lock" };

static int global_setup(const struct rq_mode_config *cfg)
{
	int ret = rq_mode_locks_setup(cfg);

	if (ret)
		return ret;
	rq_lock_init(&rq_io_request_lock, &io_request_lock_class, "io_request_lock");
	return 0;
}

static int per_queue_setup(const struct rq_mode_config *cfg)
{
	return rq_mode_locks_setup(cfg);
}

static int global_queue_init(struct rq_queue *q)
{
	q->lock = &rq_io_request_lock;
	return 0;
}

static int per_queue_init(struct rq_queue *q)
{
	char name[sizeof(q->own_lock.name)];

	snprintf(name, sizeof(name), "queue_lock:%.30s", q->name);
	rq_lock_init(&q->own_lock, &queue_lock_class, name);
	q->lock = &q->own_lock;
	return 0;
}

static int legacy_submit_bio(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio *bio)
{
	int id = rq_ctx_id(cpu);
	struct rq_bio *done = NULL;

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

static void legacy_end_request(struct rq_queue *q, struct rq_ctx *cpu, struct rq_request *rq, int error)
{
	int id = rq_ctx_id(cpu);
	struct rq_bio *bios, *done = NULL;

	rq_lock_for(q->lock, id, q->name);
	bios = rq_request_finish(q, rq, error);
	q->stopped = false;
	if (q->head)
		rq_request_fn(q, cpu, &done);
	rq_unlock(q->lock, id);
	rq_bios_end(cpu, bios);
	rq_bios_end(cpu, done);
}

static void legacy_run_queue(struct rq_queue *q, struct rq_ctx *cpu)
{
	int id = rq_ctx_id(cpu);
	struct rq_bio *done = NULL;

	rq_lock_for(q->lock, id, q->name);
	q->stopped = false;
	atomic_store_explicit(&q->needs_rerun, false, memory_order_relaxed);
	rq_request_fn(q, cpu, &done);
	rq_unlock(q->lock, id);
	rq_bios_end(cpu, done);
}

const struct rq_queue_mode_ops rq_mode_global = {
	.name = "global",
	.help = "one io_request_lock for every queue (Linux 2.4)",
	.flags = RQ_MODE_F_SHARED_LOCK,
	.setup = global_setup,
	.queue_init = global_queue_init,
	.submit_bio = legacy_submit_bio,
	.end_request = legacy_end_request,
	.run_queue = legacy_run_queue,
};

const struct rq_queue_mode_ops rq_mode_per_queue = {
	.name = "per-queue",
	.help = "one lock per request queue (Linux 2.5)",
	.setup = per_queue_setup,
	.queue_init = per_queue_init,
	.submit_bio = legacy_submit_bio,
	.end_request = legacy_end_request,
	.run_queue = legacy_run_queue,
};
