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
#include "engine/runner.h"
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

int eng_place(struct rq_engine *e, FILE *err)
{
	cpu_set_t allowed;
	unsigned int n;
	int ret = rq_topo_read(&e->topo);

	if (ret) {
		/* no sysfs (a container): the CPUs we may use, nothing shared known */
		n = !sched_getaffinity(0, sizeof(allowed), &allowed) && CPU_COUNT(&allowed) > 0 ?
			(unsigned int)CPU_COUNT(&allowed) : 1;
		if ((ret = rq_topo_flat(&e->topo, n)))
			return ret;
		if (!sched_getaffinity(0, sizeof(allowed), &allowed))
			for (int c = 0, i = 0; c < CPU_SETSIZE && i < (int)n; c++)
				if (CPU_ISSET(c, &allowed))
					e->topo.cpus[i++].cpu = c;
	}
	n = e->topo.nr_cpus;
	e->worker_cpu = calloc(e->nr_cpus, sizeof(*e->worker_cpu));
	e->worker_part = calloc(e->nr_cpus, sizeof(*e->worker_part));
	if (!e->worker_cpu || !e->worker_part)
		return -ENOMEM;
	if (e->nr_cpus > n && err)
		fprintf(err, "rqlock: warning: %u workers on %u CPUs: spinning locks under oversubscription "
			"measure the scheduler, not the lock\n", e->nr_cpus, n);
	e->parts_from_llc = !e->o.cluster_size;
	e->nr_parts = 0;
	if (e->parts_from_llc) {
		/* the LLC domains that have workers, numbered in order of their first worker */
		unsigned int *part_of_llc = malloc(sizeof(*part_of_llc) * (e->topo.nr_llcs ? e->topo.nr_llcs : 1));

		if (!part_of_llc)
			return -ENOMEM;
		for (unsigned int l = 0; l < e->topo.nr_llcs; l++)
			part_of_llc[l] = UINT32_MAX;
		for (unsigned int w = 0; w < e->nr_cpus; w++) {
			unsigned int llc = e->topo.cpus[w % n].llc;

			if (part_of_llc[llc] == UINT32_MAX)
				part_of_llc[llc] = e->nr_parts++;
			e->worker_part[w] = part_of_llc[llc];
		}
		free(part_of_llc);
	} else {
		unsigned int k = e->o.cluster_size < e->nr_cpus ? e->o.cluster_size : e->nr_cpus;

		for (unsigned int w = 0; w < e->nr_cpus; w++)
			e->worker_part[w] = w / k;
		e->nr_parts = (e->nr_cpus + k - 1) / k;
	}
	for (unsigned int w = 0; w < e->nr_cpus; w++)
		e->worker_cpu[w] = e->topo.cpus[w % n].cpu;
	return 0;
}

void eng_place_free(struct rq_engine *e)
{
	rq_topo_free(&e->topo);
	free(e->worker_cpu);
	free(e->worker_part);
	e->worker_cpu = NULL;
	e->worker_part = NULL;
}

void eng_pin(const struct rq_engine *e, pthread_t t, unsigned int w)
{
	cpu_set_t one;

	if (!e->worker_cpu || e->worker_cpu[w] < 0 || e->worker_cpu[w] >= CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	CPU_SET(e->worker_cpu[w], &one);
	pthread_setaffinity_np(t, sizeof(one), &one);	/* best effort: a fake sysfs may name CPUs we lack */
}

bool eng_job_allows_worker(const struct rq_engine *e, const struct rq_job *job, unsigned int w)
{
	int c = e->worker_cpu ? e->worker_cpu[w] : (int)w;

	return c >= 0 && c < RQ_CPUMASK_WORDS * 64 && (job->cpus_allowed[c / 64] >> (c % 64)) & 1;
}

/*
 * The worker a clone lives on.  cpus_allowed selects the workers pinned to
 * those CPUs: the least loaded of them (shared), or the clone's own in
 * turn (cpus_allowed_policy=split).  Otherwise clones of one flow share a
 * worker and the others go round-robin.
 */
unsigned int eng_pick_worker(struct rq_engine *e, const struct clone *c, unsigned int rr)
{
	const struct rq_job *job = c->job;
	unsigned int cand[1024], n = 0, best;

	if (!job->has_cpus_allowed && c->flow) {
		/*
		 * Clones of one flow_id take turns (each waits while its share
		 * is ahead): on one worker a turn is the next pass of its loop;
		 * across workers each turn waits for the other thread to be
		 * scheduled, and on a busy machine fio's t0011 fell from 1000
		 * to 100 IOPS (rate_iops=1000, flow 1:8).  So they share the
		 * worker of the flow's first clone.
		 */
		for (const struct clone *o = e->clones; o < c; o++)
			if (o->flow == c->flow && o->cpu)
				return (unsigned int)(o->cpu - e->cpus);
	}
	if (!job->has_cpus_allowed)
		return rr;
	for (unsigned int w = 0; w < e->nr_cpus && n < 1024; w++)
		if (eng_job_allows_worker(e, job, w))
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

