/* SPDX-License-Identifier: MIT */
/*
 * test_parser.c - table-driven tests of the fio job-file parser.
 *
 * Includes the parser's source to reach its statics (parse_size,
 * parse_time, the options table).  Values marked "fio" below were checked
 * against fio 3.33 with `fio --debug=parse --parse-only`.
 *
 * Exit 0: all passed; 1: a case failed, named on stderr.
 */
#include "../engine/jobfile.c"

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

static void run(struct res *r, const char *text)
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

static void done(struct res *r)
{
	rq_jobs_free(&r->l);
	free(r->err);
	r->err = NULL;
}

static unsigned int nlines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- numbers ---------------------------------------------------------- */

static const struct {
	const char *v;
	unsigned int kb_base;
	bool ok;
	uint64_t want;
} size_cases[] = {
	{ "0", 1024, true, 0 },
	{ "512", 1024, true, 512 },
	{ "4k", 1024, true, 4 * KiB },
	{ "4K", 1024, true, 4 * KiB },
	{ "4kb", 1024, true, 4 * KiB },
	{ "4kB", 1024, true, 4 * KiB },		/* fio: 4096 */
	{ "4KB", 1024, true, 4 * KiB },		/* fio: 4096 */
	{ "4KiB", 1024, true, 4000 },		/* fio: IEC inverted when kb_base=1024 */
	{ "1MiB", 1024, true, 1000000 },	/* fio */
	{ "1m", 1024, true, MiB },
	{ "1M", 1024, true, MiB },
	{ "1g", 1024, true, GiB },
	{ "1G", 1024, true, GiB },
	{ "1t", 1024, true, 1024 * GiB },
	{ "1p", 1024, true, 1024 * 1024 * GiB },
	{ "4b", 1024, true, 4 },
	{ "0x1000", 1024, true, 4096 },		/* fio */
	{ "0X10", 1024, true, 16 },
	{ "4k", 1000, true, 4000 },		/* fio */
	{ "4kB", 1000, true, 4000 },		/* fio */
	{ "4KiB", 1000, true, 4096 },		/* fio */
	{ "1MiB", 1000, true, MiB },
	{ "1m", 1000, true, 1000000 },
	{ "18446744073709551615", 1024, true, UINT64_MAX },
	{ "", 1024, false, 0 },
	{ "k", 1024, false, 0 },
	{ "-1", 1024, false, 0 },
	{ "4x", 1024, false, 0 },		/* fio reads 4 */
	{ "4k4", 1024, false, 0 },		/* fio reads 4096 */
	{ "1.5k", 1024, false, 0 },		/* fio reads 1 */
	{ "10%", 1024, false, 0 },
	{ "0x", 1024, false, 0 },
	{ "0x10k", 1024, false, 0 },
	{ " 4k", 1024, false, 0 },
	{ "(1+1)", 1024, false, 0 },
	{ "18446744073709551616", 1024, false, 0 },
	{ "16777216p", 1024, false, 0 },
};

static const struct {
	const char *v;
	bool ok;
	uint64_t want_ns;
} time_cases[] = {
	{ "0", true, 0 },
	{ "10", true, 10 * SEC },		/* fio: bare runtime is seconds */
	{ "10s", true, 10 * SEC },
	{ "10S", true, 10 * SEC },
	{ "500ms", true, 500000000ull },
	{ "2msec", true, 2000000ull },
	{ "250us", true, 250000ull },
	{ "3usec", true, 3000ull },
	{ "2m", true, 120 * SEC },
	{ "1h", true, 3600 * SEC },
	{ "1d", true, 86400 * SEC },
	{ "10sec", false, 0 },			/* fio reads 10us */
	{ "10x", false, 0 },
	{ "10ns", false, 0 },
	{ "-1", false, 0 },
	{ "1.5", false, 0 },
	{ "", false, 0 },
	{ "999999999999999d", false, 0 },
};

static void test_numbers(void)
{
	char name[96];
	uint64_t v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(size_cases); i++) {
		const char *why;

		snprintf(name, sizeof(name), "size '%s' kb_base=%u",
			 size_cases[i].v, size_cases[i].kb_base);
		cur_case = name;
		v = 12345;
		why = parse_size(size_cases[i].v, size_cases[i].kb_base, &v);
		CHECK(!why == size_cases[i].ok);
		if (size_cases[i].ok)
			CHECK(v == size_cases[i].want);
	}
	for (i = 0; i < ARRAY_SIZE(time_cases); i++) {
		const char *why;

		snprintf(name, sizeof(name), "time '%s'", time_cases[i].v);
		cur_case = name;
		v = 12345;
		why = parse_time(time_cases[i].v, &v);
		CHECK(!why == time_cases[i].ok);
		if (time_cases[i].ok)
			CHECK(v == time_cases[i].want_ns);
	}
}

/* ---- job files that parse ---------------------------------------------- */

#define J(i) (&l->jobs[i])

static void ck_defaults(const struct rq_job_list *l)
{
	const struct rq_job *j = J(0);

	CHECK(!strcmp(j->name, "j"));
	CHECK(!strcmp(j->file, "t.fio"));
	CHECK(j->line == 1);
	CHECK(j->rw == RQ_RW_READ);
	CHECK(j->rwmixread == 50);
	CHECK(j->bs[0] == 4096 && j->bs[1] == 4096);
	CHECK(j->iodepth == 1 && j->numjobs == 1);
	CHECK(j->size == 0 && j->offset == 0);
	CHECK(j->runtime_ns == 0 && j->ramp_ns == 0);
	CHECK(!j->time_based && !j->direct && !j->group_reporting);
	CHECK(j->stonewall == 0 && j->groupid == 0);
	CHECK(j->ioengine == RQ_IOENGINE_IO_URING);
	CHECK(j->filename[0] == '\0');
}

static void ck_sizes(const struct rq_job_list *l)
{
	CHECK(J(0)->size == 4 * KiB);
	CHECK(J(0)->offset == MiB);
	CHECK(J(1)->size == 0x1000);
	CHECK(J(1)->offset == 4000);		/* KiB with kb_base=1024, fio */
}

/* kb_base is applied before the rest of its section, as fio's .prio */
static void ck_kb_base(const struct rq_job_list *l)
{
	CHECK(J(0)->size == 4000);
	CHECK(J(0)->offset == 4096);
	CHECK(J(1)->size == 4096);		/* kb_base does not leak to the next job */
	CHECK(J(2)->size == 1000000);		/* inherited from [global] */
	CHECK(J(2)->bs[0] == 8000 && J(2)->bs[1] == 8000);
}

static void ck_times(const struct rq_job_list *l)
{
	CHECK(J(0)->runtime_ns == 120 * SEC);
	CHECK(J(0)->ramp_ns == 500000000ull);
	CHECK(J(0)->time_based);
	CHECK(J(1)->runtime_ns == 5 * SEC);	/* timeout alias, bare = seconds */
	CHECK(J(1)->ramp_ns == 250000ull);
}

static void ck_inherit(const struct rq_job_list *l)
{
	CHECK(!strcmp(J(0)->name, "a") && !strcmp(J(1)->name, "b") && !strcmp(J(2)->name, "c"));
	CHECK(J(0)->bs[0] == 8192 && J(0)->iodepth == 4 && J(0)->rw == RQ_RW_READ);
	CHECK(J(0)->numjobs == 4);
	CHECK(J(1)->bs[0] == 8192 && J(1)->iodepth == 16 && J(1)->rw == RQ_RW_RANDREAD);
	CHECK(J(1)->numjobs == 1);		/* a job's options stay in the job */
	CHECK(J(2)->bs[0] == 8192 && J(2)->iodepth == 8 && J(2)->rw == RQ_RW_RANDREAD);
}

static void ck_flags(const struct rq_job_list *l)
{
	const struct rq_job *j = J(0);

	CHECK(j->time_based && j->group_reporting && j->direct);
	CHECK(j->stonewall == (RQ_JOB_STONEWALL | RQ_JOB_NEW_GROUP));
	CHECK(!J(1)->time_based && !J(1)->group_reporting);	/* =0 clears the global */
	CHECK(J(1)->stonewall == 0);
}

static void ck_comments(const struct rq_job_list *l)
{
	CHECK(J(0)->bs[0] == 8192);
	CHECK(J(0)->iodepth == 4);
	CHECK(J(0)->rw == RQ_RW_RANDWRITE);
	CHECK(!strcmp(J(0)->filename, "/tmp/a"));	/* fio ends the line at '#' */
	CHECK(J(0)->line == 4);
}

static void ck_spaces(const struct rq_job_list *l)
{
	CHECK(J(0)->bs[0] == 8192 && J(0)->bs[1] == 8192);
	CHECK(J(0)->iodepth == 4);
	CHECK(!strcmp(J(0)->filename, "/dev/null"));
	CHECK(J(0)->rw == RQ_RW_RANDRW);
}

static void ck_randread(const struct rq_job_list *l)
{
	CHECK(J(0)->rw == RQ_RW_RANDREAD);
}

static void ck_crlf(const struct rq_job_list *l)
{
	CHECK(!strcmp(J(0)->name, "j"));
	CHECK(J(0)->bs[0] == 8192);
}

static void ck_env(const struct rq_job_list *l)
{
	CHECK(J(0)->bs[0] == 16 * KiB && J(0)->bs[1] == 16 * KiB);
	CHECK(!strcmp(J(0)->filename, "/tmp/ab"));
	CHECK(!strcmp(J(0)->name, "x${RQ_T_NOCLOSE"));
	CHECK(J(0)->iodepth == 1);		/* "iodepth=${RQ_T_UNSET}1" */
}

static void ck_bs(const struct rq_job_list *l)
{
	CHECK(J(0)->bs[0] == 4096 && J(0)->bs[1] == 8192);
	CHECK(J(1)->bs[0] == 4096 && J(1)->bs[1] == 8192);
	CHECK(J(2)->bs[0] == 16384 && J(2)->bs[1] == 16384);
	CHECK(J(3)->bs[0] == 8192 && J(3)->bs[1] == 4096);	/* fio: "8k," is reads only */
	CHECK(J(4)->bs[0] == 2048 && J(4)->bs[1] == 4096);	/* trim part dropped */
	CHECK(J(5)->bs[0] == 8192 && J(5)->bs[1] == 16384);	/* R from [global] */
	CHECK(J(6)->bs[0] == 16 * MiB);
}

static void ck_rwmix(const struct rq_job_list *l)
{
	CHECK(J(0)->rwmixread == 70);
	CHECK(J(1)->rwmixread == 80);
	CHECK(J(2)->rwmixread == 10);
	CHECK(J(3)->rw == RQ_RW_RANDRW);
	CHECK(J(4)->rw == RQ_RW_RW);
	CHECK(J(5)->rw == RQ_RW_RW);
	CHECK(J(6)->rw == RQ_RW_WRITE && J(7)->rw == RQ_RW_RANDWRITE);
}

static void ck_misc(const struct rq_job_list *l)
{
	CHECK(J(0)->direct);			/* buffered=0 */
	CHECK(!J(1)->direct);			/* direct=1 then buffered=1 */
	CHECK(J(2)->ioengine == RQ_IOENGINE_NULL);
	CHECK(J(3)->ioengine == RQ_IOENGINE_IO_URING);
	CHECK(!strcmp(J(2)->name, "c"));		/* name= in [global] loses to the section */
	CHECK(!strcmp(J(3)->name, "renamed"));	/* name= in a job section wins, as fio */
	CHECK(J(3)->iodepth == 65536 && J(3)->numjobs == 4096);
	CHECK(J(4)->iodepth == 1024);		/* fio reads counts like sizes */
}

static void ck_global_prefix(const struct rq_job_list *l)
{
	CHECK(!strcmp(J(0)->name, "j"));
	CHECK(J(0)->bs[0] == 8192);
}

static void ck_groups(const struct rq_job_list *l)
{
	static const int want[] = { 0, 0, 1, 1, 2, 2, 3 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		CHECK(J(i)->groupid == want[i]);
	CHECK(J(0)->stonewall == RQ_JOB_STONEWALL);	/* first job: no new group */
	CHECK(J(2)->stonewall == RQ_JOB_STONEWALL);
	CHECK(J(4)->stonewall == RQ_JOB_NEW_GROUP);
	CHECK(J(6)->stonewall == RQ_JOB_STONEWALL);	/* wait_for_previous */
}

static void ck_global_wall(const struct rq_job_list *l)
{
	CHECK(J(0)->groupid == 0 && J(1)->groupid == 1 && J(2)->groupid == 2);
}

static void ck_lines(const struct rq_job_list *l)
{
	CHECK(J(0)->line == 3 && J(1)->line == 6);
}

static void ck_empty_ok(const struct rq_job_list *l)
{
	CHECK(!strcmp(J(0)->filename, ""));
	CHECK(!strcmp(J(0)->name, "j"));
}

static const struct okcase {
	const char *name;
	const char *text;
	unsigned int nr;
	const char *warn;	/* expected in err; NULL: err must stay empty */
	void (*check)(const struct rq_job_list *l);
} ok_cases[] = {
	{ "defaults", "[j]\n", 1, NULL, ck_defaults },
	{ "size suffixes in a job",
	  "[a]\nsize=4k\noffset=1m\n[b]\nsize=0x1000\noffset=4KiB\n", 2, NULL, ck_sizes },
	{ "kb_base=1000",
	  "[a]\nsize=4k\nkb_base=1000\noffset=4KiB\n[b]\nsize=4k\n"
	  "[global]\nkb_base=1000\n[c]\nsize=1m\nbs=8k\n", 3, NULL, ck_kb_base },
	{ "time suffixes",
	  "[a]\nruntime=2m\nramp_time=500ms\ntime_based\n[b]\ntimeout=5\nramp_time=250us\n",
	  2, NULL, ck_times },
	{ "inheritance and two globals",
	  "[global]\nbs=8k\niodepth=4\n[a]\nnumjobs=4\n[global]\niodepth=8\nrw=randread\n"
	  "[b]\niodepth=16\n[c]\n", 3, NULL, ck_inherit },
	{ "bare flags",
	  "[j]\ntime_based\ngroup_reporting\ndirect\nstonewall\nnew_group\n"
	  "[global]\ntime_based\ngroup_reporting\n[k]\ntime_based=0\ngroup_reporting=0\n",
	  2, "t.fio:4: warning: fio 3.33 rejects a bare 'direct'", ck_flags },
	{ "comments",
	  "# whole line\n; whole line\n   # indented\n[j] # after the header\n"
	  "bs=8k # trailing\niodepth=4;trailing\nrw=randwrite\t; after a tab\n"
	  "filename=/tmp/a#b\n\n", 1, NULL, ck_comments },
	{ "key = value",
	  "[j]\nbs = 8k\niodepth\t=\t4\nfilename = /dev/null\nrw =randrw\n", 1,
	  "t.fio:2: warning: fio 3.33 keeps the blank after '=' and misreads 'bs = 8k'; write 'bs=8k'",
	  ck_spaces },
	{ "CRLF", "[j]\r\nbs=8k\r\n", 1, NULL, ck_crlf },
	{ "rw= randread warns", "[j]\nrw= randread\n", 1,
	  "t.fio:2: warning: fio 3.33 keeps the blank after '=' and misreads 'rw = randread'",
	  ck_randread },
	{ "${VAR}",
	  "[j]\nbs=${RQ_T_BS}\nfilename=${RQ_T_DIR}/a${RQ_T_UNSET}b\n"
	  "name=x${RQ_T_NOCLOSE\niodepth=${RQ_T_UNSET}1\n", 1, NULL, ck_env },
	{ "bs=R,W",
	  "[a]\nbs=4k,8k\n[b]\nbs=,8k\n[c]\nbs=16k\n[d]\nbs=8k,\n[e]\nblocksize=2k,4k,512\n"
	  "[global]\nbs=8k\n[f]\nbs=,16k\n[g]\nbs=16m\n", 7, NULL, ck_bs },
	{ "rwmixwrite and rw",
	  "[a]\nrwmixwrite=30\n[b]\nrwmixread=10\nrwmixwrite=20\n[c]\nrwmixwrite=20\nrwmixread=10\n"
	  "[d]\nrw=randrw\n[e]\nreadwrite=rw\n[f]\nrw=readwrite\n[g]\nrw=write\n[h]\nrw=randwrite\n",
	  8, NULL, ck_rwmix },
	{ "buffered, ioengine, name, limits",
	  "[a]\nbuffered=0\n[b]\ndirect=1\nbuffered=1\n[global]\nname=g\n"
	  "[c]\nioengine=null\ndescription=any text = even this\n"
	  "[d]\nname=renamed\nioengine=io_uring\niodepth=65536\nnumjobs=4096\n[e]\niodepth=1k\n",
	  5, NULL, ck_misc },
	{ "thread warns", "[j]\nthread\n", 1,
	  "t.fio:2: warning: option 'thread' has no effect in rqlock (workers are always threads)",
	  ck_empty_ok },
	{ "global prefix (fio)", "[global-x]\nbs=8k\n[j]\n", 1, NULL, ck_global_prefix },
	{ "groupid",
	  "[a]\nstonewall\n[b]\n[c]\nstonewall\n[d]\n[e]\nnew_group\n[f]\n[g]\nwait_for_previous\n",
	  7, NULL, ck_groups },
	{ "stonewall in global", "[global]\nstonewall\n[a]\n[b]\n[c]\n", 3, NULL, ck_global_wall },
	{ "section lines", "# c\n\n[a]\nbs=8k\n\n[b]\n", 2, NULL, ck_lines },
	{ "empty filename", "[j]\nfilename=\n", 1, NULL, ck_empty_ok },
};

static void test_ok(void)
{
	size_t i;

	setenv("RQ_T_BS", "16k", 1);
	setenv("RQ_T_DIR", "/tmp", 1);
	unsetenv("RQ_T_UNSET");
	for (i = 0; i < ARRAY_SIZE(ok_cases); i++) {
		const struct okcase *c = &ok_cases[i];
		struct res r = { 0 };

		cur_case = c->name;
		run(&r, c->text);
		CHECK(r.rc == 0);
		CHECK(r.l.nr == c->nr);
		if (c->warn) {
			CHECK(strstr(r.err, c->warn) != NULL);
			CHECK(nlines(r.err) == 1);
		}
		else
			CHECK(r.errlen == 0);
		if (r.rc)
			fprintf(stderr, "  err: %s", r.err);
		if (!r.rc && r.l.nr == c->nr)
			c->check(&r.l);
		done(&r);
	}
}

/* ---- job files that must fail ------------------------------------------ */

static const struct ecase {
	const char *name;
	const char *text;
	const char *prefix;	/* the line starts with this */
	const char *has;	/* and contains this */
} err_cases[] = {
	{ "unknown option", "[j]\nbs=4k\niodepht=4\n", "t.fio:3: ",
	  "unknown option 'iodepht' (did you mean 'iodepth'?)" },
	{ "unknown option, no hint", "[j]\nzzzzzzzz=1\n", "t.fio:2: ", "'zzzzzzzz'" },
	{ "bs=0", "[j]\nbs=0\n", "t.fio:2: ", "'bs'" },
	{ "bs over 16m", "[j]\nbs=16m\nbs=17m\n", "t.fio:3: ", "'bs'" },
	{ "bs write part 0", "[j]\nbs=4k,0\n", "t.fio:2: ", "bad value '0' for option 'bs'" },
	{ "bs only commas", "[j]\nbs=,\n", "t.fio:2: ", "'bs' needs a value" },
	{ "bs four parts", "[j]\nbs=1k,2k,3k,4k\n", "t.fio:2: ", "'bs'" },
	{ "blocksize alias named", "[j]\nblocksize=0\n", "t.fio:2: ", "'blocksize'" },
	{ "bs dash", "[j]\nbs=4k-8k\n", "t.fio:2: ", "'bs'" },
	{ "iodepth=0", "[j]\niodepth=0\n", "t.fio:2: ", "'iodepth'" },
	{ "iodepth too big", "[j]\niodepth=65537\n", "t.fio:2: ", "'iodepth'" },
	{ "numjobs=0", "[j]\nnumjobs=0\n", "t.fio:2: ", "'numjobs'" },
	{ "numjobs too big", "[j]\nnumjobs=4097\n", "t.fio:2: ", "'numjobs'" },
	{ "negative iodepth", "[j]\niodepth=-1\n", "t.fio:2: ", "'iodepth'" },
	{ "rwmixread=101", "[j]\nrwmixread=101\n", "t.fio:2: ", "'rwmixread'" },
	{ "rwmixwrite=101", "[j]\nrwmixwrite=101\n", "t.fio:2: ", "'rwmixwrite'" },
	{ "size=-1", "[j]\nsize=-1\n", "t.fio:2: ", "'size'" },
	{ "size=4x", "[j]\nsize=4x\n", "t.fio:2: ", "'size'" },
	{ "size percent", "[j]\nsize=10%\n", "t.fio:2: ", "percentages" },
	{ "offset garbage", "[j]\noffset=abc\n", "t.fio:2: ", "'offset'" },
	{ "runtime=10sec", "[j]\nruntime=10sec\n", "t.fio:2: ", "'runtime'" },
	{ "ramp_time fraction", "[j]\nramp_time=1.5\n", "t.fio:2: ", "'ramp_time'" },
	{ "rw=foo", "[j]\nrw=foo\n", "t.fio:2: ", "bad value 'foo' for option 'rw' (valid: read," },
	{ "rw=trim", "[j]\nrw=trim\n", "t.fio:2: ", "rw=trim is not supported" },
	{ "readwrite=randtrim", "[j]\nreadwrite=randtrim\n", "t.fio:2: ",
	  "readwrite=randtrim is not supported" },
	{ "ioengine=libaio", "[j]\nioengine=libaio\n", "t.fio:2: ",
	  "ioengine=libaio is not available in rqlock yet" },
	{ "ioengine=io_uring_cmd", "[j]\nioengine=io_uring_cmd\n", "t.fio:2: ",
	  "ioengine=io_uring_cmd is not available in rqlock yet" },
	{ "ioengine=psync", "[j]\nioengine=psync\n", "t.fio:2: ", "ioengine=psync is not supported" },
	{ "ioengine=sync", "[j]\nioengine=sync\n", "t.fio:2: ", "ioengine=sync is not supported" },
	{ "ioengine=foo", "[j]\nioengine=foo\n", "t.fio:2: ", "'ioengine' (valid: io_uring, null)" },
	{ "direct=2", "[j]\ndirect=2\n", "t.fio:2: ", "'direct'" },
	{ "time_based=yes", "[j]\ntime_based=yes\n", "t.fio:2: ", "'time_based'" },
	{ "kb_base=512", "[j]\nkb_base=512\n", "t.fio:2: ", "'kb_base'" },
	{ "needs a value", "[j]\nbs\n", "t.fio:2: ", "option 'bs' needs a value" },
	{ "empty value", "[j]\niodepth=\n", "t.fio:2: ", "'iodepth'" },
	{ "outside a section", "bs=4k\n[j]\n", "t.fio:1: ", "option 'bs' outside of any [section]" },
	{ "outside, after comments", "# c\n\n; c\nbs=4k\n[j]\n", "t.fio:4: ", "'bs'" },
	{ "unterminated [", "[j]\n[k\n", "t.fio:2: ", "unterminated section header '[k'" },
	{ "empty section name", "[]\n", "t.fio:1: ", "empty section name" },
	{ "not an option line", "[j]\nfoo bar\n", "t.fio:2: ", "expected [section], option or option=value" },
	{ "no key", "[j]\n=4k\n", "t.fio:2: ", "expected [section]" },
	{ "include", "[j]\ninclude other.fio\n", "t.fio:2: ", "'include' is not supported" },
	{ "error in [global]", "[global]\nbs=0\n[j]\n", "t.fio:2: ", "'bs'" },
	{ "error after ${VAR}", "[j]\nbs=${RQ_T_ZERO}\n", "t.fio:2: ", "bad value '0' for option 'bs'" },
	{ "no jobs", "[global]\nbs=4k\n", "t.fio: ", "no jobs defined" },
	{ "empty text", "", "t.fio: ", "no jobs defined" },
	{ "comments only", "# nothing\n", "t.fio: ", "no jobs defined" },
};

static void check_err(const struct res *r, const char *prefix, const char *has)
{
	CHECK(r->rc == -EINVAL);
	CHECK(r->l.jobs == NULL && r->l.nr == 0);
	CHECK(nlines(r->err) == 1);
	CHECK(!strncmp(r->err, prefix, strlen(prefix)));
	CHECK(strstr(r->err, has) != NULL);
	if (r->rc != -EINVAL || nlines(r->err) != 1 ||
	    strncmp(r->err, prefix, strlen(prefix)) || !strstr(r->err, has))
		fprintf(stderr, "  rc %d, err: %s\n", r->rc, r->err);
}

static void test_errors(void)
{
	size_t i;

	setenv("RQ_T_ZERO", "0", 1);
	for (i = 0; i < ARRAY_SIZE(err_cases); i++) {
		struct res r = { 0 };

		cur_case = err_cases[i].name;
		run(&r, err_cases[i].text);
		check_err(&r, err_cases[i].prefix, err_cases[i].has);
		done(&r);
	}
}

/* Cases built at run time: long lines are read whole, or refused whole. */
static void test_long(void)
{
	size_t big = 200000, huge = LINE_MAX_LEN + 10;
	char *text = malloc(huge + 64);
	struct res r = { 0 };
	char *p;

	if (!text) {
		fprintf(stderr, "FAIL long lines: malloc\n");
		failures++;
		return;
	}

	cur_case = "long description line";
	p = text + sprintf(text, "[j]\ndescription=");
	memset(p, 'x', big);
	strcpy(p + big, "\nbs=8k\n");
	run(&r, text);
	CHECK(r.rc == 0 && r.l.nr == 1);
	if (r.rc == 0 && r.l.nr == 1)
		CHECK(r.l.jobs[0].bs[0] == 8192);
	done(&r);

	cur_case = "line over the limit";
	p = text + sprintf(text, "[j]\ndescription=");
	memset(p, 'x', huge);
	strcpy(p + huge, "\n");
	run(&r, text);
	check_err(&r, "t.fio:2: ", "line is longer than");
	done(&r);

	cur_case = "filename too long";
	p = text + sprintf(text, "[j]\nfilename=");
	memset(p, 'f', RQ_JOB_PATH_MAX);
	strcpy(p + RQ_JOB_PATH_MAX, "\n");
	run(&r, text);
	check_err(&r, "t.fio:2: ", "value of option 'filename' is longer than 4095 bytes");
	done(&r);

	cur_case = "filename at the limit";
	p = text + sprintf(text, "[j]\nfilename=");
	memset(p, 'f', RQ_JOB_PATH_MAX - 1);
	strcpy(p + RQ_JOB_PATH_MAX - 1, "\n");
	run(&r, text);
	CHECK(r.rc == 0 && r.l.nr == 1);
	if (r.rc == 0 && r.l.nr == 1)
		CHECK(strlen(r.l.jobs[0].filename) == RQ_JOB_PATH_MAX - 1);
	done(&r);

	cur_case = "section name too long";
	text[0] = '[';
	memset(text + 1, 'n', RQ_JOB_NAME_MAX);
	strcpy(text + 1 + RQ_JOB_NAME_MAX, "]\n");
	run(&r, text);
	check_err(&r, "t.fio:1: ", "section name longer than 127 bytes");
	done(&r);

	free(text);
}

/* ---- job files on disk -------------------------------------------------- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_files(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], f1[600], f2[600], f3[600], f4[600];
	size_t dl;
	const char *files[4];
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
	if (write_file(f1, "[global]\nbs=8k\n[a]\n[b]\n") ||
	    write_file(f2, "# second\n[c]\n[d]\n") ||
	    write_file(f3, "[e]\nbogus=1\n") ||
	    write_file(f4, "[global]\nbs=8k\n")) {
		fprintf(stderr, "FAIL files: cannot write test files in %s\n", dir);
		failures++;
		goto out;
	}

	cur_case = "two files are separate groups";
	err = NULL;
	es = open_memstream(&err, &errlen);
	files[0] = f1;
	files[1] = f2;
	rc = rq_jobs_parse(files, 2, &l, es);
	fclose(es);
	CHECK(rc == 0);
	CHECK(errlen == 0);
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
	}
	rq_jobs_free(&l);
	CHECK(l.jobs == NULL && l.nr == 0);
	free(err);

	cur_case = "error in the second file";
	err = NULL;
	es = open_memstream(&err, &errlen);
	files[1] = f3;
	rc = rq_jobs_parse(files, 2, &l, es);
	fclose(es);
	CHECK(rc == -EINVAL);
	CHECK(l.jobs == NULL && l.nr == 0);
	CHECK(nlines(err) == 1);
	CHECK(!strncmp(err, f3, strlen(f3)) && !strncmp(err + strlen(f3), ":2: ", 4));
	CHECK(strstr(err, "'bogus'") != NULL);
	free(err);

	cur_case = "a file without jobs";
	err = NULL;
	es = open_memstream(&err, &errlen);
	files[1] = f4;
	rc = rq_jobs_parse(files, 2, &l, es);
	fclose(es);
	CHECK(rc == -EINVAL);
	CHECK(nlines(err) == 1);
	CHECK(!strncmp(err, f4, strlen(f4)) && !strcmp(err + strlen(f4), ": no jobs defined\n"));
	free(err);

	cur_case = "a directory";
	err = NULL;
	es = open_memstream(&err, &errlen);
	files[0] = dir;
	rc = rq_jobs_parse(files, 1, &l, es);
	fclose(es);
	CHECK(rc < 0);
	CHECK(l.jobs == NULL && l.nr == 0);
	CHECK(nlines(err) == 1);
	free(err);

	cur_case = "no files";
	err = NULL;
	es = open_memstream(&err, &errlen);
	rc = rq_jobs_parse(files, 0, &l, es);
	fclose(es);
	CHECK(rc == -EINVAL && nlines(err) == 1);
	free(err);
out:
	unlink(f1);
	unlink(f2);
	unlink(f3);
	unlink(f4);
	rmdir(dir);
}

/* ---- filename splitting -------------------------------------------------- */

struct names {
	unsigned int nr;
	char name[4][64];
	int stop_at;		/* return -ECANCELED at this call, if >= 0 */
};

static int collect(const char *name, void *arg)
{
	struct names *n = arg;

	if ((int)n->nr == n->stop_at)
		return -ECANCELED;
	if (n->nr < 4)
		snprintf(n->name[n->nr], sizeof(n->name[0]), "%s", name);
	n->nr++;
	return 0;
}

static const struct {
	const char *filename;
	int nr;
	const char *want[3];
} split_cases[] = {
	{ "a:b\\:c:d", 3, { "a", "b:c", "d" } },
	{ "", 0, { NULL } },
	{ ":a::b:", 2, { "a", "b" } },
	{ "/dev/nvme0n1", 1, { "/dev/nvme0n1" } },
	{ "\\:", 1, { ":" } },
	{ "c:\\x", 2, { "c", "\\x" } },
};

static void test_split(void)
{
	struct rq_job job;
	struct names n;
	char name[64];
	size_t i;
	int k, rc;

	for (i = 0; i < ARRAY_SIZE(split_cases); i++) {
		snprintf(name, sizeof(name), "filename '%s'", split_cases[i].filename);
		cur_case = name;
		memset(&job, 0, sizeof(job));
		strcpy(job.filename, split_cases[i].filename);
		memset(&n, 0, sizeof(n));
		n.stop_at = -1;
		rc = rq_job_for_each_file(&job, collect, &n);
		CHECK(rc == split_cases[i].nr);
		CHECK((int)n.nr == split_cases[i].nr);
		for (k = 0; k < split_cases[i].nr && k < 3 && k < (int)n.nr; k++)
			CHECK(!strcmp(n.name[k], split_cases[i].want[k]));
		CHECK(rq_job_for_each_file(&job, NULL, NULL) == split_cases[i].nr);
	}

	cur_case = "filename: fn error stops the walk";
	memset(&job, 0, sizeof(job));
	strcpy(job.filename, "a:b:c");
	memset(&n, 0, sizeof(n));
	n.stop_at = 1;
	CHECK(rq_job_for_each_file(&job, collect, &n) == -ECANCELED);
	CHECK(n.nr == 1);

	cur_case = "filename from a job file";
	{
		struct res r = { 0 };

		run(&r, "[j]\nfilename=/a\\:b:/c\n");
		CHECK(r.rc == 0 && r.l.nr == 1);
		if (r.rc == 0 && r.l.nr == 1) {
			memset(&n, 0, sizeof(n));
			n.stop_at = -1;
			CHECK(rq_job_for_each_file(&r.l.jobs[0], collect, &n) == 2);
			CHECK(!strcmp(n.name[0], "/a:b") && !strcmp(n.name[1], "/c"));
		}
		done(&r);
	}
}

/* ---- rw helpers and the options table ------------------------------------ */

static void test_rw(void)
{
	static const struct {
		enum rq_rw rw;
		const char *name;
		bool reads, writes, random;
	} c[] = {
		{ RQ_RW_READ, "read", true, false, false },
		{ RQ_RW_WRITE, "write", false, true, false },
		{ RQ_RW_RANDREAD, "randread", true, false, true },
		{ RQ_RW_RANDWRITE, "randwrite", false, true, true },
		{ RQ_RW_RW, "rw", true, true, false },
		{ RQ_RW_RANDRW, "randrw", true, true, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		cur_case = c[i].name;
		CHECK(!strcmp(rq_rw_name(c[i].rw), c[i].name));
		CHECK(rq_rw_reads(c[i].rw) == c[i].reads);
		CHECK(rq_rw_writes(c[i].rw) == c[i].writes);
		CHECK(rq_rw_random(c[i].rw) == c[i].random);
	}
}

static void test_table(void)
{
	size_t i, k;

	for (i = 0; i < NR_OPTS; i++) {
		const struct opt *o = &opts[i];
		size_t slots = o->nr ? o->nr : 1;

		cur_case = o->name;
		CHECK(o->help && strstr(o->help, "(default: ") != NULL);
		if (o->def) {
			char want[80];

			snprintf(want, sizeof(want), "(default: %s)", o->def);
			CHECK(strstr(o->help, want) != NULL);
		}
		CHECK(!o->size || o->off + slots * o->size <= sizeof(struct rq_job));
		CHECK(o->type != OPT_ENUM || o->vals);
		CHECK(!o->bit || o->size == sizeof(int));
		CHECK(o->size || o->set || o->type == OPT_STR);
		for (k = 0; k < NR_OPTS; k++) {
			if (k == i)
				continue;
			CHECK(!opt_is(&opts[k], o->name));
			CHECK(!o->alias || !opt_is(&opts[k], o->alias));
		}
	}
}

int main(void)
{
	test_numbers();
	test_ok();
	test_errors();
	test_long();
	test_files();
	test_split();
	test_rw();
	test_table();
	if (failures) {
		fprintf(stderr, "test_parser: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_parser: all passed\n");
	return 0;
}
