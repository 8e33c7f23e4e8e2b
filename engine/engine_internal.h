/* SPDX-License-Identifier: MIT */
/*
 * engine_internal.h - shared inside engine/ only: verification and the
 * offset generators.
 */
#ifndef RQ_ENGINE_INTERNAL_H
#define RQ_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "jobfile/job.h"

#define RQ_VHDR_LEN 64

uint32_t rq_crc32c(const void *buf, size_t len);
void rq_md5(const void *buf, size_t len, uint8_t out[16]);
/* Fill a block to be written so that rq_verify_check() can prove it later. */
void rq_verify_fill(const struct rq_job *job, void *buf, uint64_t offset, uint32_t len,
		    uint64_t seed, uint64_t seq);
/* 0 if the block read at @offset is the one written there; else -EILSEQ and @msg. */
int rq_verify_check(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
		    char *msg, size_t msglen);

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

#endif
