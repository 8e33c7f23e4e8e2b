// SPDX-License-Identifier: MIT
/*
 * test_mode_unit.c - every lock mode driven directly, with no engine and
 * no job file: two threads act as workers (each its own struct rq_ctx),
 * submit bios to two queues over a fake device and reap their contexts
 * until every bio has come back through its end_io.
 *
 * The fake device completes a third of its requests at once (RQ_Q_DONE),
 * a third on the next reap (rq_ctx_complete) and a third on a timer
 * (rq_ctx_complete_after), and refuses a dispatch now and then
 * (RQ_Q_BUSY), so every completion path of queues/ runs.  Checked:
 * exactly once (each bio ends once, on a context, with error 0), the
 * queues' counters balance and rq_queue_check_idle() finds them empty.
 *
 * Each mode runs twice: once with every worker kicking every queue each
 * round (rq_run_queue(), as the engine does when idle), once with no kick
 * and one hardware queue for mq, so that nothing but the mode's own
 * handshakes (mq: runs asked of a busy hctx, cluster: forwarding) gets
 * a request to the device.
 *
 * Exit 0: all passed; 1: a check failed, named on stderr.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"
#include "queues/queue.h"
#include "tests/helpers.h"

#define WORKERS 2
#define NR_QUEUES 2
#define BIOS 4000			/* per worker */
#define DEPTH 16			/* bios in flight per worker */

struct fake {
	_Atomic unsigned int n;		/* dispatches seen: picks the path */
};

static int fake_queue_rq(struct rq_dev *dev, struct rq_ctx *ctx, struct rq_request *rq)
{
	struct fake *f = dev->priv;
	unsigned int n = atomic_fetch_add_explicit(&f->n, 1, memory_order_relaxed);

	/* as a real device: busy only with something of its own in flight, whose end restarts it */
	if (n % 97 == 96 && rq->q->inflight > 1)
		return RQ_Q_BUSY;
	switch (n % 3) {
	case 0:
		rq->res = (int32_t)rq->len;
		return RQ_Q_DONE;
	case 1:
		rq_ctx_complete(ctx, rq, (int)rq->len);
		return RQ_Q_QUEUED;
	default:
		rq_ctx_complete_after(ctx, rq, (int)rq->len, 1000);
		return RQ_Q_QUEUED;
	}
}

static const struct rq_dev_ops fake_ops = { .name = "fake", .queue_rq = fake_queue_rq };

struct worker {
	struct rq_ctx *ctx;
	struct rq_queue *qs;
	struct rq_bio bios[DEPTH];
	unsigned int ended[DEPTH];	/* end_io calls per bio slot in flight */
	/*
	 * The worker's own mark of a slot in flight.  Not bio->next: the block
	 * layer chains bios through it on other workers (cluster hands them
	 * back), so reading it here before ended[] said the bio is back races.
	 */
	bool busy[DEPTH];
	struct rq_bio *free;
	uint64_t submitted, completed, dup, errors;
	pthread_t thread;
};

static _Atomic unsigned int active;
static bool kick;			/* workers run every queue every round */

/* end_io: the bio may end on either worker's context; the owner counts it */
static void end_io(struct rq_ctx *ctx, struct rq_bio *bio)
{
	struct worker *w = bio->private;
	unsigned int slot = (unsigned int)(bio - w->bios);

	(void)ctx;
	if (bio->error)
		w->errors++;
	/* in flight: exactly one end per submission */
	if (atomic_fetch_add_explicit((_Atomic unsigned int *)&w->ended[slot], 1, memory_order_acq_rel) != 0)
		w->dup++;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	uint64_t spins = 0;

	rq_ctx_set_current(w->ctx);
	while (w->completed < BIOS) {
		for (unsigned int s = 0; s < DEPTH && w->submitted < BIOS; s++) {
			struct rq_bio *b = &w->bios[s];

			if (w->busy[s])
				continue;	/* in flight */
			memset(b, 0, sizeof(*b));
			b->offset = (w->submitted % 512) * 4096;
			b->len = 4096;
			b->op = (uint8_t)(w->submitted & 1);
			b->end_io = end_io;
			b->private = w;
			w->ended[s] = 0;
			w->busy[s] = true;
			if (rq_submit_bio(&w->qs[w->submitted % NR_QUEUES], w->ctx, b)) {
				w->busy[s] = false;	/* refused (pool or tags full): later */
				break;
			}
			w->submitted++;
		}
		rq_ctx_reap(w->ctx, UINT64_MAX, UINT32_MAX);
		for (unsigned int s = 0; s < DEPTH; s++) {
			if (w->busy[s] && atomic_load_explicit((_Atomic unsigned int *)&w->ended[s],
								 memory_order_acquire)) {
				w->busy[s] = false;	/* free again */
				w->completed++;
			}
		}
		for (unsigned int q = 0; kick && q < NR_QUEUES; q++)
			rq_run_queue(&w->qs[q], w->ctx);
		if (++spins > 50000000ULL) {
			CHECK(0, "worker %d stuck: %" PRIu64 " of %d completed", rq_ctx_id(w->ctx), w->completed, BIOS);
			break;
		}
	}
	atomic_fetch_sub(&active, 1);
	/*
	 * Modes that leave work for other workers (cluster) need this one
	 * until all are done, serving what they forward or ask of it through
	 * the mode's poll (as the engine's worker does once its clones are
	 * done: it runs no queue of its own any more, or a run request it
	 * sent to the owner could outlive the owner's loop).
	 */
	while (atomic_load(&active) || rq_ctx_pending(w->ctx))
		rq_ctx_reap(w->ctx, UINT64_MAX, UINT32_MAX);
	rq_ctx_set_current(NULL);
	return NULL;
}

static void one_mode(const struct rq_queue_mode_ops *mode)
{
	static struct worker w[WORKERS];
	struct rq_ctx *ctxs[WORKERS];
	struct rq_dev devs[NR_QUEUES];
	struct fake fakes[NR_QUEUES];
	struct rq_queue qs[NR_QUEUES];
	struct rq_mode_config cfg = {
		.nr_cpus = WORKERS, .lock_type = RQ_LOCK_TTAS, .lockstat = true, .lockdep = true,
		.cluster_size = 1, .ctxs = ctxs, .hw_queues = kick ? 0 : 1,
	};
	char msg[256];
	int ret;

	memset(w, 0, sizeof(w));
	for (int i = 0; i < WORKERS; i++) {
		w[i].ctx = rq_ctx_create(i, &w[i]);
		CHECK(w[i].ctx != NULL, "%s: rq_ctx_create", mode->name);
		rq_ctx_set_polled(w[i].ctx, mode, NULL, 0);
		w[i].qs = qs;
		for (unsigned int s = 0; s < DEPTH; s++)
			w[i].busy[s] = false;
		ctxs[i] = w[i].ctx;
	}
	rq_locks_reset();
	ret = mode->setup ? mode->setup(&cfg) : 0;
	CHECK(ret == 0, "%s: setup %d", mode->name, ret);
	for (int q = 0; q < NR_QUEUES; q++) {
		memset(&devs[q], 0, sizeof(devs[q]));
		atomic_init(&fakes[q].n, 0);
		devs[q].ops = &fake_ops;
		devs[q].priv = &fakes[q];
		devs[q].depth = 8;
		devs[q].size = 2u << 20;
		devs[q].nr_hw_queues = 0;
		snprintf(devs[q].name, sizeof(devs[q].name), "fake%d", q);
		ret = rq_queue_init(&qs[q], mode, &devs[q], 32);
		CHECK(ret == 0, "%s: queue_init %d", mode->name, ret);
	}
	atomic_store(&active, WORKERS);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i].thread, NULL, run, &w[i]);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; i < WORKERS; i++) {
		CHECK(w[i].completed == BIOS, "%s: worker %d: %" PRIu64 " of %d bios came back",
		      mode->name, i, w[i].completed, BIOS);
		CHECK(w[i].dup == 0, "%s: worker %d: %" PRIu64 " bios ended twice", mode->name, i, w[i].dup);
		CHECK(w[i].errors == 0, "%s: worker %d: %" PRIu64 " errors", mode->name, i, w[i].errors);
		CHECK(!rq_ctx_pending(w[i].ctx), "%s: worker %d: context not empty", mode->name, i);
	}
	{
		uint64_t bios = 0, done = 0, disp = 0, reqs = 0, merges = 0;

		for (int q = 0; q < NR_QUEUES; q++) {
			ret = rq_queue_check_idle(&qs[q], msg, sizeof(msg));
			CHECK(ret == 0, "%s: queue %d not idle: %s", mode->name, q, msg);
			bios += qs[q].nr_bios;
			reqs += qs[q].nr_alloc;
			disp += qs[q].nr_dispatched;
			done += qs[q].nr_completed;
			merges += qs[q].merges_front + qs[q].merges_back;
		}
		CHECK(bios == (uint64_t)WORKERS * BIOS, "%s: queues saw %" PRIu64 " bios", mode->name, bios);
		CHECK(reqs + merges == bios, "%s: requests %" PRIu64 " + merges %" PRIu64 " != bios %" PRIu64,
		      mode->name, reqs, merges, bios);
		CHECK(done == reqs, "%s: %" PRIu64 " completed of %" PRIu64 " requests (dispatched %" PRIu64 ")",
		      mode->name, done, reqs, disp);
	}
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == 0, "%s: lockdep: %s", mode->name, msg);
	for (int q = 0; q < NR_QUEUES; q++)
		rq_queue_exit(&qs[q]);
	if (mode->teardown)
		mode->teardown();
	for (int i = 0; i < WORKERS; i++)
		rq_ctx_destroy(w[i].ctx);
	rq_locks_reset();
	printf("%s: %d workers x %d bios over %d queues, %s, exactly once\n", mode->name, WORKERS, BIOS,
	       NR_QUEUES, kick ? "kicked" : "no kick, mq on one hctx");
}

/*
 * A context with an SQE prepared and not submitted still owes work: a
 * completion a worker reaps can dispatch another worker's request into
 * its ring (end_request runs the queue), submitted only on a later round.
 * rq_ctx_pending() once missed it, and a worker left with the SQE
 * stranded: the job never ended (chaos seed 4242 case 879).
 */
static void unsubmitted_sqe_is_pending(void)
{
	struct rq_ctx *ctx = rq_ctx_create(0, NULL);
	struct io_uring_cqe *cqe;
	struct io_uring *ring;

	CHECK(ctx != NULL, "rq_ctx_create");
	if (!ctx || rq_ctx_ring_setup(ctx, 0, NULL, 0, NULL, 0) < 0) {
		printf("unsubmitted SQE: skipped, no io_uring ring\n");
		rq_ctx_destroy(ctx);
		return;
	}
	ring = rq_ctx_ring(ctx);
	CHECK(!rq_ctx_pending(ctx), "an empty context is pending");
	io_uring_prep_nop(io_uring_get_sqe(ring));
	CHECK(rq_ctx_pending(ctx), "a context with an unsubmitted SQE is not pending");
	CHECK(io_uring_submit_and_wait(ring, 1) == 1, "nop not submitted");
	CHECK(io_uring_peek_cqe(ring, &cqe) == 0, "nop not completed");
	io_uring_cqe_seen(ring, cqe);
	CHECK(!rq_ctx_pending(ctx), "a drained context is pending");
	rq_ctx_ring_teardown(ctx);
	rq_ctx_destroy(ctx);
	printf("unsubmitted SQE: the context stays pending until it is submitted\n");
}

int main(void)
{
	char msg[256];

	unsubmitted_sqe_is_pending();

	CHECK(rq_queue_modes_check(msg, sizeof(msg)) == 0, "%s", msg);
	for (unsigned int i = 0; rq_queue_mode_at(i); i++) {
		kick = true;
		one_mode(rq_queue_mode_at(i));
		kick = false;
		one_mode(rq_queue_mode_at(i));
	}
	return failures ? 1 : 0;
}
