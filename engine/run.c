// SPDX-License-Identifier: MIT
/*
 * run.c - running: reporting groups, the exactly-once check, the report,
 * and the engine's life (rq_engine_run, rq_engine_free).
 */
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
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
#include "engine/cmdprio.h"
#include "engine/engine.h"
#include "engine/offsets.h"
#include "engine/runner.h"
#include "engine/steadystate.h"
#include "engine/verify.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "queues/queue.h"

/*
 * Does worker @cpu need an io_uring ring in a phase that uses ring
 * devices (@ring)?  A worker with clones does.  Under a mode that leaves
 * work for other workers (RQ_MODE_F_ALL_WORKERS: cluster forwards bios to
 * the partition that owns the device) so does every worker, clones or
 * not: the owner dispatches forwarded bios to its own ring.  Without one
 * it submitted to a ring never set up and crashed (test_modes_data's
 * cluster_clone_less_owner case).
 */
static bool cpu_wants_ring(const struct rq_engine *e, const struct rq_cpu *cpu, bool ring)
{
	return ring && (cpu->nr_clones || (e->mode->flags & RQ_MODE_F_ALL_WORKERS));
}

static int run_group(struct rq_engine *e, unsigned int first, unsigned int last, FILE *err)
{
	unsigned int ring_flags;
	bool ring = eng_group_needs_ring(e, first, last, &ring_flags);
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
	}
	/* choose each clone's worker, then lay the slots out contiguously */
	for (unsigned int i = first; i < last; i++) {
		struct clone *c = &e->clones[i];
		unsigned int w = eng_pick_worker(e, c, next_cpu);

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
	}
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].wants_ring = cpu_wants_ring(e, &e->cpus[i], ring);
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].ring_flags = ring_flags;
	/* the phase's I/O buffers, for rq_ctx_ring_setup(): any worker may dispatch any bio */
	free(e->ring_bufs);
	e->ring_bufs = calloc(last - first, sizeof(*e->ring_bufs));
	e->nr_ring_bufs = 0;
	for (unsigned int i = first; e->ring_bufs && i < last; i++)
		e->ring_bufs[e->nr_ring_bufs++] = (struct iovec){ e->clones[i].bufs, e->clones[i].buf_bytes };
	atomic_store(&e->start_failed, false);
	atomic_store(&e->active_clones, last - first);
	pthread_barrier_init(&e->barrier, NULL, e->nr_cpus);
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		ret = pthread_create(&e->cpus[i].thread, NULL, eng_worker_main, &e->cpus[i]);
		if (ret) {
			fprintf(err, "rqlock: cannot start worker %u: %s\n", i, strerror(ret));
			/* the barrier would never open: this is fatal */
			abort();
		}
		if (e->o.pin)
			eng_pin(e, e->cpus[i].thread, i);
		started++;
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(e->cpus[i].thread, NULL);
	pthread_barrier_destroy(&e->barrier);
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		if (e->cpus[i].fatal)
			ret = e->cpus[i].fatal;
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		rq_ctx_ring_teardown(e->cpus[i].ctx);
		e->cpus[i].clones = NULL;
		e->cpus[i].nr_clones = 0;
	}
	free(slots);
	return ret;
}

/* ---- run, check, report ------------------------------------------------ */

/* Bios of @c still in flight: after an abandoned run, the ones that never came back. */
static unsigned int clone_abandoned(const struct clone *c)
{
	unsigned int n = 0;

	for (unsigned int b = 0; b < c->job->iodepth; b++)
		n += (c->bio_flags[b] & BIO_INFLIGHT) != 0;
	return n;
}

/*
 * After the workers left on an abandoned run (the interrupt's grace ran
 * out, or the stall watchdog), single-threaded: account what had come back
 * but was not yet accounted (bios another worker handed back, bios ended
 * in the last round), then list every bio still in flight in the report
 * (rqlock.stuck: job, device, offset, age) and on one stderr line, and
 * count them as abandoned for check_exactly_once().  Clones that had not
 * finished end now.
 */
static void collect_stuck(struct rq_engine *e, FILE *err)
{
	uint64_t now = rq_clock_ns(), n = 0;
	unsigned int shown = 0, listed = 0;
	char line[1024], why[64];
	int len = 0;

	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		struct rq_cpu *cpu = &e->cpus[i];

		cpu->now = now;
		eng_account_ended(cpu);
		eng_account_list(rq_ctx_handed_back(cpu->ctx), now, true);
	}
	for (unsigned int i = 0; i < e->nr_clones; i++)
		n += clone_abandoned(&e->clones[i]);
	e->rep.bios_abandoned = n;
	free(e->rep.stuck);
	e->rep.stuck = n ? calloc(n, sizeof(*e->rep.stuck)) : NULL;
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];

		if (c->cpu && !c->finished && !c->end_ns)
			c->end_ns = now;
		for (unsigned int b = 0; b < c->job->iodepth; b++) {
			const struct rq_bio *bio = &c->bios[b];
			const char *dev;
			uint64_t age;

			if (!(c->bio_flags[b] & BIO_INFLIGHT))
				continue;	/* owner_priv is NULL in a bio never used */
			dev = ((const struct clone_file *)bio->owner_priv)->q->name;
			age = now > bio->start_ns ? now - bio->start_ns : 0;
			if (e->rep.stuck) {
				struct rq_stuck_report *s = &e->rep.stuck[listed++];

				snprintf(s->job, sizeof(s->job), "%s", c->job->name);
				s->clone = c->index;
				snprintf(s->device, sizeof(s->device), "%s", dev);
				s->op = bio->op;	/* enum rq_op values are the directions */
				s->offset = bio->offset;
				s->len = bio->len;
				s->age_ns = age;
			}
			if (shown < 4 && len < (int)sizeof(line) - 256) {
				len += snprintf(line + len, sizeof(line) - (size_t)len, "%s%s %s %u at %" PRIu64 " (%.1f s)",
						shown ? "; " : ": ", dev, rq_op_name(bio->op), bio->len,
						bio->offset, (double)age / 1e9);
				shown++;
			}
		}
	}
	e->rep.nr_stuck = listed;
	if (!n) {
		fprintf(err, "rqlock: %s: nothing was left in flight\n",
			atomic_load(&g_stalled) ? "stall" : "interrupted");
		return;
	}
	if (atomic_load(&g_stalled))
		snprintf(why, sizeof(why), "(the stall watchdog)");
	else if (atomic_load(&g_stop_count) > 1)
		snprintf(why, sizeof(why), "(a second signal ended the drain)");
	else
		snprintf(why, sizeof(why), "within the %.0f s grace", (double)e->o.grace_period_ns / 1e9);
	fprintf(err, "rqlock: %s: %" PRIu64 " request%s never came back %s, abandoned%s%s (listed in rqlock.stuck)\n",
		atomic_load(&g_stalled) ? "stall" : "interrupted", n, n == 1 ? "" : "s", why, line,
		n > shown ? "; ..." : "");
}

/*
 * submitted == completed + abandoned and nothing left anywhere: or the run
 * is void.  Abandoned bios (collect_stuck()) are still in flight, so the
 * queues are not idle then and only the bios' own accounting is checked.
 */
static int check_exactly_once(struct rq_engine *e, FILE *err)
{
	uint64_t sub = 0, done = 0, abandoned = e->rep.bios_abandoned;
	int ret = 0;

	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		sub += e->cpus[i].submitted;
		done += e->cpus[i].completed;
	}
	e->rep.bios_submitted = sub;
	e->rep.bios_completed = done;
	if (sub != done + abandoned) {
		fprintf(err, "rqlock: BUG: %" PRIu64 " bios submitted, %" PRIu64 " completed, %" PRIu64
			" abandoned: %" PRId64 " lost\n", sub, done, abandoned, (int64_t)(sub - done - abandoned));
		ret = -EPROTO;
	}
	for (unsigned int i = 0; !abandoned && i < e->nr_devs; i++) {
		char msg[256];

		/* the mode folds its per-worker counters and checks its own structures */
		if (rq_queue_check_idle(&e->devs[i].q, msg, sizeof(msg))) {
			fprintf(err, "rqlock: BUG: queue %s: %s\n", e->devs[i].q.name, msg);
			ret = -EPROTO;
		}
	}
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		const struct clone *c = &e->clones[i];
		unsigned int free_bios = 0, left = clone_abandoned(c);

		for (const struct rq_bio *b = c->free_bios; b; b = b->next)
			free_bios++;
		if (c->inflight != left || free_bios + left != c->job->iodepth) {
			fprintf(err, "rqlock: BUG: job '%s' clone %u: %u bios in flight, %u abandoned, %u of %u free\n",
				c->job->name, c->index, c->inflight, left, free_bios, c->job->iodepth);
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
	r->registry = rq_registry_get();
	r->clock = rq_engine_clock();
	r->lock_type = e->o.lock_type;
	r->workers = e->nr_cpus;
	r->topo = &e->topo;
	r->worker_cpu = e->worker_cpu;
	r->cluster_from_llc = e->parts_from_llc;
	eng_prio_report(e);
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];
		uint64_t from = c->ramp_end_ns, to = c->end_ns;

		c->rep.error = c->error;
		c->rep.first_error = c->first_error;
		c->rep.total_err = c->total_err;
		eng_job_report_static(c->job, &c->rep, to > from ? to - from : 0);
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			eng_sampler_report(&c->bw[d], &c->rep.dir[d].bw);
			eng_sampler_report(&c->iops[d], &c->rep.dir[d].iops);
		}
		e->jrep[i] = c->rep;
	}
	if (e->jobs->nr) {
		const struct rq_job *last = &e->jobs->jobs[e->jobs->nr - 1];

		r->global_opt_keys = (const char *const *)last->global_keys;
		r->global_opt_vals = (const char *const *)last->global_vals;
		r->nr_global_opts = last->nr_global;
	}
	r->elapsed_ms = (rq_clock_mono_ns() - e->start_mono_ns) / 1000000;
	{
		struct rq_machine_sample now;

		rq_machine_sample(&now);
		rq_machine_load(&e->machine0, &now, &r->machine);
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

static int run_all(struct rq_engine *e, FILE *err);

int rq_engine_run(struct rq_engine *e, FILE *err)
{
	int ret;

	e->start_mono_ns = rq_clock_mono_ns();
	rq_machine_sample(&e->machine0);
	ret = eng_status_start(e);
	if (ret) {
		fprintf(err, "rqlock: cannot start the status thread: %s\n", strerror(-ret));
		return ret;
	}
	ret = run_all(e, err);
	eng_status_stop(e);
	/* verify_state_save: how far each writing clone got, also when stopped (vstate.c) */
	if (eng_vstate_save(e, err) && !ret)
		ret = 1;
	if (eng_locklog_write(e, err) && !ret)
		ret = 1;
	if (eng_agglog_write(e, err) && !ret)
		ret = 1;
	return ret;
}

static int run_all(struct rq_engine *e, FILE *err)
{
	int ret = 0, failed = 0;

	e->timeline_t0 = rq_clock_ns();
	e->ran = true;
	atomic_init(&e->exit_group, -1);
	atomic_init(&e->exit_what, RQ_EXIT_GROUP);
	for (unsigned int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].e = e;
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
		if (atomic_load(&e->exit_group) >= 0 && atomic_load(&e->exit_what) == RQ_EXIT_ALL) {
			/* exitall with exit_what=all: later phases never start, as fio's */
			for (unsigned int i = first; i < e->nr_clones; i++)
				e->clones[i].rep.interrupted = true;
			break;
		}
		atomic_store(&e->exit_group, -1);
		if (rq_engine_stopped()) {
			/* later phases never start: their clones are reported as interrupted */
			for (unsigned int i = first; i < e->nr_clones; i++)
				e->clones[i].rep.interrupted = true;
			break;
		}
		ret = run_group(e, first, last, err);
		if (ret || atomic_load(&g_stalled) || atomic_load(&g_abandoned))
			break;
		first = last;
	}
	if (atomic_load(&g_stalled) || atomic_load(&g_abandoned)) {
		int bad;

		/* what is stuck was abandoned: listed, counted, and the rest must balance */
		collect_stuck(e, err);
		bad = check_exactly_once(e, err);
		build_report(e);
		e->rep.stalled = atomic_load(&g_stalled);
		e->rep.interrupted = rq_engine_stopped();
		eng_logs_write(e, err);
		return bad ? bad : 1;
	}
	if (ret)
		return ret;
	ret = check_exactly_once(e, err);
	build_report(e);
	if (!ret && e->o.timeline)
		ret = eng_timeline_write(e, err);
	e->rep.interrupted = rq_engine_stopped();
	/* fio's logs, also of an interrupted run: what ran is in them */
	if (eng_logs_write(e, err))
		failed = 1;
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
		/*
		 * unlink=1: the job's files go once the run is over, as fio's;
		 * only regular files (never a device) and only after a run.
		 */
		if (e->ran && e->devs[i].unlink && e->devs[i].spec[0] != '@') {
			struct stat st;

			if (!lstat(e->devs[i].spec, &st) && S_ISREG(st.st_mode) &&
			    unlink(e->devs[i].spec))
				fprintf(stderr, "rqlock: unlink %s: %s\n", e->devs[i].spec, strerror(errno));
		}
	}
	eng_zbd_free(e);
	if (e->mode_setup && e->mode->teardown)
		e->mode->teardown();
	/* a setup that failed before the clones were allocated has none to free */
	for (unsigned int i = 0; e->clones && i < e->nr_clones; i++) {
		free(e->clones[i].bios);
		free(e->clones[i].bufs);
		free(e->clones[i].bio_flags);
		free(e->clones[i].tl);
		free(e->clones[i].bio_tag);
		eng_cmdprio_free(&e->clones[i]);
		rq_vlog_free(&e->clones[i].vlog);
		eng_vstate_free(&e->clones[i]);
		if (eng_iolog_close(&e->clones[i]) < 0)
			fprintf(stderr, "rqlock: job '%s': write_iolog=%s: the log is incomplete\n",
				e->clones[i].job->name, e->clones[i].job->write_iolog);
		for (unsigned int k = 0; e->clones[i].files && k < e->clones[i].nr_files; k++)
			rq_randmap_free(&e->clones[i].files[k].map);
		free(e->clones[i].files);
		rq_logs_free(e->clones[i].logs);
		free(e->clones[i].snap);
	}
	free(e->clones);
	eng_ss_free(e);
	eng_place_free(e);
	free(e->devs);
	free(e->cpus);
	for (unsigned int i = 0; e->ctxs && i < e->nr_cpus; i++)
		rq_ctx_destroy(e->ctxs[i]);
	free(e->ctxs);
	free(e->jrep);
	free(e->locks);
	free(e->queues);
	free(e->devices);
	free(e->polled);
	free(e->rerun_qs);
	free(e->all_devs);
	free(e->flows);
	free(e->facts);
	free(e->ring_bufs);
	free(e->rep.stuck);
	free((void *)e->job_remaining);
	eng_replay_free(e);
	rq_locks_reset();
	free(e);
}

/* The defaults every command starts from (the CLI and the server alike). */
void rq_engine_opts_init(struct rq_engine_opts *o)
{
	*o = (struct rq_engine_opts){ .lock_mode = "global", .lock_type = "ttas", .pin = true,
				      .lockstat = true };
}

void rq_set_stop_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
