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
#include <stddef.h>
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

struct fault_opts {
	uint64_t eio_every, eio_offset, short_every, busy_every, delay_us, hang_every;
};

#define FO(n, t, d, h) { #n, t, offsetof(struct fault_opts, n), 0, d, h }
static const struct rq_dev_option fault_options[] = {
	FO(eio_every, RQ_DEV_OPT_U64, "0", "every Nth request fails with EIO (0 = never)"),
	FO(eio_offset, RQ_DEV_OPT_U64, NULL, "a request covering this byte offset fails with EIO"),
	FO(short_every, RQ_DEV_OPT_U64, "0", "every Nth request completes short: half its length"),
	FO(busy_every, RQ_DEV_OPT_U64, "0", "every Nth dispatch is refused once (BUSY)"),
	FO(delay_us, RQ_DEV_OPT_TIME_US, "0", "completions come late (inner null irqmode=0 or ram)"),
	FO(hang_every, RQ_DEV_OPT_U64, "0", "every Nth request never completes"),
	{ NULL, 0, 0, 0, NULL, NULL },
};

/* @dev is the inner device, open; @opts the options before ",of=". */
static int fault_open(struct rq_dev *dev, const struct rq_dev_open *o, const char *opts, void **priv,
		      FILE *err)
{
	struct fault_opts fo;
	struct fault *f;
	int ret;
	/* eio_offset has no default: given or not */
	bool has_off = !strncmp(opts, "eio_offset=", 11) || strstr(opts, ",eio_offset=");

	ret = rq_dev_opts_parse(fault_options, &fo, o->spec, opts, err);
	if (ret)
		return ret;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->eio_every = fo.eio_every;
	f->short_every = fo.short_every;
	f->busy_every = fo.busy_every;
	f->delay_us = fo.delay_us;
	f->hang_every = fo.hang_every;
	f->has_eio_offset = has_off;
	f->eio_offset = fo.eio_offset;
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
	.help = "a filter in front of of=INNER: EIO, short, BUSY, late or lost requests",
	.options = fault_options,
	.open = fault_open,
	.close = fault_close,
	.map = fault_map,
};
