// SPDX-License-Identifier: MIT
/*
 * account.c - what comes back to a job clone: the checks of a completed
 * I/O (verify, the exactly-once stamps, latency_target, thinktime's
 * count), its accounting (slat/clat/lat, priorities, syncs, the intended
 * latency), errors against continue_on_error, the bandwidth and IOPS
 * samples, and the clone's end.  clone.c fills, this file accounts; the
 * worker (worker.c) calls both and neither calls it back.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine.h"
#include "engine/pace.h"
#include "engine/runner.h"
#include "engine/verify.h"
#include "lib/clock.h"
#include "queues/queue.h"

/* Returns the number of stamped sectors checked, or -EILSEQ on a mismatch. */
static int check_stamps(const struct clone *c, const struct rq_bio *bio, const struct clone_file *f)
{
	int n = 0;

	for (uint32_t s = 0; s < bio->len; s += SECTOR) {
		const uint64_t *w = (const uint64_t *)((const char *)bio->buf + s);

		if (w[0] != STAMP_MAGIC)
			continue;
		if (w[1] != bio->offset + s) {
			fprintf(stderr, "rqlock: verify: job '%s': %s offset %" PRIu64
				": sector carries the stamp of offset %" PRIu64 "\n",
				c->job->name, f->q->name, bio->offset + s, w[1]);
			return -EILSEQ;
		}
		n++;
	}
	return n;
}

/*
 * Whether the job goes on after error @err (positive errno) of @kind: as
 * fio's td_non_fatal_error, continue_on_error for the kind, and when
 * ignore_error lists errors for it, only those.
 */
static bool error_allowed(const struct clone *c, int kind, int err)
{
	const struct rq_job *job = c->job;
	int k = kind == RQ_COE_READ ? 0 : kind == RQ_COE_WRITE ? 1 : kind == RQ_COE_VERIFY ? 2 : -1;

	if (!eng_coe_allows(c, kind))
		return false;
	if (k < 0 || !job->nr_ignore_error[k])
		return true;
	for (unsigned int i = 0; i < job->nr_ignore_error[k]; i++)
		if (job->ignore_error[k][i] == err)
			return true;
	return false;
}


/*
 * Why an I/O failed, beyond its errno, for the one line the user reads:
 * a file that no longer reaches the I/O (truncated under the run) ends a
 * read short, which the queue reports as EIO (the errno fio reports too);
 * say "end of file" and where the file ends now.  Cold path: one stat.
 */
static void explain_error(const struct clone_file *f, const struct rq_bio *bio, char *buf, size_t len)
{
	const struct rq_dev *dev = f->q->dev;
	struct stat st;

	buf[0] = 0;
	if (bio->error == -EIO && bio->op == RQ_OP_READ && dev && dev->path[0] &&
	    !stat(dev->path, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < bio->offset + bio->len)
		snprintf(buf, len, " (end of file: the file is %llu bytes now, the read needs %llu; "
			 "truncated under the run?)", (unsigned long long)st.st_size,
			 (unsigned long long)(bio->offset + bio->len));
}

/*
 * exitall: the clone's group (exit_what=group, fio's default), its phase
 * (stonewall) or every job (all, later phases too) stop issuing.
 */
static void exit_others(const struct clone *c)
{
	struct rq_engine *e = c->cpu->e;
	int none = -1;

	atomic_store(&e->exit_what, (int)c->job->exit_what);
	atomic_compare_exchange_strong(&e->exit_group, &none, c->job->groupid);
}

static bool told_to_exit(const struct clone *c)
{
	const struct rq_engine *e = c->cpu->e;
	int g = atomic_load_explicit(&e->exit_group, memory_order_relaxed);

	if (g < 0)
		return false;
	return atomic_load_explicit(&e->exit_what, memory_order_relaxed) != RQ_EXIT_GROUP ||
	       c->job->groupid == g;
}

/* What account_checks() found on a completion. */
struct acct_check {
	bool vread;		/* a verify read: not a new I/O of the job */
	bool lat_fatal;		/* latency_target failed at depth 1: said already */
	int kind;		/* RQ_COE_VERIFY for a check that failed, 0 else */
};

/*
 * The checks of a clone that verifies or shapes its load, or of a file
 * holding data: what a read brought back (verify= or the exactly-once
 * stamps), the verify log, latency_target, and thinktime's count.  A
 * failure is left in bio->error.
 */
static void __attribute__((noinline)) account_checks(struct clone *c, struct rq_bio *bio,
						     struct clone_file *f, unsigned int idx,
						     struct acct_check *ck)
{
	const struct rq_job *job = c->job;
	bool logged = c->bio_flags[idx] & BIO_VERIFY;	/* a read of a logged piece: its seq is known */
	bool vread = logged;
	/*
	 * verify_only replays the writes from this clone's seed, which
	 * depends on its place among the run's clones: the job that wrote
	 * may have drawn the same blocks from another seed, in another
	 * order, so a block from another stream has its write number not
	 * judged (fio skips numberio for verify_only altogether).
	 */
	uint64_t seq = logged ? c->bio_tag[idx] : UINT64_MAX;
	const uint64_t *stream = job->verify_only ? &c->seed : NULL;
	/* experimental_verify in batches: a later write of the sequence may be there (vstate.c) */
	uint64_t newer = 0;

	if (c->xv_phase > 0 && c->xv_stream) {
		stream = &c->seed;
		newer = c->xsnap->writer.wseq;
	}

	/* a read-only job with verify= checks what it reads, as fio's */
	if (job->verify != RQ_VERIFY_NONE && !rq_rw_writes(job->rw))
		vread = true;
	ck->vread = vread;
	c->last_op = bio->op;		/* verify/trim's batches (vtrim.c) */
	if (!bio->error && bio->op == RQ_OP_READ && f->has_data) {
		if (vread) {
			char msg[256];
			int bad = c->bio_flags[idx] & BIO_ZEROS ?
				  rq_verify_check_zero(bio->buf, bio->offset, bio->len, msg, sizeof(msg)) :
				  rq_verify_check_replay(job, bio->buf, bio->offset, bio->len, seq, stream,
							 newer, msg, sizeof(msg));

			if (bad) {
				fprintf(stderr, "rqlock: verify: job '%s': %s %s\n", job->name, f->q->name, msg);
				bio->error = -EILSEQ;
				ck->kind = RQ_COE_VERIFY;
			}
		} else if (job->verify == RQ_VERIFY_NONE) {
			int n = check_stamps(c, bio, f);

			if (n < 0) {
				bio->error = n;
				ck->kind = RQ_COE_VERIFY;
			} else {
				c->cpu->verified += (uint64_t)n;
			}
		}
		if (vread && !bio->error)
			c->cpu->verified += bio->len / SECTOR;
	}
	if (bio->op != RQ_OP_READ && job->verify != RQ_VERIFY_NONE && f->has_data) {
		/*
		 * experimental_verify logs no write while writing; a trim's piece
		 * only dropped what it overlapped: it is never read back; a
		 * trim_percentage trim leaves its piece to read back as zeros
		 */
		if (c->bio_flags[idx] & BIO_VTRIM)
			rq_vlog_trim_done(&c->vlog, c->bio_tag[idx], job->trim_verify_zero, !bio->error);
		else if (bio->op == RQ_OP_DISCARD || c->xv_phase != 0)
			rq_vlog_done(&c->vlog, c->bio_tag[idx], !bio->error && bio->op == RQ_OP_WRITE);
		if (bio->op == RQ_OP_WRITE)
			eng_vtrack_done(c, (uint32_t)(f - c->files), bio->offset, !bio->error);
	}
	/*
	 * latency_target judges lat; without it (disable_lat) an I/O counts
	 * in its window and is never late, as in fio, which judges only a
	 * latency it keeps
	 */
	if (job->latency_target_ns && !bio->error && bio->done_ns >= c->ramp_end_ns &&
	    eng_lat_io(c, job->disable_lat ? 0 : bio->done_ns - bio->start_ns)) {
		if (!c->first_error)	/* once: continue_on_error may let it go on failing */
			fprintf(stderr, "rqlock: job '%s': %s %s at offset %" PRIu64 " took %" PRIu64
				" us, above latency_target=%" PRIu64 " us at queue depth 1 (fio's \"max "
				"latency exceeded\")\n", job->name, f->q->name, rq_op_name(bio->op),
				bio->offset, (bio->done_ns - bio->start_ns) / 1000,
				job->latency_target_ns / 1000);
		bio->error = -ETIMEDOUT;
		ck->lat_fatal = true;
	}
	/* thinktime after thinktime_blocks completed I/Os (fio's default, "complete") */
	if (!bio->error && job->thinktime_us && !vread &&
	    ++c->since_think >= (job->thinktime_blocks ? job->thinktime_blocks : 1)) {
		c->since_think = 0;
		c->think_until_ns = bio->done_ns + job->thinktime_us * 1000;
		c->spin_until_ns = bio->done_ns + job->thinktime_spin_us * 1000;
	}
}

/*
 * The I/O's latency into its priority's statistics (cmdprio), as fio's
 * add_clat_sample()/add_lat_sample(): total latency under lat_percentiles,
 * else completion latency, with its histogram when percentiles are shown.
 */
static __attribute__((noinline)) void prio_account(const struct clone *c, const struct rq_bio *bio)
{
	const struct rq_job *job = c->job;
	const struct rq_dir_report *d = &c->rep.dir[bio->op];
	struct rq_lat_stat *s;

	if (!d->nr_prios)
		return;
	s = &d->prio[bio->prio_idx].lat;
	if (job->lat_percentiles) {
		if (!job->disable_lat)
			rq_lat_add(s, bio->done_ns - bio->start_ns);
	} else if (!job->disable_clat) {
		if (job->clat_percentiles)
			rq_lat_add(s, bio->done_ns - bio->issue_ns);
		else
			rq_lat_add_stat(s, bio->done_ns - bio->issue_ns);
	}
}

/*
 * A flush is back, fine: the file has no range left to sync (fio's
 * io_completed()) and, unless it is end_fsync's, fio's sync statistics
 * (add_sync_clat_sample(), from its issue).  fio 3.33 counts only the
 * fsyncs in total_io_u[DDIR_SYNC] (the JSON sync block's total_ios, the
 * 4th issued count); every kind's latency goes into the same histogram.
 */
static __attribute__((noinline)) void flush_account(struct clone *c, const struct rq_bio *bio,
						    struct clone_file *f)
{
	f->sync_first = f->sync_last = UINT64_MAX;
	if (c->end_syncing || bio->done_ns < c->ramp_end_ns)
		return;
	if (!(bio->sync & (RQ_SYNC_DATA | RQ_SYNC_RANGE)))
		c->rep.sync_ios++;
	rq_lat_add(&c->rep.sync, bio->done_ns - bio->issue_ns);
}

/* sync_file_range: a write is back, fine; its range is the next sync's (fio's file_log_write_comp()) */
static inline void sync_range_add(struct clone_file *f, const struct rq_bio *bio)
{
	if (f->sync_first == UINT64_MAX || bio->offset < f->sync_first)
		f->sync_first = bio->offset;
	if (f->sync_last == UINT64_MAX || bio->offset + bio->len > f->sync_last)
		f->sync_last = bio->offset + bio->len;
}

/* A bio is back: check what it read, account it, note errors. */
void eng_clone_account(struct clone *c, struct rq_bio *bio, uint64_t done)
{
	struct clone_file *f = bio->owner_priv;
	const struct rq_job *job = c->job;
	unsigned int idx = (unsigned int)(bio - c->bios);
	struct acct_check ck = { .vread = false, .lat_fatal = false, .kind = 0 };

	/* a bio ended on another worker carries that worker's clock: never before its issue */
	bio->done_ns = done > bio->issue_ns ? done : bio->issue_ns;
	c->inflight--;
	c->cpu->completed++;
	if (__builtin_expect(bio == c->tw_bio, 0))
		c->tw_bio = NULL;	/* trimwrite: its write may go now */
	if (__builtin_expect(c->shaped || f->has_data, 0)) {
		if (bio->op == RQ_OP_FLUSH) {
			if (!bio->error) {
				flush_account(c, bio, f);
				c->bio_flags[idx] = 0;
				bio->next = c->free_bios;
				c->free_bios = bio;
				return;
			}
		} else {
			if (job->sfr_blocks && bio->op == RQ_OP_WRITE && !bio->error)
				sync_range_add(f, bio);
			account_checks(c, bio, f, idx, &ck);
		}
	}
	/* zonemode=zbd: what came back may close its zone (verify's reads took no zone) */
	if (__builtin_expect(f->zbd != NULL, 0) && bio->op != RQ_OP_FLUSH && !ck.vread)
		eng_zbd_done(c, f, bio);
	c->bio_flags[idx] = 0;
	if (__builtin_expect(bio->error != 0, 0) && eng_fill_full(c, f, bio)) {
		/* fill_device: the end (fill.c) */
	} else if (bio->error) {
		/* fio: an error continue_on_error covers is counted, not the job's error */
		c->total_err++;
		if (!c->first_error) {
			c->first_error = -bio->error;
			if (bio->error != -EILSEQ && !ck.lat_fatal) {
				char why[160];

				explain_error(f, bio, why, sizeof(why));
				fprintf(stderr, "rqlock: job '%s': %s %s error at offset %" PRIu64
					" len %u: %s%s\n", job->name, f->q->name, rq_op_name(bio->op),
					bio->offset, bio->len, strerror(-bio->error), why);
			}
		}
		/* continue_on_error's class of the error: the check's, or the I/O's (a trim's is a write's, as fio) */
		if (!ck.kind)
			ck.kind = bio->op == RQ_OP_READ ? RQ_COE_READ : RQ_COE_WRITE;
		if (!error_allowed(c, ck.kind, -bio->error)) {
			if (!c->error)
				c->error = -bio->error;
			c->issue_done = true;
			if (job->exitall_on_error)
				exit_others(c);
		}
	} else if (bio->done_ns >= c->ramp_end_ns) {
		struct rq_dir_report *d = &c->rep.dir[bio->op];

		d->total_ios++;
		d->io_bytes += bio->len;
		/*
		 * gtod_reduce and disable_*: those latencies are not kept, as
		 * fio.  fio keeps the slat and lat histograms only when their
		 * percentiles are asked for (stat.c add_slat_sample,
		 * add_lat_sample): clat's feeds the latency buckets and the
		 * histogram logs.
		 */
		if (!job->disable_slat) {
			if (job->slat_percentiles)
				rq_lat_add(&d->slat, bio->issue_ns - bio->start_ns);
			else
				rq_lat_add_stat(&d->slat, bio->issue_ns - bio->start_ns);
		}
		if (!job->disable_clat)
			rq_lat_add(&d->clat, bio->done_ns - bio->issue_ns);
		if (!job->disable_lat) {
			if (job->lat_percentiles)
				rq_lat_add(&d->lat, bio->done_ns - bio->start_ns);
			else
				rq_lat_add_stat(&d->lat, bio->done_ns - bio->start_ns);
		}
		if (bio->due_ns)
			eng_pace_account(d, c->pace[bio->op].mean_gap_ns, bio->due_ns,
					 bio->start_ns, bio->done_ns);
		/* one predictable branch when no log, timeline or priority is asked for */
		if (__builtin_expect(c->traced, 0)) {
			if (c->cmdprio)
				prio_account(c, bio);
			if (c->cpu->e->o.timeline && !ck.vread)
				eng_timeline_add(c, bio);
			if (c->logs)
				eng_logs_io(c, bio);
		}
	}
	bio->next = c->free_bios;
	c->free_bios = bio;
}

static void sampler_add(struct sampler *s, uint64_t v)
{
	double d;

	if (!s->n || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->n++;
	d = (double)v - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * ((double)v - s->mean);
}

void eng_sampler_report(const struct sampler *s, struct rq_sample_stat *out)
{
	out->samples = s->n;
	out->min = s->min;
	out->max = s->max;
	out->mean = s->mean;
	out->stddev = s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1)) : 0;
}

/* fio's bandwidth and IOPS logs: one sample per 500 ms of measured time. */
#define SAMPLE_NS 500000000ULL

void eng_clone_sample(struct clone *c, uint64_t now)
{
	uint64_t el;

	if (__builtin_expect(c->logs != NULL, 0))
		eng_logs_tick(c, now);
	if (__builtin_expect(c->publish, 0))
		eng_status_publish(c, now);
	if (now < c->next_sample_ns || c->waiting || c->job->disable_bw)
		return;
	if (!c->last_sample_ns) {
		if (now < c->ramp_end_ns) {
			c->next_sample_ns = c->ramp_end_ns;
			return;
		}
		c->last_sample_ns = now;
		c->next_sample_ns = now + SAMPLE_NS;
		for (int d = 0; d < RQ_DDIR_NR; d++) {
			c->last_bytes[d] = c->rep.dir[d].io_bytes;
			c->last_ios[d] = c->rep.dir[d].total_ios;
		}
		return;
	}
	el = now - c->last_sample_ns;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		const struct rq_dir_report *r = &c->rep.dir[d];

		if (!rq_rw_dir(c->job->rw, d))
			continue;
		sampler_add(&c->bw[d], (r->io_bytes - c->last_bytes[d]) * 1000000000ULL / 1024 / el);
		sampler_add(&c->iops[d], (r->total_ios - c->last_ios[d]) * 1000000000ULL / el);
		c->last_bytes[d] = r->io_bytes;
		c->last_ios[d] = r->total_ios;
	}
	c->last_sample_ns = now;
	c->next_sample_ns = now + SAMPLE_NS;
}

/* Verification left to do: a piece held, or logged below the target. */
static bool clone_verify_pending(struct clone *c)
{
	return c->vheld || rq_vlog_pending(&c->vlog, c->vtarget);
}

void eng_clone_check_done(struct clone *c, uint64_t now)
{
	const struct rq_job *job = c->job;
	bool trims_due;

	if (c->waiting)
		return;
	if (!c->issue_done) {
		if ((c->deadline_ns && now >= c->deadline_ns) ||
		    (!job->time_based && c->prog.issued >= c->io_limit) ||
		    (c->ios_limit && c->prog.nr_ios >= c->ios_limit) ||
		    told_to_exit(c))
			c->issue_done = true;
		else if (job->latency_target_ns)
			eng_lat_check(c, now);
	}
	/* trim_percentage: trims still due once the writes are done go before the reads */
	trims_due = c->vtrim && c->issue_done && !c->inflight && eng_vtrim_tail(c);
	/* verification: reads of completed writes, after a backlog or at the end */
	if (job->verify != RQ_VERIFY_NONE && (!c->error || eng_coe_allows(c, RQ_COE_VERIFY)) &&
	    !c->rep.interrupted) {
		uint64_t end = rq_vlog_end(&c->vlog);

		/* experimental_verify: the writes are done, replay them (vstate.c) */
		if (c->xv_phase == 0 && c->issue_done && !c->inflight && eng_xverify_rewind(c))
			c->xv_phase = 1;
		if (job->verify_backlog && end - c->vtarget >= job->verify_backlog)
			c->vtarget = end;
		/* a replay in one go is read back once it is whole; in batches, each batch */
		if (c->issue_done && !c->inflight && !trims_due && (job->do_verify || job->verify_only) &&
		    (c->xv_phase != 1 || c->xv_stream))
			c->vtarget = end;
	}
	if (c->issue_done && !c->inflight && !clone_verify_pending(c) && !c->finished &&
	    !eng_clone_replaying(c) && !trims_due) {
		/* end_fsync, fsync_on_close: the files' flushes first (fill_pick_shaped), unless it failed */
		if (c->end_sync < c->end_sync_nr && !c->error) {
			c->end_syncing = true;
			return;
		}
		c->finished = true;
		c->end_ns = now;
		if (c->publish)
			eng_status_publish(c, now);
		if (job->exitall)
			exit_others(c);
		if (c->flow) {
			/*
			 * its I/Os leave the count with its weight, as fio's
			 * flow_put(): the rest share the flow anew (t0014)
			 */
			atomic_fetch_sub(&c->flow->ios, c->flow_ios);
			atomic_fetch_sub(&c->flow->weight, job->flow);
		}
		c->cpu->nr_active--;
		atomic_fetch_sub(&c->cpu->e->job_remaining[c->job_index], 1);
		atomic_fetch_sub_explicit(&c->cpu->e->active_clones, 1, memory_order_release);
	}
}
