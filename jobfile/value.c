// SPDX-License-Identifier: MIT
/*
 * value.c - the generic value machinery of the option table: numbers,
 * sizes, times and decimals as fio reads them, storing a value in the job
 * field an entry names (and jf_load to read it back), the error messages,
 * and jf_opt_apply(), which applies a value by the option's type or hands
 * it to the option's own setter.  The setters themselves live beside
 * their options in the opt_*.c sections; the parsers and error helpers
 * they share are exported here with jf_ names (see section.c).
 */
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

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------------- numbers */

/* Decimal or hex digits at *sp; advances *sp.  NULL or why it failed. */
const char *jf_digits(const char **sp, unsigned int base, uint64_t *out)
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
 * fio would read "4x" as 4 and "1.5k" as 1; both are refused here.  As
 * fio's get_mult_bytes(), a suffix ends at ':', ',', '/' or ')', and what
 * follows is not read: fio's own t0023 and t0024 give
 * bsrange=512/25:1k:25:2k:25:4k/25 (512 to 1 KiB in fio), its
 * t/strided.py --filesize=65536) (65536).  fio ends it at '-' too ("bs=4k-8k"
 * is 4k there); rqlock refuses that, a range where one size is meant.
 */
const char *jf_parse_size(const char *v, unsigned int kb_base, uint64_t *out)
{
	const char *s = v, *why;
	uint64_t n, mult;
	size_t i, span;
	unsigned int pow;

	if (*s == '-')
		return "negative values are not allowed";
	if (*s == '(')
		return "fio 3.33 as Debian builds it has no arithmetic in parentheses "
		       "(only after $ncpus, $mb_memory or $pagesize)";
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		why = jf_digits(&s, 16, &n);
		if (why)
			return why;
		if (*s)
			return "hex values take no suffix";
		*out = n;
		return NULL;
	}
	why = jf_digits(&s, 10, &n);
	if (why)
		return why;
	if (*s == '.')
		return "fractions are not allowed";
	if (!strcmp(s, "%"))
		return "a percentage is allowed only for size, offset and offset_increment";
	if ((*s == 'z' || *s == 'Z') && !s[1])
		return "a count of zones (z) is for size, io_size, offset, offset_increment and zoneskip";
	span = strcspn(s, ":,/)");
	for (i = 0; i < sizeof(size_sfx) / sizeof(size_sfx[0]); i++)
		if (strlen(size_sfx[i].sfx) == span && !strncasecmp(s, size_sfx[i].sfx, span))
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
	why = jf_digits(&s, 10, &n);
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

uint64_t jf_load(const struct rq_job *j, const struct opt *o, unsigned int idx)
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

int jf_bad(struct pctx *p, const char *v, const char *why)
{
	return jf_perr(p, "bad value '%.64s%s' for option '%s': %s", v,
		    strlen(v) > 64 ? "..." : "", p->key, why);
}

/* fio's sysconf figures, for $ncpus and cpus_allowed */
long jf_cpus_configured(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? n : 1;
}

/* A plain decimal number with an optional fraction: no sign, exponent, inf or nan. */
const char *jf_parse_float(const char *v, double *out, unsigned int *decimals)
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

/* ---------------------------------------------------------- enum values */

int jf_bad_enum(struct pctx *p, const char *v, const struct opt_val *vals)
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
	return jf_perr(p, "bad value '%.64s' for option '%s' (valid: %s)", v, p->key, valid);
}

const struct opt_val *jf_find_val(const struct opt_val *vals, const char *v)
{
	for (; vals->name; vals++)
		if (!strcmp(vals->name, v))
			return vals;
	return NULL;
}

/* ----------------------------------------------------- applying values */

static int num_one(struct pctx *p, struct sect *s, const struct opt *o,
		   const char *v, uint64_t *out)
{
	const char *why;

	if (o->type == OPT_TIME) {
		why = parse_time_unit(v, o->unit, out);
		if (why)
			return jf_bad(p, v, why);
		*out /= o->div;
		return 0;
	}
	why = jf_parse_size(v, s->kb_base, out);
	if (why)
		return jf_bad(p, v, why);
	if (*out < o->min || *out > o->max) {
		char range[64];

		snprintf(range, sizeof(range), "must be from %llu to %llu",
			 (unsigned long long)o->min, (unsigned long long)o->max);
		return jf_bad(p, v, range);
	}
	return 0;
}

/* size=N%, offset=N%, offset_increment=N%: a whole percentage 0..100, as fio */
static int apply_pct(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	const char *d = v, *why;
	uint64_t n;
	double pct;

	why = jf_digits(&d, 10, &n);
	if (!why && *d != '%')
		why = *d == '.' ? "a percentage is a whole number (fio reads 10.5% as 10 bytes)"
				: "expected N%";
	if (!why && n > 100)
		why = "a percentage is at most 100";
	if (why)
		return jf_bad(p, v, why);
	pct = (double)n;
	memcpy((char *)&s->job + o->pct_off, &pct, sizeof(pct));
	store(s, o, 0, 0);
	return 0;
}

/*
 * size=Nz and the like: N zones, resolved with zonesize once the section
 * is read (jf_zone_fixup()), as fio's zbd_recalc_options_with_zone_granularity()
 */
static int apply_zones(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	const char *d = v, *why;
	uint64_t n;

	why = jf_digits(&d, 10, &n);
	if (!why && (d[0] != 'z' && d[0] != 'Z'))
		why = "expected Nz (a count of zones)";
	if (!why && d[1])
		why = "nothing may follow z";
	if (why)
		return jf_bad(p, v, why);
	memcpy((char *)&s->job + o->zone_off, &n, sizeof(n));
	if (o->pct) {
		double zero = 0.0;

		memcpy((char *)&s->job + o->pct_off, &zero, sizeof(zero));
	}
	store(s, o, 0, 0);
	return 0;
}

/*
 * Numbers.  With .nr > 1 the value may be fio's "R,W[,T]" list: an empty
 * part leaves that direction as it was ("bs=,8k", and "bs=8k," sets reads
 * only, as fio 3.33 does), one value with no comma sets every direction,
 * the last value given stands for the directions after it.
 */
static int apply_num(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	unsigned int parts = 1, i, nset = 0;
	size_t len = strlen(v);
	uint64_t n;
	char *c, *part;
	int ret;

	if (o->zone_off) {
		uint64_t none = 0;

		if (len && (v[len - 1] == 'z' || v[len - 1] == 'Z'))
			return apply_zones(p, s, o, v);
		memcpy((char *)&s->job + o->zone_off, &none, sizeof(none));
	}
	if (o->pct && len && v[len - 1] == '%')
		return apply_pct(p, s, o, v);
	for (c = v; *c; c++)
		parts += *c == ',';
	if (parts > (o->nr > 1 ? 3u : 1u))
		return jf_bad(p, v, o->nr > 1 ? "at most R,W,T" : "one value only");
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
		return jf_perr(p, "option '%s' needs a value", p->key);
	return 0;
}

static int apply_bool(struct pctx *p, struct sect *s, const struct opt *o, const char *v)
{
	uint64_t b;

	if (!v) {
		/* fio 3.33 wants a value for its bool options: "direct" alone fails there */
		if (o->type == OPT_BOOL)
			jf_pwarn(p, "fio 3.33 rejects a bare '%s'; write '%s=1' to keep the job file runnable by fio",
			      p->key, p->key);
		b = 1;
	} else if (!strcmp(v, "0") || !strcmp(v, "1")) {
		b = v[0] == '1';
	} else {
		return jf_bad(p, v, "use 0 or 1");
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
	const struct opt_val *vp = jf_find_val(o->vals, v);

	if (vp && vp->refuse)
		return jf_perr(p, "%s=%s %s", p->key, v, vp->refuse);
	if (!vp)
		return jf_bad_enum(p, v, o->vals);
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
			return jf_perr(p, "option '%s' needs a value", p->key);
		return o->set(p, s, 0, v);
	}
	if (!o->size)
		return 0;
	if (len >= o->size)
		return jf_perr(p, "value of option '%s' is longer than %zu bytes", p->key, o->size - 1);
	f = (char *)&s->job + o->off;
	memcpy(f, v, len + 1);
	return 0;
}

/* K_ONLY: the value (a bare word is 1) must be one of .only, by text or by number. */
static int check_only(struct pctx *p, struct sect *s, const struct opt *o, const char *v)
{
	const char *val = v ? v : "1", *a = o->only;
	uint64_t x, y;
	bool num = !jf_parse_size(val, s->kb_base, &x);

	while (*a) {
		size_t n = strcspn(a, "|");
		char want[64];

		snprintf(want, sizeof(want), "%.*s", (int)n, a);
		if (!strcmp(want, val) || (num && !jf_parse_size(want, s->kb_base, &y) && x == y))
			return 0;
		a += n + (a[n] == '|');
	}
	return jf_perr(p, "option '%s=%.64s' is not supported in rqlock, only %s=%.*s (fio's default): %s",
		    p->key, val, p->key, (int)strcspn(o->only, "|"), o->only, o->why);
}

/* @v is NULL for a bare word and may be modified. */
int jf_opt_apply(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	switch (o->kind) {
	case K_IMPL:
		break;
	case K_INERT:
		if (strcmp(p->key, o->name))
			jf_pwarn(p, "option '%s' (fio's %s) has no effect in rqlock (%s)", p->key, o->name,
				 o->why);
		else
			jf_pwarn(p, "option '%s' has no effect in rqlock (%s)", p->key, o->why);
		return 0;
	case K_ONLY:
		return check_only(p, s, o, v);
	case K_NOPE:
		return jf_perr(p, "option '%s' is not supported in rqlock (%s)", p->key, o->why);
	}
	if (!v && o->type != OPT_BOOL && o->type != OPT_FLAG && o->type != OPT_NAME)
		return jf_perr(p, "option '%s' needs a value", p->key);
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
	case OPT_NAME: {
		char bare[1] = "";

		return o->set(p, s, 0, v ? v : bare);
	}
	}
	return jf_perr(p, "option '%s' has a bad table entry", p->key);
}

