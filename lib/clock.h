/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the one clock of rqlock: the engine's latencies, the device
 * models' service times and lockstat's waits and holds all read it.
 *
 * clock_gettime() costs ~27 ns here (vDSO); the TSC ~11 ns.  The TSC is
 * used when the kernel itself trusts it (clocksource "tsc", CPU flags
 * constant_tsc and nonstop_tsc: the same rate on every CPU and through
 * idle states), calibrated against CLOCK_MONOTONIC over 20 ms at
 * rq_clock_setup(): ns = base_ns + (tsc - base_tsc) * mult >> 32.  The
 * calibration's error is the two clock reads' jitter over 20 ms, about
 * 1e-5 relative: 10 ns on a 1 ms latency.  Elsewhere, or with
 * RQLOCK_CLOCK=clock_gettime, CLOCK_MONOTONIC is used.  RQLOCK_CLOCK=tsc
 * uses the TSC whatever the kernel says (fio's clocksource=cpu): a VM
 * booted with tsc=unstable keeps kvm-clock, whose vDSO read costs ~35 ns
 * and is a third of the null path's time there (docs/PERFORMANCE.md).
 *
 * rq_clock_ticks() is the raw counter (TSC ticks, or ns without the TSC)
 * for lockstat, which converts only when it reports.
 */
#ifndef RQ_CLOCK_H
#define RQ_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/compiler.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

struct rq_clock {
	bool tsc;
	uint64_t base_tsc, base_ns, mult;
};

extern struct rq_clock rq_clk;

/* Calibrate once per process (thread-safe, idempotent; 20 ms the first time). */
void rq_clock_setup(void);

static inline uint64_t rq_clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ns on the CLOCK_MONOTONIC scale, from the TSC when it is trusted */
static inline uint64_t rq_clock_ns(void)
{
#if defined(__x86_64__)
	if (likely(rq_clk.tsc))
		return rq_clk.base_ns +
		       (uint64_t)(((unsigned __int128)(__rdtsc() - rq_clk.base_tsc) * rq_clk.mult) >> 32);
#endif
	return rq_clock_mono_ns();
}

/* the raw counter: TSC ticks when trusted, else ns */
static inline uint64_t rq_clock_ticks(void)
{
#if defined(__x86_64__)
	if (likely(rq_clk.tsc))
		return __rdtsc();
#endif
	return rq_clock_mono_ns();
}

/* ns per rq_clock_ticks() tick */
static inline double rq_clock_ns_per_tick(void)
{
	return rq_clk.tsc ? (double)rq_clk.mult / 4294967296.0 : 1.0;
}

/* "tsc" or "clock_gettime": what latencies are measured with */
static inline const char *rq_clock_name(void)
{
	return rq_clk.tsc ? "tsc" : "clock_gettime";
}

#endif /* RQ_CLOCK_H */
