// SPDX-License-Identifier: MIT
/*
 * posixaio.c - files and block devices through POSIX AIO (aio_read,
 * aio_write: ioengine=posixaio), the portable asynchronous interface fio
 * offers where neither io_uring nor libaio exists.  glibc carries it out
 * with its own threads doing pread/pwrite, so it is a third way into the
 * kernel to compare under the same lock mode.  Opening, layout and the
 * write-safety checks are the io_uring devices' own (devices/blk.c).
 *
 * Each worker has its own pool of `depth` slots per device; a slot holds
 * one request and an aiocb per segment (POSIX AIO has no vectored
 * request: a merged request is one aiocb per bio, at consecutive
 * offsets).  The split is libaio's (devices/aio.c):
 *   queue_rq (dispatch lock held): take a slot from the dispatching
 *       worker's pool, fill its aiocbs, append it to that worker's batch;
 *       no call into the C library's AIO under the lock (RQ_Q_BUSY when
 *       the pool is empty);
 *   poll (no lock, every round, only the worker's own context): issue
 *       the batch's aiocbs with aio_read/aio_write (EAGAIN: the rest wait
 *       for the next round), then look at each in-flight aiocb with
 *       aio_error, as fio's posixaio engine does, without waiting
 *       (the worker loop is the wait), and end a request with
 *       rq_end_request() once all its aiocbs are done.
 * Per-worker state is touched only by its worker: no lock of its own (made
 * and freed through percpu.c, as libaio's).
 */
#include <aio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devices/dev_internal.h"

struct paio_slot {
	struct rq_request *rq;
	struct aiocb cb[RQ_MAX_SEGS];
	unsigned int nr;		/* aiocbs in use */
	unsigned int issued;		/* handed to the C library */
	unsigned int done;		/* aio_return()ed */
	long res;			/* bytes so far, or the first -errno */
	bool short_io;			/* a segment moved less than asked: the rest do not count */
};

struct paio_cpu {
	struct rq_slots slots;		/* struct paio_slot each */
	struct paio_slot **batch;	/* filled, some aiocbs not issued yet */
	unsigned int nr_batch;
	struct paio_slot **inflight;	/* every aiocb issued, some not done */
	unsigned int nr_inflight;
} __attribute__((aligned(RQ_CACHELINE)));

/* Wait for the aiocbs a slot still has with the C library: their memory is about to go. */
static void slot_drain(struct paio_slot *s, int fd)
{
	for (unsigned int i = 0; i < s->issued; i++) {
		const struct aiocb *one[1] = { &s->cb[i] };
		struct timespec t = { 0, 100000000 };

		if (s->cb[i].aio_fildes < 0 || aio_error(&s->cb[i]) != EINPROGRESS)
			continue;
		aio_cancel(fd, &s->cb[i]);
		while (aio_error(&s->cb[i]) == EINPROGRESS)
			aio_suspend(one, 1, &t);
		aio_return(&s->cb[i]);
	}
}

static int paio_cpu_init(const struct rq_percpu *pc, void *cpu, const struct rq_dev_open *o, FILE *err)
{
	struct paio_cpu *c = cpu;

	c->batch = calloc(pc->per_cpu, sizeof(*c->batch));
	c->inflight = calloc(pc->per_cpu, sizeof(*c->inflight));
	if (rq_slots_init(&c->slots, pc->per_cpu, sizeof(struct paio_slot)) || !c->batch || !c->inflight) {
		fprintf(err, "%s: %s: posixaio: out of memory for %u workers x depth %u\n",
			o->where, o->spec, pc->nr_cpus, pc->per_cpu);
		return -ENOMEM;
	}
	return 0;
}

static void paio_cpu_exit(const struct rq_dev *dev, void *cpu)
{
	struct paio_cpu *c = cpu;

	/* a run that abandoned requests leaves them with the C library's threads */
	for (unsigned int k = 0; c->inflight && k < c->nr_inflight; k++)
		slot_drain(c->inflight[k], dev->fd);
	for (unsigned int k = 0; c->batch && k < c->nr_batch; k++)
		slot_drain(c->batch[k], dev->fd);
	rq_slots_fini(&c->slots);
	free(c->batch);
	free(c->inflight);
}

static const struct rq_percpu_ops paio_percpu = {
	.size = sizeof(struct paio_cpu),
	.init = paio_cpu_init,
	.exit = paio_cpu_exit,
};

static int paio_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	int ret = rq_path_open(dev, o, err);

	return ret ? ret : rq_percpu_open(dev, o, &paio_percpu, err);
}

static int paio_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct paio_cpu *c = rq_percpu_get(dev, cpu);
	struct paio_slot *s;
	off_t off = (off_t)rq->offset;

	if (!c || (rq->op != RQ_OP_READ && rq->op != RQ_OP_WRITE)) {
		rq->res = c ? -EOPNOTSUPP : -EINVAL;
		return RQ_Q_DONE;
	}
	s = rq_slot_get(&c->slots);
	if (!s)
		return RQ_Q_BUSY;
	rq_request_map(rq);
	s->rq = rq;
	s->nr = rq->nr_segs;
	s->issued = s->done = 0;
	s->res = 0;
	s->short_io = false;
	for (unsigned int i = 0; i < s->nr; i++) {
		struct aiocb *cb = &s->cb[i];

		memset(cb, 0, sizeof(*cb));
		cb->aio_fildes = dev->fd;
		cb->aio_buf = rq->iov[i].iov_base;
		cb->aio_nbytes = rq->iov[i].iov_len;
		cb->aio_offset = off;
		cb->aio_sigevent.sigev_notify = SIGEV_NONE;	/* polled, as fio's engine */
		off += (off_t)rq->iov[i].iov_len;
	}
	c->batch[c->nr_batch++] = s;
	return RQ_Q_QUEUED;
}

/* One aiocb finished with @r (bytes, or -errno): fold it into the request's result. */
static void slot_account(struct paio_slot *s, unsigned int i, long r)
{
	s->done++;
	if (s->res < 0 || s->short_io)
		return;		/* the first error or short segment decides */
	if (r < 0) {
		s->res = r;
		return;
	}
	s->res += r;
	if ((size_t)r < s->cb[i].aio_nbytes)
		s->short_io = true;
}

static void slot_end(struct paio_cpu *c, struct paio_slot *s, struct rq_ctx *cpu)
{
	struct rq_request *rq = s->rq;

	rq->res = s->res > 0x7fffffffL ? -EOVERFLOW : (int)s->res;
	s->rq = NULL;
	rq_slot_put(&c->slots, s);
	rq_end_request(rq, cpu, 0);
}

/*
 * Issue what the C library takes of @s: false when it is full (EAGAIN),
 * the rest wait for the next round.  An aiocb it refuses otherwise ends
 * with the error, and so do the ones after it.
 */
static bool slot_issue(struct paio_slot *s)
{
	while (s->issued < s->nr) {
		struct aiocb *cb = &s->cb[s->issued];
		int e = (s->rq->op == RQ_OP_READ ? aio_read(cb) : aio_write(cb)) ? errno : 0;

		if (e == EAGAIN)
			return false;
		if (e) {
			while (s->issued < s->nr) {
				s->cb[s->issued].aio_fildes = -1;	/* never the library's */
				slot_account(s, s->issued++, -(long)e);
			}
			return true;
		}
		s->issued++;
	}
	return true;
}

/* Reap @s's finished aiocbs (fio's posixaio getevents: aio_error, then aio_return); true when all are done. */
static bool slot_reap(struct paio_slot *s)
{
	for (unsigned int i = 0; i < s->issued; i++) {
		struct aiocb *cb = &s->cb[i];
		ssize_t r;
		int e;

		if (cb->aio_fildes < 0)
			continue;		/* reaped, or never issued */
		e = aio_error(cb);
		if (e == EINPROGRESS)
			continue;
		r = aio_return(cb);		/* once per aiocb: releases it */
		slot_account(s, i, e ? -(long)e : (long)r);
		cb->aio_fildes = -1;
	}
	return s->done == s->nr;
}

static int paio_poll(struct rq_dev *dev, struct rq_ctx *cpu)
{
	struct paio_cpu *c = rq_percpu_get(dev, cpu);
	unsigned int k = 0;
	int n = 0;

	if (!c)
		return 0;
	/* issue in order; a full library leaves the rest for the next round */
	while (k < c->nr_batch) {
		struct paio_slot *s = c->batch[k];
		if (!slot_issue(s))
			break;
		k++;
		if (s->done == s->nr) {		/* refused at once */
			slot_end(c, s, cpu);
			n++;
		} else {
			c->inflight[c->nr_inflight++] = s;
		}
	}
	c->nr_batch -= k;
	memmove(c->batch, c->batch + k, sizeof(*c->batch) * c->nr_batch);
	for (unsigned int i = 0; i < c->nr_inflight;) {
		struct paio_slot *s = c->inflight[i];

		if (!slot_reap(s)) {
			i++;
			continue;
		}
		c->inflight[i] = c->inflight[--c->nr_inflight];
		slot_end(c, s, cpu);
		n++;
	}
	return n;
}

static bool paio_pending(struct rq_dev *dev, struct rq_ctx *cpu)
{
	const struct paio_cpu *c = rq_percpu_get(dev, cpu);

	return c && (c->nr_batch || c->nr_inflight);
}

const struct rq_dev_ops rq_dev_posixaio = {
	.name = "posixaio",
	.ioengine = "posixaio",
	.help = "a file or block device through POSIX AIO (aio_read/aio_write, polled)",
	.flags = RQ_DEV_HAS_DATA,
	.open = paio_open,
	.prepare = rq_path_prepare,
	.close = rq_percpu_close,
	.queue_rq = paio_queue_rq,
	.poll = paio_poll,
	.pending = paio_pending,
};
