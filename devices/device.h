/* SPDX-License-Identifier: MIT */
/*
 * device.h - device drivers behind one ops table.
 *
 * A device is opened from a spec: a path (a regular file or a block
 * device) or rqlock's own syntax for built-in devices, "@KIND[N][,opt=val]..."
 * (e.g. "@null0", "@null1,delay_us=20").  The '@' keeps such names apart
 * from paths; fio job files reach them through ${VAR} so that the same file
 * runs under real fio with real paths.
 *
 * queue_rq() is called by the lock mode with the queue's dispatch lock
 * held, on the dispatching worker.  A device completes a request by
 * calling rq_cpu_complete() (now, from the reap loop) or
 * rq_cpu_complete_after() (a timer), or by putting an SQE with
 * user_data = the request on the worker's io_uring ring; the engine
 * reaps it and calls rq_end_request().
 */
#ifndef RQ_DEVICE_H
#define RQ_DEVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "queues/queue.h"

struct io_uring;

enum rq_dev_flags {
	RQ_DEV_NEEDS_RING = 1 << 0,	/* completes through the worker's io_uring */
	RQ_DEV_HAS_DATA = 1 << 1,	/* reads return what was written */
	RQ_DEV_RING_BIG = 1 << 2,	/* needs SQE128 | CQE32 rings (uring_cmd) */
};

/* What the job asks of a device when it is opened. */
struct rq_dev_open {
	const char *spec;		/* as written in the job */
	uint64_t min_size;		/* bytes the jobs need (offset + size), 0 = any */
	bool write;			/* some job writes: open read-write */
	bool direct;			/* O_DIRECT */
	bool allow_mounted_write;
	const char *where;		/* "file:line" of the first job naming it */
	int ioengine;			/* enum rq_ioengine of the jobs naming it */
	unsigned int nr_cpus;		/* workers that may dispatch to it */
};

struct rq_dev {
	const struct rq_dev_ops *ops;
	char name[128];			/* the spec as written */
	char path[256];			/* path opened, "" if none */
	char subkind[32];		/* blkdev: nvme, sata, scsi, virtio, loop, ... */
	char model[64];
	uint64_t size;			/* bytes */
	uint32_t lbs;			/* logical block size: alignment for direct I/O */
	uint32_t depth;			/* queue depth the queue allows in flight */
	uint32_t max_bytes;		/* largest request */
	int fd;				/* -1 when none */
	void *priv;
};

/*
 * Hooks:
 *  - probe (required): does this ops table handle @o (its spec and
 *    ioengine)?  No side effects.
 *  - open (required): fill @dev from @o; on error print one line naming
 *    the device and the reason to @err and return -errno.
 *  - prepare (optional): called once every job has been checked against
 *    every device, before the run; the only hook that may write outside
 *    I/O (a file device lays out its file here).  Returns 0 or -errno
 *    after printing one line to @err.
 *  - close (required).
 *  - queue_rq (required): called with the queue's dispatch lock held;
 *    returns enum rq_q_status.  On RQ_Q_DONE the caller ends the request
 *    with rq->error already set.
 */
struct rq_dev_ops {
	const char *name;
	unsigned int flags;
	bool (*probe)(const struct rq_dev_open *o);
	int (*open)(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
	int (*prepare)(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
	void (*close)(struct rq_dev *dev);
	int (*queue_rq)(struct rq_dev *dev, struct rq_cpu *cpu, struct rq_request *rq);
	/*
	 * poll (optional): reap completions that do not come through the
	 * worker's io_uring ring (libaio), calling rq_end_request() for each;
	 * called by every worker once per loop round, no lock held.  Returns
	 * the number reaped.
	 */
	int (*poll)(struct rq_dev *dev, struct rq_cpu *cpu);
	/* pending (optional): requests @cpu dispatched that poll has not reaped */
	bool (*pending)(struct rq_dev *dev, struct rq_cpu *cpu);
};

/* Registry: find the ops for @spec and open it. */
int rq_dev_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
int rq_dev_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
void rq_dev_close(struct rq_dev *dev);
int rq_devs_check(char *msg, size_t len);
const char *rq_dev_kind(const struct rq_dev *dev);

/* Parse ",key=val" options of a built-in spec; see devices/device.c. */
struct rq_dev_opt {
	const char *key;
	uint64_t *val;			/* parsed with size suffixes */
	bool is_time_us;
};
int rq_dev_parse_opts(const char *spec, const char *opts, struct rq_dev_opt *tab, int nr, FILE *err);

/* Services the engine provides to devices (engine/engine.c). */
struct io_uring *rq_cpu_ring(struct rq_cpu *cpu);
/* The request completes on @cpu's next reap, with @res bytes or -errno. */
void rq_cpu_complete(struct rq_cpu *cpu, struct rq_request *rq, int res);
/* ... after @delay_ns. Requests with the same delay complete in order. */
void rq_cpu_complete_after(struct rq_cpu *cpu, struct rq_request *rq, int res, uint64_t delay_ns);

#endif /* RQ_DEVICE_H */
