/* SPDX-License-Identifier: MIT */
/*
 * section.c - a job file's sections and the application of their options.
 * A section's option lines are kept as they are read (parse.c hands each
 * over: jf_add_opt), then, when the section ends, applied in fio's option
 * priority (kb_base and cpus_allowed_policy first, filename last, ioengine
 * options after everything), each value expanded first (expand.c) and
 * stored through the option table (value.c); then fio's per-job fix-ups
 * run (fixup_options in fio's init.c), so that inter-dependent options
 * resolve as they do in fio.  [global] sections carry into the sections
 * after them; a job section ends as one job of the list.  Errors go
 * through perr.c; nothing here calls back into parse.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* --------------------------------------------------------- string lists */

int jf_strlist_add(struct strlist *l, const char *key, const char *val)
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

void jf_free_pairs(char **keys, char **vals, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		free(keys[i]);
		free(vals[i]);
	}
	free(keys);
	free(vals);
}

/* ------------------------------------------------------------ sections */

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
		if (jf_warn_fio(p, "job '%s': time_based without runtime is ignored, as fio ignores it", j->name))
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
	if (jf_is_set(s, "randseed")) {
		j->randrepeat = false;
		j->randseed_set = true;
	}
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
int jf_sect_end(struct pctx *p, struct fstate *f)
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
				v = jf_expand(p, kv->val);
				if (!v)
					ret = -EINVAL;
			}
			/* fio lists options with a value (as expanded); a bare flag is not listed */
			if (!ret && v && jf_strlist_add(&f->cur_opts, o->name, v))
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
			if (jf_strlist_add(&f->glob_opts, f->cur_opts.keys[i], f->cur_opts.vals[i]))
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
		jf_free_pairs(f->cur.job.opt_keys, f->cur.job.opt_vals, f->cur.job.nr_opts);
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

int jf_sect_start(struct pctx *p, struct fstate *f, const char *name)
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
 * Option @key of the current section with @val (NULL: a bare word), from a
 * job file's line or fio's command line; @blank: the line had a blank
 * after '='.
 */
int jf_add_opt(struct pctx *p, struct fstate *f, const char *key, const char *val, bool blank)
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

/* The table's defaults, through the same code as a job file's values. */
int jf_apply_defaults(struct pctx *p, struct sect *s)
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

void jf_fstate_free(struct fstate *f)
{
	if (!f)
		return;
	kv_clear(f);
	free(f->kv);
	strlist_free(&f->glob_opts);
	strlist_free(&f->cur_opts);
	free(f);
}
