// SPDX-License-Identifier: MIT
/*
 * randmap.c - which blocks of a region a random pass has touched, for jobs
 * whose block sizes differ (bsrange, bssplit, or bs differing by direction).
 *
 * The offset generator picks start blocks in units of the smallest block
 * size; a larger I/O covers several.  Without a map a later pick can land
 * inside an earlier, larger I/O, and one pass writes some blocks twice.
 * fio keeps an axmap of the same unit: an I/O marks every block it covers,
 * a start block already marked gives the next free one (axmap_next_free(),
 * rq_randmap_next_free() here), and an I/O whose tail would run
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

/* The first free block at or after @from below @to, or UINT64_MAX. */
static uint64_t first_free(const struct rq_randmap *m, uint64_t from, uint64_t to)
{
	while (from < to) {
		uint64_t w = ~m->bits[from / 64] >> (from % 64);

		if (w) {
			uint64_t b = from + (uint64_t)__builtin_ctzll(w);

			return b < to ? b : UINT64_MAX;
		}
		from = (from / 64 + 1) * 64;
	}
	return UINT64_MAX;
}

uint64_t rq_randmap_next_free(const struct rq_randmap *m, uint64_t b)
{
	uint64_t r;

	if (b >= m->nblocks || m->nr_set >= m->nblocks)
		return UINT64_MAX;
	r = first_free(m, b + 1, m->nblocks);
	return r != UINT64_MAX ? r : first_free(m, 0, b + 1);
}
