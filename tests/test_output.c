// SPDX-License-Identifier: MIT
/*
 * test_output.c - the fio-compatible renderings of a hand-built report.
 *
 * Two jobs (reads, writes, an error, two groups), a lock, a queue and a
 * device whose name holds a quote, a backslash and a tab, and whose model
 * holds UTF-8 and a byte that is not UTF-8 (it must come out as U+FFFD).  The JSON must
 * parse (python3's json module is the judge), have fio's layout and key
 * order, and carry numbers computed as fio computes them; the normal text
 * must have fio's lines.  Exit 0 pass, 1 fail (naming the case), 77 skip
 * when python3 is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/results.h"

static int failures;

static void fail(const char *tcase, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(const char *tcase, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: ", tcase);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

/* ------------------------------------------------------------ report */

static struct rq_job_report jobs[2];
static struct rq_lock_report locks[1] = { { "io_request_lock", 1000000, 12345 } };
static struct rq_queue_report queues[1] = { { "nullb0", 5000, 5600, 100, 500, 5000, 5000 } };
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
	r->version = "rqlock-0.1";
	r->timestamp = 1796285347;
	r->timestamp_ms = 1796285347077ULL;
	snprintf(r->time, sizeof(r->time), "Thu Dec  3 08:09:07 2026");

	snprintf(jobs[0].name, sizeof(jobs[0].name), "seq-read");
	jobs[0].groupid = 0;
	jobs[0].clone = 0;
	jobs[0].job_runtime_ns = 3200000;
	jobs[0].opt_keys = opt_keys;
	jobs[0].opt_vals = opt_vals;
	jobs[0].nr_opts = 4;
	/* 4096 reads of 4 KiB in 2.5 ms: fio rounds that up to 3 ms */
	fill_dir(&jobs[0].dir[RQ_DDIR_READ], 4096, 4096, 2500000, 1000, true);
	fill_dir(&jobs[0].dir[RQ_DDIR_WRITE], 0, 0, 0, 0, false);

	snprintf(jobs[1].name, sizeof(jobs[1].name), "mixed");
	jobs[1].groupid = 1;
	jobs[1].clone = 1;
	jobs[1].error = EIO;
	jobs[1].job_runtime_ns = 10000000;
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
		fail("write", "rq_output_write(formats=%u) = %d", formats, ret);
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
		fail(tcase, "missing: %s", needle);
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
		{ "", -EINVAL, 0 },
		{ "jsonx", -EINVAL, 0 },
		{ "json,", -EINVAL, 0 },
		{ ",json", -EINVAL, 0 },
		{ "JSON", -EINVAL, 0 },
		{ "json+", -EINVAL, 0 },
		{ "terse", -EINVAL, 0 },
	};
	unsigned int formats;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		formats = 0xdead;
		ret = rq_output_parse_format(cases[i].s, &formats);
		if (ret != cases[i].ret)
			fail("parse_format", "\"%s\" returned %d, want %d", cases[i].s, ret,
			     cases[i].ret);
		else if (!ret && formats != cases[i].formats)
			fail("parse_format", "\"%s\" gave %#x, want %#x", cases[i].s, formats,
			     cases[i].formats);
		else if (ret && formats != 0xdead)
			fail("parse_format", "\"%s\" failed but wrote the formats", cases[i].s);
	}
	if (rq_output_parse_format(NULL, &formats) != -EINVAL)
		fail("parse_format", "NULL must be refused");
}

static void test_errors(const struct rq_run_report *r)
{
	FILE *f;
	int ret;

	if (rq_output_write(r, 0, stderr) != -EINVAL)
		fail("errors", "no format must be refused");
	if (rq_output_write(r, 1u << 7, stderr) != -EINVAL)
		fail("errors", "an unknown format bit must be refused");

	/* a stream that cannot be written: fprintf fails at once */
	f = fopen("/dev/null", "r");
	if (f) {
		ret = rq_output_write(r, RQ_OUTPUT_JSON | RQ_OUTPUT_NORMAL, f);
		if (ret >= 0)
			fail("errors", "writing to a read-only stream returned %d", ret);
		fclose(f);
	}
	/* a full device: the error shows when the buffer is flushed */
	f = fopen("/dev/full", "w");
	if (f) {
		ret = rq_output_write(r, RQ_OUTPUT_JSON, f);
		if (ret != -ENOSPC && ret != -EIO)
			fail("errors", "writing to /dev/full returned %d", ret);
		fclose(f);
	}
}

/* fio's layout, checked line by line: tools look for "{" and "}" lines. */
static void test_json_layout(const char *js)
{
	const char *last;
	size_t n = strlen(js);

	static const char head[] = "{\n  \"rqlock version\" : \"rqlock-0.1\",\n";

	if (strncmp(js, head, strlen(head)))
		fail("json_layout", "does not open with fio's first lines");
	if (n < 3 || strcmp(js + n - 3, "\n}\n"))
		fail("json_layout", "does not end with a \"}\" line");
	last = strstr(js, "\n}\n");
	if (last && last != js + n - 3)
		fail("json_layout", "a \"}\" line before the end");

	expect("json_layout", js, "\n  \"timestamp\" : 1796285347,\n");
	expect("json_layout", js, "\n  \"time\" : \"Thu Dec  3 08:09:07 2026\",\n");
	expect("json_layout", js, "\n  \"jobs\" : [\n    {\n      \"jobname\" : \"seq-read\",\n");
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
	expect("json_layout", js, "\n      \"job_runtime\" : 3\n    },\n    {\n");
	/* the empty write direction: zeros and no percentile object */
	expect("json_layout", js, "\"clat_ns\" : {\n          \"min\" : 0,\n          \"max\" : 0,\n"
				  "          \"mean\" : 0.000000,\n          \"stddev\" : 0.000000,\n"
				  "          \"N\" : 0\n        }");
	expect("json_layout", js, "\"name\" : \"dev\\\"quote\\\\back\\ttab\"");
}

/* Checked by python3's json module: validity, key order, fio's arithmetic. */
static const char *const py_check[] = {
	"import json, sys",
	"d = json.load(open(sys.argv[1]))",
	"bad = []",
	"def want(ok, what):",
	"    ok or bad.append(what)",
	"want(list(d) == ['rqlock version', 'timestamp', 'timestamp_ms', 'time', 'jobs', 'rqlock'],",
	"     'top-level keys %s' % list(d))",
	"want(len(d['jobs']) == 2, 'two jobs')",
	"j0, j1 = d['jobs']",
	"want(list(j0) == ['jobname', 'groupid', 'error', 'job options', 'read', 'write', 'job_runtime'],",
	"     'job keys %s' % list(j0))",
	"want('job options' not in j1, 'job without options has no job options')",
	"want(j0['job options'] == {'name': 'seq-read', 'ioengine': 'null', 'rw': 'read', 'bs': '4k'},",
	"     'job options')",
	"want(j1['error'] == 5 and j1['groupid'] == 1, 'error and groupid')",
	"dkeys = ['io_bytes', 'io_kbytes', 'bw_bytes', 'bw', 'iops', 'runtime', 'total_ios',",
	"         'short_ios', 'drop_ios', 'slat_ns', 'clat_ns', 'lat_ns']",
	"pk = ['%f' % p for p in (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)]",
	"for j in d['jobs']:",
	"    for dd in ('read', 'write'):",
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
	"        for k in ('slat_ns', 'clat_ns', 'lat_ns'):",
	"            l = o[k]",
	"            want(list(l)[:5] == ['min', 'max', 'mean', 'stddev', 'N'], w + ' ' + k + ' keys')",
	"            if l['N'] == 0:",
	"                want(l == {'min': 0, 'max': 0, 'mean': 0, 'stddev': 0, 'N': 0}, w + ' ' + k + ' empty')",
	"            elif k != 'slat_ns':",
	"                p = l['percentile']",
	"                want(list(p) == pk, w + ' ' + k + ' percentile keys')",
	"                v = list(p.values())",
	"                want(v == sorted(v), w + ' ' + k + ' percentiles ascend')",
	"                want(l['min'] <= l['mean'] <= l['max'], w + ' ' + k + ' min/mean/max')",
	"                # a bucket value is within 1/64 of the samples in its bucket",
	"                want(all(l['min'] * 63 <= x * 64 <= l['max'] * 65 for x in v), w + ' ' + k + ' in range')",
	"want(j0['write']['total_ios'] == 0 and j0['write']['runtime'] == 0, 'idle write')",
	"x = d['rqlock']",
	"want(list(x) == ['lock_mode', 'lock_type', 'workers', 'bios_submitted', 'bios_completed', 'sectors_verified', 'locks', 'queues', 'devices'], 'rqlock keys')",
	"want(x['lock_mode'] == 'global' and x['lock_type'] == 'ttas' and x['workers'] == 4, 'rqlock facts')",
	"want(x['locks'] == [{'name': 'io_request_lock', 'acquisitions': 1000000, 'contentions': 12345}], 'locks')",
	"want(list(x['queues'][0]) == ['name', 'requests', 'bios', 'merges_front', 'merges_back',",
	"     'dispatched', 'completed'], 'queue keys')",
	"want(x['queues'][0]['merges_back'] == 500, 'queue values')",
	"dv = x['devices'][0]",
	"want(dv['name'] == 'dev' + chr(34) + 'quote' + chr(92) + 'back' + chr(9) + 'tab', 'escaped name %r' % dv['name'])",
	"want(list(dv) == ['name', 'kind', 'subkind', 'path', 'model', 'size', 'logical_block_size',",
	"     'queue_depth'], 'device keys')",
	"want(dv['size'] == 1 << 30 and dv['subkind'] == '', 'device values')",
	"want(dv['model'] == 'null ' + chr(0xe9) + chr(0xfffd), 'model %r' % dv['model'])",
	"for b in bad:",
	"    print('python check: ' + b)",
	"sys.exit(1 if bad else 0)",
};

/* 0 pass, 1 fail, 77 python3 missing */
static int test_json_python(const char *path)
{
	char script[1100], cmd[2400];
	FILE *f;
	size_t i;
	int fd, st;

	st = system("command -v python3 >/dev/null 2>&1");
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 77;

	snprintf(script, sizeof(script), "%s.py", path);
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fail("json_python", "cannot write %s", script);
		return 1;
	}
	for (i = 0; i < sizeof(py_check) / sizeof(py_check[0]); i++)
		fprintf(f, "%s\n", py_check[i]);
	if (fclose(f)) {
		fail("json_python", "cannot write %s", script);
		unlink(script);
		return 1;
	}

	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
		 path);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fail("json_python", "json.load refused %s", path);
		unlink(script);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s'", script, path);
	st = system(cmd);
	unlink(script);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fail("json_python", "structure checks failed (above)");
		return 1;
	}
	return 0;
}

static void test_normal(const char *txt)
{
	expect("normal", txt, "\nseq-read: (groupid=0, jobs=1): err= 0: clone=0: Thu Dec  3 08:09:07 2026\n");
	/* fio's num2str: 1365333 IOPS, 5592405333 B/s, 16 MiB in 3 ms */
	expect("normal", txt, "\n  read: IOPS=1365k, BW=5333MiB/s (5592MB/s)(16.0MiB/3msec)\n");
	expect("normal", txt, "\n    slat (nsec): min=100, max=149, avg=124.");
	/* fio's unit rule: usec only when min > 2000, max > 99999, stdev > 1000 */
	expect("normal", txt, "\n    clat (nsec): min=1000, max=200921, avg=100943.52, stdev=57781.60\n");
	expect("normal", txt, "\n     lat (nsec): min=1100, max=201030, avg=");
	expect("normal", txt, "\n    clat percentiles (usec):\n     |  1.00th=[");
	expect("normal", txt, "\n     | 99.99th=[");
	expect("normal", txt, "\nmixed: (groupid=1, jobs=1): err= 5 (Input/output error): clone=1");
	/* msec would need max > 99999999 */
	expect("normal", txt, "\n    clat (usec): min=3000, max=3199, avg=3099.34, stdev=57.74\n");
	expect("normal", txt, "\n  write: IOPS=50.0k, BW=391MiB/s (410MB/s)(4000KiB/10msec)\n");
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
		fail("normal", "a direction without slat samples printed a slat line");
}

int main(void)
{
	static struct rq_run_report r;
	char path[1024], path2[1024];
	char *js, *txt, *both;
	int py;

	build(&r);
	test_parse_format();
	test_errors(&r);

	js = render(&r, RQ_OUTPUT_JSON, path, sizeof(path));
	txt = render(&r, RQ_OUTPUT_NORMAL, path2, sizeof(path2));
	unlink(path2);
	if (!js || !txt) {
		unlink(path);
		fprintf(stderr, "FAIL setup: cannot render into a temporary file\n");
		return 1;
	}
	test_json_layout(js);
	test_normal(txt);

	/* both formats: fio's order, JSON first */
	both = render(&r, RQ_OUTPUT_JSON | RQ_OUTPUT_NORMAL, path2, sizeof(path2));
	unlink(path2);
	if (!both || strncmp(both, js, strlen(js)) || strcmp(both + strlen(js), txt))
		fail("both", "json,normal is not the JSON followed by the text");

	py = test_json_python(path);
	unlink(path);
	free(js);
	free(txt);
	free(both);

	if (failures) {
		fprintf(stderr, "test_output: %d failure(s)\n", failures);
		return 1;
	}
	if (py == 77) {
		printf("SKIP test_output: python3 not found, JSON validity not checked\n");
		return 77;
	}
	printf("test_output: all cases passed\n");
	return 0;
}
