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
 * by its worker: no lock of its own (made and freed through percpu.c).
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
	struct rq_slots iocbs;		/* struct iocb each */
	struct iocb **batch;		/* prepared, not yet submitted */
	unsigned int nr_batch;
	unsigned int inflight;		/* submitted, not yet reaped */
	struct io_event *events;
} __attribute__((aligned(RQ_CACHELINE)));

static int aio_cpu_init(const struct rq_percpu *pc, void *cpu, const struct rq_dev_open *o, FILE *err)
{
	struct aio_cpu *c = cpu;
	int ret;

	c->batch = calloc(pc->per_cpu, sizeof(*c->batch));
	c->events = calloc(pc->per_cpu, sizeof(*c->events));
	if (rq_slots_init(&c->iocbs, pc->per_cpu, sizeof(struct iocb)) || !c->batch || !c->events)
		return -ENOMEM;
	ret = io_setup((int)pc->per_cpu, &c->ctx);
	if (ret) {
		c->ctx = 0;
		if (ret == -EAGAIN)
			fprintf(err, "%s: %s: io_setup: fs.aio-max-nr is too small for %u workers "
				"x depth %u (raise it with sysctl, or use fewer --workers)\n",
				o->where, o->spec, pc->nr_cpus, pc->per_cpu);
		else
			fprintf(err, "%s: %s: io_setup: %s\n", o->where, o->spec, strerror(-ret));
		return ret;
	}
	return 0;
}

static void aio_cpu_exit(const struct rq_dev *dev, void *cpu)
{
	struct aio_cpu *c = cpu;

	(void)dev;
	if (c->ctx)
		io_destroy(c->ctx);
	rq_slots_fini(&c->iocbs);
	free(c->batch);
	free(c->events);
}

static const struct rq_percpu_ops aio_percpu = {
	.size = sizeof(struct aio_cpu),
	.init = aio_cpu_init,
	.exit = aio_cpu_exit,
};

static int aio_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	int ret = rq_path_open(dev, o, err);

	return ret ? ret : rq_percpu_open(dev, o, &aio_percpu, err);
}

static int aio_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct aio_cpu *c = rq_percpu_get(dev, cpu);
	struct iocb *cb;

	if (!c) {
		rq->res = -EINVAL;
		return RQ_Q_DONE;
	}
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
	cb = rq_slot_get(&c->iocbs);
	if (!cb)
		return RQ_Q_BUSY;
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

	rq_slot_put(&c->iocbs, cb);
	rq->res = res > 0x7fffffffL ? -EOVERFLOW : (int)res;
	rq_end_request(rq, cpu, 0);
}

static int aio_poll(struct rq_dev *dev, struct rq_ctx *cpu)
{
	const struct rq_percpu *pc = dev->priv;
	struct aio_cpu *c = rq_percpu_get(dev, cpu);
	int n = 0;

	if (!c)
		return 0;
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
		int got = io_getevents(c->ctx, 0, (long)pc->per_cpu, c->events, &zero);

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
	const struct aio_cpu *c = rq_percpu_get(dev, cpu);

	return c && (c->nr_batch || c->inflight);
}

const struct rq_dev_ops rq_dev_aio = {
	.name = "aio",
	.ioengine = "libaio",
	.help = "a file or block device through libaio",
	.flags = RQ_DEV_HAS_DATA | RQ_DEV_DISCARD | RQ_DEV_FLUSH,
	.open = aio_open,
	.prepare = rq_path_prepare,
	.close = rq_percpu_close,
	.queue_rq = aio_queue_rq,
	.poll = aio_poll,
	.pending = aio_pending,
};
