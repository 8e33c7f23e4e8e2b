// SPDX-License-Identifier: MIT
/*
 * ticket.c - the ticket lock: fetch-and-add on "next", wait for "serving"; FIFO
 * (costs: locks/lock.c's header).
 */
#include <sched.h>
#include <stdatomic.h>

#include "locks/locks_internal.h"

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

static bool ticket_locked(const struct rq_lock *l)
{
	return atomic_load_explicit(&l->ticket.next, memory_order_relaxed) !=
	       atomic_load_explicit(&l->ticket.serving, memory_order_relaxed);
}


static void ticket_init(struct rq_lock *l)
{
	atomic_init(&l->ticket.next, 0);
	atomic_init(&l->ticket.serving, 0);
}

const struct rq_lock_ops rq_lock_ticket = {
	.name = "ticket",
	.init = ticket_init,
	.lock_fast = ticket_fast,
	.lock_slow = ticket_slow,
	.trylock = ticket_try,
	.unlock = ticket_unlock,
	.is_locked = ticket_locked,
};
