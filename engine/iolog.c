// SPDX-License-Identifier: MIT
/*
 * iolog.c - the engine's side of fio's logs (results/iolog.c keeps and
 * writes them): which logs a clone keeps and under which names, checked
 * before anything runs; the hook a completed I/O calls; the files
 * written when the run is over.
 */
#include <errno.h>
#include <libgen.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/paths.h"
#include "engine/runner.h"
#include "lib/clock.h"

int eng_logs_setup(struct rq_engine *e, FILE *err)
{
	char path[RQ_JOB_LOG_NAME_MAX + 64];

	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];
		const struct rq_job *job = c->job;
		const char *paths[RQ_LOG_NR_KINDS] = { 0 };
		char *names[RQ_LOG_NR_KINDS] = { 0 };
		struct rq_log_params p = {
			.avg_msec = job->log_avg_msec,
			.hist_msec = job->log_hist_msec,
			.hist_coarseness = job->log_hist_coarseness,
			.log_max = job->log_max_value,
			.log_offset = job->log_offset,
			.log_prio = job->log_prio,
			.store_gz = job->log_store_compressed,
			.gz_chunk = job->log_compression,
		};
		int ret = 0;

		if (!job->write_logs)
			continue;
		if (job->log_store_compressed && (job->write_logs & RQ_JOB_LOG_HIST)) {
			/* fio compresses its histogram samples' pointers, not their counts */
			fprintf(err, "%s:%d: job '%s': log_store_compressed does not apply to write_hist_log "
				"(fio stores no histogram in a .fz log)\n", job->file, job->line, job->name);
			return -EINVAL;
		}
		for (int k = 0; k < RQ_LOG_NR_KINDS && !ret; k++) {
			/* the name engine/paths.c gives it (the server judges the same); thread i + 1 */
			ret = rq_clone_log_path(path, sizeof(path), job, (enum rq_log_kind)k, i + 1);
			if (ret <= 0)
				continue;
			ret = 0;
			if (rq_dir_writable(path)) {
				fprintf(err, "%s:%d: job '%s': %s: cannot write %s: its directory is missing or not writable\n",
					job->file, job->line, job->name, rq_log_kinds[k].option, path);
				ret = -EINVAL;
				break;
			}
			names[k] = strdup(path);
			paths[k] = names[k];
			if (!names[k])
				ret = -ENOMEM;
		}
		if (!ret) {
			c->logs = rq_logs_new(paths, &p);
			if (!c->logs)
				ret = -ENOMEM;
		}
		for (int k = 0; k < RQ_LOG_NR_KINDS; k++)
			free(names[k]);
		if (ret == -ENOMEM || ret == -ENAMETOOLONG)
			fprintf(err, "%s:%d: job '%s': logs: %s\n", job->file, job->line, job->name,
				strerror(-ret));
		if (ret)
			return ret;
	}
	return 0;
}

void eng_logs_io(struct clone *c, const struct rq_bio *bio)
{
	const struct rq_dir_report *d = &c->rep.dir[bio->op];
	struct rq_log_io io = {
		.t_ms = (bio->done_ns - c->ramp_end_ns) / 1000000,
		.start_ns = bio->start_ns,
		.issue_ns = bio->issue_ns,
		.done_ns = bio->done_ns,
		.due_ns = bio->due_ns,
		.offset = bio->offset,
		.bytes = bio->len,
		.ddir = bio->op,
		.ioprio = bio->ioprio,
		.clat_plat = d->clat.plat,
	};

	rq_logs_io(c->logs, &io);
}

void eng_logs_tick(struct clone *c, uint64_t now)
{
	uint64_t bytes[RQ_DDIR_NR], ios[RQ_DDIR_NR];

	/* fio's job has left by its runtime's end: the tick there finds no one */
	if (c->waiting || now < c->ramp_end_ns || (c->deadline_ns && now >= c->deadline_ns))
		return;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		bytes[d] = c->rep.dir[d].io_bytes;
		ios[d] = c->rep.dir[d].total_ios;
	}
	rq_logs_tick(c->logs, (now - c->ramp_end_ns) / 1000000, bytes, ios);
}

/*
 * Every clone's logs, in clone order.  Without per_job_logs clones share
 * a file: the first writes it anew, the others append (fio appends even
 * to what an earlier run left; rqlock starts each run's file afresh).
 */
int eng_logs_write(struct rq_engine *e, FILE *err)
{
	const char **written = calloc((size_t)e->nr_clones * RQ_LOG_NR_KINDS + 1, sizeof(*written));
	unsigned int nr = 0;
	int ret = 0;

	if (!written)
		return -ENOMEM;
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];

		if (!c->logs)
			continue;
		rq_logs_finish(c->logs, c->end_ns > c->ramp_end_ns ? (c->end_ns - c->ramp_end_ns) / 1000000 : 0);
		for (int k = 0; k < RQ_LOG_NR_KINDS; k++) {
			struct rq_log *l = c->logs->log[k];
			bool append = false;
			int r;

			if (!l)
				continue;
			for (unsigned int w = 0; w < nr && !append; w++)
				append = !strcmp(written[w], rq_log_path(l));
			r = rq_log_write(l, append, err);
			if (r && !ret)
				ret = r;
			if (!append)
				written[nr++] = rq_log_path(l);
		}
	}
	free(written);
	return ret;
}

/* ---- rqlock's lock logs --------------------------------------------- */

/*
 * Per lock class, every lock_log_msec, in fio's line format so that fio's
 * readers plot them: PREFIX_<class>_lockwait.log and _lockhold.log,
 *
 *   time, mean ns, 0, samples, 0
 *
 * time in ms since the run began; the mean wait of the contended
 * acquisitions in the interval (every one is timed), or the mean hold
 * of the sampled acquisitions (1 in hold_sample); the "bs" column holds
 * how many samples the mean is of.  An interval without samples writes
 * no line, as fio's averaged logs.
 */
#define LOCKLOG_CLASSES 64

struct eng_locklog {
	unsigned int nr;
	uint64_t next_ns, period_ns;
	struct rq_lockstat_sample last[LOCKLOG_CLASSES];
	struct rq_log *wait[LOCKLOG_CLASSES], *hold[LOCKLOG_CLASSES];
};

static struct rq_log *locklog_new(const char *prefix, const char *cls, const char *what)
{
	static const struct rq_log_params p = { 0 };
	char path[RQ_JOB_PATH_MAX], name[128];
	size_t i;

	/* the class name in a file name: anything but [A-Za-z0-9._-] becomes '_' */
	for (i = 0; cls[i] && i + 1 < sizeof(name); i++)
		name[i] = (char)(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
				       cls[i]) ? cls[i] : '_');
	name[i] = '\0';
	snprintf(path, sizeof(path), "%s_%s_%s.log", prefix, name, what);
	return rq_log_new(path, NULL, &p);
}

int eng_locklog_start(struct rq_engine *e)
{
	struct eng_locklog *ll;

	if (!e->o.lock_log_prefix)
		return 0;
	ll = calloc(1, sizeof(*ll));
	if (!ll)
		return -ENOMEM;
	ll->nr = rq_lockstat_sample(ll->last, LOCKLOG_CLASSES);
	for (unsigned int i = 0; i < ll->nr; i++) {
		ll->wait[i] = locklog_new(e->o.lock_log_prefix, ll->last[i].name, "lockwait");
		ll->hold[i] = locklog_new(e->o.lock_log_prefix, ll->last[i].name, "lockhold");
		if (!ll->wait[i] || !ll->hold[i]) {
			e->locklog = ll;
			eng_locklog_write(e, NULL);
			return -ENOMEM;
		}
	}
	ll->period_ns = (uint64_t)(e->o.lock_log_msec ? e->o.lock_log_msec : 500) * 1000000ULL;
	ll->next_ns = e->start_mono_ns + ll->period_ns;
	e->locklog = ll;
	return 0;
}

static void locklog_take(struct rq_engine *e, uint64_t now)
{
	struct eng_locklog *ll = e->locklog;
	struct rq_lockstat_sample cur[LOCKLOG_CLASSES];
	unsigned int nr = rq_lockstat_sample(cur, LOCKLOG_CLASSES);
	uint64_t t_ms = (now - e->start_mono_ns) / 1000000;

	for (unsigned int i = 0; i < nr && i < ll->nr; i++) {
		const struct rq_lockstat_sample *a = &ll->last[i], *b = &cur[i];

		if (b->wait_n > a->wait_n)
			rq_log_add(ll->wait[i], t_ms, (b->wait_ns - a->wait_ns) / (b->wait_n - a->wait_n), 0,
				   b->wait_n - a->wait_n, 0);
		if (b->hold_n > a->hold_n)
			rq_log_add(ll->hold[i], t_ms, (b->hold_ns - a->hold_ns) / (b->hold_n - a->hold_n), 0,
				   b->hold_n - a->hold_n, 0);
		ll->last[i] = *b;
	}
}

void eng_locklog_sample(struct rq_engine *e, uint64_t now)
{
	struct eng_locklog *ll = e->locklog;

	if (!ll || now < ll->next_ns)
		return;
	locklog_take(e, now);
	ll->next_ns += ll->period_ns;
	if (ll->next_ns <= now)
		ll->next_ns = now + ll->period_ns;
}

/* After the status thread stopped: the last interval, the files, and free. @err NULL: free only. */
int eng_locklog_write(struct rq_engine *e, FILE *err)
{
	struct eng_locklog *ll = e->locklog;
	int ret = 0;

	if (!ll)
		return 0;
	if (err)
		locklog_take(e, rq_clock_mono_ns());
	for (unsigned int i = 0; i < ll->nr; i++) {
		if (err && ll->wait[i] && ll->hold[i]) {
			int r = rq_log_write(ll->wait[i], false, err);

			if (!r)
				r = rq_log_write(ll->hold[i], false, err);
			if (r && !ret)
				ret = r;
		}
		rq_log_free(ll->wait[i]);
		rq_log_free(ll->hold[i]);
	}
	free(ll);
	e->locklog = NULL;
	return ret;
}
/* ---- fio's --bandwidth-log -------------------------------------------- */

/*
 * fio's aggregate bandwidth logs (its eta.c calc_thread_status): every
 * 500 ms, each direction's bytes over all jobs since the last sample, as
 * KiB/s, one line per direction at ms since the run began.  The status
 * thread samples the bytes the clones publish (at most PUBLISH_NS old).
 */
#define AGG_DIRS	3		/* read, write, trim: fio writes all three */
#define AGG_PERIOD_NS	500000000ULL	/* fio's bw_avg_time default */

struct eng_agglog {
	uint64_t last_ns, next_ns;
	uint64_t last[AGG_DIRS];
	struct rq_log *log[AGG_DIRS];
};

int eng_agglog_start(struct rq_engine *e)
{
	static const char *const dir[AGG_DIRS] = { "read", "write", "trim" };
	static const struct rq_log_params p = { 0 };
	struct eng_agglog *al;
	char path[RQ_JOB_PATH_MAX];

	if (!e->o.agg_bw_log)
		return 0;
	al = calloc(1, sizeof(*al));
	if (!al)
		return -ENOMEM;
	e->agglog = al;
	for (int d = 0; d < AGG_DIRS; d++) {
		snprintf(path, sizeof(path), "%s-%s_bw.log", e->o.agg_bw_log, dir[d]);
		al->log[d] = rq_log_new(path, NULL, &p);
		if (!al->log[d]) {
			eng_agglog_write(e, NULL);
			return -ENOMEM;
		}
	}
	al->last_ns = e->start_mono_ns;
	al->next_ns = e->start_mono_ns + AGG_PERIOD_NS;
	return 0;
}

static void agglog_take(struct rq_engine *e, uint64_t now)
{
	struct eng_agglog *al = e->agglog;
	uint64_t ms = (now - al->last_ns) / 1000000;

	if (!ms)
		return;
	for (int d = 0; d < AGG_DIRS; d++) {
		uint64_t bytes = 0;

		for (unsigned int i = 0; d < RQ_DDIR_NR && i < e->nr_clones; i++)
			bytes += atomic_load_explicit(&e->clones[i].pub_bytes[d], memory_order_relaxed);
		rq_log_add(al->log[d], (now - e->start_mono_ns) / 1000000,
			   bytes >= al->last[d] ? (bytes - al->last[d]) * 1000 / ms / 1024 : 0, d, 0, 0);
		al->last[d] = bytes;
	}
	al->last_ns = now;
}

void eng_agglog_sample(struct rq_engine *e, uint64_t now)
{
	struct eng_agglog *al = e->agglog;

	if (!al || now < al->next_ns)
		return;
	agglog_take(e, now);
	al->next_ns += AGG_PERIOD_NS;
	if (al->next_ns <= now)
		al->next_ns = now + AGG_PERIOD_NS;
}

/* After the status thread stopped: the files, and free.  @err NULL: free only. */
int eng_agglog_write(struct rq_engine *e, FILE *err)
{
	struct eng_agglog *al = e->agglog;
	int ret = 0;

	if (!al)
		return 0;
	for (int d = 0; d < AGG_DIRS; d++) {
		if (err && al->log[d]) {
			int r = rq_log_write(al->log[d], false, err);

			if (r && !ret)
				ret = r;
		}
		rq_log_free(al->log[d]);
	}
	free(al);
	e->agglog = NULL;
	return ret;
}
