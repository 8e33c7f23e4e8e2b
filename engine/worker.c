// SPDX-License-Identifier: MIT
/*
 * worker.c - workers acting as CPUs: the services devices and queues call
 * (rq_cpu_*, rq_bio_endio), the worker loop, its ring and the stall
 * watchdog.  The engine is engine/: clone.c (job clones, load shaping,
 * accounting), setup.c, place.c (workers on CPUs), run.c (groups,
 * exactly-once, report) and this file.  The request path: bio -> rq_submit_bio() -> lock mode -> device -> completion
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
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "devices/device.h"
#include "engine/engine.h"
#include "engine/engine_internal.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "queues/queue.h"

struct rq_cpu *g_cpus;

atomic_int g_stop_sig;		/* rq_engine_stop(): set from a signal handler */
atomic_bool g_stalled;		/* the watchdog found a request stuck */

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "rq_engine_stop() must be async-signal-safe");

void rq_engine_stop(int sig)
{
	atomic_store_explicit(&g_stop_sig, sig, memory_order_relaxed);
}

int rq_engine_stopped(void)
{
	return atomic_load_explicit(&g_stop_sig, memory_order_relaxed);
}


const char *rq_engine_clock(void)
{
	return rq_clock_name();
}

int rq_cpu_id(const struct rq_cpu *cpu)
{
	return cpu->id;
}

uint64_t rq_cpu_now(const struct rq_cpu *cpu)
{
	(void)cpu;
	return rq_clock_ns();	/* fresh: a device model times its service from it */
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
	rq->done_at = rq_clock_ns() + delay_ns;
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

/* ---- the worker loop ------------------------------------------------ */

static unsigned int account_list(struct rq_bio *b, uint64_t now, bool keep_done)
{
	unsigned int n = 0;

	while (b) {
		struct rq_bio *next = b->next;

		eng_clone_account(b->owner, b, keep_done ? b->done_ns : now);
		b = next;
		n++;
	}
	return n;
}

unsigned int eng_account_ended(struct rq_cpu *cpu)
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

	cpu->now = rq_clock_ns();
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
	n += eng_account_ended(cpu);
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
int eng_cpu_submit(struct rq_cpu *cpu, bool wait, uint64_t wait_ns)
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
			return eng_cpu_submit(cpu, false, 0);

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
			return eng_cpu_submit(cpu, false, 0);
		}
		wait_ns -= 20000;
		if (wait_ns > WAIT_MAX_NS)
			wait_ns = WAIT_MAX_NS;
	}
	if (cpu_polled_pending(cpu)) {
		/* completions this worker must poll for: look again soon */
		sched_yield();
		return eng_cpu_submit(cpu, false, 0);
	}
	if (cpu->has_ring && (cpu->ring_inflight || io_uring_sq_ready(&cpu->ring))) {
		int ret = eng_cpu_submit(cpu, false, 0);

		if (ret || io_uring_cq_ready(&cpu->ring))
			return ret;
		return eng_cpu_submit(cpu, true, wait_ns);
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
int eng_ring_init(struct io_uring *ring, unsigned int extra)
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
		c->vtarget = c->vcur;
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

void *eng_worker_main(void *arg)
{
	struct rq_cpu *cpu = arg;
	struct rq_engine *e = cpu->e;
	unsigned int idle = 0, busy = 0;

	/* the ring is made by the thread that submits to it (SINGLE_ISSUER) */
	if (cpu->wants_ring) {
		int ret = eng_ring_init(&cpu->ring, cpu->ring_flags);

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
	cpu->now = rq_clock_ns();
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
				progress += eng_clone_fill(cpu->clones[i]);
		{
			unsigned int reaped = cpu_reap(cpu);

			if (reaped)
				cpu->complete_hist[batch_bucket(reaped)]++;
			progress += reaped;
		}
		for (unsigned int i = 0; i < cpu->nr_clones; i++) {
			if (!cpu->clones[i]->finished) {
				eng_clone_check_done(cpu->clones[i], cpu->now);
				eng_clone_sample(cpu->clones[i], cpu->now);
			}
		}
		if (progress) {
			idle = 0;
			if (++busy >= 1) {
				busy = 0;
				ret = eng_cpu_submit(cpu, false, 0);
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

