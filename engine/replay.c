// SPDX-License-Identifier: MIT
/*
 * replay.c - fio's iologs, both ways.
 *
 * write_iolog: the I/Os a clone issues, in fio's iolog version 3 text
 * format, which fio's read_iolog replays:
 *
 *   fio version 3 iolog
 *   US FILE add            (once per file, at the start)
 *   US FILE open
 *   US FILE read|write OFFSET LENGTH    (each I/O, in issue order)
 *   US FILE close          (at the end)
 *
 * US is microseconds since the clone started, fio 3.33's unit.  The file
 * is opened for appending, as fio opens it.  Clone 0 writes the name
 * given; clone N of numjobs > 1 writes NAME.N, so clones do not write
 * over each other.  Verify reads are not logged (a replay verifies
 * nothing).
 *
 * read_iolog: a log of version 2 ("FILE ACTION [OFFSET LENGTH]", with
 * "wait") or version 3 (each line led by its time) is read whole before
 * the run, checked line by line, and turned into the I/Os a clone issues
 * in the log's order (eng_replay_setup()): reads, writes, trims (as fio
 * 3.34; fio 3.33 drops them), and sync/datasync as an fsync/fdatasync of
 * the file (as fio 3.33).  The job is rewritten from the
 * logs - its files are those the logs add (or replay_redirect), its
 * directions and block sizes what they hold, each file's size the
 * furthest byte they touch - so the rest of the engine (devices, layout,
 * checks, reports) sees an ordinary job.  Times, as fio 3.33 replays
 * them: a v3 line is due its time step after the line before (scaled by
 * replay_time_scale; none after a line at time 0, and none when time goes
 * backwards, as where two appended runs meet); a v2 "wait N" holds what
 * follows until N ms after the start.  A replayed I/O is issued when due
 * or later, never earlier; replay_no_stall drops the times.
 *
 * A blktrace (a log that starts with blk_io_trace's magic, in either byte
 * order) is read by engine/blktrace.c as fio 3.33 reads one: its queue
 * events become reads, writes, trims and flushes on the devices it names
 * (or replay_redirect), and a job that gives no iodepth takes the trace's.
 * merge_blktrace_file merges the job's traces into one, which every clone
 * replays; the merged file is written only once the run is sure to start
 * (eng_replay_commit()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/blktrace.h"
#include "engine/runner.h"
#include "queues/queue.h"

int eng_iolog_open(struct clone *c)
{
	const struct rq_job *job = c->job;
	char name[RQ_JOB_PATH_MAX + 16];

	if (!job->write_iolog[0])
		return 0;
	if (c->index)
		snprintf(name, sizeof(name), "%s.%u", job->write_iolog, c->index);
	else
		snprintf(name, sizeof(name), "%s", job->write_iolog);
	c->iolog = fopen(name, "a");
	return c->iolog ? 0 : -errno;
}

/* At the first line: the queues have their names only once the devices are open. */
static void head(struct clone *c)
{
	fputs("fio version 3 iolog\n", c->iolog);
	for (unsigned int i = 0; i < c->nr_files; i++)
		fprintf(c->iolog, "0 %s add\n", c->files[i].q->name);
	for (unsigned int i = 0; i < c->nr_files; i++)
		fprintf(c->iolog, "0 %s open\n", c->files[i].q->name);
	c->iolog_head = true;
}

void eng_iolog_io(struct clone *c, const struct clone_file *f, int op, uint64_t offset, uint32_t len,
		  uint64_t now)
{
	uint64_t us = now > c->start_ns ? (now - c->start_ns) / 1000 : 0;

	if (!c->iolog_head)
		head(c);
	fprintf(c->iolog, "%" PRIu64 " %s %s %" PRIu64 " %u\n", us, f->q->name,
		rq_op_name(op), offset, len);
}

int eng_iolog_close(struct clone *c)
{
	uint64_t us = c->end_ns > c->start_ns ? (c->end_ns - c->start_ns) / 1000 : 0;
	int ret;

	if (!c->iolog)
		return 0;
	if (!c->iolog_head && c->files[0].q)
		head(c);
	for (unsigned int i = 0; i < c->nr_files; i++)
		fprintf(c->iolog, "%" PRIu64 " %s close\n", us, c->files[i].q->name);
	ret = ferror(c->iolog) ? -EIO : 0;
	if (fclose(c->iolog))
		ret = -errno;
	c->iolog = NULL;
	return ret;
}

/* ---- read_iolog ----------------------------------------------------- */

#define LOG_V2 "fio version 2 iolog"
#define LOG_V3 "fio version 3 iolog"
#define LINE_MAX_LEN 8192

/* The files a job's logs name, in order of their first "add": the job's new filename list. */
struct name_tab {
	char **name;
	unsigned int nr, cap;
};

static int name_index(struct name_tab *t, const char *name, bool add)
{
	for (unsigned int i = 0; i < t->nr; i++)
		if (!strcmp(t->name[i], name))
			return (int)i;
	if (!add)
		return -1;
	if (t->nr == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 8;
		char **n = realloc(t->name, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->name = n;
		t->cap = cap;
	}
	t->name[t->nr] = strdup(name);
	if (!t->name[t->nr])
		return -ENOMEM;
	return (int)t->nr++;
}

static void name_tab_free(struct name_tab *t)
{
	for (unsigned int i = 0; i < t->nr; i++)
		free(t->name[i]);
	free(t->name);
}

/* What parsing one log needs and collects. */
struct parse {
	const struct rq_job *job;
	const char *path;
	FILE *err;
	struct name_tab *files;		/* the job's: shared by its logs */
	struct name_tab added;		/* this log's "add"ed names, as written in it */
	uint64_t *extent;		/* by file index: the furthest byte touched */
	unsigned int nr_extent;
	uint32_t max_len[3];		/* by direction: read, write, trim */
	bool has[3];
	bool syncs;			/* a flush is replayed */
	unsigned int depth;		/* the blktraces' probed depth; 0: none read */
	struct rq_replay *r;
	uint64_t cap;
};

static int perr(const struct parse *x, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line on stderr: the job file's place, the log and its line, why. */
static int perr(const struct parse *x, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(x->err, "%s:%d: job '%s': read_iolog=%s", x->job->file, x->job->line, x->job->name, x->path);
	if (line)
		fprintf(x->err, ", line %lu", line);
	fputs(": ", x->err);
	va_start(ap, fmt);
	vfprintf(x->err, fmt, ap);
	va_end(ap);
	fputc('\n', x->err);
	return -EINVAL;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

static int push_io(struct parse *x, const struct rq_replay_io *io)
{
	struct rq_replay *r = x->r;

	if (r->nr == x->cap) {
		uint64_t cap = x->cap ? x->cap * 2 : 1024;
		struct rq_replay_io *n = realloc(r->io, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->io = n;
		x->cap = cap;
	}
	r->io[r->nr++] = *io;
	return 0;
}

static int note_extent(struct parse *x, unsigned int file, uint64_t end)
{
	if (file >= x->nr_extent) {
		uint64_t *n = realloc(x->extent, (file + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + x->nr_extent, 0, (file + 1 - x->nr_extent) * sizeof(*n));
		x->extent = n;
		x->nr_extent = file + 1;
	}
	if (end > x->extent[file])
		x->extent[file] = end;
	return 0;
}

/* One I/O into the clone's log: its file among the job's, the job's directions, sizes and extent. */
static int add_io(struct parse *x, const char *file, struct rq_replay_io *io)
{
	int fi = name_index(x->files, file, true);

	if (fi < 0)
		return fi;
	if (fi > UINT16_MAX)
		return perr(x, 0, "more than %u files", UINT16_MAX + 1);
	io->file = (uint16_t)fi;
	if (io->op == RQ_OP_FLUSH) {
		x->syncs = true;
	} else {
		x->has[io->op] = true;
		if (io->len > x->max_len[io->op])
			x->max_len[io->op] = io->len;
		if (note_extent(x, io->file, io->offset + io->len))
			return -ENOMEM;
	}
	x->r->bytes += io->len;
	return push_io(x, io);
}

/* The actions of a log line with an offset and a length. */
enum act { ACT_READ, ACT_WRITE, ACT_TRIM, ACT_SYNC, ACT_WAIT, ACT_BAD };

static enum act io_action(const char *a)
{
	static const char *const names[] = { "read", "write", "trim", "sync" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(a, names[i]))
			return (enum act)i;
	if (!strcmp(a, "datasync"))
		return ACT_SYNC;
	if (!strcmp(a, "wait"))
		return ACT_WAIT;
	return ACT_BAD;
}

/* One I/O line: FILE ACTION OFFSET LENGTH; *@at the time it is due (ns from the start). */
static int io_line(struct parse *x, unsigned long ln, int version, char **tok, uint64_t *at)
{
	const struct rq_job *job = x->job;
	enum act a = io_action(tok[1]);
	struct rq_replay_io io;
	uint64_t off, len;

	if (a == ACT_BAD)
		return perr(x, ln, "unknown action '%.64s' (read, write, trim, sync, datasync%s, "
			    "or add, open, close without an offset and a length)", tok[1],
			    version == 2 ? ", wait" : "");
	if (!parse_u64(tok[2], &off) || !parse_u64(tok[3], &len))
		return perr(x, ln, "'%.64s %.64s': the offset and the length are decimal numbers of bytes",
			    tok[2], tok[3]);
	if (a == ACT_WAIT) {
		if (version == 3)
			return perr(x, ln, "'wait' is a version 2 action: version 3 times each line instead");
		/* fio 3.33: nothing after it before OFFSET ms from the start */
		if (!job->replay_no_stall && off * 1000000 > *at)
			*at = off * 1000000;
		return 0;
	}
	if ((a == ACT_READ && (job->replay_skip & RQ_REPLAY_SKIP_READ)) ||
	    (a == ACT_WRITE && (job->replay_skip & RQ_REPLAY_SKIP_WRITE)) ||
	    (a == ACT_TRIM && (job->replay_skip & RQ_REPLAY_SKIP_TRIM)) ||
	    (a == ACT_SYNC && (job->replay_skip & RQ_REPLAY_SKIP_SYNC)))
		return 0;
	if (name_index(&x->added, tok[0], false) < 0)
		return perr(x, ln, "%s %s on '%.256s', which no earlier line adds ('%.256s add')", tok[1],
			    tok[2], tok[0], tok[0]);
	if (a != ACT_SYNC && (!len || len > UINT32_MAX))
		return perr(x, ln, "length %" PRIu64 ": expected 1 to %u bytes", len, UINT32_MAX);
	memset(&io, 0, sizeof(io));
	io.op = a == ACT_WRITE ? RQ_OP_WRITE : a == ACT_TRIM ? RQ_OP_DISCARD : a == ACT_SYNC ? RQ_OP_FLUSH :
		RQ_OP_READ;
	io.at_ns = *at;
	if (a == ACT_SYNC) {
		/* fio's fsync or fdatasync of the file: its offset and length play no part */
		io.sync = strcmp(tok[1], "datasync") ? 0 : RQ_SYNC_DATA;
	} else {
		if (job->replay_scale > 1)
			off /= job->replay_scale;
		if (job->replay_align)
			off &= ~(job->replay_align - 1);
		io.offset = off;
		io.len = (uint32_t)len;
	}
	return add_io(x, job->replay_redirect[0] ? job->replay_redirect : tok[0], &io);
}

/* One line of a log after its first; blank lines are passed over. */
static int log_line(struct parse *x, unsigned long ln, int version, char *line, uint64_t *at,
		    uint64_t *last_t)
{
	const struct rq_job *job = x->job;
	char *tok[6], *save = NULL;
	int n = 0, base = version == 3;

	for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == 6)
			break;
		tok[n++] = t;
	}
	if (!n)
		return 0;
	/* fio appends to a write_iolog: two runs' logs in one file, each with its header */
	if (!strncmp(tok[0], "fio", 3) && n == 4 && !strcmp(tok[1], "version") &&
	    !strcmp(tok[3], "iolog") && tok[2][0] == '0' + version && !tok[2][1])
		return 0;
	if (n != base + 2 && n != base + 4)
		return perr(x, ln, "%d fields; expected %s", n,
			    version == 3 ? "'TIME FILE add|open|close' or 'TIME FILE ACTION OFFSET LENGTH'"
					 : "'FILE add|open|close' or 'FILE ACTION OFFSET LENGTH'");
	if (version == 3) {
		uint64_t t;

		if (!parse_u64(tok[0], &t))
			return perr(x, ln, "time '%.64s': expected microseconds since the start", tok[0]);
		/* fio's delay_since_ttime: the step from the line before, none after 0 or backwards */
		if (!job->replay_no_stall && *last_t && t >= *last_t)
			*at += (uint64_t)((double)(t - *last_t) * 1000.0 * 100.0 / job->replay_time_scale);
		*last_t = t;
	}
	if (n == base + 2) {
		const char *name = tok[base], *act = tok[base + 1];

		if (!strcmp(act, "add")) {
			if (name_index(&x->added, name, true) < 0)
				return -ENOMEM;
			/* the file is the job's even when the log touches it nowhere */
			return name_index(x->files, job->replay_redirect[0] ? job->replay_redirect : name,
					  true) < 0 ? -ENOMEM : 0;
		}
		if (strcmp(act, "open") && strcmp(act, "close"))
			return perr(x, ln, "unknown file action '%.64s' (add, open or close)", act);
		if (name_index(&x->added, name, false) < 0)
			return perr(x, ln, "%s of '%.256s', which no earlier line adds ('%.256s add')", act,
				    name, name);
		return 0;	/* the engine opens every file before the run and closes it after */
	}
	return io_line(x, ln, version, tok + base, at);
}

/* One I/O of a blktrace (blktrace.c) into the clone's log. */
static int bt_emit(void *arg, const struct rq_bt_io *b)
{
	struct rq_replay_io io = { .offset = b->offset, .at_ns = b->at_ns, .len = b->len, .op = b->op };

	return add_io(arg, b->file, &io);
}

/* A blktrace, read whole into @x->r (@option names it in messages): 0 or -errno after one line. */
static int parse_blktrace(struct parse *x, FILE *f, const char *option)
{
	struct rq_bt_where w = { .job = x->job, .option = option, .path = x->path, .err = x->err };
	unsigned int depth = 1;
	int ret = rq_bt_read(f, &w, bt_emit, x, &depth);

	if (ret == -ENOMEM)
		fprintf(x->err, "%s:%d: job '%s': %s=%s: out of memory\n", x->job->file, x->job->line,
			x->job->name, option, x->path);
	if (depth > x->depth)
		x->depth = depth;
	return ret;
}

/* Read log @path whole into @x->r; 0, or -errno after one line on x->err. */
static int parse_log(struct parse *x)
{
	bool std = !strcmp(x->path, "-");
	FILE *f = std ? stdin : fopen(x->path, "rb");
	char *line = malloc(LINE_MAX_LEN);
	uint64_t at = 0, last_t = 0;
	unsigned long ln = 1;
	int version, ret = 0;

	if (!line) {
		if (f && !std)
			fclose(f);
		return -ENOMEM;
	}
	if (!f) {
		ret = -errno;
		perr(x, 0, "%s", strerror(-ret));
		free(line);
		return ret;
	}
	/* a blktrace starts with its magic (fio reads none from stdin) */
	if (!std) {
		unsigned char b[4];
		size_t n = fread(b, 1, sizeof(b), f);

		if (rq_bt_is_trace(b, n)) {
			ret = parse_blktrace(x, f, "read_iolog");
			goto out;
		}
		rewind(f);
	}
	if (!fgets(line, LINE_MAX_LEN, f)) {
		ret = perr(x, 0, "%s", ferror(f) ? strerror(errno) : "empty: no 'fio version 3 iolog' line");
		goto out;
	}
	if (!strncmp(line, LOG_V3, strlen(LOG_V3)))
		version = 3;
	else if (!strncmp(line, LOG_V2, strlen(LOG_V2)))
		version = 2;
	else {
		line[strcspn(line, "\r\n")] = '\0';
		ret = perr(x, 1, "'%.64s' is not a fio iolog header: expected '" LOG_V3 "' or '" LOG_V2
			   "' (version 1 is not supported, nor by fio)", line);
		goto out;
	}
	while (fgets(line, LINE_MAX_LEN, f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f)) {
			ret = perr(x, ln, "longer than %d bytes", LINE_MAX_LEN - 1);
			goto out;
		}
		ret = log_line(x, ln, version, line, &at, &last_t);
		if (ret) {
			if (ret == -ENOMEM)
				perr(x, ln, "out of memory");
			goto out;
		}
	}
	if (ferror(f))
		ret = perr(x, 0, "%s", strerror(errno));
	else if (!x->r->nr)
		ret = perr(x, 0, "no reads or writes to replay");
out:
	free(line);
	if (!std)
		fclose(f);
	return ret;
}

/* Split a ':' list ("\:" a literal ':') into @out; returns the count, -ENOMEM. */
static int split_names(const char *list, char ***out)
{
	char **v = NULL, *cur = malloc(strlen(list) + 1);
	int n = 0;
	size_t k = 0;

	if (!cur)
		return -ENOMEM;
	for (const char *p = list;; p++) {
		if (*p == '\\' && p[1] == ':') {
			cur[k++] = *++p;
			continue;
		}
		if (*p && *p != ':') {
			cur[k++] = *p;
			continue;
		}
		cur[k] = '\0';
		if (k) {
			char **nv = realloc(v, (size_t)(n + 1) * sizeof(*nv));

			if (!nv || !(nv[n] = strdup(cur))) {
				free(nv ? nv : v);
				free(cur);
				return -ENOMEM;
			}
			v = nv;
			n++;
		}
		k = 0;
		if (!*p)
			break;
	}
	free(cur);
	*out = v;
	return n;
}

/* Write @t's names into @buf as a filename list, ':' escaped. */
static bool join_names(const struct name_tab *t, char *buf, size_t size)
{
	size_t k = 0;

	for (unsigned int i = 0; i < t->nr; i++) {
		if (i) {
			if (k + 1 >= size)
				return false;
			buf[k++] = ':';
		}
		for (const char *p = t->name[i]; *p; p++) {
			if (k + 2 >= size)
				return false;
			if (*p == ':')
				buf[k++] = '\\';
			buf[k++] = *p;
		}
	}
	buf[k] = '\0';
	return true;
}

/* The job the engine runs for a job that replays: its files, directions and sizes from the logs. */
static int rewrite_job(struct rq_job *job, const struct parse *x, FILE *err)
{
	const bool *has = x->has;
	uint32_t any = 0;
	uint64_t ext = 0;

	if (!join_names(x->files, job->filename, sizeof(job->filename))) {
		fprintf(err, "%s:%d: job '%s': read_iolog=%s: the files the logs name are more than "
			"%zu bytes of names\n", job->file, job->line, job->name, job->read_iolog,
			sizeof(job->filename) - 1);
		return -ENAMETOOLONG;
	}
	for (unsigned int i = 0; i < x->nr_extent; i++)
		ext = x->extent[i] > ext ? x->extent[i] : ext;
	/* trims with reads or writes have no rw of their own: the engine asks eng_replay_ops() */
	job->rw = has[0] && has[1] ? RQ_RW_RW : has[1] ? RQ_RW_WRITE : has[0] ? RQ_RW_READ :
		  has[2] ? RQ_RW_TRIM : RQ_RW_READ;
	for (int d = 0; d < 3; d++)
		any = x->max_len[d] > any ? x->max_len[d] : any;
	for (int d = 0; d < 3; d++) {
		uint32_t bs = x->max_len[d] ? x->max_len[d] : any ? any : job->bs[d];

		job->bs[d] = job->bs_min[d] = job->bs_max[d] = bs;
		job->nr_bssplit[d] = 0;
		job->blockalign[d] = 0;
	}
	/* every file is laid out to the furthest byte a log touches; offsets are the log's */
	job->size = ext * x->files->nr;
	job->size_pct = job->offset_pct = job->offset_increment_pct = 0;
	job->offset = job->offset_increment = job->io_size = 0;
	job->filesize_min = job->filesize_max = 0;
	job->nrfiles = x->files->nr;
	job->loops = 1;
	job->rw_seq_add = 0;
	job->rw_seq_nr = 0;
	job->zonemode = RQ_ZONEMODE_NONE;
	job->random_distribution = RQ_RAND_UNIFORM;
	/* fio: a blktrace's depth, unless the job gives one */
	if (x->depth && !rq_job_opt_set(job, "iodepth"))
		job->iodepth = x->depth;
	return 0;
}

/* merge_blktrace_file: @names merged into e->merged[@j], which every clone of the job replays */
static int parse_merged(struct rq_engine *e, unsigned int j, struct parse *x, char *const *names, int n)
{
	const struct rq_job *job = x->job;
	struct rq_bt_where w = { .job = job, .option = "merge_blktrace_file", .path = job->merge_blktrace_file,
				 .err = x->err };
	struct rq_merged *m = &e->merged[j];
	FILE *f;
	int ret = rq_bt_merge(&w, names, (unsigned int)n, &m->buf, &m->len);

	if (!ret) {
		f = fmemopen(m->buf, m->len, "rb");
		if (!f)
			return -ENOMEM;
		x->path = job->merge_blktrace_file;
		x->r = &e->replays[e->nr_replays++];
		ret = parse_blktrace(x, f, "merge_blktrace_file");
		fclose(f);
	}
	if (ret == -ENOMEM) {
		fprintf(x->err, "%s:%d: job '%s': merge_blktrace_file=%s: out of memory\n", job->file, job->line,
			job->name, job->merge_blktrace_file);
	}
	return ret;
}

/* Parse job @j's logs (one per clone, in turn, or the merged one); fills e->replay_of for its clones. */
static int setup_job(struct rq_engine *e, unsigned int j, unsigned int first_clone, FILE *err)
{
	struct rq_job *job = &e->own_jobs.jobs[j];
	struct name_tab files = { 0 };
	struct parse x = { .job = job, .err = err, .files = &files };
	char **names = NULL;
	int n = split_names(job->read_iolog, &names), ret = 0, logs = n;
	unsigned int base = e->nr_replays;

	if (n <= 0) {
		fprintf(err, "%s:%d: job '%s': read_iolog=%s: no file named\n", job->file, job->line,
			job->name, job->read_iolog);
		return n < 0 ? n : -EINVAL;
	}
	if (job->merge_blktrace_file[0]) {
		ret = parse_merged(e, j, &x, names, n);
		logs = 1;
	}
	for (int i = 0; i < n && !ret && !job->merge_blktrace_file[0]; i++) {
		struct rq_replay *r = &e->replays[e->nr_replays++];

		x.path = names[i];
		x.r = r;
		x.cap = 0;
		name_tab_free(&x.added);
		memset(&x.added, 0, sizeof(x.added));
		ret = parse_log(&x);
	}
	for (unsigned int k = 0; !ret && k < job->numjobs; k++)
		e->replay_of[first_clone + k] = &e->replays[base + k % (unsigned int)logs];
	if (!ret)
		ret = rewrite_job(job, &x, err);
	for (int d = 0; d < 3; d++)
		e->replay_ops[j] |= x.has[d] ? 1u << d : 0;
	e->replay_ops[j] |= x.syncs ? 1u << RQ_OP_FLUSH : 0;
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	name_tab_free(&files);
	name_tab_free(&x.added);
	free(x.extent);
	return ret;
}

int eng_replay_setup(struct rq_engine *e, FILE *err)
{
	const struct rq_job_list *jobs = e->jobs;
	unsigned int nr_logs = 0, nr_clones = 0;
	bool merges = false;
	int ret;

	for (unsigned int j = 0; j < jobs->nr; j++) {
		const char *l = jobs->jobs[j].read_iolog;

		nr_clones += jobs->jobs[j].numjobs;
		if (!l[0])
			continue;
		merges |= jobs->jobs[j].merge_blktrace_file[0] != '\0';
		nr_logs++;
		for (; *l; l++)
			nr_logs += *l == ':';
	}
	if (!nr_logs)
		return 0;
	/* the engine's own copy of the jobs, rewritten where they replay */
	e->own_jobs.jobs = malloc(jobs->nr * sizeof(*jobs->jobs));
	e->replays = calloc(nr_logs, sizeof(*e->replays));
	e->replay_of = calloc(nr_clones, sizeof(*e->replay_of));
	e->replay_ops = calloc(jobs->nr, sizeof(*e->replay_ops));
	e->merged = merges ? calloc(jobs->nr, sizeof(*e->merged)) : NULL;
	if (!e->own_jobs.jobs || !e->replays || !e->replay_of || !e->replay_ops || (merges && !e->merged))
		return -ENOMEM;
	memcpy(e->own_jobs.jobs, jobs->jobs, jobs->nr * sizeof(*jobs->jobs));
	e->own_jobs.nr = jobs->nr;
	e->jobs = &e->own_jobs;
	for (unsigned int j = 0, k = 0; j < jobs->nr; k += jobs->jobs[j].numjobs, j++) {
		if (!jobs->jobs[j].read_iolog[0])
			continue;
		ret = setup_job(e, j, k, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* Write job @job's merged trace @m: 0, or -errno after one line. */
static int write_merged(const struct rq_job *job, const struct rq_merged *m, FILE *err)
{
	FILE *f = fopen(job->merge_blktrace_file, "wb");
	int ret = 0;

	if (!f || fwrite(m->buf, 1, m->len, f) != m->len)
		ret = errno ? -errno : -EIO;
	if (f && fclose(f) && !ret)
		ret = errno ? -errno : -EIO;
	if (ret)
		fprintf(err, "%s:%d: job '%s': merge_blktrace_file=%s: %s\n", job->file, job->line, job->name,
			job->merge_blktrace_file, strerror(-ret));
	return ret;
}

int eng_replay_commit(struct rq_engine *e, FILE *err)
{
	int ret = 0;

	for (unsigned int j = 0; !ret && e->merged && j < e->jobs->nr; j++)
		if (e->merged[j].buf)
			ret = write_merged(&e->jobs->jobs[j], &e->merged[j], err);
	return ret;
}

int rq_engine_merge_blktraces(const struct rq_job_list *jobs, FILE *err)
{
	struct rq_merged *m = calloc(jobs->nr ? jobs->nr : 1, sizeof(*m));
	unsigned int nr = 0;
	int ret = m ? 0 : -ENOMEM;

	for (unsigned int j = 0; !ret && j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];
		struct rq_bt_where w = { .job = job, .option = "merge_blktrace_file",
					 .path = job->merge_blktrace_file, .err = err };
		char **names = NULL;
		int n;

		if (!job->read_iolog[0] || !job->merge_blktrace_file[0])
			continue;
		n = split_names(job->read_iolog, &names);
		ret = n < 0 ? n : rq_bt_merge(&w, names, (unsigned int)n, &m[j].buf, &m[j].len);
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
		nr++;
	}
	if (!ret && !nr) {
		fprintf(err, "rqlock: --merge-blktrace-only: no job has both read_iolog and merge_blktrace_file\n");
		ret = -EINVAL;
	}
	for (unsigned int j = 0; !ret && j < jobs->nr; j++)
		if (m[j].buf)
			ret = write_merged(&jobs->jobs[j], &m[j], err);
	for (unsigned int j = 0; m && j < jobs->nr; j++)
		free(m[j].buf);
	free(m);
	if (ret == -ENOMEM)
		fprintf(err, "rqlock: --merge-blktrace-only: out of memory\n");
	return ret;
}

void eng_replay_free(struct rq_engine *e)
{
	for (unsigned int i = 0; i < e->nr_replays; i++)
		free(e->replays[i].io);
	for (unsigned int j = 0; e->merged && j < e->own_jobs.nr; j++)
		free(e->merged[j].buf);
	free(e->merged);
	free(e->replay_ops);
	free(e->replays);
	free(e->replay_of);
	free(e->own_jobs.jobs);
}

int eng_replay_peek(struct clone *c, uint64_t now, const struct rq_replay_io **io, uint64_t *wake)
{
	const struct rq_replay_io *r;

	if (c->replay_pos >= c->replay->nr)
		return -1;
	r = &c->replay->io[c->replay_pos];
	if (r->at_ns && c->start_ns + r->at_ns > now) {
		*wake = c->start_ns + r->at_ns;
		return 0;
	}
	*io = r;
	return 1;
}
