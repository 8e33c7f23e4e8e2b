// SPDX-License-Identifier: MIT
/*
 * steady.c - fio 3.33's renderings of a steady-state judge (ss=,
 * ss_dur=): the job's "steadystate" JSON object, the same in json+, and
 * its "steadystate  :" line in the normal output.  fio's terse output has
 * none.  The engine's judge (engine/steadystate.c) fills the report.
 */
#include <inttypes.h>
#include <stdio.h>

#include "results/json_internal.h"
#include "results/output_internal.h"
#include "results/results.h"

/* fio's means: the sum of the whole window over its length, zeros included, in integers */
static uint64_t window_mean(const uint64_t *v, unsigned int dur)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < dur; i++)
		sum += v[i];
	return dur ? sum / dur : 0;
}

/* "iops", "bw_slope", ...: the criterion's name */
static const char *ss_name(const struct rq_ss_report *ss)
{
	return ss->bw ? (ss->slope ? "bw_slope" : "bw") : (ss->slope ? "iops_slope" : "iops");
}

/*
 * fio writes the limit and the criterion through a float, with "%f":
 * "iops:10.000000%", "3.333333%"; its max_deviation and slope are doubles.
 */
void rq_ss_json(struct rq_json *j, const struct rq_ss_report *ss)
{
	char buf[64];

	rq_json_obj_open(j, "steadystate");
	snprintf(buf, sizeof(buf), "%s:%f%s", ss_name(ss), (double)(float)ss->limit, ss->pct ? "%" : "");
	rq_json_str(j, "ss", buf);
	rq_json_u64(j, "duration", ss->dur);
	rq_json_u64(j, "attained", ss->attained);
	snprintf(buf, sizeof(buf), "%f%s", (double)(float)ss->criterion, ss->pct ? "%" : "");
	rq_json_str(j, "criterion", buf);
	rq_json_dbl(j, "max_deviation", ss->deviation);
	rq_json_dbl(j, "slope", ss->slope_val);
	rq_json_obj_open(j, "data");
	rq_json_u64(j, "bw_mean", window_mean(ss->bw_data, ss->dur));
	rq_json_u64(j, "iops_mean", window_mean(ss->iops_data, ss->dur));
	rq_json_arr_open(j, "iops");
	for (unsigned int i = 0; i < ss->dur; i++)
		rq_json_u64(j, NULL, ss->iops_data[i]);
	rq_json_arr_close(j);
	rq_json_arr_open(j, "bw");
	for (unsigned int i = 0; i < ss->dur; i++)
		rq_json_u64(j, NULL, ss->bw_data[i]);
	rq_json_arr_close(j);
	rq_json_obj_close(j);
	rq_json_obj_close(j);
}

/*
 * fio's show_ss_normal(): the mean bandwidth cut to kb_base units first
 * and shown from k/Ki on in both spellings (so "399KiB/s (399kB/s)": the
 * same number, as fio prints it), the mean IOPS, the last criterion.
 */
void rq_ss_text(struct rq_txt *t, const struct rq_ss_report *ss, unsigned int kb_base)
{
	bool i2p = !(kb_base & (kb_base - 1));
	uint64_t kb = window_mean(ss->bw_data, ss->dur) / kb_base;
	char bw[32], bw_alt[32], iops[32];

	rq_txt_out(t, "  steadystate  : attained=%s, bw=%s (%s), iops=%s, %s%s=%.3f%s\n",
	    ss->attained ? "yes" : "no",
	    rq_txt_n2s_k(bw, sizeof(bw), kb, SIG_FIGS, i2p, "B/s"),
	    rq_txt_n2s_k(bw_alt, sizeof(bw_alt), kb, SIG_FIGS, !i2p, "B/s"),
	    rq_txt_n2s(iops, sizeof(iops), window_mean(ss->iops_data, ss->dur), SIG_FIGS, false, ""),
	    ss->bw ? "bw" : "iops", ss->slope ? " slope" : " mean dev", ss->criterion, ss->pct ? "%" : "");
}
