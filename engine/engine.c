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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "devices/device.h"
#include "engine/engine.h"
#include "queues/queue.h"

#define STAMP_MAGIC 0x72716c6f636b5354ULL	/* "rqlockST" */
#define SECTOR 512

struct clone_file {
	struct rq_queue *q;
	uint64_t start, end;		/* the clone's region on the device */
	uint64_t pos;			/* sequential: next offset */
	uint64_t nblocks;		/* random: blocks of min bs in the region */
	uint64_t mask, counter;		/* random: permutation state */
	int bits;
	bool has_data;
};

struct clone {
	const struct rq_job *job;
	unsigned int index;		/* clone number within the job */
	struct rq_cpu *cpu;
	struct clone_file *files;
	unsigned int nr_files, cur_file;
	struct rq_bio *bios;		/* iodepth of them */
	struct rq_bio *free_bios;
	char *bufs;
	uint32_t min_bs, max_bs;
	unsigned int inflight;
	uint64_t rng;
	uint64_t seed;
	uint64_t io_limit, issued;
	uint64_t start_ns, ramp_end_ns, deadline_ns, end_ns;
	bool issue_done, finished;
	int error;
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
	uint64_t group_start;
	struct rq_run_report rep;
	struct rq_lock_report *locks;
	struct rq_queue_report *queues;
	struct rq_device_report *devices;
	struct rq_job_report *jrep;
	bool mode_setup;
	struct rq_mode_config mcfg;
	unsigned int nr_locks_max;
	struct rq_dev **polled;		/* devices with a poll hook */
	unsigned int nr_polled;
};

static struct rq_cpu *g_cpus;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int rq_cpu_id(const struct rq_cpu *cpu)
{
	return cpu->id;
}

uint64_t rq_cpu_now(const struct rq_cpu *cpu)
{
	return cpu->now;
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
	rq->done_at = cpu->now + delay_ns;
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

static inline uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: full period, one multiply chain, good enough for mixing */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

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

static uint64_t random_offset(struct clone *c, struct clone_file *f, uint32_t bs)
{
	for (;;) {
		uint64_t b;

		if (f->counter > f->mask)
			f->counter = 0;		/* a pass is over: start another */
		b = permute(f, f->counter++, c->seed);
		if (b < f->nblocks) {
			uint64_t off = f->start + b * c->min_bs;

			if (off + bs <= f->end)
				return off;
		}
	}
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

static void clone_account(struct clone *c, struct rq_bio *bio, uint64_t done)
{
	struct clone_file *f = bio->owner_priv;

	bio->done_ns = done;
	c->inflight--;
	c->cpu->completed++;
	if (!bio->error && bio->op == RQ_OP_READ && f->has_data) {
		int n = check_stamps(c, bio, f);

		if (n < 0)
			bio->error = n;
		else
			c->cpu->verified += (uint64_t)n;
	}
	if (bio->error) {
		if (!c->error) {
			c->error = -bio->error;
			if (bio->error != -EILSEQ)
				fprintf(stderr, "rqlock: job '%s': %s I/O error at offset %" PRIu64
					": %s\n", c->job->name, f->q->name, bio->offset,
					strerror(-bio->error));
		}
		c->issue_done = true;
	} else if (bio->done_ns >= c->ramp_end_ns) {
		struct rq_dir_report *d = &c->rep.dir[bio->op];

		d->total_ios++;
		d->io_bytes += bio->len;
		rq_lat_add(&d->slat, bio->issue_ns - bio->start_ns);
		rq_lat_add(&d->clat, bio->done_ns - bio->issue_ns);
		rq_lat_add(&d->lat, bio->done_ns - bio->start_ns);
	}
	bio->next = c->free_bios;
	c->free_bios = bio;
}

static void clone_check_done(struct clone *c, uint64_t now)
{
	if (!c->issue_done) {
		if ((c->deadline_ns && now >= c->deadline_ns) ||
		    (!c->job->time_based && c->issued >= c->io_limit))
			c->issue_done = true;
	}
	if (c->issue_done && !c->inflight && !c->finished) {
		c->finished = true;
		c->end_ns = now;
		c->cpu->nr_active--;
	}
}

static unsigned int account_ended(struct rq_cpu *cpu);
static int cpu_submit(struct rq_cpu *cpu, bool wait, uint64_t wait_ns);

/* Build and submit bios until the clone's depth is full (at most a depth's worth). */
static unsigned int clone_fill(struct clone *c)
{
	const struct rq_job *job = c->job;
	struct rq_cpu *cpu = c->cpu;
	unsigned int n = 0;

	clone_check_done(c, cpu->now);
	while (!c->issue_done && c->free_bios && n < job->iodepth) {
		struct rq_bio *bio = c->free_bios;
		struct clone_file *f = &c->files[c->cur_file];
		int op, ret;
		uint32_t bs;

		if (++c->cur_file == c->nr_files)
			c->cur_file = 0;
		switch (job->rw) {
		case RQ_RW_READ:
		case RQ_RW_RANDREAD:
			op = RQ_OP_READ;
			break;
		case RQ_RW_WRITE:
		case RQ_RW_RANDWRITE:
			op = RQ_OP_WRITE;
			break;
		default:
			op = (rng_next(&c->rng) % 100) < job->rwmixread ? RQ_OP_READ : RQ_OP_WRITE;
			break;
		}
		bs = job->bs[op];
		if (!job->time_based && c->io_limit - c->issued < bs)
			bs = (uint32_t)(c->io_limit - c->issued);
		if (rq_rw_random(job->rw)) {
			bio->offset = random_offset(c, f, bs);
		} else {
			if (f->pos + bs > f->end)
				f->pos = f->start;
			bio->offset = f->pos;
			f->pos += bs;
		}
		c->free_bios = bio->next;
		bio->len = bs;
		bio->op = (uint8_t)op;
		bio->owner = c;
		bio->owner_priv = f;
		bio->error = 0;
		bio->next = NULL;
		if (op == RQ_OP_WRITE && f->has_data)
			stamp(bio->buf, bio->offset, bs);
		bio->start_ns = cpu->now;
		c->inflight++;
		c->issued += bs;
		cpu->submitted++;
		ret = rq_submit_bio(f->q, cpu, bio);
		/* fio's iodepth_batch_submit=1: what was dispatched goes to the kernel now */
		if (cpu->has_ring && io_uring_sq_ready(&cpu->ring) && !cpu->fatal)
			cpu->fatal = cpu_submit(cpu, false, 0);
		cpu->now = now_ns();
		bio->issue_ns = cpu->now;
		/* bios the device completed inside the submission end now */
		if (cpu->ended)
			account_ended(cpu);
		if (ret) {
			/* not accepted: the bio is ours again */
			c->inflight--;
			c->issued -= bs;
			cpu->submitted--;
			bio->next = c->free_bios;
			c->free_bios = bio;
			break;
		}
		n++;
		if (c->issued >= c->io_limit && !job->time_based)
			c->issue_done = true;
	}
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

		io_uring_for_each_cqe(&cpu->ring, head, cqe) {
			struct rq_request *rq = io_uring_cqe_get_data(cqe);

			rq->res = cqe->res;
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

		ret = io_uring_submit_and_wait_timeout(&cpu->ring, &cqe, 1, &ts, NULL);
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
	uint64_t wait_ns = 200000;

	if (cpu->timer_head) {
		uint64_t t = cpu->timer_head->done_at;

		wait_ns = t > cpu->now ? t - cpu->now : 0;
		if (wait_ns < 50000) {
			/* a short timer: yield and look again, a sleep would be late */
			sched_yield();
			return cpu_submit(cpu, false, 0);
		}
		wait_ns -= 20000;
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
		}
	}
	pthread_barrier_wait(&e->barrier);
	if (atomic_load(&e->start_failed))
		return NULL;	/* every worker sees it: nobody starts */
	cpu->now = now_ns();
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

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
	while (cpu->nr_active || cpu_has_pending(cpu)) {
		unsigned int progress = 0;
		int ret = 0;

		for (unsigned int i = 0; i < cpu->nr_clones; i++)
			if (!cpu->clones[i]->finished)
				progress += clone_fill(cpu->clones[i]);
		progress += cpu_reap(cpu);
		for (unsigned int i = 0; i < cpu->nr_clones; i++)
			if (!cpu->clones[i]->finished)
				clone_check_done(cpu->clones[i], cpu->now);
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
	uint64_t need = per_file ? job->offset + per_file : 0;

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
	uint64_t size = job->size / c->nr_files;

	f->q = &d->q;
	f->has_data = d->dev.ops->flags & RQ_DEV_HAS_DATA;
	if (!size)
		size = d->dev.size > job->offset ? d->dev.size - job->offset : 0;
	f->start = job->offset;
	f->end = job->offset + size;
	f->pos = f->start;
	f->nblocks = size / c->min_bs;
	f->bits = 1;
	while (f->bits < 63 && (1ULL << f->bits) < f->nblocks)
		f->bits++;
	f->mask = (1ULL << f->bits) - 1;
	return 0;
}

/* Check one job against one of its devices: alignment and bounds. */
static int check_file(const char *name, void *arg)
{
	struct name_ctx *x = arg;
	const struct rq_job *job = x->job;
	const struct dev_entry *d = dev_find(x->e, name);
	const struct rq_dev *dev = &d->dev;
	uint64_t per_file = job->size / job_nr_files(job);
	uint64_t end = per_file ? job->offset + per_file : dev->size;

	for (int dir = 0; dir < 2; dir++) {
		if ((dir == 0 && !rq_rw_reads(job->rw)) || (dir == 1 && !rq_rw_writes(job->rw)))
			continue;
		if (job->direct && job->bs[dir] % dev->lbs) {
			fprintf(x->err, "%s:%d: job '%s': bs=%u is not a multiple of the logical "
				"block size %u of %s (direct=1)\n", job->file, job->line, job->name,
				job->bs[dir], dev->lbs, name);
			return -EINVAL;
		}
		if (end < job->offset + job->bs[dir] || dev->size < job->offset + job->bs[dir]) {
			fprintf(x->err, "%s:%d: job '%s': region of %s (offset=%" PRIu64 ", size=%"
				PRIu64 ") is smaller than bs=%u\n", job->file, job->line, job->name,
				name, job->offset, end > job->offset ? end - job->offset : 0,
				job->bs[dir]);
			return -EINVAL;
		}
	}
	if (job->direct && job->offset % dev->lbs) {
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
	e->o = *o;
	e->jobs = jobs;
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
	e->devs = calloc(max_devs ? max_devs : 1, sizeof(*e->devs));
	e->clones = calloc(e->nr_clones, sizeof(*e->clones));
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
	/* 4: only now may anything be written (file layout) */
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		ret = rq_dev_prepare(&e->devs[i].dev, &e->devs[i].o, err);
		if (ret)
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
	*ep = e;
	return 0;
fail:
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
	c->min_bs = job->bs[0] < job->bs[1] ? job->bs[0] : job->bs[1];
	c->max_bs = job->bs[0] > job->bs[1] ? job->bs[0] : job->bs[1];
	if (!rq_rw_reads(job->rw))
		c->min_bs = c->max_bs = job->bs[1];
	else if (!rq_rw_writes(job->rw))
		c->min_bs = c->max_bs = job->bs[0];
	c->nr_files = job_nr_files(job);
	c->files = calloc(c->nr_files, sizeof(*c->files));
	c->bios = calloc(job->iodepth, sizeof(*c->bios));
	buf_bytes = (size_t)job->iodepth * ((c->max_bs + 4095) & ~4095u);
	c->bufs = aligned_alloc(4096, buf_bytes);
	if (!c->files || !c->bios || !c->bufs)
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
	c->seed = 0x5eed0000ULL + (uint64_t)(c - e->clones) * 0x1000193ULL;
	c->rng = c->seed;
	if (job->size)
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
			unsigned int fl = c->files[f].q->dev->ops->flags;

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
	/* clone i goes to worker i % nr_cpus; each worker's slots are contiguous */
	for (unsigned int k = 0, pos = 0; k < e->nr_cpus; k++) {
		unsigned int n = (last - first) / e->nr_cpus + (k < (last - first) % e->nr_cpus);

		e->cpus[k].clones = slots + pos;
		pos += n;
	}
	for (unsigned int i = first; i < last; i++) {
		struct rq_cpu *cpu = &e->cpus[next_cpu];

		cpu->clones[cpu->nr_clones++] = &e->clones[i];
		cpu->nr_active++;
		e->clones[i].cpu = cpu;
		for (unsigned int b = 0; b < e->clones[i].job->iodepth; b++)
			e->clones[i].bios[b].owner_cpu = (int16_t)cpu->id;
		next_cpu = (next_cpu + 1) % e->nr_cpus;
	}
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].wants_ring = ring && e->cpus[i].nr_clones;
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].ring_flags = ring_flags;
	atomic_store(&e->start_failed, false);
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
		if (e->cpus[i].has_ring)
			io_uring_queue_exit(&e->cpus[i].ring);
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
		const struct rq_queue *q = &e->devs[i].q;
		uint32_t free_rqs = 0;

		for (const struct rq_request *rq = q->free; rq; rq = rq->next)
			free_rqs++;
		if (q->inflight || q->nr_queued || q->head || q->nr_dispatched != q->nr_completed ||
		    free_rqs != q->nr_requests) {
			fprintf(err, "rqlock: BUG: queue %s: %u in flight, %u queued, %" PRIu64
				" dispatched, %" PRIu64 " completed, %u of %u requests free\n",
				q->name, q->inflight, q->nr_queued, q->nr_dispatched,
				q->nr_completed, free_rqs, q->nr_requests);
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
	r->lock_type = e->o.lock_type;
	r->workers = e->nr_cpus;
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];
		uint64_t from = c->ramp_end_ns, to = c->end_ns;

		c->rep.error = c->error;
		c->rep.job_runtime_ns = to > from ? to - from : 0;
		for (int d = 0; d < RQ_DDIR_NR; d++)
			c->rep.dir[d].runtime_ns = c->rep.dir[d].total_ios ? c->rep.job_runtime_ns : 0;
		e->jrep[i] = c->rep;
	}
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
	}
	r->locks = e->locks;
	r->nr_locks = nl;
	r->queues = e->queues;
	r->nr_queues = e->nr_devs;
	r->devices = e->devices;
	r->nr_devices = e->nr_devs;
	r->sectors_verified = 0;
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		r->sectors_verified += e->cpus[i].verified;
}

int rq_engine_run(struct rq_engine *e, FILE *err)
{
	unsigned int k = 0;
	int ret = 0, failed = 0;

	for (unsigned int j = 0; j < e->jobs->nr; j++) {
		for (unsigned int n = 0; n < e->jobs->jobs[j].numjobs; n++, k++) {
			ret = clone_init(e, &e->clones[k], &e->jobs->jobs[j], n);
			if (ret) {
				fprintf(err, "rqlock: job '%s': cannot set up: %s\n",
					e->jobs->jobs[j].name, strerror(-ret));
				return ret;
			}
		}
	}
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		e->cpus[i].id = (int)i;
		e->cpus[i].e = e;
		atomic_init(&e->cpus[i].handback, NULL);
		atomic_init(&e->cpus[i].sleeping, 0);
	}
	g_cpus = e->cpus;
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
		ret = run_group(e, first, last, err);
		if (ret)
			return ret;
		first = last;
	}
	ret = check_exactly_once(e, err);
	build_report(e);
	if (ret)
		return ret;
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
		free(e->clones[i].files);
		free(e->clones[i].bios);
		free(e->clones[i].bufs);
	}
	free(e->clones);
	free(e->devs);
	free(e->cpus);
	free(e->jrep);
	free(e->locks);
	free(e->queues);
	free(e->devices);
	free(e->polled);
	rq_locks_reset();
	g_cpus = NULL;
	free(e);
}
