/* SPDX-License-Identifier: MIT */
/*
 * offsets.h - the offset generators: the engine's PRNG, the random map
 * (randmap.c), random_distribution (dist.c) and random_generator=lfsr
 * (lfsr.c).  Included by those, the runner's files that draw offsets
 * (runner.h, clone.c, setup.c, run.c, vstate.c), pace.c (its Poisson
 * gaps) and the tests test_lfsr.c and test_vlog.c.
 */
#ifndef RQ_ENGINE_OFFSETS_H
#define RQ_ENGINE_OFFSETS_H

#include <stdbool.h>
#include <stdint.h>

#include "jobfile/job.h"

/* The random map (randmap.c): blocks of a region one random pass has touched. */
struct rq_randmap {
	uint64_t *bits;
	uint64_t nblocks, nr_set;
};

int rq_randmap_init(struct rq_randmap *m, uint64_t nblocks);
void rq_randmap_free(struct rq_randmap *m);
void rq_randmap_clear(struct rq_randmap *m);
bool rq_randmap_busy(const struct rq_randmap *m, uint64_t b);
/* Mark up to @n free blocks from @b on, stopping at a busy one; returns how many. */
uint64_t rq_randmap_take(struct rq_randmap *m, uint64_t b, uint64_t n);
/*
 * The first free block after @b, wrapping to the region's start, as fio's
 * axmap_next_free(); UINT64_MAX when every block is marked.
 */
uint64_t rq_randmap_next_free(const struct rq_randmap *m, uint64_t b);

/*
 * Non-uniform block choice (random_distribution): zipf, pareto, normal.
 * rq_dist_init() precomputes what the distribution needs for @nblocks;
 * rq_dist_next() returns a block index in [0, nblocks), the hot blocks
 * scattered over the region by a bijection so they are not all at its
 * start (fio scatters them too).
 */
struct rq_dist {
	enum rq_rand_dist kind;
	uint64_t nblocks;
	double param;
	/* zipf (Gray et al., "Quickly generating billion-record synthetic databases") */
	double zetan, zeta2, alpha, eta;
	uint64_t zipf_n;		/* items the zeta sums run over (capped) */
	uint64_t scatter;		/* odd multiplier coprime with nblocks */
	double center;			/* < 0: scatter; else shift the hot spot there */
};

/* @center: where the hot spot sits, 0..1 of the region, or < 0 for fio's scattering */
int rq_dist_init(struct rq_dist *d, enum rq_rand_dist kind, double param, uint64_t nblocks,
		 double center);
uint64_t rq_dist_next(const struct rq_dist *d, uint64_t *rng);

/* splitmix64 step: the engine's one PRNG, seeded per clone */
static inline uint64_t rq_rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform double in [0, 1) */
static inline double rq_rng_unit(uint64_t *s)
{
	return (double)(rq_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* random_generator=lfsr (lfsr.c): every block of [0, nblocks) once a period */
struct rq_lfsr {
	uint64_t state, mask, period, nblocks;
	unsigned int bits;
};

void rq_lfsr_init(struct rq_lfsr *l, uint64_t nblocks, uint64_t seed);
uint64_t rq_lfsr_next(struct rq_lfsr *l);

#endif
