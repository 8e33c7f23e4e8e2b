/* SPDX-License-Identifier: MIT */
/*
 * parse.c - fio job-file parser: the lines of a job file (or fio's
 * command-line jobs), include, and the public entry points.  The parser is
 * jobfile/, each file calling only those below it: this file, then
 * section.c (sections and the application of their options), expand.c
 * (${VAR}, fio's keywords, arithmetic), options.c (the table's registry of
 * sections and its lookups), opt_*.c (the implemented options by concern,
 * each beside its setters), value.c (values), showcmd.c, and perr.c (the
 * error line and warnings, which all of them report through).
 *
 * Reads fio 3.33 job files into struct rq_job_list.  Every option fio 3.33
 * knows lives in one declarative table, read through jf_opt_at(): name,
 * alias, type, the field it fills, its default and a help text (which
 * states a default itself only where there is no .def: --cmdhelp adds it).
 * Defaults are applied by running each .def string through the same code
 * as a job file value, so the table's .def is the only place a default is
 * written.
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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "jobfile/jobfile_internal.h"

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
		ret = jf_sect_end(p, f);
		if (ret)
			return ret;
		p->line = line;
		return jf_sect_start(p, f, s + 1);
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
	return jf_add_opt(p, f, s, val, eq && isspace((unsigned char)eq[1]));
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
			ret = jf_sect_end(p, f);
			if (!ret) {
				p->line = (int)i + 1;
				ret = jf_sect_start(p, f, val);
			}
			continue;
		}
		if (!f->in_sect)
			ret = jf_sect_start(p, f, "global");
		if (!ret)
			ret = jf_add_opt(p, f, key, val, false);
	}
	return ret;
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
			if (jf_strlist_add(&f->glob_opts, seed->glob_opts.keys[i], seed->glob_opts.vals[i]))
				ret = jf_perr(p, "out of memory");
	} else {
		ret = jf_apply_defaults(p, &f->glob);
	}
	if (ret)
		goto out;
	f->wall = file_idx > 0;

	ret = cmdline ? cmd_lines(p, f) : read_lines(p, f, fp, buf, 0);
	if (!ret)
		ret = jf_sect_end(p, f);
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
			if (jf_strlist_add(&g, f->glob_opts.keys[i], f->glob_opts.vals[i]))
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
	jf_fstate_free(f);
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
	jf_fstate_free(seed);
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
		jf_free_pairs(list->jobs[i].opt_keys, list->jobs[i].opt_vals, list->jobs[i].nr_opts);
		jf_free_pairs(list->jobs[i].global_keys, list->jobs[i].global_vals, list->jobs[i].nr_global);
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
		fprintf(f, "%-24s: %s%s", o->name, o->kind == K_IMPL ? "" :
			o->kind == K_NOPE ? "(refused) " : "(no effect) ", what ? what : "");
		/* the default is the table's .def, stated once; the help says it only where there is none */
		if (o->kind == K_IMPL && o->def)
			fprintf(f, " (default: %s)", o->def);
		fputc('\n', f);
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
