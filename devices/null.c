// SPDX-License-Identifier: MIT
/*
 * null.c - the null device, the reference backend (null_blk's twin).
 *
 * Spec: "@null[N][,size=S][,depth=D][,irqmode=M][,delay_us=T]".
 *   size      device size, default the largest offset+size a job needs,
 *             or 1 GiB
 *   depth     queue depth (null_blk's hw_queue_depth), default 64
 *   irqmode   0: complete inside queue_rq (RQ_Q_DONE), the default and
 *                the cheapest path: one lock acquisition per request;
 *             1: complete on the dispatching worker's next reap, as an
 *                interrupt would: the ending takes the queue lock again;
 *             2: complete after delay_us, from a timer (null_blk's
 *                completion_nsec); set implicitly by delay_us > 0
 * No data moves: reads return nothing, writes are dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"
#include "lib/alloc.h"

struct null_dev {
	uint64_t irqmode;
	uint64_t delay_ns;
};

static int null_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	const char *opts = strchr(o->spec, ',');
	struct rq_mem_opts m;
	struct null_dev *nd;
	int ret;

	ret = rq_dev_mem_opts(o, opts ? opts + 1 : NULL, 1ULL << 30, &m, err);
	if (ret)
		return ret;
	/* read on every request by whichever worker dispatches: a line of its own */
	nd = rq_zalloc_lines(sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	nd->irqmode = m.irqmode;
	nd->delay_ns = m.delay_us * 1000;
	dev->priv = nd;
	dev->size = m.size;
	dev->lbs = 512;
	dev->depth = (uint32_t)m.depth;
	dev->nr_hw_queues = 0;		/* no shared dispatch state: one per worker */
	dev->max_bytes = 1 << 20;
	snprintf(dev->model, sizeof(dev->model), "null irqmode=%u", (unsigned)m.irqmode);
	return 0;
}

static void null_close(struct rq_dev *dev)
{
	free(dev->priv);
	dev->priv = NULL;
}

static int null_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	const struct null_dev *nd = dev->priv;

	switch (nd->irqmode) {
	case 0:
		rq->res = (int32_t)rq->len;
		return RQ_Q_DONE;
	case 1:
		rq_ctx_complete(cpu, rq, (int)rq->len);
		return RQ_Q_QUEUED;
	default:
		rq_ctx_complete_after(cpu, rq, (int)rq->len, nd->delay_ns);
		return RQ_Q_QUEUED;
	}
}

const struct rq_dev_ops rq_dev_null = {
	.name = "null",
	.builtin = "@null",
	.ioengine = "null",
	.help = "no data, completion inline, on the next reap or after delay_us (null_blk); size default 1g",
	.options = rq_mem_options,
	.flags = RQ_DEV_DISCARD | RQ_DEV_FLUSH,	/* a discard or flush completes like any request */
	.open = null_open,
	.close = null_close,
	.queue_rq = null_queue_rq,
};
