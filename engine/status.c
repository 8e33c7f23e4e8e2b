// SPDX-License-Identifier: MIT
/*
 * status.c - the status thread: fio's status line (results/status.c
 * renders it) once a second, and with --status-interval the normal
 * report so far, as fio's helper thread does.
 *
 * It never touches what the workers write: each worker publishes its
 * clones' byte and I/O counts and a state character with relaxed atomic
 * stores (at most every PUBLISH_NS, only when a status is asked for), and
 * for --status-interval copies its clones' reports under status_mutex
 * when the thread bumps snap_gen.  A worker pays one branch per loop
 * when no status is asked for.
 *
 * It is fio's helper thread for steady state too: once a second it has
 * steadystate.c sample and judge the jobs with ss_dur.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/runner.h"
#include "engine/steadystate.h"
#include "lib/clock.h"

#define PUBLISH_NS	20000000ULL	/* a clone's progress is at most 20 ms old */
#define STATUS_NS	1000000000ULL	/* fio's eta interval: a line a second */
#define SNAP_WAIT_NS	120000000ULL	/* a worker sleeps at most WAIT_MAX_NS between looks */
#define SS_NS		1000000000ULL	/* fio's STEADYSTATE_MSEC: a steady-state sample a second */

/* fio's run_str character (eta.c check_str_update) */
static char clone_state(const struct clone *c, uint64_t now)
{
	const struct rq_job *job = c->job;
	bool rnd = rq_rw_random(job->rw);

	if (c->finished)
		return c->error ? 'X' : c->rep.interrupted ? 'K' : '_';
	if (c->waiting)
		return 'P';
	if (now < c->ramp_end_ns)
		return '/';
	if (c->vheld || (c->issue_done && c->vtarget))
		return 'V';	/* reading back what it wrote */
	if (rq_rw_reads(job->rw) && rq_rw_writes(job->rw))
		return rnd ? 'm' : 'M';
	if (rq_rw_writes(job->rw))
		return rnd ? 'w' : 'W';
	if (rq_rw_trims(job->rw))
		return rnd ? 'd' : 'D';	/* fio's letter for a trim job */
	return rnd ? 'r' : 'R';
}

/* fio's thread_eta, roughly: time left by runtime, or by bytes done at the rate so far. */
static int64_t clone_eta(const struct clone *c, uint64_t now, uint64_t bytes)
{
	const struct rq_job *job = c->job;
	uint64_t start = c->start_ns, el;

	if (c->finished)
		return 0;
	if (!start || now < start) {
		/* not started: a later phase or wait_for */
		return job->runtime_ns ? (int64_t)((job->ramp_ns + job->runtime_ns) / 1000000000ULL) : -1;
	}
	el = now - start;
	if (job->runtime_ns) {
		uint64_t end = c->ramp_end_ns + job->runtime_ns;

		if (job->time_based || !c->io_limit || !bytes)
			return now < end ? (int64_t)((end - now) / 1000000000ULL) : 0;
	}
	if (!c->io_limit || !bytes || now < c->ramp_end_ns)
		return -1;
	if (bytes >= c->io_limit)
		return 0;
	(void)el;
	return (int64_t)((double)(now - c->ramp_end_ns) * (double)(c->io_limit - bytes) / (double)bytes / 1e9 + 0.999);
}

void eng_status_publish(struct clone *c, uint64_t now)
{
	if (now < c->pub_next_ns && !c->finished)
		return;
	c->pub_next_ns = now + PUBLISH_NS;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		atomic_store_explicit(&c->pub_bytes[d], c->rep.dir[d].io_bytes, memory_order_relaxed);
		atomic_store_explicit(&c->pub_ios[d], c->rep.dir[d].total_ios, memory_order_relaxed);
	}
	atomic_store_explicit(&c->pub_eta, clone_eta(c, now, c->rep.dir[0].io_bytes + c->rep.dir[1].io_bytes +
							    c->rep.dir[2].io_bytes),
			      memory_order_relaxed);
	atomic_store_explicit(&c->pub_state, clone_state(c, now), memory_order_relaxed);
}

/* A worker answers the status thread: its clones' reports, copied. */
void eng_status_snap(struct rq_cpu *cpu)
{
	struct rq_engine *e = cpu->e;

	cpu->snap_seen = atomic_load_explicit(&e->snap_gen, memory_order_relaxed);
	pthread_mutex_lock(&e->status_mutex);
	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		struct clone *c = cpu->clones[i];

		if (!c->snap)
			continue;
		*c->snap = c->rep;
		c->snap->error = c->error;
		c->snap_ns = c->finished ? c->end_ns : cpu->now;
		c->snap_valid = !c->waiting;
	}
	pthread_mutex_unlock(&e->status_mutex);
}

struct status_state {
	char *run;
	uint64_t last_ns, line_ns;
	uint64_t last_bytes[RQ_DDIR_NR], last_ios[RQ_DDIR_NR];
	size_t last_len;
	bool printed;
};

static void status_line(struct rq_engine *e, struct status_state *st, uint64_t now)
{
	struct rq_status s = { .run_str = st->run, .pow2 = true };
	uint64_t bytes[RQ_DDIR_NR] = { 0 }, ios[RQ_DDIR_NR] = { 0 }, el;
	int64_t eta = 0;
	bool eta_known = true;
	char line[1024];
	int n;

	for (unsigned int i = 0; i < e->nr_clones; i++) {
		const struct clone *c = &e->clones[i];
		char state = atomic_load_explicit(&c->pub_state, memory_order_relaxed);
		int64_t ce;

		st->run[i] = state ? state : 'P';
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			uint64_t b = atomic_load_explicit(&c->pub_bytes[d], memory_order_relaxed);

			bytes[d] += b;
			ios[d] += atomic_load_explicit(&c->pub_ios[d], memory_order_relaxed);
		}
		if (state && strchr("_XK", state))
			continue;
		if (state && state != 'P') {
			s.running++;
			s.files += c->nr_files;
			if (c->job->kb_base == 1000)
				s.pow2 = false;
		}
		if (state && state != 'P')
			ce = atomic_load_explicit(&c->pub_eta, memory_order_relaxed);
		else	/* not started: its whole runtime, if it has one */
			ce = c->job->runtime_ns ? (int64_t)((c->job->ramp_ns + c->job->runtime_ns) / 1000000000ULL) : -1;
		if (ce < 0)
			eta_known = false;
		else if (ce > eta)
			eta = ce;
	}
	st->run[e->nr_clones] = '\0';
	el = now - st->last_ns;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		s.bytes_per_sec[d] = el ? (bytes[d] - st->last_bytes[d]) * 1000000000ULL / el : 0;
		s.iops[d] = el ? (ios[d] - st->last_ios[d]) * 1000000000ULL / el : 0;
		st->last_bytes[d] = bytes[d];
		st->last_ios[d] = ios[d];
	}
	st->last_ns = now;
	s.eta_sec = eta_known ? eta : -1;
	{
		double elapsed = (double)(now - e->start_mono_ns) / 1e9;

		s.perc = eta_known && elapsed + (double)eta > 0 ? 100.0 * elapsed / (elapsed + (double)eta) : -1;
		if (s.perc > 100.0)
			s.perc = 100.0;
	}
	n = rq_status_line(line, sizeof(line), &s);
	/* fio pads over a longer previous line, and starts a new one every eta_newline */
	if (e->o.eta_newline_ns && st->printed && now - st->line_ns >= e->o.eta_newline_ns) {
		fputc('\n', e->o.status_f);
		st->line_ns = now;
		st->last_len = 0;
	}
	fprintf(e->o.status_f, "%s%*s\r", line, (size_t)n < st->last_len ? (int)(st->last_len - (size_t)n) : 0, "");
	fflush(e->o.status_f);
	st->last_len = (size_t)n;
	if (!st->printed)
		st->line_ns = now;
	st->printed = true;
}

/* --status-interval: the normal report so far, from the workers' copies */
static void status_dump(struct rq_engine *e)
{
	struct rq_run_report r = { .version = RQ_VERSION };
	struct rq_job_report *jobs = calloc(e->nr_clones ? e->nr_clones : 1, sizeof(*jobs));
	unsigned int nr = 0;

	if (!jobs)
		return;
	atomic_fetch_add_explicit(&e->snap_gen, 1, memory_order_relaxed);
	{
		struct timespec ts = { 0, (long)SNAP_WAIT_NS };

		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&e->status_mutex);
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		const struct clone *c = &e->clones[i];

		if (!c->snap || !c->snap_valid)
			continue;
		jobs[nr] = *c->snap;
		eng_job_report_static(c->job, &jobs[nr],
				      c->snap_ns > c->ramp_end_ns ? c->snap_ns - c->ramp_end_ns : 0);
		nr++;
	}
	pthread_mutex_unlock(&e->status_mutex);
	if (nr) {
		r.jobs = jobs;
		r.nr_jobs = nr;
		r.lock_mode = e->mode->name;
		r.lock_type = e->o.lock_type;
		r.clock = rq_engine_clock();
		r.workers = e->nr_cpus;
		r.elapsed_ms = (rq_clock_mono_ns() - e->start_mono_ns) / 1000000;
		if (e->o.status_f)
			fputc('\n', e->o.status_f);
		rq_output_write(&r, RQ_OUTPUT_NORMAL, e->o.dump_f);
		fflush(e->o.dump_f);
	}
	free(jobs);
}

static void *status_main(void *arg)
{
	struct rq_engine *e = arg;
	struct status_state st = { 0 };
	uint64_t next_line, next_dump, next_ss;

	st.run = calloc(e->nr_clones + 1, 1);
	if (!st.run)
		return NULL;
	st.last_ns = rq_clock_mono_ns();
	next_line = st.last_ns + STATUS_NS;
	next_dump = e->o.status_interval_ns ? st.last_ns + e->o.status_interval_ns : UINT64_MAX;
	/* fio's helper thread: a steady-state look every second from its start */
	next_ss = e->nr_ss ? st.last_ns + SS_NS : UINT64_MAX;
	while (!atomic_load(&e->status_stop)) {
		uint64_t now = rq_clock_mono_ns(), next = e->o.status_f ? next_line : next_dump;

		struct timespec ts = { 0, 50000000L };

		if (now >= next_ss) {
			eng_ss_check(e, rq_clock_ns());
			next_ss += SS_NS;
			if (next_ss <= now)
				next_ss = now + SS_NS;
		}
		if (next_ss < next)
			next = next_ss;

		if (e->o.status_f && now >= next_line) {
			status_line(e, &st, now);
			next_line += STATUS_NS;
			if (next_line <= now)
				next_line = now + STATUS_NS;
		}
		eng_locklog_sample(e, now);
		eng_agglog_sample(e, now);
		if (now >= next_dump) {
			status_dump(e);
			next_dump += e->o.status_interval_ns;
			if (next_dump <= now)
				next_dump = now + e->o.status_interval_ns;
		}
		if (next_dump < next)
			next = next_dump;
		if (e->locklog || e->agglog)
			ts.tv_nsec = 10000000L;	/* log intervals to 10 ms */
		now = rq_clock_mono_ns();
		if (next > now && next - now < (uint64_t)ts.tv_nsec)
			ts.tv_nsec = (long)(next - now);
		nanosleep(&ts, NULL);
	}
	/* the report follows on a line of its own, as after fio's last status */
	if (st.printed) {
		fputc('\n', e->o.status_f);
		fflush(e->o.status_f);
	}
	free(st.run);
	return NULL;
}

int eng_status_start(struct rq_engine *e)
{
	bool show = e->o.status_f || e->o.status_interval_ns || e->o.lock_log_prefix || e->o.agg_bw_log;
	int ret;

	if (!show && !e->nr_ss)
		return 0;
	ret = eng_locklog_start(e);
	if (!ret)
		ret = eng_agglog_start(e);
	if (ret)
		return ret;
	/* steady state alone needs no status from the workers: they publish its counts themselves */
	for (unsigned int i = 0; show && i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];

		c->publish = true;
		atomic_store_explicit(&c->pub_state, 'P', memory_order_relaxed);
		if (e->o.status_interval_ns) {
			c->snap = calloc(1, sizeof(*c->snap));
			if (!c->snap)
				return -ENOMEM;
		}
	}
	pthread_mutex_init(&e->status_mutex, NULL);
	atomic_store(&e->status_stop, false);
	ret = pthread_create(&e->status_thread, NULL, status_main, e);
	if (ret) {
		pthread_mutex_destroy(&e->status_mutex);
		return -ret;
	}
	e->status_running = true;
	return 0;
}

void eng_status_stop(struct rq_engine *e)
{
	if (!e->status_running)
		return;
	atomic_store(&e->status_stop, true);
	pthread_join(e->status_thread, NULL);
	pthread_mutex_destroy(&e->status_mutex);
	e->status_running = false;
}
