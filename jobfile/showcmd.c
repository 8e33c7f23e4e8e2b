// SPDX-License-Identifier: MIT
/*
 * showcmd.c - --showcmd: every option a job set, printed back with its resolved
 * value as one fio command line.  Holds the walk over the option table and
 * the rendering by type (sizes in bytes, times in their exactest unit,
 * enums by name); an option with its own rendering (opt.show) has it beside
 * its setter in its opt_*.c section, written with jf_bput().
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

/* ---------------------------------------------------- --showcmd values */

void jf_bput(struct sbuf *b, const char *fmt, ...)
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
		jf_bput(b, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (ns % u[i].ns == 0) {
			jf_bput(b, "%llu%s", (unsigned long long)(ns / u[i].ns), u[i].sfx);
			return;
		}
	jf_bput(b, "%lluus", (unsigned long long)(ns / 1000));
}

const char *jf_val_name(const struct opt_val *vals, uint64_t v)
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
		jf_bput(b, "%.*s", (int)o->size, (const char *)j + o->off);
		return;
	case OPT_INT:
	case OPT_SIZE:
		if (o->pct) {
			double pct;

			memcpy(&pct, (const char *)j + o->pct_off, sizeof(pct));
			if (pct > 0.0) {
				jf_bput(b, "%g%%", pct);
				return;
			}
		}
		for (i = 0; i < n; i++)
			jf_bput(b, "%s%llu", i ? "," : "", (unsigned long long)jf_load(j, o, i));
		return;
	case OPT_TIME:
		show_ns(b, jf_load(j, o, 0) * o->div);
		return;
	case OPT_BOOL:
		jf_bput(b, "%u", (unsigned int)jf_load(j, o, 0));
		return;
	case OPT_FLAG:
		if (o->bit)
			jf_bput(b, "%u", (unsigned int)!!(jf_load(j, o, 0) & (uint64_t)o->bit));
		else
			jf_bput(b, "%u", (unsigned int)jf_load(j, o, 0));
		return;
	case OPT_ENUM:
		jf_bput(b, "%s", jf_val_name(o->vals, jf_load(j, o, 0)));
		return;
	case OPT_NAME:
		jf_bput(b, "%.*s", (int)o->size, (const char *)j + o->off);
		return;
	}
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
		for (unsigned int k = 0; k < jf_nr_opts(); k++) {
			const struct opt *o = jf_opt_at(k);
			struct sbuf b = { .s = buf, .cap = sizeof(buf) };

			if (o->kind != K_IMPL || !strcmp(o->name, "name"))
				continue;
			/* ioengine always: rqlock's default is not fio's */
			if (!jf_bit_test(j->opts_set, k) && strcmp(o->name, "ioengine"))
				continue;
			buf[0] = '\0';
			if (o->show)
				o->show(&b, j, o);
			else
				show_by_type(&b, j, o);
			/* a flag that is on is written bare, as fio's --showcmd does */
			if ((o->type == OPT_FLAG && !strcmp(buf, "1")) || (o->type == OPT_NAME && !buf[0])) {
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

