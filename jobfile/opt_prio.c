// SPDX-License-Identifier: MIT
/*
 * opt_prio.c - the options that order a job's I/Os among themselves: the
 * I/O priority each one goes at (the job's, prio and prioclass, and fio's
 * cmdprio_* options of its io_uring and libaio engines, engines/cmdprio.c)
 * and serialize_overlap with the io_submit_mode that sets its scope.
 * Holds their section of the option table, the setters of prio,
 * prioclass and cmdprio_bssplit and the latter's --showcmd rendering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobfile_internal.h"

#define IOPRIO_CLASS_SHIFT 13		/* the kernel's IOPRIO_PRIO_VALUE(class, level) */

static const struct opt_val submit_mode_vals[] = {
	{ "inline",	0,	NULL },
	{ "offload",	1,	NULL },
	{ NULL, 0, NULL },
};

/*
 * One cmdprio_bssplit entry, as fio's parse_cmdprio_bssplit_entry():
 * "BS/", "BS/PCT" (cmdprio_class/cmdprio's priority) or "BS/PCT/CLASS/LEVEL",
 * the class clamped to 3 and the level to 7 as fio clamps them.
 */
static int prio_entry(struct pctx *p, struct sect *s, char *entry, struct rq_cmdprio_split *e)
{
	uint64_t n[3] = { 0, 0, 0 }, bs;
	unsigned int nr = 0;
	char *part = strchr(entry, '/'), shown[128];
	const char *why;

	snprintf(shown, sizeof(shown), "%s", entry);	/* the entry as written, for messages */
	if (!part)
		return jf_bad(p, shown, "an entry is BS/, BS/PCT or BS/PCT/CLASS/LEVEL");
	*part++ = '\0';
	why = jf_parse_size(entry, s->kb_base, &bs);
	if (!why && (bs < 1 || bs > BS_MAX))
		why = "block sizes must be from 1 to 16777216";
	if (why)
		return jf_bad(p, shown, why);
	while (*part && nr < 3) {
		const char *d = part;

		why = jf_digits(&d, 10, &n[nr]);
		if (why || (*d && *d != '/'))
			return jf_bad(p, shown, "shares, classes and levels are whole numbers");
		nr++;
		part = (char *)d + (*d == '/');
	}
	if (*part || nr == 2)
		return jf_bad(p, shown, "an entry is BS/, BS/PCT or BS/PCT/CLASS/LEVEL");
	e->bs = (uint32_t)bs;
	e->pct = n[0] > 100 ? 100 : (uint32_t)n[0];
	e->ioprio = nr == 3 ? (int32_t)(((n[1] > 3 ? 3 : n[1]) << IOPRIO_CLASS_SHIFT) |
					(n[2] > 7 ? 7 : n[2])) : -1;
	return 0;
}

/* One direction's list: entries of 0 % dropped, sorted by block size, at most 100 % a size. */
static int prio_dir(struct pctx *p, struct sect *s, char *list, int dir)
{
	struct rq_cmdprio_split *e = s->job.cmdprio_bssplit[dir];
	unsigned int nr = 0, i, k;
	char *entry = list, *next;

	for (; entry && *entry; entry = next) {
		struct rq_cmdprio_split x;
		int ret;

		next = strchr(entry, ':');
		if (next)
			*next++ = '\0';
		if (nr == RQ_MAX_BSSPLIT)
			return jf_bad(p, s->job.cmdprio_bssplit_str, "more than 64 entries");
		ret = prio_entry(p, s, entry, &x);
		if (ret)
			return ret;
		if (!x.pct)
			continue;
		/* by block size, the entries of one size in their order (fio's qsort keeps them so here) */
		for (k = nr; k > 0 && e[k - 1].bs > x.bs; k--)
			e[k] = e[k - 1];
		e[k] = x;
		nr++;
	}
	for (i = 0; i < nr; i = k) {
		uint32_t sum = 0;

		for (k = i; k < nr && e[k].bs == e[i].bs; k++)
			sum += e[k].pct;
		if (sum > 100) {
			char why[96];

			snprintf(why, sizeof(why), "the shares of bs=%u add up to more than 100", e[i].bs);
			return jf_bad(p, s->job.cmdprio_bssplit_str, why);
		}
	}
	s->job.nr_cmdprio_bssplit[dir] = nr;
	return 0;
}

/* cmdprio_bssplit=LIST[,WRITES]: one list is for reads and writes (trims take no priority). */
static int set_cmdprio_bssplit(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	char *w = strchr(str, ','), *copy;
	int ret;

	(void)v;
	if (strlen(str) >= sizeof(s->job.cmdprio_bssplit_str))
		return jf_bad(p, str, "longer than 511 bytes");
	snprintf(s->job.cmdprio_bssplit_str, sizeof(s->job.cmdprio_bssplit_str), "%s", str);
	if (w) {
		*w++ = '\0';
		if (strchr(w, ',') && strchr(strchr(w, ',') + 1, ','))
			return jf_bad(p, w, "at most R,W,T");
		if (strchr(w, ','))
			*strchr(w, ',') = '\0';	/* a trim list: trims take no priority (fio) */
		ret = prio_dir(p, s, str, 0);
		return ret ? ret : prio_dir(p, s, w, 1);
	}
	copy = strdup(str);
	if (!copy)
		return jf_perr(p, "out of memory");
	ret = prio_dir(p, s, str, 0);
	if (!ret)
		ret = prio_dir(p, s, copy, 1);
	free(copy);
	return ret;
}

/*
 * prio, prioclass: the job's priority as the kernel's value, from both
 * (the other at its default, 0, when only one is written), as fio's
 * ioprio_value(): no class is best effort.
 */
static void job_ioprio(struct rq_job *j)
{
	j->ioprio = (uint16_t)(((j->prio_class ? j->prio_class : 2u) << IOPRIO_CLASS_SHIFT) | j->prio_level);
}

static int set_prio(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.prio_level = (uint32_t)v;
	job_ioprio(&s->job);
	return 0;
}

static int set_prioclass(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.prio_class = (uint32_t)v;
	job_ioprio(&s->job);
	return 0;
}

/* as written, as fio's --showcmd shows a stored string */
static void show_cmdprio_bssplit(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%s", j->cmdprio_bssplit_str);
}

const struct opt jf_opts_prio[] = {
	{
		.name = "prio", .type = OPT_INT, FIELD(prio_level), .set = set_prio,
		.min = 0, .max = 7,
		.help = "The job's I/O priority level, 0 highest, given to the kernel with "
			"each of its I/Os (default: none)",
	},
	{
		.name = "prioclass", .type = OPT_INT, FIELD(prio_class), .set = set_prioclass,
		.min = 0, .max = 3,
		.help = "The job's I/O priority class: 1 realtime (needs CAP_SYS_ADMIN or "
			"CAP_SYS_NICE), 2 best effort, 3 idle; 0 is best effort (default: none)",
	},
	{
		.name = "cmdprio_percentage", .type = OPT_INT, FIELD(cmdprio_pct[0]), .nr = 2,
		.engine = true, .libaio = true, .min = 0, .max = 100, .def = "0",
		.help = "io_uring, libaio: percent of the reads,writes that go at "
			"cmdprio_class/cmdprio instead of the job's own priority, given to the "
			"kernel with each I/O; each priority's latencies are reported apart",
	},
	{
		.name = "cmdprio_class", .type = OPT_INT, FIELD(cmdprio_class[0]), .nr = 2,
		.engine = true, .libaio = true, .min = 1, .max = 3,
		.help = "io_uring, libaio: the I/O priority class of cmdprio's I/Os, "
			"reads,writes: 1 realtime, 2 best effort, 3 idle (default: 1)",
	},
	{
		.name = "cmdprio", .type = OPT_INT, FIELD(cmdprio_level[0]), .nr = 2,
		.engine = true, .libaio = true, .min = 0, .max = 7, .def = "0",
		.help = "io_uring, libaio: the level of cmdprio's I/Os within their class, "
			"reads,writes, 0 highest",
	},
	{
		.name = "cmdprio_bssplit", .type = OPT_STR, .set = set_cmdprio_bssplit,
		.show = show_cmdprio_bssplit, .engine = true, .libaio = true,
		.help = "io_uring, libaio: BS/PCT[/CLASS/LEVEL]:...[,WRITES]: per block "
			"size, shares of the I/Os at a priority of their own, or at "
			"cmdprio_class/cmdprio's; not with cmdprio_percentage (default: none)",
	},
	{
		.name = "serialize_overlap", .type = OPT_BOOL, FIELD(serialize_overlap), .def = "0",
		.help = "An I/O that overlaps one of the clone's I/Os in flight waits until that "
			"one is back; only for a job that writes or trims at iodepth > 1, as fio",
	},
	{
		.name = "io_submit_mode", .type = OPT_ENUM, .vals = submit_mode_vals,
		FIELD(io_submit_offload), .def = "inline",
		.help = "inline or offload: rqlock's clones always submit from their worker, so "
			"offload changes only serialize_overlap's scope, which fio widens to "
			"other jobs' I/Os on the same file: rqlock refuses that where clones "
			"could share a file",
	},
};

const unsigned int jf_nr_opts_prio = JF_ARRAY_LEN(jf_opts_prio);
