// SPDX-License-Identifier: MIT
/*
 * percpu.c - the per-worker state of the polled drivers (aio, posixaio):
 * an entry per worker of the run, made and freed by the driver's own
 * init and exit hooks (struct rq_percpu_ops, as blk-mq's init_hctx and
 * exit_hctx), and the pool of slots a worker takes its requests' iocbs
 * from.  Contracts in dev_internal.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "devices/dev_internal.h"
#include "lib/alloc.h"

int rq_percpu_open(struct rq_dev *dev, const struct rq_dev_open *o, const struct rq_percpu_ops *ops,
		   FILE *err)
{
	struct rq_percpu *pc;
	int ret;

	pc = dev->priv = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pc->ops = ops;
	pc->nr_cpus = o->nr_cpus ? o->nr_cpus : 1;
	pc->per_cpu = dev->depth ? dev->depth : 1;
	pc->cpus = rq_zalloc_lines(ops->size * pc->nr_cpus);
	if (!pc->cpus)
		return -ENOMEM;
	for (unsigned int i = 0; i < pc->nr_cpus; i++) {
		ret = ops->init(pc, rq_percpu_entry(pc, i), o, err);
		if (ret)
			return ret;
	}
	return 0;
}

void rq_percpu_close(struct rq_dev *dev)
{
	struct rq_percpu *pc = dev->priv;

	if (pc) {
		for (unsigned int i = 0; pc->cpus && i < pc->nr_cpus; i++)
			pc->ops->exit(dev, rq_percpu_entry(pc, i));
		free(pc->cpus);
		free(pc);
	}
	dev->priv = NULL;
}

int rq_slots_init(struct rq_slots *s, unsigned int nr, size_t size)
{
	s->mem = calloc(nr, size);
	s->free = calloc(nr, sizeof(*s->free));
	if (!s->mem || !s->free)
		return -ENOMEM;
	for (unsigned int k = 0; k < nr; k++)
		s->free[s->nr_free++] = (char *)s->mem + (size_t)k * size;
	return 0;
}

void rq_slots_fini(struct rq_slots *s)
{
	free(s->mem);
	free(s->free);
}
