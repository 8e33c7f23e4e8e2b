// SPDX-License-Identifier: MIT
/*
 * ctx.c - the per-CPU context (struct rq_ctx, queue.h): where devices
 * leave completions for a worker, and the one reap call that ends them.
 *
 * A device completes a request in one of four ways, all reaped here by the
 * worker that owns the context: an SQE on the worker's io_uring ring
 * (user_data = the request), rq_ctx_complete() (the next reap, in order),
 * rq_ctx_complete_after() (a timer list sorted by due time: null_blk's
 * irqmode 2, the disk models), or its own poll() hook (libaio).  A lock
 * mode may leave work too (cluster's forwarded bios), found through the
 * mode's poll().  Every request then goes through rq_end_request() and its
 * bios to their submitter's end_io.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/futex.h"
#include "queues/driver.h"
#include "queues/queue_internal.h"

/*
 * The context (queue.h says what it owns).  Only its worker touches it,
 * except `sleeping` and `handback` (rq_ctx_wake(), rq_ctx_hand_back()).
 */
struct rq_ctx {
	struct rq_ctx_head pub;		/* id, owner: read inline by everyone */
	bool has_ring;			/* ring is set up (rq_ctx_ring_setup) */
	unsigned int ring_inflight;	/* SQEs submitted, CQEs not reaped */
	/* rq_ctx_complete(): requests to end on the next reap, in order */
	struct rq_request *done_head, *done_tail;
	/* rq_ctx_complete_after(): sorted by done_at */
	struct rq_request *timer_head, *timer_tail;
	/* set by the owner before the run: what rq_ctx_reap() polls */
	const struct rq_queue_mode_ops *mode;
	struct rq_dev *const *polled;	/* devices with a poll hook */
	unsigned int nr_polled;
	/* queues run again every RQ_RERUN_DELAY_NS when stopped (rq_ctx_set_queues) */
	struct rq_queue *const *queues;
	unsigned int nr_queues;
	uint64_t next_rerun_ns;
	/* fixed buffers registered on the ring (ring_register), by address */
	struct iovec *bufs;
	unsigned int nr_bufs;
	_Atomic uint32_t sleeping;	/* futex word: the owner sleeps in rq_ctx_sleep() */
	/* bios of this worker's submitters ended by other workers (MPSC stack) */
	_Atomic(struct rq_bio *) handback;
	struct io_uring ring;		/* the worker's ring, when has_ring */
};

_Static_assert(offsetof(struct rq_ctx, pub) == 0, "rq_ctx_id() reads the head at the start");

_Thread_local struct rq_ctx *rq_current;

struct rq_ctx *rq_ctx_create(int id, void *owner)
{
	struct rq_ctx *ctx = rq_zalloc_lines(sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->pub.id = id;
	ctx->pub.owner = owner;
	atomic_init(&ctx->sleeping, 0);
	atomic_init(&ctx->handback, NULL);
	return ctx;
}

void rq_ctx_destroy(struct rq_ctx *ctx)
{
	free(ctx);
}

void rq_ctx_set_polled(struct rq_ctx *ctx, const struct rq_queue_mode_ops *mode,
		       struct rq_dev *const *polled, unsigned int nr_polled)
{
	ctx->mode = mode;
	ctx->polled = polled;
	ctx->nr_polled = nr_polled;
}

uint64_t rq_ctx_next_timer(const struct rq_ctx *ctx)
{
	return ctx->timer_head ? ctx->timer_head->done_at : UINT64_MAX;
}

struct io_uring *rq_ctx_ring(struct rq_ctx *ctx)
{
	return &ctx->ring;
}

void rq_ctx_set_current(struct rq_ctx *ctx)
{
	rq_current = ctx;
	rq_lock_set_cpu(ctx ? ctx->pub.id : -1);
}

void rq_ctx_complete(struct rq_ctx *ctx, struct rq_request *rq, int res)
{
	rq->res = res;
	rq->next = NULL;
	if (ctx->done_tail)
		ctx->done_tail->next = rq;
	else
		ctx->done_head = rq;
	ctx->done_tail = rq;
}

void rq_ctx_complete_after(struct rq_ctx *ctx, struct rq_request *rq, int res, uint64_t delay_ns)
{
	struct rq_request **pp;

	rq->res = res;
	/* a fresh clock: the worker's last read may be a round old, which would shorten the delay */
	rq->done_at = rq_clock_ns() + delay_ns;
	rq->next = NULL;
	if (!ctx->timer_tail || ctx->timer_tail->done_at <= rq->done_at) {
		if (ctx->timer_tail)
			ctx->timer_tail->next = rq;
		else
			ctx->timer_head = rq;
		ctx->timer_tail = rq;
		return;
	}
	for (pp = &ctx->timer_head; (*pp)->done_at <= rq->done_at; pp = &(*pp)->next)
		;
	rq->next = *pp;
	*pp = rq;
}

void rq_ctx_wake(struct rq_ctx *ctx)
{
	if (atomic_load_explicit(&ctx->sleeping, memory_order_seq_cst))
		rq_futex_wake(&ctx->sleeping);
}

void rq_ctx_sleep(struct rq_ctx *ctx, uint64_t timeout_ns)
{
	atomic_store_explicit(&ctx->sleeping, 1, memory_order_seq_cst);
	if (!atomic_load_explicit(&ctx->handback, memory_order_seq_cst))
		rq_futex_wait(&ctx->sleeping, 1, (long)(timeout_ns < 1000000 ? timeout_ns : 1000000));
	atomic_store_explicit(&ctx->sleeping, 0, memory_order_relaxed);
}

void rq_ctx_hand_back(struct rq_ctx *owner, struct rq_bio *bio)
{
	struct rq_bio *head = atomic_load_explicit(&owner->handback, memory_order_relaxed);

	do {
		bio->next = head;
	} while (!atomic_compare_exchange_weak_explicit(&owner->handback, &head, bio,
							memory_order_release, memory_order_relaxed));
	rq_ctx_wake(owner);
}

struct rq_bio *rq_ctx_handed_back(struct rq_ctx *ctx)
{
	if (!atomic_load_explicit(&ctx->handback, memory_order_relaxed))
		return NULL;
	return atomic_exchange_explicit(&ctx->handback, NULL, memory_order_acquire);
}

void rq_ctx_set_queues(struct rq_ctx *ctx, struct rq_queue *const *queues, unsigned int nr)
{
	ctx->queues = queues;
	ctx->nr_queues = nr;
}

/*
 * Queues the device stopped with nothing in flight (rq_queue.needs_rerun)
 * get no completion to restart them: every RQ_RERUN_DELAY_NS the context
 * runs again those of its queues so flagged, whatever else keeps its
 * worker busy (blk-mq's delayed run after BLK_STS_RESOURCE).  The cost
 * when no queue is stopped: one relaxed load per queue every 3 ms.
 */
static void rerun_stopped(struct rq_ctx *ctx, uint64_t now)
{
	ctx->next_rerun_ns = now + RQ_RERUN_DELAY_NS;
	for (unsigned int i = 0; i < ctx->nr_queues; i++) {
		struct rq_queue *q = ctx->queues[i];

		if (atomic_load_explicit(&q->needs_rerun, memory_order_relaxed))
			rq_run_queue(q, ctx);
	}
}

static unsigned int reap_ring(struct rq_ctx *ctx, unsigned int max)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	io_uring_for_each_cqe(&ctx->ring, head, cqe) {
		struct rq_request *rq;
		const struct rq_dev_ops *ops;

		if (seen == max)
			break;	/* iodepth_batch_complete_max: the rest next round */
		rq = io_uring_cqe_get_data(cqe);
		ops = rq->q->dev->ops;
		rq->res = ops->cqe_res ? ops->cqe_res(rq->q->dev, rq, cqe->res) : cqe->res;
		rq_end_request(rq, ctx, 0);
		seen++;
	}
	io_uring_cq_advance(&ctx->ring, seen);
	ctx->ring_inflight -= seen;
	return seen;
}

unsigned int rq_ctx_reap(struct rq_ctx *ctx, uint64_t now, unsigned int max_cqes)
{
	unsigned int n = 0;

	if (__builtin_expect(now >= ctx->next_rerun_ns, 0))
		rerun_stopped(ctx, now);
	if (ctx->has_ring && ctx->ring_inflight)
		n += reap_ring(ctx, max_cqes);
	if (ctx->done_head) {
		struct rq_request *rq = ctx->done_head;

		ctx->done_head = ctx->done_tail = NULL;
		while (rq) {
			struct rq_request *next = rq->next;

			rq_end_request(rq, ctx, 0);
			rq = next;
			n++;
		}
	}
	while (ctx->timer_head && ctx->timer_head->done_at <= now) {
		struct rq_request *rq = ctx->timer_head;

		ctx->timer_head = rq->next;
		if (!ctx->timer_head)
			ctx->timer_tail = NULL;
		rq_end_request(rq, ctx, 0);
		n++;
	}
	for (unsigned int i = 0; i < ctx->nr_polled; i++) {
		struct rq_dev *dev = ctx->polled[i];
		int r = dev->ops->poll(dev, ctx);

		if (r > 0)
			n += (unsigned int)r;
	}
	if (ctx->mode && ctx->mode->poll)
		n += ctx->mode->poll(ctx);
	return n;
}

bool rq_ctx_polled_pending(struct rq_ctx *ctx)
{
	for (unsigned int i = 0; i < ctx->nr_polled; i++) {
		struct rq_dev *dev = ctx->polled[i];

		if (dev->ops->pending && dev->ops->pending(dev, ctx))
			return true;
	}
	return ctx->mode && ctx->mode->pending && ctx->mode->pending(ctx);
}

/*
 * Work this context still owes: I/O in flight, completions and timers to
 * run, and SQEs prepared but not yet submitted.  Those last are easy to
 * forget: a completion this worker reaps can dispatch another worker's
 * queued request into this ring (end_request runs the queue), and
 * submission waits for the next round; a worker that left now would
 * strand it, and the job would wait for it forever.
 */
bool rq_ctx_pending(struct rq_ctx *ctx)
{
	return ctx->ring_inflight || (ctx->has_ring && io_uring_sq_ready(&ctx->ring)) ||
	       ctx->done_head || ctx->timer_head ||
	       atomic_load_explicit(&ctx->handback, memory_order_relaxed) || rq_ctx_polled_pending(ctx);
}

/* ---- the ring --------------------------------------------------------- */

/*
 * One ring per worker, only its worker submits to it: SINGLE_ISSUER and
 * DEFER_TASKRUN (completions run when the worker asks for them, no IPI)
 * where the kernel has them, COOP_TASKRUN otherwise, plain as a last
 * resort.  Compile-time probes say what liburing knows; the kernel's
 * -EINVAL says what it does not.
 */
static int ring_create(struct io_uring *ring, unsigned int extra)
{
	static const unsigned int tries[] = {
#if defined(RQ_HAVE_SINGLE_ISSUER) && defined(RQ_HAVE_DEFER_TASKRUN)
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
#endif
#ifdef IORING_SETUP_COOP_TASKRUN
		IORING_SETUP_COOP_TASKRUN,
#endif
		0,
	};
	int ret = -EINVAL;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		struct io_uring_params p = {
			.flags = IORING_SETUP_CQSIZE | tries[i] | extra,
			.cq_entries = 8192,
		};

		ret = io_uring_queue_init_params(1024, ring, &p);
		if (ret != -EINVAL)
			return ret;
	}
	return ret;
}

int rq_ctx_ring_probe(unsigned int nr, unsigned int *made)
{
	struct io_uring *rings = calloc(nr ? nr : 1, sizeof(*rings));
	unsigned int n = 0;
	int ret = 0;

	*made = 0;
	if (!rings)
		return -ENOMEM;
	for (; n < nr; n++) {
		ret = ring_create(&rings[n], 0);
		if (ret)
			break;
	}
	for (unsigned int i = 0; i < n; i++)
		io_uring_queue_exit(&rings[i]);
	free(rings);
	*made = n;
	return ret;
}

/*
 * Registered files and buffers.  The buffers live in the context
 * (ctx->bufs, sorted by address), written and read only by its worker:
 * in rq_ctx_ring_setup() before the run's barrier, in queue_rq() during
 * the run.
 */
static int iov_cmp(const void *a, const void *b)
{
	const struct iovec *x = a, *y = b;

	return (uintptr_t)x->iov_base < (uintptr_t)y->iov_base ? -1 :
	       (uintptr_t)x->iov_base > (uintptr_t)y->iov_base;
}

static void ring_unregister(struct rq_ctx *ctx)
{
	free(ctx->bufs);
	ctx->bufs = NULL;
	ctx->nr_bufs = 0;
}

static int ring_register(struct rq_ctx *ctx, struct rq_dev *const *devs, unsigned int nr_devs,
			 const struct iovec *bufs, unsigned int nr_bufs)
{
	struct io_uring *ring = &ctx->ring;
	bool want = false, files = false;

	ring_unregister(ctx);
	for (unsigned int i = 0; i < nr_devs; i++)
		want |= devs[i]->ops->ring_init != NULL;
	if (!want)
		return 0;
	/* A file table with a slot per device: the kernel may refuse it (< 5.19). */
	files = io_uring_register_files_sparse(ring, nr_devs) == 0;
	if (bufs && nr_bufs) {
		ctx->bufs = malloc(sizeof(*ctx->bufs) * nr_bufs);
		if (!ctx->bufs)
			return -ENOMEM;
		memcpy(ctx->bufs, bufs, sizeof(*ctx->bufs) * nr_bufs);
		qsort(ctx->bufs, nr_bufs, sizeof(*ctx->bufs), iov_cmp);
		if (io_uring_register_buffers(ring, ctx->bufs, nr_bufs)) {
			free(ctx->bufs);
			ctx->bufs = NULL;
		} else {
			ctx->nr_bufs = nr_bufs;
		}
	}
	for (unsigned int i = 0; i < nr_devs; i++) {
		struct rq_dev *dev = devs[i];

		if (!dev->ops->ring_init)
			continue;
		/* a slot of ~0u: no file table on this ring */
		dev->ops->ring_init(dev, ctx, ring, files ? i : ~0u);
		atomic_fetch_or_explicit(&dev->registered,
					 RQ_DEV_REG_PROBED | (ctx->bufs ? RQ_DEV_REG_BUFS : 0) |
					 (bufs && nr_bufs && !ctx->bufs ? RQ_DEV_REG_FALLBACK : 0),
					 memory_order_relaxed);
	}
	return 0;
}

int rq_ctx_ring_setup(struct rq_ctx *ctx, unsigned int flags, struct rq_dev *const *devs,
		      unsigned int nr_devs, const struct iovec *bufs, unsigned int nr_bufs)
{
	int ret = ring_create(&ctx->ring, flags);

	if (ret)
		return ret;
	ctx->has_ring = true;
	ctx->ring_inflight = 0;
	return ring_register(ctx, devs, nr_devs, bufs, nr_bufs);
}

void rq_ctx_ring_teardown(struct rq_ctx *ctx)
{
	if (!ctx->has_ring)
		return;
	ring_unregister(ctx);
	io_uring_queue_exit(&ctx->ring);
	ctx->has_ring = false;
	ctx->ring_inflight = 0;
}

int rq_ring_buf_index(const struct rq_ctx *ctx, const void *buf, size_t len)
{
	uintptr_t a = (uintptr_t)buf;
	unsigned int lo = 0, hi = ctx->nr_bufs;

	/* the last region starting at or below buf */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((uintptr_t)ctx->bufs[mid].iov_base <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	lo--;
	if (a + len > (uintptr_t)ctx->bufs[lo].iov_base + ctx->bufs[lo].iov_len)
		return -1;
	return (int)lo;
}

unsigned int rq_ctx_sq_ready(const struct rq_ctx *ctx)
{
	return ctx->has_ring ? io_uring_sq_ready(&ctx->ring) : 0;
}

bool rq_ctx_ring_busy(const struct rq_ctx *ctx)
{
	return ctx->has_ring && (ctx->ring_inflight || io_uring_sq_ready(&ctx->ring));
}

/*
 * SQEs the kernel took are counted from the ring's head, which stays
 * right when the wait times out; the in-flight count is written here and
 * in reap_ring() only.
 */
int rq_ctx_submit(struct rq_ctx *ctx, unsigned int wait_nr, uint64_t wait_ns)
{
	unsigned int before;
	int ret;

	if (!ctx->has_ring)
		return 0;
	before = io_uring_sq_ready(&ctx->ring);
	if (wait_nr) {
		unsigned int inflight = ctx->ring_inflight + before;
		struct __kernel_timespec ts = {
			.tv_sec = (long long)(wait_ns / 1000000000ULL),
			.tv_nsec = (long long)(wait_ns % 1000000000ULL),
		};
		struct io_uring_cqe *cqe;

		if (wait_nr > inflight)
			wait_nr = inflight ? inflight : 1;
		ret = io_uring_submit_and_wait_timeout(&ctx->ring, &cqe, wait_nr, &ts, NULL);
	} else if (before || ctx->ring_inflight) {
		/*
		 * Submit and run the ring's deferred completions in the same
		 * enter (DEFER_TASKRUN posts CQEs only when asked): the loop
		 * then finds completions without sleeping for them, as fio's
		 * submit-with-GETEVENTS does.
		 */
		ret = io_uring_submit_and_get_events(&ctx->ring);
	} else {
		return 0;
	}
	ctx->ring_inflight += before - io_uring_sq_ready(&ctx->ring);
	if (ret >= 0 || ret == -ETIME || ret == -EAGAIN || ret == -EBUSY || ret == -EINTR)
		return 1;
	return ret;
}
