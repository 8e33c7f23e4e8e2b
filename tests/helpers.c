// SPDX-License-Identifier: MIT
/*
 * helpers.c - what the C tests share; see helpers.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/helpers.h"

int failures;

void rq_check_failed(const char *file, int line, const char *expr, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s:%d %s", file, line, expr);
	if (fmt[0]) {
		fputs(": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	failures++;
}

void rq_test_fail(const char *tcase, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: ", tcase);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

int rq_test_run_job(struct rq_test_run *t, const char *name, const char *job,
		    const struct rq_engine_opts *o)
{
	int ret;

	memset(t, 0, sizeof(*t));
	ret = rq_jobs_parse_buf(name, job, &t->jobs, stderr);
	CHECK(ret == 0, "%s: parse: %d", name, ret);
	if (ret)
		return -1;
	ret = rq_engine_setup(&t->e, o, &t->jobs, stderr);
	CHECK(ret == 0, "%s: setup: %d", name, ret);
	if (ret) {
		rq_jobs_free(&t->jobs);
		t->e = NULL;
		return -1;
	}
	t->ret = rq_engine_run(t->e, stderr);
	t->r = rq_engine_report(t->e);
	return 0;
}

void rq_test_run_free(struct rq_test_run *t)
{
	if (t->e)
		rq_engine_free(t->e);
	t->e = NULL;
	t->r = NULL;
	rq_jobs_free(&t->jobs);
}

int rq_test_tmpfile(char *path, size_t len, const char *tag)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/rqlock-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}
