// SPDX-License-Identifier: MIT
/*
 * test_output.c - the fio-compatible renderings of hand-built reports.
 *
 * Report 1: two jobs (reads, writes, an error, two groups) with fio's
 * sample statistics, depth histograms, CPU figures and options, a lock, a
 * queue and a device whose name holds a quote, a backslash and a tab, and
 * whose model holds UTF-8 and a byte that is not UTF-8 (it must come out
 * as U+FFFD).  The JSON must parse (python3's json module is the judge),
 * have fio 3.33's layout and key order, and carry numbers computed as fio
 * computes them; the normal text must have fio's lines; the terse line
 * fio's version-3 fields.
 *
 * Report 2: group_reporting (three clones merged as fio merges them),
 * unified_rw_reporting=mixed and =both, a custom percentile list, json+
 * bins.
 *
 * Exit 0 pass, 1 fail (naming the case), 77 skip when python3 is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/results.h"
#include "tests/helpers.h"


/* ------------------------------------------------------------ report */

static struct rq_job_report jobs[2];
static struct rq_lock_report locks[1] = { { "io_request_lock", 1000000, 12345 } };
static struct rq_queue_report queues[1] = { { .name = "nullb0", .requests = 5000, .bios = 5600,
					      .merges_front = 100, .merges_back = 500,
					      .dispatched = 5000, .completed = 5000 } };
static struct rq_device_report devices[1] = { {
	.name = "dev\"quote\\back\ttab",
	.kind = "null",
	.subkind = "",
	.path = "",
	.model = "null \xc3\xa9\xff",	/* UTF-8 e-acute, then a stray byte */
	.size = 1ULL << 30,
	.logical_block_size = 512,
	.queue_depth = 64,
} };
static const char *const opt_keys[] = { "name", "ioengine", "rw", "bs" };
static const char *const opt_vals[] = { "seq-read", "null", "read", "4k" };
static const char *const glob_keys[] = { "size", "direct" };
static const char *const glob_vals[] = { "1g", "1" };

static void fill_dir(struct rq_dir_report *d, uint64_t ios, uint64_t bs, uint64_t runtime_ns,
		     uint64_t clat_base, bool slat)
{
	uint64_t i;

	rq_lat_init(&d->slat);
	rq_lat_init(&d->clat);
	rq_lat_init(&d->lat);
	d->total_ios = ios;
	d->io_bytes = ios * bs;
	d->runtime_ns = runtime_ns;
	for (i = 0; i < ios; i++) {
		uint64_t s = slat ? 100 + i % 50 : 0;
		uint64_t c = clat_base + (i * 7919) % 200000;

		if (slat)
			rq_lat_add(&d->slat, s);
		rq_lat_add(&d->clat, c);
		rq_lat_add(&d->lat, s + c);
	}
}

static void build(struct rq_run_report *r)
{
	memset(r, 0, sizeof(*r));
	memset(jobs, 0, sizeof(jobs));
	r->version = "rqlock-0.1";
	r->timestamp = 1796285347;
	r->timestamp_ms = 1796285347077ULL;
	r->elapsed_ms = 4200;
	snprintf(r->time, sizeof(r->time), "Thu Dec  3 08:09:07 2026");
	r->global_opt_keys = glob_keys;
	r->global_opt_vals = glob_vals;
	r->nr_global_opts = 2;

	snprintf(jobs[0].name, sizeof(jobs[0].name), "seq-read");
	jobs[0].groupid = 0;
	jobs[0].clone = 0;
	jobs[0].job_runtime_ns = 3200000;
	jobs[0].opt_keys = opt_keys;
	jobs[0].opt_vals = opt_vals;
	jobs[0].nr_opts = 4;
	jobs[0].clat_percentiles = true;
	jobs[0].description = "reads \"quoted\"";
	jobs[0].iodepth = 8;
	jobs[0].latency_percentile = 100.0;	/* the option's default, as a run reports it */
	jobs[0].usr_cpu = 25.0;
	jobs[0].sys_cpu = 50.0;
	jobs[0].ctx = 42;
	jobs[0].majf = 1;
	jobs[0].minf = 99;
	jobs[0].depth_hist[0] = 96;		/* 4096 I/Os: 96 at depth 1, 4000 at 8 */
	jobs[0].depth_hist[3] = 4000;
	jobs[0].submit_hist[1] = 1000;		/* calls */
	jobs[0].complete_hist[1] = 999;
	jobs[0].complete_hist[2] = 1;
	/* 4096 reads of 4 KiB in 2.5 ms: fio rounds that up to 3 ms */
	fill_dir(&jobs[0].dir[RQ_DDIR_READ], 4096, 4096, 2500000, 1000, true);
	fill_dir(&jobs[0].dir[RQ_DDIR_WRITE], 0, 0, 0, 0, false);
	jobs[0].dir[RQ_DDIR_READ].bw = (struct rq_sample_stat){ 6, 5000000, 5600000, 5461333.5, 1234.5 };
	jobs[0].dir[RQ_DDIR_READ].iops = (struct rq_sample_stat){ 6, 1250000, 1400000, 1365333.25, 300.25 };

	snprintf(jobs[1].name, sizeof(jobs[1].name), "mixed");
	jobs[1].groupid = 1;
	jobs[1].clone = 1;
	jobs[1].error = EIO;
	jobs[1].job_runtime_ns = 10000000;
	jobs[1].clat_percentiles = true;
	jobs[1].continue_on_error = 3;
	jobs[1].total_err = 7;
	jobs[1].first_error = EIO;
	fill_dir(&jobs[1].dir[RQ_DDIR_READ], 1000, 8192, 10000000, 3000000, true);
	fill_dir(&jobs[1].dir[RQ_DDIR_WRITE], 500, 8192, 10000000, 50, false);

	r->jobs = jobs;
	r->nr_jobs = 2;
	r->lock_mode = "global";
	r->lock_type = "ttas";
	r->workers = 4;
	r->locks = locks;
	r->nr_locks = 1;
	r->queues = queues;
	r->nr_queues = 1;
	r->devices = devices;
	r->nr_devices = 1;
}

/* Report 2: three clones of one group_reporting job, then unified mixed and both. */
static struct rq_job_report gjobs[5];
static const double my_pcts[] = { 99.9, 50.0, 99.0 };
static const char *const gkeys[][1] = { { "numjobs" }, { "numjobs" }, { "rw" } };
static const char *const gvals[][1] = { { "3" }, { "3" }, { "randrw" } };

static void build_groups(struct rq_run_report *r)
{
	memset(r, 0, sizeof(*r));
	memset(gjobs, 0, sizeof(gjobs));
	r->version = "rqlock-0.1";
	snprintf(r->time, sizeof(r->time), "now");
	for (int i = 0; i < 3; i++) {
		struct rq_job_report *j = &gjobs[i];

		snprintf(j->name, sizeof(j->name), i ? "g-later" : "g");
		j->groupid = 0;
		j->clone = (unsigned int)i;
		j->group_reporting = true;
		j->clat_percentiles = true;
		j->job_runtime_ns = (uint64_t)(i + 1) * 1000000000ULL + 999999;	/* 1, 2, 3 s (ms truncated) */
		j->error = i == 1 ? EIO : (i == 2 ? ENOSPC : 0);
		j->usr_cpu = 10.0 * (i + 1);
		j->opt_keys = gkeys[i];
		j->opt_vals = gvals[i];
		j->nr_opts = 1;
		fill_dir(&j->dir[RQ_DDIR_READ], 1000 * (uint64_t)(i + 1), 4096,
			 (uint64_t)(i + 1) * 1000000000ULL, 10000 * (uint64_t)(i + 1), false);
		fill_dir(&j->dir[RQ_DDIR_WRITE], 0, 0, 0, 0, false);
		j->dir[RQ_DDIR_READ].bw = (struct rq_sample_stat){ 2, 100, 200 + (uint64_t)i, 150.0, 10.0 };
		j->dir[RQ_DDIR_READ].iops = (struct rq_sample_stat){ 2, 25, 50, 37.5, 2.0 };
	}
	/* the last clone's percentile list wins, as fio takes it */
	gjobs[2].percentiles = my_pcts;
	gjobs[2].nr_percentiles = 3;
	gjobs[2].percentile_precision = 1;

	for (int i = 3; i < 5; i++) {
		struct rq_job_report *j = &gjobs[i];

		snprintf(j->name, sizeof(j->name), i == 3 ? "uni-mixed" : "uni-both");
		j->groupid = i - 2;
		j->clat_percentiles = true;
		j->lat_percentiles = i == 4;
		j->unified_rw_reporting = i == 3 ? 1 : 2;
		j->job_runtime_ns = 2000000000ULL;
		fill_dir(&j->dir[RQ_DDIR_READ], 300, 4096, 2000000000ULL, 5000, false);
		fill_dir(&j->dir[RQ_DDIR_WRITE], 100, 4096, 1500000000ULL, 90000, false);
		j->dir[RQ_DDIR_READ].bw = (struct rq_sample_stat){ 4, 500, 700, 600.0, 81.6 };
		j->dir[RQ_DDIR_WRITE].bw = (struct rq_sample_stat){ 3, 100, 300, 200.0, 100.0 };
	}
	r->jobs = gjobs;
	r->nr_jobs = 5;
	r->lock_mode = "global";
	r->lock_type = "ttas";
}

/* ----------------------------------------------------------- helpers */

/* Render @formats into a new temporary file; its path goes to @path. */
static char *render(const struct rq_run_report *r, unsigned int formats, char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	char *buf = NULL;
	long size;
	FILE *f;
	int fd, ret, n;

	/* the path goes into a shell command in single quotes */
	if (!dir || !*dir || strchr(dir, '\'') || strlen(dir) > 900)
		dir = "/tmp";
	n = snprintf(path, len, "%s/rqlock-test-output-", dir);
	if (n < 0 || (size_t)n + 7 > len)
		return NULL;
	memset(path + n, 'X', 6);	/* mkstemp's template: six of them */
	path[n + 6] = '\0';
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w+");
	if (!f) {
		close(fd);
		return NULL;
	}
	ret = rq_output_write(r, formats, f);
	if (ret)
		rq_test_fail("write", "rq_output_write(formats=%u) = %d", formats, ret);
	size = ftell(f);
	if (size >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = calloc(1, (size_t)size + 1);
		if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static void expect(const char *tcase, const char *text, const char *needle)
{
	if (!strstr(text, needle))
		rq_test_fail(tcase, "missing: %s", needle);
}

static void expect_not(const char *tcase, const char *text, const char *needle)
{
	if (strstr(text, needle))
		rq_test_fail(tcase, "unexpected: %s", needle);
}

/* ------------------------------------------------------------- cases */

static void test_parse_format(void)
{
	static const struct {
		const char *s;
		int ret;
		unsigned int formats;
	} cases[] = {
		{ "normal", 0, RQ_OUTPUT_NORMAL },
		{ "json", 0, RQ_OUTPUT_JSON },
		{ "normal,json", 0, RQ_OUTPUT_NORMAL | RQ_OUTPUT_JSON },
		{ "json,normal", 0, RQ_OUTPUT_NORMAL | RQ_OUTPUT_JSON },
		{ "json,json", 0, RQ_OUTPUT_JSON },
		{ "json+", 0, RQ_OUTPUT_JSON | RQ_OUTPUT_JSON_PLUS },
		{ "terse", 0, RQ_OUTPUT_TERSE },
		{ "terse,json+,normal", 0, RQ_OUTPUT_TERSE | RQ_OUTPUT_JSON | RQ_OUTPUT_JSON_PLUS |
					   RQ_OUTPUT_NORMAL },
		{ "", -EINVAL, 0 },
		{ "jsonx", -EINVAL, 0 },
		{ "json,", -EINVAL, 0 },
		{ ",json", -EINVAL, 0 },
		{ "JSON", -EINVAL, 0 },
		{ "json++", -EINVAL, 0 },
		{ "minimal", -EINVAL, 0 },
	};
	unsigned int formats;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		formats = 0xdead;
		ret = rq_output_parse_format(cases[i].s, &formats);
		if (ret != cases[i].ret)
			rq_test_fail("parse_format", "\"%s\" returned %d, want %d", cases[i].s, ret,
			     cases[i].ret);
		else if (!ret && formats != cases[i].formats)
			rq_test_fail("parse_format", "\"%s\" gave %#x, want %#x", cases[i].s, formats,
			     cases[i].formats);
		else if (ret && formats != 0xdead)
			rq_test_fail("parse_format", "\"%s\" failed but wrote the formats", cases[i].s);
	}
	if (rq_output_parse_format(NULL, &formats) != -EINVAL)
		rq_test_fail("parse_format", "NULL must be refused");
}

static void test_errors(const struct rq_run_report *r)
{
	FILE *f;
	int ret;

	if (rq_output_write(r, 0, stderr) != -EINVAL)
		rq_test_fail("errors", "no format must be refused");
	if (rq_output_write(r, 1u << 7, stderr) != -EINVAL)
		rq_test_fail("errors", "an unknown format bit must be refused");

	/* a stream that cannot be written: fprintf fails at once */
	f = fopen("/dev/null", "r");
	if (f) {
		ret = rq_output_write(r, RQ_OUTPUT_JSON | RQ_OUTPUT_NORMAL | RQ_OUTPUT_TERSE, f);
		if (ret >= 0)
			rq_test_fail("errors", "writing to a read-only stream returned %d", ret);
		fclose(f);
	}
	/* a full device: the error shows when the buffer is flushed */
	f = fopen("/dev/full", "w");
	if (f) {
		ret = rq_output_write(r, RQ_OUTPUT_JSON, f);
		if (ret != -ENOSPC && ret != -EIO)
			rq_test_fail("errors", "writing to /dev/full returned %d", ret);
		fclose(f);
	}
}

/* fio's layout, checked line by line: tools look for "{" and "}" lines. */
static void test_json_layout(const char *js)
{
	const char *last;
	size_t n = strlen(js);

	static const char head[] = "{\n  \"fio version\" : \"rqlock-0.1\",\n";

	if (strncmp(js, head, strlen(head)))
		rq_test_fail("json_layout", "does not open with fio's first lines");
	if (n < 3 || strcmp(js + n - 3, "\n}\n"))
		rq_test_fail("json_layout", "does not end with a \"}\" line");
	last = strstr(js, "\n}\n");
	if (last && last != js + n - 3)
		rq_test_fail("json_layout", "a \"}\" line before the end");

	expect("json_layout", js, "\n  \"timestamp\" : 1796285347,\n");
	expect("json_layout", js, "\n  \"time\" : \"Thu Dec  3 08:09:07 2026\",\n"
				  "  \"global options\" : {\n    \"size\" : \"1g\",\n");
	expect("json_layout", js, "\n  \"jobs\" : [\n    {\n      \"jobname\" : \"seq-read\",\n"
				  "      \"groupid\" : 0,\n      \"error\" : 0,\n      \"eta\" : 0,\n"
				  "      \"elapsed\" : 5,\n");
	expect("json_layout", js, "\n      \"job options\" : {\n        \"name\" : \"seq-read\",\n");
	/* fio's numbers: 3 ms, 16 MiB, 4096 I/Os */
	expect("json_layout", js, "\n        \"io_bytes\" : 16777216,\n"
				  "        \"io_kbytes\" : 16384,\n"
				  "        \"bw_bytes\" : 5592405333,\n"
				  "        \"bw\" : 5461333,\n"
				  "        \"iops\" : 1365333.333333,\n"
				  "        \"runtime\" : 3,\n"
				  "        \"total_ios\" : 4096,\n"
				  "        \"short_ios\" : 0,\n"
				  "        \"drop_ios\" : 0,\n");
	expect("json_layout", js, "\n          \"percentile\" : {\n            \"1.000000\" : ");
	expect("json_layout", js, "\n            \"99.990000\" : ");
	/* the sample statistics; bw_agg: 5461333 (fio takes the mean as an int) of 5461333.33 */
	expect("json_layout", js, "\n        \"bw_min\" : 5000000,\n        \"bw_max\" : 5600000,\n"
				  "        \"bw_agg\" : 99.999994,\n        \"bw_mean\" : 5461333.500000,\n"
				  "        \"bw_dev\" : 1234.500000,\n        \"bw_samples\" : 6,\n"
				  "        \"iops_min\" : 1250000,\n        \"iops_max\" : 1400000,\n"
				  "        \"iops_mean\" : 1365333.250000,\n"
				  "        \"iops_stddev\" : 300.250000,\n        \"iops_samples\" : 6\n");
	/* an idle direction: zeros and no percentile object */
	expect("json_layout", js, "\"clat_ns\" : {\n          \"min\" : 0,\n          \"max\" : 0,\n"
				  "          \"mean\" : 0.000000,\n          \"stddev\" : 0.000000,\n"
				  "          \"N\" : 0\n        }");
	expect("json_layout", js, "\n      \"sync\" : {\n        \"total_ios\" : 0,\n        \"lat_ns\" : {\n");
	/* CPU: 25% and 50% of 3 ms */
	expect("json_layout", js, "\n      \"job_runtime\" : 3,\n      \"usr_cpu\" : 25.000000,\n"
				  "      \"sys_cpu\" : 50.000000,\n      \"ctx\" : 42,\n"
				  "      \"majf\" : 1,\n      \"minf\" : 99,\n");
	/* 96 of 4096 is 2.34%; fio's batch buckets are 0, 4, 8, ... */
	expect("json_layout", js, "\n      \"iodepth_level\" : {\n        \"1\" : 2.343750,\n"
				  "        \"2\" : 0.000000,\n        \"4\" : 0.000000,\n"
				  "        \"8\" : 97.656250,\n");
	expect("json_layout", js, "\n      \"iodepth_complete\" : {\n        \"0\" : 0.000000,\n"
				  "        \"4\" : 99.900000,\n        \"8\" : 0.100000,\n");
	expect("json_layout", js, "\n      \"latency_depth\" : 8,\n      \"latency_target\" : 0,\n"
				  "      \"latency_percentile\" : 100.000000,\n"
				  "      \"latency_window\" : 0,\n"
				  "      \"desc\" : \"reads \\\"quoted\\\"\"\n    },\n");
	expect("json_layout", js, "\n      \"total_err\" : 7,\n      \"first_error\" : 5\n    }\n  ],\n");
	expect("json_layout", js, "\"name\" : \"dev\\\"quote\\\\back\\ttab\"");
	expect_not("json_layout", js, "\"bins\"");	/* json, not json+ */
}

/* Checked by python3's json module: validity, key order, fio's arithmetic. */
static const char *const py_check[] = {
	"import json, sys",
	"d = json.load(open(sys.argv[1]))",
	"bad = []",
	"def want(ok, what):",
	"    ok or bad.append(what)",
	"want(list(d) == ['fio version', 'timestamp', 'timestamp_ms', 'time', 'global options', 'jobs', 'rqlock'],",
	"     'top-level keys %s' % list(d))",
	"want(d['global options'] == {'size': '1g', 'direct': '1'}, 'global options')",
	"want(len(d['jobs']) == 2, 'two jobs')",
	"j0, j1 = d['jobs']",
	"common = ['jobname', 'groupid', 'error', 'eta', 'elapsed']",
	"tail = ['read', 'write', 'trim', 'sync', 'job_runtime', 'usr_cpu', 'sys_cpu', 'ctx', 'majf', 'minf',",
	"        'iodepth_level', 'iodepth_submit', 'iodepth_complete', 'latency_ns', 'latency_us', 'latency_ms']",
	"lat_t = ['latency_depth', 'latency_target', 'latency_percentile', 'latency_window']",
	"want(list(j0) == common + ['job options'] + tail + lat_t + ['desc'], 'job 0 keys %s' % list(j0))",
	"want(list(j1) == common + tail + ['total_err', 'first_error'], 'job 1 keys %s' % list(j1))",
	"want(j0['job options'] == {'name': 'seq-read', 'ioengine': 'null', 'rw': 'read', 'bs': '4k'},",
	"     'job options')",
	"want(j1['error'] == 5 and j1['groupid'] == 1, 'error and groupid')",
	"dkeys = ['io_bytes', 'io_kbytes', 'bw_bytes', 'bw', 'iops', 'runtime', 'total_ios',",
	"         'short_ios', 'drop_ios', 'slat_ns', 'clat_ns', 'lat_ns', 'bw_min', 'bw_max', 'bw_agg',",
	"         'bw_mean', 'bw_dev', 'bw_samples', 'iops_min', 'iops_max', 'iops_mean', 'iops_stddev',",
	"         'iops_samples']",
	"pk = ['%f' % p for p in (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)]",
	"for j in d['jobs']:",
	"    want(list(j['sync']) == ['total_ios', 'lat_ns'], 'sync keys')",
	"    want(list(j['iodepth_level']) == ['1', '2', '4', '8', '16', '32', '>=64'], 'iodepth_level keys')",
	"    want(list(j['iodepth_submit']) == ['0', '4', '8', '16', '32', '64', '>=64'], 'iodepth_submit keys')",
	"    r = ['2', '4', '10', '20', '50', '100', '250', '500', '750', '1000']",
	"    want(list(j['latency_ns']) == r and list(j['latency_us']) == r, 'latency_ns/us keys')",
	"    want(list(j['latency_ms']) == r + ['2000', '>=2000'], 'latency_ms keys')",
	"    tot = j['read']['total_ios'] + j['write']['total_ios']",
	"    s = sum(j['latency_ns'].values()) + sum(j['latency_us'].values()) + sum(j['latency_ms'].values())",
	"    want(abs(s - 100.0) < 0.05, 'latency buckets add up to 100: %f' % s)",
	"    for dd in ('read', 'write', 'trim'):",
	"        o = j[dd]",
	"        w = '%s %s' % (j['jobname'], dd)",
	"        want(list(o) == dkeys, w + ' keys %s' % list(o))",
	"        rt = o['runtime']",
	"        if rt:",
	"            want(abs(o['iops'] - o['total_ios'] * 1000.0 / rt) <= 1e-6 * o['iops'], w + ' iops')",
	"            want(o['bw_bytes'] == o['io_bytes'] * 1000 // rt, w + ' bw_bytes')",
	"        else:",
	"            want(o['iops'] == 0 and o['bw_bytes'] == 0, w + ' idle')",
	"        want(o['bw'] == o['bw_bytes'] // 1024, w + ' bw')",
	"        want(o['io_kbytes'] == o['io_bytes'] >> 10, w + ' io_kbytes')",
	"        want('percentile' not in o['slat_ns'], w + ' slat has no percentiles')",
	"        want('percentile' not in o['lat_ns'], w + ' lat has no percentiles by default')",
	"        for k in ('slat_ns', 'clat_ns', 'lat_ns'):",
	"            l = o[k]",
	"            want(list(l)[:5] == ['min', 'max', 'mean', 'stddev', 'N'], w + ' ' + k + ' keys')",
	"            if l['N'] == 0:",
	"                want(l == {'min': 0, 'max': 0, 'mean': 0, 'stddev': 0, 'N': 0}, w + ' ' + k + ' empty')",
	"            elif k == 'clat_ns':",
	"                p = l['percentile']",
	"                want(list(p) == pk, w + ' ' + k + ' percentile keys')",
	"                v = list(p.values())",
	"                want(v == sorted(v), w + ' ' + k + ' percentiles ascend')",
	"                want(l['min'] <= l['mean'] <= l['max'], w + ' ' + k + ' min/mean/max')",
	"                # a bucket value is within 1/64 of the samples in its bucket",
	"                want(all(l['min'] * 63 <= x * 64 <= l['max'] * 65 for x in v), w + ' ' + k + ' in range')",
	"want(j0['write']['total_ios'] == 0 and j0['write']['runtime'] == 0, 'idle write')",
	"want(j0['trim']['io_bytes'] == 0 and j0['trim']['bw_samples'] == 0, 'idle trim')",
	"# clat 1000..201000 ns: fio's edges put 1000 ns in the first usec bucket, the rest up to 250 us",
	"want(sum(j0['latency_ns'].values()) == 0 and j0['latency_us']['2'] > 0 and j0['latency_us']['250'] > 0, 'latency buckets %r %r' % (j0['latency_ns'], j0['latency_us']))",
	"x = d['rqlock']",
	"want(list(x)[:14] == ['lock_mode', 'lock_type', 'workers', 'bios_submitted', 'bios_completed', 'bios_abandoned', 'sectors_verified', 'clock', 'interrupted', 'stalled', 'stuck', 'locks', 'queues', 'devices'], 'rqlock keys')",
	"want(x['lock_mode'] == 'global' and x['lock_type'] == 'ttas' and x['workers'] == 4, 'rqlock facts')",
	"want(x['locks'] == [{'name': 'io_request_lock', 'acquisitions': 1000000, 'contentions': 12345}], 'locks')",
	"want(list(x['queues'][0])[:7] == ['name', 'requests', 'bios', 'merges_front', 'merges_back',",
	"     'dispatched', 'completed'], 'queue keys')",
	"want(x['queues'][0]['merges_back'] == 500, 'queue values')",
	"dv = x['devices'][0]",
	"want(dv['name'] == 'dev' + chr(34) + 'quote' + chr(92) + 'back' + chr(9) + 'tab', 'escaped name %r' % dv['name'])",
	"want(list(dv)[:8] == ['name', 'kind', 'subkind', 'path', 'model', 'size', 'logical_block_size',",
	"     'queue_depth'], 'device keys')",
	"want(dv['size'] == 1 << 30 and dv['subkind'] == '', 'device values')",
	"want(dv['model'] == 'null ' + chr(0xe9) + chr(0xfffd), 'model %r' % dv['model'])",
	"for b in bad:",
	"    print('python check: ' + b)",
	"sys.exit(1 if bad else 0)",
};

/* Report 2, by python3: fio's group merge and unified reporting. */
static const char *const py_groups[] = {
	"import json, sys",
	"d = json.load(open(sys.argv[1]))",
	"bad = []",
	"def want(ok, what):",
	"    ok or bad.append(what)",
	"js = d['jobs']",
	"want([j['jobname'] for j in js] == ['g', 'uni-mixed', 'uni-both'], 'names %r' % [j['jobname'] for j in js])",
	"g = js[0]",
	"r = g['read']",
	"want(r['runtime'] == 3000, 'runtime is the longest %d' % r['runtime'])",
	"want(g['job_runtime'] == 6000, 'job_runtime is the sum %d' % g['job_runtime'])",
	"want(r['io_bytes'] == 6000 * 4096 and r['total_ios'] == 6000, 'bytes and I/Os summed')",
	"want(r['clat_ns']['N'] == 6000 and r['clat_ns']['min'] == 10000, 'latencies merged')",
	"want(g['error'] == 5, 'first error %d' % g['error'])",
	"want(g['job options'] == {'numjobs': '3'} or g['job options'] == {'rw': 'randrw'}, 'job options')",
	"want(g['job options'] == {'rw': 'randrw'}, 'job options of the last clone %r' % g['job options'])",
	"want(list(r['clat_ns']['percentile']) == ['50.000000', '99.000000', '99.900000'], 'last clone list, sorted')",
	"want(r['bw_samples'] == 6 and r['bw_min'] == 300 and r['bw_max'] == 603 and r['bw_mean'] == 450.0, 'bw summed %r' % [r[k] for k in ('bw_samples','bw_min','bw_max','bw_mean')])",
	"want(abs(r['bw_dev'] - (300.0 / 5) ** 0.5) < 1e-6, 'bw_dev from summed S %f' % r['bw_dev'])",
	"want(abs(g['usr_cpu'] - (10 * 1000 + 20 * 2000 + 30 * 3000) / 6000.0) < 1e-6, 'usr_cpu %f' % g['usr_cpu'])",
	"m = js[1]",
	"want('mixed' in m and 'read' not in m and 'write' not in m and 'trim' not in m and 'sync' not in m, 'mixed keys %r' % list(m))",
	"mm = m['mixed']",
	"want(mm['total_ios'] == 400 and mm['runtime'] == 2000 and mm['clat_ns']['N'] == 400, 'mixed sums')",
	"want(mm['bw_samples'] == 7 and mm['bw_min'] == 600 and mm['bw_mean'] == 800.0, 'mixed bw')",
	"b = js[2]",
	"want(list(b)[5:10] == ['read', 'write', 'trim', 'sync', 'mixed'], 'both keys %r' % list(b))",
	"want(b['mixed']['total_ios'] == 400 and b['read']['total_ios'] == 300, 'both values')",
	"want('percentile' in b['mixed']['lat_ns'] and 'bins' in b['mixed']['lat_ns'], 'lat percentiles and bins')",
	"for j in js:",
	"    for dd in ('read', 'write', 'mixed'):",
	"        for k in ('clat_ns', 'lat_ns'):",
	"            l = j.get(dd, {}).get(k)",
	"            if not l or 'percentile' not in l:",
	"                continue",
	"            bins = l['bins']",
	"            want(sum(bins.values()) == l['N'], 'bins add up to N')",
	"            want(all(int(k2) >= 0 for k2 in bins), 'bin keys are values')",
	"for b2 in bad:",
	"    print('python check: ' + b2)",
	"sys.exit(1 if bad else 0)",
};

static int python_ok(void)
{
	int st = system("command -v python3 >/dev/null 2>&1");

	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Run @lines as a python3 script over @path; 0 pass, 1 fail. */
static int run_python(const char *tcase, const char *const *lines, size_t nr, const char *path)
{
	char script[1100], cmd[2400];
	FILE *f;
	size_t i;
	int fd, st;

	snprintf(script, sizeof(script), "%s.py", path);
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		rq_test_fail(tcase, "cannot write %s", script);
		return 1;
	}
	for (i = 0; i < nr; i++)
		fprintf(f, "%s\n", lines[i]);
	if (fclose(f)) {
		rq_test_fail(tcase, "cannot write %s", script);
		unlink(script);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s'", script, path);
	st = system(cmd);
	unlink(script);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		rq_test_fail(tcase, "checks failed (above)");
		return 1;
	}
	return 0;
}

static void test_normal(const char *txt)
{
	expect("normal", txt, "\nseq-read: (groupid=0, jobs=1): err= 0: clone=0: Thu Dec  3 08:09:07 2026\n"
			      "  Description  : [reads \"quoted\"]\n");
	/* fio's num2str: 1365333 IOPS, 5592405333 B/s, 16 MiB in 3 ms */
	expect("normal", txt, "\n  read: IOPS=1365k, BW=5333MiB/s (5592MB/s)(16.0MiB/3msec)\n");
	expect("normal", txt, "\n    slat (nsec): min=100, max=149, avg=124.");
	/* fio's unit rule: usec only when min > 2000, max > 99999, stdev > 1000 */
	expect("normal", txt, "\n    clat (nsec): min=1000, max=200921, avg=100943.52, stdev=57781.60\n");
	expect("normal", txt, "\n     lat (nsec): min=1100, max=201030, avg=");
	expect("normal", txt, "\n    clat percentiles (usec):\n     |  1.00th=[");
	expect("normal", txt, "\n     | 99.99th=[");
	/* KiB/s above 1024*1024 shows in MiB/s, min and max truncated, as fio */
	expect("normal", txt, "\n   bw (  MiB/s): min= 4882, max= 5468, per=100.00%, avg=5333.33, "
			      "stdev= 1.21, samples=6\n");
	expect("normal", txt, "\n   iops        : min=1250000, max=1400000, avg=1365333.25, "
			      "stdev=300.25, samples=6\n");
	expect("normal", txt, "\n  lat (usec)   : ");
	expect("normal", txt, "\n  cpu          : usr=25.00%, sys=50.00%, ctx=42, majf=1, minf=99\n"
			      "  IO depths    : 1=2.3%, 2=0.0%, 4=0.0%, 8=97.7%, 16=0.0%, 32=0.0%, >=64=0.0%\n"
			      "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
			      "     complete  : 0=0.0%, 4=99.9%, 8=0.1%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
			      "     issued rwts: total=4096,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n"
			      "     latency   : target=0, window=0, percentile=100.00%, depth=8\n");
	expect("normal", txt, "\nmixed: (groupid=1, jobs=1): err= 5 (Input/output error): clone=1");
	/* msec would need max > 99999999 */
	expect("normal", txt, "\n    clat (usec): min=3000, max=3199, avg=3099.34, stdev=57.74\n");
	expect("normal", txt, "\n  write: IOPS=50.0k, BW=391MiB/s (410MB/s)(4000KiB/10msec); 0 zone resets\n");
	expect("normal", txt, "\n     errors    : total=7, first_error=5/<Input/output error>\n");
	expect("normal", txt, "\nRun status group 0 (all jobs):\n"
			      "   READ: bw=5333MiB/s (5592MB/s), 5333MiB/s-5333MiB/s (5592MB/s-5592MB/s),"
			      " io=16.0MiB (16.8MB), run=3-3msec\n");
	expect("normal", txt, "\nRun status group 1 (all jobs):\n");
	expect("normal", txt, "\nrqlock: lock mode=global, lock type=ttas, workers=4\n");
	expect("normal", txt, "io_request_lock");
	expect("normal", txt, "1.23%");
	expect("normal", txt, "nullb0");
	expect("normal", txt, "1024MiB");
	/* control bytes do not reach the terminal */
	expect("normal", txt, "dev\"quote\\back?tab");
	if (strstr(txt, "slat (nsec): min=0"))
		rq_test_fail("normal", "a direction without slat samples printed a slat line");
}

/* fio's version-3 terse line: 5 + 2 x 41 + 5 + 7 + 10 + 12 fields, then extras. */
static void test_terse(const char *tt)
{
	const char *line2 = strchr(tt, '\n');
	unsigned int f1 = 1, f2 = 1;
	const char *c;

	if (!line2 || !line2[1] || strchr(line2 + 1, '\n') != tt + strlen(tt) - 1) {
		rq_test_fail("terse", "not two lines: %s", tt);
		return;
	}
	for (c = tt; c < line2; c++)
		f1 += *c == ';';
	for (c = line2 + 1; *c != '\n'; c++)
		f2 += *c == ';';
	/* job 0 has a description (one more), job 1 continue_on_error (two more) */
	if (f1 != 122 || f2 != 123)
		rq_test_fail("terse", "fields %u and %u, want 122 and 123", f1, f2);
	expect("terse", tt, "3;rqlock-0.1;seq-read;0;0;16384;5461333;1365333;3;0;0;0.124");
	expect("terse", tt, ";1.000000%=");
	expect("terse", tt, ";99.990000%=");
	expect("terse", tt, ";0%=0;0%=0;0%=0;");
	/* bw: min, max, percent of the group's aggregate, mean, dev */
	expect("terse", tt, ";5000000;5600000;100.000000%;5461333.500000;1234.500000;");
	expect("terse", tt, ";25.000000%;50.000000%;42;1;99;2.3%;0.0%;0.0%;97.7%;0.0%;0.0%;0.0%;");
	expect("terse", tt, ";reads \"quoted\"\n3;rqlock-0.1;mixed;1;5;");
	expect("terse", tt, ";7;5\n");
}

static void test_groups_text(const char *txt)
{
	/* name and clone of the first member, three jobs merged, fio's labels */
	expect("groups", txt, "\ng: (groupid=0, jobs=3): err= 5 (Input/output error): clone=0: now\n");
	expect("groups", txt, "\n    clat percentiles (usec):\n     | 50.0th=[");
	expect("groups", txt, "\n  mixed: IOPS=200, BW=800KiB/s (819kB/s)(1600KiB/2000msec)\n");
	expect("groups", txt, "\nRun status group 1 (all jobs):\n  MIXED: bw=");
	expect("groups", txt, "\nRun status group 2 (all jobs):\n   READ: bw=");
	/* both: the group's reads and writes added up, min and max over them */
	expect("groups", txt, "\n  MIXED: bw=867KiB/s (887kB/s), 267KiB/s-600KiB/s (273kB/s-614kB/s), "
			      "io=1600KiB (1638kB), run=1500-2000msec\n");
	expect("groups", txt, "\n    lat percentiles (usec):\n");
	expect_not("groups", txt, "g-later");
}

int main(void)
{
	static struct rq_run_report r, g;
	char path[1024], path2[1024];
	char *js, *txt, *both, *tt, *gjs, *gtxt;
	bool py = python_ok();

	build(&r);
	build_groups(&g);
	test_parse_format();
	test_errors(&r);

	js = render(&r, RQ_OUTPUT_JSON, path, sizeof(path));
	txt = render(&r, RQ_OUTPUT_NORMAL, path2, sizeof(path2));
	unlink(path2);
	tt = render(&r, RQ_OUTPUT_TERSE, path2, sizeof(path2));
	unlink(path2);
	if (!js || !txt || !tt) {
		unlink(path);
		fprintf(stderr, "FAIL setup: cannot render into a temporary file\n");
		return 1;
	}
	test_json_layout(js);
	test_normal(txt);
	test_terse(tt);

	/* all formats: fio's order, terse then JSON then normal */
	both = render(&r, RQ_OUTPUT_JSON | RQ_OUTPUT_NORMAL | RQ_OUTPUT_TERSE, path2, sizeof(path2));
	unlink(path2);
	if (!both || strncmp(both, tt, strlen(tt)) || strncmp(both + strlen(tt), js, strlen(js)) ||
	    strcmp(both + strlen(tt) + strlen(js), txt))
		rq_test_fail("all", "terse,json,normal is not the terse line, the JSON, then the text");
	if (py)
		run_python("json_python", py_check, sizeof(py_check) / sizeof(py_check[0]), path);
	unlink(path);

	gjs = render(&g, RQ_OUTPUT_JSON | RQ_OUTPUT_JSON_PLUS, path, sizeof(path));
	gtxt = render(&g, RQ_OUTPUT_NORMAL, path2, sizeof(path2));
	unlink(path2);
	if (!gjs || !gtxt) {
		rq_test_fail("groups", "cannot render");
	} else {
		test_groups_text(gtxt);
		expect("groups", gjs, "\"bins\" : {\n");
		if (py)
			run_python("groups_python", py_groups, sizeof(py_groups) / sizeof(py_groups[0]), path);
	}
	unlink(path);

	free(js);
	free(txt);
	free(tt);
	free(both);
	free(gjs);
	free(gtxt);

	if (failures) {
		fprintf(stderr, "test_output: %d failure(s)\n", failures);
		return 1;
	}
	if (!py) {
		printf("SKIP test_output: python3 not found, JSON validity not checked\n");
		return 77;
	}
	printf("test_output: all cases passed\n");
	return 0;
}
