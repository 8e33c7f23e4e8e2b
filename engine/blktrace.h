/* SPDX-License-Identifier: MIT */
/*
 * blktrace.h - blktrace binary traces read as fio 3.33 replays them
 * (engine/blktrace.c), for read_iolog (engine/replay.c).  Inside engine/
 * only.
 */
#ifndef RQ_ENGINE_BLKTRACE_H
#define RQ_ENGINE_BLKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jobfile/job.h"

/* One I/O a trace replays, after replay_skip, replay_scale and replay_align. */
struct rq_bt_io {
	uint64_t offset;	/* bytes; 0 for a flush */
	uint64_t at_ns;		/* due this long after the replay starts (replay_time_scale applied) */
	uint32_t len;		/* bytes; 0 for a flush */
	uint8_t op;		/* RQ_OP_READ, _WRITE, _DISCARD or _FLUSH */
	const char *file;	/* the file it goes to: replay_redirect or the device's node */
};

/* Called for each I/O in the trace's order; a negative return ends the read with it. */
typedef int (*rq_bt_emit_fn)(void *arg, const struct rq_bt_io *io);

/* Where messages come from: "JOBFILE:LINE: job 'NAME': OPTION=PATH". */
struct rq_bt_where {
	const struct rq_job *job;
	const char *option;	/* "read_iolog" or "merge_blktrace_file" */
	const char *path;
	FILE *err;
};

/*
 * Whether the @n bytes at @b start a blktrace: the first record's magic
 * (BLK_IO_TRACE_MAGIC in its top 24 bits) in either byte order, as fio's
 * is_blktrace() looks at it.
 */
bool rq_bt_is_trace(const unsigned char *b, size_t n);

/*
 * Read the trace in @f (from its start) whole: every record checked
 * (magic, version, a whole record, its pdu within the file), the queue
 * events turned into I/Os by @job's replay_* options and handed to @emit
 * in order.  *@depth is fio's probe of the trace's queue depth (1 to
 * 1024), for a job that gives no iodepth.  0, or -errno after one line on
 * @w->err naming the trace and the record.
 */
int rq_bt_read(FILE *f, const struct rq_bt_where *w, rq_bt_emit_fn emit, void *arg, unsigned int *depth);

/*
 * merge_blktrace_file: the @nr traces at @paths merged by time, each with
 * its merge_blktrace_scalars percent and merge_blktrace_iters passes, as
 * records in this machine's byte order with no pdus (fio's merged file);
 * the caller frees *@buf.  0, or -errno after one line on @w->err.
 */
int rq_bt_merge(const struct rq_bt_where *w, char *const *paths, unsigned int nr, unsigned char **buf,
		size_t *len);

#endif
