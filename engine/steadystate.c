// SPDX-License-Identifier: MIT
/*
 * steadystate.c - fio 3.33's steady-state detection (ss=, ss_dur=,
 * ss_ramp=): the judges, their windows and verdicts (see steadystate.h
 * for who touches what).
 *
 * As fio's steadystate.c: a sample is each running member's progress
 * since its last look, as 1000 * bytes / ms and 1000 * I/Os / ms in
 * integers (ms cut to whole milliseconds), summed over the members.  A
 * member's first look covers the time since its measurement began (the
 * end of ramp_time), so the first sample is usually over less than a
 * second.  With ss_ramp, a member's rates count from the first look one
 * second or more past ss_ramp.  A group is judged only in a second its
 * last clone runs (fio keeps the window with the group's last job).  The
 * window is judged once full, with fio's arithmetic: the slope by least
 * squares over x = 0..dur-1, in percent of the window's mean cut to an
 * integer; the deviation as the largest distance from the mean, in
 * percent of that mean.  A window of ss_dur cut to whole seconds; below
 * one second there is no detection, as in fio.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runner.h"
#include "engine/steadystate.h"
#include "engine/verify.h"

#define NS_PER_SEC 1000000000ULL
#define NS_PER_MS 1000000ULL

/* One clone a judge watches: its last look, the status thread's alone. */
struct ss_member {
	struct clone *c;
	uint64_t prev_ns, prev_bytes, prev_ios;
	bool seen;		/* looked at since its measurement began */
	bool ramp_over;		/* ss_ramp and a second more are over: its rates count */
};

struct eng_ss {
	unsigned int flags;	/* the job's RQ_JOB_SS_* */
	double limit;
	unsigned int dur;	/* samples in the window */
	uint64_t ramp_ns;
	struct ss_member *m;
	unsigned int nr;
	uint64_t *bw, *iops;	/* the window, oldest first: the report's data */
	atomic_bool stop;	/* attained: the members stop issuing */
	struct rq_ss_report rep;
};

/* The window in whole seconds; 0: no detection. */
static unsigned int ss_dur(const struct rq_job *job)
{
	uint64_t s = job->ss_dur_ns / NS_PER_SEC;

	return s > UINT32_MAX ? UINT32_MAX : (unsigned int)s;
}

/*
 * fio's td_steadystate_init() compares what it set up for each job of a
 * group: nothing for a job without ss_dur, else the window in seconds,
 * the limit, ss_ramp in microseconds and the criterion.
 */
static bool ss_same(const struct rq_job *a, const struct rq_job *b)
{
	bool on_a = a->ss_dur_ns / 1000 != 0, on_b = b->ss_dur_ns / 1000 != 0;

	if (on_a != on_b)
		return false;
	return !on_a || (ss_dur(a) == ss_dur(b) && a->ss_limit == b->ss_limit &&
			 a->ss_ramp_ns / 1000 == b->ss_ramp_ns / 1000 && a->ss_flags == b->ss_flags);
}

static int ss_check_groups(const struct rq_job_list *jobs, FILE *err)
{
	for (unsigned int j = 1, first = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];

		if (job->groupid != jobs->jobs[first].groupid) {
			first = j;
			continue;
		}
		if (!ss_same(job, &jobs->jobs[first])) {
			fprintf(err, "%s:%d: job '%s': steadystate, steadystate_duration and "
				"steadystate_ramp_time differ from job '%s' of its reporting group "
				"(fio rejects the job: they must be the same within a group)\n",
				job->file, job->line, job->name, jobs->jobs[first].name);
			return -EINVAL;
		}
	}
	return 0;
}

/* Does clone @i join the judge of the clone before it (group_reporting, same group)? */
static bool joins_previous(const struct rq_engine *e, unsigned int i)
{
	const struct clone *c = &e->clones[i], *p = i ? &e->clones[i - 1] : NULL;

	return p && ss_dur(c->job) && ss_dur(p->job) && c->job->group_reporting &&
	       p->job->group_reporting && c->job->groupid == p->job->groupid;
}

static int ss_judge_init(struct eng_ss *s, const struct rq_job *job, unsigned int nr)
{
	s->flags = job->ss_flags;
	s->limit = job->ss_limit;
	s->dur = ss_dur(job);
	s->ramp_ns = job->ss_ramp_ns;
	s->m = calloc(nr, sizeof(*s->m));
	s->bw = calloc(s->dur, sizeof(*s->bw));
	s->iops = calloc(s->dur, sizeof(*s->iops));
	if (!s->m || !s->bw || !s->iops)
		return -ENOMEM;
	atomic_init(&s->stop, false);
	s->rep.bw = job->ss_flags & RQ_JOB_SS_BW;
	s->rep.slope = job->ss_flags & RQ_JOB_SS_SLOPE;
	s->rep.pct = job->ss_flags & RQ_JOB_SS_PCT;
	s->rep.limit = job->ss_limit;
	s->rep.dur = s->dur;
	s->rep.ramp_over = !s->ramp_ns;
	s->rep.bw_data = s->bw;
	s->rep.iops_data = s->iops;
	return 0;
}

int eng_ss_setup(struct rq_engine *e, FILE *err)
{
	unsigned int nr = 0, k = 0;
	int ret = ss_check_groups(e->jobs, err);

	if (ret)
		return ret;
	/* a judge per clone with a window, one per run of a group's clones with group_reporting */
	for (unsigned int i = 0; i < e->nr_clones; i++)
		nr += ss_dur(e->clones[i].job) && !joins_previous(e, i);
	if (!nr)
		return 0;
	e->ss = calloc(nr, sizeof(*e->ss));
	if (!e->ss)
		goto nomem;
	e->nr_ss = nr;
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];
		struct eng_ss *s;
		unsigned int n = 1;

		if (!ss_dur(c->job) || joins_previous(e, i))
			continue;
		while (i + n < e->nr_clones && joins_previous(e, i + n))
			n++;
		s = &e->ss[k++];
		if (ss_judge_init(s, c->job, n))
			goto nomem;
		for (unsigned int m = 0; m < n; m++) {
			struct clone *mc = &e->clones[i + m];

			s->m[s->nr++].c = mc;
			mc->ss = s;
			mc->rep.ss = &s->rep;
		}
	}
	return 0;
nomem:
	fprintf(err, "rqlock: no memory for the steady-state windows\n");
	return -ENOMEM;
}

void eng_ss_free(struct rq_engine *e)
{
	for (unsigned int k = 0; e->ss && k < e->nr_ss; k++) {
		free(e->ss[k].m);
		free(e->ss[k].bw);
		free(e->ss[k].iops);
	}
	free(e->ss);
	e->ss = NULL;
	e->nr_ss = 0;
}

/* ---- the judge (the status thread) ------------------------------------ */

/*
 * The window is full: fio's verdict on it.  Slope: least squares over x
 * = 0..dur-1 with fio's sums (exact integers) and its order of floating
 * operations; in percent, of the mean cut to an integer, and judged in
 * magnitude.  Deviation: the largest |y - mean|, in percent of the mean.
 */
static bool ss_judge(struct eng_ss *s)
{
	const uint64_t *y = s->flags & RQ_JOB_SS_BW ? s->bw : s->iops;
	uint64_t n = s->dur, sum_y = 0, sum_xy = 0;

	for (uint64_t i = 0; i < n; i++) {
		sum_y += y[i];
		sum_xy += i * y[i];
	}
	if (s->flags & RQ_JOB_SS_SLOPE) {
		uint64_t sum_x = n * (n - 1) / 2, sum_x_sq = (n - 1) * n * (2 * n - 1) / 6;
		double slope = ((double)sum_xy - (double)sum_x * (double)sum_y / (double)n) /
			       ((double)sum_x_sq - (double)sum_x * (double)sum_x / (double)n);

		s->rep.slope_val = slope;
		s->rep.criterion = s->flags & RQ_JOB_SS_PCT ? 100.0 * slope / (double)(sum_y / n) : slope;
		return fabs(s->rep.criterion) < s->limit;
	}
	{
		double mean = (double)sum_y / (double)n, dev = 0.0;

		for (uint64_t i = 0; i < n; i++)
			dev = fmax(dev, fabs((double)y[i] - mean));
		s->rep.deviation = dev;
		s->rep.criterion = s->flags & RQ_JOB_SS_PCT ? 100.0 * dev / mean : dev;
		return s->rep.criterion < s->limit;
	}
}

/* A second's sample into the window, the oldest out once it is full; true: attained. */
static bool ss_add(struct eng_ss *s, uint64_t bw, uint64_t iops)
{
	unsigned int *count = &s->rep.count;

	if (*count == s->dur) {
		memmove(s->bw, s->bw + 1, (s->dur - 1) * sizeof(*s->bw));
		memmove(s->iops, s->iops + 1, (s->dur - 1) * sizeof(*s->iops));
		(*count)--;
	}
	s->bw[*count] = bw;
	s->iops[*count] = iops;
	return ++*count == s->dur && ss_judge(s);
}

/*
 * Member @m's rates since its last look, when it runs; false when it
 * does not (not started, in ramp_time, done) and adds nothing.
 */
static bool ss_look(struct eng_ss *s, struct ss_member *m, uint64_t now, uint64_t *bw, uint64_t *iops,
		    unsigned int *over)
{
	const struct clone *c = m->c;
	uint64_t epoch = atomic_load_explicit(&c->ss_epoch, memory_order_acquire);
	uint64_t bytes, ios, ms;

	if (!epoch || epoch > now || atomic_load_explicit(&c->ss_done, memory_order_acquire))
		return false;
	if (!m->seen) {
		m->seen = true;
		m->prev_ns = epoch;
		m->ramp_over = !s->ramp_ns;
	}
	if (!m->ramp_over && now - epoch >= s->ramp_ns + NS_PER_SEC)
		m->ramp_over = true;
	bytes = atomic_load_explicit(&c->ss_bytes, memory_order_relaxed);
	ios = atomic_load_explicit(&c->ss_ios, memory_order_relaxed);
	ms = (now - m->prev_ns) / NS_PER_MS;
	if (!ms)
		return false;	/* fio divides by it: a look in the same millisecond waits */
	if (m->ramp_over) {
		*bw += 1000 * (bytes - m->prev_bytes) / ms;
		*iops += 1000 * (ios - m->prev_ios) / ms;
		(*over)++;
	}
	m->prev_ns = now;
	m->prev_bytes = bytes;
	m->prev_ios = ios;
	return true;
}

void eng_ss_check(struct rq_engine *e, uint64_t now)
{
	for (unsigned int k = 0; k < e->nr_ss; k++) {
		struct eng_ss *s = &e->ss[k];
		uint64_t bw = 0, iops = 0;
		unsigned int over = 0;
		bool last = false;

		if (s->rep.attained)
			continue;
		for (unsigned int i = 0; i < s->nr; i++)
			last = ss_look(s, &s->m[i], now, &bw, &iops, &over);
		/* fio's ts carries the state of the group's last job, the judged one */
		if (s->nr && s->m[s->nr - 1].ramp_over)
			s->rep.ramp_over = true;
		/* fio judges at the group's last job, while it runs, once a rate counts */
		if (!last || !over || !ss_add(s, bw, iops))
			continue;
		s->rep.attained = true;
		atomic_store_explicit(&s->stop, true, memory_order_relaxed);
	}
}

/* ---- the members (their workers) -------------------------------------- */

/*
 * Attained: no new I/O and no verify pass, as fio's terminate; a clone
 * still waiting (wait_for, startdelay) ends without starting.
 */
static void ss_stop_clone(struct clone *c, uint64_t now)
{
	c->issue_done = true;
	c->vtarget = rq_vlog_head(&c->vlog);
	c->vheld = false;
	c->held = false;
	if (c->waiting) {
		c->waiting = false;
		c->start_ns = c->ramp_end_ns = now;
	}
}

void eng_ss_tick(struct clone *c, uint64_t now)
{
	uint64_t bytes = 0, ios = 0;

	if (!c->issue_done && atomic_load_explicit(&c->ss->stop, memory_order_relaxed))
		ss_stop_clone(c, now);
	if (c->finished) {
		atomic_store_explicit(&c->ss_done, true, memory_order_release);
		return;
	}
	if (c->waiting || now < c->ramp_end_ns)
		return;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		bytes += c->rep.dir[d].io_bytes;
		ios += c->rep.dir[d].total_ios;
	}
	atomic_store_explicit(&c->ss_bytes, bytes, memory_order_relaxed);
	atomic_store_explicit(&c->ss_ios, ios, memory_order_relaxed);
	if (!c->ss_started) {
		c->ss_started = true;
		atomic_store_explicit(&c->ss_epoch, c->ramp_end_ns, memory_order_release);
	}
}

void eng_ss_worker_exit(struct rq_cpu *cpu)
{
	for (unsigned int i = 0; i < cpu->nr_clones; i++)
		if (cpu->clones[i]->ss)
			atomic_store_explicit(&cpu->clones[i]->ss_done, true, memory_order_release);
}
