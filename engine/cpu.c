// SPDX-License-Identifier: MIT
/*
 * cpu.c - a worker's ring: handing its prepared SQEs to the kernel, and
 * waiting for completions.  For the worker loop (worker.c) and a clone's
 * iodepth_batch_submit (clone.c): below both, so clone.c, which the
 * worker drives, does not call back into worker.c.
 */
#include <stdio.h>
#include <string.h>

#include "engine/runner.h"
#include "queues/queue.h"

/*
 * How many completions a sleeping worker waits for: fio's
 * iodepth_batch_complete_min, the smallest of its running clones'
 * (rq_ctx_submit() waits for no more than its ring has in flight).
 */
static unsigned int cpu_wait_nr(const struct rq_cpu *cpu)
{
	unsigned int nr = UINT32_MAX;

	for (unsigned int i = 0; i < cpu->nr_clones; i++) {
		const struct clone *c = cpu->clones[i];
		unsigned int m = c->job->iodepth_batch_complete_min;

		if (!c->finished)
			nr = (m ? m : 1) < nr ? (m ? m : 1) : nr;
	}
	return nr == UINT32_MAX || nr < 1 ? 1 : nr;
}

/*
 * Hand the ring's prepared SQEs to the kernel; with @wait, also wait (one
 * io_uring_enter) for a completion or @wait_ns (queues/ctx.c).
 */
int eng_cpu_submit(struct rq_cpu *cpu, bool wait, uint64_t wait_ns)
{
	int ret = rq_ctx_submit(cpu->ctx, wait ? cpu_wait_nr(cpu) : 0, wait_ns);

	if (ret > 0)
		cpu->ring_rounds = 0;
	if (ret >= 0)
		return 0;
	fprintf(stderr, "rqlock: worker %d: io_uring_enter: %s\n", rq_ctx_id(cpu->ctx), strerror(-ret));
	return ret;
}
