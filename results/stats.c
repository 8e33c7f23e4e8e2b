// SPDX-License-Identifier: MIT
/*
 * stats.c - latency distributions: fio's log-linear histogram plus
 * min/max/mean/stddev.
 *
 * Bucket layout (the same as fio 3.33, stat.h FIO_IO_U_PLAT_*), with
 * B = RQ_PLAT_BITS and V = RQ_PLAT_VAL = 2^B:
 *
 *   values 0 .. 2V-1          one bucket per value, index == value
 *   values with msb m > B     index = (m - B) * V + (v >> (m - B)),
 *                             i.e. group m - B + 1, V buckets per group,
 *                             each 2^(m - B) wide
 *   index >= RQ_PLAT_NR - 1   clamped into the last bucket
 *
 * A bucket is reported as its lower edge plus half its width (fio's
 * plat_idx_to_val), so a reported value is within one bucket width, at
 * most 1/V of the value, of every sample that fell in it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

const double rq_default_percentiles[RQ_NR_PERCENTILES] = {
	1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0,
	90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
};

void rq_lat_init(struct rq_lat_stat *s)
{
	memset(s, 0, sizeof(*s));
}

unsigned int rq_plat_val_to_idx(uint64_t ns)
{
	/* msb of ns; "| 1" keeps clz defined for 0 (which lands in bucket 0) */
	unsigned int msb = 63 - (unsigned int)__builtin_clzll(ns | 1);
	/* bits below the B kept after the leading one; 0 for ns < 2V */
	unsigned int err = msb > RQ_PLAT_BITS ? msb - RQ_PLAT_BITS : 0;
	/*
	 * For ns >= 2V, ns >> err lies in [V, 2V): that is the group's base
	 * (err + 1) * V plus the offset within the group.  For ns < 2V, err
	 * is 0 and the sum is ns itself.
	 */
	uint64_t idx = ((uint64_t)err << RQ_PLAT_BITS) + (ns >> err);

	return idx < RQ_PLAT_NR - 1 ? (unsigned int)idx : RQ_PLAT_NR - 1;
}

uint64_t rq_plat_idx_to_val(unsigned int idx)
{
	unsigned int err;
	uint64_t base, k;

	if (idx >= RQ_PLAT_NR)
		idx = RQ_PLAT_NR - 1;
	if (idx < 2 * RQ_PLAT_VAL)
		return idx;

	err = (idx >> RQ_PLAT_BITS) - 1;	/* >= 1 here */
	base = (uint64_t)1 << (err + RQ_PLAT_BITS);
	k = idx & (RQ_PLAT_VAL - 1);
	/* (k + 0.5) * 2^err, in integers: exact, as fio's double is here */
	return base + (k << err) + ((uint64_t)1 << (err - 1));
}

void rq_lat_add_stat(struct rq_lat_stat *s, uint64_t ns)
{
	double d;

	if (__builtin_expect(s->n == 0, 0)) {
		/* first sample: it becomes the shift and both extremes */
		s->shift = ns;
		s->min_ns = ns;
		s->max_ns = ns;
	}
	s->min_ns = ns < s->min_ns ? ns : s->min_ns;
	s->max_ns = ns > s->max_ns ? ns : s->max_ns;

	d = (double)(int64_t)(ns - s->shift);
	s->sum += d;
	s->sumsq += d * d;
	s->n++;
}

void rq_lat_add(struct rq_lat_stat *s, uint64_t ns)
{
	rq_lat_add_stat(s, ns);
	s->plat[rq_plat_val_to_idx(ns)]++;
}

void rq_lat_merge(struct rq_lat_stat *dst, const struct rq_lat_stat *src)
{
	double delta, n, sum, sumsq;
	unsigned int i;

	if (!src->n)
		return;
	if (!dst->n) {
		memcpy(dst, src, sizeof(*dst));
		return;
	}

	/*
	 * src's sums are about src->shift; move them to dst->shift.  With
	 * delta = src->shift - dst->shift and x = v - src->shift:
	 *   sum (x + delta)   = sum x + n * delta
	 *   sum (x + delta)^2 = sum x^2 + 2 * delta * sum x + n * delta^2
	 */
	delta = (double)(int64_t)(src->shift - dst->shift);
	n = (double)src->n;
	sum = src->sum;			/* read before writing: dst may be src */
	sumsq = src->sumsq;
	dst->sum += sum + n * delta;
	dst->sumsq += sumsq + 2.0 * delta * sum + n * delta * delta;

	dst->n += src->n;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (i = 0; i < RQ_PLAT_NR; i++)
		dst->plat[i] += src->plat[i];
}

double rq_lat_mean(const struct rq_lat_stat *s)
{
	if (!s->n)
		return 0.0;
	return (double)s->shift + s->sum / (double)s->n;
}

/* Sample standard deviation (n - 1 denominator), as fio's calc_lat(). */
double rq_lat_stddev(const struct rq_lat_stat *s)
{
	double n = (double)s->n, var;

	if (s->n < 2)
		return 0.0;
	var = (s->sumsq - s->sum * s->sum / n) / (n - 1.0);
	/* rounding can leave a tiny negative for a constant series */
	return var > 0.0 ? sqrt(var) : 0.0;
}

/*
 * fio's calc_clat_percentiles: walk the buckets in order, keeping the
 * running count; percentile p is the value of the first bucket where the
 * running count reaches p/100 * n.  The threshold is computed in long
 * double as fio does, so a running count that equals the threshold to
 * within double rounding is judged the same way.  Each percentile is
 * found independently, so @pct need not be sorted; the results are the
 * same as fio's pass over its sorted list.
 */
int rq_lat_percentiles(const struct rq_lat_stat *s, const double *pct, int nr, uint64_t *out)
{
	unsigned int last = 0, i;
	int j;

	if (nr < 0)
		return -EINVAL;
	for (j = 0; j < nr; j++)
		if (!(pct[j] >= 0.0 && pct[j] <= 100.0))	/* also refuses NaN */
			return -EINVAL;
	if (!s->n)
		return 0;

	/* highest non-empty bucket: the answer if the counts fall short of n */
	for (i = 0; i < RQ_PLAT_NR; i++)
		if (s->plat[i])
			last = i;

	for (j = 0; j < nr; j++) {
		long double want = (long double)pct[j] / 100.0 * (long double)s->n;
		uint64_t sum = 0;

		out[j] = rq_plat_idx_to_val(last);
		for (i = 0; i <= last; i++) {
			sum += s->plat[i];
			if ((long double)sum >= want) {
				out[j] = rq_plat_idx_to_val(i);
				break;
			}
		}
	}
	return nr;
}

int rq_lat_bucket(uint64_t x)
{
	static const uint64_t edge[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
	int i = 0;

	while (i < (int)(sizeof(edge) / sizeof(edge[0])) && x >= edge[i])
		i++;
	return i;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

unsigned int rq_job_percentiles(const struct rq_job_report *m, double *out, unsigned int max,
				unsigned int *precision)
{
	unsigned int n;

	if (m->percentiles && m->nr_percentiles) {
		n = m->nr_percentiles < max ? m->nr_percentiles : max;
		memcpy(out, m->percentiles, n * sizeof(double));
		*precision = m->percentile_precision;
	} else {
		n = RQ_NR_PERCENTILES < max ? RQ_NR_PERCENTILES : max;
		memcpy(out, rq_default_percentiles, n * sizeof(double));
		*precision = 2;		/* fio's percentile_precision for its default list */
	}
	qsort(out, n, sizeof(double), cmp_double);
	return n;
}

struct rq_prio_stat *rq_prio_slot(struct rq_dir_report *d, uint32_t ioprio)
{
	unsigned int k;

	for (k = 0; k < d->nr_prios && d->prio[k].ioprio != ioprio; k++)
		;
	if (k == d->nr_prios) {
		if (k == RQ_PRIOS_MAX)
			return NULL;
		memset(&d->prio[k], 0, sizeof(d->prio[k]));
		d->prio[k].ioprio = ioprio;
		d->nr_prios++;
	}
	return &d->prio[k];
}

void rq_prio_merge(struct rq_dir_report *dst, const struct rq_dir_report *src)
{
	for (unsigned int i = 0; i < src->nr_prios; i++) {
		struct rq_prio_stat *p = rq_prio_slot(dst, src->prio[i].ioprio);

		if (p)
			rq_lat_merge(&p->lat, &src->prio[i].lat);
	}
}
