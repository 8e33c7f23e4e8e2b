// SPDX-License-Identifier: MIT
/*
 * fault.c - a fault-injecting wrapper around another device.
 *
 * Spec: "@fault[N],OPTION=VALUE,...,of=INNER" -- of= comes last and the
 * rest of the spec after it is the inner device's own spec, commas and
 * all (e.g. "@fault0,eio_every=100,of=@null0,delay_us=5").
 *
 *   eio_every=N    every Nth request fails with EIO (0 = never)
 *   eio_offset=X   a request covering byte offset X fails with EIO
 *                  (default: none)
 *   short_every=N  every Nth request completes short: half its length
 *   busy_every=N   every Nth dispatch is refused once (RQ_Q_BUSY, the
 *                  driver's -EAGAIN/-EBUSY): the queue stops and retries
 *   delay_us=D     completions come D us late; only over an inner device
 *                  that completes at once (null irqmode=0, ram)
 *   hang_every=N   every Nth request never completes (for the stall
 *                  watchdog: the run is ended by --stall-timeout)
 *
 * Requests the wrapper fails never reach the inner device; the others go
 * to it unchanged.  Decisions count requests per device with an atomic
 * counter, so they hold under every lock mode.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"

struct fault {
	struct rq_dev inner;
	uint64_t eio_every, eio_offset, short_every, busy_every, delay_us, hang_every;
	bool has_eio_offset;
	_Atomic uint64_t nr;		/* requests seen */
	_Atomic uint64_t nr_busy;	/* dispatches seen, for busy_every */
	_Atomic uint64_t injected;	/* faults injected, all kinds */
};

static bool fault_probe(const struct rq_dev_open *o)
{
	const char *s = o->spec;

	if (strncmp(s, "@fault", 6))
		return false;
	s += 6;
	while (*s >= '0' && *s <= '9')
		s++;
	return *s == 0 || *s == ',';
}

static int fault_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	const char *of = strstr(o->spec, ",of=");
	struct rq_dev_open io = *o;
	uint64_t eio_offset = UINT64_MAX;
	struct fault *f;
	char *opts;
	int ret;

	if (!of || !of[4]) {
		fprintf(err, "%s: device '%s': of=INNER is required, last\n", o->where, o->spec);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	{
		struct rq_dev_opt tab[] = {
			{ .key = "eio_every", .val = &f->eio_every },
			{ .key = "eio_offset", .val = &eio_offset },
			{ .key = "short_every", .val = &f->short_every },
			{ .key = "busy_every", .val = &f->busy_every },
			{ .key = "delay_us", .val = &f->delay_us, .is_time_us = true },
			{ .key = "hang_every", .val = &f->hang_every },
		};
		const char *first = strchr(o->spec, ',');

		opts = strndup(first + 1, (size_t)(of - first - 1 > 0 ? of - first - 1 : 0));
		if (!opts) {
			free(f);
			return -ENOMEM;
		}
		ret = rq_dev_parse_opts(o->spec, of > first ? opts : "", tab, 6, err);
		free(opts);
		if (ret) {
			free(f);
			return ret;
		}
	}
	f->has_eio_offset = eio_offset != UINT64_MAX;
	f->eio_offset = eio_offset;
	io.spec = of + 4;
	if (!strncmp(io.spec, "@fault", 6)) {
		fprintf(err, "%s: device '%s': a fault device cannot wrap another\n", o->where, o->spec);
		free(f);
		return -EINVAL;
	}
	ret = rq_dev_open(&f->inner, &io, err);
	if (ret) {
		rq_dev_close(&f->inner);
		free(f);
		return ret;
	}
	if (f->delay_us && (f->inner.ops->flags & RQ_DEV_NEEDS_RING || f->inner.ops->poll)) {
		fprintf(err, "%s: device '%s': delay_us needs an inner device that completes at once "
			"(null irqmode=0, ram), not %s\n", o->where, o->spec, f->inner.ops->name);
		rq_dev_close(&f->inner);
		free(f);
		return -EINVAL;
	}
	dev->priv = f;
	dev->flags = f->inner.flags;	/* ring, data, alignment: the inner device's */
	dev->size = f->inner.size;
	dev->lbs = f->inner.lbs;
	dev->depth = f->inner.depth;
	dev->max_bytes = f->inner.max_bytes;
	snprintf(dev->path, sizeof(dev->path), "%s", f->inner.path);
	snprintf(dev->subkind, sizeof(dev->subkind), "%s", f->inner.ops->name);
	snprintf(dev->model, sizeof(dev->model), "fault over %.50s", f->inner.name);
	return 0;
}

static int fault_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	struct fault *f = dev->priv;
	struct rq_dev_open io = *o;

	int ret;

	io.spec = strstr(o->spec, ",of=") + 4;
	ret = rq_dev_prepare(&f->inner, &io, err);
	/* a file the inner device laid out is the wrapper's to discard */
	if (f->inner.created && !dev->created) {
		dev->created = f->inner.created;
		f->inner.created = NULL;
	}
	return ret;
}

static void fault_close(struct rq_dev *dev)
{
	struct fault *f = dev->priv;

	if (!f)
		return;
	rq_dev_close(&f->inner);
	free(f);
	dev->priv = NULL;
}

static bool every(uint64_t n, uint64_t k)
{
	return k && n % k == 0;
}

static int fault_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct fault *f = dev->priv;
	uint64_t n;
	int st;

	if (f->busy_every && every(atomic_fetch_add(&f->nr_busy, 1) + 1, f->busy_every)) {
		atomic_fetch_add(&f->injected, 1);
		return RQ_Q_BUSY;
	}
	n = atomic_fetch_add(&f->nr, 1) + 1;
	if (every(n, f->eio_every) ||
	    (f->has_eio_offset && rq->offset <= f->eio_offset && f->eio_offset < rq->offset + rq->len)) {
		atomic_fetch_add(&f->injected, 1);
		rq->res = -EIO;
		return RQ_Q_DONE;
	}
	if (every(n, f->short_every)) {
		atomic_fetch_add(&f->injected, 1);
		rq->res = (int32_t)(rq->len / 2 / dev->lbs * dev->lbs);
		return RQ_Q_DONE;
	}
	if (every(n, f->hang_every)) {
		atomic_fetch_add(&f->injected, 1);
		return RQ_Q_QUEUED;	/* and never completed */
	}
	st = f->inner.ops->queue_rq(&f->inner, cpu, rq);
	if (st == RQ_Q_DONE && f->delay_us) {
		rq_ctx_complete_after(cpu, rq, rq->res, f->delay_us * 1000);
		return RQ_Q_QUEUED;
	}
	return st;
}

static int fault_poll(struct rq_dev *dev, struct rq_ctx *cpu)
{
	struct fault *f = dev->priv;

	return f->inner.ops->poll ? f->inner.ops->poll(&f->inner, cpu) : 0;
}

static bool fault_pending(struct rq_dev *dev, struct rq_ctx *cpu)
{
	struct fault *f = dev->priv;

	return f->inner.ops->pending && f->inner.ops->pending(&f->inner, cpu);
}

static int fault_cqe_res(struct rq_request *rq, int res)
{
	struct fault *f = rq->q->dev->priv;

	return f->inner.ops->cqe_res ? f->inner.ops->cqe_res(rq, res) : res;
}

static int fault_ring_init(struct rq_dev *dev, struct rq_ctx *cpu, struct io_uring *ring, unsigned int slot)
{
	struct fault *f = dev->priv;

	return f->inner.ops->ring_init ? f->inner.ops->ring_init(&f->inner, cpu, ring, slot) : 0;
}

static int fault_attach(struct rq_dev *dev, struct rq_queue *q)
{
	struct fault *f = dev->priv;

	return f->inner.ops->attach ? f->inner.ops->attach(&f->inner, q) : 0;
}

const struct rq_dev_ops rq_dev_fault = {
	.name = "fault",
	.builtin = "@fault",
	.probe = fault_probe,
	.open = fault_open,
	.prepare = fault_prepare,
	.close = fault_close,
	.attach = fault_attach,
	.queue_rq = fault_queue_rq,
	.poll = fault_poll,
	.pending = fault_pending,
	.cqe_res = fault_cqe_res,
	.ring_init = fault_ring_init,
};
