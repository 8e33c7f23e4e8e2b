// SPDX-License-Identifier: MIT
/*
 * lock.c - lock primitives behind struct rq_lock.
 *
 * ttas: test-and-test-and-set.  An uncontended acquire is one xchg on the
 * lock's line.  A waiter spins reading the word (a shared copy of the line,
 * no bus traffic while the holder keeps it) and retries the xchg when it
 * reads free; on release every waiter misses and races for the line, so
 * the cost under contention grows with the number of waiters.  After
 * SPIN_LIMIT reads a waiter calls sched_yield(): with more workers than
 * cores the holder may be preempted, and spinning through our own time
 * slice would only delay it (no livelock with workers > cores).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queues/queue.h"
#include "results/results.h"

#define SPIN_LIMIT 128

struct rq_lock rq_io_request_lock;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static const char *const type_names[] = {
	[RQ_LOCK_TTAS] = "ttas",
};

int rq_lock_type_parse(const char *name, enum rq_lock_type *type)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		if (!strcmp(name, type_names[i])) {
			*type = (enum rq_lock_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rq_lock_type_name(enum rq_lock_type type)
{
	return type_names[type];
}

/* The registry of locks for reports; touched only single-threaded (set-up, report). */
static struct rq_lock **registry;
static unsigned int nr_registered, registry_cap;

void rq_locks_reset(void)
{
	free(registry);
	registry = NULL;
	nr_registered = registry_cap = 0;
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

void rq_lock_init(struct rq_lock *l, const struct rq_lock_class *cls, const char *name)
{
	memset(l, 0, sizeof(*l));
	atomic_init(&l->word, 0);
	l->cls = cls;
	l->owner = -1;
	snprintf(l->name, sizeof(l->name), "%s", name);
	lock_register(l);
}

static void __attribute__((noinline)) lock_slow(struct rq_lock *l)
{
	unsigned int spins = 0;

	for (;;) {
		while (atomic_load_explicit(&l->word, memory_order_relaxed)) {
			if (++spins >= SPIN_LIMIT) {
				spins = 0;
				sched_yield();
			} else {
				cpu_relax();
			}
		}
		if (!atomic_exchange_explicit(&l->word, 1, memory_order_acquire))
			return;
	}
}

void rq_lock(struct rq_lock *l, int cpu)
{
	bool contended = false;

	if (atomic_exchange_explicit(&l->word, 1, memory_order_acquire)) {
		lock_slow(l);
		contended = true;
	}
	l->acquisitions++;
	l->contentions += contended;
	__atomic_store_n(&l->owner, cpu, __ATOMIC_RELAXED);
}

void rq_unlock(struct rq_lock *l, int cpu)
{
	if (__builtin_expect(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) != cpu, 0)) {
		fprintf(stderr, "rqlock: BUG: cpu %d releases %s held by %d\n", cpu, l->name,
			__atomic_load_n(&l->owner, __ATOMIC_RELAXED));
		abort();
	}
	__atomic_store_n(&l->owner, -1, __ATOMIC_RELAXED);
	atomic_store_explicit(&l->word, 0, memory_order_release);
}

bool rq_lock_is_held_by(const struct rq_lock *l, int cpu)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) &&
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == cpu;
}

void rq_lock_assert_held_at(const struct rq_lock *l, int cpu, const char *file, int line)
{
	if (__builtin_expect(!rq_lock_is_held_by(l, cpu), 0)) {
		fprintf(stderr, "rqlock: BUG: %s:%d: cpu %d must hold %s\n", file, line, cpu, l->name);
		abort();
	}
}
