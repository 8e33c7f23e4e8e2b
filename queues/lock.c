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
#include "queues/queue_internal.h"
#include "results/results.h"


#define SPIN_LIMIT 128
#define MCS_NODES 8			/* mcs locks one worker may hold at once */
#define LD_MAX_CLASSES 64		/* lock classes (one bit each in an edge word) */
#define LD_MAX_HELD 16			/* locks one worker may hold at once (lockdep) */
#define HOLD_SAMPLE_DEFAULT 64

_Static_assert(RQ_LOCK_HIST_NR == RQ_LOCKSTAT_HIST_NR, "lockstat histogram sizes differ");

struct rq_lock rq_io_request_lock;

/* Spin then yield: call once per failed look at the lock. */
static inline void spin_wait(unsigned int *spins)
{
	if (++*spins >= SPIN_LIMIT) {
		*spins = 0;
		sched_yield();
	} else {
		cpu_relax();
	}
}

/* ---- the run's configuration -------------------------------------- */

static struct {
	enum rq_lock_type type;
	bool lockstat, lockdep;
	unsigned int nr_cpus;
	unsigned int hold_sample;
} cfg = { .type = RQ_LOCK_TTAS, .hold_sample = HOLD_SAMPLE_DEFAULT };

/* ---- clock ticks for lockstat ------------------------------------- */

/*
 * lockstat reads lib/clock's raw counter (the TSC where the kernel trusts
 * it, else CLOCK_MONOTONIC) and converts ticks to ns only for the report,
 * with the clock's calibrated rate.  A sample is the difference of two
 * reads minus the cost of one read back to back (measured at set-up); the
 * TSC read is not serialising, so a single sample is good to about one
 * read (~10 ns) either way; averages are better.
 */
static struct {
	uint64_t ns0;			/* ns at set-up */
	uint64_t overhead;		/* ticks of one read, back to back */
} clk;

static inline uint64_t ticks(void)
{
	return rq_clock_ticks();
}

static void clock_setup(void)
{
	uint64_t best = UINT64_MAX;

	rq_clock_setup();
	for (int i = 0; i < 1000; i++) {
		uint64_t a = ticks(), b = ticks();

		if (b - a < best)
			best = b - a;
	}
	clk.overhead = best == UINT64_MAX ? 0 : best;
	clk.ns0 = rq_clock_mono_ns();
}

/* ns per tick, and the ns since set-up */
static double clock_rate(uint64_t *elapsed_ns)
{
	*elapsed_ns = rq_clock_mono_ns() - clk.ns0;
	return rq_clock_ns_per_tick();
}

/* ---- primitives ----------------------------------------------------- */

/* ttas */
static bool ttas_fast(struct rq_lock *l, uintptr_t *token)
{
	*token = 0;
	return !atomic_exchange_explicit(&l->word, 1, memory_order_acquire);
}

static void ttas_slow(struct rq_lock *l, uintptr_t token)
{
	unsigned int spins = 0;

	(void)token;
	for (;;) {
		while (atomic_load_explicit(&l->word, memory_order_relaxed))
			spin_wait(&spins);
		if (!atomic_exchange_explicit(&l->word, 1, memory_order_acquire))
			return;
	}
}

static bool ttas_try(struct rq_lock *l, uintptr_t *token)
{
	*token = 0;
	return !atomic_load_explicit(&l->word, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->word, 1, memory_order_acquire);
}

static void ttas_unlock(struct rq_lock *l, uintptr_t token)
{
	(void)token;
	atomic_store_explicit(&l->word, 0, memory_order_release);
}

/* ticket */
static bool ticket_fast(struct rq_lock *l, uintptr_t *token)
{
	uint32_t t = atomic_fetch_add_explicit(&l->ticket.next, 1, memory_order_relaxed);

	*token = t;
	return atomic_load_explicit(&l->ticket.serving, memory_order_acquire) == t;
}

static void ticket_slow(struct rq_lock *l, uintptr_t token)
{
	uint32_t t = (uint32_t)token;
	unsigned int spins = 0;

	while (atomic_load_explicit(&l->ticket.serving, memory_order_acquire) != t)
		spin_wait(&spins);
}

static bool ticket_try(struct rq_lock *l, uintptr_t *token)
{
	uint32_t s = atomic_load_explicit(&l->ticket.serving, memory_order_acquire);
	uint32_t n = s;

	*token = s;
	return atomic_compare_exchange_strong_explicit(&l->ticket.next, &n, s + 1,
						       memory_order_acquire, memory_order_relaxed);
}

static void ticket_unlock(struct rq_lock *l, uintptr_t token)
{
	atomic_store_explicit(&l->ticket.serving, (uint32_t)token + 1, memory_order_release);
}

/*
 * mcs.  A worker's nodes live in thread-local storage, a small set handed
 * out by a bitmap (locks may be released in any order).
 */
struct rq_mcs_node {
	_Atomic(struct rq_mcs_node *) next;
	_Atomic uint32_t locked;
	struct rq_mcs_node *prev;	/* between lock_fast and lock_slow only */
} __attribute__((aligned(RQ_CACHELINE)));

static _Thread_local struct rq_mcs_node mcs_nodes[MCS_NODES];
static _Thread_local unsigned int mcs_used;

static struct rq_mcs_node *mcs_node_get(void)
{
	unsigned int free_bits = ~mcs_used & ((1u << MCS_NODES) - 1);
	unsigned int i;

	if (__builtin_expect(!free_bits, 0)) {
		fprintf(stderr, "rqlock: BUG: a worker holds more than %d mcs locks\n", MCS_NODES);
		abort();
	}
	i = (unsigned int)__builtin_ctz(free_bits);
	mcs_used |= 1u << i;
	return &mcs_nodes[i];
}

static void mcs_node_put(struct rq_mcs_node *n)
{
	mcs_used &= ~(1u << (unsigned int)(n - mcs_nodes));
}

static bool mcs_fast(struct rq_lock *l, uintptr_t *token)
{
	struct rq_mcs_node *n = mcs_node_get(), *prev;

	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&n->locked, 0, memory_order_relaxed);
	prev = atomic_exchange_explicit(&l->tail, n, memory_order_acq_rel);
	n->prev = prev;
	*token = (uintptr_t)n;
	return !prev;
}

static void mcs_slow(struct rq_lock *l, uintptr_t token)
{
	struct rq_mcs_node *n = (struct rq_mcs_node *)token;
	unsigned int spins = 0;

	(void)l;
	atomic_store_explicit(&n->prev->next, n, memory_order_release);
	while (!atomic_load_explicit(&n->locked, memory_order_acquire))
		spin_wait(&spins);
}

static bool mcs_try(struct rq_lock *l, uintptr_t *token)
{
	struct rq_mcs_node *n = mcs_node_get(), *expect = NULL;

	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&n->locked, 0, memory_order_relaxed);
	if (atomic_compare_exchange_strong_explicit(&l->tail, &expect, n, memory_order_acq_rel,
						    memory_order_relaxed)) {
		*token = (uintptr_t)n;
		return true;
	}
	mcs_node_put(n);
	return false;
}

static void mcs_unlock(struct rq_lock *l, uintptr_t token)
{
	struct rq_mcs_node *n = (struct rq_mcs_node *)token;
	struct rq_mcs_node *next = atomic_load_explicit(&n->next, memory_order_acquire);

	if (!next) {
		struct rq_mcs_node *expect = n;
		unsigned int spins = 0;

		if (atomic_compare_exchange_strong_explicit(&l->tail, &expect, NULL, memory_order_release,
							    memory_order_relaxed)) {
			mcs_node_put(n);
			return;
		}
		/* a waiter swapped itself in but has not linked yet */
		while (!(next = atomic_load_explicit(&n->next, memory_order_acquire)))
			spin_wait(&spins);
	}
	atomic_store_explicit(&next->locked, 1, memory_order_release);
	mcs_node_put(n);
}

/* mutex */
static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static bool mutex_fast(struct rq_lock *l, uintptr_t *token)
{
	uint32_t expect = 0;

	*token = 0;
	return atomic_compare_exchange_strong_explicit(&l->word, &expect, 1, memory_order_acquire,
						       memory_order_relaxed);
}

static void mutex_slow(struct rq_lock *l, uintptr_t token)
{
	uint32_t c;

	(void)token;
	/* a short spin first: a holder on another core usually lets go soon */
	for (unsigned int i = 0; i < SPIN_LIMIT; i++) {
		uint32_t expect = 0;

		if (!atomic_load_explicit(&l->word, memory_order_relaxed) &&
		    atomic_compare_exchange_weak_explicit(&l->word, &expect, 1, memory_order_acquire,
							  memory_order_relaxed))
			return;
		cpu_relax();
	}
	c = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	while (c) {
		futex_wait(&l->word, 2);
		c = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	}
}

static void mutex_unlock(struct rq_lock *l, uintptr_t token)
{
	(void)token;
	if (atomic_fetch_sub_explicit(&l->word, 1, memory_order_release) != 1) {
		atomic_store_explicit(&l->word, 0, memory_order_release);
		futex_wake(&l->word);
	}
}

static bool word_locked(const struct rq_lock *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) != 0;
}

static bool ticket_locked(const struct rq_lock *l)
{
	return atomic_load_explicit(&l->ticket.next, memory_order_relaxed) !=
	       atomic_load_explicit(&l->ticket.serving, memory_order_relaxed);
}

static bool mcs_locked(const struct rq_lock *l)
{
	return atomic_load_explicit(&l->tail, memory_order_relaxed) != NULL;
}

static const struct rq_lock_ops lock_ops[RQ_LOCK_NR_TYPES] = {
	[RQ_LOCK_TTAS] = { "ttas", ttas_fast, ttas_slow, ttas_try, ttas_unlock, word_locked },
	[RQ_LOCK_TICKET] = { "ticket", ticket_fast, ticket_slow, ticket_try, ticket_unlock, ticket_locked },
	[RQ_LOCK_MCS] = { "mcs", mcs_fast, mcs_slow, mcs_try, mcs_unlock, mcs_locked },
	[RQ_LOCK_MUTEX] = { "mutex", mutex_fast, mutex_slow, mutex_fast, mutex_unlock, word_locked },
};

int rq_lock_type_parse(const char *name, enum rq_lock_type *type)
{
	for (int i = 0; i < RQ_LOCK_NR_TYPES; i++) {
		if (!strcmp(name, lock_ops[i].name)) {
			*type = (enum rq_lock_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rq_lock_type_name(enum rq_lock_type type)
{
	return (unsigned int)type < RQ_LOCK_NR_TYPES ? lock_ops[type].name : "?";
}

const char *rq_lock_type_names(void)
{
	return "ttas|ticket|mcs|mutex";
}

/* ---- registries: locks and classes ---------------------------------- */

/* Touched only single-threaded (set-up, report). */
static struct rq_lock **registry;
static unsigned int nr_registered, registry_cap;
static const struct rq_lock_class *classes[LD_MAX_CLASSES];
static unsigned int nr_classes;
static const struct rq_lock_class overflow_class = { .name = "(more classes)" };

/* lockdep state, reset with the registries */
struct ld_held {
	struct rq_lock *l;
	const char *site;
};

struct ld_cpu {
	unsigned int depth;
	struct ld_held held[LD_MAX_HELD];
} __attribute__((aligned(RQ_CACHELINE)));

struct ld_edge_info {
	const char *from_site, *to_site;
	const char *from_lock, *to_lock;	/* lock names (registered locks outlive the run) */
	int cpu;
};

static struct ld_cpu *ld_cpus;
static unsigned int ld_nr_cpus;
static _Atomic uint64_t ld_edges[LD_MAX_CLASSES];	/* bit b of word a: edge a -> b */
static struct ld_edge_info ld_info[LD_MAX_CLASSES][LD_MAX_CLASSES];
static pthread_mutex_t ld_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned int ld_cycles;		/* under ld_mutex */
static char ld_msg[1024];		/* the first cycle's report */

/* report storage, owned here until rq_locks_reset() */
static struct rq_lockstat_class *rep_classes;
static struct rq_lockdep_edge *rep_edges;

void rq_locks_reset(void)
{
	free(registry);
	registry = NULL;
	nr_registered = registry_cap = 0;
	nr_classes = 0;
	free(ld_cpus);
	ld_cpus = NULL;
	ld_nr_cpus = 0;
	for (unsigned int i = 0; i < LD_MAX_CLASSES; i++)
		atomic_store(&ld_edges[i], 0);
	memset(ld_info, 0, sizeof(ld_info));
	ld_cycles = 0;
	ld_msg[0] = 0;
	free(rep_classes);
	rep_classes = NULL;
	free(rep_edges);
	rep_edges = NULL;
	cfg.type = RQ_LOCK_TTAS;
	cfg.lockstat = cfg.lockdep = false;
	cfg.nr_cpus = 0;
	cfg.hold_sample = HOLD_SAMPLE_DEFAULT;
}

int rq_lock_setup(const struct rq_mode_config *c)
{
	const char *env = getenv("RQLOCK_LOCKSTAT_SAMPLE");

	cfg.type = (unsigned int)c->lock_type < RQ_LOCK_NR_TYPES ? c->lock_type : RQ_LOCK_TTAS;
	cfg.lockstat = c->lockstat;
	cfg.lockdep = c->lockdep;
	cfg.nr_cpus = c->nr_cpus;
	cfg.hold_sample = c->lockstat_sample ? c->lockstat_sample : HOLD_SAMPLE_DEFAULT;
	if (env && atoi(env) > 0)
		cfg.hold_sample = (unsigned int)atoi(env);	/* experiments: 1 = every hold */
	free(ld_cpus);
	ld_cpus = NULL;
	ld_nr_cpus = 0;
	if (cfg.lockdep && c->nr_cpus) {
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
	for (unsigned int i = 0; i < nr_classes; i++)
		if (classes[i] == cls)
			return (uint16_t)i;
	if (nr_classes == LD_MAX_CLASSES - 1) {
		classes[nr_classes] = &overflow_class;
		return (uint16_t)nr_classes;	/* all further classes share the last slot */
	}
	if (nr_classes == LD_MAX_CLASSES)
		return LD_MAX_CLASSES - 1;
	classes[nr_classes] = cls;
	return (uint16_t)nr_classes++;
}

static void lock_register(struct rq_lock *l)
{
	for (unsigned int i = 0; i < nr_registered; i++)
		if (registry[i] == l)
			return;
	if (nr_registered == registry_cap) {
		unsigned int cap = registry_cap ? registry_cap * 2 : 16;
		struct rq_lock **r = realloc(registry, cap * sizeof(*r));

		if (!r)
			return;	/* the lock works; it is only left out of reports */
		registry = r;
		registry_cap = cap;
	}
	registry[nr_registered++] = l;
}

unsigned int rq_locks_count(void)
{
	return nr_registered;
}

unsigned int rq_locks_report(struct rq_lock_report *out, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < nr_registered && n < max; i++, n++) {
		snprintf(out[n].name, sizeof(out[n].name), "%s", registry[i]->name);
		out[n].acquisitions = registry[i]->acquisitions;
		out[n].contentions = registry[i]->contentions;
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
	if (cfg.hold_sample <= 1)
		return 1;
	if (!(cfg.hold_sample & (cfg.hold_sample - 1)))
		return 1 + (rng_next(&l->rng) & (2 * cfg.hold_sample - 1));
	return 1 + rng_next(&l->rng) % (2 * cfg.hold_sample - 1);
}

void rq_lock_init(struct rq_lock *l, const struct rq_lock_class *cls, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->type = (uint8_t)cfg.type;
	l->ops = &lock_ops[cfg.type];
	switch (cfg.type) {
	case RQ_LOCK_TICKET:
		atomic_init(&l->ticket.next, 0);
		atomic_init(&l->ticket.serving, 0);
		break;
	case RQ_LOCK_MCS:
		atomic_init(&l->tail, NULL);
		break;
	default:
		atomic_init(&l->word, 0);
		break;
	}
	l->cls = cls;
	l->class_id = class_id(cls);
	l->owner = -1;
	l->last_owner = -1;
	l->flags = (uint8_t)((cfg.lockstat ? RQ_LOCK_F_STAT : 0) | (cfg.lockdep ? RQ_LOCK_F_DEP : 0));
	l->rng = (uint32_t)((uintptr_t)l >> 6) * 2654435761u | 1;
	l->sample_left = cfg.lockstat ? sample_gap(l) : UINT32_MAX;
	snprintf(l->name, sizeof(l->name), "%s", name);
	lock_register(l);
}

/* ---- lockstat -------------------------------------------------------- */

static inline unsigned int hist_idx(uint64_t v)
{
	unsigned int msb, eb, idx;

	if (v < (1u << (RQ_LOCK_HIST_BITS + 1)))
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	eb = msb - RQ_LOCK_HIST_BITS;
	idx = ((eb + 1) << RQ_LOCK_HIST_BITS) + (unsigned int)((v >> eb) & ((1u << RQ_LOCK_HIST_BITS) - 1));
	return idx < RQ_LOCK_HIST_NR ? idx : RQ_LOCK_HIST_NR - 1;
}

static uint64_t hist_lo(unsigned int idx)
{
	unsigned int eb;

	if (idx < (1u << (RQ_LOCK_HIST_BITS + 1)))
		return idx;
	eb = (idx >> RQ_LOCK_HIST_BITS) - 1;
	return ((uint64_t)(1u << RQ_LOCK_HIST_BITS) + (idx & ((1u << RQ_LOCK_HIST_BITS) - 1))) << eb;
}

static void time_add(struct rq_lock_time *t, uint64_t v)
{
	v = v > clk.overhead ? v - clk.overhead : 0;
	if (!t->n || v < t->min)
		t->min = v;
	if (v > t->max)
		t->max = v;
	t->n++;
	t->total += v;
	t->hist[hist_idx(v)]++;
}

static void __attribute__((noinline)) site_add(struct rq_lock *l, const char *site)
{
	for (unsigned int i = 0; i < RQ_LOCK_SITES; i++) {
		if (l->sites[i].site == site) {
			l->sites[i].n++;
			return;
		}
		if (!l->sites[i].site) {
			l->sites[i].site = site;
			l->sites[i].n = 1;
			return;
		}
	}
	l->sites_other++;
}

static void __attribute__((noinline)) stat_contended(struct rq_lock *l, const char *site,
						     uint64_t t0, uint64_t t1)
{
	time_add(&l->wait, t1 - t0);
	site_add(l, site);
}

/* ---- lockdep --------------------------------------------------------- */

static const char *site_trim(const char *site);

static int ld_path(unsigned int from, unsigned int to, unsigned int *path, unsigned int depth,
		   uint64_t *seen)
{
	uint64_t next;

	if (from == to) {
		path[depth] = to;
		return (int)depth + 1;
	}
	if (depth >= LD_MAX_CLASSES - 1 || (*seen >> from & 1))
		return 0;
	*seen |= 1ULL << from;
	path[depth] = from;
	next = atomic_load_explicit(&ld_edges[from], memory_order_relaxed);
	while (next) {
		unsigned int b = (unsigned int)__builtin_ctzll(next);
		int n;

		next &= next - 1;
		if ((n = ld_path(b, to, path, depth + 1, seen)))
			return n;
	}
	return 0;
}

static void ld_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Append to the first cycle's report (ld_mutex held). */
static void ld_report(const char *fmt, ...)
{
	size_t n = strlen(ld_msg);
	va_list ap;

	if (n >= sizeof(ld_msg) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(ld_msg + n, sizeof(ld_msg) - n, fmt, ap);
	va_end(ap);
}

static void __attribute__((noinline)) ld_add_edge(const struct ld_held *h, struct rq_lock *l,
						  const char *site, int cpu)
{
	unsigned int a = h->l->class_id, b = l->class_id;
	unsigned int path[LD_MAX_CLASSES];
	uint64_t seen = 0;
	int n;

	pthread_mutex_lock(&ld_mutex);
	if (atomic_load_explicit(&ld_edges[a], memory_order_relaxed) >> b & 1) {
		pthread_mutex_unlock(&ld_mutex);
		return;
	}
	ld_info[a][b] = (struct ld_edge_info){ h->site, site, h->l->name, l->name, cpu };
	n = a == b ? 1 : ld_path(b, a, path, 0, &seen);
	atomic_fetch_or_explicit(&ld_edges[a], 1ULL << b, memory_order_relaxed);
	if (n && !ld_cycles++) {
		if (a == b) {
			ld_report("rqlock: lockdep: possible recursive locking: worker %d takes %s (class %s) at %s "
				  "while holding %s of the same class, taken at %s\n", cpu, l->name,
				  classes[a]->name, site_trim(site), h->l->name, site_trim(h->site));
		} else {
			ld_report("rqlock: lockdep: lock order cycle (possible deadlock) between classes %s and %s:\n",
				  classes[a]->name, classes[b]->name);
			ld_report("  worker %d takes %s (%s) at %s while holding %s (%s) taken at %s\n", cpu,
				  classes[b]->name, l->name, site_trim(site), classes[a]->name, h->l->name,
				  site_trim(h->site));
			for (int i = 0; i + 1 < n; i++) {
				const struct ld_edge_info *e = &ld_info[path[i]][path[i + 1]];

				ld_report("  but before, worker %d took %s (%s) at %s while holding %s (%s) taken at %s\n",
					  e->cpu, classes[path[i + 1]]->name, e->to_lock, site_trim(e->to_site),
					  classes[path[i]]->name, e->from_lock, site_trim(e->from_site));
			}
		}
		fputs(ld_msg, stderr);
	}
	pthread_mutex_unlock(&ld_mutex);
}

/* Held locks already on @c's stack against the one being taken: edges. */
static void __attribute__((noinline)) ld_check(struct ld_cpu *c, struct rq_lock *l, const char *site, int cpu)
{
	for (unsigned int i = 0; l && i < c->depth; i++) {
		const struct ld_held *h = &c->held[i];

		if (h->l == l) {
			fprintf(stderr, "rqlock: lockdep: BUG: worker %d takes %s at %s while already holding it "
				"(taken at %s): deadlock\n", cpu, l->name, site_trim(site), site_trim(h->site));
			abort();
		}
		if (!(atomic_load_explicit(&ld_edges[h->l->class_id], memory_order_relaxed) >> l->class_id & 1))
			ld_add_edge(h, l, site, cpu);
	}
	if (c->depth == LD_MAX_HELD) {
		fprintf(stderr, "rqlock: lockdep: BUG: worker %d holds more than %d locks (at %s)\n", cpu,
			LD_MAX_HELD, site_trim(site));
		abort();
	}
}

/*
 * Push @l on @cpu's held stack (lockdep on).  The common case,
 * nothing held, is a few stores to this worker's own line; edges are
 * looked at only when something is held.  A trylock cannot deadlock: it
 * adds no edge, but what is taken under it does.
 */
static inline void ld_push(struct rq_lock *l, int cpu, const char *site, bool trylock)
{
	struct ld_cpu *c;

	if (__builtin_expect((unsigned int)cpu >= ld_nr_cpus, 0))
		return;		/* a cpu id the run did not declare: not tracked */
	c = &ld_cpus[cpu];
	if (__builtin_expect(c->depth != 0, 0)) {
		if (!trylock)
			ld_check(c, l, site, cpu);
		else if (c->depth == LD_MAX_HELD)
			ld_check(c, NULL, site, cpu);	/* reports the overflow */
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

int rq_lockdep_result(char *msg, size_t len)
{
	int ret = 0;

	pthread_mutex_lock(&ld_mutex);
	if (ld_cycles) {
		if (msg && len)
			snprintf(msg, len, "%s", ld_msg);
		ret = -EDEADLK;
	}
	pthread_mutex_unlock(&ld_mutex);
	return ret;
}

/* ---- lock, trylock, unlock -------------------------------------------- */

/* The countdown reached 0: start a sampled hold, or (lockstat off) wind it back. */
static void __attribute__((noinline)) sample_start(struct rq_lock *l, uint64_t t1)
{
	if (!(l->flags & RQ_LOCK_F_STAT)) {
		l->sample_left = UINT32_MAX;
		return;
	}
	l->sample_left = sample_gap(l);
	l->hold_start = t1 ? t1 : ticks();
}

/*
 * Taken: the holder's bookkeeping.  The same instructions run with
 * lockstat on and off (off, the countdown starts at 2^32 - 1 and the rare
 * path only winds it back): lockstat's cost is then only its sampled holds
 * and contended waits, not a second copy of the hot path that the code
 * layout can make faster or slower than the first (measured: +-8% on the
 * null path, either way, from layout alone).
 */
static inline void acquired(struct rq_lock *l, int cpu, uintptr_t token, bool contended, uint64_t t1)
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
		sample_start(l, t1);
}

void rq_lock_at(struct rq_lock *l, int cpu, const char *site)
{
	uint64_t t0, t1;
	uintptr_t token;

	if (__builtin_expect(l->flags & RQ_LOCK_F_DEP, 0))
		ld_push(l, cpu, site, false);	/* before: a deadlock is reported, not entered */
	if (__builtin_expect(l->ops->lock_fast(l, &token), 1)) {
		acquired(l, cpu, token, false, 0);
		return;
	}
	if (!(l->flags & RQ_LOCK_F_STAT)) {
		l->ops->lock_slow(l, token);
		acquired(l, cpu, token, true, 0);
		return;
	}
	t0 = ticks();
	l->ops->lock_slow(l, token);
	t1 = ticks();
	acquired(l, cpu, token, true, t1);
	stat_contended(l, site, t0, t1);
}

bool rq_trylock_at(struct rq_lock *l, int cpu, const char *site)
{
	uintptr_t token;

	if (!l->ops->trylock(l, &token))
		return false;
	acquired(l, cpu, token, false, 0);
	if (__builtin_expect(l->flags & RQ_LOCK_F_DEP, 0))
		ld_push(l, cpu, site, true);
	return true;
}

void rq_unlock(struct rq_lock *l, int cpu)
{
	if (__builtin_expect(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) != cpu, 0)) {
		fprintf(stderr, "rqlock: BUG: cpu %d releases %s held by %d\n", cpu, l->name,
			__atomic_load_n(&l->owner, __ATOMIC_RELAXED));
		abort();
	}
	if (__builtin_expect(l->hold_start != 0, 0)) {
		time_add(&l->hold, ticks() - l->hold_start);
		l->hold_start = 0;
	}
	if (__builtin_expect(l->flags & RQ_LOCK_F_DEP, 0))
		ld_pop(l, cpu);
	__atomic_store_n(&l->owner, -1, __ATOMIC_RELAXED);
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
	if (__builtin_expect(!rq_lock_is_held_by(l, cpu), 0)) {
		fprintf(stderr, "rqlock: BUG: %s:%d: cpu %d must hold %s\n", file, line, cpu, l->name);
		abort();
	}
}

/* ---- reports ------------------------------------------------------------ */

/* "queues/legacy.c:95" rather than the absolute path the compiler was given. */
static const char *site_trim(const char *site)
{
	static const char self[] = __FILE__;
	static const char tail[] = "queues/lock.c";
	size_t root = sizeof(self) - sizeof(tail);

	if (!site)
		return "?";
	if (sizeof(self) >= sizeof(tail) && !strcmp(self + root, tail) && !strncmp(site, self, root))
		return site + root;
	return site;
}

static void time_fold(struct rq_lock_time *dst, const struct rq_lock_time *src)
{
	if (!src->n)
		return;
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->total += src->total;
	for (unsigned int i = 0; i < RQ_LOCK_HIST_NR; i++)
		dst->hist[i] += src->hist[i];
}

static void time_report(struct rq_lockstat_time *out, const struct rq_lock_time *t, double rate,
			uint64_t scale_to)
{
	memset(out, 0, sizeof(*out));
	out->samples = t->n;
	if (!t->n)
		return;
	out->min_ns = (uint64_t)((double)t->min * rate + 0.5);
	out->max_ns = (uint64_t)((double)t->max * rate + 0.5);
	out->avg_ns = (double)t->total * rate / (double)t->n;
	/* sampled: the total is the mean times the events it stands for */
	out->total_ns = scale_to ? (uint64_t)(out->avg_ns * (double)scale_to + 0.5)
				 : (uint64_t)((double)t->total * rate + 0.5);
	for (unsigned int i = 0; i < RQ_LOCK_HIST_NR; i++) {
		if (!t->hist[i])
			continue;
		out->buckets[out->nr_buckets].lo_ns = (uint64_t)((double)hist_lo(i) * rate);
		out->buckets[out->nr_buckets].count = t->hist[i];
		out->nr_buckets++;
	}
}

struct site_acc {
	const char *site;
	uint64_t n;
};

static int site_cmp(const void *a, const void *b)
{
	const struct site_acc *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(site_trim(x->site), site_trim(y->site));
}

static int lockstat_fill(struct rq_lockstat_report *out, unsigned int *classes_used)
{
	static struct rq_lock_time wait, hold;	/* big: not on a worker-sized stack */
	uint64_t elapsed;
	double rate = clock_rate(&elapsed);

	memset(out, 0, sizeof(*out));
	out->enabled = cfg.lockstat;
	out->clock = rq_clock_name();
	out->hold_sample = cfg.hold_sample;
	out->overhead_ns = (double)clk.overhead * rate;
	out->elapsed_ns = elapsed;
	*classes_used = 0;
	free(rep_classes);
	rep_classes = calloc(nr_classes ? nr_classes : 1, sizeof(*rep_classes));
	if (!rep_classes)
		return -ENOMEM;
	for (unsigned int c = 0; c < nr_classes; c++) {
		struct rq_lockstat_class *rc = &rep_classes[out->nr_classes];
		struct site_acc sites[64];
		unsigned int nsites = 0;

		memset(&wait, 0, sizeof(wait));
		memset(&hold, 0, sizeof(hold));
		snprintf(rc->name, sizeof(rc->name), "%s", classes[c]->name);
		for (unsigned int i = 0; i < nr_registered; i++) {
			const struct rq_lock *l = registry[i];

			if (l->class_id != c)
				continue;
			rc->locks++;
			rc->acquisitions += l->acquisitions;
			rc->contentions += l->contentions;
			rc->acq_bounces += l->acq_bounces;
			rc->con_bounces += l->con_bounces;
			time_fold(&wait, &l->wait);
			time_fold(&hold, &l->hold);
			for (unsigned int s = 0; s < RQ_LOCK_SITES && l->sites[s].site; s++) {
				unsigned int k;

				for (k = 0; k < nsites; k++)
					if (!strcmp(sites[k].site, l->sites[s].site))
						break;
				if (k == nsites) {
					if (nsites == sizeof(sites) / sizeof(sites[0]))
						continue;
					sites[nsites].site = l->sites[s].site;
					sites[nsites++].n = 0;
				}
				sites[k].n += l->sites[s].n;
			}
		}
		if (!rc->locks)
			continue;
		if (rc->acquisitions)
			++*classes_used;
		time_report(&rc->wait, &wait, rate, 0);
		time_report(&rc->hold, &hold, rate, rc->acquisitions);
		qsort(sites, nsites, sizeof(sites[0]), site_cmp);
		for (unsigned int s = 0; s < nsites && s < RQ_LOCKSTAT_SITES; s++) {
			snprintf(rc->sites[s].site, sizeof(rc->sites[s].site), "%s", site_trim(sites[s].site));
			rc->sites[s].contentions = sites[s].n;
			rc->nr_sites++;
		}
		out->nr_classes++;
	}
	out->classes = rep_classes;
	return 0;
}

static int lockdep_fill(struct rq_lockdep_report *out, unsigned int classes_used)
{
	unsigned int n = 0;

	memset(out, 0, sizeof(*out));
	out->enabled = cfg.lockdep;
	out->classes = classes_used;
	pthread_mutex_lock(&ld_mutex);
	for (unsigned int a = 0; a < LD_MAX_CLASSES; a++)
		n += (unsigned int)__builtin_popcountll(atomic_load(&ld_edges[a]));
	free(rep_edges);
	rep_edges = calloc(n ? n : 1, sizeof(*rep_edges));
	if (!rep_edges) {
		pthread_mutex_unlock(&ld_mutex);
		return -ENOMEM;
	}
	for (unsigned int a = 0; a < LD_MAX_CLASSES; a++) {
		uint64_t bits = atomic_load(&ld_edges[a]);

		while (bits) {
			unsigned int b = (unsigned int)__builtin_ctzll(bits);
			const struct ld_edge_info *e = &ld_info[a][b];
			struct rq_lockdep_edge *r = &rep_edges[out->nr_edges++];

			bits &= bits - 1;
			snprintf(r->from, sizeof(r->from), "%s", a < nr_classes ? classes[a]->name : "?");
			snprintf(r->to, sizeof(r->to), "%s", b < nr_classes ? classes[b]->name : "?");
			snprintf(r->from_site, sizeof(r->from_site), "%s", site_trim(e->from_site));
			snprintf(r->to_site, sizeof(r->to_site), "%s", site_trim(e->to_site));
			r->cpu = e->cpu;
		}
	}
	out->edges = n;
	out->edge_list = rep_edges;
	out->cycles = ld_cycles;
	snprintf(out->cycle, sizeof(out->cycle), "%s", ld_msg);
	pthread_mutex_unlock(&ld_mutex);
	return 0;
}

int rq_locks_fill_report(struct rq_run_report *r)
{
	unsigned int used = 0;
	int ret = lockstat_fill(&r->lockstat, &used);

	if (ret)
		return ret;
	return lockdep_fill(&r->lockdep, used);
}
