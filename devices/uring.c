// SPDX-License-Identifier: MIT
/*
 * uring.c - the file and blkdev devices: I/O through the dispatching
 * worker's io_uring ring (O_DIRECT when the job says direct=1).
 *
 * file:   a regular file, named by its path.  A missing or short file is
 *         laid out (written) in prepare(), as fio lays out its files, and
 *         only after every job was checked.
 * blkdev: a block device, named by its path.  Its kind (nvme, sata, scsi,
 *         virtio, loop, floppy, ...) and queue facts come from sysfs.  It
 *         is opened read-write only when a job writes, then with O_EXCL,
 *         and refused if mounted, swap, held, in use or holding a
 *         filesystem or partition-table signature, unless
 *         --allow-mounted-write (devices/blk.c).
 *
 * Registered files and buffers: when a worker's context sets up its ring
 * (rq_ctx_ring_setup(), queues/ctx.c), ring_init() puts the fd in
 * the ring's file table (slot = the device's index there) and queue_rq()
 * then issues IOSQE_FIXED_FILE SQEs on that worker; a single-segment
 * request whose buffer lies in a registered buffer becomes READ_FIXED /
 * WRITE_FIXED.  The kernel is asked, not assumed: where it refuses, that
 * worker uses the plain fd and plain buffers (dev->registered says which).
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"

/* Per worker: the fixed-file slot of this device on its ring, or -1. */
struct uring_dev {
	unsigned int nr_cpus;
	int slot[];
};

static bool uring_engine(const struct rq_dev_open *o)
{
	return !o->ioengine || !strcmp(o->ioengine, "io_uring");
}

static bool blk_probe(const struct rq_dev_open *o)
{
	return uring_engine(o) && rq_path_is_blk(o->spec);
}

/* every other path of io_uring but an NVMe generic device (nvme-pt's) */
static bool file_probe(const struct rq_dev_open *o)
{
	return uring_engine(o) && !rq_path_is_blk(o->spec) && !rq_path_is_ng(o->spec);
}

static int uring_priv(struct rq_dev *dev, const struct rq_dev_open *o)
{
	unsigned int n = o->nr_cpus ? o->nr_cpus : 1;
	struct uring_dev *u = malloc(sizeof(*u) + sizeof(int) * n);

	if (!u)
		return -ENOMEM;
	u->nr_cpus = n;
	for (unsigned int i = 0; i < n; i++)
		u->slot[i] = -1;
	dev->priv = u;
	return 0;
}

static int file_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	int ret = uring_priv(dev, o);

	return ret ? ret : rq_file_open(dev, o, err);
}

static int blk_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	int ret = uring_priv(dev, o);

	return ret ? ret : rq_blk_open(dev, o, err);
}

static void uring_close(struct rq_dev *dev)
{
	free(dev->priv);
	dev->priv = NULL;
}

static int uring_ring_init(struct rq_dev *dev, struct rq_ctx *cpu, struct io_uring *ring,
			   unsigned int slot)
{
	struct uring_dev *u = dev->priv;
	int id = rq_ctx_id(cpu);

	if (id < 0 || (unsigned int)id >= u->nr_cpus)
		return 0;
	u->slot[id] = -1;
	if (slot != ~0u && dev->fd >= 0 &&
	    io_uring_register_files_update(ring, slot, &dev->fd, 1) == 1) {
		u->slot[id] = (int)slot;
		atomic_fetch_or_explicit(&dev->registered, RQ_DEV_REG_FILES, memory_order_relaxed);
	} else {
		atomic_fetch_or_explicit(&dev->registered, RQ_DEV_REG_FALLBACK, memory_order_relaxed);
	}
	return 0;
}

static int uring_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(rq_ctx_ring(cpu));
	const struct uring_dev *u = dev->priv;
	int id = rq_ctx_id(cpu);
	int slot = (unsigned int)id < u->nr_cpus ? u->slot[id] : -1;
	int fd = slot >= 0 ? slot : dev->fd;

	if (!sqe)
		return RQ_Q_BUSY;
	rq_request_map(rq);
	if (rq->nr_segs == 1) {
		void *buf = rq->iov[0].iov_base;
		int idx = rq_ring_buf_index(cpu, buf, rq->len);

		if (idx >= 0 && rq->op == RQ_OP_READ)
			io_uring_prep_read_fixed(sqe, fd, buf, rq->len, rq->offset, idx);
		else if (idx >= 0)
			io_uring_prep_write_fixed(sqe, fd, buf, rq->len, rq->offset, idx);
		else if (rq->op == RQ_OP_READ)
			io_uring_prep_read(sqe, fd, buf, rq->len, rq->offset);
		else
			io_uring_prep_write(sqe, fd, buf, rq->len, rq->offset);
	} else {
		if (rq->op == RQ_OP_READ)
			io_uring_prep_readv(sqe, fd, rq->iov, rq->nr_segs, rq->offset);
		else
			io_uring_prep_writev(sqe, fd, rq->iov, rq->nr_segs, rq->offset);
	}
	if (slot >= 0)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, rq);
	return RQ_Q_QUEUED;
}

/* file and blkdev differ in how they are found and opened, not in their I/O */
#define URING_IO							\
	.flags = RQ_DEV_NEEDS_RING | RQ_DEV_HAS_DATA,			\
	.close = uring_close,						\
	.queue_rq = uring_queue_rq,					\
	.ring_init = uring_ring_init

const struct rq_dev_ops rq_dev_file = {
	.name = "file",
	.ioengine = "io_uring",
	.help = "a regular file through io_uring, laid out when short or missing",
	.probe = file_probe,
	.open = file_open,
	.prepare = rq_file_prepare,
	URING_IO,
};

const struct rq_dev_ops rq_dev_blkdev = {
	.name = "blkdev",
	.ioengine = "io_uring",
	.help = "a block device through io_uring (write-safety checked)",
	.probe = blk_probe,
	.open = blk_open,
	URING_IO,
};
