// SPDX-License-Identifier: MIT
/*
 * vtrim.c - verify/trim: a job that writes with verify= trims some of the
 * blocks it wrote and reads them back as zeros (trim_percentage,
 * trim_backlog, trim_backlog_batch, trim_verify_zero), as fio runs it
 * since 3.40 (io_u.c check_get_trim(), trim.c io_u_should_trim() and
 * get_next_trim()):
 *  - each write logged for verification is marked for a trim with
 *    probability trim_percentage, drawn from a stream of its own, so the
 *    offsets drawn do not move (fio's trim_state);
 *  - a batch of trim_backlog_batch trims (0: trim_backlog) starts when
 *    the count of pieces waiting to be read back is a multiple of
 *    trim_backlog and the last I/O completed was not a trim; a batch
 *    ends early when no marked piece is left;
 *  - trims go oldest mark first, and count in number_ios but not in the
 *    bytes of size (fio's io_bytes_exceeded() counts the writes);
 *  - once the writes are done, trims go on while one is due; then the
 *    job reads back, and the marks left are read back as written.
 * fio 3.33 asserted on a trim in a job without rw=trim... (fio.h
 * fio_ro_check()) and restarted a batch at once, so trim_backlog_batch
 * had no effect; fio 3.40 fixed both (0458bfd4, 46f22856).  The marks and
 * the trim list are the verify log's (vlog.c); the piece a trim takes is
 * in flight until the trim is back, and one whose write is in flight is
 * waited for.
 */
#include <errno.h>

#include "engine/offsets.h"
#include "engine/runner.h"
#include "engine/verify.h"

/* fio's io_u_should_trim(): a write just logged as piece @id is marked with trim_percentage's odds */
void eng_vtrim_logged(struct clone *c, uint64_t id)
{
	if (rq_rng_next(&c->trim_rng) % 100 < c->job->trim_percentage)
		rq_vlog_mark_trim(&c->vlog, id);
}

/* A trim is due: a batch goes on, or one starts (fio 3.40's check_get_trim()). */
static bool due(const struct clone *c, bool *start)
{
	*start = false;
	if (!c->vlog.trims)
		return false;
	if (c->trim_batch)
		return true;
	*start = c->vlog.live % c->job->trim_backlog == 0 && c->last_op != RQ_OP_DISCARD;
	return *start;
}

/*
 * The writes ended by size or number_ios, nothing else (fio's do_io()
 * loop goes on for its trim list only then; a runtime, an error or a
 * signal ends the loop itself).
 */
static bool tail_allowed(const struct clone *c)
{
	const struct rq_job *job = c->job;

	return !c->error && !job->time_based && !c->rep.interrupted &&
	       (c->prog.issued >= c->io_limit || (c->ios_limit && c->prog.nr_ios >= c->ios_limit));
}

/*
 * The clone's next trim, if one is due: 1 with @bio's offset, *@fp and
 * *@bsp set (bio_tag the piece's id), 0 when none is due, -EBUSY when
 * the piece's write is still in flight (nothing goes until it is back).
 */
int eng_vtrim_pick(struct clone *c, struct rq_bio *bio, struct clone_file **fp, uint32_t *bsp)
{
	const struct rq_job *job = c->job;
	struct rq_vpiece p;
	uint64_t id;
	bool start;
	int v;

	if (c->issue_done && !tail_allowed(c))
		c->vtrim = false;
	if (!c->vtrim)
		return 0;
	if (!c->vlog.trims)
		c->trim_batch = 0;
	if (!due(c, &start))
		return 0;
	v = rq_vlog_trim_next(&c->vlog, job->trim_verify_zero, &p, &id);
	if (v <= 0)
		return v;
	if (start)
		c->trim_batch = job->trim_backlog_batch ? job->trim_backlog_batch :
				job->trim_backlog > UINT32_MAX ? UINT32_MAX : (uint32_t)job->trim_backlog;
	c->trim_batch--;
	*fp = &c->files[p.file];
	bio->offset = p.offset;
	*bsp = p.len;
	c->bio_tag[bio - c->bios] = id;
	return 1;
}

/*
 * The writes are done and nothing is in flight: true while a trim is
 * still due (the verify phase waits for it); once none is, no trim
 * follows and the job reads back.
 */
bool eng_vtrim_tail(struct clone *c)
{
	bool start;

	if (c->vtrim && tail_allowed(c) && due(c, &start))
		return true;
	c->vtrim = false;
	return false;
}
