// SPDX-License-Identifier: MIT
/*
 * dist.c - random_distribution=zipf:theta, pareto:h, normal:sigma.
 *
 * zipf: Gray et al.'s closed form over zeta sums; the sums run over at
 *       most ZIPF_MAX items (set-up cost O(min(n, ZIPF_MAX))) and the
 *       result is scaled to n, so for huge regions each "item" is a run
 *       of n / ZIPF_MAX blocks.
 * pareto: x = (n - 1) * u^(log(h) / log(1 - h)), the 80/20 rule at
 *       h = 0.2 hits about 80% of I/O on 20% of the blocks.
 * normal: Box-Muller around the region's middle, sigma in percent of
 *       the region, values outside it drawn again.
 * The index is then scattered with v -> v * scatter mod n, a bijection
 * since scatter is coprime with n -- or, with fio's :center, shifted so
 * the hot spot sits at that fraction of the region.
 */
#include <errno.h>
#include <math.h>

#include "engine/offsets.h"

#define ZIPF_MAX 10000000ULL

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int rq_dist_init(struct rq_dist *d, enum rq_rand_dist kind, double param, uint64_t nblocks,
		 double center)
{
	if (center > 1.0)
		return -EINVAL;
	d->center = center;
	d->kind = kind;
	d->nblocks = nblocks ? nblocks : 1;
	d->param = param;
	d->scatter = 0x9e3779b97f4a7c15ULL % d->nblocks;
	while (d->nblocks > 1 && (d->scatter == 0 || gcd(d->scatter, d->nblocks) != 1))
		d->scatter++;
	if (d->nblocks == 1)
		d->scatter = 1;
	switch (kind) {
	case RQ_RAND_ZIPF: {
		if (param <= 0 || param == 1.0)
			return -EINVAL;
		d->zipf_n = d->nblocks < ZIPF_MAX ? d->nblocks : ZIPF_MAX;
		d->zetan = 0;
		for (uint64_t i = 1; i <= d->zipf_n; i++)
			d->zetan += pow((double)i, -param);
		d->zeta2 = 1.0 + pow(2.0, -param);
		d->alpha = 1.0 / (1.0 - param);
		d->eta = (1.0 - pow(2.0 / (double)d->zipf_n, 1.0 - param)) / (1.0 - d->zeta2 / d->zetan);
		return 0;
	}
	case RQ_RAND_PARETO:
		return param > 0 && param < 1 ? 0 : -EINVAL;
	case RQ_RAND_NORMAL:
		return param > 0 ? 0 : -EINVAL;
	default:
		return 0;
	}
}

uint64_t rq_dist_next(const struct rq_dist *d, uint64_t *rng)
{
	uint64_t v;

	switch (d->kind) {
	case RQ_RAND_ZIPF: {
		double u = rq_rng_unit(rng), uz = u * d->zetan;
		uint64_t item;

		if (uz < 1.0)
			item = 0;
		else if (uz < d->zeta2)
			item = 1;
		else
			item = (uint64_t)((double)d->zipf_n * pow(d->eta * u - d->eta + 1.0, d->alpha));
		if (item >= d->zipf_n)
			item = d->zipf_n - 1;
		/* scale items to blocks when the sums were capped */
		v = d->zipf_n == d->nblocks ? item :
		    item * (d->nblocks / d->zipf_n) + rq_rng_next(rng) % (d->nblocks / d->zipf_n);
		break;
	}
	case RQ_RAND_PARETO: {
		double e = log(d->param) / log(1.0 - d->param);

		v = (uint64_t)((double)(d->nblocks - 1) * pow(rq_rng_unit(rng), e));
		break;
	}
	case RQ_RAND_NORMAL: {
		double mid = (double)d->nblocks / 2, sigma = (double)d->nblocks * d->param / 100.0;

		do {
			double u1 = rq_rng_unit(rng), u2 = rq_rng_unit(rng);
			double z = sqrt(-2.0 * log(u1 > 0 ? u1 : 1e-300)) * cos(2 * M_PI * u2);
			double x = mid + z * sigma;

			v = x < 0 ? UINT64_MAX : (uint64_t)x;
		} while (v >= d->nblocks);
		return v;	/* already centred: no scattering, as fio's normal */
	}
	default:
		return rq_rng_next(rng) % d->nblocks;
	}
	if (v >= d->nblocks)
		v = d->nblocks - 1;
	if (d->center >= 0)	/* :center given: the hot spot sits there, unscattered */
		return (v + (uint64_t)(d->center * (double)d->nblocks)) % d->nblocks;
	return (uint64_t)(((unsigned __int128)v * d->scatter) % d->nblocks);
}
