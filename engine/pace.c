// SPDX-License-Identifier: MIT
/*
 * pace.c - the rate schedule of a rate-limited job (rate_iops,
 * rate_process=linear|poisson) and the latency measured from it.
 *
 * The schedule is a sequence of due times fixed by the job alone:
 * due[0] = the first time the clone may issue, due[k+1] = due[k] + gap,
 * gap = 1/rate (linear) or exponential with that mean (poisson).  It never
 * looks at completions and never slides: when the clone could not issue
 * on time (every bio in flight, a worker stuck behind a lock), the I/Os
 * that fell due meanwhile are issued as soon as they can be, back to back,
 * each still carrying its own due time.
 *
 * fio's slat/clat/lat start when the I/O is built, so a stall that stops
 * the issuer hides in them: the I/Os that should have been issued during
 * the stall are issued late and measured from their late start
 * ("coordinated omission", Gil Tene; wrk2 and HdrHistogram's
 * recordValueWithExpectedInterval correct it).  lat_intended = completion
 * - due time is what a client issuing on that schedule would have seen.
 * docs/LATENCY.md has a worked example.
 */
#include <math.h>

#include "engine/offsets.h"
#include "engine/pace.h"
#include "results/results.h"

void eng_pace_init(struct pace *p, uint64_t rate_iops, bool poisson)
{
	p->next_ns = 0;
	p->mean_gap_ns = rate_iops ? 1000000000ULL / rate_iops : 0;
	p->poisson = poisson;
}

static uint64_t pace_gap(const struct pace *p, uint64_t *rng)
{
	double gap = (double)p->mean_gap_ns;

	if (p->poisson)
		gap *= -log(1.0 - rq_rng_unit(rng));
	return (uint64_t)gap;
}

bool eng_pace_take(struct pace *p, uint64_t now, uint64_t *rng, uint64_t *due)
{
	if (!p->next_ns)
		p->next_ns = now ? now : 1;	/* the schedule starts at the first chance */
	if (p->next_ns > now) {
		*due = p->next_ns;
		return false;
	}
	*due = p->next_ns;
	p->next_ns += pace_gap(p, rng);
	return true;
}

void eng_pace_account(struct rq_dir_report *d, uint64_t mean_gap_ns, uint64_t due, uint64_t start,
		      uint64_t done)
{
	uint64_t lag = start > due ? start - due : 0;

	rq_lat_add(&d->lat_intended, done > due ? done - due : 0);
	if (lag > d->max_lag_ns)
		d->max_lag_ns = lag;
	if (lag > mean_gap_ns)
		d->late_ios++;
}
