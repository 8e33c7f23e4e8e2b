/* SPDX-License-Identifier: MIT */
/*
 * runner.h - the runner's state, shared inside engine/ only: a clone
 * (struct clone, its files, samples, latency_target's search, timeline,
 * replay), a worker (struct rq_cpu), the engine (struct rq_engine, its
 * devices and flows), and the functions the runner's files call one
 * another through (eng_*).  Included by clone.c, worker.c, setup.c,
 * place.c, run.c, status.c, lattarget.c, replay.c, timeline.c, iolog.c,
 * vstate.c, steadystate.c and test_flow_place.c.
 */
#ifndef RQ_ENGINE_RUNNER_H
#define RQ_ENGINE_RUNNER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "devices/device.h"
#include "engine/engine.h"
#include "engine/frand.h"
#include "engine/offsets.h"
#include "engine/pace.h"
#include "engine/verify.h"
#include "engine/zbd.h"
#include "jobfile/job.h"
#include "lib/compiler.h"
#include "lib/machine.h"
#include "lib/topology.h"
#include "queues/queue.h"
#include "results/results.h"

#define STAMP_MAGIC 0x72716c6f636b5354ULL	/* "rqlockST" */
#define SECTOR 512

struct clone_file {
	struct rq_queue *q;
	uint64_t start, end;		/* the clone's region on the device */
	/*
	 * sequential: each direction's next offset, as fio's last_pos[ddir]:
	 * rw=readwrite reads and writes the region each from its start, and
	 * trimwrite's trims go from their own position
	 */
	uint64_t pos[RQ_DDIR_NR];
	uint64_t last_end;		/* random with rw=...:N: where the last I/O ended */
	uint64_t nblocks;		/* random: blocks of min bs in the region */
	uint64_t mask, counter;		/* random map: permutation state */
	int bits;
	int perm_shift;			/* permute()'s xor-shift: bits / 2 + 1 */
	bool has_data;
	bool done;			/* a sized clone's file is done this pass (clone.c next_file_sized()) */
	/*
	 * sync_file_range: the range of the writes completed since the last
	 * sync completed (fio's first_write, last_write); UINT64_MAX: none
	 */
	uint64_t sync_first, sync_last;
	/*
	 * zonemode=strided (clone.c strided_zone()): where the current zone
	 * begins, the bytes issued in it, and the file's size (fio's
	 * real_file_size), where the zones wrap back to the region's start;
	 * zone_pass counts the passes started, so each draws a new order
	 */
	uint64_t zone_start, zone_bytes, file_size, zone_pass;
	/* zonemode=zbd (zbd.c): the device's zones, and this region's [zmin, zmax) of them */
	struct rq_zbd *zbd;
	uint32_t zmin, zmax;
	struct rq_dist dist;		/* random_distribution other than random */
	struct rq_randmap map;		/* mixed block sizes: blocks this pass touched (bits NULL: none) */
	struct rq_lfsr lfsr;		/* random_generator=lfsr */
};

/* fio's 500 ms bandwidth/IOPS samples, kept with Welford's method */
struct sampler {
	uint64_t n, min, max;
	double mean, m2;
};

/*
 * latency_target's search for the deepest queue under the target
 * (lattarget.c); owned by the clone's worker.  qd is the depth the clone
 * may fill to; low..high brackets the answer.
 */
struct lat_search {
	unsigned int qd, low, high;
	unsigned int stable;		/* successes in a row just below high */
	uint64_t window_ns;		/* the current window began; 0 = not yet */
	uint64_t ios, failed;		/* judged in this window, and above the target */
	bool quiesce;			/* no issuing until what is in flight is back */
	bool end_run;			/* the depth is found: its confirming window */
};

struct clone;
void eng_lat_init(struct clone *c);
/*
 * A completed I/O's total latency: true when it fails the job (above the
 * target at depth 1 with latency_percentile=100: fio's "max latency
 * exceeded").
 */
bool eng_lat_io(struct clone *c, uint64_t lat_ns);
/* Judge the window when it is over: ramp the depth up or down; may end issuing. */
void eng_lat_check(struct clone *c, uint64_t now);

#define BIO_VERIFY 0x1			/* a read issued by verification */
#define BIO_ZEROS 0x4			/* ... of a block trim_percentage trimmed: zeros expected */
#define BIO_VTRIM 0x8			/* a trim of a written block (trim_percentage, vtrim.c) */

/* --timeline: one completed I/O (ns, the worker clock) */
struct tl_rec {
	uint64_t due, start, issue, done;
	uint8_t op;
};
#define RQ_TIMELINE_MAX (1u << 21)
/* fio's flow control: the clones of one flow_id share these */
struct flow {
	unsigned int id;
	_Atomic uint64_t ios;		/* I/Os issued by all of the flow's clones */
	_Atomic int64_t weight;		/* sum of the weights of its running clones */
};

/* read_iolog (replay.c): one I/O of a log, and a log read whole before the run */
struct rq_replay_io {
	uint64_t offset;		/* after replay_scale and replay_align */
	uint64_t at_ns;			/* due this long after the clone's start; 0 = at once */
	uint32_t len;
	uint16_t file;			/* index in the clone's files (the job's rewritten filename) */
	uint8_t op;			/* RQ_OP_* */
	uint8_t sync;			/* RQ_OP_FLUSH: which sync (enum rq_sync): fsync 0, fdatasync */
};

struct rq_replay {
	struct rq_replay_io *io;
	uint64_t nr;			/* I/Os in io[] */
	uint64_t bytes;			/* their lengths' sum (a flush has none) */
};

/* merge_blktrace_file: a job's merged trace, written before the run (replay.c) */
struct rq_merged {
	unsigned char *buf;
	size_t len;
};

/*
 * Where a clone is in its job: what it issued (against io_limit and
 * ios_limit), its writes numbered (verify's sequence), its passes (a
 * sized clone's, below).  One struct, so that experimental_verify puts
 * the writer's aside for the replay and back after it in one assignment
 * each (vstate.c).
 */
struct clone_progress {
	uint64_t issued;		/* bytes */
	uint64_t nr_ios;
	uint64_t wseq;			/* writes numbered: the next write's */
	uint32_t passes;		/* the passes started */
	uint32_t nr_done;		/* the files done in this pass */
	uint64_t pass_ios;		/* nr_ios when this pass started */
};

/* experimental_verify: the offset generator as the clone started, to replay it */
struct rq_xsnap {
	uint64_t rng, file_left;
	struct rq_mix mix, wmix;	/* the directions' at the start, and the writer's after */
	struct rq_taus88 bs[RQ_DDIR_NR];	/* the sizes' streams at the start */
	unsigned int cur_file, seq_left;
	struct clone_file *files;
	struct clone_progress writer;	/* put back after the replay, which starts from none */
};

struct clone {
	const struct rq_job *job __attribute__((aligned(RQ_CACHELINE)));
	unsigned int job_index;
	unsigned int index;		/* clone number within the job */
	struct rq_cpu *cpu;
	struct clone_file *files;
	unsigned int nr_files, cur_file;
	struct rq_bio *bios;		/* iodepth of them */
	uint8_t *bio_flags;		/* BIO_*, by bio index */
	struct rq_bio *free_bios;
	char *bufs;
	size_t buf_bytes;		/* the clone's I/O buffers: registered on rings */
	uint32_t min_bs, max_bs;
	uint32_t dir_min_bs[3];		/* the smallest size per direction (fio's min_bs[ddir]) */
	uint32_t map_bs;		/* ... and of all three: the random map's block (fio's rw_min_bs) */
	/*
	 * Uniform random offsets over the random map's pass, one block size,
	 * no blockalign, no rw=rand...:N: clone_place()'s short path (set up
	 * by plain_rand(), setup.c).
	 */
	bool plain_rand;
	/*
	 * latency_target, verify, thinktime, rate, flow or rate_iops: the
	 * clone's next I/O goes through fill_pick_shaped() and its
	 * completions through account_checks() (clone.c)
	 */
	bool shaped;
	/* logs, --timeline or cmdprio's statistics record its completions (set with the logs, setup.c) */
	bool traced;
	/* one file, not chosen at random: next_file() has nothing to choose */
	bool one_file;
	/* zonemode=strided on a clone of one file (fio turns it off for more) */
	bool strided;
	/*
	 * plain_rand, one_file, not shaped (so no flow), no iodepth_batch_submit:
	 * eng_clone_fill() runs its copy without those tests (clone.c fill())
	 */
	bool plain;
	unsigned int inflight;
	uint64_t rng;
	uint64_t seed;
	uint64_t io_limit;
	struct clone_progress prog;
	/*
	 * sized: a size-bound clone (not time_based, strided, trimwrite,
	 * rw=...:-N or lfsr) whose passes end as fio 3.33's: a file is done
	 * when its next offset or length does not fit (clone.c
	 * seq_offset_sized(), pass_next()), the next file not done takes
	 * the I/O, and once all are (prog.nr_done), clone_next_pass()
	 * decides as backend.c keep_running() does; pass_limit is fio's limit
	 * there (io_size, else size; not times loops).
	 */
	bool sized;
	bool pass_verify;		/* do_verify: the pass's writes are read back before the next */
	bool fill_dev;			/* a file of it is one a fill_device writer grows (fill.c) */
	uint64_t pass_limit;
	uint64_t ios_limit;		/* number_ios x loops; 0 = no limit */
	uint64_t delay_until_ns;	/* startdelay: not started before then */
	uint64_t next_byte_ns[RQ_DDIR_NR];	/* rate (bytes per second) */
	struct flow *flow;		/* flow=N: the flow it counts in */
	uint64_t flow_ios;		/* its own I/Os in the flow */
	uint64_t flow_until_ns;		/* flow_sleep: above its share, it stalls until then */
	uint64_t file_left;		/* file_service_type=sequential: bytes left on cur_file */
	struct lat_search lat;		/* latency_target: the depth being searched */
	uint64_t start_ns, ramp_end_ns, deadline_ns, end_ns;
	bool waiting;			/* wait_for: not started yet */
	unsigned int wait_index;	/* the job waited for */
	bool issue_done, finished;
	FILE *iolog;			/* write_iolog (replay.c), NULL = none */
	const struct rq_replay *replay;	/* read_iolog: the log it replays (the engine's), NULL = none */
	uint64_t replay_pos;		/* the next I/O of replay->io[] */
	bool iolog_head;		/* its header and add/open lines are written */
	int error;
	int first_error;
	uint64_t total_err;
	/* load shaping */
	int pending_op;			/* op chosen but held back by the rate, or -1 */
	struct rq_mix mix;		/* a mixed job's direction (choose_op(), frand.h) */
	uint32_t mix_seed;
	/*
	 * serialize_overlap (fio's io_u_submit(), in_flight_overlap()): any
	 * I/O overlapping one in flight is held (held, below) until that one
	 * is back; set when the job changes data at iodepth > 1, as fio keeps
	 * the option only then.
	 */
	bool serialize;
	/*
	 * fsync=N, fdatasync=N, sync_file_range=...:N (fio's get_rw_ddir()):
	 * the writes issued; a flush owed (sync_kind: bio->sync) goes before
	 * the next I/O, to the file of the write that made it due.
	 */
	uint64_t sync_writes;
	bool sync_due;
	uint8_t sync_kind;
	struct clone_file *sync_f;
	/*
	 * end_fsync, fsync_on_close: once the last I/O is back, a flush of
	 * each file, end_sync the files flushed so far (of end_sync_nr; 0:
	 * none wanted); the clone is done when they are back.  Not in the
	 * sync statistics: fio 3.33 does not account them (its runstate is
	 * TD_FSYNCING), but their time is the job's.
	 */
	unsigned int end_sync, end_sync_nr;
	bool end_syncing;
	struct pace pace[RQ_DDIR_NR];	/* rate_iops, per direction */
	uint64_t think_until_ns;
	uint64_t spin_until_ns;		/* thinktime_spin: the worker spins, not sleeps, until then */
	unsigned int since_think;
	unsigned int seq_left;		/* rw=rand...:N */
	unsigned int unsubmitted;	/* iodepth_batch_submit */
	/* samples */
	uint64_t next_sample_ns, last_sample_ns;
	uint64_t last_bytes[RQ_DDIR_NR], last_ios[RQ_DDIR_NR];
	struct sampler bw[RQ_DDIR_NR], iops[RQ_DDIR_NR];
	/* verify (see vlog.c) */
	struct rq_vlog vlog;
	uint64_t vtarget;		/* read back the log up to id vtarget */
	uint64_t *bio_tag;		/* by bio index: a write's log id, a verify read's expected seq */
	bool vheld;			/* vpiece was taken off the log but not issued */
	struct rq_vpiece vpiece;
	/*
	 * verify/trim (vtrim.c): the job trims some of what it wrote
	 * (rq_job_vtrims()); the trims left in the current batch, the
	 * stream that marks writes, and the last I/O completed (fio's
	 * last_ddir_completed, an RQ_OP_*)
	 */
	bool vtrim;
	uint8_t last_op;
	uint32_t trim_batch;
	uint64_t trim_rng;
	/*
	 * rw=trimwrite|randtrimwrite (clone.c place_io): the trim in flight
	 * (tw_bio; nothing is issued until it is back: a write after it must
	 * land after it); randtrimwrite: the trim whose blocks the write owed
	 * (tw_pending) goes to; trimwrite: where the last write and the last
	 * trim started (UINT64_MAX: none yet), fio's last_start.
	 */
	uint64_t tw_last[2];
	/*
	 * mixed sizes (bsrange, bssplit): each direction's stream, fio's
	 * bsrange_state, and its seed (writes draw as reads with verify,
	 * trims as writes with trimwrite, as fio seeds them)
	 */
	struct rq_taus88 bs_state[RQ_DDIR_NR];
	uint32_t bs_seed[RQ_DDIR_NR];
	struct cmdprio *cmdprio;	/* cmdprio_*: each I/O's priority (cmdprio.h); NULL: none */
	struct rq_zbd_clone zbd;	/* zonemode=zbd (zbd.h) */
	bool tw_pending;
	struct clone_file *tw_f;
	uint64_t tw_off;
	uint32_t tw_bs;
	struct rq_bio *tw_bio;
	/* verify state files and experimental_verify (vstate.c) */
	struct rq_vtrack vtrack;	/* verify_state_save: the writes of the window */
	struct rq_vstate *vstate;	/* verify_state_load: what the writer completed, NULL = none */
	struct rq_xsnap *xsnap;		/* experimental_verify: the generator at the start */
	int xv_phase;			/* 0 writing (no log), 1 replaying, 2 replayed; -1 not used */
	bool xv_stream;			/* one block size: read back each batch as it is drawn */
	/* an I/O held back: it overlaps one in flight (verify's writes, serialize_overlap: fill_pick_new()), or the queue refused it (fill_refused()) */
	bool held;
	int held_op;
	struct clone_file *held_f;
	uint64_t held_off;
	uint32_t held_bs;
	struct rq_logs *logs;		/* fio's logs the job asked for, NULL = none */
	/*
	 * Steady state (steadystate.c): the judge the clone is judged by,
	 * NULL = none.  Its worker publishes for the status thread, with
	 * atomic stores each round (eng_ss_tick()): the bytes and I/Os done,
	 * when its samples may start (the end of ramp_time; 0 = not yet) and
	 * that it ended.  ss_started is the worker's own.
	 */
	struct eng_ss *ss;
	_Atomic uint64_t ss_bytes, ss_ios, ss_epoch;
	atomic_bool ss_done;
	bool ss_started;
	/*
	 * For the status thread (engine/status.c): the clone's progress,
	 * published by its worker with relaxed stores while rq_engine_opts
	 * asks for a status; a copy of rep taken under status_mutex when the
	 * thread asks for one (--status-interval).
	 */
	bool publish;
	uint64_t pub_next_ns;
	_Atomic uint64_t pub_bytes[RQ_DDIR_NR], pub_ios[RQ_DDIR_NR];
	_Atomic char pub_state;
	_Atomic int64_t pub_eta;	/* seconds left, -1 unknown */
	bool snap_valid;		/* status_mutex */
	uint64_t snap_ns;		/* status_mutex: when snap was taken */
	struct rq_job_report *snap;	/* status_mutex */
	struct rq_job_report rep;
	/* --timeline */
	struct tl_rec *tl;
	uint64_t nr_tl, tl_cap, tl_dropped;
};

/* fill.c: fill_device's end (a write the full filesystem refused) and a reader's region */
bool eng_fill_full(struct clone *c, const struct clone_file *f, const struct rq_bio *bio);
void eng_fill_start(struct clone *c);

/*
 * A random permutation of [0, nblocks) without memory, standing in for
 * fio's random map: a bijection of [0, 2^bits) (xor-shift and odd
 * multiplies are bijective modulo 2^bits) applied to a counter, values
 * >= nblocks skipped (fewer than half).  Every block is hit once a pass.
 */
static inline uint64_t permute(const struct clone_file *f, uint64_t x, uint64_t seed)
{
	int h = f->perm_shift;

	x = (x + seed) & f->mask;
	x = (x * 0x9e3779b97f4a7c15ULL) & f->mask;
	x ^= x >> h;
	x = (x * 0xbf58476d1ce4e5b9ULL) & f->mask;
	x ^= x >> h;
	x = (x * 0x94d049bb133111ebULL) & f->mask;
	return x;
}

/*
 * The random pass's next block below nblocks.  A pass is over when the
 * counter has run through [0, 2^bits) or, with a map, when every block
 * is marked: with @wrap the next one starts, else UINT64_MAX (a sized
 * clone's file is done, as fio's when get_next_rand_offset() finds its
 * random map full).
 */
static inline uint64_t pass_next(struct clone_file *f, uint64_t seed, bool wrap)
{
	uint64_t b;

	do {
		if (f->counter > f->mask || (f->map.bits && f->map.nr_set == f->map.nblocks)) {
			if (!wrap)
				return UINT64_MAX;
			f->counter = 0;
			if (f->map.bits)
				rq_randmap_clear(&f->map);
		}
		b = permute(f, f->counter++, seed);
	} while (b >= f->nblocks);
	return b;
}

/* @op's sizes are drawn (bssplit or bsrange), as pick_bs() draws them */
static inline bool mixed_bs(const struct rq_job *job, int op)
{
	return job->nr_bssplit[op] || (job->bs_min[op] && job->bs_max[op] > job->bs_min[op]);
}

/*
 * draw.c: where a clone's next random I/O goes and how long it is (the
 * random map, random_distribution=zoned, blockalign), and its size (bs,
 * bsrange, bssplit); *@bsp may shrink to the free run the map gives.
 * UINT64_MAX: the file is done.
 */
uint64_t eng_random_offset(struct clone *c, struct clone_file *f, uint32_t *bsp, int op);
uint32_t eng_pick_bs(struct clone *c, int op);
/* fio's streams (frand.h) from their seeds: at set-up, and each pass under randrepeat */
static inline void eng_seed_streams(struct clone *c)
{
	rq_taus88_seed(&c->mix.rng, c->mix_seed);
	for (int d = 0; d < RQ_DDIR_NR; d++)
		rq_taus88_seed(&c->bs_state[d], c->bs_seed[d]);
}
/* A size of @op that fits @room bytes (fio's io_u_fits()); 0 when none does. */
uint32_t eng_pick_bs_fit(struct clone *c, int op, uint64_t room);

/* vtrim.c: verify/trim (trim_percentage, trim_backlog), as fio 3.40's */
void eng_vtrim_logged(struct clone *c, uint64_t id);
int eng_vtrim_pick(struct clone *c, struct rq_bio *bio, struct clone_file **fp, uint32_t *bsp);
bool eng_vtrim_tail(struct clone *c);

/* vstate.c */
int eng_vstate_setup(struct rq_engine *e, FILE *err);

/* numa.c: numa_cpu_nodes= and numa_mem_policy= against the machine, as fio checks them at run time */
int eng_numa_list(const char *s, uint64_t *mask, const uint64_t *online);
int eng_numa_check(const struct rq_job *job, FILE *err);
int eng_vstate_save(struct rq_engine *e, FILE *err);
void eng_vstate_free(struct clone *c);
void eng_vtrack_issue(struct clone *c, uint32_t file, uint64_t offset);
void eng_vtrack_done(struct clone *c, uint32_t file, uint64_t offset, bool ok);
/*
 * A loaded state and the writer's write number @seq at (@file, @offset):
 * 1 it completed, 0 it did not (not checked; it voids what it overlaps),
 * -1 the writer never issued it (the replay ends).
 */
int eng_vstate_write_done(const struct clone *c, uint64_t seq, uint32_t file, uint64_t offset);
/* experimental_verify: back to the generator's start; false when it has no snapshot */
bool eng_xverify_rewind(struct clone *c);
/* ... and the writer's counts back after the replay */
void eng_xverify_finish(struct clone *c);

/*
 * A worker: a thread acting as a CPU.  Its block-layer context (ring,
 * completion lists, id) is the queues/ struct it embeds; queues/ and
 * devices/ see only that, the engine gets back here with container_of.
 */
struct rq_cpu {
	struct rq_ctx *ctx;		/* id, ring, completions: queues/ (opaque) */
	bool wants_ring;		/* this phase: the context has a ring (or nobody runs) */
	bool polls;			/* a device with a poll hook (libaio): its reap does I/O */
	unsigned int ring_flags;	/* SQE128 | CQE32 when a device needs them */
	uint64_t now;			/* last clock read */
	unsigned int ring_rounds;	/* busy rounds since the last io_uring_enter */
	struct clone **clones;
	unsigned int nr_clones, nr_active;
	/* bios of this worker's clones ended by this worker, to account */
	struct rq_bio *ended;
	uint64_t submitted, completed, verified;
	uint64_t clone_wake_ns;		/* earliest time a held-back clone may issue */
	uint64_t next_watch_ns;		/* the stall watchdog's next look */
	uint64_t complete_hist[RQ_DEPTH_BUCKETS];	/* completions per reap round, fio's buckets */
	unsigned int snap_seen;		/* the last snap_gen this worker answered */
	struct rusage ru_start;
	int fatal;
	pthread_t thread;
	struct rq_engine *e;
} __attribute__((aligned(RQ_CACHELINE)));

struct dev_entry {
	char name[RQ_JOB_PATH_MAX];	/* as the job names it */
	char spec[RQ_JOB_PATH_MAX];	/* what rq_dev_open() takes */
	struct rq_dev_open o;
	char where[RQ_JOB_PATH_MAX + 16];
	struct rq_dev dev;
	struct rq_queue q;
	bool opened, q_ready;
	bool unlink;			/* a job with unlink=1 uses it (a regular file) */
	struct rq_zbd *zbd;		/* zonemode=zbd: its zones (zbd.c), NULL: none */
	uint32_t nr_requests;
};

/*
 * What setup asks of a job again and again, derived once (setup_facts(),
 * after read_iolog rewrote the jobs that replay) and only read after:
 * every device, file and clone of the job reads these, so the rules that
 * combine bs, bsrange and bssplit, or split filename=, live in one place.
 */
struct job_facts {
	uint32_t lo[3], hi[3];		/* smallest and largest block per direction */
	uint32_t min_bs;		/* over the directions the job issues */
	uint32_t max_bs;		/* ... and the writes verify reads back: a buffer's size */
	unsigned int nr_files;		/* data files each clone uses */
	bool files_per_clone;		/* each clone its own files (else the job's clones share them) */
};

struct rq_engine {
	struct rq_engine_opts o;
	const struct rq_queue_mode_ops *mode;
	const struct rq_job_list *jobs;
	struct job_facts *facts;	/* facts[j] of jobs->jobs[j] */
	struct dev_entry *devs;
	unsigned int nr_devs;
	struct clone *clones;
	unsigned int nr_clones;
	struct rq_cpu *cpus;
	struct rq_ctx **ctxs;		/* cpus[i].ctx, by id (owned): rq_mode_config.ctxs */
	unsigned int nr_cpus;
	pthread_barrier_t barrier;
	atomic_bool start_failed;	/* a worker could not set up: nobody runs */
	_Atomic unsigned int *job_remaining;	/* clones of each job not finished (wait_for) */
	atomic_uint active_clones;	/* clones of the running phase not finished */
	uint64_t group_start;
	struct rq_run_report rep;
	struct rq_lock_report *locks;
	struct rq_queue_report *queues;
	struct rq_device_report *devices;
	struct rq_job_report *jrep;
	bool mode_setup;
	struct rq_mode_config mcfg;
	unsigned int nr_locks_max;
	uint64_t start_mono_ns;		/* rq_engine_run() began */
	struct rq_machine_sample machine0;	/* the machine then (lib/machine.h) */
	uint64_t timeline_t0;		/* the same, on rq_clock_ns(): --timeline's zero */
	/*
	 * exitall, exitall_on_error: the reporting group whose clones stop
	 * issuing (-1 none), and fio's exit_what scope of the job that set it.
	 */
	atomic_int exit_group;
	atomic_int exit_what;
	/* read_iolog (replay.c): jobs rewritten from their logs, the logs, each clone's log */
	struct rq_job_list own_jobs;
	struct rq_replay *replays;
	unsigned int nr_replays;
	const struct rq_replay **replay_of;	/* by clone index; NULL: no replay at all */
	unsigned int *replay_ops;	/* by job: 1 << RQ_OP_* of each kind its logs issue */
	struct rq_merged *merged;	/* by job: merge_blktrace_file's trace; NULL: none merges */
	struct flow *flows;		/* one per distinct flow_id */
	unsigned int nr_flows;
	bool ran;			/* rq_engine_run() ran: unlink= may remove files */
	struct rq_dev **polled;		/* devices with a poll hook */
	struct rq_queue **rerun_qs;	/* every device's queue: rq_ctx_set_queues() */
	unsigned int nr_rerun_qs;
	struct rq_dev **all_devs;	/* every device: rq_ctx_ring_setup() */
	struct iovec *ring_bufs;	/* the phase's clone buffers */
	unsigned int nr_ring_bufs;
	unsigned int nr_polled;
	/* place.c: the machine and where each worker runs */
	struct rq_topo topo;
	int *worker_cpu;		/* nr_cpus: the CPU worker w is pinned to */
	unsigned int *worker_part;	/* nr_cpus: cluster partition of worker w */
	unsigned int nr_parts;
	bool parts_from_llc;		/* partitions are the LLC domains (no --cluster-size) */
	/* engine/status.c: the status line and --status-interval */
	pthread_t status_thread;
	bool status_running;
	atomic_bool status_stop;
	pthread_mutex_t status_mutex;	/* the clones' snap copies */
	_Atomic unsigned int snap_gen;	/* bumped when the status thread wants copies */
	struct eng_locklog *locklog;	/* the status thread's, until eng_locklog_write() */
	struct eng_agglog *agglog;	/* the same, for fio's --bandwidth-log */
	/* steadystate.c: the judges (ss_dur), sampled by the status thread; NULL = none */
	struct eng_ss *ss;
	unsigned int nr_ss;
};

#define BIO_INFLIGHT 0x2		/* submitted, not yet accounted */
#define WAIT_MAX_NS 50000000ULL		/* no wait longer: signals and the watchdog are seen */

/* fio's iodepth_submit/complete buckets: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64 */
static inline unsigned int batch_bucket(unsigned int n)
{
	return n == 0 ? 0 : n <= 4 ? 1 : n <= 8 ? 2 : n <= 16 ? 3 : n <= 32 ? 4 : n <= 64 ? 5 : 6;
}

static inline struct rq_cpu *ctx_cpu(struct rq_ctx *ctx)
{
	return rq_ctx_owner(ctx);
}

/* worker.c: a clone's bio has ended (its end_io) */
void eng_bio_end_io(struct rq_ctx *ctx, struct rq_bio *bio);
extern atomic_int g_stop_sig;		/* rq_engine_stop(): set from a signal handler */
extern atomic_bool g_stalled;		/* the watchdog found a request stuck */
extern atomic_int g_stop_count;		/* rq_engine_stop(): signals seen */
extern _Atomic uint64_t g_grace_end_ns;	/* the interrupt's grace ends, 0 = not started */
extern atomic_bool g_abandoned;		/* the grace ran out: what is in flight is left */

/* worker.c */
void *eng_worker_main(void *arg);

/*
 * What the worker drives a clone with: clone.c issues (fill), account.c
 * takes what came back and ends the clone; neither calls worker.c.
 */
void eng_clone_account(struct clone *c, struct rq_bio *bio, uint64_t done);
/* A clone starts (its phase does, or its wait is over): what its files need first. */
void eng_clone_begin(struct clone *c);
void eng_clone_check_done(struct clone *c, uint64_t now);
unsigned int eng_clone_fill(struct clone *c);

/* continue_on_error covers errors of @kind (RQ_COE_*) */
static inline bool eng_coe_allows(const struct clone *c, int kind)
{
	return (c->job->continue_on_error & kind) == kind;
}

/* experimental_verify's replay is not drawn whole yet (and may go on) */
static inline bool eng_clone_replaying(const struct clone *c)
{
	return c->xv_phase == 1 && !c->rep.interrupted && (!c->error || eng_coe_allows(c, RQ_COE_VERIFY));
}

/* cpu.c: the worker's ring, for the worker loop and a clone's batch */
int eng_cpu_submit(struct rq_cpu *cpu, bool wait, uint64_t wait_ns);

/* Account a list of ended bios to their clones; @keep_done: at their own done_ns, else @now. */
static inline unsigned int eng_account_list(struct rq_bio *b, uint64_t now, bool keep_done)
{
	unsigned int n = 0;

	while (b) {
		struct rq_bio *next = b->next;

		eng_clone_account(b->private, b, keep_done ? b->done_ns : now);
		b = next;
		n++;
	}
	return n;
}

/* The bios this worker's own context ended (eng_bio_end_io), accounted now. */
static inline unsigned int eng_account_ended(struct rq_cpu *cpu)
{
	struct rq_bio *b = cpu->ended;

	if (!b)
		return 0;
	cpu->ended = NULL;
	return eng_account_list(b, cpu->now, false);
}
/* write_iolog (replay.c): open in clone set-up, one line per I/O issued, close at teardown */
int eng_iolog_open(struct clone *c);
void eng_iolog_io(struct clone *c, const struct clone_file *f, int op, uint64_t offset, uint32_t len,
		  uint64_t now);
int eng_iolog_close(struct clone *c);
/*
 * read_iolog: parse every job's logs before anything is opened, and point
 * e->jobs at a copy whose replaying jobs are rewritten from their logs
 * (files, directions, block and file sizes).  0, or -errno after one line
 * on @err naming the job, the log and its line.
 */
int eng_replay_setup(struct rq_engine *e, FILE *err);
/* The kinds of I/O @job's logs issue: 1 << RQ_OP_* each; 0 when it replays nothing */
static inline unsigned int eng_replay_ops(const struct rq_engine *e, const struct rq_job *job)
{
	return e->replay_ops ? e->replay_ops[job - e->jobs->jobs] : 0;
}
/* merge_blktrace_file: write each merged trace, once the run is sure to start; 0 or -errno after one line */
int eng_replay_commit(struct rq_engine *e, FILE *err);
void eng_replay_free(struct rq_engine *e);
/*
 * The clone's next replayed I/O: 1 with it in *@io (taken by the caller
 * with c->replay_pos++), 0 when it is not due before *@wake, -1 when the
 * log is done.
 */
int eng_replay_peek(struct clone *c, uint64_t now, const struct rq_replay_io **io, uint64_t *wake);
void eng_clone_sample(struct clone *c, uint64_t now);
void eng_sampler_report(const struct sampler *s, struct rq_sample_stat *out);

/* timeline.c */
void eng_timeline_add(struct clone *c, const struct rq_bio *bio);
/* Write every clone's records to o.timeline; 0, or -errno after one line on @err. */
int eng_timeline_write(struct rq_engine *e, FILE *err);
/* iolog.c: fio's logs (results/iolog.c) */
int eng_logs_setup(struct rq_engine *e, FILE *err);
void eng_logs_io(struct clone *c, const struct rq_bio *bio);
void eng_logs_tick(struct clone *c, uint64_t now);
int eng_logs_write(struct rq_engine *e, FILE *err);
/* rqlock's lock logs: sampled by the status thread, written after it stopped */
struct eng_locklog;
int eng_locklog_start(struct rq_engine *e);
void eng_locklog_sample(struct rq_engine *e, uint64_t now_mono_ns);
int eng_locklog_write(struct rq_engine *e, FILE *err);
/* fio's --bandwidth-log: the jobs' summed bandwidth, the same way */
struct eng_agglog;
int eng_agglog_start(struct rq_engine *e);
void eng_agglog_sample(struct rq_engine *e, uint64_t now_mono_ns);
int eng_agglog_write(struct rq_engine *e, FILE *err);

/* run.c */
void eng_job_report_static(const struct rq_job *job, struct rq_job_report *r, uint64_t runtime_ns);

/* status.c */
void eng_status_publish(struct clone *c, uint64_t now);
void eng_status_snap(struct rq_cpu *cpu);
int eng_status_start(struct rq_engine *e);
void eng_status_stop(struct rq_engine *e);

/* place.c */
bool eng_group_needs_ring(struct rq_engine *e, unsigned int first, unsigned int last,
			  unsigned int *flags);
/*
 * Read the topology (lib/topology.h), put worker w on the CPU at w mod N
 * of its placement order, and cut the workers into cluster partitions:
 * --cluster-size K workers in id order, else one per LLC domain that has
 * workers.  Warns on @err when workers outnumber CPUs.  0 or -ENOMEM.
 */
int eng_place(struct rq_engine *e, FILE *err);
void eng_place_free(struct rq_engine *e);
bool eng_job_allows_worker(const struct rq_engine *e, const struct rq_job *job, unsigned int w);
unsigned int eng_pick_worker(struct rq_engine *e, const struct clone *c, unsigned int rr);
/* Pin thread @t to worker @w's CPU (best effort). */
void eng_pin(const struct rq_engine *e, pthread_t t, unsigned int w);

#endif
