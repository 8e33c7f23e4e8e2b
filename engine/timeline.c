// SPDX-License-Identifier: MIT
/*
 * timeline.c - --timeline FILE: each completed I/O's times, for plotting a
 * run over time (scripts/plot --timeline: the disk's IOPS and
 * intended-latency p99 per 10 ms with the floppy's lock holds marked).
 *
 * Each clone appends to its own array on its worker (no sharing); the
 * array doubles when full, up to RQ_TIMELINE_MAX records, beyond which
 * records are counted as dropped and the file says so.  After the run the
 * records are written as CSV:
 *
 *   # rqlock --timeline: lock=MODE workers=N
 *   job,clone,op,due_ns,start_ns,issue_ns,done_ns
 *
 * times in ns from the run's start (rq_clock_ns() at rq_engine_run);
 * due_ns is empty for an I/O without a rate schedule.  start..issue is
 * fio's slat (for the floppy under driver=sync, the lock hold), due..done
 * the intended latency.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runner.h"

void eng_timeline_add(struct clone *c, const struct rq_bio *bio)
{
	if (c->nr_tl == c->tl_cap) {
		uint64_t cap = c->tl_cap ? c->tl_cap * 2 : 4096;
		struct tl_rec *t;

		if (cap > RQ_TIMELINE_MAX || !(t = realloc(c->tl, cap * sizeof(*t)))) {
			c->tl_dropped++;
			return;
		}
		c->tl = t;
		c->tl_cap = cap;
	}
	c->tl[c->nr_tl++] = (struct tl_rec){ bio->due_ns, bio->start_ns, bio->issue_ns, bio->done_ns, bio->op };
}

static uint64_t rel(uint64_t t, uint64_t t0)
{
	return t > t0 ? t - t0 : 0;
}

int eng_timeline_write(struct rq_engine *e, FILE *err)
{
	uint64_t t0 = e->timeline_t0, dropped = 0;
	FILE *f = fopen(e->o.timeline, "w");

	if (!f) {
		int ret = -errno;

		fprintf(err, "rqlock: --timeline %s: %s\n", e->o.timeline, strerror(-ret));
		return ret;
	}
	fprintf(f, "# rqlock --timeline: lock=%s workers=%u\n", e->mode->name, e->nr_cpus);
	fprintf(f, "job,clone,op,due_ns,start_ns,issue_ns,done_ns\n");
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		const struct clone *c = &e->clones[i];

		dropped += c->tl_dropped;
		for (uint64_t k = 0; k < c->nr_tl; k++) {
			const struct tl_rec *r = &c->tl[k];

			fprintf(f, "%s,%u,%s,", c->job->name, c->index, rq_op_name(r->op));
			if (r->due)
				fprintf(f, "%" PRIu64, rel(r->due, t0));
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", rel(r->start, t0),
				rel(r->issue, t0), rel(r->done, t0));
		}
	}
	if (dropped)
		fprintf(err, "rqlock: --timeline: %" PRIu64 " records beyond %u per clone were dropped\n",
			dropped, RQ_TIMELINE_MAX);
	if (fclose(f)) {
		fprintf(err, "rqlock: --timeline %s: %s\n", e->o.timeline, strerror(errno));
		return -EIO;
	}
	return 0;
}
