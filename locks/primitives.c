// SPDX-License-Identifier: MIT
/*
 * primitives.c - the registry of lock primitives: one file each (ttas.c,
 * ticket.c, mcs.c, mutex.c) and one line here.  The order gives each its
 * enum rq_lock_type; names and help come from the tables.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "locks/locks_internal.h"

extern const struct rq_lock_ops rq_lock_ttas, rq_lock_ticket, rq_lock_mcs, rq_lock_mutex;

const struct rq_lock_ops *const lk_lock_ops[] = {
	[RQ_LOCK_TTAS] = &rq_lock_ttas,
	[RQ_LOCK_TICKET] = &rq_lock_ticket,
	[RQ_LOCK_MCS] = &rq_lock_mcs,
	[RQ_LOCK_MUTEX] = &rq_lock_mutex,
};

#define NR_TYPES (sizeof(lk_lock_ops) / sizeof(lk_lock_ops[0]))

unsigned int rq_lock_nr_types(void)
{
	return NR_TYPES;
}

int rq_lock_type_parse(const char *name, enum rq_lock_type *type)
{
	for (unsigned int i = 0; i < NR_TYPES; i++) {
		if (!strcmp(name, lk_lock_ops[i]->name)) {
			*type = (enum rq_lock_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rq_lock_type_name(enum rq_lock_type type)
{
	return (unsigned int)type < NR_TYPES ? lk_lock_ops[type]->name : "?";
}

const char *rq_lock_type_names(void)
{
	static char names[128];

	if (!names[0]) {
		size_t n = 0;

		for (unsigned int i = 0; i < NR_TYPES && n < sizeof(names); i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? "|" : "",
					      lk_lock_ops[i]->name);
	}
	return names;
}

int lk_lock_ops_check(void)
{
	for (unsigned int i = 0; i < NR_TYPES; i++) {
		const struct rq_lock_ops *o = lk_lock_ops[i];

		if (!o || !o->name || !o->init || !o->lock_fast || !o->lock_slow || !o->trylock ||
		    !o->unlock || !o->is_locked)
			return -EINVAL;
	}
	return 0;
}
