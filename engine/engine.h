/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the runner: workers acting as CPUs, job clones, the request
 * path from bio to completion.  Used by main.c and the tests.
 */
#ifndef RQ_ENGINE_H
#define RQ_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "jobfile/job.h"
#include "results/results.h"
#include "engine/paths.h"

#define RQ_VERSION "rqlock-0.1.0"

struct rq_engine_opts {
	const char *lock_mode;		/* "global", "per-queue" */
	const char *lock_type;		/* "ttas" */
	unsigned int workers;		/* 0 = online CPUs */
	bool allow_mounted_write;
	bool pin;			/* pin workers to CPUs where allowed */
	unsigned int hw_queues;		/* mq: hardware queues per device, 0 = default */
	unsigned int cluster_size;	/* cluster: workers per partition, 0 = one per LLC domain */
	bool lockstat;			/* lock statistics (default on) */
	bool lockdep;			/* lock-order validation */
	uint64_t stall_timeout_ns;	/* a request in flight this long ends the run, 0 = default */
	/*
	 * After the first rq_engine_stop(): how long what is in flight may
	 * drain before it is abandoned and reported (rqlock.stuck); 0 = the
	 * default (5 s), RQ_GRACE_NONE = abandon at once.
	 */
	uint64_t grace_period_ns;
	/*
	 * --timeline FILE: every completed I/O's due, start, issue and done
	 * times (ns from the run's start) as CSV, written after the run; NULL
	 * = none.  At most RQ_TIMELINE_MAX records per clone.
	 */
	const char *timeline;
	/* --aux-path DIR: where verify state files go (fio's aux_path); NULL = the current directory */
	const char *aux_path;
	/*
	 * The status (engine/status.c): fio's status line once a second on
	 * status_f (NULL = none), a new line every eta_newline_ns (0 = never);
	 * the normal report so far on dump_f every status_interval_ns (0 =
	 * never).
	 */
	FILE *status_f;
	uint64_t eta_newline_ns;
	uint64_t status_interval_ns;
	FILE *dump_f;
	/*
	 * What fio's normal output says before the report ("<job>: Laying out
	 * IO file ..."): stdout or the --output file, NULL = nothing (JSON and
	 * terse output, as fio).
	 */
	FILE *info_f;
	/*
	 * rqlock's lock logs: per lock class, PREFIX_<class>_lockwait.log and
	 * _lockhold.log every lock_log_msec (NULL = none); see engine/iolog.c.
	 */
	const char *lock_log_prefix;
	unsigned int lock_log_msec;
	/*
	 * rqlock server --max-memory: the bytes built-in devices may hold
	 * their data in (@ram, the models without file=), summed over the
	 * run's devices, checked after they are opened and before anything
	 * is written; 0 = no cap.
	 */
	uint64_t max_mem_bytes;
	/*
	 * rqlock server: jobs save and load no verify state files (fio's
	 * local-JOB-N-verify.state, engine/vstate.c): they would be at a
	 * path the client chose, outside the policy.
	 */
	bool no_verify_state;
	/*
	 * fio's --bandwidth-log[=NAME]: NAME-read_bw.log, NAME-write_bw.log
	 * and NAME-trim_bw.log, every job's bandwidth summed, KiB/s every
	 * 500 ms (fio's bw_avg_time), as fio's aggregate logs; NULL = none.
	 */
	const char *agg_bw_log;
	/* --device NAME=SPEC: a job's filename NAME opens SPEC instead */
	const char *const *aliases;
	unsigned int nr_aliases;
};

#define RQ_GRACE_NONE UINT64_MAX	/* rq_engine_opts.grace_period_ns: no drain */

/*
 * engine/registry.c: the lock modes, primitives and device kinds this
 * binary has, from their registries (`rqlock --list --json`, and
 * rqlock.registry in every JSON report).  Built once; NULL without memory.
 */
const struct rq_registry *rq_registry_get(void);

/* The defaults every command starts from: global, ttas, pinned, lockstat on. */
void rq_engine_opts_init(struct rq_engine_opts *o);
/* SIGINT and SIGTERM both go to @handler (async-signal-safe: sigaction only). */
void rq_set_stop_signals(void (*handler)(int));
/* 0 when the directory @path would be created in exists and is writable, else -EACCES. */
int rq_dir_writable(const char *path);

struct rq_engine;

/*
 * Check the jobs against their devices and open everything; nothing is
 * written before every check passed.  Returns 0, or -errno after printing
 * one line to @err (bad input: the caller exits 2).
 */
int rq_engine_setup(struct rq_engine **ep, const struct rq_engine_opts *o,
		    const struct rq_job_list *jobs, FILE *err);
/*
 * fio's --merge-blktrace-only: each job's read_iolog traces merged into
 * its merge_blktrace_file (engine/blktrace.c), nothing run.  Every merge
 * is checked before any file is written.  Returns 0, or -errno after one
 * line on @err (bad input: the caller exits 2).
 */
int rq_engine_merge_blktraces(const struct rq_job_list *jobs, FILE *err);
/*
 * Run every group of jobs.  Returns 0 when all went well, 1 when a job
 * failed (its error is in the report), -errno on an engine failure.
 */
int rq_engine_run(struct rq_engine *e, FILE *err);
/*
 * Stop every running engine: no new I/O, drain what is in flight for the
 * grace period, report what ran as interrupted by @sig.  A second call, or
 * the grace running out, abandons what is still in flight: the run ends
 * at once and reports it (rqlock.stuck, bios_abandoned).  The first
 * call's @sig is the one reported.  Async-signal-safe.
 */
void rq_engine_stop(int sig);
/* The signal rq_engine_stop() was given, 0 if none. */
int rq_engine_stopped(void);
/*
 * Forget every rq_engine_stop() and the grace it started, so that the next
 * rq_engine_run() runs: for a process that runs job after job (rqlock
 * server), between runs only, never while one is running.
 */
void rq_engine_stop_reset(void);

/* "tsc" or "clock_gettime": the clock latencies were measured with. */
const char *rq_engine_clock(void);

/* The report of the last run; valid until rq_engine_free(). */
const struct rq_run_report *rq_engine_report(struct rq_engine *e);
void rq_engine_free(struct rq_engine *e);

#endif
