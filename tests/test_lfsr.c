// SPDX-License-Identifier: MIT
/*
 * test_lfsr - random_generator=lfsr (engine/lfsr.c), issue 26: the option
 * was ignored and norandommap=1 touched 166 of 256 blocks (fio's t0021).
 *
 * Every mask up to 22 bits is stepped through its whole period: 2^n - 1
 * distinct states, back to the start (a maximal-length register); then
 * region sizes around powers of two, from several seeds: each block
 * exactly once in the first pass and again once in the second, in the
 * same order, and not in sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/offsets.h"
#include "tests/helpers.h"

static void periods(void)
{
	for (unsigned int n = 2; n <= 22; n++) {
		uint64_t len = (1ULL << n) - 1, steps = 0;
		struct rq_lfsr l;
		uint64_t start;

		rq_lfsr_init(&l, len, 12345);	/* nblocks 2^n - 1: n bits */
		CHECK(l.bits == n, "n %u: %u bits", n, l.bits);
		start = l.state;
		do {
			l.state = (l.state >> 1) ^ (-(l.state & 1) & l.mask);
			steps++;
		} while (l.state != start && steps <= len);
		CHECK(steps == len, "n %u: period %llu, expected %llu", n, (unsigned long long)steps,
		      (unsigned long long)len);
	}
}

static void coverage(void)
{
	static const uint64_t sizes[] = { 1, 2, 3, 7, 8, 9, 255, 256, 257, 1000, 4096, 65537 };
	static const uint64_t seeds[] = { 0, 1, 0x9e3779b97f4a7c15ULL, UINT64_MAX };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
			uint64_t n = sizes[i], seq = 0;
			uint64_t *first = calloc(n, sizeof(*first));
			unsigned char *seen = calloc(n, 1);
			struct rq_lfsr l;

			CHECK(first && seen, "size %llu: out of memory", (unsigned long long)n);
			if (!first || !seen) {
				free(first);
				free(seen);
				return;
			}
			rq_lfsr_init(&l, n, seeds[s]);
			for (int pass = 0; pass < 2; pass++) {
				memset(seen, 0, n);
				for (uint64_t k = 0; k < n; k++) {
					uint64_t b = rq_lfsr_next(&l);

					CHECK(b < n, "size %llu: block %llu out of range", (unsigned long long)n,
					      (unsigned long long)b);
					if (b >= n)
						break;
					CHECK(!seen[b], "size %llu pass %d: block %llu twice", (unsigned long long)n,
					      pass, (unsigned long long)b);
					seen[b] = 1;
					if (pass == 0)
						first[k] = b;
					else
						CHECK(first[k] == b, "size %llu: pass 2 differs at %llu",
						      (unsigned long long)n, (unsigned long long)k);
					if (k && pass == 0 && b == first[k - 1] + 1)
						seq++;
				}
			}
			CHECK(n < 256 || seq < n / 8, "size %llu: %llu steps in sequence", (unsigned long long)n,
			      (unsigned long long)seq);
			free(first);
			free(seen);
		}
	}
}

int main(void)
{
	periods();
	coverage();
	if (failures) {
		fprintf(stderr, "test_lfsr: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_lfsr: ok\n");
	return 0;
}
