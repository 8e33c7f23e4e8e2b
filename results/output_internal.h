/* SPDX-License-Identifier: MIT */
/*
 * output_internal.h - what output.c shares with output_rqlock.c.
 *
 * Internal to results/.  The text sink and fio's number and string
 * formatting are txt.c's, which both use; the "rqlock" part of a report (lock mode,
 * stuck requests, locks, queues, devices, then lockstat.c's sections) is
 * output_rqlock.c's, in both the JSON and the normal rendering.
 */
#ifndef RQ_RESULTS_OUTPUT_INTERNAL_H
#define RQ_RESULTS_OUTPUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rq_json;
struct rq_run_report;

/* fio's display default: sig_figs=4 */
#define SIG_FIGS 4

/* Text sink with a sticky error, as the JSON writer has. */
struct rq_txt {
	FILE *f;
	int err;
};

/* txt.c */
void rq_txt_out(struct rq_txt *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
unsigned int rq_txt_ndigits(uint64_t v);	/* decimal digits of @v */
/* fio's num2str(): @num in at most @maxlen digits, scaled by 1000 or (@pow2) 1024. */
const char *rq_txt_n2s(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2, const char *unit);
/* The same for @num in thousands (fio's base of kb_base): the prefix starts at k or Ki. */
const char *rq_txt_n2s_k(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2, const char *unit);
/* Copy @s (at most @max bytes) for the terminal: control bytes become '?'. */
const char *rq_txt_clean(char *buf, size_t len, const char *s, size_t max);

/* steady.c: fio's "steadystate" object and normal-output line of a job's judge */
struct rq_ss_report;
void rq_ss_json(struct rq_json *j, const struct rq_ss_report *ss);
void rq_ss_text(struct rq_txt *t, const struct rq_ss_report *ss, unsigned int kb_base);

/* The "rqlock" member of the top-level JSON object. */
void rq_output_rqlock_json(struct rq_json *j, const struct rq_run_report *r);
/* The normal output's rqlock section; errors stay in @t. */
void rq_output_rqlock_text(struct rq_txt *t, const struct rq_run_report *r);

#endif
