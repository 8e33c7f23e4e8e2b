// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/compiler.h"

void *rq_zalloc_lines(size_t n)
{
	size_t len = (n + RQ_CACHELINE - 1) & ~(size_t)(RQ_CACHELINE - 1);
	void *p;

	if (!len)
		len = RQ_CACHELINE;
	p = aligned_alloc(RQ_CACHELINE, len);
	if (p)
		memset(p, 0, len);
	return p;
}
