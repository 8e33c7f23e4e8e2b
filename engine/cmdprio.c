// SPDX-License-Identifier: MIT
/*
 * cmdprio.c - a clone's per-I/O priorities from its job's cmdprio_*
 * options (cmdprio.h), as fio's engines/cmdprio.c sets them up: shares per
 * direction the job issues, RT when no class is given, and one statistics
 * entry per distinct priority with the job's own (0) first.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine/cmdprio.h"
#include "engine/runner.h"

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
	d->nr_prios = 1;		/* [0]: the job's own priority, none */
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

int eng_cmdprio_init(struct clone *c, const struct rq_job *job, uint64_t seed)
{
	int ret = 0;

	if (!job->cmdprio_pct[0] && !job->cmdprio_pct[1] && !job->nr_cmdprio_bssplit[0] &&
	    !job->nr_cmdprio_bssplit[1])
		return 0;
	c->cmdprio = calloc(1, sizeof(*c->cmdprio));
	if (!c->cmdprio)
		return -ENOMEM;
	c->cmdprio->rng = seed ^ 0x70726f6972ULL;
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
