/* SPDX-License-Identifier: MIT */
/*
 * driver.h - what a device driver (devices/) may use of the block layer:
 * requests, the per-CPU context a request is dispatched on, and the ways
 * to complete a request.  Drivers include this (through devices/device.h)
 * and nothing of engine/.
 *
 * queue_rq() is called by the lock mode with the dispatch lock held, on
 * the dispatching worker's context @ctx.  A driver completes a request
 * by returning RQ_Q_DONE (ended by the caller), by rq_ctx_complete() (on
 * @ctx's next reap), by rq_ctx_complete_after() (a timer on @ctx), by an
 * SQE on rq_ctx_ring(@ctx) with user_data = the request (reaped with the
 * CQE), or by its own poll() hook calling rq_end_request().
 */
#ifndef RQ_DRIVER_H
#define RQ_DRIVER_H

#include "queues/queue.h"

/*
 * Fill rq->iov[0..nr_segs) from the request's bios.  A driver that hands
 * the data to the kernel or copies it calls this in queue_rq(), as a
 * kernel driver maps its request with blk_rq_map_sg(); one that moves no
 * data (null) does not pay for it.
 */
static inline void rq_request_map(struct rq_request *rq)
{
	unsigned int i = 0;

	for (struct rq_bio *b = rq->bio; b; b = b->next, i++) {
		rq->iov[i].iov_base = b->buf;
		rq->iov[i].iov_len = b->len;
	}
}

/* The request completes on @ctx's next reap, with @res bytes or -errno. */
void rq_ctx_complete(struct rq_ctx *ctx, struct rq_request *rq, int res);
/* ... after @delay_ns.  Requests with the same delay complete in order. */
void rq_ctx_complete_after(struct rq_ctx *ctx, struct rq_request *rq, int res, uint64_t delay_ns);

/* @ctx's io_uring ring (the device asked for one: RQ_DEV_NEEDS_RING). */
static inline struct io_uring *rq_ctx_ring(struct rq_ctx *ctx)
{
	return &ctx->ring;
}

#endif /* RQ_DRIVER_H */
