/* SPDX-License-Identifier: MIT */
/*
 * parser_test.h - what the job-file parser's tests share: the parser's
 * sources (included, to reach their statics), CHECK and a parse helper.
 * Included by test_parser.c and test_parser_files.c, once each.
 */
#ifndef RQ_PARSER_TEST_H
#define RQ_PARSER_TEST_H

#include "../jobfile/options.c"
#include "../jobfile/opt_log.c"
#include "../jobfile/opt_verify.c"
#include "../jobfile/opt_file.c"
#include "../jobfile/opt_pace.c"
#include "../jobfile/opt_random.c"
#include "../jobfile/opt_io.c"
#include "../jobfile/opt_prio.c"
#include "../jobfile/opt_job.c"
#include "../jobfile/opt_steady.c"
#include "../jobfile/parse.c"
#include "../jobfile/section.c"
#include "../jobfile/expand.c"
#include "../jobfile/perr.c"
#include "../jobfile/showcmd.c"
#include "../jobfile/value.c"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
static const char *cur_case;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "FAIL %s: %s (%s:%d)\n",	\
				cur_case, #cond, __FILE__, __LINE__);	\
			failures++;					\
		}							\
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KiB 1024ull
#define MiB (1024ull * 1024)
#define GiB (1024ull * 1024 * 1024)
#define SEC 1000000000ull

struct res {
	int rc;
	struct rq_job_list l;
	char *err;
	size_t errlen;
};

__attribute__((unused)) static void run(struct res *r, const char *text)
{
	FILE *f = open_memstream(&r->err, &r->errlen);

	if (!f) {
		fprintf(stderr, "FAIL %s: open_memstream\n", cur_case);
		exit(1);
	}
	r->l.jobs = (struct rq_job *)&r->l;	/* the parser must reset it */
	r->l.nr = 77;
	r->rc = rq_jobs_parse_buf("t.fio", text, &r->l, f);
	fclose(f);
}

__attribute__((unused)) static void done(struct res *r)
{
	rq_jobs_free(&r->l);
	free(r->err);
	r->err = NULL;
}

__attribute__((unused)) static unsigned int nlines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* the options a job wrote, as fio's "job options": "k=v k=v" */
__attribute__((unused)) static void opts_str(const struct rq_job *j, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < j->nr_opts && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s=%s", i ? " " : "", j->opt_keys[i], j->opt_vals[i]);
}

#endif
