// SPDX-License-Identifier: MIT
/*
 * clock.c - calibration of the TSC against CLOCK_MONOTONIC (see clock.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"

struct rq_clock rq_clk;

#if defined(__x86_64__)
static bool tsc_trusted(void)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	bool ok = false, c = false, n = false;

	if (f) {
		ok = fgets(buf, sizeof(buf), f) && !strncmp(buf, "tsc", 3);
		fclose(f);
	}
	f = ok ? fopen("/proc/cpuinfo", "r") : NULL;
	while (f && fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, "flags", 5))
			continue;
		c = strstr(buf, " constant_tsc") != NULL;
		n = strstr(buf, " nonstop_tsc") != NULL;
		break;
	}
	if (f)
		fclose(f);
	return ok && c && n;
}

static void calibrate(void)
{
	struct timespec pause = { 0, 20000000 };
	const char *env = getenv("RQLOCK_CLOCK");
	uint64_t t0, n0, t1, n1;

	if (env && !strcmp(env, "clock_gettime"))
		return;
	/* RQLOCK_CLOCK=tsc: the user's word over the kernel's, as fio's clocksource=cpu */
	if (!(env && !strcmp(env, "tsc")) && !tsc_trusted())
		return;
	n0 = rq_clock_mono_ns();
	t0 = __rdtsc();
	nanosleep(&pause, NULL);
	n1 = rq_clock_mono_ns();
	t1 = __rdtsc();
	if (t1 <= t0 || n1 <= n0)
		return;
	rq_clk.mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
	rq_clk.base_tsc = t1;
	rq_clk.base_ns = n1;
	rq_clk.tsc = true;
}
#endif

void rq_clock_setup(void)
{
#if defined(__x86_64__)
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, calibrate);
#endif
}
