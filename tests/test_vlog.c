// SPDX-License-Identifier: MIT
/*
 * test_vlog - the verify log and the random map behind issue 14's fix.
 *
 * vlog: a later write drops every not-yet-read piece it overlaps (and
 * only those), pieces come back in log order, an in-flight piece holds
 * the reader (-EBUSY), a failed write is not read back, ids survive
 * compaction; then a randomized check against a byte-owner model: after
 * any sequence of writes, the pieces read back are exactly the writes
 * that still own all their bytes.
 * randmap: take stops at a taken block and at the end of the region.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/offsets.h"
#include "engine/verify.h"
#include "tests/helpers.h"

static void basics(void)
{
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t a, b, c, d;

	rq_vlog_init(&v);
	CHECK(!rq_vlog_add(&v, 0, 0, 65536, 0, false, &a), "add");
	CHECK(!rq_vlog_add(&v, 0, 65536, 4096, 1, false, &b), "add");
	CHECK(!rq_vlog_add(&v, 1, 8192, 4096, 2, false, &c), "add, other file");
	/* overlaps the first piece only (the second starts where it ends) */
	CHECK(!rq_vlog_add(&v, 0, 61440, 4096, 3, true, &d), "add");
	CHECK(v.dropped == 1, "dropped %llu, expected 1", (unsigned long long)v.dropped);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 1, "first left is seq 1, got %llu",
	      (unsigned long long)p.seq);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 2 && p.file == 1, "then the other file");
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == -EBUSY, "in flight holds the reader");
	CHECK(rq_vlog_pending(&v, rq_vlog_end(&v)), "still pending");
	rq_vlog_done(&v, d, true);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 3 && p.offset == 61440, "then seq 3");
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 0, "empty");
	CHECK(!rq_vlog_pending(&v, rq_vlog_end(&v)), "nothing pending");
	/* a failed write is not read back */
	CHECK(!rq_vlog_add(&v, 0, 0, 4096, 4, true, &a), "add");
	rq_vlog_done(&v, a, false);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 0, "failed write skipped");
	/* a piece read back is no longer in the tree: a later overlap drops nothing */
	CHECK(!rq_vlog_add(&v, 0, 0, 4096, 5, false, &a), "add");
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 5, "seq 5");
	CHECK(!rq_vlog_add(&v, 0, 0, 4096, 6, false, &a), "add");
	CHECK(v.dropped == 1, "dropped %llu, expected still 1: a piece read back is not dropped",
	      (unsigned long long)v.dropped);
	rq_vlog_free(&v);
}

/* ids stay valid across compaction; limit stops the reader */
static void compaction(void)
{
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t id, last = 0;

	rq_vlog_init(&v);
	for (uint64_t i = 0; i < 100000; i++) {
		CHECK(!rq_vlog_add(&v, 0, (i % 4096) * 4096, 4096, i, true, &id), "add %llu",
		      (unsigned long long)i);
		CHECK(id == i, "id %llu for write %llu", (unsigned long long)id, (unsigned long long)i);
		rq_vlog_done(&v, id, true);
		if (i % 64 == 63) {
			uint64_t limit = rq_vlog_end(&v);

			while (rq_vlog_next(&v, limit, &p) == 1) {
				CHECK(p.seq >= last, "order: %llu after %llu", (unsigned long long)p.seq,
				      (unsigned long long)last);
				last = p.seq;
			}
		}
	}
	CHECK(v.cap <= 8192, "the log grew to %llu entries: not compacted", (unsigned long long)v.cap);
	rq_vlog_free(&v);
}

/* random writes against a model that owns each 512-byte unit */
static void model(void)
{
	enum { UNITS = 512, WRITES = 20000 };
	static int64_t owner[UNITS];
	static uint64_t off[WRITES], len[WRITES];
	uint64_t rng = 88172645463325252ULL;
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t id, got = 0, want = 0;
	static uint8_t seen[WRITES];

	rq_vlog_init(&v);
	for (int i = 0; i < UNITS; i++)
		owner[i] = -1;
	for (uint64_t i = 0; i < WRITES; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		off[i] = rng % UNITS;
		len[i] = 1 + (rng >> 20) % 32;
		if (off[i] + len[i] > UNITS)
			len[i] = UNITS - off[i];
		CHECK(!rq_vlog_add(&v, 0, off[i] * 512, (uint32_t)(len[i] * 512), i, false, &id), "add");
		for (uint64_t u = off[i]; u < off[i] + len[i]; u++)
			owner[u] = (int64_t)i;
	}
	/* a write survives when it still owns every unit it wrote */
	for (uint64_t i = 0; i < WRITES; i++) {
		bool whole = true;

		for (uint64_t u = off[i]; u < off[i] + len[i]; u++)
			whole &= owner[u] == (int64_t)i;
		want += whole;
		seen[i] = whole ? 1 : 0;
	}
	while (rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1) {
		got++;
		CHECK(seen[p.seq] == 1, "piece seq %llu read back but overwritten", (unsigned long long)p.seq);
		seen[p.seq] = 2;
	}
	CHECK(got == want, "read back %llu pieces, the model keeps %llu", (unsigned long long)got,
	      (unsigned long long)want);
	rq_vlog_free(&v);
}

static void randmap(void)
{
	struct rq_randmap m;

	CHECK(!rq_randmap_init(&m, 100), "init");
	CHECK(rq_randmap_take(&m, 10, 16) == 16, "free run");
	CHECK(rq_randmap_take(&m, 5, 16) == 5, "stops at a taken block");
	CHECK(rq_randmap_take(&m, 10, 1) == 0, "taken start");
	CHECK(rq_randmap_take(&m, 95, 16) == 5, "stops at the end");
	CHECK(m.nr_set == 26, "nr_set %llu", (unsigned long long)m.nr_set);
	CHECK(rq_randmap_busy(&m, 99) && !rq_randmap_busy(&m, 0), "busy");
	rq_randmap_clear(&m);
	CHECK(m.nr_set == 0 && !rq_randmap_busy(&m, 10), "cleared");
	rq_randmap_free(&m);
}

int main(void)
{
	basics();
	compaction();
	model();
	randmap();
	if (failures) {
		fprintf(stderr, "test_vlog: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_vlog: ok\n");
	return 0;
}
