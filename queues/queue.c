// SPDX-License-Identifier: MIT
/*
 * queue.c - request queues: the preallocated request pool, the FIFO
 * elevator with front and back merging, and the lock-mode registry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"
#include "queues/queue_internal.h"

extern const struct rq_queue_mode_ops rq_mode_global;
extern const struct rq_queue_mode_ops rq_mode_per_queue;

/* The registry: one line per lock mode. */
static const struct rq_queue_mode_ops *const modes[] = {
	&rq_mode_global,
	&rq_mode_per_queue,
};

#define NR_MODES (sizeof(modes) / sizeof(modes[0]))

const struct rq_queue_mode_ops *rq_queue_mode_find(const char *name)
{
	for (size_t i = 0; i < NR_MODES; i++)
		if (!strcmp(modes[i]->name, name))
			return modes[i];
	return NULL;
}

const char *rq_queue_mode_names(void)
{
	static char buf[256];

	if (!buf[0]) {
		for (size_t i = 0; i < NR_MODES; i++) {
			if (i)
				strcat(buf, "|");
			strcat(buf, modes[i]->name);
		}
	}
	return buf;
}

int rq_queue_modes_check(char *msg, size_t len)
{
	for (size_t i = 0; i < NR_MODES; i++) {
		const struct rq_queue_mode_ops *m = modes[i];

		if (!m->name || !m->queue_init || !m->submit_bio || !m->end_request || !m->run_queue) {
			snprintf(msg, len, "lock mode '%s' lacks a required hook",
				 m->name ? m->name : "(unnamed)");
			return -EINVAL;
		}
	}
	return 0;
}

int rq_queue_init(struct rq_queue *q, const struct rq_queue_mode_ops *mode,
		  struct rq_dev *dev, uint32_t nr_requests)
{
	memset(q, 0, sizeof(*q));
	q->mode = mode;
	q->dev = dev;
	q->depth = dev->depth ? dev->depth : 1;
	q->max_bytes = dev->max_bytes ? dev->max_bytes : 512 * 1024;
	q->nr_requests = nr_requests;
	snprintf(q->name, sizeof(q->name), "%s", dev->name);
	q->pool = aligned_alloc(RQ_CACHELINE,
				((sizeof(*q->pool) * nr_requests) + RQ_CACHELINE - 1) &
					~(size_t)(RQ_CACHELINE - 1));
	if (!q->pool)
		return -ENOMEM;
	memset(q->pool, 0, sizeof(*q->pool) * nr_requests);
	for (uint32_t i = nr_requests; i-- > 0;) {
		struct rq_request *rq = &q->pool[i];

		rq->q = q;
		rq->tag = i;
		rq->next = q->free;
		q->free = rq;
	}
	return mode->queue_init(q);
}

void rq_queue_exit(struct rq_queue *q)
{
	free(q->pool);
	q->pool = NULL;
}

struct rq_request *rq_pool_get(struct rq_queue *q)
{
	struct rq_request *rq = q->free;

	if (rq) {
		q->free = rq->next;
		rq->next = rq->prev = NULL;
		q->nr_alloc++;
	}
	return rq;
}

void rq_pool_put(struct rq_queue *q, struct rq_request *rq)
{
	rq->state = RQ_STATE_FREE;
	rq->bio = rq->biotail = NULL;
	rq->next = q->free;
	q->free = rq;
}

static bool can_merge(const struct rq_queue *q, const struct rq_request *rq, const struct rq_bio *bio)
{
	return rq->op == bio->op && rq->nr_segs < RQ_MAX_SEGS &&
	       rq->len + (uint64_t)bio->len <= q->max_bytes;
}

static bool try_merge(struct rq_queue *q, struct rq_request *rq, struct rq_bio *bio)
{
	if (!can_merge(q, rq, bio))
		return false;
	if (rq->offset + rq->len == bio->offset) {
		bio->next = NULL;
		rq->biotail->next = bio;
		rq->biotail = bio;
		rq->len += bio->len;
		rq->nr_segs++;
		q->merges_back++;
		q->last_merge = rq;
		return true;
	}
	if (bio->offset + bio->len == rq->offset) {
		bio->next = rq->bio;
		rq->bio = bio;
		rq->offset = bio->offset;
		rq->len += bio->len;
		rq->nr_segs++;
		q->merges_front++;
		q->last_merge = rq;
		return true;
	}
	return false;
}

bool rq_elv_merge(struct rq_queue *q, struct rq_bio *bio)
{
	if (!q->head)
		return false;
	if (q->last_merge && try_merge(q, q->last_merge, bio))
		return true;
	for (struct rq_request *rq = q->tail; rq; rq = rq->prev)
		if (rq != q->last_merge && try_merge(q, rq, bio))
			return true;
	return false;
}

void rq_elv_add_bio(struct rq_queue *q, struct rq_request *rq, struct rq_bio *bio)
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
	rq->next = NULL;
	rq->prev = q->tail;
	if (q->tail)
		q->tail->next = rq;
	else
		q->head = rq;
	q->tail = rq;
	q->nr_queued++;
	q->last_merge = rq;
}

struct rq_request *rq_elv_pop(struct rq_queue *q)
{
	struct rq_request *rq = q->head;

	if (!rq)
		return NULL;
	q->head = rq->next;
	if (q->head)
		q->head->prev = NULL;
	else
		q->tail = NULL;
	rq->next = rq->prev = NULL;
	q->nr_queued--;
	if (q->last_merge == rq)
		q->last_merge = NULL;
	return rq;
}

void rq_elv_requeue(struct rq_queue *q, struct rq_request *rq)
{
	rq->state = RQ_STATE_QUEUED;
	rq->prev = NULL;
	rq->next = q->head;
	if (q->head)
		q->head->prev = rq;
	else
		q->tail = rq;
	q->head = rq;
	q->nr_queued++;
}

void rq_request_prep(struct rq_request *rq)
{
	unsigned int i = 0;

	for (struct rq_bio *b = rq->bio; b; b = b->next, i++) {
		rq->iov[i].iov_base = b->buf;
		rq->iov[i].iov_len = b->len;
	}
}

struct rq_bio *rq_request_finish(struct rq_queue *q, struct rq_request *rq, int error)
{
	struct rq_bio *bios = rq->bio;

	if (__builtin_expect(rq->state != RQ_STATE_DISPATCHED && rq->state != RQ_STATE_DONE, 0)) {
		fprintf(stderr, "rqlock: BUG: %s: request %u ended in state %u (double completion?)\n",
			q->name, rq->tag, rq->state);
		abort();
	}
	if (!error && rq->res != (int32_t)rq->len)
		error = rq->res < 0 ? rq->res : -EIO;
	for (struct rq_bio *b = bios; b; b = b->next)
		b->error = error;
	q->inflight--;
	q->nr_completed++;
	rq_pool_put(q, rq);
	return bios;
}

void rq_bios_end(struct rq_cpu *cpu, struct rq_bio *bios)
{
	while (bios) {
		struct rq_bio *next = bios->next;

		rq_bio_endio(cpu, bios, bios->error);
		bios = next;
	}
}
