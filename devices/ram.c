// SPDX-License-Identifier: MIT
/*
 * ram.c - the RAM disk: the null device with real data movement (the
 * kernel's brd).  Lock measurements with a memcpy per request under the
 * dispatch lock, as the 2.4 drivers moved data in request_fn.
 *
 * Spec: "@ram[N][,size=S][,depth=D][,irqmode=M][,delay_us=T]".
 *   size      disk size, default the largest offset+size a job needs, or
 *             64 MiB; memory is taken only where written (zero pages
 *             until then, so reads of unwritten blocks return zeros)
 *   depth     queue depth, default 64
 *   irqmode   0: data moved and request ended inside queue_rq (RQ_Q_DONE),
 *                the default; 1: data moved in queue_rq, ended on the
 *                dispatching worker's next reap; 2: ended after delay_us
 *                from a timer; set implicitly by delay_us > 0
 * The data lives as long as the run: a job that writes and a later
 * (stonewall) job that reads in the same run see the same disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"

struct ram_dev {
	struct rq_store store;
	uint64_t irqmode;
	uint64_t delay_ns;
};

static int ram_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	struct rq_mem_opts m;
	struct ram_dev *rd;
	int ret;

	ret = rq_dev_mem_opts(o, rq_dev_spec_opts(o->spec), 64ULL << 20, &m, err);
	if (ret)
		return ret;
	if (m.size % 512) {
		fprintf(err, "%s: device '%s': size must be a multiple of 512\n", o->where, o->spec);
		return -EINVAL;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	dev->priv = rd;
	ret = rq_store_mem(&rd->store, m.size, o->spec, err);
	if (ret)
		return ret;
	rd->irqmode = m.irqmode;
	rd->delay_ns = m.delay_us * 1000;
	dev->size = m.size;
	dev->lbs = 512;
	dev->depth = (uint32_t)m.depth;
	dev->nr_hw_queues = 0;		/* no shared dispatch state: one per worker */
	dev->max_bytes = 1 << 20;
	dev->rotational = 0;
	snprintf(dev->subkind, sizeof(dev->subkind), "ram");
	snprintf(dev->transport, sizeof(dev->transport), "memory");
	snprintf(dev->model, sizeof(dev->model), "ram irqmode=%u", (unsigned)m.irqmode);
	return 0;
}

static void ram_close(struct rq_dev *dev)
{
	struct ram_dev *rd = dev->priv;

	if (rd)
		rq_store_close(&rd->store);
	free(rd);
	dev->priv = NULL;
}

static int ram_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct ram_dev *rd = dev->priv;
	int res;

	if (rq->op < RQ_OP_DISCARD)
		rq_request_map(rq);
	res = rq_store_rw(&rd->store, rq);

	switch (rd->irqmode) {
	case 0:
		rq->res = res;
		return RQ_Q_DONE;
	case 1:
		rq_ctx_complete(cpu, rq, res);
		return RQ_Q_QUEUED;
	default:
		rq_ctx_complete_after(cpu, rq, res, rd->delay_ns);
		return RQ_Q_QUEUED;
	}
}

const struct rq_dev_ops rq_dev_ram = {
	.name = "ram",
	.builtin = "@ram",
	.help = "a RAM disk (size default 64m)",
	.options = rq_mem_options,
	/* a discard zeroes its range (rq_store_rw): its pages are dropped */
	.flags = RQ_DEV_HAS_DATA | RQ_DEV_DISCARD | RQ_DEV_FLUSH,
	.open = ram_open,
	.close = ram_close,
	.queue_rq = ram_queue_rq,
};
