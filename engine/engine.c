// SPDX-License-Identifier: MIT
/*
 * engine.c - workers acting as CPUs, job clones with fio semantics, and the
 * request path: bio -> rq_submit_bio() -> lock mode -> device -> completion
 * -> rq_end_request() -> rq_bio_endio() -> the clone's accounting.
 *
 * A worker ("cpu") owns one io_uring ring, created only when one of its
 * devices completes through a ring.  A job clone lives on one worker and
 * only that worker touches its state: a bio ended on another worker (it
 * dispatched the request while holding the queue lock) is handed back over
 * a lock-free list, never by sharing a lock the mode does not have.
 *
 * Time: one clock read per bio on submission (the previous read is the
 * next bio's start) and one per reap batch, so fio's slat/clat/lat are
 * kept with two reads per I/O at most.
 */
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "devices/device.h"
#include "engine/engine.h"
#include "engine/engine_internal.h"
#include "queues/queue.h"

#define STAMP_MAGIC 0x72716c6f636b5354ULL	/* "rqlockST" */
#define SECTOR 512

struct clone_file {
	struct rq_queue *q;
	uint64_t start, end;		/* the clone's region on the device */
	uint64_t pos;			/* sequential: next offset */
	uint64_t last_end;		/* random with rw=...:N: where the last I/O ended */
	uint64_t nblocks;		/* random: blocks of min bs in the region */
	uint64_t mask, counter;		/* random map: permutation state */
	int bits;
	bool has_data;
	struct rq_dist dist;		/* random_distribution other than random */
	struct rq_randmap map;		/* mixed block sizes: blocks this pass touched (bits NULL: none) */
};

/* fio's 500 ms bandwidth/IOPS samples, kept with Welford's method */
struct sampler {
	uint64_t n, min, max;
	double mean, m2;
};

#define BIO_VERIFY 0x1			/* a read issued by verification */

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
	unsigned int inflight;
	uint64_t rng;
	uint64_t seed;
	uint64_t io_limit, issued;
	uint64_t start_ns, ramp_end_ns, deadline_ns, end_ns;
	bool waiting;			/* wait_for: not started yet */
	unsigned int wait_index;	/* the job waited for */
	bool issue_done, finished;
	int error;
	int first_error;
	uint64_t total_err;
	/* load shaping */
	int pending_op;			/* op chosen but held back by the rate, or -1 */
	uint64_t next_issue_ns[2];	/* rate_iops */
	uint64_t think_until_ns;
	uint64_t spin_until_ns;		/* thinktime_spin: the worker spins, not sleeps, until then */
	unsigned int since_think;
	unsigned int seq_left;		/* rw=rand...:N */
	unsigned int unsubmitted;	/* iodepth_batch_submit */
	/* samples */
	uint64_t next_sample_ns, last_sample_ns;
	uint64_t last_bytes[2], last_ios[2];
	struct sampler bw[2], iops[2];
	/* verify (see vlog.c) */
	struct rq_vlog vlog;
	uint64_t vtarget, wseq;		/* read back the log up to id vtarget; writes numbered */
	uint64_t *bio_tag;		/* by bio index: a write's log id, a verify read's expected seq */
	bool vheld;			/* vpiece was taken off the log but not issued */
	struct rq_vpiece vpiece;
	/* a write held back: it overlaps an I/O in flight (verify, see clone_hold_overlap()) */
	bool held;
	int held_op;
	struct clone_file *held_f;
	uint64_t held_off;
	uint32_t held_bs;
	struct rq_job_report rep;
};

struct rq_cpu {
	int id;
	bool has_ring, wants_ring;
	unsigned int ring_flags;	/* SQE128 | CQE32 when a device needs them */
	struct io_uring ring;
	unsigned int ring_inflight;	/* SQEs submitted, CQEs not reaped */
	uint64_t now;			/* last clock read */
	struct clone **clones;
	unsigned int nr_clones, nr_active;
	/* rq_cpu_complete(): this worker's requests to end on its next reap */
	struct rq_request *done_head, *done_tail;
	/* rq_cpu_complete_after(): sorted by done_at */
	struct rq_request *timer_head, *timer_tail;
	/* bios of this worker's clones ended by this worker, to account */
	struct rq_bio *ended;
	/* bios of this worker's clones ended by other workers (MPSC stack) */
	_Atomic(struct rq_bio *) handback;
	_Atomic uint32_t sleeping;	/* futex word: owner waits for handback */
	uint64_t submitted, completed, verified;
	uint64_t clone_wake_ns;		/* earliest time a held-back clone may issue */
	uint64_t next_watch_ns;		/* the stall watchdog's next look */
	uint64_t complete_hist[RQ_DEPTH_BUCKETS];	/* completions per reap round, fio's buckets */
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
	uint32_t nr_requests;
};

struct rq_engine {
	struct rq_engine_opts o;
	const struct rq_queue_mode_ops *mode;
	const struct rq_job_list *jobs;
	struct dev_entry *devs;
	unsigned int nr_devs;
	struct clone *clones;
	unsigned int nr_clones;
	struct rq_cpu *cpus;
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
	struct rq_dev **polled;		/* devices with a poll hook */
	struct rq_dev **all_devs;	/* every device: rq_devs_ring_init() */
	struct iovec *ring_bufs;	/* the phase's clone buffers */
	unsigned int nr_ring_bufs;
	unsigned int nr_polled;
};

static struct rq_cpu *g_cpus;

/* zeroed memory on cache lines of its own (free() releases it) */
static void *line_calloc(size_t n)
{
	size_t len = (n + RQ_CACHELINE - 1) / RQ_CACHELINE * RQ_CACHELINE;
	void *p = aligned_alloc(RQ_CACHELINE, len ? len : RQ_CACHELINE);

	if (p)
		memset(p, 0, len ? len : RQ_CACHELINE);
	return p;
}
static atomic_int g_stop_sig;		/* rq_engine_stop(): set from a signal handler */
static atomic_bool g_stalled;		/* the watchdog found a request stuck */

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "rq_engine_stop() must be async-signal-safe");

void rq_engine_stop(int sig)
{
	atomic_store_explicit(&g_stop_sig, sig, memory_order_relaxed);
}

int rq_engine_stopped(void)
{
	return atomic_load_explicit(&g_stop_sig, memory_order_relaxed);
}

#define BIO_INFLIGHT 0x2		/* submitted, not yet accounted */
#define WAIT_MAX_NS 50000000ULL		/* no wait longer: signals and the watchdog are seen */

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The clock.  clock_gettime() costs ~27 ns here (vDSO); the TSC ~11 ns.
 * The TSC is used when the kernel itself trusts it (clocksource "tsc",
 * CPU flags constant_tsc and nonstop_tsc: the same rate on every CPU and
 * through idle states), calibrated against CLOCK_MONOTONIC over 20 ms at
 * start: ns = base_ns + (tsc - base_tsc) * mult >> 32.  The calibration's
 * error is the two clock reads' jitter over 20 ms, about 1e-5 relative:
 * 10 ns on a 1 ms latency.  Elsewhere CLOCK_MONOTONIC is used.
 */
static struct {
	bool tsc;
	uint64_t base_tsc, base_ns, mult;
} clk;

#if defined(__x86_64__)
#include <x86intrin.h>
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
	while (f && fgets(buf, sizeof(buf), f) && !(c && n)) {
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
#endif

#if defined(__x86_64__)
static void calibrate(void)
{
	struct timespec pause = { 0, 20000000 };
	uint64_t t0, n0, t1, n1;

	if (getenv("RQLOCK_CLOCK") && !strcmp(getenv("RQLOCK_CLOCK"), "clock_gettime"))
		return;
	if (!tsc_trusted())
		return;
	n0 = mono_ns();
	t0 = __rdtsc();
	nanosleep(&pause, NULL);
	n1 = mono_ns();
	t1 = __rdtsc();
	if (t1 <= t0 || n1 <= n0)
		return;
	clk.mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
	clk.base_tsc = t1;
	clk.base_ns = n1;
	clk.tsc = true;
}
#endif

static void clock_setup(void)
{
#if defined(__x86_64__)
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, calibrate);
#endif
}

static inline uint64_t now_ns(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(clk.tsc, 1))
		return clk.base_ns +
		       (uint64_t)(((unsigned __int128)(__rdtsc() - clk.base_tsc) * clk.mult) >> 32);
#endif
	return mono_ns();
}

const char *rq_engine_clock(void)
{
	return clk.tsc ? "tsc" : "clock_gettime";
}

int rq_cpu_id(const struct rq_cpu *cpu)
{
	return cpu->id;
}

uint64_t rq_cpu_now(const struct rq_cpu *cpu)
{
	(void)cpu;
	return now_ns();	/* fresh: a device model times its service from it */
}

static void futex_wake(_Atomic uint32_t *w);

void rq_cpu_wake(int id)
{
	struct rq_cpu *cpu = &g_cpus[id];

	if (atomic_load_explicit(&cpu->sleeping, memory_order_seq_cst))
		futex_wake(&cpu->sleeping);
}

struct io_uring *rq_cpu_ring(struct rq_cpu *cpu)
{
	return &cpu->ring;
}

void rq_cpu_complete(struct rq_cpu *cpu, struct rq_request *rq, int res)
{
	rq->res = res;
	rq->next = NULL;
	if (cpu->done_tail)
		cpu->done_tail->next = rq;
	else
		cpu->done_head = rq;
	cpu->done_tail = rq;
}

void rq_cpu_complete_after(struct rq_cpu *cpu, struct rq_request *rq, int res, uint64_t delay_ns)
{
	struct rq_request **pp;

	rq->res = res;
	/* a fresh clock: cpu->now may be a round old, which would shorten the delay */
	rq->done_at = now_ns() + delay_ns;
	rq->next = NULL;
	if (!cpu->timer_tail || cpu->timer_tail->done_at <= rq->done_at) {
		if (cpu->timer_tail)
			cpu->timer_tail->next = rq;
		else
			cpu->timer_head = rq;
		cpu->timer_tail = rq;
		return;
	}
	for (pp = &cpu->timer_head; (*pp)->done_at <= rq->done_at; pp = &(*pp)->next)
		;
	rq->next = *pp;
	*pp = rq;
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void futex_wait(_Atomic uint32_t *w, uint32_t val, long ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ns };

	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void rq_bio_endio(struct rq_cpu *cpu, struct rq_bio *bio, int error)
{
	struct rq_cpu *owner;
	struct rq_bio *head;

	bio->error = error;
	if (bio->owner_cpu == cpu->id) {
		bio->next = cpu->ended;
		cpu->ended = bio;
		return;
	}
	bio->done_ns = cpu->now;
	owner = &g_cpus[bio->owner_cpu];
	head = atomic_load_explicit(&owner->handback, memory_order_relaxed);
	do {
		bio->next = head;
	} while (!atomic_compare_exchange_weak_explicit(&owner->handback, &head, bio,
							memory_order_release, memory_order_relaxed));
	if (atomic_load_explicit(&owner->sleeping, memory_order_acquire))
		futex_wake(&owner->sleeping);
}

/* ---- job clones ---------------------------------------------------- */

/*
 * A random permutation of [0, nblocks) without memory, standing in for
 * fio's random map: a bijection of [0, 2^bits) (xor-shift and odd
 * multiplies are bijective modulo 2^bits) applied to a counter, values
 * >= nblocks skipped (fewer than half).  Every block is hit once a pass.
 */
static uint64_t permute(const struct clone_file *f, uint64_t x, uint64_t seed)
{
	int h = f->bits / 2 + 1;

	x = (x + seed) & f->mask;
	x = (x * 0x9e3779b97f4a7c15ULL) & f->mask;
	x ^= x >> h;
	x = (x * 0xbf58476d1ce4e5b9ULL) & f->mask;
	x ^= x >> h;
	x = (x * 0x94d049bb133111ebULL) & f->mask;
	return x;
}

/*
 * Mixed block sizes: start block @b is free; take the free run from it, at
 * most @bs worth, and shorten the I/O to that run (fio's mark_random_map()).
 */
static uint64_t map_take(struct clone *c, struct clone_file *f, uint64_t b, uint32_t *bs)
{
	uint64_t want = (*bs + c->min_bs - 1) / c->min_bs;
	uint64_t got = rq_randmap_take(&f->map, b, want);

	if (got < want)
		*bs = (uint32_t)(got * c->min_bs);
	return f->start + b * c->min_bs;
}

static uint64_t random_offset(struct clone *c, struct clone_file *f, uint32_t *bsp)
{
	uint32_t bs = *bsp;
	const struct rq_job *job = c->job;

	if (job->rw_seq_nr > 1 && c->seq_left && f->last_end + bs <= f->end) {
		c->seq_left--;
		return f->last_end;	/* rw=rand...:N: N-1 sequential I/Os follow */
	}
	c->seq_left = job->rw_seq_nr > 1 ? job->rw_seq_nr - 1 : 0;
	for (;;) {
		uint64_t b, off;

		if (job->random_distribution != RQ_RAND_UNIFORM) {
			b = rq_dist_next(&f->dist, &c->rng);
		} else if (job->norandommap) {
			b = rq_rng_next(&c->rng) % f->nblocks;
		} else {
			if (f->counter > f->mask || (f->map.bits && f->map.nr_set == f->map.nblocks)) {
				f->counter = 0;		/* a pass is over: start another */
				if (f->map.bits)
					rq_randmap_clear(&f->map);
			}
			b = permute(f, f->counter++, c->seed);
			if (b >= f->nblocks)
				continue;
			/* mixed sizes: a block an earlier, larger I/O covered is not a start */
			if (f->map.bits) {
				if (rq_randmap_busy(&f->map, b))
					continue;
				return map_take(c, f, b, bsp);
			}
		}
		off = f->start + b * c->min_bs;
		if (off + bs <= f->end)
			return off;
	}
}

/* bs, bsrange or bssplit, as fio picks a block size */
static uint32_t pick_bs(struct clone *c, int op)
{
	const struct rq_job *job = c->job;
	unsigned int n = job->nr_bssplit[op];

	if (n) {
		unsigned int r = (unsigned int)(rq_rng_next(&c->rng) % 100), sum = 0;

		for (unsigned int i = 0; i < n; i++) {
			sum += job->bssplit[op][i].pct;
			if (r < sum)
				return job->bssplit[op][i].bs;
		}
		return job->bssplit[op][n - 1].bs;
	}
	if (job->bs_min[op] && job->bs_max[op] > job->bs_min[op]) {
		uint32_t lo = job->bs_min[op], hi = job->bs_max[op];
		uint32_t v = lo + (uint32_t)(rq_rng_next(&c->rng) % (hi - lo + 1));

		v = (v + lo - 1) / lo * lo;	/* a multiple of the minimum, as fio */
		return v > hi ? hi / lo * lo : v;
	}
	return job->bs[op];
}

static void stamp(char *buf, uint64_t offset, uint32_t len)
{
	for (uint32_t s = 0; s < len; s += SECTOR) {
		uint64_t *w = (uint64_t *)(buf + s);

		w[0] = STAMP_MAGIC;
		w[1] = offset + s;
	}
}

/* Returns the number of stamped sectors checked, or -EILSEQ on a mismatch. */
static int check_stamps(const struct clone *c, const struct rq_bio *bio, const struct clone_file *f)
{
	int n = 0;

	for (uint32_t s = 0; s < bio->len; s += SECTOR) {
		const uint64_t *w = (const uint64_t *)((const char *)bio->buf + s);

		if (w[0] != STAMP_MAGIC)
			continue;
		if (w[1] != bio->offset + s) {
			fprintf(stderr, "rqlock: verify: job '%s': %s offset %" PRIu64
				": sector carries the stamp of offset %" PRIu64 "\n",
				c->job->name, f->q->name, bio->offset + s, w[1]);
			return -EILSEQ;
		}
		n++;
	}
	return n;
}

static bool coe_allows(const struct clone *c, int kind)
{
	return (c->job->continue_on_error & kind) == kind;
}

/* Log a verified write as it is issued (see vlog.c); false when out of memory. */
static bool vlog_add(struct clone *c, const struct clone_file *f, uint64_t offset, uint32_t len,
		     bool inflight, uint64_t *id)
{
	if (rq_vlog_add(&c->vlog, (uint32_t)(f - c->files), offset, len, c->wseq, inflight, id)) {
		if (!c->error)
			c->error = ENOMEM;
		c->issue_done = true;
		return false;
	}
	return true;
}

/*
 * Why an I/O failed, beyond its errno, for the one line the user reads:
 * a file that no longer reaches the I/O (truncated under the run) ends a
 * read short, which the queue reports as EIO (the errno fio reports too);
 * say "end of file" and where the file ends now.  Cold path: one stat.
 */
static void explain_error(const struct clone_file *f, const struct rq_bio *bio, char *buf, size_t len)
{
	const struct rq_dev *dev = f->q->dev;
	struct stat st;

	buf[0] = 0;
	if (bio->error == -EIO && bio->op == RQ_OP_READ && dev && dev->path[0] &&
	    !stat(dev->path, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < bio->offset + bio->len)
		snprintf(buf, len, " (end of file: the file is %llu bytes now, the read needs %llu; "
			 "truncated under the run?)", (unsigned long long)st.st_size,
			 (unsigned long long)(bio->offset + bio->len));
}

/* A bio is back: check what it read, account it, note errors. */
static void clone_account(struct clone *c, struct rq_bio *bio, uint64_t done)
{
	struct clone_file *f = bio->owner_priv;
	const struct rq_job *job = c->job;
	unsigned int idx = (unsigned int)(bio - c->bios);
	bool vread = c->bio_flags[idx] & BIO_VERIFY;
	bool logged = vread;		/* a read of a logged piece: its seq is known */
	int kind = bio->op == RQ_OP_WRITE ? RQ_COE_WRITE : RQ_COE_READ;

	/* a bio ended on another worker carries that worker's clock: never before its issue */
	bio->done_ns = done > bio->issue_ns ? done : bio->issue_ns;
	c->inflight--;
	c->cpu->completed++;
	c->bio_flags[idx] = 0;
	/* a read-only job with verify= checks what it reads, as fio's */
	if (job->verify != RQ_VERIFY_NONE && !rq_rw_writes(job->rw))
		vread = true;
	if (!bio->error && bio->op == RQ_OP_READ && f->has_data) {
		if (vread) {
			char msg[256];

			if (rq_verify_check_seq(job, bio->buf, bio->offset, bio->len,
						logged ? c->bio_tag[idx] : UINT64_MAX, msg, sizeof(msg))) {
				fprintf(stderr, "rqlock: verify: job '%s': %s %s\n", job->name, f->q->name, msg);
				bio->error = -EILSEQ;
				kind = RQ_COE_VERIFY;
			}
		} else if (job->verify == RQ_VERIFY_NONE) {
			int n = check_stamps(c, bio, f);

			if (n < 0) {
				bio->error = n;
				kind = RQ_COE_VERIFY;
			} else {
				c->cpu->verified += (uint64_t)n;
			}
		}
		if (vread && !bio->error)
			c->cpu->verified += bio->len / SECTOR;
	}
	if (bio->op == RQ_OP_WRITE && job->verify != RQ_VERIFY_NONE && f->has_data)
		rq_vlog_done(&c->vlog, c->bio_tag[idx], !bio->error);
	if (bio->error) {
		/* fio: an error continue_on_error covers is counted, not the job's error */
		c->total_err++;
		if (!c->first_error) {
			c->first_error = -bio->error;
			if (bio->error != -EILSEQ) {
				char why[160];

				explain_error(f, bio, why, sizeof(why));
				fprintf(stderr, "rqlock: job '%s': %s %s error at offset %" PRIu64
					" len %u: %s%s\n", job->name, f->q->name, bio->op ? "write" : "read",
					bio->offset, bio->len, strerror(-bio->error), why);
			}
		}
		if (!coe_allows(c, kind)) {
			if (!c->error)
				c->error = -bio->error;
			c->issue_done = true;
		}
	} else {
		/* thinktime after thinktime_blocks completed I/Os (fio's default, "complete") */
		if (job->thinktime_us && !vread &&
		    ++c->since_think >= (job->thinktime_blocks ? job->thinktime_blocks : 1)) {
			c->since_think = 0;
			c->think_until_ns = bio->done_ns + job->thinktime_us * 1000;
			c->spin_until_ns = bio->done_ns + job->thinktime_spin_us * 1000;
		}
		if (bio->done_ns >= c->ramp_end_ns) {
			struct rq_dir_report *d = &c->rep.dir[bio->op];

			d->total_ios++;
			d->io_bytes += bio->len;
			rq_lat_add(&d->slat, bio->issue_ns - bio->start_ns);
			rq_lat_add(&d->clat, bio->done_ns - bio->issue_ns);
			rq_lat_add(&d->lat, bio->done_ns - bio->start_ns);
		}
	}
	bio->next = c->free_bios;
	c->free_bios = bio;
}

static void sampler_add(struct sampler *s, uint64_t v)
{
	double d;

	if (!s->n || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->n++;
	d = (double)v - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * ((double)v - s->mean);
}

static void sampler_report(const struct sampler *s, struct rq_sample_stat *out)
{
	out->samples = s->n;
	out->min = s->min;
	out->max = s->max;
	out->mean = s->mean;
	out->stddev = s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1)) : 0;
}

/* fio's bandwidth and IOPS logs: one sample per 500 ms of measured time. */
#define SAMPLE_NS 500000000ULL

static void clone_sample(struct clone *c, uint64_t now)
{
	uint64_t el;

	if (now < c->next_sample_ns || c->waiting)
		return;
	if (!c->last_sample_ns) {
		if (now < c->ramp_end_ns) {
			c->next_sample_ns = c->ramp_end_ns;
			return;
		}
		c->last_sample_ns = now;
		c->next_sample_ns = now + SAMPLE_NS;
		for (int d = 0; d < 2; d++) {
			c->last_bytes[d] = c->rep.dir[d].io_bytes;
			c->last_ios[d] = c->rep.dir[d].total_ios;
		}
		return;
	}
	el = now - c->last_sample_ns;
	for (int d = 0; d < 2; d++) {
		const struct rq_dir_report *r = &c->rep.dir[d];
		bool dir_used = d == RQ_OP_READ ? rq_rw_reads(c->job->rw) : rq_rw_writes(c->job->rw);

		if (!dir_used)
			continue;
		sampler_add(&c->bw[d], (r->io_bytes - c->last_bytes[d]) * 1000000000ULL / 1024 / el);
		sampler_add(&c->iops[d], (r->total_ios - c->last_ios[d]) * 1000000000ULL / el);
		c->last_bytes[d] = r->io_bytes;
		c->last_ios[d] = r->total_ios;
	}
	c->last_sample_ns = now;
	c->next_sample_ns = now + SAMPLE_NS;
}

/* Verification left to do: a piece held, or logged below the target. */
static bool clone_verify_pending(struct clone *c)
{
	return c->vheld || rq_vlog_pending(&c->vlog, c->vtarget);
}

static void clone_check_done(struct clone *c, uint64_t now)
{
	const struct rq_job *job = c->job;

	if (c->waiting)
		return;
	if (!c->issue_done) {
		if ((c->deadline_ns && now >= c->deadline_ns) ||
		    (!job->time_based && c->issued >= c->io_limit))
			c->issue_done = true;
	}
	/* verification: reads of completed writes, after a backlog or at the end */
	if (job->verify != RQ_VERIFY_NONE && (!c->error || coe_allows(c, RQ_COE_VERIFY)) &&
	    !c->rep.interrupted) {
		uint64_t end = rq_vlog_end(&c->vlog);

		if (job->verify_backlog && end - c->vtarget >= job->verify_backlog)
			c->vtarget = end;
		if (c->issue_done && !c->inflight && (job->do_verify || job->verify_only))
			c->vtarget = end;
	}
	if (c->issue_done && !c->inflight && !clone_verify_pending(c) && !c->finished) {
		c->finished = true;
		c->end_ns = now;
		c->cpu->nr_active--;
		atomic_fetch_sub(&c->cpu->e->job_remaining[c->job_index], 1);
		atomic_fetch_sub_explicit(&c->cpu->e->active_clones, 1, memory_order_release);
	}
}

/* wait_for: start once every clone of the job waited for has finished */
static bool clone_try_start(struct clone *c, uint64_t now)
{
	struct rq_engine *e = c->cpu->e;

	if (atomic_load(&e->job_remaining[c->wait_index]))
		return false;
	c->waiting = false;
	c->start_ns = now;
	c->ramp_end_ns = now + c->job->ramp_ns;
	c->deadline_ns = c->job->runtime_ns ? c->ramp_end_ns + c->job->runtime_ns : 0;
	return true;
}

/* fio's iodepth_submit/complete buckets: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64 */
static inline unsigned int batch_bucket(unsigned int n)
{
	return n == 0 ? 0 : n <= 4 ? 1 : n <= 8 ? 2 : n <= 16 ? 3 : n <= 32 ? 4 : n <= 64 ? 5 : 6;
}

static inline unsigned int depth_bucket(unsigned int d)
{
	unsigned int b = 0;

	while (b < RQ_DEPTH_BUCKETS - 1 && (1u << (b + 1)) <= d)
		b++;
	return b;
}

/* Time a clone holds itself back (rate, thinktime): the worker wakes for it. */
static inline void hold_until(struct rq_cpu *cpu, uint64_t t)
{
	if (t < cpu->clone_wake_ns)
		cpu->clone_wake_ns = t;
}

static unsigned int account_ended(struct rq_cpu *cpu);
static int cpu_submit(struct rq_cpu *cpu, bool wait, uint64_t wait_ns);

static int choose_op(struct clone *c)
{
	const struct rq_job *job = c->job;

	switch (job->rw) {
	case RQ_RW_READ:
	case RQ_RW_RANDREAD:
		return RQ_OP_READ;
	case RQ_RW_WRITE:
	case RQ_RW_RANDWRITE:
		return RQ_OP_WRITE;
	default:
		return (rq_rng_next(&c->rng) % 100) < job->rwmixread ? RQ_OP_READ : RQ_OP_WRITE;
	}
}

/* Interval to the next I/O under rate_iops: fixed, or exponential (poisson). */
static uint64_t rate_gap(struct clone *c, int op)
{
	double gap = 1e9 / (double)c->job->rate_iops[op];

	if (c->job->rate_poisson)
		gap *= -log(1.0 - rq_rng_unit(&c->rng));
	return (uint64_t)gap;
}

/*
 * Where the clone's next I/O of @op goes and how long it is: the one place
 * offsets and sizes are drawn, so verify_only (clone_dry_run()) draws the
 * same sequence from the same seed as the run that wrote.
 */
static void clone_place(struct clone *c, int op, struct clone_file **fp, uint64_t *off, uint32_t *bsp)
{
	const struct rq_job *job = c->job;
	struct clone_file *f = &c->files[c->cur_file];
	uint32_t bs;

	if (++c->cur_file == c->nr_files)
		c->cur_file = 0;
	bs = pick_bs(c, op);
	if (!job->time_based && c->io_limit - c->issued < bs)
		bs = (uint32_t)(c->io_limit - c->issued);
	if (rq_rw_random(job->rw)) {
		*off = random_offset(c, f, &bs);
		f->last_end = *off + bs;
	} else {
		if (f->pos + bs > f->end)
			f->pos = f->start;
		*off = f->pos;
		f->pos += bs + job->rw_seq_add;
	}
	*fp = f;
	*bsp = bs;
}

/*
 * A verified write must not overlap an I/O of the clone still in flight:
 * which of two overlapping writes lands last is up to the device, and a
 * verify read racing a write reads either.  Held back, the write is issued
 * after the completion, so the verify log's order is the device's (fio's
 * serialize_overlap does the same for in-flight overlaps).  O(iodepth).
 */
static bool clone_overlaps_inflight(const struct clone *c, const struct clone_file *f, uint64_t off,
				    uint32_t len)
{
	for (unsigned int i = 0; i < c->job->iodepth; i++) {
		const struct rq_bio *b = &c->bios[i];

		if ((c->bio_flags[i] & BIO_INFLIGHT) && b->owner_priv == f &&
		    b->offset < off + len && off < b->offset + b->len)
			return true;
	}
	return false;
}

/*
 * verify_only=1 (fio's do_dry_run()): draw the writes a run of this job
 * issues - same seed, same sequence - and log them without writing; reads
 * are drawn and dropped.  What is left in the log is what that run left on
 * the device, read back by the usual verify phase.  A bounded batch per
 * call keeps the worker responsive.
 */
static void clone_dry_run(struct clone *c)
{
	const struct rq_job *job = c->job;

	for (unsigned int k = 0; k < 4096 && !c->issue_done; k++) {
		int op = choose_op(c);
		struct clone_file *f;
		uint64_t off, id;
		uint32_t bs;

		if (job->rate_iops[op])
			(void)rate_gap(c, op);	/* it draws from the generator when poisson */
		clone_place(c, op, &f, &off, &bs);
		if (op == RQ_OP_WRITE && f->has_data) {
			if (!vlog_add(c, f, off, bs, false, &id))
				return;
			c->wseq++;
		}
		c->issued += bs;
		if (c->issued >= c->io_limit)
			c->issue_done = true;
	}
}

/* Build and submit bios until the clone's depth is full (at most a depth's worth). */
static unsigned int clone_fill(struct clone *c)
{
	const struct rq_job *job = c->job;
	struct rq_cpu *cpu = c->cpu;
	unsigned int n = 0, batch = job->iodepth_batch_submit ? job->iodepth_batch_submit : 1;

	if (c->waiting && !clone_try_start(c, cpu->now))
		return 0;
	if (job->verify_only && !c->issue_done)
		clone_dry_run(c);
	clone_check_done(c, cpu->now);
	while (c->free_bios && n < job->iodepth) {
		struct rq_bio *bio = c->free_bios;
		struct clone_file *f;
		bool vread = false;
		int op, ret;
		uint32_t bs;

		if (!c->vheld) {
			int v = rq_vlog_next(&c->vlog, c->vtarget, &c->vpiece);

			if (v == -EBUSY)
				break;		/* the next piece's write is in flight */
			c->vheld = v > 0;
		}
		if (c->vheld) {
			vread = true;
			f = &c->files[c->vpiece.file];
			op = RQ_OP_READ;
			bs = c->vpiece.len;
			bio->offset = c->vpiece.offset;
			c->bio_tag[bio - c->bios] = c->vpiece.seq;
		} else if (c->held) {
			/* a write held back by an overlap: the same one, once it is clear */
			op = c->held_op;
			f = c->held_f;
			bs = c->held_bs;
			bio->offset = c->held_off;
			if (clone_overlaps_inflight(c, f, bio->offset, bs))
				break;
			c->held = false;
		} else {
			if (c->issue_done)
				break;
			if (c->think_until_ns > cpu->now) {
				hold_until(cpu, c->think_until_ns);
				break;
			}
			op = c->pending_op >= 0 ? c->pending_op : choose_op(c);
			if (job->rate_iops[op]) {
				if (c->next_issue_ns[op] > cpu->now) {
					c->pending_op = op;
					hold_until(cpu, c->next_issue_ns[op]);
					break;
				}
				c->next_issue_ns[op] = (c->next_issue_ns[op] ? c->next_issue_ns[op] : cpu->now) +
						       rate_gap(c, op);
			}
			c->pending_op = -1;
			clone_place(c, op, &f, &bio->offset, &bs);
			if (op == RQ_OP_WRITE && job->verify != RQ_VERIFY_NONE && f->has_data &&
			    clone_overlaps_inflight(c, f, bio->offset, bs)) {
				c->held = true;
				c->held_op = op;
				c->held_f = f;
				c->held_off = bio->offset;
				c->held_bs = bs;
				break;
			}
		}
		c->free_bios = bio->next;
		bio->len = bs;
		bio->op = (uint8_t)op;
		bio->owner = c;
		bio->owner_priv = f;
		bio->error = 0;
		bio->next = NULL;
		c->bio_flags[bio - c->bios] = (vread ? BIO_VERIFY : 0) | BIO_INFLIGHT;
		if (op == RQ_OP_WRITE && f->has_data) {
			if (job->verify != RQ_VERIFY_NONE) {
				rq_verify_fill(job, bio->buf, bio->offset, bs, c->seed ^ c->wseq, c->wseq);
				if (!vlog_add(c, f, bio->offset, bs, true, &c->bio_tag[bio - c->bios])) {
					bio->next = NULL;
					c->bio_flags[bio - c->bios] = 0;
					break;
				}
			} else {
				stamp(bio->buf, bio->offset, bs);
			}
			c->wseq++;
		}
		bio->start_ns = cpu->now;
		c->inflight++;
		c->rep.depth_hist[depth_bucket(c->inflight)]++;
		if (vread)
			c->vheld = false;
		else
			c->issued += bs;
		cpu->submitted++;
		ret = rq_submit_bio(f->q, cpu, bio);
		/* fio's iodepth_batch_submit: what was dispatched goes to the kernel */
		if (++c->unsubmitted >= batch && cpu->has_ring && io_uring_sq_ready(&cpu->ring) &&
		    !cpu->fatal) {
			cpu->fatal = cpu_submit(cpu, false, 0);
			c->unsubmitted = 0;
		}
		cpu->now = now_ns();
		bio->issue_ns = cpu->now;
		/* bios the device completed inside the submission end now */
		if (cpu->ended)
			account_ended(cpu);
		if (ret) {
			/* not accepted: the bio is ours again */
			c->inflight--;
			if (vread) {
				c->vheld = true;	/* the same piece next time */
			} else {
				c->issued -= bs;
				if (op == RQ_OP_WRITE && job->verify != RQ_VERIFY_NONE && f->has_data)
					rq_vlog_done(&c->vlog, c->bio_tag[bio - c->bios], false);
			}
			cpu->submitted--;
			bio->next = c->free_bios;
			c->free_bios = bio;
			break;
		}
		n++;
		if (!vread) {
			if (c->issued >= c->io_limit && !job->time_based)
				c->issue_done = true;
		}
	}
	if (c->unsubmitted && cpu->has_ring && io_uring_sq_ready(&cpu->ring) && !cpu->fatal) {
		cpu->fatal = cpu_submit(cpu, false, 0);
		c->unsubmitted = 0;
	}
	if (n)
		c->rep.submit_hist[batch_bucket(n)]++;
	return n;
}

/* ---- the worker loop ------------------------------------------------ */

static unsigned int account_list(struct rq_bio *b, uint64_t now, bool keep_done)
{
	unsigned int n = 0;

	while (b) {
		struct rq_bio *next = b->next;

		clone_account(b->owner, b, keep_done ? b->done_ns : now);
		b = next;
		n++;
	}
	return n;
}

static unsigned int account_ended(struct rq_cpu *cpu)
{
	struct rq_bio *b = cpu->ended;

	if (!b)
		return 0;
	cpu->ended = NULL;
	return account_list(b, cpu->now, false);
}

/*
 * fio's iodepth_batch_complete_max: CQEs reaped per round, the largest of
 * the running clones' (a worker serves several), UINT_MAX when unset.
 */
static unsigned int cpu_reap_max(const struct rq_cpu *cpu)
{
	unsigned int max = 0;

	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		const struct clone *c = cpu->clones[i];

		if (c->finished)
			continue;
		if (!c->job->iodepth_batch_complete_max)
			return UINT32_MAX;
		if (c->job->iodepth_batch_complete_max > max)
			max = c->job->iodepth_batch_complete_max;
	}
	return max ? max : UINT32_MAX;
}

/*
 * Reap everything that has completed for this worker: CQEs of its ring,
 * its deferred and timed completions, and bios handed back by others.
 */
static unsigned int cpu_reap(struct rq_cpu *cpu)
{
	unsigned int n = 0;

	cpu->now = now_ns();
	if (cpu->has_ring && cpu->ring_inflight) {
		struct io_uring_cqe *cqe;
		unsigned int head, seen = 0;

		unsigned int max = cpu_reap_max(cpu);

		io_uring_for_each_cqe(&cpu->ring, head, cqe) {
			if (seen == max)
				break;	/* iodepth_batch_complete_max: the rest next round */
			struct rq_request *rq = io_uring_cqe_get_data(cqe);

			const struct rq_dev_ops *ops = rq->q->dev->ops;

			rq->res = ops->cqe_res ? ops->cqe_res(rq, cqe->res) : cqe->res;
			rq_end_request(rq, cpu, 0);
			seen++;
		}
		io_uring_cq_advance(&cpu->ring, seen);
		cpu->ring_inflight -= seen;
		n += seen;
	}
	if (cpu->done_head) {
		struct rq_request *rq = cpu->done_head;

		cpu->done_head = cpu->done_tail = NULL;
		while (rq) {
			struct rq_request *next = rq->next;

			rq_end_request(rq, cpu, 0);
			rq = next;
			n++;
		}
	}
	while (cpu->timer_head && cpu->timer_head->done_at <= cpu->now) {
		struct rq_request *rq = cpu->timer_head;

		cpu->timer_head = rq->next;
		if (!cpu->timer_head)
			cpu->timer_tail = NULL;
		rq_end_request(rq, cpu, 0);
		n++;
	}
	for (unsigned int i = 0; i < cpu->e->nr_polled; i++) {
		struct rq_dev *dev = cpu->e->polled[i];
		int r = dev->ops->poll(dev, cpu);

		if (r > 0)
			n += (unsigned int)r;
	}
	if (cpu->e->mode->poll)
		n += cpu->e->mode->poll(cpu);
	n += account_ended(cpu);
	if (atomic_load_explicit(&cpu->handback, memory_order_relaxed)) {
		struct rq_bio *b = atomic_exchange_explicit(&cpu->handback, NULL, memory_order_acquire);

		n += account_list(b, cpu->now, true);
	}
	return n;
}

/*
 * How many completions a sleeping worker waits for: fio's
 * iodepth_batch_complete_min, the smallest of its running clones', never
 * more than it has in flight on its ring.
 */
static unsigned int cpu_wait_nr(const struct rq_cpu *cpu, unsigned int to_submit)
{
	unsigned int nr = UINT32_MAX, inflight = cpu->ring_inflight + to_submit;

	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		const struct clone *c = cpu->clones[i];
		unsigned int m = c->job->iodepth_batch_complete_min;

		if (!c->finished)
			nr = (m ? m : 1) < nr ? (m ? m : 1) : nr;
	}
	if (nr == UINT32_MAX || nr < 1)
		nr = 1;
	return nr > inflight ? (inflight ? inflight : 1) : nr;
}

/*
 * Hand the ring's prepared SQEs to the kernel; with @wait, also wait (one
 * io_uring_enter) for a completion or @wait_ns.  SQEs the kernel took are
 * counted from the ring's head, which stays right when the wait times out.
 */
static int cpu_submit(struct rq_cpu *cpu, bool wait, uint64_t wait_ns)
{
	unsigned int before;
	int ret;

	if (!cpu->has_ring)
		return 0;
	before = io_uring_sq_ready(&cpu->ring);
	if (wait) {
		struct __kernel_timespec ts = {
			.tv_sec = (long long)(wait_ns / 1000000000ULL),
			.tv_nsec = (long long)(wait_ns % 1000000000ULL),
		};
		struct io_uring_cqe *cqe;

		ret = io_uring_submit_and_wait_timeout(&cpu->ring, &cqe, cpu_wait_nr(cpu, before), &ts, NULL);
	} else if (before || cpu->ring_inflight) {
		/*
		 * Submit and run the ring's deferred completions in the same
		 * enter (DEFER_TASKRUN posts CQEs only when asked): the loop
		 * then finds completions without sleeping for them, as fio's
		 * submit-with-GETEVENTS does.
		 */
		ret = io_uring_submit_and_get_events(&cpu->ring);
	} else {
		return 0;
	}
	cpu->ring_inflight += before - io_uring_sq_ready(&cpu->ring);
	if (ret >= 0 || ret == -ETIME || ret == -EAGAIN || ret == -EBUSY || ret == -EINTR)
		return 0;
	fprintf(stderr, "rqlock: worker %d: io_uring_enter: %s\n", cpu->id, strerror(-ret));
	return ret;
}

/* Work outside the ring that a sleeping worker would not notice. */
static bool cpu_polled_pending(struct rq_cpu *cpu)
{
	for (unsigned int i = 0; i < cpu->e->nr_polled; i++) {
		struct rq_dev *dev = cpu->e->polled[i];

		if (dev->ops->pending && dev->ops->pending(dev, cpu))
			return true;
	}
	return cpu->e->mode->pending && cpu->e->mode->pending(cpu);
}

static bool cpu_has_pending(struct rq_cpu *cpu)
{
	return cpu->ring_inflight || cpu->done_head || cpu->timer_head || cpu->ended ||
	       atomic_load_explicit(&cpu->handback, memory_order_relaxed) ||
	       cpu_polled_pending(cpu);
}

/* Nothing happened this round: wait for the next thing that can. */
static int cpu_wait(struct rq_cpu *cpu, unsigned int idle_rounds)
{
	/* a clone in the spin part of its thinktime keeps the worker on the CPU */
	for (unsigned int i = 0; i < cpu->nr_clones; i++)
		if (!cpu->clones[i]->finished && cpu->clones[i]->spin_until_ns > cpu->now)
			return cpu_submit(cpu, false, 0);

	uint64_t wait_ns = 200000;
	uint64_t next = cpu->timer_head ? cpu->timer_head->done_at : UINT64_MAX;

	if (cpu->clone_wake_ns < next)
		next = cpu->clone_wake_ns;
	if (next != UINT64_MAX) {
		uint64_t t = next;

		wait_ns = t > cpu->now ? t - cpu->now : 0;
		if (wait_ns < 50000) {
			/* a short timer: yield and look again, a sleep would be late */
			sched_yield();
			return cpu_submit(cpu, false, 0);
		}
		wait_ns -= 20000;
		if (wait_ns > WAIT_MAX_NS)
			wait_ns = WAIT_MAX_NS;
	}
	if (cpu_polled_pending(cpu)) {
		/* completions this worker must poll for: look again soon */
		sched_yield();
		return cpu_submit(cpu, false, 0);
	}
	if (cpu->has_ring && (cpu->ring_inflight || io_uring_sq_ready(&cpu->ring))) {
		int ret = cpu_submit(cpu, false, 0);

		if (ret || io_uring_cq_ready(&cpu->ring))
			return ret;
		return cpu_submit(cpu, true, wait_ns);
	}
	if (idle_rounds < 64) {
		sched_yield();
		return 0;
	}
	/* waiting for bios other workers end: sleep until one is handed back */
	atomic_store_explicit(&cpu->sleeping, 1, memory_order_seq_cst);
	if (!atomic_load_explicit(&cpu->handback, memory_order_seq_cst))
		futex_wait(&cpu->sleeping, 1, (long)(wait_ns < 1000000 ? wait_ns : 1000000));
	atomic_store_explicit(&cpu->sleeping, 0, memory_order_relaxed);
	return 0;
}

/* Queues whose requests wait behind a full ring are run again when idle. */
static void cpu_kick(struct rq_cpu *cpu)
{
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		if (!c->finished && c->inflight)
			for (unsigned int f = 0; f < c->nr_files; f++)
				rq_run_queue(c->files[f].q, cpu);
	}
}

/*
 * One ring per worker, only its worker submits to it: SINGLE_ISSUER and
 * DEFER_TASKRUN (completions run when the worker asks for them, no IPI)
 * where the kernel has them, COOP_TASKRUN otherwise, plain as a last
 * resort.  Compile-time probes say what liburing knows; the kernel's
 * -EINVAL says what it does not.
 */
static int ring_init(struct io_uring *ring, unsigned int extra)
{
	static const unsigned int tries[] = {
#if defined(RQ_HAVE_SINGLE_ISSUER) && defined(RQ_HAVE_DEFER_TASKRUN)
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
#endif
#ifdef IORING_SETUP_COOP_TASKRUN
		IORING_SETUP_COOP_TASKRUN,
#endif
		0,
	};
	int ret = -EINVAL;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		struct io_uring_params p = {
			.flags = IORING_SETUP_CQSIZE | tries[i] | extra,
			.cq_entries = 8192,
		};

		ret = io_uring_queue_init_params(1024, ring, &p);
		if (ret != -EINVAL)
			return ret;
	}
	return ret;
}

/* fio's usr_cpu/sys_cpu/ctx: the worker's, shared among its clones */
static void worker_cpu_usage(struct rq_cpu *cpu)
{
	struct rusage ru;
	double usr, sys;
	uint64_t ctx;

	if (!cpu->nr_clones || getrusage(RUSAGE_THREAD, &ru))
		return;
	usr = (double)(ru.ru_utime.tv_sec - cpu->ru_start.ru_utime.tv_sec) * 1e9 +
	      (double)(ru.ru_utime.tv_usec - cpu->ru_start.ru_utime.tv_usec) * 1e3;
	sys = (double)(ru.ru_stime.tv_sec - cpu->ru_start.ru_stime.tv_sec) * 1e9 +
	      (double)(ru.ru_stime.tv_usec - cpu->ru_start.ru_stime.tv_usec) * 1e3;
	ctx = (uint64_t)(ru.ru_nvcsw - cpu->ru_start.ru_nvcsw + ru.ru_nivcsw - cpu->ru_start.ru_nivcsw);
	uint64_t majf = (uint64_t)(ru.ru_majflt - cpu->ru_start.ru_majflt);
	uint64_t minf = (uint64_t)(ru.ru_minflt - cpu->ru_start.ru_minflt);
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];
		double run = (double)(c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 1);

		c->rep.usr_cpu = 100.0 * usr / cpu->nr_clones / run;
		c->rep.sys_cpu = 100.0 * sys / cpu->nr_clones / run;
		c->rep.ctx = ctx / cpu->nr_clones;
		c->rep.majf = majf / cpu->nr_clones;
		c->rep.minf = minf / cpu->nr_clones;
		memcpy(c->rep.complete_hist, cpu->complete_hist, sizeof(cpu->complete_hist));
	}
}

/* SIGINT/SIGTERM: no new I/O, no verify pass; what is in flight drains. */
static void cpu_stop_clones(struct rq_cpu *cpu)
{
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		if (c->finished || c->rep.interrupted)
			continue;
		c->rep.interrupted = true;
		c->issue_done = true;
		c->vtarget = rq_vlog_head(&c->vlog);	/* nothing more to read back */
		c->vheld = false;
		c->held = false;
		if (c->waiting) {
			/* never started: it ends now, with nothing done */
			c->waiting = false;
			c->start_ns = c->ramp_end_ns = cpu->now;
		}
	}
}

/*
 * The stall watchdog: a bio of this worker's clones in flight longer than
 * the limit is reported with its device, offset and age, and the run is
 * ended.  Checked every 100 ms of the worker's clock.
 */
static bool cpu_watchdog(struct rq_cpu *cpu)
{
	uint64_t limit = cpu->e->o.stall_timeout_ns;

	cpu->next_watch_ns = cpu->now + 100000000ULL;
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		for (unsigned int b = 0; c->inflight && b < c->job->iodepth; b++) {
			const struct rq_bio *bio = &c->bios[b];
			uint64_t age;

			if (!(c->bio_flags[b] & BIO_INFLIGHT) || cpu->now <= bio->start_ns)
				continue;
			age = cpu->now - bio->start_ns;
			if (age < limit)
				continue;
			if (!atomic_exchange(&g_stalled, true))
				fprintf(stderr, "rqlock: stall: job '%s' clone %u: %s %s of %u bytes at offset %"
					PRIu64 " in flight for %.1f s (--stall-timeout %.0f s); ending the run\n",
					c->job->name, c->index, ((struct clone_file *)bio->owner_priv)->q->name,
					bio->op ? "write" : "read", bio->len, bio->offset, (double)age / 1e9,
					(double)limit / 1e9);
			return true;
		}
	}
	return false;
}

static void *worker_main(void *arg)
{
	struct rq_cpu *cpu = arg;
	struct rq_engine *e = cpu->e;
	unsigned int idle = 0, busy = 0;

	/* the ring is made by the thread that submits to it (SINGLE_ISSUER) */
	if (cpu->wants_ring) {
		int ret = ring_init(&cpu->ring, cpu->ring_flags);

		if (ret) {
			fprintf(stderr, "rqlock: worker %d: cannot create an io_uring ring: %s\n",
				cpu->id, strerror(-ret));
			cpu->fatal = ret;
			atomic_store(&e->start_failed, true);
		} else {
			cpu->has_ring = true;
			ret = rq_devs_ring_init(cpu, &cpu->ring, e->all_devs, e->nr_devs,
						e->ring_bufs, e->nr_ring_bufs);
			if (ret) {
				cpu->fatal = ret;
				atomic_store(&e->start_failed, true);
			}
		}
	}
	pthread_barrier_wait(&e->barrier);
	if (atomic_load(&e->start_failed))
		return NULL;	/* every worker sees it: nobody starts */
	getrusage(RUSAGE_THREAD, &cpu->ru_start);
	cpu->now = now_ns();
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		if (c->job->wait_for[0]) {
			c->waiting = true;	/* clone_try_start() sets the times */
			continue;
		}
		c->start_ns = cpu->now;
		c->ramp_end_ns = cpu->now + c->job->ramp_ns;
		c->deadline_ns = c->job->runtime_ns ? c->ramp_end_ns + c->job->runtime_ns : 0;
	}
	/*
	 * Fill, reap, and only when a round made no progress go to the
	 * kernel: prepared SQEs are then submitted and a completion waited
	 * for in one io_uring_enter.  A busy round still submits once SQEs
	 * have waited for four rounds, so nothing starves.
	 */
	/*
	 * A mode that leaves work for other workers (cluster forwards bios
	 * to the partition that owns the device) needs every worker until
	 * the last clone of the phase is done, not only its own.
	 */
	while (cpu->nr_active || cpu_has_pending(cpu) ||
	       (e->mode->poll && atomic_load_explicit(&e->active_clones, memory_order_acquire))) {
		unsigned int progress = 0;
		int ret = 0;

		if (__builtin_expect(atomic_load_explicit(&g_stop_sig, memory_order_relaxed) != 0, 0))
			cpu_stop_clones(cpu);
		if (__builtin_expect(cpu->now >= cpu->next_watch_ns, 0)) {
			if (cpu_watchdog(cpu) || atomic_load(&g_stalled))
				break;	/* abandon what is stuck: the run ends with the report */
		}
		cpu->clone_wake_ns = UINT64_MAX;
		for (unsigned int i = 0; i < cpu->nr_clones; i++)
			if (!cpu->clones[i]->finished)
				progress += clone_fill(cpu->clones[i]);
		{
			unsigned int reaped = cpu_reap(cpu);

			if (reaped)
				cpu->complete_hist[batch_bucket(reaped)]++;
			progress += reaped;
		}
		for (unsigned int i = 0; i < cpu->nr_clones; i++) {
			if (!cpu->clones[i]->finished) {
				clone_check_done(cpu->clones[i], cpu->now);
				clone_sample(cpu->clones[i], cpu->now);
			}
		}
		if (progress) {
			idle = 0;
			if (++busy >= 1) {
				busy = 0;
				ret = cpu_submit(cpu, false, 0);
			}
		} else {
			busy = 0;
			if (++idle % 256 == 0)
				cpu_kick(cpu);
			ret = cpu_wait(cpu, idle);
		}
		if (ret && !cpu->fatal)
			cpu->fatal = ret;
		if (cpu->fatal)
			break;
	}
	worker_cpu_usage(cpu);
	return NULL;
}

/* ---- setup ------------------------------------------------------------ */

struct name_ctx {
	struct rq_engine *e;
	const struct rq_job *job;
	unsigned int clone;
	struct clone *c;		/* NULL while counting devices */
	unsigned int nr;
	FILE *err;
	int ret;
};

static struct dev_entry *dev_find(struct rq_engine *e, const char *name)
{
	for (unsigned int i = 0; i < e->nr_devs; i++)
		if (!strcmp(e->devs[i].name, name))
			return &e->devs[i];
	return NULL;
}

static unsigned int job_nr_files(const struct rq_job *job)
{
	int n = rq_job_for_each_file(job, NULL, NULL);

	return n > 0 ? (unsigned int)n : 1;
}

/* The device names a clone uses: fio's "jobname.clone.0" when none given. */
static int clone_names(const struct rq_job *job, unsigned int clone,
		       int (*fn)(const char *name, void *arg), void *arg)
{
	char name[RQ_JOB_PATH_MAX];

	if (job->filename[0])
		return rq_job_for_each_file(job, fn, arg);
	if (job->ioengine != RQ_IOENGINE_NULL)
		return -ENOENT;
	snprintf(name, sizeof(name), "%s.%u.0", job->name, clone);
	return fn(name, arg) < 0 ? -EINVAL : 1;
}

/* The smallest and largest block size a job issues in @dir. */
static void job_bs_limits(const struct rq_job *job, int dir, uint32_t *lo, uint32_t *hi)
{
	*lo = *hi = job->bs[dir];
	if (job->nr_bssplit[dir]) {
		*lo = UINT32_MAX;
		*hi = 0;
		for (unsigned int i = 0; i < job->nr_bssplit[dir]; i++) {
			uint32_t b = job->bssplit[dir][i].bs;

			*lo = b < *lo ? b : *lo;
			*hi = b > *hi ? b : *hi;
		}
	} else if (job->bs_min[dir] && job->bs_max[dir] > job->bs_min[dir]) {
		*lo = job->bs_min[dir];
		*hi = job->bs_max[dir];
	}
}

static uint32_t job_min_bs(const struct rq_job *job)
{
	uint32_t lo, hi, min = UINT32_MAX;

	for (int d = 0; d < 2; d++) {
		if ((d == 0 && !rq_rw_reads(job->rw)) || (d == 1 && !rq_rw_writes(job->rw)))
			continue;
		job_bs_limits(job, d, &lo, &hi);
		min = lo < min ? lo : min;
	}
	return min == UINT32_MAX ? job->bs[0] : min;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/*
 * Where clone @k's region starts (offset, offset_increment) on a device
 * of @dev_size bytes; sizes given in percent of the device resolve as
 * fio's filesetup does: offsets rounded up to the minimum block size.
 */
static uint64_t clone_offset_on(const struct rq_job *job, unsigned int k, uint64_t dev_size)
{
	uint64_t mb = job_min_bs(job);
	uint64_t off = job->offset_pct ? round_up((uint64_t)(dev_size * job->offset_pct / 100), mb)
				       : job->offset;
	uint64_t inc = job->offset_increment_pct ?
		round_up((uint64_t)(dev_size * job->offset_increment_pct / 100), mb) : job->offset_increment;

	return off + (uint64_t)k * inc;
}

static uint64_t clone_offset(const struct rq_job *job, unsigned int k)
{
	return clone_offset_on(job, k, 0);
}

/* The size a job's region has on one of its files (size, or size in percent). */
static uint64_t job_file_size(const struct rq_job *job, uint64_t dev_size, uint64_t off, unsigned int nr_files)
{
	uint64_t mb = job_min_bs(job), size;

	if (job->size_pct) {
		size = (uint64_t)(dev_size * job->size_pct / 100) / nr_files;
		if (size > dev_size - (off < dev_size ? off : dev_size))
			size = dev_size - (off < dev_size ? off : dev_size);
		return size / mb * mb;
	}
	return job->size / nr_files;
}

/* The spec a --device NAME=SPEC gives @name, or NULL. */
static const char *alias_of(const struct rq_engine_opts *o, const char *name)
{
	size_t len = strlen(name);

	for (unsigned int i = 0; i < o->nr_aliases; i++)
		if (!strncmp(o->aliases[i], name, len) && o->aliases[i][len] == '=')
			return o->aliases[i] + len + 1;
	return NULL;
}

static int add_dev(const char *name, void *arg)
{
	struct name_ctx *x = arg;
	const struct rq_job *job = x->job;
	uint64_t per_file = job->size / job_nr_files(job);
	struct dev_entry *d = dev_find(x->e, name);
	uint64_t need = per_file ? clone_offset(job, job->numjobs - 1) + per_file : 0;

	if (!d) {
		d = &x->e->devs[x->e->nr_devs++];
		snprintf(d->name, sizeof(d->name), "%s", name);
		const char *alias = alias_of(&x->e->o, name);

		/* fio's null engine takes any file name; '@null...' keeps its options */
		if (alias)
			snprintf(d->spec, sizeof(d->spec), "%s", alias);
		else if (job->ioengine == RQ_IOENGINE_NULL && name[0] != '@')
			snprintf(d->spec, sizeof(d->spec), "@null");
		else
			snprintf(d->spec, sizeof(d->spec), "%s", name);
		d->o.ioengine = job->ioengine;
		d->o.nr_cpus = x->e->nr_cpus;
		snprintf(d->where, sizeof(d->where), "%s:%d", job->file, job->line);
		d->o.spec = d->spec;
		d->o.where = d->where;
		d->o.allow_mounted_write = x->e->o.allow_mounted_write;
	}
	if (need > d->o.min_size)
		d->o.min_size = need;
	d->o.write |= rq_rw_writes(job->rw);
	d->o.direct |= job->direct;
	d->nr_requests += job->iodepth;
	return 0;
}

static int bind_file(const char *name, void *arg)
{
	struct name_ctx *x = arg;
	struct clone *c = x->c;
	const struct rq_job *job = x->job;
	struct dev_entry *d = dev_find(x->e, name);
	struct clone_file *f = &c->files[x->nr++];
	uint64_t off = clone_offset_on(job, x->clone, d->dev.size);
	uint64_t size = job_file_size(job, d->dev.size, off, c->nr_files);

	f->q = &d->q;
	f->has_data = d->dev.flags & RQ_DEV_HAS_DATA;

	if (!size)
		size = d->dev.size > off ? d->dev.size - off : 0;
	f->start = off;
	f->end = off + size;
	f->pos = f->start;
	f->nblocks = size / c->min_bs;
	f->bits = 1;
	while (f->bits < 63 && (1ULL << f->bits) < f->nblocks)
		f->bits++;
	f->mask = (1ULL << f->bits) - 1;
	if (job->random_distribution != RQ_RAND_UNIFORM &&
	    rq_dist_init(&f->dist, job->random_distribution, job->rand_param, f->nblocks, job->rand_center))
		return -EINVAL;
	/* mixed block sizes under the random map: track covered blocks (randmap.c) */
	if (rq_rw_random(job->rw) && job->random_distribution == RQ_RAND_UNIFORM &&
	    !job->norandommap && c->max_bs > c->min_bs && rq_randmap_init(&f->map, f->nblocks))
		return -ENOMEM;
	return 0;
}

/* Check one job against one of its devices: alignment and bounds. */
static int check_file(const char *name, void *arg)
{
	struct name_ctx *x = arg;
	const struct rq_job *job = x->job;
	const struct dev_entry *d = dev_find(x->e, name);
	const struct rq_dev *dev = &d->dev;
	uint64_t last = clone_offset_on(job, job->numjobs - 1, dev->size);
	uint64_t per_file = job_file_size(job, dev->size, last, job_nr_files(job));
	uint64_t end = per_file ? last + per_file : dev->size;
	bool aligned = job->direct || (dev->flags & RQ_DEV_ALIGNED);

	for (int dir = 0; dir < 2; dir++) {
		uint32_t lo, hi;

		if ((dir == 0 && !rq_rw_reads(job->rw)) || (dir == 1 && !rq_rw_writes(job->rw)))
			continue;
		job_bs_limits(job, dir, &lo, &hi);
		for (unsigned int i = 0; aligned && i <= job->nr_bssplit[dir]; i++) {
			uint32_t b = i < job->nr_bssplit[dir] ? job->bssplit[dir][i].bs : lo;

			if (b % dev->lbs) {
				fprintf(x->err, "%s:%d: job '%s': bs=%u is not a multiple of the logical "
					"block size %u of %s (direct=1)\n", job->file, job->line, job->name,
					b, dev->lbs, name);
				return -EINVAL;
			}
		}
		if (end < last + hi || dev->size < last + hi) {
			fprintf(x->err, "%s:%d: job '%s': region of %s (offset=%" PRIu64 ", size=%"
				PRIu64 ") is smaller than bs=%u\n", job->file, job->line, job->name,
				name, last, end > last ? end - last : 0, hi);
			return -EINVAL;
		}
	}
	if (aligned && job->offset_increment % dev->lbs) {
		fprintf(x->err, "%s:%d: job '%s': offset_increment=%" PRIu64 " is not a multiple of the "
			"logical block size %u of %s (direct=1)\n", job->file, job->line,
			job->name, job->offset_increment, dev->lbs, name);
		return -EINVAL;
	}
	if (aligned && job->offset % dev->lbs) {
		fprintf(x->err, "%s:%d: job '%s': offset=%" PRIu64 " is not a multiple of the "
			"logical block size %u of %s (direct=1)\n", job->file, job->line,
			job->name, job->offset, dev->lbs, name);
		return -EINVAL;
	}
	if (end > dev->size) {
		fprintf(x->err, "%s:%d: job '%s': offset+size=%" PRIu64 " is past the end of %s (%"
			PRIu64 " bytes)\n", job->file, job->line, job->name, end, name, dev->size);
		return -EINVAL;
	}
	return 0;
}

static unsigned int online_cpus(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

static bool job_allows_worker(const struct rq_job *job, unsigned int w);
static int ring_init(struct io_uring *ring, unsigned int extra);
static int clone_init(struct rq_engine *e, struct clone *c, const struct rq_job *job,
		      unsigned int index);

/*
 * Resource limits, checked before anything is written: the clones' I/O
 * buffers against the machine's memory and RLIMIT_AS, and one io_uring
 * ring per worker against RLIMIT_MEMLOCK and the kernel's ring limits
 * (created and closed again here; the workers create their own).
 */
static int check_resources(struct rq_engine *e, FILE *err)
{
	const struct rq_job_list *jobs = e->jobs;
	unsigned __int128 total = 0;
	struct sysinfo si;
	struct rlimit rl;
	bool ring = false;

	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];
		uint32_t lo, hi, max = 0;
		unsigned __int128 need;

		for (int d = 0; d < 2; d++) {
			job_bs_limits(job, d, &lo, &hi);
			max = hi > max ? hi : max;
		}
		need = (unsigned __int128)job->numjobs * job->iodepth * ((max + 4095ULL) & ~4095ULL);
		total += need;
		if (!sysinfo(&si) && need > (unsigned __int128)si.totalram * si.mem_unit / 2) {
			fprintf(err, "%s:%d: job '%s': numjobs x iodepth x bs needs %llu MiB of buffers, "
				"more than half of this machine's %llu MiB\n", job->file, job->line, job->name,
				(unsigned long long)(need >> 20),
				(unsigned long long)(((unsigned __int128)si.totalram * si.mem_unit) >> 20));
			return -ENOMEM;
		}
	}
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY && total > rl.rlim_cur) {
		fprintf(err, "rqlock: the jobs need %llu MiB of buffers, more than RLIMIT_AS (%llu MiB)\n",
			(unsigned long long)(total >> 20), (unsigned long long)(rl.rlim_cur >> 20));
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < e->nr_devs; i++)
		ring |= e->devs[i].dev.flags & RQ_DEV_NEEDS_RING;
	if (ring) {
		struct io_uring *rings = calloc(e->nr_cpus, sizeof(*rings));
		unsigned int made = 0;
		int ret = 0;

		if (!rings)
			return -ENOMEM;
		for (; made < e->nr_cpus; made++) {
			ret = ring_init(&rings[made], 0);
			if (ret)
				break;
		}
		for (unsigned int i = 0; i < made; i++)
			io_uring_queue_exit(&rings[i]);
		free(rings);
		if (ret) {
			getrlimit(RLIMIT_MEMLOCK, &rl);
			fprintf(err, "rqlock: cannot create io_uring ring %u of %u: %s (RLIMIT_MEMLOCK %llu KiB)\n",
				made + 1, e->nr_cpus, strerror(-ret),
				rl.rlim_cur == RLIM_INFINITY ? 0ULL : (unsigned long long)(rl.rlim_cur >> 10));
			return ret;
		}
	}
	return 0;
}

/* What can be checked of the jobs alone, before any device is opened. */
static int check_jobs(struct rq_engine *e, FILE *err)
{
	const struct rq_job_list *jobs = e->jobs;

	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];
		struct rq_dist d;
		bool any = false;

		if (job->wait_for[0]) {
			unsigned int k;

			for (k = 0; k < j; k++)
				if (!strcmp(jobs->jobs[k].name, job->wait_for))
					break;
			if (k == j) {
				fprintf(err, "%s:%d: job '%s': wait_for=%s: no job of that name before it\n",
					job->file, job->line, job->name, job->wait_for);
				return -EINVAL;
			}
		}
		if (job->random_distribution != RQ_RAND_UNIFORM &&
		    rq_dist_init(&d, job->random_distribution, job->rand_param, 1024, job->rand_center)) {
			fprintf(err, "%s:%d: job '%s': random_distribution: parameter %g out of range\n",
				job->file, job->line, job->name, job->rand_param);
			return -EINVAL;
		}
		for (unsigned int w = 0; job->has_cpus_allowed && w < e->nr_cpus; w++)
			any |= job_allows_worker(job, w);
		if (job->has_cpus_allowed && !any) {
			fprintf(err, "%s:%d: job '%s': cpus_allowed names no CPU that one of the %u "
				"workers runs on\n", job->file, job->line, job->name, e->nr_cpus);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Two clones running at once whose regions overlap on a device, one of
 * them verifying and the other writing: each verify log knows only its own
 * clone's writes, so the other's data would be reported as corruption
 * (measured before this check: 834 false lines for numjobs=2 on one 16m
 * region).  fio runs such jobs and only warns that "multiple writers may
 * overwrite blocks that belong to other jobs. This can cause verification
 * failures" (axboe/fio#303, #185).  rqlock refuses them before anything is
 * written: a run that must report false corruption is bad input.  Disjoint
 * regions (offset_increment=, or size/offset per job) are fine.
 */
static int check_shared_verify(struct rq_engine *e, FILE *err)
{
	unsigned int phase_start = 0;

	for (unsigned int a = 0; a < e->nr_clones; a++) {
		const struct clone *ca = &e->clones[a];

		if (a && ca->job != e->clones[a - 1].job && (ca->job->stonewall & RQ_JOB_STONEWALL))
			phase_start = a;
		for (unsigned int b = phase_start; b < e->nr_clones; b++) {
			const struct clone *cb = &e->clones[b];

			if (b > a && cb->job != e->clones[b - 1].job && (cb->job->stonewall & RQ_JOB_STONEWALL))
				break;		/* the next phase: not at the same time */
			if (b == a || ca->job->verify == RQ_VERIFY_NONE || !rq_rw_writes(cb->job->rw))
				continue;
			for (unsigned int i = 0; i < ca->nr_files; i++) {
				for (unsigned int k = 0; k < cb->nr_files; k++) {
					const struct clone_file *fa = &ca->files[i], *fb = &cb->files[k];

					if (fa->q != fb->q || !fa->has_data || fa->start >= fb->end ||
					    fb->start >= fa->end)
						continue;
					fprintf(err, "%s:%d: job '%s' clone %u verifies %s [%" PRIu64 ", %" PRIu64
						") while job '%s' clone %u writes [%" PRIu64 ", %" PRIu64 "): each "
						"verify log knows only its own writes, so the other's would be "
						"reported as corruption; give each clone its own region "
						"(offset_increment=) or stonewall them\n",
						ca->job->file, ca->job->line, ca->job->name, ca->index,
						container_of(fa->q, struct dev_entry, q)->name, fa->start, fa->end, cb->job->name, cb->index,
						fb->start, fb->end);
					return -EINVAL;
				}
			}
		}
	}
	return 0;
}

/*
 * Setup failed after layout began (ENOSPC on a later file, SIGINT, a
 * limit): the run never starts, so the files it created go too - a failed
 * or interrupted start leaves nothing behind.  Files that were there
 * before are left (rq_file_prepare() already truncated a failed extension).
 */
static void discard_layouts(struct rq_engine *e, FILE *err)
{
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		char path[RQ_JOB_PATH_MAX];

		if (!e->devs[i].dev.created)
			continue;
		snprintf(path, sizeof(path), "%s", e->devs[i].dev.created);
		if (rq_dev_discard_layout(&e->devs[i].dev))
			fprintf(err, "rqlock: removed %s, laid out by this run\n", path);
	}
}

int rq_engine_setup(struct rq_engine **ep, const struct rq_engine_opts *o,
		    const struct rq_job_list *jobs, FILE *err)
{
	struct rq_engine *e;
	unsigned int max_devs = 0;
	char msg[256];
	int ret;

	*ep = NULL;
	if (rq_queue_modes_check(msg, sizeof(msg)) || rq_devs_check(msg, sizeof(msg))) {
		fprintf(err, "rqlock: %s\n", msg);
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	clock_setup();
	e->o = *o;
	e->jobs = jobs;
	if (!e->o.stall_timeout_ns)
		e->o.stall_timeout_ns = 300ULL * 1000000000ULL;	/* generous: a floppy is slow, not stuck */
	atomic_store(&g_stalled, false);
	e->mode = rq_queue_mode_find(o->lock_mode);
	if (!e->mode) {
		fprintf(err, "rqlock: --lock=%s: unknown lock mode (%s)\n", o->lock_mode,
			rq_queue_mode_names());
		ret = -EINVAL;
		goto fail;
	}
	e->nr_cpus = o->workers ? o->workers : online_cpus();
	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];

		if (!job->filename[0] && job->ioengine != RQ_IOENGINE_NULL) {
			fprintf(err, "%s:%d: job '%s': no filename given (ioengine=null needs none)\n",
				job->file, job->line, job->name);
			ret = -EINVAL;
			goto fail;
		}
		max_devs += job_nr_files(job) * (job->filename[0] ? 1 : job->numjobs);
		e->nr_clones += job->numjobs;
	}
	ret = check_jobs(e, err);
	if (ret)
		goto fail;
	e->devs = calloc(max_devs ? max_devs : 1, sizeof(*e->devs));
	e->clones = line_calloc((size_t)e->nr_clones * sizeof(*e->clones));
	e->cpus = aligned_alloc(RQ_CACHELINE, sizeof(*e->cpus) * e->nr_cpus);
	if (!e->devs || !e->clones || !e->cpus) {
		ret = -ENOMEM;
		goto fail;
	}
	memset(e->cpus, 0, sizeof(*e->cpus) * e->nr_cpus);

	/* 1: which devices, with what they must allow */
	for (unsigned int j = 0; j < jobs->nr; j++) {
		for (unsigned int k = 0; k < jobs->jobs[j].numjobs; k++) {
			struct name_ctx x = { .e = e, .job = &jobs->jobs[j], .clone = k, .err = err };

			ret = clone_names(x.job, k, add_dev, &x);
			if (ret < 0)
				goto fail;
			if (jobs->jobs[j].filename[0])
				break;		/* clones share the files */
		}
	}
	/* 2: open them, writing nothing */
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		ret = rq_dev_open(&e->devs[i].dev, &e->devs[i].o, err);
		e->devs[i].opened = true;	/* close what a failed open left */
		if (ret)
			goto fail;
		snprintf(e->devs[i].dev.name, sizeof(e->devs[i].dev.name), "%.127s", e->devs[i].name);
	}
	/* 3: every job against every device it names */
	for (unsigned int j = 0; j < jobs->nr; j++) {
		struct name_ctx x = { .e = e, .job = &jobs->jobs[j], .err = err };

		ret = clone_names(x.job, 0, check_file, &x);
		if (ret < 0)
			goto fail;
	}
	/* 4: every clone's memory, and a ring to probe the limits, before any write */
	ret = check_resources(e, err);
	if (ret)
		goto fail;
	for (unsigned int j = 0, k = 0; j < jobs->nr; j++) {
		for (unsigned int n = 0; n < jobs->jobs[j].numjobs; n++, k++) {
			ret = clone_init(e, &e->clones[k], &jobs->jobs[j], n);
			e->clones[k].job_index = j;
			for (unsigned int w = 0; w < j; w++)
				if (!strcmp(jobs->jobs[w].name, jobs->jobs[j].wait_for))
					e->clones[k].wait_index = w;
			if (ret) {
				fprintf(err, "%s:%d: job '%s': cannot set up clone %u: %s\n",
					jobs->jobs[j].file, jobs->jobs[j].line, jobs->jobs[j].name, n,
					strerror(-ret));
				goto fail;
			}
		}
	}
	ret = check_shared_verify(e, err);
	if (ret)
		goto fail;
	/* 5: only now may anything be written (file layout) */
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		ret = rq_dev_prepare(&e->devs[i].dev, &e->devs[i].o, err);
		if (ret)
			goto fail;
	}
	if (rq_devs_interrupted()) {
		fprintf(err, "rqlock: interrupted during layout\n");
		ret = -EINTR;
		goto fail;
	}
	rq_locks_reset();
	e->mcfg.nr_cpus = e->nr_cpus;
	e->mcfg.hw_queues = o->hw_queues;
	e->mcfg.cluster_size = o->cluster_size;
	e->mcfg.lockstat = o->lockstat;
	e->mcfg.lockdep = o->lockdep;
	rq_lock_type_parse(o->lock_type, &e->mcfg.lock_type);
	if (e->mode->setup && (ret = e->mode->setup(&e->mcfg)))
		goto fail;
	e->mode_setup = true;
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		struct dev_entry *d = &e->devs[i];
		uint32_t nr = d->nr_requests < 128 ? 128 : d->nr_requests;

		ret = rq_queue_init(&d->q, e->mode, &d->dev, nr);
		if (ret)
			goto fail;
		d->q_ready = true;
	}
	e->polled = calloc(e->nr_devs ? e->nr_devs : 1, sizeof(*e->polled));
	if (!e->polled) {
		ret = -ENOMEM;
		goto fail;
	}
	for (unsigned int i = 0; i < e->nr_devs; i++)
		if (e->devs[i].dev.ops->poll)
			e->polled[e->nr_polled++] = &e->devs[i].dev;
	e->all_devs = calloc(e->nr_devs ? e->nr_devs : 1, sizeof(*e->all_devs));
	if (!e->all_devs) {
		ret = -ENOMEM;
		goto fail;
	}
	for (unsigned int i = 0; i < e->nr_devs; i++)
		e->all_devs[i] = &e->devs[i].dev;
	*ep = e;
	return 0;
fail:
	discard_layouts(e, err);
	rq_engine_free(e);
	return ret;
}

static int clone_init(struct rq_engine *e, struct clone *c, const struct rq_job *job,
		      unsigned int index)
{
	struct name_ctx x = { .e = e, .job = job, .clone = index, .c = c };
	size_t buf_bytes;

	memset(c, 0, sizeof(*c));
	c->job = job;
	c->index = index;
	c->pending_op = -1;
	c->min_bs = UINT32_MAX;
	for (int d = 0; d < 2; d++) {
		uint32_t lo, hi;

		if ((d == 0 && !rq_rw_reads(job->rw)) || (d == 1 && !rq_rw_writes(job->rw)))
			continue;
		job_bs_limits(job, d, &lo, &hi);
		c->min_bs = lo < c->min_bs ? lo : c->min_bs;
		c->max_bs = hi > c->max_bs ? hi : c->max_bs;
	}
	/* verification reads back what was written */
	if (job->verify != RQ_VERIFY_NONE) {
		uint32_t lo, hi;

		job_bs_limits(job, 1, &lo, &hi);
		c->max_bs = hi > c->max_bs ? hi : c->max_bs;
	}
	c->nr_files = job_nr_files(job);
	/*
	 * Written on every I/O by the clone's worker: each on cache lines of
	 * its own, or another worker's data on the same line bounces it
	 * (measured: a device's private data beside bio_flags halved scaling).
	 */
	c->files = line_calloc((size_t)c->nr_files * sizeof(*c->files));
	c->bios = line_calloc((size_t)job->iodepth * sizeof(*c->bios));
	c->bio_flags = line_calloc(job->iodepth);
	c->bio_tag = calloc(job->iodepth, sizeof(*c->bio_tag));
	rq_vlog_init(&c->vlog);
	buf_bytes = (size_t)job->iodepth * ((c->max_bs + 4095) & ~4095u);
	c->bufs = aligned_alloc(4096, buf_bytes);
	c->buf_bytes = buf_bytes;
	if (!c->files || !c->bios || !c->bufs || !c->bio_flags || !c->bio_tag)
		return -ENOMEM;
	memset(c->bufs, 0, buf_bytes);
	if (clone_names(job, index, bind_file, &x) < 0)
		return -EINVAL;
	for (unsigned int i = 0; i < job->iodepth; i++) {
		struct rq_bio *b = &c->bios[i];

		b->buf = c->bufs + (size_t)i * ((c->max_bs + 4095) & ~4095u);
		b->owner = c;
		b->next = c->free_bios;
		c->free_bios = b;
	}
	/* randrepeat: the same offsets run after run; else seeded from the clock */
	c->seed = (job->randrepeat ? job->randseed : now_ns()) * 0x100000001b3ULL +
		  (uint64_t)(c - e->clones) * 0x9e3779b97f4a7c15ULL;
	c->rng = c->seed;
	if (job->size && !job->size_pct)
		c->io_limit = job->size;
	else
		for (unsigned int i = 0; i < c->nr_files; i++)
			c->io_limit += c->files[i].end - c->files[i].start;
	snprintf(c->rep.name, sizeof(c->rep.name), "%s", job->name);
	c->rep.groupid = job->groupid;
	c->rep.clone = index;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		rq_lat_init(&c->rep.dir[d].slat);
		rq_lat_init(&c->rep.dir[d].clat);
		rq_lat_init(&c->rep.dir[d].lat);
	}
	return 0;
}

/* Does a phase need rings, and with which extra setup flags? */
static bool group_needs_ring(struct rq_engine *e, unsigned int first, unsigned int last,
			     unsigned int *flags)
{
	bool ring = false;

	*flags = 0;
	for (unsigned int i = first; i < last; i++) {
		struct clone *c = &e->clones[i];

		for (unsigned int f = 0; f < c->nr_files; f++) {
			unsigned int fl = c->files[f].q->dev->flags;

			ring |= fl & RQ_DEV_NEEDS_RING;
#ifdef IORING_SETUP_SQE128
			if (fl & RQ_DEV_RING_BIG)
				*flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
#endif
		}
	}
	return ring;
}

static void pin(pthread_t t, unsigned int i)
{
	cpu_set_t allowed, one;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	int count = CPU_COUNT(&allowed);

	if (count <= 0)
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		if (n++ == i % (unsigned int)count) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			pthread_setaffinity_np(t, sizeof(one), &one);	/* best effort */
			return;
		}
	}
}

/* The CPU worker @w is pinned to: the (w mod n)-th CPU the process may use. */
static int worker_cpu(unsigned int w)
{
	cpu_set_t allowed;
	unsigned int n = 0, count;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) || CPU_COUNT(&allowed) <= 0)
		return (int)w;
	count = (unsigned int)CPU_COUNT(&allowed);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed) && n++ == w % count)
			return c;
	return (int)w;
}

static bool job_allows_worker(const struct rq_job *job, unsigned int w)
{
	int c = worker_cpu(w);

	return c >= 0 && c < RQ_CPUMASK_WORDS * 64 && (job->cpus_allowed[c / 64] >> (c % 64)) & 1;
}

/*
 * The worker a clone lives on.  cpus_allowed selects the workers pinned to
 * those CPUs: the least loaded of them (shared), or the clone's own in
 * turn (cpus_allowed_policy=split).  Otherwise clones go round-robin.
 */
static unsigned int pick_worker(struct rq_engine *e, const struct clone *c, unsigned int rr)
{
	const struct rq_job *job = c->job;
	unsigned int cand[1024], n = 0, best;

	if (!job->has_cpus_allowed)
		return rr;
	for (unsigned int w = 0; w < e->nr_cpus && n < 1024; w++)
		if (job_allows_worker(job, w))
			cand[n++] = w;
	if (!n)
		return rr;	/* rq_engine_setup() refused this already */
	if (job->cpus_allowed_split)
		return cand[c->index % n];
	best = cand[0];
	for (unsigned int i = 1; i < n; i++)
		if (e->cpus[cand[i]].nr_clones < e->cpus[best].nr_clones)
			best = cand[i];
	return best;
}

static int run_group(struct rq_engine *e, unsigned int first, unsigned int last, FILE *err)
{
	unsigned int ring_flags;
	bool ring = group_needs_ring(e, first, last, &ring_flags);
	unsigned int next_cpu = 0, started = 0;
	struct clone **slots;
	int ret = 0;

	slots = calloc(last - first, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		struct rq_cpu *cpu = &e->cpus[i];

		cpu->clones = slots;
		cpu->nr_clones = cpu->nr_active = 0;
		cpu->has_ring = false;
	}
	/* choose each clone's worker, then lay the slots out contiguously */
	for (unsigned int i = first; i < last; i++) {
		struct clone *c = &e->clones[i];
		unsigned int w = pick_worker(e, c, next_cpu);

		if (!c->job->has_cpus_allowed)
			next_cpu = (next_cpu + 1) % e->nr_cpus;
		c->cpu = &e->cpus[w];
		e->cpus[w].nr_clones++;
	}
	for (unsigned int k = 0, pos = 0; k < e->nr_cpus; k++) {
		e->cpus[k].clones = slots + pos;
		pos += e->cpus[k].nr_clones;
		e->cpus[k].nr_clones = 0;
	}
	for (unsigned int i = first; i < last; i++) {
		struct rq_cpu *cpu = e->clones[i].cpu;

		cpu->clones[cpu->nr_clones++] = &e->clones[i];
		cpu->nr_active++;
		for (unsigned int b = 0; b < e->clones[i].job->iodepth; b++)
			e->clones[i].bios[b].owner_cpu = (int16_t)cpu->id;
	}
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].wants_ring = ring && e->cpus[i].nr_clones;
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].ring_flags = ring_flags;
	/* the phase's I/O buffers, for rq_devs_ring_init(): any worker may dispatch any bio */
	free(e->ring_bufs);
	e->ring_bufs = calloc(last - first, sizeof(*e->ring_bufs));
	e->nr_ring_bufs = 0;
	for (unsigned int i = first; e->ring_bufs && i < last; i++)
		e->ring_bufs[e->nr_ring_bufs++] = (struct iovec){ e->clones[i].bufs, e->clones[i].buf_bytes };
	atomic_store(&e->start_failed, false);
	atomic_store(&e->active_clones, last - first);
	pthread_barrier_init(&e->barrier, NULL, e->nr_cpus);
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		ret = pthread_create(&e->cpus[i].thread, NULL, worker_main, &e->cpus[i]);
		if (ret) {
			fprintf(err, "rqlock: cannot start worker %u: %s\n", i, strerror(ret));
			/* the barrier would never open: this is fatal */
			abort();
		}
		if (e->o.pin)
			pin(e->cpus[i].thread, i);
		started++;
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(e->cpus[i].thread, NULL);
	pthread_barrier_destroy(&e->barrier);
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		if (e->cpus[i].fatal)
			ret = e->cpus[i].fatal;
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		if (e->cpus[i].has_ring) {
			rq_devs_ring_exit(&e->cpus[i]);
			io_uring_queue_exit(&e->cpus[i].ring);
		}
		e->cpus[i].has_ring = false;
		e->cpus[i].clones = NULL;
		e->cpus[i].nr_clones = 0;
	}
	free(slots);
	return ret;
}

/* ---- run, check, report ------------------------------------------------ */

/* submitted == completed and nothing left anywhere: or the run is void. */
static int check_exactly_once(struct rq_engine *e, FILE *err)
{
	uint64_t sub = 0, done = 0;
	int ret = 0;

	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		sub += e->cpus[i].submitted;
		done += e->cpus[i].completed;
	}
	e->rep.bios_submitted = sub;
	e->rep.bios_completed = done;
	if (sub != done) {
		fprintf(err, "rqlock: BUG: %" PRIu64 " bios submitted, %" PRIu64 " completed\n", sub, done);
		ret = -EPROTO;
	}
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		char msg[256];

		/* the mode folds its per-worker counters and checks its own structures */
		if (rq_queue_check_idle(&e->devs[i].q, msg, sizeof(msg))) {
			fprintf(err, "rqlock: BUG: queue %s: %s\n", e->devs[i].q.name, msg);
			ret = -EPROTO;
		}
	}
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		const struct clone *c = &e->clones[i];
		unsigned int free_bios = 0;

		for (const struct rq_bio *b = c->free_bios; b; b = b->next)
			free_bios++;
		if (c->inflight || free_bios != c->job->iodepth) {
			fprintf(err, "rqlock: BUG: job '%s' clone %u: %u bios in flight, %u of %u free\n",
				c->job->name, c->index, c->inflight, free_bios, c->job->iodepth);
			ret = -EPROTO;
		}
	}
	return ret;
}

static void build_report(struct rq_engine *e)
{
	struct rq_run_report *r = &e->rep;
	struct timespec ts;
	unsigned int nl = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	r->version = RQ_VERSION;
	r->timestamp = (uint64_t)ts.tv_sec;
	r->timestamp_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	{
		struct tm tm;
		time_t t = ts.tv_sec;

		localtime_r(&t, &tm);
		strftime(r->time, sizeof(r->time), "%a %b %e %H:%M:%S %Y", &tm);
	}
	r->lock_mode = e->mode->name;
	r->clock = rq_engine_clock();
	r->lock_type = e->o.lock_type;
	r->workers = e->nr_cpus;
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];
		uint64_t from = c->ramp_end_ns, to = c->end_ns;

		c->rep.error = c->error;
		c->rep.first_error = c->first_error;
		c->rep.total_err = c->total_err;
		c->rep.continue_on_error = c->job->continue_on_error;
		c->rep.iodepth = c->job->iodepth;
		c->rep.kb_base = c->job->kb_base;
		c->rep.slat_percentiles = c->job->slat_percentiles;
		c->rep.percentile_precision = c->job->percentile_precision;
		c->rep.job_runtime_ns = to > from ? to - from : 0;
		c->rep.group_reporting = c->job->group_reporting;
		c->rep.description = c->job->description;
		c->rep.percentiles = c->job->nr_percentiles ? c->job->percentile_list : NULL;
		c->rep.nr_percentiles = c->job->nr_percentiles;
		c->rep.lat_percentiles = c->job->lat_percentiles;
		c->rep.clat_percentiles = c->job->clat_percentiles;
		c->rep.unified_rw_reporting = c->job->unified_rw_reporting;
		c->rep.opt_keys = (const char *const *)c->job->opt_keys;
		c->rep.opt_vals = (const char *const *)c->job->opt_vals;
		c->rep.nr_opts = c->job->nr_opts;
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			sampler_report(&c->bw[d], &c->rep.dir[d].bw);
			sampler_report(&c->iops[d], &c->rep.dir[d].iops);
		}
		for (int d = 0; d < RQ_DDIR_NR; d++)
			c->rep.dir[d].runtime_ns = c->rep.dir[d].total_ios ? c->rep.job_runtime_ns : 0;
		e->jrep[i] = c->rep;
	}
	if (e->jobs->nr) {
		const struct rq_job *last = &e->jobs->jobs[e->jobs->nr - 1];

		r->global_opt_keys = (const char *const *)last->global_keys;
		r->global_opt_vals = (const char *const *)last->global_vals;
		r->nr_global_opts = last->nr_global;
	}
	r->elapsed_ms = (mono_ns() - e->start_mono_ns) / 1000000;
	r->jobs = e->jrep;
	r->nr_jobs = e->nr_clones;
	nl = rq_locks_report(e->locks, e->nr_locks_max);
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		const struct dev_entry *d = &e->devs[i];
		const struct rq_queue *q = &d->q;
		struct rq_queue_report *qr = &e->queues[i];
		struct rq_device_report *dr = &e->devices[i];

		snprintf(qr->name, sizeof(qr->name), "%.127s", d->name);
		qr->requests = q->nr_alloc;
		qr->bios = q->nr_bios;
		qr->merges_front = q->merges_front;
		qr->merges_back = q->merges_back;
		qr->dispatched = q->nr_dispatched;
		qr->completed = q->nr_completed;
		snprintf(dr->name, sizeof(dr->name), "%.127s", d->name);
		snprintf(dr->kind, sizeof(dr->kind), "%s", rq_dev_kind(&d->dev));
		snprintf(dr->subkind, sizeof(dr->subkind), "%s", d->dev.subkind);
		snprintf(dr->path, sizeof(dr->path), "%s", d->dev.path);
		snprintf(dr->model, sizeof(dr->model), "%s", d->dev.model);
		dr->size = d->dev.size;
		dr->logical_block_size = d->dev.lbs;
		dr->queue_depth = d->dev.depth;
		snprintf(dr->serial, sizeof(dr->serial), "%s", d->dev.serial);
		snprintf(dr->transport, sizeof(dr->transport), "%s", d->dev.transport);
		dr->rotational = d->dev.rotational;
		snprintf(dr->registered, sizeof(dr->registered), "%s", rq_dev_registered_name(&d->dev));
	}
	r->locks = e->locks;
	r->nr_locks = nl;
	r->queues = e->queues;
	r->nr_queues = e->nr_devs;
	r->devices = e->devices;
	r->nr_devices = e->nr_devs;
	if (rq_queues_report(r))
		fprintf(stderr, "rqlock: no memory for the lock report\n");
	r->sectors_verified = 0;
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		r->sectors_verified += e->cpus[i].verified;
}

int rq_engine_run(struct rq_engine *e, FILE *err)
{
	int ret = 0, failed = 0;

	e->start_mono_ns = mono_ns();
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		e->cpus[i].id = (int)i;
		e->cpus[i].e = e;
		atomic_init(&e->cpus[i].handback, NULL);
		atomic_init(&e->cpus[i].sleeping, 0);
	}
	g_cpus = e->cpus;
	e->job_remaining = calloc(e->jobs->nr ? e->jobs->nr : 1, sizeof(*e->job_remaining));
	if (!e->job_remaining)
		return -ENOMEM;
	for (unsigned int j = 0; j < e->jobs->nr; j++)
		atomic_init(&e->job_remaining[j], e->jobs->jobs[j].numjobs);
	e->jrep = calloc(e->nr_clones, sizeof(*e->jrep));
	e->nr_locks_max = rq_locks_count();
	e->locks = calloc(e->nr_locks_max + 1, sizeof(*e->locks));
	e->queues = calloc(e->nr_devs, sizeof(*e->queues));
	e->devices = calloc(e->nr_devs, sizeof(*e->devices));
	if (!e->jrep || !e->locks || !e->queues || !e->devices)
		return -ENOMEM;

	/*
	 * Jobs run in phases: a job with stonewall waits for every job before
	 * it (new_group alone only starts a reporting group, as in fio).
	 */
	for (unsigned int first = 0; first < e->nr_clones;) {
		unsigned int last = first + 1;

		while (last < e->nr_clones && !(e->clones[last].job != e->clones[last - 1].job &&
						(e->clones[last].job->stonewall & RQ_JOB_STONEWALL)))
			last++;
		if (rq_engine_stopped()) {
			/* later phases never start: their clones are reported as interrupted */
			for (unsigned int i = first; i < e->nr_clones; i++)
				e->clones[i].rep.interrupted = true;
			break;
		}
		ret = run_group(e, first, last, err);
		if (ret || atomic_load(&g_stalled))
			break;
		first = last;
	}
	if (atomic_load(&g_stalled)) {
		/* what is stuck was abandoned: the accounting cannot balance */
		build_report(e);
		e->rep.stalled = true;
		return 1;
	}
	if (ret)
		return ret;
	ret = check_exactly_once(e, err);
	build_report(e);
	e->rep.interrupted = rq_engine_stopped();
	if (ret)
		return ret;
	{
		char msg[512];

		/* a lock-order cycle fails the run; its report was printed when found */
		if (rq_lockdep_result(msg, sizeof(msg)))
			return 1;
	}
	for (unsigned int i = 0; i < e->nr_clones; i++)
		failed |= e->clones[i].error != 0;
	return failed ? 1 : 0;
}

const struct rq_run_report *rq_engine_report(struct rq_engine *e)
{
	return &e->rep;
}

void rq_engine_free(struct rq_engine *e)
{
	if (!e)
		return;
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		if (e->devs[i].q_ready)
			rq_queue_exit(&e->devs[i].q);
		if (e->devs[i].opened)
			rq_dev_close(&e->devs[i].dev);
	}
	if (e->mode_setup && e->mode->teardown)
		e->mode->teardown();
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		free(e->clones[i].bios);
		free(e->clones[i].bufs);
		free(e->clones[i].bio_flags);
		free(e->clones[i].bio_tag);
		rq_vlog_free(&e->clones[i].vlog);
		for (unsigned int k = 0; e->clones[i].files && k < e->clones[i].nr_files; k++)
			rq_randmap_free(&e->clones[i].files[k].map);
		free(e->clones[i].files);
	}
	free(e->clones);
	free(e->devs);
	free(e->cpus);
	free(e->jrep);
	free(e->locks);
	free(e->queues);
	free(e->devices);
	free(e->polled);
	free(e->all_devs);
	free(e->ring_bufs);
	free((void *)e->job_remaining);
	rq_locks_reset();
	g_cpus = NULL;
	free(e);
}
