/* SPDX-License-Identifier: MIT */
/*
 * queue.h - bios, requests, request queues, lock modes and lock primitives.
 *
 * This is the queues/ folder's interface for the engine (devices use
 * queues/driver.h).  The engine builds bios, sets their end_io, and hands
 * them to rq_submit_bio(); a lock mode (struct rq_queue_mode_ops) turns
 * them into requests, queues and merges them in an elevator and dispatches
 * them to the device's queue_rq(); each worker's per-CPU context (struct
 * rq_ctx, opaque, queues/ctx.c) collects the completions and
 * rq_ctx_reap() ends them: rq_end_request(), then every bio of the request
 * through bio->end_io, the one call back up, through a pointer the
 * submitter set (as the kernel's bi_end_io).
 *
 * Which lock protects what is written beside each field; functions that
 * need a lock assert it with rq_lock_assert_held().  The modes (each
 * file's header lists its locks, what they protect and their order):
 *   global     queues/legacy.c   one io_request_lock (Linux 2.4)
 *   per-queue  queues/legacy.c   a lock per queue (2.5)
 *   mq         queues/mq.c       software queues, hardware queues, tags (3.13)
 *   cluster    queues/cluster.c  partitions owning devices, forward rings
 */
#ifndef RQ_QUEUE_H
#define RQ_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <liburing.h>
#include <sys/uio.h>

#include "lib/compiler.h"
#include "locks/lock.h"

struct rq_ctx;
struct rq_dev;

/* Backpressure from a device's queue_rq (fio's fio_q_status). */
enum rq_q_status {
	RQ_Q_DONE = 0,		/* completed synchronously; caller ends it */
	RQ_Q_QUEUED = 1,	/* accepted; completion comes later */
	RQ_Q_BUSY = 2,		/* not accepted now (ring full); retry later */
};

/*
 * A bio's operation; the values are also the engine's data directions
 * (results/: RQ_DDIR_*).  RQ_OP_DISCARD is a trim (the kernel's
 * REQ_OP_DISCARD): the range [offset, offset + len) is no longer needed,
 * it moves no data (buf unused) and a driver serves the request's range
 * as a whole (rq->offset, rq->len), never its bios' buffers.  Requests
 * merge only with requests of the same op, so a discard never merges with
 * a read or a write; adjacent discards merge into one range, as the
 * kernel's discard merging does (within q->max_bytes).  RQ_OP_FLUSH is an
 * fsync (the kernel's REQ_OP_FLUSH, fio's DDIR_SYNC): no range, no data,
 * the device's writes made durable; it never merges (bio->sync says
 * which sync: fsync, fdatasync or sync_file_range).  It is no data
 * direction: the engine accounts it apart (fio's sync statistics).
 */
enum rq_op { RQ_OP_READ = 0, RQ_OP_WRITE = 1, RQ_OP_DISCARD = 2, RQ_OP_FLUSH = 3, RQ_OP_NR = 4 };

/*
 * What a flush asks for (bio->sync).  0 is fsync(): the file's data and
 * metadata.  RQ_SYNC_DATA is fdatasync(): its data and what reading it
 * back needs.  RQ_SYNC_RANGE is sync_file_range() of [offset, offset +
 * len) with the kernel's SYNC_FILE_RANGE_* flags in RQ_SYNC_SFR_MASK
 * (1 wait_before, 2 write, 4 wait_after); an empty range (len 0) syncs
 * nothing, as fio's do_sync_file_range(), unless RQ_SYNC_TO_END says the
 * range was too long for len and goes from offset to the end of the file
 * (the syscall's nbytes 0).  A flush completes with res = len (0 without
 * a range), as a discard does.  A device that keeps no page cache (null,
 * RAM) completes every kind at once.
 */
enum rq_sync {
	RQ_SYNC_SFR_MASK = 7,
	RQ_SYNC_DATA = 1 << 3,
	RQ_SYNC_RANGE = 1 << 4,
	RQ_SYNC_TO_END = 1 << 5,
};

/* fio's name of an op's direction (io_ddir_name): "read", "write", "trim", "sync" */
static inline const char *rq_op_name(int op)
{
	return op == RQ_OP_READ ? "read" : op == RQ_OP_WRITE ? "write" : op == RQ_OP_DISCARD ? "trim" : "sync";
}

struct rq_bio;
/*
 * A bio's completion, set by its submitter: called once per bio by the
 * worker whose context @ctx ended it (any worker), no lock held, with
 * bio->error set.  The bio belongs to the submitter again from the call.
 */
typedef void rq_bio_end_io_t(struct rq_ctx *ctx, struct rq_bio *bio);

/*
 * A bio: one I/O as a job clone issued it.  Owned by its submitter until
 * rq_submit_bio(), by the queue until rq_bio_endio(), then by the
 * submitter again.
 */
struct rq_bio {
	uint64_t offset;		/* bytes */
	uint32_t len;			/* bytes */
	uint8_t op;			/* enum rq_op */
	uint8_t prio_idx;		/* the submitter's: which of its priorities (its statistics) */
	/*
	 * The I/O priority asked for, the kernel's value (class << 13 | level;
	 * 0: none), given to the kernel with the request (io_uring's
	 * sqe->ioprio, libaio's aio_reqprio).  Bios of different priorities
	 * never merge, as blk_rq_merge_ok() refuses them.
	 */
	uint16_t ioprio;
	int32_t error;			/* 0 or -errno, set at end */
	/*
	 * RQ_OP_FLUSH only: which sync (enum rq_sync).  A flush never merges,
	 * so a driver reads it from rq->bio, as it reads ioprio.
	 */
	uint8_t sync;
	void *buf;
	rq_bio_end_io_t *end_io;	/* the submitter's completion (required) */
	void *private;			/* the submitter's: the job clone */
	void *owner_priv;		/* the submitter's per-bio data (the clone's file) */
	uint64_t start_ns;		/* built */
	uint64_t issue_ns;		/* accepted by rq_submit_bio */
	uint64_t done_ns;		/* ended */
	/*
	 * Rate-limited jobs: when the job's schedule wanted this I/O issued
	 * (engine/pace.c), whatever happened to the ones before it; 0 = the
	 * job has no schedule.  Latency from here is "lat_intended".
	 */
	uint64_t due_ns;
	struct rq_bio *next;		/* bios of a request; hand-back list */
};

/* Request states, checked on every transition (exactly-once). */
enum rq_state {
	RQ_STATE_FREE = 0,
	RQ_STATE_QUEUED,		/* in the elevator */
	RQ_STATE_DISPATCHED,		/* owned by the device */
	RQ_STATE_DONE,			/* completion seen, being ended */
};

#define RQ_MAX_SEGS 32			/* bios merged into one request */

struct rq_request {
	struct rq_queue *q;
	uint64_t offset;
	uint32_t len;
	uint8_t op;
	uint8_t state;			/* enum rq_state */
	uint16_t nr_segs;
	uint32_t tag;			/* index in the queue's pool */
	int32_t error;
	struct rq_bio *bio, *biotail;
	struct rq_request *prev, *next;	/* elevator list / free list */
	/*
	 * While queued: the elevator's merge hashes, [RQ_HASH_END] by where
	 * the request ends (back merges), [RQ_HASH_START] by where it starts
	 * (front merges); see rq_queue.merge_hash.
	 */
	struct rq_request *hnext[2], **hpprev[2];
	void *dev_priv;			/* for the device while dispatched */
	uint64_t done_at;		/* rq_ctx_complete_after(): when, in ns */
	int32_t res;			/* device result: bytes or -errno */
	/*
	 * The hardware context the request belongs to, set once when the mode
	 * allocates it (mq: its hctx's index; 0 in the other modes, which have
	 * one dispatch state per queue).  A driver with a submission queue per
	 * hardware context picks it by this, as blk-mq's nvme_queue_rq() finds
	 * its nvme_queue in hctx->driver_data: the mode's lock for that context
	 * is then the one held around the driver's doorbell.
	 */
	uint16_t hwq;
	struct iovec iov[RQ_MAX_SEGS];	/* one per bio: the driver's rq_request_map() */
};

/*
 * The mode's per-request area (rq_queue_mode_ops.cmd_size bytes), right
 * after each request as blk-mq's tag set puts a driver's cmd_size after
 * struct request: zeroed when the queue's requests are allocated, kept
 * while a request is reused, reached with rq_request_pdu() as
 * blk_mq_rq_to_pdu().  A queue's requests are RQ_REQUEST_STRIDE(cmd_size)
 * bytes apart: a constant where the mode's size is, as in mq.c.
 */
#define RQ_REQUEST_PDU_ALIGN	16
#define RQ_REQUEST_PDU_OFF	((sizeof(struct rq_request) + RQ_REQUEST_PDU_ALIGN - 1) & \
				 ~(size_t)(RQ_REQUEST_PDU_ALIGN - 1))
#define RQ_REQUEST_STRIDE(cmd_size) \
	((RQ_REQUEST_PDU_OFF + (cmd_size) + RQ_REQUEST_PDU_ALIGN - 1) & ~(size_t)(RQ_REQUEST_PDU_ALIGN - 1))

static inline void *rq_request_pdu(struct rq_request *rq)
{
	return (char *)rq + RQ_REQUEST_PDU_OFF;
}

/* Request @i of an array of requests @stride bytes apart (rq_requests_alloc()). */
static inline struct rq_request *rq_request_at(struct rq_request *base, size_t stride, uint32_t i)
{
	return (struct rq_request *)((char *)base + stride * i);
}

struct rq_queue;
/*
 * @n requests of @q, each with its mode's area (rq_request_pdu()), on cache
 * lines of their own; tags 0..n-1, q set, the rest zeroed.  The queue's
 * pool is made with it, and a mode that keeps its own requests (mq's tag
 * sets) makes them with it too.  NULL when out of memory; free() it.
 */
struct rq_request *rq_requests_alloc(struct rq_queue *q, uint32_t n);

struct rq_run_report;
/*
 * Fill @r->lockstat, @r->lockdep and @r->mode from the locks and queues of
 * the run (every queue between rq_queue_init() and rq_queue_exit()).  The
 * storage belongs to queues/ until rq_locks_reset() (lock reports) and
 * the last rq_queue_exit() (mode reports).  Call once every worker has
 * stopped.  Returns 0 or -ENOMEM.
 */
int rq_queues_report(struct rq_run_report *r);

/*
 * A request queue: one per device.
 */
#define RQ_RERUN_DELAY_NS 3000000ULL	/* see rq_queue.needs_rerun */

struct rq_queue {
	const struct rq_queue_mode_ops *mode;
	struct rq_dev *dev;
	/*
	 * The lock that protects everything below marked "lock": the shared
	 * io_request_lock in global mode, &own_lock in per-queue mode and in
	 * cluster mode when the owner partition has more than one worker;
	 * NULL in cluster mode with one worker per partition (only the owner
	 * touches the queue) and in mq mode, whose locks are per hardware
	 * queue (queues/mq.c) and whose counters are per worker until
	 * rq_queue_check_idle() folds them here.
	 */
	struct rq_lock *lock;
	struct rq_lock own_lock;

	/* lock: the FIFO elevator, the pool's free list, the counters */
	struct rq_request *head, *tail;
	struct rq_request *free;
	struct rq_request *last_merge;	/* merge hint, as the 2.4 elevator's */
	/*
	 * The queued requests by offset, so that a bio finds the request it
	 * can merge with in O(1) whatever the queue's length (the kernel's
	 * elevator rqhash for back merges, the scheduler's sort tree for
	 * front ones): 2 x (hash_mask + 1) chain heads, the first half by a
	 * request's end, the second by its start.  2.4 scanned the whole
	 * list, which cost O(queued) per bio under the lock (measured: 20,000
	 * instructions per I/O at iodepth 1024 on a 64-deep device, 700 at 16).
	 */
	struct rq_request **merge_hash;
	uint32_t hash_mask;
	uint32_t nr_queued;
	uint32_t inflight;		/* dispatched, not yet ended */
	uint32_t depth;			/* device queue depth: max inflight */
	uint32_t nr_requests;		/* pool size */
	uint32_t max_bytes;		/* largest merged request */
	uint32_t max_segs;		/* most bios in a merged request (dev->max_segs, <= RQ_MAX_SEGS) */
	bool stopped;			/* device said BUSY; restart on next end */
	/*
	 * Lock-free.  The device refused a dispatch (RQ_Q_BUSY) while nothing
	 * of this queue was in flight: no completion will restart it.  Set by
	 * the mode when it stops the queue so, cleared by run_queue; the engine
	 * runs such a queue again after RQ_RERUN_DELAY_NS from a worker whose
	 * clones wait on it, as blk-mq delays a run of a hardware queue after
	 * BLK_STS_RESOURCE with nothing in flight (BLK_MQ_RESOURCE_DELAY, 3 ms;
	 * 2.6's SCSI: blk_delay_queue(q, SCSI_QUEUE_DELAY)).  Without it such
	 * a queue waited until its worker was idle for 256 rounds, which a
	 * busy worker never is: a job on it starved.
	 */
	_Atomic bool needs_rerun;
	uint64_t nr_alloc;		/* requests allocated */
	uint64_t nr_bios;
	uint64_t merges_front, merges_back;
	uint64_t nr_dispatched, nr_completed;

	/*
	 * What dispatch calls: the device's queue_rq, or the map of the
	 * filter in front of it (dev->filter: fault), which passes what it
	 * does not answer itself on to queue_rq.
	 */
	int (*queue_rq)(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq);
	/* the device's irq hook (struct rq_dev_ops), or NULL: run by rq_end_request() */
	void (*dev_irq)(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq);
	/* the device's end_rq hook, or NULL: run under the completion lock when a request ends */
	void (*dev_end_rq)(struct rq_dev *dev, struct rq_request *rq);
	struct rq_request *pool;	/* nr_requests entries, allocated once */
	size_t rq_stride;		/* RQ_REQUEST_STRIDE(mode->cmd_size): pool entries apart */
	void *mode_priv;		/* the mode's own per-queue state (mq, cluster) */
	char name[128];
};

/* What the engine tells a lock mode before any queue exists. */
struct rq_mode_config {
	unsigned int nr_cpus;		/* workers; cpu ids are 0..nr_cpus-1 */
	enum rq_lock_type lock_type;
	unsigned int hw_queues;		/* mq: hardware queues per device, 0 = mode default */
	unsigned int cluster_size;	/* cluster: workers per partition, 0 = see worker_part */
	/*
	 * cluster: the partition of each worker (nr_cpus entries, 0 ..
	 * nr_parts-1, every partition non-empty), as the engine cut them
	 * from the topology (an LLC domain each); NULL: cluster_size
	 * workers in id order.
	 */
	const unsigned int *worker_part;
	unsigned int nr_parts;
	bool lockstat;
	bool lockdep;
	unsigned int lockstat_sample;	/* hold time on 1 in N acquisitions, 0 = 64 */
	/* the workers' contexts by id (nr_cpus of them), for modes that wake one */
	struct rq_ctx *const *ctxs;
};

/*
 * A lock mode.  Hooks:
 *  - setup (optional): called once before any queue_init, single-threaded,
 *    with the run's configuration (kept by the mode if it needs it).
 *  - teardown (optional): after every queue_exit.
 *  - queue_init (required): choose q->lock and anything per queue.
 *  - submit_bio (required): called by the worker that owns @bio, no lock
 *    held; must end with the bio queued (or merged) and the queue run.
 *    Returns 0, or -errno if the bio could not be accepted.
 *  - end_request (required): called by the worker that reaped the
 *    completion, no lock held; frees the request, restarts the queue and
 *    ends its bios with rq_bio_endio() after dropping any lock.
 *  - run_queue (required): dispatch what is queued; no lock held.  Any
 *    worker may call it (the engine kicks the queues its clones wait on,
 *    the only restart a queue stopped by RQ_Q_BUSY with nothing in flight
 *    gets): a mode whose queue only some workers may touch passes the
 *    request on to them (cluster), never drops it.
 *  - queue_exit (optional): free what queue_init made, before the pool.
 *  - check_idle (optional): after the run, single-threaded: fold the
 *    mode's distributed counters into the queue's (nr_bios, nr_alloc,
 *    nr_dispatched, nr_completed, inflight, nr_queued) and check its own
 *    structures are empty; 0, or -EPROTO with a message.
 *  - report (optional): the mode's facts about a queue for the report.
 *  - report_run (optional): the mode's run-wide facts for the report.
 */
#define RQ_MODE_F_ALL_WORKERS (1u << 0)	/* see rq_queue_mode_ops.flags */
#define RQ_MODE_F_SHARED_LOCK (1u << 1)	/* see rq_queue_mode_ops.flags */
#define RQ_MODE_F_NR 2

struct rq_mode_queue_report;
struct rq_mode_report;

struct rq_queue_mode_ops {
	const char *name;
	const char *help;
	/*
	 * RQ_MODE_F_ALL_WORKERS: other workers leave work for a worker
	 * through poll(), so every worker must keep its loop (and, when the
	 * group uses io_uring devices, its ring) until every clone of the
	 * group has finished, even one with no clone of its own.
	 * RQ_MODE_F_SHARED_LOCK: one lock serialises every queue (global's
	 * io_request_lock): a slow device's holds delay every other device,
	 * and adding devices adds no throughput.  The tools' verdicts read
	 * it from `rqlock --list --json` ("shared_lock").
	 */
	unsigned int flags;
	/*
	 * options (optional): the rqlock flags this mode reads, without
	 * their dashes ("hw-queues"), NULL-terminated; --help, --list and
	 * the tools (the chaos runner) read them from here.
	 */
	const char *const *options;
	/*
	 * cmd_size (optional): bytes of per-request state the mode keeps, in
	 * the area rq_request_pdu() reaches (blk-mq's cmd_size).  The pool
	 * sizes its requests by it; 0 when the mode keeps none.
	 */
	size_t cmd_size;
	int (*setup)(const struct rq_mode_config *cfg);
	void (*teardown)(void);
	int (*queue_init)(struct rq_queue *q);
	void (*queue_exit)(struct rq_queue *q);
	int (*check_idle)(struct rq_queue *q, char *msg, size_t len);
	void (*report)(const struct rq_queue *q, struct rq_mode_queue_report *out);
	/* report_run (optional): the mode's run-wide facts, after the run. */
	void (*report_run)(struct rq_mode_report *out);
	int (*submit_bio)(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio *bio);
	void (*end_request)(struct rq_queue *q, struct rq_ctx *cpu, struct rq_request *rq, int error);
	void (*run_queue)(struct rq_queue *q, struct rq_ctx *cpu);
	/*
	 * poll (optional): called by every worker once per loop round, no
	 * lock held; does work other workers left for this one (cluster:
	 * forwarded bios).  Returns the number of items handled.  A mode
	 * that leaves work for a worker calls rq_ctx_wake() on it.
	 */
	unsigned int (*poll)(struct rq_ctx *cpu);
	/* pending (optional): has @cpu work waiting in the mode?  No lock held. */
	bool (*pending)(struct rq_ctx *cpu);
};

const struct rq_queue_mode_ops *rq_queue_mode_find(const char *name);
/* "global|per-queue|...": the registry's names, for help text */
const char *rq_queue_mode_names(void);
/* The registry's @i-th mode (its name and help), NULL past the last. */
const struct rq_queue_mode_ops *rq_queue_mode_at(unsigned int i);
/* The name of flag bit @bit (RQ_MODE_F_*), "all_workers", for --list; NULL past the last. */
const char *rq_queue_mode_flag_name(unsigned int bit);
/* Check every registered mode has its required hooks; -EINVAL naming it. */
int rq_queue_modes_check(char *msg, size_t len);

/*
 * Create a queue for @dev under @mode with a pool of @nr_requests.
 * Returns 0 or -errno.
 */
int rq_queue_init(struct rq_queue *q, const struct rq_queue_mode_ops *mode,
		  struct rq_dev *dev, uint32_t nr_requests);
void rq_queue_exit(struct rq_queue *q);
/*
 * After a run, single-threaded: fold the mode's per-worker counters into
 * @q's and check that nothing is queued, in flight or lost: bios and
 * requests balance, every request (tag) is free.  0, or -EPROTO with a
 * one-line reason in @msg.
 */
int rq_queue_check_idle(struct rq_queue *q, char *msg, size_t len);

static inline int rq_submit_bio(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio *bio)
{
	return q->mode->submit_bio(q, cpu, bio);
}

/* A completion was reaped (no lock held): the device's irq work, then the mode ends it. */
static inline void rq_end_request(struct rq_request *rq, struct rq_ctx *cpu, int error)
{
	if (__builtin_expect(rq->q->dev_irq != NULL, 0))
		rq->q->dev_irq(rq->q->dev, cpu, rq);
	rq->q->mode->end_request(rq->q, cpu, rq, error);
}

static inline void rq_run_queue(struct rq_queue *q, struct rq_ctx *cpu)
{
	q->mode->run_queue(q, cpu);
}

/* The global lock mode's io_request_lock (for reports). */
extern struct rq_lock rq_io_request_lock;

/*
 * The per-CPU context: one per worker, made with rq_ctx_create() and
 * opaque outside queues/ctx.c: the engine and the devices reach it only
 * through rq_ctx_* (its fields are declared in ctx.c alone).  Lock modes
 * and devices get it on every call; only its own worker touches it,
 * except rq_ctx_wake() and rq_ctx_hand_back().  It owns the worker's
 * io_uring ring (creation, registration, submit-and-wait, reap, the
 * in-flight count), what devices complete on it (rq_ctx_complete*()),
 * the worker's sleep and wake-up, and blk-mq's delayed queue runs; the
 * engine calls rq_ctx_reap() every round and rq_ctx_sleep() when idle.
 *
 * Its first member is its public head: the id and the owner, read inline
 * on every I/O (rq_ctx_id(), rq_ctx_owner()); nothing else is public.
 */
struct rq_ctx_head {
	int id;				/* 0..nr_cpus-1: the lock layer's cpu id */
	void *owner;			/* the engine's worker (rq_ctx_create()) */
};

/*
 * A context for worker id @id, whose owner (the engine's worker, given
 * back by rq_ctx_owner()) is @owner; on cache lines of its own.  NULL
 * when out of memory.  rq_ctx_destroy() frees it (its ring must be torn
 * down first); NULL is ignored.
 */
struct rq_ctx *rq_ctx_create(int id, void *owner);
void rq_ctx_destroy(struct rq_ctx *ctx);
/*
 * What rq_ctx_reap() polls beyond its ring and lists: the mode's poll()
 * (@mode, may be NULL) and the devices with a poll hook (@polled).  Set by
 * the owner before the run.
 */
void rq_ctx_set_polled(struct rq_ctx *ctx, const struct rq_queue_mode_ops *mode,
		       struct rq_dev *const *polled, unsigned int nr_polled);
/*
 * The calling thread runs @ctx (NULL: none): what rq_current and the lock
 * assertions read, as the kernel's `current`.
 */
void rq_ctx_set_current(struct rq_ctx *ctx);
extern _Thread_local struct rq_ctx *rq_current;
/*
 * End what has completed for @ctx: up to @max_cqes CQEs of its ring (the
 * device's cqe_res() turns each into the request's result), its
 * rq_ctx_complete() list, its timers due at @now, its polled devices and
 * the mode's poll().  Each request goes through rq_end_request(), each bio
 * to its end_io.  Returns the number of completions handled.
 */
unsigned int rq_ctx_reap(struct rq_ctx *ctx, uint64_t now, unsigned int max_cqes);
/* Completions @ctx is owed that a sleeping worker would not see on its ring. */
bool rq_ctx_polled_pending(struct rq_ctx *ctx);
/* Anything in flight or waiting for @ctx: its ring, lists, timers, polled work. */
bool rq_ctx_pending(struct rq_ctx *ctx);
/* When @ctx's next timer is due (ns), UINT64_MAX when none. */
uint64_t rq_ctx_next_timer(const struct rq_ctx *ctx);
/* Wake @ctx's worker if it sleeps (work was left for it); any thread. */
void rq_ctx_wake(struct rq_ctx *ctx);
/*
 * Sleep until rq_ctx_wake() or @timeout_ns (at most 1 ms is taken), unless
 * a bio was handed back meanwhile; only @ctx's worker.
 */
void rq_ctx_sleep(struct rq_ctx *ctx, uint64_t timeout_ns);
/*
 * @bio, submitted from @owner's worker, ended on another: push it on
 * @owner's lock-free list and wake that worker (blk-mq completes a
 * request on its submitting CPU the same way).  Any thread.
 */
void rq_ctx_hand_back(struct rq_ctx *owner, struct rq_bio *bio);
/* Take every bio handed back to @ctx (NULL: none); only @ctx's worker. */
struct rq_bio *rq_ctx_handed_back(struct rq_ctx *ctx);
/*
 * The queues @ctx runs again, every RQ_RERUN_DELAY_NS from rq_ctx_reap(),
 * when one was stopped with nothing in flight (rq_queue.needs_rerun).
 */
void rq_ctx_set_queues(struct rq_ctx *ctx, struct rq_queue *const *queues, unsigned int nr);

/*
 * The context's io_uring ring, made and entered only by the worker that
 * runs @ctx.  rq_ctx_ring_setup(), in that thread: create the ring (with
 * @flags, IORING_SETUP_SQE128 | CQE32 when a device needs them; the
 * setup flags the kernel has for a single issuer), give it a sparse file
 * table with one slot per device of @devs (slot = index in @devs),
 * register @bufs (the clones' I/O buffers, any order) as fixed buffers,
 * and call each device's ring_init().  What the kernel refuses is left
 * out silently.  Returns 0 or -errno; on a failure after the ring was
 * made, rq_ctx_ring_teardown() still frees it.  Teardown is for any
 * thread once the worker has stopped; a context without a ring is left
 * alone.
 */
int rq_ctx_ring_setup(struct rq_ctx *ctx, unsigned int flags, struct rq_dev *const *devs,
		      unsigned int nr_devs, const struct iovec *bufs, unsigned int nr_bufs);
void rq_ctx_ring_teardown(struct rq_ctx *ctx);
/*
 * Can @nr rings be made (RLIMIT_MEMLOCK, the kernel's limits)?  Makes and
 * closes them; 0, or -errno with *@made the number made before it.
 */
int rq_ctx_ring_probe(unsigned int nr, unsigned int *made);
/*
 * Hand @ctx's prepared SQEs to the kernel in one io_uring_enter, which
 * also posts the ring's deferred completions.  @wait_nr > 0: wait there
 * for that many completions (at most what is in flight) or @wait_ns.
 * Returns 1 when it entered the kernel, 0 when there was nothing to
 * submit or wait for (or no ring), -errno on an error of the ring
 * (a timeout or an interrupted wait is not one).
 */
int rq_ctx_submit(struct rq_ctx *ctx, unsigned int wait_nr, uint64_t wait_ns);
/* SQEs prepared on @ctx's ring and not yet submitted (0 without a ring). */
unsigned int rq_ctx_sq_ready(const struct rq_ctx *ctx);
/* Does @ctx's ring have SQEs in flight or prepared? */
bool rq_ctx_ring_busy(const struct rq_ctx *ctx);

static inline int rq_ctx_id(const struct rq_ctx *ctx)
{
	return ((const struct rq_ctx_head *)(const void *)ctx)->id;
}

static inline void *rq_ctx_owner(const struct rq_ctx *ctx)
{
	return ((const struct rq_ctx_head *)(const void *)ctx)->owner;
}

/* End @bio with @error: its submitter's end_io runs now, on @ctx's worker. */
static inline void rq_bio_endio(struct rq_ctx *ctx, struct rq_bio *bio, int error)
{
	bio->error = error;
	bio->end_io(ctx, bio);
}

#endif /* RQ_QUEUE_H */
