// SPDX-License-Identifier: MIT
/*
 * test_ss_judge.c - steady state's judge (engine/steadystate.c) on a fake
 * clock: jobs set up through the engine (null devices, never run), their
 * clones' progress written by hand and published with eng_ss_tick(), the
 * status thread's look each second played with eng_ss_check().  No
 * thread, no sleep, no timing.
 *
 * What fio 3.33's steadystate.c does and rqlock must do alike: a sample
 * is 1000 * I/Os / ms over whole milliseconds since the last look, the
 * first look from the measurement's start; ss_ramp counts from the first
 * look a second past it; the window holds the last ss_dur samples, oldest
 * first, zeros past what was sampled; a slope in percent divides by the
 * window's mean cut to an integer (so [1, 2, 2] is 50 %, not 30 %); a
 * deviation is the largest distance from the mean; group_reporting sums
 * the group's clones and judges only while the last of them runs; once
 * attained every member stops issuing; and jobs of one reporting group
 * whose ss options differ are refused.
 *
 * Exit 0 pass, 1 fail (each failure named).
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runner.h"
#include "engine/steadystate.h"
#include "tests/helpers.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define T0 (100 * SEC)		/* the fake clock's start: 0 means "not started" */

struct fake {
	struct rq_job_list jobs;
	struct rq_engine *e;
};

static int fake_setup(struct fake *f, const char *name, const char *text, FILE *err)
{
	struct rq_engine_opts o = { .lock_mode = "mq", .lock_type = "ttas", .workers = 1,
				    .stall_timeout_ns = 30 * SEC };
	int ret = rq_jobs_parse_buf(name, text, &f->jobs, stderr);

	f->e = NULL;
	if (ret) {
		rq_test_fail(name, "parse: %d", ret);
		return ret;
	}
	ret = rq_engine_setup(&f->e, &o, &f->jobs, err);
	for (unsigned int i = 0; !ret && i < f->e->nr_clones; i++) {
		struct clone *c = &f->e->clones[i];

		c->start_ns = c->ramp_end_ns = T0;
	}
	return ret;
}

static void fake_free(struct fake *f)
{
	rq_engine_free(f->e);
	rq_jobs_free(&f->jobs);
}

/* Clone @i has done @ios I/Os of 4 KiB in all at @now: its worker publishes it. */
static void progress(struct fake *f, unsigned int i, uint64_t ios, uint64_t now)
{
	struct clone *c = &f->e->clones[i];

	c->rep.dir[0].total_ios = ios;
	c->rep.dir[0].io_bytes = ios * 4096;
	eng_ss_tick(c, now);
}

static const struct rq_ss_report *report(struct fake *f, unsigned int i)
{
	return f->e->clones[i].rep.ss;
}

/*
 * Set up @text whose first clone has a judge: its report, or NULL after a
 * failure (then nothing is left to free).
 */
static const struct rq_ss_report *judged(struct fake *f, const char *name, const char *text)
{
	const struct rq_ss_report *r;

	if (fake_setup(f, name, text, stderr)) {
		rq_test_fail(name, "set-up");
		return NULL;
	}
	r = report(f, 0);
	if (!r) {
		rq_test_fail(name, "no judge");
		fake_free(f);
	}
	return r;
}

static bool data_is(const struct rq_ss_report *r, const uint64_t *want, unsigned int n)
{
	if (r->dur != n)
		return false;
	for (unsigned int i = 0; i < n; i++)
		if (r->iops_data[i] != want[i] || r->bw_data[i] != want[i] * 4096)
			return false;
	return true;
}

#define JOB "[global]\nioengine=null\nsize=1m\ntime_based\nruntime=60\n"

/* The slope in percent of fio's integer mean, and samples over whole milliseconds. */
static void test_slope(void)
{
	struct fake f;
	static const uint64_t want[] = { 1, 2, 2 };
	const struct rq_ss_report *r;

	/* 40 %: fio's 100 * 0.5 / (5 / 3 = 1) is 50 %, a real mean's 30 % would pass */
	r = judged(&f, "slope", JOB "[a]\nss=iops_slope:40%\nss_dur=3\n");
	if (!r)
		return;
	CHECK(r->slope && r->pct && r->dur == 3, "the wrong judge");
	/* 1000.9 ms hold 1 I/O: 1 IOPS over whole milliseconds, never 0.999 */
	progress(&f, 0, 1, T0 + 1000 * MS + 900000);
	eng_ss_check(f.e, T0 + 1000 * MS + 900000);
	progress(&f, 0, 3, T0 + 2001 * MS);
	eng_ss_check(f.e, T0 + 2001 * MS);
	CHECK(!r->attained && r->criterion == 0.0, "judged before the window was full");
	progress(&f, 0, 5, T0 + 3001 * MS);
	eng_ss_check(f.e, T0 + 3001 * MS);
	CHECK(data_is(r, want, 3), "window %" PRIu64 " %" PRIu64 " %" PRIu64 ", want 1 2 2",
	      r->iops_data[0], r->iops_data[1], r->iops_data[2]);
	CHECK(r->slope_val == 0.5 && r->criterion == 50.0 && r->deviation == 0.0,
	      "slope %f criterion %f deviation %f, want 0.5, 50 %% (fio's integer mean), 0",
	      r->slope_val, r->criterion, r->deviation);
	CHECK(!r->attained, "attained at 50 %% against a limit of 40 %%");
	/* 1 2 2 2: the oldest leaves, the slope of 2 2 2 is 0 < 40 % */
	progress(&f, 0, 7, T0 + 4001 * MS);
	eng_ss_check(f.e, T0 + 4001 * MS);
	CHECK(r->attained && r->criterion == 0.0 && r->iops_data[0] == 2, "2 2 2: attained %d, "
	      "criterion %f, oldest %" PRIu64, r->attained, r->criterion, r->iops_data[0]);
	/* attained: the worker stops the clone and no sample is added any more */
	CHECK(!f.e->clones[0].issue_done, "stopped before its worker looked");
	progress(&f, 0, 8, T0 + 4002 * MS);
	CHECK(f.e->clones[0].issue_done, "attained, and the clone goes on issuing");
	progress(&f, 0, 100, T0 + 5001 * MS);
	eng_ss_check(f.e, T0 + 5001 * MS);
	CHECK(r->iops_data[2] == 2, "a sample was added after the verdict");
	fake_free(&f);
}

/* The deviation in percent, the window's order, the first look from the start. */
static void test_deviation(void)
{
	struct fake f;
	static const uint64_t want[] = { 110, 120, 110 };
	const struct rq_ss_report *r;

	r = judged(&f, "dev", JOB "[a]\nss=iops:9%\nss_dur=3\n");
	if (!r)
		return;
	/* the first look covers the 400 ms since the start: 40 I/Os are 100 IOPS */
	progress(&f, 0, 40, T0 + 400 * MS);
	eng_ss_check(f.e, T0 + 400 * MS);
	CHECK(r->iops_data[0] == 100, "first sample %" PRIu64 ", want 100", r->iops_data[0]);
	progress(&f, 0, 150, T0 + 1400 * MS);
	eng_ss_check(f.e, T0 + 1400 * MS);
	progress(&f, 0, 270, T0 + 2400 * MS);
	eng_ss_check(f.e, T0 + 2400 * MS);
	/* 100 110 120: 10 from the mean is 9.09 % */
	CHECK(fabs(r->criterion - 1000.0 / 110.0) < 1e-9 && r->deviation == 10.0 && !r->attained,
	      "100 110 120: criterion %f deviation %f attained %d", r->criterion, r->deviation,
	      r->attained);
	progress(&f, 0, 380, T0 + 3400 * MS);
	eng_ss_check(f.e, T0 + 3400 * MS);
	/* 110 120 110: 6.67 from 113.3 is 5.88 % */
	CHECK(data_is(r, want, 3), "window %" PRIu64 " %" PRIu64 " %" PRIu64 ", want 110 120 110",
	      r->iops_data[0], r->iops_data[1], r->iops_data[2]);
	CHECK(r->attained && fabs(r->criterion - 100.0 * (20.0 / 3.0) / (340.0 / 3.0)) < 1e-9,
	      "110 120 110: criterion %f attained %d", r->criterion, r->attained);
	fake_free(&f);
}

/* ss_ramp: rates count from the first look a second past it; a short run leaves zeros. */
static void test_ramp_and_short(void)
{
	struct fake f;
	static const uint64_t want[] = { 100, 0, 0, 0, 0 };
	const struct rq_ss_report *r;

	r = judged(&f, "ramp", JOB "[a]\nss=iops:10%\nss_dur=5\nss_ramp=2\n");
	if (!r)
		return;
	for (uint64_t s = 1; s <= 3; s++) {
		/* 50 IOPS in the ramp, 100 after it */
		progress(&f, 0, s <= 2 ? 50 * s : 100 + 100 * (s - 2), T0 + s * SEC);
		eng_ss_check(f.e, T0 + s * SEC);
	}
	/* the looks at 1 s and 2 s are in the ramp (2 s + 1 s); the one at 3 s counts */
	CHECK(data_is(r, want, 5), "window %" PRIu64 " %" PRIu64 " %" PRIu64 " ..., want 100 0 0 0 0",
	      r->iops_data[0], r->iops_data[1], r->iops_data[2]);
	/* the clone ends: nothing more is sampled, the window stays short */
	f.e->clones[0].finished = true;
	progress(&f, 0, 300, T0 + 4 * SEC);
	eng_ss_check(f.e, T0 + 4 * SEC);
	CHECK(data_is(r, want, 5) && !r->attained && r->criterion == 0.0,
	      "sampled after the clone ended");
	fake_free(&f);
}

/* group_reporting: one judge, the clones' rates summed, judged while the last one runs. */
static void test_group(void)
{
	struct fake f;
	const struct rq_ss_report *r;

	r = judged(&f, "group", JOB "group_reporting\n[a]\nnumjobs=3\nss=iops:1\nss_dur=2\n");
	if (!r)
		return;
	CHECK(f.e->nr_ss == 1 && report(&f, 1) == r && report(&f, 2) == r,
	      "%u judges for a group of 3 clones", f.e->nr_ss);
	progress(&f, 0, 10, T0 + SEC);
	progress(&f, 1, 20, T0 + SEC);
	progress(&f, 2, 30, T0 + SEC);
	eng_ss_check(f.e, T0 + SEC);
	CHECK(r->iops_data[0] == 60, "group sample %" PRIu64 ", want 10 + 20 + 30", r->iops_data[0]);
	/* the last clone ended: fio keeps the window with it, so the group is no longer judged */
	f.e->clones[2].finished = true;
	progress(&f, 2, 30, T0 + 2 * SEC);
	progress(&f, 0, 20, T0 + 2 * SEC);
	progress(&f, 1, 40, T0 + 2 * SEC);
	eng_ss_check(f.e, T0 + 2 * SEC);
	CHECK(r->iops_data[1] == 0 && !r->attained, "judged without the group's last clone");
	fake_free(&f);
	/* without group_reporting each clone has its own */
	if (fake_setup(&f, "nogroup", JOB "[a]\nnumjobs=2\nss=iops:1\nss_dur=2\n", stderr)) {
		rq_test_fail("nogroup", "set-up");
		return;
	}
	CHECK(f.e->nr_ss == 2 && report(&f, 0) != report(&f, 1), "%u judges for 2 clones",
	      f.e->nr_ss);
	fake_free(&f);
}

/* A group's ss options must agree (fio rejects the job); a window under a second is none. */
static void test_setup(void)
{
	static const struct {
		const char *name, *jobs;
		bool ok;
		unsigned int judges;
	} cases[] = {
		{ "ss and none", JOB "[a]\nss=iops:10%\nss_dur=2\n[b]\n", false, 0 },
		{ "two limits", JOB "[a]\nss=iops:10%\nss_dur=2\n[b]\nss=iops:20%\nss_dur=2\n", false, 0 },
		{ "two ramps", JOB "[a]\nss_dur=2\nss_ramp=1\n[b]\nss_dur=2\n", false, 0 },
		{ "sub-second and none", JOB "[a]\nss_dur=500ms\n[b]\n", false, 0 },
		{ "two groups", JOB "[a]\nss=iops:10%\nss_dur=2\n[b]\nnew_group\n", true, 1 },
		{ "the same", JOB "[a]\nss=bw:1m\nss_dur=2\n[b]\nss=bw:1024k\nss_dur=2s\n", true, 2 },
		{ "ss alone", JOB "[a]\nss=iops:10%\n", true, 0 },
		{ "sub-second", JOB "[a]\nss_dur=999ms\n", true, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f;
		char *msg = NULL;
		size_t len = 0;
		FILE *err = open_memstream(&msg, &len);
		int ret = err ? fake_setup(&f, cases[i].name, cases[i].jobs, err) : -1;

		if (err)
			fclose(err);
		if (cases[i].ok && ret)
			rq_test_fail(cases[i].name, "refused: %s", msg ? msg : "");
		else if (!cases[i].ok && (!ret || !msg || !strstr(msg, "reporting group") ||
					  strchr(msg, '\n') != msg + len - 1))
			rq_test_fail(cases[i].name, "not refused in one line: %d '%s'", ret, msg ? msg : "");
		else if (!ret && f.e->nr_ss != cases[i].judges)
			rq_test_fail(cases[i].name, "%u judges, want %u", f.e->nr_ss, cases[i].judges);
		if (!ret)
			fake_free(&f);
		else
			rq_jobs_free(&f.jobs);
		free(msg);
	}
}

int main(void)
{
	test_slope();
	test_deviation();
	test_ramp_and_short();
	test_group();
	test_setup();
	if (failures)
		return 1;
	printf("test_ss_judge: ok\n");
	return 0;
}
