// SPDX-License-Identifier: MIT
/*
 * test_lockdep - lock-order validation.
 *
 * A deliberate inversion, in this test only: worker 0 takes A then B,
 * worker 1 takes B then A (one after the other: lockdep needs the two
 * orders, not a real deadlock).  It must be reported as a cycle naming
 * both classes and both acquisition sites (this file's lines), and
 * rq_lockdep_result() must fail.  Likewise a three-class cycle A->B->C->A,
 * and a class taken while one of its own is held (recursive locking).  A
 * consistent order (A then B, many times, several workers) must stay clean
 * with exactly one edge.  Then every lock mode runs a job through the
 * engine with lockdep on and must come out clean, reporting its classes.
 * Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "queues/queue.h"
#include "tests/helpers.h"

static const struct rq_lock_class class_a = { .name = "class_a" };
static const struct rq_lock_class class_b = { .name = "class_b" };
static const struct rq_lock_class class_c = { .name = "class_c" };

static struct rq_lock a, b, c, a2;
static struct rq_run_report rep;	/* big: static */

static void start(unsigned int nr_cpus)
{
	struct rq_lock_config cfg = { .nr_cpus = nr_cpus, .lockdep = true, .lockstat = true };

	rq_locks_reset();
	CHECK(rq_lock_setup(&cfg) == 0, "setup");
	rq_lock_init(&a, &class_a, "a");
	rq_lock_init(&b, &class_b, "b");
	rq_lock_init(&c, &class_c, "c");
	rq_lock_init(&a2, &class_a, "a2");
}

static void report(void)
{
	memset(&rep, 0, sizeof(rep));
	CHECK(rq_queues_report(&rep) == 0, "report");
}

static void test_clean(void)
{
	char msg[1024];

	start(3);
	for (int i = 0; i < 100; i++) {
		int cpu = i % 3;

		rq_lock(&a, cpu);
		rq_lock(&b, cpu);
		rq_unlock(&b, cpu);
		rq_unlock(&a, cpu);
		rq_lock(&c, cpu);	/* alone: no edge */
		rq_unlock(&c, cpu);
	}
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == 0, "clean order reported: %s", msg);
	report();
	CHECK(rep.lockdep.enabled && rep.lockdep.edges == 1 && rep.lockdep.cycles == 0,
	      "clean: %u edges %u cycles", rep.lockdep.edges, rep.lockdep.cycles);
	CHECK(rep.lockdep.classes == 3, "clean: %u classes used", rep.lockdep.classes);
	CHECK(rep.lockdep.nr_edges == 1 && !strcmp(rep.lockdep.edge_list[0].from, "class_a") &&
	      !strcmp(rep.lockdep.edge_list[0].to, "class_b") &&
	      strstr(rep.lockdep.edge_list[0].to_site, "test_lockdep.c:"), "clean: the edge");
}

static void test_inversion(void)
{
	char msg[1024], site_ab[64], site_ba[64];
	int line_ab, line_ba;

	start(2);
	/* worker 0: A then B */
	rq_lock(&a, 0);
	line_ab = __LINE__ + 1;
	rq_lock(&b, 0);
	rq_unlock(&b, 0);
	rq_unlock(&a, 0);
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == 0, "one order alone reported: %s", msg);
	/* worker 1: B then A - the inversion */
	rq_lock(&b, 1);
	line_ba = __LINE__ + 1;
	rq_lock(&a, 1);
	rq_unlock(&a, 1);
	rq_unlock(&b, 1);
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == -EDEADLK, "inversion not reported");
	snprintf(site_ab, sizeof(site_ab), "test_lockdep.c:%d", line_ab);
	snprintf(site_ba, sizeof(site_ba), "test_lockdep.c:%d", line_ba);
	CHECK(strstr(msg, "class_a") && strstr(msg, "class_b"), "classes not named: %s", msg);
	CHECK(strstr(msg, site_ab) && strstr(msg, site_ba), "sites %s and %s not named: %s", site_ab,
	      site_ba, msg);
	CHECK(strstr(msg, "worker 0") && strstr(msg, "worker 1"), "workers not named: %s", msg);
	report();
	CHECK(rep.lockdep.cycles == 1 && rep.lockdep.edges == 2, "inversion: %u cycles %u edges",
	      rep.lockdep.cycles, rep.lockdep.edges);
	CHECK(strstr(rep.lockdep.cycle, site_ab) != NULL, "report's cycle text");
}

static void test_three(void)
{
	char msg[1024];

	start(3);
	rq_lock(&a, 0);
	rq_lock(&b, 0);
	rq_unlock(&b, 0);
	rq_unlock(&a, 0);
	rq_lock(&b, 1);
	rq_lock(&c, 1);
	rq_unlock(&c, 1);
	rq_unlock(&b, 1);
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == 0, "chain A->B->C reported: %s", msg);
	rq_lock(&c, 2);
	rq_lock(&a, 2);
	rq_unlock(&a, 2);
	rq_unlock(&c, 2);
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == -EDEADLK, "cycle A->B->C->A not reported");
	CHECK(strstr(msg, "class_a") && strstr(msg, "class_b") && strstr(msg, "class_c"),
	      "three-cycle classes: %s", msg);
}

static void test_recursive(void)
{
	char msg[1024];

	start(1);
	rq_lock(&a, 0);
	rq_lock(&a2, 0);	/* another lock of the same class */
	rq_unlock(&a2, 0);
	rq_unlock(&a, 0);
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == -EDEADLK, "recursive class not reported");
	CHECK(strstr(msg, "recursive") && strstr(msg, "class_a"), "recursive: %s", msg);
}

/* Every mode, through the engine, with lockdep on: clean. */
static void test_modes(void)
{
	/* every mode of the registry (queues/modes.def), none named here */
	const char *modes[16];
	unsigned int nr_modes = 0;
	const char *job = "[global]\nbs=4k\nsize=256k\niodepth=8\nnumjobs=3\nrw=randrw\n"
			  "[j]\nfilename=@null0,depth=4,irqmode=1:@null1,depth=4,irqmode=2,delay_us=5\n";

	while (nr_modes < 16 && rq_queue_mode_at(nr_modes)) {
		modes[nr_modes] = rq_queue_mode_at(nr_modes)->name;
		nr_modes++;
	}
	for (unsigned int m = 0; m < nr_modes; m++) {
		for (unsigned int k = 1; k <= 2; k++) {
			struct rq_engine_opts o = {
				.lock_mode = modes[m], .lock_type = "ttas", .workers = 2, .lockstat = true,
				.lockdep = true, .cluster_size = k, .hw_queues = k,
				.stall_timeout_ns = 10ULL * 1000000000ULL,
			};
			struct rq_job_list jobs = { 0 };
			struct rq_engine *e;
			const struct rq_run_report *r;
			int ret;

			CHECK(rq_jobs_parse_buf(modes[m], job, &jobs, stderr) == 0, "%s: parse", modes[m]);
			ret = rq_engine_setup(&e, &o, &jobs, stderr);
			CHECK(ret == 0, "%s: setup %d", modes[m], ret);
			if (ret) {
				rq_jobs_free(&jobs);
				continue;
			}
			ret = rq_engine_run(e, stderr);
			CHECK(ret == 0, "%s/%u: run %d", modes[m], k, ret);
			r = rq_engine_report(e);
			CHECK(r->lockdep.enabled && r->lockdep.cycles == 0, "%s/%u: %u cycles", modes[m], k,
			      r->lockdep.cycles);
			/* one class each; cluster with one worker per partition has no lock at all */
			CHECK(r->lockdep.classes == (!strcmp(modes[m], "cluster") && k == 1 ? 0u : 1u),
			      "%s/%u: %u classes", modes[m], k, r->lockdep.classes);
			CHECK(r->lockdep.edges == 0, "%s/%u: %u edges", modes[m], k, r->lockdep.edges);
			printf("  %-9s %u: %u lock classes, %u ordering edges, %u cycles\n", modes[m], k,
			       r->lockdep.classes, r->lockdep.edges, r->lockdep.cycles);
			rq_engine_free(e);
			rq_jobs_free(&jobs);
		}
	}
}

/*
 * The engine must call rq_queues_report() (lockstat, lockdep, the mode's
 * facts), rq_queue_check_idle() and honour RQ_MODE_F_ALL_WORKERS; without
 * the first, say so at once rather than fail every case below.
 */
static bool engine_wired(void)
{
	struct rq_engine_opts o = { .lock_mode = "global", .lock_type = "ttas", .workers = 1, .lockstat = true };
	struct rq_job_list jobs = { 0 };
	struct rq_engine *e;
	bool ok = false;

	if (rq_jobs_parse_buf("probe", "[p]\nioengine=null\nsize=64k\nbs=4k\n", &jobs, stderr))
		return false;
	if (!rq_engine_setup(&e, &o, &jobs, stderr)) {
		if (!rq_engine_run(e, stderr))
			ok = rq_engine_report(e)->lockstat.classes != NULL;
		rq_engine_free(e);
	}
	rq_jobs_free(&jobs);
	if (!ok)
		fprintf(stderr, "%s: the engine does not fill the lock reports (rq_queues_report() is not "
			"called from build_report()): the queues/ wiring is missing\n", "test_lockdep");
	return ok;
}

int main(void)
{
	test_clean();
	test_inversion();
	test_three();
	test_recursive();
	if (engine_wired())
		test_modes();
	else
		failures++;
	rq_locks_reset();
	if (failures) {
		fprintf(stderr, "test_lockdep: %d failures\n", failures);
		return 1;
	}
	printf("test_lockdep: ok\n");
	return 0;
}
