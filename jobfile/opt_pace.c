// SPDX-License-Identifier: MIT
/*
 * opt_pace.c - the options that say how fast a job goes: rate, rate_iops,
 * rate_process, thinktime with its spin and blocks, and the latency
 * target search (latency_target, latency_window, latency_percentile,
 * latency_run).  Holds their section of the option table, the setters and
 * --showcmd renderings of exactly these options and the value tables only
 * they use, so that an option and its code read in one place, as fio
 * keeps them.
 */
#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

static const struct opt_val rate_process_vals[] = {
	{ "linear",	0,	NULL },
	{ "poisson",	1,	NULL },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

/* latency_percentile=P, in (0, 100] */
static int set_latency_percentile(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	const char *why;
	double x;

	(void)v;
	why = jf_parse_float(str, &x, NULL);
	if (!why && !(x > 0.0 && x <= 100.0))
		why = "a percentile is above 0 and at most 100";
	if (why)
		return jf_bad(p, str, why);
	s->job.latency_percentile = x;
	return 0;
}

static void show_latency_percentile(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%g", j->latency_percentile);
}

/* ------------------------------------------------------------ the options */

/*
 * How fast I/O is issued, in fio's spelling; --showcmd walks them in this
 * order.
 */
const struct opt jf_opts_pace[] = {
	{
		.name = "rate_iops", .type = OPT_INT, FIELD(rate_iops[0]), .nr = 3,
		.min = 0, .max = UINT32_MAX, .def = "0",
		.help = "I/Os per second per clone, R,W,T as bs; 0 is no limit",
	},
	{
		.name = "rate_process", .type = OPT_ENUM, FIELD(rate_poisson),
		.vals = rate_process_vals, .def = "linear",
		.help = "How rate_iops spaces I/Os: linear or poisson",
	},
	{
		.name = "thinktime", .type = OPT_TIME, FIELD(thinktime_us),
		.unit = NS_PER_US, .div = NS_PER_US, .def = "0",
		.help = "Pause after thinktime_blocks I/Os, microseconds unless suffixed",
	},
	{
		.name = "thinktime_spin", .type = OPT_TIME, FIELD(thinktime_spin_us),
		.unit = NS_PER_US, .div = NS_PER_US, .def = "0",
		.help = "Part of thinktime spent spinning, at most thinktime, microseconds unless "
			"suffixed",
	},
	{
		.name = "thinktime_blocks", .type = OPT_INT, FIELD(thinktime_blocks),
		.min = 1, .max = UINT32_MAX, .def = "1",
		.help = "I/Os between pauses of thinktime",
	},
	{
		.name = "rate", .type = OPT_SIZE, FIELD(rate[0]), .nr = 3, .min = 0,
		.max = UINT64_MAX, .def = "0",
		.help = "Bytes per second per clone, R,W,T as bs; 0 is no limit",
	},
	{
		.name = "latency_target", .type = OPT_TIME, FIELD(latency_target_ns),
		.unit = NS_PER_US, .div = 1, .def = "0",
		.help = "Search for the deepest queue (up to iodepth) whose latency_percentile of "
			"I/Os completes within this, as fio's; microseconds unless suffixed; 0 is "
			"no search",
	},
	{
		.name = "latency_window", .type = OPT_TIME, FIELD(latency_window_ns),
		.unit = NS_PER_US, .div = 1, .def = "0",
		.help = "Time the latency is judged over before the depth moves, microseconds "
			"unless suffixed; 0 judges each round",
	},
	{
		.name = "latency_percentile", .type = OPT_STR, .set = set_latency_percentile,
		.show = show_latency_percentile, .def = "100",
		.help = "Share of I/Os that must meet latency_target",
	},
	{
		.name = "latency_run", .type = OPT_BOOL, FIELD(latency_run), .def = "0",
		.help = "Keep adjusting the depth to latency_target for the whole run; 0 ends the "
			"job once the depth is found",
	},
};

const unsigned int jf_nr_opts_pace = JF_ARRAY_LEN(jf_opts_pace);
