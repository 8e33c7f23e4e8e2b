// SPDX-License-Identifier: MIT
/*
 * test_flow_place - clones of one flow_id share a worker (engine/place.c).
 *
 * Pins the cause of fio's t0011 failing on a busy machine: flow=1 with
 * rate_iops=1000 beside flow=8 take turns, and with the two jobs on two
 * workers every turn waited for the other thread to be scheduled; under
 * load flow1 fell to 42-221 IOPS (fio-suite --only 11, four busy loops
 * beside it).  Asserted structurally, never by timing: after a run, each
 * flow's clones are on one worker, and jobs with no flow still spread.
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine/runner.h"
#include "tests/helpers.h"

static const char JOBS[] =
	"[global]\nioengine=null\nsize=1m\nbs=4k\n"
	"[f1]\nflow_id=1\nflow=1\n[f2]\nflow_id=1\nflow=8\n"
	"[g1]\nflow_id=2\nflow=1\n[g2]\nflow_id=2\nflow=3\n"
	"[n1]\n[n2]\n";

int main(void)
{
	struct rq_engine_opts o = { .lock_mode = "mq", .lock_type = "ttas", .workers = 2, .stall_timeout_ns = 30000000000ULL };
	struct rq_job_list jobs = { 0 };
	struct rq_engine *e = NULL;
	int ret = rq_jobs_parse_buf("flow", JOBS, &jobs, stderr);

	CHECK(ret == 0, "parse: %d", ret);
	if (!ret) {
		ret = rq_engine_setup(&e, &o, &jobs, stderr);
		CHECK(ret == 0, "set-up: %d", ret);
	}
	if (ret)
		return 1;
	ret = rq_engine_run(e, stderr);
	CHECK(ret == 0, "the run failed: %d", ret);
	CHECK(e->nr_clones == 6, "%u clones, expected 6", e->nr_clones);
	for (unsigned int i = 0; e->nr_clones == 6 && i < 6; i += 2) {
		const struct clone *a = &e->clones[i], *b = &e->clones[i + 1];
		bool same = a->cpu == b->cpu;
		bool want = a->job->flow != 0;

		CHECK(same == want, "jobs '%s' and '%s' are on workers %td and %td", a->job->name,
		      b->job->name, a->cpu - e->cpus, b->cpu - e->cpus);
	}
	rq_engine_free(e);
	rq_jobs_free(&jobs);
	if (failures)
		return 1;
	printf("test_flow_place: ok\n");
	return 0;
}
