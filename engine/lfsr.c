// SPDX-License-Identifier: MIT
/*
 * lfsr.c - random_generator=lfsr: a maximal-length linear feedback shift
 * register over a region's blocks, as fio's lib/lfsr.c is used: every
 * block exactly once a pass, in a scrambled order, with no map, so
 * norandommap=1 still covers the region (fio's t0021).
 *
 * A Galois LFSR of n bits steps through every nonzero n-bit state once in
 * 2^n - 1 steps when its feedback polynomial is primitive.  n is the
 * smallest with 2^n - 1 >= nblocks; state s stands for block s - 1 and
 * states past the region are skipped, fewer than half of them, so a step
 * costs O(1) on average.  The start state comes from the clone's seed.
 *
 * The feedback masks (bit k - 1 set for each term x^k of the polynomial
 * x^n + ... + 1) are the well-known maximal-length taps, each checked
 * primitive when written down: x^(2^n-1) == 1 modulo the polynomial and
 * x^((2^n-1)/q) != 1 for every prime q dividing 2^n - 1.
 * tests/test_lfsr.c steps the small ones through a whole period.
 */
#include "engine/offsets.h"

static const uint64_t lfsr_mask[65] = {
	[2] = 0x3ULL, [3] = 0x6ULL, [4] = 0xcULL, [5] = 0x14ULL, [6] = 0x30ULL,
	[7] = 0x60ULL, [8] = 0xb8ULL, [9] = 0x110ULL, [10] = 0x240ULL, [11] = 0x500ULL,
	[12] = 0x829ULL, [13] = 0x100dULL, [14] = 0x2015ULL, [15] = 0x6000ULL, [16] = 0xd008ULL,
	[17] = 0x12000ULL, [18] = 0x20400ULL, [19] = 0x40023ULL, [20] = 0x90000ULL,
	[21] = 0x140000ULL, [22] = 0x300000ULL, [23] = 0x420000ULL, [24] = 0xe10000ULL,
	[25] = 0x1200000ULL, [26] = 0x2000023ULL, [27] = 0x4000013ULL, [28] = 0x9000000ULL,
	[29] = 0x14000000ULL, [30] = 0x20000029ULL, [31] = 0x48000000ULL, [32] = 0x80200003ULL,
	[33] = 0x100080000ULL, [34] = 0x204000003ULL, [35] = 0x500000000ULL,
	[36] = 0x801000000ULL, [37] = 0x100000001fULL, [38] = 0x2000000031ULL,
	[39] = 0x4400000000ULL, [40] = 0xa000140000ULL, [41] = 0x12000000000ULL,
	[42] = 0x300000c0000ULL, [43] = 0x63000000000ULL, [44] = 0xc0000030000ULL,
	[45] = 0x1b0000000000ULL, [46] = 0x300003000000ULL, [47] = 0x420000000000ULL,
	[48] = 0xc00000180000ULL, [49] = 0x1008000000000ULL, [50] = 0x3000000c00000ULL,
	[51] = 0x6000c00000000ULL, [52] = 0x9000000000000ULL, [53] = 0x18003000000000ULL,
	[54] = 0x30000000030000ULL, [55] = 0x40000040000000ULL, [56] = 0xc0000600000000ULL,
	[57] = 0x102000000000000ULL, [58] = 0x200004000000000ULL, [59] = 0x600003000000000ULL,
	[60] = 0xc00000000000000ULL, [61] = 0x1800300000000000ULL, [62] = 0x3000000000000030ULL,
	[63] = 0x6000000000000000ULL, [64] = 0xd800000000000000ULL,
};

void rq_lfsr_init(struct rq_lfsr *l, uint64_t nblocks, uint64_t seed)
{
	unsigned int n = 2;

	while (n < 64 && ((1ULL << n) - 1) < nblocks)
		n++;
	l->bits = n;
	l->mask = lfsr_mask[n];
	l->period = n == 64 ? UINT64_MAX : (1ULL << n) - 1;
	l->nblocks = nblocks;
	l->state = 1 + seed % l->period;	/* any nonzero state is on the one cycle */
}

uint64_t rq_lfsr_next(struct rq_lfsr *l)
{
	uint64_t s;

	do {
		s = l->state;
		l->state = (s >> 1) ^ (-(s & 1) & l->mask);
	} while (s - 1 >= l->nblocks);
	return s - 1;
}
