/* SPDX-License-Identifier: MIT */
/*
 * expand.c - a job file's value as fio substitutes it before reading it:
 * ${VAR} from the environment, then fio's keywords $pagesize, $mb_memory
 * and $ncpus, and - only when one of those was replaced and the value
 * holds + - * / - integer arithmetic, as fio hands such values to bc.
 * Called by section.c when a section's kept lines are applied; calls
 * nothing of the parser above it (errors go through perr.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile/jobfile_internal.h"

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

/* ------------------------------------------------- ${VAR} and $ncpus */

/* Append @n bytes of @add to the growing string *out. */
static int grow_add(struct pctx *p, char **out, size_t *len, size_t *cap, const char *add, size_t n)
{
	char *tmp;

	if (*len + n >= LINE_MAX_LEN)
		return jf_perr(p, "value of option '%s' is longer than %u bytes after expansion",
			    p->key, LINE_MAX_LEN);
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		tmp = realloc(*out, *cap);
		if (!tmp)
			return jf_perr(p, "out of memory");
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
	snprintf(ncpus, 32, "%ld", jf_cpus_configured());
}

/*
 * ${VAR} from the environment, an unset VAR being empty, as fio's
 * fio_option_dup_subs does; a "${" with no "}" after it stays as written.
 * Then $pagesize, $mb_memory and $ncpus; if one was replaced and the
 * value holds + - * or / (and no '), it is computed as bc would (fio runs
 * bc on it).  Returns a new string, or NULL after printing the error.
 */
char *jf_expand(struct pctx *p, const char *v)
{
	static const char *const kw[] = { "$pagesize", "$mb_memory", "$ncpus" };
	char vals[3][32];
	size_t len = 0, cap = strlen(v) + 1;
	char *out = malloc(cap);
	bool replaced = false;

	if (!out) {
		jf_perr(p, "out of memory");
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
			jf_perr(p, "cannot compute '%.64s' for option '%s': %s (fio hands a value with "
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
	jf_perr(p, "out of memory");
fail:
	free(out);
	return NULL;
}
