// SPDX-License-Identifier: MIT
/*
 * vlog.c - the verify log: the writes a clone will read back, with overlap
 * handled as fio's verify log handles it.
 *
 * A write is logged when it is issued (as fio's log_io_piece() is called
 * before the I/O is queued), marked in flight until it completes.  If it
 * overlaps a piece logged earlier and not yet read back, that piece is
 * dropped: the device no longer holds it whole, and its header and digest
 * cover the whole block, so no part of it can be checked (fio's
 * log_io_piece() erases an overlapped io_piece from its rb-tree the same
 * way).  The engine never issues a write that overlaps a write or a
 * verify read still in flight, so "logged later" is "landed later" and the
 * pieces left are exactly what the device holds.
 *
 * Pieces live in an array in log order, read back from its head; the ones
 * not yet read back are also in a treap keyed by (file, offset) to find
 * what a new write overlaps in O(log n).  Pieces in the treap never overlap
 * each other, so the pieces a write [off, end) overlaps are found by taking
 * the last piece starting before @end while it still ends after @off.
 * Cost: 48 bytes a piece; the array is compacted once half of it has been
 * read back, so memory follows the backlog, not the run's length.
 *
 * verify/trim (trim_percentage): a piece marked RQ_VPIECE_TRIM is on the
 * trim list, which is the log's order restricted to marked pieces (fio
 * keeps a list beside its verify list; the marks make it free here).
 * Trimmed, a piece reads back as zeros (RQ_VPIECE_TRIMMED).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/verify.h"

#define NIL (-1)

static struct rq_vpiece *P(struct rq_vlog *v, int64_t i)
{
	return &v->p[i];
}

/* (file, offset) order */
static bool before(const struct rq_vpiece *a, uint32_t file, uint64_t off)
{
	return a->file < file || (a->file == file && a->offset < off);
}

/* Split @t into pieces before (file, off) and the rest. */
static void split(struct rq_vlog *v, int64_t t, uint32_t file, uint64_t off, int64_t *l, int64_t *r)
{
	if (t == NIL) {
		*l = *r = NIL;
		return;
	}
	if (before(P(v, t), file, off)) {
		split(v, P(v, t)->right, file, off, &P(v, t)->right, r);
		*l = t;
	} else {
		split(v, P(v, t)->left, file, off, l, &P(v, t)->left);
		*r = t;
	}
}

static int64_t merge(struct rq_vlog *v, int64_t a, int64_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (P(v, a)->prio > P(v, b)->prio) {
		P(v, a)->right = merge(v, P(v, a)->right, b);
		return a;
	}
	P(v, b)->left = merge(v, a, P(v, b)->left);
	return b;
}

static void tree_insert(struct rq_vlog *v, int64_t i)
{
	int64_t l, r;

	v->rng ^= v->rng << 13;
	v->rng ^= v->rng >> 7;
	v->rng ^= v->rng << 17;
	P(v, i)->prio = (uint32_t)v->rng;
	P(v, i)->left = P(v, i)->right = NIL;
	split(v, v->root, P(v, i)->file, P(v, i)->offset, &l, &r);
	v->root = merge(v, merge(v, l, i), r);
}

/* Remove the piece keyed like @i (keys are unique: pieces do not overlap). */
static void tree_remove(struct rq_vlog *v, int64_t i)
{
	int64_t *link = &v->root;

	while (*link != NIL && *link != i)
		link = before(P(v, i), P(v, *link)->file, P(v, *link)->offset) ?
		       &P(v, *link)->left : &P(v, *link)->right;
	if (*link == i)
		*link = merge(v, P(v, i)->left, P(v, i)->right);
}

/* The last piece in the treap that starts before (file, off), or NIL. */
static int64_t floor_before(struct rq_vlog *v, uint32_t file, uint64_t off)
{
	int64_t t = v->root, best = NIL;

	while (t != NIL) {
		if (before(P(v, t), file, off)) {
			best = t;
			t = P(v, t)->right;
		} else {
			t = P(v, t)->left;
		}
	}
	return best;
}

void rq_vlog_init(struct rq_vlog *v)
{
	memset(v, 0, sizeof(*v));
	v->root = NIL;
	v->rng = 0x2545f4914f6cdd1dULL;
}

void rq_vlog_free(struct rq_vlog *v)
{
	free(v->p);
	rq_vlog_init(v);
}

/* A piece leaves the trim list (trimmed, read back or dropped): fio's remove_trim_entry(). */
static void untrim(struct rq_vlog *v, struct rq_vpiece *p)
{
	if (p->flags & RQ_VPIECE_TRIM) {
		p->flags &= ~RQ_VPIECE_TRIM;
		v->trims--;
	}
}

/* Piece @i is no longer read back: out of the treap and of the trim list. */
static void drop(struct rq_vlog *v, int64_t i)
{
	tree_remove(v, i);
	untrim(v, P(v, i));
	P(v, i)->flags |= RQ_VPIECE_DROPPED;
	v->live--;
}

/* Move the pieces not yet read back to the front; ids stay valid (base). */
static void compact(struct rq_vlog *v)
{
	uint64_t k = v->head;

	if (!k)
		return;
	memmove(v->p, v->p + k, (size_t)(v->nr - k) * sizeof(*v->p));
	v->nr -= k;
	v->head = 0;
	v->base += k;
	for (uint64_t i = 0; i < v->nr; i++) {
		if (v->p[i].left != NIL)
			v->p[i].left -= (int64_t)k;
		if (v->p[i].right != NIL)
			v->p[i].right -= (int64_t)k;
	}
	if (v->root != NIL)
		v->root -= (int64_t)k;
}

int rq_vlog_add(struct rq_vlog *v, uint32_t file, uint64_t offset, uint32_t len, uint64_t seq,
		bool inflight, uint64_t *id)
{
	int64_t i;

	/* drop what this write overwrites (not yet read back: in the treap) */
	for (;;) {
		int64_t t = floor_before(v, file, offset + len);

		if (t == NIL || P(v, t)->file != file || P(v, t)->offset + P(v, t)->len <= offset)
			break;
		drop(v, t);
		v->dropped++;
	}
	if (v->head >= 1024 && v->head * 2 >= v->nr)
		compact(v);
	if (v->nr == v->cap) {
		uint64_t cap = v->cap ? v->cap * 2 : 1024;
		struct rq_vpiece *p = realloc(v->p, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->p = p;
		v->cap = cap;
	}
	i = (int64_t)v->nr++;
	memset(P(v, i), 0, sizeof(*P(v, i)));
	P(v, i)->offset = offset;
	P(v, i)->len = len;
	P(v, i)->file = file;
	P(v, i)->seq = seq;
	P(v, i)->flags = inflight ? RQ_VPIECE_INFLIGHT : 0;
	tree_insert(v, i);
	v->live++;
	*id = v->base + (uint64_t)i;
	return 0;
}

void rq_vlog_done(struct rq_vlog *v, uint64_t id, bool ok)
{
	struct rq_vpiece *p;

	if (id < v->base + v->head || id >= v->base + v->nr)
		return;		/* already read back or dropped and compacted away */
	p = P(v, (int64_t)(id - v->base));
	p->flags &= ~RQ_VPIECE_INFLIGHT;
	if (!ok && !(p->flags & RQ_VPIECE_DROPPED)) {
		/* a failed write proves nothing about the device: not read back (fio drops it too) */
		drop(v, (int64_t)(id - v->base));
	}
}

int rq_vlog_next(struct rq_vlog *v, uint64_t limit, struct rq_vpiece *out)
{
	while (v->base + v->head < limit && v->head < v->nr) {
		struct rq_vpiece *p = P(v, (int64_t)v->head);

		if (p->flags & RQ_VPIECE_DROPPED) {
			v->head++;
			continue;
		}
		if (p->flags & RQ_VPIECE_INFLIGHT)
			return -EBUSY;
		tree_remove(v, (int64_t)v->head);
		untrim(v, p);
		v->live--;
		*out = *p;
		v->head++;
		return 1;
	}
	return 0;
}

bool rq_vlog_pending(struct rq_vlog *v, uint64_t limit)
{
	while (v->head < v->nr && (v->p[v->head].flags & RQ_VPIECE_DROPPED))
		v->head++;
	return v->base + v->head < limit && v->head < v->nr;
}

void rq_vlog_mark_trim(struct rq_vlog *v, uint64_t id)
{
	struct rq_vpiece *p;

	if (id < v->base + v->head || id >= v->base + v->nr)
		return;
	p = P(v, (int64_t)(id - v->base));
	if (!(p->flags & (RQ_VPIECE_DROPPED | RQ_VPIECE_TRIM))) {
		p->flags |= RQ_VPIECE_TRIM;
		v->trims++;
	}
}

/*
 * Marks are set on the newest piece and cleared as pieces leave, so every
 * marked piece lies at or past trim_cur: the scan only moves forward
 * (amortized O(1) a trim) and stops at the first mark, as fio takes its
 * trim list's head.  Unlike fio, a piece whose write is still in flight
 * is waited for: a discard racing its write could land either side of it.
 * The piece stays in the log, in flight, until its trim is back; without
 * @zero it leaves the count of pieces at once, as fio takes it off its
 * verify list, and the log when the trim is back.
 */
int rq_vlog_trim_next(struct rq_vlog *v, bool zero, struct rq_vpiece *out, uint64_t *id)
{
	uint64_t i = v->trim_cur > v->base + v->head ? v->trim_cur - v->base : v->head;

	if (!v->trims)
		return 0;
	for (; i < v->nr; i++) {
		struct rq_vpiece *p = P(v, (int64_t)i);

		if (!(p->flags & RQ_VPIECE_TRIM))
			continue;
		v->trim_cur = v->base + i;
		if (p->flags & RQ_VPIECE_INFLIGHT)
			return -EBUSY;
		untrim(v, p);
		p->flags |= RQ_VPIECE_TRIMMED | RQ_VPIECE_INFLIGHT;
		if (!zero)
			v->live--;
		*out = *p;
		*id = v->base + i;
		v->trim_cur++;
		return 1;
	}
	v->trim_cur = v->base + v->nr;
	return 0;
}

void rq_vlog_trim_done(struct rq_vlog *v, uint64_t id, bool zero, bool ok)
{
	struct rq_vpiece *p;

	if (id < v->base + v->head || id >= v->base + v->nr)
		return;
	p = P(v, (int64_t)(id - v->base));
	p->flags &= ~RQ_VPIECE_INFLIGHT;
	if (zero && ok)
		return;
	/* not read back: trim_verify_zero=0, or a failed trim left neither the data nor zeros */
	p->flags &= ~RQ_VPIECE_TRIMMED;
	if (!zero)
		v->live++;	/* left the count at the pick already */
	drop(v, (int64_t)(id - v->base));
}

void rq_vlog_trim_undo(struct rq_vlog *v, uint64_t id, bool zero)
{
	struct rq_vpiece *p;

	if (id < v->base + v->head || id >= v->base + v->nr)
		return;
	p = P(v, (int64_t)(id - v->base));
	p->flags &= ~(RQ_VPIECE_TRIMMED | RQ_VPIECE_INFLIGHT);
	p->flags |= RQ_VPIECE_TRIM;
	v->trims++;
	if (!zero)
		v->live++;
	if (id < v->trim_cur)
		v->trim_cur = id;
}
