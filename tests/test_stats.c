// SPDX-License-Identifier: MIT
/*
 * test_stats.c - the latency histogram and its statistics against fio.
 *
 * The bucket and percentile tables below were produced by fio 3.33
 * itself: the index table by fio's plat_val_to_idx()/plat_idx_to_val()
 * for chosen values, the 1..100 answers by its calc_clat_percentiles(),
 * the other histograms and percentiles from real
 * `fio --output-format=json+` runs ("bins" are fio's bucket values and
 * counts, "percentile" its answers).  rqlock must agree bucket for bucket.
 *
 * Exit 0 when every case passes, 1 naming each case that fails.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "tests/helpers.h"


static bool close_rel(double a, double b, double rel, double abs_tol)
{
	return fabs(a - b) <= abs_tol || fabs(a - b) <= rel * fabs(b);
}

/* xorshift64: the same pseudo-random data on every run */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The stats are ~15 KiB each: keep them off the stack. */
static struct rq_lat_stat sa, sb, sall;

/* ------------------------------------------------------------ buckets */

static const struct {
	uint64_t val;
	unsigned int idx;
	uint64_t bucket_val;
} fio_idx_table[] = {
	/* fio-3.33 stat.c plat_val_to_idx(val), plat_idx_to_val(idx) */
	{ 0ULL, 0, 0ULL },
	{ 1ULL, 1, 1ULL },
	{ 29ULL, 29, 29ULL },
	{ 63ULL, 63, 63ULL },
	{ 64ULL, 64, 64ULL },
	{ 65ULL, 65, 65ULL },
	{ 127ULL, 127, 127ULL },
	{ 128ULL, 128, 129ULL },
	{ 129ULL, 128, 129ULL },
	{ 130ULL, 129, 131ULL },
	{ 131ULL, 129, 131ULL },
	{ 255ULL, 191, 255ULL },
	{ 256ULL, 192, 258ULL },
	{ 257ULL, 192, 258ULL },
	{ 1000ULL, 317, 1004ULL },
	{ 4095ULL, 447, 4080ULL },
	{ 4096ULL, 448, 4128ULL },
	{ 8516ULL, 514, 8512ULL },
	{ 20000ULL, 590, 20096ULL },
	{ 1000000ULL, 954, 1003520ULL },
	{ 123456789ULL, 1397, 123207680ULL },
	{ 8589934591ULL, 1791, 8556380160ULL },
	{ 8589934592ULL, 1792, 8657043456ULL },
	{ 17179869183ULL, 1855, 17112760320ULL },
	{ 17179869184ULL, 1855, 17112760320ULL },
	{ 1099511627776ULL, 1855, 17112760320ULL },
	{ 18446744073709551615ULL, 1855, 17112760320ULL },
};

static void test_fio_buckets(void)
{
	size_t i;

	for (i = 0; i < sizeof(fio_idx_table) / sizeof(fio_idx_table[0]); i++) {
		uint64_t v = fio_idx_table[i].val;
		unsigned int idx = rq_plat_val_to_idx(v);

		if (idx != fio_idx_table[i].idx)
			rq_test_fail("fio_buckets", "val_to_idx(%llu) = %u, fio says %u",
			     (unsigned long long)v, idx, fio_idx_table[i].idx);
		if (rq_plat_idx_to_val(fio_idx_table[i].idx) != fio_idx_table[i].bucket_val)
			rq_test_fail("fio_buckets", "idx_to_val(%u) = %llu, fio says %llu",
			     fio_idx_table[i].idx,
			     (unsigned long long)rq_plat_idx_to_val(fio_idx_table[i].idx),
			     (unsigned long long)fio_idx_table[i].bucket_val);
	}
}

/* A value's bucket value: exact below 2^(B+1), else within 1/2^B of it. */
static void check_round_trip(uint64_t v)
{
	uint64_t b = rq_plat_idx_to_val(rq_plat_val_to_idx(v));
	uint64_t diff = b > v ? b - v : v - b;

	if (v < 2 * RQ_PLAT_VAL) {
		if (b != v)
			rq_test_fail("round_trip", "%llu reported as %llu, must be exact",
			     (unsigned long long)v, (unsigned long long)b);
	} else if (diff * RQ_PLAT_VAL > v) {
		rq_test_fail("round_trip", "%llu reported as %llu: off by more than 1/%u",
		     (unsigned long long)v, (unsigned long long)b, RQ_PLAT_VAL);
	}
}

static void test_round_trip(void)
{
	uint64_t v, top = (uint64_t)1 << (RQ_PLAT_GROUP_NR + RQ_PLAT_BITS - 1);
	unsigned int idx, prev = 0;
	int i, k;

	/* every value up to 2^20, with the index never going backwards */
	for (v = 0; v < (1u << 20); v++) {
		check_round_trip(v);
		idx = rq_plat_val_to_idx(v);
		if (idx < prev || idx > prev + 1)
			rq_test_fail("round_trip", "index jumps from %u to %u at %llu", prev, idx,
			     (unsigned long long)v);
		prev = idx;
	}
	/* around every power of two still inside the histogram */
	for (i = 1; i < RQ_PLAT_GROUP_NR + RQ_PLAT_BITS - 1; i++) {
		uint64_t p = (uint64_t)1 << i;

		for (k = -2; k <= 2; k++)
			check_round_trip(p + k);
	}
	for (i = 0; i < 1000000; i++)
		check_round_trip(rng() % top);

	/* each bucket's reported value falls back into that bucket */
	for (idx = 0; idx < RQ_PLAT_NR; idx++)
		if (rq_plat_val_to_idx(rq_plat_idx_to_val(idx)) != idx)
			rq_test_fail("round_trip", "bucket %u: value %llu maps to bucket %u", idx,
			     (unsigned long long)rq_plat_idx_to_val(idx),
			     rq_plat_val_to_idx(rq_plat_idx_to_val(idx)));

	/* beyond the last group: the last bucket */
	if (rq_plat_val_to_idx(top * 2) != RQ_PLAT_NR - 1 ||
	    rq_plat_val_to_idx(UINT64_MAX) != RQ_PLAT_NR - 1)
		rq_test_fail("round_trip", "values past 2^%d must land in the last bucket",
		     RQ_PLAT_GROUP_NR + RQ_PLAT_BITS);
}

/* -------------------------------------------------------- percentiles */

static void test_default_list(void)
{
	static const double fio_list[] = {
		1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0,
		90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
	};
	int i;

	for (i = 0; i < RQ_NR_PERCENTILES; i++)
		if (rq_default_percentiles[i] != fio_list[i])
			rq_test_fail("default_list", "entry %d is %g, fio's is %g", i,
			     rq_default_percentiles[i], fio_list[i]);
}

struct fio_bin {
	uint64_t val;
	uint64_t count;
};

/* fio-3.33 --output-format=json+, ioengine=null randread 64m: read clat_ns, N=16384 */
static const struct fio_bin fio_null_bins[] = {
	{ 29, 598 }, { 30, 5551 }, { 31, 1011 }, { 40, 8446 }, { 41, 713 },
	{ 49, 3 }, { 50, 50 }, { 51, 8 }, { 60, 3 }, { 6816, 1 },
};
static const uint64_t fio_null_pct[RQ_NR_PERCENTILES] = {
	29, 30, 30, 30, 30, 31, 40, 40, 40, 40, 40, 40, 41, 41, 50, 51, 60,
};

/* fio-3.33 --output-format=json+, ioengine=psync randrw 4k on a file: read clat_ns, N=1988 */
static const struct fio_bin fio_psync_rd_bins[] = {
	{ 20864, 35 }, { 21120, 140 }, { 21376, 247 }, { 21632, 264 },
	{ 21888, 262 }, { 22144, 280 }, { 22400, 197 }, { 22656, 130 },
	{ 22912, 82 }, { 23168, 59 }, { 23424, 33 }, { 23680, 30 },
	{ 23936, 33 }, { 24192, 21 }, { 24448, 18 }, { 24704, 10 },
	{ 24960, 4 }, { 25216, 3 }, { 25472, 9 }, { 25728, 4 }, { 25984, 4 },
	{ 26240, 1 }, { 26496, 1 }, { 26752, 1 }, { 27008, 3 }, { 27520, 2 },
	{ 28032, 1 }, { 28288, 3 }, { 28544, 2 }, { 28800, 1 }, { 29056, 1 },
	{ 29312, 4 }, { 29568, 10 }, { 29824, 7 }, { 30080, 19 }, { 30336, 6 },
	{ 30592, 5 }, { 30848, 3 }, { 31104, 4 }, { 31360, 1 }, { 31616, 2 },
	{ 31872, 1 }, { 32128, 6 }, { 32384, 3 }, { 32640, 2 }, { 33024, 4 },
	{ 33536, 3 }, { 34560, 2 }, { 35584, 3 }, { 36096, 2 }, { 36608, 2 },
	{ 37632, 2 }, { 38144, 1 }, { 38656, 1 }, { 39168, 1 }, { 39680, 2 },
	{ 40192, 1 }, { 43264, 1 }, { 44288, 2 }, { 50432, 1 }, { 56576, 2 },
	{ 58624, 1 }, { 98816, 1 }, { 116224, 1 }, { 148480, 1 },
};
static const uint64_t fio_psync_rd_pct[RQ_NR_PERCENTILES] = {
	20864, 21120, 21376, 21376, 21632, 21888, 22144, 22144, 22400, 22912,
	23936, 29568, 36608, 43264, 116224, 148480, 148480,
};

/* same run: write clat_ns, N=2108 */
static const struct fio_bin fio_psync_wr_bins[] = {
	{ 1448, 2 }, { 1464, 3 }, { 1480, 2 }, { 1496, 11 }, { 1512, 11 },
	{ 1528, 40 }, { 1544, 29 }, { 1560, 48 }, { 1576, 62 }, { 1592, 33 },
	{ 1608, 80 }, { 1624, 30 }, { 1640, 69 }, { 1656, 92 }, { 1672, 50 },
	{ 1688, 80 }, { 1704, 23 }, { 1720, 56 }, { 1736, 43 }, { 1752, 35 },
	{ 1768, 55 }, { 1784, 20 }, { 1800, 30 }, { 1816, 33 }, { 1832, 24 },
	{ 1848, 43 }, { 1864, 23 }, { 1880, 58 }, { 1896, 28 }, { 1912, 39 },
	{ 1928, 57 }, { 1944, 26 }, { 1960, 55 }, { 1976, 32 }, { 1992, 44 },
	{ 2008, 47 }, { 2024, 32 }, { 2040, 45 }, { 2064, 69 }, { 2096, 71 },
	{ 2128, 52 }, { 2160, 55 }, { 2192, 30 }, { 2224, 36 }, { 2256, 39 },
	{ 2288, 29 }, { 2320, 29 }, { 2352, 22 }, { 2384, 16 }, { 2416, 16 },
	{ 2448, 8 }, { 2480, 11 }, { 2512, 8 }, { 2544, 6 }, { 2576, 2 },
	{ 2608, 5 }, { 2640, 6 }, { 2672, 4 }, { 2704, 2 }, { 2736, 3 },
	{ 2800, 2 }, { 2832, 3 }, { 2864, 2 }, { 2896, 3 }, { 2928, 1 },
	{ 2960, 1 }, { 2992, 3 }, { 3056, 1 }, { 3120, 1 }, { 3184, 1 },
	{ 3248, 1 }, { 3280, 1 }, { 3312, 1 }, { 3344, 1 }, { 3408, 1 },
	{ 3440, 1 }, { 3472, 2 }, { 3504, 2 }, { 3536, 1 }, { 3568, 7 },
	{ 3600, 5 }, { 3632, 4 }, { 3664, 4 }, { 3696, 3 }, { 3728, 1 },
	{ 3760, 4 }, { 3792, 3 }, { 3824, 5 }, { 3856, 5 }, { 3920, 1 },
	{ 3952, 2 }, { 3984, 6 }, { 4016, 1 }, { 4080, 1 }, { 4128, 3 },
	{ 4192, 1 }, { 4256, 2 }, { 4320, 2 }, { 4704, 4 }, { 5088, 1 },
	{ 7328, 1 }, { 12096, 1 }, { 12608, 1 }, { 14016, 1 }, { 17280, 1 },
};
static const uint64_t fio_psync_wr_pct[RQ_NR_PERCENTILES] = {
	1512, 1560, 1592, 1656, 1688, 1768, 1880, 1960, 2040, 2160, 2320, 2672,
	3984, 4320, 12608, 14016, 17280,
};

static const struct {
	const char *name;
	const struct fio_bin *bins;
	size_t nr_bins;
	const uint64_t *pct;
} fio_runs[] = {
#define RUN(x) { #x, x##_bins, sizeof(x##_bins) / sizeof(x##_bins[0]), x##_pct }
	RUN(fio_null),
	RUN(fio_psync_rd),
	RUN(fio_psync_wr),
#undef RUN
};

/* Rebuild fio's histogram from its json+ bins; fio's percentiles must follow. */
static void test_fio_percentiles(void)
{
	uint64_t out[RQ_NR_PERCENTILES];
	size_t r, i;
	int nr;

	for (r = 0; r < sizeof(fio_runs) / sizeof(fio_runs[0]); r++) {
		rq_lat_init(&sa);
		for (i = 0; i < fio_runs[r].nr_bins; i++) {
			const struct fio_bin *b = &fio_runs[r].bins[i];
			unsigned int idx = rq_plat_val_to_idx(b->val);

			/* a json+ bin key is fio's value for its bucket */
			if (rq_plat_idx_to_val(idx) != b->val)
				rq_test_fail("fio_percentiles", "%s: fio bin %llu is not a bucket value here",
				     fio_runs[r].name, (unsigned long long)b->val);
			sa.plat[idx] += b->count;
			sa.n += b->count;
		}
		nr = rq_lat_percentiles(&sa, rq_default_percentiles, RQ_NR_PERCENTILES, out);
		if (nr != RQ_NR_PERCENTILES) {
			rq_test_fail("fio_percentiles", "%s: %d filled", fio_runs[r].name, nr);
			continue;
		}
		for (i = 0; i < RQ_NR_PERCENTILES; i++)
			if (out[i] != fio_runs[r].pct[i])
				rq_test_fail("fio_percentiles", "%s: p%g = %llu, fio says %llu",
				     fio_runs[r].name, rq_default_percentiles[i],
				     (unsigned long long)out[i],
				     (unsigned long long)fio_runs[r].pct[i]);
	}
}

/* 1..10000: each percentile within a bucket width (1/64) of the exact rank. */
static void test_uniform_percentiles(void)
{
	const uint64_t n = 10000;
	uint64_t out[RQ_NR_PERCENTILES], v;
	int i;

	rq_lat_init(&sa);
	for (v = 1; v <= n; v++)
		rq_lat_add(&sa, v);
	if (rq_lat_percentiles(&sa, rq_default_percentiles, RQ_NR_PERCENTILES, out) !=
	    RQ_NR_PERCENTILES) {
		rq_test_fail("uniform", "not all percentiles filled");
		return;
	}
	for (i = 0; i < RQ_NR_PERCENTILES; i++) {
		/* the sample at 1-based rank ceil(p/100 * n) */
		double exact = ceil(rq_default_percentiles[i] / 100.0 * (double)n - 1e-9);

		if (fabs((double)out[i] - exact) > exact * 0.016)
			rq_test_fail("uniform", "p%g = %llu, exact %.0f: more than 1.6%% off",
			     rq_default_percentiles[i], (unsigned long long)out[i], exact);
	}

	/*
	 * 1..100 sits in exact buckets.  fio's answers (its own
	 * calc_clat_percentiles on this histogram) show its method exactly:
	 * p30 is 31 because 30/100 * 100 is a hair above 30 in binary.
	 */
	rq_lat_init(&sb);
	for (v = 1; v <= 100; v++)
		rq_lat_add(&sb, v);
	{
		static const uint64_t fio_1_100[RQ_NR_PERCENTILES] = {
			1, 5, 10, 20, 31, 40, 50, 61, 70, 80, 90, 95, 99, 100, 100, 100, 100,
		};
		uint64_t o[RQ_NR_PERCENTILES];

		rq_lat_percentiles(&sb, rq_default_percentiles, RQ_NR_PERCENTILES, o);
		for (i = 0; i < RQ_NR_PERCENTILES; i++)
			if (o[i] != fio_1_100[i])
				rq_test_fail("uniform", "1..100: p%g = %llu, fio says %llu",
				     rq_default_percentiles[i], (unsigned long long)o[i],
				     (unsigned long long)fio_1_100[i]);
	}

	/*
	 * Thresholds exact in binary (1..64, p * 64 / 100 an integer): a
	 * running count equal to the threshold already reaches it (">=").
	 */
	rq_lat_init(&sb);
	for (v = 1; v <= 64; v++)
		rq_lat_add(&sb, v);
	{
		const double pct[] = { 12.5, 25.0, 50.0, 75.0, 100.0 };
		const uint64_t want[] = { 8, 16, 32, 48, 64 };
		uint64_t o[5];

		rq_lat_percentiles(&sb, pct, 5, o);
		for (i = 0; i < 5; i++)
			if (o[i] != want[i])
				rq_test_fail("uniform", "1..64: p%g = %llu, want %llu", pct[i],
				     (unsigned long long)o[i], (unsigned long long)want[i]);
	}

	/* an unsorted request gets the same answers, in its own order */
	{
		const double pct[] = { 99.0, 1.0, 50.0 };
		uint64_t o[3];

		rq_lat_percentiles(&sa, pct, 3, o);
		if (o[0] != out[12] || o[1] != out[0] || o[2] != out[6])
			rq_test_fail("uniform", "unsorted percentile list answered differently");
	}
}

static void test_empty(void)
{
	static struct rq_lat_stat zero;	/* all-zero: must be a valid empty stat */
	uint64_t out[RQ_NR_PERCENTILES];
	const double bad[] = { 101.0 };

	rq_lat_init(&sa);
	if (rq_lat_percentiles(&sa, rq_default_percentiles, RQ_NR_PERCENTILES, out) != 0)
		rq_test_fail("empty", "percentiles of an empty stat must return 0");
	if (rq_lat_mean(&sa) != 0.0 || rq_lat_stddev(&sa) != 0.0)
		rq_test_fail("empty", "mean/stddev of an empty stat must be 0");
	if (rq_lat_percentiles(&sa, bad, 1, out) != -EINVAL)
		rq_test_fail("empty", "a percentile above 100 must be refused");

	/* the first sample sets min even though min_ns starts at 0 */
	rq_lat_add(&zero, 500);
	rq_lat_add(&zero, 1000);
	if (zero.min_ns != 500 || zero.max_ns != 1000 || zero.n != 2)
		rq_test_fail("empty", "zeroed stat: min %llu max %llu n %llu after adding 500, 1000",
		     (unsigned long long)zero.min_ns, (unsigned long long)zero.max_ns,
		     (unsigned long long)zero.n);
	rq_lat_init(&sa);
	rq_lat_add(&sa, 7);
	if (rq_lat_stddev(&sa) != 0.0 || rq_lat_mean(&sa) != 7.0)
		rq_test_fail("empty", "one sample: mean %f stddev %f", rq_lat_mean(&sa), rq_lat_stddev(&sa));
}

/* ------------------------------------------------------ mean, stddev */

enum gen { GEN_SEQ, GEN_OFFSET, GEN_CONST, GEN_WIDE, GEN_DESC };

static uint64_t gen(enum gen g, unsigned int i)
{
	switch (g) {
	case GEN_SEQ:
		return i + 1;
	case GEN_OFFSET:	/* large mean, small spread: naive sums cancel */
		return 1000000000000ULL + (i * 7919u) % 1000;
	case GEN_CONST:
		return 4242;
	case GEN_WIDE:		/* nanoseconds to seconds */
		return rng() >> (rng() % 34 + 30);
	default:		/* first sample (the shift) is the largest */
		return 5000000 - (uint64_t)i * 37;
	}
}

static const struct {
	const char *name;
	enum gen gen;
	unsigned int n;
} moment_cases[] = {
	{ "seq_1000", GEN_SEQ, 1000 },
	{ "offset_1e12", GEN_OFFSET, 20000 },
	{ "const", GEN_CONST, 500 },
	{ "wide", GEN_WIDE, 50000 },
	{ "descending", GEN_DESC, 10000 },
	{ "two", GEN_SEQ, 2 },
};

static uint64_t samples[50000];

static void two_pass(const uint64_t *x, unsigned int n, double *mean, double *dev)
{
	long double m = 0, s = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (i = 0; i < n; i++)
		s += ((long double)x[i] - m) * ((long double)x[i] - m);
	*mean = (double)m;
	*dev = n > 1 ? (double)sqrtl(s / (n - 1)) : 0.0;
}

static void check_same(const char *tcase, const char *name, const struct rq_lat_stat *a,
		       const struct rq_lat_stat *b)
{
	if (a->n != b->n || a->min_ns != b->min_ns || a->max_ns != b->max_ns)
		rq_test_fail(tcase, "%s: n/min/max %llu/%llu/%llu vs %llu/%llu/%llu", name,
		     (unsigned long long)a->n, (unsigned long long)a->min_ns,
		     (unsigned long long)a->max_ns, (unsigned long long)b->n,
		     (unsigned long long)b->min_ns, (unsigned long long)b->max_ns);
	if (memcmp(a->plat, b->plat, sizeof(a->plat)))
		rq_test_fail(tcase, "%s: histograms differ", name);
	if (!close_rel(rq_lat_mean(a), rq_lat_mean(b), 1e-12, 1e-9))
		rq_test_fail(tcase, "%s: mean %.9f vs %.9f", name, rq_lat_mean(a), rq_lat_mean(b));
	if (!close_rel(rq_lat_stddev(a), rq_lat_stddev(b), 1e-9, 1e-6))
		rq_test_fail(tcase, "%s: stddev %.9f vs %.9f", name, rq_lat_stddev(a), rq_lat_stddev(b));
}

static void test_moments(void)
{
	size_t c;
	unsigned int i;

	for (c = 0; c < sizeof(moment_cases) / sizeof(moment_cases[0]); c++) {
		unsigned int n = moment_cases[c].n;
		double mean, dev;

		rq_lat_init(&sa);
		for (i = 0; i < n; i++) {
			samples[i] = gen(moment_cases[c].gen, i);
			rq_lat_add(&sa, samples[i]);
		}
		two_pass(samples, n, &mean, &dev);
		if (!close_rel(rq_lat_mean(&sa), mean, 1e-12, 1e-9))
			rq_test_fail("moments", "%s: mean %.9f, two-pass %.9f", moment_cases[c].name,
			     rq_lat_mean(&sa), mean);
		if (!close_rel(rq_lat_stddev(&sa), dev, 1e-9, 1e-6))
			rq_test_fail("moments", "%s: stddev %.9f, two-pass %.9f", moment_cases[c].name,
			     rq_lat_stddev(&sa), dev);
	}
}

/* merge(a, b) must equal adding every sample into one stat, at any split. */
static void test_merge(void)
{
	static const unsigned int splits[] = { 0, 1, 2, 777, 9999, 10000 };
	const unsigned int n = 10000;
	uint64_t out[RQ_NR_PERCENTILES];
	char name[64];
	size_t c, k;
	unsigned int i;

	for (c = 0; c < sizeof(moment_cases) / sizeof(moment_cases[0]); c++) {
		for (i = 0; i < n; i++)
			samples[i] = gen(moment_cases[c].gen, i);
		rq_lat_init(&sall);
		for (i = 0; i < n; i++)
			rq_lat_add(&sall, samples[i]);

		for (k = 0; k < sizeof(splits) / sizeof(splits[0]); k++) {
			rq_lat_init(&sa);
			rq_lat_init(&sb);
			/* b gets the head, a the tail: the two shifts differ */
			for (i = 0; i < splits[k]; i++)
				rq_lat_add(&sb, samples[i]);
			for (; i < n; i++)
				rq_lat_add(&sa, samples[i]);
			rq_lat_merge(&sa, &sb);
			snprintf(name, sizeof(name), "%s split %u", moment_cases[c].name, splits[k]);
			check_same("merge", name, &sa, &sall);
		}
	}

	/* both empty stays empty */
	rq_lat_init(&sa);
	rq_lat_init(&sb);
	rq_lat_merge(&sa, &sb);
	if (sa.n || rq_lat_percentiles(&sa, rq_default_percentiles, RQ_NR_PERCENTILES, out))
		rq_test_fail("merge", "empty + empty is not empty");

	/* merging a stat into itself doubles every sample */
	rq_lat_init(&sa);
	rq_lat_init(&sall);
	for (i = 0; i < n; i++) {
		uint64_t v = gen(GEN_WIDE, i);

		rq_lat_add(&sa, v);
		rq_lat_add(&sall, v);
		rq_lat_add(&sall, v);
	}
	rq_lat_merge(&sa, &sa);
	check_same("merge", "self", &sa, &sall);
}

int main(void)
{
	test_fio_buckets();
	test_round_trip();
	test_default_list();
	test_fio_percentiles();
	test_uniform_percentiles();
	test_empty();
	test_moments();
	test_merge();

	if (failures) {
		fprintf(stderr, "test_stats: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_stats: all cases passed\n");
	return 0;
}
