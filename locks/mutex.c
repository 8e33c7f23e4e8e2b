// SPDX-License-Identifier: MIT
/*
 * mutex.c - a futex mutex (Drepper, "Futexes Are Tricky", mutex 3): spin a
 * little, then sleep in the kernel (costs: locks/lock.c's header).
 */
#include <sched.h>
#include <stdatomic.h>

#include "locks/locks_internal.h"
#include "lib/futex.h"

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
		rq_futex_wait(&l->word, 2, 0);
		c = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	}
}

static void mutex_unlock(struct rq_lock *l, uintptr_t token)
{
	(void)token;
	if (atomic_fetch_sub_explicit(&l->word, 1, memory_order_release) != 1) {
		atomic_store_explicit(&l->word, 0, memory_order_release);
		rq_futex_wake(&l->word);
	}
}


static bool word_locked(const struct rq_lock *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) != 0;
}

static void word_init(struct rq_lock *l)
{
	atomic_init(&l->word, 0);
}

const struct rq_lock_ops rq_lock_mutex = {
	.name = "mutex",
	.init = word_init,
	.lock_fast = mutex_fast,
	.lock_slow = mutex_slow,
	.trylock = mutex_fast,
	.unlock = mutex_unlock,
	.is_locked = word_locked,
};
