// SPDX-License-Identifier: MIT
/*
 * primitives.c - the lock primitives (ttas, ticket, mcs, mutex): one ops table each,
 * registered in lock_ops[]; what each costs is in lock.c's header.
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

#include "locks/locks_internal.h"

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

const struct rq_lock_ops lk_lock_ops[RQ_LOCK_NR_TYPES] = {
	[RQ_LOCK_TTAS] = { "ttas", ttas_fast, ttas_slow, ttas_try, ttas_unlock, word_locked },
	[RQ_LOCK_TICKET] = { "ticket", ticket_fast, ticket_slow, ticket_try, ticket_unlock, ticket_locked },
	[RQ_LOCK_MCS] = { "mcs", mcs_fast, mcs_slow, mcs_try, mcs_unlock, mcs_locked },
	[RQ_LOCK_MUTEX] = { "mutex", mutex_fast, mutex_slow, mutex_fast, mutex_unlock, word_locked },
};

int rq_lock_type_parse(const char *name, enum rq_lock_type *type)
{
	for (int i = 0; i < RQ_LOCK_NR_TYPES; i++) {
		if (!strcmp(name, lk_lock_ops[i].name)) {
			*type = (enum rq_lock_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rq_lock_type_name(enum rq_lock_type type)
{
	return (unsigned int)type < RQ_LOCK_NR_TYPES ? lk_lock_ops[type].name : "?";
}

const char *rq_lock_type_names(void)
{
	return "ttas|ticket|mcs|mutex";
}

