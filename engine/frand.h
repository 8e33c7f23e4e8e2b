/* SPDX-License-Identifier: MIT */
#ifndef RQ_ENGINE_FRAND_H
#define RQ_ENGINE_FRAND_H
/*
 * fio's random streams, where a job's outcome is a draw that fio users
 * compare run for run: L'Ecuyer's maximally equidistributed combined
 * Tausworthe generator of three 32-bit components (Mathematics of
 * Computation 65 (1996), 203-213: the parameters of its taus88), seeded
 * as fio 3.33 seeds it, so that a mixed job takes fio's directions in
 * fio's order (fio's t0008: rw=readwrite with verify_backlog writes
 * 16568 KiB of its 32 MiB, fio's suite allowing 1 %).
 *
 * Seeds (fio's init.c setup_random_seeds()): with randrepeat or randseed,
 * stream i of thread n (1-based, in job order, clones after their job) is
 * seed * K^(4 + i) * n + i, K = 0x9e370001, mod 2^64, cut to 32 bits;
 * the seeding itself (lib/rand.c) runs a multiply-xor LCG over the three
 * components, each kept above the bound its recurrence needs (s1 > 1,
 * s2 > 7, s3 > 15: the 1999 erratum), and discards six outputs.
 */
#include <stdint.h>

struct rq_taus88 {
	uint32_t s1, s2, s3;
};

/*
 * A mixed job's direction (fio's rwmix_ddir), kept until it has issued
 * @issues (fio's rwmix_issues), with the I/Os issued each way and the
 * stream it draws from (rwmix_state): experimental_verify's replay puts
 * it back with the offsets' (vstate.c), or it draws other directions.
 */
struct rq_mix {
	int op;
	uint64_t issues, rw_issues[2];
	struct rq_taus88 rng;
};

/* fio's stream numbers (fio.h FIO_RAND_*_OFF) that rqlock draws from: sizes (+ direction), mix */
enum { RQ_FRAND_BS = 0, RQ_FRAND_MIX = 4 };

static inline uint32_t rq_taus88_next(struct rq_taus88 *t)
{
	t->s1 = ((t->s1 & 0xfffffffeu) << 12) ^ (((t->s1 << 13) ^ t->s1) >> 19);
	t->s2 = ((t->s2 & 0xfffffff8u) << 4) ^ (((t->s2 << 2) ^ t->s2) >> 25);
	t->s3 = ((t->s3 & 0xfffffff0u) << 17) ^ (((t->s3 << 3) ^ t->s3) >> 11);
	return t->s1 ^ t->s2 ^ t->s3;
}

static inline uint32_t rq_taus88_floor(uint32_t x, uint32_t min)
{
	return x < min ? x + min : x;
}

static inline void rq_taus88_seed(struct rq_taus88 *t, uint32_t seed)
{
	/* fio's start value (2^31) + (2^17) + (2^7) is written in C, where ^ is xor: 53 */
	t->s1 = rq_taus88_floor(53u * 69069u ^ seed, 1);
	t->s2 = rq_taus88_floor(t->s1 * 69069u ^ seed, 7);
	t->s3 = rq_taus88_floor(t->s2 * 69069u ^ seed, 15);
	for (int i = 0; i < 6; i++)
		rq_taus88_next(t);
}

/* fio's seed of stream @off for thread @n (1-based), from randseed @seed */
static inline uint32_t rq_frand_seed(uint64_t seed, unsigned int n, unsigned int off)
{
	for (unsigned int i = 0; i < 4 + off; i++)
		seed *= 0x9e370001ull;
	return (uint32_t)(seed * n + off);
}

/* An integer in [@lo, @hi], as fio's rand_between() on a 32-bit stream. */
static inline uint32_t rq_taus88_between(struct rq_taus88 *t, uint32_t lo, uint32_t hi)
{
	uint32_t r = rq_taus88_next(t);

	return lo + (uint32_t)((double)(hi - lo + 1ull) * (r / 4294967296.0));
}

#endif
