/* SPDX-License-Identifier: MIT */
/*
 * results.h - rqlock's one stats model and its renderings.
 *
 * Latency is kept the way fio keeps it (stat.h, "io_u_plat"): a log-linear
 * histogram of nanosecond values.  Values below 2^(RQ_PLAT_BITS+1) land
 * in their own bucket; above that, every power-of-two range is split into
 * RQ_PLAT_VAL equal buckets, so a bucket's width is at most 1/RQ_PLAT_VAL
 * (1.6%) of its value: percentiles carry at most that relative error, and
 * they are computed with fio's method so the two tools agree bucket for
 * bucket.  RQ_PLAT_GROUP_NR groups cover values up to ~2^34 ns (17 s);
 * larger values go into the last bucket.  Adding a sample is a clz, a
 * shift and three adds: no division, no allocation.
 */
#ifndef RQ_RESULTS_H
#define RQ_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/machine.h"
#include "lib/topology.h"

#define RQ_PLAT_BITS 6
#define RQ_PLAT_VAL (1u << RQ_PLAT_BITS)
#define RQ_PLAT_GROUP_NR 29
#define RQ_PLAT_NR (RQ_PLAT_GROUP_NR * RQ_PLAT_VAL)

/* fio's default percentile_list */
#define RQ_NR_PERCENTILES 17
extern const double rq_default_percentiles[RQ_NR_PERCENTILES];

/*
 * One latency distribution: min/max/mean/stddev and the histogram.  An
 * all-zero struct is a valid empty one (min_ns/max_ns mean nothing while
 * n is 0).
 */
struct rq_lat_stat {
	uint64_t n;
	uint64_t min_ns, max_ns;
	/*
	 * Sums of (v - shift) and (v - shift)^2, shift being the first sample:
	 * one add and one multiply-add per sample, and no cancellation when
	 * the spread is small next to the mean.
	 */
	uint64_t shift;
	double sum, sumsq;
	uint64_t plat[RQ_PLAT_NR];
};

void rq_lat_init(struct rq_lat_stat *s);
/* A sample into the moments and the histogram (fio's add_clat_sample()). */
void rq_lat_add(struct rq_lat_stat *s, uint64_t ns);
/*
 * Into the moments only: fio's add_stat_sample(), for slat and lat, whose
 * histograms fio keeps only with slat_percentiles / lat_percentiles.
 */
void rq_lat_add_stat(struct rq_lat_stat *s, uint64_t ns);
/* dst += src (for group_reporting and for merging per-worker copies) */
void rq_lat_merge(struct rq_lat_stat *dst, const struct rq_lat_stat *src);
double rq_lat_mean(const struct rq_lat_stat *s);
double rq_lat_stddev(const struct rq_lat_stat *s);
/* Histogram index of a value, and the value fio reports for an index. */
unsigned int rq_plat_val_to_idx(uint64_t ns);
uint64_t rq_plat_idx_to_val(unsigned int idx);
/*
 * Percentiles with fio's method (stat.c calc_clat_percentiles): fills
 * @out[i] for each @pct[i] (0..100); returns the number filled (0 when
 * the stat is empty).
 */
int rq_lat_percentiles(const struct rq_lat_stat *s, const double *pct, int nr, uint64_t *out);
/*
 * fio's io_u_mark_lat_* bucket of a value in one unit (ns, us or ms):
 * 0 for <2, 1 for <4, ... 9 for <1000, 10 for <2000, 11 above.
 */
int rq_lat_bucket(uint64_t x);

/* fio's data directions (and queues/' enum rq_op values) */
enum rq_ddir { RQ_DDIR_READ = 0, RQ_DDIR_WRITE = 1, RQ_DDIR_TRIM = 2, RQ_DDIR_NR = 3 };

/* fio's periodic bandwidth/IOPS samples (every 500 ms per clone). */
struct rq_sample_stat {
	uint64_t samples;
	uint64_t min, max;
	double mean, stddev;
};

/* fio's iodepth_level buckets: 1, 2, 4, 8, 16, 32, >=64 */
#define RQ_DEPTH_BUCKETS 7

/*
 * The I/Os of one priority (fio's clat_prio_stat): a job that gives a share
 * of its I/Os another priority (cmdprio_percentage, cmdprio_bssplit) keeps
 * each priority's latencies apart as well - lat's under lat_percentiles,
 * else clat's, histogram as the direction's own - and fio shows them when
 * two or more priorities have samples.  Entry 0 is the job's own priority.
 */
#define RQ_PRIOS_MAX 32			/* every class (0..3) and level (0..7) */
#define RQ_IOPRIO_CLASS_SHIFT 13	/* the kernel's IOPRIO_PRIO_VALUE(class, level) */
struct rq_prio_stat {
	uint32_t ioprio;
	struct rq_lat_stat lat;
};

/* What one job clone did in one direction. */
struct rq_dir_report {
	uint64_t total_ios;
	uint64_t io_bytes;
	uint64_t runtime_ns;		/* time this direction was measured */
	struct rq_lat_stat slat;	/* bio built -> accepted by the queue */
	struct rq_lat_stat clat;	/* accepted by the queue -> completion */
	struct rq_lat_stat lat;		/* bio built -> completion */
	/*
	 * Rate-limited jobs only (paced): due time -> completion, the latency
	 * a user of a service issuing on that schedule would have seen
	 * (coordinated omission corrected; docs/LATENCY.md).  late_ios: I/Os
	 * built more than one mean interval after their due time (a backlog
	 * existed); max_lag_ns: the largest due -> built delay.
	 */
	bool paced;
	struct rq_lat_stat lat_intended;
	uint64_t late_ios, max_lag_ns;
	struct rq_sample_stat bw;	/* KiB/s per 500 ms sample */
	struct rq_sample_stat iops;	/* IOPS per 500 ms sample */
	/* per priority (cmdprio): nr_prios entries, owned by the report's maker; 0 = none kept */
	unsigned int nr_prios;
	struct rq_prio_stat *prio;
};

/*
 * @ioprio's entry in @d->prio, added (cleared, with that ioprio) if new;
 * NULL past RQ_PRIOS_MAX.  @d->prio must have room for RQ_PRIOS_MAX.
 */
struct rq_prio_stat *rq_prio_slot(struct rq_dir_report *d, uint32_t ioprio);
/*
 * Fold @src's priorities into @dst's, matched by ioprio (fio's
 * sum_clat_prio_stats), through rq_prio_slot(): past RQ_PRIOS_MAX, a
 * priority is dropped.
 */
void rq_prio_merge(struct rq_dir_report *dst, const struct rq_dir_report *src);

/*
 * fio's steady state (ss=, ss_dur=): a judge's window and verdict, as
 * fio's "steadystate" object and normal-output line show it.  The
 * engine's judge owns it and keeps it while the run goes on; a job's
 * clones judged together (group_reporting) share one.
 */
struct rq_ss_report {
	bool bw;			/* bandwidth was sampled, else IOPS */
	bool slope;			/* the slope was judged, else the largest deviation */
	bool pct;			/* limit and criterion are percentages of the mean */
	bool attained;
	bool ramp_over;			/* the judged (last) member's rates count: ss_ramp is over */
	double limit;
	double criterion;		/* the last judged: slope or deviation, or its percentage */
	double deviation, slope_val;	/* the last computed; 0 until the window was full */
	unsigned int dur;		/* samples in the window (seconds) */
	unsigned int count;		/* samples taken into it so far, at most dur */
	/* the window, oldest first, bytes/s and IOPS per second; zeros past what was sampled */
	const uint64_t *bw_data, *iops_data;
};

struct rq_job_report {
	char name[128];
	int groupid;
	int error;			/* the error that stopped the job, positive errno; 0 = none */
	uint64_t job_runtime_ns;	/* wall time the clone ran, ramp excluded */
	unsigned int clone;		/* clone index within the job (numjobs) */
	bool group_reporting;		/* merge with the rest of the group in output */
	const char *description;
	const double *percentiles;	/* the job's percentile_list, NULL = default */
	unsigned int nr_percentiles;
	bool lat_percentiles, clat_percentiles;
	int unified_rw_reporting;
	/* depth in flight when each I/O was issued, fio's iodepth_level */
	uint64_t depth_hist[RQ_DEPTH_BUCKETS];
	/* CPU of the worker the clone ran on, shared among its clones */
	double usr_cpu, sys_cpu;	/* percent of job_runtime */
	uint64_t ctx;			/* context switches */
	bool interrupted;		/* stopped by a signal before its end */
	/* ---- more of fio's per-job keys (0 where the engine has none) ---- */
	unsigned int kb_base;		/* the job's kb_base: units of the normal output; 0 = 1024 */
	unsigned int sig_figs;		/* the job's significant_figures; 0 = 4 */
	unsigned int percentile_precision;	/* decimals of a custom percentile list */
	bool slat_percentiles;
	/*
	 * fio's "latency_depth": the job's iodepth, or with latency_target the
	 * depth its search settled on; the search's settings beside it
	 */
	unsigned int iodepth;
	uint64_t latency_target_ns;	/* 0 = no search */
	uint64_t latency_window_us;
	double latency_percentile;
	uint64_t majf, minf;		/* page faults, as ctx */
	/*
	 * fio's iodepth_submit / iodepth_complete: I/Os handed to the kernel
	 * per submission call, and reaped per completion call, bucketed 0,
	 * 1-4, 5-8, 9-16, 17-32, 33-64, >64; one count per call.
	 */
	uint64_t submit_hist[RQ_DEPTH_BUCKETS];
	uint64_t complete_hist[RQ_DEPTH_BUCKETS];
	int continue_on_error;		/* the job's continue_on_error (enum rq_coe bits) */
	uint64_t total_err;		/* errors continued past */
	int first_error;		/* the first of them, positive errno */
	uint64_t zone_resets;		/* zonemode=zbd: zones this clone reset (fio's nr_zone_resets) */
	struct rq_dir_report dir[RQ_DDIR_NR];
	/* fsync=N's flushes (fio's DDIR_SYNC): how many, their latency from issue */
	uint64_t sync_ios;
	struct rq_lat_stat sync;
	const struct rq_ss_report *ss;	/* steady state (ss_dur), NULL = none */
	/* "job options" as fio prints them (key/value pairs, as written) */
	const char *const *opt_keys;
	const char *const *opt_vals;
	unsigned int nr_opts;
};

/*
 * A job's percentile list as fio shows it: the job's own (at most @max
 * of them) with its precision, or fio's default list with precision 2;
 * sorted, as fio sorts it.  Fills @out, returns how many.
 */
unsigned int rq_job_percentiles(const struct rq_job_report *m, double *out, unsigned int max,
				unsigned int *precision);

/* rqlock's own facts: what fio has no key for. */
struct rq_lock_report {
	char name[64];
	uint64_t acquisitions;
	uint64_t contentions;
};

struct rq_queue_report {
	char name[128];			/* device name */
	uint64_t requests;		/* requests allocated (after merging) */
	uint64_t bios;
	uint64_t merges_front, merges_back;
	uint64_t dispatched;
	uint64_t completed;
};

/*
 * What a lock mode says about itself: a list of named values, filled by
 * the mode's report hooks and rendered by results/ under rqlock.mode
 * without knowing the mode (as blk-mq-debugfs registers each elevator's
 * attributes without naming it).  Names are JSON keys: snake_case, each
 * documented beside the mode's report hook.
 */
#define RQ_FACTS_MAX 8

struct rq_fact {
	const char *name;		/* static storage: the mode's string */
	int64_t value;
};

struct rq_facts {
	unsigned int nr;
	struct rq_fact v[RQ_FACTS_MAX];
};

/* Add @v to the fact @name (a new one starts at 0); past RQ_FACTS_MAX it is dropped. */
static inline void rq_fact_add(struct rq_facts *f, const char *name, int64_t v)
{
	for (unsigned int i = 0; i < f->nr; i++) {
		if (!strcmp(f->v[i].name, name)) {
			f->v[i].value += v;
			return;
		}
	}
	if (f->nr < RQ_FACTS_MAX)
		f->v[f->nr++] = (struct rq_fact){ name, v };
}

/* The fact @name, or @def when the mode did not report it. */
static inline int64_t rq_fact_get(const struct rq_facts *f, const char *name, int64_t def)
{
	for (unsigned int i = 0; i < f->nr; i++)
		if (!strcmp(f->v[i].name, name))
			return f->v[i].value;
	return def;
}

/* A queue as the lock mode sees it. */
struct rq_mode_queue_report {
	char name[128];			/* device name */
	/* the mode's facts about the queue; "owner_partition": see rq_mode_report */
	struct rq_facts facts;
};

/*
 * lockstat, per lock class, as Linux's /proc/lock_stat.  Wait time is
 * measured on every contended acquisition (from the failed first attempt
 * to the acquisition); hold time on a random 1 in hold_sample
 * acquisitions, so hold.samples < acquisitions and hold.total_ns is
 * avg_ns x acquisitions, an estimate.  Times are clock ticks converted to
 * ns with a rate measured over the whole run; the cost of one clock read
 * (overhead_ns, measured at set-up) is subtracted from every sample.
 */
#define RQ_LOCKSTAT_HIST_NR 368		/* buckets; see queues/queue.h RQ_LOCK_HIST_NR */
#define RQ_LOCKSTAT_SITES 4		/* top contention sites reported */
#define RQ_LOCKSTAT_HOLDERS 8		/* top (waiter, holder, site) triples reported */

/*
 * Who held the lock when a contended wait began: waiter and holder are
 * the queues (devices) the two acquisitions were for ("" = not said),
 * holder_site where the holder took it; wait_ns the waits' total.
 */
struct rq_lockstat_holder {
	char waiter[64], holder[64], holder_site[64];
	uint64_t contentions;
	uint64_t wait_ns;
};

struct rq_lockstat_bucket {
	uint64_t lo_ns;			/* the bucket's lower bound */
	uint64_t count;
};

struct rq_lockstat_time {
	uint64_t samples;
	uint64_t min_ns, max_ns, total_ns;
	double avg_ns;
	unsigned int nr_buckets;	/* non-empty buckets, in order */
	struct rq_lockstat_bucket buckets[RQ_LOCKSTAT_HIST_NR];
};

struct rq_lockstat_site {
	char site[128];			/* "queues/legacy.c:95" */
	uint64_t contentions;
};

struct rq_lockstat_class {
	char name[64];
	unsigned int locks;		/* instances of the class */
	uint64_t acquisitions;
	uint64_t contentions;
	uint64_t acq_bounces;		/* taken after another worker held it */
	uint64_t con_bounces;		/* contended, and another worker held it before */
	struct rq_lockstat_time wait;	/* samples = contended acquisitions */
	struct rq_lockstat_time hold;	/* samples = sampled acquisitions */
	struct rq_lockstat_time handoff;	/* release of a sampled hold to the waiter that took it next */
	uint64_t rel_sampled;		/* sampled releases */
	uint64_t rel_waited;		/* of them, those that left a waiter behind */
	struct rq_lockstat_time gap;	/* such a release to the next acquisition, by anyone */
	uint64_t release_samples;	/* sampled releases timed in the primitive's unlock */
	double release_ns;		/* their mean time there (a mutex's futex wake) */
	unsigned int nr_sites;
	struct rq_lockstat_site sites[RQ_LOCKSTAT_SITES];	/* most contended first */
	unsigned int nr_holders;
	struct rq_lockstat_holder holders[RQ_LOCKSTAT_HOLDERS];	/* longest total wait first */
	uint64_t holders_other;		/* contentions not in holders[] */
};

struct rq_lockstat_report {
	bool enabled;
	const char *clock;		/* "tsc" or "clock_gettime" */
	unsigned int hold_sample;	/* hold time measured on 1 in N acquisitions */
	double overhead_ns;		/* one clock read, subtracted from each sample */
	uint64_t elapsed_ns;		/* set-up to report */
	unsigned int nr_classes;
	struct rq_lockstat_class *classes;
};

struct rq_lockdep_edge {
	char from[64], to[64];		/* "held from while taking to" */
	char from_site[128], to_site[128];
	int cpu;			/* the worker that first did it */
};

struct rq_lockdep_report {
	bool enabled;			/* --lockdep: edges followed, a cycle fails the run */
	unsigned int classes;		/* lock classes acquired at least once */
	unsigned int edges;		/* ordering edges exercised (0 without lockdep) */
	unsigned int cycles;		/* order cycles and recursive classes found */
	unsigned int nr_edges;
	struct rq_lockdep_edge *edge_list;
	char cycle[1024];		/* the first cycle's report, "" if none */
};

/* The lock mode's run-wide facts. */
struct rq_mode_report {
	struct rq_facts facts;
	/*
	 * A mode that partitions the workers (cluster) gives its map:
	 * nr_workers entries, each worker's partition (0 .. nr_partitions-1),
	 * and each queue's owner as its fact "owner_partition".  Rendered
	 * as rqlock.cluster; NULL for a mode with no partitions.
	 */
	const unsigned int *worker_part;
	unsigned int nr_workers;
	unsigned int nr_partitions;
	unsigned int nr_queues;
	struct rq_mode_queue_report *queues;
};

struct rq_device_report {
	char name[128];			/* as written in the job (filename) */
	char kind[32];			/* null, file, blkdev */
	char subkind[32];		/* blkdev: nvme, sata, scsi, virtio, loop, ...; else "" */
	char path[256];			/* path opened, "" for null */
	char model[64];
	uint64_t size;
	uint32_t logical_block_size;
	uint32_t queue_depth;
	char serial[64];
	char transport[16];		/* pcie, sata, scsi, virtio, loop, usb, file, memory, model */
	int rotational;			/* 1, 0, -1 unknown */
	char registered[24];		/* io_uring registration: files+buffers, files, none, n/a */
};

/*
 * A request that never came back: abandoned when the interrupt's grace
 * ran out (or a second signal came) or when the stall watchdog ended the
 * run.  One per bio its clone still had in flight.
 */
struct rq_stuck_report {
	char job[128];
	unsigned int clone;		/* clone index within the job */
	char device[128];		/* the queue's name: the spec as written */
	int op;				/* enum rq_ddir */
	uint64_t offset;		/* bytes */
	uint32_t len;			/* bytes */
	uint64_t age_ns;		/* built -> abandoned */
};

/*
 * What the binary knows it has: the lock modes (with their flags), the
 * lock primitives and the device kinds and filters (with their options),
 * from the registries.  `rqlock --list --json` prints it alone; every
 * JSON report carries it as rqlock.registry.  The one source of names and
 * properties for the Python tools, completion and scripts.
 */
struct rq_registry_option {
	const char *name, *type, *def, *help;	/* def "" = none */
};

struct rq_registry_device {
	const char *name;
	const char *builtin;		/* "@null", "" for a path kind */
	const char *ioengine;		/* the fio engine it serves, "" if none */
	const char *help;
	bool filter;			/* in front of another device (of=) */
	unsigned int nr_options;
	const struct rq_registry_option *options;
};

#define RQ_REGISTRY_FLAGS_MAX 8
struct rq_registry_mode {
	const char *name, *help;
	unsigned int nr_flags;
	const char *flags[RQ_REGISTRY_FLAGS_MAX];	/* "shared_lock", "all_workers" */
	const char *const *options;	/* the rqlock flags it reads ("hw-queues"), NULL-ended; may be NULL */
};

struct rq_registry {
	unsigned int nr_modes, nr_primitives, nr_devices;
	const struct rq_registry_mode *modes;
	const char *const *primitives;
	const struct rq_registry_device *devices;
};

/* The `rqlock --list --json` document: {"modes": ..., "primitives": ..., "devices": ...}. */
int rq_registry_json_write(FILE *f, const struct rq_registry *reg);

struct rq_run_report {
	const char *version;		/* "rqlock-x.y" */
	uint64_t timestamp;		/* seconds since the epoch */
	uint64_t timestamp_ms;
	char time[64];			/* asctime-like, as fio's "time" */
	struct rq_job_report *jobs;
	unsigned int nr_jobs;

	const char *lock_mode;
	const char *lock_type;
	const char *clock;		/* "tsc" or "clock_gettime" */
	unsigned int workers;
	struct rq_lock_report *locks;
	unsigned int nr_locks;
	struct rq_queue_report *queues;
	unsigned int nr_queues;
	struct rq_device_report *devices;
	unsigned int nr_devices;
	/* The engine's exactly-once accounting, checked at the end of a run. */
	uint64_t bios_submitted;
	uint64_t bios_completed;
	/*
	 * Bios still in flight when the run gave up on them (the grace after
	 * an interrupt ran out, or the stall watchdog): submitted = completed
	 * + abandoned, each listed in stuck[].  A bio neither completed nor
	 * abandoned is lost, and the run fails its exactly-once check.
	 */
	uint64_t bios_abandoned;
	struct rq_stuck_report *stuck;
	unsigned int nr_stuck;
	uint64_t sectors_verified;	/* read sectors whose offset stamp was checked */
	int interrupted;		/* signal that stopped the run early, 0 = none */
	bool stalled;			/* the stall watchdog ended the run */
	/* fio's "global options": the last job's global_keys/global_vals (jobfile/job.h) */
	const char *const *global_opt_keys;
	const char *const *global_opt_vals;
	unsigned int nr_global_opts;
	uint64_t elapsed_ms;		/* run start to report (fio's "elapsed", "eta") */
	struct rq_machine_load machine;	/* the rest of the machine meanwhile (lib/machine.h) */
	/* Filled by rq_queues_report() (queues/); rendered by results/lockstat.c. */
	struct rq_lockstat_report lockstat;
	struct rq_lockdep_report lockdep;
	struct rq_mode_report mode;
	const struct rq_registry *registry;	/* NULL: not rendered */
	/* the machine and the placement (engine/place.c); NULL when unknown */
	const struct rq_topo *topo;
	const int *worker_cpu;		/* workers entries */
	bool cluster_from_llc;		/* cluster partitions are the LLC domains */
};

enum rq_output_format {
	RQ_OUTPUT_NORMAL = 1 << 0,
	RQ_OUTPUT_JSON = 1 << 1,
	RQ_OUTPUT_JSON_PLUS = 1 << 2,	/* json with "bins"; always set with RQ_OUTPUT_JSON */
	RQ_OUTPUT_TERSE = 1 << 3,	/* fio's --minimal, version 3 */
};

/*
 * "normal", "json", "json+", "terse" or a comma list of them, as fio's
 * --output-format; -EINVAL if unknown.
 */
int rq_output_parse_format(const char *s, unsigned int *formats);
/* Render @r in each format set in @formats to @f.  Returns 0 or -errno. */
int rq_output_write(const struct rq_run_report *r, unsigned int formats, FILE *f);

/*
 * results/lockstat.c: the lockstat, lockdep and lock-mode parts of a
 * report.  rq_lockstat_text() writes the normal-output section (a table
 * per class as /proc/lock_stat, top contention sites, lockdep's counts,
 * the mode's facts) and returns 0 or -EIO.  rq_lockstat_json() writes
 * the members "lockstat", "lockdep" and "mode" into the open "rqlock"
 * object of results/json_internal.h's writer.
 */
int rq_lockstat_text(FILE *f, const struct rq_run_report *r);
struct rq_json;
void rq_lockstat_json(struct rq_json *j, const struct rq_run_report *r);

/*
 * ---- fio's logs (results/iolog.c) ----
 *
 * The lat, slat, clat, bw, iops and clat_hist logs of fio 3.33
 * (write_lat_log, write_bw_log, write_iops_log, write_hist_log), with its
 * file names and lines, so fio2gnuplot, fio_generate_plots and
 * fiologparser_hist.py read them:
 *
 *   time, value, ddir, bs[, offset], prio
 *   time, ddir, bs, count0, count1, ... (clat_hist: FIO_IO_U_PLAT_NR buckets)
 *
 * time is ms since the job's statistics began (after ramp_time), ddir 0
 * read, 1 write and 2 trim, prio 0 (the RT flag; 0x%04x with log_prio).  Latency
 * values are ns; bw is KiB/s averaged, or bytes*10^6/clat_ns per I/O as
 * fio computes it; iops is 1 per I/O.  With log_avg_msec a line is the
 * mean (log_max_value: the maximum) of a window, bs and offset 0.  A
 * clat_hist line holds the I/Os completed since the previous line, every
 * log_hist_msec.
 *
 * A kind of log is one entry of rq_log_kinds[]: its file suffix, how it
 * samples, and the value an I/O gives it.  Samples are kept in memory,
 * in chunks, and written when the run is over (fio does the same), so
 * logging costs a clone an append per I/O and no system call.
 */
enum rq_log_kind {
	RQ_LOG_LAT,
	RQ_LOG_SLAT,
	RQ_LOG_CLAT,
	RQ_LOG_CLAT_HIST,
	RQ_LOG_BW,
	RQ_LOG_IOPS,
	RQ_LOG_LAT_INTENDED,	/* rqlock's: from the rate schedule's due time */
	RQ_LOG_NR_KINDS,
};

/* One completed I/O as the logs see it; times on the run's clock. */
struct rq_log_io {
	uint64_t t_ms;			/* since the job's statistics began */
	uint64_t start_ns, issue_ns, done_ns;
	uint64_t due_ns;		/* the rate schedule's time for it; 0 = none */
	uint64_t offset;
	uint32_t bytes;
	int ddir;
	uint16_t ioprio;		/* its priority, the kernel's value (0: none) */
	const uint64_t *clat_plat;	/* the direction's clat histogram, this I/O in it */
};

enum rq_log_sampling {
	RQ_LOGS_PER_IO,		/* a value per I/O (windowed by log_avg_msec) */
	RQ_LOGS_RATE,		/* per I/O, or with log_avg_msec a rate per window */
	RQ_LOGS_HIST,		/* the clat histogram every log_hist_msec */
};

struct rq_log_kind_info {
	const char *suffix;		/* PREFIX_<suffix>[.N].log */
	const char *option;		/* the job option that asks for it */
	enum rq_log_sampling sampling;
	/* PER_IO and RATE: the value one I/O logs; NULL = the kind has no source yet */
	uint64_t (*value)(const struct rq_log_io *io);
	bool rate_bytes;		/* RATE: counts bytes (KiB/s), else I/Os */
};
extern const struct rq_log_kind_info rq_log_kinds[RQ_LOG_NR_KINDS];

struct rq_log_params {
	unsigned int avg_msec;		/* log_avg_msec */
	unsigned int hist_msec;		/* log_hist_msec */
	unsigned int hist_coarseness;	/* log_hist_coarseness, 0..6 */
	bool log_max;			/* log_max_value */
	bool log_offset, log_prio;
	bool store_gz;			/* log_store_compressed: fio's .fz, zlib streams of binary samples */
	uint64_t gz_chunk;		/* log_compression: sample bytes per stream, 0 = LOG_CHUNK samples */
};

/* One log file's samples. */
struct rq_log;
/* @kind: its rq_log_kinds[] entry, or NULL for a plain value log (rq_log_add only). */
struct rq_log *rq_log_new(const char *path, const struct rq_log_kind_info *kind,
			  const struct rq_log_params *p);
/* A value at @t_ms (windowed when avg_msec is set); out of memory drops it and marks the log. */
void rq_log_add(struct rq_log *l, uint64_t t_ms, uint64_t val, int ddir, uint64_t bs, uint64_t offset);
/* Close the open windows at @t_ms (fio's finalize_logs). */
void rq_log_finish(struct rq_log *l, uint64_t t_ms);
const char *rq_log_path(const struct rq_log *l);
/* Write the file ("a" with @append, else "w"); 0 or -errno after one line on @err. */
int rq_log_write(struct rq_log *l, bool append, FILE *err);
void rq_log_free(struct rq_log *l);
/*
 * fio's --inflate-log: the samples of the compressed log @path (as
 * log_store_compressed writes it: zlib streams of fio's binary samples)
 * as text lines on @out, fio's format.  0, or -errno after one line on
 * @err naming the file (not a compressed log, truncated, unreadable).
 */
int rq_log_inflate(const char *path, FILE *out, FILE *err);

/* A job clone's logs: one rq_log per kind asked for. */
struct rq_logs {
	struct rq_log *log[RQ_LOG_NR_KINDS];
	unsigned int avg_msec;
	uint64_t next_tick_ms;		/* rate logs with avg_msec: the next window */
	uint64_t tick_last_ms;
	uint64_t tick_count[RQ_LOG_NR_KINDS][RQ_DDIR_NR];
};
/* Every kind with a non-NULL @paths[k]; NULL on ENOMEM. */
struct rq_logs *rq_logs_new(const char *const paths[RQ_LOG_NR_KINDS], const struct rq_log_params *p);
/* A completed I/O: the per-I/O values and the histogram. */
void rq_logs_io(struct rq_logs *ls, const struct rq_log_io *io);
/*
 * The rate logs' windows (log_avg_msec): call with the clone's byte and
 * I/O counts since its statistics began; cheap when no window has ended.
 */
void rq_logs_tick(struct rq_logs *ls, uint64_t t_ms, const uint64_t bytes[RQ_DDIR_NR],
		  const uint64_t ios[RQ_DDIR_NR]);
void rq_logs_finish(struct rq_logs *ls, uint64_t t_ms);
void rq_logs_free(struct rq_logs *ls);
/*
 * fio's gen_log_name: PREFIX_SUFFIX.N.log, or PREFIX_SUFFIX.log without
 * per_job_logs.  Returns snprintf's count.
 */
int rq_log_name(char *buf, size_t size, const char *prefix, const char *suffix, unsigned int n,
		bool per_job);

/*
 * fio's num2str(): @num scaled by 1000 (1024 with @pow2) to at most
 * @maxlen digits, a fraction in the spare ones, then @unit: "24.0GiB/s".
 */
const char *rq_num2str(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2,
		       const char *unit);

/*
 * ---- the status line (results/status.c) ----
 *
 * fio 3.33's (eta.c display_thread_status), one line without its '\r':
 *   Jobs: 1 (f=1): [r(1)][66.7%][r=24.0GiB/s][r=6300k IOPS][eta 00m:01s]
 * run_str has a character per job clone, fio's: P not started, / ramp,
 * r R w W m M running (random, sequential), V verifying, _ done, X failed,
 * K stopped by a signal; it is condensed to "r(2),_(1)".
 */
struct rq_status {
	unsigned int running;		/* clones running */
	unsigned int files;		/* their files */
	const char *run_str;		/* a character per clone */
	double perc;			/* 0..100; < 0 prints "-.-%" */
	int64_t eta_sec;		/* < 0 prints "--" */
	uint64_t bytes_per_sec[RQ_DDIR_NR];
	uint64_t iops[RQ_DDIR_NR];
	bool pow2;			/* kb_base 1024: GiB/s, else GB/s */
};
/* Returns the length written to @buf (always terminated). */
int rq_status_line(char *buf, size_t len, const struct rq_status *s);
/* fio's eta_to_str: "01m:05s", "02h:01m:05s", "--" for < 0 */
void rq_eta_str(char *buf, size_t len, int64_t sec);

#endif /* RQ_RESULTS_H */
