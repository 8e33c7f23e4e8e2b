// SPDX-License-Identifier: MIT
/*
 * cluster.c - Larry McVoy's cache-coherent clusters ("ccCluster"): the
 * machine split into small partitions that share nothing but messages.
 *
 * Workers are split into partitions: by default one per LLC domain that
 * has workers (the engine reads the topology: lib/topology.h), as McVoy's
 * "small groups of processors that share a cache"; with --cluster-size K,
 * partition p holds workers pK .. pK+K-1 (the last may be smaller).  Each
 * device is owned by one partition (the n-th device opened by partition n
 * mod P).  A bio submitted inside the owner partition runs the 2.5 path
 * (elevator, merge, request_fn, driver) right there; a bio from another
 * partition is forwarded over a lock-free ring to a worker of the owner
 * partition (source worker mod partition size), which runs the same path
 * when it polls.  Completions come back on the dispatching worker, inside
 * the owner partition; bios go home over the engine's hand-back list.
 *
 * Locks (lockdep: at most one class, no edges):
 *   K = 1: none.  Only the owner worker touches the queue, so its elevator,
 *   pool and counters need no lock (each use asserts it runs there).
 *   K > 1: q->own_lock ("cluster_queue_lock"), a per-queue lock taken only
 *   by the owner partition's workers: it protects what the 2.5 queue_lock
 *   does (elevator, pool, inflight, counters) and the driver's queue_rq
 *   runs under it.  It is the only lock: no ordering to keep.
 *
 * The forward ring (one per destination worker): a bounded
 * multi-producer, single-consumer ring (Vyukov's bounded queue): a
 * producer claims a slot with a CAS on the ring's tail, writes the
 * (queue, bio) pair and publishes it with a release store of the slot's
 * sequence; the owner reads slots in order without any RMW.  A full ring
 * refuses the bio (-EAGAIN, the engine retries it), counted as ring_full.
 * Cost: forwarders to one worker share the tail's line (one CAS each);
 * the consumer's reads touch only the slots' lines.
 *
 * Forwards and local submissions are counted per (queue, source worker)
 * and reported per queue and for the run.
 *
 * Runs asked from outside (run_queue by a worker of another partition:
 * the engine's kick of a queue its clones wait on) are forwarded too: the
 * asker raises the queue's need_run and its destination worker's kick,
 * and wakes that worker, whose poll runs every queue of its partition
 * that asked.  A queue the device stopped (RQ_Q_BUSY) with nothing in
 * flight has no completion to restart it; before this a kick from outside
 * was dropped, and once the owner partition had no clone left with I/O
 * on that device (they had ended on an error) the queue stayed stopped
 * with forwarded bios in it and the run never ended (issue 18).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queues/driver.h"
#include "lib/alloc.h"
#include "queues/queue_internal.h"
#include "results/results.h"

#define RING_SLOTS 4096			/* per destination worker; a power of two */

static const struct rq_lock_class cluster_queue_lock_class = { .name = "cluster_queue_lock" };

struct fwd_slot {
	_Atomic uint64_t seq;
	struct rq_queue *q;
	struct rq_bio *bio;
};

struct backlog {
	struct rq_queue *q;
	struct rq_bio *bio;
};

/* Per worker: its incoming ring and what it accepted but could not queue yet. */
struct cl_cpu {
	_Atomic uint64_t tail __attribute__((aligned(RQ_CACHELINE)));	/* producers */
	_Atomic uint32_t kick;		/* a queue of this partition asked for a run */
	uint64_t head __attribute__((aligned(RQ_CACHELINE)));		/* the owner only */
	struct fwd_slot *slots;
	struct backlog *backlog;	/* the owner only */
	unsigned int nr_backlog, backlog_cap;
} __attribute__((aligned(RQ_CACHELINE)));

/* Per (queue, source worker): written by that worker only. */
struct cl_count {
	uint64_t local, forwarded, ring_full;
} __attribute__((aligned(RQ_CACHELINE)));

struct cl_queue {
	unsigned int owner;		/* partition */
	unsigned int size;		/* its workers: cl.members[cl.start[owner] ..], size of them */
	const unsigned int *members;
	struct cl_count *count;		/* per source worker */
	_Atomic uint32_t need_run;	/* a worker outside asked for a run */
};

static struct {
	unsigned int nr_cpus, k, nr_parts;	/* k: the largest partition */
	unsigned int *part;		/* nr_cpus: the partition of each worker */
	unsigned int *members;		/* nr_cpus: workers grouped by partition, in id order */
	unsigned int *start, *size;	/* nr_parts: each partition's run in members[] */
	unsigned int nr_queues;		/* queues made so far: the next owner */
	struct cl_cpu *cpus;
	struct rq_ctx *const *ctxs;	/* the workers' contexts, to wake one (may be NULL) */
	struct rq_queue **queues;	/* for the run's totals */
	unsigned int queues_cap;
} cl;

static inline unsigned int part_of(int cpu)
{
	return cl.part[cpu];
}

static void cl_teardown(void)
{
	for (unsigned int i = 0; cl.cpus && i < cl.nr_cpus; i++) {
		free(cl.cpus[i].slots);
		free(cl.cpus[i].backlog);
	}
	free(cl.cpus);
	free(cl.queues);
	free(cl.part);
	free(cl.members);
	free(cl.start);
	free(cl.size);
	memset(&cl, 0, sizeof(cl));
}

static int cl_setup(const struct rq_mode_config *cfg)
{
	int ret = rq_mode_locks_setup(cfg);

	if (ret)
		return ret;
	cl_teardown();
	cl.nr_cpus = cfg->nr_cpus ? cfg->nr_cpus : 1;
	cl.ctxs = cfg->ctxs;
	cl.part = calloc(cl.nr_cpus, sizeof(*cl.part));
	cl.members = calloc(cl.nr_cpus, sizeof(*cl.members));
	if (!cl.part || !cl.members) {
		cl_teardown();
		return -ENOMEM;
	}
	if (cfg->worker_part && cfg->nr_parts) {
		cl.nr_parts = cfg->nr_parts;
		memcpy(cl.part, cfg->worker_part, cl.nr_cpus * sizeof(*cl.part));
	} else {
		unsigned int k = cfg->cluster_size ? cfg->cluster_size : 1;

		k = k < cl.nr_cpus ? k : cl.nr_cpus;
		cl.nr_parts = (cl.nr_cpus + k - 1) / k;
		for (unsigned int i = 0; i < cl.nr_cpus; i++)
			cl.part[i] = i / k;
	}
	cl.start = calloc(cl.nr_parts, sizeof(*cl.start));
	cl.size = calloc(cl.nr_parts, sizeof(*cl.size));
	if (!cl.start || !cl.size) {
		cl_teardown();
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < cl.nr_cpus; i++) {
		if (cl.part[i] >= cl.nr_parts) {
			cl_teardown();
			return -EINVAL;
		}
		cl.size[cl.part[i]]++;
	}
	for (unsigned int p = 0, at = 0; p < cl.nr_parts; p++) {
		if (!cl.size[p]) {
			cl_teardown();
			return -EINVAL;	/* an empty partition could own a device nobody runs */
		}
		cl.start[p] = at;
		at += cl.size[p];
		cl.k = cl.size[p] > cl.k ? cl.size[p] : cl.k;
		cl.size[p] = 0;	/* counted again as members[] fills */
	}
	for (unsigned int i = 0; i < cl.nr_cpus; i++)
		cl.members[cl.start[cl.part[i]] + cl.size[cl.part[i]]++] = i;
	cl.cpus = rq_zalloc_lines(sizeof(*cl.cpus) * cl.nr_cpus);
	if (!cl.cpus) {
		cl_teardown();
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < cl.nr_cpus; i++) {
		struct cl_cpu *c = &cl.cpus[i];

		atomic_init(&c->tail, 0);
		atomic_init(&c->kick, 0);
		c->slots = calloc(RING_SLOTS, sizeof(*c->slots));
		if (!c->slots) {
			cl_teardown();
			return -ENOMEM;
		}
		for (uint64_t s = 0; s < RING_SLOTS; s++)
			atomic_init(&c->slots[s].seq, s);
	}
	return 0;
}

static int cl_queue_init(struct rq_queue *q)
{
	struct cl_queue *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return -ENOMEM;
	cq->count = rq_zalloc_lines(sizeof(*cq->count) * cl.nr_cpus);
	if (!cq->count) {
		free(cq);
		return -ENOMEM;
	}
	if (cl.nr_queues == cl.queues_cap) {
		unsigned int cap = cl.queues_cap ? cl.queues_cap * 2 : 16;
		struct rq_queue **qs = realloc(cl.queues, cap * sizeof(*qs));

		if (!qs) {
			free(cq->count);
			free(cq);
			return -ENOMEM;
		}
		cl.queues = qs;
		cl.queues_cap = cap;
	}
	cl.queues[cl.nr_queues] = q;
	cq->owner = cl.nr_queues++ % cl.nr_parts;
	cq->members = &cl.members[cl.start[cq->owner]];
	cq->size = cl.size[cq->owner];
	if (cq->size > 1) {
		char name[sizeof(q->own_lock.name)];

		snprintf(name, sizeof(name), "cluster_queue_lock:%.24s", q->name);
		rq_lock_init(&q->own_lock, &cluster_queue_lock_class, name);
		q->lock = &q->own_lock;
	} else {
		q->lock = NULL;
	}
	q->mode_priv = cq;
	return 0;
}

static void cl_queue_exit(struct rq_queue *q)
{
	struct cl_queue *cq = q->mode_priv;

	for (unsigned int i = 0; i < cl.nr_queues; i++)
		if (cl.queues[i] == q)
			cl.queues[i] = NULL;

	if (cq)
		free(cq->count);
	free(cq);
	q->mode_priv = NULL;
}

/* Only the owner partition runs a queue's path; with one worker that is the lock. */
static inline void assert_owner(const struct rq_queue *q, int id)
{
	const struct cl_queue *cq = q->mode_priv;

	if (__builtin_expect(part_of(id) != cq->owner, 0)) {
		fprintf(stderr, "rqlock: BUG: cluster: worker %d (partition %u) runs queue %s of partition %u\n",
			id, part_of(id), q->name, cq->owner);
		abort();
	}
}

static inline void q_lock(struct rq_queue *q, int id)
{
	if (q->lock)
		rq_lock(q->lock, id);
	else
		assert_owner(q, id);
}

static inline void q_unlock(struct rq_queue *q, int id)
{
	if (q->lock)
		rq_unlock(q->lock, id);
}

/* The owner's path: the 2.5 one.  False if the pool is empty (nothing done). */
static bool owner_submit(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio *bio)
{
	int id = rq_ctx_id(cpu);
	struct rq_bio *done = NULL;

	q_lock(q, id);
	if (!rq_elv_insert_bio(q, bio)) {
		q_unlock(q, id);
		return false;
	}
	rq_request_fn(q, cpu, &done);
	q_unlock(q, id);
	rq_bios_end(cpu, done);
	return true;
}

static bool ring_push(struct cl_cpu *c, struct rq_queue *q, struct rq_bio *bio)
{
	uint64_t pos = atomic_load_explicit(&c->tail, memory_order_relaxed);
	struct fwd_slot *s;

	for (;;) {
		int64_t diff;

		s = &c->slots[pos & (RING_SLOTS - 1)];
		diff = (int64_t)(atomic_load_explicit(&s->seq, memory_order_acquire) - pos);
		if (diff == 0) {
			if (atomic_compare_exchange_weak_explicit(&c->tail, &pos, pos + 1, memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (diff < 0) {
			return false;	/* full */
		} else {
			pos = atomic_load_explicit(&c->tail, memory_order_relaxed);
		}
	}
	s->q = q;
	s->bio = bio;
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
	return true;
}

/* The owner only.  False when empty (or the next slot is still being written). */
static bool ring_pop(struct cl_cpu *c, struct rq_queue **q, struct rq_bio **bio)
{
	struct fwd_slot *s = &c->slots[c->head & (RING_SLOTS - 1)];

	if (atomic_load_explicit(&s->seq, memory_order_acquire) != c->head + 1)
		return false;
	*q = s->q;
	*bio = s->bio;
	atomic_store_explicit(&s->seq, c->head + RING_SLOTS, memory_order_release);
	c->head++;
	return true;
}

static int cl_submit_bio(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio *bio)
{
	struct cl_queue *cq = q->mode_priv;
	int id = rq_ctx_id(cpu);
	unsigned int dst;

	if (part_of(id) == cq->owner) {
		if (!owner_submit(q, cpu, bio))
			return -EAGAIN;
		cq->count[id].local++;
		return 0;
	}
	dst = cq->members[(unsigned int)id % cq->size];
	if (!ring_push(&cl.cpus[dst], q, bio)) {
		cq->count[id].ring_full++;
		return -EAGAIN;
	}
	cq->count[id].forwarded++;
	if (cl.ctxs)
		rq_ctx_wake(cl.ctxs[dst]);
	return 0;
}

static void cl_end_request(struct rq_queue *q, struct rq_ctx *cpu, struct rq_request *rq, int error)
{
	int id = rq_ctx_id(cpu);
	struct rq_bio *bios, *done = NULL;

	q_lock(q, id);
	bios = rq_request_finish(q, rq, error);
	q->stopped = false;
	if (q->head)
		rq_request_fn(q, cpu, &done);
	q_unlock(q, id);
	rq_bios_end(cpu, bios);
	rq_bios_end(cpu, done);
}

static void cl_run_queue(struct rq_queue *q, struct rq_ctx *cpu)
{
	struct cl_queue *cq = q->mode_priv;
	int id = rq_ctx_id(cpu);
	struct rq_bio *done = NULL;

	if (part_of(id) != cq->owner) {
		/* not ours to touch: ask the owner partition to run it */
		unsigned int dst = cq->members[(unsigned int)id % cq->size];

		if (!atomic_exchange_explicit(&cq->need_run, 1, memory_order_acq_rel)) {
			atomic_store_explicit(&cl.cpus[dst].kick, 1, memory_order_release);
			rq_ctx_wake(cl.ctxs[dst]);
		}
		return;
	}
	q_lock(q, id);
	q->stopped = false;
	atomic_store_explicit(&q->needs_rerun, false, memory_order_relaxed);
	rq_request_fn(q, cpu, &done);
	q_unlock(q, id);
	rq_bios_end(cpu, done);
}

static bool backlog_add(struct cl_cpu *c, struct rq_queue *q, struct rq_bio *bio)
{
	if (c->nr_backlog == c->backlog_cap) {
		unsigned int cap = c->backlog_cap ? c->backlog_cap * 2 : 64;
		struct backlog *b = realloc(c->backlog, cap * sizeof(*b));

		if (!b)
			return false;
		c->backlog = b;
		c->backlog_cap = cap;
	}
	c->backlog[c->nr_backlog].q = q;
	c->backlog[c->nr_backlog].bio = bio;
	c->nr_backlog++;
	return true;
}

/* Run the queues of this worker's partition that workers outside asked to run. */
static void run_asked(struct rq_ctx *cpu)
{
	int id = rq_ctx_id(cpu);

	for (unsigned int i = 0; i < cl.nr_queues; i++) {
		struct rq_queue *q = cl.queues[i];
		struct cl_queue *cq = q ? q->mode_priv : NULL;

		if (cq && cq->owner == part_of(id) && atomic_load_explicit(&cq->need_run, memory_order_relaxed) &&
		    atomic_exchange_explicit(&cq->need_run, 0, memory_order_acq_rel))
			cl_run_queue(q, cpu);
	}
}

/* Every worker, every round: run what other partitions forwarded here. */
static unsigned int cl_poll(struct rq_ctx *cpu)
{
	int id = rq_ctx_id(cpu);
	struct cl_cpu *c = &cl.cpus[id];
	unsigned int n = 0, keep = 0;
	struct rq_queue *q;
	struct rq_bio *bio;

	if (atomic_load_explicit(&c->kick, memory_order_relaxed) &&
	    atomic_exchange_explicit(&c->kick, 0, memory_order_acquire))
		run_asked(cpu);

	/* bios accepted earlier that found the pool empty: in order, first */
	for (unsigned int i = 0; i < c->nr_backlog; i++) {
		if (keep || !owner_submit(c->backlog[i].q, cpu, c->backlog[i].bio))
			c->backlog[keep++] = c->backlog[i];
		else
			n++;
	}
	c->nr_backlog = keep;
	while (ring_pop(c, &q, &bio)) {
		if (c->nr_backlog || !owner_submit(q, cpu, bio)) {
			if (!backlog_add(c, q, bio)) {
				fprintf(stderr, "rqlock: cluster: worker %d: out of memory for a forwarded bio\n", id);
				abort();
			}
			continue;
		}
		n++;
	}
	return n;
}

static bool cl_pending(struct rq_ctx *cpu)
{
	const struct cl_cpu *c = &cl.cpus[rq_ctx_id(cpu)];

	return c->nr_backlog || atomic_load_explicit(&c->tail, memory_order_relaxed) != c->head ||
	       atomic_load_explicit(&c->kick, memory_order_relaxed);
}

static int cl_check_idle(struct rq_queue *q, char *msg, size_t len)
{
	(void)q;
	for (unsigned int i = 0; i < cl.nr_cpus; i++) {
		const struct cl_cpu *c = &cl.cpus[i];

		if (c->nr_backlog || atomic_load(&c->tail) != c->head) {
			snprintf(msg, len, "cluster: worker %u: %" PRIu64 " forwarded bios never run, %u in its backlog",
				 i, atomic_load(&c->tail) - c->head, c->nr_backlog);
			return -EPROTO;
		}
	}
	return 0;
}

/*
 * A queue's facts: owner_partition (the partition owning the device),
 * local (bios submitted inside it), forwarded (bios forwarded from
 * another partition), ring_full (forwards refused by a full ring, retried).
 */
static void cl_report(const struct rq_queue *q, struct rq_mode_queue_report *out)
{
	const struct cl_queue *cq = q->mode_priv;

	rq_fact_add(&out->facts, "owner_partition", (int64_t)cq->owner);
	rq_fact_add(&out->facts, "local", 0);
	rq_fact_add(&out->facts, "forwarded", 0);
	rq_fact_add(&out->facts, "ring_full", 0);
	for (unsigned int i = 0; i < cl.nr_cpus; i++) {
		rq_fact_add(&out->facts, "local", (int64_t)cq->count[i].local);
		rq_fact_add(&out->facts, "forwarded", (int64_t)cq->count[i].forwarded);
		rq_fact_add(&out->facts, "ring_full", (int64_t)cq->count[i].ring_full);
	}
}

/*
 * The run's facts: partitions, cluster_size (workers in the largest),
 * forwarded and local (bios, every queue), and the worker map.
 */
static void cl_report_run(struct rq_mode_report *out)
{
	rq_fact_add(&out->facts, "partitions", cl.nr_parts);
	rq_fact_add(&out->facts, "cluster_size", cl.k);
	rq_fact_add(&out->facts, "forwarded", 0);
	rq_fact_add(&out->facts, "local", 0);
	out->worker_part = cl.part;
	out->nr_workers = cl.nr_cpus;
	out->nr_partitions = cl.nr_parts;
	for (unsigned int i = 0; i < cl.nr_queues; i++) {
		const struct cl_queue *cq = cl.queues[i] ? cl.queues[i]->mode_priv : NULL;

		for (unsigned int c = 0; cq && c < cl.nr_cpus; c++) {
			rq_fact_add(&out->facts, "local", (int64_t)cq->count[c].local);
			rq_fact_add(&out->facts, "forwarded", (int64_t)cq->count[c].forwarded);
		}
	}
}

const struct rq_queue_mode_ops rq_mode_cluster = {
	.name = "cluster",
	.help = "cache-coherent clusters: partitions own devices, bios forwarded over rings (McVoy)",
	.flags = RQ_MODE_F_ALL_WORKERS,
	.options = (const char *const[]){ "cluster-size", NULL },
	.setup = cl_setup,
	.teardown = cl_teardown,
	.queue_init = cl_queue_init,
	.queue_exit = cl_queue_exit,
	.submit_bio = cl_submit_bio,
	.end_request = cl_end_request,
	.run_queue = cl_run_queue,
	.poll = cl_poll,
	.pending = cl_pending,
	.check_idle = cl_check_idle,
	.report = cl_report,
	.report_run = cl_report_run,
};
