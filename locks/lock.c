// SPDX-License-Identifier: MIT
/*
 * lock.c - lock primitives behind struct rq_lock, lockstat and lockdep.
 *
 * Primitives (one ops table each, chosen per run with --lock-type):
 *
 * ttas    test-and-test-and-set.  Uncontended: one xchg on the lock's line.
 *         A waiter spins reading the word (a shared copy of the line, no
 *         traffic while the holder keeps it) and retries the xchg when it
 *         reads free; on release every waiter misses and all race for the
 *         line, so a handoff costs O(waiters) line transfers and the winner
 *         is whoever is nearest: unfair, but the lock stays hot where it is.
 * ticket  fetch-and-add on "next", then wait for "serving" to reach the
 *         ticket.  FIFO.  Every waiter spins on the same line: each release
 *         (one store to serving) invalidates all of them, O(waiters) per
 *         handoff, and a preempted waiter next in line stalls all behind it.
 * mcs     Mellor-Crummey/Scott: a waiter appends its own node to a queue
 *         (one xchg on the tail) and spins on its own node's line; release
 *         writes only the successor's line.  FIFO, O(1) traffic per
 *         handoff, the price is an extra line (the node) and, on release
 *         with a waiter that has not linked itself yet, a short wait for it.
 * mutex   a futex word (Drepper, "Futexes Are Tricky", mutex 3): spin a
 *         little, then sleep in the kernel; release wakes one sleeper with
 *         a syscall.  Under contention each handoff costs a futex wake and
 *         a context switch (microseconds), but waiters burn no CPU.
 *
 * Spinners spin SPIN_LIMIT rounds, then call sched_yield(): with more
 * workers than cores the holder (or, for the FIFO locks, the waiter whose
 * turn it is) may be preempted, and spinning through our own time slice
 * would only delay it; yielding lets it run, so no livelock.
 *
 * The fast path of an uncontended acquisition: one atomic RMW, a store of
 * the owner, counter increments, a compare (bounces) and a decrement (the
 * hold-time sampling countdown), all on lines the holder owns, the same
 * with lockstat on or off.  The clock is read only on a contended
 * acquisition and on the sampled 1 in N holds, and only with lockstat on.
 *
 * lockdep (--lockdep only): the held stack is per worker (cpu id), sized
 * at set-up.  Keeping it costs about 2.5 ns a lock/unlock pair (a push and
 * a pop through memory, measured in the same loop), 3% of the null path,
 * which is why lockstat does not keep it and edges are counted only by
 * lockdep runs.  Taking
 * B while A is held adds the class edge A -> B to a graph of up to 64
 * classes (one bit per edge, read without a lock; a new edge is added
 * under a mutex and a depth-first search looks for a path back from B to
 * A).  A cycle, or B of A's own class, is recorded with the sites of both
 * acquisitions of every edge on it, printed once on stderr, and
 * rq_lockdep_result() fails the run.  Taking a lock the worker already
 * holds is a certain deadlock: reported, then abort().
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "lib/clock.h"
#include "locks/locks_internal.h"
#include "results/results.h"

_Static_assert(RQ_LOCK_HIST_NR == RQ_LOCKSTAT_HIST_NR, "lockstat histogram sizes differ");

/* ---- the run's configuration -------------------------------------- */

struct lk_cfg lk_cfg = { .type = RQ_LOCK_TTAS, .hold_sample = HOLD_SAMPLE_DEFAULT };
/* ---- clock ticks for lockstat ------------------------------------- */

struct lk_clk lk_clk;

static void clock_setup(void)
{
	uint64_t best = UINT64_MAX;

	rq_clock_setup();
	for (int i = 0; i < 1000; i++) {
		uint64_t a = ticks(), b = ticks();

		if (b - a < best)
			best = b - a;
	}
	lk_clk.overhead = best == UINT64_MAX ? 0 : best;
	lk_clk.ns0 = rq_clock_mono_ns();
}

/* ---- registries: locks and classes ---------------------------------- */

/* Touched only single-threaded (set-up, report). */
struct rq_lock **lk_registry;
unsigned int lk_nr_registered;
static unsigned int registry_cap;
const struct rq_lock_class *lk_classes[LD_MAX_CLASSES];
unsigned int lk_nr_classes;
static const struct rq_lock_class overflow_class = { .name = "(more classes)" };

static struct ld_cpu *ld_cpus;
static unsigned int ld_nr_cpus;
_Atomic uint64_t lk_ld_edges[LD_MAX_CLASSES];	/* bit b of word a: edge a -> b */
struct ld_edge_info lk_ld_info[LD_MAX_CLASSES][LD_MAX_CLASSES];
pthread_mutex_t lk_ld_mutex = PTHREAD_MUTEX_INITIALIZER;
unsigned int lk_ld_cycles;		/* under ld_mutex */
char lk_ld_msg[1024];		/* the first cycle's report */

/* report storage, owned here until rq_locks_reset() */
struct rq_lockstat_class *lk_rep_classes;
struct rq_lockdep_edge *lk_rep_edges;

void rq_locks_reset(void)
{
	free(lk_registry);
	lk_registry = NULL;
	lk_nr_registered = registry_cap = 0;
	lk_nr_classes = 0;
	free(ld_cpus);
	ld_cpus = NULL;
	ld_nr_cpus = 0;
	for (unsigned int i = 0; i < LD_MAX_CLASSES; i++)
		atomic_store(&lk_ld_edges[i], 0);
	memset(lk_ld_info, 0, sizeof(lk_ld_info));
	lk_ld_cycles = 0;
	lk_ld_msg[0] = 0;
	free(lk_rep_classes);
	lk_rep_classes = NULL;
	free(lk_rep_edges);
	lk_rep_edges = NULL;
	lk_cfg.type = RQ_LOCK_TTAS;
	lk_cfg.lockstat = lk_cfg.lockdep = false;
	lk_cfg.nr_cpus = 0;
	lk_cfg.hold_sample = HOLD_SAMPLE_DEFAULT;
}

int rq_lock_setup(const struct rq_lock_config *c)
{
	const char *env = getenv("RQLOCK_LOCKSTAT_SAMPLE");

	if (lk_lock_ops_check())
		return -EINVAL;
	lk_cfg.type = (unsigned int)c->lock_type < rq_lock_nr_types() ? c->lock_type : RQ_LOCK_TTAS;
	lk_cfg.lockstat = c->lockstat;
	lk_cfg.lockdep = c->lockdep;
	lk_cfg.nr_cpus = c->nr_cpus;
	lk_cfg.hold_sample = c->lockstat_sample ? c->lockstat_sample : HOLD_SAMPLE_DEFAULT;
	if (env && atoi(env) > 0)
		lk_cfg.hold_sample = (unsigned int)atoi(env);	/* experiments: 1 = every hold */
	free(ld_cpus);
	ld_cpus = NULL;
	ld_nr_cpus = 0;
	if (lk_cfg.lockdep && c->nr_cpus) {
		ld_cpus = rq_zalloc_lines(sizeof(*ld_cpus) * c->nr_cpus);
		if (!ld_cpus)
			return -ENOMEM;
		ld_nr_cpus = c->nr_cpus;
	}
	clock_setup();
	return 0;
}

static uint16_t class_id(const struct rq_lock_class *cls)
{
	for (unsigned int i = 0; i < lk_nr_classes; i++)
		if (lk_classes[i] == cls)
			return (uint16_t)i;
	if (lk_nr_classes == LD_MAX_CLASSES - 1) {
		lk_classes[lk_nr_classes] = &overflow_class;
		return (uint16_t)lk_nr_classes;	/* all further classes share the last slot */
	}
	if (lk_nr_classes == LD_MAX_CLASSES)
		return LD_MAX_CLASSES - 1;
	lk_classes[lk_nr_classes] = cls;
	return (uint16_t)lk_nr_classes++;
}

static void lock_register(struct rq_lock *l)
{
	for (unsigned int i = 0; i < lk_nr_registered; i++)
		if (lk_registry[i] == l)
			return;
	if (lk_nr_registered == registry_cap) {
		unsigned int cap = registry_cap ? registry_cap * 2 : 16;
		struct rq_lock **r = realloc(lk_registry, cap * sizeof(*r));

		if (!r)
			return;	/* the lock works; it is only left out of reports */
		lk_registry = r;
		registry_cap = cap;
	}
	lk_registry[lk_nr_registered++] = l;
}

unsigned int rq_locks_count(void)
{
	return lk_nr_registered;
}

unsigned int rq_locks_report(struct rq_lock_report *out, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < lk_nr_registered && n < max; i++, n++) {
		snprintf(out[n].name, sizeof(out[n].name), "%s", lk_registry[i]->name);
		out[n].acquisitions = lk_registry[i]->acquisitions;
		out[n].contentions = lk_registry[i]->contentions;
	}
	return n;
}

static uint32_t rng_next(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/*
 * Acquisitions until the next sampled hold: random, so that a periodic
 * pattern of holds (submit, end, submit, ...) cannot alias with the
 * sampling.  Uniform in 1..2N (a mask when N is a power of two, as the
 * default 64) or 1..2N-1, mean about N.
 */
static uint32_t sample_gap(struct rq_lock *l)
{
	if (lk_cfg.hold_sample <= 1)
		return 1;
	if (!(lk_cfg.hold_sample & (lk_cfg.hold_sample - 1)))
		return 1 + (rng_next(&l->rng) & (2 * lk_cfg.hold_sample - 1));
	return 1 + rng_next(&l->rng) % (2 * lk_cfg.hold_sample - 1);
}

void rq_lock_init(struct rq_lock *l, const struct rq_lock_class *cls, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->type = (uint8_t)lk_cfg.type;
	l->ops = lk_lock_ops[lk_cfg.type];
	l->ops->init(l);
	l->cls = cls;
	l->class_id = class_id(cls);
	l->owner = -1;
	l->last_owner = -1;
	l->flags = (uint8_t)((lk_cfg.lockstat ? RQ_LOCK_F_STAT : 0) | (lk_cfg.lockdep ? RQ_LOCK_F_DEP : 0));
	l->rng = (uint32_t)((uintptr_t)l >> 6) * 2654435761u | 1;
	l->sample_left = lk_cfg.lockstat ? sample_gap(l) : UINT32_MAX;
	snprintf(l->name, sizeof(l->name), "%s", name);
	lock_register(l);
}

static inline void ld_push(struct rq_lock *l, int cpu, const char *site, bool trylock)
{
	struct ld_cpu *c;

	if (__builtin_expect((unsigned int)cpu >= ld_nr_cpus, 0))
		return;		/* a cpu id the run did not declare: not tracked */
	c = &ld_cpus[cpu];
	if (__builtin_expect(c->depth != 0, 0)) {
		if (!trylock)
			lk_ld_check(c, l, site, cpu);
		else if (c->depth == LD_MAX_HELD)
			lk_ld_check(c, NULL, site, cpu);	/* reports the overflow */
	}
	c->held[c->depth].l = l;
	c->held[c->depth].site = site;
	c->depth++;
}

static void __attribute__((noinline)) ld_pop_slow(struct ld_cpu *c, struct rq_lock *l)
{
	for (unsigned int i = c->depth; i-- > 0;) {
		if (c->held[i].l == l) {
			memmove(&c->held[i], &c->held[i + 1], (c->depth - i - 1) * sizeof(c->held[0]));
			c->depth--;
			return;
		}
	}
}

static inline void ld_pop(struct rq_lock *l, int cpu)
{
	struct ld_cpu *c;

	if (__builtin_expect((unsigned int)cpu >= ld_nr_cpus, 0))
		return;
	c = &ld_cpus[cpu];
	if (__builtin_expect(c->depth && c->held[c->depth - 1].l == l, 1))
		c->depth--;
	else
		ld_pop_slow(c, l);
}

/* ---- lock, trylock, unlock -------------------------------------------- */

void rq_lock_sample_start(struct rq_lock *l, uint64_t t1)
{
	if (!(l->flags & RQ_LOCK_F_STAT)) {
		l->sample_left = UINT32_MAX;
		return;
	}
	if (l->gap_armed) {
		/*
		 * The acquisition after a release that left a waiter: the gap,
		 * then the countdown as it would be; a hold sample due now
		 * is still taken, so gaps never thin the hold samples.
		 */
		uint64_t t = t1 ? t1 : ticks();

		if (t >= l->gap_from)
			lk_time_add(&l->gap, t - l->gap_from);
		l->gap_armed = false;
		l->sample_left = l->gap_left - 1;
		if (l->sample_left)
			return;
	}
	l->sample_left = sample_gap(l);
	l->hold_start = t1 ? t1 : ticks();
}

void rq_lock_contended(struct rq_lock *l, int cpu, const char *who, const char *site, uintptr_t token)
{
	const char *h_for, *h_site;
	uint64_t t0, t1;

	if (!(l->flags & RQ_LOCK_F_STAT)) {
		l->ops->lock_slow(l, token);
		rq_lock_acquired(l, cpu, token, true, 0);
		return;
	}
	t0 = ticks();
	h_for = __atomic_load_n(&l->holder_for, __ATOMIC_RELAXED);
	h_site = __atomic_load_n(&l->holder_site, __ATOMIC_RELAXED);
	atomic_fetch_add_explicit(&l->waiters, 1, memory_order_relaxed);
	l->ops->lock_slow(l, token);
	atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
	t1 = ticks();
	/* the release of a sampled hold, and no acquisition since: this wait ended with its handoff */
	if (l->rel_ticks && l->acquisitions == l->rel_acq && t1 >= l->rel_ticks)
		lk_time_add(&l->handoff, t1 - l->rel_ticks);
	l->rel_ticks = 0;
	rq_lock_acquired(l, cpu, token, true, t1);
	rq_lock_holder_set(l, who, site);
	lk_stat_contended(l, site, t0, t1);
	lk_stat_holder(l, who, h_for, h_site, t1 - t0);
}

void rq_lock_dep_at(struct rq_lock *l, int cpu, const char *who, const char *site)
{
	ld_push(l, cpu, site, false);	/* before: a deadlock is reported, not entered */
	rq_lock_nodep(l, cpu, who, site);
}

void rq_lock_dep_trylocked(struct rq_lock *l, int cpu, const char *site)
{
	ld_push(l, cpu, site, true);
}

void rq_unlock_slow(struct rq_lock *l, int cpu)
{
	if (__builtin_expect(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) != cpu, 0)) {
		fprintf(stderr, "rqlock: BUG: cpu %d releases %s held by %d\n", cpu, l->name,
			__atomic_load_n(&l->owner, __ATOMIC_RELAXED));
		abort();
	}
	bool sampled = l->hold_start != 0;

	if (__builtin_expect(sampled, 0)) {
		lk_time_add(&l->hold, ticks() - l->hold_start);
		l->hold_start = 0;
	}
	if (__builtin_expect(l->flags & RQ_LOCK_F_DEP, 0))
		ld_pop(l, cpu);
	__atomic_store_n(&l->owner, -1, __ATOMIC_RELAXED);
	if (__builtin_expect(sampled, 0)) {
		/*
		 * The handoff starts here, after the hold's bookkeeping: read
		 * by the next holder (after the primitive's release store).
		 */
		l->rel_acq = l->acquisitions;
		l->rel_ticks = ticks();
		/*
		 * A waiter is there: whoever takes the lock next records the
		 * gap (rq_lock_sample_start()).  The countdown is 1 past its
		 * decrement unless this release's own sample ends it.
		 */
		l->rel_sampled++;
		if (atomic_load_explicit(&l->waiters, memory_order_relaxed)) {
			l->rel_waited++;
			l->gap_armed = true;
			l->gap_from = l->rel_ticks;
			l->gap_left = l->sample_left;
			l->sample_left = 1;
		}
		/* the release's own cost, after the unlock (the lock is the next holder's then) */
		uint64_t t0 = l->rel_ticks, t;

		l->ops->unlock(l, l->token);
		t = ticks();
		atomic_fetch_add_explicit(&l->rel_cost, t > t0 ? t - t0 : 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&l->rel_cost_n, 1, memory_order_relaxed);
		return;
	}
	l->ops->unlock(l, l->token);
}

bool rq_lock_is_locked(const struct rq_lock *l)
{
	return l->ops->is_locked(l);
}

bool rq_lock_is_held_by(const struct rq_lock *l, int cpu)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == cpu;
}

void rq_lock_assert_held_at(const struct rq_lock *l, int cpu, const char *file, int line)
{
	if (__builtin_expect(cpu < 0 ? !rq_lock_is_locked(l) : !rq_lock_is_held_by(l, cpu), 0)) {
		fprintf(stderr, "rqlock: BUG: %s:%d: cpu %d must hold %s\n", file, line, cpu, l->name);
		abort();
	}
}

_Thread_local int rq_lock_cpu = -1;

void rq_lock_set_cpu(int cpu)
{
	rq_lock_cpu = cpu;
}

