// SPDX-License-Identifier: MIT
/*
 * ctx.c - the per-CPU context (struct rq_ctx, queue.h): where devices
 * leave completions for a worker, and the one reap call that ends them.
 *
 * A device completes a request in one of four ways, all reaped here by the
 * worker that owns the context: an SQE on the worker's io_uring ring
 * (user_data = the request), rq_ctx_complete() (the next reap, in order),
 * rq_ctx_complete_after() (a timer list sorted by due time: null_blk's
 * irqmode 2, the disk models), or its own poll() hook (libaio).  A lock
 * mode may leave work too (cluster's forwarded bios), found through the
 * mode's poll().  Every request then goes through rq_end_request() and its
 * bios to their submitter's end_io.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/futex.h"
#include "queues/driver.h"
#include "queues/queue_internal.h"

_Thread_local struct rq_ctx *rq_current;

void rq_ctx_init(struct rq_ctx *ctx, int id)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->id = id;
	atomic_init(&ctx->sleeping, 0);
}

void rq_ctx_set_current(struct rq_ctx *ctx)
{
	rq_current = ctx;
	rq_lock_set_cpu(ctx ? ctx->id : -1);
}

void rq_ctx_complete(struct rq_ctx *ctx, struct rq_request *rq, int res)
{
	rq->res = res;
	rq->next = NULL;
	if (ctx->done_tail)
		ctx->done_tail->next = rq;
	else
		ctx->done_head = rq;
	ctx->done_tail = rq;
}

void rq_ctx_complete_after(struct rq_ctx *ctx, struct rq_request *rq, int res, uint64_t delay_ns)
{
	struct rq_request **pp;

	rq->res = res;
	/* a fresh clock: the worker's last read may be a round old, which would shorten the delay */
	rq->done_at = rq_clock_ns() + delay_ns;
	rq->next = NULL;
	if (!ctx->timer_tail || ctx->timer_tail->done_at <= rq->done_at) {
		if (ctx->timer_tail)
			ctx->timer_tail->next = rq;
		else
			ctx->timer_head = rq;
		ctx->timer_tail = rq;
		return;
	}
	for (pp = &ctx->timer_head; (*pp)->done_at <= rq->done_at; pp = &(*pp)->next)
		;
	rq->next = *pp;
	*pp = rq;
}

void rq_ctx_wake(struct rq_ctx *ctx)
{
	if (atomic_load_explicit(&ctx->sleeping, memory_order_seq_cst))
		rq_futex_wake(&ctx->sleeping);
}

static unsigned int reap_ring(struct rq_ctx *ctx, unsigned int max)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	io_uring_for_each_cqe(&ctx->ring, head, cqe) {
		struct rq_request *rq;
		const struct rq_dev_ops *ops;

		if (seen == max)
			break;	/* iodepth_batch_complete_max: the rest next round */
		rq = io_uring_cqe_get_data(cqe);
		ops = rq->q->dev->ops;
		rq->res = ops->cqe_res ? ops->cqe_res(rq->q->dev, rq, cqe->res) : cqe->res;
		rq_end_request(rq, ctx, 0);
		seen++;
	}
	io_uring_cq_advance(&ctx->ring, seen);
	ctx->ring_inflight -= seen;
	return seen;
}

unsigned int rq_ctx_reap(struct rq_ctx *ctx, uint64_t now, unsigned int max_cqes)
{
	unsigned int n = 0;

	if (ctx->has_ring && ctx->ring_inflight)
		n += reap_ring(ctx, max_cqes);
	if (ctx->done_head) {
		struct rq_request *rq = ctx->done_head;

		ctx->done_head = ctx->done_tail = NULL;
		while (rq) {
			struct rq_request *next = rq->next;

			rq_end_request(rq, ctx, 0);
			rq = next;
			n++;
		}
	}
	while (ctx->timer_head && ctx->timer_head->done_at <= now) {
		struct rq_request *rq = ctx->timer_head;

		ctx->timer_head = rq->next;
		if (!ctx->timer_head)
			ctx->timer_tail = NULL;
		rq_end_request(rq, ctx, 0);
		n++;
	}
	for (unsigned int i = 0; i < ctx->nr_polled; i++) {
		struct rq_dev *dev = ctx->polled[i];
		int r = dev->ops->poll(dev, ctx);

		if (r > 0)
			n += (unsigned int)r;
	}
	if (ctx->mode && ctx->mode->poll)
		n += ctx->mode->poll(ctx);
	return n;
}

bool rq_ctx_polled_pending(struct rq_ctx *ctx)
{
	for (unsigned int i = 0; i < ctx->nr_polled; i++) {
		struct rq_dev *dev = ctx->polled[i];

		if (dev->ops->pending && dev->ops->pending(dev, ctx))
			return true;
	}
	return ctx->mode && ctx->mode->pending && ctx->mode->pending(ctx);
}

/*
 * Work this context still owes: I/O in flight, completions and timers to
 * run, and SQEs prepared but not yet submitted.  Those last are easy to
 * forget: a completion this worker reaps can dispatch another worker's
 * queued request into this ring (end_request runs the queue), and
 * submission waits for the next round; a worker that left now would
 * strand it, and the job would wait for it forever.
 */
bool rq_ctx_pending(struct rq_ctx *ctx)
{
	return ctx->ring_inflight || (ctx->has_ring && io_uring_sq_ready(&ctx->ring)) ||
	       ctx->done_head || ctx->timer_head || rq_ctx_polled_pending(ctx);
}
