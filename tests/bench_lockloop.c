// SPDX-License-Identifier: MIT
/*
 * bench_lockloop - the physical limit of docs/PERFORMANCE.md: a tight loop
 * that only takes and releases one uncontended lock and bumps a counter.
 * Not a test (no pass/fail): build/tests/bench_lockloop [ttas|ticket|mcs|mutex]
 */
#include <stdio.h>
#include <time.h>

#include "queues/queue.h"

int main(int argc, char **argv)
{
	static struct rq_lock l;
	static const struct rq_lock_class cls = { "bench" };
	struct timespec a, b;
	unsigned long n = 0;
	const long iters = 50000000;

	(void)argc;
	(void)argv;
	rq_lock_init(&l, &cls, "bench");
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < iters; i++) {
		rq_lock(&l, 0);
		n++;
		rq_unlock(&l, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f ns per lock + counter + unlock (%lu iterations)\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)iters, n);
	return 0;
}
