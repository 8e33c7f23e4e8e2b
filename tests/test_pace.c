// SPDX-License-Identifier: MIT
/*
 * test_pace.c - latency from the intended issue time (engine/pace.c),
 * on a fake clock: no thread, no sleep, no timing.
 *
 * The case (docs/LATENCY.md's worked example): a job at rate_iops=1000
 * (due every 1 ms), one I/O in flight at a time, a device that serves in
 * 100 us, and a stall: an I/O issued in [500 ms, 600 ms) completes only at
 * 600 ms + 100 us.  Closed form: I/O 500 is issued at 500 ms on time and
 * ends at 600.1 ms; the I/Os due at 501.. ms are issued back to back
 * behind it, I/O 500+j at 600 + 0.1 j ms, ending 0.1 ms later, so its
 * intended latency is 100.1 - 0.9 j ms while that is above 0.1 ms (j <=
 * 111); every other I/O takes 0.1 ms.  fio's lat (from the late issue)
 * sees one slow I/O; lat_intended sees 112.  The test checks the
 * histogram's percentiles against the closed form (fio's bucket error,
 * 1/64), late_ios and max_lag_ns exactly, and that the schedule does not
 * drift: the due times with and without the stall are the same sequence,
 * for linear and poisson pacing.
 *
 * Exit 0 pass, 1 fail (each failure named).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/pace.h"
#include "results/results.h"
#include "tests/helpers.h"

#define MS 1000000ULL
#define US 1000ULL
#define T0 (10 * MS)			/* the fake clock's start: 0 means "not started" */
#define N 1000				/* I/Os, one per ms */
#define SVC (100 * US)
#define STALL0 (T0 + 500 * MS)
#define STALL1 (T0 + 600 * MS)


static struct rq_dir_report rep;	/* big: static */
static struct rq_lat_stat lat;		/* fio's lat, from the (late) issue */

/*
 * One clone with one bio, on a fake clock.  Records the due times in
 * @dues (N of them).  @stall: the device stalls in [STALL0, STALL1).
 */
static void simulate(uint64_t rate, bool poisson, bool stall, uint64_t *dues)
{
	struct pace p;
	uint64_t now = T0, rng = 42, due, done;
	unsigned int k;

	memset(&rep, 0, sizeof(rep));
	memset(&lat, 0, sizeof(lat));
	rep.paced = true;
	eng_pace_init(&p, rate, poisson);
	for (k = 0; k < N;) {
		if (!eng_pace_take(&p, now, &rng, &due)) {
			now = due;		/* the worker sleeps until then */
			continue;
		}
		dues[k++] = due;
		done = (stall && now >= STALL0 && now < STALL1 ? STALL1 : now) + SVC;
		rq_lat_add(&lat, done - now);
		eng_pace_account(&rep, p.mean_gap_ns, due, now, done);
		now = done;			/* the one bio is free again */
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_stall_percentiles(void)
{
	static uint64_t dues[N], expect[N];
	static const double pct[] = { 50.0, 80.0, 90.0, 95.0, 99.0, 99.9, 100.0 };
	uint64_t got[7], lat_p[7];
	unsigned int delayed = 0;

	simulate(1000, false, true, dues);
	/* the closed form, independently of the code under test */
	for (unsigned int k = 0; k < N; k++) {
		uint64_t v = SVC;

		if (k >= 500) {
			int64_t j = k - 500, x = (int64_t)(100 * MS + SVC) - j * (int64_t)(900 * US);

			if (x > (int64_t)SVC) {
				v = (uint64_t)x;
				delayed++;
			}
		}
		expect[k] = v;
	}
	qsort(expect, N, sizeof(expect[0]), cmp_u64);
	CHECK(delayed == 112, "closed form: %u delayed, want 112", delayed);
	CHECK(rep.lat_intended.n == N, "%llu samples", (unsigned long long)rep.lat_intended.n);
	CHECK(rq_lat_percentiles(&rep.lat_intended, pct, 7, got) == 7, "no percentiles");
	for (unsigned int i = 0; i < 7; i++) {
		/* fio's rank: the smallest value with at least pct % of samples at or below it */
		unsigned int rank = (unsigned int)ceil(pct[i] / 100.0 * N);
		double want = (double)expect[rank ? rank - 1 : 0];

		CHECK(fabs((double)got[i] - want) <= want / 64.0 + 1,
		      "lat_intended p%g = %llu, closed form %.0f", pct[i], (unsigned long long)got[i], want);
	}
	/* p99: the 990th value: I/O 500+j with j = 9: 100.1 - 8.1 = 92.0 ms */
	CHECK(fabs((double)got[4] - 92.0 * MS) <= 92.0 * MS / 64, "p99 %llu, want ~92 ms",
	      (unsigned long long)got[4]);
	/* fio's lat misses it: one slow I/O, p99 is the service time */
	rq_lat_percentiles(&lat, pct, 7, lat_p);
	CHECK(lat_p[4] <= SVC + SVC / 64, "fio lat p99 %llu: the stall should hide there",
	      (unsigned long long)lat_p[4]);
	CHECK(lat.max_ns == 100 * MS + SVC, "fio lat max %llu", (unsigned long long)lat.max_ns);
	CHECK(rep.lat_intended.max_ns == 100 * MS + SVC, "intended max %llu",
	      (unsigned long long)rep.lat_intended.max_ns);
	/* late: built more than one interval (1 ms) after due: lag of 500+j = 100 - 0.9 j ms, j >= 1 */
	CHECK(rep.late_ios == 109, "late_ios %llu, want 109 (j = 1..109)",
	      (unsigned long long)rep.late_ios);
	CHECK(rep.max_lag_ns == 100 * MS - 900 * US, "max_lag %llu, want 99.1 ms",
	      (unsigned long long)rep.max_lag_ns);
}

/* A stall changes when I/Os are issued, never when they were due. */
static void test_no_drift(bool poisson)
{
	static uint64_t a[N], b[N];

	simulate(1000, poisson, false, a);
	simulate(1000, poisson, true, b);
	CHECK(!memcmp(a, b, sizeof(a)), "%s: the stall moved the schedule", poisson ? "poisson" : "linear");
	if (!poisson) {
		for (unsigned int k = 0; k < N; k++)
			if (a[k] != T0 + k * MS) {
				CHECK(0, "linear: due[%u] = %llu, want %llu", k, (unsigned long long)a[k],
				      (unsigned long long)(T0 + k * MS));
				break;
			}
	} else {
		/* the mean gap of 999 exponential gaps is 1 ms within a few % */
		double mean = (double)(a[N - 1] - a[0]) / (N - 1);

		CHECK(fabs(mean - 1e6) < 1e5, "poisson: mean gap %.0f ns", mean);
	}
}

int main(void)
{
	test_stall_percentiles();
	test_no_drift(false);
	test_no_drift(true);
	if (failures) {
		fprintf(stderr, "test_pace: %d failures\n", failures);
		return 1;
	}
	printf("test_pace: ok\n");
	return 0;
}
