// SPDX-License-Identifier: MIT
/*
 * mq.c - the blk-mq lock mode (Linux 3.13 on): per-worker software
 * queues, per-device hardware queues, a tag set per hardware queue.
 *
 * Structure, per request queue (device):
 *   - a software queue (ctx) per worker: a lock-free list that only its
 *     worker pushes to and a dispatcher empties whole;
 *   - H hardware queues (hctx): --hw-queues, default one per worker for
 *     the null and ram devices (null_blk's submit_queues = nr_cpus), one
 *     for every other device; worker w maps to hctx w mod H;
 *   - a tag set per hctx: an atomic bitmap, one 64-bit word per cache
 *     line, with a per-worker starting word (sbitmap's alloc hint).  A tag
 *     is a request: the hctx's request array is indexed by it.  There are
 *     q->nr_requests tags per hctx (blk-mq's sched_tags: a request exists
 *     once it has one); the device's queue depth is the hctx's dispatch
 *     budget (at most dev->depth of its requests in flight, the driver tag).
 *
 * Locks (lockdep: one class, no edges):
 *   hctx->lock ("hctx_lock"): protects the hctx's dispatch list, its
 *   dispatched counter and the decision to dispatch; the device's
 *   queue_rq runs under it.  It is held only around dispatch: taking a
 *   tag, inserting into a software queue and completing a request take
 *   no lock.  Submitters only *try* it (rq_trylock): a worker that finds
 *   another dispatching leaves its request in its software queue, raises
 *   need_run and goes on; its own loop looks once a round whether a
 *   holder took that run, and runs the hctx itself if none did (the
 *   protocol is written at hctx_run()).  So nobody waits for this lock.
 *   No lock is taken while it is held: no ordering to keep.
 *
 * Lock-free state and its ordering:
 *   ctx->list      pushed (CAS, release) by the ctx's worker, taken whole
 *                  (xchg) by a dispatcher holding hctx->lock;
 *   hctx->ctx_map  a bit per mapped ctx with a non-empty list;
 *   hctx->need_run someone wants a dispatch round;
 *   hctx->budget_used, hctx->async_done: the budget.  Requests in
 *                  flight = budget_used (counted under the lock, less the
 *                  ones the driver completed at once) - async_done
 *                  (counted by completions, which take no lock);
 *   hctx->waiting  requests wait on the dispatch list for budget;
 *   hctx->stopped  the device said BUSY; the next completion restarts.
 *   The handshake async_done against waiting uses seq_cst operations:
 *   each side writes its flag, then reads the other's, so at least one
 *   of them sees the work.  need_run is set and cleared only by RMWs, so
 *   the holder that clears it has seen every push made before it was set.
 *
 * Merging: none.  blk-mq merges in the plug or under ctx->lock; here the
 * software queue is lock-free and requests are issued at once, so every
 * bio is a request (the queue table shows no merges for mq).
 *
 * Counters are kept per ctx (written by its worker) and per hctx (under
 * its lock) and folded into the queue's by check_idle() after the run.
 *
 * Cost, uncontended, one worker per hctx: a tag from the ctx's cache, a
 * trylock, the dispatch and an unlock (a release store, no fence): the
 * 2.5 path's lock without its elevator and request pool, all on lines
 * this worker owns; no two workers share a line unless they share an
 * hctx.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queues/driver.h"
#include "lib/alloc.h"
#include "lib/compiler.h"
#include "queues/queue_internal.h"
#include "results/results.h"

static const struct rq_lock_class hctx_lock_class = { .name = "hctx_lock" };

struct tag_word {
	_Atomic uint64_t bits;		/* 1 = taken; bits past the tag count stay 1 */
} __attribute__((aligned(RQ_CACHELINE)));

/* Tags a ctx keeps for itself when its hctx is its alone (see tag_get()). */
#define TAG_CACHE 64

struct mq_ctx {
	_Atomic(struct rq_request *) list;	/* LIFO; the dispatcher reverses it */
	struct rq_hw_queue *hctx;
	unsigned int hbit;		/* this ctx's bit in hctx->ctx_map */
	unsigned int tag_hint;		/* tag word to look in first */
	bool own_hctx;			/* the only ctx mapped to hctx: may cache tags */
	unsigned int nr_cached;		/* tags in cache[], taken in the bitmap, free */
	uint32_t cache[TAG_CACHE];
	/* written by this ctx's worker only */
	uint64_t nr_bios, nr_alloc, nr_completed;
	uint64_t tag_waits, sw_queued;
} __attribute__((aligned(RQ_CACHELINE)));

/*
 * mq's per-request state, in the area the mode sizes (.cmd_size; blk-mq's
 * pdu after struct request): struct rq_request holds nothing of any one
 * mode.  Each hardware queue's tags index its own requests.
 */
struct mq_pdu {
	struct rq_hw_queue *hctx;	/* the hardware queue whose tag it holds */
	int32_t submit_cpu;		/* the worker whose software queue it came from */
};

#define MQ_RQ_STRIDE RQ_REQUEST_STRIDE(sizeof(struct mq_pdu))

static inline struct mq_pdu *mq_pdu(struct rq_request *rq)
{
	return rq_request_pdu(rq);
}

struct rq_hw_queue {
	struct rq_lock lock;
	/* lock: */
	struct rq_request *head, *tail;	/* the dispatch list */
	uint32_t nr_waiting_rqs;	/* on the dispatch list */
	uint32_t budget_used;		/* dispatched and not completed at once */
	uint64_t nr_dispatched, remote;
	/* set at init */
	struct rq_queue *q;
	unsigned int index, depth, nr_tags, nr_words, nr_ctxs;
	struct mq_ctx **ctxs;
	struct tag_word *tags;
	struct rq_request *rqs;		/* nr_tags, MQ_RQ_STRIDE apart, indexed by tag */
	_Atomic uint64_t *ctx_map;	/* (nr_ctxs + 63) / 64 words */
	/* lock-free, each on its own line */
	_Atomic uint32_t async_done __attribute__((aligned(RQ_CACHELINE)));
	_Atomic uint32_t need_run __attribute__((aligned(RQ_CACHELINE)));
	_Atomic uint32_t waiting;
	_Atomic uint32_t stopped;
} __attribute__((aligned(RQ_CACHELINE)));

struct mq_queue {
	unsigned int nr_hw;
	struct rq_hw_queue *hw;
	struct mq_ctx *ctx;		/* one per worker */
};

/* A worker's runs asked of hctxs whose holder has not taken them yet. */
struct mq_cpu {
	struct rq_hw_queue **asked;
	unsigned int nr_asked, cap;
} __attribute__((aligned(RQ_CACHELINE)));

static struct {
	unsigned int nr_cpus;
	unsigned int hw_queues;
	struct mq_cpu *cpus;
} mq_cfg;

static void mq_teardown(void)
{
	for (unsigned int i = 0; mq_cfg.cpus && i < mq_cfg.nr_cpus; i++)
		free(mq_cfg.cpus[i].asked);
	free(mq_cfg.cpus);
	mq_cfg.cpus = NULL;
}

static int mq_setup(const struct rq_mode_config *cfg)
{
	mq_teardown();
	mq_cfg.nr_cpus = cfg->nr_cpus ? cfg->nr_cpus : 1;
	mq_cfg.hw_queues = cfg->hw_queues;
	mq_cfg.cpus = rq_zalloc_lines(mq_cfg.nr_cpus * sizeof(*mq_cfg.cpus));
	if (!mq_cfg.cpus)
		return -ENOMEM;
	return rq_mode_locks_setup(cfg);
}

static void mq_free(struct mq_queue *mq)
{
	if (!mq)
		return;
	for (unsigned int i = 0; mq->hw && i < mq->nr_hw; i++) {
		free(mq->hw[i].ctxs);
		free(mq->hw[i].tags);
		free(mq->hw[i].rqs);
		free((void *)mq->hw[i].ctx_map);
	}
	free(mq->hw);
	free(mq->ctx);
	free(mq);
}

/* --hw-queues, else what the device has (0: one per worker); never more than the workers */
static unsigned int default_hw_queues(const struct rq_queue *q)
{
	unsigned int n = mq_cfg.hw_queues ? mq_cfg.hw_queues : q->dev->nr_hw_queues;

	if ((q->dev->flags & RQ_DEV_HWQ_LIMIT) && q->dev->nr_hw_queues && (!n || n > q->dev->nr_hw_queues))
		n = q->dev->nr_hw_queues;	/* the hardware's queue pairs: no more contexts than those */
	return n && n < mq_cfg.nr_cpus ? n : mq_cfg.nr_cpus;
}

static int hctx_init(struct rq_queue *q, struct mq_queue *mq, struct rq_hw_queue *h, unsigned int i)
{
	char name[sizeof(h->lock.name)];

	h->q = q;
	h->index = i;
	h->depth = q->depth;
	h->nr_tags = q->nr_requests;
	h->nr_words = (h->nr_tags + 63) / 64;
	h->tags = rq_zalloc_lines(sizeof(*h->tags) * h->nr_words);
	h->rqs = rq_requests_alloc(q, h->nr_tags);
	for (unsigned int c = 0; c < mq_cfg.nr_cpus; c++)
		if (c % mq->nr_hw == i)
			h->nr_ctxs++;
	h->ctxs = calloc(h->nr_ctxs ? h->nr_ctxs : 1, sizeof(*h->ctxs));
	h->ctx_map = rq_zalloc_lines(sizeof(*h->ctx_map) * ((h->nr_ctxs + 63) / 64));
	if (!h->tags || !h->rqs || !h->ctxs || !h->ctx_map)
		return -ENOMEM;
	for (unsigned int w = 0; w < h->nr_words; w++) {
		unsigned int used = h->nr_tags - w * 64;

		atomic_init(&h->tags[w].bits, used >= 64 ? 0 : ~0ULL << used);
	}
	for (unsigned int t = 0; t < h->nr_tags; t++) {
		struct rq_request *rq = rq_request_at(h->rqs, MQ_RQ_STRIDE, t);

		mq_pdu(rq)->hctx = h;
		rq->hwq = (uint16_t)i;	/* the driver's hardware context (nvme-pci: its queue pair) */
	}
	atomic_init(&h->async_done, 0);
	atomic_init(&h->need_run, 0);
	atomic_init(&h->waiting, 0);
	atomic_init(&h->stopped, 0);
	snprintf(name, sizeof(name), "hctx_lock:%.24s/%u", q->name, i % 10000);
	rq_lock_init(&h->lock, &hctx_lock_class, name);
	return 0;
}

static int mq_queue_init(struct rq_queue *q)
{
	struct mq_queue *mq = calloc(1, sizeof(*mq));
	int ret;

	if (!mq)
		return -ENOMEM;
	q->lock = NULL;
	mq->nr_hw = default_hw_queues(q);
	mq->hw = rq_zalloc_lines(sizeof(*mq->hw) * mq->nr_hw);
	mq->ctx = rq_zalloc_lines(sizeof(*mq->ctx) * mq_cfg.nr_cpus);
	ret = mq->hw && mq->ctx ? 0 : -ENOMEM;
	for (unsigned int i = 0; !ret && i < mq->nr_hw; i++)
		ret = hctx_init(q, mq, &mq->hw[i], i);
	if (ret) {
		mq_free(mq);
		return ret;
	}
	q->mode_priv = mq;
	for (unsigned int c = 0; c < mq_cfg.nr_cpus; c++) {
		struct mq_ctx *ctx = &mq->ctx[c];
		struct rq_hw_queue *h = &mq->hw[c % mq->nr_hw];

		atomic_init(&ctx->list, NULL);
		ctx->hctx = h;
		ctx->hbit = c / mq->nr_hw;
		h->ctxs[ctx->hbit] = ctx;
		ctx->tag_hint = ctx->hbit % h->nr_words;
	}
	for (unsigned int c = 0; c < mq_cfg.nr_cpus; c++)
		mq->ctx[c].own_hctx = mq->ctx[c].hctx->nr_ctxs == 1;
	return 0;
}

static void mq_queue_exit(struct rq_queue *q)
{
	mq_free(q->mode_priv);
	q->mode_priv = NULL;
}

/* ---- tags -------------------------------------------------------------- */

/*
 * sbitmap, as lib/sbitmap.c lays it out: one word per cache line, a
 * per-ctx hint of the word to look in first.  On top, the batching of
 * Linux 5.16's plug cache (blk_mq_get_tags() taking several bits with one
 * RMW) and of blk_mq_end_request_batch() (blk_mq_put_tags() freeing a
 * batch): a ctx whose hctx is its alone takes every free bit of a word
 * with one fetch_or and keeps the tags in its cache; the requests it
 * completes put their tags back in that cache, not the bitmap.  So in the
 * steady state a request costs no atomic for its tag at all.  Only the
 * owner allocates from its hctx, so cached tags starve nobody; a tag
 * freed by another worker goes back to the bitmap, where the owner finds
 * it once its cache is empty.  The bitmap then counts cached tags as
 * taken; mq_check_idle() counts them as free.
 */
static int tag_get_batch(struct rq_hw_queue *h, struct mq_ctx *ctx)
{
	unsigned int w = ctx->tag_hint;

	for (unsigned int i = 0; i < h->nr_words; i++) {
		struct tag_word *tw = &h->tags[w];
		uint64_t v = atomic_load_explicit(&tw->bits, memory_order_relaxed);

		if (~v) {
			uint64_t got = ~atomic_fetch_or_explicit(&tw->bits, ~v, memory_order_acquire) & ~v;

			if (got) {
				ctx->tag_hint = w;
				/* highest first into the stack, so the lowest tag goes out first */
				while (got) {
					unsigned int b = 63 - (unsigned int)__builtin_clzll(got);

					ctx->cache[ctx->nr_cached++] = w * 64 + b;
					got &= ~(1ULL << b);
				}
				return (int)ctx->cache[--ctx->nr_cached];
			}
		}
		if (++w == h->nr_words)
			w = 0;
	}
	return -1;
}

static int tag_get(struct rq_hw_queue *h, struct mq_ctx *ctx)
{
	unsigned int w = ctx->tag_hint;

	if (ctx->own_hctx)
		return ctx->nr_cached ? (int)ctx->cache[--ctx->nr_cached] : tag_get_batch(h, ctx);
	for (unsigned int i = 0; i < h->nr_words; i++) {
		struct tag_word *tw = &h->tags[w];
		uint64_t v = atomic_load_explicit(&tw->bits, memory_order_relaxed);

		while (~v) {
			uint64_t bit = 1ULL << __builtin_ctzll(~v);

			v = atomic_fetch_or_explicit(&tw->bits, bit, memory_order_acquire);
			if (!(v & bit)) {
				ctx->tag_hint = w;
				return (int)(w * 64 + (unsigned int)__builtin_ctzll(bit));
			}
		}
		if (++w == h->nr_words)
			w = 0;
	}
	return -1;
}

/* Free @tag of @h, on worker @ctx's thread. */
static void tag_put(struct rq_hw_queue *h, struct mq_ctx *ctx, uint32_t tag)
{
	if (ctx->hctx == h && ctx->own_hctx && ctx->nr_cached < TAG_CACHE) {
		ctx->cache[ctx->nr_cached++] = tag;
		return;
	}
	atomic_fetch_and_explicit(&h->tags[tag / 64].bits, ~(1ULL << (tag % 64)), memory_order_release);
}

/* ---- dispatch ------------------------------------------------------------ */

/* Requests of @h in flight; under h->lock. */
static inline uint32_t in_flight(const struct rq_hw_queue *h, memory_order mo)
{
	return h->budget_used - atomic_load_explicit(&h->async_done, mo);
}

/* The request's device work is over: free its tag.  No lock. */
static inline struct rq_bio *mq_complete(struct mq_queue *mq, struct rq_request *rq, int id, int error)
{
	struct rq_bio *bios = rq_request_bios_done(rq->q, rq, error);

	rq->state = RQ_STATE_FREE;
	rq->bio = rq->biotail = NULL;
	mq->ctx[id].nr_completed++;
	tag_put(mq_pdu(rq)->hctx, &mq->ctx[id], rq->tag);
	return bios;
}

static void dispatch_add(struct rq_hw_queue *h, struct rq_request *rq)
{
	rq->next = NULL;
	if (h->tail)
		h->tail->next = rq;
	else
		h->head = rq;
	h->tail = rq;
	h->nr_waiting_rqs++;
}

static inline bool hctx_can_issue(const struct rq_hw_queue *h)
{
	return !atomic_load_explicit(&h->stopped, memory_order_relaxed) &&
	       in_flight(h, memory_order_relaxed) < h->depth;
}

/*
 * Hand @rq to the driver; h->lock held.  False when the device said BUSY:
 * @rq is back at the head of the dispatch list and @h is stopped until a
 * completion (or, with nothing in flight, the engine's delayed run).
 * Inline in both callers: the direct issue is blk-mq's fast path.
 */
static inline __attribute__((always_inline)) bool hctx_issue(struct mq_queue *mq, struct rq_hw_queue *h,
								struct rq_ctx *cpu, struct rq_request *rq,
								struct rq_bio **done)
{
	struct rq_dev *dev = h->q->dev;
	int id = rq_ctx_id(cpu), st;

	rq->state = RQ_STATE_DISPATCHED;
	h->budget_used++;
	st = h->q->queue_rq(dev, cpu, rq);
	if (st == RQ_Q_BUSY) {
		h->budget_used--;
		rq->state = RQ_STATE_QUEUED;
		rq->next = h->head;
		h->head = rq;
		if (!h->tail)
			h->tail = rq;
		h->nr_waiting_rqs++;
		atomic_store_explicit(&h->stopped, 1, memory_order_seq_cst);
		if (!in_flight(h, memory_order_seq_cst))	/* no completion will restart it */
			atomic_store_explicit(&h->q->needs_rerun, true, memory_order_relaxed);
		return false;
	}
	h->nr_dispatched++;
	h->remote += mq_pdu(rq)->submit_cpu != id;
	if (st == RQ_Q_DONE) {
		h->budget_used--;
		rq_bios_splice(done, mq_complete(mq, rq, id, rq->error));
	}
	return true;
}

/* Move every pending software queue of @h to its dispatch list, oldest first. */
static void flush_ctxs(struct rq_hw_queue *h)
{
	for (unsigned int w = 0; w < (h->nr_ctxs + 63) / 64; w++) {
		uint64_t map;

		if (!atomic_load_explicit(&h->ctx_map[w], memory_order_relaxed))
			continue;
		map = atomic_exchange_explicit(&h->ctx_map[w], 0, memory_order_seq_cst);
		while (map) {
			struct mq_ctx *ctx = h->ctxs[w * 64 + (unsigned int)__builtin_ctzll(map)];
			struct rq_request *rq = atomic_exchange_explicit(&ctx->list, NULL, memory_order_seq_cst);
			struct rq_request *rev = NULL;

			map &= map - 1;
			while (rq) {
				struct rq_request *next = rq->next;

				rq->next = rev;
				rev = rq;
				rq = next;
			}
			while (rev) {
				struct rq_request *next = rev->next;

				dispatch_add(h, rev);
				rev = next;
			}
		}
	}
}

/*
 * One dispatch round, hctx->lock held: take the software queues, hand the
 * dispatch list to the driver within the budget.  Requests the driver
 * completes at once are completed here (their tag and budget freed) and
 * their bios put on @done.
 */
static void hctx_dispatch(struct mq_queue *mq, struct rq_hw_queue *h, struct rq_ctx *cpu,
			  struct rq_bio **done)
{
	rq_lock_assert_held(&h->lock, rq_ctx_id(cpu));
again:
	/*
	 * Take the run asked for: the clear is an RMW, so it reads the last
	 * asker's raise and sees every push made before it, in the flush
	 * below; the asker's mq_poll() then drops its ask.
	 */
	if (atomic_load_explicit(&h->need_run, memory_order_relaxed))
		atomic_exchange_explicit(&h->need_run, 0, memory_order_acq_rel);
	flush_ctxs(h);
	while (h->head && hctx_can_issue(h)) {
		struct rq_request *rq = h->head;

		h->head = rq->next;
		if (!h->head)
			h->tail = NULL;
		h->nr_waiting_rqs--;
		rq->next = NULL;
		if (!hctx_issue(mq, h, cpu, rq, done))
			break;
		/* an asker waits: take its run now, not after the whole list */
		if (atomic_load_explicit(&h->need_run, memory_order_relaxed))
			goto again;
	}
	if (h->head) {
		/* budget full: say so, then look again (a completion may have missed the flag) */
		atomic_store_explicit(&h->waiting, 1, memory_order_seq_cst);
		if (!atomic_load_explicit(&h->stopped, memory_order_seq_cst) &&
		    in_flight(h, memory_order_seq_cst) < h->depth)
			goto again;
	} else if (atomic_load_explicit(&h->waiting, memory_order_relaxed)) {
		atomic_store_explicit(&h->waiting, 0, memory_order_relaxed);
	}
	/* asked during the round: under the lock, so the asker is still waiting */
	if (atomic_load_explicit(&h->need_run, memory_order_relaxed))
		goto again;
}

/*
 * blk_mq_try_issue_directly: under h->lock, with nothing of this ctx in
 * its software queue.  When nothing waits on the dispatch list and the
 * budget allows, @rq goes to the driver at once; otherwise behind the
 * list, in a dispatch round.  Runs asked meanwhile are taken before the
 * caller unlocks.
 */
static void hctx_issue_direct(struct mq_queue *mq, struct rq_hw_queue *h, struct rq_ctx *cpu,
			      struct rq_request *rq, struct rq_bio **done)
{
	if (!h->head && hctx_can_issue(h)) {
		if (hctx_issue(mq, h, cpu, rq, done) && !atomic_load_explicit(&h->need_run, memory_order_relaxed)) {
			if (atomic_load_explicit(&h->waiting, memory_order_relaxed))
				atomic_store_explicit(&h->waiting, 0, memory_order_relaxed);
			return;
		}
		/* BUSY (@rq is back at the list's head), or runs were asked */
	} else {
		dispatch_add(h, rq);	/* behind what waits */
	}
	hctx_dispatch(mq, h, cpu, done);
}

/*
 * Run @h: dispatch if nobody else is, else hand the run to the one who is.
 * The protocol:
 *   asking:   need_run |= 1 (an RMW), then go on, with @h on the worker's
 *             list of asked runs (mq_poll() looks at it every round);
 *   holding:  after each request and before unlocking, if need_run, clear
 *             it (an RMW: the holder then sees every push made before the
 *             raise it read) and take the software queues again;
 *   each round, the asker: need_run 0 means a holder took the run; still
 *             1 with the lock free means the holder unlocked before it
 *             looked: the asker runs @h itself.
 * No fence on either side: the uncontended path is a trylock and a
 * release store, as a spinlock's, and a run asked just as the holder
 * unlocked waits one round of the asker's loop, which does not sleep
 * while it has runs asked (mq_pending()).  A worker that holds @h itself
 * (a completion ended inside its own round) only raises need_run.
 */
static bool mq_ask(struct rq_ctx *cpu, struct rq_hw_queue *h)
{
	struct mq_cpu *c = &mq_cfg.cpus[rq_ctx_id(cpu)];

	for (unsigned int i = 0; i < c->nr_asked; i++)
		if (c->asked[i] == h)
			return true;
	if (c->nr_asked == c->cap) {
		unsigned int cap = c->cap ? 2 * c->cap : 8;
		struct rq_hw_queue **a = realloc(c->asked, cap * sizeof(*a));

		if (!a)
			return false;
		c->asked = a;
		c->cap = cap;
	}
	c->asked[c->nr_asked++] = h;
	return true;
}

static void hctx_run(struct mq_queue *mq, struct rq_hw_queue *h, struct rq_ctx *cpu, struct rq_bio **done)
{
	int id = rq_ctx_id(cpu);

	for (;;) {
		if (rq_trylock(&h->lock, id)) {
			hctx_dispatch(mq, h, cpu, done);
			rq_unlock(&h->lock, id);
			return;
		}
		atomic_fetch_or_explicit(&h->need_run, 1, memory_order_seq_cst);
		if (rq_lock_is_held_by(&h->lock, id))
			return;		/* our own round looks before it unlocks */
		if (!rq_lock_is_locked(&h->lock))
			continue;	/* freed meanwhile: maybe before its holder looked */
		if (mq_ask(cpu, h))
			return;
		/* no memory for the list: wait until the run is taken or the lock is free */
		while (atomic_load_explicit(&h->need_run, memory_order_acquire) && rq_lock_is_locked(&h->lock))
			sched_yield();
		if (!atomic_load_explicit(&h->need_run, memory_order_acquire))
			return;
	}
}

/* Every round of every worker: the runs it asked that no holder took. */
static unsigned int mq_poll(struct rq_ctx *cpu)
{
	struct mq_cpu *c = &mq_cfg.cpus[rq_ctx_id(cpu)];
	struct rq_bio *done = NULL;
	unsigned int n = c->nr_asked, keep = 0;

	if (!n)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		struct rq_hw_queue *h = c->asked[i];

		if (!atomic_load_explicit(&h->need_run, memory_order_acquire)) {
			c->asked[i] = NULL;	/* taken */
		} else if (!rq_lock_is_locked(&h->lock)) {
			/* its holder unlocked before it looked: run it; a new ask appends */
			c->asked[i] = NULL;
			hctx_run(h->q->mode_priv, h, cpu, &done);
		}
		/* else: its holder looks before it unlocks, or we next round */
	}
	for (unsigned int i = 0; i < c->nr_asked; i++)
		if (c->asked[i])
			c->asked[keep++] = c->asked[i];
	c->nr_asked = keep;
	rq_bios_end(cpu, done);
	return 0;
}

static bool mq_pending(struct rq_ctx *cpu)
{
	return mq_cfg.cpus[rq_ctx_id(cpu)].nr_asked != 0;
}

static int mq_submit_bio(struct rq_queue *q, struct rq_ctx *cpu, struct rq_bio *bio)
{
	struct mq_queue *mq = q->mode_priv;
	int id = rq_ctx_id(cpu);
	struct mq_ctx *ctx = &mq->ctx[id];
	struct rq_hw_queue *h = ctx->hctx;
	struct rq_bio *done = NULL;
	struct rq_request *rq;
	int tag = tag_get(h, ctx);

	if (tag < 0) {
		ctx->tag_waits++;
		return -EAGAIN;		/* the engine retries once a completion came back */
	}
	rq = rq_request_at(h->rqs, MQ_RQ_STRIDE, (uint32_t)tag);
	rq_request_start(rq, bio);
	mq_pdu(rq)->submit_cpu = id;
	ctx->nr_bios++;
	ctx->nr_alloc++;
	if (!atomic_load_explicit(&ctx->list, memory_order_relaxed) && rq_trylock(&h->lock, id)) {
		/* nobody dispatching and nothing of ours waiting: issue directly */
		hctx_issue_direct(mq, h, cpu, rq, &done);
		rq_unlock(&h->lock, id);
	} else {
		struct rq_request *head = atomic_load_explicit(&ctx->list, memory_order_relaxed);
		_Atomic uint64_t *word = &h->ctx_map[ctx->hbit / 64];
		uint64_t bit = 1ULL << (ctx->hbit % 64);

		do {
			rq->next = head;
		} while (!atomic_compare_exchange_weak_explicit(&ctx->list, &head, rq, memory_order_seq_cst,
								memory_order_relaxed));
		ctx->sw_queued++;
		if (!(atomic_load_explicit(word, memory_order_seq_cst) & bit))
			atomic_fetch_or_explicit(word, bit, memory_order_seq_cst);
		hctx_run(mq, h, cpu, &done);
	}
	rq_bios_end(cpu, done);
	return 0;
}

static void mq_end_request(struct rq_queue *q, struct rq_ctx *cpu, struct rq_request *rq, int error)
{
	struct mq_queue *mq = q->mode_priv;
	struct rq_hw_queue *h = mq_pdu(rq)->hctx;
	struct rq_bio *done = NULL, *bios = mq_complete(mq, rq, rq_ctx_id(cpu), error);

	atomic_fetch_add_explicit(&h->async_done, 1, memory_order_seq_cst);

	/* a restart: requests wait for the budget this freed, or the device was busy */
	if (atomic_load_explicit(&h->waiting, memory_order_seq_cst) ||
	    atomic_load_explicit(&h->stopped, memory_order_relaxed)) {
		atomic_store_explicit(&h->stopped, 0, memory_order_relaxed);
		hctx_run(mq, h, cpu, &done);
	}
	rq_bios_end(cpu, bios);
	rq_bios_end(cpu, done);
}

static void mq_run_queue(struct rq_queue *q, struct rq_ctx *cpu)
{
	struct mq_queue *mq = q->mode_priv;
	struct rq_bio *done = NULL;

	atomic_store_explicit(&q->needs_rerun, false, memory_order_relaxed);
	for (unsigned int i = 0; i < mq->nr_hw; i++) {
		struct rq_hw_queue *h = &mq->hw[i];

		atomic_store_explicit(&h->stopped, 0, memory_order_relaxed);
		hctx_run(mq, h, cpu, &done);
	}
	rq_bios_end(cpu, done);
}

/* After the run: fold the counters, check every tag is back and every list empty. */
static int mq_check_idle(struct rq_queue *q, char *msg, size_t len)
{
	struct mq_queue *mq = q->mode_priv;
	uint64_t held = 0;

	q->nr_bios = q->nr_alloc = q->nr_completed = q->nr_dispatched = 0;
	q->inflight = q->nr_queued = 0;
	for (unsigned int c = 0; c < mq_cfg.nr_cpus; c++) {
		const struct mq_ctx *ctx = &mq->ctx[c];

		q->nr_bios += ctx->nr_bios;
		q->nr_alloc += ctx->nr_alloc;
		q->nr_completed += ctx->nr_completed;
		for (const struct rq_request *rq = atomic_load(&ctx->list); rq; rq = rq->next)
			q->nr_queued++;
	}
	for (unsigned int i = 0; i < mq->nr_hw; i++) {
		const struct rq_hw_queue *h = &mq->hw[i];

		q->nr_dispatched += h->nr_dispatched;
		q->inflight += in_flight(h, memory_order_relaxed);
		q->nr_queued += h->nr_waiting_rqs;
		for (unsigned int w = 0; w < h->nr_words; w++) {
			unsigned int used = h->nr_tags - w * 64;
			uint64_t spare = used >= 64 ? 0 : ~0ULL << used;

			held += (uint64_t)__builtin_popcountll(atomic_load(&h->tags[w].bits) & ~spare);
		}
	}
	for (unsigned int c = 0; c < mq_cfg.nr_cpus; c++)
		held -= mq->ctx[c].nr_cached;	/* taken in the bitmap, free in a cache */
	if (held) {
		snprintf(msg, len, "queue %s: %" PRIu64 " tags still held after the run", q->name, held);
		return -EPROTO;
	}
	return 0;
}

/*
 * A queue's facts: hw_queues, tags (per hardware queue), tag_waits (bios
 * refused for want of a tag, retried), sw_queued (requests that waited in
 * a software queue), remote_dispatch (dispatched by another worker than
 * their submitter).
 */
static void mq_report(const struct rq_queue *q, struct rq_mode_queue_report *out)
{
	const struct mq_queue *mq = q->mode_priv;

	rq_fact_add(&out->facts, "hw_queues", mq->nr_hw);
	rq_fact_add(&out->facts, "tags", mq->nr_hw ? mq->hw[0].nr_tags : 0);
	rq_fact_add(&out->facts, "tag_waits", 0);
	rq_fact_add(&out->facts, "sw_queued", 0);
	rq_fact_add(&out->facts, "remote_dispatch", 0);
	for (unsigned int c = 0; c < mq_cfg.nr_cpus; c++) {
		rq_fact_add(&out->facts, "tag_waits", (int64_t)mq->ctx[c].tag_waits);
		rq_fact_add(&out->facts, "sw_queued", (int64_t)mq->ctx[c].sw_queued);
	}
	for (unsigned int i = 0; i < mq->nr_hw; i++)
		rq_fact_add(&out->facts, "remote_dispatch", (int64_t)mq->hw[i].remote);
}

/* The run's fact: hw_queues_option, the --hw-queues asked for (0 = per device default). */
static void mq_report_run(struct rq_mode_report *out)
{
	rq_fact_add(&out->facts, "hw_queues_option", mq_cfg.hw_queues);
}

const struct rq_queue_mode_ops rq_mode_mq = {
	.name = "mq",
	.help = "blk-mq: per-worker software queues, hardware queues, tag sets (Linux 3.13)",
	.options = (const char *const[]){ "hw-queues", NULL },
	.cmd_size = sizeof(struct mq_pdu),	/* MQ_RQ_STRIDE apart */
	.setup = mq_setup,
	.teardown = mq_teardown,
	.queue_init = mq_queue_init,
	.queue_exit = mq_queue_exit,
	.submit_bio = mq_submit_bio,
	.end_request = mq_end_request,
	.run_queue = mq_run_queue,
	.check_idle = mq_check_idle,
	.report = mq_report,
	.report_run = mq_report_run,
	.poll = mq_poll,
	.pending = mq_pending,
};
