// SPDX-License-Identifier: MIT
/*
 * opt_io.c - the options that say what I/O a job issues: rw and its mix
 * (rwmixread, rwmixwrite), block sizes (bs, bsrange, bssplit, ba), how
 * much and where (size, offset, offset_increment, io_size, number_ios),
 * the ioengine with its depth and batching, direct/buffered and the
 * io_uring engine options.  Holds their section of the option table, the
 * setters and --showcmd renderings of exactly these options and the value
 * tables only they use, so that an option and its code read in one place,
 * as fio keeps them.
 */
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

static const struct opt_val rw_vals[] = {
	{ "read",		RQ_RW_READ,		NULL },
	{ "write",		RQ_RW_WRITE,		NULL },
	{ "randread",		RQ_RW_RANDREAD,		NULL },
	{ "randwrite",		RQ_RW_RANDWRITE,	NULL },
	{ "rw",			RQ_RW_RW,		NULL },
	{ "readwrite",		RQ_RW_RW,		NULL },
	{ "randrw",		RQ_RW_RANDRW,		NULL },
	{ "trim",		RQ_RW_TRIM,		NULL },
	{ "randtrim",		RQ_RW_RANDTRIM,		NULL },
	{ "trimwrite",		RQ_RW_TRIMWRITE,	NULL },
	{ "randtrimwrite",	RQ_RW_RANDTRIMWRITE,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val cmd_type_vals[] = {
	{ "nvme",	0,	NULL },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

/*
 * rw=NAME[:N], as fio's str_rw_cb: for a random pattern N is how many I/Os
 * go to one random offset before the next is drawn (sequential I/Os in
 * between); for a sequential one N is a size skipped after each I/O.
 */
static int set_rw(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	const struct opt_val *vp;
	char *post = strchr(str, ':');
	const char *why;
	uint64_t n;

	(void)v;
	if (post)
		*post++ = '\0';
	vp = jf_find_val(rw_vals, str);
	if (vp && vp->refuse)
		return jf_perr(p, "%s=%s %s", p->key, str, vp->refuse);
	if (!vp)
		return jf_bad_enum(p, str, rw_vals);
	s->job.rw = (enum rq_rw)vp->val;
	s->job.rw_seq_nr = 0;
	s->job.rw_seq_add = 0;
	if (!post)
		return 0;
	if (rq_rw_random(s->job.rw)) {
		const char *d = post;

		why = jf_digits(&d, 10, &n);
		if (!why && *d)
			why = "expected a count of I/Os";
		if (!why && (n < 1 || n > UINT32_MAX))
			why = "must be from 1 to 4294967295";
		if (why)
			return jf_bad(p, post, why);
		s->job.rw_seq_nr = (unsigned int)n;
		return 0;
	}
	/* fio's str_to_decimal takes a sign: rw=read:-8k goes backwards */
	why = jf_parse_size(post + (*post == '-'), s->kb_base, &n);
	if (!why && n > INT64_MAX)
		why = "too large";
	if (why)
		return jf_bad(p, post, why);
	s->job.rw_seq_add = *post == '-' ? -(int64_t)n : (int64_t)n;
	return 0;
}

static void show_rw(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%s", rq_rw_name(j->rw));
	if (j->rw_seq_nr)
		jf_bput(b, ":%u", j->rw_seq_nr);
	else if (j->rw_seq_add)
		jf_bput(b, ":%lld", (long long)j->rw_seq_add);
}

/* One "A-B" or "A:B" part of bsrange into @lo, @hi (swapped if need be, as fio). */
static int range_part(struct pctx *p, struct sect *s, char *part, uint32_t *lo, uint32_t *hi)
{
	char *sep = strchr(part, '-');
	const char *why;
	uint64_t a, b;

	if (!sep)
		sep = strchr(part, ':');
	if (!sep)
		return jf_bad(p, part, "expected MIN-MAX");
	*sep = '\0';
	why = jf_parse_size(part, s->kb_base, &a);
	if (!why)
		why = jf_parse_size(sep + 1, s->kb_base, &b);
	if (!why && (a < 1 || b < 1 || a > BS_MAX || b > BS_MAX))
		why = "block sizes must be from 1 to 16777216";
	if (why) {
		*sep = '-';
		return jf_bad(p, part, why);
	}
	*lo = (uint32_t)(a < b ? a : b);
	*hi = (uint32_t)(a < b ? b : a);
	return 0;
}

/*
 * bsrange=R[,W[,T]], fio's FIO_OPT_RANGE: one range sets every direction,
 * the last range given also sets the directions after it ("1k-4k,8k-16k"
 * gives trims 8k-16k), an empty part keeps that direction ("1k-4k," sets
 * reads only).
 */
static int set_bsrange(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	char *parts[3], *c = str;
	unsigned int nr = 0, i;
	int ret;

	(void)v;
	/* "1k-4k," has an empty second part: reads only, as fio */
	for (;;) {
		if (nr == 3)
			return jf_bad(p, str, "at most R,W,T");
		parts[nr++] = c;
		c = strchr(c, ',');
		if (!c)
			break;
		*c++ = '\0';
	}
	for (i = 0; i < nr; i++) {
		uint32_t lo = 0, hi = 0;

		if (!*parts[i])
			continue;
		ret = range_part(p, s, parts[i], &lo, &hi);
		if (ret)
			return ret;
		/* the last range given also stands for the directions after it, as fio */
		for (unsigned int d = i; d < (i + 1 == nr ? 3 : i + 1); d++) {
			s->job.bs_min[d] = lo;
			s->job.bs_max[d] = hi;
		}
	}
	return 0;
}

static void show_bsrange(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%u-%u,%u-%u,%u-%u", j->bs_min[0], j->bs_max[0], j->bs_min[1], j->bs_max[1],
	     j->bs_min[2], j->bs_max[2]);
}

/* One direction of bssplit, as fio's bssplit_ddir. */
static int split_dir(struct pctx *p, struct sect *s, char *list, int dir)
{
	struct { uint32_t bs, pct; } e[RQ_MAX_BSSPLIT];
	unsigned int nr = 0, missing = 0, sum = 0, i, k;
	char *entry = list, *next;

	while (entry && *entry) {
		char *slash;
		const char *why;
		uint64_t bs, pct = 0;

		next = strchr(entry, ':');
		if (next)
			*next++ = '\0';
		if (!*entry)
			return jf_bad(p, list, "an empty entry (fio ignores everything after one)");
		if (nr == RQ_MAX_BSSPLIT)
			return jf_bad(p, list, "more than 64 block sizes");
		slash = strchr(entry, '/');
		if (slash)
			*slash++ = '\0';
		why = jf_parse_size(entry, s->kb_base, &bs);
		if (!why && (bs < 1 || bs > BS_MAX))
			why = "block sizes must be from 1 to 16777216";
		if (why)
			return jf_bad(p, entry, why);
		if (slash && *slash) {
			const char *d = slash;

			why = jf_digits(&d, 10, &pct);
			if (why || *d)
				why = "a share is a whole percentage";
			if (!why && pct > 100)
				why = "a share is at most 100";
			if (why)
				return jf_bad(p, slash, why);
		}
		e[nr].bs = (uint32_t)bs;
		/* fio: no share, or a share of 0, is a blank that takes part of the rest */
		e[nr].pct = pct ? (uint32_t)pct : UINT32_MAX;
		if (pct)
			sum += (unsigned int)pct;
		else
			missing++;
		nr++;
		entry = next;
	}
	if (!nr)
		return 0;	/* fio: an empty list leaves the direction as it was */
	if (sum > 100)
		return jf_bad(p, list, "the shares add up to more than 100");
	if (missing == 1 && nr == 1)
		sum = 0;
	for (i = 0; i < nr; i++)
		if (e[i].pct == UINT32_MAX)
			e[i].pct = (100 - sum) / missing;
	/* sorted by share, stable, as fio's qsort (glibc's merge sort) leaves it */
	for (i = 1; i < nr; i++) {
		uint32_t bs = e[i].bs, pct = e[i].pct;

		for (k = i; k > 0 && e[k - 1].pct > pct; k--)
			e[k] = e[k - 1];
		e[k].bs = bs;
		e[k].pct = pct;
	}
	s->job.nr_bssplit[dir] = nr;
	s->job.bs_min[dir] = UINT32_MAX;
	s->job.bs_max[dir] = 0;
	for (i = 0; i < nr; i++) {
		s->job.bssplit[dir][i].bs = e[i].bs;
		s->job.bssplit[dir][i].pct = e[i].pct;
		if (e[i].bs < s->job.bs_min[dir])
			s->job.bs_min[dir] = e[i].bs;
		if (e[i].bs > s->job.bs_max[dir])
			s->job.bs_max[dir] = e[i].bs;
	}
	return 0;
}

/*
 * bssplit=BS/PCT:BS/PCT...[,WRITES[,TRIMS]]: one list applies to every
 * direction; with two, the second is for writes and trims (fio's
 * str_split_parse).  Blank shares take equal parts of what the given ones
 * leave, truncated as fio does.
 */
static int set_bssplit(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	char *w = strchr(str, ','), *t = NULL, *copy;
	int ret;

	(void)v;
	if (w) {
		*w++ = '\0';
		t = strchr(w, ',');
		if (t) {
			*t++ = '\0';
			if (strchr(t, ','))
				return jf_bad(p, t, "at most R,W,T");
		}
		/* R,W: the write list stands for trims too */
		copy = strdup(t ? t : w);
		if (!copy)
			return jf_perr(p, "out of memory");
		ret = split_dir(p, s, str, 0);
		if (!ret)
			ret = split_dir(p, s, w, 1);
		if (!ret)
			ret = split_dir(p, s, copy, 2);
		free(copy);
		return ret;
	}
	ret = 0;
	for (int d = 2; d >= 0 && !ret; d--) {
		/* split_dir() cuts its list: each direction parses its own copy */
		copy = d ? strdup(str) : str;
		if (!copy)
			return jf_perr(p, "out of memory");
		ret = split_dir(p, s, copy, d);
		if (d)
			free(copy);
	}
	return ret;
}

static void show_bssplit(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	for (int d = 0; d < 3; d++) {
		if (d)
			jf_bput(b, ",");
		if (!j->nr_bssplit[d])	/* an empty list keeps bs, as fio */
			continue;
		for (unsigned int i = 0; i < j->nr_bssplit[d]; i++)
			jf_bput(b, "%s%u/%u", i ? ":" : "", j->bssplit[d][i].bs, j->bssplit[d][i].pct);
	}
}

/* fio keeps one read/write split: the later of rwmixread and rwmixwrite wins. */
static int set_rwmixread(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.rwmixread = (unsigned int)v;
	return 0;
}

static void show_rwmixread(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%u", j->rwmixread);
}

static int set_rwmixwrite(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.rwmixread = 100 - (unsigned int)v;
	return 0;
}

static void show_rwmixwrite(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%u", 100 - j->rwmixread);
}

static int set_buffered(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.direct = !v;
	return 0;
}

static void show_buffered(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%u", !j->direct);
}

/* cmd_type: nvme is the only command set, checked by its value table; nothing to keep */
static int set_cmd_type(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)s;
	(void)v;
	(void)str;
	return 0;
}

static void show_cmd_type(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)j;
	(void)o;
	jf_bput(b, "nvme");
}

/*
 * sync_file_range=FLAGS[:N] (fio's str_sfr_cb()): FLAGS one or more of
 * wait_before, write, wait_after, comma-separated (the kernel's
 * SYNC_FILE_RANGE_* bits, ORed); N the writes between syncs, 1 when left
 * out, 0 none.  fio reads a bad N as 0 (atoi); rqlock refuses it.
 */
/* the flags' values: the kernel's SYNC_FILE_RANGE_* */
static const struct opt_val sfr_vals[] = {
	{ "wait_before",	1,	NULL },
	{ "write",		2,	NULL },
	{ "wait_after",		4,	NULL },
	{ NULL, 0, NULL },
};

static int set_sfr(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	char *nr = strchr(str, ':'), *flag, *save = NULL, shown[128];
	uint64_t n = 1;
	unsigned int flags = 0;

	(void)v;
	snprintf(shown, sizeof(shown), "%s", str);
	if (nr) {
		const char *d = nr + 1;

		*nr = '\0';
		if (jf_digits(&d, 10, &n) || *d || n > UINT32_MAX)
			return jf_bad(p, shown, "N after ':' is a count of writes");
	}
	for (flag = strtok_r(str, ",", &save); flag; flag = strtok_r(NULL, ",", &save)) {
		const struct opt_val *f = sfr_vals;

		while (f->name && strcmp(f->name, flag))
			f++;
		if (!f->name)
			return jf_bad_enum(p, flag, sfr_vals);
		flags |= (unsigned int)f->val;
	}
	if (!flags)
		return jf_bad(p, shown, "say wait_before, write and/or wait_after");
	s->job.sfr_flags = (uint8_t)flags;
	s->job.sfr_blocks = (uint32_t)n;
	return 0;
}

static void show_sfr(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	const char *sep = "";

	(void)o;
	for (const struct opt_val *f = sfr_vals; f->name; f++) {
		if (j->sfr_flags & f->val) {
			jf_bput(b, "%s%s", sep, f->name);
			sep = ",";
		}
	}
	jf_bput(b, ":%u", j->sfr_blocks);
}

/* ------------------------------------------------------------ the options */

/*
 * What I/O is issued, in fio's spelling (fio's name is the canonical one,
 * fio's alias the alias); --showcmd walks them in this order.
 */
const struct opt jf_opts_io[] = {
	{
		.name = "rw", .alias = "readwrite", .type = OPT_STR,
		.vals = rw_vals, .set = set_rw, .show = show_rw, .def = "read",
		.help = "I/O pattern: read, write, randread, randwrite, rw (or readwrite), "
			"randrw, trim, randtrim, trimwrite, randtrimwrite (each trim followed by "
			"a write of its blocks); ':N' after a random pattern issues N I/Os per "
			"random offset, after a sequential one skips N bytes after each I/O",
	},
	{
		.name = "bs", .alias = "blocksize", .type = OPT_SIZE, FIELD(bs[0]),
		.nr = 3, .min = 1, .max = BS_MAX, .def = "4k",
		.help = "Block size, up to 16m: one value for reads, writes and trims, or R,W,T; "
			"an empty part keeps that direction's value, the last one given stands "
			"for the rest",
	},
	{
		.name = "bsrange", .alias = "blocksize_range", .type = OPT_STR,
		.set = set_bsrange, .show = show_bsrange,
		.help = "Block sizes drawn between MIN-MAX, per direction as R,W,T "
			"(default: bs)",
	},
	{
		.name = "bssplit", .type = OPT_STR, .set = set_bssplit, .show = show_bssplit,
		.help = "Block sizes by share, BS/PCT:BS/PCT, per direction as R,W,T; "
			"blank shares take equal parts of the rest (default: bs)",
	},
	{
		.name = "ioengine", .type = OPT_ENUM, FIELD(ioengine),
		.vals = jf_ioengine_vals, .def = "io_uring",
		.help = "Backend: io_uring, libaio, io_uring_cmd or null; rqlock's default is "
			"io_uring where fio's is psync",
	},
	{
		.name = "iodepth", .type = OPT_INT, FIELD(iodepth),
		.min = 1, .max = 65536, .def = "1",
		.help = "I/Os kept in flight per job, 1 to 65536",
	},
	{
		.name = "iodepth_batch", .alias = "iodepth_batch_submit", .type = OPT_INT,
		FIELD(iodepth_batch_submit), .min = 0, .max = 65536, .def = "1",
		.help = "I/Os handed to the kernel in one go; 0 or more than iodepth is iodepth",
	},
	{
		.name = "iodepth_batch_complete_min", .alias = "iodepth_batch_complete",
		.type = OPT_INT, FIELD(iodepth_batch_complete_min), .min = 0, .max = 65536,
		.def = "1",
		.help = "Fewest completions to wait for at once",
	},
	{
		.name = "iodepth_batch_complete_max", .type = OPT_INT,
		FIELD(iodepth_batch_complete_max), .min = 0, .max = 65536,
		.help = "Most completions to reap at once; at least "
			"iodepth_batch_complete_min (default: iodepth_batch_complete_min)",
	},
	{
		.name = "size", .type = OPT_SIZE, FIELD(size), .pct = true,
		.pct_off = offsetof(struct rq_job, size_pct), .min = 0, .max = UINT64_MAX,
		.zone_off = offsetof(struct rq_job, size_nz),
		.help = "Bytes of I/O per job, or N% of the file or device; 0 is all "
			"of it (default: 0)",
	},
	{
		.name = "offset", .alias = "fileoffset", .type = OPT_SIZE, FIELD(offset),
		.pct = true, .pct_off = offsetof(struct rq_job, offset_pct),
		.zone_off = offsetof(struct rq_job, offset_nz),
		.min = 0, .max = UINT64_MAX, .def = "0",
		.help = "Byte offset where I/O starts, or N% of the file or device",
	},
	{
		.name = "offset_increment", .type = OPT_SIZE, FIELD(offset_increment),
		.pct = true, .pct_off = offsetof(struct rq_job, offset_increment_pct),
		.zone_off = offsetof(struct rq_job, offset_increment_nz),
		.min = 0, .max = UINT64_MAX, .def = "0",
		.help = "Clone k of numjobs starts at offset + k times this, bytes or N%",
	},
	{
		.name = "rwmixread", .type = OPT_INT, .set = set_rwmixread,
		.show = show_rwmixread, .min = 0, .max = 100, .def = "50",
		.help = "Percent of reads in a mixed job; the later of rwmixread and rwmixwrite "
			"wins",
	},
	{
		.name = "rwmixwrite", .type = OPT_INT, .set = set_rwmixwrite,
		.show = show_rwmixwrite, .min = 0, .max = 100,
		.help = "Percent of writes in a mixed job; sets rwmixread to 100 "
			"minus it, the later of the two wins (default: 50)",
	},
	{
		.name = "direct", .type = OPT_BOOL, FIELD(direct), .def = "0",
		.help = "Use O_DIRECT",
	},
	{
		.name = "buffered", .type = OPT_BOOL, .set = set_buffered, .show = show_buffered,
		.help = "Opposite of direct: buffered=0 is direct=1 (default: 1)",
	},
	{
		.name = "hipri", .type = OPT_FLAG, FIELD(hipri), .engine = true, .def = "0",
		.help = "io_uring: polled completions",
	},
	{
		.name = "sqthread_poll", .type = OPT_FLAG, FIELD(sqthread_poll), .engine = true,
		.def = "0",
		.help = "io_uring: a kernel thread polls the submission queue",
	},
	{
		.name = "fixedbufs", .type = OPT_FLAG, FIELD(fixedbufs), .engine = true,
		.def = "0",
		.help = "io_uring: registered buffers",
	},
	{
		.name = "cmd_type", .type = OPT_ENUM, .vals = cmd_type_vals, .set = set_cmd_type,
		.show = show_cmd_type,
		.engine = true, .def = "nvme",
		.help = "io_uring_cmd: the command set; nvme is the one there is",
	},
	{
		.name = "registerfiles", .type = OPT_FLAG, FIELD(registerfiles), .engine = true,
		.def = "0",
		.help = "io_uring: registered files",
	},
	{
		.name = "fsync", .type = OPT_INT, FIELD(fsync_blocks), .min = 0, .max = UINT32_MAX,
		.def = "0",
		.help = "After every N writes, a flush (fsync) through the block layer to the "
			"device, its latency reported as fio's sync; 0 is none",
	},
	{
		.name = "fdatasync", .type = OPT_INT, FIELD(fdatasync_blocks), .min = 0, .max = UINT32_MAX,
		.def = "0",
		.help = "After every N writes, a flush through the block layer that the device "
			"serves with fdatasync, its latency in fio's sync; 0 is none",
	},
	{
		.name = "sync_file_range", .type = OPT_STR, .set = set_sfr, .show = show_sfr,
		.help = "FLAGS:N: after every N writes (1 without :N), a flush through the block "
			"layer that the device serves with sync_file_range of the range written "
			"since the last sync, FLAGS wait_before, write, wait_after joined by ','; "
			"its latency in fio's sync (default: none)",
	},
	{
		.name = "end_fsync", .type = OPT_BOOL, FIELD(end_fsync), .def = "0",
		.help = "A writing job's last act: a flush of each of its files through the block "
			"layer, inside its runtime, not in the sync statistics",
	},
	{
		.name = "fsync_on_close", .type = OPT_BOOL, FIELD(fsync_on_close), .def = "0",
		.help = "As end_fsync: each file of a writing job flushed as the job ends",
	},
	{
		.name = "io_size", .alias = "io_limit", .type = OPT_SIZE, FIELD(io_size),
		.min = 0, .max = UINT64_MAX, .def = "0", .zone_off = offsetof(struct rq_job, io_size_nz),
		.help = "Bytes of I/O per loop, going round the region again when it is larger "
			"than size; 0 is size",
	},
	{
		.name = "number_ios", .type = OPT_INT, FIELD(number_ios), .min = 0,
		.max = UINT64_MAX, .def = "0",
		.help = "Stop after this many I/Os even if size is not done; 0 is no limit",
	},
	{
		.name = "ba", .alias = "blockalign", .type = OPT_SIZE, FIELD(blockalign[0]), .nr = 3,
		.min = 0, .max = BS_MAX,
		.help = "Random offsets are multiples of this, R,W,T as bs "
			"(default: the smallest block size)",
	},
};

const unsigned int jf_nr_opts_io = JF_ARRAY_LEN(jf_opts_io);
