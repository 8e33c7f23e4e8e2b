// SPDX-License-Identifier: MIT
/*
 * vstate.c - verify state files (verify_state_save, verify_state_load) and
 * experimental_verify's rewind of the offset generator.
 *
 * A writing clone with verify= leaves, when it ends, the file
 * local-<job>-<n>-verify.state (n: fio's thread number less one, clones
 * counted over every job; '/' in the name becomes '.'), saying how far its
 * writes got: numberio writes were issued, and of the last `window` of
 * them only those at the (file, offset) pairs listed completed.  A later
 * clone with verify_state_load=1 reads it and checks only those writes:
 * verify_only=1 replays the writer's sequence and stops after numberio
 * writes, dropping the window's writes that did not complete (and what
 * they overlap, as the verify log drops a failed write); a read-only job
 * stops at its numberio-th read, or at a read in the window the writer
 * did not complete, as fio's verify_state_should_stop() does.
 *
 * The file is fio 3.33's (version 3, little-endian): a 24-byte header
 * {version, size, crc32c of what follows}, then one thread record {no_comps,
 * depth, nofiles, numberio, index, rand state, name[64]} and depth x
 * nofiles (fileno, offset) slots, no_comps of them used, newest first.
 * fio's t/verify-state (Debian: fio-verify-state) prints it.  `depth` is
 * the window: iodepth, or more when a write failed (continue_on_error) -
 * the window then reaches back to the oldest write that did not complete,
 * so the list stays exact.  A (file, offset) is listed when the last write
 * of the window there completed.  rqlock marks its files in the random
 * state (rqlock's seed and a tag): fio's offsets are not rqlock's, so a
 * file fio wrote cannot be replayed and is refused, as is one whose job
 * name, file count or (random offsets) seed is not the loading job's.
 *
 * What is tracked while writing: the writes of the window, iodepth of them
 * normally (24 bytes each); after a failed write, every write since it.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/offsets.h"
#include "engine/runner.h"
#include "engine/verify.h"

enum { VT_INFLIGHT, VT_OK, VT_FAILED };

#define VS_VERSION	3
#define VS_HDR		24		/* version, size, crc: u64 each */
#define VS_REC		152		/* the thread record before its slots */
#define VS_SLOT		16		/* fileno, offset */
#define VS_TAG		0x7276737461746531ULL	/* "rvstate1": rqlock wrote it */
/* offsets in the record */
#define R_NO_COMPS	0
#define R_DEPTH		8
#define R_NOFILES	12
#define R_NUMBERIO	16
#define R_INDEX		24
#define R_USE64		32
#define R_RAND		40		/* 6 x u64 */
#define R_NAME		88

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/* fio's fio_crc32c(): crc32c without the final inversion */
static uint32_t fio_crc(const void *buf, size_t len)
{
	return ~rq_crc32c(buf, len);
}

/* fio's verify_state_gen_name(), in --aux-path's directory, else the current one */
static int state_path(char *buf, size_t size, const char *aux, const char *name, unsigned int index)
{
	char ename[RQ_JOB_NAME_MAX + 1];
	size_t i;

	for (i = 0; name[i] && i < sizeof(ename) - 1; i++)
		ename[i] = name[i] == '/' ? '.' : name[i];
	ename[i] = 0;
	return snprintf(buf, size, "%s%slocal-%s-%u-verify.state", aux ? aux : "", aux ? "/" : "", ename,
			index) >= (int)size ? -ENAMETOOLONG : 0;
}

static bool tracks(const struct rq_engine *e, const struct rq_job *job)
{
	return job->verify != RQ_VERIFY_NONE && rq_rw_writes(job->rw) && job->verify_state_save &&
	       !job->verify_only && !e->o.no_verify_state;
}

/* ---- the writer: the window of recent writes ---- */

static void trim(struct clone *c)
{
	struct rq_vtrack *t = &c->vtrack;

	while (t->nr - t->head > c->job->iodepth && t->w[t->head].st == VT_OK) {
		t->head++;
		t->first++;
	}
	if (t->head >= 64 && t->head * 2 >= t->nr) {
		memmove(t->w, t->w + t->head, (size_t)(t->nr - t->head) * sizeof(*t->w));
		t->nr -= t->head;
		t->head = 0;
	}
}

void eng_vtrack_issue(struct clone *c, uint32_t file, uint64_t offset)
{
	struct rq_vtrack *t = &c->vtrack;

	if (!t->on)
		return;
	if (t->nr == t->head)
		t->first = c->prog.wseq;	/* the write about to be numbered c->prog.wseq */
	if (t->nr == t->cap) {
		uint64_t cap = t->cap ? t->cap * 2 : 64;
		struct rq_vtrack_w *w = realloc(t->w, (size_t)cap * sizeof(*w));

		if (!w) {
			/* cannot say how far the writes got: no state is saved */
			t->on = false;
			fprintf(stderr, "rqlock: job '%s': out of memory: no verify state is saved\n",
				c->job->name);
			return;
		}
		t->w = w;
		t->cap = cap;
	}
	t->w[t->nr++] = (struct rq_vtrack_w){ .offset = offset, .file = file, .st = VT_INFLIGHT };
}

void eng_vtrack_done(struct clone *c, uint32_t file, uint64_t offset, bool ok)
{
	struct rq_vtrack *t = &c->vtrack;

	if (!t->on)
		return;
	/* writes in flight never overlap (clone_overlaps_inflight()): (file, offset) is one */
	for (uint64_t i = t->nr; i-- > t->head;) {
		if (t->w[i].st == VT_INFLIGHT && t->w[i].file == file && t->w[i].offset == offset) {
			t->w[i].st = ok ? VT_OK : VT_FAILED;
			break;
		}
	}
	trim(c);
}

/* ---- save ---- */

struct slot {
	uint64_t seq, offset;
	uint32_t file;
	uint8_t st;
};

static int by_place_newest(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

static int by_newest(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

static int save_one(struct clone *c, unsigned int index, FILE *err)
{
	const struct rq_vtrack *t = &c->vtrack;
	uint64_t window = t->nr - t->head, nc = 0;
	uint32_t nofiles = c->nr_files;
	char path[RQ_JOB_NAME_MAX + 64], tmp[sizeof(path) + 8];
	struct slot *s = calloc(window ? window : 1, sizeof(*s));
	unsigned char *buf;
	size_t body;
	int fd, ret = 0;

	if (!s)
		return -ENOMEM;
	for (uint64_t i = 0; i < window; i++)
		s[i] = (struct slot){ .seq = t->first + i, .offset = t->w[t->head + i].offset,
				      .file = t->w[t->head + i].file, .st = t->w[t->head + i].st };
	/* a place is listed when the window's last write there completed */
	qsort(s, window, sizeof(*s), by_place_newest);
	for (uint64_t i = 0; i < window; i++)
		if (s[i].st == VT_OK && (!i || s[i].file != s[i - 1].file || s[i].offset != s[i - 1].offset))
			s[nc++] = s[i];
	qsort(s, nc, sizeof(*s), by_newest);
	if (window > UINT32_MAX || !nofiles) {
		free(s);
		return -EOVERFLOW;
	}
	body = VS_REC + (size_t)window * nofiles * VS_SLOT;
	buf = calloc(1, VS_HDR + body);
	if (!buf) {
		free(s);
		return -ENOMEM;
	}
	{
		unsigned char *r = buf + VS_HDR;

		put64(r + R_NO_COMPS, nc);
		put32(r + R_DEPTH, (uint32_t)window);
		put32(r + R_NOFILES, nofiles);
		put64(r + R_NUMBERIO, c->prog.wseq);
		put64(r + R_INDEX, index);
		put64(r + R_USE64, 1);
		put64(r + R_RAND, c->seed);
		put64(r + R_RAND + 8, VS_TAG);
		/* fio's name[64]: the name, cut to 63 bytes and NUL-terminated */
		memcpy(r + R_NAME, c->job->name, strnlen(c->job->name, 63));
		for (uint64_t i = 0; i < nc; i++) {
			put64(r + VS_REC + i * VS_SLOT, s[i].file);
			put64(r + VS_REC + i * VS_SLOT + 8, s[i].offset);
		}
		put64(buf, VS_VERSION);
		put64(buf + 8, body);
		put64(buf + 16, fio_crc(r, body));
	}
	free(s);
	if (state_path(path, sizeof(path), c->cpu->e->o.aux_path, c->job->name, index)) {
		free(buf);
		return -ENAMETOOLONG;
	}
	/* written whole then renamed: a run killed while saving leaves the old file */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
	} else {
		size_t done = 0, len = VS_HDR + body;

		while (done < len) {
			ssize_t n = write(fd, buf + done, len - done);

			if (n < 0) {
				if (errno == EINTR)
					continue;
				ret = -errno;
				break;
			}
			done += (size_t)n;
		}
		if (!ret && fsync(fd))
			ret = -errno;
		if (close(fd) && !ret)
			ret = -errno;
		if (!ret && rename(tmp, path))
			ret = -errno;
		if (ret)
			unlink(tmp);
	}
	if (ret)
		fprintf(err, "rqlock: job '%s': verify_state_save: cannot write %s: %s\n", c->job->name,
			path, strerror(-ret));
	free(buf);
	return ret;
}

int eng_vstate_save(struct rq_engine *e, FILE *err)
{
	int failed = 0;

	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];

		/* a clone whose phase never started wrote nothing: an older file stays */
		if (!c->vtrack.on || !c->finished)
			continue;
		if (save_one(c, i, err))
			failed = 1;
	}
	return failed;
}

/* ---- load ---- */

static int by_place(const void *a, const void *b)
{
	const struct rq_vstate_comp *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* One line naming the file and the job; -EINVAL (bad input: exit 2). */
static int bad(FILE *err, const struct clone *c, const char *path, const char *why)
{
	fprintf(err, "rqlock: job '%s': verify_state_load=1: %s: %s\n", c->job->name, path, why);
	return -EINVAL;
}

/*
 * Read a state file's header and record from @fd, checking its version,
 * size and crc32c: 0 with the record in *@rp (malloc'd, *@sizep bytes),
 * -ENOMEM, or -EINVAL with the reason in @why.
 */
static int vs_read(int fd, unsigned char **rp, uint64_t *sizep, char *why, size_t wl)
{
	unsigned char hdr[VS_HDR], *r;
	struct stat st = { 0 };
	uint64_t size;

	if (fstat(fd, &st) || read(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr)) {
		snprintf(why, wl, "truncated: %lld bytes, shorter than the %d-byte header",
			 (long long)st.st_size, VS_HDR);
		return -EINVAL;
	}
	if (get64(hdr) != VS_VERSION) {
		snprintf(why, wl, "version %" PRIu64 ", expected %d (fio 3.33's format)", get64(hdr), VS_VERSION);
		return -EINVAL;
	}
	size = get64(hdr + 8);
	if ((uint64_t)st.st_size != VS_HDR + size || size < VS_REC || size > (1ULL << 32)) {
		snprintf(why, wl, "truncated or damaged: %lld bytes, the header says %" PRIu64,
			 (long long)st.st_size, VS_HDR + size);
		return -EINVAL;
	}
	r = malloc(size);
	if (!r)
		return -ENOMEM;
	if (pread(fd, r, size, VS_HDR) != (ssize_t)size) {
		snprintf(why, wl, "short read");
		free(r);
		return -EINVAL;
	}
	if (fio_crc(r, size) != get64(hdr + 16)) {
		snprintf(why, wl, "corrupt (crc32c 0x%08x, the header says 0x%08" PRIx64 ")",
			 fio_crc(r, size), get64(hdr + 16));
		free(r);
		return -EINVAL;
	}
	*rp = r;
	*sizep = size;
	return 0;
}

/* Is record @r (@size bytes) whole, rqlock's, and this clone's?  0, or -EINVAL with @why. */
static int vs_check(const struct clone *c, unsigned int index, const unsigned char *r, uint64_t size,
		    char *why, size_t wl)
{
	uint64_t depth = get32(r + R_DEPTH), nofiles = get32(r + R_NOFILES), nc = get64(r + R_NO_COMPS);

	if (size != VS_REC + depth * nofiles * VS_SLOT || nc > depth * nofiles) {
		snprintf(why, wl, "damaged: %" PRIu64 " completions, depth %" PRIu64 " x %" PRIu64
			 " files in %" PRIu64 " bytes", nc, depth, nofiles, size);
		return -EINVAL;
	}
	if (get64(r + R_USE64) != 1 || get64(r + R_RAND + 8) != VS_TAG) {
		snprintf(why, wl, "not written by rqlock (fio's offsets are not rqlock's: its "
			 "writes cannot be replayed)");
		return -EINVAL;
	}
	if (strncmp((const char *)r + R_NAME, c->job->name, 63) || get64(r + R_INDEX) != index) {
		snprintf(why, wl, "saved by job '%.63s' (thread %" PRIu64 "), not this one",
			 (const char *)r + R_NAME, get64(r + R_INDEX));
		return -EINVAL;
	}
	if (nofiles != c->nr_files) {
		snprintf(why, wl, "saved by a job with %" PRIu64 " files, this one has %u", nofiles, c->nr_files);
		return -EINVAL;
	}
	if (rq_rw_random(c->job->rw) && get64(r + R_RAND) != c->seed) {
		snprintf(why, wl, "saved by a run with another random seed (randseed, "
			 "randrepeat): its offsets are not this job's");
		return -EINVAL;
	}
	return 0;
}

/* The writes record @r says completed, sorted by place; 0, -ENOMEM, or -EINVAL with @why. */
static int vs_comps(struct rq_vstate *v, const unsigned char *r, char *why, size_t wl)
{
	uint64_t depth = get32(r + R_DEPTH), nofiles = get32(r + R_NOFILES), nc = get64(r + R_NO_COMPS);

	v->numberio = get64(r + R_NUMBERIO);
	v->window = depth < v->numberio ? depth : v->numberio;
	v->comps = calloc(nc ? nc : 1, sizeof(*v->comps));
	if (!v->comps)
		return -ENOMEM;
	for (uint64_t i = 0; i < nc; i++) {
		uint64_t file = get64(r + VS_REC + i * VS_SLOT);

		if (file >= nofiles) {
			snprintf(why, wl, "damaged: completion %" PRIu64 " names file %" PRIu64 " of %" PRIu64,
				 i, file, nofiles);
			return -EINVAL;
		}
		v->comps[i] = (struct rq_vstate_comp){ .offset = get64(r + VS_REC + i * VS_SLOT + 8),
						       .file = (uint32_t)file };
	}
	v->nr_comps = nc;
	qsort(v->comps, nc, sizeof(*v->comps), by_place);
	return 0;
}

static int load_one(struct rq_engine *e, struct clone *c, unsigned int index, FILE *err)
{
	struct rq_vstate *v = calloc(1, sizeof(*v));
	unsigned char *r = NULL;
	char why[256];
	uint64_t size;
	int fd, ret;

	if (!v)
		return -ENOMEM;
	c->vstate = v;
	if (state_path(v->path, sizeof(v->path), e->o.aux_path, c->job->name, index))
		return bad(err, c, "local-...-verify.state", "the job's name is too long for a file name");
	if (e->o.no_verify_state)
		return bad(err, c, v->path, "rqlock server reads no state files (run the job with rqlock run)");
	if (rq_rw_writes(c->job->rw) && !c->job->verify_only)
		return bad(err, c, v->path, "a job that writes loads a state only with verify_only=1 "
			   "(it checks another run's writes)");
	fd = open(v->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, sizeof(why), "%s (a run of the writing job with verify= and "
			 "verify_state_save=1 leaves it)", strerror(errno));
		return bad(err, c, v->path, why);
	}
	ret = vs_read(fd, &r, &size, why, sizeof(why));
	if (!ret)
		ret = vs_check(c, index, r, size, why, sizeof(why));
	if (!ret)
		ret = vs_comps(v, r, why, sizeof(why));
	free(r);
	close(fd);
	if (ret == -EINVAL)
		return bad(err, c, v->path, why);
	return ret;
}

int eng_vstate_write_done(const struct clone *c, uint64_t seq, uint32_t file, uint64_t offset)
{
	const struct rq_vstate *v = c->vstate;
	struct rq_vstate_comp key = { .offset = offset, .file = file };

	if (seq >= v->numberio)
		return -1;
	if (seq < v->numberio - v->window)
		return 1;
	return bsearch(&key, v->comps, v->nr_comps, sizeof(key), by_place) != NULL;
}

/* experimental_verify streams its replay when every write overlaps another whole or not at all */
static bool whole_overlaps(const struct clone *c)
{
	const struct rq_job *job = c->job;

	if (c->min_bs != c->max_bs || job->nr_bssplit[1])
		return false;
	return !job->blockalign[1] || job->blockalign[1] % c->min_bs == 0;
}

int eng_vstate_setup(struct rq_engine *e, FILE *err)
{
	for (unsigned int i = 0; i < e->nr_clones; i++) {
		struct clone *c = &e->clones[i];
		const struct rq_job *job = c->job;
		int ret;

		c->xv_phase = -1;
		c->vtrack.on = tracks(e, job);
		if (job->verify_state_load) {
			ret = load_one(e, c, i, err);
			if (ret)
				return ret;
			c->shaped = true;	/* its reads stop where the state says */
			c->plain = false;
		}
		if (job->experimental_verify && job->verify != RQ_VERIFY_NONE && job->do_verify &&
		    !job->verify_only && rq_rw_writes(job->rw)) {
			struct rq_xsnap *x = calloc(1, sizeof(*x));

			if (!x || !(x->files = malloc((size_t)c->nr_files * sizeof(*x->files)))) {
				free(x);
				return -ENOMEM;
			}
			x->rng = c->rng;
			x->mix = c->mix;
			memcpy(x->bs, c->bs_state, sizeof(x->bs));
			x->file_left = c->file_left;
			x->cur_file = c->cur_file;
			x->seq_left = c->seq_left;
			memcpy(x->files, c->files, (size_t)c->nr_files * sizeof(*x->files));
			c->xsnap = x;
			c->xv_phase = 0;
			c->xv_stream = whole_overlaps(c);
		}
	}
	return 0;
}

bool eng_xverify_rewind(struct clone *c)
{
	struct rq_xsnap *x = c->xsnap;

	if (!x)
		return false;
	x->writer = c->prog;
	x->wmix = c->mix;
	/* the replay goes through the writer's passes from the first (loops=2 stopped after one, and spun) */
	c->prog = (struct clone_progress){ .passes = 1 };
	c->rng = x->rng;
	c->mix = x->mix;
	memcpy(c->bs_state, x->bs, sizeof(x->bs));
	c->file_left = x->file_left;
	c->cur_file = x->cur_file;
	c->seq_left = x->seq_left;
	for (unsigned int i = 0; i < c->nr_files; i++) {
		struct rq_randmap map = c->files[i].map;

		c->files[i] = x->files[i];
		c->files[i].map = map;
		if (map.bits)
			rq_randmap_clear(&c->files[i].map);
	}
	c->pending_op = -1;
	return true;
}

void eng_xverify_finish(struct clone *c)
{
	c->prog = c->xsnap->writer;
	c->mix = c->xsnap->wmix;
}

void eng_vstate_free(struct clone *c)
{
	free(c->vtrack.w);
	if (c->vstate)
		free(c->vstate->comps);
	free(c->vstate);
	if (c->xsnap)
		free(c->xsnap->files);
	free(c->xsnap);
}
