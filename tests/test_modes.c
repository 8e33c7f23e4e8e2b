// SPDX-License-Identifier: MIT
/*
 * test_modes - every bio completes exactly once in all four lock modes
 * (global, per-queue, mq, cluster) under all four lock primitives (ttas,
 * ticket, mcs, mutex): null devices in irqmode 0, 1 and 2, 1..4 workers
 * and 1..4 devices, numjobs > workers, reads, writes and mixed, QD 16
 * against device depth 8 (so requests wait for the budget), mq with its
 * default and with one hardware queue, cluster with partitions of 1 and 2.
 * The engine checks itself at the end of a run (rq_queue_check_idle());
 * this test checks the report from outside too: per clone I/O counts,
 * bios = requests + merges, dispatched = completed = requests, lockstat
 * acquisitions matching the locks table, and the mode's own counters
 * (cluster: local + forwarded = bios).  Built under TSan it is the race
 * test of the modes.  Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "queues/queue.h"
#include "tests/helpers.h"

static int runs;

/* Returns false if the run failed (the rest of that mode is skipped: a hang costs one timeout). */
static bool one(const char *mode, const char *type, unsigned int workers, unsigned int ndev,
		const char *rw, unsigned int irqmode, unsigned int variant)
{
	char job[2048], files[512] = "", name[128];
	struct rq_engine_opts o = {
		.lock_mode = mode, .lock_type = type, .workers = workers, .lockstat = true,
		.stall_timeout_ns = 10ULL * 1000000000ULL,
		.hw_queues = variant, .cluster_size = variant + 1,
	};
	struct rq_test_run t;
	const struct rq_run_report *r;
	uint64_t ios = 0, bios = 0, dispatched = 0, completed = 0, merges = 0, reqs = 0;
	uint64_t acq = 0, ls_acq = 0;
	unsigned int numjobs = workers + 2;
	/* 1 MiB over ndev files of 4k blocks: a file is done once its next block passes its end (fio 3.33: 3 x 85) */
	unsigned int per_clone = ndev * ((1u << 20) / ndev / 4096);
	int before = failures;

	for (unsigned int d = 0; d < ndev; d++) {
		char one_dev[64];

		snprintf(one_dev, sizeof(one_dev), "%s@null%u,depth=8,irqmode=%u%s", d ? ":" : "", d,
			 irqmode, irqmode == 2 ? ",delay_us=5" : "");
		strcat(files, one_dev);
	}
	/* 1 MiB per clone of 4k: 256 bios each */
	snprintf(job, sizeof(job),
		 "[global]\nbs=4k\nsize=1m\niodepth=16\nnumjobs=%u\n[j]\nrw=%s\nfilename=%s\n",
		 numjobs, rw, files);
	snprintf(name, sizeof(name), "%s/%s/w%u/d%u/%s/irq%u/v%u", mode, type, workers, ndev, rw,
		 irqmode, variant);
	runs++;
	if (rq_test_run_job(&t, name, job, &o))
		return false;
	CHECK(t.ret == 0, "%s: run returned %d", name, t.ret);
	r = t.r;
	for (unsigned int i = 0; i < r->nr_jobs; i++) {
		uint64_t n = r->jobs[i].dir[0].total_ios + r->jobs[i].dir[1].total_ios;

		CHECK(n == per_clone, "%s: clone %u did %" PRIu64 " ios, expected %u", name, i, n, per_clone);
		CHECK(r->jobs[i].error == 0, "%s: clone %u error %d", name, i, r->jobs[i].error);
		ios += n;
	}
	CHECK(r->nr_jobs == numjobs, "%s: %u clones reported", name, r->nr_jobs);
	CHECK(r->bios_submitted == r->bios_completed, "%s: %" PRIu64 " submitted %" PRIu64 " completed",
	      name, r->bios_submitted, r->bios_completed);
	CHECK(ios == r->bios_completed && ios == (uint64_t)numjobs * per_clone,
	      "%s: jobs saw %" PRIu64 ", engine %" PRIu64, name, ios, r->bios_completed);
	for (unsigned int q = 0; q < r->nr_queues; q++) {
		bios += r->queues[q].bios;
		reqs += r->queues[q].requests;
		dispatched += r->queues[q].dispatched;
		completed += r->queues[q].completed;
		merges += r->queues[q].merges_back + r->queues[q].merges_front;
	}
	CHECK(r->nr_queues == ndev, "%s: %u queues", name, r->nr_queues);
	CHECK(bios == ios, "%s: queues saw %" PRIu64 " bios of %" PRIu64, name, bios, ios);
	CHECK(reqs + merges == bios, "%s: requests %" PRIu64 " + merges %" PRIu64 " != bios %" PRIu64,
	      name, reqs, merges, bios);
	CHECK(dispatched == completed && completed == reqs,
	      "%s: dispatched %" PRIu64 " completed %" PRIu64 " requests %" PRIu64, name, dispatched,
	      completed, reqs);
	if (!strcmp(mode, "mq"))
		CHECK(merges == 0, "%s: mq merged %" PRIu64, name, merges);
	/* lockstat sees what the locks table sees */
	for (unsigned int i = 0; i < r->nr_locks; i++)
		acq += r->locks[i].acquisitions;
	for (unsigned int i = 0; i < r->lockstat.nr_classes; i++)
		ls_acq += r->lockstat.classes[i].acquisitions;
	CHECK(acq == ls_acq, "%s: locks table %" PRIu64 " acquisitions, lockstat %" PRIu64, name, acq,
	      ls_acq);
	CHECK(r->lockstat.enabled, "%s: lockstat off", name);
	CHECK(r->mode.nr_queues == ndev, "%s: mode report has %u queues", name, r->mode.nr_queues);
	if (!strcmp(mode, "cluster")) {
		uint64_t local = 0, fwd = 0;

		for (unsigned int q = 0; q < r->mode.nr_queues; q++) {
			local += (uint64_t)rq_fact_get(&r->mode.queues[q].facts, "local", 0);
			fwd += (uint64_t)rq_fact_get(&r->mode.queues[q].facts, "forwarded", 0);
		}
		CHECK(local + fwd == bios, "%s: local %" PRIu64 " + forwarded %" PRIu64 " != bios %" PRIu64,
		      name, local, fwd, bios);
		CHECK(rq_fact_get(&r->mode.facts, "local", -1) == (int64_t)local &&
		      rq_fact_get(&r->mode.facts, "forwarded", -1) == (int64_t)fwd, "%s: run totals", name);
		CHECK(rq_fact_get(&r->mode.facts, "cluster_size", 0) == (variant + 1 < workers ? variant + 1 : workers),
		      "%s: cluster size %" PRId64, name, rq_fact_get(&r->mode.facts, "cluster_size", 0));
		if (r->mode.nr_partitions > 1 && workers > 1)
			CHECK(fwd > 0, "%s: nothing forwarded across %u partitions", name, r->mode.nr_partitions);
	}
	if (!strcmp(mode, "mq")) {
		for (unsigned int q = 0; q < r->mode.nr_queues; q++)
			CHECK(rq_fact_get(&r->mode.queues[q].facts, "hw_queues", 0) == (variant ? 1 : workers),
			      "%s: %" PRId64 " hardware queues", name,
			      rq_fact_get(&r->mode.queues[q].facts, "hw_queues", 0));
	}
	rq_test_run_free(&t);
	return failures == before;
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
			"called from build_report()): the queues/ wiring is missing\n", "test_modes");
	return ok;
}

int main(void)
{
	if (!engine_wired())
		return 1;
	/* every mode of the registry (queues/modes.def), none named here */
	const char *modes[16];
	unsigned int nr_modes = 0;
	static const char *const types[] = { "ttas", "ticket", "mcs", "mutex" };
	static const char *const rws[] = { "randread", "write", "randrw" };
	while (nr_modes < 16 && rq_queue_mode_at(nr_modes)) {
		modes[nr_modes] = rq_queue_mode_at(nr_modes)->name;
		nr_modes++;
	}
	for (unsigned int m = 0; m < nr_modes; m++) {
		bool ok = true;

		for (unsigned int t = 0; ok && t < 4; t++)
			for (unsigned int w = 1; ok && w <= 4; w++)
				for (unsigned int d = 1; ok && d <= 4; d++) {
					unsigned int k = m + t + w + d;

					ok = one(modes[m], types[t], w, d, rws[k % 3], (k / 2 + t) % 3, (k / 2) % 2);
				}
		if (!ok)
			fprintf(stderr, "test_modes: %s failed; its other runs skipped\n", modes[m]);
	}
	if (failures) {
		fprintf(stderr, "test_modes: %d failures in %d runs\n", failures, runs);
		return 1;
	}
	printf("test_modes: ok (%d runs: 4 modes x 4 lock types x workers 1..4 x devices 1..4)\n", runs);
	return 0;
}
