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
#include <fcntl.h>
#include <liburing.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"

/*
 * Per worker: the fixed-file slot of this device on its ring, or -1.
 * no_cmd_discard: the kernel refused io_uring's block discard command
 * (before 6.12 a block device takes no uring_cmd): BLKDISCARD instead.
 */
struct uring_dev {
	unsigned int nr_cpus;
	bool blk;			/* a block device (blkdev), else a file */
	_Atomic bool no_cmd_discard;
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
	u->blk = false;
	atomic_init(&u->no_cmd_discard, false);
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

	if (!ret)
		((struct uring_dev *)dev->priv)->blk = true;
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

/* Linux 6.12's BLOCK_URING_CMD_DISCARD (uapi linux/fs.h), for older headers */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)
#endif

/*
 * A trim, asynchronous: a file punches a hole through IORING_OP_FALLOCATE
 * (PUNCH_HOLE | KEEP_SIZE); a block device takes io_uring's block discard
 * command (liburing's io_uring_prep_cmd_discard: start in addr, length in
 * addr3).  Both complete with 0 (uring_cqe_res makes it the length).  A
 * kernel without the command says -EOPNOTSUPP once (uring_cqe_res), and
 * BLKDISCARD serves the trims from then on, synchronously (uring_queue_rq).
 */
static void uring_prep_discard(const struct uring_dev *u, struct io_uring_sqe *sqe, int fd,
			       const struct rq_request *rq)
{
	if (!u->blk) {
		io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					(off_t)rq->offset, (off_t)rq->len);
		return;
	}
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
	sqe->addr = rq->offset;
	sqe->addr3 = rq->len;
}

/* A CQE's result: a trim's or a sync's 0 is its length; a refused block discard command falls back. */
static int uring_cqe_res(struct rq_dev *dev, struct rq_request *rq, int res)
{
	struct uring_dev *u = dev->priv;

	if (rq->op == RQ_OP_FLUSH)	/* a sync_file_range's 0 is its length */
		return res ? res : (int)rq->len;
	if (rq->op != RQ_OP_DISCARD)
		return res;
	if (res == -EOPNOTSUPP && u->blk) {
		/* no uring_cmd on this kernel's block devices, or no discard at all: ask the ioctl */
		atomic_store_explicit(&u->no_cmd_discard, true, memory_order_relaxed);
		res = rq_fd_discard(dev->fd, rq->offset, rq->len);
	}
	return res ? res : (int)rq->len;
}

static int uring_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct uring_dev *u = dev->priv;
	struct io_uring_sqe *sqe;
	int id = rq_ctx_id(cpu);
	int slot = (unsigned int)id < u->nr_cpus ? u->slot[id] : -1;
	int fd = slot >= 0 ? slot : dev->fd;

	if (rq->op == RQ_OP_DISCARD && u->blk &&
	    atomic_load_explicit(&u->no_cmd_discard, memory_order_relaxed)) {
		int ret = rq_fd_discard(dev->fd, rq->offset, rq->len);

		rq->res = ret ? ret : (int32_t)rq->len;
		return RQ_Q_DONE;
	}
	/* sync_file_range of nothing written since the last sync: nothing to ask (fio's psync) */
	if (rq->op == RQ_OP_FLUSH && (rq->bio->sync & (RQ_SYNC_RANGE | RQ_SYNC_TO_END)) == RQ_SYNC_RANGE &&
	    !rq->len) {
		rq->res = 0;
		return RQ_Q_DONE;
	}
	sqe = io_uring_get_sqe(rq_ctx_ring(cpu));
	if (!sqe)
		return RQ_Q_BUSY;
	if (rq->op < RQ_OP_DISCARD)
		rq_request_map(rq);
	if (rq->op == RQ_OP_FLUSH) {
		unsigned int k = rq->bio->sync;

		if (k & RQ_SYNC_RANGE)	/* an empty range was served above */
			io_uring_prep_sync_file_range(sqe, fd, rq->len, rq->offset, (int)(k & RQ_SYNC_SFR_MASK));
		else
			io_uring_prep_fsync(sqe, fd, k & RQ_SYNC_DATA ? IORING_FSYNC_DATASYNC : 0);
	} else if (rq->op == RQ_OP_DISCARD) {
		uring_prep_discard(u, sqe, fd, rq);
	} else if (rq->nr_segs == 1) {
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
	sqe->ioprio = rq->bio->ioprio;		/* the prep calls cleared it */
	io_uring_sqe_set_data(sqe, rq);
	return RQ_Q_QUEUED;
}

/* file and blkdev differ in how they are found and opened, not in their I/O */
#define URING_IO							\
	.flags = RQ_DEV_NEEDS_RING | RQ_DEV_HAS_DATA | RQ_DEV_DISCARD | RQ_DEV_FLUSH,	\
	.close = uring_close,						\
	.queue_rq = uring_queue_rq,					\
	.cqe_res = uring_cqe_res,					\
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
