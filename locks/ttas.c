// SPDX-License-Identifier: MIT
/*
 * ttas.c - test-and-test-and-set: one xchg uncontended, waiters spin reading
 * the word (costs: locks/lock.c's header).
 */
#include <sched.h>
#include <stdatomic.h>

#include "locks/locks_internal.h"

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

static bool word_locked(const struct rq_lock *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) != 0;
}

static void word_init(struct rq_lock *l)
{
	atomic_init(&l->word, 0);
}

const struct rq_lock_ops rq_lock_ttas = {
	.name = "ttas",
	.init = word_init,
	.lock_fast = ttas_fast,
	.lock_slow = ttas_slow,
	.trylock = ttas_try,
	.unlock = ttas_unlock,
	.is_locked = word_locked,
};
