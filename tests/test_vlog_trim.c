// SPDX-License-Identifier: MIT
/*
 * test_vlog_trim - verify/trim's pieces of the verify log (vlog.c) and the
 * zeros check (verify.c), which tests/test_vtrim.sh drives end to end:
 *  - the trim list is the log's order over the marked pieces; a piece
 *    whose write is in flight holds it (-EBUSY), and its trim holds the
 *    reader until it is back;
 *  - a mark leaves with its piece: read back, overwritten, failed;
 *  - trim_verify_zero: the piece is read back flagged TRIMMED; without it
 *    the piece leaves the count at once and the log when the trim is back;
 *  - a failed trim is not read back; an undone trim is first again;
 *  - the counts (live: fio's io_hist_len, trims: its trim_entries) hold
 *    across the log's compaction;
 *  - a trimmed block that does not read back as zeros fails, naming the
 *    first byte that is not zero: a device whose discard leaves the data
 *    (which no device here does) is caught.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/verify.h"
#include "tests/helpers.h"

static void order_and_holds(void)
{
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t id[4], t;

	rq_vlog_init(&v);
	for (int i = 0; i < 4; i++)
		CHECK(!rq_vlog_add(&v, 0, (uint64_t)i * 4096, 4096, (uint64_t)i, true, &id[i]), "add %d", i);
	rq_vlog_mark_trim(&v, id[1]);
	rq_vlog_mark_trim(&v, id[3]);
	CHECK(v.trims == 2 && v.live == 4, "trims %llu live %llu, expected 2 and 4",
	      (unsigned long long)v.trims, (unsigned long long)v.live);
	CHECK(rq_vlog_trim_next(&v, true, &p, &t) == -EBUSY, "a piece whose write is in flight is trimmed");
	for (int i = 0; i < 4; i++)
		rq_vlog_done(&v, id[i], true);
	CHECK(rq_vlog_trim_next(&v, true, &p, &t) == 1 && t == id[1] && p.offset == 4096,
	      "the oldest mark first: got id %llu", (unsigned long long)t);
	CHECK(v.trims == 1 && v.live == 4, "after the first trim: trims %llu live %llu",
	      (unsigned long long)v.trims, (unsigned long long)v.live);
	/* the reader takes piece 0, then waits for piece 1's trim */
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 0, "piece 0 read back");
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == -EBUSY, "a piece being trimmed was read back");
	rq_vlog_trim_done(&v, t, true, true);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 1 && (p.flags & RQ_VPIECE_TRIMMED),
	      "the trimmed piece is read back flagged TRIMMED");
	/* piece 3's mark goes when the reader takes it first */
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 2 && !(p.flags & RQ_VPIECE_TRIMMED),
	      "piece 2 is not trimmed");
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 3 && !(p.flags & RQ_VPIECE_TRIMMED),
	      "piece 3, read before its trim, reads as written");
	CHECK(v.trims == 0 && v.live == 0, "all read: trims %llu live %llu", (unsigned long long)v.trims,
	      (unsigned long long)v.live);
	CHECK(rq_vlog_trim_next(&v, true, &p, &t) == 0, "nothing left to trim");
	rq_vlog_free(&v);
}

static void marks_leave(void)
{
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t a, b, c, t;

	rq_vlog_init(&v);
	CHECK(!rq_vlog_add(&v, 0, 0, 8192, 0, false, &a), "add");
	CHECK(!rq_vlog_add(&v, 0, 8192, 4096, 1, true, &b), "add");
	rq_vlog_mark_trim(&v, a);
	rq_vlog_mark_trim(&v, b);
	/* a later write over half of piece a drops it and its mark */
	CHECK(!rq_vlog_add(&v, 0, 4096, 4096, 2, false, &c), "add");
	CHECK(v.trims == 1 && v.live == 2, "overwritten: trims %llu live %llu",
	      (unsigned long long)v.trims, (unsigned long long)v.live);
	/* piece b's write fails: neither read back nor trimmed */
	rq_vlog_done(&v, b, false);
	CHECK(v.trims == 0 && v.live == 1, "failed write: trims %llu live %llu",
	      (unsigned long long)v.trims, (unsigned long long)v.live);
	CHECK(rq_vlog_trim_next(&v, true, &p, &t) == 0, "a dropped piece was trimmed");
	rq_vlog_mark_trim(&v, a);
	CHECK(v.trims == 0, "a dropped piece was marked");
	rq_vlog_free(&v);
}

static void without_zero(void)
{
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t a, b, t;

	rq_vlog_init(&v);
	CHECK(!rq_vlog_add(&v, 0, 0, 4096, 0, false, &a), "add");
	CHECK(!rq_vlog_add(&v, 0, 4096, 4096, 1, false, &b), "add");
	rq_vlog_mark_trim(&v, a);
	CHECK(rq_vlog_trim_next(&v, false, &p, &t) == 1 && t == a, "trim piece a");
	CHECK(v.live == 1, "trim_verify_zero=0: the piece leaves the count at once (live %llu)",
	      (unsigned long long)v.live);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == -EBUSY, "the reader passed a trim in flight");
	rq_vlog_trim_done(&v, t, false, true);
	CHECK(v.live == 1, "live %llu after the trim, expected 1", (unsigned long long)v.live);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 1, "only piece b is read back");
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 0, "nothing else");
	CHECK(v.live == 0, "live %llu at the end", (unsigned long long)v.live);
	rq_vlog_free(&v);
}

static void failed_and_undone(void)
{
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t a, b, t;

	rq_vlog_init(&v);
	CHECK(!rq_vlog_add(&v, 0, 0, 4096, 0, false, &a), "add");
	CHECK(!rq_vlog_add(&v, 0, 4096, 4096, 1, false, &b), "add");
	rq_vlog_mark_trim(&v, a);
	rq_vlog_mark_trim(&v, b);
	/* the queue refused the trim: it is marked and first again */
	CHECK(rq_vlog_trim_next(&v, true, &p, &t) == 1 && t == a, "trim a");
	rq_vlog_trim_undo(&v, t, true);
	CHECK(v.trims == 2 && v.live == 2, "undone: trims %llu live %llu", (unsigned long long)v.trims,
	      (unsigned long long)v.live);
	CHECK(rq_vlog_trim_next(&v, true, &p, &t) == 1 && t == a, "a is first again");
	/* the trim failed: what a holds is unknown */
	rq_vlog_trim_done(&v, t, true, false);
	CHECK(rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1 && p.seq == 1, "a failed trim's piece was read back");
	CHECK(v.trims == 0 && v.live == 0, "end: trims %llu live %llu", (unsigned long long)v.trims,
	      (unsigned long long)v.live);
	/* undo without trim_verify_zero puts the piece back in the count */
	CHECK(!rq_vlog_add(&v, 0, 0, 4096, 2, false, &a), "add");
	rq_vlog_mark_trim(&v, a);
	CHECK(rq_vlog_trim_next(&v, false, &p, &t) == 1 && v.live == 0, "trim without zero");
	rq_vlog_trim_undo(&v, t, false);
	CHECK(v.live == 1 && v.trims == 1, "undone: live %llu trims %llu", (unsigned long long)v.live,
	      (unsigned long long)v.trims);
	rq_vlog_free(&v);
}

/* every third write marked, trims and reads in turn across compactions: the counts hold */
static void counts_across_compaction(void)
{
	struct rq_vlog v;
	struct rq_vpiece p;
	uint64_t id, t, marked = 0, trimmed = 0, zeros = 0, read = 0;

	rq_vlog_init(&v);
	for (uint64_t i = 0; i < 60000; i++) {
		CHECK(!rq_vlog_add(&v, 0, (i % 8192) * 4096, 4096, i, false, &id), "add");
		if (i % 3 == 0) {
			rq_vlog_mark_trim(&v, id);
			marked++;
		}
		if (i % 7 == 0 && rq_vlog_trim_next(&v, true, &p, &t) == 1) {
			rq_vlog_trim_done(&v, t, true, true);
			trimmed++;
		}
		if (i % 5 == 4) {
			while (rq_vlog_next(&v, rq_vlog_end(&v), &p) == 1) {
				read++;
				zeros += !!(p.flags & RQ_VPIECE_TRIMMED);
			}
		}
		CHECK(v.live == rq_vlog_end(&v) - rq_vlog_head(&v), "live %llu, pieces left %llu at %llu",
		      (unsigned long long)v.live, (unsigned long long)(rq_vlog_end(&v) - rq_vlog_head(&v)),
		      (unsigned long long)i);
	}
	CHECK(v.cap <= 8192, "the log grew to %llu: not compacted", (unsigned long long)v.cap);
	CHECK(zeros == trimmed, "%llu pieces read back as trimmed, %llu trimmed", (unsigned long long)zeros,
	      (unsigned long long)trimmed);
	CHECK(trimmed > 1000 && trimmed < marked, "trimmed %llu of %llu marked", (unsigned long long)trimmed,
	      (unsigned long long)marked);
	printf("compaction: %llu writes, %llu marked, %llu trimmed, %llu read back\n", 60000ULL,
	       (unsigned long long)marked, (unsigned long long)trimmed, (unsigned long long)read);
	rq_vlog_free(&v);
}

static void zeros(void)
{
	char msg[256];
	unsigned char *b = calloc(1, 65536);

	CHECK(b != NULL, "calloc");
	if (!b)
		return;
	CHECK(rq_verify_check_zero(b, 1 << 20, 65536, msg, sizeof(msg)) == 0, "a zero block fails: %s", msg);
	b[40000] = 0x5a;
	CHECK(rq_verify_check_zero(b, 1 << 20, 65536, msg, sizeof(msg)) == -EILSEQ,
	      "a block that kept data passes as trimmed");
	CHECK(strstr(msg, "byte 40000") && strstr(msg, "0x5a") && strstr(msg, "offset 1048576"),
	      "the message names neither the byte nor the offset: %s", msg);
	printf("zeros: %s\n", msg);
	free(b);
}

int main(void)
{
	order_and_holds();
	marks_leave();
	without_zero();
	failed_and_undone();
	counts_across_compaction();
	zeros();
	if (failures) {
		fprintf(stderr, "test_vlog_trim: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_vlog_trim: ok\n");
	return 0;
}
