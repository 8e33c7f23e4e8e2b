/* SPDX-License-Identifier: MIT */
/*
 * engine_internal.h - shared inside engine/ only: verification and the
 * offset generators.
 */
#ifndef RQ_ENGINE_INTERNAL_H
#define RQ_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/job.h"

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
 */
int rq_verify_check_seq(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
			uint64_t seq, char *msg, size_t msglen);

/*
 * The verify log (vlog.c): writes to read back, in log order, a piece
 * overlapped by a later write dropped as fio drops it.  Ids are stable
 * across the log's compaction.
 */
#define RQ_VPIECE_INFLIGHT 0x1		/* the write has not completed */
#define RQ_VPIECE_DROPPED 0x2		/* overwritten later, or the write failed */

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

/* The random map (randmap.c): blocks of a region one random pass has touched. */
struct rq_randmap {
	uint64_t *bits;
	uint64_t nblocks, nr_set;
};

int rq_randmap_init(struct rq_randmap *m, uint64_t nblocks);
void rq_randmap_free(struct rq_randmap *m);
void rq_randmap_clear(struct rq_randmap *m);
bool rq_randmap_busy(const struct rq_randmap *m, uint64_t b);
/* Mark up to @n free blocks from @b on, stopping at a busy one; returns how many. */
uint64_t rq_randmap_take(struct rq_randmap *m, uint64_t b, uint64_t n);

/*
 * Non-uniform block choice (random_distribution): zipf, pareto, normal.
 * rq_dist_init() precomputes what the distribution needs for @nblocks;
 * rq_dist_next() returns a block index in [0, nblocks), the hot blocks
 * scattered over the region by a bijection so they are not all at its
 * start (fio scatters them too).
 */
struct rq_dist {
	enum rq_rand_dist kind;
	uint64_t nblocks;
	double param;
	/* zipf (Gray et al., "Quickly generating billion-record synthetic databases") */
	double zetan, zeta2, alpha, eta;
	uint64_t zipf_n;		/* items the zeta sums run over (capped) */
	uint64_t scatter;		/* odd multiplier coprime with nblocks */
	double center;			/* < 0: scatter; else shift the hot spot there */
};

/* @center: where the hot spot sits, 0..1 of the region, or < 0 for fio's scattering */
int rq_dist_init(struct rq_dist *d, enum rq_rand_dist kind, double param, uint64_t nblocks,
		 double center);
uint64_t rq_dist_next(const struct rq_dist *d, uint64_t *rng);

/* splitmix64 step: the engine's one PRNG, seeded per clone */
static inline uint64_t rq_rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform double in [0, 1) */
static inline double rq_rng_unit(uint64_t *s)
{
	return (double)(rq_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
