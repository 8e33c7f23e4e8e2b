/* SPDX-License-Identifier: MIT */
/*
 * helpers.h - what the C tests share (as liburing's test/helpers.h):
 * CHECK, the job-run harness, temporary files.
 */
#ifndef RQ_TEST_HELPERS_H
#define RQ_TEST_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"

/* failed CHECKs so far; main() returns failures ? 1 : 0 */
extern int failures;

void rq_check_failed(const char *file, int line, const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* CHECK(cond) or CHECK(cond, "fmt", ...): counts and prints a failure, goes on */
#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		if (!(cond))                                                          \
			rq_check_failed(__FILE__, __LINE__, #cond, "" __VA_ARGS__);   \
	} while (0)

/* A failure found by a table-driven case: "FAIL @tcase: message", counted as a CHECK's. */
void rq_test_fail(const char *tcase, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One run of a job file text through the engine (parse, set up, run). */
struct rq_test_run {
	struct rq_job_list jobs;
	struct rq_engine *e;
	const struct rq_run_report *r;	/* after a run: the report */
	int ret;			/* rq_engine_run()'s verdict */
};

/*
 * Parse @job (named @name in messages), set up with @o and run.  Returns
 * 0 with @t filled (t->ret the run's verdict, t->r its report), or -1
 * after a failed CHECK (parse or set-up).  rq_test_run_free() after.
 */
int rq_test_run_job(struct rq_test_run *t, const char *name, const char *job,
		    const struct rq_engine_opts *o);
void rq_test_run_free(struct rq_test_run *t);

/* A new empty file under $TMPDIR (or /tmp) named after @tag; its path in @path. */
int rq_test_tmpfile(char *path, size_t len, const char *tag);

#endif /* RQ_TEST_HELPERS_H */
