/* SPDX-License-Identifier: MIT */
/*
 * parse.c - fio job-file parser: sections, include, ${VAR} and arithmetic,
 * and the public entry points.  The parser is jobfile/: options.c (the
 * table's registry of sections and its lookups), opt_*.c (the implemented
 * options by concern, each beside its setters), value.c (values),
 * showcmd.c and this file.
 *
 * Reads fio 3.33 job files into struct rq_job_list.  Every option fio 3.33
 * knows lives in one declarative table, read through jf_opt_at(): name,
 * alias, type, the field it fills, its default and a help text that states
 * the default.
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

/*
 * A warning fio prints too (on stderr): always printed; with
 * --warnings-fatal it is the parse's one error instead, as fio's is.
 */
static int warn_fio(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int warn_fio(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	if (p->po && p->po->warnings_fatal) {
		char msg[512];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		return jf_perr(p, "%s (--warnings-fatal)", msg);
	}
	if (!p->err)
		return 0;
	va_start(ap, fmt);
	jf_vwarn(p, fmt, ap);
	va_end(ap);
	return 0;
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
static char *expand(struct pctx *p, const char *v)
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
	jf_perr(p, "out of memory");
	return -ENOMEM;
}

static int job_add(struct pctx *p, const struct rq_job *job)
{
	struct rq_job_list *l = &p->list;

	if (l->nr == JOBS_MAX)
		return jf_perr(p, "more than %u job sections", JOBS_MAX);
	if (l->nr == p->cap) {
		unsigned int cap = p->cap ? 2 * p->cap : 8;
		struct rq_job *jobs = realloc(l->jobs, cap * sizeof(*jobs));

		if (!jobs) {
			jf_perr(p, "out of memory");
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

/* Engine options need their engine, set here or above, when they are read (as fio). */
static int check_engine(struct pctx *p, const struct sect *s, const struct opt *o)
{
	const char *whose = o->libaio ? "io_uring and libaio engines" : "io_uring engines";

	if (!jf_is_set(s, "ioengine"))
		return jf_perr(p, "option '%s' belongs to fio's %s: set ioengine=%s in this section "
			    "or a [global] above it, as fio requires", p->key, whose,
			    o->libaio ? "io_uring (or libaio)" : "io_uring (or io_uring_cmd)");
	if (!uring_engine(s->job.ioengine) && !(o->libaio && s->job.ioengine == RQ_IOENGINE_LIBAIO))
		return jf_perr(p, "option '%s' belongs to fio's %s, not to ioengine=%s",
			    p->key, whose, jf_val_name(jf_ioengine_vals, s->job.ioengine));
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
	for (int d = 0; d < 3; d++) {
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
		if (warn_fio(p, "job '%s': time_based without runtime is ignored, as fio ignores it", j->name))
			return -EINVAL;
		j->time_based = false;
	}
	if (j->random_distribution != RQ_RAND_UNIFORM)
		j->norandommap = true;
	/* zonemode (fio's fixup_options), and zone counts (Nz) made bytes */
	if (jf_zone_fixup(p, j))
		return -EINVAL;
	if (j->verify_only) {
		/* fio: "does not support workloads with the time_based option set" */
		if (j->time_based && !j->verify_state_load)
			return jf_perr(p, "job '%s': verify_only=1 with time_based: a timed run's writes "
				    "cannot be replayed without verify_state_load=1 (its count of "
				    "writes); fio refuses it too", j->name);
		if (j->verify == RQ_VERIFY_NONE)
			return jf_perr(p, "job '%s': verify_only=1 needs verify= (the type the data was "
				    "written with)", j->name);
		if (!j->randrepeat)
			return jf_perr(p, "job '%s': verify_only=1 with randrepeat=0: a clock-seeded "
				    "run's writes cannot be replayed", j->name);
	}
	min_bs = j->bs_min[0] < j->bs_min[1] ? j->bs_min[0] : j->bs_min[1];
	if (j->size && j->size < min_bs)
		return jf_perr(p, "job '%s': size=%llu is below the smallest block size %u (fio refuses it)",
			    j->name, (unsigned long long)j->size, min_bs);
	if (jf_is_set(s, "randseed"))
		j->randrepeat = false;
	if ((j->cmdprio_pct[0] || j->cmdprio_pct[1]) &&
	    (j->nr_cmdprio_bssplit[0] || j->nr_cmdprio_bssplit[1]))
		return jf_perr(p, "job '%s': cmdprio_percentage and cmdprio_bssplit are mutually "
			    "exclusive (fio refuses both)", j->name);
	/* fio's offload mode serializes against other jobs' I/Os too: rqlock only within a clone */
	if (j->serialize_overlap && j->io_submit_offload && j->filename[0] &&
	    (rq_rw_writes(j->rw) || rq_rw_trims(j->rw)))
		return jf_perr(p, "job '%s': serialize_overlap=1 with io_submit_mode=offload: fio then "
			    "holds back I/Os that overlap other jobs' on the same file, rqlock only "
			    "those of the same clone; without filename= each clone has files of its own",
			    j->name);
	if (!uring_engine(j->ioengine))
		j->hipri = j->sqthread_poll = j->fixedbufs = j->registerfiles = false;
	if (j->wait_for[0]) {
		if (!strcmp(j->wait_for, j->name))
			return jf_perr(p, "job '%s': a job cannot wait for itself (wait_for=%s)",
				    j->name, j->wait_for);
		for (k = 0; k < p->list.nr; k++)
			nw += !strcmp(p->list.jobs[k].name, j->wait_for);
		if (!nw)
			return jf_perr(p, "job '%s': wait_for=%s names no job before it", j->name, j->wait_for);
		if (nw > 1)
			return jf_perr(p, "job '%s': wait_for=%s names %u jobs; fio wants the name unique",
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
				ret = jf_perr(p, "out of memory");
			if (!ret && o->engine)
				ret = check_engine(p, &f->cur, o);
			if (!ret)
				ret = jf_opt_apply(p, &f->cur, o, v);
			if (!ret)
				jf_bit_set(f->cur.set, jf_opt_idx(o));
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
				ret = jf_perr(p, "out of memory");
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
		return jf_perr(p, "empty section name '[]'");
	if (len >= sizeof(j->name))
		return jf_perr(p, "section name longer than %zu bytes", sizeof(j->name) - 1);
	if (strlen(p->file) >= sizeof(j->file))
		return jf_perr(p, "job file name longer than %zu bytes", sizeof(j->file) - 1);
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
		jf_mark(&f->cur, "stonewall");
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
			ret = jf_perr(p, "line has a NUL byte");
			break;
		}
		ret = do_line(p, f, line, depth);
		if (ret)
			break;
	}
	free(line);
	if (ret == -E2BIG) {
		p->line++;
		return jf_perr(p, "line is longer than %u bytes", LINE_MAX_LEN);
	}
	if (ret < 0 && !p->failed) {
		int l = p->line;

		p->line = 0;
		jf_perr(p, "cannot read: %s", strerror(-ret));
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
		return jf_perr(p, "'include' needs a file name");
	if (depth >= INCLUDE_DEPTH)
		return jf_perr(p, "include %s: nested more than %d deep (an include loop?)", arg,
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
		return jf_perr(p, "out of memory");
	names = realloc(p->names, (p->nr_names + 1) * sizeof(*names));
	if (!names) {
		free(path);
		return jf_perr(p, "out of memory");
	}
	p->names = names;
	p->names[p->nr_names++] = path;

	fp = fopen(path, "r");
	if (!fp) {
		e = errno;
		return jf_perr(p, "include %s: cannot open: %s", path, strerror(e));
	}
	if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode)) {
		fclose(fp);
		return jf_perr(p, "include %s: not a regular file", path);
	}
	p->file = path;
	p->line = 0;
	ret = read_lines(p, f, fp, NULL, depth + 1);
	fclose(fp);
	p->file = outer;
	p->line = line;
	return ret;
}

/*
 * Option @key of the current section with @val (NULL: a bare word), from a
 * job file's line or fio's command line; @blank: the line had a blank
 * after '='.
 */
static int add_opt(struct pctx *p, struct fstate *f, const char *key, const char *val, bool blank)
{
	const struct opt *o = jf_opt_find(key);

	if (!o) {
		const char *hint = jf_closest(key), *eng = jf_engine_of(key);

		if (eng)
			return jf_perr(p, "option '%s' belongs to fio's ioengine=%s, which rqlock does not have",
				       key, eng);
		if (hint)
			return jf_perr(p, "unknown option '%s' (did you mean '%s'?)", key, hint);
		return jf_perr(p, "unknown option '%s'", key);
	}
	if (o->kind == K_NOPE) {
		p->key = key;
		return jf_opt_apply(p, &f->cur, o, NULL);
	}
	if (blank && val && fio_misreads(o, val))
		jf_pwarn(p, "fio 3.33 keeps the blank after '=' and misreads '%s = %.64s'; write '%s=%.64s' so fio runs the same job",
		      key, val, key, val);
	return kv_add(p, f, o, key, strlen(key), val);
}

static int do_line(struct pctx *p, struct fstate *f, char *s, int depth)
{
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
			return jf_perr(p, "an included file cannot hold a section (fio refuses it)");
		if (s[len - 1] != ']')
			return jf_perr(p, "unterminated section header '%.64s'", s);
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
			return jf_perr(p, "'include' outside of any [section] (fio refuses it)");
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
		return jf_perr(p, "expected [section], option or option=value, got '%.64s'", s);
	if (!f->in_sect)
		return jf_perr(p, "option '%.*s' outside of any [section]", (int)klen, s);

	*kend = '\0';
	if (eq)
		val = trim(eq + 1);
	return add_opt(p, f, s, val, eq && isspace((unsigned char)eq[1]));
}

/*
 * fio's command-line jobs (its init.c parse_cmd_line): an option before the
 * first --name, or after --name=global..., is a global one; --name=X
 * starts job X.  @f then holds the global options the first job file
 * starts from, as fio's def_thread carries them into it.
 */
static int cmd_lines(struct pctx *p, struct fstate *f)
{
	const struct rq_parse_opts *po = p->po;
	int ret = 0;

	for (unsigned int i = 0; i < po->nr_cmd && !ret; i++) {
		const char *key = po->cmd_keys[i], *val = po->cmd_vals[i];

		p->line = (int)i + 1;
		if (!strcmp(key, "name")) {
			if (!val || !*val)
				return jf_perr(p, "--name needs a job name");
			ret = sect_end(p, f);
			if (!ret) {
				p->line = (int)i + 1;
				ret = sect_start(p, f, val);
			}
			continue;
		}
		if (!f->in_sect)
			ret = sect_start(p, f, "global");
		if (!ret)
			ret = add_opt(p, f, key, val, false);
	}
	return ret;
}

/* The table's defaults, through the same code as a job file's values. */
static int apply_defaults(struct pctx *p, struct sect *s)
{
	unsigned int pass, i, nr = jf_nr_opts();
	int ret;

	/* the first use of the table in a parse: its indexes must fit the bitmaps */
	if (nr > RQ_JOB_OPTS_MAX)
		return jf_perr(p, "the option table has %u entries, RQ_JOB_OPTS_MAX is %u",
			       nr, RQ_JOB_OPTS_MAX);
	memset(s, 0, sizeof(*s));
	s->job.percentile_precision = 2;	/* fio's default list has two decimals */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < nr; i++) {
			const struct opt *o = jf_opt_at(i);
			char def[64];

			if (o->kind != K_IMPL || !o->def || o->prio != 1 - (int)pass)
				continue;
			p->key = o->name;
			snprintf(def, sizeof(def), "%s", o->def);
			ret = jf_opt_apply(p, s, o, def);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void fstate_free(struct fstate *f)
{
	if (!f)
		return;
	kv_clear(f);
	free(f->kv);
	strlist_free(&f->glob_opts);
	strlist_free(&f->cur_opts);
	free(f);
}

/*
 * Parse one job file, from @fp or else @buf, or else fio's command-line
 * jobs (p->po); jobs go onto p->list.  The file starts from @seed's global
 * options when given (the command line's), else from the defaults.  @keep:
 * the file's state is handed over there instead of freed (the seed of the
 * next).
 */
static int parse_one(struct pctx *p, FILE *fp, const char *buf, int file_idx,
		     const struct fstate *seed, struct fstate **keep)
{
	struct fstate *f = calloc(1, sizeof(*f));
	unsigned int first = p->list.nr;
	bool cmdline = !fp && !buf;
	int ret = 0;

	if (!f) {
		jf_perr(p, "out of memory");
		return -ENOMEM;
	}
	f->name = p->file;
	p->line = 0;
	if (seed) {
		f->glob = seed->glob;
		for (unsigned int i = 0; i < seed->glob_opts.nr && !ret; i++)
			if (strlist_add(&f->glob_opts, seed->glob_opts.keys[i], seed->glob_opts.vals[i]))
				ret = jf_perr(p, "out of memory");
	} else {
		ret = apply_defaults(p, &f->glob);
	}
	if (ret)
		goto out;
	f->wall = file_idx > 0;

	ret = cmdline ? cmd_lines(p, f) : read_lines(p, f, fp, buf, 0);
	if (!ret)
		ret = sect_end(p, f);
	p->file = f->name;
	/* command-line options without --name are the job files' global options */
	if (!ret && !f->nr_jobs && !(cmdline && keep)) {
		p->line = 0;
		ret = jf_perr(p, "no jobs defined");
	}
	/* each job of the file gets all of its [global] options, as fio lists them at the end */
	for (unsigned int k = first; !ret && k < p->list.nr; k++) {
		struct strlist g = { 0 };
		struct rq_job *j = &p->list.jobs[k];

		for (unsigned int i = 0; i < f->glob_opts.nr && !ret; i++)
			if (strlist_add(&g, f->glob_opts.keys[i], f->glob_opts.vals[i]))
				ret = jf_perr(p, "out of memory");
		j->global_keys = g.keys;
		j->global_vals = g.vals;
		j->nr_global = g.nr;
	}
out:
	if (keep && !ret) {
		*keep = f;
		return 0;
	}
	fstate_free(f);
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
				return jf_perr(p, "job '%s': lat_percentiles differs from the rest of its "
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
		ret = jf_perr(p, "no job section selected by --section");
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
	struct fstate *seed = NULL;
	int i, ret = 0;

	list_init(list);
	if (!list || ((!files || nr_files <= 0) && !(o && o->nr_cmd)))
		return jf_perr(&p, "no job files given");
	if (nr_files < 0)
		nr_files = 0;
	if (o && o->nr_cmd) {
		p.file = RQ_JOB_CMDLINE;
		ret = parse_one(&p, NULL, NULL, 0, NULL, nr_files ? &seed : NULL);
	}
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
			ret = jf_perr(&p, "cannot read: %s", strerror(EISDIR));
			break;
		}
		/* each file starts from the defaults: fio resets [global] per file */
		ret = parse_one(&p, fp, NULL, i, i ? NULL : seed, NULL);
		fclose(fp);
	}
	fstate_free(seed);
	if (ret) {
		pctx_free(&p);
		rq_jobs_free(&p.list);
		return ret;
	}
	p.file = nr_files ? files[nr_files - 1] : RQ_JOB_CMDLINE;
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
		return jf_perr(&p, "no job text given");
	ret = parse_one(&p, NULL, buf, 0, NULL, NULL);
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
	case RQ_RW_TRIM:	return "trim";
	case RQ_RW_RANDTRIM:	return "randtrim";
	case RQ_RW_TRIMWRITE:	return "trimwrite";
	case RQ_RW_RANDTRIMWRITE: return "randtrimwrite";
	}
	return "invalid";
}


/* ------------------------------------------------- fio's command line */

/*
 * fio's bare-word options (FIO_OPT_STR_SET there) that rqlock's table
 * types otherwise or not at all (not implemented: no type): on fio's
 * command line they take no value unless written with '='.
 */
static bool fio_bare_word(const struct opt *o)
{
	static const char *const words[] = {
		"verify_only", "thread", "zero_buffers", "refill_buffers", "bs_unaligned",
		"stats", "unlink_each_loop",
	};

	if (o->kind == K_IMPL && (o->type == OPT_FLAG || o->type == OPT_NAME))
		return true;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(o->name, words[i]))
			return true;
	return false;
}

unsigned int rq_job_cli_opts(const char **names, bool *bare, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < jf_nr_opts(); i++) {
		const struct opt *o = jf_opt_at(i);

		for (int a = 0; a < 2; a++) {
			const char *name = a ? o->alias : o->name;

			if (!name)
				continue;
			if (n < max) {
				names[n] = name;
				bare[n] = fio_bare_word(o);
			}
			n++;
		}
	}
	return n;
}

static void opt_help(const struct opt *o, FILE *f, bool one)
{
	const char *what = o->kind == K_IMPL ? o->help : o->why;

	if (!one) {
		fprintf(f, "%-24s: %s%s\n", o->name, o->kind == K_IMPL ? "" :
			o->kind == K_NOPE ? "(refused) " : "(no effect) ", what ? what : "");
		return;
	}
	fprintf(f, "%20s: %s\n", "name", o->name);
	if (o->alias)
		fprintf(f, "%20s: %s\n", "alias", o->alias);
	fprintf(f, "%20s: %s\n", "in rqlock", o->kind == K_IMPL ? "implemented" :
		o->kind == K_NOPE ? "refused" : o->kind == K_ONLY ? "only at fio's default" : "accepted, no effect");
	if (what)
		fprintf(f, "%20s: %s\n", o->kind == K_IMPL ? "description" : "why", what);
	if (o->kind == K_ONLY && o->only)
		fprintf(f, "%20s: %s\n", "accepted", o->only);
	if (o->def)
		fprintf(f, "%20s: %s\n", "default", o->def);
	if (o->vals) {
		fprintf(f, "%20s:", "valid values");
		for (const struct opt_val *v = o->vals; v->name; v++)
			if (!v->refuse)
				fprintf(f, " %s", v->name);
		fputc('\n', f);
	}
}

int rq_job_opt_help(const char *name, FILE *f)
{
	const struct opt *o;

	if (!name || !strcmp(name, "all")) {
		for (unsigned int i = 0; i < jf_nr_opts(); i++)
			opt_help(jf_opt_at(i), f, false);
		return 0;
	}
	o = jf_opt_find(name);
	if (!o)
		return -ENOENT;
	opt_help(o, f, true);
	return 0;
}

int rq_job_engines_help(const char *eng, FILE *f)
{
	const struct opt_val *v;

	if (!eng) {
		fprintf(f, "Available IO engines:\n");
		for (v = jf_ioengine_vals; v->name; v++)
			if (!v->refuse)
				fprintf(f, "\t%s\n", v->name);
		return 0;
	}
	for (v = jf_ioengine_vals; v->name && (v->refuse || strcmp(v->name, eng)); v++)
		;
	if (!v->name)
		return -ENOENT;
	/* the engine options rqlock has are io_uring's (io_uring_cmd shares them), some libaio's too */
	if (v->val != RQ_IOENGINE_IO_URING && v->val != RQ_IOENGINE_IO_URING_CMD &&
	    v->val != RQ_IOENGINE_LIBAIO) {
		fprintf(f, "%s: no engine options\n", eng);
		return 0;
	}
	for (unsigned int i = 0; i < jf_nr_opts(); i++)
		if (jf_opt_at(i)->engine && (v->val != RQ_IOENGINE_LIBAIO || jf_opt_at(i)->libaio))
			opt_help(jf_opt_at(i), f, false);
	return 0;
}

const char *rq_job_opt_closest(const char *name)
{
	return jf_closest(name);
}
