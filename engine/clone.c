// SPDX-License-Identifier: MIT
/*
 * clone.c - job clones with fio semantics: files, offsets, block sizes,
 * data stamps, load shaping (rate, thinktime) and filling the queue depth
 * (see worker.c for the path); what comes back to a clone is account.c's.
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "devices/device.h"
#include "engine/cmdprio.h"
#include "engine/engine.h"
#include "engine/offsets.h"
#include "engine/pace.h"
#include "engine/runner.h"
#include "engine/verify.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "queues/queue.h"

/* ---- job clones ---------------------------------------------------- */










static void stamp(char *buf, uint64_t offset, uint32_t len)
{
	for (uint32_t s = 0; s < len; s += SECTOR) {
		uint64_t *w = (uint64_t *)(buf + s);

		w[0] = STAMP_MAGIC;
		w[1] = offset + s;
	}
}

/* Log a verified write as it is issued (see vlog.c); false when out of memory. */
static bool vlog_add(struct clone *c, const struct clone_file *f, uint64_t offset, uint32_t len,
		     bool inflight, uint64_t *id)
{
	if (rq_vlog_add(&c->vlog, (uint32_t)(f - c->files), offset, len, c->prog.wseq, inflight, id)) {
		if (!c->error)
			c->error = ENOMEM;
		c->issue_done = true;
		return false;
	}
	return true;
}

/* Time a clone holds itself back (rate, thinktime): the worker wakes for it. */
static inline void hold_until(struct rq_cpu *cpu, uint64_t t)
{
	if (t < cpu->clone_wake_ns)
		cpu->clone_wake_ns = t;
}

void eng_clone_begin(struct clone *c)
{
	/* zonemode=zbd: its files' zones as fio's file open leaves them (zbd_file_reset()) */
	if (c->zbd.on)
		eng_zbd_pass(c);
	/* fill_device: another job on the file it grew reads it as it is now */
	if (__builtin_expect(c->fill_dev, 0))
		eng_fill_start(c);
}

/*
 * wait_for: start once every clone of the job waited for has finished;
 * startdelay: not before its time.
 */
static bool clone_try_start(struct clone *c, uint64_t now)
{
	struct rq_engine *e = c->cpu->e;

	if (c->job->wait_for[0] && atomic_load(&e->job_remaining[c->wait_index]))
		return false;
	if (now < c->delay_until_ns) {
		hold_until(c->cpu, c->delay_until_ns);
		return false;
	}
	c->waiting = false;
	eng_clone_begin(c);
	c->start_ns = now;
	c->ramp_end_ns = now + c->job->ramp_ns;
	c->deadline_ns = c->job->runtime_ns ? c->ramp_end_ns + c->job->runtime_ns : 0;
	return true;
}

/* fio's iodepth_level bucket of depth @d >= 1: log2, the last one open-ended */
static inline unsigned int depth_bucket(unsigned int d)
{
	unsigned int b = 31u - (unsigned int)__builtin_clz(d | 1);

	return b < RQ_DEPTH_BUCKETS - 1 ? b : RQ_DEPTH_BUCKETS - 1;
}

static inline int choose_op(struct clone *c)
{
	const struct rq_job *job = c->job;

	switch (job->rw) {
	case RQ_RW_READ:
	case RQ_RW_RANDREAD:
		return RQ_OP_READ;
	case RQ_RW_WRITE:
	case RQ_RW_RANDWRITE:
		return RQ_OP_WRITE;
	case RQ_RW_TRIM:
	case RQ_RW_RANDTRIM:
		return RQ_OP_DISCARD;
	case RQ_RW_TRIMWRITE:
	case RQ_RW_RANDTRIMWRITE:
		/* a trim, then the write of its blocks (place_io()); rwmixread plays no part, as in fio */
		if (job->rw == RQ_RW_TRIMWRITE)
			return c->tw_last[0] == c->tw_last[1] ? RQ_OP_DISCARD : RQ_OP_WRITE;
		return c->tw_pending ? RQ_OP_WRITE : RQ_OP_DISCARD;
	default: {
		int op = c->mix.op;

		/*
		 * fio's get_rw_ddir(): a direction is drawn only once the
		 * current one has issued its share (rwmix_issues: the
		 * other's count times this one's percentage, set on each
		 * switch), so a mixed job issues in runs, not coin flips
		 */
		if (c->mix.rw_issues[op] >= c->mix.issues) {
			int d = rq_taus88_between(&c->mix.rng, 1, 100) <= job->rwmixread ? RQ_OP_READ :
											   RQ_OP_WRITE;

			if (d != op)
				c->mix.issues = c->mix.rw_issues[op] *
						  (d == RQ_OP_READ ? job->rwmixread : 100 - job->rwmixread) / 100;
			c->mix.op = op = d;
		}
		c->mix.rw_issues[op]++;

		/* zonemode=zbd: nothing to read before something is written (fio's zbd_adjust_ddir()) */
		return __builtin_expect(c->zbd.on, 0) ? eng_zbd_ddir(c, op) : op;
	}
	}
}

/*
 * fio's flow (flow.c, flow_threshold_exceeded): a clone waits while its
 * share of the flow's I/Os is above its share of the flow's weight, so
 * clones of one flow_id issue in the ratio of their weights.
 */
static bool flow_may_issue(const struct clone *c)
{
	uint64_t all = atomic_load_explicit(&c->flow->ios, memory_order_relaxed);
	int64_t w = atomic_load_explicit(&c->flow->weight, memory_order_relaxed);

	if (!all || w <= 0)
		return true;
	return (double)c->flow_ios / (double)all <= (double)c->job->flow / (double)w;
}

/*
 * Whether the clone holds back for its flow: fio's flow_threshold_exceeded()
 * sleeps flow_sleep before it looks again (without flow_sleep it looks
 * again at once).  The stall is the clone's own: the worker's other
 * clones go on.
 */
static bool flow_stall(struct clone *c)
{
	struct rq_cpu *cpu = c->cpu;

	if (c->flow_until_ns > cpu->now) {
		hold_until(cpu, c->flow_until_ns);
		return true;
	}
	if (flow_may_issue(c))
		return false;
	if (c->job->flow_sleep_us) {
		c->flow_until_ns = cpu->now + c->job->flow_sleep_us * 1000;
		hold_until(cpu, c->flow_until_ns);
	} else {
		hold_until(cpu, cpu->now + 10000);
	}
	return true;
}

/* Which of the clone's files the next I/O goes to (file_service_type). */
static struct clone_file *next_file(struct clone *c, uint32_t bs)
{
	const struct rq_job *job = c->job;
	struct clone_file *f;

	switch (job->file_service) {
	case RQ_FS_RANDOM:
		return &c->files[rq_rng_next(&c->rng) % c->nr_files];
	case RQ_FS_SEQUENTIAL:
		/* one file's region at a time, then the next */
		f = &c->files[c->cur_file];
		if (c->file_left < bs) {
			if (c->file_left || c->prog.issued) {
				if (++c->cur_file == c->nr_files)
					c->cur_file = 0;
				f = &c->files[c->cur_file];
			}
			c->file_left = f->end - f->start;
		}
		c->file_left -= c->file_left < bs ? c->file_left : bs;
		return f;
	default:
		f = &c->files[c->cur_file];
		if (++c->cur_file == c->nr_files)
			c->cur_file = 0;
		return f;
	}
}

/*
 * A sized clone's next file that is not done this pass, as fio 3.33's
 * get_next_file(): round robin and sequential take the files in turn
 * (sequential stays on one until it is done), random draws among them.
 * NULL when every file is done.
 */
static struct clone_file *next_file_sized(struct clone *c)
{
	struct clone_file *f;

	if (c->prog.nr_done >= c->nr_files)
		return NULL;
	if (c->job->file_service == RQ_FS_RANDOM) {
		do
			f = &c->files[rq_rng_next(&c->rng) % c->nr_files];
		while (f->done);
		return f;
	}
	while (c->files[c->cur_file].done)
		if (++c->cur_file == c->nr_files)
			c->cur_file = 0;
	f = &c->files[c->cur_file];
	if (c->job->file_service != RQ_FS_SEQUENTIAL && ++c->cur_file == c->nr_files)
		c->cur_file = 0;
	return f;
}

/*
 * zonemode=strided, before each I/O of a clone of one file, as fio's
 * setup_strided_zone_mode(): a zone is zonerange bytes from zone_start;
 * after zonesize bytes of I/O in it the next begins zonerange + zoneskip
 * further on, back at the region's start once past the file's end.
 * Within a zone, sequential I/O starts over at the zone's start when it
 * reaches its end, and every zonerange bytes of I/O the pass starts over
 * (the random map, lfsr or permutation), so a zonesize larger than
 * zonerange covers the zone again.  The zone's random draws are in
 * [0, zonerange / min bs) (f->nblocks, setup.c).
 */
static void strided_zone(struct clone *c, struct clone_file *f, int op, uint32_t bs)
{
	const struct rq_job *job = c->job;

	if (f->zone_bytes >= job->zonesize) {
		f->zone_bytes = 0;
		f->zone_start += job->zonerange + job->zoneskip;
		/* fio wraps at the file's end; one that leaves no room for a block wraps too */
		if (f->zone_start + bs > f->file_size)
			f->zone_start = f->start;
		f->pos[op] = f->zone_start;
	}
	if (f->pos[op] >= f->zone_start + job->zonerange || f->pos[op] < f->zone_start ||
	    f->pos[op] + bs > f->file_size)
		f->pos[op] = f->zone_start;
	if (f->zone_bytes % job->zonerange == 0) {
		/* fio's fio_file_reset(): the pass starts over in this zone, every direction */
		for (int d = 0; d < RQ_DDIR_NR; d++)
			f->pos[d] = f->zone_start;
		f->counter = 0;
		f->zone_pass++;
		if (f->map.bits)
			rq_randmap_clear(&f->map);
		if (job->lfsr)
			rq_lfsr_init(&f->lfsr, f->nblocks, c->seed + (uint64_t)(f - c->files));
	}
}

/*
 * The next sequential offset.  rw=...:N adds N bytes after each I/O; a
 * negative N (rw=read:-8k) goes backwards: when the next offset would fall
 * before the region it wraps to the region's end less N, as fio's
 * get_next_seq_offset.  zonemode=strided: strided_zone() placed f->pos[op].
 */
static uint64_t seq_offset(struct clone *c, struct clone_file *f, int op, uint32_t bs)
{
	const struct rq_job *job = c->job;
	uint64_t off;

	if (c->strided) {
		uint64_t done = f->zone_bytes + bs;	/* in the zone, with this I/O */

		off = f->pos[op];
		/* fio adds rw=...:N's hole before an I/O, except at the zone's start */
		if (off != f->zone_start && job->rw_seq_add) {
			if (job->rw_seq_add > 0)
				off += (uint64_t)job->rw_seq_add;
			else if (off - f->zone_start >= (uint64_t)-job->rw_seq_add)
				off -= (uint64_t)-job->rw_seq_add;
			else
				off = f->zone_start;
		}
		if (off + bs > f->file_size) {
			/* past the file's end: fio starts over from the region's first zone */
			off = f->zone_start = f->start;
			f->zone_bytes = 0;
		}
		f->pos[op] = off + bs;
		/*
		 * fio's file is done when the next I/O, staying in this zone
		 * and pass (strided_zone() moves it on neither), would start
		 * at the file's end: this I/O is the job's last.
		 */
		if (!job->time_based && f->pos[op] >= f->file_size && done < job->zonesize &&
		    done % job->zonerange && f->pos[op] < f->zone_start + job->zonerange)
			c->io_limit = c->prog.issued + bs;
		return off;
	}
	if (f->pos[op] + bs > f->end || f->pos[op] < f->start)
		f->pos[op] = f->start;
	off = f->pos[op];
	if (job->rw_seq_add < 0) {
		uint64_t back = (uint64_t)-job->rw_seq_add, next = off + bs;

		if (next >= f->start + back)
			f->pos[op] = next - back;
		else
			f->pos[op] = f->end >= f->start + back ? f->end - back : f->start;
		return off;
	}
	f->pos[op] = off + bs + (uint64_t)job->rw_seq_add;
	return off;
}

/*
 * A sized clone's next sequential I/O (rw_seq_add >= 0), as fio 3.33's
 * get_next_seq_offset(), get_next_offset(), get_next_buflen() and
 * fill_io_u(): f->pos[op] is where the last I/O ended; a hole of N bytes
 * goes before every I/O but the pass's first (past the file's size fio
 * starts at the file's offset, taken from the region's start).  False
 * when fio's file is done: the offset is at the region's size or the
 * file's end, or the I/O would run past the file's end.  One size is
 * never fitted to the region (the last I/O may run past it, up to a
 * block past size: fio's overshoot); drawn sizes are (pick_bs_fit()).
 */
static bool seq_offset_sized(struct clone *c, struct clone_file *f, int op, uint32_t *bsp,
			     uint64_t *offp)
{
	const struct rq_job *job = c->job;
	const uint64_t fsize = f->file_size;	/* fio's real_file_size */
	uint64_t rel = f->pos[op] - f->start, off;
	uint32_t bs = *bsp;

	if (f->pos[op] >= fsize)
		return false;
	if (rel && job->rw_seq_add) {
		rel += (uint64_t)job->rw_seq_add;
		if (rel >= fsize)
			rel = f->start;
	}
	if (rel >= f->end - f->start)
		return false;
	off = f->start + rel;
	if (off >= fsize)
		return false;
	if (mixed_bs(job, op)) {
		bs = eng_pick_bs_fit(c, op, f->end - off);
		if (!bs)
			return false;
	}
	if (off + bs > fsize)
		return false;
	f->pos[op] = off + bs;
	*offp = off;
	*bsp = bs;
	return true;
}

/* buffer_pattern: written data is the pattern repeated, as fio fills its buffers */
static void fill_pattern(const struct rq_job *job, void *buf, uint32_t len)
{
	unsigned char *p = buf;

	for (uint32_t i = 0; i < len; i++)
		p[i] = job->buffer_pattern[i % job->buffer_pattern_len];
}

/*
 * fio 3.33 never shortens an I/O to the bytes left (io_u.c
 * get_next_buflen() returns bs as it is; do_io() stops once the bytes
 * issued reach the limit, so the last I/O may go up to a block past
 * it), and a sized clone does the same.  The clones whose passes are
 * not modelled yet (more than one file, zonemode=strided, trimwrite,
 * rw=...:-N, lfsr) still end on the limit exactly: their last I/O is
 * what is left of it.
 */
static inline uint32_t bs_within_limit(const struct clone *c, uint32_t bs)
{
	if (!c->job->time_based && !c->sized && c->io_limit - c->prog.issued < bs)
		bs = (uint32_t)(c->io_limit - c->prog.issued);
	return bs;
}

/*
 * Where the clone's next I/O of @op goes and how long it is.  With
 * clone_place() below, the one place offsets and sizes are drawn, so
 * verify_only (clone_dry_run()) draws the same sequence from the same
 * seed as the run that wrote.
 */
static bool __attribute__((noinline)) clone_place_general(struct clone *c, int op, struct clone_file **fp,
							uint64_t *off, uint32_t *bsp)
{
	const struct rq_job *job = c->job;
	struct clone_file *f;
	uint32_t bs;

	/* a sized clone draws a mixed size where it goes (pick_bs_fit()) */
	bs = c->sized && mixed_bs(job, op) ? c->min_bs : bs_within_limit(c, eng_pick_bs(c, op));
	if (c->sized) {
		const uint32_t bs0 = bs;

		/* fio's set_io_u_file(): a file that cannot take the I/O is done, the next tries */
		for (;;) {
			f = c->one_file ? c->files : next_file_sized(c);
			if (!f || f->done)
				return false;
			if (__builtin_expect(f->zbd != NULL, 0))
				eng_zbd_seq_pos(c, f, op);
			bs = bs0;
			if (rq_rw_random(job->rw)) {
				*off = eng_random_offset(c, f, &bs, op);
				if (*off != UINT64_MAX) {
					f->last_end = *off + bs;
					break;
				}
			} else if (seq_offset_sized(c, f, op, &bs, off)) {
				break;
			}
			f->done = true;
			c->prog.nr_done++;
		}
	} else {
		f = next_file(c, bs);
		if (c->strided)
			strided_zone(c, f, op, bs);
		if (__builtin_expect(f->zbd != NULL, 0))
			eng_zbd_seq_pos(c, f, op);
		if (rq_rw_random(job->rw)) {
			*off = eng_random_offset(c, f, &bs, op);
			f->last_end = *off + bs;
		} else {
			*off = seq_offset(c, f, op, bs);
		}
	}
	f->zone_bytes += bs;
	*fp = f;
	*bsp = bs;
	return true;
}

/* A new pass: each file from its region's start, its random map empty (fio's fio_file_reset()). */
static void files_restart(struct clone *c)
{
	c->seq_left = 0;
	c->prog.nr_done = 0;
	c->mix.issues = 0;	/* fio's reset_io_counters() */
	if (c->job->randrepeat)
		eng_seed_streams(c);	/* clear_io_state() seeds again */
	for (unsigned int i = 0; i < c->nr_files; i++) {
		struct clone_file *f = &c->files[i];

		f->done = false;
		for (int d = 0; d < RQ_DDIR_NR; d++)
			f->pos[d] = f->start;
		f->last_end = f->start;
		f->counter = 0;
		if (f->map.bits)
			rq_randmap_clear(&f->map);
		if (f->zbd) {
			f->zone_start = f->start;
			f->zone_bytes = 0;
		}
	}
	if (c->zbd.on)
		eng_zbd_pass(c);
}

/*
 * zonemode=zbd: the I/O clone_place_general() draws, moved into a zone
 * (zbd.c eng_zbd_adjust()), and the file's position after it where it
 * went.  A file no zone takes the I/O of is done (fio's set_io_u_file()):
 * a sized clone's next file tries, a time_based clone starts a new pass,
 * and ends when one takes nothing (fio's do_io() moved no bytes).  An I/O
 * that waits for zones to close is held, and tried again as drawn once
 * something is back (fill_pick_new() leaves the clone issuing).
 */
static bool __attribute__((noinline)) clone_place_zbd(struct clone *c, int op, struct clone_file **fp,
						      uint64_t *off, uint32_t *bsp)
{
	for (;;) {
		struct clone_file *f;
		uint64_t off0;
		uint32_t bs0;
		int r;

		if (c->zbd.held && c->zbd.held_op == op) {
			c->zbd.held = false;
			f = c->zbd.held_f;
			*off = c->zbd.held_off;
			*bsp = c->zbd.held_bs;
		} else if (!clone_place_general(c, op, &f, off, bsp)) {
			return false;
		}
		off0 = *off;
		bs0 = *bsp;
		r = eng_zbd_adjust(c, f, op, off, bsp);
		if (r == RQ_ZBD_ACCEPT) {
			if (rq_rw_random(c->job->rw))
				f->last_end = *off + *bsp;
			else
				f->pos[op] = *off + *bsp;
			*fp = f;
			return true;
		}
		if (r == RQ_ZBD_WAIT) {
			c->zbd.held = true;
			c->zbd.held_op = op;
			c->zbd.held_f = f;
			c->zbd.held_off = off0;
			c->zbd.held_bs = bs0;
			c->pending_op = op;
			hold_until(c->cpu, c->cpu->now + 100000);
			return false;
		}
		if (r < 0)
			return false;		/* the clone's error: eng_zbd_adjust() said why */
		if (c->sized) {
			if (!f->done) {
				f->done = true;
				c->prog.nr_done++;
			}
			continue;
		}
		if (c->prog.nr_ios == c->zbd.pass_ios)
			return false;
		c->zbd.pass_ios = c->prog.nr_ios;
		files_restart(c);
	}
}

/*
 * c->plain_rand: what clone_place_general() does for such a job, without
 * its checks, inline in the fill loop (tests/test_verify_mixed.sh: each
 * path replays the other's writes).  @plain: the caller knows the clone is
 * c->plain (one file, plain_rand), a constant that drops both tests.
 */
static inline __attribute__((always_inline)) bool clone_place(struct clone *c, int op,
								struct clone_file **fp,
								uint64_t *off, uint32_t *bsp,
								const bool plain)
{
	const struct rq_job *job = c->job;
	struct clone_file *f;
	uint64_t o, b;
	uint32_t bs;

	/* a sized clone of several files finds each one's end: the general path */
	if (!plain && (!c->plain_rand || (c->sized && !c->one_file)))
		return __builtin_expect(c->zbd.on, 0) ? clone_place_zbd(c, op, fp, off, bsp) :
							clone_place_general(c, op, fp, off, bsp);
	bs = bs_within_limit(c, job->bs[op]);
	f = plain || c->one_file ? c->files : next_file(c, bs);
	do {
		b = pass_next(f, c->seed, !c->sized);
		if (__builtin_expect(b == UINT64_MAX, 0))
			return false;	/* the pass is over: the file is done */
		o = f->start + b * c->min_bs;
	} while (o + bs > f->end);
	*off = o;
	*fp = f;
	*bsp = bs;
	return true;
}

/*
 * A sized clone's file is done (its pass is over): whether another pass
 * starts, as fio 3.33's backend.c keep_running() decides between passes:
 * while loops are left, yes; else, below the limit (io_size, else
 * size), no when less than the largest block is left, no when there is
 * no io_size (the files are done), else yes.  A pass that issued nothing
 * ends the job (fio's do_io() moved no bytes).  A new pass starts each
 * file over from its region's start, its random map empty.
 */
static bool clone_next_pass(struct clone *c)
{
	const struct rq_job *job = c->job;
	uint32_t loops = job->loops ? job->loops : 1;
	uint64_t moved;

	if (c->prog.nr_ios == c->prog.pass_ios)
		return false;
	/*
	 * do_verify: fio reads a pass's writes back before the next pass
	 * (thread_main()'s do_verify() after each do_io()); until they are
	 * back, the clone waits (c->pass_verify).  A log that kept only the
	 * last pass's data read back one pass of four (loops=4: 65536 of
	 * fio's 262144 bytes).
	 */
	if (job->do_verify && job->verify != RQ_VERIFY_NONE && rq_rw_writes(job->rw) && c->xv_phase < 0 &&
	    !job->verify_only) {
		if (!c->pass_verify) {
			c->pass_verify = true;
			c->vtarget = rq_vlog_end(&c->vlog);
		}
		if (c->inflight || c->vheld || rq_vlog_pending(&c->vlog, c->vtarget))
			return false;
		c->pass_verify = false;
	}
	/* fio's keep_running() counts every byte moved, the verify's reads too */
	moved = c->prog.issued + (rq_rw_reads(job->rw) ? 0 : c->rep.dir[RQ_OP_READ].io_bytes);
	if (c->prog.passes >= loops) {
		if (c->ios_limit && c->prog.nr_ios >= c->ios_limit)
			return false;
		if (moved >= c->pass_limit || c->pass_limit - moved < c->max_bs || !job->io_size)
			return false;
	}
	c->prog.passes++;
	c->prog.pass_ios = c->prog.nr_ios;
	files_restart(c);
	return true;
}

/*
 * Bytes of @op count toward the job's size (io_size), as fio's
 * io_bytes_exceeded() counts them: a job that writes counts its writes,
 * its trims (trimwrite's, trim_percentage's) come on top.
 */
static inline bool counts_in_size(const struct clone *c, int op)
{
	return op != RQ_OP_DISCARD || !rq_rw_writes(c->job->rw);
}

/*
 * clone_place() for the paths off the hot one (trimwrite, a sized
 * clone's next pass), out of line.  The hot one is inlined by force: with
 * a fourth call (the next pass, 1eb6a93) GCC outlined clone_place(), +28
 * instructions per I/O on the null job (callgrind; 670 now, 679 before).
 */
static bool __attribute__((noinline)) clone_place_cold(struct clone *c, int op, struct clone_file **fp,
						       uint64_t *off, uint32_t *bsp)
{
	return clone_place(c, op, fp, off, bsp, false);
}

/*
 * A sized clone's file is done: another pass, or the end.  A mixed job's
 * I/O draws its direction again in the new pass, as fio's: its
 * set_io_u_file() drew one for the I/O that found the file done (the
 * direction stays, rwmix_issues is reset, the stream seeded again under
 * randrepeat), and that I/O was never issued (io_issues).  The
 * direction the I/O gets, or -1: nothing more to issue.
 */
static int __attribute__((noinline, cold)) place_next_pass(struct clone *c, int op,
							   struct clone_file **fp, uint64_t *off,
							   uint32_t *bsp)
{
	bool mixed = c->job->rw == RQ_RW_RW || c->job->rw == RQ_RW_RANDRW;

	if (mixed)
		c->mix.rw_issues[c->mix.op]--;
	if (!clone_next_pass(c))
		return -1;
	if (mixed)
		op = choose_op(c);
	return clone_place_cold(c, op, fp, off, bsp) ? op : -1;
}

/*
 * clone_place(), and the trimwrite patterns' pairing, as fio's:
 *  - randtrimwrite: the write owed after a trim goes to the trim's
 *    blocks, same file, offset and length (t0023);
 *  - trimwrite: writes and trims each go sequentially from their own
 *    position with their own block size; a trim comes when the last write
 *    started where the last trim did (choose_op), so with one block size
 *    each trim is followed by the write of its blocks (t0024).  The trims
 *    reaching the region's end end the job, as fio's file is done then.
 * The I/O's direction (a mix may draw it again in a new pass), or -1:
 * nothing more to issue.  Inlined by force in its three callers: GCC
 * kept it out of line, a call and its saved registers per I/O (677.8 ->
 * 643.3 instructions per null I/O, callgrind).
 */
static inline __attribute__((always_inline)) int place_io(struct clone *c, int op,
							   struct clone_file **fp, uint64_t *off,
							   uint32_t *bsp, const bool plain)
{
	const struct rq_job *job = c->job;

	if (plain || __builtin_expect(!rq_rw_trimwrite(job->rw), 1)) {
		if (__builtin_expect(clone_place(c, op, fp, off, bsp, plain), 1))
			return op;
		return place_next_pass(c, op, fp, off, bsp);
	}
	if (job->rw == RQ_RW_RANDTRIMWRITE) {
		if (c->tw_pending && op == RQ_OP_WRITE) {
			c->tw_pending = false;
			*fp = c->tw_f;
			*off = c->tw_off;
			*bsp = c->tw_bs;
			return op;
		}
		clone_place_cold(c, op, fp, off, bsp);
		if (op == RQ_OP_DISCARD) {
			c->tw_pending = true;
			c->tw_f = *fp;
			c->tw_off = *off;
			c->tw_bs = *bsp;
		}
		return op;
	}
	if (op == RQ_OP_WRITE) {
		clone_place_cold(c, op, fp, off, bsp);
		c->tw_last[0] = *off;
		return op;
	}
	clone_place_cold(c, op, fp, off, bsp);	/* from the trims' own position (f->pos[trim]) */
	if (c->tw_last[1] != UINT64_MAX && *off <= c->tw_last[1] && !job->time_based && job->loops <= 1)
		return -1;	/* the trims wrapped: fio's file is done */
	c->tw_last[1] = *off;
	return op;
}

/*
 * trimwrite: the write owed waits for its trim to complete (an
 * asynchronous discard and a write of the same blocks in flight together
 * land in either order); fio's engines trim synchronously, so its write
 * always follows the trim too.
 */
static inline bool tw_wait(const struct clone *c)
{
	return __builtin_expect(c->tw_bio != NULL, 0);
}

/*
 * A verified write must not overlap an I/O of the clone still in flight:
 * which of two overlapping writes lands last is up to the device, and a
 * verify read racing a write reads either.  Held back, the write is issued
 * after the completion, so the verify log's order is the device's (fio's
 * serialize_overlap does the same for in-flight overlaps).  O(iodepth).
 */
static bool clone_overlaps_inflight(const struct clone *c, const struct clone_file *f, uint64_t off,
				    uint32_t len)
{
	for (unsigned int i = 0; i < c->job->iodepth; i++) {
		const struct rq_bio *b = &c->bios[i];

		if ((c->bio_flags[i] & BIO_INFLIGHT) && b->owner_priv == f &&
		    b->offset < off + len && off < b->offset + b->len)
			return true;
	}
	return false;
}

/*
 * verify_only=1 (fio's do_dry_run()): draw the writes a run of this job
 * issues - same seed, same sequence - and log them without writing; reads
 * are drawn and dropped.  What is left in the log is what that run left on
 * the device, read back by the usual verify phase.  A bounded batch per
 * call keeps the worker responsive.
 */
static void dry_run_end(struct clone *c)
{
	if (c->xv_phase == 1) {
		c->xv_phase = 2;
		eng_xverify_finish(c);
	} else {
		c->issue_done = true;
	}
}

/*
 * Also experimental_verify's replay (c->xv_phase 1, from the rewound
 * generator), which ends at the writer's count of writes, and verify_only
 * with a loaded state (verify_state_load), which ends at the state's count
 * and drops the writes it says did not complete (vstate.c).  Those counts,
 * not the size, end a time_based writer's replay.
 */
static void clone_dry_run(struct clone *c)
{
	uint64_t limit = c->xv_phase == 1 ? c->xsnap->writer.wseq : c->vstate ? c->vstate->numberio : UINT64_MAX;
	bool timed = limit != UINT64_MAX && c->job->time_based;

	for (unsigned int k = 0; k < 4096; k++) {
		struct clone_file *f;
		uint64_t off, id;
		uint32_t bs;
		int op, st = 1;

		if (c->prog.wseq >= limit) {
			dry_run_end(c);
			return;
		}
		op = choose_op(c);
		if (c->pace[op].mean_gap_ns && c->pace[op].poisson)
			(void)rq_rng_unit(&c->rng);	/* eng_pace_take() draws one gap per I/O */
		if ((op = place_io(c, op, &f, &off, &bs, false)) < 0) {
			/* the generator is done before the count: what was drawn is replayed */
			dry_run_end(c);
			break;
		}
		if (op == RQ_OP_WRITE && f->has_data) {
			if (c->vstate)
				st = eng_vstate_write_done(c, c->prog.wseq, (uint32_t)(f - c->files), off);
			if (!vlog_add(c, f, off, bs, false, &id))
				return;
			if (!st)	/* not completed: not checked, nor what it overlaps */
				rq_vlog_done(&c->vlog, id, false);
			c->prog.wseq++;
		} else if (op == RQ_OP_DISCARD && f->has_data) {
			/* a trim drops what it overlaps, as in the run (fill()) */
			if (!vlog_add(c, f, off, bs, false, &id))
				return;
			rq_vlog_done(&c->vlog, id, false);
		}
		if (counts_in_size(c, op))
			c->prog.issued += bs;
		c->prog.nr_ios++;
		if (!timed && (c->prog.issued >= c->io_limit || (c->ios_limit && c->prog.nr_ios >= c->ios_limit))) {
			dry_run_end(c);
			return;
		}
	}
}

/* When @op may go next by the job's rate= and rate_iops= (0: now). */
static uint64_t rate_due(const struct clone *c, int op)
{
	uint64_t t = c->job->rate[op] ? c->next_byte_ns[op] : 0;

	if (c->pace[op].mean_gap_ns && c->pace[op].next_ns > t)
		t = c->pace[op].next_ns;
	return t;
}

/*
 * A mixed job whose drawn direction is ahead of its rate takes the other
 * when that one is due, else whichever is due first, as fio 3.33's
 * rate_ddir() does: a randrw job at rate=300 issues a read and a write at
 * once (Debian's exitwhat.fio), not two of one direction.
 */
static int rate_ddir(const struct clone *c, int op)
{
	const struct rq_job *job = c->job;
	const uint64_t now = c->cpu->now, due = rate_due(c, op);
	const int other = op == RQ_OP_READ ? RQ_OP_WRITE : RQ_OP_READ;
	uint64_t odue;

	if (due <= now || op > RQ_OP_WRITE || !rq_rw_reads(job->rw) || !rq_rw_writes(job->rw))
		return op;
	if (other == RQ_OP_READ ? !job->rwmixread : job->rwmixread >= 100)
		return op;	/* fio switches only to a direction the mix has */
	odue = rate_due(c, other);
	return odue <= now || odue < due ? other : op;
}

static void fill_pick_sync(struct clone *c, struct rq_bio *bio, const struct clone_file *f, uint8_t kind);

/*
 * A new I/O for a shaped clone (neither a verify read nor a held write):
 * thinktime, the replayed log's next I/O, rate, flow and rate_iops's
 * schedule, then its place; a write overlapping one in flight is held.
 * False when the clone issues nothing more now.
 */
static inline bool fill_pick_new(struct clone *c, struct rq_bio *bio, int *opp, struct clone_file **fp,
				 uint32_t *bsp, uint64_t *duep)
{
	const struct rq_job *job = c->job;
	struct rq_cpu *cpu = c->cpu;
	const struct rq_replay_io *r = NULL;
	struct clone_file *f;
	uint64_t due = 0;
	uint32_t bs;
	int op;

	if (c->issue_done || tw_wait(c))
		return false;
	if (c->think_until_ns > cpu->now) {
		hold_until(cpu, c->think_until_ns);
		return false;
	}
	if (c->replay) {
		/* read_iolog: the log's next I/O, once it is due (replay.c) */
		int v = eng_replay_peek(c, cpu->now, &r, &due);

		if (v <= 0) {
			if (v)
				c->issue_done = true;
			else
				hold_until(cpu, due);
			return false;
		}
		due = 0;
		op = r->op;
		if (op == RQ_OP_FLUSH) {	/* a replayed fsync or fdatasync, outside rate and flow, as fio's */
			c->replay_pos++;
			*fp = &c->files[r->file];
			fill_pick_sync(c, bio, *fp, r->sync);
			*opp = op;
			*bsp = 0;
			*duep = 0;
			return true;
		}
	} else {
		op = c->pending_op >= 0 ? c->pending_op : rate_ddir(c, choose_op(c));
	}
	if (job->rate[op] && c->next_byte_ns[op] > cpu->now) {
		c->pending_op = op;
		hold_until(cpu, c->next_byte_ns[op]);
		return false;
	}
	if (c->flow && flow_stall(c)) {
		c->pending_op = op;
		return false;
	}
	if (c->pace[op].mean_gap_ns && !eng_pace_take(&c->pace[op], cpu->now, &c->rng, &due)) {
		c->pending_op = op;
		hold_until(cpu, due);
		return false;
	}
	c->pending_op = -1;
	if (r) {
		c->replay_pos++;
		f = &c->files[r->file];
		bio->offset = r->offset;
		bs = r->len;
	} else if ((op = place_io(c, op, &f, &bio->offset, &bs, false)) < 0) {
		/* zonemode=zbd: held until zones close; a pass's writes read back before the next */
		c->issue_done = !c->zbd.held && !c->pass_verify;
		return false;
	}
	/*
	 * verify_state_load on a job that reads: its Nth read is the
	 * writer's Nth write; it stops at the first the writer did not
	 * complete (fio's verify_state_should_stop())
	 */
	if (c->vstate && !job->verify_only &&
	    eng_vstate_write_done(c, c->prog.nr_ios, (uint32_t)(f - c->files), bio->offset) != 1) {
		c->issue_done = true;
		return false;
	}
	if (job->rate[op])
		c->next_byte_ns[op] = (c->next_byte_ns[op] ? c->next_byte_ns[op] : cpu->now) +
				      (uint64_t)bs * 1000000000ULL / job->rate[op];
	if ((c->serialize || (op != RQ_OP_READ && job->verify != RQ_VERIFY_NONE && f->has_data)) &&
	    clone_overlaps_inflight(c, f, bio->offset, bs)) {
		c->held = true;
		c->held_op = op;
		c->held_f = f;
		c->held_off = bio->offset;
		c->held_bs = bs;
		return false;
	}
	*opp = op;
	*fp = f;
	*bsp = bs;
	*duep = due;
	return true;
}

/*
 * A flush of @f of kind @kind (enum rq_sync): sync_file_range's range is
 * what was written since the last sync; one too long for a bio's len goes
 * to the end of the file.  Its bio->len is not the clone's bs: fill()
 * accounts a flush as moving nothing.
 */
static void fill_pick_sync(struct clone *c, struct rq_bio *bio, const struct clone_file *f, uint8_t kind)
{
	(void)c;
	bio->sync = kind;
	bio->offset = 0;
	bio->len = 0;
	if (!(kind & RQ_SYNC_RANGE) || f->sync_first == UINT64_MAX)
		return;
	bio->offset = f->sync_first;
	if (f->sync_last - f->sync_first > UINT32_MAX)
		bio->sync |= RQ_SYNC_TO_END;
	else
		bio->len = (uint32_t)(f->sync_last - f->sync_first);
}

/*
 * The next I/O of a clone that shapes its load or verifies (c->shaped):
 * latency_target's depth, verify's read-back and held writes, thinktime,
 * rate, flow and rate_iops's schedule.  False when the clone issues
 * nothing more now.
 */
static bool fill_pick_shaped(struct clone *c, struct rq_bio *bio, int *opp, struct clone_file **fp,
			     uint32_t *bsp, uint64_t *duep, uint8_t *vflagsp)
{
	const struct rq_job *job = c->job;
	struct clone_file *f;
	uint64_t due = 0;
	uint32_t bs;
	int op, t;

	/* fsync=N and the like: the flush owed goes first (fio's get_rw_ddir()) */
	if (c->sync_due && !c->issue_done) {
		c->sync_due = false;
		fill_pick_sync(c, bio, c->sync_f, c->sync_kind);
		*opp = RQ_OP_FLUSH;
		*fp = c->sync_f;
		*bsp = 0;
		*duep = 0;
		return true;
	}
	/* end_fsync: each file's flush, once everything else is back */
	if (c->end_syncing) {
		if (c->end_sync >= c->end_sync_nr)
			return false;
		f = &c->files[c->end_sync++];
		fill_pick_sync(c, bio, f, 0);
		*opp = RQ_OP_FLUSH;
		*fp = f;
		*bsp = 0;
		*duep = 0;
		return true;
	}
	/* latency_target: the depth searched for, not iodepth; none while draining */
	if (job->latency_target_ns && !c->issue_done &&
	    (c->lat.quiesce || c->inflight >= c->lat.qd))
		return false;
	if (!c->vheld && c->vlog.head < c->vlog.nr) {	/* something logged to read back */
		int v = rq_vlog_next(&c->vlog, c->vtarget, &c->vpiece);

		if (v == -EBUSY)
			return false;		/* the next piece's write is in flight */
		c->vheld = v > 0;
	}
	if (c->vheld) {
		/* a piece trim_percentage trimmed reads back as zeros */
		*vflagsp = BIO_VERIFY | (c->vpiece.flags & RQ_VPIECE_TRIMMED ? BIO_ZEROS : 0);
		f = &c->files[c->vpiece.file];
		op = RQ_OP_READ;
		bs = c->vpiece.len;
		bio->offset = c->vpiece.offset;
		c->bio_tag[bio - c->bios] = c->vpiece.seq;
	} else if (c->held) {
		/* a write held back by an overlap: the same one, once it is clear */
		op = c->held_op;
		f = c->held_f;
		bs = c->held_bs;
		bio->offset = c->held_off;
		if (clone_overlaps_inflight(c, f, bio->offset, bs))
			return false;
		c->held = false;
	} else if (c->vtrim && (t = eng_vtrim_pick(c, bio, &f, &bs)) != 0) {
		if (t < 0)
			return false;		/* the piece's write is in flight */
		*vflagsp = BIO_VTRIM;
		op = RQ_OP_DISCARD;
	} else if (!fill_pick_new(c, bio, &op, &f, &bs, &due)) {
		return false;
	}
	*opp = op;
	*fp = f;
	*bsp = bs;
	*duep = due;
	return true;
}

/*
 * A write's data (verify's header and pattern, buffer_pattern, or the
 * sector stamps) and its place in the verify log; a trim's, in the log
 * only (the pieces it overlaps read back zeros now: dropped by
 * account_checks).  False, with the bio taken back, when the verify log
 * is full: the clone issues no more now.
 */
static inline __attribute__((always_inline)) bool fill_data(struct clone *c, struct rq_bio *bio,
							    struct clone_file *f, int op, uint32_t bs)
{
	const struct rq_job *job = c->job;

	if (op == RQ_OP_WRITE) {
		if (job->verify != RQ_VERIFY_NONE) {
			rq_verify_fill(job, bio->buf, bio->offset, bs, c->seed ^ c->prog.wseq, c->prog.wseq);
			if (c->xv_phase != 0 &&
			    !vlog_add(c, f, bio->offset, bs, true, &c->bio_tag[bio - c->bios])) {
				bio->next = NULL;
				c->bio_flags[bio - c->bios] = 0;
				return false;
			}
			if (c->vtrim)
				eng_vtrim_logged(c, c->bio_tag[bio - c->bios]);
			eng_vtrack_issue(c, (uint32_t)(f - c->files), bio->offset);
		} else if (job->buffer_pattern_len) {
			fill_pattern(job, bio->buf, bs);
		} else {
			stamp(bio->buf, bio->offset, bs);
		}
		c->prog.wseq++;
	} else if (op == RQ_OP_DISCARD && job->verify != RQ_VERIFY_NONE &&
		   !(c->bio_flags[bio - c->bios] & BIO_VTRIM)) {
		if (!vlog_add(c, f, bio->offset, bs, true, &c->bio_tag[bio - c->bios])) {
			bio->next = NULL;
			c->bio_flags[bio - c->bios] = 0;
			return false;
		}
	}
	return true;
}

/* A bio goes in flight: the depth, the amount issued, the flow's count. */
static inline __attribute__((always_inline)) void fill_account(struct clone *c, int op, uint32_t bs,
							       bool vread, const bool plain)
{
	c->inflight++;
	c->rep.depth_hist[depth_bucket(c->inflight)]++;
	if (vread) {
		c->vheld = false;
	} else {
		if (counts_in_size(c, op))
			c->prog.issued += bs;
		/* a flush is no I/O of number_ios or of the flow (fio counts reads and writes) */
		if (plain || op != RQ_OP_FLUSH) {
			c->prog.nr_ios++;
			if (!plain && c->flow) {
				c->flow_ios++;
				atomic_fetch_add_explicit(&c->flow->ios, 1, memory_order_relaxed);
			}
		}
	}
	c->cpu->submitted++;
}

/*
 * The queue did not accept @bio (no tag, no request): it is the clone's
 * again, and what fill_data() and fill_account() counted is undone.
 */
static inline __attribute__((always_inline)) void fill_refused(struct clone *c, struct rq_bio *bio,
							       struct clone_file *f, int op, uint32_t bs,
							       bool vread)
{
	const struct rq_job *job = c->job;

	c->inflight--;
	if (vread) {
		c->vheld = true;	/* the same piece next time */
	} else {
		if (counts_in_size(c, op))
			c->prog.issued -= bs;
		if (op == RQ_OP_FLUSH && c->end_syncing)
			c->end_sync--;		/* the same file again */
		else if (op == RQ_OP_FLUSH)
			c->sync_due = true;	/* owed still */
		else
			c->prog.nr_ios--;
		if (c->bio_flags[bio - c->bios] & BIO_VTRIM) {
			/* trim_percentage's trim: its piece is marked and first again */
			rq_vlog_trim_undo(&c->vlog, c->bio_tag[bio - c->bios], job->trim_verify_zero);
			c->trim_batch++;
		} else if (op != RQ_OP_READ && job->verify != RQ_VERIFY_NONE && f->has_data) {
			if (op == RQ_OP_DISCARD || c->xv_phase != 0)
				rq_vlog_done(&c->vlog, c->bio_tag[bio - c->bios], false);
			if (op == RQ_OP_WRITE)
				eng_vtrack_done(c, (uint32_t)(f - c->files), bio->offset, false);
		}
		if (c->tw_bio == bio) {
			/* the trim was refused: it is drawn again, its write with it */
			c->tw_bio = NULL;
			c->tw_pending = false;
			if (f->zbd)
				eng_zbd_unissue(c, f, op, bio->offset, bs);
		} else if (op != RQ_OP_FLUSH && !(c->bio_flags[bio - c->bios] & BIO_VTRIM)) {
			/*
			 * The same I/O goes next, as fio requeues an io_u its
			 * engine found busy: drawn again, the block the random
			 * map marked (or the sequential position it passed, or
			 * the log line replayed) would be skipped, and a sized
			 * pass end with it never written (1eb6a93: randwrite
			 * size=16m, 4 clones at QD 256 wrote 453..2508 of 4096)
			 */
			c->held = true;
			c->held_op = op;
			c->held_f = f;
			c->held_off = bio->offset;
			c->held_bs = bs;
		} else if (f->zbd && op != RQ_OP_FLUSH) {
			eng_zbd_unissue(c, f, op, bio->offset, bs);	/* a trim_percentage trim */
		}
	}
	c->cpu->submitted--;
	/* not in flight: a stale flag was a BUG at the end of the run (issue 26) */
	c->bio_flags[bio - c->bios] = 0;
	bio->next = c->free_bios;
	c->free_bios = bio;
}

/*
 * A write went out: a sync falls due after every fsync/fdatasync/
 * sync_file_range-th one, the first of them when two fall on one write
 * (fio's get_rw_ddir(), which counts the writes issued).
 */
static void sync_note_write(struct clone *c, struct clone_file *f)
{
	const struct rq_job *job = c->job;
	uint64_t w = ++c->sync_writes;

	if (job->fsync_blocks && !(w % job->fsync_blocks))
		c->sync_kind = 0;
	else if (job->fdatasync_blocks && !(w % job->fdatasync_blocks))
		c->sync_kind = RQ_SYNC_DATA;
	else if (job->sfr_blocks && !(w % job->sfr_blocks))
		c->sync_kind = (uint8_t)(RQ_SYNC_RANGE | job->sfr_flags);
	else
		return;
	c->sync_due = true;
	c->sync_f = f;
}

/*
 * Build and submit bios until the clone's depth is full (at most a depth's
 * worth).  @plain (c->plain, constant at each call) compiles a copy for a
 * clone that shapes nothing and draws plain random offsets, without the
 * tests that are always false for it.
 */
static inline __attribute__((always_inline)) unsigned int fill(struct clone *c, const bool plain)
{
	const struct rq_job *job = c->job;
	struct rq_cpu *cpu = c->cpu;
	unsigned int n = 0, batch = job->iodepth_batch_submit ? job->iodepth_batch_submit : 1;

	while (c->free_bios && n < job->iodepth) {
		struct rq_bio *bio = c->free_bios;
		struct clone_file *f;
		uint8_t vflags = 0;
		uint64_t due = 0;
		int op, ret;
		uint32_t bs;
		bool vread;

		if (!plain && __builtin_expect(c->shaped, 0)) {
			if (!fill_pick_shaped(c, bio, &op, &f, &bs, &due, &vflags))
				break;
		} else if (__builtin_expect(c->held, 0)) {
			/* the I/O the queue refused last time (fill_refused()) */
			c->held = false;
			op = c->held_op;
			f = c->held_f;
			bio->offset = c->held_off;
			bs = c->held_bs;
		} else {
			/* nothing shapes the load or verifies: the next I/O is drawn at once */
			if (c->issue_done || (!plain && tw_wait(c)))
				break;
			if (__builtin_expect(c->held, 0)) {
				/* the I/O the queue refused last time, as it was (fill_refused()) */
				op = c->held_op;
				f = c->held_f;
				bs = c->held_bs;
				bio->offset = c->held_off;
				c->held = false;
			} else {
				op = choose_op(c);
				if ((op = place_io(c, op, &f, &bio->offset, &bs, plain)) < 0) {
					c->issue_done = true;
					break;
				}
			}
		}
		c->free_bios = bio->next;
		if (plain || __builtin_expect(op != RQ_OP_FLUSH, 1))
			bio->len = bs;		/* a flush's range is fill_pick_sync()'s */
		bio->op = (uint8_t)op;
		if (!plain && __builtin_expect(c->cmdprio != NULL, 0))
			eng_cmdprio_pick(c->cmdprio, bio, op, bs);
		bio->private = c;
		bio->owner_priv = f;
		bio->error = 0;
		bio->next = NULL;
		c->bio_flags[bio - c->bios] = vflags | BIO_INFLIGHT;
		vread = vflags & BIO_VERIFY;
		if (f->has_data && !fill_data(c, bio, f, op, bs))
			break;
		if (!plain && __builtin_expect(op == RQ_OP_DISCARD, 0) && rq_rw_trimwrite(job->rw) &&
		    !(vflags & BIO_VTRIM))
			c->tw_bio = bio;
		bio->start_ns = cpu->now;
		bio->due_ns = due;
		fill_account(c, op, bs, vread, plain);
		ret = rq_submit_bio(f->q, cpu->ctx, bio);
		/*
		 * fio's iodepth_batch_submit: a batch asked for goes to the
		 * kernel when it is full; the default (1) leaves SQEs to the
		 * worker loop's next enter, within a pass of the loop.
		 */
		if (!plain && batch > 1 && ++c->unsubmitted >= batch &&
		    rq_ctx_sq_ready(cpu->ctx) && !cpu->fatal) {
			cpu->fatal = eng_cpu_submit(cpu, false, 0);
			c->unsubmitted = 0;
		}
		cpu->now = rq_clock_ns();
		bio->issue_ns = cpu->now;
		/* bios the device completed inside the submission end now */
		if (cpu->ended)
			eng_account_ended(cpu);
		if (ret) {
			fill_refused(c, bio, f, op, bs, vread);
			break;
		}
		n++;
		if (!plain && c->iolog && !vread)
			eng_iolog_io(c, f, op, bio->offset, bs, bio->start_ns);
		if (!plain && __builtin_expect(job->fsync_blocks | job->fdatasync_blocks | job->sfr_blocks, 0) &&
		    op == RQ_OP_WRITE && !vread)
			sync_note_write(c, f);
		if (!vread) {
			if (c->prog.issued >= c->io_limit && !job->time_based)
				c->issue_done = true;
		}
	}
	if (n)
		c->rep.submit_hist[batch_bucket(n)]++;
	return n;
}

unsigned int eng_clone_fill(struct clone *c)
{
	unsigned int drew = 0;

	if (c->waiting && !clone_try_start(c, c->cpu->now))
		return 0;
	if (c->job->verify_only && !c->issue_done)
		clone_dry_run(c);
	eng_clone_check_done(c, c->cpu->now);
	/* experimental_verify: in batches, the next once the last is read back */
	if (eng_clone_replaying(c) &&
	    (!c->xv_stream || (!c->vheld && !rq_vlog_pending(&c->vlog, UINT64_MAX)))) {
		clone_dry_run(c);
		drew = 1;	/* progress: the worker comes back for the rest */
		eng_clone_check_done(c, c->cpu->now);
	}
	return drew + (c->plain ? fill(c, true) : fill(c, false));
}

