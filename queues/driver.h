/* SPDX-License-Identifier: MIT */
/*
 * driver.h - what a device driver (devices/) may use of the block layer:
 * requests, the per-CPU context a request is dispatched on, and the ways
 * to complete a request, and the driver interface itself: struct rq_dev,
 * the ops table a device kind fills (struct rq_dev_ops), the filters in
 * front of a device (struct rq_dev_filter_ops) and a kind's options
 * table.  Declared here, by the block layer, as include/linux/blk-mq.h
 * declares blk_mq_ops: devices/ includes it, queues/ includes nothing of
 * devices/.  Drivers include nothing of engine/.
 *
 * queue_rq() is called by the lock mode with the dispatch lock held, on
 * the dispatching worker's context @ctx.  A driver completes a request
 * by returning RQ_Q_DONE (ended by the caller), by rq_ctx_complete() (on
 * @ctx's next reap), by rq_ctx_complete_after() (a timer on @ctx), by an
 * SQE on rq_ctx_ring(@ctx) with user_data = the request (reaped with the
 * CQE), or by its own poll() hook calling rq_end_request().
 */
#ifndef RQ_DRIVER_H
#define RQ_DRIVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "queues/queue.h"

struct io_uring;

enum rq_dev_flags {
	RQ_DEV_NEEDS_RING = 1 << 0,	/* completes through the worker's io_uring */
	RQ_DEV_HAS_DATA = 1 << 1,	/* reads return what was written */
	RQ_DEV_RING_BIG = 1 << 2,	/* needs SQE128 | CQE32 rings (uring_cmd) */
	/*
	 * Every request must be aligned to dev->lbs (offset and length)
	 * whatever the job's direct= says: passthrough commands address
	 * logical blocks, there is no page cache to absorb a partial one.
	 */
	RQ_DEV_ALIGNED = 1 << 3,
	/*
	 * queue_rq serves RQ_OP_DISCARD requests (trims).  A device without
	 * it never sees one: the engine refuses a job that trims it.
	 */
	RQ_DEV_DISCARD = 1 << 4,
	/*
	 * queue_rq serves RQ_OP_FLUSH requests (fsync): the writes it
	 * completed are durable when the flush completes.  A device without
	 * it never sees one: the engine refuses a job with fsync= on it.
	 */
	RQ_DEV_FLUSH = 1 << 5,
	/*
	 * nr_hw_queues is what the hardware has (an NVMe controller's I/O
	 * queue pairs, which the driver created at open): mq maps at most
	 * that many hardware contexts, whatever --hw-queues asks, as blk-mq
	 * never has more hctxs than the driver's tag set has queues.
	 */
	RQ_DEV_HWQ_LIMIT = 1 << 6,
};

/* What a worker's ring has registered for a device (rq_dev.registered). */
enum rq_dev_reg {
	RQ_DEV_REG_PROBED = 1 << 0,	/* ring_init ran on at least one ring */
	RQ_DEV_REG_FILES = 1 << 1,	/* its fd is a fixed file on a ring */
	RQ_DEV_REG_BUFS = 1 << 2,	/* the jobs' buffers are fixed buffers there */
	RQ_DEV_REG_FALLBACK = 1 << 3,	/* a ring refused a registration: plain I/O there */
	/* a userspace driver's DMA memory (nvme-pci): through the IOMMU, or physical addresses */
	RQ_DEV_REG_VFIO = 1 << 4,	/* vfio-pci: VFIO_IOMMU_MAP_DMA */
	RQ_DEV_REG_UIO = 1 << 5,	/* uio_pci_generic: /proc/self/pagemap of locked memory */
};

/* What the job asks of a device when it is opened. */
struct rq_dev_open {
	const char *spec;		/* as written in the job */
	uint64_t min_size;		/* bytes the jobs need (offset + size), 0 = any */
	bool write;			/* some job writes: open read-write */
	bool direct;			/* O_DIRECT */
	bool allow_mounted_write;
	bool fill;			/* fill_device: a file is as large as its filesystem's free space, not laid out */
	const char *where;		/* "file:line" of the first job naming it */
	const char *job;		/* the first job naming it, for the layout note */
	FILE *info;			/* the layout note, as fio's normal output; NULL: none */
	/* the fio ioengine of the jobs naming it ("io_uring", "libaio", ...; NULL = io_uring) */
	const char *ioengine;
	unsigned int nr_cpus;		/* workers that may dispatch to it */
};

struct rq_dev {
	const struct rq_dev_ops *ops;
	char name[128];			/* the spec as written */
	char path[256];			/* path opened, "" if none */
	char subkind[32];		/* blkdev: nvme, sata, scsi, virtio, loop, ... */
	char model[64];
	char serial[64];		/* "" when unknown */
	char transport[16];		/* pcie, sata, scsi, virtio, loop, usb, model, memory, ... */
	int8_t rotational;		/* 1 spinning, 0 not, -1 unknown */
	uint64_t size;			/* bytes */
	uint32_t lbs;			/* logical block size: alignment for direct I/O */
	uint32_t depth;			/* queue depth the queue allows in flight */
	uint32_t max_bytes;		/* largest request */
	/*
	 * Most bios the elevator merges into one request, 0 = RQ_MAX_SEGS: the
	 * kernel's max_segments, for a driver that cannot take any number of
	 * segments (nvme-pci: a segment may need a command of its own).
	 */
	uint32_t max_segs;
	/*
	 * Hardware queues the device has, what mq uses unless --hw-queues
	 * says otherwise (never more than the workers): rq_dev_open() sets 1
	 * before open (one dispatch state, as a disk's or a ring's file);
	 * a device with no shared dispatch state (null, ram) sets 0: one per
	 * worker.
	 */
	uint32_t nr_hw_queues;
	/*
	 * enum rq_dev_flags of this device: ops->flags, set by rq_dev_open();
	 * a wrapper (fault) takes its inner device's.  The engine reads these.
	 */
	unsigned int flags;
	/* enum rq_dev_reg bits, or'ed by workers from ring_init() */
	_Atomic unsigned int registered;
	int fd;				/* -1 when none */
	void *priv;
	/*
	 * A filter in front of this device (fault), or NULL: the spec was
	 * "@FILTER,...,of=INNER", the device is INNER itself (its ops, hooks,
	 * flags and nr_hw_queues) and the queue sends each request through
	 * filter->map instead of ops->queue_rq.  filter_priv is the filter's.
	 */
	const struct rq_dev_filter_ops *filter;
	void *filter_priv;
	/*
	 * A file prepare created for this run (malloc'd path), NULL if none:
	 * rq_dev_discard_layout() removes it when the run never starts.
	 */
	char *created;
};

/*
 * Hooks:
 *  - probe (optional): see the field.
 *  - open (required): fill @dev from @o; on error print one line naming
 *    the device and the reason to @err and return -errno.
 *  - prepare (optional): called once every job has been checked against
 *    every device, before the run; the only hook that may write outside
 *    I/O (a file device lays out its file here).  Returns 0 or -errno
 *    after printing one line to @err.
 *  - close (required).
 *  - attach (optional): called by rq_queue_init() once the run's lock
 *    layer is configured (after open and prepare), single-threaded: a
 *    device's own locks are initialised here, so that lockstat and
 *    lockdep count them with the run's.  Returns 0 or -errno.
 *  - queue_rq (required): called with the queue's dispatch lock held;
 *    returns enum rq_q_status.  On RQ_Q_DONE the caller ends the request
 *    with rq->error already set.  In the legacy modes that lock is the
 *    queue's (or io_request_lock), so per-device state a queue_rq
 *    touches needs no lock of its own there; a mode that dispatches one
 *    device from several hardware queues at once holds only that
 *    queue's lock, and a device with shared state says nr_hw_queues = 1.
 */
struct rq_dev_ops {
	const char *name;
	/* a built-in kind's spec prefix ("@null"), listed in errors; NULL for paths */
	const char *builtin;
	/*
	 * The fio ioengine whose paths this kind serves ("io_uring",
	 * "libaio", "io_uring_cmd", "null"), as fio's load_ioengine() finds
	 * an engine by name; NULL for a built-in kind only reached by name.
	 */
	const char *ioengine;
	const char *help;		/* one line, for --help and --list */
	const struct rq_dev_option *options;	/* a built-in kind's, or NULL */
	unsigned int flags;
	/*
	 * probe (optional): among the kinds serving @o->ioengine, does this
	 * one take the path @o->spec (a block device, a regular file, an NVMe
	 * generic device)?  No side effects.  Without it the kind takes every
	 * path of its ioengine.  The registry asks every kind: claims must not
	 * overlap, so the registry's order does not matter.
	 */
	bool (*probe)(const struct rq_dev_open *o);
	int (*open)(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
	int (*prepare)(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
	void (*close)(struct rq_dev *dev);
	int (*attach)(struct rq_dev *dev, struct rq_queue *q);
	int (*queue_rq)(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq);
	/*
	 * irq (optional): the device's interrupt and bottom-half work for @rq,
	 * on the worker that reaps its completion, no lock held, right before
	 * rq_end_request() (2.4 floppy.c: floppy_interrupt, result polling).
	 * Not called for a request queue_rq completed (RQ_Q_DONE).
	 */
	void (*irq)(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq);
	/*
	 * end_rq (optional): called when @rq is ended, with the mode's
	 * completion lock held (legacy modes: the queue's lock, as 2.4's
	 * end_request ran under io_request_lock); must not sleep or take the
	 * queue's lock.
	 */
	void (*end_rq)(struct rq_dev *dev, struct rq_request *rq);
	/*
	 * poll (optional): reap completions that do not come through the
	 * worker's io_uring ring (libaio), calling rq_end_request() for each;
	 * called by every worker once per loop round, no lock held.  Returns
	 * the number reaped.
	 */
	int (*poll)(struct rq_dev *dev, struct rq_ctx *cpu);
	/* pending (optional): requests @cpu dispatched that poll has not reaped */
	bool (*pending)(struct rq_dev *dev, struct rq_ctx *cpu);
	/*
	 * cqe_res (optional): turn the CQE result of one of this device's
	 * SQEs into the request's result, bytes done or -errno.  Called by
	 * the worker that reaps the CQE, no lock held, before
	 * rq_end_request().  Without it, cqe->res is taken as is.  nvme-pt
	 * needs it: a uring_cmd CQE carries 0 on success and the NVMe status
	 * (> 0) on a command error, never a byte count.
	 */
	int (*cqe_res)(struct rq_dev *dev, struct rq_request *rq, int res);
	/*
	 * ring_init (optional): called by worker @cpu in its own thread
	 * right after it created its ring, before the run starts, through
	 * rq_ctx_ring_setup() (which has set up the ring's file table and
	 * buffers).  The device registers what it can on that ring (its fd
	 * in file-table slot @slot) and remembers, per worker, what worked;
	 * anything the kernel refuses falls back to plain I/O silently
	 * (recorded in dev->registered).  Returns 0; nothing here fails a run.
	 */
	int (*ring_init)(struct rq_dev *dev, struct rq_ctx *cpu, struct io_uring *ring,
			 unsigned int slot);
};

/*
 * A filter: a device stage in front of another device's queue_rq and
 * completion, as a dm target with only .map and .end_io (dm-flakey) sits
 * in front of the device dm core drives.  The device it filters stays
 * the queue's device: every hook, flag and nr_hw_queues is the device's
 * own, by construction; the filter sees requests only.
 *  - open (required): parse @opts (the spec's options before ",of=",
 *    "" for none) for @dev, which is the inner device, already open; set
 *    *@priv.  One line on @err and -errno on a bad option or an inner
 *    device the filter cannot serve.
 *  - close (required): free what open made.
 *  - map (required): called instead of dev->ops->queue_rq, with the same
 *    contract (dispatch lock held, returns enum rq_q_status): answer the
 *    request itself (RQ_Q_DONE with rq->res set, RQ_Q_BUSY, or
 *    RQ_Q_QUEUED and complete it later), or pass it on with
 *    dev->ops->queue_rq(); a synchronous completion of the device
 *    (RQ_Q_DONE) may be turned into a later one (rq_ctx_complete_after).
 */
struct rq_dev_filter_ops {
	const char *name;
	const char *builtin;		/* its spec prefix, "@fault" */
	const char *help;
	const struct rq_dev_option *options;
	int (*open)(struct rq_dev *dev, const struct rq_dev_open *o, const char *opts, void **priv,
		    FILE *err);
	void (*close)(void *priv);
	int (*map)(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq);
};


/*
 * A built-in kind's options, one declarative table (as fio's
 * ioengine_ops.options, null_blk's module parameters): name, type, where
 * it goes in the kind's options struct, default and help.  Several rows
 * may share an offset (aliases).  Terminated by a row with name NULL.
 * The same table parses a spec, fills the defaults and prints the help
 * (rq_dev_help) and `rqlock --list --json`.
 */
enum rq_dev_opt_type {
	RQ_DEV_OPT_U64,			/* a number with k/m/g/t suffixes (kb_base 1024) */
	RQ_DEV_OPT_TIME_US,		/* microseconds; "ms" and "s" suffixes */
	RQ_DEV_OPT_STR,			/* a string of at most len - 1 bytes */
};

struct rq_dev_option {
	const char *name;
	enum rq_dev_opt_type type;
	size_t off;			/* offsetof() in the options struct */
	size_t len;			/* RQ_DEV_OPT_STR: the buffer's size */
	const char *def;		/* the default as written ("4000", "2.4"), NULL = 0 / "" */
	const char *help;
};


/*
 * Fill rq->iov[0..nr_segs) from the request's bios.  A driver that hands
 * the data to the kernel or copies it calls this in queue_rq(), as a
 * kernel driver maps its request with blk_rq_map_sg(); one that moves no
 * data (null, a discard) does not pay for it.
 */
static inline void rq_request_map(struct rq_request *rq)
{
	unsigned int i = 0;

	for (struct rq_bio *b = rq->bio; b; b = b->next, i++) {
		rq->iov[i].iov_base = b->buf;
		rq->iov[i].iov_len = b->len;
	}
}

/* The request completes on @ctx's next reap, with @res bytes or -errno. */
void rq_ctx_complete(struct rq_ctx *ctx, struct rq_request *rq, int res);
/* ... after @delay_ns.  Requests with the same delay complete in order. */
void rq_ctx_complete_after(struct rq_ctx *ctx, struct rq_request *rq, int res, uint64_t delay_ns);

/*
 * The fixed-buffer index holding [@buf, @buf + @len) on @ctx's ring (the
 * clones' buffers, registered by rq_ctx_ring_setup()), or -1.
 */
int rq_ring_buf_index(const struct rq_ctx *ctx, const void *buf, size_t len);
/* @ctx's io_uring ring (the device asked for one: RQ_DEV_NEEDS_RING). */
struct io_uring *rq_ctx_ring(struct rq_ctx *ctx);

#endif /* RQ_DRIVER_H */
