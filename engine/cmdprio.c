// SPDX-License-Identifier: MIT
/*
 * cmdprio.c - a clone's I/O priorities (cmdprio.h): the job's own from
 * prio and prioclass, checked as fio's ioprio_set() checks it, and the
 * per-I/O ones from its cmdprio_* options, as fio's engines/cmdprio.c
 * sets them up: shares per direction the job issues, RT when no class is
 * given, and one statistics entry per distinct priority with the job's
 * own first; then, for the report, the per-priority statistics of a
 * reporting group whose jobs differ in priority (fio's stat.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/cmdprio.h"
#include "engine/runner.h"

#define IOPRIO_WHO_PROCESS 1		/* the kernel's: with who 0, the calling thread */
#define IOPRIO_CLASS_RT 1

static uint16_t ioprio_of(uint32_t cls, uint32_t level)
{
	/* fio: no class given is RT */
	return (uint16_t)(((cls ? cls : 1) << RQ_IOPRIO_CLASS_SHIFT) | level);
}

/* Direction @op's shares: cmdprio_bssplit's, or one of cmdprio_percentage for any size. */
static int dir_init(struct clone *c, const struct rq_job *job, int op)
{
	struct rq_dir_report *d = &c->rep.dir[op];
	unsigned int nr = job->nr_cmdprio_bssplit[op];
	uint16_t implicit = ioprio_of(job->cmdprio_class[op], job->cmdprio_level[op]);

	if ((!nr && !job->cmdprio_pct[op]) || !rq_rw_dir(job->rw, op))
		return 0;
	d->prio = calloc(RQ_PRIOS_MAX, sizeof(*d->prio));
	if (!d->prio)
		return -ENOMEM;
	d->nr_prios = 1;		/* [0]: the job's own priority */
	d->prio[0].ioprio = job->ioprio;
	if (!nr) {
		c->cmdprio->dir[op].s[0] = (struct cmdprio_share){ .pct = job->cmdprio_pct[op],
								  .ioprio = implicit };
		nr = 1;
	}
	for (unsigned int i = 0; i < job->nr_cmdprio_bssplit[op]; i++) {
		const struct rq_cmdprio_split *e = &job->cmdprio_bssplit[op][i];

		c->cmdprio->dir[op].s[i] = (struct cmdprio_share){
			.bs = e->bs, .pct = e->pct,
			.ioprio = e->ioprio < 0 ? implicit : (uint16_t)e->ioprio };
	}
	for (unsigned int i = 0; i < nr; i++) {
		struct rq_prio_stat *p = rq_prio_slot(d, c->cmdprio->dir[op].s[i].ioprio);

		if (!p)
			return -E2BIG;
		c->cmdprio->dir[op].s[i].idx = (uint8_t)(p - d->prio);
	}
	c->cmdprio->dir[op].nr = nr;
	return 0;
}

/* A thread that only asks the kernel for @arg's priority: what it is given dies with it. */
static void *probe_thread(void *arg)
{
	long ret = syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, (int)(uintptr_t)arg);

	return (void *)(intptr_t)(ret ? errno : 0);
}

/*
 * fio sets a job's priority with ioprio_set() on its thread before any
 * I/O and fails the job when the kernel says no: realtime wants
 * CAP_SYS_ADMIN or CAP_SYS_NICE (ioprio_check_cap()).  rqlock's workers
 * serve several jobs, so the priority goes with each request instead,
 * and the kernel's answer is asked of a thread of its own: 0 or an errno.
 */
static int ioprio_allowed(uint16_t ioprio)
{
	pthread_t t;
	void *ret;

	if (ioprio >> RQ_IOPRIO_CLASS_SHIFT != IOPRIO_CLASS_RT)
		return 0;	/* best effort and idle need no capability */
	if (pthread_create(&t, NULL, probe_thread, (void *)(uintptr_t)ioprio))
		return 0;	/* cannot ask: the requests will carry the kernel's answer */
	pthread_join(t, &ret);
	return (int)(intptr_t)ret;
}

/* The job's own priority on every bio; a realtime one the process may not give fails the clone. */
static void own_init(struct clone *c, const struct rq_job *job)
{
	int err;

	for (unsigned int i = 0; i < job->iodepth; i++)
		c->bios[i].ioprio = job->ioprio;
	err = job->ioprio ? ioprio_allowed(job->ioprio) : 0;
	if (!err)
		return;
	fprintf(stderr, "rqlock: job '%s': prioclass=%u (realtime): ioprio_set: %s (it needs "
		"CAP_SYS_ADMIN or CAP_SYS_NICE)\n", job->name, job->prio_class, strerror(err));
	c->error = err;
	c->first_error = err;
	c->issue_done = true;
}

int eng_cmdprio_init(struct clone *c, const struct rq_job *job, uint64_t seed)
{
	int ret = 0;

	own_init(c, job);
	if (!job->cmdprio_pct[0] && !job->cmdprio_pct[1] && !job->nr_cmdprio_bssplit[0] &&
	    !job->nr_cmdprio_bssplit[1])
		return 0;
	c->cmdprio = calloc(1, sizeof(*c->cmdprio));
	if (!c->cmdprio)
		return -ENOMEM;
	c->cmdprio->rng = seed ^ 0x70726f6972ULL;
	c->cmdprio->own = job->ioprio;
	for (int op = 0; op < 2 && !ret; op++)
		ret = dir_init(c, job, op);
	return ret;
}

void eng_cmdprio_free(struct clone *c)
{
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		free(c->rep.dir[d].prio);
		c->rep.dir[d].prio = NULL;
	}
	free(c->cmdprio);
	c->cmdprio = NULL;
}

/*
 * One priority for all the clone's I/Os (no cmdprio statistics in a
 * direction): its latencies, lat's under lat_percentiles, else clat's, as
 * fio's sum_clat_prio_stats_src_single_prio() takes a thread's whole
 * statistics at its priority.
 */
static int prio_whole(struct clone *c)
{
	const struct rq_job *job = c->job;

	for (int d = 0; d < RQ_DDIR_NR; d++) {
		struct rq_dir_report *r = &c->rep.dir[d];
		const struct rq_lat_stat *s = job->lat_percentiles ? &r->lat : &r->clat;

		if (r->nr_prios || !s->n)
			continue;
		r->prio = calloc(1, sizeof(*r->prio));
		if (!r->prio)
			return -ENOMEM;
		r->prio[0].ioprio = job->ioprio;
		r->prio[0].lat = *s;
		r->nr_prios = 1;
	}
	return 0;
}

/*
 * fio's __show_run_stats(): a reporting group (clones in a row with
 * group_reporting and one groupid; a clone without it is a group of its
 * own) keeps per-priority statistics when its jobs differ in their own
 * priority or one of them uses cmdprio, and shows them when two or more
 * priorities have samples.  Out of memory, a clone's are left out.
 */
void eng_prio_report(struct rq_engine *e)
{
	for (unsigned int a = 0, b; a < e->nr_clones; a = b) {
		const struct rq_job *first = e->clones[a].job;
		bool keep = false;

		for (b = a + 1; b < e->nr_clones; b++)
			if (!e->clones[b].job->group_reporting ||
			    e->clones[b].job->groupid != e->clones[b - 1].job->groupid)
				break;
		for (unsigned int k = a; k < b; k++)
			keep |= e->clones[k].cmdprio || e->clones[k].job->ioprio != first->ioprio;
		for (unsigned int k = a; keep && k < b; k++)
			(void)prio_whole(&e->clones[k]);
	}
}
