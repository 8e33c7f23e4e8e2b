// SPDX-License-Identifier: MIT
/*
 * test_exactly_once - every submitted bio completes exactly once and
 * nothing is left in flight: both legacy lock modes, 1..4 workers x 1..4
 * null devices, numjobs > workers, reads, writes and mixed, all three null
 * completion modes (inline, deferred, timer).  The engine checks itself at
 * the end of a run; this test checks the report from outside as well.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "queues/queue.h"
#include "tests/helpers.h"

static void one(const char *mode, unsigned int workers, unsigned int ndev, const char *rw,
		unsigned int irqmode)
{
	char job[2048], files[512] = "", name[64];
	struct rq_engine_opts o = { .lock_mode = mode, .lock_type = "ttas", .workers = workers };
	struct rq_test_run t;
	const struct rq_run_report *r;
	uint64_t ios = 0, bios = 0, dispatched = 0, completed = 0, merges = 0, reqs = 0;
	unsigned int numjobs = workers + 2, per_clone;

	for (unsigned int d = 0; d < ndev; d++) {
		char one_dev[64];

		snprintf(one_dev, sizeof(one_dev), "%s@null%u,depth=8,irqmode=%u%s", d ? ":" : "", d,
			 irqmode, irqmode == 2 ? ",delay_us=5" : "");
		strcat(files, one_dev);
	}
	/* 1 MiB per clone of 4k: 256 bios each (255 over 3 files); QD 16 against depth 8 queues and merges */
	snprintf(job, sizeof(job),
		 "[global]\nbs=4k\nsize=1m\niodepth=16\nnumjobs=%u\n[j]\nrw=%s\nfilename=%s\n",
		 numjobs, rw, files);
	snprintf(name, sizeof(name), "%s/w%u/d%u/%s/irq%u", mode, workers, ndev, rw, irqmode);
	if (rq_test_run_job(&t, name, job, &o))
		return;
	CHECK(t.ret == 0, "%s: run returned %d", name, t.ret);
	r = t.r;
	/*
	 * each file holds 1 MiB / ndev, whole 4k blocks of it: a file is done
	 * once the next block would pass its end, as fio 3.33's (ioengine=null
	 * nrfiles=3 size=1m: 3 x 85 = 255 I/Os, both with rw=write and randread)
	 */
	per_clone = ndev * ((1u << 20) / ndev / 4096);
	for (unsigned int i = 0; i < r->nr_jobs; i++) {
		uint64_t n = r->jobs[i].dir[0].total_ios + r->jobs[i].dir[1].total_ios;

		CHECK(n == per_clone, "%s: clone %u did %" PRIu64 " ios, expected %u", name, i, n,
		      per_clone);
		CHECK(r->jobs[i].error == 0, "%s: clone %u error %d", name, i, r->jobs[i].error);
		ios += n;
	}
	CHECK(r->nr_jobs == numjobs, "%s: %u clones reported", name, r->nr_jobs);
	CHECK(r->bios_submitted == r->bios_completed, "%s: %" PRIu64 " submitted %" PRIu64
	      " completed", name, r->bios_submitted, r->bios_completed);
	CHECK(ios == r->bios_completed, "%s: jobs saw %" PRIu64 ", engine %" PRIu64, name, ios,
	      r->bios_completed);
	CHECK(ios == (uint64_t)numjobs * per_clone, "%s: total %" PRIu64, name, ios);
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
	CHECK(dispatched == completed && completed == reqs, "%s: dispatched %" PRIu64
	      " completed %" PRIu64 " requests %" PRIu64, name, dispatched, completed, reqs);
	rq_test_run_free(&t);
}

int main(void)
{
	static const char *const rws[] = { "randread", "write", "randrw" };

	/* every mode of the registry (queues/modes.def), no list of our own */
	for (unsigned int m = 0; rq_queue_mode_at(m); m++)
		for (unsigned int w = 1; w <= 4; w++)
			for (unsigned int d = 1; d <= 4; d++)
				for (unsigned int r = 0; r < 3; r++)
					one(rq_queue_mode_at(m)->name, w, d, rws[r], (w + d + r) % 3);
	if (failures) {
		fprintf(stderr, "test_exactly_once: %d failures\n", failures);
		return 1;
	}
	printf("test_exactly_once: ok (2 modes x 4 workers x 4 devices x 3 rw)\n");
	return 0;
}
