// SPDX-License-Identifier: MIT
/*
 * policy.c - what a client of `rqlock server` may make this process do
 * (docs/SERVER.md): a job may open only what --allow names (built-in
 * devices by default), judged on every path the engine would open, create,
 * truncate or delete (engine/paths.c names them) before any is, and on the
 * job file's includes before it is parsed; logs at a client's path are
 * refused; clones, files, depth are capped.  Reads the configuration only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "server/server_internal.h"

/* Canonical absolute form of @path; the last component need not exist. */
static int canon(const char *path, char *out)
{
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	const char *base;
	char *slash;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (realpath(path, out))
		return 0;
	if (errno != ENOENT)
		return -errno;
	if (!lstat(path, &st))
		return -ELOOP;	/* a dangling symlink: opening it would create its target, wherever that is */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir) {
		base = path + 1;
		snprintf(dir, sizeof(dir), "/");
	} else if (slash) {
		*slash = '\0';
		base = path + (slash - dir) + 1;
	} else {
		base = path;
		snprintf(dir, sizeof(dir), ".");
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EINVAL;
	if (!realpath(dir, real))
		return -errno;
	if (snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "", base) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static bool path_allowed(const struct rq_server_config *s, const char *path)
{
	char c[PATH_MAX];

	if (canon(path, c))
		return false;
	for (unsigned int i = 0; i < s->nr_allow; i++) {
		const struct rq_server_allow *a = &s->allow[i];
		size_t l = strlen(a->path);

		if (!strcmp(c, a->path))
			return true;
		if (a->dir && !strncmp(c, a->path, l) && (c[l] == '/' || !strcmp(a->path, "/")))
			return true;
	}
	return false;
}

struct check_ctx {
	const struct rq_server_config *cfg;
	char msg[SRV_MSG_MAX];
};

/*
 * A built-in spec ("@null0,...", "@fault,...,of=INNER", "@hdd0,file=PATH"):
 * allowed by @builtin, except the files it names (file=) and what it wraps
 * (of=, the rest of the spec), which are checked on their own.
 */
static int check_name(struct check_ctx *x, const char *name);

static int check_builtin(struct check_ctx *x, const char *spec)
{
	const char *p = spec;

	if (!x->cfg->allow_builtin) {
		snprintf(x->msg, sizeof(x->msg), "'%s': built-in devices are not in the allow-list", spec);
		return -EACCES;
	}
	/* "@x/../y" (directory=@x): not a built-in's name, and a path if a directory '@x' exists */
	if (memchr(spec, '/', strcspn(spec, ","))) {
		snprintf(x->msg, sizeof(x->msg), "'%s': not a built-in device (its name has a '/')", spec);
		return -EACCES;
	}
	while ((p = strchr(p, ',')) != NULL) {
		p++;
		if (!strncmp(p, "of=", 3))
			return check_name(x, p + 3);
		if (!strncmp(p, "file=", 5)) {
			char path[PATH_MAX];
			size_t l = strcspn(p + 5, ",");

			if (l >= sizeof(path))
				return -ENAMETOOLONG;
			memcpy(path, p + 5, l);
			path[l] = '\0';
			if (!path_allowed(x->cfg, path)) {
				snprintf(x->msg, sizeof(x->msg), "'%s' (file= of %s) is not in the allow-list",
					 path, spec);
				return -EACCES;
			}
		}
	}
	return 0;
}

static int check_name(struct check_ctx *x, const char *name)
{
	if (name[0] == '@')
		return check_builtin(x, name);
	if (!path_allowed(x->cfg, name)) {
		snprintf(x->msg, sizeof(x->msg), "'%s' is not in the allow-list (rqlock server --allow PATH)",
			 name);
		return -EACCES;
	}
	return 0;
}

/*
 * One path the engine would touch (engine/paths.c names them: the engine
 * opens exactly these): data files must be in the allow-list, a built-in
 * spec is judged with its file= and of=, and logs are refused - they would
 * be written at a path the client chose.
 */
static int judge_path(const struct rq_path *p, void *arg)
{
	struct check_ctx *x = arg;
	int ret;

	switch (p->kind) {
	case RQ_PATH_NONE:		/* ioengine=null: a null device, nothing opened */
	case RQ_PATH_ALIAS:		/* the operator's own --device */
		return 0;
	case RQ_PATH_LOG:
		snprintf(x->msg, sizeof(x->msg), "job '%s': %s would write '%s': a server writes no logs at "
			 "a client's path (run the job with rqlock run, or drop %s)", p->job->name, p->option,
			 p->path, p->option);
		return -EACCES;
	case RQ_PATH_INPUT:
		snprintf(x->msg, sizeof(x->msg), "job '%s': %s would read '%s': a server reads no logs at a "
			 "client's path (run the job with rqlock run, or drop %s)", p->job->name, p->option,
			 p->path, p->option);
		return -EACCES;
	case RQ_PATH_BUILTIN:
	case RQ_PATH_FILE:
		break;
	}
	ret = check_name(x, p->path);
	if (ret) {
		char why[sizeof(x->msg)];

		snprintf(why, sizeof(why), "%s", x->msg);
		snprintf(x->msg, sizeof(x->msg), "job '%s': %s: %.4200s%s", p->job->name, p->option, why,
			 p->flags & RQ_PATH_UNLINK ? " (and unlink=1 would delete it)" : "");
	}
	return ret;
}

/* What the server caps before a run: clones, files, depth. */
struct count_ctx {
	unsigned long files;
};

static int count_file(const struct rq_path *p, void *arg)
{
	struct count_ctx *n = arg;

	n->files += p->kind != RQ_PATH_LOG && p->kind != RQ_PATH_INPUT;
	return 0;
}

int srv_check_limits(const struct rq_server_config *s, const struct rq_job_list *jobs, char *msg, size_t len)
{
	struct count_ctx n = { 0 };
	unsigned long clones = 0;

	for (unsigned int i = 0; i < jobs->nr; i++) {
		const struct rq_job *j = &jobs->jobs[i];

		clones += j->numjobs;
		if (clones > s->max_numjobs) {
			snprintf(msg, len, "job '%s': numjobs=%u takes the job file to %lu clones, over the "
				 "server's --max-numjobs=%u", j->name, j->numjobs, clones, s->max_numjobs);
			return -E2BIG;
		}
		if (j->iodepth > s->max_iodepth) {
			snprintf(msg, len, "job '%s': iodepth=%u is over the server's --max-iodepth=%u", j->name,
				 j->iodepth, s->max_iodepth);
			return -E2BIG;
		}
		/* the files before they are named: nrfiles alone may be huge */
		if ((unsigned long)rq_job_nr_files(j) * (rq_job_files_per_clone(j) ? j->numjobs : 1) >
		    s->max_files) {
			snprintf(msg, len, "job '%s': %u file(s) per clone, %u clone(s): over the server's "
				 "--max-files=%u", j->name, rq_job_nr_files(j), j->numjobs, s->max_files);
			return -E2BIG;
		}
	}
	rq_jobs_paths(&s->eo, jobs, count_file, &n);
	if (n.files > s->max_files) {
		snprintf(msg, len, "the job file names %lu data files, over the server's --max-files=%u", n.files,
			 s->max_files);
		return -E2BIG;
	}
	return 0;
}

#define INCLUDE_DEPTH 16			/* the parser's own limit is lower */
#define INCLUDE_MAX (1 << 20)			/* an allowed included file read for its own includes */

/*
 * 'include FILE' lines make the parser open FILE: they need the allow-list
 * too, and so do the includes inside an included file (read here, so a file
 * a job laid out in an allowed directory cannot include one outside it).
 * FILE is taken as the parser takes it: as given if it exists, else next
 * to the file holding the include (@outer, NULL for the sent job file).
 */
static int check_includes(struct check_ctx *x, const char *text, size_t len, const char *outer, int depth)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		size_t l;

		if (!eol)
			eol = end;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(eol - q) > 8 && !strncmp(q, "include", 7) && (q[7] == ' ' || q[7] == '\t')) {
			char path[PATH_MAX], arg[PATH_MAX];
			const char *slash = outer ? strrchr(outer, '/') : NULL;
			char *buf;
			FILE *f;
			size_t n;
			int ret;

			q += 8;
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			l = (size_t)(eol - q);
			while (l && (q[l - 1] == ' ' || q[l - 1] == '\t' || q[l - 1] == '\r'))
				l--;
			if (l >= sizeof(arg))
				l = sizeof(arg) - 1;
			memcpy(arg, q, l);
			arg[l] = '\0';
			if (access(arg, F_OK) && slash && arg[0] != '/')
				n = (size_t)snprintf(path, sizeof(path), "%.*s%s", (int)(slash - outer + 1), outer, arg);
			else
				n = (size_t)snprintf(path, sizeof(path), "%s", arg);
			if (n >= sizeof(path) || !path_allowed(x->cfg, path)) {
				snprintf(x->msg, sizeof(x->msg), "include '%s' is not in the allow-list", path);
				return -EACCES;
			}
			if (depth >= INCLUDE_DEPTH) {
				snprintf(x->msg, sizeof(x->msg), "include '%s': nested more than %d deep", path,
					 INCLUDE_DEPTH);
				return -ELOOP;
			}
			f = fopen(path, "re");
			if (!f) {
				p = eol + 1;
				continue;	/* the parser says it cannot open it */
			}
			buf = malloc(INCLUDE_MAX);
			n = buf ? fread(buf, 1, INCLUDE_MAX, f) : 0;
			fclose(f);
			ret = buf ? check_includes(x, buf, n, path, depth + 1) : -ENOMEM;
			free(buf);
			if (ret == -ENOMEM)
				snprintf(x->msg, sizeof(x->msg), "out of memory");
			if (ret)
				return ret;
		}
		p = eol + 1;
	}
	return 0;
}

int rq_server_allow_path(struct rq_server_allow *a, const char *path)
{
	struct stat st;
	size_t l = strlen(path);
	int ret = canon(path, a->path);

	if (ret)
		return ret;
	a->dir = (l > 1 && path[l - 1] == '/') || (!stat(a->path, &st) && S_ISDIR(st.st_mode));
	return 0;
}

int srv_check_includes(const struct rq_server_config *cfg, const char *text, size_t len, char *msg,
		       size_t msg_len)
{
	struct check_ctx x = { .cfg = cfg };
	int ret = check_includes(&x, text, len, NULL, 0);

	if (ret)
		snprintf(msg, msg_len, "%s", x.msg);
	return ret;
}

/* Every path the engine would open, create, truncate or delete, before any is. */
int srv_check_paths(const struct rq_server_config *cfg, const struct rq_job_list *jobs, char *msg,
		    size_t len)
{
	struct check_ctx x = { .cfg = cfg };
	int ret = rq_jobs_paths(&cfg->eo, jobs, judge_path, &x);

	if (ret >= 0)
		return 0;
	if (!x.msg[0])
		snprintf(x.msg, sizeof(x.msg), "the jobs' file names: %s", strerror(-ret));
	snprintf(msg, len, "%s", x.msg);
	return ret;
}
