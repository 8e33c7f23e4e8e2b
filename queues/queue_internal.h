/* SPDX-License-Identifier: MIT */
/*
 * queue_internal.h - what the lock modes share inside queues/: the request
 * pool, the FIFO elevator, the legacy request_fn and the lock layer's
 * report.  Never included outside queues/.
 *
 * Every pool and elevator function here needs the lock that protects the
 * queue's elevator (q->lock in the legacy modes; in cluster mode the owner
 * partition's queue lock, or nothing when the partition is one worker) and
 * says so with rq_queue_assert_locked().
 */
#ifndef RQ_QUEUE_INTERNAL_H
#define RQ_QUEUE_INTERNAL_H

#include "queues/queue.h"

/* A mode's setup: configure the lock layer from the run's configuration. */
int rq_mode_locks_setup(const struct rq_mode_config *cfg);

/*
 * The pool and the elevator need q->lock when the mode gives the queue
 * one (cluster with one worker per partition gives none: only the owner
 * touches the queue).  Checked in Debug and sanitizer builds.
 */
static inline void rq_queue_assert_locked(const struct rq_queue *q)
{
	if (q->lock)
		rq_lockdep_assert_held(q->lock);
}

/* A request the caller owns starts as @bio alone, queued. */
static inline void rq_request_start(struct rq_request *rq, struct rq_bio *bio)
{
	bio->next = NULL;
	rq->bio = rq->biotail = bio;
	rq->offset = bio->offset;
	rq->len = bio->len;
	rq->op = bio->op;
	rq->nr_segs = 1;
	rq->error = 0;
	rq->res = 0;
	rq->state = RQ_STATE_QUEUED;
}

enum { RQ_HASH_END = 0, RQ_HASH_START = 1 };

/* Chain head of @key (a byte offset) in merge hash @which. */
static inline struct rq_request **rq_elv_hash_head(const struct rq_queue *q, int which, uint64_t key)
{
	uint32_t h = (uint32_t)(((key >> 9) * 0x9E3779B97F4A7C15ULL) >> 32) & q->hash_mask;

	return &q->merge_hash[(which ? q->hash_mask + 1 : 0) + h];
}

/* Hash @rq by its end (RQ_HASH_END) or start (RQ_HASH_START). */
static inline void rq_elv_hash_add(struct rq_queue *q, struct rq_request *rq, int which)
{
	struct rq_request **head = rq_elv_hash_head(q, which, which == RQ_HASH_END ? rq->offset + rq->len
										 : rq->offset);

	rq->hnext[which] = *head;
	if (*head)
		(*head)->hpprev[which] = &rq->hnext[which];
	*head = rq;
	rq->hpprev[which] = head;
}

static inline void rq_elv_hash_del(struct rq_request *rq, int which)
{
	*rq->hpprev[which] = rq->hnext[which];
	if (rq->hnext[which])
		rq->hnext[which]->hpprev[which] = rq->hpprev[which];
	rq->hnext[which] = NULL;
	rq->hpprev[which] = NULL;
}

/*
 * Hash the requests added since the last call: the unhashed tail of the
 * list.  Called when request_fn leaves requests queued, so a request the
 * device takes at once (the common, inline case) is never hashed; each
 * request is hashed once, O(1) amortised.
 */
static inline void rq_elv_hash_rest(struct rq_queue *q)
{
	for (struct rq_request *rq = q->tail; rq && !rq->hpprev[RQ_HASH_END]; rq = rq->prev) {
		rq_elv_hash_add(q, rq, RQ_HASH_END);
		rq_elv_hash_add(q, rq, RQ_HASH_START);
	}
}

/* Take a free request from the pool; NULL when empty. */
static inline struct rq_request *rq_pool_get(struct rq_queue *q)
{
	struct rq_request *rq = q->free;

	rq_queue_assert_locked(q);
	if (rq) {
		q->free = rq->next;
		rq->next = rq->prev = NULL;
		q->nr_alloc++;
	}
	return rq;
}
/* Give @rq back to the pool. */
static inline void rq_pool_put(struct rq_queue *q, struct rq_request *rq)
{
	rq_queue_assert_locked(q);
	rq->state = RQ_STATE_FREE;
	rq->bio = rq->biotail = NULL;
	rq->next = q->free;
	q->free = rq;
}

/*
 * Try to merge @bio into a queued request: back merge (the request ends
 * where the bio starts) or front merge (the bio ends where it starts), same
 * op (a discard only with a discard), within q->max_segs and q->max_bytes.  The last merged or added
 * request is tried first (the 2.4 elevator's hint), then the request that
 * ends where the bio starts and the one that starts where it ends, found
 * in the merge hashes (O(1); 2.4 scanned the list from the tail).
 * Returns true if merged.
 */
bool rq_elv_merge_scan(struct rq_queue *q, struct rq_bio *bio);
static inline bool rq_elv_merge(struct rq_queue *q, struct rq_bio *bio)
{
	rq_queue_assert_locked(q);
	return q->head && rq_elv_merge_scan(q, bio);
}
/* Start a request from @bio and add it at the tail. */
static inline void rq_elv_add_bio(struct rq_queue *q, struct rq_request *rq, struct rq_bio *bio)
{
	rq_queue_assert_locked(q);
	rq_request_start(rq, bio);
	rq->next = NULL;
	rq->prev = q->tail;
	if (q->tail)
		q->tail->next = rq;
	else
		q->head = rq;
	q->tail = rq;
	q->nr_queued++;
	q->last_merge = rq;
	/* hashed only if request_fn leaves it queued (rq_elv_hash_rest) */
}
struct rq_request *rq_elv_pop(struct rq_queue *q);
void rq_elv_requeue(struct rq_queue *q, struct rq_request *rq);

/* A request ended twice, or before it was dispatched: say so and abort. */
void rq_request_bad_end(const struct rq_queue *q, const struct rq_request *rq)
	__attribute__((noreturn, cold));
/* Check the state (abort on a double completion) and set the bios' error; returns them. */
static inline struct rq_bio *rq_request_bios_done(struct rq_queue *q, struct rq_request *rq, int error)
{
	struct rq_bio *bios = rq->bio;

	if (__builtin_expect(rq->state != RQ_STATE_DISPATCHED && rq->state != RQ_STATE_DONE, 0))
		rq_request_bad_end(q, rq);
	if (!error && rq->res != (int32_t)rq->len)
		error = rq->res < 0 ? rq->res : -EIO;
	if (__builtin_expect(q->dev_end_rq != NULL, 0))
		q->dev_end_rq(q->dev, rq);
	for (struct rq_bio *b = bios; b; b = b->next)
		b->error = error;
	return bios;
}
/*
 * A request's device work is over: check and move its state, return its
 * bios with their error set; the request goes back to the pool.
 */
static inline struct rq_bio *rq_request_finish(struct rq_queue *q, struct rq_request *rq, int error)
{
	struct rq_bio *bios;

	rq_queue_assert_locked(q);
	bios = rq_request_bios_done(q, rq, error);
	q->inflight--;
	q->nr_completed++;
	rq_pool_put(q, rq);
	return bios;
}
/* End a list of bios (no lock held). */
static inline void rq_bios_end(struct rq_ctx *cpu, struct rq_bio *bios)
{
	while (bios) {
		struct rq_bio *next = bios->next;

		rq_bio_endio(cpu, bios, bios->error);
		bios = next;
	}
}
/* Put list @bios in front of *@done. */
static inline void rq_bios_splice(struct rq_bio **done, struct rq_bio *bios)
{
	struct rq_bio *tail = bios;

	if (!bios)
		return;
	while (tail->next)
		tail = tail->next;
	tail->next = *done;
	*done = bios;
}

/*
 * The 2.4 request_fn: hand queued requests to the driver while it has
 * room (q->inflight < q->depth, not stopped).  Requests the driver
 * completes at once are finished here and their bios put on @done, to be
 * ended by the caller once it drops the lock.  Needs what protects the
 * elevator (legacy.c: q->lock; cluster.c: see there).
 */
void rq_request_fn(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio **done);
/* Merge @bio or start a request for it; false if the pool is empty. */
static inline bool rq_elv_insert_bio(struct rq_queue *q, struct rq_bio *bio)
{
	struct rq_request *rq;

	rq_queue_assert_locked(q);
	q->nr_bios++;
	if (rq_elv_merge(q, bio))
		return true;
	rq = rq_pool_get(q);
	if (!rq) {
		q->nr_bios--;
		return false;
	}
	rq_elv_add_bio(q, rq, bio);
	return true;
}

#endif
