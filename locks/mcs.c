// SPDX-License-Identifier: MIT
/*
 * mcs.c - the MCS queue lock: each waiter spins on its own node; FIFO
 * (costs: locks/lock.c's header).
 */
#include <sched.h>
#include <stdatomic.h>

#include "locks/locks_internal.h"

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


static bool mcs_locked(const struct rq_lock *l)
{
	return atomic_load_explicit(&l->tail, memory_order_relaxed) != NULL;
}


static void mcs_init(struct rq_lock *l)
{
	atomic_init(&l->tail, NULL);
}

const struct rq_lock_ops rq_lock_mcs = {
	.name = "mcs",
	.init = mcs_init,
	.lock_fast = mcs_fast,
	.lock_slow = mcs_slow,
	.trylock = mcs_try,
	.unlock = mcs_unlock,
	.is_locked = mcs_locked,
};
