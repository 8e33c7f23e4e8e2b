// SPDX-License-Identifier: MIT
/*
 * test_discard.c - trims (RQ_OP_DISCARD) in the block layer, with no
 * engine: each lock mode over a fake device that parks what it is given,
 * and the RAM store's discard.
 *
 * The fake device takes one request at a time (depth 1) and completes it
 * on the next reap, so what is submitted meanwhile waits in the elevator
 * and may merge.  Submitted back to back, with every pair adjacent:
 *   W [0,4k)  D [4k,8k)  D [8k,12k)  W [12k,16k)  D [16k,20k)  R [20k,24k)
 * Checked for every mode: no request mixes ops (a discard never merges
 * with a read or a write, which are adjacent to it here), the device sees
 * each discard as one range covering exactly the discards submitted, and
 * every bio ends once with no error.  The legacy modes (global,
 * per-queue), whose 2.4 elevator merges, must have merged the two
 * adjacent discards into one request of [4k,12k).
 *
 * The RAM store: a discard of a written range reads back zeros, with the
 * bytes around it kept (partial pages cleared, whole pages dropped).
 *
 * Exit 0: all passed; 1: a check failed, named on stderr.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"
#include "queues/queue.h"
#include "tests/helpers.h"

#define NR_BIOS 6
#define MAX_SEEN 16

struct seen {
	uint8_t op;
	uint64_t offset;
	uint32_t len;
	unsigned int segs;
	bool mixed;			/* a bio of another op in the request */
};

struct fake {
	struct seen seen[MAX_SEEN];
	unsigned int nr;
};

static int fake_queue_rq(struct rq_dev *dev, struct rq_ctx *ctx, struct rq_request *rq)
{
	struct fake *f = dev->priv;

	if (f->nr < MAX_SEEN) {
		struct seen *s = &f->seen[f->nr++];

		s->op = rq->op;
		s->offset = rq->offset;
		s->len = rq->len;
		s->segs = rq->nr_segs;
		s->mixed = false;
		for (const struct rq_bio *b = rq->bio; b; b = b->next)
			s->mixed |= b->op != rq->op;
	}
	rq_ctx_complete(ctx, rq, (int)rq->len);
	return RQ_Q_QUEUED;
}

static const struct rq_dev_ops fake_ops = { .name = "fake", .queue_rq = fake_queue_rq };

static unsigned int ended, errors;

static void end_io(struct rq_ctx *ctx, struct rq_bio *bio)
{
	(void)ctx;
	ended++;
	errors += bio->error != 0;
}

static void one_mode(const struct rq_queue_mode_ops *mode)
{
	static const struct { uint8_t op; uint64_t off; } plan[NR_BIOS] = {
		{ RQ_OP_WRITE, 0 }, { RQ_OP_DISCARD, 4096 }, { RQ_OP_DISCARD, 8192 },
		{ RQ_OP_WRITE, 12288 }, { RQ_OP_DISCARD, 16384 }, { RQ_OP_READ, 20480 },
	};
	static char buf[4096];
	struct rq_ctx *ctx = rq_ctx_create(0, NULL);
	struct rq_ctx *ctxs[1] = { ctx };
	struct rq_mode_config cfg = {
		.nr_cpus = 1, .lock_type = RQ_LOCK_TTAS, .lockstat = true, .lockdep = true,
		.cluster_size = 1, .ctxs = ctxs, .hw_queues = 1,
	};
	struct rq_bio bios[NR_BIOS];
	struct rq_dev dev;
	struct fake f;
	struct rq_queue q;
	uint64_t discarded = 0;
	unsigned int spins = 0;
	char msg[256];
	int ret;

	memset(&f, 0, sizeof(f));
	memset(&dev, 0, sizeof(dev));
	CHECK(ctx != NULL, "%s: rq_ctx_create", mode->name);
	rq_ctx_set_polled(ctx, mode, NULL, 0);
	rq_ctx_set_current(ctx);
	ended = errors = 0;
	rq_locks_reset();
	ret = mode->setup ? mode->setup(&cfg) : 0;
	CHECK(ret == 0, "%s: setup %d", mode->name, ret);
	dev.ops = &fake_ops;
	dev.priv = &f;
	dev.depth = 1;
	dev.size = 1u << 20;
	dev.nr_hw_queues = 1;
	dev.flags = RQ_DEV_DISCARD;
	snprintf(dev.name, sizeof(dev.name), "fake");
	ret = rq_queue_init(&q, mode, &dev, 16);
	CHECK(ret == 0, "%s: queue_init %d", mode->name, ret);
	for (int i = 0; i < NR_BIOS; i++) {
		memset(&bios[i], 0, sizeof(bios[i]));
		bios[i].op = plan[i].op;
		bios[i].offset = plan[i].off;
		bios[i].len = 4096;
		bios[i].buf = plan[i].op == RQ_OP_DISCARD ? NULL : buf;
		bios[i].end_io = end_io;
		CHECK(rq_submit_bio(&q, ctx, &bios[i]) == 0, "%s: bio %d refused", mode->name, i);
	}
	while ((ended < NR_BIOS || rq_ctx_pending(ctx)) && ++spins < 1000000) {
		rq_ctx_reap(ctx, UINT64_MAX, UINT32_MAX);
		rq_run_queue(&q, ctx);
	}
	CHECK(ended == NR_BIOS && errors == 0, "%s: %u of %d bios ended, %u errors", mode->name, ended,
	      NR_BIOS, errors);
	for (unsigned int i = 0; i < f.nr; i++) {
		const struct seen *s = &f.seen[i];

		CHECK(!s->mixed, "%s: request %u at %" PRIu64 " mixes ops", mode->name, i, s->offset);
		if (s->op == RQ_OP_DISCARD) {
			discarded += s->len;
			/* a discard range holds discards only: [4k,12k) or [16k,20k) */
			CHECK((s->offset >= 4096 && s->offset + s->len <= 12288) ||
			      (s->offset == 16384 && s->len == 4096),
			      "%s: discard [%" PRIu64 ",+%u) reaches a read or a write", mode->name,
			      s->offset, s->len);
		} else {
			CHECK(s->len == 4096 && s->segs == 1, "%s: a %s request merged: [%" PRIu64 ",+%u)",
			      mode->name, rq_op_name(s->op), s->offset, s->len);
		}
	}
	CHECK(discarded == 3 * 4096, "%s: %" PRIu64 " bytes discarded, 12288 submitted", mode->name, discarded);
	if (!strcmp(mode->name, "global") || !strcmp(mode->name, "per-queue")) {
		bool merged = false;

		for (unsigned int i = 0; i < f.nr; i++)
			merged |= f.seen[i].op == RQ_OP_DISCARD && f.seen[i].offset == 4096 &&
				  f.seen[i].len == 8192 && f.seen[i].segs == 2;
		CHECK(merged && q.merges_back + q.merges_front == 1,
		      "%s: the adjacent discards did not merge into [4k,12k) (merges %" PRIu64 ")",
		      mode->name, q.merges_back + q.merges_front);
	}
	ret = rq_queue_check_idle(&q, msg, sizeof(msg));
	CHECK(ret == 0, "%s: queue not idle: %s", mode->name, msg);
	CHECK(rq_lockdep_result(msg, sizeof(msg)) == 0, "%s: lockdep: %s", mode->name, msg);
	rq_queue_exit(&q);
	if (mode->teardown)
		mode->teardown();
	rq_locks_reset();
	rq_ctx_set_current(NULL);
	rq_ctx_destroy(ctx);
	printf("%s: %u requests for %d bios, discards never merged with reads or writes\n", mode->name,
	       f.nr, NR_BIOS);
}

/* The RAM store: a discard reads back zeros, the bytes around it are kept. */
static void store_discard(void)
{
	const uint64_t size = 64 * 4096;
	struct rq_store st;
	struct rq_request rq;
	char *data = malloc(size), *back = malloc(size);
	int ret;

	CHECK(data && back, "out of memory");
	if (!data || !back)
		return;
	ret = rq_store_mem(&st, size, "ram", stderr);
	CHECK(ret == 0, "rq_store_mem %d", ret);
	if (ret)
		return;
	memset(data, 0xa5, size);
	memset(&rq, 0, sizeof(rq));
	rq.op = RQ_OP_WRITE;
	rq.len = (uint32_t)size;
	rq.nr_segs = 1;
	rq.iov[0].iov_base = data;
	rq.iov[0].iov_len = size;
	CHECK(rq_store_rw(&st, &rq) == (int)size, "write");
	/* from inside page 1 to inside page 10: partial pages at both ends */
	rq.op = RQ_OP_DISCARD;
	rq.offset = 4096 + 512;
	rq.len = 9 * 4096;
	rq.nr_segs = 0;
	CHECK(rq_store_rw(&st, &rq) == (int)rq.len, "discard");
	rq.op = RQ_OP_READ;
	rq.offset = 0;
	rq.len = (uint32_t)size;
	rq.nr_segs = 1;
	rq.iov[0].iov_base = back;
	rq.iov[0].iov_len = size;
	CHECK(rq_store_rw(&st, &rq) == (int)size, "read");
	for (uint64_t i = 0; i < size; i++) {
		bool in = i >= 4096 + 512 && i < 4096 + 512 + 9 * 4096;

		if (back[i] != (in ? 0 : (char)0xa5)) {
			CHECK(0, "byte %" PRIu64 " is 0x%02x after the discard of [4608,+36864)", i,
			      (unsigned char)back[i]);
			break;
		}
	}
	rq_store_close(&st);
	free(data);
	free(back);
	printf("ram store: a discard reads back zeros, the bytes around it kept\n");
}

int main(void)
{
	store_discard();
	for (unsigned int i = 0; rq_queue_mode_at(i); i++)
		one_mode(rq_queue_mode_at(i));
	return failures ? 1 : 0;
}
