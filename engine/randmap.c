// SPDX-License-Identifier: MIT
/*
 * randmap.c - which blocks of a region a random pass has touched, for jobs
 * whose block sizes differ (bsrange, bssplit, or bs differing by direction).
 *
 * The offset generator picks start blocks in units of the smallest block
 * size; a larger I/O covers several.  Without a map a later pick can land
 * inside an earlier, larger I/O, and one pass writes some blocks twice.
 * fio keeps an axmap of the same unit: an I/O marks every block it covers,
 * a start block already marked is not used, and an I/O whose tail would run
 * into marked blocks is shortened to the free run (io_u.c,
 * mark_random_map() with axmap_set_nr()).  This does the same with a flat
 * bitmap: one bit per block, nblocks / 8 bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/offsets.h"

int rq_randmap_init(struct rq_randmap *m, uint64_t nblocks)
{
	m->nblocks = nblocks;
	m->nr_set = 0;
	m->bits = calloc((size_t)((nblocks + 63) / 64) + 1, sizeof(uint64_t));
	return m->bits ? 0 : -ENOMEM;
}

void rq_randmap_free(struct rq_randmap *m)
{
	free(m->bits);
	m->bits = NULL;
}

void rq_randmap_clear(struct rq_randmap *m)
{
	memset(m->bits, 0, (size_t)((m->nblocks + 63) / 64) * sizeof(uint64_t));
	m->nr_set = 0;
}

bool rq_randmap_busy(const struct rq_randmap *m, uint64_t b)
{
	return m->bits[b / 64] >> (b % 64) & 1;
}

uint64_t rq_randmap_take(struct rq_randmap *m, uint64_t b, uint64_t n)
{
	uint64_t k = 0;

	while (k < n && b + k < m->nblocks && !rq_randmap_busy(m, b + k)) {
		m->bits[(b + k) / 64] |= 1ULL << ((b + k) % 64);
		k++;
	}
	m->nr_set += k;
	return k;
}
