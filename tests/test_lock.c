// SPDX-License-Identifier: MIT
/*
 * test_lock - the lock primitives (ttas, ticket, mcs, mutex) and lockstat.
 *
 * For each primitive: more threads than cores hammer one lock; a plain
 * counter incremented inside must come out exact and an "inside" flag
 * must never be seen set by a second holder (mutual exclusion), and the
 * run must end (spinners yield: no livelock with threads > cores).  Then
 * trylock, nesting two locks released out of order (mcs nodes), and the
 * lockstat counts: acquisitions exact, wait samples = contentions, hold
 * samples = acquisitions when every hold is measured, contention sites
 * naming this file, bounces no more than acquisitions, handoff samples
 * (issue 33) no more than contentions and some when every hold is measured.
 * Exit 0 pass, 1 fail.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queues/queue.h"
#include "results/results.h"
#include "tests/helpers.h"

#define THREADS 4
#define ITERS 20000

static const struct rq_lock_class test_class = { .name = "test_lock" };
static const struct rq_lock_class other_class = { .name = "test_other" };

static struct rq_lock lock_a, lock_b;
static uint64_t counter;		/* protected by lock_a */
static atomic_int inside;
static atomic_int overlaps;

struct arg {
	int cpu;
	bool use_try;
};

static void *hammer(void *p)
{
	const struct arg *a = p;

	for (int i = 0; i < ITERS; i++) {
		if (a->use_try && (i & 1)) {
			while (!rq_trylock(&lock_a, a->cpu))
				sched_yield();
		} else {
			rq_lock(&lock_a, a->cpu);
		}
		if (atomic_fetch_add(&inside, 1) != 0)
			atomic_fetch_add(&overlaps, 1);
		counter++;
		atomic_fetch_sub(&inside, 1);
		rq_unlock(&lock_a, a->cpu);
	}
	return NULL;
}

static void one_type(enum rq_lock_type type, bool lockstat, unsigned int sample)
{
	struct rq_lock_config cfg = {
		.nr_cpus = THREADS, .lock_type = type, .lockstat = lockstat, .lockstat_sample = sample,
	};
	pthread_t t[THREADS];
	struct arg args[THREADS];
	struct rq_lock_report lr[4];
	static struct rq_run_report r;	/* big (lockstat histograms) */
	const char *name = rq_lock_type_name(type);

	rq_locks_reset();
	CHECK(rq_lock_setup(&cfg) == 0, "%s: setup", name);
	rq_lock_init(&lock_a, &test_class, "a");
	counter = 0;
	atomic_store(&overlaps, 0);
	for (int i = 0; i < THREADS; i++) {
		args[i].cpu = i;
		args[i].use_try = i == THREADS - 1;
		pthread_create(&t[i], NULL, hammer, &args[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(counter == (uint64_t)THREADS * ITERS, "%s: counter %" PRIu64, name, counter);
	CHECK(atomic_load(&overlaps) == 0, "%s: %d overlapping holders", name, atomic_load(&overlaps));
	CHECK(!rq_lock_is_locked(&lock_a), "%s: still locked", name);
	CHECK(rq_locks_report(lr, 4) == 1 && lr[0].acquisitions == (uint64_t)THREADS * ITERS,
	      "%s: %" PRIu64 " acquisitions", name, lr[0].acquisitions);

	memset(&r, 0, sizeof(r));
	CHECK(rq_queues_report(&r) == 0, "%s: report", name);
	CHECK(r.lockstat.nr_classes == 1, "%s: %u classes", name, r.lockstat.nr_classes);
	if (r.lockstat.nr_classes == 1) {
		const struct rq_lockstat_class *c = &r.lockstat.classes[0];

		CHECK(!strcmp(c->name, "test_lock") && c->locks == 1, "%s: class %s", name, c->name);
		CHECK(c->acquisitions == (uint64_t)THREADS * ITERS, "%s: class acquisitions", name);
		CHECK(c->contentions <= c->acquisitions, "%s: contentions", name);
		if (lockstat) {
			uint64_t n = 0;

			CHECK(c->wait.samples == c->contentions, "%s: wait samples %" PRIu64 " contentions %" PRIu64,
			      name, c->wait.samples, c->contentions);
			CHECK(c->con_bounces <= c->contentions && c->acq_bounces <= c->acquisitions &&
			      c->acq_bounces >= 1, "%s: bounces %" PRIu64 "/%" PRIu64, name, c->con_bounces,
			      c->acq_bounces);
			if (sample == 1)
				CHECK(c->hold.samples == c->acquisitions, "%s: hold samples %" PRIu64, name,
				      c->hold.samples);
			else
				CHECK(c->hold.samples > 0 && c->hold.samples < c->acquisitions,
				      "%s: hold samples %" PRIu64, name, c->hold.samples);
			for (unsigned int i = 0; i < c->hold.nr_buckets; i++)
				n += c->hold.buckets[i].count;
			CHECK(n == c->hold.samples, "%s: histogram holds %" PRIu64, name, n);
			CHECK(c->hold.min_ns <= c->hold.avg_ns && c->hold.avg_ns <= c->hold.max_ns,
			      "%s: hold min/avg/max", name);
			/* a handoff is a contended acquisition right after a sampled hold's release */
			n = 0;
			for (unsigned int i = 0; i < c->handoff.nr_buckets; i++)
				n += c->handoff.buckets[i].count;
			CHECK(n == c->handoff.samples && c->handoff.samples <= c->contentions &&
			      c->handoff.samples <= c->hold.samples, "%s: handoff samples %" PRIu64, name,
			      c->handoff.samples);
			/* some, not all: a handoff shorter than the CPUs' clock skew reads negative, dropped */
			if (sample == 1 && c->contentions >= 100)
				CHECK(c->handoff.samples > 0 && c->handoff.min_ns <= c->handoff.avg_ns,
				      "%s: every hold sampled, %" PRIu64 " contended, no handoff", name,
				      c->contentions);
			/*
			 * the gap: one sample at most per sampled release that
			 * left a waiter, and some once enough waited (a gap is
			 * dropped only when the clocks' skew makes it negative)
			 */
			n = 0;
			for (unsigned int i = 0; i < c->gap.nr_buckets; i++)
				n += c->gap.buckets[i].count;
			CHECK(n == c->gap.samples && c->gap.samples <= c->rel_waited &&
			      c->rel_waited <= c->rel_sampled && c->rel_sampled <= c->hold.samples,
			      "%s: gap samples %" PRIu64 ", releases %" PRIu64 " with a waiter of %" PRIu64
			      " sampled, %" PRIu64 " holds", name, c->gap.samples, c->rel_waited,
			      c->rel_sampled, c->hold.samples);
			/* every sampled release is timed in the primitive's unlock */
			CHECK(c->release_samples == c->rel_sampled && c->release_ns >= 0,
			      "%s: %" PRIu64 " releases timed of %" PRIu64 " sampled", name,
			      c->release_samples, c->rel_sampled);
			if (sample == 1 && c->contentions >= 100)
				CHECK(c->rel_waited > 0 && c->gap.samples > 0 && c->gap.min_ns <= c->gap.avg_ns,
				      "%s: every hold sampled, %" PRIu64 " contended, no gap", name,
				      c->contentions);
			if (c->contentions) {
				CHECK(c->nr_sites >= 1 && strstr(c->sites[0].site, "test_lock.c:"),
				      "%s: site '%s'", name, c->nr_sites ? c->sites[0].site : "");
				CHECK(c->wait.max_ns >= c->wait.min_ns, "%s: wait min/max", name);
			}
		} else {
			CHECK(c->wait.samples == 0 && c->hold.samples == 0 && c->handoff.samples == 0 &&
			      c->gap.samples == 0 && c->rel_sampled == 0 && c->release_samples == 0,
			      "%s: lockstat off measured something", name);
		}
	}
	printf("  %-6s lockstat=%s: %d threads x %d, %" PRIu64 " contended\n", name, lockstat ? "on " : "off",
	       THREADS, ITERS, lr[0].contentions);
}

/* Two locks of one primitive, released in the order taken (not LIFO), and trylock on a held one. */
static void nesting(enum rq_lock_type type)
{
	struct rq_lock_config cfg = { .nr_cpus = 2, .lock_type = type };
	const char *name = rq_lock_type_name(type);

	rq_locks_reset();
	rq_lock_setup(&cfg);
	rq_lock_init(&lock_a, &test_class, "a");
	rq_lock_init(&lock_b, &other_class, "b");
	for (int i = 0; i < 100; i++) {
		rq_lock(&lock_a, 0);
		rq_lock(&lock_b, 0);
		CHECK(rq_lock_is_held_by(&lock_a, 0) && rq_lock_is_held_by(&lock_b, 0), "%s: held", name);
		CHECK(!rq_trylock(&lock_a, 1), "%s: trylock of a held lock succeeded", name);
		rq_unlock(&lock_a, 0);
		CHECK(rq_trylock(&lock_a, 1), "%s: trylock of a free lock failed", name);
		rq_unlock(&lock_b, 0);
		rq_unlock(&lock_a, 1);
	}
	CHECK(!rq_lock_is_locked(&lock_a) && !rq_lock_is_locked(&lock_b), "%s: left locked", name);
}

int main(void)
{
	enum rq_lock_type t;

	CHECK(rq_lock_type_parse("ticket", &t) == 0 && t == RQ_LOCK_TICKET, "parse ticket");
	CHECK(rq_lock_type_parse("spin", &t) != 0, "parse of an unknown type succeeded");
	for (int type = 0; type < (int)rq_lock_nr_types(); type++) {
		one_type((enum rq_lock_type)type, false, 0);
		one_type((enum rq_lock_type)type, true, 0);
		one_type((enum rq_lock_type)type, true, 1);
		nesting((enum rq_lock_type)type);
	}
	rq_locks_reset();
	if (failures) {
		fprintf(stderr, "test_lock: %d failures\n", failures);
		return 1;
	}
	printf("test_lock: ok\n");
	return 0;
}
