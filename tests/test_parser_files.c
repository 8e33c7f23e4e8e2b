/* SPDX-License-Identifier: MIT */
/*
 * test_parser_files.c - the job-file parser on files on disk: include,
 * --section, layouts of several files, errors that name file and line.
 * The in-memory cases are test_parser.c.
 *
 * Exit 0: all passed; 1: a case failed, named on stderr.
 */
#include "parser_test.h"

/* ---- job files on disk -------------------------------------------------- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* parse @nr files with @sections; the error text goes to *err (caller frees) */
static int parse_files(const char **files, int nr, const char **sections, unsigned int nr_sections,
		       struct rq_job_list *l, char **err)
{
	struct rq_parse_opts o = { .sections = sections, .nr_sections = nr_sections };
	size_t errlen = 0;
	FILE *es;
	int rc;

	*err = NULL;
	es = open_memstream(err, &errlen);
	rc = rq_jobs_parse_opts(files, nr, &o, l, es);
	fclose(es);
	return rc;
}

static void test_files(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], f1[600], f2[600], f3[600], f4[600], f5[600], f6[600], f7[600], f8[600];
	char sub[600], inc_rel[700];
	size_t dl;
	const char *files[4], *sections[2];
	struct rq_job_list l = { (struct rq_job *)&l, 9 };
	char *err = NULL;
	size_t errlen = 0;
	FILE *es;
	int rc;

	cur_case = "missing file";
	es = open_memstream(&err, &errlen);
	files[0] = "/nonexistent-rqlock-dir/x.fio";
	rc = rq_jobs_parse(files, 1, &l, es);
	fclose(es);
	CHECK(rc == -ENOENT);
	CHECK(l.jobs == NULL && l.nr == 0);
	CHECK(nlines(err) == 1);
	CHECK(strstr(err, "/nonexistent-rqlock-dir/x.fio: cannot open: ") == err);
	CHECK(strstr(err, strerror(ENOENT)) != NULL);
	free(err);

	/* mkdtemp wants the name to end in six capital X */
	snprintf(dir, sizeof(dir) - 6, "%s/rq_test_parser.", tmp && *tmp ? tmp : "/tmp");
	dl = strlen(dir);
	memset(dir + dl, 'X', 6);
	dir[dl + 6] = '\0';
	if (!mkdtemp(dir)) {
		fprintf(stderr, "FAIL files: mkdtemp\n");
		failures++;
		return;
	}
	snprintf(f1, sizeof(f1), "%s/one.fio", dir);
	snprintf(f2, sizeof(f2), "%s/two.fio", dir);
	snprintf(f3, sizeof(f3), "%s/bad.fio", dir);
	snprintf(f4, sizeof(f4), "%s/global.fio", dir);
	snprintf(f5, sizeof(f5), "%s/inc.fio", dir);
	snprintf(f6, sizeof(f6), "%s/sub", dir);
	snprintf(sub, sizeof(sub), "%s/sub/opts.fio", dir);
	snprintf(f7, sizeof(f7), "%s/badinc.fio", dir);
	snprintf(f8, sizeof(f8), "%s/loop.fio", dir);
	snprintf(inc_rel, sizeof(inc_rel), "[global]\nioengine=null\n[a]\ninclude sub/opts.fio\n"
		 "numjobs=2\n[b]\ninclude %s\n", sub);
	if (mkdir(f6, 0700) ||
	    write_file(f1, "[global]\nbs=8k\n[a]\n[b]\n") ||
	    write_file(f2, "# second\n[c]\n[d]\n") ||
	    write_file(f3, "[e]\nbogus=1\n") ||
	    write_file(f4, "[global]\nbs=8k\n") ||
	    write_file(f5, inc_rel) ||
	    write_file(sub, "; included\niodepth=8\ninclude more.fio\n") ||
	    write_file(f7, "[a]\ninclude sub/bad.fio\n") ||
	    write_file(f8, "[a]\ninclude sub/self.fio\n")) {
		fprintf(stderr, "FAIL files: cannot write test files in %s\n", dir);
		failures++;
		goto out;
	}
	{
		char more[700], bad[700], self[700];

		snprintf(more, sizeof(more), "%s/sub/more.fio", dir);
		snprintf(bad, sizeof(bad), "%s/sub/bad.fio", dir);
		snprintf(self, sizeof(self), "%s/sub/self.fio", dir);
		if (write_file(more, "bs=16k\n") || write_file(bad, "iodepth=4\n[x]\n") ||
		    write_file(self, "include self.fio\n")) {
			fprintf(stderr, "FAIL files: cannot write include files\n");
			failures++;
			goto out;
		}
	}

	cur_case = "two files are separate groups";
	files[0] = f1;
	files[1] = f2;
	rc = parse_files(files, 2, NULL, 0, &l, &err);
	CHECK(rc == 0);
	CHECK(err && !*err);
	CHECK(l.nr == 4);
	if (rc == 0 && l.nr == 4) {
		CHECK(l.jobs[0].groupid == 0 && l.jobs[1].groupid == 0);
		CHECK(l.jobs[2].groupid == 1 && l.jobs[3].groupid == 1);
		CHECK(l.jobs[2].stonewall == RQ_JOB_STONEWALL);
		CHECK(l.jobs[3].stonewall == 0);
		CHECK(l.jobs[1].bs[0] == 8192);
		CHECK(l.jobs[2].bs[0] == 4096);	/* fio starts each file from the defaults */
		CHECK(!strcmp(l.jobs[0].file, f1) && l.jobs[0].line == 3);
		CHECK(!strcmp(l.jobs[2].file, f2) && l.jobs[2].line == 2);
		CHECK(l.jobs[0].nr_global == 1 && l.jobs[2].nr_global == 0);
	}
	rq_jobs_free(&l);
	CHECK(l.jobs == NULL && l.nr == 0);
	free(err);

	cur_case = "--section picks jobs";
	sections[0] = "b";
	sections[1] = "c";
	rc = parse_files(files, 2, sections, 2, &l, &err);
	CHECK(rc == 0 && l.nr == 2);
	if (rc == 0 && l.nr == 2) {
		CHECK(!strcmp(l.jobs[0].name, "b") && l.jobs[0].bs[0] == 8192);	/* [global] applies */
		CHECK(!strcmp(l.jobs[1].name, "c") && l.jobs[1].groupid == 1);
	}
	rq_jobs_free(&l);
	free(err);

	cur_case = "--section selects nothing";
	sections[0] = "zz";
	rc = parse_files(files, 2, sections, 1, &l, &err);
	CHECK(rc == -EINVAL && nlines(err) == 1 && strstr(err, "no job section selected by --section"));
	free(err);

	cur_case = "--section skips errors of other sections, as fio";
	files[1] = f3;
	sections[0] = "a";
	rc = parse_files(files, 2, sections, 1, &l, &err);
	CHECK(rc == 0 && l.nr == 1);
	rq_jobs_free(&l);
	free(err);

	cur_case = "error in the second file";
	rc = parse_files(files, 2, NULL, 0, &l, &err);
	CHECK(rc == -EINVAL);
	CHECK(l.jobs == NULL && l.nr == 0);
	CHECK(nlines(err) == 1);
	CHECK(!strncmp(err, f3, strlen(f3)) && !strncmp(err + strlen(f3), ":2: ", 4));
	CHECK(strstr(err, "'bogus'") != NULL);
	free(err);

	cur_case = "a file without jobs";
	files[1] = f4;
	rc = parse_files(files, 2, NULL, 0, &l, &err);
	CHECK(rc == -EINVAL);
	CHECK(nlines(err) == 1);
	CHECK(!strncmp(err, f4, strlen(f4)) && !strcmp(err + strlen(f4), ": no jobs defined\n"));
	free(err);

	cur_case = "include, nested, relative to the including file";
	files[0] = f5;
	rc = parse_files(files, 1, NULL, 0, &l, &err);
	CHECK(rc == 0 && l.nr == 2);
	if (rc == 0 && l.nr == 2) {
		char buf[256];

		CHECK(l.jobs[0].iodepth == 8 && l.jobs[0].bs[0] == 16384 && l.jobs[0].numjobs == 2);
		CHECK(l.jobs[1].iodepth == 8 && l.jobs[1].bs[0] == 16384);	/* absolute path */
		opts_str(&l.jobs[0], buf, sizeof(buf));
		CHECK(!strcmp(buf, "iodepth=8 bs=16k numjobs=2"));
	}
	if (rc)
		fprintf(stderr, "  err: %s", err);
	rq_jobs_free(&l);
	free(err);

	cur_case = "a section in an included file";
	files[0] = f7;
	rc = parse_files(files, 1, NULL, 0, &l, &err);
	CHECK(rc == -EINVAL && nlines(err) == 1);
	CHECK(strstr(err, "/sub/bad.fio:2: an included file cannot hold a section") != NULL);
	free(err);

	cur_case = "an include loop";
	files[0] = f8;
	rc = parse_files(files, 1, NULL, 0, &l, &err);
	CHECK(rc == -EINVAL && nlines(err) == 1 && strstr(err, "nested more than 16 deep"));
	free(err);

	cur_case = "a directory";
	files[0] = dir;
	rc = parse_files(files, 1, NULL, 0, &l, &err);
	CHECK(rc < 0);
	CHECK(l.jobs == NULL && l.nr == 0);
	CHECK(nlines(err) == 1);
	free(err);

	cur_case = "no files";
	rc = parse_files(files, 0, NULL, 0, &l, &err);
	CHECK(rc == -EINVAL && nlines(err) == 1);
	free(err);
out:
	{
		char p[700];

		snprintf(p, sizeof(p), "%s/sub/more.fio", dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/sub/bad.fio", dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/sub/self.fio", dir);
		unlink(p);
	}
	unlink(sub);
	rmdir(f6);
	unlink(f1);
	unlink(f2);
	unlink(f3);
	unlink(f4);
	unlink(f5);
	unlink(f7);
	unlink(f8);
	rmdir(dir);
}

int main(void)
{
	test_files();
	if (failures) {
		fprintf(stderr, "test_parser_files: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_parser_files: all passed\n");
	return 0;
}
