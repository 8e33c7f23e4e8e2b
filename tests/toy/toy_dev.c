// SPDX-License-Identifier: MIT
/*
 * toy.c - a toy device kind for tests/test_add_mode.sh, copied there as
 * devices/toy.c and registered by one line in devices/kinds.def: "@toy",
 * no data, every request complete in queue_rq; one option, depth.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/dev_internal.h"

struct toy_opts {
	uint64_t depth;
};

static const struct rq_dev_option toy_options[] = {
	{ "depth", RQ_DEV_OPT_U64, offsetof(struct toy_opts, depth), 0, "8", "requests in flight" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static int toy_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	struct toy_opts t;
	int ret = rq_dev_opts_parse(toy_options, &t, o->spec, rq_dev_spec_opts(o->spec), err);

	if (ret)
		return ret;
	if (!t.depth || t.depth > 1024) {
		fprintf(err, "%s: device '%s': depth must be 1..1024\n", o->where, o->spec);
		return -EINVAL;
	}
	dev->size = o->min_size ? o->min_size : 1 << 20;
	dev->lbs = 512;
	dev->depth = (uint32_t)t.depth;
	dev->max_bytes = 1 << 20;
	return 0;
}

static void toy_close(struct rq_dev *dev)
{
	(void)dev;
}

static int toy_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	(void)dev;
	(void)cpu;
	rq->res = (int32_t)rq->len;
	return RQ_Q_DONE;
}

const struct rq_dev_ops rq_dev_toy = {
	.name = "toy",
	.builtin = "@toy",
	.help = "a toy: no data, complete at once (tests/test_add_mode.sh)",
	.options = toy_options,
	.open = toy_open,
	.close = toy_close,
	.queue_rq = toy_queue_rq,
};
