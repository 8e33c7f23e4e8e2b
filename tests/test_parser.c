/* SPDX-License-Identifier: MIT */
/*
 * test_parser.c - table-driven tests of the fio job-file parser.
 *
 * Includes the parser's sources to reach their statics (parse_size,
 * parse_time, calc, the options table).  Values marked "fio" below were
 * checked against fio 3.33 with `fio --debug=parse --parse-only` or read
 * from fio 3.33's options.c and init.c (the fix-ups); the cross-check
 * against a real fio is tests/test_fio_crosscheck.sh.
 *
 * Exit 0: all passed; 1: a case failed, named on stderr.
 */
#include "parser_test.h"

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
	{ "65536)", 1024, true, 65536 },	/* fio's t/strided.py; ')' ends it, as fio */
	{ "512/25", 1024, true, 512 },		/* fio's t0023: '/' ends it */
	{ "1k:25:2k", 1024, true, 1024 },	/* ... ':' ends a suffix */
	{ "4k-8k", 1024, false, 0 },		/* fio reads 4096: a range where one size is meant */
	{ "4x", 1024, false, 0 },		/* fio reads 4 */
	{ "4k4", 1024, false, 0 },		/* fio reads 4096 */
	{ "1.5k", 1024, false, 0 },		/* fio reads 1 */
	{ "10%", 1024, false, 0 },		/* only size, offset, offset_increment */
	{ "4z", 1024, false, 0 },		/* zones: only size, offset and the like, with zonesize */
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
		why = jf_parse_size(size_cases[i].v, size_cases[i].kb_base, &v);
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

/* bc-style arithmetic, as fio runs bc after $ncpus, $mb_memory, $pagesize */
static const struct {
	const char *v;
	bool ok;
	int64_t want;
} calc_cases[] = {
	{ "2*3", true, 6 },
	{ "2+3*4", true, 14 },
	{ "(2+3)*4", true, 20 },
	{ "7/2", true, 3 },			/* bc: scale=0 truncates */
	{ "-7/2", true, -3 },
	{ "7%3", true, 1 },
	{ "2^10", true, 1024 },
	{ "2^3^2", true, 512 },			/* right-associative */
	{ "4096 * 2", true, 8192 },
	{ "1-2-3", true, -4 },
	{ "--3", true, 3 },
	{ "1/0", false, 0 },
	{ "(1", false, 0 },
	{ "2*4k", false, 0 },			/* fio: bc syntax error, job dropped */
	{ "", false, 0 },
	{ "9223372036854775807+1", false, 0 },
	{ "2^-1", false, 0 },
	{ "(0-1)^3", true, -1 },
	{ "1^99999999999", true, 1 },
	{ "0^0", true, 1 },
	{ "2^64", false, 0 },
	{ "----------------------------------------------------------------------1", false, 0 },
};

static void test_calc(void)
{
	char name[96];

	for (size_t i = 0; i < ARRAY_SIZE(calc_cases); i++) {
		int64_t v = 12345;
		const char *why;

		snprintf(name, sizeof(name), "calc '%s'", calc_cases[i].v);
		cur_case = name;
		why = calc(calc_cases[i].v, &v);
		CHECK(!why == calc_cases[i].ok);
		if (calc_cases[i].ok)
			CHECK(v == calc_cases[i].want);
	}
	cur_case = "time in microseconds";
	{
		uint64_t ns = 0;

		CHECK(!parse_time_unit("10", NS_PER_US, &ns) && ns == 10000);
		CHECK(!parse_time_unit("10ms", NS_PER_US, &ns) && ns == 10000000);
		CHECK(!parse_time_unit("1s", NS_PER_US, &ns) && ns == SEC);
		CHECK(parse_time_unit("10sec", NS_PER_US, &ns) != NULL);
	}
}

/* ---- job files that parse ---------------------------------------------- */

#define J(i) (&l->jobs[i])


static void globals_str(const struct rq_job *j, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < j->nr_global && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s=%s", i ? " " : "", j->global_keys[i], j->global_vals[i]);
}

static bool cpu_in(const struct rq_job *j, unsigned int c)
{
	return j->cpus_allowed[c / 64] >> (c % 64) & 1;
}

static void ck_defaults(const struct rq_job_list *l)
{
	const struct rq_job *j = J(0);

	CHECK(!strcmp(j->name, "j"));
	CHECK(!strcmp(j->file, "t.fio"));
	CHECK(j->line == 1);
	CHECK(j->rw == RQ_RW_READ);
	CHECK(j->rwmixread == 50);
	CHECK(j->bs[0] == 4096 && j->bs[1] == 4096);
	CHECK(j->bs_min[0] == 4096 && j->bs_max[0] == 4096);	/* fio's fix-up: bs */
	CHECK(j->bs_min[1] == 4096 && j->bs_max[1] == 4096);
	CHECK(j->nr_bssplit[0] == 0 && j->nr_bssplit[1] == 0);
	CHECK(j->iodepth == 1 && j->numjobs == 1);
	CHECK(j->size == 0 && j->offset == 0 && j->size_pct == 0.0 && j->offset_pct == 0.0);
	CHECK(j->runtime_ns == 0 && j->ramp_ns == 0);
	CHECK(!j->time_based && !j->direct && !j->group_reporting);
	CHECK(j->stonewall == 0 && j->groupid == 0);
	CHECK(j->ioengine == RQ_IOENGINE_IO_URING);
	CHECK(j->filename[0] == '\0');
	CHECK(j->rw_seq_nr == 0 && j->rw_seq_add == 0);
	CHECK(j->rate_iops[0] == 0 && j->rate_iops[1] == 0 && !j->rate_poisson);
	CHECK(j->thinktime_us == 0 && j->thinktime_spin_us == 0 && j->thinktime_blocks == 1);
	CHECK(j->iodepth_batch_submit == 1);
	CHECK(j->iodepth_batch_complete_min == 1 && j->iodepth_batch_complete_max == 1);
	CHECK(j->offset_increment == 0 && j->offset_increment_pct == 0.0);
	CHECK(j->random_distribution == RQ_RAND_UNIFORM && j->rand_center == -1.0);
	CHECK(!j->norandommap && j->randrepeat && j->randseed == 0x89);
	CHECK(!j->has_cpus_allowed && !j->cpus_allowed_split && !j->wait_for[0]);
	CHECK(j->nr_percentiles == 0 && j->percentile_precision == 2);
	CHECK(j->clat_percentiles && !j->lat_percentiles && !j->slat_percentiles);
	CHECK(j->unified_rw_reporting == 0 && j->description[0] == '\0');
	CHECK(j->kb_base == 1024);
	CHECK(j->verify == RQ_VERIFY_NONE && j->verify_pattern_len == 0 && j->do_verify);
	CHECK(j->verify_backlog == 0 && j->continue_on_error == RQ_COE_NONE);
	CHECK(!j->hipri && !j->sqthread_poll && !j->fixedbufs && !j->registerfiles);
	CHECK(j->nr_opts == 0 && j->nr_global == 0);
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
	CHECK(J(0)->kb_base == 1000);
	CHECK(J(1)->size == 4096);		/* kb_base does not leak to the next job */
	CHECK(J(1)->kb_base == 1024);
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

static void ck_keywords(const struct rq_job_list *l)
{
	long ncpus = jf_cpus_configured(), ps = sysconf(_SC_PAGESIZE);
	long long mb = (long long)sysconf(_SC_PHYS_PAGES) * ps / (1024 * 1024);

	CHECK(J(0)->numjobs == (unsigned int)ncpus);
	CHECK(J(0)->bs[0] == (uint32_t)ps && J(0)->bs[1] == (uint32_t)ps);
	CHECK(J(0)->size == (uint64_t)mb * 1024);
	CHECK(J(0)->iodepth == (unsigned int)((ncpus + 2) * 3));
	CHECK(!strcmp(J(0)->description, "") || J(0)->description[0]);
	CHECK(J(1)->thinktime_us == (uint64_t)ps * 1000);	/* "$pagesize""ms", no arithmetic */
	CHECK(J(1)->numjobs == (unsigned int)ncpus);		/* ${RQ_T_NCPUS} -> $ncpus */
}

static void ck_bs(const struct rq_job_list *l)
{
	CHECK(J(0)->bs[0] == 4096 && J(0)->bs[1] == 8192);
	CHECK(J(1)->bs[0] == 4096 && J(1)->bs[1] == 8192);
	CHECK(J(2)->bs[0] == 16384 && J(2)->bs[1] == 16384);
	CHECK(J(3)->bs[0] == 8192 && J(3)->bs[1] == 4096);	/* fio: "8k," is reads only */
	CHECK(J(4)->bs[0] == 2048 && J(4)->bs[1] == 4096 && J(4)->bs[2] == 512);	/* R,W,T */
	CHECK(J(0)->bs[2] == 8192 && J(2)->bs[2] == 16384);	/* the last value stands for the trims */
	CHECK(J(5)->bs[0] == 8192 && J(5)->bs[1] == 16384);	/* R from [global] */
	CHECK(J(6)->bs[0] == 16 * MiB);
}

static void ck_bsrange(const struct rq_job_list *l)
{
	CHECK(J(0)->bs_min[0] == 1024 && J(0)->bs_max[0] == 4096);
	CHECK(J(0)->bs_min[1] == 1024 && J(0)->bs_max[1] == 4096);
	CHECK(J(1)->bs_min[0] == 1024 && J(1)->bs_max[0] == 4096);	/* swapped, as fio */
	CHECK(J(2)->bs_min[0] == 1024 && J(2)->bs_max[0] == 4096);
	CHECK(J(2)->bs_min[1] == 2048 && J(2)->bs_max[1] == 8192);
	CHECK(J(0)->bs_min[2] == 1024 && J(0)->bs_max[2] == 4096);	/* one range: every direction */
	CHECK(J(2)->bs_min[2] == 512 && J(2)->bs_max[2] == 1024);	/* R,W,T */
	CHECK(J(4)->bs_min[2] == 512 && J(4)->bs_max[2] == 1024);	/* ",W": trims take W, as fio */
	CHECK(J(3)->bs_min[0] == 1024 && J(3)->bs_max[0] == 4096);	/* "R," reads only */
	CHECK(J(3)->bs_min[1] == 8192 && J(3)->bs_max[1] == 8192);	/* fix-up: bs */
	CHECK(J(4)->bs_min[1] == 512 && J(4)->bs_max[1] == 1024);	/* ",W" */
	CHECK(J(4)->bs_min[0] == 4096 && J(4)->bs_max[0] == 4096);
}

#define SPLIT(j, d, i, b, p) CHECK((j)->bssplit[d][i].bs == (b) && (j)->bssplit[d][i].pct == (p))

static void ck_bssplit(const struct rq_job_list *l)
{
	/* blanks share the rest, truncated; sorted by share, stable (fio) */
	CHECK(J(0)->nr_bssplit[0] == 3 && J(0)->nr_bssplit[1] == 3);
	SPLIT(J(0), 0, 0, 4096, 10);
	SPLIT(J(0), 0, 1, 8192, 45);
	SPLIT(J(0), 0, 2, 16384, 45);
	SPLIT(J(0), 1, 0, 4096, 10);
	CHECK(J(0)->bs_min[0] == 4096 && J(0)->bs_max[0] == 16384);
	/* three blanks: 33 each, 1 left over (fio then picks the last entry) */
	CHECK(J(1)->nr_bssplit[0] == 3);
	SPLIT(J(1), 0, 0, 4096, 33);
	SPLIT(J(1), 0, 2, 16384, 33);
	/* one entry: 100 */
	CHECK(J(2)->nr_bssplit[0] == 1);
	SPLIT(J(2), 0, 0, 65536, 100);
	/* per direction */
	CHECK(J(3)->nr_bssplit[0] == 2 && J(3)->nr_bssplit[1] == 1);
	SPLIT(J(3), 0, 0, 8192, 30);
	SPLIT(J(3), 0, 1, 4096, 70);
	SPLIT(J(3), 1, 0, 16384, 100);
	CHECK(J(3)->nr_bssplit[2] == 1);	/* R,W: the write list stands for trims (fio's str_split_parse) */
	SPLIT(J(3), 2, 0, 16384, 100);
	CHECK(J(0)->nr_bssplit[2] == 3);	/* one list: every direction */
	SPLIT(J(0), 2, 2, 16384, 45);
	/* "/0" is a blank too */
	SPLIT(J(4), 0, 0, 4096, 50);
	SPLIT(J(4), 0, 1, 8192, 50);
	/* an empty list keeps that direction */
	CHECK(J(5)->nr_bssplit[0] == 0 && J(5)->nr_bssplit[1] == 2);
	CHECK(J(5)->bs_min[0] == 4096 && J(5)->bs_max[0] == 4096);
}

static void ck_rw_postfix(const struct rq_job_list *l)
{
	CHECK(J(0)->rw == RQ_RW_RANDREAD && J(0)->rw_seq_nr == 8 && J(0)->rw_seq_add == 0);
	CHECK(J(1)->rw == RQ_RW_WRITE && J(1)->rw_seq_add == 4096 && J(1)->rw_seq_nr == 0);
	CHECK(J(2)->rw == RQ_RW_RANDRW && J(2)->rw_seq_nr == 4);
	CHECK(J(3)->rw == RQ_RW_RW && J(3)->rw_seq_nr == 0 && J(3)->rw_seq_add == 0);	/* reset */
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

static void ck_load(const struct rq_job_list *l)
{
	CHECK(J(0)->rate_iops[0] == 100 && J(0)->rate_iops[1] == 100);
	CHECK(J(0)->rate_poisson);
	CHECK(J(1)->rate_iops[0] == 100 && J(1)->rate_iops[1] == 200);
	CHECK(J(2)->rate_iops[0] == 0 && J(2)->rate_iops[1] == 50);
	CHECK(!J(2)->rate_poisson);
	CHECK(J(0)->thinktime_us == 10 && J(0)->thinktime_blocks == 4);
	CHECK(J(1)->thinktime_us == 10000 && J(1)->thinktime_spin_us == 10000);	/* clamped */
	CHECK(J(2)->thinktime_us == 2000000 && J(2)->thinktime_spin_us == 5);
}

static void ck_batch(const struct rq_job_list *l)
{
	CHECK(J(0)->iodepth == 8 && J(0)->iodepth_batch_submit == 1);
	CHECK(J(0)->iodepth_batch_complete_min == 1 && J(0)->iodepth_batch_complete_max == 1);
	CHECK(J(1)->iodepth_batch_submit == 8);		/* 0 is iodepth, as fio */
	CHECK(J(2)->iodepth_batch_submit == 8);		/* above iodepth: iodepth */
	CHECK(J(3)->iodepth_batch_complete_min == 4 && J(3)->iodepth_batch_complete_max == 4);
	CHECK(J(4)->iodepth_batch_complete_min == 2 && J(4)->iodepth_batch_complete_max == 8);
	CHECK(J(4)->iodepth_batch_submit == 4);		/* iodepth_batch_submit alias */
}

static void ck_pct(const struct rq_job_list *l)
{
	CHECK(J(0)->size == 0 && J(0)->size_pct == 50.0);
	CHECK(J(0)->offset == 0 && J(0)->offset_pct == 25.0);
	CHECK(J(0)->offset_increment == 0 && J(0)->offset_increment_pct == 10.0);
	CHECK(J(1)->size == MiB && J(1)->size_pct == 0.0);	/* bytes again after the global % */
	CHECK(J(1)->offset_increment == MiB);
}

static void ck_random(const struct rq_job_list *l)
{
	CHECK(J(0)->random_distribution == RQ_RAND_ZIPF && J(0)->rand_param == 1.1);
	CHECK(J(0)->norandommap);			/* fio: not random, no random map */
	CHECK(J(1)->random_distribution == RQ_RAND_ZIPF && J(1)->rand_param == 0.8);
	CHECK(J(2)->random_distribution == RQ_RAND_PARETO && J(2)->rand_param == 0.3);
	CHECK(J(2)->rand_center == 0.5);
	CHECK(J(3)->random_distribution == RQ_RAND_NORMAL && J(3)->rand_param == 10.0);
	CHECK(J(4)->random_distribution == RQ_RAND_PARETO && J(4)->rand_param == 0.2);
	CHECK(J(5)->random_distribution == RQ_RAND_UNIFORM && J(5)->norandommap);
	CHECK(J(5)->randrepeat && J(5)->randseed == 0x89);
	CHECK(!J(6)->randrepeat && J(6)->randseed == 1234);	/* fio: randseed overrides */
	CHECK(!J(7)->randrepeat && J(7)->randseed == 0x89);
}

static void ck_cpus(const struct rq_job_list *l)
{
	CHECK(J(0)->has_cpus_allowed && cpu_in(J(0), 0) && !cpu_in(J(0), 1));
	CHECK(!J(0)->cpus_allowed_split);
	CHECK(J(1)->has_cpus_allowed && cpu_in(J(1), 0) && J(1)->cpus_allowed_split);
	CHECK(J(2)->has_cpus_allowed && cpu_in(J(2), 0));		/* cpumask */
}

static void ck_report_opts(const struct rq_job_list *l)
{
	CHECK(J(0)->nr_percentiles == 2 && J(0)->percentile_list[0] == 99.9);
	CHECK(J(0)->percentile_list[1] == 50.0 && J(0)->percentile_precision == 1);
	CHECK(J(0)->lat_percentiles && !J(0)->clat_percentiles && J(0)->slat_percentiles);
	CHECK(J(0)->unified_rw_reporting == 1);
	CHECK(!strcmp(J(0)->description, "a b = c"));
	CHECK(J(1)->nr_percentiles == 3 && J(1)->percentile_precision == 3);
	CHECK(J(1)->unified_rw_reporting == 2);
	CHECK(J(2)->unified_rw_reporting == 1 && J(2)->nr_percentiles == 1);
	CHECK(J(2)->percentile_precision == 0);
}

static void ck_verify(const struct rq_job_list *l)
{
	CHECK(J(0)->verify == RQ_VERIFY_CRC32C && J(0)->do_verify);
	CHECK(J(0)->verify_backlog == 16 && J(0)->continue_on_error == RQ_COE_IO);
	CHECK(J(1)->verify == RQ_VERIFY_PATTERN && J(1)->verify_pattern_len == 4);
	CHECK(!memcmp(J(1)->verify_pattern, "\xde\xad\xbe\xef", 4));
	CHECK(J(2)->verify == RQ_VERIFY_MD5 && J(2)->verify_pattern_len == 5);	/* verify given */
	CHECK(!memcmp(J(2)->verify_pattern, "ab\x01\x00\x04", 5));
	CHECK(!J(2)->do_verify && J(2)->continue_on_error == RQ_COE_ALL);
	CHECK(J(3)->verify == RQ_VERIFY_CRC32C);	/* crc32c-intel */
	CHECK(J(3)->verify_pattern_len == 4 && !memcmp(J(3)->verify_pattern, "\x00\xfc\xff\xff", 4));
}

static void ck_engine(const struct rq_job_list *l)
{
	CHECK(J(0)->ioengine == RQ_IOENGINE_IO_URING && J(0)->hipri && J(0)->fixedbufs);
	CHECK(J(0)->registerfiles && J(0)->sqthread_poll);
	CHECK(J(1)->ioengine == RQ_IOENGINE_LIBAIO && !J(1)->hipri);	/* not carried to libaio */
	CHECK(J(2)->ioengine == RQ_IOENGINE_IO_URING_CMD && J(2)->hipri);
	CHECK(J(3)->ioengine == RQ_IOENGINE_NULL);
}

static void ck_options_list(const struct rq_job_list *l)
{
	char buf[1024];

	/* fio's order: kb_base first, filename last; bare flags not listed; fio's names */
	opts_str(J(0), buf, sizeof(buf));
	CHECK(!strcmp(buf, "kb_base=1000 bs=8k rw=randread iodepth=4 filename=/tmp/x"));
	globals_str(J(0), buf, sizeof(buf));
	CHECK(!strcmp(buf, "ioengine=null size=1m runtime=1 numjobs=2 description=d"));
	opts_str(J(1), buf, sizeof(buf));
	CHECK(!strcmp(buf, "name=other runtime=2"));
	/* every job of a file gets all of its [global] options, later ones too (fio) */
	globals_str(J(1), buf, sizeof(buf));
	CHECK(!strcmp(buf, "ioengine=null size=1m runtime=1 numjobs=2 description=d"));
	CHECK(!strcmp(J(1)->name, "other"));
}

static void ck_inert(const struct rq_job_list *l)
{
	CHECK(J(0)->bs[0] == 4096);
	CHECK(J(0)->nr_opts == 4);	/* listed as fio lists them */
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
	CHECK(!strcmp(J(2)->description, "any text = even this"));
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

static void ck_wait_for(const struct rq_job_list *l)
{
	CHECK(!J(0)->wait_for[0] && !strcmp(J(1)->wait_for, "a"));
}

static void ck_long_desc(const struct rq_job_list *l)
{
	CHECK(strlen(J(0)->description) == 255);	/* fio shows the first 255 bytes */
	CHECK(J(0)->bs[0] == 8192);
}

static void ck_nothing(const struct rq_job_list *l)
{
	(void)l;
}

static void ck_time_based(const struct rq_job_list *l)
{
	CHECK(!J(0)->time_based);	/* fio: time_based needs runtime */
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
	  "[a]\nsize=4k\nkb_base=1000\noffset=4KiB\nbs=1k\n[b]\nsize=4k\n"
	  "[global]\nkb_base=1000\n[c]\nsize=1m\nbs=8k\n", 3, NULL, ck_kb_base },
	{ "time suffixes",
	  "[a]\nruntime=2m\nramp_time=500ms\ntime_based\n[b]\ntimeout=5\nramp_time=250us\n",
	  2, NULL, ck_times },
	{ "inheritance and two globals",
	  "[global]\nbs=8k\niodepth=4\n[a]\nnumjobs=4\n[global]\niodepth=8\nrw=randread\n"
	  "[b]\niodepth=16\n[c]\n", 3, NULL, ck_inherit },
	{ "bare flags",
	  "[j]\ntime_based\nruntime=1\ngroup_reporting\ndirect\nstonewall\nnew_group\n"
	  "[global]\ntime_based\ngroup_reporting\n[k]\ntime_based=0\ngroup_reporting=0\n",
	  2, "t.fio:5: warning: fio 3.33 rejects a bare 'direct'", ck_flags },
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
	{ "$ncpus, $pagesize, $mb_memory and arithmetic",
	  "[a]\nnumjobs=$ncpus\nbs=$pagesize\nsize=$mb_memory*1024\n"
	  "iodepth=($ncpus+2)*3\ndescription=$ncpus cpus\n"
	  "[b]\nthinktime=$pagesize" "ms\nnumjobs=${RQ_T_NCPUS}\n", 2, NULL, ck_keywords },
	{ "bs=R,W",
	  "[a]\nbs=4k,8k\n[b]\nbs=,8k\n[c]\nbs=16k\n[d]\nbs=8k,\n[e]\nblocksize=2k,4k,512\n"
	  "[global]\nbs=8k\n[f]\nbs=,16k\n[g]\nbs=16m\n", 7, NULL, ck_bs },
	{ "bsrange",
	  "[a]\nbsrange=1k-4k\n[b]\nblocksize_range=4k:1k\n[c]\nbsrange=1k-4k,2k-8k,512-1k\n"
	  "[d]\nbsrange=1k-4k,\nbs=8k\n[e]\nbsrange=,512-1k\n", 5, NULL, ck_bsrange },
	{ "bssplit",
	  "[a]\nbssplit=4k/10:8k/:16k\n[b]\nbssplit=4k:8k:16k:\n[c]\nbssplit=64k\n"
	  "[d]\nbssplit=4k/70:8k/30,16k/100\n[e]\nbssplit=4k/0:8k/50\n"
	  "[f]\nbssplit=,4k/50:8k/50\n", 6, NULL, ck_bssplit },
	{ "rw=...:N",
	  "[a]\nrw=randread:8\n[b]\nrw=write:4k\n[c]\nreadwrite=randrw:4\n[d]\nrw=randread:8\nrw=rw\n",
	  4, NULL, ck_rw_postfix },
	{ "rwmixwrite and rw",
	  "[a]\nrwmixwrite=30\n[b]\nrwmixread=10\nrwmixwrite=20\n[c]\nrwmixwrite=20\nrwmixread=10\n"
	  "[d]\nrw=randrw\n[e]\nreadwrite=rw\n[f]\nrw=readwrite\n[g]\nrw=write\n[h]\nrw=randwrite\n",
	  8, NULL, ck_rwmix },
	{ "rate_iops, rate_process, thinktime",
	  "[a]\nrate_iops=100\nrate_process=poisson\nthinktime=10\nthinktime_blocks=4\n"
	  "[b]\nrate_iops=100,200\nthinktime=10ms\nthinktime_spin=20ms\n"
	  "[c]\nrate_iops=,50\nthinktime=2s\nthinktime_spin=5\n", 3, NULL, ck_load },
	{ "iodepth_batch",
	  "[global]\niodepth=8\n[a]\n[b]\niodepth_batch=0\n[c]\niodepth_batch=16\n"
	  "[d]\niodepth_batch_complete=4\n[e]\niodepth_batch_complete_min=2\n"
	  "iodepth_batch_complete_max=8\niodepth_batch_submit=4\n", 5, NULL, ck_batch },
	{ "percentages",
	  "[global]\nsize=50%\noffset=25%\noffset_increment=10%\n[a]\n"
	  "[b]\nsize=1m\noffset_increment=1m\n", 2, NULL, ck_pct },
	{ "random_distribution and seeds",
	  "[a]\nrandom_distribution=zipf\n[b]\nrandom_distribution=zipf:0.8\n"
	  "[c]\nrandom_distribution=pareto:0.3:0.5\n[d]\nrandom_distribution=normal:10\n"
	  "[e]\nrandom_distribution=pareto\n[f]\nnorandommap\n[g]\nrandseed=1234\n"
	  "[h]\nrandseed=0x89\nrandrepeat=1\n", 8, NULL, ck_random },
	{ "cpus_allowed",
	  "[a]\ncpus_allowed=0\n[b]\ncpus_allowed_policy=split\ncpus_allowed=0\n[c]\ncpumask=1\n",
	  3, NULL, ck_cpus },
	{ "reporting options",
	  "[a]\npercentile_list=99.9:50\nlat_percentiles=1\nclat_percentiles=0\n"
	  "slat_percentiles=1\nunified_rw_reporting=mixed\ndescription=a b = c\n"
	  "[b]\npercentile_list=1:50.5:99.999\nunified_rw_reporting=both\n"
	  "[c]\nunified_rw_reporting=1\npercentile_list=50\n", 3, NULL, ck_report_opts },
	{ "verify options",
	  "[a]\nverify=crc32c\nverify_backlog=16\ncontinue_on_error=io\n"
	  "[b]\nverify_pattern=0xdeadbeef\n[c]\nverify=md5\nverify_pattern=\"ab\"10x0004\n"
	  "do_verify=0\ncontinue_on_error=1\n[d]\nverify=crc32c-intel\nverify_pattern=-1024\n",
	  4, NULL, ck_verify },
	{ "io_uring engine options",
	  "[global]\nioengine=io_uring\nhipri\n[a]\nfixedbufs\nregisterfiles=1\nsqthread_poll\n"
	  "[b]\nioengine=libaio\n[c]\nioengine=io_uring_cmd\n[d]\nioengine=null\n",
	  4, NULL, ck_engine },
	{ "job and global options",
	  "[global]\nioengine=null\nsize=1m\nruntime=1\n[a]\nbs=8k\nfilename=/tmp/x\nrw=randread\n"
	  "kb_base=1000\ntime_based\niodepth=4\n[global]\nnumjobs=2\ndescription=d\n"
	  "[b]\nname=other\nruntime=2\n", 2, NULL, ck_options_list },
	{ "options accepted at fio's default",
	  "[j]\nbwavgtime=500\nstats=1\nunit_base=8\niopsavgtime=500\n",
	  1, NULL, ck_inert },
	{ "inert option warns", "[j]\nclocksource=gettimeofday\n", 1,
	  "t.fio:2: warning: option 'clocksource' has no effect in rqlock", ck_empty_ok },
	{ "buffered, ioengine, name, limits",
	  "[a]\nbuffered=0\n[b]\ndirect=1\nbuffered=1\n[global]\nname=g\n"
	  "[c]\nioengine=null\ndescription=any text = even this\n"
	  "[d]\nname=renamed\nioengine=io_uring\niodepth=65536\nnumjobs=4096\n[e]\niodepth=1k\n",
	  5, NULL, ck_misc },
	{ "thread warns", "[j]\nthread\n", 1,
	  "t.fio:2: warning: option 'thread' has no effect in rqlock (workers are always threads)",
	  ck_empty_ok },
	{ "time_based without runtime", "[j]\ntime_based\n", 1,
	  "t.fio:1: warning: job 'j': time_based without runtime is ignored", ck_time_based },
	{ "global prefix (fio)", "[global-x]\nbs=8k\n[j]\n", 1, NULL, ck_global_prefix },
	{ "groupid",
	  "[a]\nstonewall\n[b]\n[c]\nstonewall\n[d]\n[e]\nnew_group\n[f]\n[g]\nwait_for_previous\n",
	  7, NULL, ck_groups },
	{ "stonewall in global", "[global]\nstonewall\n[a]\n[b]\n[c]\n", 3, NULL, ck_global_wall },
	{ "section lines", "# c\n\n[a]\nbs=8k\n\n[b]\n", 2, NULL, ck_lines },
	{ "empty filename", "[j]\nfilename=\n", 1, NULL, ck_empty_ok },
	{ "wait_for", "[a]\n[b]\nwait_for=a\n", 2, NULL, ck_wait_for },
	{ "group_reporting with equal lat_percentiles",
	  "[global]\ngroup_reporting\nlat_percentiles=1\n[a]\n[b]\n", 2, NULL, ck_nothing },
};

static void test_ok(void)
{
	size_t i;
	char ncpus[32];

	setenv("RQ_T_BS", "16k", 1);
	setenv("RQ_T_DIR", "/tmp", 1);
	setenv("RQ_T_NCPUS", "$ncpus", 1);
	unsetenv("RQ_T_UNSET");
	snprintf(ncpus, sizeof(ncpus), "%ld", jf_cpus_configured());
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
		if (r.rc || (c->warn && !strstr(r.err, c->warn)) || (!c->warn && r.errlen))
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
	{ "size fraction of percent", "[j]\nsize=10.5%\n", "t.fio:2: ", "fio reads 10.5% as 10 bytes" },
	{ "size above 100%", "[j]\nsize=101%\n", "t.fio:2: ", "at most 100" },
	{ "size zones", "[j]\nsize=4z\n", "t.fio:1: ", "needs zonemode=strided or zbd with zonesize" },
	{ "percent where fio has none", "[j]\nbs=10%\n", "t.fio:2: ", "'bs'" },
	{ "size below bs", "[j]\nsize=2k\n", "t.fio:1: ", "size=2048 is below the smallest block size 4096" },
	{ "offset garbage", "[j]\noffset=abc\n", "t.fio:2: ", "'offset'" },
	{ "runtime=10sec", "[j]\nruntime=10sec\n", "t.fio:2: ", "'runtime'" },
	{ "thinktime=10sec", "[j]\nthinktime=10sec\n", "t.fio:2: ", "'thinktime'" },
	{ "ramp_time fraction", "[j]\nramp_time=1.5\n", "t.fio:2: ", "'ramp_time'" },
	{ "rw=foo", "[j]\nrw=foo\n", "t.fio:2: ", "bad value 'foo' for option 'rw' (valid: read," },
	{ "rw=read:-x", "[j]\nrw=read:-x\n", "t.fio:2: ", "bad value '-x' for option 'rw'" },
	{ "rw=randread:0", "[j]\nrw=randread:0\n", "t.fio:2: ", "'rw'" },
	{ "rw=read:4x", "[j]\nrw=read:4x\n", "t.fio:2: ", "bad value '4x' for option 'rw'" },
	{ "rw=randread:x", "[j]\nrw=randread:x\n", "t.fio:2: ", "'rw'" },
	{ "ioengine=vsync", "[j]\nioengine=vsync\n", "t.fio:2: ", "ioengine=vsync is not supported" },
	{ "ioengine=foo", "[j]\nioengine=foo\n", "t.fio:2: ",
	  "'ioengine' (valid: io_uring, null, libaio, io_uring_cmd, posixaio, sync, psync)" },
	{ "engine option of another engine", "[j]\ndonorname=x\n", "t.fio:2: ",
	  "option 'donorname' belongs to fio's ioengine=e4defrag, which rqlock does not have" },
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
	{ "include a missing file", "[j]\ninclude rq-no-such-file.fio\n", "t.fio:2: ",
	  "include rq-no-such-file.fio: cannot open" },
	{ "include outside a section", "include x.fio\n[j]\n", "t.fio:1: ", "'include' outside" },
	{ "include without a name", "[j]\ninclude\n", "t.fio:2: ", "'include' needs a file name" },
	{ "include a directory", "[j]\ninclude /\n", "t.fio:2: ", "not a regular file" },
	{ "error in [global]", "[global]\nbs=0\n[j]\n", "t.fio:2: ", "'bs'" },
	{ "error after ${VAR}", "[j]\nbs=${RQ_T_ZERO}\n", "t.fio:2: ", "bad value '0' for option 'bs'" },
	{ "arithmetic with a suffix", "[j]\nsize=$mb_memory/2m\n", "t.fio:2: ", "cannot compute" },
	{ "division by zero", "[j]\nnumjobs=$ncpus/0\n", "t.fio:2: ", "division by zero" },
	{ "arithmetic without a keyword", "[j]\nnumjobs=2*3\n", "t.fio:2: ", "'numjobs'" },
	{ "parentheses without a keyword", "[j]\nsize=(1+1)m\n", "t.fio:2: ", "no arithmetic in parentheses" },
	{ "keyword and a path", "[j]\nfilename=/tmp/$ncpus\n", "t.fio:2: ", "cannot compute" },
	{ "bssplit over 100", "[j]\nbssplit=4k/60:8k/50\n", "t.fio:2: ", "more than 100" },
	{ "bssplit share 101", "[j]\nbssplit=4k/101\n", "t.fio:2: ", "at most 100" },
	{ "bssplit empty entry", "[j]\nbssplit=4k/50::8k/50\n", "t.fio:2: ", "an empty entry" },
	{ "bssplit bs 0", "[j]\nbssplit=0/100\n", "t.fio:2: ", "'bssplit'" },
	{ "bssplit four lists", "[j]\nbssplit=4k,4k,4k,4k\n", "t.fio:2: ", "at most R,W,T" },
	{ "bssplit share text", "[j]\nbssplit=4k/x\n", "t.fio:2: ", "whole percentage" },
	{ "bsrange without a range", "[j]\nbsrange=4k\n", "t.fio:2: ", "expected MIN-MAX" },
	{ "bsrange 0", "[j]\nbsrange=0-4k\n", "t.fio:2: ", "'bsrange'" },
	{ "percentile 0", "[j]\npercentile_list=0:50\n", "t.fio:2: ", "fio ends the list at a 0" },
	{ "percentile text", "[j]\npercentile_list=50:abc\n", "t.fio:2: ", "'percentile_list'" },
	{ "21 percentiles", "[j]\npercentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21\n",
	  "t.fio:2: ", "more than 20" },
	{ "percentile above 100", "[j]\npercentile_list=100.5\n", "t.fio:2: ", "at most 100" },
	{ "cpus_allowed too large", "[j]\ncpus_allowed=1023\n", "t.fio:2: ", "too large" },
	{ "cpus_allowed backwards", "[j]\ncpus_allowed=3-1\n", "t.fio:2: ", "must not go down" },
	{ "cpus_allowed text", "[j]\ncpus_allowed=a\n", "t.fio:2: ", "'cpus_allowed'" },
	{ "cpumask=0", "[j]\ncpumask=0\n", "t.fio:2: ", "'cpumask'" },
	{ "zipf 1", "[j]\nrandom_distribution=zipf:1\n", "t.fio:2: ", "must not be 1" },
	{ "pareto 1.5", "[j]\nrandom_distribution=pareto:1.5\n", "t.fio:2: ", "pareto h" },
	{ "normal 100", "[j]\nrandom_distribution=normal:100\n", "t.fio:2: ", "normal deviation" },
	{ "center 2", "[j]\nrandom_distribution=zipf:1.2:2\n", "t.fio:2: ", "center" },
	{ "random with a parameter", "[j]\nrandom_distribution=random:1\n", "t.fio:2: ", "no parameter" },
	{ "zoned short of 100", "[j]\nrandom_distribution=zoned:50/50\n", "t.fio:2: ",
	  "the access shares must add up to 100" },
	{ "zoned over 100", "[j]\nrandom_distribution=zoned:60/10:50/10\n", "t.fio:2: ",
	  "the shares add up to more than 100" },
	{ "zoned without zones", "[j]\nrandom_distribution=zoned\n", "t.fio:2: ", "zoned needs its zones" },
	{ "ignore_error unknown", "[j]\nignore_error=EFOO\n", "t.fio:2: ", "unknown error" },
	{ "filesize range backwards", "[j]\nfilesize=2m-1m\n", "t.fio:2: ", "the range ends below its start" },
	{ "latency_percentile 0", "[j]\nlatency_percentile=0\n", "t.fio:2: ", "'latency_percentile'" },
	{ "flow not a number", "[j]\nflow=x\n", "t.fio:2: ", "'flow'" },
	{ "verify=sha256", "[j]\nverify=sha256\n", "t.fio:2: ", "verify=sha256 is not supported" },
	{ "verify_pattern %o", "[j]\nverify_pattern=%o\n", "t.fio:2: ", "%o" },
	{ "verify_pattern unclosed", "[j]\nverify_pattern=\"ab\n", "t.fio:2: ", "closing" },
	{ "continue_on_error=x", "[j]\ncontinue_on_error=x\n", "t.fio:2: ", "'continue_on_error'" },
	{ "unified_rw_reporting=3", "[j]\nunified_rw_reporting=3\n", "t.fio:2: ", "'unified_rw_reporting'" },
	{ "hipri without ioengine", "[j]\nhipri\n", "t.fio:2: ", "set ioengine=io_uring" },
	{ "hipri in [global], engine in the job", "[global]\nhipri\n[j]\nioengine=io_uring\n",
	  "t.fio:2: ", "set ioengine=io_uring" },
	{ "hipri with null", "[j]\nioengine=null\nhipri\n", "t.fio:3: ", "not to ioengine=null" },
	{ "refused option", "[j]\nmax_latency=1m\n", "t.fio:2: ", "option 'max_latency' is not supported in rqlock" },
	{ "refused alias", "[j]\nblocksize_unaligned\n", "t.fio:2: ", "option 'blocksize_unaligned' is not supported" },
	{ "merge scalar 0", "[j]\nmerge_blktrace_scalars=50:0\n", "t.fio:2: ", "a percentage of the trace's times, 1 or more" },
	{ "merge iters 21", "[j]\nmerge_blktrace_iters=1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1\n", "t.fio:2: ",
	  "more than 20 values" },
	{ "log_hist_coarseness 7", "[j]\nlog_hist_coarseness=7\n", "t.fio:2: ", "log_hist_coarseness" },
	{ "log_unix_epoch", "[j]\nlog_unix_epoch=1\n", "t.fio:2: ", "only log_unix_epoch=0" },
	{ "only the default", "[j]\nbwavgtime=1000\n", "t.fio:2: ",
	  "option 'bwavgtime=1000' is not supported in rqlock, only bwavgtime=500 (fio's default)" },
	{ "only the default, bare", "[j]\noverwrite\n", "t.fio:2: ", "only overwrite=0" },
	{ "refused io_uring option", "[j]\nioengine=io_uring\nuncached=1\n", "t.fio:3: ", "'uncached'" },
	{ "wait_for unknown", "[a]\nwait_for=b\n[b]\n", "t.fio:1: ", "wait_for=b names no job before it" },
	{ "wait_for itself", "[a]\nwait_for=a\n", "t.fio:1: ", "cannot wait for itself" },
	{ "wait_for twice", "[a]\n[a]\n[b]\nwait_for=a\n", "t.fio:3: ", "names 2 jobs" },
	{ "group lat_percentiles", "[global]\ngroup_reporting\n[a]\n[b]\nlat_percentiles=1\n",
	  "t.fio:4: ", "lat_percentiles differs" },
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

/* Every option fio knows and rqlock does not implement says so, with file:line. */
static void test_unimplemented(void)
{
	char text[256], name[96];

	for (unsigned int i = 0; i < jf_nr_opts(); i++) {
		const struct opt *o = jf_opt_at(i);
		struct res r = { 0 };

		if (o->kind == K_IMPL)
			continue;
		snprintf(name, sizeof(name), "fio option %s", o->name);
		cur_case = name;
		CHECK(o->why && *o->why);
		/* a value no default has */
		snprintf(text, sizeof(text), "[j]\n%s=rq-not-a-default\n", o->name);
		run(&r, text);
		if (o->kind == K_INERT) {
			CHECK(r.rc == 0 && nlines(r.err) == 1);
			CHECK(strstr(r.err, "t.fio:2: warning: option '") == r.err);
		} else {
			CHECK(r.rc == -EINVAL && nlines(r.err) == 1);
			CHECK(strstr(r.err, "t.fio:2: option '") == r.err);
			CHECK(strstr(r.err, "not supported in rqlock") != NULL);
		}
		done(&r);
		if (o->kind == K_ONLY) {
			/* each accepted value passes */
			const char *a = o->only;

			while (*a) {
				size_t n = strcspn(a, "|");

				snprintf(text, sizeof(text), "[j]\n%s=%.*s\n", o->name, (int)n, a);
				run(&r, text);
				CHECK(r.rc == 0 && r.errlen == 0);
				done(&r);
				a += n + (a[n] == '|');
			}
		}
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
		ck_long_desc(&r.l);
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

/* ---- --showcmd ------------------------------------------------------------ */

static const struct {
	const char *name, *text, *want;
} show_cases[] = {
	{ "showcmd defaults", "[j]\n", "fio --name=j --ioengine=io_uring\n" },
	{ "showcmd resolved",
	  "[global]\nbs=4k\nioengine=null\n[a]\nrw=randread:8\nsize=1m\nruntime=90\nthinktime=2ms\n"
	  "bssplit=4k/20:8k\ndescription=two words\n[b]\nsize=50%\ntime_based\nruntime=1m\n"
	  "rwmixwrite=30\nbuffered=0\npercentile_list=50:99.5\nstonewall\n",
	  "fio --name=a --description='two words' --runtime=90s --rw=randread:8 "
	  "--bs=4096,4096,4096 --bssplit=4096/20:8192/80,4096/20:8192/80,4096/20:8192/80 "
	  "--ioengine=null --size=1048576 --thinktime=2ms \\\n    --name=b --runtime=1m "
	  "--time_based --stonewall --bs=4096,4096,4096 --ioengine=null --size=50% "
	  "--rwmixwrite=30 --buffered=0 --percentile_list=50.0:99.5\n" },
};

static void test_showcmd(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(show_cases); i++) {
		struct res r = { 0 };
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		cur_case = show_cases[i].name;
		run(&r, show_cases[i].text);
		CHECK(r.rc == 0);
		f = open_memstream(&buf, &len);
		CHECK(f && rq_jobs_showcmd(&r.l, f) == 0);
		if (f)
			fclose(f);
		CHECK(buf && !strcmp(buf, show_cases[i].want));
		if (buf && strcmp(buf, show_cases[i].want))
			fprintf(stderr, "  got:  %s  want: %s", buf, show_cases[i].want);
		free(buf);
		done(&r);
	}
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

/* fio's logs: a bare write_*_log names the files after the job, a value names them */
static void test_logs(void)
{
	struct res r = { 0 };
	const struct rq_job *a, *b;

	cur_case = "logs";
	run(&r, "[global]\nwrite_iops_log\nlog_avg_msec=250\n[a]\nwrite_lat_log\nwrite_bw_log=bwx\n"
		"write_hist_log=h\nlog_hist_msec=100\nlog_hist_coarseness=2\nlog_offset=1\n"
		"[b]\nper_job_logs=0\nlog_max_value=1\nlog_prio=1\n[c]\n");
	CHECK(r.rc == 0 && r.l.nr == 3);
	if (r.rc || r.l.nr != 3)
		return;
	a = &r.l.jobs[0];
	b = &r.l.jobs[1];
	CHECK(a->write_logs == (RQ_JOB_LOG_LAT | RQ_JOB_LOG_BW | RQ_JOB_LOG_IOPS | RQ_JOB_LOG_HIST));
	CHECK(!a->lat_log_file[0] && !a->iops_log_file[0]);
	CHECK(!strcmp(a->bw_log_file, "bwx") && !strcmp(a->hist_log_file, "h"));
	CHECK(a->log_avg_msec == 250 && a->log_hist_msec == 100 && a->log_hist_coarseness == 2);
	CHECK(a->log_offset && !a->log_max_value && !a->log_prio && a->per_job_logs);
	CHECK(b->write_logs == RQ_JOB_LOG_IOPS && !b->per_job_logs && b->log_max_value && b->log_prio);
	CHECK(r.l.jobs[2].write_logs == RQ_JOB_LOG_IOPS && r.l.jobs[2].per_job_logs);
	rq_jobs_free(&r.l);
	free(r.err);
}

/*
 * Every section of the registry: names and aliases unique across them, the
 * index dense (it is the bit in opts_set) and within RQ_JOB_OPTS_MAX, the
 * implemented sections before fio's others, each entry complete.
 */
static void test_table(void)
{
	unsigned int i, k, nr = jf_nr_opts();
	bool unimpl_seen = false;

	cur_case = "table size";
	CHECK(nr > 0 && nr <= RQ_JOB_OPTS_MAX);
	CHECK(jf_opt_at(nr) == NULL);
	for (i = 0; i < nr; i++) {
		const struct opt *o = jf_opt_at(i);
		size_t slots;

		cur_case = "table index";
		CHECK(o != NULL);
		if (!o)
			continue;
		cur_case = o->name;
		slots = o->nr ? o->nr : 1;
		CHECK(jf_opt_idx(o) == i);
		CHECK(jf_opt_find(o->name) == o);
		CHECK(o->kind != K_IMPL || !unimpl_seen);
		unimpl_seen |= o->kind != K_IMPL;
		for (k = 0; k < nr; k++) {
			if (k == i)
				continue;
			CHECK(!opt_is(jf_opt_at(k), o->name));
			CHECK(!o->alias || !opt_is(jf_opt_at(k), o->alias));
		}
		if (o->kind != K_IMPL) {
			CHECK(o->why != NULL);
			CHECK(o->kind != K_ONLY || o->only != NULL);
			continue;
		}
		/* the default is stated once: .def, or the help's own "(default: ...)" where there is none */
		CHECK(o->help && (strstr(o->help, "(default: ") != NULL) == !o->def);
		CHECK(!o->size || o->off + slots * o->size <= sizeof(struct rq_job));
		CHECK(o->type != OPT_ENUM || o->vals);
		CHECK(!o->bit || o->size == sizeof(int) || o->type == OPT_NAME);
		CHECK(o->type != OPT_NAME || (o->set && o->bit));
		CHECK(o->size || o->set);
		CHECK(o->type != OPT_TIME || (o->unit && o->div));
		CHECK(!o->pct || o->pct_off);
	}
}

int main(void)
{
	test_numbers();
	test_calc();
	test_ok();
	test_errors();
	test_unimplemented();
	test_long();
	test_showcmd();
	test_split();
	test_rw();
	test_logs();
	test_table();
	if (failures) {
		fprintf(stderr, "test_parser: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_parser: all passed\n");
	return 0;
}
