/* SPDX-License-Identifier: MIT */
/*
 * queue_internal.h - what the lock modes share inside queues/: the request
 * pool and the FIFO elevator.  Never included outside queues/.
 *
 * Every function here needs the lock that protects the queue's elevator
 * (q->lock in the legacy modes) and says so with rq_lock_assert_held()
 * where a cpu is at hand.
 */
#ifndef RQ_QUEUE_INTERNAL_H
#define RQ_QUEUE_INTERNAL_H

#include "queues/queue.h"

/* Take a free request from the pool; NULL when empty. */
struct rq_request *rq_pool_get(struct rq_queue *q);
void rq_pool_put(struct rq_queue *q, struct rq_request *rq);

/*
 * Try to merge @bio into a queued request: back merge (the request ends
 * where the bio starts) or front merge (the bio ends where it starts), same
 * direction, within RQ_MAX_SEGS and q->max_bytes.  The last merged or added
 * request is tried first, then the queue from the tail, as the 2.4
 * elevator scanned it.  Returns true if merged.
 */
bool rq_elv_merge(struct rq_queue *q, struct rq_bio *bio);
/* Start a request from @bio and add it at the tail. */
void rq_elv_add_bio(struct rq_queue *q, struct rq_request *rq, struct rq_bio *bio);
struct rq_request *rq_elv_pop(struct rq_queue *q);
void rq_elv_requeue(struct rq_queue *q, struct rq_request *rq);

/* Fill rq->iov from its bios before it goes to the device. */
void rq_request_prep(struct rq_request *rq);
/*
 * A request's device work is over: check and move its state, return its
 * bios with their error set; the request goes back to the pool.
 */
struct rq_bio *rq_request_finish(struct rq_queue *q, struct rq_request *rq, int error);
/* End a list of bios (no lock held). */
void rq_bios_end(struct rq_cpu *cpu, struct rq_bio *bios);

#endif
