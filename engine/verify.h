/* SPDX-License-Identifier: MIT */
/*
 * verify.h - verification: the block checksums, headers and their checks
 * (verify.c), the verify log of writes to read back (vlog.c), and the
 * structs of verify state files (vstate.c; experimental_verify's snapshot
 * is the clone's, in runner.h).  Included by verify.c, vlog.c, vstate.c,
 * the runner's files that verify (runner.h, clone.c, setup.c, worker.c,
 * run.c) and the tests test_verify.c and test_vlog.c.
 */
#ifndef RQ_ENGINE_VERIFY_H
#define RQ_ENGINE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rq_job;

#define RQ_VHDR_LEN 64

uint32_t rq_crc32c(const void *buf, size_t len);
void rq_md5(const void *buf, size_t len, uint8_t out[16]);
/* Fill a block to be written so that rq_verify_check() can prove it later. */
void rq_verify_fill(const struct rq_job *job, void *buf, uint64_t offset, uint32_t len,
		    uint64_t seed, uint64_t seq);
/* 0 if the block read at @offset is the one written there; else -EILSEQ and @msg. */
int rq_verify_check(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
		    char *msg, size_t msglen);
/*
 * The same, and the header must carry write number @seq: a block that is
 * whole but older than the last write logged there (a lost write) fails.
 * With @stream non-NULL, only a block written from the stream seeded
 * *@stream (rq_verify_fill()'s seed is *@stream ^ seq) is judged: another
 * stream numbers its writes its own way (verify_only after another job).
 */
int rq_verify_check_seq(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
			uint64_t seq, const uint64_t *stream, char *msg, size_t msglen);
/*
 * The same for a replay that reads back before it has drawn every write
 * (experimental_verify in batches): a whole block of stream *@stream
 * carrying a write number above @seq and below @newer_below was written
 * later in the same sequence, where the replay checks it, and passes here.
 */
int rq_verify_check_replay(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
			   uint64_t seq, const uint64_t *stream, uint64_t newer_below, char *msg,
			   size_t msglen);
/* 0 if a trimmed block reads back as zeros; else -EILSEQ and @msg (fio's verify_trimmed_io_u()). */
int rq_verify_check_zero(const void *buf, uint64_t offset, uint32_t len, char *msg, size_t msglen);

/*
 * The verify log (vlog.c): writes to read back, in log order, a piece
 * overlapped by a later write dropped as fio drops it.  Ids are stable
 * across the log's compaction.
 */
#define RQ_VPIECE_INFLIGHT 0x1		/* the write (or its trim) has not completed */
#define RQ_VPIECE_DROPPED 0x2		/* overwritten later, or the write failed */
#define RQ_VPIECE_TRIM 0x4		/* to be trimmed (trim_percentage): on the trim list */
#define RQ_VPIECE_TRIMMED 0x8		/* trimmed: reads back as zeros */

struct rq_vpiece {
	uint64_t offset;
	uint64_t seq;			/* the write's number in the clone: its header's seq */
	uint32_t len;
	uint32_t file;			/* index in the clone's files */
	uint32_t flags;			/* RQ_VPIECE_* */
	uint32_t prio;			/* treap */
	int64_t left, right;		/* treap links: array indices, -1 = none */
};

struct rq_vlog {
	struct rq_vpiece *p;
	uint64_t nr, cap;		/* pieces in p[] */
	uint64_t head;			/* p[head] is the next to read back */
	uint64_t base;			/* id of p[0] */
	int64_t root;
	uint64_t rng;
	uint64_t dropped;		/* pieces overwritten before they were read back */
	/*
	 * verify/trim: pieces logged, neither read back nor dropped (fio's
	 * io_hist_len); pieces marked RQ_VPIECE_TRIM (fio's trim_entries),
	 * found in log order from id trim_cur on
	 */
	uint64_t live, trims, trim_cur;
};

void rq_vlog_init(struct rq_vlog *v);
void rq_vlog_free(struct rq_vlog *v);
/* Log a write (dropping the pieces it overlaps); *@id names it. 0 or -ENOMEM. */
int rq_vlog_add(struct rq_vlog *v, uint32_t file, uint64_t offset, uint32_t len, uint64_t seq,
		bool inflight, uint64_t *id);
/* The write @id completed; @ok false: it failed and is not read back. */
void rq_vlog_done(struct rq_vlog *v, uint64_t id, bool ok);
/* Id the next rq_vlog_add() returns: "everything logged so far" as a limit. */
static inline uint64_t rq_vlog_end(const struct rq_vlog *v)
{
	return v->base + v->nr;
}
/* Ids below this were read back or dropped. */
static inline uint64_t rq_vlog_head(const struct rq_vlog *v)
{
	return v->base + v->head;
}
/*
 * The next piece with id < @limit to read back, taken off the log: 1 and
 * *@out, 0 when none is left, -EBUSY when the next one's write is still in
 * flight (the caller retries after a completion).
 */
int rq_vlog_next(struct rq_vlog *v, uint64_t limit, struct rq_vpiece *out);
/* Is a piece with id < @limit left to read back (in flight or not)? */
bool rq_vlog_pending(struct rq_vlog *v, uint64_t limit);
/*
 * verify/trim (fio's trim list): mark piece @id, just logged, to be
 * trimmed.  The mark goes when the piece is trimmed, read back or dropped.
 */
void rq_vlog_mark_trim(struct rq_vlog *v, uint64_t id);
/*
 * The oldest marked piece, taken off the trim list and in flight until
 * rq_vlog_trim_done(): 1 with it in *@out and its id in *@id, 0 when
 * none is marked, -EBUSY when its write is still in flight.  With @zero
 * (trim_verify_zero) it is read back later, as zeros; else it is not.
 * The same @zero goes to rq_vlog_trim_done() or rq_vlog_trim_undo().
 */
int rq_vlog_trim_next(struct rq_vlog *v, bool zero, struct rq_vpiece *out, uint64_t *id);
/* The trim of piece @id is back; @ok false: what it holds is unknown, not read back. */
void rq_vlog_trim_done(struct rq_vlog *v, uint64_t id, bool zero, bool ok);
/* The trim of piece @id was never issued: it is marked and first on the trim list again. */
void rq_vlog_trim_undo(struct rq_vlog *v, uint64_t id, bool zero);

/*
 * Verify state files (vstate.c): a writing clone's recent writes, kept to
 * say at the end how far its writes got (verify_state_save), and the state
 * a later clone loads (verify_state_load) to check only those.
 */
struct rq_vtrack_w {
	uint64_t offset;
	uint32_t file;
	uint8_t st;			/* VT_* in vstate.c */
};

struct rq_vtrack {
	struct rq_vtrack_w *w;		/* writes first..first+(nr-head)-1 in w[head..nr) */
	uint64_t first, head, nr, cap;
	bool on;
};

struct rq_vstate_comp {
	uint64_t offset;
	uint32_t file;
};

struct rq_vstate {
	char path[4096 + 64];
	uint64_t numberio;		/* writes the writer issued */
	uint64_t window;		/* of which the last this many completed only if in comps[] */
	struct rq_vstate_comp *comps;	/* sorted by (file, offset) */
	uint64_t nr_comps;
};

#endif
