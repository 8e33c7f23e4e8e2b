// SPDX-License-Identifier: MIT
/*
 * test_fio_latency.c - fio's latency_us / latency_ms buckets, from
 * rqlock's histogram, against what fio printed for the same I/Os.
 *
 * The data is one fio-3.33 json+ run (psync, direct=1, 4k randrw on this
 * project's VM disk): its clat "bins" rebuild the histogram, and its
 * latency_us/latency_ms percentages are what fio computed from the exact
 * latencies.  rqlock has only the histogram, so a histogram bucket that
 * straddles one of fio's edges (20 us, 50 us, ...) is counted on the side
 * of its reported value: each percentage must equal fio's to within the
 * share of the samples in such straddling buckets next to it, and exactly
 * where no bucket straddles.  Regression test for the bucket edges and
 * fio's 0.01 floor for a non-empty bucket.
 *
 * Exit 0 pass, 1 fail.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "tests/helpers.h"

/* clat bins of fio-3.33 --output-format=json+, psync, direct=1, 4k randrw, reads and writes */
static const struct { uint64_t ns, count; } fio_bins[] = {
	{ 16512, 1 }, { 17280, 53 }, { 17536, 187 }, { 17792, 183 }, { 18048, 249 },
	{ 18304, 230 }, { 18560, 209 }, { 18816, 185 }, { 19072, 163 }, { 19328, 182 },
	{ 19584, 182 }, { 19840, 210 }, { 20096, 337 }, { 20352, 831 }, { 20608, 1207 },
	{ 20864, 1651 }, { 21120, 1888 }, { 21376, 2021 }, { 21632, 1884 }, { 21888, 1685 },
	{ 22144, 1358 }, { 22400, 1191 }, { 22656, 1032 }, { 22912, 861 }, { 23168, 854 },
	{ 23424, 935 }, { 23680, 1047 }, { 23936, 1238 }, { 24192, 1463 }, { 24448, 1444 },
	{ 24704, 1599 }, { 24960, 1572 }, { 25216, 1354 }, { 25472, 1239 }, { 25728, 1007 },
	{ 25984, 937 }, { 26240, 707 }, { 26496, 656 }, { 26752, 715 }, { 27008, 988 },
	{ 27264, 1215 }, { 27520, 1362 }, { 27776, 1568 }, { 28032, 1562 }, { 28288, 1504 },
	{ 28544, 1304 }, { 28800, 1141 }, { 29056, 1004 }, { 29312, 914 }, { 29568, 820 },
	{ 29824, 866 }, { 30080, 948 }, { 30336, 916 }, { 30592, 1043 }, { 30848, 1047 },
	{ 31104, 1249 }, { 31360, 1160 }, { 31616, 1255 }, { 31872, 1291 }, { 32128, 1404 },
	{ 32384, 1278 }, { 32640, 1290 }, { 33024, 2374 }, { 33536, 2050 }, { 34048, 1594 },
	{ 34560, 1286 }, { 35072, 971 }, { 35584, 746 }, { 36096, 652 }, { 36608, 523 },
	{ 37120, 500 }, { 37632, 434 }, { 38144, 406 }, { 38656, 341 }, { 39168, 332 },
	{ 39680, 276 }, { 40192, 210 }, { 40704, 196 }, { 41216, 166 }, { 41728, 140 },
	{ 42240, 120 }, { 42752, 119 }, { 43264, 112 }, { 43776, 90 }, { 44288, 94 },
	{ 44800, 76 }, { 45312, 73 }, { 45824, 78 }, { 46336, 67 }, { 46848, 46 }, { 47360, 63 },
	{ 47872, 45 }, { 48384, 42 }, { 48896, 56 }, { 49408, 38 }, { 49920, 39 }, { 50432, 43 },
	{ 50944, 35 }, { 51456, 30 }, { 51968, 30 }, { 52480, 27 }, { 52992, 24 }, { 53504, 19 },
	{ 54016, 24 }, { 54528, 14 }, { 55040, 15 }, { 55552, 13 }, { 56064, 17 }, { 56576, 9 },
	{ 57088, 11 }, { 57600, 10 }, { 58112, 13 }, { 58624, 5 }, { 59136, 6 }, { 59648, 5 },
	{ 60160, 11 }, { 60672, 11 }, { 61184, 6 }, { 61696, 10 }, { 62208, 6 }, { 62720, 1 },
	{ 63232, 8 }, { 63744, 6 }, { 64256, 3 }, { 64768, 3 }, { 65280, 11 }, { 66048, 9 },
	{ 67072, 11 }, { 68096, 12 }, { 69120, 13 }, { 70144, 13 }, { 71168, 4 }, { 72192, 7 },
	{ 73216, 11 }, { 74240, 7 }, { 75264, 5 }, { 76288, 10 }, { 77312, 4 }, { 78336, 9 },
	{ 79360, 5 }, { 80384, 6 }, { 81408, 11 }, { 82432, 6 }, { 83456, 3 }, { 84480, 1 },
	{ 85504, 2 }, { 86528, 5 }, { 87552, 5 }, { 88576, 2 }, { 89600, 5 }, { 90624, 5 },
	{ 91648, 2 }, { 92672, 3 }, { 93696, 3 }, { 94720, 3 }, { 95744, 2 }, { 97792, 1 },
	{ 98816, 1 }, { 99840, 2 }, { 100864, 1 }, { 101888, 1 }, { 102912, 1 }, { 103936, 2 },
	{ 104960, 1 }, { 105984, 2 }, { 107008, 2 }, { 108032, 1 }, { 109056, 1 }, { 110080, 3 },
	{ 111104, 4 }, { 112128, 1 }, { 114176, 2 }, { 115200, 2 }, { 117248, 1 }, { 118272, 1 },
	{ 119296, 1 }, { 120320, 2 }, { 121344, 2 }, { 123392, 2 }, { 124416, 2 }, { 125440, 3 },
	{ 126464, 1 }, { 127488, 1 }, { 128512, 1 }, { 129536, 2 }, { 130560, 1 }, { 132096, 5 },
	{ 136192, 3 }, { 138240, 3 }, { 140288, 1 }, { 142336, 1 }, { 144384, 1 }, { 148480, 2 },
	{ 152576, 1 }, { 156672, 2 }, { 162816, 1 }, { 166912, 2 }, { 168960, 1 }, { 171008, 1 },
	{ 175104, 1 }, { 177152, 1 }, { 179200, 3 }, { 181248, 2 }, { 183296, 1 }, { 187392, 1 },
	{ 189440, 2 }, { 191488, 1 }, { 195584, 2 }, { 197632, 2 }, { 203776, 3 }, { 205824, 2 },
	{ 207872, 1 }, { 209920, 2 }, { 211968, 2 }, { 216064, 1 }, { 218112, 1 }, { 220160, 1 },
	{ 222208, 2 }, { 224256, 2 }, { 228352, 2 }, { 238592, 1 }, { 240640, 1 }, { 242688, 2 },
	{ 252928, 1 }, { 254976, 2 }, { 261120, 1 }, { 280576, 1 }, { 309248, 2 }, { 313344, 2 },
	{ 317440, 1 }, { 325632, 2 }, { 329728, 1 }, { 337920, 1 }, { 342016, 1 }, { 362496, 3 },
	{ 366592, 2 }, { 370688, 3 }, { 374784, 2 }, { 382976, 1 }, { 387072, 1 }, { 391168, 1 },
	{ 395264, 1 }, { 403456, 1 }, { 407552, 1 }, { 411648, 1 }, { 423936, 1 }, { 432128, 1 },
	{ 448512, 1 }, { 452608, 1 }, { 464896, 1 }, { 485376, 1 }, { 493568, 1 }, { 505856, 1 },
	{ 536576, 1 }, { 544768, 1 }, { 561152, 2 }, { 577536, 1 }, { 593920, 2 }, { 634880, 1 },
	{ 643072, 1 }, { 659456, 1 }, { 667648, 1 }, { 692224, 1 }, { 741376, 1 }, { 765952, 3 },
	{ 774144, 1 }, { 815104, 1 }, { 823296, 1 }, { 831488, 2 }, { 839680, 1 }, { 847872, 1 },
	{ 864256, 1 }, { 897024, 1 }, { 905216, 1 }, { 929792, 1 }, { 937984, 1 }, { 946176, 2 },
	{ 954368, 1 }, { 970752, 1 }, { 1105920, 1 }, { 1171456, 2 }, { 1204224, 1 },
	{ 1220608, 2 }, { 1236992, 1 }, { 1302528, 1 }, { 1335296, 2 }, { 1351680, 2 },
	{ 1368064, 2 }, { 1384448, 5 }, { 1417216, 2 }, { 1449984, 1 }, { 1531904, 1 },
	{ 1548288, 1 }, { 1613824, 1 }, { 1630208, 1 }, { 1646592, 1 }, { 1728512, 1 },
	{ 1826816, 1 }, { 1875968, 1 }, { 1941504, 1 }, { 1957888, 1 }, { 2023424, 1 },
	{ 2088960, 1 }, { 2146304, 2 }, { 2179072, 2 }, { 2244608, 1 }, { 2277376, 1 },
	{ 2310144, 2 }, { 2342912, 3 }, { 2375680, 1 }, { 2408448, 2 }, { 2473984, 1 },
	{ 2506752, 2 }, { 2736128, 1 }, { 2965504, 1 }, { 3325952, 2 }, { 3391488, 1 },
	{ 3424256, 2 }, { 3522560, 1 }, { 3686400, 1 }, { 3981312, 1 }, { 4014080, 5 },
	{ 4046848, 2 }, { 4079616, 1 }, { 4358144, 1 }, { 4489216, 2 }, { 4816896, 1 },
	{ 5013504, 1 }, { 6782976, 1 }, { 8028160, 1 }, { 11075584, 1 }, { 12910592, 1 },
	{ 14221312, 1 }, { 14745600, 1 }, { 14876672, 2 }, { 15400960, 1 }, { 15663104, 1 },
	{ 15794176, 1 }, { 16318464, 1 }, { 16449536, 1 }, { 16908288, 1 }, { 17956864, 1 },
	{ 18219008, 1 }, { 18481152, 1 }, { 18743296, 2 }, { 19005440, 2 }, { 19791872, 1 },
	{ 20054016, 1 }, { 20316160, 2 }, { 20840448, 1 }, { 21626880, 2 }, { 21889024, 1 },
	{ 22675456, 1 }, { 23461888, 1 },
};
/* the same run's latency_us and latency_ms, as fio printed them */
static const double fio_lat_us[10] = { 0.000000, 0.000000, 0.000000, 2.672147, 96.144122, 0.815517, 0.138729, 0.050565, 0.018151, 0.024634 };
static const double fio_lat_ms[12] = { 0.041489, 0.037599, 0.019448, 0.025931, 0.011669, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000 };
#define FIO_TOTAL_IOS 77129ULL


/* The values of the object @name in fio's layout: "key" : value lines. */
static int values(const char *js, const char *name, double *out, int nr)
{
	char key[64];
	const char *p;
	int i;

	snprintf(key, sizeof(key), "\"%s\" : {\n", name);
	p = strstr(js, key);
	if (!p)
		return -1;
	p += strlen(key);
	for (i = 0; i < nr; i++) {
		p = strstr(p, "\" : ");
		if (!p)
			return -1;
		out[i] = strtod(p + 4, NULL);
		p += 4;
	}
	return 0;
}

/* [lo, hi) of the histogram bucket a value is reported as */
static void bucket_range(uint64_t ns, uint64_t *lo, uint64_t *hi)
{
	unsigned int idx = rq_plat_val_to_idx(ns);
	uint64_t w = 1;

	if (idx >= 2 * RQ_PLAT_VAL)
		w = 1ULL << ((idx >> RQ_PLAT_BITS) - 1);
	*lo = w > 1 ? rq_plat_idx_to_val(idx) - w / 2 : ns;
	*hi = *lo + w;
}

int main(void)
{
	static const uint64_t edge_us[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 };
	static const uint64_t edge_ms[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
	static struct rq_job_report job;
	static struct rq_run_report r;
	double us[10], ms[12], slack_us[10] = { 0 }, slack_ms[12] = { 0 };
	char *js = NULL;
	size_t len = 0, i, k;
	FILE *f;

	snprintf(job.name, sizeof(job.name), "disk");
	job.clat_percentiles = true;
	rq_lat_init(&job.dir[RQ_DDIR_READ].clat);
	for (i = 0; i < sizeof(fio_bins) / sizeof(fio_bins[0]); i++) {
		uint64_t lo, hi;
		double share = 100.0 * (double)fio_bins[i].count / (double)FIO_TOTAL_IOS;

		for (k = 0; k < fio_bins[i].count; k++)
			rq_lat_add(&job.dir[RQ_DDIR_READ].clat, fio_bins[i].ns);
		/* a bucket across an edge may sit on either side of it */
		bucket_range(fio_bins[i].ns, &lo, &hi);
		for (k = 0; k < 10; k++)
			if (lo < edge_us[k] * 1000 && hi > edge_us[k] * 1000) {
				slack_us[k] += share;
				if (k + 1 < 10)
					slack_us[k + 1] += share;
			}
		for (k = 0; k < 11; k++)
			if (lo < edge_ms[k] * 1000000 && hi > edge_ms[k] * 1000000) {
				slack_ms[k] += share;
				slack_ms[k + 1] += share;
			}
	}
	job.dir[RQ_DDIR_READ].total_ios = FIO_TOTAL_IOS;
	job.dir[RQ_DDIR_READ].io_bytes = FIO_TOTAL_IOS * 4096;
	job.dir[RQ_DDIR_READ].runtime_ns = 3000000000ULL;
	job.job_runtime_ns = 3000000000ULL;
	r.version = "rqlock-test";
	r.jobs = &job;
	r.nr_jobs = 1;

	f = open_memstream(&js, &len);
	if (!f || rq_output_write(&r, RQ_OUTPUT_JSON, f) || fclose(f) ||
	    values(js, "latency_us", us, 10) || values(js, "latency_ms", ms, 12)) {
		fprintf(stderr, "FAIL: cannot render or read the JSON\n");
		return 1;
	}
	for (k = 0; k < 10; k++)
		CHECK(fabs(us[k] - fio_lat_us[k]) <= slack_us[k] + 1e-6,
		      "latency_us bucket %zu: rqlock %f, fio %f (slack %f)", k, us[k], fio_lat_us[k], slack_us[k]);
	for (k = 0; k < 12; k++)
		CHECK(fabs(ms[k] - fio_lat_ms[k]) <= slack_ms[k] + 1e-6,
		      "latency_ms bucket %zu: rqlock %f, fio %f (slack %f)", k, ms[k], fio_lat_ms[k], slack_ms[k]);
	free(js);
	if (failures)
		return 1;
	printf("test_fio_latency: latency_us/ms within the straddling buckets of fio's\n");
	return 0;
}
