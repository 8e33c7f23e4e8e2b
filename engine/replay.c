// SPDX-License-Identifier: MIT
/*
 * replay.c - write_iolog: the I/Os a clone issues, in fio's iolog version 3
 * text format, which fio's read_iolog replays:
 *
 *   fio version 3 iolog
 *   MS FILE add            (once per file, at the start)
 *   MS FILE open
 *   MS FILE read|write OFFSET LENGTH    (each I/O, in issue order)
 *   MS FILE close          (at the end)
 *
 * MS is milliseconds since the clone started.  Clone 0 writes the name
 * given; clone N of numjobs > 1 writes NAME.N, so clones do not write
 * over each other.  Verify reads are not logged (a replay verifies
 * nothing).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "engine/engine_internal.h"
#include "queues/queue.h"

int eng_iolog_open(struct clone *c)
{
	const struct rq_job *job = c->job;
	char name[RQ_JOB_PATH_MAX + 16];

	if (!job->write_iolog[0])
		return 0;
	if (c->index)
		snprintf(name, sizeof(name), "%s.%u", job->write_iolog, c->index);
	else
		snprintf(name, sizeof(name), "%s", job->write_iolog);
	c->iolog = fopen(name, "w");
	return c->iolog ? 0 : -errno;
}

/* At the first line: the queues have their names only once the devices are open. */
static void head(struct clone *c)
{
	fputs("fio version 3 iolog\n", c->iolog);
	for (unsigned int i = 0; i < c->nr_files; i++)
		fprintf(c->iolog, "0 %s add\n", c->files[i].q->name);
	for (unsigned int i = 0; i < c->nr_files; i++)
		fprintf(c->iolog, "0 %s open\n", c->files[i].q->name);
	c->iolog_head = true;
}

void eng_iolog_io(struct clone *c, const struct clone_file *f, int op, uint64_t offset, uint32_t len,
		  uint64_t now)
{
	uint64_t ms = now > c->start_ns ? (now - c->start_ns) / 1000000 : 0;

	if (!c->iolog_head)
		head(c);
	fprintf(c->iolog, "%" PRIu64 " %s %s %" PRIu64 " %u\n", ms, f->q->name,
		rq_op_name(op), offset, len);
}

int eng_iolog_close(struct clone *c)
{
	uint64_t ms = c->end_ns > c->start_ns ? (c->end_ns - c->start_ns) / 1000000 : 0;
	int ret;

	if (!c->iolog)
		return 0;
	if (!c->iolog_head && c->files[0].q)
		head(c);
	for (unsigned int i = 0; i < c->nr_files; i++)
		fprintf(c->iolog, "%" PRIu64 " %s close\n", ms, c->files[i].q->name);
	ret = ferror(c->iolog) ? -EIO : 0;
	if (fclose(c->iolog))
		ret = -errno;
	c->iolog = NULL;
	return ret;
}
