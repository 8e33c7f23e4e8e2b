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
#include "engine/runner.h"
#include "engine/steadystate.h"
#include "engine/verify.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/futex.h"
#include "queues/queue.h"

atomic_int g_stop_sig;		/* rq_engine_stop(): the first signal, from a handler */
atomic_int g_stop_count;	/* rq_engine_stop(): signals seen */
atomic_bool g_stalled;		/* the watchdog found a request stuck */
/* The interrupt's grace (see cpu_grace_over()): when it ends, 0 = not started. */
_Atomic uint64_t g_grace_end_ns;
atomic_bool g_abandoned;	/* the grace ran out: what is in flight is left */

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "rq_engine_stop() must be async-signal-safe");

void rq_engine_stop(int sig)
{
	int none = 0;

	/* the first signal names the stop (130/143); a second ends the drain */
	atomic_compare_exchange_strong(&g_stop_sig, &none, sig);
	atomic_fetch_add(&g_stop_count, 1);
}

void rq_engine_stop_reset(void)
{
	atomic_store(&g_stop_sig, 0);
	atomic_store(&g_stop_count, 0);
	atomic_store(&g_grace_end_ns, 0);
	atomic_store(&g_abandoned, false);
}

int rq_engine_stopped(void)
{
	return atomic_load_explicit(&g_stop_sig, memory_order_relaxed);
}


/*
 * A clone's bio has ended, on the worker whose context @ctx ended it
 * (every bio's end_io).  A clone lives on one worker and only that worker
 * touches its state: a bio ended on another worker (it dispatched the
 * request while holding the queue lock) is handed back over a lock-free
 * list, never by sharing a lock the mode does not have.
 */
void eng_bio_end_io(struct rq_ctx *ctx, struct rq_bio *bio)
{
	struct rq_cpu *cpu = ctx_cpu(ctx);
	struct rq_cpu *owner = ((struct clone *)bio->private)->cpu;

	if (owner == cpu) {
		bio->next = cpu->ended;
		cpu->ended = bio;
		return;
	}
	bio->done_ns = cpu->now;
	rq_ctx_hand_back(owner->ctx, bio);
}

/* ---- the worker loop ------------------------------------------------ */

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
 * Reap everything that has completed for this worker: what its context
 * holds (queues/: CQEs, deferred and timed completions, polled devices,
 * the mode's forwarded work), then its clones' ended bios and those
 * handed back by others.
 */
static unsigned int cpu_reap(struct rq_cpu *cpu)
{
	unsigned int n;

	cpu->now = rq_clock_ns();
	n = rq_ctx_reap(cpu->ctx, cpu->now, cpu->wants_ring ? cpu_reap_max(cpu) : 0);
	/*
	 * A polled device (libaio) submits its batch and reaps inside the
	 * reap, and a buffered read is done inside io_submit(): what it ended
	 * was seen now, not when the reap began (timed from before, its
	 * completion latency came out near 0; fio times the reap's end too).
	 * Rings and lists hold only what completed before the reap began.
	 */
	if (cpu->polls && n)
		cpu->now = rq_clock_ns();
	n += eng_account_ended(cpu);
	n += eng_account_list(rq_ctx_handed_back(cpu->ctx), cpu->now, true);
	return n;
}

static bool cpu_has_pending(struct rq_cpu *cpu)
{
	return cpu->ended || rq_ctx_pending(cpu->ctx);
}

/* Nothing happened this round: wait for the next thing that can. */
static int cpu_wait(struct rq_cpu *cpu, unsigned int idle_rounds)
{
	/* a clone in the spin part of its thinktime keeps the worker on the CPU */
	for (unsigned int i = 0; i < cpu->nr_clones; i++)
		if (!cpu->clones[i]->finished && cpu->clones[i]->spin_until_ns > cpu->now)
			return eng_cpu_submit(cpu, false, 0);

	uint64_t wait_ns = 200000;
	uint64_t next = rq_ctx_next_timer(cpu->ctx);

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
	if (rq_ctx_polled_pending(cpu->ctx)) {
		/* completions this worker must poll for: look again soon */
		sched_yield();
		return eng_cpu_submit(cpu, false, 0);
	}
	if (rq_ctx_ring_busy(cpu->ctx)) {
		/*
		 * One enter submits what the last rounds prepared, posts the
		 * deferred completions and returns at once when there are
		 * enough of them; it sleeps only when there are not.
		 */
		return eng_cpu_submit(cpu, true, wait_ns);
	}
	if (idle_rounds < 64) {
		sched_yield();
		return 0;
	}
	/* waiting for bios other workers end: sleep until one is handed back */
	rq_ctx_sleep(cpu->ctx, wait_ns);
	return 0;
}

/* Queues whose requests wait behind a full ring are run again when idle. */
static void cpu_kick(struct rq_cpu *cpu)
{
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		if (!c->finished && c->inflight)
			for (unsigned int f = 0; f < c->nr_files; f++)
				rq_run_queue(c->files[f].q, cpu->ctx);
	}
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
					rq_op_name(bio->op), bio->len, bio->offset, (double)age / 1e9,
					(double)limit / 1e9);
			return true;
		}
	}
	return false;
}

/*
 * The interrupt's bound.  The first SIGINT/SIGTERM stops new I/O and lets
 * what is in flight drain for --grace-period (default 5 s) from the moment
 * the first worker saw it; when the grace runs out, or a second signal
 * comes, every worker leaves its loop and what never came back is
 * abandoned: listed (collect_stuck()), counted, never silently dropped.
 * A drain that cannot finish (a request that never completes, a queue
 * nobody restarts) must not hold the user hostage.  True when this
 * worker must leave.
 */
static bool cpu_grace_over(struct rq_cpu *cpu)
{
	uint64_t end = atomic_load(&g_grace_end_ns);

	if (!end) {
		uint64_t want = cpu->now + cpu->e->o.grace_period_ns;

		end = atomic_compare_exchange_strong(&g_grace_end_ns, &end, want) ? want : end;
	}
	if (atomic_load(&g_abandoned))
		return true;
	if (atomic_load(&g_stop_count) < 2 && cpu->now < end)
		return false;
	atomic_store(&g_abandoned, true);
	return true;
}

/* The phase starts: each clone's times, or its wait (wait_for, startdelay). */
static void cpu_start_clones(struct rq_cpu *cpu)
{
	getrusage(RUSAGE_THREAD, &cpu->ru_start);
	cpu->now = rq_clock_ns();
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		if (c->job->wait_for[0] || c->job->startdelay_ns) {
			c->waiting = true;	/* clone_try_start() sets the times */
			c->delay_until_ns = cpu->now + c->job->startdelay_ns;
			continue;
		}
		eng_clone_begin(c);
		c->start_ns = cpu->now;
		c->ramp_end_ns = cpu->now + c->job->ramp_ns;
		c->deadline_ns = c->job->runtime_ns ? c->ramp_end_ns + c->job->runtime_ns : 0;
	}
}

/* After a round: which clones are done, their samples, and what steady state needs. */
static void cpu_clones_tick(struct rq_cpu *cpu)
{
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		if (c->finished)
			continue;
		eng_clone_check_done(c, cpu->now);
		eng_clone_sample(c, cpu->now);
		/* steady state: stop once judged steady; publish the counts, and the end */
		if (__builtin_expect(c->ss != NULL, 0))
			eng_ss_tick(c, cpu->now);
	}
}

void *eng_worker_main(void *arg)
{
	struct rq_cpu *cpu = arg;
	struct rq_engine *e = cpu->e;
	unsigned int idle = 0;

	rq_ctx_set_current(cpu->ctx);
	/* the ring is made by the thread that submits to it (SINGLE_ISSUER) */
	if (cpu->wants_ring) {
		int ret = rq_ctx_ring_setup(cpu->ctx, cpu->ring_flags, e->all_devs, e->nr_devs,
					    e->ring_bufs, e->nr_ring_bufs);

		if (ret) {
			fprintf(stderr, "rqlock: worker %d: cannot set up an io_uring ring: %s\n",
				rq_ctx_id(cpu->ctx), strerror(-ret));
			cpu->fatal = ret;
			atomic_store(&e->start_failed, true);
		}
	}
	pthread_barrier_wait(&e->barrier);
	if (atomic_load(&e->start_failed)) {
		rq_ctx_set_current(NULL);
		return NULL;	/* every worker sees it: nobody starts */
	}
	cpu_start_clones(cpu);
	/*
	 * Fill, reap, and only when a round made no progress go to the
	 * kernel: prepared SQEs are then submitted and a completion waited
	 * for in one io_uring_enter.  SQEs wait at most one busy round
	 * (see below), so nothing waits longer than a pass of this loop.
	 */
	/*
	 * A mode that leaves work for other workers (cluster forwards bios
	 * to the partition that owns the device) needs every worker until
	 * the last clone of the phase is done, not only its own.
	 */
	while (cpu->nr_active || cpu_has_pending(cpu) ||
	       ((e->mode->flags & RQ_MODE_F_ALL_WORKERS) &&
		atomic_load_explicit(&e->active_clones, memory_order_acquire))) {
		unsigned int progress = 0;
		int ret = 0;

		if (__builtin_expect(atomic_load_explicit(&g_stop_sig, memory_order_relaxed) != 0, 0)) {
			cpu_stop_clones(cpu);
			if (cpu_grace_over(cpu))
				break;	/* abandon what never came back: the report lists it */
		}
		if (__builtin_expect(e->o.status_interval_ns != 0, 0) &&
		    atomic_load_explicit(&e->snap_gen, memory_order_relaxed) != cpu->snap_seen)
			eng_status_snap(cpu);
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
		cpu_clones_tick(cpu);
		if (progress) {
			idle = 0;
			/*
			 * What this round prepared goes to the kernel with the
			 * next round's enter: the wait, when that round finds
			 * nothing to do, so that a completion costs one enter,
			 * not two.  A worker kept busy (by other devices, or
			 * by CQEs it found in the ring) enters every second
			 * round, to submit and to have completions posted.
			 */
			if (cpu->wants_ring && ++cpu->ring_rounds >= 2)
				ret = eng_cpu_submit(cpu, false, 0);
		} else {
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
	if (e->nr_ss)
		eng_ss_worker_exit(cpu);
	if (e->o.status_interval_ns)
		eng_status_snap(cpu);	/* what the clones ended with */
	rq_ctx_set_current(NULL);
	return NULL;
}

