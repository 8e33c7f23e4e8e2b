/* SPDX-License-Identifier: MIT */
/*
 * jobfile_internal.h - shared by the parser's files only (jobfile/): the
 * option table's entry (struct opt) and what the files export to each
 * other, grouped by the file that defines it.
 */
#ifndef RQ_JOBFILE_INTERNAL_H
#define RQ_JOBFILE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jobfile/job.h"

#define LINE_MAX_LEN	(1u << 20)	/* a hand-written job file never needs more */
#define JOBS_MAX	65536u		/* job sections over all files */
#define BS_MAX		(16u << 20)
#define NS_PER_SEC	1000000000ull
#define NS_PER_US	1000ull
#define INCLUDE_DEPTH	16		/* nested include files; fio has no limit */

_Static_assert(sizeof(bool) == 1, "store() assumes a one-byte bool");
_Static_assert(sizeof(enum rq_rw) == sizeof(uint32_t), "enums are stored as 32 bits");
_Static_assert(sizeof(enum rq_ioengine) == sizeof(uint32_t), "enums are stored as 32 bits");

/* A growable list of key/value strings ("job options", "global options"). */
struct strlist {
	char **keys, **vals;
	unsigned int nr, cap;
};

/* State of one parse: where we are, for messages, and the jobs so far. */
struct pctx {
	const char *file;
	int line;		/* 0: the message names the file only */
	const char *key;	/* the option as written, for messages */
	FILE *err;
	bool failed;		/* at most one error line per parse */
	struct rq_job_list list;
	unsigned int cap;
	const struct rq_parse_opts *po;
	unsigned int sections_seen;	/* job sections, selected by --section or not */
	/* names of included files: kept lines point into them */
	char **names;
	unsigned int nr_names;
};

/* A section as it is being filled: the job plus parser-only settings. */
struct sect {
	struct rq_job job;
	unsigned int kb_base;		/* fio's kb_base: 1024 or 1000 */
	uint8_t set[RQ_JOB_OPTS_MAX / 8];	/* options written here or inherited */
};

enum opt_type {
	OPT_STR,	/* text, stored as written */
	OPT_INT,	/* a count; fio reads it like a size, so "1k" is 1024 */
	OPT_SIZE,	/* bytes; k/m/g/t/p suffixes follow kb_base */
	OPT_TIME,	/* a bare number is .unit (seconds or microseconds) */
	OPT_BOOL,	/* 0 or 1 */
	OPT_ENUM,	/* one of .vals */
	OPT_FLAG,	/* the bare word sets it; =0 and =1 also accepted */
	OPT_NAME,	/* a bare word, or one with a name: .set gets "" or the name */
};

/* What rqlock does with an option fio knows. */
enum opt_kind {
	K_IMPL,		/* implemented: fills the job */
	K_INERT,	/* accepted with a warning: cannot change rqlock's result */
	K_ONLY,		/* accepted only at the values in .only (fio's default) */
	K_NOPE,		/* refused: rqlock does not implement it */
};

struct opt_val {
	const char *name;
	int val;
	const char *refuse;	/* non-NULL: known to fio, refused, this says why */
};

struct pctx;
struct sbuf;
struct opt;
/* Stores the value instead of off/size: the number, or the text. */
typedef int jf_setter(struct pctx *p, struct sect *s, uint64_t v, char *str);
/* --showcmd: prints the resolved value (after "--name=") */
typedef void jf_shower(struct sbuf *b, const struct rq_job *j, const struct opt *o);

struct opt {
	const char *name;
	const char *alias;
	enum opt_kind kind;
	enum opt_type type;
	size_t off;		/* offsetof(struct rq_job, field) */
	size_t size;		/* sizeof the field; 0: no field */
	unsigned int nr;	/* OPT_INT/OPT_SIZE: fields a "R,W" list fills, from off on */
	int bit;		/* OPT_FLAG on an int field: the bit it sets */
	int prio;		/* fio's .prio: 1 applied first, -1 last */
	bool engine;		/* an option of fio's io_uring engines */
	bool libaio;		/* ... and of its libaio engine (cmdprio_*) */
	bool pct;		/* OPT_SIZE: "N%" of the device is allowed */
	size_t pct_off;		/* ... and goes into this double */
	size_t zone_off;	/* OPT_SIZE: "Nz", N zones, goes into this uint64_t (0: not allowed) */
	uint64_t unit;		/* OPT_TIME: ns in a bare number */
	uint64_t div;		/* OPT_TIME: the field holds ns / div */
	uint64_t min, max;	/* OPT_INT, OPT_SIZE */
	const struct opt_val *vals;
	jf_setter *set;		/* NULL: stored by type at off/size */
	jf_shower *show;	/* NULL: shown by type */
	const char *only;	/* K_ONLY: accepted values, '|' between them */
	const char *why;	/* K_INERT, K_NOPE, K_ONLY: the reason given */
	const char *def;	/* the default, written as in a job file */
	const char *help;	/* K_IMPL: what the option does; its default too only when .def is NULL */
};

#define JF_ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

#define FIELD(m)	.off = offsetof(struct rq_job, m), \
			.size = sizeof(((struct rq_job *)0)->m)

#define REFUSE_NEVER	"is not supported in rqlock"

/* opt_file.c: zonemode's checks and zone counts made bytes, once a job section is read */
int jf_zone_fixup(struct pctx *p, struct rq_job *j);

/* perr.c: the parse's error line and warnings (parse.c, section.c, expand.c and the setters) */
int jf_perr(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jf_pwarn(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jf_vwarn(struct pctx *p, const char *fmt, va_list ap);	/* "FILE:LINE: warning: ..." */
/* A warning fio prints too: printed, or with --warnings-fatal the parse's error (-EINVAL) */
int jf_warn_fio(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * options.c: the table, a registry of sections.  An option's index is its
 * place over the sections in order, dense 0..jf_nr_opts()-1 (at most
 * RQ_JOB_OPTS_MAX): its bit in sect.set and rq_job.opts_set.
 */
const struct opt *jf_opt_at(unsigned int i);	/* NULL past the end */
unsigned int jf_nr_opts(void);
const struct opt *jf_opt_find(const char *key);	/* by name or alias; NULL: unknown */
unsigned int jf_opt_idx(const struct opt *o);
const char *jf_closest(const char *key);
const char *jf_engine_of(const char *key);
void jf_bit_set(uint8_t *set, unsigned int i);
bool jf_bit_test(const uint8_t *set, unsigned int i);
bool jf_is_set(const struct sect *s, const char *name);
void jf_mark(struct sect *s, const char *name);
extern const struct opt_val jf_ioengine_vals[];

/* opt_*.c: the implemented options by concern, the sections options.c lists in order */
extern const struct opt jf_opts_job[];		/* opt_job.c: job description and control */
extern const unsigned int jf_nr_opts_job;
extern const struct opt jf_opts_steady[];	/* opt_steady.c: steady-state detection */
extern const unsigned int jf_nr_opts_steady;
extern const struct opt jf_opts_io[];		/* opt_io.c: what I/O is issued */
extern const unsigned int jf_nr_opts_io;
extern const struct opt jf_opts_prio[];	/* opt_prio.c: I/O priorities, serialize_overlap */
extern const unsigned int jf_nr_opts_prio;
extern const struct opt jf_opts_random[];	/* opt_random.c: where random I/O goes */
extern const unsigned int jf_nr_opts_random;
extern const struct opt jf_opts_pace[];		/* opt_pace.c: how fast */
extern const unsigned int jf_nr_opts_pace;
extern const struct opt jf_opts_file[];		/* opt_file.c: files and their layout */
extern const unsigned int jf_nr_opts_file;
extern const struct opt jf_opts_verify[];	/* opt_verify.c: verify, data patterns */
extern const unsigned int jf_nr_opts_verify;
extern const struct opt jf_opts_log[];		/* opt_log.c: iologs, logs, reporting */
extern const unsigned int jf_nr_opts_log;

/* value.c */
int jf_opt_apply(struct pctx *p, struct sect *s, const struct opt *o, char *v);
uint64_t jf_load(const struct rq_job *j, const struct opt *o, unsigned int idx);
long jf_cpus_configured(void);
/* value.c, for the setters: the parsers return NULL or why the text is bad */
const char *jf_digits(const char **sp, unsigned int base, uint64_t *out);
const char *jf_parse_size(const char *v, unsigned int kb_base, uint64_t *out);
const char *jf_parse_float(const char *v, double *out, unsigned int *decimals);
const struct opt_val *jf_find_val(const struct opt_val *vals, const char *v);
/* "bad value 'V' for option 'KEY': WHY" (or the valid values); -EINVAL */
int jf_bad(struct pctx *p, const char *v, const char *why);
int jf_bad_enum(struct pctx *p, const char *v, const struct opt_val *vals);

/* expand.c: ${VAR}, $pagesize/$mb_memory/$ncpus and bc's arithmetic on a value; a new string, or NULL after the error */
char *jf_expand(struct pctx *p, const char *v);

/* section.c: sections and the application of their options, for parse.c */
/* An option line kept until its section ends (fio applies them sorted). */
struct kv {
	const struct opt *o;
	char *key;		/* as written; owns the allocation */
	char *val;		/* into the same allocation; NULL for a bare word */
	const char *file;	/* where it was written (an included file, maybe) */
	int line;
};

/* Per-file parse state. */
struct fstate {
	const char *name;	/* the job file */
	struct sect glob;	/* [global] options so far in this file */
	struct sect cur;	/* the section being read */
	bool in_sect, cur_global;
	bool skip;		/* a job section --section did not select */
	bool wall;		/* next job section starts a group (file > 0) */
	unsigned int nr_jobs;	/* job sections in this file, selected or not */
	struct kv *kv;
	unsigned int nr_kv, cap_kv;
	struct strlist glob_opts;	/* "global options" */
	struct strlist cur_opts;	/* the current section's own options */
};

int jf_strlist_add(struct strlist *l, const char *key, const char *val);
void jf_free_pairs(char **keys, char **vals, unsigned int nr);	/* a list's arrays, handed over */
/* The table's defaults into @s, through the same code as a job file's values */
int jf_apply_defaults(struct pctx *p, struct sect *s);
/* [NAME] starts a section (global or job) of @f; the current one must have ended */
int jf_sect_start(struct pctx *p, struct fstate *f, const char *name);
/* The current section's kept lines applied in fio's order, then fio's fix-ups; a job joins p->list */
int jf_sect_end(struct pctx *p, struct fstate *f);
/* Option @key with @val (NULL: a bare word) kept for the current section; @blank: "key= val" */
int jf_add_opt(struct pctx *p, struct fstate *f, const char *key, const char *val, bool blank);
void jf_fstate_free(struct fstate *f);

/* showcmd.c */
/* A bounded text buffer; output past its end is cut (never overflows). */
struct sbuf {
	char *s;
	size_t len, cap;
};

void jf_bput(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *jf_val_name(const struct opt_val *vals, uint64_t v);

#endif /* RQ_JOBFILE_INTERNAL_H */
