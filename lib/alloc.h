/* SPDX-License-Identifier: MIT */
/*
 * alloc.h - zeroed memory on cache lines of its own.
 */
#ifndef RQ_ALLOC_H
#define RQ_ALLOC_H

#include <stddef.h>

/*
 * @n bytes rounded up to whole cache lines (at least one), aligned to a
 * line and zeroed, so nothing else shares its lines; free() releases it.
 * NULL when out of memory.
 */
void *rq_zalloc_lines(size_t n);

#endif /* RQ_ALLOC_H */
