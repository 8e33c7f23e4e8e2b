// SPDX-License-Identifier: MIT
/*
 * queue.c - request queues: the preallocated request pool, the FIFO
 * elevator with front and back merging, and the lock-mode registry.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queues/driver.h"
#include "lib/alloc.h"
#include "queues/queue_internal.h"
#include "results/results.h"

/* The registry: one line per lock mode, in queues/modes.def. */
#define RQ_MODE(ops) extern const struct rq_queue_mode_ops ops;
#include "queues/modes.def"
#undef RQ_MODE

static const struct rq_queue_mode_ops *const modes[] = {
#define RQ_MODE(ops) &ops,
#include "queues/modes.def"
#undef RQ_MODE
};

/* The mode of the run's queues, for the run-wide report. */
static const struct rq_queue_mode_ops *run_mode;
/* The live queues (init .. exit), for the report; touched single-threaded. */
static struct rq_queue **live;
static unsigned int nr_live, live_cap;
static struct rq_mode_queue_report *mode_queues;

static int live_add(struct rq_queue *q)
{
	if (nr_live == live_cap) {
		unsigned int cap = live_cap ? live_cap * 2 : 16;
		struct rq_queue **l = realloc(live, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		live = l;
		live_cap = cap;
	}
	live[nr_live++] = q;
	return 0;
}

static void live_del(struct rq_queue *q)
{
	for (unsigned int i = 0; i < nr_live; i++) {
		if (live[i] == q) {
			memmove(&live[i], &live[i + 1], (nr_live - i - 1) * sizeof(*live));
			nr_live--;
			break;
		}
	}
	if (!nr_live) {
		free(live);
		live = NULL;
		live_cap = 0;
		free(mode_queues);
		mode_queues = NULL;
	}
}

#define NR_MODES (sizeof(modes) / sizeof(modes[0]))

const struct rq_queue_mode_ops *rq_queue_mode_find(const char *name)
{
	for (size_t i = 0; i < NR_MODES; i++)
		if (!strcmp(modes[i]->name, name))
			return modes[i];
	return NULL;
}

const struct rq_queue_mode_ops *rq_queue_mode_at(unsigned int i)
{
	return i < NR_MODES ? modes[i] : NULL;
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

const char *rq_queue_mode_flag_name(unsigned int bit)
{
	static const char *const names[RQ_MODE_F_NR] = { "all_workers", "shared_lock" };

	return bit < RQ_MODE_F_NR ? names[bit] : NULL;
}

int rq_queue_modes_check(char *msg, size_t len)
{
	for (size_t i = 0; i < NR_MODES; i++) {
		const struct rq_queue_mode_ops *m = modes[i];

		if (!m->name || !m->help || !m->queue_init || !m->submit_bio || !m->end_request || !m->run_queue) {
			snprintf(msg, len, "lock mode '%s' lacks a required hook or its help",
				 m->name ? m->name : "(unnamed)");
			return -EINVAL;
		}
	}
	return 0;
}

int rq_queue_init(struct rq_queue *q, const struct rq_queue_mode_ops *mode,
		  struct rq_dev *dev, uint32_t nr_requests)
{
	int ret;

	memset(q, 0, sizeof(*q));
	q->mode = mode;
	q->dev = dev;
	q->depth = dev->depth ? dev->depth : 1;
	q->max_bytes = dev->max_bytes ? dev->max_bytes : 512 * 1024;
	q->max_segs = dev->max_segs && dev->max_segs < RQ_MAX_SEGS ? dev->max_segs : RQ_MAX_SEGS;
	q->nr_requests = nr_requests;
	snprintf(q->name, sizeof(q->name), "%s", dev->name);
	/* a filter (fault) sees requests only: every hook below is the device's own */
	q->queue_rq = dev->filter ? dev->filter->map : dev->ops ? dev->ops->queue_rq : NULL;
	q->dev_irq = dev->ops ? dev->ops->irq : NULL;
	q->dev_end_rq = dev->ops ? dev->ops->end_rq : NULL;
	q->rq_stride = RQ_REQUEST_STRIDE(mode->cmd_size);
	q->pool = rq_requests_alloc(q, nr_requests);
	for (q->hash_mask = 15; q->hash_mask < nr_requests - 1 && q->hash_mask < (1u << 20) - 1;)
		q->hash_mask = q->hash_mask * 2 + 1;
	q->merge_hash = calloc(2 * ((size_t)q->hash_mask + 1), sizeof(*q->merge_hash));
	if (!q->pool || !q->merge_hash) {
		free(q->pool);
		free(q->merge_hash);
		q->pool = NULL;
		q->merge_hash = NULL;
		return -ENOMEM;
	}
	for (uint32_t i = nr_requests; i-- > 0;) {
		struct rq_request *rq = rq_request_at(q->pool, q->rq_stride, i);

		rq->next = q->free;
		q->free = rq;
	}
	if (dev->ops && dev->ops->attach && (ret = dev->ops->attach(dev, q))) {
		free(q->pool);
		free(q->merge_hash);
		q->pool = NULL;
		q->merge_hash = NULL;
		return ret;
	}
	run_mode = mode;
	if (live_add(q))
		return -ENOMEM;
	ret = mode->queue_init(q);
	if (ret)
		live_del(q);	/* the engine does not exit a queue that failed to init */
	return ret;
}

struct rq_request *rq_requests_alloc(struct rq_queue *q, uint32_t n)
{
	size_t stride = RQ_REQUEST_STRIDE(q->mode->cmd_size);
	struct rq_request *base = rq_zalloc_lines(stride * n);

	for (uint32_t i = 0; base && i < n; i++) {
		struct rq_request *rq = rq_request_at(base, stride, i);

		rq->q = q;
		rq->tag = i;
	}
	return base;
}

void rq_queue_exit(struct rq_queue *q)
{
	live_del(q);
	if (q->mode && q->mode->queue_exit)
		q->mode->queue_exit(q);
	free(q->pool);
	free(q->merge_hash);
	q->pool = NULL;
	q->merge_hash = NULL;
}

int rq_queue_check_idle(struct rq_queue *q, char *msg, size_t len)
{
	uint32_t free_rqs = 0;

	if (q->mode->check_idle) {
		int ret = q->mode->check_idle(q, msg, len);

		if (ret)
			return ret;
	}
	for (const struct rq_request *rq = q->free; rq && free_rqs <= q->nr_requests; rq = rq->next)
		free_rqs++;
	if (q->inflight || q->nr_queued || q->head || q->nr_dispatched != q->nr_completed ||
	    free_rqs != q->nr_requests) {
		snprintf(msg, len, "queue %s: %u in flight, %u queued, %" PRIu64 " dispatched, %" PRIu64
			 " completed, %u of %u requests free", q->name, q->inflight, q->nr_queued,
			 q->nr_dispatched, q->nr_completed, free_rqs, q->nr_requests);
		return -EPROTO;
	}
	if (q->nr_alloc != q->nr_completed) {
		snprintf(msg, len, "queue %s: %" PRIu64 " requests allocated, %" PRIu64 " completed",
			 q->name, q->nr_alloc, q->nr_completed);
		return -EPROTO;
	}
	return 0;
}

int rq_queues_report(struct rq_run_report *r)
{
	memset(&r->mode, 0, sizeof(r->mode));
	if (run_mode && run_mode->report_run)
		run_mode->report_run(&r->mode);
	free(mode_queues);
	mode_queues = calloc(nr_live ? nr_live : 1, sizeof(*mode_queues));
	if (!mode_queues)
		return -ENOMEM;
	for (unsigned int i = 0; i < nr_live; i++) {
		struct rq_mode_queue_report *m = &mode_queues[i];

		snprintf(m->name, sizeof(m->name), "%s", live[i]->name);
		if (live[i]->mode->report)
			live[i]->mode->report(live[i], m);
	}
	r->mode.queues = mode_queues;
	r->mode.nr_queues = nr_live;
	return rq_locks_fill_report(r);
}

int rq_mode_locks_setup(const struct rq_mode_config *cfg)
{
	const struct rq_lock_config lc = {
		.nr_cpus = cfg->nr_cpus,
		.lock_type = cfg->lock_type,
		.lockstat = cfg->lockstat,
		.lockdep = cfg->lockdep,
		.lockstat_sample = cfg->lockstat_sample,
	};

	return rq_lock_setup(&lc);
}

static bool can_merge(const struct rq_queue *q, const struct rq_request *rq, const struct rq_bio *bio)
{
	return rq->op == bio->op && rq->nr_segs < q->max_segs &&
	       rq->len + (uint64_t)bio->len <= q->max_bytes && rq->bio->ioprio == bio->ioprio &&
	       bio->op != RQ_OP_FLUSH;
}

static void merge_back(struct rq_queue *q, struct rq_request *rq, struct rq_bio *bio)
{
	bool hashed = rq->hpprev[RQ_HASH_END] != NULL;

	if (hashed)
		rq_elv_hash_del(rq, RQ_HASH_END);
	bio->next = NULL;
	rq->biotail->next = bio;
	rq->biotail = bio;
	rq->len += bio->len;
	rq->nr_segs++;
	q->merges_back++;
	q->last_merge = rq;
	if (hashed)
		rq_elv_hash_add(q, rq, RQ_HASH_END);
}

static void merge_front(struct rq_queue *q, struct rq_request *rq, struct rq_bio *bio)
{
	bool hashed = rq->hpprev[RQ_HASH_START] != NULL;

	if (hashed)
		rq_elv_hash_del(rq, RQ_HASH_START);
	bio->next = rq->bio;
	rq->bio = bio;
	rq->offset = bio->offset;
	rq->len += bio->len;
	rq->nr_segs++;
	q->merges_front++;
	q->last_merge = rq;
	if (hashed)
		rq_elv_hash_add(q, rq, RQ_HASH_START);
}

static bool try_merge(struct rq_queue *q, struct rq_request *rq, struct rq_bio *bio)
{
	if (!can_merge(q, rq, bio))
		return false;
	if (rq->offset + rq->len == bio->offset) {
		merge_back(q, rq, bio);
		return true;
	}
	if (bio->offset + bio->len == rq->offset) {
		merge_front(q, rq, bio);
		return true;
	}
	return false;
}

bool rq_elv_merge_scan(struct rq_queue *q, struct rq_bio *bio)
{
	uint64_t end = bio->offset + bio->len;
	struct rq_request *rq;

	if (q->last_merge && try_merge(q, q->last_merge, bio))
		return true;
	/* the requests added since request_fn last ran are not hashed yet */
	for (rq = q->tail; rq && !rq->hpprev[RQ_HASH_END]; rq = rq->prev)
		if (rq != q->last_merge && try_merge(q, rq, bio))
			return true;
	/* a chain holds the requests of one bucket: check the key */
	for (rq = *rq_elv_hash_head(q, RQ_HASH_END, bio->offset); rq; rq = rq->hnext[RQ_HASH_END]) {
		if (rq->offset + rq->len == bio->offset && can_merge(q, rq, bio)) {
			merge_back(q, rq, bio);
			return true;
		}
	}
	for (rq = *rq_elv_hash_head(q, RQ_HASH_START, end); rq; rq = rq->hnext[RQ_HASH_START]) {
		if (rq->offset == end && can_merge(q, rq, bio)) {
			merge_front(q, rq, bio);
			return true;
		}
	}
	return false;
}

struct rq_request *rq_elv_pop(struct rq_queue *q)
{
	struct rq_request *rq = q->head;

	rq_queue_assert_locked(q);
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
	if (rq->hpprev[RQ_HASH_END]) {
		rq_elv_hash_del(rq, RQ_HASH_END);
		rq_elv_hash_del(rq, RQ_HASH_START);
	}
	return rq;
}

void rq_elv_requeue(struct rq_queue *q, struct rq_request *rq)
{
	rq_queue_assert_locked(q);
	rq->state = RQ_STATE_QUEUED;
	rq->prev = NULL;
	rq->next = q->head;
	if (q->head)
		q->head->prev = rq;
	else
		q->tail = rq;
	q->head = rq;
	q->nr_queued++;
	rq_elv_hash_add(q, rq, RQ_HASH_END);
	rq_elv_hash_add(q, rq, RQ_HASH_START);
}

void rq_request_bad_end(const struct rq_queue *q, const struct rq_request *rq)
{
	fprintf(stderr, "rqlock: BUG: %s: request %u ended in state %u (double completion?)\n",
		q->name, rq->tag, rq->state);
	abort();
}

void rq_request_fn(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio **done)
{
	struct rq_dev *dev = q->dev;
	struct rq_request *rq;

	if (q->lock)
		rq_lock_assert_held(q->lock, rq_ctx_id(cpu));
	while (!q->stopped && q->inflight < q->depth && (rq = rq_elv_pop(q))) {
		int st;

		rq->state = RQ_STATE_DISPATCHED;
		q->inflight++;
		q->nr_dispatched++;
		st = q->queue_rq(dev, cpu, rq);
		if (st == RQ_Q_BUSY) {
			q->inflight--;
			q->nr_dispatched--;
			rq_elv_requeue(q, rq);
			q->stopped = true;
			if (!q->inflight)	/* no completion will restart it */
				atomic_store_explicit(&q->needs_rerun, true, memory_order_relaxed);
			break;
		}
		if (st == RQ_Q_DONE)
			rq_bios_splice(done, rq_request_finish(q, rq, rq->error));
	}
	if (q->tail && !q->tail->hpprev[RQ_HASH_END])
		rq_elv_hash_rest(q);
}
