/* SPDX-License-Identifier: MIT */
/*
 * jobfile.c - fio job-file parser.
 *
 * Reads fio 3.33 job files into struct rq_job_list.  Every option fio 3.33
 * knows lives in one declarative table (opts[] below): name, alias, type,
 * the field it fills, its default and a help text that states the default.
 * Defaults are applied by running each .def string through the same code
 * as a job file value, so the table is the only place a default is written.
 * Options rqlock does not implement are in the same table: refused with an
 * error naming the option, file and line; accepted only at fio's default
 * value; or, when they cannot change the result, accepted with a warning.
 * A name fio does not know either is "unknown option".
 *
 * fio's order of work is kept: a section's lines are collected first, then
 * applied in fio's option priority (kb_base and cpus_allowed_policy first,
 * filename last, ioengine options after everything), then fio's per-job
 * fix-ups run (fixup_options in fio's init.c), so that inter-dependent
 * options resolve as they do in fio.  Values go through ${VAR} expansion,
 * then $pagesize, $mb_memory and $ncpus, and - only when one of those was
 * replaced and the value holds + - * / - through integer arithmetic, as fio
 * hands such values to bc.
 *
 * Where fio 3.33 is lax (trailing garbage after a number, unknown suffixes
 * read as 1, "10sec" read as 10 microseconds, "10.5%" read as 10 bytes)
 * rqlock refuses the value with an error naming it: a job file both
 * programs accept means the same job to both.  Where fio misreads or
 * rejects what rqlock accepts ("bs = 8k", bare "direct"), rqlock reads what
 * was meant and warns that fio would not.
 *
 * Diagnostics: an error prints exactly one line "file:line: message" to the
 * caller's stream and the whole parse fails; warnings print
 * "file:line: warning: ..." to the same stream and the parse goes on.
 *
 * Memory: a line may be up to LINE_MAX_LEN bytes, refused (never cut) past
 * that; only the lines of the section being read are kept.
 */
#include "engine/job.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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
	bool pct;		/* OPT_SIZE: "N%" of the device is allowed */
	size_t pct_off;		/* ... and goes into this double */
	uint64_t unit;		/* OPT_TIME: ns in a bare number */
	uint64_t div;		/* OPT_TIME: the field holds ns / div */
	uint64_t min, max;	/* OPT_INT, OPT_SIZE */
	const struct opt_val *vals;
	/* Stores the value instead of off/size: the number, or the text. */
	int (*set)(struct pctx *p, struct sect *s, uint64_t v, char *str);
	/* --showcmd: prints the resolved value (after "--name="); NULL: by type */
	void (*show)(struct sbuf *b, const struct rq_job *j, const struct opt *o);
	const char *only;	/* K_ONLY: accepted values, '|' between them */
	const char *why;	/* K_INERT, K_NOPE, K_ONLY: the reason given */
	const char *def;	/* the default, written as in a job file */
	const char *help;	/* K_IMPL: says what the option does and its default */
};

#define FIELD(m)	.off = offsetof(struct rq_job, m), \
			.size = sizeof(((struct rq_job *)0)->m)

#define REFUSE_NEVER	"is not supported in rqlock"

static int perr(struct pctx *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void pwarn(struct pctx *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print the one error line of this parse; returns -EINVAL for the caller. */
static int perr(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed || !p->err)
		goto out;
	if (p->line > 0)
		fprintf(p->err, "%s:%d: ", p->file, p->line);
	else
		fprintf(p->err, "%s: ", p->file);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
out:
	p->failed = true;
	return -EINVAL;
}

static void pwarn(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->err)
		return;
	if (p->line > 0)
		fprintf(p->err, "%s:%d: warning: ", p->file, p->line);
	else
		fprintf(p->err, "%s: warning: ", p->file);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
}

/* ------------------------------------------------------------- numbers */

/* Decimal or hex digits at *sp; advances *sp.  NULL or why it failed. */
static const char *digits(const char **sp, unsigned int base, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	bool any = false;

	for (;; s++) {
		unsigned int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return "too large";
		v = v * base + d;
		any = true;
	}
	if (!any)
		return "not a number";
	*sp = s;
	*out = v;
	return NULL;
}

/*
 * Size suffixes as fio 3.33 reads them (parse.c, __get_mult_bytes), checked
 * against fio --debug=parse: a plain letter, or letter + "b", is a power of
 * kb_base; the IEC "KiB" family is the *other* base, so with the default
 * kb_base=1024 "4k" and "4kB" are 4096 but "4KiB" is 4000, and with
 * kb_base=1000 "4k" is 4000 and "4KiB" is 4096.  Case does not matter.
 */
static const struct {
	const char *sfx;
	unsigned int pow;
	bool iec;
} size_sfx[] = {
	{ "", 0, false }, { "b", 0, false },
	{ "k", 1, false }, { "kb", 1, false }, { "kib", 1, true },
	{ "m", 2, false }, { "mb", 2, false }, { "mib", 2, true },
	{ "g", 3, false }, { "gb", 3, false }, { "gib", 3, true },
	{ "t", 4, false }, { "tb", 4, false }, { "tib", 4, true },
	{ "p", 5, false }, { "pb", 5, false }, { "pib", 5, true },
};

/*
 * A byte count: decimal with an optional suffix, or 0x hex without one.
 * fio would read "4x" as 4 and "1.5k" as 1; both are refused here.
 */
static const char *parse_size(const char *v, unsigned int kb_base, uint64_t *out)
{
	const char *s = v, *why;
	uint64_t n, mult;
	size_t i;
	unsigned int pow;

	if (*s == '-')
		return "negative values are not allowed";
	if (*s == '(')
		return "fio 3.33 as Debian builds it has no arithmetic in parentheses "
		       "(only after $ncpus, $mb_memory or $pagesize)";
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		why = digits(&s, 16, &n);
		if (why)
			return why;
		if (*s)
			return "hex values take no suffix";
		*out = n;
		return NULL;
	}
	why = digits(&s, 10, &n);
	if (why)
		return why;
	if (*s == '.')
		return "fractions are not allowed";
	if (!strcmp(s, "%"))
		return "a percentage is allowed only for size, offset and offset_increment";
	if ((*s == 'z' || *s == 'Z') && !s[1])
		return "zone counts (z) need zonemode, which rqlock does not support";
	for (i = 0; i < sizeof(size_sfx) / sizeof(size_sfx[0]); i++)
		if (!strcasecmp(s, size_sfx[i].sfx))
			break;
	if (i == sizeof(size_sfx) / sizeof(size_sfx[0]))
		return "unknown size suffix (use k, m, g, t or p, optionally followed by B or iB)";
	mult = kb_base;
	if (size_sfx[i].iec)
		mult = kb_base == 1024 ? 1000 : 1024;
	for (pow = size_sfx[i].pow; pow; pow--) {
		if (n > UINT64_MAX / mult)
			return "too large";
		n *= mult;
	}
	*out = n;
	return NULL;
}

/*
 * fio 3.33 (parse.c, get_mult_time): a bare number is @unit_ns (seconds
 * for runtime and ramp_time, microseconds for thinktime).  fio reads an
 * unknown suffix as the bare unit ("10sec" is 10us for runtime there);
 * rqlock refuses it.
 */
static const struct {
	const char *sfx;
	uint64_t ns;
} time_sfx[] = {
	{ "us", 1000 }, { "usec", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 },
	{ "s", NS_PER_SEC },
	{ "m", 60 * NS_PER_SEC },
	{ "h", 3600 * NS_PER_SEC },
	{ "d", 86400 * NS_PER_SEC },
};

static const char *parse_time_unit(const char *v, uint64_t unit_ns, uint64_t *ns)
{
	const char *s = v, *why;
	uint64_t n, mult = unit_ns;
	size_t i;

	if (*s == '-')
		return "negative values are not allowed";
	why = digits(&s, 10, &n);
	if (why)
		return why;
	if (*s == '.')
		return "fractions are not allowed";
	if (*s) {
		for (i = 0; i < sizeof(time_sfx) / sizeof(time_sfx[0]); i++)
			if (!strcasecmp(s, time_sfx[i].sfx))
				break;
		if (i == sizeof(time_sfx) / sizeof(time_sfx[0]))
			return "unknown time suffix (use us, ms, s, m, h or d)";
		mult = time_sfx[i].ns;
	}
	if (n > UINT64_MAX / mult)
		return "too large";
	*ns = n * mult;
	return NULL;
}

/* runtime and ramp_time: a bare number is seconds (kept for the unit tests) */
static __attribute__((unused)) const char *parse_time(const char *v, uint64_t *ns)
{
	return parse_time_unit(v, NS_PER_SEC, ns);
}

/*
 * Integer arithmetic as bc does it with scale=0, which fio runs on a value
 * after replacing $ncpus, $mb_memory or $pagesize in it: + - * / % ^,
 * parentheses, unary minus; division truncates toward zero.  A recursive
 * descent over a string of at most a line; every level that recurses
 * (parentheses, unary minus, ^) counts, and past CALC_DEPTH the value is
 * refused, so no input can exhaust the stack.
 */
#define CALC_DEPTH 64

struct calc {
	const char *s;
	const char *why;
	int depth;
};

static int64_t calc_expr(struct calc *c);

static void calc_blank(struct calc *c)
{
	while (*c->s == ' ' || *c->s == '\t')
		c->s++;
}

static bool add_ok(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

static bool calc_deeper(struct calc *c)
{
	if (++c->depth > CALC_DEPTH) {
		c->why = "nested too deep";
		return false;
	}
	return true;
}

static int64_t calc_atom(struct calc *c)
{
	int64_t v = 0;

	calc_blank(c);
	if (c->why)
		return 0;
	if (*c->s == '(') {
		if (!calc_deeper(c))
			return 0;
		c->s++;
		v = calc_expr(c);
		calc_blank(c);
		if (*c->s != ')') {
			if (!c->why)
				c->why = "missing ')'";
			return 0;
		}
		c->s++;
		c->depth--;
		return v;
	}
	if (*c->s == '-') {
		if (!calc_deeper(c))
			return 0;
		c->s++;
		v = calc_atom(c);
		c->depth--;
		if (v == INT64_MIN) {
			c->why = "too large";
			return 0;
		}
		return -v;
	}
	if (!isdigit((unsigned char)*c->s)) {
		c->why = "not an integer expression";
		return 0;
	}
	while (isdigit((unsigned char)*c->s)) {
		if (__builtin_mul_overflow(v, 10, &v) || !add_ok(v, *c->s - '0', &v)) {
			c->why = "too large";
			return 0;
		}
		c->s++;
	}
	return v;
}

/* a ^ b, right-associative, b >= 0 */
static int64_t calc_pow(struct calc *c)
{
	int64_t a = calc_atom(c), b, r = 1;

	calc_blank(c);
	if (c->why || *c->s != '^')
		return a;
	if (!calc_deeper(c))
		return 0;
	c->s++;
	b = calc_pow(c);
	c->depth--;
	if (c->why)
		return 0;
	if (b < 0) {
		c->why = "negative exponent";
		return 0;
	}
	/* |a| < 2 never overflows; any other base does within 63 steps */
	if (a == 0 || a == 1)
		return b == 0 ? 1 : a;
	if (a == -1)
		return b % 2 ? -1 : 1;
	while (b--) {
		if (__builtin_mul_overflow(r, a, &r)) {
			c->why = "too large";
			return 0;
		}
	}
	return r;
}

static int64_t calc_term(struct calc *c)
{
	int64_t v = calc_pow(c), r;
	char op;

	for (;;) {
		calc_blank(c);
		op = *c->s;
		if (c->why || (op != '*' && op != '/' && op != '%'))
			return v;
		c->s++;
		r = calc_pow(c);
		if (c->why)
			return 0;
		if (op == '*') {
			if (__builtin_mul_overflow(v, r, &v)) {
				c->why = "too large";
				return 0;
			}
			continue;
		}
		if (r == 0) {
			c->why = "division by zero";
			return 0;
		}
		if (v == INT64_MIN && r == -1) {
			c->why = "too large";
			return 0;
		}
		v = op == '/' ? v / r : v % r;
	}
}

static int64_t calc_expr(struct calc *c)
{
	int64_t v = calc_term(c), r;
	char op;

	for (;;) {
		calc_blank(c);
		op = *c->s;
		if (c->why || (op != '+' && op != '-'))
			return v;
		c->s++;
		r = calc_term(c);
		if (c->why)
			return 0;
		if (op == '-' ? __builtin_sub_overflow(v, r, &v) : __builtin_add_overflow(v, r, &v)) {
			c->why = "too large";
			return 0;
		}
	}
}

/* Evaluate @s whole; NULL or why not. */
static const char *calc(const char *s, int64_t *out)
{
	struct calc c = { .s = s };
	int64_t v = calc_expr(&c);

	calc_blank(&c);
	if (!c.why && *c.s)
		c.why = "not an integer expression";
	if (c.why)
		return c.why;
	*out = v;
	return NULL;
}

/* --------------------------------------------------------- string lists */

static int strlist_add(struct strlist *l, const char *key, const char *val)
{
	char *k, *v;

	if (l->nr == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 8;
		char **keys = realloc(l->keys, cap * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		l->keys = keys;
		keys = realloc(l->vals, cap * sizeof(*keys));
		if (!keys)
			return -ENOMEM;
		l->vals = keys;
		l->cap = cap;
	}
	k = strdup(key);
	v = strdup(val);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	l->keys[l->nr] = k;
	l->vals[l->nr++] = v;
	return 0;
}

static void strlist_free(struct strlist *l)
{
	for (unsigned int i = 0; i < l->nr; i++) {
		free(l->keys[i]);
		free(l->vals[i]);
	}
	free(l->keys);
	free(l->vals);
	memset(l, 0, sizeof(*l));
}

static void free_pairs(char **keys, char **vals, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		free(keys[i]);
		free(vals[i]);
	}
	free(keys);
	free(vals);
}

/* ------------------------------------------------------------- storing */

static void store(struct sect *s, const struct opt *o, unsigned int idx, uint64_t v)
{
	char *f = (char *)&s->job + o->off + idx * o->size;

	switch (o->size) {
	case sizeof(bool): {
		bool b = v != 0;

		memcpy(f, &b, sizeof(b));
		break;
	}
	case sizeof(uint32_t): {
		uint32_t x = (uint32_t)v;

		memcpy(f, &x, sizeof(x));
		break;
	}
	case sizeof(uint64_t):
		memcpy(f, &v, sizeof(v));
		break;
	}
}

static uint64_t load(const struct rq_job *j, const struct opt *o, unsigned int idx)
{
	const char *f = (const char *)j + o->off + idx * o->size;

	switch (o->size) {
	case sizeof(bool): {
		bool b;

		memcpy(&b, f, sizeof(b));
		return b;
	}
	case sizeof(uint32_t): {
		uint32_t x;

		memcpy(&x, f, sizeof(x));
		return x;
	}
	case sizeof(uint64_t): {
		uint64_t x;

		memcpy(&x, f, sizeof(x));
		return x;
	}
	}
	return 0;
}

static int bad(struct pctx *p, const char *v, const char *why)
{
	return perr(p, "bad value '%.64s%s' for option '%s': %s", v,
		    strlen(v) > 64 ? "..." : "", p->key, why);
}

/* fio's sysconf figures, for $ncpus and cpus_allowed */
static long cpus_configured(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? n : 1;
}

/* A plain decimal number with an optional fraction: no sign, exponent, inf or nan. */
static const char *parse_float(const char *v, double *out, unsigned int *decimals)
{
	const char *s = v, *dot = NULL;
	char *end;

	if (!*s)
		return "not a number";
	for (; *s; s++) {
		if (*s == '.' && !dot)
			dot = s;
		else if (!isdigit((unsigned char)*s))
			return "not a decimal number";
	}
	if (dot == v && !v[1])
		return "not a number";
	*out = strtod(v, &end);
	if (*end || !isfinite(*out))
		return "not a number";
	if (decimals)
		*decimals = dot ? (unsigned int)(s - dot - 1) : 0;
	return NULL;
}

/* -------------------------------------------- options with their own code */

static void mark(struct sect *s, const char *name);

static int set_kb_base(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->kb_base = (unsigned int)v;
	s->job.kb_base = (unsigned int)v;
	return 0;
}

/* fio keeps any length and shows the first 255 bytes (FIO_JOBDESC_SIZE); so does rqlock. */
static int set_description(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	size_t n = strlen(str);

	(void)p;
	(void)v;
	if (n >= sizeof(s->job.description))
		n = sizeof(s->job.description) - 1;
	memcpy(s->job.description, str, n);
	s->job.description[n] = '\0';
	return 0;
}

/* fio keeps one read/write split: the later of rwmixread and rwmixwrite wins. */
static int set_rwmixread(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.rwmixread = (unsigned int)v;
	return 0;
}

static int set_rwmixwrite(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.rwmixread = 100 - (unsigned int)v;
	return 0;
}

static int set_buffered(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.direct = !v;
	return 0;
}

static const struct opt_val rw_vals[] = {
	{ "read",		RQ_RW_READ,		NULL },
	{ "write",		RQ_RW_WRITE,		NULL },
	{ "randread",		RQ_RW_RANDREAD,		NULL },
	{ "randwrite",		RQ_RW_RANDWRITE,	NULL },
	{ "rw",			RQ_RW_RW,		NULL },
	{ "readwrite",		RQ_RW_RW,		NULL },
	{ "randrw",		RQ_RW_RANDRW,		NULL },
	{ "trim",		0,			REFUSE_NEVER },
	{ "randtrim",		0,			REFUSE_NEVER },
	{ "trimwrite",		0,			REFUSE_NEVER },
	{ "randtrimwrite",	0,			REFUSE_NEVER },
	{ NULL, 0, NULL },
};

static int bad_enum(struct pctx *p, const char *v, const struct opt_val *vals)
{
	const struct opt_val *vp;
	char valid[256];
	size_t len = 0;

	valid[0] = '\0';
	for (vp = vals; vp->name; vp++) {
		if (vp->refuse)
			continue;
		len += snprintf(valid + len, len < sizeof(valid) ? sizeof(valid) - len : 0,
				"%s%s", len ? ", " : "", vp->name);
		if (len >= sizeof(valid))
			break;
	}
	return perr(p, "bad value '%.64s' for option '%s' (valid: %s)", v, p->key, valid);
}

static const struct opt_val *find_val(const struct opt_val *vals, const char *v)
{
	for (; vals->name; vals++)
		if (!strcmp(vals->name, v))
			return vals;
	return NULL;
}

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
	vp = find_val(rw_vals, str);
	if (vp && vp->refuse)
		return perr(p, "%s=%s %s", p->key, str, vp->refuse);
	if (!vp)
		return bad_enum(p, str, rw_vals);
	s->job.rw = (enum rq_rw)vp->val;
	s->job.rw_seq_nr = 0;
	s->job.rw_seq_add = 0;
	if (!post)
		return 0;
	if (rq_rw_random(s->job.rw)) {
		const char *d = post;

		why = digits(&d, 10, &n);
		if (!why && *d)
			why = "expected a count of I/Os";
		if (!why && (n < 1 || n > UINT32_MAX))
			why = "must be from 1 to 4294967295";
		if (why)
			return bad(p, post, why);
		s->job.rw_seq_nr = (unsigned int)n;
		return 0;
	}
	why = parse_size(post, s->kb_base, &n);
	if (why)
		return bad(p, post, why);
	s->job.rw_seq_add = n;
	return 0;
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
		return bad(p, part, "expected MIN-MAX");
	*sep = '\0';
	why = parse_size(part, s->kb_base, &a);
	if (!why)
		why = parse_size(sep + 1, s->kb_base, &b);
	if (!why && (a < 1 || b < 1 || a > BS_MAX || b > BS_MAX))
		why = "block sizes must be from 1 to 16777216";
	if (why) {
		*sep = '-';
		return bad(p, part, why);
	}
	*lo = (uint32_t)(a < b ? a : b);
	*hi = (uint32_t)(a < b ? b : a);
	return 0;
}

/*
 * bsrange=R[,W[,T]], fio's FIO_OPT_RANGE: one range sets every direction,
 * an empty part keeps that direction ("1k-4k," sets reads only); the trim
 * part is checked and dropped (rqlock issues no trims).
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
			return bad(p, str, "at most R,W,T");
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
		if (i == 0) {
			s->job.bs_min[0] = lo;
			s->job.bs_max[0] = hi;
		}
		if (i == 1 || (i == 0 && nr == 1)) {
			s->job.bs_min[1] = lo;
			s->job.bs_max[1] = hi;
		}
	}
	return 0;
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
			return bad(p, list, "an empty entry (fio ignores everything after one)");
		if (nr == RQ_MAX_BSSPLIT)
			return bad(p, list, "more than 64 block sizes");
		slash = strchr(entry, '/');
		if (slash)
			*slash++ = '\0';
		why = parse_size(entry, s->kb_base, &bs);
		if (!why && (bs < 1 || bs > BS_MAX))
			why = "block sizes must be from 1 to 16777216";
		if (why)
			return bad(p, entry, why);
		if (slash && *slash) {
			const char *d = slash;

			why = digits(&d, 10, &pct);
			if (why || *d)
				why = "a share is a whole percentage";
			if (!why && pct > 100)
				why = "a share is at most 100";
			if (why)
				return bad(p, slash, why);
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
		return bad(p, list, "the shares add up to more than 100");
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
	if (dir > 1)
		return 0;	/* trim: checked, dropped */
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
 * bssplit=BS/PCT:BS/PCT...[,WRITES[,TRIMS]]: one list applies to reads and
 * writes; with two, the second is for writes (and trims).  Blank shares
 * take equal parts of what the given ones leave, truncated as fio does.
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
				return bad(p, t, "at most R,W,T");
		}
		ret = split_dir(p, s, str, 0);
		if (!ret)
			ret = split_dir(p, s, w, 1);
		if (!ret && t)
			ret = split_dir(p, s, t, 2);
		return ret;
	}
	copy = strdup(str);
	if (!copy)
		return perr(p, "out of memory");
	ret = split_dir(p, s, str, 0);
	if (!ret)
		ret = split_dir(p, s, copy, 1);
	free(copy);
	return ret;
}

/* percentile_list=P:P:..., at most 20, each in (0, 100]; fio sorts them for output. */
static int set_percentile_list(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	unsigned int nr = 0, prec = 0, dec;
	char *c = str, *next;
	double x;

	(void)v;
	while (c) {
		const char *why;

		next = strchr(c, ':');
		if (next)
			*next++ = '\0';
		if (nr == RQ_MAX_PERCENTILES)
			return bad(p, str, "more than 20 percentiles");
		why = parse_float(c, &x, &dec);
		if (!why && !(x > 0.0 && x <= 100.0))
			why = "a percentile is above 0 and at most 100 (fio ends the list at a 0)";
		if (why)
			return bad(p, c, why);
		s->job.percentile_list[nr++] = x;
		if (dec > prec)
			prec = dec;
		c = next;
	}
	s->job.nr_percentiles = nr;
	s->job.percentile_precision = prec;
	return 0;
}

static void cpu_set(struct rq_job *j, unsigned int cpu)
{
	j->cpus_allowed[cpu / 64] |= 1ull << (cpu % 64);
}

/* cpus_allowed=0-3,6: CPUs this job's clones may run on, as fio's set_cpus_allowed. */
static int set_cpus_allowed(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	long max = cpus_configured();
	char *c = str, *next;

	(void)v;
	memset(s->job.cpus_allowed, 0, sizeof(s->job.cpus_allowed));
	while (c) {
		const char *d = c, *why;
		uint64_t a, b;

		next = strchr(c, ',');
		if (next)
			*next++ = '\0';
		why = digits(&d, 10, &a);
		b = a;
		if (!why && *d == '-') {
			d++;
			why = digits(&d, 10, &b);
		}
		if (!why && *d)
			why = "expected CPU or FIRST-LAST";
		if (!why && b < a)
			why = "a range must not go down";
		if (!why && b >= RQ_CPUMASK_WORDS * 64)
			why = "CPUs above 1023 are not supported";
		if (why)
			return bad(p, c, why);
		if ((long)b >= max)
			return perr(p, "option '%s': CPU %llu too large (this machine has %ld, as fio refuses)",
				    p->key, (unsigned long long)b, max);
		for (; a <= b; a++)
			cpu_set(&s->job, (unsigned int)a);
		c = next;
	}
	s->job.has_cpus_allowed = true;
	return 0;
}

/* cpumask=N: a bit per CPU of the low 32, as fio's str_cpumask_cb. */
static int set_cpumask(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	long max = cpus_configured();

	(void)str;
	if (!v || v > UINT32_MAX)
		return bad(p, str, "a mask of CPUs 0 to 31, not 0");
	memset(s->job.cpus_allowed, 0, sizeof(s->job.cpus_allowed));
	for (unsigned int i = 0; i < 32; i++) {
		if (!(v >> i & 1))
			continue;
		if ((long)i >= max)
			return perr(p, "option '%s': CPU %u too large (this machine has %ld, as fio refuses)",
				    p->key, i, max);
		cpu_set(&s->job, i);
	}
	s->job.has_cpus_allowed = true;
	return 0;
}

static const struct opt_val dist_vals[] = {
	{ "random",	RQ_RAND_UNIFORM,	NULL },
	{ "zipf",	RQ_RAND_ZIPF,		NULL },
	{ "pareto",	RQ_RAND_PARETO,		NULL },
	{ "normal",	RQ_RAND_NORMAL,		NULL },
	{ "zoned",	0,			REFUSE_NEVER },
	{ "zoned_abs",	0,			REFUSE_NEVER },
	{ NULL, 0, NULL },
};

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
	if (post) {
		*post++ = '\0';
		center = strchr(post, ':');
		if (center)
			*center++ = '\0';
	}
	vp = find_val(dist_vals, str);
	if (vp && vp->refuse)
		return perr(p, "%s=%s %s", p->key, str, vp->refuse);
	if (!vp)
		return bad_enum(p, str, dist_vals);
	if (vp->val == RQ_RAND_UNIFORM && post)
		return bad(p, post, "random takes no parameter");
	if (vp->val == RQ_RAND_ZIPF)
		x = 1.1;
	else if (vp->val == RQ_RAND_PARETO)
		x = 0.2;
	if (post && (why = parse_float(post, &x, NULL)))
		return bad(p, post, why);
	if (center && (why = parse_float(center, &c, NULL)))
		return bad(p, center, why);
	if (center && c > 1.0)
		return bad(p, center, "the center is from 0 to 1");
	if (vp->val == RQ_RAND_ZIPF && x == 1.0)
		why = "zipf theta must not be 1";
	else if (vp->val == RQ_RAND_PARETO && !(x > 0.0 && x < 1.0))
		why = "pareto h is above 0 and below 1";
	else if (vp->val == RQ_RAND_NORMAL && !(x >= 0.0 && x < 100.0))
		why = "normal deviation is from 0 to below 100";
	if (why)
		return bad(p, post, why);
	s->job.random_distribution = (enum rq_rand_dist)vp->val;
	s->job.rand_param = x;
	s->job.rand_center = c;
	return 0;
}

/*
 * verify_pattern, as fio's lib/pattern.c: a sequence of "text" (double
 * quotes, no escapes), 0x hex bytes, and decimal integers (stored little
 * endian in as few bytes as they need, 0 as one byte, negatives as 4).
 * fio's %o (offset) and 'file' items are refused.
 */
static int set_verify_pattern(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	unsigned char *out = s->job.verify_pattern;
	size_t cap = sizeof(s->job.verify_pattern), len = 0;
	const char *c = str;

	(void)v;
	while (*c) {
		if (*c == '"') {
			const char *end = strchr(c + 1, '"');
			size_t n;

			if (!end)
				return bad(p, str, "a text without its closing '\"'");
			n = (size_t)(end - c - 1);
			if (n > cap - len)
				return bad(p, str, "longer than 512 bytes");
			memcpy(out + len, c + 1, n);
			len += n;
			c = end + 1;
		} else if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
			const char *h = c + 2;
			size_t n = 0;

			while (isxdigit((unsigned char)h[n]))
				n++;
			/* "0xff0x14": the next 0x starts a new item, as fio looks back for it */
			if (n >= 2 && h[n - 1] == '0' && (h[n] == 'x' || h[n] == 'X'))
				n--;
			if (!n)
				return bad(p, str, "0x without hex digits");
			if ((n + 1) / 2 > cap - len)
				return bad(p, str, "longer than 512 bytes");
			for (size_t i = 0; i < n;) {
				/* an odd count: the first digit is a byte of its own, as fio */
				size_t take = (i == 0 && (n & 1)) ? 1 : 2;
				unsigned int b = 0;

				for (size_t k = 0; k < take; k++) {
					int d = tolower((unsigned char)h[i + k]);

					b = b * 16 + (unsigned int)(isdigit(d) ? d - '0' : d - 'a' + 10);
				}
				out[len++] = (unsigned char)b;
				i += take;
			}
			c = h + n;
		} else if (isdigit((unsigned char)*c) || *c == '-') {
			/* fio stops a decimal where a 0x item starts: "10x04" is 1, then 0x04 */
			const char *hex = strcasestr(c, "0x");
			char num[32], *end;
			size_t n = hex ? (size_t)(hex - c) : strlen(c);
			long long x;
			unsigned int u;

			snprintf(num, sizeof(num), "%.*s", (int)(n < sizeof(num) ? n : sizeof(num) - 1), c);
			errno = 0;
			x = strtoll(num, &end, 10);
			if (end == num || errno || x > INT32_MAX || x < INT32_MIN)
				return bad(p, str, "a number must fit in 32 bits");
			end = (char *)c + (end - num);
			u = (unsigned int)(int)x;
			if (!u) {
				if (len == cap)
					return bad(p, str, "longer than 512 bytes");
				out[len++] = 0;
			}
			for (; u; u >>= 8) {
				if (len == cap)
					return bad(p, str, "longer than 512 bytes");
				out[len++] = (unsigned char)(u & 0xff);
			}
			c = end;
		} else if (*c == '%') {
			return bad(p, str, "fio's %o (block offset) is not supported in rqlock");
		} else if (*c == '\'') {
			return bad(p, str, "a pattern from a file is not supported in rqlock");
		} else {
			return bad(p, str, "expected \"text\", 0xHEX or a decimal number");
		}
	}
	if (!len)
		return bad(p, str, "an empty pattern");
	s->job.verify_pattern_len = (unsigned int)len;
	return 0;
}

/* fio: a pattern without verify= set (here or above) means verify=pattern. */
static bool is_set(const struct sect *s, const char *name);

static int set_verify_pattern_opt(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	int ret = set_verify_pattern(p, s, v, str);

	if (!ret && !is_set(s, "verify"))
		s->job.verify = RQ_VERIFY_PATTERN;
	return ret;
}

/* ---------------------------------------------------- --showcmd values */

/* A bounded text buffer; output past its end is cut (never overflows). */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void bput(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bput(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len = b->len + (size_t)n < b->cap ? b->len + (size_t)n : b->cap - 1;
}

/* A time in the largest unit that keeps it exact, as fio reads it back. */
static void show_ns(struct sbuf *b, uint64_t ns)
{
	static const struct { uint64_t ns; const char *sfx; } u[] = {
		{ 86400 * NS_PER_SEC, "d" }, { 3600 * NS_PER_SEC, "h" }, { 60 * NS_PER_SEC, "m" },
		{ NS_PER_SEC, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};

	if (!ns) {
		bput(b, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (ns % u[i].ns == 0) {
			bput(b, "%llu%s", (unsigned long long)(ns / u[i].ns), u[i].sfx);
			return;
		}
	bput(b, "%lluus", (unsigned long long)(ns / 1000));
}

static const char *val_name(const struct opt_val *vals, uint64_t v)
{
	for (; vals->name; vals++)
		if (!vals->refuse && (uint64_t)(uint32_t)vals->val == (uint64_t)(uint32_t)v)
			return vals->name;
	return "?";
}

static void show_by_type(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	unsigned int i, n = o->nr ? o->nr : 1;

	switch (o->type) {
	case OPT_STR:
		bput(b, "%.*s", (int)o->size, (const char *)j + o->off);
		return;
	case OPT_INT:
	case OPT_SIZE:
		if (o->pct) {
			double pct;

			memcpy(&pct, (const char *)j + o->pct_off, sizeof(pct));
			if (pct > 0.0) {
				bput(b, "%g%%", pct);
				return;
			}
		}
		for (i = 0; i < n; i++)
			bput(b, "%s%llu", i ? "," : "", (unsigned long long)load(j, o, i));
		return;
	case OPT_TIME:
		show_ns(b, load(j, o, 0) * o->div);
		return;
	case OPT_BOOL:
		bput(b, "%u", (unsigned int)load(j, o, 0));
		return;
	case OPT_FLAG:
		if (o->bit)
			bput(b, "%u", (unsigned int)!!(load(j, o, 0) & (uint64_t)o->bit));
		else
			bput(b, "%u", (unsigned int)load(j, o, 0));
		return;
	case OPT_ENUM:
		bput(b, "%s", val_name(o->vals, load(j, o, 0)));
		return;
	}
}

static void show_description(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%s", j->description);
}

static void show_kb_base(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%u", j->kb_base);
}

static void show_rwmixread(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%u", j->rwmixread);
}

static void show_rwmixwrite(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%u", 100 - j->rwmixread);
}

static void show_buffered(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%u", !j->direct);
}

static void show_rw(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%s", rq_rw_name(j->rw));
	if (j->rw_seq_nr)
		bput(b, ":%u", j->rw_seq_nr);
	else if (j->rw_seq_add)
		bput(b, ":%llu", (unsigned long long)j->rw_seq_add);
}

static void show_bsrange(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%u-%u,%u-%u", j->bs_min[0], j->bs_max[0], j->bs_min[1], j->bs_max[1]);
}

static void show_bssplit(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	for (int d = 0; d < 2; d++) {
		if (d)
			bput(b, ",");
		if (!j->nr_bssplit[d])	/* an empty list keeps bs, as fio */
			continue;
		for (unsigned int i = 0; i < j->nr_bssplit[d]; i++)
			bput(b, "%s%u/%u", i ? ":" : "", j->bssplit[d][i].bs, j->bssplit[d][i].pct);
	}
}

static void show_percentile_list(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	for (unsigned int i = 0; i < j->nr_percentiles; i++)
		bput(b, "%s%.*f", i ? ":" : "", (int)j->percentile_precision, j->percentile_list[i]);
}

static void show_cpus(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	unsigned int c = 0, n = 0;

	(void)o;
	while (c < RQ_CPUMASK_WORDS * 64) {
		unsigned int first;

		if (!(j->cpus_allowed[c / 64] >> (c % 64) & 1)) {
			c++;
			continue;
		}
		first = c;
		while (c + 1 < RQ_CPUMASK_WORDS * 64 && (j->cpus_allowed[(c + 1) / 64] >> ((c + 1) % 64) & 1))
			c++;
		if (first == c)
			bput(b, "%s%u", n++ ? "," : "", first);
		else
			bput(b, "%s%u-%u", n++ ? "," : "", first, c);
		c++;
	}
}

static void show_cpumask(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "0x%llx", (unsigned long long)(j->cpus_allowed[0] & 0xffffffffull));
}

static void show_random_distribution(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "%s", val_name(dist_vals, j->random_distribution));
	if (j->random_distribution != RQ_RAND_UNIFORM)
		bput(b, ":%g", j->rand_param);
	if (j->random_distribution != RQ_RAND_UNIFORM && j->rand_center >= 0.0)
		bput(b, ":%g", j->rand_center);
}

static void show_verify_pattern(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	bput(b, "0x");
	for (unsigned int i = 0; i < j->verify_pattern_len; i++)
		bput(b, "%02x", j->verify_pattern[i]);
}

/* ------------------------------------------------------- value tables */

static const struct opt_val kb_base_vals[] = {
	{ "1024", 1024, NULL },
	{ "1000", 1000, NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val ioengine_vals[] = {
	{ "io_uring",		RQ_IOENGINE_IO_URING,	NULL },
	{ "null",		RQ_IOENGINE_NULL,	NULL },
	{ "libaio",		RQ_IOENGINE_LIBAIO,	NULL },
	{ "io_uring_cmd",	RQ_IOENGINE_IO_URING_CMD, NULL },
	/* fio engines rqlock has no plan for */
	{ "sync",		0,	REFUSE_NEVER },
	{ "psync",		0,	REFUSE_NEVER },
	{ "vsync",		0,	REFUSE_NEVER },
	{ "pvsync",		0,	REFUSE_NEVER },
	{ "pvsync2",		0,	REFUSE_NEVER },
	{ "posixaio",		0,	REFUSE_NEVER },
	{ "mmap",		0,	REFUSE_NEVER },
	{ "splice",		0,	REFUSE_NEVER },
	{ "sg",			0,	REFUSE_NEVER },
	{ "net",		0,	REFUSE_NEVER },
	{ "netsplice",		0,	REFUSE_NEVER },
	{ "cpuio",		0,	REFUSE_NEVER },
	{ "rdma",		0,	REFUSE_NEVER },
	{ "falloc",		0,	REFUSE_NEVER },
	{ "ftruncate",		0,	REFUSE_NEVER },
	{ "e4defrag",		0,	REFUSE_NEVER },
	{ "filecreate",		0,	REFUSE_NEVER },
	{ "filestat",		0,	REFUSE_NEVER },
	{ "filedelete",		0,	REFUSE_NEVER },
	{ "dircreate",		0,	REFUSE_NEVER },
	{ "dirstat",		0,	REFUSE_NEVER },
	{ "dirdelete",		0,	REFUSE_NEVER },
	{ "exec",		0,	REFUSE_NEVER },
	{ "nbd",		0,	REFUSE_NEVER },
	{ "http",		0,	REFUSE_NEVER },
	{ "xnvme",		0,	REFUSE_NEVER },
	{ "gfapi",		0,	REFUSE_NEVER },
	{ "gfapi_async",	0,	REFUSE_NEVER },
	{ "mtd",		0,	REFUSE_NEVER },
	{ "rados",		0,	REFUSE_NEVER },
	{ "rbd",		0,	REFUSE_NEVER },
	{ "pmemblk",		0,	REFUSE_NEVER },
	{ "dev-dax",		0,	REFUSE_NEVER },
	{ "libpmem",		0,	REFUSE_NEVER },
	{ "windowsaio",		0,	REFUSE_NEVER },
	{ "solarisaio",		0,	REFUSE_NEVER },
	{ "guasi",		0,	REFUSE_NEVER },
	{ "binject",		0,	REFUSE_NEVER },
	{ "libcufile",		0,	REFUSE_NEVER },
	{ "dfs",		0,	REFUSE_NEVER },
	{ "libiscsi",		0,	REFUSE_NEVER },
	{ "nfs",		0,	REFUSE_NEVER },
	{ "skeleton",		0,	REFUSE_NEVER },
	{ NULL, 0, NULL },
};

static const struct opt_val rate_process_vals[] = {
	{ "linear",	0,	NULL },
	{ "poisson",	1,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val cpus_policy_vals[] = {
	{ "shared",	0,	NULL },
	{ "split",	1,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val unified_vals[] = {
	{ "none",	0,	NULL },
	{ "mixed",	1,	NULL },
	{ "both",	2,	NULL },
	{ "0",		0,	NULL },
	{ "1",		1,	NULL },
	{ "2",		2,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val coe_vals[] = {
	{ "none",	RQ_COE_NONE,	NULL },
	{ "read",	RQ_COE_READ,	NULL },
	{ "write",	RQ_COE_WRITE,	NULL },
	{ "io",		RQ_COE_IO,	NULL },
	{ "verify",	RQ_COE_VERIFY,	NULL },
	{ "all",	RQ_COE_ALL,	NULL },
	{ "0",		RQ_COE_NONE,	NULL },
	{ "1",		RQ_COE_ALL,	NULL },
	{ NULL, 0, NULL },
};

#define NOT_VERIFY "is not supported in rqlock (crc32c, md5 and pattern are)"
static const struct opt_val verify_vals[] = {
	{ "0",		RQ_VERIFY_NONE,		NULL },
	{ "crc32c",	RQ_VERIFY_CRC32C,	NULL },
	{ "crc32c-intel", RQ_VERIFY_CRC32C,	NULL },
	{ "md5",	RQ_VERIFY_MD5,		NULL },
	{ "pattern",	RQ_VERIFY_PATTERN,	NULL },
	{ "crc64",	0,	NOT_VERIFY },
	{ "crc32",	0,	NOT_VERIFY },
	{ "crc16",	0,	NOT_VERIFY },
	{ "crc7",	0,	NOT_VERIFY },
	{ "sha1",	0,	NOT_VERIFY },
	{ "sha256",	0,	NOT_VERIFY },
	{ "sha512",	0,	NOT_VERIFY },
	{ "sha3-224",	0,	NOT_VERIFY },
	{ "sha3-256",	0,	NOT_VERIFY },
	{ "sha3-384",	0,	NOT_VERIFY },
	{ "sha3-512",	0,	NOT_VERIFY },
	{ "xxhash",	0,	NOT_VERIFY },
	{ "meta",	0,	NOT_VERIFY },
	{ "null",	0,	NOT_VERIFY },
	{ NULL, 0, NULL },
};

/* Options fio knows that rqlock does not implement, by what it does with them. */
#define INERT(n, w)		{ .name = n, .kind = K_INERT, .why = w }
#define INERT_A(n, a, w)	{ .name = n, .alias = a, .kind = K_INERT, .why = w }
#define NOPE(n, w)		{ .name = n, .kind = K_NOPE, .why = w }
#define NOPE_A(n, a, w)		{ .name = n, .alias = a, .kind = K_NOPE, .why = w }
#define ONLY(n, v, w)		{ .name = n, .kind = K_ONLY, .only = v, .why = w }
#define ONLY_A(n, a, v, w)	{ .name = n, .alias = a, .kind = K_ONLY, .only = v, .why = w }

#define W_LOGS		"rqlock writes no fio logs"
#define W_FILES		"rqlock does its I/O to the named files and devices only"
#define W_DATA		"rqlock writes its own verifiable data"
#define W_SYNC		"rqlock issues no syncs"
#define W_ZONES		"rqlock has no zoned block device support"
#define W_STATS		"rqlock always keeps fio's full statistics"
#define W_IOLOG		"rqlock does not record or replay I/O logs"
#define W_RATE		"rqlock shapes load with rate_iops, rate_process and thinktime"
#define W_VERIFY	"rqlock verifies with verify, verify_pattern, do_verify and verify_backlog"
#define W_ENGINE	"an ioengine option rqlock's backends do not offer"
#define W_OS		"rqlock does not change its process or thread settings"

/*
 * The options, in fio's spelling (fio's name is the canonical one, fio's
 * alias the alias).  K_IMPL entries come first; --showcmd walks them in
 * this order.
 */
static const struct opt opts[] = {
	{
		.name = "kb_base", .type = OPT_ENUM, .vals = kb_base_vals,
		.set = set_kb_base, .show = show_kb_base, .prio = 1, .def = "1024",
		.help = "Unit base of size suffixes: 1024 (k = 1024, KiB = 1000, "
			"fio's compatibility mode) or 1000 (k = 1000, KiB = 1024); "
			"applies to the whole section it is in (default: 1024)",
	},
	{
		.name = "name", .type = OPT_STR, FIELD(name),
		.help = "Job name in reports; in a job section it replaces the "
			"section name, as in fio (default: the section name)",
	},
	{
		.name = "description", .type = OPT_STR, .set = set_description,
		.show = show_description,
		.help = "Free text about the job, shown in the reports (its first 255 "
			"bytes, as fio) (default: none)",
	},
	{
		.name = "wait_for", .type = OPT_STR, FIELD(wait_for),
		.help = "Start only when the earlier job of this name has finished "
			"(default: none)",
	},
	{
		.name = "filename", .type = OPT_STR, FIELD(filename), .prio = -1,
		.help = "File or device; several separated by ':', '\\:' is a "
			"literal ':' (default: none)",
	},
	{
		.name = "rw", .alias = "readwrite", .type = OPT_STR,
		.vals = rw_vals, .set = set_rw, .show = show_rw, .def = "read",
		.help = "I/O pattern: read, write, randread, randwrite, "
			"rw (or readwrite), randrw; ':N' after a random pattern issues "
			"N I/Os per random offset, after a sequential one skips N bytes "
			"after each I/O (default: read)",
	},
	{
		.name = "bs", .alias = "blocksize", .type = OPT_SIZE, FIELD(bs[0]),
		.nr = 2, .min = 1, .max = BS_MAX, .def = "4k",
		.help = "Block size, up to 16m: one value for reads and writes, "
			"or R,W; an empty part keeps that direction's value "
			"(default: 4k)",
	},
	{
		.name = "bsrange", .alias = "blocksize_range", .type = OPT_STR,
		.set = set_bsrange, .show = show_bsrange,
		.help = "Block sizes drawn between MIN-MAX, per direction as R,W "
			"(default: bs)",
	},
	{
		.name = "bssplit", .type = OPT_STR, .set = set_bssplit, .show = show_bssplit,
		.help = "Block sizes by share, BS/PCT:BS/PCT, per direction as R,W; "
			"blank shares take equal parts of the rest (default: bs)",
	},
	{
		.name = "ioengine", .type = OPT_ENUM, FIELD(ioengine),
		.vals = ioengine_vals, .def = "io_uring",
		.help = "Backend: io_uring, libaio, io_uring_cmd or null; rqlock's "
			"default is io_uring where fio's is psync (default: io_uring)",
	},
	{
		.name = "iodepth", .type = OPT_INT, FIELD(iodepth),
		.min = 1, .max = 65536, .def = "1",
		.help = "I/Os kept in flight per job, 1 to 65536 (default: 1)",
	},
	{
		.name = "iodepth_batch", .alias = "iodepth_batch_submit", .type = OPT_INT,
		FIELD(iodepth_batch_submit), .min = 0, .max = 65536, .def = "1",
		.help = "I/Os handed to the kernel in one go; 0 or more than iodepth "
			"is iodepth (default: 1)",
	},
	{
		.name = "iodepth_batch_complete_min", .alias = "iodepth_batch_complete",
		.type = OPT_INT, FIELD(iodepth_batch_complete_min), .min = 0, .max = 65536,
		.def = "1",
		.help = "Fewest completions to wait for at once (default: 1)",
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
		.help = "Bytes of I/O per job, or N% of the file or device; 0 is all "
			"of it (default: 0)",
	},
	{
		.name = "offset", .alias = "fileoffset", .type = OPT_SIZE, FIELD(offset),
		.pct = true, .pct_off = offsetof(struct rq_job, offset_pct),
		.min = 0, .max = UINT64_MAX, .def = "0",
		.help = "Byte offset where I/O starts, or N% of the file or device "
			"(default: 0)",
	},
	{
		.name = "offset_increment", .type = OPT_SIZE, FIELD(offset_increment),
		.pct = true, .pct_off = offsetof(struct rq_job, offset_increment_pct),
		.min = 0, .max = UINT64_MAX, .def = "0",
		.help = "Clone k of numjobs starts at offset + k times this, bytes or "
			"N% (default: 0)",
	},
	{
		.name = "numjobs", .type = OPT_INT, FIELD(numjobs),
		.min = 1, .max = 4096, .def = "1",
		.help = "Clones of this job, 1 to 4096 (default: 1)",
	},
	{
		.name = "rwmixread", .type = OPT_INT, .set = set_rwmixread,
		.show = show_rwmixread, .min = 0, .max = 100, .def = "50",
		.help = "Percent of reads in a mixed job; the later of rwmixread and "
			"rwmixwrite wins (default: 50)",
	},
	{
		.name = "rwmixwrite", .type = OPT_INT, .set = set_rwmixwrite,
		.show = show_rwmixwrite, .min = 0, .max = 100,
		.help = "Percent of writes in a mixed job; sets rwmixread to 100 "
			"minus it, the later of the two wins (default: 50)",
	},
	{
		.name = "runtime", .alias = "timeout", .type = OPT_TIME,
		FIELD(runtime_ns), .unit = NS_PER_SEC, .div = 1, .def = "0",
		.help = "Run time limit, seconds unless suffixed; 0 is until size "
			"is done (default: 0)",
	},
	{
		.name = "time_based", .type = OPT_FLAG, FIELD(time_based), .def = "0",
		.help = "Keep running for runtime even after size is done (default: 0)",
	},
	{
		.name = "ramp_time", .type = OPT_TIME, FIELD(ramp_ns),
		.unit = NS_PER_SEC, .div = 1, .def = "0",
		.help = "Run this long before keeping stats, seconds unless "
			"suffixed (default: 0)",
	},
	{
		.name = "direct", .type = OPT_BOOL, FIELD(direct), .def = "0",
		.help = "Use O_DIRECT (default: 0)",
	},
	{
		.name = "buffered", .type = OPT_BOOL, .set = set_buffered, .show = show_buffered,
		.help = "Opposite of direct: buffered=0 is direct=1 (default: 1)",
	},
	{
		.name = "rate_iops", .type = OPT_INT, FIELD(rate_iops[0]), .nr = 2,
		.min = 0, .max = UINT32_MAX, .def = "0",
		.help = "I/Os per second per clone, R,W as bs; 0 is no limit (default: 0)",
	},
	{
		.name = "rate_process", .type = OPT_ENUM, FIELD(rate_poisson),
		.vals = rate_process_vals, .def = "linear",
		.help = "How rate_iops spaces I/Os: linear or poisson (default: linear)",
	},
	{
		.name = "thinktime", .type = OPT_TIME, FIELD(thinktime_us),
		.unit = NS_PER_US, .div = NS_PER_US, .def = "0",
		.help = "Pause after thinktime_blocks I/Os, microseconds unless "
			"suffixed (default: 0)",
	},
	{
		.name = "thinktime_spin", .type = OPT_TIME, FIELD(thinktime_spin_us),
		.unit = NS_PER_US, .div = NS_PER_US, .def = "0",
		.help = "Part of thinktime spent spinning, at most thinktime, "
			"microseconds unless suffixed (default: 0)",
	},
	{
		.name = "thinktime_blocks", .type = OPT_INT, FIELD(thinktime_blocks),
		.min = 1, .max = UINT32_MAX, .def = "1",
		.help = "I/Os between pauses of thinktime (default: 1)",
	},
	{
		.name = "random_distribution", .type = OPT_STR, .vals = dist_vals,
		.set = set_random_distribution, .show = show_random_distribution,
		.def = "random",
		.help = "Random offsets: random, zipf[:theta], pareto[:h] or "
			"normal[:sigma], each with an optional :center (default: random)",
	},
	{
		.name = "norandommap", .type = OPT_FLAG, FIELD(norandommap), .def = "0",
		.help = "Draw random offsets freely instead of each block once a "
			"pass (default: 0)",
	},
	{
		.name = "randrepeat", .type = OPT_BOOL, FIELD(randrepeat), .def = "1",
		.help = "The same random sequence on every run; off when randseed "
			"is given, as fio (default: 1)",
	},
	{
		.name = "randseed", .type = OPT_SIZE, FIELD(randseed),
		.min = 0, .max = UINT64_MAX, .def = "0x89",
		.help = "Seed of the random sequence (default: 0x89)",
	},
	{
		.name = "cpus_allowed", .type = OPT_STR, .set = set_cpus_allowed,
		.show = show_cpus,
		.help = "CPUs the job's clones may run on, as 0-3,6 (default: all)",
	},
	{
		.name = "cpumask", .type = OPT_INT, .set = set_cpumask, .show = show_cpumask,
		.min = 0, .max = UINT32_MAX,
		.help = "CPUs 0 to 31 the job may run on, one bit each (default: all)",
	},
	{
		.name = "cpus_allowed_policy", .type = OPT_ENUM, FIELD(cpus_allowed_split),
		.vals = cpus_policy_vals, .prio = 1, .def = "shared",
		.help = "shared: clones share the CPUs; split: one CPU each in turn "
			"(default: shared)",
	},
	{
		.name = "group_reporting", .type = OPT_FLAG, FIELD(group_reporting),
		.def = "0",
		.help = "Report each group as one job (default: 0)",
	},
	{
		.name = "stonewall", .alias = "wait_for_previous", .type = OPT_FLAG,
		FIELD(stonewall), .bit = RQ_JOB_STONEWALL, .def = "0",
		.help = "Wait for earlier jobs to finish, start a new group (default: 0)",
	},
	{
		.name = "new_group", .type = OPT_FLAG, FIELD(stonewall),
		.bit = RQ_JOB_NEW_GROUP, .def = "0",
		.help = "Start a new reporting group without waiting (default: 0)",
	},
	{
		.name = "percentile_list", .type = OPT_STR, .set = set_percentile_list,
		.show = show_percentile_list,
		.help = "Latency percentiles to report, P:P:..., at most 20 "
			"(default: fio's 17, 1 to 99.99)",
	},
	{
		.name = "clat_percentiles", .type = OPT_BOOL, FIELD(clat_percentiles), .def = "1",
		.help = "Report completion latency percentiles (default: 1)",
	},
	{
		.name = "lat_percentiles", .type = OPT_BOOL, FIELD(lat_percentiles), .def = "0",
		.help = "Report total latency percentiles (default: 0)",
	},
	{
		.name = "slat_percentiles", .type = OPT_BOOL, FIELD(slat_percentiles), .def = "0",
		.help = "Report submission latency percentiles (default: 0)",
	},
	{
		.name = "unified_rw_reporting", .type = OPT_ENUM, FIELD(unified_rw_reporting),
		.vals = unified_vals, .def = "none",
		.help = "none: reads and writes apart; mixed: together; both "
			"(default: none)",
	},
	{
		.name = "verify", .type = OPT_ENUM, FIELD(verify), .vals = verify_vals,
		.def = "0",
		.help = "Check written data on read back: 0, crc32c, md5 or pattern "
			"(default: 0)",
	},
	{
		.name = "verify_pattern", .type = OPT_STR, .set = set_verify_pattern_opt,
		.show = show_verify_pattern,
		.help = "Data pattern of verify: \"text\", 0xHEX, numbers; sets "
			"verify=pattern unless verify is given (default: none)",
	},
	{
		.name = "do_verify", .type = OPT_BOOL, FIELD(do_verify), .def = "1",
		.help = "Read back and check after writing when verify is set (default: 1)",
	},
	{
		.name = "verify_only", .type = OPT_BOOL, FIELD(verify_only), .def = "0",
		.help = "Write nothing: replay the job's offsets and sizes from its seed and "
			"check what an earlier run of it wrote (default: 0)",
	},
	{
		.name = "verify_backlog", .type = OPT_INT, FIELD(verify_backlog),
		.min = 0, .max = UINT32_MAX, .def = "0",
		.help = "Check after this many blocks are written; 0 is at the end "
			"(default: 0)",
	},
	{
		.name = "continue_on_error", .type = OPT_ENUM, FIELD(continue_on_error),
		.vals = coe_vals, .def = "none",
		.help = "Errors to go on after: none, read, write, io, verify, all "
			"(default: none)",
	},
	{
		.name = "hipri", .type = OPT_FLAG, FIELD(hipri), .engine = true, .def = "0",
		.help = "io_uring: polled completions (default: 0)",
	},
	{
		.name = "sqthread_poll", .type = OPT_FLAG, FIELD(sqthread_poll), .engine = true,
		.def = "0",
		.help = "io_uring: a kernel thread polls the submission queue (default: 0)",
	},
	{
		.name = "fixedbufs", .type = OPT_FLAG, FIELD(fixedbufs), .engine = true,
		.def = "0",
		.help = "io_uring: registered buffers (default: 0)",
	},
	{
		.name = "registerfiles", .type = OPT_FLAG, FIELD(registerfiles), .engine = true,
		.def = "0",
		.help = "io_uring: registered files (default: 0)",
	},

	/* accepted with a warning: they cannot change what rqlock does or reports */
	INERT("thread", "workers are always threads"),
	INERT("clocksource", "rqlock picks its own clock"),
	INERT("gtod_cpu", "rqlock picks its own clock"),
	INERT("disk_util", "rqlock reports no disk utilization"),
	INERT("unique_filename", "it concerns fio's network clients"),
	INERT("error_dump", "rqlock reports errors its own way"),
	INERT("invalidate", "rqlock does not drop the page cache before a job"),
	INERT("fadvise_hint", "rqlock gives the kernel no access-pattern hints"),
	INERT("per_job_logs", W_LOGS), INERT("log_avg_msec", W_LOGS),
	INERT("log_hist_msec", W_LOGS), INERT("log_hist_coarseness", W_LOGS),
	INERT("log_max_value", W_LOGS), INERT("log_offset", W_LOGS), INERT("log_prio", W_LOGS),
	INERT("log_compression", W_LOGS), INERT("log_compression_cpus", W_LOGS),
	INERT("log_store_compressed", W_LOGS), INERT("log_unix_epoch", W_LOGS),
	INERT("log_alternate_epoch", W_LOGS), INERT("log_alternate_epoch_clock_id", W_LOGS),
	INERT("log_entries", W_LOGS),
	INERT("cgroup_nodelete", "rqlock makes no cgroups"),
	INERT("exit_what", "it only matters with exitall"),
	INERT("hugepage-size", "it only matters with mem=mmaphuge"),
	INERT("verify_state_save", "rqlock writes no verify state files"),
	INERT("verify_dump", "rqlock writes no dump files"),
	INERT("verifysort", "deprecated in fio"), INERT("verifysort_nr", "deprecated in fio"),

	/* accepted only at fio's default */
	ONLY("bwavgtime", "500", "samples are taken every 500 ms"),
	ONLY("iopsavgtime", "500", "samples are taken every 500 ms"),
	ONLY("thinktime_blocks_type", "complete", "thinktime_blocks counts completed I/Os, fio's default"),
	ONLY("thinktime_iotime", "0", W_RATE),
	ONLY("rate_ignore_thinktime", "0", W_RATE),
	ONLY_A("rate_cycle", "ratecycle", "1000", W_RATE),
	ONLY("rw_sequencer", "sequential", "rw=...:N is supported"),
	ONLY("random_generator", "tausworthe", "rqlock has one generator"),
	ONLY_A("percentage_random", "percentage_sequential", "100", "patterns are all random or all sequential"),
	ONLY("allrandrepeat", "0", "rqlock seeds with randrepeat and randseed"),
	ONLY("softrandommap", "0", "norandommap is supported"),
	ONLY("bs_is_seq_rand", "0", "bs is per direction"),
	ONLY_A("nrfiles", "nr_files", "1", W_FILES),
	ONLY("file_service_type", "roundrobin", "rqlock goes round the files in turn"),
	ONLY("fallocate", "native", "rqlock lays files out its own way"),
	ONLY("lockfile", "none", "rqlock takes no file locks"),
	ONLY("fsync", "0", W_SYNC), ONLY("fdatasync", "0", W_SYNC),
	ONLY("write_barrier", "0", W_SYNC), ONLY("sync", "none|0", W_SYNC),
	ONLY("end_fsync", "0", W_SYNC), ONLY("fsync_on_close", "0", W_SYNC),
	ONLY("overwrite", "0", W_FILES), ONLY("create_serialize", "1", W_FILES),
	ONLY("create_fsync", "1", W_FILES), ONLY("create_on_open", "0", W_FILES),
	ONLY("create_only", "0", W_FILES), ONLY("allow_file_create", "1", W_FILES),
	ONLY("pre_read", "0", W_FILES), ONLY("unlink", "0", W_FILES),
	ONLY("unlink_each_loop", "0", W_FILES), ONLY("file_append", "0", W_FILES),
	ONLY_A("fill_device", "fill_fs", "0", W_FILES),
	ONLY("loops", "1", "each job runs once"),
	ONLY("startdelay", "0", "jobs start together, or after stonewall and wait_for"),
	ONLY("number_ios", "0", "size and runtime bound a job"),
	ONLY_A("mem", "iomem", "malloc", "rqlock allocates its own buffers"),
	ONLY_A("iomem_align", "mem_align", "0", "rqlock aligns buffers to 4 KiB"),
	ONLY("lockmem", "0", W_OS), ONLY("nice", "0", W_OS),
	ONLY("atomic", "0", "O_ATOMIC does not exist on Linux"),
	ONLY("scramble_buffers", "1", W_DATA),
	ONLY("buffer_compress_percentage", "0", W_DATA),
	ONLY("buffer_compress_chunk", "512", W_DATA),
	ONLY("dedupe_percentage", "0", W_DATA), ONLY("dedupe_mode", "repeat", W_DATA),
	ONLY("dedupe_working_set_percentage", "5", W_DATA), ONLY("dedupe_global", "0", W_DATA),
	ONLY("stats", "1", W_STATS), ONLY("gtod_reduce", "0", W_STATS),
	ONLY("disable_lat", "0", W_STATS), ONLY("disable_clat", "0", W_STATS),
	ONLY("disable_slat", "0", W_STATS), ONLY_A("disable_bw_measurement", "disable_bw", "0", W_STATS),
	ONLY("block_error_percentiles", "0", W_STATS),
	ONLY("significant_figures", "4", "the normal output has fio's 4 figures"),
	ONLY("unit_base", "0|8", "rqlock reports bytes"),
	ONLY("io_submit_mode", "inline", "clones submit their own I/O"),
	ONLY("serialize_overlap", "0", "rqlock does not hold back overlapping I/O"),
	ONLY("offset_align", "0", "offsets align to the block size"),
	ONLY("latency_percentile", "100", W_RATE), ONLY("latency_run", "0", W_RATE),
	ONLY("zonemode", "none", W_ZONES), ONLY("zonesize", "0", W_ZONES),
	ONLY("zonecapacity", "0", W_ZONES), ONLY("zonerange", "0", W_ZONES),
	ONLY("zoneskip", "0", W_ZONES), ONLY("read_beyond_wp", "0", W_ZONES),
	ONLY("max_open_zones", "0", W_ZONES), ONLY("job_max_open_zones", "0", W_ZONES),
	ONLY("ignore_zone_limits", "0", W_ZONES),
	ONLY_A("steadystate_duration", "ss_dur", "0", "rqlock has no steady-state detection"),
	ONLY_A("steadystate_ramp_time", "ss_ramp", "0", "rqlock has no steady-state detection"),
	ONLY("flow", "0", W_RATE), ONLY("flow_id", "0", W_RATE), ONLY("flow_sleep", "0", W_RATE),
	ONLY("trim_percentage", "0", "rqlock issues no trims"),
	ONLY("trim_verify_zero", "1", "rqlock issues no trims"),
	ONLY("verify_async", "0", W_VERIFY), ONLY("verify_fatal", "0", W_VERIFY),
	ONLY("verify_state_load", "0", W_VERIFY),
	ONLY("experimental_verify", "0", W_VERIFY),
	ONLY("read_iolog_chunked", "0", W_IOLOG), ONLY("replay_no_stall", "0", W_IOLOG),
	ONLY("replay_scale", "1", W_IOLOG), ONLY("replay_time_scale", "100", W_IOLOG),
	ONLY("cmd_type", "nvme", W_ENGINE),

	/* refused */
	NOPE("rate", W_RATE), NOPE_A("rate_min", "ratemin", W_RATE), NOPE("rate_iops_min", W_RATE),
	NOPE("latency_target", W_RATE), NOPE("latency_window", W_RATE), NOPE("max_latency", W_RATE),
	NOPE("flow_watermark", W_RATE),
	NOPE("rwmixcycle", "deprecated in fio"),
	NOPE_A("blockalign", "ba", "offsets align to the smallest block size"),
	NOPE_A("bs_unaligned", "blocksize_unaligned", "block sizes are aligned"),
	NOPE("openfiles", W_FILES), NOPE("directory", W_FILES), NOPE("filename_format", W_FILES),
	NOPE("filesize", W_FILES),
	NOPE("opendir", W_FILES), NOPE_A("io_size", "io_limit", "size and runtime bound a job"),
	NOPE("sync_file_range", W_SYNC),
	NOPE("allow_mounted_write", "use rqlock's --allow-mounted-write"),
	NOPE("zero_buffers", W_DATA), NOPE("refill_buffers", W_DATA), NOPE("buffer_pattern", W_DATA),
	NOPE("verify_interval", W_VERIFY), NOPE("verify_offset", W_VERIFY),
	NOPE("verify_backlog_batch", W_VERIFY), NOPE("verify_async_cpus", W_VERIFY),
	NOPE("trim_backlog", "rqlock issues no trims"), NOPE("trim_backlog_batch", "rqlock issues no trims"),
	NOPE("zone_reset_frequency", W_ZONES), NOPE("zone_reset_threshold", W_ZONES),
	NOPE_A("steadystate", "ss", "rqlock has no steady-state detection"),
	NOPE("ignore_error", "errors are handled by continue_on_error"),
	NOPE("iodepth_low", "a job refills its depth as soon as an I/O completes"),
	NOPE("prio", W_OS), NOPE("prioclass", W_OS), NOPE("cgroup", W_OS), NOPE("cgroup_weight", W_OS),
	NOPE("numa_cpu_nodes", W_OS), NOPE("numa_mem_policy", W_OS),
	NOPE("uid", W_OS), NOPE("gid", W_OS), NOPE("ioscheduler", W_OS),
	NOPE("exec_prerun", "rqlock runs no commands"), NOPE("exec_postrun", "rqlock runs no commands"),
	NOPE("exitall", "jobs end on their own"), NOPE("exitall_on_error", "jobs end on their own"),
	NOPE("profile", "rqlock has no fio profiles"),
	NOPE("read_iolog", W_IOLOG), NOPE("write_iolog", W_IOLOG), NOPE("replay_redirect", W_IOLOG),
	NOPE("replay_align", W_IOLOG), NOPE("replay_skip", W_IOLOG),
	NOPE("merge_blktrace_file", W_IOLOG), NOPE("merge_blktrace_scalars", W_IOLOG),
	NOPE("merge_blktrace_iters", W_IOLOG),
	NOPE("write_bw_log", W_LOGS), NOPE("write_lat_log", W_LOGS), NOPE("write_iops_log", W_LOGS),
	NOPE("write_hist_log", W_LOGS),
	NOPE("write_hint", "rqlock sends no write hints"), NOPE("gpu_dev_id", "rqlock has no GPU support"),
	NOPE("sqthread_poll_cpu", W_ENGINE), NOPE("nonvectored", W_ENGINE), NOPE("uncached", W_ENGINE),
	NOPE("nowait", W_ENGINE), NOPE("force_async", W_ENGINE), NOPE("userspace_reap", W_ENGINE),
	NOPE("cmdprio_percentage", W_ENGINE), NOPE("cmdprio_class", W_ENGINE), NOPE("cmdprio", W_ENGINE),
	NOPE("cmdprio_bssplit", W_ENGINE),
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))
_Static_assert(NR_OPTS <= RQ_JOB_OPTS_MAX, "opts_set in job.h is too small");

static bool opt_is(const struct opt *o, const char *key)
{
	return !strcmp(o->name, key) || (o->alias && !strcmp(o->alias, key));
}

static const struct opt *opt_find(const char *key)
{
	size_t i;

	for (i = 0; i < NR_OPTS; i++)
		if (opt_is(&opts[i], key))
			return &opts[i];
	return NULL;
}

static unsigned int opt_idx(const struct opt *o)
{
	return (unsigned int)(o - opts);
}

static void bit_set(uint8_t *set, unsigned int i)
{
	set[i / 8] |= (uint8_t)(1u << (i % 8));
}

static bool bit_test(const uint8_t *set, unsigned int i)
{
	return set[i / 8] >> (i % 8) & 1;
}

static void mark(struct sect *s, const char *name)
{
	const struct opt *o = opt_find(name);

	if (o)
		bit_set(s->set, opt_idx(o));
}

/* fio's fio_option_is_set(): written in this section or a [global] above it */
static bool is_set(const struct sect *s, const char *name)
{
	const struct opt *o = opt_find(name);

	return o && bit_test(s->set, opt_idx(o));
}

/* Edit distance, for "did you mean"; names longer than 63 get no hint. */
static unsigned int dist(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned int row[64];

	if (la >= 64 || lb >= 64)
		return ~0u;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned int)j;
	for (i = 1; i <= la; i++) {
		unsigned int diag = row[0], up;

		row[0] = (unsigned int)i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

static const char *closest(const char *key)
{
	const char *best = NULL;
	unsigned int d, bd = 3;	/* farther than 2 edits is no hint */
	size_t i;

	for (i = 0; i < NR_OPTS; i++) {
		d = dist(key, opts[i].name);
		if (d < bd) {
			bd = d;
			best = opts[i].name;
		}
	}
	return best;
}

/* ----------------------------------------------------- applying values */

static int num_one(struct pctx *p, struct sect *s, const struct opt *o,
		   const char *v, uint64_t *out)
{
	const char *why;

	if (o->type == OPT_TIME) {
		why = parse_time_unit(v, o->unit, out);
		if (why)
			return bad(p, v, why);
		*out /= o->div;
		return 0;
	}
	why = parse_size(v, s->kb_base, out);
	if (why)
		return bad(p, v, why);
	if (*out < o->min || *out > o->max) {
		char range[64];

		snprintf(range, sizeof(range), "must be from %llu to %llu",
			 (unsigned long long)o->min, (unsigned long long)o->max);
		return bad(p, v, range);
	}
	return 0;
}

/* size=N%, offset=N%, offset_increment=N%: a whole percentage 0..100, as fio */
static int apply_pct(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	const char *d = v, *why;
	uint64_t n;
	double pct;

	why = digits(&d, 10, &n);
	if (!why && *d != '%')
		why = *d == '.' ? "a percentage is a whole number (fio reads 10.5% as 10 bytes)"
				: "expected N%";
	if (!why && n > 100)
		why = "a percentage is at most 100";
	if (why)
		return bad(p, v, why);
	pct = (double)n;
	memcpy((char *)&s->job + o->pct_off, &pct, sizeof(pct));
	store(s, o, 0, 0);
	return 0;
}

/*
 * Numbers.  With .nr > 1 the value may be fio's "R,W[,T]" list: an empty
 * part leaves that direction as it was ("bs=,8k", and "bs=8k," sets reads
 * only, as fio 3.33 does), one value with no comma sets every direction.
 * The trim part is checked and dropped: rqlock issues no trims.
 */
static int apply_num(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	unsigned int parts = 1, i, nset = 0;
	size_t len = strlen(v);
	uint64_t n;
	char *c, *part;
	int ret;

	if (o->pct && len && v[len - 1] == '%')
		return apply_pct(p, s, o, v);
	for (c = v; *c; c++)
		parts += *c == ',';
	if (parts > (o->nr > 1 ? 3u : 1u))
		return bad(p, v, o->nr > 1 ? "at most R,W,T" : "one value only");
	if (parts == 1) {
		ret = num_one(p, s, o, v, &n);
		if (ret)
			return ret;
		if (o->pct) {
			double zero = 0.0;

			memcpy((char *)&s->job + o->pct_off, &zero, sizeof(zero));
		}
		if (o->set)
			return o->set(p, s, n, v);
		for (i = 0; i < (o->nr ? o->nr : 1); i++)
			store(s, o, i, n);
		return 0;
	}
	for (i = 0, part = v; i < parts; i++, part = c + 1) {
		c = strchr(part, ',');
		if (c)
			*c = '\0';
		if (*part) {
			ret = num_one(p, s, o, part, &n);
			if (ret)
				return ret;
			if (i < o->nr)
				store(s, o, i, n);
			/* "R,W": the last value given also stands for the rest, as fio */
			if (i + 1 == parts && i + 1 < o->nr)
				for (unsigned int k = i + 1; k < o->nr; k++)
					store(s, o, k, n);
			nset++;
		}
		if (!c)
			break;
	}
	if (!nset)
		return perr(p, "option '%s' needs a value", p->key);
	return 0;
}

static int apply_bool(struct pctx *p, struct sect *s, const struct opt *o, const char *v)
{
	uint64_t b;

	if (!v) {
		/* fio 3.33 wants a value for its bool options: "direct" alone fails there */
		if (o->type == OPT_BOOL)
			pwarn(p, "fio 3.33 rejects a bare '%s'; write '%s=1' to keep the job file runnable by fio",
			      p->key, p->key);
		b = 1;
	} else if (!strcmp(v, "0") || !strcmp(v, "1")) {
		b = v[0] == '1';
	} else {
		return bad(p, v, "use 0 or 1");
	}
	if (o->set)
		return o->set(p, s, b, NULL);
	if (o->bit) {
		int cur;
		char *f = (char *)&s->job + o->off;

		memcpy(&cur, f, sizeof(cur));
		cur = b ? (cur | o->bit) : (cur & ~o->bit);
		memcpy(f, &cur, sizeof(cur));
		return 0;
	}
	if (o->size)
		store(s, o, 0, b);
	return 0;
}

static int apply_enum(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	const struct opt_val *vp = find_val(o->vals, v);

	if (vp && vp->refuse)
		return perr(p, "%s=%s %s", p->key, v, vp->refuse);
	if (!vp)
		return bad_enum(p, v, o->vals);
	if (o->set)
		return o->set(p, s, (uint64_t)vp->val, v);
	store(s, o, 0, (uint64_t)(uint32_t)vp->val);
	return 0;
}

static int apply_str(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	size_t len = strlen(v);
	char *f;

	if (o->set) {
		if (!len)
			return perr(p, "option '%s' needs a value", p->key);
		return o->set(p, s, 0, v);
	}
	if (!o->size)
		return 0;
	if (len >= o->size)
		return perr(p, "value of option '%s' is longer than %zu bytes", p->key, o->size - 1);
	f = (char *)&s->job + o->off;
	memcpy(f, v, len + 1);
	return 0;
}

/* K_ONLY: the value (a bare word is 1) must be one of .only, by text or by number. */
static int check_only(struct pctx *p, struct sect *s, const struct opt *o, const char *v)
{
	const char *val = v ? v : "1", *a = o->only;
	uint64_t x, y;
	bool num = !parse_size(val, s->kb_base, &x);

	while (*a) {
		size_t n = strcspn(a, "|");
		char want[64];

		snprintf(want, sizeof(want), "%.*s", (int)n, a);
		if (!strcmp(want, val) || (num && !parse_size(want, s->kb_base, &y) && x == y))
			return 0;
		a += n + (a[n] == '|');
	}
	return perr(p, "option '%s=%.64s' is not supported in rqlock, only %s=%.*s (fio's default): %s",
		    p->key, val, p->key, (int)strcspn(o->only, "|"), o->only, o->why);
}

/* @v is NULL for a bare word and may be modified. */
static int opt_apply(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	switch (o->kind) {
	case K_IMPL:
		break;
	case K_INERT:
		pwarn(p, "option '%s' has no effect in rqlock (%s)", p->key, o->why);
		return 0;
	case K_ONLY:
		return check_only(p, s, o, v);
	case K_NOPE:
		return perr(p, "option '%s' is not supported in rqlock (%s)", p->key, o->why);
	}
	if (!v && o->type != OPT_BOOL && o->type != OPT_FLAG)
		return perr(p, "option '%s' needs a value", p->key);
	switch (o->type) {
	case OPT_STR:
		return apply_str(p, s, o, v);
	case OPT_INT:
	case OPT_SIZE:
	case OPT_TIME:
		return apply_num(p, s, o, v);
	case OPT_BOOL:
	case OPT_FLAG:
		return apply_bool(p, s, o, v);
	case OPT_ENUM:
		return apply_enum(p, s, o, v);
	}
	return perr(p, "option '%s' has a bad table entry", p->key);
}

/* ------------------------------------------------- ${VAR} and $ncpus */

/* Append @n bytes of @add to the growing string *out. */
static int grow_add(struct pctx *p, char **out, size_t *len, size_t *cap, const char *add, size_t n)
{
	char *tmp;

	if (*len + n >= LINE_MAX_LEN)
		return perr(p, "value of option '%s' is longer than %u bytes after expansion",
			    p->key, LINE_MAX_LEN);
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		tmp = realloc(*out, *cap);
		if (!tmp)
			return perr(p, "out of memory");
		*out = tmp;
	}
	if (n)
		memcpy(*out + *len, add, n);
	*len += n;
	(*out)[*len] = '\0';
	return 0;
}

/* fio's keywords, replaced in this order (options.c fio_keywords) */
static void keyword_values(char pagesize[32], char mb_memory[32], char ncpus[32])
{
	long ps = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES);

	if (ps <= 0)
		ps = 4096;
	snprintf(pagesize, 32, "%ld", ps);
	snprintf(mb_memory, 32, "%llu",
		 pages > 0 ? (unsigned long long)pages * (unsigned long long)ps / (1024 * 1024) : 0ull);
	snprintf(ncpus, 32, "%ld", cpus_configured());
}

/*
 * ${VAR} from the environment, an unset VAR being empty, as fio's
 * fio_option_dup_subs does; a "${" with no "}" after it stays as written.
 * Then $pagesize, $mb_memory and $ncpus; if one was replaced and the
 * value holds + - * or / (and no '), it is computed as bc would (fio runs
 * bc on it).  Returns a new string, or NULL after printing the error.
 */
static char *expand(struct pctx *p, const char *v)
{
	static const char *const kw[] = { "$pagesize", "$mb_memory", "$ncpus" };
	char vals[3][32];
	size_t len = 0, cap = strlen(v) + 1;
	char *out = malloc(cap);
	bool replaced = false;

	if (!out) {
		perr(p, "out of memory");
		return NULL;
	}
	out[0] = '\0';
	while (*v) {
		const char *end = NULL;

		if (v[0] == '$' && v[1] == '{')
			end = strchr(v + 2, '}');
		if (end) {
			char *name = strndup(v + 2, (size_t)(end - v - 2));
			const char *add;

			if (!name)
				goto nomem;
			add = getenv(name);
			free(name);
			if (grow_add(p, &out, &len, &cap, add ? add : "", add ? strlen(add) : 0))
				goto fail;
			v = end + 1;
		} else {
			if (grow_add(p, &out, &len, &cap, v, 1))
				goto fail;
			v++;
		}
	}
	if (!strchr(out, '$'))
		return out;

	keyword_values(vals[0], vals[1], vals[2]);
	for (size_t k = 0; k < 3; k++) {
		char *hit;

		while ((hit = strstr(out, kw[k]))) {
			char *rest = strdup(hit + strlen(kw[k]));

			if (!rest)
				goto nomem;
			len = (size_t)(hit - out);
			out[len] = '\0';
			if (grow_add(p, &out, &len, &cap, vals[k], strlen(vals[k])) ||
			    grow_add(p, &out, &len, &cap, rest, strlen(rest))) {
				free(rest);
				goto fail;
			}
			free(rest);
			replaced = true;
		}
	}
	if (replaced && strpbrk(out, "+-*/") && !strchr(out, '\'')) {
		int64_t r;
		const char *why = calc(out, &r);

		if (why) {
			perr(p, "cannot compute '%.64s' for option '%s': %s (fio hands a value with "
			     "$ncpus, $mb_memory or $pagesize and + - * / to bc)", out, p->key, why);
			goto fail;
		}
		snprintf(out, cap, "%lld", (long long)r);
		if (strlen(out) + 1 >= cap) {
			char *tmp = realloc(out, 32);

			if (!tmp)
				goto nomem;
			out = tmp;
			snprintf(out, 32, "%lld", (long long)r);
		}
	}
	return out;
nomem:
	perr(p, "out of memory");
fail:
	free(out);
	return NULL;
}

/* ------------------------------------------------------------ sections */

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

static void kv_clear(struct fstate *f)
{
	unsigned int i;

	for (i = 0; i < f->nr_kv; i++)
		free(f->kv[i].key);
	f->nr_kv = 0;
}

static int kv_add(struct pctx *p, struct fstate *f, const struct opt *o,
		  const char *key, size_t klen, const char *val)
{
	size_t vlen = val ? strlen(val) : 0;
	struct kv *kv;
	char *buf;

	if (f->nr_kv == f->cap_kv) {
		unsigned int cap = f->cap_kv ? 2 * f->cap_kv : 16;

		kv = realloc(f->kv, cap * sizeof(*kv));
		if (!kv)
			goto nomem;
		f->kv = kv;
		f->cap_kv = cap;
	}
	buf = malloc(klen + 1 + vlen + 1);
	if (!buf)
		goto nomem;
	memcpy(buf, key, klen);
	buf[klen] = '\0';
	kv = &f->kv[f->nr_kv++];
	kv->o = o;
	kv->key = buf;
	kv->val = NULL;
	kv->file = p->file;
	kv->line = p->line;
	if (val) {
		kv->val = buf + klen + 1;
		memcpy(kv->val, val, vlen + 1);
	}
	return 0;
nomem:
	perr(p, "out of memory");
	return -ENOMEM;
}

static int job_add(struct pctx *p, const struct rq_job *job)
{
	struct rq_job_list *l = &p->list;

	if (l->nr == JOBS_MAX)
		return perr(p, "more than %u job sections", JOBS_MAX);
	if (l->nr == p->cap) {
		unsigned int cap = p->cap ? 2 * p->cap : 8;
		struct rq_job *jobs = realloc(l->jobs, cap * sizeof(*jobs));

		if (!jobs) {
			perr(p, "out of memory");
			return -ENOMEM;
		}
		l->jobs = jobs;
		p->cap = cap;
	}
	l->jobs[l->nr++] = *job;
	return 0;
}

static bool uring_engine(enum rq_ioengine e)
{
	return e == RQ_IOENGINE_IO_URING || e == RQ_IOENGINE_IO_URING_CMD;
}

/* io_uring engine options need that engine, set here or above, when they are read (as fio). */
static int check_engine(struct pctx *p, const struct sect *s)
{
	if (!is_set(s, "ioengine"))
		return perr(p, "option '%s' belongs to fio's io_uring engines: set ioengine=io_uring "
			    "(or io_uring_cmd) in this section or a [global] above it, as fio "
			    "requires", p->key);
	if (!uring_engine(s->job.ioengine))
		return perr(p, "option '%s' belongs to fio's io_uring engines, not to ioengine=%s",
			    p->key, val_name(ioengine_vals, s->job.ioengine));
	return 0;
}

/* fio's per-job fix-ups (init.c fixup_options, add_job), once a job section is read. */
static int job_fixup(struct pctx *p, struct sect *s)
{
	struct rq_job *j = &s->job;
	uint32_t min_bs;
	unsigned int k, nw = 0;

	p->file = j->file;
	p->line = j->line;
	p->key = "";
	for (int d = 0; d < 2; d++) {
		if (!j->bs_min[d])
			j->bs_min[d] = j->bs[d];
		if (!j->bs_max[d])
			j->bs_max[d] = j->bs[d];
	}
	if (j->thinktime_spin_us > j->thinktime_us)
		j->thinktime_spin_us = j->thinktime_us;
	if (!j->iodepth_batch_submit || j->iodepth_batch_submit > j->iodepth)
		j->iodepth_batch_submit = j->iodepth;
	if (j->iodepth_batch_complete_min > j->iodepth_batch_complete_max)
		j->iodepth_batch_complete_max = j->iodepth_batch_complete_min;
	if (j->time_based && !j->runtime_ns) {
		pwarn(p, "job '%s': time_based without runtime is ignored, as fio ignores it", j->name);
		j->time_based = false;
	}
	if (j->random_distribution != RQ_RAND_UNIFORM)
		j->norandommap = true;
	if (j->verify_only) {
		/* fio: "does not support workloads with the time_based option set" */
		if (j->time_based)
			return perr(p, "job '%s': verify_only=1 with time_based: a timed run's writes "
				    "cannot be replayed (fio refuses it too)", j->name);
		if (j->verify == RQ_VERIFY_NONE)
			return perr(p, "job '%s': verify_only=1 needs verify= (the type the data was "
				    "written with)", j->name);
		if (!j->randrepeat)
			return perr(p, "job '%s': verify_only=1 with randrepeat=0: a clock-seeded "
				    "run's writes cannot be replayed", j->name);
	}
	min_bs = j->bs_min[0] < j->bs_min[1] ? j->bs_min[0] : j->bs_min[1];
	if (j->size && j->size < min_bs)
		return perr(p, "job '%s': size=%llu is below the smallest block size %u (fio refuses it)",
			    j->name, (unsigned long long)j->size, min_bs);
	if (is_set(s, "randseed"))
		j->randrepeat = false;
	if (!uring_engine(j->ioengine))
		j->hipri = j->sqthread_poll = j->fixedbufs = j->registerfiles = false;
	if (j->wait_for[0]) {
		if (!strcmp(j->wait_for, j->name))
			return perr(p, "job '%s': a job cannot wait for itself (wait_for=%s)",
				    j->name, j->wait_for);
		for (k = 0; k < p->list.nr; k++)
			nw += !strcmp(p->list.jobs[k].name, j->wait_for);
		if (!nw)
			return perr(p, "job '%s': wait_for=%s names no job before it", j->name, j->wait_for);
		if (nw > 1)
			return perr(p, "job '%s': wait_for=%s names %u jobs; fio wants the name unique",
				    j->name, j->wait_for, nw);
	}
	return 0;
}

/* Move the current section's option list into @job (it owns it from now on). */
static void give_opts(struct fstate *f, struct rq_job *job)
{
	job->opt_keys = f->cur_opts.keys;
	job->opt_vals = f->cur_opts.vals;
	job->nr_opts = f->cur_opts.nr;
	memset(&f->cur_opts, 0, sizeof(f->cur_opts));
}

/* Apply the kept lines of the current section in fio's order, then end it. */
static int sect_end(struct pctx *p, struct fstate *f)
{
	unsigned int pass, i;
	int ret = 0;

	if (!f->in_sect)
		return 0;
	f->in_sect = false;
	if (f->skip) {
		kv_clear(f);
		return 0;
	}
	/* prio 1 (kb_base, ...), prio 0, prio -1 (filename), then engine options */
	for (pass = 0; pass < 4 && !ret; pass++) {
		for (i = 0; i < f->nr_kv && !ret; i++) {
			struct kv *kv = &f->kv[i];
			const struct opt *o = kv->o;
			char *v = NULL;

			if (pass == 3 ? !o->engine : (o->engine || o->prio != 1 - (int)pass))
				continue;
			p->file = kv->file;
			p->line = kv->line;
			p->key = kv->key;
			if (kv->val) {
				v = expand(p, kv->val);
				if (!v)
					ret = -EINVAL;
			}
			/* fio lists options with a value (as expanded); a bare flag is not listed */
			if (!ret && v && strlist_add(&f->cur_opts, o->name, v))
				ret = perr(p, "out of memory");
			if (!ret && o->engine)
				ret = check_engine(p, &f->cur);
			if (!ret)
				ret = opt_apply(p, &f->cur, o, v);
			if (!ret)
				bit_set(f->cur.set, opt_idx(o));
			free(v);
		}
	}
	kv_clear(f);
	p->file = f->name;
	if (ret)
		return ret;
	if (f->cur_global) {
		for (i = 0; i < f->cur_opts.nr && !ret; i++)
			if (strlist_add(&f->glob_opts, f->cur_opts.keys[i], f->cur_opts.vals[i]))
				ret = perr(p, "out of memory");
		strlist_free(&f->cur_opts);
		f->glob = f->cur;
		return ret;
	}
	ret = job_fixup(p, &f->cur);
	p->file = f->name;
	if (ret)
		return ret;
	give_opts(f, &f->cur.job);
	f->cur.job.global_keys = f->cur.job.global_vals = NULL;
	f->cur.job.nr_global = 0;
	memcpy(f->cur.job.opts_set, f->cur.set, sizeof(f->cur.job.opts_set));
	ret = job_add(p, &f->cur.job);
	if (ret)
		free_pairs(f->cur.job.opt_keys, f->cur.job.opt_vals, f->cur.job.nr_opts);
	return ret;
}

static bool selected(const struct pctx *p, const char *name)
{
	if (!p->po || !p->po->nr_sections)
		return true;
	for (unsigned int i = 0; i < p->po->nr_sections; i++)
		if (p->po->sections[i] && !strcmp(p->po->sections[i], name))
			return true;
	return false;
}

static int sect_start(struct pctx *p, struct fstate *f, const char *name)
{
	struct rq_job *j = &f->cur.job;
	size_t len = strlen(name);

	if (!len)
		return perr(p, "empty section name '[]'");
	if (len >= sizeof(j->name))
		return perr(p, "section name longer than %zu bytes", sizeof(j->name) - 1);
	if (strlen(p->file) >= sizeof(j->file))
		return perr(p, "job file name longer than %zu bytes", sizeof(j->file) - 1);
	f->cur = f->glob;
	/* fio 3.33 (init.c) takes any section whose name starts "global" as global */
	f->cur_global = !strncmp(name, "global", 6);
	f->in_sect = true;
	f->skip = false;
	if (f->cur_global)
		return 0;
	f->nr_jobs++;
	p->sections_seen++;
	if (!selected(p, name)) {
		f->skip = true;
		return 0;
	}
	memcpy(j->name, name, len + 1);
	strcpy(j->file, p->file);
	j->line = p->line;
	if (f->wall) {
		j->stonewall |= RQ_JOB_STONEWALL;
		mark(&f->cur, "stonewall");
		f->wall = false;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return s;
}

static bool is_key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/*
 * fio 3.33 hands "option= value" over with the blank: numbers then lose
 * their suffix (parse.c get_mult_bytes stops at the blank, so "bs = 8k" is
 * 8 bytes) and enum values match nothing.  A bare number, a bool and a
 * filename (fio strips it) come through right.
 */
static bool fio_misreads(const struct opt *o, const char *val)
{
	if (o->kind != K_IMPL)
		return false;
	switch (o->type) {
	case OPT_ENUM:
		return true;
	case OPT_STR:
		return o->vals != NULL;
	case OPT_INT:
	case OPT_SIZE:
	case OPT_TIME:
		return val[strspn(val, "0123456789")] != '\0';
	default:
		return false;
	}
}

/*
 * One line into *line, without its newline, from @fp or else @*bufp.
 * 1: a line, 0: the end, -E2BIG: longer than LINE_MAX_LEN, <0: -errno.
 * *len counts every byte, so a NUL byte shows as strlen(line) != len.
 */
static int next_line(FILE *fp, const char **bufp, char **line, size_t *cap, size_t *len)
{
	size_t n = 0;

	if (fp) {
		int c = EOF;

		while ((c = getc(fp)) != EOF && c != '\n') {
			if (n + 1 >= *cap) {
				size_t ncap = *cap ? 2 * *cap : 256;
				char *tmp;

				if (n >= LINE_MAX_LEN)
					return -E2BIG;
				tmp = realloc(*line, ncap);
				if (!tmp)
					return -ENOMEM;
				*line = tmp;
				*cap = ncap;
			}
			(*line)[n++] = (char)c;
		}
		if (c == EOF && ferror(fp))
			return -EIO;
		if (c == EOF && !n)
			return 0;
	} else {
		const char *b = *bufp, *nl;

		if (!*b)
			return 0;
		nl = strchr(b, '\n');
		n = nl ? (size_t)(nl - b) : strlen(b);
		if (n > LINE_MAX_LEN)
			return -E2BIG;
		if (n >= *cap) {
			char *tmp = realloc(*line, n + 1);

			if (!tmp)
				return -ENOMEM;
			*line = tmp;
			*cap = n + 1;
		}
		memcpy(*line, b, n);
		*bufp = nl ? nl + 1 : b + n;
	}
	if (!*line) {
		*line = malloc(1);
		if (!*line)
			return -ENOMEM;
		*cap = 1;
	}
	(*line)[n] = '\0';
	*len = n;
	return 1;
}

static int do_line(struct pctx *p, struct fstate *f, char *s, int depth);

/* Read every line of @fp (or @buf) through do_line(); p->file names it. */
static int read_lines(struct pctx *p, struct fstate *f, FILE *fp, const char *buf, int depth)
{
	char *line = NULL;
	size_t cap = 0, len = 0;
	int ret;

	for (;;) {
		ret = next_line(fp, &buf, &line, &cap, &len);
		if (ret <= 0)
			break;
		p->line++;
		if (strlen(line) != len) {
			ret = perr(p, "line has a NUL byte");
			break;
		}
		ret = do_line(p, f, line, depth);
		if (ret)
			break;
	}
	free(line);
	if (ret == -E2BIG) {
		p->line++;
		return perr(p, "line is longer than %u bytes", LINE_MAX_LEN);
	}
	if (ret < 0 && !p->failed) {
		int l = p->line;

		p->line = 0;
		perr(p, "cannot read: %s", strerror(-ret));
		p->line = l;
	}
	return ret < 0 ? ret : 0;
}

/*
 * include FILE, as fio's __parse_jobs_ini: FILE as given if it exists,
 * else next to the file holding the include; its lines join the current
 * section and may hold no section of their own.  Only regular files are
 * read, so a FIFO or /dev/zero cannot hang or exhaust the parse.
 */
static int include_file(struct pctx *p, struct fstate *f, const char *arg, int depth)
{
	const char *outer = p->file, *slash = strrchr(outer, '/');
	int line = p->line, ret, e;
	char *path, **names;
	struct stat st;
	FILE *fp;

	if (!*arg)
		return perr(p, "'include' needs a file name");
	if (depth >= INCLUDE_DEPTH)
		return perr(p, "include %s: nested more than %d deep (an include loop?)", arg,
			    INCLUDE_DEPTH);
	if (access(arg, F_OK) && slash && arg[0] != '/') {
		size_t dl = (size_t)(slash - outer + 1);

		path = malloc(dl + strlen(arg) + 1);
		if (path) {
			memcpy(path, outer, dl);
			strcpy(path + dl, arg);
		}
	} else {
		path = strdup(arg);
	}
	if (!path)
		return perr(p, "out of memory");
	names = realloc(p->names, (p->nr_names + 1) * sizeof(*names));
	if (!names) {
		free(path);
		return perr(p, "out of memory");
	}
	p->names = names;
	p->names[p->nr_names++] = path;

	fp = fopen(path, "r");
	if (!fp) {
		e = errno;
		return perr(p, "include %s: cannot open: %s", path, strerror(e));
	}
	if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode)) {
		fclose(fp);
		return perr(p, "include %s: not a regular file", path);
	}
	p->file = path;
	p->line = 0;
	ret = read_lines(p, f, fp, NULL, depth + 1);
	fclose(fp);
	p->file = outer;
	p->line = line;
	return ret;
}

static int do_line(struct pctx *p, struct fstate *f, char *s, int depth)
{
	const struct opt *o;
	char *eq, *kend, *val = NULL, *c;
	size_t klen;
	int ret;

	/* fio (parse.c strip_blank_end) ends a line at its first ';' or '#' */
	c = strpbrk(s, ";#");
	if (c)
		*c = '\0';
	s = trim(s);
	if (!*s)
		return 0;

	if (*s == '[') {
		size_t len = strlen(s);
		int line = p->line;

		if (depth)
			return perr(p, "an included file cannot hold a section (fio refuses it)");
		if (s[len - 1] != ']')
			return perr(p, "unterminated section header '%.64s'", s);
		s[len - 1] = '\0';
		ret = sect_end(p, f);
		if (ret)
			return ret;
		p->line = line;
		return sect_start(p, f, s + 1);
	}
	/* fio reads nothing at all in a section --section did not select */
	if (f->in_sect && f->skip)
		return 0;

	if (!strncmp(s, "include", 7) && (!s[7] || isspace((unsigned char)s[7]))) {
		if (!f->in_sect)
			return perr(p, "'include' outside of any [section] (fio refuses it)");
		return include_file(p, f, trim(s + 7), depth);
	}

	eq = strchr(s, '=');
	kend = eq ? eq : s + strlen(s);
	while (kend > s && isspace((unsigned char)kend[-1]))
		kend--;
	klen = (size_t)(kend - s);
	for (c = s; c < kend && is_key_char(*c); c++)
		;
	if (!klen || c != kend)
		return perr(p, "expected [section], option or option=value, got '%.64s'", s);
	if (!f->in_sect)
		return perr(p, "option '%.*s' outside of any [section]", (int)klen, s);

	*kend = '\0';
	o = opt_find(s);
	if (!o) {
		const char *hint = closest(s);

		if (hint)
			return perr(p, "unknown option '%s' (did you mean '%s'?)", s, hint);
		return perr(p, "unknown option '%s'", s);
	}
	if (o->kind == K_NOPE) {
		p->key = s;
		return opt_apply(p, &f->cur, o, NULL);
	}
	if (eq) {
		bool blank = isspace((unsigned char)eq[1]);

		val = trim(eq + 1);
		if (blank && fio_misreads(o, val))
			pwarn(p, "fio 3.33 keeps the blank after '=' and misreads '%s = %.64s'; write '%s=%.64s' so fio runs the same job",
			      s, val, s, val);
	}
	return kv_add(p, f, o, s, klen, val);
}

/* The table's defaults, through the same code as a job file's values. */
static int apply_defaults(struct pctx *p, struct sect *s)
{
	unsigned int pass, i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->job.percentile_precision = 2;	/* fio's default list has two decimals */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < NR_OPTS; i++) {
			char def[64];

			if (opts[i].kind != K_IMPL || !opts[i].def || opts[i].prio != 1 - (int)pass)
				continue;
			p->key = opts[i].name;
			snprintf(def, sizeof(def), "%s", opts[i].def);
			ret = opt_apply(p, s, &opts[i], def);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Parse one job file, from @fp or else @buf; jobs go onto p->list. */
static int parse_one(struct pctx *p, FILE *fp, const char *buf, int file_idx)
{
	struct fstate *f = calloc(1, sizeof(*f));
	unsigned int first = p->list.nr;
	int ret;

	if (!f) {
		perr(p, "out of memory");
		return -ENOMEM;
	}
	f->name = p->file;
	p->line = 0;
	ret = apply_defaults(p, &f->glob);
	if (ret)
		goto out;
	f->wall = file_idx > 0;

	ret = read_lines(p, f, fp, buf, 0);
	if (!ret)
		ret = sect_end(p, f);
	p->file = f->name;
	if (!ret && !f->nr_jobs) {
		p->line = 0;
		ret = perr(p, "no jobs defined");
	}
	/* each job of the file gets all of its [global] options, as fio lists them at the end */
	for (unsigned int k = first; !ret && k < p->list.nr; k++) {
		struct strlist g = { 0 };
		struct rq_job *j = &p->list.jobs[k];

		for (unsigned int i = 0; i < f->glob_opts.nr && !ret; i++)
			if (strlist_add(&g, f->glob_opts.keys[i], f->glob_opts.vals[i]))
				ret = perr(p, "out of memory");
		j->global_keys = g.keys;
		j->global_vals = g.vals;
		j->nr_global = g.nr;
	}
out:
	kv_clear(f);
	free(f->kv);
	strlist_free(&f->glob_opts);
	strlist_free(&f->cur_opts);
	free(f);
	return ret;
}

/*
 * fio init.c add_job: a stonewall or new_group after at least one job bumps
 * the group.  fio also refuses group_reporting jobs whose lat_percentiles
 * differ from the rest of their group (verify_per_group_options).
 */
static int set_groups(struct pctx *p)
{
	struct rq_job_list *l = &p->list;
	unsigned int i, k, in_group = 0, first = 0;
	int gid = 0;

	for (i = 0; i < l->nr; i++) {
		if (l->jobs[i].stonewall && in_group) {
			gid++;
			in_group = 0;
			first = i;
		}
		l->jobs[i].groupid = gid;
		in_group++;
		if (!l->jobs[i].group_reporting || in_group < 2)
			continue;
		for (k = first; k < i; k++) {
			if (l->jobs[k].lat_percentiles != l->jobs[i].lat_percentiles) {
				p->file = l->jobs[i].file;
				p->line = l->jobs[i].line;
				return perr(p, "job '%s': lat_percentiles differs from the rest of its "
					    "group (fio refuses this with group_reporting)", l->jobs[i].name);
			}
		}
	}
	return 0;
}

static void list_init(struct rq_job_list *list)
{
	if (list)
		memset(list, 0, sizeof(*list));
}

static void pctx_free(struct pctx *p)
{
	for (unsigned int i = 0; i < p->nr_names; i++)
		free(p->names[i]);
	free(p->names);
	p->names = NULL;
	p->nr_names = 0;
}

/* The end of a parse: groups, the --section check, and the hand-over. */
static int finish(struct pctx *p, int ret, struct rq_job_list *list)
{
	if (!ret && !p->list.nr) {
		p->line = 0;
		ret = perr(p, "no job section selected by --section");
	}
	if (!ret)
		ret = set_groups(p);
	pctx_free(p);
	if (ret) {
		rq_jobs_free(&p->list);
		return ret;
	}
	*list = p->list;
	return 0;
}

int rq_jobs_parse_opts(const char *const *files, int nr_files, const struct rq_parse_opts *o,
		       struct rq_job_list *list, FILE *err)
{
	struct pctx p = { .err = err, .file = "rqlock", .po = o };
	int i, ret = 0;

	list_init(list);
	if (!files || nr_files <= 0 || !list)
		return perr(&p, "no job files given");
	for (i = 0; i < nr_files && !ret; i++) {
		FILE *fp;
		struct stat st;

		p.file = files[i];
		fp = fopen(files[i], "r");
		if (!fp) {
			int e = errno;

			if (err)
				fprintf(err, "%s: cannot open: %s\n", files[i], strerror(e));
			ret = -e;
			break;
		}
		if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
			fclose(fp);
			p.line = 0;
			ret = perr(&p, "cannot read: %s", strerror(EISDIR));
			break;
		}
		/* each file starts from the defaults: fio resets [global] per file */
		ret = parse_one(&p, fp, NULL, i);
		fclose(fp);
	}
	if (ret) {
		pctx_free(&p);
		rq_jobs_free(&p.list);
		return ret;
	}
	p.file = files[nr_files - 1];
	return finish(&p, 0, list);
}

int rq_jobs_parse(const char *const *files, int nr_files, struct rq_job_list *list, FILE *err)
{
	return rq_jobs_parse_opts(files, nr_files, NULL, list, err);
}

int rq_jobs_parse_buf(const char *name, const char *buf, struct rq_job_list *list, FILE *err)
{
	struct pctx p = { .err = err, .file = name ? name : "(buffer)" };
	int ret;

	list_init(list);
	if (!buf || !list)
		return perr(&p, "no job text given");
	ret = parse_one(&p, NULL, buf, 0);
	return finish(&p, ret, list);
}

void rq_jobs_free(struct rq_job_list *list)
{
	if (!list)
		return;
	for (unsigned int i = 0; i < list->nr; i++) {
		free_pairs(list->jobs[i].opt_keys, list->jobs[i].opt_vals, list->jobs[i].nr_opts);
		free_pairs(list->jobs[i].global_keys, list->jobs[i].global_vals, list->jobs[i].nr_global);
	}
	free(list->jobs);
	list_init(list);
}

/* ------------------------------------------------------------ --showcmd */

/* Shell-safe: bare when it is, else in single quotes. */
static void put_word(FILE *f, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-+=/.,:%@") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

int rq_jobs_showcmd(const struct rq_job_list *list, FILE *f)
{
	char buf[16384];

	if (!list || !f)
		return -EINVAL;
	for (unsigned int i = 0; i < list->nr; i++) {
		const struct rq_job *j = &list->jobs[i];

		fputs(i ? " \\\n    --name=" : "fio --name=", f);
		put_word(f, j->name);
		for (size_t k = 0; k < NR_OPTS; k++) {
			const struct opt *o = &opts[k];
			struct sbuf b = { .s = buf, .cap = sizeof(buf) };

			if (o->kind != K_IMPL || !strcmp(o->name, "name"))
				continue;
			/* ioengine always: rqlock's default is not fio's */
			if (!bit_test(j->opts_set, (unsigned int)k) && strcmp(o->name, "ioengine"))
				continue;
			buf[0] = '\0';
			if (o->show)
				o->show(&b, j, o);
			else
				show_by_type(&b, j, o);
			/* a flag that is on is written bare, as fio's --showcmd does */
			if (o->type == OPT_FLAG && !strcmp(buf, "1")) {
				fprintf(f, " --%s", o->name);
				continue;
			}
			fprintf(f, " --%s=", o->name);
			put_word(f, buf);
		}
	}
	if (list->nr)
		fputc('\n', f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------- helpers */

/*
 * As fio's get_next_str: "\:" is a literal ':', empty names (leading,
 * doubled or trailing ':') are skipped.  @fn may be NULL to count names.
 */
int rq_job_for_each_file(const struct rq_job *job, int (*fn)(const char *name, void *arg), void *arg)
{
	char name[RQ_JOB_PATH_MAX];
	size_t max = strnlen(job->filename, sizeof(job->filename)), i, len = 0;
	int nr = 0, ret;

	for (i = 0; i <= max; i++) {
		char c = i < max ? job->filename[i] : '\0';

		if (c == '\\' && i + 1 < max && job->filename[i + 1] == ':') {
			name[len++] = ':';
			i++;
			continue;
		}
		if (c != ':' && c != '\0') {
			name[len++] = c;
			continue;
		}
		if (!len)
			continue;
		name[len] = '\0';
		len = 0;
		if (fn) {
			ret = fn(name, arg);
			if (ret < 0)
				return ret;
		}
		nr++;
	}
	return nr;
}

const char *rq_rw_name(enum rq_rw rw)
{
	switch (rw) {
	case RQ_RW_READ:	return "read";
	case RQ_RW_WRITE:	return "write";
	case RQ_RW_RANDREAD:	return "randread";
	case RQ_RW_RANDWRITE:	return "randwrite";
	case RQ_RW_RW:		return "rw";
	case RQ_RW_RANDRW:	return "randrw";
	}
	return "invalid";
}

bool rq_rw_reads(enum rq_rw rw)
{
	return rw == RQ_RW_READ || rw == RQ_RW_RANDREAD ||
	       rw == RQ_RW_RW || rw == RQ_RW_RANDRW;
}

bool rq_rw_writes(enum rq_rw rw)
{
	return rw == RQ_RW_WRITE || rw == RQ_RW_RANDWRITE ||
	       rw == RQ_RW_RW || rw == RQ_RW_RANDRW;
}

bool rq_rw_random(enum rq_rw rw)
{
	return rw == RQ_RW_RANDREAD || rw == RQ_RW_RANDWRITE || rw == RQ_RW_RANDRW;
}
