// SPDX-License-Identifier: MIT
/*
 * machine.c - samples of the machine's load around a run (machine.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/machine.h"

/* /proc/stat's "cpu" line: user nice system idle iowait irq softirq steal */
static bool read_stat(struct rq_machine_sample *s)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return false;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return false;
	/* guest time is already counted in user; idle and iowait are not busy */
	s->busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	s->steal_ticks = v[7];
	return true;
}

static double read_loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static void read_mhz(struct rq_machine_sample *s)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz;

	s->mhz_min = s->mhz_max = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "cpu MHz", 7) || sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : "",
							  "%lf", &mhz) != 1 || mhz <= 0)
			continue;
		if (s->mhz_min == 0 || mhz < s->mhz_min)
			s->mhz_min = mhz;
		if (mhz > s->mhz_max)
			s->mhz_max = mhz;
	}
	fclose(f);
}

void rq_machine_sample(struct rq_machine_sample *s)
{
	struct rusage ru;

	memset(s, 0, sizeof(*s));
	s->ok = read_stat(s);
	s->loadavg1 = read_loadavg();
	read_mhz(s);
	if (!getrusage(RUSAGE_SELF, &ru))
		s->self_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
			     ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
	s->mono_ns = rq_clock_mono_ns();
}

void rq_machine_load(const struct rq_machine_sample *a, const struct rq_machine_sample *b,
		     struct rq_machine_load *out)
{
	long hz = sysconf(_SC_CLK_TCK);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double wall = (double)(b->mono_ns - a->mono_ns) / 1e9;

	memset(out, 0, sizeof(*out));
	out->cpus = cpus > 0 ? (unsigned int)cpus : 1;
	out->loadavg_before = a->loadavg1;
	out->loadavg_after = b->loadavg1;
	out->mhz_min = a->mhz_min && (!b->mhz_min || a->mhz_min < b->mhz_min) ? a->mhz_min : b->mhz_min;
	out->mhz_max = a->mhz_max > b->mhz_max ? a->mhz_max : b->mhz_max;
	out->mhz_spread = out->mhz_min > 0 ? out->mhz_max / out->mhz_min : 0;
	if (!a->ok || !b->ok || hz <= 0 || wall <= 0 || b->mono_ns <= a->mono_ns)
		return;
	out->valid = true;
	out->self_cpu = (double)(b->self_ns - a->self_ns) / 1e9 / wall;
	/* tick counts are coarse (1/hz per CPU): never report negative load */
	out->bg_cpu = (double)(b->busy_ticks - a->busy_ticks) / (double)hz / wall - out->self_cpu;
	if (out->bg_cpu < 0)
		out->bg_cpu = 0;
	out->steal = (double)(b->steal_ticks - a->steal_ticks) / (double)hz / wall / out->cpus;
}
