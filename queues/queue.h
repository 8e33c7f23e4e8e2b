/* SPDX-License-Identifier: MIT */
/*
 * queue.h - bios, requests, request queues, lock modes and lock primitives.
 *
 * This is the queues/ folder's one interface header.  The engine builds
 * bios and hands them to rq_submit_bio(); a lock mode (struct
 * rq_queue_mode_ops) turns them into requests, queues and merges them in an
 * elevator and dispatches them to the device's queue_rq(); the engine reaps
 * the device's completions and calls rq_end_request(), which ends every bio
 * of the request through rq_bio_endio() (provided by the engine).
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
#include <sys/uio.h>

struct rq_cpu;
struct rq_dev;
struct rq_hw_queue;

#define RQ_CACHELINE 64

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Backpressure from a device's queue_rq (fio's fio_q_status). */
enum rq_q_status {
	RQ_Q_DONE = 0,		/* completed synchronously; caller ends it */
	RQ_Q_QUEUED = 1,	/* accepted; completion comes later */
	RQ_Q_BUSY = 2,		/* not accepted now (ring full); retry later */
};

enum rq_op { RQ_OP_READ = 0, RQ_OP_WRITE = 1 };

/*
 * A bio: one I/O as a job clone issued it.  Owned by its clone until
 * rq_submit_bio(), by the queue until rq_bio_endio(), then by the clone
 * again (handed back to the owner's worker if another worker ended it).
 */
struct rq_bio {
	uint64_t offset;		/* bytes */
	uint32_t len;			/* bytes */
	uint8_t op;			/* enum rq_op */
	int16_t owner_cpu;		/* worker the owning clone lives on */
	int32_t error;			/* 0 or -errno, set at end */
	void *buf;
	void *owner;			/* the job clone (opaque here) */
	void *owner_priv;		/* the clone's per-bio data (its file) */
	uint64_t start_ns;		/* built */
	uint64_t issue_ns;		/* accepted by rq_submit_bio */
	uint64_t done_ns;		/* ended */
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
	void *dev_priv;			/* for the device while dispatched */
	uint64_t done_at;		/* rq_cpu_complete_after(): when, in ns */
	int32_t res;			/* device result: bytes or -errno */
	int32_t submit_cpu;		/* mq: the worker whose software queue it came from */
	struct rq_hw_queue *hctx;	/* mq: the hardware queue whose tag it holds */
	struct iovec iov[RQ_MAX_SEGS];	/* one per bio, filled at dispatch */
};

/*
 * Lock primitives (lock.c).  One struct for every primitive so that a mode
 * can embed it; the primitive's ops (struct rq_lock_ops) decide how the
 * word at the head of the struct is used:
 *
 *   ttas    test-and-test-and-set on one word
 *   ticket  a "next" and a "serving" counter: FIFO
 *   mcs     a tail pointer to a queue of per-waiter nodes: FIFO
 *   mutex   a futex word: 0 free, 1 held, 2 held with sleepers
 *
 * Spinners spin then yield (sched_yield); the mutex sleeps in the kernel.
 * What each costs under contention is written beside its code in lock.c.
 *
 * lockstat (rq_mode_config.lockstat): per lock, acquisitions and
 * contentions always; with lockstat on also bounces (the lock taken by
 * another worker than the previous holder), the wait time of every
 * contended acquisition, the hold time of a random 1 in N acquisitions
 * (N = rq_mode_config.lockstat_sample, default 64) and the contention
 * sites (file:line).  Everything is written by the holder only, so plain
 * counters are exact; the report folds them per lock class.
 *
 * lockdep (rq_mode_config.lockdep): each worker's held locks are kept;
 * "held A while taking B" adds the class edge A -> B (the report's edge
 * count); a cycle in the class graph (or a class taken while one of its
 * own is held) is reported once on stderr with the acquisition sites, and
 * rq_lockdep_result() fails the run.  Every run reports the lock classes
 * used; edges are counted by lockdep runs (keeping the held stacks costs
 * ~2.5 ns an acquisition, too much for lockstat's budget).
 */
struct rq_lock_class {
	const char *name;		/* "io_request_lock", "queue_lock", ... */
};

struct rq_lock;
struct rq_mcs_node;

struct rq_lock_ops {
	const char *name;
	/* One attempt; true if taken.  Else *token is what lock_slow needs. */
	bool (*lock_fast)(struct rq_lock *l, uintptr_t *token);
	/* Wait until taken (spin then yield, or sleep); the attempt failed. */
	void (*lock_slow)(struct rq_lock *l, uintptr_t token);
	/* Take it only if free now; true if taken. */
	bool (*trylock)(struct rq_lock *l, uintptr_t *token);
	/* Release; @token is what lock_fast/trylock gave (mcs: the node). */
	void (*unlock)(struct rq_lock *l, uintptr_t token);
	/* Held by anyone now?  A relaxed look at the word. */
	bool (*is_locked)(const struct rq_lock *l);
};

enum rq_lock_type { RQ_LOCK_TTAS = 0, RQ_LOCK_TICKET, RQ_LOCK_MCS, RQ_LOCK_MUTEX, RQ_LOCK_NR_TYPES };

/*
 * lockstat histograms: log-linear in clock ticks (TSC cycles, or ns where
 * the TSC is not trusted), as fio's: values below 2^(BITS+1) have their
 * own bucket, every power of two above is split in 2^BITS buckets (width
 * at most 12.5% of the value).  368 buckets cover up to 2^48 ticks.
 */
#define RQ_LOCK_HIST_BITS 3
#define RQ_LOCK_HIST_NR 368
#define RQ_LOCK_SITES 8			/* contention sites kept per lock */

struct rq_lock_time {
	uint64_t n, min, max, total;	/* ticks */
	uint64_t hist[RQ_LOCK_HIST_NR];
};

struct rq_lock_site_count {
	const char *site;		/* "file:line", a string literal */
	uint64_t n;
};

enum { RQ_LOCK_F_STAT = 1 << 0, RQ_LOCK_F_DEP = 1 << 1 };

struct rq_lock {
	/* Line 0: the primitive's word(s), written by acquirers and waiters. */
	union {
		_Atomic uint32_t word;			/* ttas, mutex */
		struct {
			_Atomic uint32_t next;		/* ticket: next ticket to hand out */
			_Atomic uint32_t serving;	/* ticket: the one that holds it */
		} ticket;
		_Atomic(struct rq_mcs_node *) tail;	/* mcs: last in the queue, NULL free */
	};
	char pad0[RQ_CACHELINE - 2 * sizeof(uint32_t)];
	/* Line 1 on: written only by the holder (or at init), so plain counters are exact. */
	const struct rq_lock_ops *ops;
	int owner;			/* cpu id of the holder, -1 if free (__atomic access) */
	int last_owner;			/* lockstat: previous holder, for bounces */
	uint16_t class_id;		/* index in the class table */
	uint8_t flags;			/* RQ_LOCK_F_* */
	uint8_t type;			/* enum rq_lock_type */
	uint32_t sample_left;		/* lockstat: acquisitions until the next hold sample */
	uintptr_t token;		/* the primitive's token while held */
	uint64_t acquisitions;
	uint64_t contentions;		/* acquisitions that had to wait */
	uint64_t acq_bounces;		/* lockstat: acquisitions after another worker held it */
	uint64_t con_bounces;		/* lockstat: contentions after another worker held it */
	uint64_t hold_start;		/* lockstat: ticks when a sampled hold began, 0 none */
	uint32_t rng;			/* lockstat: sampling gaps (xorshift32) */
	const struct rq_lock_class *cls;
	char name[48];
	/* lockstat: contended acquisitions' wait, sampled holds, sites */
	struct rq_lock_time wait, hold;
	struct rq_lock_site_count sites[RQ_LOCK_SITES];
	uint64_t sites_other;		/* contentions at sites beyond RQ_LOCK_SITES */
} __attribute__((aligned(RQ_CACHELINE)));

int rq_lock_type_parse(const char *name, enum rq_lock_type *type);
const char *rq_lock_type_name(enum rq_lock_type type);
/* "ttas|ticket|mcs|mutex": the names, for help text */
const char *rq_lock_type_names(void);

struct rq_mode_config;
/*
 * Configure the lock layer for a run: primitive, lockstat, lockdep, the
 * number of workers (cpu ids 0..nr_cpus-1).  Every mode's setup calls it
 * first; locks initialised afterwards use it.  Single-threaded.  Returns 0
 * or -ENOMEM.
 */
int rq_lock_setup(const struct rq_mode_config *cfg);
/*
 * Every initialised lock is registered (until rq_locks_reset()), so that a
 * report can list them all whatever the mode made.
 */
void rq_lock_init(struct rq_lock *l, const struct rq_lock_class *cls, const char *name);
/* Forget every lock, class and lockdep edge; back to the defaults. */
void rq_locks_reset(void);
struct rq_lock_report;
/* Fill up to @max reports, one per registered lock; returns how many. */
unsigned int rq_locks_report(struct rq_lock_report *out, unsigned int max);
unsigned int rq_locks_count(void);

#define RQ_STRINGIFY_(x) #x
#define RQ_STRINGIFY(x) RQ_STRINGIFY_(x)
/* The call site, one string literal: lockstat's contention sites, lockdep's reports. */
#define RQ_LOCK_SITE __FILE__ ":" RQ_STRINGIFY(__LINE__)

void rq_lock_at(struct rq_lock *l, int cpu, const char *site);
bool rq_trylock_at(struct rq_lock *l, int cpu, const char *site);
#define rq_lock(l, cpu) rq_lock_at((l), (cpu), RQ_LOCK_SITE)
#define rq_trylock(l, cpu) rq_trylock_at((l), (cpu), RQ_LOCK_SITE)
void rq_unlock(struct rq_lock *l, int cpu);
bool rq_lock_is_held_by(const struct rq_lock *l, int cpu);
/* Held by anyone at this instant (a relaxed read: a hint unless fenced). */
bool rq_lock_is_locked(const struct rq_lock *l);
#define rq_lock_assert_held(l, cpu) rq_lock_assert_held_at((l), (cpu), __FILE__, __LINE__)
void rq_lock_assert_held_at(const struct rq_lock *l, int cpu, const char *file, int line);

/*
 * lockdep's verdict on the run: 0, or -EDEADLK with the first cycle's
 * report (also printed once on stderr when it was found) in @msg.
 */
int rq_lockdep_result(char *msg, size_t len);

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
	uint32_t nr_queued;
	uint32_t inflight;		/* dispatched, not yet ended */
	uint32_t depth;			/* device queue depth: max inflight */
	uint32_t nr_requests;		/* pool size */
	uint32_t max_bytes;		/* largest merged request */
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

	struct rq_request *pool;	/* nr_requests entries, allocated once */
	void *mode_priv;		/* the mode's own per-queue state (mq, cluster) */
	char name[128];
};

/* What the engine tells a lock mode before any queue exists. */
struct rq_mode_config {
	unsigned int nr_cpus;		/* workers; cpu ids are 0..nr_cpus-1 */
	enum rq_lock_type lock_type;
	unsigned int hw_queues;		/* mq: hardware queues per device, 0 = mode default */
	unsigned int cluster_size;	/* cluster: workers per partition, 0 = 1 */
	bool lockstat;
	bool lockdep;
	unsigned int lockstat_sample;	/* hold time on 1 in N acquisitions, 0 = 64 */
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
	 */
	unsigned int flags;
	int (*setup)(const struct rq_mode_config *cfg);
	void (*teardown)(void);
	int (*queue_init)(struct rq_queue *q);
	void (*queue_exit)(struct rq_queue *q);
	int (*check_idle)(struct rq_queue *q, char *msg, size_t len);
	void (*report)(const struct rq_queue *q, struct rq_mode_queue_report *out);
	/* report_run (optional): the mode's run-wide facts, after the run. */
	void (*report_run)(struct rq_mode_report *out);
	int (*submit_bio)(struct rq_queue *q, struct rq_cpu *cpu, struct rq_bio *bio);
	void (*end_request)(struct rq_queue *q, struct rq_cpu *cpu, struct rq_request *rq, int error);
	void (*run_queue)(struct rq_queue *q, struct rq_cpu *cpu);
	/*
	 * poll (optional): called by every worker once per loop round, no
	 * lock held; does work other workers left for this one (cluster:
	 * forwarded bios).  Returns the number of items handled.  A mode
	 * that leaves work for a worker calls rq_cpu_wake() on it.
	 */
	unsigned int (*poll)(struct rq_cpu *cpu);
	/* pending (optional): has @cpu work waiting in the mode?  No lock held. */
	bool (*pending)(struct rq_cpu *cpu);
};

const struct rq_queue_mode_ops *rq_queue_mode_find(const char *name);
/* "global|per-queue": the names, for help text */
const char *rq_queue_mode_names(void);
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

static inline int rq_submit_bio(struct rq_queue *q, struct rq_cpu *cpu, struct rq_bio *bio)
{
	return q->mode->submit_bio(q, cpu, bio);
}

static inline void rq_end_request(struct rq_request *rq, struct rq_cpu *cpu, int error)
{
	rq->q->mode->end_request(rq->q, cpu, rq, error);
}

static inline void rq_run_queue(struct rq_queue *q, struct rq_cpu *cpu)
{
	q->mode->run_queue(q, cpu);
}

/* The global lock mode's io_request_lock (for reports). */
extern struct rq_lock rq_io_request_lock;

/* Provided by the engine: a bio has ended (any worker may call it). */
void rq_bio_endio(struct rq_cpu *cpu, struct rq_bio *bio, int error);
/* Provided by the engine: the calling worker's id. */
int rq_cpu_id(const struct rq_cpu *cpu);
/* Provided by the engine: wake worker @id if it sleeps (work was left for it). */
void rq_cpu_wake(int id);
/* Provided by the engine: the clock (ns, the same on every worker), read now. */
uint64_t rq_cpu_now(const struct rq_cpu *cpu);

#endif /* RQ_QUEUE_H */
