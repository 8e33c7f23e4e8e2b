/* SPDX-License-Identifier: MIT */
/*
 * machine.h - what the rest of the machine did while a run ran: the load
 * that is not ours, the hypervisor's steal, the load average and the
 * spread of the CPUs' clock speeds.  A reader of one JSON report can then
 * tell a quiet run from one that shared its CPUs (docs/EXPERIMENTS.md,
 * "Noise"), as the sweep's bg_cpu does for its points.
 *
 * Two samples, one at the start of the run and one at the report, each a
 * few reads of /proc (/proc/stat's first line, /proc/loadavg,
 * /proc/cpuinfo's "cpu MHz") and getrusage(RUSAGE_SELF).  Where /proc is
 * not there, valid is false and the report says nothing about the machine.
 */
#ifndef RQ_MACHINE_H
#define RQ_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

struct rq_machine_sample {
	bool ok;		/* /proc/stat was read */
	uint64_t busy_ticks;	/* all CPUs: user..steal minus idle and iowait (USER_HZ) */
	uint64_t steal_ticks;	/* all CPUs: the hypervisor ran someone else */
	uint64_t self_ns;	/* this process's user + system CPU time */
	uint64_t mono_ns;	/* CLOCK_MONOTONIC at the sample */
	double loadavg1;	/* /proc/loadavg's 1-minute figure, -1 if unknown */
	double mhz_min, mhz_max;	/* /proc/cpuinfo "cpu MHz" over the CPUs, 0 if unknown */
};

/* The machine between two samples, as the report writes it. */
struct rq_machine_load {
	bool valid;		/* both samples read /proc/stat */
	unsigned int cpus;	/* online CPUs */
	double bg_cpu;		/* cores the rest of the machine kept busy (busy - ours) / wall */
	double steal;		/* steal / (wall x cpus): the share the hypervisor took */
	double self_cpu;	/* cores this run used */
	double loadavg_before, loadavg_after;
	/* the slowest and fastest CPU clock seen in either sample, and max / min */
	double mhz_min, mhz_max, mhz_spread;
};

/* Fill @s from /proc and getrusage; never fails (s->ok says what was read). */
void rq_machine_sample(struct rq_machine_sample *s);

/* The load between @a and @b (b taken later). */
void rq_machine_load(const struct rq_machine_sample *a, const struct rq_machine_sample *b,
		     struct rq_machine_load *out);

#endif
