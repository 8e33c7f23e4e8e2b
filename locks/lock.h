/* SPDX-License-Identifier: MIT */
/*
 * lock.h - the lock layer's one interface header: struct rq_lock, its
 * primitives, lockstat and lockdep.  Used by queues/ (and the device
 * models); depends on lib/ only.
 */
#ifndef RQ_LOCK_H
#define RQ_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

/*
 * Lock primitives (locks/primitives.c; the layer: locks/lock.c).  One
 * struct for every primitive so that a mode can embed it; the primitive's ops (struct rq_lock_ops) decide how the
 * word at the head of the struct is used:
 *
 *   ttas    test-and-test-and-set on one word
 *   ticket  a "next" and a "serving" counter: FIFO
 *   mcs     a tail pointer to a queue of per-waiter nodes: FIFO
 *   mutex   a futex word: 0 free, 1 held, 2 held with sleepers
 *
 * Spinners spin then yield (sched_yield); the mutex sleeps in the kernel.
 * What each costs under contention is written in locks/lock.c.
 *
 * lockstat (rq_mode_config.lockstat): per lock, acquisitions and
 * contentions always; with lockstat on also bounces (the lock taken by
 * another worker than the previous holder), the wait time of every
 * contended acquisition, the hold time of a random 1 in N acquisitions
 * (N = rq_mode_config.lockstat_sample, default 64) and the contention
 * sites (file:line), and the handoff: on a contended acquisition that
 * directly follows a sampled hold, the time from that hold's release to
 * the waiter having the lock (the line's move to the waiter's CPU and the
 * primitive's wake-up; what a lock every request takes adds to each hold
 * when it is saturated); and the gap: after a sampled release that left a
 * waiter behind, the time to the next acquisition by anyone (a releaser
 * that takes its lock again while a mutex waiter is still waking leaves
 * the lock idle for a time no handoff sample sees).  Everything is
 * written by the holder only (but the waiter count, which the contended
 * path keeps on line 0), so plain counters are exact; the report folds
 * them per lock class.
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

/*
 * A primitive: one file of locks/ and one line in primitives.c's registry.
 * Every hook is required (checked by rq_lock_setup()).
 */
struct rq_lock_ops {
	const char *name;
	/* Make the word(s) at the head of @l free (rq_lock_init). */
	void (*init)(struct rq_lock *l);
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

/* A primitive: its index in the registry (locks/primitives.c); the built-in ones are named here. */
enum rq_lock_type { RQ_LOCK_TTAS = 0, RQ_LOCK_TICKET, RQ_LOCK_MCS, RQ_LOCK_MUTEX };

/*
 * lockstat histograms: log-linear in clock ticks (TSC cycles, or ns where
 * the TSC is not trusted), as fio's: values below 2^(BITS+1) have their
 * own bucket, every power of two above is split in 2^BITS buckets (width
 * at most 12.5% of the value).  368 buckets cover up to 2^48 ticks.
 */
#define RQ_LOCK_HIST_BITS 3
#define RQ_LOCK_HIST_NR 368
#define RQ_LOCK_SITES 8			/* contention sites kept per lock */
#define RQ_LOCK_HOLDERS 8		/* (waiter, holder, holder site) triples kept per lock */

struct rq_lock_time {
	uint64_t n, min, max, total;	/* ticks */
	uint64_t hist[RQ_LOCK_HIST_NR];
};

struct rq_lock_site_count {
	const char *site;		/* "file:line", a string literal */
	uint64_t n;
};

/*
 * lockstat: who held the lock when a contended wait began.  waiter and
 * holder are what the acquirers said they act for (rq_lock_for: a queue's
 * name), NULL when they said nothing; holder_site is where the holder
 * took it.
 */
struct rq_lock_holder_count {
	const char *waiter, *holder, *holder_site;
	uint64_t n;
	uint64_t wait;			/* ticks */
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
	/*
	 * lockstat: acquirers in the contended path now (rq_lock_contended(),
	 * with lockstat on only): a sampled release reads it to know whether
	 * it left a waiter behind.  On line 0, which waiters write anyway.
	 */
	_Atomic uint32_t waiters;
	uint32_t rsvd0;
	/*
	 * lockstat: the time a sampled release spent in the primitive's
	 * unlock (a futex wake for a mutex with sleepers), summed, and the
	 * samples: added after the release, by a thread that no longer
	 * holds the lock, so atomics, on the line that moves anyway.
	 */
	_Atomic uint64_t rel_cost, rel_cost_n;
	char pad0[RQ_CACHELINE - 4 * sizeof(uint32_t) - 2 * sizeof(uint64_t)];
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
	uint64_t rel_ticks;		/* lockstat: ticks when the last sampled hold ended, 0 none */
	uint64_t rel_acq;		/* lockstat: acquisitions then (the handoff is of the next one only) */
	/*
	 * lockstat, the gap: a sampled release that left a waiter behind
	 * arms it (gap_armed, the countdown saved in gap_left and set to 1),
	 * so that the next acquisition, fast or contended, whoever makes it,
	 * takes the rare path and records release -> acquisition in gap.
	 * rel_sampled / rel_waited: sampled releases, and those with a waiter.
	 */
	bool gap_armed;
	uint32_t gap_left;
	uint64_t gap_from;		/* ticks of that release (rel_ticks is the handoff's) */
	uint64_t rel_sampled, rel_waited;
	uint32_t rng;			/* lockstat: sampling gaps (xorshift32) */
	const struct rq_lock_class *cls;
	char name[48];
	/* lockstat: contended acquisitions' wait, sampled holds, handoffs and gaps after them, sites */
	struct rq_lock_time wait, hold, handoff, gap;
	struct rq_lock_site_count sites[RQ_LOCK_SITES];
	uint64_t sites_other;		/* contentions at sites beyond RQ_LOCK_SITES */
	/*
	 * lockstat: the current holder's "for" and site, stored at each
	 * acquisition with lockstat on (relaxed atomics: a waiter reads them
	 * when its wait begins, only on contention); never cleared, so a
	 * waiter that arrives between an acquisition and these stores sees
	 * the previous holder's.
	 */
	const char *holder_for, *holder_site;
	struct rq_lock_holder_count holders[RQ_LOCK_HOLDERS];
	uint64_t holders_other;		/* contentions beyond RQ_LOCK_HOLDERS triples */
} __attribute__((aligned(RQ_CACHELINE)));

/*
 * lockstat so far, per lock class, readable while workers run (the lock
 * logs): sums of the wait samples (every contended acquisition) and the
 * hold samples (1 in hold_sample acquisitions), in ns.  Fills at most
 * @max; returns the number filled, 0 without lockstat.  The class names
 * live as long as the classes (rq_locks_reset()).
 */
struct rq_lockstat_sample {
	const char *name;
	uint64_t wait_n, wait_ns;
	uint64_t hold_n, hold_ns;
};
unsigned int rq_lockstat_sample(struct rq_lockstat_sample *out, unsigned int max);

int rq_lock_type_parse(const char *name, enum rq_lock_type *type);
const char *rq_lock_type_name(enum rq_lock_type type);
/* "ttas|ticket|mcs|mutex": the registry's names, for help text */
const char *rq_lock_type_names(void);
/* primitives in the registry (locks/primitives.c); types are 0..n-1 */
unsigned int rq_lock_nr_types(void);

/* The lock layer's configuration for a run. */
struct rq_lock_config {
	unsigned int nr_cpus;		/* workers; cpu ids are 0..nr_cpus-1 */
	enum rq_lock_type lock_type;	/* the primitive every lock uses */
	bool lockstat;
	bool lockdep;
	unsigned int lockstat_sample;	/* hold time on 1 in N acquisitions, 0 = 64 */
};

/*
 * Configure the lock layer for a run.  Every mode's setup calls it first
 * (through rq_mode_config); locks initialised afterwards use it.
 * Single-threaded.  Returns 0 or -ENOMEM.
 */
int rq_lock_setup(const struct rq_lock_config *cfg);
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

/*
 * rq_lock_for: take @l on behalf of @who (a string that outlives the run,
 * e.g. a queue's name), so that lockstat can say whose holds made whom
 * wait.  With lockstat off it is rq_lock.
 */
static inline void rq_lock_for_at(struct rq_lock *l, int cpu, const char *who, const char *site);
#define rq_lock_for(l, cpu, who) rq_lock_for_at((l), (cpu), (who), RQ_LOCK_SITE)
static inline bool rq_trylock_at(struct rq_lock *l, int cpu, const char *site);
#define rq_lock(l, cpu) rq_lock_for_at((l), (cpu), NULL, RQ_LOCK_SITE)
#define rq_trylock(l, cpu) rq_trylock_at((l), (cpu), RQ_LOCK_SITE)
static inline void rq_unlock(struct rq_lock *l, int cpu);
bool rq_lock_is_held_by(const struct rq_lock *l, int cpu);
/* Held by anyone at this instant (a relaxed read: a hint unless fenced). */
bool rq_lock_is_locked(const struct rq_lock *l);
/* @cpu < 0 (no current worker): asserts that somebody holds @l */
void rq_lock_assert_held_at(const struct rq_lock *l, int cpu, const char *file, int line);
/* The holder's case inline, one load and a compare; the rest out of line. */
static inline void rq_lock_assert_held_inline(const struct rq_lock *l, int cpu, const char *file, int line)
{
	if (__builtin_expect(cpu < 0 || __atomic_load_n(&l->owner, __ATOMIC_RELAXED) != cpu, 0))
		rq_lock_assert_held_at(l, cpu, file, line);
}
#define rq_lock_assert_held(l, cpu) rq_lock_assert_held_inline((l), (cpu), __FILE__, __LINE__)

/*
 * The calling thread's cpu id, -1 outside a worker: set by the block
 * layer's rq_ctx_set_current(), read by rq_lockdep_assert_held() where no
 * cpu is at hand (the pool and elevator helpers), as the kernel's
 * lockdep_assert_held() reads `current`.  One thread-local load and a
 * compare: on in Debug and sanitizer builds (RQ_LOCK_ASSERT), compiled
 * out otherwise.
 */
extern _Thread_local int rq_lock_cpu;
void rq_lock_set_cpu(int cpu);
#ifdef RQ_LOCK_ASSERT
#define rq_lockdep_assert_held(l) rq_lock_assert_held_inline((l), rq_lock_cpu, __FILE__, __LINE__)
#else
#define rq_lockdep_assert_held(l) ((void)(l))
#endif

/*
 * lockdep's verdict on the run: 0, or -EDEADLK with the first cycle's
 * report (also printed once on stderr when it was found) in @msg.
 */
int rq_lockdep_result(char *msg, size_t len);

struct rq_run_report;
/* Fill r->lockstat and r->lockdep.  0 or -ENOMEM. */
int rq_locks_fill_report(struct rq_run_report *r);

/*
 * ---- the fast paths, inline ------------------------------------------
 *
 * An uncontended acquisition and a plain release are inline at the call
 * site, as the kernel's spin_lock() is with CONFIG_INLINE_SPIN_LOCK; lockdep,
 * the contended wait and a sampled hold's ends go out of line (lock.c).
 */
/* lockdep on: check the order and note the lock held, then take it */
void rq_lock_dep_at(struct rq_lock *l, int cpu, const char *who, const char *site);
void rq_lock_contended(struct rq_lock *l, int cpu, const char *who, const char *site, uintptr_t token);
/* The sampling countdown reached 0: start a sampled hold, or (lockstat off) wind it back. */
void rq_lock_sample_start(struct rq_lock *l, uint64_t t1);
void rq_unlock_slow(struct rq_lock *l, int cpu);
/* lockdep: a trylock that succeeded is held (no order check: it cannot deadlock) */
void rq_lock_dep_trylocked(struct rq_lock *l, int cpu, const char *site);

/*
 * Taken: the holder's bookkeeping.  The same instructions run with
 * lockstat on and off (off, the countdown starts at 2^32 - 1 and the rare
 * path only winds it back): lockstat's cost is then only its sampled holds
 * and contended waits, not a second copy of the hot path that the code
 * layout can make faster or slower than the first (measured: +-8% on the
 * null path, either way, from layout alone).
 */
static inline void rq_lock_acquired(struct rq_lock *l, int cpu, uintptr_t token, bool contended, uint64_t t1)
{
	l->token = token;
	__atomic_store_n(&l->owner, cpu, __ATOMIC_RELAXED);
	l->acquisitions++;
	l->contentions += contended;
	if (l->last_owner != cpu) {
		l->acq_bounces++;
		l->con_bounces += contended;
		l->last_owner = cpu;
	}
	if (__builtin_expect(--l->sample_left == 0, 0))
		rq_lock_sample_start(l, t1);
}

/* lockstat on: remember who holds it now, for the next waiter */
static inline void rq_lock_holder_set(struct rq_lock *l, const char *who, const char *site)
{
	__atomic_store_n(&l->holder_for, who, __ATOMIC_RELAXED);
	__atomic_store_n(&l->holder_site, site, __ATOMIC_RELAXED);
}

/* The acquisition past lockdep's check: the fast try, else the wait. */
static inline void rq_lock_nodep(struct rq_lock *l, int cpu, const char *who, const char *site)
{
	uintptr_t token;

	if (__builtin_expect(!l->ops->lock_fast(l, &token), 0)) {
		rq_lock_contended(l, cpu, who, site, token);
		return;
	}
	rq_lock_acquired(l, cpu, token, false, 0);
	if (__builtin_expect(l->flags & RQ_LOCK_F_STAT, 0))
		rq_lock_holder_set(l, who, site);
}

static inline void rq_lock_for_at(struct rq_lock *l, int cpu, const char *who, const char *site)
{
	if (__builtin_expect(l->flags & RQ_LOCK_F_DEP, 0))
		rq_lock_dep_at(l, cpu, who, site);
	else
		rq_lock_nodep(l, cpu, who, site);
}

static inline bool rq_trylock_at(struct rq_lock *l, int cpu, const char *site)
{
	uintptr_t token;

	if (!l->ops->trylock(l, &token))
		return false;
	rq_lock_acquired(l, cpu, token, false, 0);
	if (__builtin_expect(l->flags & RQ_LOCK_F_STAT, 0))
		rq_lock_holder_set(l, NULL, site);
	if (__builtin_expect(l->flags & RQ_LOCK_F_DEP, 0))
		rq_lock_dep_trylocked(l, cpu, site);
	return true;
}

static inline void rq_unlock(struct rq_lock *l, int cpu)
{
	if (__builtin_expect(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) != cpu || l->hold_start != 0 ||
			     (l->flags & RQ_LOCK_F_DEP), 0)) {
		rq_unlock_slow(l, cpu);
		return;
	}
	__atomic_store_n(&l->owner, -1, __ATOMIC_RELAXED);
	l->ops->unlock(l, l->token);
}

#endif /* RQ_LOCK_H */
