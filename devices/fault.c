// SPDX-License-Identifier: MIT
/*
 * fault.c - a fault-injecting filter in front of another device.
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
 * A filter (struct rq_dev_filter_ops), as dm-flakey is a dm target with
 * only map and end_io: the inner device is the queue's device, so its
 * hooks (attach, irq, end_rq, poll, cqe_res, ring_init), flags and
 * nr_hw_queues are the queue's by construction, and with no fault asked a
 * wrapped device behaves as the bare one.  Requests the filter fails never
 * reach the inner device; the others go to it unchanged.  Decisions count
 * requests per device with an atomic counter, so they hold under every
 * lock mode.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"

struct fault {
	uint64_t eio_every, eio_offset, short_every, busy_every, delay_us, hang_every;
	bool has_eio_offset;
	_Atomic uint64_t nr;		/* requests seen */
	_Atomic uint64_t nr_busy;	/* dispatches seen, for busy_every */
	_Atomic uint64_t injected;	/* faults injected, all kinds */
};

/* @dev is the inner device, open; @opts the options before ",of=". */
static int fault_open(struct rq_dev *dev, const struct rq_dev_open *o, const char *opts, void **priv,
		      FILE *err)
{
	uint64_t eio_offset = UINT64_MAX;
	struct fault *f = calloc(1, sizeof(*f));
	int ret;

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

		ret = rq_dev_parse_opts(o->spec, opts, tab, 6, err);
	}
	if (ret) {
		free(f);
		return ret;
	}
	f->has_eio_offset = eio_offset != UINT64_MAX;
	f->eio_offset = eio_offset;
	if (f->delay_us && (dev->flags & RQ_DEV_NEEDS_RING || dev->ops->poll)) {
		fprintf(err, "%s: device '%s': delay_us needs an inner device that completes at once "
			"(null irqmode=0, ram), not %s\n", o->where, o->spec, dev->ops->name);
		free(f);
		return -EINVAL;
	}
	*priv = f;
	return 0;
}

static void fault_close(void *priv)
{
	free(priv);
}

static bool every(uint64_t n, uint64_t k)
{
	return k && n % k == 0;
}

static int fault_map(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct fault *f = dev->filter_priv;
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
	st = dev->ops->queue_rq(dev, cpu, rq);
	if (st == RQ_Q_DONE && f->delay_us) {
		rq_ctx_complete_after(cpu, rq, rq->res, f->delay_us * 1000);
		return RQ_Q_QUEUED;
	}
	return st;
}

const struct rq_dev_filter_ops rq_filter_fault = {
	.name = "fault",
	.builtin = "@fault",
	.open = fault_open,
	.close = fault_close,
	.map = fault_map,
};
