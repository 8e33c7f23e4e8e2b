/* SPDX-License-Identifier: MIT */
/*
 * job.h - a job as the job-file parser resolves it.
 *
 * The parser (jobfile/) turns fio job files into a list of
 * struct rq_job, one per job section, with [global] options and defaults
 * already applied.  The runner (engine/) clones each job numjobs
 * times.  Nothing here knows about queues or devices.
 */
#ifndef RQ_JOB_H
#define RQ_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum rq_rw {
	RQ_RW_READ,		/* read */
	RQ_RW_WRITE,		/* write */
	RQ_RW_RANDREAD,		/* randread */
	RQ_RW_RANDWRITE,	/* randwrite */
	RQ_RW_RW,		/* rw, readwrite: sequential mixed */
	RQ_RW_RANDRW,		/* randrw: random mixed */
	/*
	 * Trims (discards): trim, randtrim; trimwrite, randtrimwrite: a trim,
	 * then a write of the same blocks (fio's td_trimwrite), the job's
	 * size counted in written bytes as fio counts it.  Keep them last:
	 * rq_rw_trims() is a comparison.
	 */
	RQ_RW_TRIM, RQ_RW_RANDTRIM, RQ_RW_TRIMWRITE, RQ_RW_RANDTRIMWRITE,
};

enum rq_ioengine {
	RQ_IOENGINE_IO_URING,	/* default: io_uring (fio's default is psync; see jobfile/opt_io.c) */
	RQ_IOENGINE_NULL,	/* fio's null engine: no I/O, no file */
	RQ_IOENGINE_LIBAIO,	/* libaio on files and block devices */
	RQ_IOENGINE_IO_URING_CMD,	/* NVMe passthrough on /dev/ngXnY */
	/*
	 * fio's synchronous engines (psync is fio's default): one I/O in
	 * flight, whatever iodepth says (fio caps it at 1 and says so).  The
	 * runner issues them through io_uring at depth 1 (cli/main.c).
	 */
	RQ_IOENGINE_SYNC,
	RQ_IOENGINE_PSYNC,
	RQ_IOENGINE_POSIXAIO,	/* POSIX AIO on files and block devices (devices/posixaio.c) */
};

/*
 * Bits of rq_job.stonewall.  Any bit set means a new reporting group starts
 * at this job; only RQ_JOB_STONEWALL makes the job wait for earlier ones,
 * as fio keeps stonewall and new_group apart.
 */
#define RQ_JOB_STONEWALL	0x1	/* stonewall, wait_for_previous, next job file */
#define RQ_JOB_NEW_GROUP	0x2	/* new_group: new reporting group, no waiting */

enum rq_rand_dist {
	RQ_RAND_UNIFORM = 0,	/* random (default) */
	RQ_RAND_ZIPF,		/* zipf:theta */
	RQ_RAND_PARETO,		/* pareto:h */
	RQ_RAND_NORMAL,		/* normal:sigma (percent of the region) */
	RQ_RAND_ZONED,		/* zoned:A/S:...: A% of I/Os in a zone of S% of the region */
	RQ_RAND_ZONED_ABS,	/* zoned_abs:A/SIZE:...: zones given in bytes */
};

/* exit_what: whom exitall stops */
enum rq_exit_what {
	RQ_EXIT_GROUP = 0,	/* the job's reporting group (default) */
	RQ_EXIT_STONEWALL,	/* every job running with it */
	RQ_EXIT_ALL,		/* every job, later ones never start */
};

/* fio's file_service_type */
enum rq_file_service {
	RQ_FS_ROUNDROBIN = 0,	/* roundrobin (default) */
	RQ_FS_SEQUENTIAL,	/* sequential: each file in turn to its end */
	RQ_FS_RANDOM,		/* random */
};

/* zonemode */
enum rq_zonemode {
	RQ_ZONEMODE_NONE = 0,
	RQ_ZONEMODE_STRIDED,	/* zonesize bytes of I/O, then skip zoneskip */
	RQ_ZONEMODE_ZBD,	/* zoned block devices: refused at run time */
};

enum rq_verify {
	RQ_VERIFY_NONE = 0,
	RQ_VERIFY_CRC32C,	/* crc32c, crc32c-intel */
	RQ_VERIFY_MD5,
	RQ_VERIFY_PATTERN,	/* verify_pattern only */
	RQ_VERIFY_META,		/* fio's meta: the header (offset, length, sequence) only */
};

/* continue_on_error, as fio's */
enum rq_coe {
	RQ_COE_NONE = 0, RQ_COE_READ = 1, RQ_COE_WRITE = 2, RQ_COE_IO = 3,
	RQ_COE_VERIFY = 4, RQ_COE_ALL = 7,
};

#define RQ_JOB_NAME_MAX 128
#define RQ_MAX_BSSPLIT 64
#define RQ_MAX_PERCENTILES 20
#define RQ_CPUMASK_WORDS 16		/* 1024 CPUs */
#define RQ_JOB_PATH_MAX 4096
#define RQ_JOB_OPTS_MAX 512		/* options in the parser's table, at most */
#define RQ_JOB_LOG_NAME_MAX 1024

/* rq_job.write_logs bits */
#define RQ_JOB_LOG_LAT		0x1	/* write_lat_log: lat, slat, clat */
#define RQ_JOB_LOG_BW		0x2	/* write_bw_log */
#define RQ_JOB_LOG_IOPS		0x4	/* write_iops_log */
#define RQ_JOB_LOG_HIST		0x8	/* write_hist_log: clat_hist */

/* rq_job.replay_skip bits (fio's replay_skip=read,write,trim,sync) */
#define RQ_REPLAY_SKIP_READ	0x1
#define RQ_REPLAY_SKIP_WRITE	0x2
#define RQ_REPLAY_SKIP_TRIM	0x4
#define RQ_REPLAY_SKIP_SYNC	0x8	/* sync and datasync */

/* rq_job.ss_flags: fio's steady-state criterion (ss=) */
#define RQ_JOB_SS_BW		0x1	/* bandwidth is sampled, else IOPS */
#define RQ_JOB_SS_SLOPE		0x2	/* the window's least-squares slope, else its largest deviation */
#define RQ_JOB_SS_PCT		0x4	/* the limit is a percentage of the window's mean */

#define RQ_MAX_MERGE_TRACES 20	/* merge_blktrace_scalars/iters: fio's FIO_IO_U_LIST_MAX_LEN */
#define RQ_MAX_ZONES 256		/* random_distribution=zoned: fio's ZONESPLIT_MAX */
#define RQ_MAX_IGNORE 32		/* ignore_error: errnos per kind, as fio's */

struct rq_job {
	char name[RQ_JOB_NAME_MAX];
	/* Where the section started: for error messages ("file:line"). */
	char file[RQ_JOB_PATH_MAX];
	int line;

	enum rq_rw rw;
	unsigned int rwmixread;		/* percent of reads in mixed jobs, default 50 */
	uint32_t bs[3];			/* block size per direction [read, write, trim], default 4096 */
	unsigned int iodepth;		/* default 1 */
	unsigned int numjobs;		/* default 1 */
	uint64_t size;			/* bytes; 0 = whole device/file */
	uint64_t offset;		/* bytes, default 0 */
	/*
	 * size=N%, offset=N%, offset_increment=N%: percent (0..100] of the
	 * device or file, resolved by the engine against its size as fio does
	 * (the byte field is 0 then); 0 = not given.
	 */
	double size_pct, offset_pct, offset_increment_pct;
	uint64_t runtime_ns;		/* 0 = until size is done */
	uint64_t ramp_ns;		/* ramp_time: I/O runs, stats are not kept */
	bool time_based;
	bool direct;
	bool group_reporting;		/* parsed; group merging is done by results/ */
	int stonewall;			/* a new reporting group starts here (also new_group) */
	enum rq_ioengine ioengine;
	/* filename as written; ':' separates several, '\:' is a literal ':'. */
	char filename[RQ_JOB_PATH_MAX];
	int groupid;			/* set by the parser from stonewall/new_group */

	/* ---- block sizes beyond bs (fio: bsrange, bssplit) ---- */
	uint32_t bs_min[3], bs_max[3];	/* bsrange; both = bs when not given */
	struct {
		uint32_t bs;
		uint32_t pct;		/* 0..100; blanks already share the rest */
	} bssplit[3][RQ_MAX_BSSPLIT];	/* sorted by pct, ascending, as fio keeps it */
	/*
	 * 0 = no bssplit.  The shares may add up to less than 100 (fio
	 * truncates (100 - given) / blanks): fio then picks the last entry.
	 */
	unsigned int nr_bssplit[3];
	unsigned int rw_seq_nr;		/* rw=rand...:N: a new random offset every N I/Os; 0 when not given */
	/*
	 * rw=read:N (sequential): skip N bytes after each I/O; 0 = none.
	 * Negative (rw=read:-N): each I/O starts N bytes before the end of the
	 * previous one - backwards when N > bs - wrapping to the region's end.
	 */
	int64_t rw_seq_add;

	/* ---- load shaping ---- */
	uint64_t rate_iops[3];		/* per clone and direction [read, write, trim], 0 = unlimited */
	bool rate_poisson;		/* rate_process=poisson */
	uint64_t thinktime_us;
	uint64_t thinktime_spin_us;
	unsigned int thinktime_blocks;	/* default 1 */
	unsigned int iodepth_batch_submit;	/* default 1; 0 or above iodepth = iodepth, as fio */
	unsigned int iodepth_batch_complete_min;	/* default 1 */
	unsigned int iodepth_batch_complete_max;	/* default (and at least) iodepth_batch_complete_min */
	uint64_t offset_increment;	/* clone k starts at offset + k * this */
	enum rq_rand_dist random_distribution;
	double rand_param;		/* theta, h or sigma */
	double rand_center;		/* random_distribution=...:P:C, C in [0, 1]; -1 = not given */
	bool norandommap;
	bool lfsr;			/* random_generator=lfsr */
	bool randrepeat;		/* default true */
	uint64_t randseed;		/* default fio's 0x89 */
	bool randseed_set;		/* given: the seed, with randrepeat off (fio's fixup_options()) */
	bool has_cpus_allowed;
	uint64_t cpus_allowed[RQ_CPUMASK_WORDS];
	bool cpus_allowed_split;	/* cpus_allowed_policy=split */
	/*
	 * numa_cpu_nodes=LIST, numa_mem_policy=MODE[:LIST], as written; ""
	 * = none.  rqlock places workers by the machine's topology; the run
	 * checks them as fio's callbacks do (engine/setup.c), --parse-only not.
	 */
	char numa_cpu_nodes[64];
	char numa_mem_policy[80];
	char write_iolog[RQ_JOB_PATH_MAX];	/* write_iolog=FILE, "" = none */
	/* read_iolog: replay fio's iolog v2/v3 or a blktrace (engine/replay.c, blktrace.c); "" = none */
	char read_iolog[RQ_JOB_PATH_MAX];	/* FILE, or FILE:FILE... one per clone in turn */
	/* read_iolog's blktraces merged by time into this one, which the job replays; "" = none */
	char merge_blktrace_file[RQ_JOB_PATH_MAX];
	/*
	 * per trace of read_iolog, in order: percent of its times (50: twice
	 * as fast), its passes; as given (fio keeps the whole part of each)
	 */
	double merge_blktrace_scalars[RQ_MAX_MERGE_TRACES];
	double merge_blktrace_iters[RQ_MAX_MERGE_TRACES];
	unsigned int nr_merge_scalars, nr_merge_iters;	/* 0: not given (100 and 1 for each) */
	char replay_redirect[RQ_JOB_PATH_MAX];	/* every I/O of the log to this file; "" = the log's */
	bool replay_no_stall;		/* ignore the log's times: issue as fast as the depth allows */
	unsigned int replay_time_scale;	/* percent of the log's rate (200: twice as fast); default 100 */
	uint64_t replay_scale;		/* offsets divided by this; default 1 */
	uint64_t replay_align;		/* offsets rounded down to this power of 2; 0 = none */
	unsigned int replay_skip;	/* RQ_REPLAY_SKIP_* bits: actions of the log not replayed */
	char wait_for[RQ_JOB_NAME_MAX];	/* wait_for=NAME, "" = none */

	/* random_distribution=zoned|zoned_abs, per direction [read, write, trim] */
	struct {
		uint8_t access;		/* percent of the I/Os */
		uint8_t size_pct;	/* zoned: percent of the region */
		uint64_t size;		/* zoned_abs: bytes */
	} zones[3][RQ_MAX_ZONES];
	unsigned int nr_zones[3];
	uint32_t blockalign[3];		/* ba: random offsets aligned to this; 0 = the smallest bs */
	enum rq_zonemode zonemode;
	uint64_t zonesize, zoneskip;	/* strided: bytes of I/O per zone, and skipped after; zbd: a zone's size */
	uint64_t zonerange;
	/* zonemode=zbd, zones emulated on a file or a block device (engine/zbd.c) */
	uint64_t zonecapacity;		/* bytes of a zone that take writes; 0 = zonesize */
	unsigned int max_open_zones;	/* zones open at once on the device; 0 = no limit */
	unsigned int job_max_open_zones;	/* ... by one clone; 0 = no limit */
	bool read_beyond_wp;		/* reads go past the write pointer (else only written data) */
	bool ignore_zone_limits;	/* a zoned device's own limit is not asked (emulation has none) */
	double zone_reset_threshold;	/* share of the region with data above which ... */
	double zone_reset_frequency;	/* ... this share of writes resets its zone first; 0 = never */
	/* counts of zones ("2z"), made bytes by jf_zone_fixup() once zonesize is known; 0 = none */
	uint64_t size_nz, io_size_nz, offset_nz, offset_increment_nz, zoneskip_nz;

	/* ---- amount of I/O ---- */
	uint64_t io_size;		/* io_size, io_limit: bytes of I/O per loop; 0 = size */
	unsigned int loops;		/* default 1: the job's I/O, this many times */
	uint64_t number_ios;		/* stop after this many I/Os; 0 = no limit */
	uint64_t startdelay_ns;		/* start this long after the group */
	uint64_t rate[3];		/* bytes per second per clone, R,W,T; 0 = unlimited */
	bool exitall;			/* the first job to finish ends all jobs */
	/*
	 * ---- steady state (fio's ss, ss_dur, ss_ramp; engine/steadystate.c) ----
	 * The job ends once its IOPS or bandwidth, sampled each second, held
	 * within ss_limit over a window of ss_dur (whole seconds; 0 = no
	 * detection), samples kept from ss_ramp on.
	 */
	unsigned int ss_flags;		/* RQ_JOB_SS_* */
	double ss_limit;
	uint64_t ss_dur_ns;
	uint64_t ss_ramp_ns;
	bool exitall_on_error;		/* the first job to fail ends all jobs */
	int exit_what;			/* enum rq_exit_what: whom exitall ends */

	/* ---- files (fio's file layout) ---- */
	char directory[RQ_JOB_PATH_MAX];	/* ':' separates several */
	uint64_t filesize_min, filesize_max;	/* 0 = size / nrfiles */
	unsigned int nrfiles;		/* default 1 */
	char filename_format[256];	/* default "$jobname.$jobnum.$filenum" */
	enum rq_file_service file_service;
	bool unlink;			/* remove the job's regular files when the run is done */
	bool fill_device;		/* fill_device, fill_fs: write until the filesystem is full (ENOSPC ends it) */
	bool no_file_create;		/* allow_file_create=0: a missing file fails the job */

	/* ---- flow (fio's token-based flow control between jobs) ---- */
	int flow;			/* weight: added to the flow_id's counter per I/O */
	unsigned int flow_id;
	uint64_t flow_watermark;	/* default 1024 */
	uint64_t flow_sleep_us;

	/* ---- latency_target: fio's search for the deepest queue under a target ---- */
	uint64_t latency_target_ns;	/* 0 = no search */
	uint64_t latency_window_ns;
	double latency_percentile;	/* default 100 */
	bool latency_run;		/* keep adjusting the depth; 0 = stop once found */

	/* ---- statistics fio's gtod_reduce turns off ---- */
	bool gtod_reduce;
	bool disable_lat, disable_clat, disable_slat, disable_bw;

	/* ---- reporting ---- */
	double percentile_list[RQ_MAX_PERCENTILES];
	unsigned int nr_percentiles;	/* 0 = fio's default list */
	unsigned int percentile_precision;	/* decimals shown in normal output, fio's rule; default 2 */
	bool lat_percentiles;
	bool clat_percentiles;		/* default true */
	bool slat_percentiles;
	unsigned int kb_base;		/* 1024 or 1000: units of the normal output, as fio */
	unsigned int sig_figs;		/* significant_figures of the normal output's amounts, 1..10 */
	int unified_rw_reporting;	/* 0 none, 1 mixed, 2 both */
	char description[256];

	/* ---- verification and errors (fio's verify options) ---- */
	enum rq_verify verify;
	unsigned char verify_pattern[512];
	unsigned int verify_pattern_len;	/* 0 = none */
	bool do_verify;			/* default true: write jobs read back */
	unsigned int verify_backlog;	/* verify after this many writes, 0 = at end */
	bool verify_only;		/* write nothing: replay the writes' sequence and read back */
	bool verify_state_save;		/* default true: a writing verify job leaves its state file */
	bool verify_state_load;		/* check only the writes a saved state says completed */
	bool experimental_verify;	/* read back by replaying the offsets, no log while writing */
	int continue_on_error;		/* enum rq_coe bits */
	uint32_t verify_interval;	/* a header every this many bytes; 0 = the block size */
	uint32_t verify_offset;		/* the header sits this far into each interval */
	/* ignore_error: errnos that do not end the job, per [read, write, verify] */
	int ignore_error[3][RQ_MAX_IGNORE];
	unsigned int nr_ignore_error[3];
	unsigned char buffer_pattern[512];	/* written data when not verifying */
	unsigned int buffer_pattern_len;	/* 0 = rqlock's stamps */
	/*
	 * Verify/trim (fio's trim_* options, as fio 3.40 runs them: see
	 * rq_job_trim_verify()): of the writes logged for verification,
	 * trim_percentage are marked; once the log holds a multiple of
	 * trim_backlog pieces, trim_backlog_batch of the marked ones (0:
	 * trim_backlog) are trimmed, oldest first, and read back as zeros
	 * (trim_verify_zero) or not read back at all.
	 */
	uint32_t trim_percentage;	/* 0..100 */
	bool trim_verify_zero;		/* default true */
	uint64_t trim_backlog;		/* 0: no trims */
	uint32_t trim_backlog_batch;

	/* ---- io_uring engine options (fio's names) ---- */
	bool hipri;
	bool sqthread_poll;
	bool fixedbufs;
	bool registerfiles;
	/*
	 * serialize_overlap: an I/O overlapping one of the clone's in flight
	 * waits for it (fio's in_flight_overlap(); with io_submit_mode=offload
	 * fio also compares across jobs, which rqlock refuses where clones
	 * could share a file).  io_submit_offload: io_submit_mode=offload.
	 */
	bool serialize_overlap;
	bool io_submit_offload;
	/* fsync=N: after every N writes the clone issues a flush (fio's DDIR_SYNC); 0 = never */
	uint32_t fsync_blocks;
	/*
	 * fdatasync=N, sync_file_range=FLAGS:N: the same with fdatasync() or
	 * sync_file_range() of the range written since the last sync (fio's
	 * DDIR_DATASYNC, DDIR_SYNC_FILE_RANGE); sfr_flags are the kernel's
	 * SYNC_FILE_RANGE_* bits.  When two fall due on one write, fsync goes
	 * before fdatasync before sync_file_range, and only the first is
	 * issued (fio's get_rw_ddir()).  end_fsync, fsync_on_close: a writing
	 * job's last act is a flush of each of its files, inside its runtime.
	 */
	uint32_t fdatasync_blocks;
	uint32_t sfr_blocks;
	uint8_t sfr_flags;
	bool end_fsync;
	bool fsync_on_close;
	/*
	 * cmdprio (fio's libaio and io_uring options, engines/cmdprio.c): a
	 * share of the reads and of the writes goes at another I/O priority,
	 * given to the kernel with each I/O, and each priority's latencies are
	 * reported apart.  cmdprio_percentage at cmdprio_class/cmdprio, or
	 * cmdprio_bssplit (never both): per block size, shares each at a
	 * priority of its own or, without one, at cmdprio_class/cmdprio.
	 */
	uint32_t cmdprio_pct[2];	/* read, write: percent of the I/Os; 0 = none */
	uint32_t cmdprio_class[2];	/* 1 RT, 2 BE, 3 IDLE; 0 = fio's default, RT */
	uint32_t cmdprio_level[2];	/* 0..7 */
	struct rq_cmdprio_split {
		uint32_t bs;
		uint32_t pct;		/* 1..100; entries of 0 % are dropped, as fio */
		int32_t ioprio;		/* class << 13 | level; -1: cmdprio_class/cmdprio's */
	} cmdprio_bssplit[2][RQ_MAX_BSSPLIT];	/* sorted by bs, as fio sorts them */
	unsigned int nr_cmdprio_bssplit[2];
	char cmdprio_bssplit_str[512];	/* as written: fio shows it so (--showcmd) */
	/*
	 * prio, prioclass: the job's own I/O priority, every I/O's but the
	 * ones cmdprio gives another (fio sets it with ioprio_set() on its
	 * job's thread; rqlock's workers serve several jobs, so it goes with
	 * each request).  ioprio is the kernel's value, fio's ioprio_value():
	 * class 0 is best effort; 0 when neither option is set.
	 */
	uint32_t prio_level;		/* 0..7 */
	uint32_t prio_class;		/* 0..3 */
	uint16_t ioprio;
	/*
	 * ---- fio's logs (results/iolog.c writes them) ----
	 * write_lat_log, write_bw_log, write_iops_log, write_hist_log: a bit
	 * each in write_logs, and the name the files start with ("" = the
	 * job's name, as fio's make_log_name).
	 */
	unsigned int write_logs;	/* RQ_JOB_LOG_* */
	char lat_log_file[RQ_JOB_LOG_NAME_MAX];
	char bw_log_file[RQ_JOB_LOG_NAME_MAX];
	char iops_log_file[RQ_JOB_LOG_NAME_MAX];
	char hist_log_file[RQ_JOB_LOG_NAME_MAX];
	unsigned int log_avg_msec;	/* 0 = a line per I/O */
	unsigned int log_hist_msec;	/* 0 = no histogram lines */
	unsigned int log_hist_coarseness;	/* histogram buckets merged 2^N to one, 0..6 */
	bool log_max_value;		/* averaged windows log their maximum */
	bool log_offset;		/* an offset column */
	bool log_prio;			/* the priority column as 0x%04x */
	bool per_job_logs;		/* default true: the clone's number in the name */
	bool log_store_compressed;	/* fio's .log.fz: zlib streams of binary samples */
	uint64_t log_compression;	/* bytes of samples per zlib stream, 0 = one per 4096 */

	/*
	 * "job options" as fio's JSON prints them: every option given a value
	 * in the job's own section (not [global]; a bare flag is not listed),
	 * fio's name for it and the value after ${VAR} and $ncpus expansion,
	 * in fio's order.  Owned by the list; freed by rq_jobs_free().
	 */
	char **opt_keys, **opt_vals;
	unsigned int nr_opts;
	/*
	 * "global options" as fio's JSON prints them: the [global] options of
	 * the job's file up to its section (fio prints the last file's).
	 * Owned by the job, as opt_keys.
	 */
	char **global_keys, **global_vals;
	unsigned int nr_global;

	/* Parser-private: which table options the job set (for --showcmd). */
	uint8_t opts_set[RQ_JOB_OPTS_MAX / 8];
};

struct rq_job_list {
	struct rq_job *jobs;
	unsigned int nr;
};

/* Choices of a parse beyond the files themselves. */
struct rq_parse_opts {
	/* --section=NAME: only these job sections run ([global] always applies) */
	const char *const *sections;
	unsigned int nr_sections;
	/*
	 * fio's command-line jobs, parsed before the files (fio's init.c):
	 * option names without dashes and their values (NULL: a bare word),
	 * in order.  "name" starts a job ("global..." the global options);
	 * options before the first name are global and carry into the first
	 * file, as fio's def_thread does.  Their jobs' file is RQ_JOB_CMDLINE
	 * and their line the option's position (1-based).
	 */
	const char *const *cmd_keys, *const *cmd_vals;
	unsigned int nr_cmd;
	/* drop rqlock's own notes on options (no effect, fio misreads): a run */
	bool quiet;
	/* --warnings-fatal: a warning fio prints too fails the parse instead */
	bool warnings_fatal;
};

#define RQ_JOB_CMDLINE "command line"	/* rq_job.file of a command-line job */

/*
 * The names fio's command line takes as job options: every option of the
 * table and its alias, @max at most into @names; @bare[i] says whether it
 * may stand without a value (fio's optional_argument: its bare-word
 * options).  Returns how many there are.
 */
unsigned int rq_job_cli_opts(const char **names, bool *bare, unsigned int max);
/* The job option closest to @name by spelling, for "did you mean"; NULL when none is near. */
const char *rq_job_opt_closest(const char *name);
/*
 * fio's --cmdhelp: @name's help (all options, one line each, for NULL or
 * "all") on @f.  Returns 0, or -ENOENT for an unknown name.
 */
int rq_job_opt_help(const char *name, FILE *f);
/*
 * fio's --enghelp: the ioengines rqlock takes, one a line on @f, or with
 * @eng that engine's options.  Returns 0, or -ENOENT for an unknown engine.
 */
int rq_job_engines_help(const char *eng, FILE *f);

/*
 * Parse the job files.  On error, prints one line "file:line: message" to
 * @err and returns -EINVAL (or -errno for I/O errors); @list is left empty.
 * Several files behave as if separated by stonewall.
 */
int rq_jobs_parse(const char *const *files, int nr_files, struct rq_job_list *list, FILE *err);
/* The same with parse choices (@o may be NULL). */
int rq_jobs_parse_opts(const char *const *files, int nr_files, const struct rq_parse_opts *o,
		       struct rq_job_list *list, FILE *err);
/* Parse from a memory buffer, @name used in messages (tests). */
int rq_jobs_parse_buf(const char *name, const char *buf, struct rq_job_list *list, FILE *err);
void rq_jobs_free(struct rq_job_list *list);

/*
 * Print the jobs as one fio command line (fio's --showcmd), every option a
 * job set - in its section or a [global] above it - with its resolved value:
 * sizes in bytes, times with an exact unit, block-size splits with their
 * shares filled in.  Returns 0 or -EIO.
 */
int rq_jobs_showcmd(const struct rq_job_list *list, FILE *f);

/*
 * Split @job->filename on ':' (honouring '\:'), calling @fn for each name.
 * Returns the number of names, or the first negative value @fn returned.
 */
int rq_job_for_each_file(const struct rq_job *job, int (*fn)(const char *name, void *arg), void *arg);

const char *rq_rw_name(enum rq_rw rw);
/* fio's name of @e ("io_uring", "libaio", ...): what the device registry matches */
const char *rq_ioengine_name(enum rq_ioengine e);
/* true when the job reads at all / writes at all / draws random offsets (inline: per I/O) */
static inline bool rq_rw_reads(enum rq_rw rw)
{
	return rw == RQ_RW_READ || rw == RQ_RW_RANDREAD ||
	       rw == RQ_RW_RW || rw == RQ_RW_RANDRW;
}

static inline bool rq_rw_writes(enum rq_rw rw)
{
	return rw == RQ_RW_WRITE || rw == RQ_RW_RANDWRITE ||
	       rw == RQ_RW_RW || rw == RQ_RW_RANDRW ||
	       rw == RQ_RW_TRIMWRITE || rw == RQ_RW_RANDTRIMWRITE;
}

/* the job trims: trim, randtrim, trimwrite, randtrimwrite */
static inline bool rq_rw_trims(enum rq_rw rw)
{
	return rw >= RQ_RW_TRIM;
}

/* each trim is followed by a write of the same blocks (fio's td_trimwrite) */
static inline bool rq_rw_trimwrite(enum rq_rw rw)
{
	return rw == RQ_RW_TRIMWRITE || rw == RQ_RW_RANDTRIMWRITE;
}

/* Does the job issue direction @d (0 read, 1 write, 2 trim)? */
static inline bool rq_rw_dir(enum rq_rw rw, int d)
{
	return d == 0 ? rq_rw_reads(rw) : d == 1 ? rq_rw_writes(rw) : rq_rw_trims(rw);
}

static inline bool rq_rw_random(enum rq_rw rw)
{
	return rw == RQ_RW_RANDREAD || rw == RQ_RW_RANDWRITE || rw == RQ_RW_RANDRW ||
	       rw == RQ_RW_RANDTRIM || rw == RQ_RW_RANDTRIMWRITE;
}

/*
 * fio's fio_option_is_set(): whether option @name (fio's name or alias)
 * was given for @job, in its section or a [global] above it.
 */
bool rq_job_opt_set(const struct rq_job *job, const char *name);
/* Count option @name as given for @job from now on (a value the front end fixed). */
void rq_job_opt_mark(struct rq_job *job, const char *name);

/* A job that writes and syncs (fsync, fdatasync, sync_file_range, end_fsync, fsync_on_close): fio's should_fsync() */
static inline bool rq_job_syncs(const struct rq_job *job)
{
	return rq_rw_writes(job->rw) && (job->fsync_blocks || job->fdatasync_blocks || job->sfr_blocks ||
					 job->end_fsync || job->fsync_on_close);
}

/*
 * fio 3.40's td->trim_verify: verify= with trim_percentage and
 * trim_backlog.  Its trims go to written blocks, so only a writing job
 * that reads back (do_verify, a log of its writes) issues any.
 */
static inline bool rq_job_trim_verify(const struct rq_job *job)
{
	return job->verify != RQ_VERIFY_NONE && job->trim_percentage && job->trim_backlog;
}

static inline bool rq_job_vtrims(const struct rq_job *job)
{
	return rq_job_trim_verify(job) && rq_rw_writes(job->rw) && job->do_verify &&
	       !job->experimental_verify && !job->verify_only;
}

#endif /* RQ_JOB_H */
