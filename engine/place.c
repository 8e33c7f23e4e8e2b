// SPDX-License-Identifier: MIT
/*
 * place.c - placement: which worker a clone lives on, which CPU a worker
 * is pinned to, which workers need a ring.
 */
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "devices/device.h"
#include "engine/engine.h"
#include "engine/engine_internal.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "queues/queue.h"

bool eng_group_needs_ring(struct rq_engine *e, unsigned int first, unsigned int last,
			     unsigned int *flags)
{
	bool ring = false;

	*flags = 0;
	for (unsigned int i = first; i < last; i++) {
		struct clone *c = &e->clones[i];

		for (unsigned int f = 0; f < c->nr_files; f++) {
			unsigned int fl = c->files[f].q->dev->flags;

			ring |= fl & RQ_DEV_NEEDS_RING;
#ifdef IORING_SETUP_SQE128
			if (fl & RQ_DEV_RING_BIG)
				*flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
#endif
		}
	}
	return ring;
}

void eng_pin(pthread_t t, unsigned int i)
{
	cpu_set_t allowed, one;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	int count = CPU_COUNT(&allowed);

	if (count <= 0)
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		if (n++ == i % (unsigned int)count) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			pthread_setaffinity_np(t, sizeof(one), &one);	/* best effort */
			return;
		}
	}
}

/* The CPU worker @w is pinned to: the (w mod n)-th CPU the process may use. */
static int worker_cpu(unsigned int w)
{
	cpu_set_t allowed;
	unsigned int n = 0, count;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) || CPU_COUNT(&allowed) <= 0)
		return (int)w;
	count = (unsigned int)CPU_COUNT(&allowed);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed) && n++ == w % count)
			return c;
	return (int)w;
}

bool eng_job_allows_worker(const struct rq_job *job, unsigned int w)
{
	int c = worker_cpu(w);

	return c >= 0 && c < RQ_CPUMASK_WORDS * 64 && (job->cpus_allowed[c / 64] >> (c % 64)) & 1;
}

/*
 * The worker a clone lives on.  cpus_allowed selects the workers pinned to
 * those CPUs: the least loaded of them (shared), or the clone's own in
 * turn (cpus_allowed_policy=split).  Otherwise clones go round-robin.
 */
unsigned int eng_pick_worker(struct rq_engine *e, const struct clone *c, unsigned int rr)
{
	const struct rq_job *job = c->job;
	unsigned int cand[1024], n = 0, best;

	if (!job->has_cpus_allowed)
		return rr;
	for (unsigned int w = 0; w < e->nr_cpus && n < 1024; w++)
		if (eng_job_allows_worker(job, w))
			cand[n++] = w;
	if (!n)
		return rr;	/* rq_engine_setup() refused this already */
	if (job->cpus_allowed_split)
		return cand[c->index % n];
	best = cand[0];
	for (unsigned int i = 1; i < n; i++)
		if (e->cpus[cand[i]].nr_clones < e->cpus[best].nr_clones)
			best = cand[i];
	return best;
}

