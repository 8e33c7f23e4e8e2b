// SPDX-License-Identifier: MIT
/*
 * aio.c - files and block devices through libaio (ioengine=libaio), so
 * that the kernel's two submission interfaces can be compared under the
 * same lock mode.  Opening, layout and the write-safety checks are the
 * io_uring devices' own (devices/blk.c).
 *
 * Each worker has its own aio context per device (io_setup of `depth`
 * events; fs.aio-max-nr bounds workers x depth x devices), its own pool of
 * `depth` iocbs and its own batch.  The split mirrors the io_uring path:
 *   queue_rq (dispatch lock held): take an iocb from the dispatching
 *       worker's pool, prepare it and append it to that worker's batch;
 *       no system call under the lock (RQ_Q_BUSY when the pool is empty);
 *   poll (no lock, every round, only the worker's own context):
 *       io_submit the batch, then io_getevents with a zero timeout
 *       (libaio answers from the user-space ring when nothing is there)
 *       and end each reaped request with rq_end_request().
 * So io_submit plays io_uring_enter's part, outside the lock, once per
 * round for everything dispatched in it.  Per-worker state is touched only
 * by its worker: no lock of its own.
 */
#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1)	/* linux/aio_abi.h, 4.18 */
#endif

#include "devices/dev_internal.h"

struct aio_cpu {
	io_context_t ctx;
	struct iocb *iocbs;		/* the pool */
	struct iocb **free;		/* free stack */
	unsigned int nr_free;
	struct iocb **batch;		/* prepared, not yet submitted */
	unsigned int nr_batch;
	unsigned int inflight;		/* submitted, not yet reaped */
	struct io_event *events;
} __attribute__((aligned(RQ_CACHELINE)));

struct aio_dev {
	unsigned int nr_cpus;
	unsigned int per_cpu;		/* iocbs and events per worker */
	struct aio_cpu *cpus;
};

static void aio_free(struct aio_dev *a)
{
	if (!a)
		return;
	for (unsigned int i = 0; a->cpus && i < a->nr_cpus; i++) {
		struct aio_cpu *c = &a->cpus[i];

		if (c->ctx)
			io_destroy(c->ctx);
		free(c->iocbs);
		free(c->free);
		free(c->batch);
		free(c->events);
	}
	free(a->cpus);
	free(a);
}

static int aio_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	struct aio_dev *a;
	int ret;

	ret = rq_path_open(dev, o, err);
	if (ret)
		return ret;
	a = dev->priv = calloc(1, sizeof(*a));
	if (!a || !(a->cpus = rq_percpu_alloc(o, sizeof(*a->cpus), &a->nr_cpus)))
		return -ENOMEM;
	a->per_cpu = dev->depth;
	for (unsigned int i = 0; i < a->nr_cpus; i++) {
		struct aio_cpu *c = &a->cpus[i];

		c->iocbs = calloc(a->per_cpu, sizeof(*c->iocbs));
		c->free = calloc(a->per_cpu, sizeof(*c->free));
		c->batch = calloc(a->per_cpu, sizeof(*c->batch));
		c->events = calloc(a->per_cpu, sizeof(*c->events));
		if (!c->iocbs || !c->free || !c->batch || !c->events)
			return -ENOMEM;
		for (unsigned int k = 0; k < a->per_cpu; k++)
			c->free[c->nr_free++] = &c->iocbs[k];
		ret = io_setup((int)a->per_cpu, &c->ctx);
		if (ret) {
			c->ctx = 0;
			if (ret == -EAGAIN)
				fprintf(err, "%s: %s: io_setup: fs.aio-max-nr is too small for %u workers "
					"x depth %u (raise it with sysctl, or use fewer --workers)\n",
					o->where, o->spec, a->nr_cpus, a->per_cpu);
			else
				fprintf(err, "%s: %s: io_setup: %s\n", o->where, o->spec, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void aio_close(struct rq_dev *dev)
{
	aio_free(dev->priv);
	dev->priv = NULL;
}

static int aio_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct aio_dev *a = dev->priv;
	int id = rq_ctx_id(cpu);
	struct aio_cpu *c;
	struct iocb *cb;

	if (id < 0 || (unsigned int)id >= a->nr_cpus) {
		rq->res = -EINVAL;
		return RQ_Q_DONE;
	}
	c = &a->cpus[id];
	/*
	 * A trim: Linux AIO has no discard, and fio's libaio engine trims
	 * synchronously from its queue hook, once nothing it queued is left
	 * unsubmitted (so a trim never overtakes I/O queued before it): the
	 * same here, with the dispatch lock held, as a synchronous driver's
	 * command holds it.  The batch goes out on this worker's next poll,
	 * and its completion restarts the queue.
	 */
	if (rq->op == RQ_OP_DISCARD) {
		int ret;

		if (c->nr_batch)
			return RQ_Q_BUSY;
		ret = rq_fd_discard(dev->fd, rq->offset, rq->len);
		rq->res = ret ? ret : (int32_t)rq->len;
		return RQ_Q_DONE;
	}
	/*
	 * A flush: fsync() (fdatasync(), sync_file_range()) here once this worker's writes are back, as
	 * fio's libaio engine does (it does not trust aio fsync): busy while
	 * any is prepared or in flight; their completions restart the queue.
	 */
	if (rq->op == RQ_OP_FLUSH) {
		if (c->nr_batch || c->inflight)
			return RQ_Q_BUSY;
		rq->res = rq_fd_sync(dev->fd, rq);
		return RQ_Q_DONE;
	}
	if (!c->nr_free)
		return RQ_Q_BUSY;
	cb = c->free[--c->nr_free];
	rq_request_map(rq);
	if (rq->nr_segs == 1) {
		if (rq->op == RQ_OP_READ)
			io_prep_pread(cb, dev->fd, rq->iov[0].iov_base, rq->len, (long long)rq->offset);
		else
			io_prep_pwrite(cb, dev->fd, rq->iov[0].iov_base, rq->len, (long long)rq->offset);
	} else {
		if (rq->op == RQ_OP_READ)
			io_prep_preadv(cb, dev->fd, rq->iov, rq->nr_segs, (long long)rq->offset);
		else
			io_prep_pwritev(cb, dev->fd, rq->iov, rq->nr_segs, (long long)rq->offset);
	}
	if (rq->bio->ioprio) {
		cb->aio_reqprio = (short)rq->bio->ioprio;
		cb->u.c.flags |= IOCB_FLAG_IOPRIO;
	}
	cb->data = rq;
	c->batch[c->nr_batch++] = cb;
	return RQ_Q_QUEUED;
}

static void end_one(struct aio_cpu *c, struct iocb *cb, struct rq_ctx *cpu, long res)
{
	struct rq_request *rq = cb->data;

	c->free[c->nr_free++] = cb;
	rq->res = res > 0x7fffffffL ? -EOVERFLOW : (int)res;
	rq_end_request(rq, cpu, 0);
}

static int aio_poll(struct rq_dev *dev, struct rq_ctx *cpu)
{
	struct aio_dev *a = dev->priv;
	int id = rq_ctx_id(cpu), n = 0;
	struct aio_cpu *c;

	if (id < 0 || (unsigned int)id >= a->nr_cpus)
		return 0;
	c = &a->cpus[id];
	while (c->nr_batch) {
		int ret = io_submit(c->ctx, (long)c->nr_batch, c->batch);

		if (ret == -EAGAIN || ret == -EINTR || ret == 0)
			break;		/* the kernel is full: next round */
		if (ret < 0) {
			/* the first iocb was refused: end it with the error, go on */
			struct iocb *cb = c->batch[0];

			memmove(c->batch, c->batch + 1, sizeof(*c->batch) * --c->nr_batch);
			end_one(c, cb, cpu, ret);
			n++;
			continue;
		}
		c->inflight += (unsigned int)ret;
		c->nr_batch -= (unsigned int)ret;
		memmove(c->batch, c->batch + ret, sizeof(*c->batch) * c->nr_batch);
	}
	if (c->inflight) {
		struct timespec zero = { 0, 0 };
		int got = io_getevents(c->ctx, 0, (long)a->per_cpu, c->events, &zero);

		for (int i = 0; i < got; i++) {
			c->inflight--;
			end_one(c, c->events[i].obj, cpu, (long)c->events[i].res);
			n++;
		}
	}
	return n;
}

static bool aio_pending(struct rq_dev *dev, struct rq_ctx *cpu)
{
	const struct aio_dev *a = dev->priv;
	int id = rq_ctx_id(cpu);

	if (id < 0 || (unsigned int)id >= a->nr_cpus)
		return false;
	return a->cpus[id].nr_batch || a->cpus[id].inflight;
}

const struct rq_dev_ops rq_dev_aio = {
	.name = "aio",
	.ioengine = "libaio",
	.help = "a file or block device through libaio",
	.flags = RQ_DEV_HAS_DATA | RQ_DEV_DISCARD | RQ_DEV_FLUSH,
	.open = aio_open,
	.prepare = rq_path_prepare,
	.close = aio_close,
	.queue_rq = aio_queue_rq,
	.poll = aio_poll,
	.pending = aio_pending,
};
