// SPDX-License-Identifier: MIT
/*
 * opt_steady.c - the steady-state options: steadystate (ss), its window
 * steadystate_duration (ss_dur) and steadystate_ramp_time (ss_ramp).
 * Holds their section of the option table, the setter and --showcmd
 * rendering of ss and its criteria, so that an option and its code read
 * in one place, as fio keeps them.  engine/steadystate.c judges them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

/* fio's criteria: what is sampled, and whether its slope or its spread is judged */
static const struct opt_val ss_vals[] = {
	{ "iops",	0,				NULL },
	{ "iops_slope",	RQ_JOB_SS_SLOPE,		NULL },
	{ "bw",		RQ_JOB_SS_BW,			NULL },
	{ "bw_slope",	RQ_JOB_SS_BW | RQ_JOB_SS_SLOPE,	NULL },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

/*
 * ss=CRITERION:LIMIT.  The limit is fio's: "N%" a percentage of the
 * window's mean, else a number of IOPS (a decimal) or of bytes per second
 * (a size: k, m, g after kb_base).  fio reads it with sscanf("%lf"), so
 * it takes "10abc" as 10 and a negative limit no window can meet; rqlock
 * takes a plain number of 0 or more.
 */
static int set_ss(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	const struct opt_val *vp;
	char *lim = strchr(str, ':'), *pct;
	const char *why = NULL;
	char text[64];
	unsigned int flags;
	uint64_t bytes;
	double x;

	(void)v;
	if (lim)
		*lim++ = '\0';
	vp = jf_find_val(ss_vals, str);
	if (!vp)
		return jf_bad_enum(p, str, ss_vals);
	if (!lim)
		return jf_perr(p, "bad value '%.64s' for option '%s': the criterion needs a limit "
			       "(%s:LIMIT, or %s:LIMIT%% of the mean)", str, p->key, str, str);
	while (*lim == ' ' || *lim == '\t')
		lim++;
	flags = (unsigned int)vp->val;
	snprintf(text, sizeof(text), "%s", lim);	/* as written, for a message */
	pct = strchr(lim, '%');
	if (pct) {
		if (pct[1])
			return jf_bad(p, text, "a percentage ends with its '%'");
		do
			*pct-- = '\0';
		while (pct >= lim && (*pct == ' ' || *pct == '\t'));
		flags |= RQ_JOB_SS_PCT;
		why = jf_parse_float(lim, &x, NULL);
	} else if (flags & RQ_JOB_SS_BW) {
		why = jf_parse_size(lim, s->kb_base ? s->kb_base : 1024, &bytes);
		x = (double)bytes;
	} else {
		why = jf_parse_float(lim, &x, NULL);
	}
	if (why)
		return jf_bad(p, text, why);
	s->job.ss_flags = flags;
	s->job.ss_limit = x;
	return 0;
}

/* The limit in the fewest decimals that read back as it: set_ss() takes no exponent. */
static void show_ss(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	char lim[400];
	int d = 0;

	(void)o;
	do
		snprintf(lim, sizeof(lim), "%.*f", d, j->ss_limit);
	while (strtod(lim, NULL) != j->ss_limit && ++d <= 17);
	jf_bput(b, "%s:%s%s", jf_val_name(ss_vals, j->ss_flags & ~RQ_JOB_SS_PCT), lim,
		j->ss_flags & RQ_JOB_SS_PCT ? "%" : "");
}

/* ------------------------------------------------------------ the options */

/* fio's steady-state detection, in fio's spelling; --showcmd walks them in this order. */
const struct opt jf_opts_steady[] = {
	{
		.name = "steadystate", .alias = "ss", .type = OPT_STR, .set = set_ss,
		.show = show_ss, .vals = ss_vals, .def = "iops_slope:0.01%",
		.help = "Steady when the criterion over the ss_dur window is below the limit: "
			"iops, bw (largest deviation from the mean), iops_slope, bw_slope "
			"(least-squares slope), each :LIMIT, or :LIMIT% of the mean",
	},
	{
		.name = "steadystate_duration", .alias = "ss_dur", .type = OPT_TIME,
		FIELD(ss_dur_ns), .unit = NS_PER_SEC, .div = 1, .def = "0",
		.help = "End the job once it was steady over a window this long, one sample a "
			"second; seconds unless suffixed, whole seconds count; 0 is no detection",
	},
	{
		.name = "steadystate_ramp_time", .alias = "ss_ramp", .type = OPT_TIME,
		FIELD(ss_ramp_ns), .unit = NS_PER_SEC, .div = 1, .def = "0",
		.help = "Run this long before keeping steady-state samples, seconds unless "
			"suffixed",
	},
};

const unsigned int jf_nr_opts_steady = JF_ARRAY_LEN(jf_opts_steady);
