// SPDX-License-Identifier: MIT
/*
 * paths.c - the one place that turns a job into the paths the engine
 * touches (paths.h): setup.c opens and lays out these data files, run.c
 * unlinks those marked for it, iolog.c writes these logs, and the server
 * judges each of them before any is opened.
 */
#include <errno.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/paths.h"

const char *rq_path_alias(const struct rq_engine_opts *o, const char *name)
{
	size_t len = strlen(name);

	for (unsigned int i = 0; o && i < o->nr_aliases; i++)
		if (!strncmp(o->aliases[i], name, len) && o->aliases[i][len] == '=')
			return o->aliases[i] + len + 1;
	return NULL;
}

unsigned int rq_job_nr_files(const struct rq_job *job)
{
	int n;

	if (!job->filename[0])
		return job->nrfiles ? job->nrfiles : 1;
	n = rq_job_for_each_file(job, NULL, NULL);
	return n > 0 ? (unsigned int)n : 1;
}

bool rq_job_files_per_clone(const struct rq_job *job)
{
	return !job->filename[0] || strchr(job->directory, ':');
}

#define DEFAULT_FORMAT "$jobname.$jobnum.$filenum"	/* fio's, and the parser's default */

/* $jobname, $jobnum, $filenum (any case), as fio's make_filename */
static void format_name(char *out, size_t cap, const struct rq_job *job, unsigned int clone,
			unsigned int file)
{
	const char *f = job->filename_format[0] ? job->filename_format : DEFAULT_FORMAT;
	size_t len = 0;

	out[0] = '\0';
	while (*f && len + 1 < cap) {
		int n = 0;

		if (!strncasecmp(f, "$jobname", 8)) {
			n = snprintf(out + len, cap - len, "%s", job->name);
			f += 8;
		} else if (!strncasecmp(f, "$jobnum", 7)) {
			n = snprintf(out + len, cap - len, "%u", clone);
			f += 7;
		} else if (!strncasecmp(f, "$filenum", 8)) {
			n = snprintf(out + len, cap - len, "%u", file);
			f += 8;
		} else if (!strncasecmp(f, "$clientuid", 10)) {
			f += 10;	/* fio's client id: no clients here */
		} else {
			out[len++] = *f++;
			out[len] = '\0';
		}
		if (n > 0)
			len = len + (size_t)n < cap ? len + (size_t)n : cap - 1;
	}
}

struct files_ctx {
	const struct rq_engine_opts *o;
	struct rq_path p;
	char dir[RQ_JOB_PATH_MAX];
	rq_path_fn fn;
	void *arg;
};

/* One name of the clone's list: under the clone's directory, classified. */
static int one_file(const char *name, void *arg)
{
	struct files_ctx *x = arg;
	const struct rq_job *job = x->p.job;
	char path[RQ_JOB_PATH_MAX];
	int ret;

	if (x->dir[0] && name[0] != '@') {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", x->dir, name) >= sizeof(path))
			return -ENAMETOOLONG;
		name = path;
	}
	x->p.path = name;
	x->p.flags = 0;
	if (name[0] == '@')
		x->p.kind = RQ_PATH_BUILTIN;
	else if (rq_path_alias(x->o, name))
		x->p.kind = RQ_PATH_ALIAS;
	else if (job->ioengine == RQ_IOENGINE_NULL)
		x->p.kind = RQ_PATH_NONE;	/* fio's null engine takes any name: a null device */
	else {
		x->p.kind = RQ_PATH_FILE;
		x->p.flags = job->unlink ? RQ_PATH_UNLINK : 0;
	}
	ret = x->fn(&x->p, x->arg);
	x->p.file++;
	return ret;
}

int rq_clone_files(const struct rq_engine_opts *o, const struct rq_job *job, unsigned int clone,
		   rq_path_fn fn, void *arg)
{
	struct files_ctx x = { .o = o, .fn = fn, .arg = arg };
	char name[RQ_JOB_PATH_MAX];
	unsigned int nr;
	int n = 0;

	x.p.job = job;
	x.p.clone = clone;
	if (job->directory[0]) {
		const char *p = job->directory;
		unsigned int nd = 1, k;

		for (const char *q = p; *q; q++)
			nd += *q == ':';
		for (k = clone % nd; k; k--)
			p = strchr(p, ':') + 1;
		if ((size_t)snprintf(x.dir, sizeof(x.dir), "%.*s", (int)strcspn(p, ":"), p) >= sizeof(x.dir))
			return -ENAMETOOLONG;
	}
	if (job->filename[0]) {
		x.p.option = job->directory[0] ? "directory+filename" : "filename";
		return rq_job_for_each_file(job, one_file, &x);
	}
	if (job->filename_format[0] && strcmp(job->filename_format, DEFAULT_FORMAT))
		x.p.option = job->directory[0] ? "directory+filename_format" : "filename_format";
	else
		x.p.option = job->directory[0] ? "directory (fio's default file names)" :
			     "no filename (fio's default file names)";
	nr = rq_job_nr_files(job);
	for (unsigned int i = 0; i < nr; i++, n++) {
		int ret;

		format_name(name, sizeof(name), job, clone, i);
		ret = one_file(name, &x);
		if (ret < 0)
			return ret;
	}
	return n;
}

/* The job options that ask for logs, and the name each was given. */
static const struct {
	const char *option;
	unsigned int bit;
	size_t name_off;
} log_opts[] = {
	{ "write_lat_log", RQ_JOB_LOG_LAT, offsetof(struct rq_job, lat_log_file) },
	{ "write_bw_log", RQ_JOB_LOG_BW, offsetof(struct rq_job, bw_log_file) },
	{ "write_iops_log", RQ_JOB_LOG_IOPS, offsetof(struct rq_job, iops_log_file) },
	{ "write_hist_log", RQ_JOB_LOG_HIST, offsetof(struct rq_job, hist_log_file) },
};

const char *rq_log_option(enum rq_log_kind kind)
{
	return rq_log_kinds[kind].option;
}

/*
 * A kind the engine can feed for @job.  lat_intended is from the rate
 * schedule's due time (bio->due_ns, queues/queue.h): written for
 * rate-limited jobs only, where it differs from lat.
 */
static bool kind_fed(enum rq_log_kind k, const struct rq_job *job)
{
	return k != RQ_LOG_LAT_INTENDED || job->rate_iops[0] || job->rate_iops[1];
}

/* The name prefix for @kind, or NULL when @job does not ask for it. */
static const char *kind_prefix(const struct rq_job *job, enum rq_log_kind k)
{
	for (size_t i = 0; i < sizeof(log_opts) / sizeof(log_opts[0]); i++) {
		const char *name;

		if (strcmp(log_opts[i].option, rq_log_kinds[k].option) || !(job->write_logs & log_opts[i].bit))
			continue;
		name = (const char *)job + log_opts[i].name_off;
		return *name ? name : job->name;	/* fio's make_log_name */
	}
	return NULL;
}

int rq_clone_log_path(char *buf, size_t size, const struct rq_job *job, enum rq_log_kind kind,
		      unsigned int thread_number)
{
	const char *prefix = kind_prefix(job, kind);

	if (!prefix || !kind_fed(kind, job))
		return 0;
	int n = rq_log_name(buf, size, prefix, rq_log_kinds[kind].suffix, thread_number, job->per_job_logs);

	/* fio's suffix "log.fz" for a compressed log */
	if (n >= 0 && job->log_store_compressed)
		n += snprintf(buf + n, n < (int)size ? size - (size_t)n : 0, ".fz");
	if (n < 0 || n >= (int)size)
		return -ENAMETOOLONG;
	return 1;
}

int rq_jobs_paths(const struct rq_engine_opts *o, const struct rq_job_list *jobs, rq_path_fn fn, void *arg)
{
	char path[RQ_JOB_PATH_MAX + 64];
	unsigned int thread = 0;
	int ret;

	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];

		if (job->read_iolog[0]) {
			struct rq_path p = {
				.path = job->read_iolog, .option = "read_iolog", .kind = RQ_PATH_INPUT, .job = job,
			};

			if ((ret = fn(&p, arg)) < 0)
				return ret;
		}
		if (job->read_iolog[0] && job->merge_blktrace_file[0]) {	/* written before the run (replay.c) */
			struct rq_path p = {
				.path = job->merge_blktrace_file, .option = "merge_blktrace_file", .kind = RQ_PATH_LOG,
				.job = job,
			};

			if ((ret = fn(&p, arg)) < 0)
				return ret;
		}
		for (unsigned int k = 0; k < job->numjobs; k++) {
			ret = rq_clone_files(o, job, k, fn, arg);
			if (ret < 0)
				return ret;
			if (!rq_job_files_per_clone(job))
				break;		/* clones share the files */
		}
	}
	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];

		for (unsigned int k = 0; k < job->numjobs; k++) {
			thread++;	/* fio's thread_number: clones counted from 1 over every job */
			if (job->write_iolog[0]) {	/* engine/replay.c's names: NAME, NAME.N for clone N > 0 */
				struct rq_path p = {
					.path = path, .option = "write_iolog", .kind = RQ_PATH_LOG, .job = job, .clone = k,
				};

				int len = k ? snprintf(path, sizeof(path), "%s.%u", job->write_iolog, k) :
					      snprintf(path, sizeof(path), "%s", job->write_iolog);

				if ((size_t)len >= sizeof(path))
					return -ENAMETOOLONG;
				if ((ret = fn(&p, arg)) < 0)
					return ret;
			}
			for (int l = 0; l < RQ_LOG_NR_KINDS; l++) {
				struct rq_path p = {
					.path = path, .option = rq_log_option((enum rq_log_kind)l),
					.kind = RQ_PATH_LOG, .job = job, .clone = k, .log = (enum rq_log_kind)l,
				};

				ret = rq_clone_log_path(path, sizeof(path), job, (enum rq_log_kind)l, thread);
				if (ret < 0)
					return ret;
				if (ret && (ret = fn(&p, arg)) < 0)
					return ret;
			}
		}
	}
	return 0;
}

int rq_dir_writable(const char *path)
{
	char *dup = strdup(path);
	const char *dir;
	struct stat st;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	dir = dirname(dup);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK))
		ret = -EACCES;
	free(dup);
	return ret;
}
