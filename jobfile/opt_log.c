// SPDX-License-Identifier: MIT
/*
 * opt_log.c - the options of what a job records and reports: iologs and
 * their replay (write_iolog, read_iolog, merge_blktrace_*, replay_*), the percentiles
 * reported (percentile_list, clat/lat/slat_percentiles),
 * unified_rw_reporting, fio's per-I/O logs (write_*_log, log_*,
 * per_job_logs) and the statistics turned off (gtod_reduce, disable_*).
 * Holds their section of the option table, the setters and --showcmd
 * renderings of exactly these options and the value tables only they use,
 * so that an option and its code read in one place, as fio keeps them.
 */
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

static const struct opt_val unified_vals[] = {
	{ "none",	0,	NULL },
	{ "mixed",	1,	NULL },
	{ "both",	2,	NULL },
	{ "0",		0,	NULL },
	{ "1",		1,	NULL },
	{ "2",		2,	NULL },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

/* replay_align: a power of 2, as fio's .pow2 */
static int set_replay_align(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	if (v & (v - 1))
		return jf_bad(p, str, "a power of 2");
	s->job.replay_align = v;
	return 0;
}

/* replay_skip=read,write,trim,sync: the bits of the actions not replayed */
static int set_replay_skip(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	static const struct { const char *name; unsigned int bit; } kinds[] = {
		{ "read", RQ_REPLAY_SKIP_READ }, { "write", RQ_REPLAY_SKIP_WRITE },
		{ "trim", RQ_REPLAY_SKIP_TRIM }, { "sync", RQ_REPLAY_SKIP_SYNC },
	};
	unsigned int bits = 0;

	(void)v;
	for (char *w = strtok(str, ","); w; w = strtok(NULL, ",")) {
		size_t i;

		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kinds[i].name, w); i++)
			;
		if (i == sizeof(kinds) / sizeof(kinds[0]))
			return jf_bad(p, w, "read, write, trim or sync, comma-separated");
		bits |= kinds[i].bit;
	}
	s->job.replay_skip = bits;
	return 0;
}

static void show_replay_skip(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	static const char *const names[] = { "read", "write", "trim", "sync" };
	const char *sep = "";

	(void)o;
	for (unsigned int i = 0; i < 4; i++) {
		if (j->replay_skip & (1u << i)) {
			jf_bput(b, "%s%s", sep, names[i]);
			sep = ",";
		}
	}
}

/* What a ':' list of decimals may hold (fio's FIO_OPT_FLOAT_LIST options). */
struct float_list {
	unsigned int max;		/* values at most */
	double lo, hi;			/* each in [lo, hi], or (lo, hi] when lo_open */
	bool lo_open;
	const char *range, *many;	/* why a value or the list is refused */
};

/* Parse @str into @out: the count, or -EINVAL after jf_bad(); *@prec the most decimals given. */
static int float_list(struct pctx *p, char *str, const struct float_list *l, double *out, unsigned int *prec)
{
	unsigned int nr = 0, dec;
	char *c = str, *next;
	double x;

	*prec = 0;
	while (c) {
		const char *why;

		next = strchr(c, ':');
		if (next)
			*next++ = '\0';
		if (nr == l->max)
			return jf_bad(p, str, l->many);
		why = jf_parse_float(c, &x, &dec);
		if (!why && !((l->lo_open ? x > l->lo : x >= l->lo) && x <= l->hi))
			why = l->range;
		if (why)
			return jf_bad(p, c, why);
		out[nr++] = x;
		*prec = dec > *prec ? dec : *prec;
		c = next;
	}
	return (int)nr;
}

/*
 * merge_blktrace_scalars=P:P:... and merge_blktrace_iters=N:N:...: one
 * value per trace of read_iolog, at most 20.  fio reads them as decimals
 * and keeps the whole part (init_merge_param_list()); a value whose whole
 * part is 0 would end fio's list there, so it is refused.
 */
static int set_merge_list(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	static const struct float_list scalars = {
		RQ_MAX_MERGE_TRACES, 1.0, 1e9, false, "a percentage of the trace's times, 1 or more",
		"more than 20 values (one per trace)",
	}, iters = {
		RQ_MAX_MERGE_TRACES, 1.0, 1e9, false, "a number of passes, 1 or more",
		"more than 20 values (one per trace)",
	};
	bool it = !strcmp(p->key, "merge_blktrace_iters");
	unsigned int prec;
	int nr = float_list(p, str, it ? &iters : &scalars,
			    it ? s->job.merge_blktrace_iters : s->job.merge_blktrace_scalars, &prec);

	(void)v;
	if (nr < 0)
		return nr;
	*(it ? &s->job.nr_merge_iters : &s->job.nr_merge_scalars) = (unsigned int)nr;
	return 0;
}

static void show_merge_list(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	bool iters = !strcmp(o->name, "merge_blktrace_iters");
	const double *v = iters ? j->merge_blktrace_iters : j->merge_blktrace_scalars;
	unsigned int nr = iters ? j->nr_merge_iters : j->nr_merge_scalars;

	for (unsigned int i = 0; i < nr; i++)
		jf_bput(b, "%s%g", i ? ":" : "", v[i]);
}

/* percentile_list=P:P:..., at most 20, each in (0, 100]; fio sorts them for output. */
static int set_percentile_list(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	static const struct float_list pct = {
		RQ_MAX_PERCENTILES, 0.0, 100.0, true,
		"a percentile is above 0 and at most 100 (fio ends the list at a 0)", "more than 20 percentiles",
	};
	int nr = float_list(p, str, &pct, s->job.percentile_list, &s->job.percentile_precision);

	(void)v;
	if (nr < 0)
		return nr;
	s->job.nr_percentiles = (unsigned int)nr;
	return 0;
}

static void show_percentile_list(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	for (unsigned int i = 0; i < j->nr_percentiles; i++)
		jf_bput(b, "%s%.*f", i ? ":" : "", (int)j->percentile_precision, j->percentile_list[i]);
}

/*
 * write_lat_log[=NAME] and its kin (fio's str_write_*_log_cb): the log is
 * on, NAME (or "" for a bare word: the job's name, decided by the engine
 * as fio's make_log_name) into the option's field, the option's bit in
 * write_logs.
 */
static int set_write_log(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	const struct opt *o = jf_opt_find(p->key);
	size_t n = strlen(str);

	(void)v;
	if (!o || !o->size || !o->bit)
		return jf_perr(p, "option '%s' has a bad table entry", p->key);
	if (n >= o->size)
		return jf_perr(p, "value of option '%s' is longer than %zu bytes", p->key, o->size - 1);
	memcpy((char *)&s->job + o->off, str, n + 1);
	s->job.write_logs |= (unsigned int)o->bit;
	return 0;
}

static void show_write_log(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	jf_bput(b, "%.*s", (int)o->size, (const char *)j + o->off);
}

/* gtod_reduce=1: fio's str_gtod_reduce_cb, fewer clock reads and fewer stats */
static int set_gtod_reduce(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.gtod_reduce = v != 0;
	if (!v)
		return 0;	/* fio leaves the others alone */
	s->job.disable_lat = s->job.disable_clat = s->job.disable_slat = true;
	s->job.disable_bw = true;
	s->job.clat_percentiles = s->job.lat_percentiles = s->job.slat_percentiles = false;
	return 0;
}

/* ------------------------------------------------------------ the options */

/*
 * What a job records and reports, in fio's spelling (fio's name is the
 * canonical one, fio's alias the alias); --showcmd walks them in this
 * order.
 */
const struct opt jf_opts_log[] = {
	{
		.name = "write_iolog", .type = OPT_STR, FIELD(write_iolog),
		.help = "Write the I/Os issued to FILE in fio's iolog version 3 format "
			"(FILE.N for clone N > 0) (default: none)",
	},
	{
		.name = "read_iolog", .type = OPT_STR, FIELD(read_iolog),
		.help = "Replay the I/Os of fio's iolog (version 2 or 3) or of a blktrace "
			"(blkparse -d) instead of drawing them; FILE:FILE... gives the "
			"clones one log each in turn (default: none)",
	},
	{
		.name = "merge_blktrace_file", .type = OPT_STR, FIELD(merge_blktrace_file),
		.help = "Merge read_iolog's blktraces by time into this file and replay it "
			"(default: none)",
	},
	{
		.name = "merge_blktrace_scalars", .type = OPT_STR, .set = set_merge_list,
		.show = show_merge_list,
		.help = "Per trace merged, percent of its times: 50 replays it twice as "
			"fast, P:P:... (default: 100 each)",
	},
	{
		.name = "merge_blktrace_iters", .type = OPT_STR, .set = set_merge_list,
		.show = show_merge_list,
		.help = "Per trace merged, how many times it runs, one after the other, "
			"N:N:... (default: 1 each)",
	},
	{
		.name = "replay_no_stall", .type = OPT_BOOL, FIELD(replay_no_stall), .def = "0",
		.help = "Replay as fast as the queue depth allows, ignoring the log's times",
	},
	{
		.name = "replay_time_scale", .type = OPT_INT, FIELD(replay_time_scale),
		.min = 1, .max = UINT32_MAX, .def = "100",
		.help = "Replay at this percent of the log's rate: 200 is twice as fast",
	},
	{
		.name = "replay_redirect", .type = OPT_STR, FIELD(replay_redirect),
		.help = "Replay every I/O of the log on this one file or device "
			"(default: the files the log names, a blktrace's devices)",
	},
	{
		.name = "replay_scale", .type = OPT_INT, FIELD(replay_scale),
		.min = 1, .max = UINT64_MAX, .def = "1",
		.help = "Divide the log's offsets by this",
	},
	{
		.name = "replay_align", .type = OPT_INT, FIELD(replay_align),
		.min = 0, .max = UINT64_MAX, .def = "0", .set = set_replay_align,
		.help = "Round the log's offsets down to this power of 2, after replay_scale; 0 "
			"is none",
	},
	{
		.name = "replay_skip", .type = OPT_STR, .set = set_replay_skip,
		.show = show_replay_skip,
		.help = "Actions of the log not replayed: a comma list of read, write, "
			"trim, sync (default: none)",
	},
	{
		.name = "percentile_list", .type = OPT_STR, .set = set_percentile_list,
		.show = show_percentile_list,
		.help = "Latency percentiles to report, P:P:..., at most 20 "
			"(default: fio's 17, 1 to 99.99)",
	},
	{
		.name = "clat_percentiles", .type = OPT_BOOL, FIELD(clat_percentiles), .def = "1",
		.help = "Report completion latency percentiles",
	},
	{
		.name = "lat_percentiles", .type = OPT_BOOL, FIELD(lat_percentiles), .def = "0",
		.help = "Report total latency percentiles",
	},
	{
		.name = "slat_percentiles", .type = OPT_BOOL, FIELD(slat_percentiles), .def = "0",
		.help = "Report submission latency percentiles",
	},
	{
		.name = "unified_rw_reporting", .type = OPT_ENUM, FIELD(unified_rw_reporting),
		.vals = unified_vals, .def = "none",
		.help = "none: reads and writes apart; mixed: together; both",
	},

	/* fio's logs: results/iolog.c writes them, fio 3.33's names and lines */
	{
		.name = "write_lat_log", .type = OPT_NAME, FIELD(lat_log_file), .bit = RQ_JOB_LOG_LAT,
		.set = set_write_log, .show = show_write_log,
		.help = "Write per-I/O latency logs NAME_lat, NAME_slat and NAME_clat "
			"(.N.log, N the clone's number); a bare word names them after "
			"the job (default: none)",
	},
	{
		.name = "write_bw_log", .type = OPT_NAME, FIELD(bw_log_file), .bit = RQ_JOB_LOG_BW,
		.set = set_write_log, .show = show_write_log,
		.help = "Write a bandwidth log NAME_bw, KiB/s (default: none)",
	},
	{
		.name = "write_iops_log", .type = OPT_NAME, FIELD(iops_log_file), .bit = RQ_JOB_LOG_IOPS,
		.set = set_write_log, .show = show_write_log,
		.help = "Write an IOPS log NAME_iops (default: none)",
	},
	{
		.name = "write_hist_log", .type = OPT_NAME, FIELD(hist_log_file), .bit = RQ_JOB_LOG_HIST,
		.set = set_write_log, .show = show_write_log,
		.help = "Write completion-latency histograms NAME_clat_hist every "
			"log_hist_msec, fiologparser_hist.py's input (default: none)",
	},
	{
		.name = "log_avg_msec", .type = OPT_INT, FIELD(log_avg_msec),
		.min = 0, .max = UINT32_MAX, .def = "0",
		.help = "Average log values over windows of this many ms; 0 logs every I/O",
	},
	{
		.name = "log_hist_msec", .type = OPT_INT, FIELD(log_hist_msec),
		.min = 0, .max = UINT32_MAX, .def = "0",
		.help = "A histogram line every this many ms; 0 writes none",
	},
	{
		.name = "log_hist_coarseness", .type = OPT_INT, FIELD(log_hist_coarseness),
		.min = 0, .max = 6, .def = "0",
		.help = "Merge 2^N histogram buckets into one, 0 to 6",
	},
	{
		.name = "log_max_value", .type = OPT_BOOL, FIELD(log_max_value), .def = "0",
		.help = "Averaged windows log their maximum, not their mean",
	},
	{
		.name = "log_offset", .type = OPT_BOOL, FIELD(log_offset), .def = "0",
		.help = "Log lines carry the I/O's offset",
	},
	{
		.name = "log_prio", .type = OPT_BOOL, FIELD(log_prio), .def = "0",
		.help = "The last column is the I/O priority as 0x%04x, not the RT flag; rqlock's "
			"is always 0",
	},
	{
		.name = "log_store_compressed", .type = OPT_BOOL, FIELD(log_store_compressed),
		.def = "0",
		.help = "Store logs zlib-compressed as fio does (NAME.log.fz, fio's binary "
			"samples); rqlock run --inflate-log prints one",
	},
	{
		.name = "log_compression", .type = OPT_SIZE, FIELD(log_compression),
		.min = 0, .max = 512ULL << 20, .def = "0",
		.help = "Bytes of samples per compressed chunk of a stored .fz log; rqlock keeps "
			"samples uncompressed in memory",
	},
	{
		.name = "per_job_logs", .type = OPT_BOOL, FIELD(per_job_logs), .def = "1",
		.help = "The clone's number in log file names; 0 shares one file",
	},

	{
		.name = "gtod_reduce", .type = OPT_BOOL, FIELD(gtod_reduce), .set = set_gtod_reduce,
		.def = "0",
		.help = "Keep no latencies, bandwidth samples or percentiles (sets the disable_* "
			"options, as fio)",
	},
	{
		.name = "disable_lat", .type = OPT_BOOL, FIELD(disable_lat), .def = "0",
		.help = "Keep no total latency",
	},
	{
		.name = "disable_clat", .type = OPT_BOOL, FIELD(disable_clat), .def = "0",
		.help = "Keep no completion latency",
	},
	{
		.name = "disable_slat", .type = OPT_BOOL, FIELD(disable_slat), .def = "0",
		.help = "Keep no submission latency",
	},
	{
		.name = "disable_bw_measurement", .alias = "disable_bw", .type = OPT_BOOL,
		FIELD(disable_bw), .def = "0",
		.help = "Take no bandwidth or IOPS samples",
	},
};

const unsigned int jf_nr_opts_log = JF_ARRAY_LEN(jf_opts_log);
