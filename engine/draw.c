// SPDX-License-Identifier: MIT
/*
 * draw.c - where a clone's next random I/O goes and how long it is, as
 * fio 3.33 draws them: the permutation or random map of a pass (one unit
 * per direction, as fio's, where the directions' sizes differ),
 * random_distribution (zoned here; zipf, pareto and normal in dist.c),
 * blockalign, rw=rand...:N's sequential runs; and sizes (bs, bsrange,
 * bssplit, fitted to the region).  clone.c places the I/O with these; the
 * plain path's permutation (pass_next()) is inline in runner.h.
 */
#include <stdbool.h>
#include <stdint.h>

#include "engine/offsets.h"
#include "engine/runner.h"

static uint64_t random_offset_bs(struct clone *c, struct clone_file *f, uint32_t *bsp, int op);

/*
 * Mixed sizes under the random map, as fio's __get_next_rand_offset(),
 * get_next_offset(), get_next_buflen() and mark_random_map(): a block is
 * drawn in @op's own unit (fio's ba: blockalign, else the direction's
 * smallest size) and looked up in the map by that number, whose blocks
 * are the smallest size of all directions; a covered one gives the next
 * free one (axmap_next_free()), so a free run is taken from its start.
 * Its offset is that number of @op's units; it is marked in @op's
 * smallest size, shortening the I/O to the free run.  Where the
 * directions' sizes differ the units disagree (fio's, in 3.33 and since):
 * a 1 MiB write whose number a 64 KiB read covered takes the next free
 * one, far past the region, and fio's file is done (Debian's
 * cmdprio-bssplit ends after 21 to 125 of its 128 MiB).  UINT64_MAX: the
 * file is done (the map holds no free block from there, the offset is
 * past the region, or no size fits).
 */
static uint64_t map_offset(struct clone *c, struct clone_file *f, int op, uint64_t base, uint64_t end,
			   uint32_t *bsp)
{
	const struct rq_job *job = c->job;
	const uint32_t mb = c->dir_min_bs[op] ? c->dir_min_bs[op] : c->min_bs;
	const uint32_t ba = job->blockalign[op] ? job->blockalign[op] : mb;
	uint64_t region = end - base, lastb, b, off, want, got;

	lastb = (region - (mb > ba ? mb - ba : 0)) / ba;
	if (!lastb)
		return UINT64_MAX;
	b = rq_rng_next(&c->rng) % lastb;
	if (b >= f->map.nblocks || rq_randmap_busy(&f->map, b))
		b = rq_randmap_next_free(&f->map, b < f->map.nblocks ? b : 0);
	if (b == UINT64_MAX || b * ba >= region)
		return UINT64_MAX;
	off = base + b * ba;
	/* fio's get_next_buflen() fits the size to the region from the offset */
	if (mixed_bs(job, op))
		*bsp = eng_pick_bs_fit(c, op, end - off);
	if (!*bsp || off + *bsp > end)
		return UINT64_MAX;
	if (__builtin_expect(c->zbd.on, 0))
		return off;	/* zonemode=zbd marks it once the zone gave its length (zbd.c mark_map()) */
	want = (*bsp + mb - 1) / mb;
	got = rq_randmap_take(&f->map, (off - base) / mb, want);
	if (got && got < want)
		*bsp = (uint32_t)(got * mb);
	return off;
}

/*
 * random_distribution=zoned|zoned_abs, as fio's __get_next_rand_offset_zoned:
 * a zone chosen by its share of the I/Os (a draw in 1..100 against the
 * running sum), then a block drawn evenly inside it.  Zones are laid end
 * to end from the region's start and counted in blocks, as fio counts
 * them, so every offset is a multiple of the block size (a percentage of
 * the region in bytes is not: issue 26's EINVAL under direct=1); a zone
 * past the region's end is cut.
 */
static uint64_t zoned_offset(struct clone *c, const struct clone_file *f, int op, uint32_t bs)
{
	const struct rq_job *job = c->job;
	int d = job->nr_zones[op] ? op : !op;
	const bool abs = job->random_distribution == RQ_RAND_ZONED_ABS;
	uint64_t size = f->end - f->start, nb = size / c->min_bs, zstart = 0, zlen = nb, off, prev = 0;
	unsigned int r = (unsigned int)(rq_rng_next(&c->rng) % 100) + 1, sum = 0;

	for (unsigned int i = 0; i < job->nr_zones[d]; i++) {
		/* in blocks: fio's stotal * lastb / 100 and lastb * (send - stotal) / 100 */
		zstart = abs ? prev / c->min_bs : nb * prev / 100;
		prev += abs ? job->zones[d][i].size : job->zones[d][i].size_pct;
		zlen = abs ? job->zones[d][i].size / c->min_bs : nb * prev / 100 - zstart;
		sum += job->zones[d][i].access;
		if (r <= sum)
			break;
	}
	if (zstart >= nb)
		zstart = 0;
	if (zlen > nb - zstart)
		zlen = nb - zstart;
	off = f->start + (zstart + (zlen ? rq_rng_next(&c->rng) % zlen : 0)) * c->min_bs;
	if (off + bs > f->end)
		off = f->start + (size - bs) / c->min_bs * c->min_bs;
	return off;
}

static uint64_t random_offset_bs(struct clone *c, struct clone_file *f, uint32_t *bsp, int op)
{
	uint32_t bs = *bsp;
	const struct rq_job *job = c->job;
	/* a sized clone with mixed sizes draws its size once the offset is known */
	const bool fit = c->sized && mixed_bs(job, op);

	if (job->rw_seq_nr > 1 && c->seq_left) {
		if (fit)
			bs = eng_pick_bs_fit(c, op, f->last_end < f->end ? f->end - f->last_end : 0);
		if (bs && f->last_end + bs <= f->end) {
			c->seq_left--;
			*bsp = bs;
			return f->last_end;	/* rw=rand...:N: N-1 sequential I/Os follow */
		}
		bs = *bsp;
	}
	c->seq_left = job->rw_seq_nr > 1 ? job->rw_seq_nr - 1 : 0;
	/* strided: blocks are drawn in the current zone, not the whole region */
	const uint64_t base = c->strided ? f->zone_start : f->start;
	const uint64_t end = c->strided ? f->file_size : f->end;

	for (;;) {
		uint64_t b, off;

		if (job->random_distribution == RQ_RAND_ZONED ||
		    job->random_distribution == RQ_RAND_ZONED_ABS) {
			off = zoned_offset(c, f, op, bs);
			if (fit)
				*bsp = eng_pick_bs_fit(c, op, end - off);
			return off;
		} else if (job->random_distribution != RQ_RAND_UNIFORM) {
			b = rq_dist_next(&f->dist, &c->rng);
		} else if (job->lfsr) {
			b = rq_lfsr_next(&f->lfsr);
		} else if (job->norandommap) {
			b = rq_rng_next(&c->rng) % f->nblocks;
		} else if (f->map.bits) {
			if (f->map.nr_set >= f->map.nblocks) {
				if (c->sized)
					return UINT64_MAX;	/* the file is done */
				rq_randmap_clear(&f->map);
			}
			off = map_offset(c, f, op, base, end, bsp);
			if (off != UINT64_MAX || c->sized)
				return off;
			rq_randmap_clear(&f->map);	/* time_based: fio's next pass */
			continue;
		} else {
			b = pass_next(f, c->seed + f->zone_pass * 0x9e3779b97f4a7c15ULL, !c->sized);
			if (b == UINT64_MAX)
				return b;	/* the pass is over: the file is done */
		}
		off = base + b * c->min_bs;
		if (fit) {
			/* io_u_fits(): the smallest size fits from any block of the region */
			bs = eng_pick_bs_fit(c, op, off < end ? end - off : 0);
			if (!bs)
				continue;
			*bsp = bs;
			return off;
		}
		if (off + bs <= end)
			return off;
	}
}

/*
 * *bsp may shrink: the random map gives a mixed-size I/O the free run it
 * starts (map_offset()).
 */
uint64_t eng_random_offset(struct clone *c, struct clone_file *f, uint32_t *bsp, int op)
{
	const struct rq_job *job = c->job;
	uint32_t ba = job->blockalign[op];
	uint64_t off = random_offset_bs(c, f, bsp, op);

	if (off == UINT64_MAX)
		return off;
	/*
	 * blockalign: offsets are multiples of ba within the region, as fio's.
	 * The random map marked the blocks drawn, so with ba and mixed sizes a
	 * pass may cover a block twice; it still ends when every block is marked.
	 */
	if (ba > c->min_bs)
		off = f->start + (off - f->start) / ba * ba;
	return off;
}

/*
 * A mixed size of @op that fits @room bytes, as fio 3.33's
 * get_next_buflen(): a 32-bit draw r from the direction's own stream
 * (bsrange_state, frand.h), then
 *  - bsrange: min + max * r / 2^32 (so max, the cap, comes a quarter of
 *    the time with bsrange=4k-16k: fio's, not a uniform draw);
 *  - bssplit: the first entry, in fio's order (ascending shares), whose
 *    running share p has r / p <= 2^32 / 100 and that fits, else the
 *    last entry;
 * rounded down to a multiple of the smallest size and capped at the
 * largest, drawn again until it fits (io_u_fits()).  0 when the smallest
 * does not fit: fio's file is done then.  Also 0 when a bssplit draw
 * found no entry that fits and its last one, rounded, does not either:
 * every later draw ends the same (the sizes that fit have no share, as
 * 4k/0:64k/100 at a 36k tail), and fio 3.33 draws there forever.
 */
uint32_t eng_pick_bs_fit(struct clone *c, int op, uint64_t room)
{
	const struct rq_job *job = c->job;
	const uint32_t lo = job->bs_min[op], hi = job->bs_max[op];
	const unsigned int n = job->nr_bssplit[op];
	struct rq_taus88 *t = &c->bs_state[op];
	uint64_t len = 0;

	if (lo > room)
		return 0;
	do {
		uint32_t r = rq_taus88_next(t);
		bool fits = !n;		/* bsrange: lo fits, so some draw does */

		if (!n) {
			len = lo + (uint64_t)((double)hi * (r / 4294967296.0));
		} else {
			uint64_t perc = 0;

			for (unsigned int i = 0; i < n; i++) {
				if (!job->bssplit[op][i].pct)
					continue;
				len = job->bssplit[op][i].bs;
				perc += job->bssplit[op][i].pct;
				fits |= len <= room;
				if (r / perc <= UINT32_MAX / 100u && len <= room)
					break;
			}
		}
		len = lo & (lo - 1) ? len - len % lo : len & ~(uint64_t)(lo - 1);
		if (len > hi)
			len = hi;
		if (len > room && !fits)
			return 0;
	} while (len > room);
	return (uint32_t)len;
}

uint32_t eng_pick_bs(struct clone *c, int op)
{
	return mixed_bs(c->job, op) ? eng_pick_bs_fit(c, op, UINT64_MAX) : c->job->bs[op];
}
