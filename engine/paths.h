/* SPDX-License-Identifier: MIT */
/*
 * paths.h - every path a job makes the engine touch, named once: the data
 * files (filename, directory, filename_format, nrfiles, fio's default
 * names), what unlink removes, and the log files.  The engine opens
 * exactly what these functions return (setup.c, iolog.c), and
 * `rqlock server` judges exactly that against its policy, so the two
 * cannot drift apart.
 */
#ifndef RQ_ENGINE_PATHS_H
#define RQ_ENGINE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "jobfile/job.h"
#include "results/results.h"

struct rq_engine_opts;

/* What the engine does with a name. */
enum rq_path_kind {
	RQ_PATH_FILE,		/* a file or device node: opened, laid out (created, extended) and written by writing jobs */
	RQ_PATH_BUILTIN,	/* "@spec": a built-in device; its file= and of= are paths of their own */
	RQ_PATH_ALIAS,		/* a --device NAME=SPEC name: opens the operator's SPEC */
	RQ_PATH_NONE,		/* ioengine=null with a plain name: a null device, no file is opened */
	RQ_PATH_LOG,		/* a log file: created or truncated, written after the run (merge_blktrace_file: before) */
	RQ_PATH_INPUT,		/* a file read before the run: read_iolog's logs (engine/replay.c) */
};

/* rq_path.flags */
#define RQ_PATH_UNLINK	0x1	/* removed after the run (unlink=1; regular files only) */

struct rq_path {
	const char *path;		/* exactly as the engine opens it */
	const char *option;		/* the job option it comes from ("filename", "directory", "write_bw_log", ...) */
	enum rq_path_kind kind;
	unsigned int flags;		/* RQ_PATH_* */
	const struct rq_job *job;
	unsigned int clone;		/* the clone's number in its job */
	unsigned int file;		/* the file's index in the clone (data files) */
	enum rq_log_kind log;		/* RQ_PATH_LOG: which log */
};

typedef int (*rq_path_fn)(const struct rq_path *p, void *arg);

/*
 * The data files clone @clone of @job uses, in the clone's file order:
 * filename's ':' list, or nrfiles names from filename_format (default
 * "$jobname.$jobnum.$filenum"), each under the directory the clone's number
 * picks from directory's ':' list (fio's set_name_idx).  @o (NULL: none)
 * gives the --device aliases.  Returns the number of files, or the first
 * negative value @fn returned (-ENAMETOOLONG for a name too long).
 */
int rq_clone_files(const struct rq_engine_opts *o, const struct rq_job *job, unsigned int clone,
		   rq_path_fn fn, void *arg);

/* The spec a --device NAME=SPEC in @o (NULL: none) gives @name, or NULL. */
const char *rq_path_alias(const struct rq_engine_opts *o, const char *name);

/* The number of data files a clone of @job uses (nrfiles, or filename's names). */
unsigned int rq_job_nr_files(const struct rq_job *job);

/* Whether each clone of @job has files of its own (no filename, or a directory list). */
bool rq_job_files_per_clone(const struct rq_job *job);

/*
 * The log file of @kind for the clone that is fio's thread @thread_number
 * (clones counted from 1 over every job), as fio 3.33 names it.  Returns
 * 1 with the name in @buf, 0 when the job keeps no such log (or the engine
 * cannot feed it), -ENAMETOOLONG when @size is too small.
 */
int rq_clone_log_path(char *buf, size_t size, const struct rq_job *job, enum rq_log_kind kind,
		      unsigned int thread_number);

/* The option that asks for the log of @kind ("write_lat_log", ...). */
const char *rq_log_option(enum rq_log_kind kind);

/*
 * Every path @jobs make the engine touch: each job's read_iolog logs
 * (and merge_blktrace_file, written), each clone's data files (once per file list when clones share them; a
 * job that replays touches the files its logs name instead), then each
 * clone's logs, write_iolog's among them.  A path
 * may be reported more than once.  Returns 0, or the first negative value
 * @fn returned.
 */
int rq_jobs_paths(const struct rq_engine_opts *o, const struct rq_job_list *jobs, rq_path_fn fn, void *arg);

#endif
