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
 * need a lock assert it with rq_lock_assert_held().
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
	struct iovec iov[RQ_MAX_SEGS];	/* one per bio, filled at dispatch */
};

/*
 * Lock primitives.  One struct for every primitive so that a mode can
 * embed it; the primitive's ops decide how the word is used.
 */
struct rq_lock_class {
	const char *name;		/* "io_request_lock", "queue_lock", ... */
};

struct rq_lock {
	_Atomic uint32_t word;		/* ttas: 0 free, 1 held */
	char pad0[RQ_CACHELINE - sizeof(uint32_t)];
	/* Written only by the holder, so plain counters are exact. */
	uint64_t acquisitions;
	uint64_t contentions;		/* acquisitions that had to wait */
	const struct rq_lock_class *cls;
	char name[48];
	int owner;			/* cpu id of the holder, -1 if free */
} __attribute__((aligned(RQ_CACHELINE)));

enum rq_lock_type { RQ_LOCK_TTAS = 0 };

int rq_lock_type_parse(const char *name, enum rq_lock_type *type);
const char *rq_lock_type_name(enum rq_lock_type type);
/*
 * Every initialised lock is registered (until rq_locks_reset()), so that a
 * report can list them all whatever the mode made.
 */
void rq_lock_init(struct rq_lock *l, const struct rq_lock_class *cls, const char *name);
void rq_locks_reset(void);
struct rq_lock_report;
/* Fill up to @max reports, one per registered lock; returns how many. */
unsigned int rq_locks_report(struct rq_lock_report *out, unsigned int max);
unsigned int rq_locks_count(void);
void rq_lock(struct rq_lock *l, int cpu);
void rq_unlock(struct rq_lock *l, int cpu);
bool rq_lock_is_held_by(const struct rq_lock *l, int cpu);
#define rq_lock_assert_held(l, cpu) rq_lock_assert_held_at((l), (cpu), __FILE__, __LINE__)
void rq_lock_assert_held_at(const struct rq_lock *l, int cpu, const char *file, int line);

/*
 * A request queue: one per device.
 */
struct rq_queue {
	const struct rq_queue_mode_ops *mode;
	struct rq_dev *dev;
	/*
	 * The lock that protects everything below marked "lock": the shared
	 * io_request_lock in global mode, &own_lock in per-queue mode.
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
	uint64_t nr_alloc;		/* requests allocated */
	uint64_t nr_bios;
	uint64_t merges_front, merges_back;
	uint64_t nr_dispatched, nr_completed;

	struct rq_request *pool;	/* nr_requests entries, allocated once */
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
 *  - run_queue (required): dispatch what is queued; no lock held.
 */
struct rq_queue_mode_ops {
	const char *name;
	const char *help;
	int (*setup)(const struct rq_mode_config *cfg);
	void (*teardown)(void);
	int (*queue_init)(struct rq_queue *q);
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
/* Provided by the engine: the worker's clock, read at least once a round (ns). */
uint64_t rq_cpu_now(const struct rq_cpu *cpu);

#endif /* RQ_QUEUE_H */
