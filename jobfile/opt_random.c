// SPDX-License-Identifier: MIT
/*
 * opt_random.c - the options that say where random I/O goes:
 * random_distribution (zipf, pareto, normal, zoned, zoned_abs),
 * norandommap, random_generator, randrepeat and randseed.  Holds their
 * section of the option table, the setters and --showcmd renderings of
 * exactly these options and the value tables only they use, so that an
 * option and its code read in one place, as fio keeps them.
 */
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

static const struct opt_val dist_vals[] = {
	{ "random",	RQ_RAND_UNIFORM,	NULL },
	{ "zipf",	RQ_RAND_ZIPF,		NULL },
	{ "pareto",	RQ_RAND_PARETO,		NULL },
	{ "normal",	RQ_RAND_NORMAL,		NULL },
	{ "zoned",	RQ_RAND_ZONED,		NULL },
	{ "zoned_abs",	RQ_RAND_ZONED_ABS,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val random_generator_vals[] = {
	{ "tausworthe",		0,	NULL },
	{ "lfsr",		1,	NULL },
	{ "tausworthe64",	0,	NULL },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

/*
 * One direction of random_distribution=zoned:A/S:A/S... (zoned_abs: S is a
 * size), as fio's split_parse_ddir and zone_split_ddir: an empty entry
 * ends the list, a missing or zero share S takes an equal part of what is
 * left (truncated), the access shares must add up to 100.
 */
static int zoned_dir(struct pctx *p, struct sect *s, char *list, int dir, bool abs)
{
	unsigned int nr = 0, acc = 0, sz = 0, sz_missing = 0, i;
	char *entry = list, *next;
	uint8_t access[RQ_MAX_ZONES], size_pct[RQ_MAX_ZONES];
	uint64_t size[RQ_MAX_ZONES];

	while (entry && *entry) {
		char *slash;
		const char *why;
		uint64_t a, z = 0;

		next = strchr(entry, ':');
		if (next)
			*next++ = '\0';
		if (nr == RQ_MAX_ZONES)
			return jf_bad(p, list, "more than 256 zones");
		slash = strchr(entry, '/');
		if (slash)
			*slash++ = '\0';
		why = jf_parse_size(entry, s->kb_base, &a);
		if (!why && a > 100)
			why = "an access share is at most 100";
		if (why)
			return jf_bad(p, entry, why);
		if (slash && *slash) {
			const char *d = slash;

			why = abs ? jf_parse_size(slash, s->kb_base, &z) : jf_digits(&d, 10, &z);
			if (!why && !abs && *d)
				why = "a zone's share is a whole percentage";
			if (why)
				return jf_bad(p, slash, why);
			if (!abs && z > 100)
				z = 100;	/* fio clamps it */
		}
		access[nr] = (uint8_t)a;
		acc += (unsigned int)a;
		size[nr] = z;
		if (abs) {
			size_pct[nr] = 0;	/* zoned_abs: sizes in bytes, no percentages to add up */
		} else if (!z) {
			size_pct[nr] = UINT8_MAX;
			sz_missing++;
		} else {
			size_pct[nr] = (uint8_t)z;
			sz += (unsigned int)z;
		}
		nr++;
		entry = next;
	}
	if (!nr)
		return 0;
	if (acc > 100 || sz > 100)
		return jf_bad(p, list, "the shares add up to more than 100");
	if (acc < 100)
		return jf_bad(p, list, "the access shares must add up to 100 (fio refuses it)");
	if (sz_missing == 1 && nr == 1)
		sz = 100;
	for (i = 0; i < nr; i++)
		if (size_pct[i] == UINT8_MAX)
			size_pct[i] = (uint8_t)((100 - sz) / sz_missing);
	s->job.nr_zones[dir] = nr;
	for (i = 0; i < nr; i++) {
		s->job.zones[dir][i].access = access[i];
		s->job.zones[dir][i].size_pct = abs ? 0 : size_pct[i];
		s->job.zones[dir][i].size = abs ? size[i] : 0;
	}
	return 0;
}

/* zoned:LIST[,WRITES[,TRIMS]]: one list stands for every direction (fio's str_split_parse) */
static int set_zoned(struct pctx *p, struct sect *s, char *str, bool abs)
{
	char *w = strchr(str, ','), *t = NULL, *copy;
	int ret;

	s->job.nr_zones[0] = s->job.nr_zones[1] = s->job.nr_zones[2] = 0;
	if (w) {
		*w++ = '\0';
		t = strchr(w, ',');
		if (t)
			*t++ = '\0';
		copy = strdup(t ? t : w);	/* R,W: the write list stands for trims too */
		if (!copy)
			return jf_perr(p, "out of memory");
		ret = zoned_dir(p, s, str, 0, abs);
		if (!ret)
			ret = zoned_dir(p, s, w, 1, abs);
		if (!ret)
			ret = zoned_dir(p, s, copy, 2, abs);
		free(copy);
	} else {
		ret = 0;
		for (int d = 2; d >= 0 && !ret; d--) {
			copy = d ? strdup(str) : str;
			if (!copy)
				return jf_perr(p, "out of memory");
			ret = zoned_dir(p, s, copy, d, abs);
			if (d)
				free(copy);
		}
	}
	if (ret)
		return ret;
	if (!s->job.nr_zones[0] && !s->job.nr_zones[1])
		return jf_bad(p, str, "no zones given");
	s->job.random_distribution = abs ? RQ_RAND_ZONED_ABS : RQ_RAND_ZONED;
	s->job.rand_param = 0.0;
	s->job.rand_center = -1.0;
	return 0;
}

/*
 * random_distribution=random | zipf[:THETA[:CENTER]] | pareto[:H[:CENTER]] |
 * normal[:SIGMA[:CENTER]], with fio's defaults (zipf 1.1, pareto 0.2,
 * normal 0) and range checks (str_random_distribution_cb).
 */
static int set_random_distribution(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	const struct opt_val *vp;
	char *post = strchr(str, ':'), *center = NULL;
	const char *why = NULL;
	double x = 0.0, c = -1.0;

	(void)v;
	if (!strncmp(str, "zoned:", 6))
		return set_zoned(p, s, str + 6, false);
	if (!strncmp(str, "zoned_abs:", 10))
		return set_zoned(p, s, str + 10, true);
	if (post) {
		*post++ = '\0';
		center = strchr(post, ':');
		if (center)
			*center++ = '\0';
	}
	vp = jf_find_val(dist_vals, str);
	if (vp && vp->refuse)
		return jf_perr(p, "%s=%s %s", p->key, str, vp->refuse);
	if (!vp)
		return jf_bad_enum(p, str, dist_vals);
	if (vp->val == RQ_RAND_UNIFORM && post)
		return jf_bad(p, post, "random takes no parameter");
	if (vp->val == RQ_RAND_ZONED || vp->val == RQ_RAND_ZONED_ABS)
		return jf_bad(p, str, "zoned needs its zones: zoned:ACCESS%/SIZE%:...");
	if (vp->val == RQ_RAND_ZIPF)
		x = 1.1;
	else if (vp->val == RQ_RAND_PARETO)
		x = 0.2;
	if (post && (why = jf_parse_float(post, &x, NULL)))
		return jf_bad(p, post, why);
	if (center && (why = jf_parse_float(center, &c, NULL)))
		return jf_bad(p, center, why);
	if (center && c > 1.0)
		return jf_bad(p, center, "the center is from 0 to 1");
	if (vp->val == RQ_RAND_ZIPF && x == 1.0)
		why = "zipf theta must not be 1";
	else if (vp->val == RQ_RAND_PARETO && !(x > 0.0 && x < 1.0))
		why = "pareto h is above 0 and below 1";
	else if (vp->val == RQ_RAND_NORMAL && !(x >= 0.0 && x < 100.0))
		why = "normal deviation is from 0 to below 100";
	if (why)
		return jf_bad(p, post, why);
	s->job.random_distribution = (enum rq_rand_dist)vp->val;
	s->job.rand_param = x;
	s->job.rand_center = c;
	return 0;
}

static void show_random_distribution(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%s", jf_val_name(dist_vals, j->random_distribution));
	if (j->random_distribution == RQ_RAND_ZONED || j->random_distribution == RQ_RAND_ZONED_ABS) {
		bool abs = j->random_distribution == RQ_RAND_ZONED_ABS;

		/* the zones as fio resolves them, reads then writes */
		for (int d = 0; d < 2; d++) {
			jf_bput(b, "%s", d ? "," : ":");
			for (unsigned int i = 0; i < j->nr_zones[d]; i++) {
				jf_bput(b, "%s%u/", i ? ":" : "", j->zones[d][i].access);
				if (abs)
					jf_bput(b, "%llu", (unsigned long long)j->zones[d][i].size);
				else
					jf_bput(b, "%u", j->zones[d][i].size_pct);
			}
		}
		return;
	}
	if (j->random_distribution != RQ_RAND_UNIFORM)
		jf_bput(b, ":%g", j->rand_param);
	if (j->random_distribution != RQ_RAND_UNIFORM && j->rand_center >= 0.0)
		jf_bput(b, ":%g", j->rand_center);
}

/* ------------------------------------------------------------ the options */

/*
 * Where random I/O goes, in fio's spelling; --showcmd walks them in this
 * order.
 */
const struct opt jf_opts_random[] = {
	{
		.name = "random_distribution", .type = OPT_STR, .vals = dist_vals,
		.set = set_random_distribution, .show = show_random_distribution,
		.def = "random",
		.help = "Random offsets: random, zipf[:theta], pareto[:h] or normal[:sigma], each "
			"with an optional :center",
	},
	{
		.name = "norandommap", .type = OPT_FLAG, FIELD(norandommap), .def = "0",
		.help = "Draw random offsets freely instead of each block once a pass",
	},
	{
		.name = "random_generator", .type = OPT_ENUM, FIELD(lfsr),
		.vals = random_generator_vals, .def = "tausworthe",
		.help = "Uniform random offsets: tausworthe or tausworthe64 (a random map, or "
			"free draws with norandommap), or lfsr (every block once a pass, no map)",
	},
	{
		.name = "randrepeat", .type = OPT_BOOL, FIELD(randrepeat), .def = "1",
		.help = "The same random sequence on every run; off when randseed is given, as fio",
	},
	{
		.name = "randseed", .type = OPT_SIZE, FIELD(randseed),
		.min = 0, .max = UINT64_MAX, .def = "0x89",
		.help = "Seed of the random sequence",
	},
};

const unsigned int jf_nr_opts_random = JF_ARRAY_LEN(jf_opts_random);
