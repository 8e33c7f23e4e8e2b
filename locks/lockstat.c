// SPDX-License-Identifier: MIT
/*
 * lockstat.c - lockstat: wait and hold histograms, contention sites, and the
 * run's lock report (see lock.c's header).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "locks/locks_internal.h"

/* ---- lockstat -------------------------------------------------------- */

static inline unsigned int hist_idx(uint64_t v)
{
	unsigned int msb, eb, idx;

	if (v < (1u << (RQ_LOCK_HIST_BITS + 1)))
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	eb = msb - RQ_LOCK_HIST_BITS;
	idx = ((eb + 1) << RQ_LOCK_HIST_BITS) + (unsigned int)((v >> eb) & ((1u << RQ_LOCK_HIST_BITS) - 1));
	return idx < RQ_LOCK_HIST_NR ? idx : RQ_LOCK_HIST_NR - 1;
}

static uint64_t hist_lo(unsigned int idx)
{
	unsigned int eb;

	if (idx < (1u << (RQ_LOCK_HIST_BITS + 1)))
		return idx;
	eb = (idx >> RQ_LOCK_HIST_BITS) - 1;
	return ((uint64_t)(1u << RQ_LOCK_HIST_BITS) + (idx & ((1u << RQ_LOCK_HIST_BITS) - 1))) << eb;
}

void lk_time_add(struct rq_lock_time *t, uint64_t v)
{
	v = v > lk_clk.overhead ? v - lk_clk.overhead : 0;
	if (!t->n || v < t->min)
		t->min = v;
	if (v > t->max)
		t->max = v;
	/* n and total are read during the run (rq_lockstat_sample): relaxed stores, plain movs on x86 */
	__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&t->total, t->total + v, __ATOMIC_RELAXED);
	t->hist[hist_idx(v)]++;
}

static void __attribute__((noinline)) site_add(struct rq_lock *l, const char *site)
{
	for (unsigned int i = 0; i < RQ_LOCK_SITES; i++) {
		if (l->sites[i].site == site) {
			l->sites[i].n++;
			return;
		}
		if (!l->sites[i].site) {
			l->sites[i].site = site;
			l->sites[i].n = 1;
			return;
		}
	}
	l->sites_other++;
}

void __attribute__((noinline)) lk_stat_contended(struct rq_lock *l, const char *site,
						     uint64_t t0, uint64_t t1)
{
	lk_time_add(&l->wait, t1 - t0);
	site_add(l, site);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

void __attribute__((noinline)) lk_stat_holder(struct rq_lock *l, const char *waiter, const char *holder,
					       const char *holder_site, uint64_t wait)
{
	wait = wait > lk_clk.overhead ? wait - lk_clk.overhead : 0;
	for (unsigned int i = 0; i < RQ_LOCK_HOLDERS; i++) {
		struct rq_lock_holder_count *h = &l->holders[i];

		if (!h->n) {
			h->waiter = waiter;
			h->holder = holder;
			h->holder_site = holder_site;
		} else if (!str_eq(h->waiter, waiter) || !str_eq(h->holder, holder) ||
			   h->holder_site != holder_site) {
			continue;
		}
		h->n++;
		h->wait += wait;
		return;
	}
	l->holders_other++;
}

/*
 * Per class, the wait and hold samples so far, while the run goes on
 * (lock logs): relaxed loads of what each lock's holder stores relaxed.
 * The registries are complete before workers start.
 */
unsigned int rq_lockstat_sample(struct rq_lockstat_sample *out, unsigned int max)
{
	double rate = rq_clock_ns_per_tick();
	unsigned int n = 0;

	if (!lk_cfg.lockstat)
		return 0;
	for (unsigned int c = 0; c < lk_nr_classes && n < max; c++) {
		struct rq_lockstat_sample *o = &out[n];
		uint64_t wt = 0, ht = 0;
		bool any = false;

		memset(o, 0, sizeof(*o));
		o->name = lk_classes[c]->name;
		for (unsigned int i = 0; i < lk_nr_registered; i++) {
			const struct rq_lock *l = lk_registry[i];

			if (l->class_id != c)
				continue;
			any = true;
			o->wait_n += __atomic_load_n(&l->wait.n, __ATOMIC_RELAXED);
			wt += __atomic_load_n(&l->wait.total, __ATOMIC_RELAXED);
			o->hold_n += __atomic_load_n(&l->hold.n, __ATOMIC_RELAXED);
			ht += __atomic_load_n(&l->hold.total, __ATOMIC_RELAXED);
		}
		if (!any)
			continue;
		o->wait_ns = (uint64_t)((double)wt * rate + 0.5);
		o->hold_ns = (uint64_t)((double)ht * rate + 0.5);
		n++;
	}
	return n;
}

/* ---- reports ------------------------------------------------------------ */

static void time_fold(struct rq_lock_time *dst, const struct rq_lock_time *src)
{
	if (!src->n)
		return;
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->total += src->total;
	for (unsigned int i = 0; i < RQ_LOCK_HIST_NR; i++)
		dst->hist[i] += src->hist[i];
}

static void time_report(struct rq_lockstat_time *out, const struct rq_lock_time *t, double rate,
			uint64_t scale_to)
{
	memset(out, 0, sizeof(*out));
	out->samples = t->n;
	if (!t->n)
		return;
	out->min_ns = (uint64_t)((double)t->min * rate + 0.5);
	out->max_ns = (uint64_t)((double)t->max * rate + 0.5);
	out->avg_ns = (double)t->total * rate / (double)t->n;
	/* sampled: the total is the mean times the events it stands for */
	out->total_ns = scale_to ? (uint64_t)(out->avg_ns * (double)scale_to + 0.5)
				 : (uint64_t)((double)t->total * rate + 0.5);
	for (unsigned int i = 0; i < RQ_LOCK_HIST_NR; i++) {
		if (!t->hist[i])
			continue;
		out->buckets[out->nr_buckets].lo_ns = (uint64_t)((double)hist_lo(i) * rate);
		out->buckets[out->nr_buckets].count = t->hist[i];
		out->nr_buckets++;
	}
}

struct site_acc {
	const char *site;
	uint64_t n;
};

static int site_cmp(const void *a, const void *b)
{
	const struct site_acc *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(lk_site_trim(x->site), lk_site_trim(y->site));
}

struct holder_acc {
	const char *waiter, *holder, *site;
	uint64_t n, wait;
};

static int holder_cmp(const void *a, const void *b)
{
	const struct holder_acc *x = a, *y = b;

	return x->wait < y->wait ? 1 : x->wait > y->wait ? -1 : (x->n < y->n) - (x->n > y->n);
}

/* Fold lock @l's holder triples into @acc (up to @max); the rest counts in *other. */
static void holders_fold(struct holder_acc *acc, unsigned int *nr, unsigned int max, const struct rq_lock *l,
			 uint64_t *other)
{
	*other += l->holders_other;
	for (unsigned int i = 0; i < RQ_LOCK_HOLDERS && l->holders[i].n; i++) {
		const struct rq_lock_holder_count *h = &l->holders[i];
		unsigned int k;

		for (k = 0; k < *nr; k++)
			if (str_eq(acc[k].waiter, h->waiter) && str_eq(acc[k].holder, h->holder) &&
			    str_eq(acc[k].site, h->holder_site))
				break;
		if (k == *nr) {
			if (*nr == max) {
				*other += h->n;
				continue;
			}
			acc[k] = (struct holder_acc){ h->waiter, h->holder, h->holder_site, 0, 0 };
			++*nr;
		}
		acc[k].n += h->n;
		acc[k].wait += h->wait;
	}
}

/* @l's contention sites into @acc (at most @max distinct ones; *@nr so far) */
static void sites_fold(struct site_acc *acc, unsigned int *nr, unsigned int max, const struct rq_lock *l)
{
	for (unsigned int s = 0; s < RQ_LOCK_SITES && l->sites[s].site; s++) {
		unsigned int k;

		for (k = 0; k < *nr; k++)
			if (!strcmp(acc[k].site, l->sites[s].site))
				break;
		if (k == *nr) {
			if (*nr == max)
				continue;
			acc[*nr].site = l->sites[s].site;
			acc[(*nr)++].n = 0;
		}
		acc[k].n += l->sites[s].n;
	}
}

static int lockstat_fill(struct rq_lockstat_report *out, unsigned int *classes_used)
{
	static struct rq_lock_time wait, hold, handoff, gap;	/* big: not on a worker-sized stack */
	uint64_t rel_cost, rel_n;
	uint64_t elapsed;
	double rate = lk_clock_rate(&elapsed);

	memset(out, 0, sizeof(*out));
	out->enabled = lk_cfg.lockstat;
	out->clock = rq_clock_name();
	out->hold_sample = lk_cfg.hold_sample;
	out->overhead_ns = (double)lk_clk.overhead * rate;
	out->elapsed_ns = elapsed;
	*classes_used = 0;
	free(lk_rep_classes);
	lk_rep_classes = calloc(lk_nr_classes ? lk_nr_classes : 1, sizeof(*lk_rep_classes));
	if (!lk_rep_classes)
		return -ENOMEM;
	for (unsigned int c = 0; c < lk_nr_classes; c++) {
		struct rq_lockstat_class *rc = &lk_rep_classes[out->nr_classes];
		struct site_acc sites[64];
		struct holder_acc holders[64];
		unsigned int nsites = 0, nholders = 0;

		memset(&wait, 0, sizeof(wait));
		memset(&hold, 0, sizeof(hold));
		memset(&handoff, 0, sizeof(handoff));
		memset(&gap, 0, sizeof(gap));
		rel_cost = rel_n = 0;
		snprintf(rc->name, sizeof(rc->name), "%s", lk_classes[c]->name);
		for (unsigned int i = 0; i < lk_nr_registered; i++) {
			const struct rq_lock *l = lk_registry[i];

			if (l->class_id != c)
				continue;
			rc->locks++;
			rc->acquisitions += l->acquisitions;
			rc->contentions += l->contentions;
			rc->acq_bounces += l->acq_bounces;
			rc->con_bounces += l->con_bounces;
			time_fold(&wait, &l->wait);
			time_fold(&hold, &l->hold);
			time_fold(&handoff, &l->handoff);
			time_fold(&gap, &l->gap);
			rc->rel_sampled += l->rel_sampled;
			rc->rel_waited += l->rel_waited;
			rel_cost += atomic_load_explicit(&l->rel_cost, memory_order_relaxed);
			rel_n += atomic_load_explicit(&l->rel_cost_n, memory_order_relaxed);
			holders_fold(holders, &nholders, sizeof(holders) / sizeof(holders[0]), l,
				     &rc->holders_other);
			sites_fold(sites, &nsites, sizeof(sites) / sizeof(sites[0]), l);
		}
		if (!rc->locks)
			continue;
		if (rc->acquisitions)
			++*classes_used;
		time_report(&rc->wait, &wait, rate, 0);
		time_report(&rc->hold, &hold, rate, rc->acquisitions);
		time_report(&rc->handoff, &handoff, rate, 0);
		time_report(&rc->gap, &gap, rate, 0);
		rc->release_samples = rel_n;
		if (rel_n) {
			double per = (double)rel_cost / (double)rel_n - (double)lk_clk.overhead;

			rc->release_ns = (per > 0 ? per : 0) * rate;
		}
		qsort(sites, nsites, sizeof(sites[0]), site_cmp);
		for (unsigned int s = 0; s < nsites && s < RQ_LOCKSTAT_SITES; s++) {
			snprintf(rc->sites[s].site, sizeof(rc->sites[s].site), "%s", lk_site_trim(sites[s].site));
			rc->sites[s].contentions = sites[s].n;
			rc->nr_sites++;
		}
		qsort(holders, nholders, sizeof(holders[0]), holder_cmp);
		for (unsigned int h = 0; h < nholders; h++) {
			struct rq_lockstat_holder *o = &rc->holders[rc->nr_holders];

			if (h >= RQ_LOCKSTAT_HOLDERS) {
				rc->holders_other += holders[h].n;
				continue;
			}
			snprintf(o->waiter, sizeof(o->waiter), "%s", holders[h].waiter ? holders[h].waiter : "");
			snprintf(o->holder, sizeof(o->holder), "%s", holders[h].holder ? holders[h].holder : "");
			snprintf(o->holder_site, sizeof(o->holder_site), "%s", lk_site_trim(holders[h].site));
			o->contentions = holders[h].n;
			o->wait_ns = (uint64_t)((double)holders[h].wait * rate + 0.5);
			rc->nr_holders++;
		}
		out->nr_classes++;
	}
	out->classes = lk_rep_classes;
	return 0;
}

int rq_locks_fill_report(struct rq_run_report *r)
{
	unsigned int used = 0;
	int ret = lockstat_fill(&r->lockstat, &used);

	if (ret)
		return ret;
	return lk_lockdep_fill(&r->lockdep, used);
}

