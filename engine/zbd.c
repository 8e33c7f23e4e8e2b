// SPDX-License-Identifier: MIT
/*
 * zbd.c - zonemode=zbd, zones emulated on a file or on a block device
 * that is not zoned, with fio 3.33's rules (its zbd.c, read for what it
 * does: nothing of it is copied).
 *
 * A device's zones are created by the first clone that uses it and shared
 * by every clone of the run that does, across jobs and stonewalls, as fio
 * keeps one zbd_info per file name: a job that writes leaves data a later
 * job reads.  Every zone starts empty (fio does not look at what a file
 * holds).  One mutex per device guards its zones, taken for each I/O's
 * decision and its completion; fio also holds a zone's own lock from that
 * decision until the I/O is back, which orders a real zoned device's
 * writes.  Emulated zones need no such order (the data lands where the
 * write pointer said), so rqlock does not hold it across the I/O.
 *
 * What fio's zone lock and io_u_quiesce() do when no zone can be opened
 * (wait for I/Os in flight, which may close zones) rqlock does by holding
 * the I/O back (RQ_ZBD_WAIT) until something comes back: the clone's
 * worker is not blocked, the drawn offset is kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "engine/runner.h"
#include "engine/zbd.h"
#include "lib/compiler.h"

struct zone {
	uint64_t start, wp, cap_end;	/* cap_end: start + zonecapacity */
	bool open;
	bool reset_due;			/* zone_reset_frequency chose it (fio's reset_zone) */
};

struct rq_zbd {
	pthread_mutex_t lock;		/* everything below */
	uint64_t zone_size, size;	/* size: the file's or device's (fio's real_file_size) */
	uint32_t nr_zones;
	unsigned int max_open;		/* 0: no limit, and open zones are not tracked */
	unsigned int nr_open;
	uint32_t *open;			/* the open zones' indices, max_open of them */
	uint64_t swd;			/* bytes below the write pointers (fio's sectors_with_data) */
	uint32_t write_cnt;		/* writes until zone_reset_frequency resets one */
	uint64_t inflight;		/* accepted I/Os not back yet (fio's any_io_in_flight()) */
	struct zone z[];		/* nr_zones, and a sentinel: its start ends the last */
};

/* ---- setup ----------------------------------------------------------- */

static uint32_t nr_zones_of(const struct rq_job *job, uint64_t size)
{
	return (uint32_t)((size + job->zonesize - 1) / job->zonesize);
}

/* fio aligns every region but a plain sequential read's (td_ddir == TD_DDIR_READ) */
static bool seq_read_only(const struct rq_job *job)
{
	return job->rw == RQ_RW_READ;
}

bool eng_zbd_align(const struct rq_job *job, uint64_t dev_size, uint64_t *off, uint64_t *size)
{
	const uint64_t zs = job->zonesize, last = (uint64_t)nr_zones_of(job, dev_size) * zs;
	uint64_t o = *off, s = *size, end;

	if (o >= dev_size || !s || seq_read_only(job))
		return true;
	if (o % zs) {
		uint64_t next = (o / zs + 1) * zs;

		if (next >= o + s)
			return false;
		s -= next - o;
		o = next;
	}
	end = (o + s) / zs * zs;
	if (end > last)
		end = last;	/* past the last zone: the sentinel's start */
	if (end != o + s) {
		if (end <= o)
			return false;
		s = end - o;
	}
	*off = o;
	*size = s;
	return true;
}

/* A zoned block device's own zones are not emulated over: rqlock does not read them. */
static bool dev_is_zoned(const struct rq_dev *dev)
{
	char path[96], buf[32] = "";
	struct stat st;
	FILE *f;

	if (!dev->path[0] || stat(dev->path, &st) || !S_ISBLK(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/zoned", major(st.st_rdev),
		 minor(st.st_rdev));
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] && strncmp(buf, "none", 4);
}

/* fio's zbd_verify_bs(): trims are whole zones; with verify, every bs divides a zone */
static int check_bs(const struct rq_job *job, const char *name, FILE *err)
{
	if (rq_rw_trims(job->rw) && (job->nr_bssplit[2] || job->bs_min[2] != job->bs_max[2])) {
		fprintf(err, "%s:%d: job '%s': zonemode=zbd trims whole zones: no bsrange or bssplit "
			"for trims (fio: bsrange and bssplit are not allowed for trim with zonemode=zbd)\n",
			job->file, job->line, job->name);
		return -EINVAL;
	}
	if (rq_rw_trims(job->rw) && job->bs[2] != job->zonesize) {
		fprintf(err, "%s:%d: job '%s': %s: trim block size %u is not the zone size %" PRIu64 "\n",
			job->file, job->line, job->name, name, job->bs[2], job->zonesize);
		return -EINVAL;
	}
	for (int d = 0; job->verify != RQ_VERIFY_NONE && d < 3; d++)
		if (job->bs[d] && job->zonesize % job->bs[d]) {
			fprintf(err, "%s:%d: job '%s': %s: block size %u is not a divisor of the zone "
				"size %" PRIu64 " (verify reads each zone back whole)\n", job->file,
				job->line, job->name, name, job->bs[d], job->zonesize);
			return -EINVAL;
		}
	return 0;
}

int eng_zbd_check(const struct rq_job *job, const char *name, const struct rq_dev *dev, uint64_t off,
		  uint64_t size, FILE *err)
{
	uint64_t o = off, s = size;

	/* fio's init_zone_info() for a regular file or block device, as it words it */
	if (!job->zonesize) {
		fprintf(err, "%s:%d: job '%s': %s: zonemode=zbd needs zonesize, the size of the zones "
			"rqlock emulates (fio: Specifying the zone size is mandatory for regular file/block "
			"device with --zonemode=zbd)\n", job->file, job->line, job->name, name);
		return -EINVAL;
	}
	if (job->zonesize < 512) {
		fprintf(err, "%s:%d: job '%s': zonesize=%" PRIu64 ": fio's zone size must be at least 512 "
			"bytes for --zonemode=zbd\n", job->file, job->line, job->name, job->zonesize);
		return -EINVAL;
	}
	if (job->zonecapacity > job->zonesize) {
		fprintf(err, "%s:%d: job '%s': zonecapacity=%" PRIu64 " is larger than zonesize=%" PRIu64 "\n",
			job->file, job->line, job->name, job->zonecapacity, job->zonesize);
		return -EINVAL;
	}
	if (dev_is_zoned(dev)) {
		fprintf(err, "%s:%d: job '%s': %s is a zoned block device: rqlock emulates zones on "
			"files and devices that are not zoned, and does not read a device's own\n",
			job->file, job->line, job->name, name);
		return -EINVAL;
	}
	if (dev->size < job->zonesize) {
		fprintf(err, "%s:%d: job '%s': %s: file/device size %" PRIu64 " is smaller than zone "
			"size %" PRIu64 "\n", job->file, job->line, job->name, name, dev->size, job->zonesize);
		return -EINVAL;
	}
	if (!eng_zbd_align(job, dev->size, &o, &s)) {
		fprintf(err, "%s:%d: job '%s': %s: the region [%" PRIu64 ", %" PRIu64 ") holds no whole "
			"zone of %" PRIu64 " bytes (fio: io_size must be at least one zone)\n", job->file,
			job->line, job->name, name, off, off + size, job->zonesize);
		return -EINVAL;
	}
	return check_bs(job, name, err);
}

static struct rq_zbd *zbd_new(const struct rq_job *job, uint64_t size)
{
	uint32_t n = nr_zones_of(job, size);
	uint64_t cap = job->zonecapacity ? job->zonecapacity : job->zonesize;
	struct rq_zbd *zd = calloc(1, sizeof(*zd) + (n + 1) * sizeof(zd->z[0]));

	if (!zd)
		return NULL;
	if (job->max_open_zones && !(zd->open = calloc(job->max_open_zones, sizeof(*zd->open)))) {
		free(zd);
		return NULL;
	}
	pthread_mutex_init(&zd->lock, NULL);
	zd->zone_size = job->zonesize;
	zd->size = size;
	zd->nr_zones = n;
	zd->max_open = job->max_open_zones;
	for (uint32_t i = 0; i <= n; i++) {
		zd->z[i].start = zd->z[i].wp = (uint64_t)i * job->zonesize;
		zd->z[i].cap_end = zd->z[i].start + cap;
	}
	zd->write_cnt = UINT32_MAX;
	return zd;
}

static uint32_t zone_idx(const struct rq_zbd *zd, uint64_t off)
{
	uint64_t i = off / zd->zone_size;

	return i < zd->nr_zones ? (uint32_t)i : zd->nr_zones;
}

/* One zbd clone's files on their devices' zones. */
static int clone_zbd_setup(struct clone *c, const struct job_facts *facts, FILE *err)
{
	const struct rq_job *job = c->job;

	c->zbd.on = true;
	for (int d = 0; d < 3; d++)
		c->zbd.min_bs[d] = facts->lo[d] ? facts->lo[d] : facts->min_bs;
	for (unsigned int i = 0; i < c->nr_files; i++) {
		struct clone_file *f = &c->files[i];
		struct dev_entry *d = container_of(f->q, struct dev_entry, q);

		if (!d->zbd && !(d->zbd = zbd_new(job, f->file_size)))
			return -ENOMEM;
		if (d->zbd->zone_size != job->zonesize) {
			fprintf(err, "%s:%d: job '%s': zonesize %" PRIu64 " does not match the zone size "
				"%" PRIu64 " another job gave %s\n", job->file, job->line, job->name,
				job->zonesize, d->zbd->zone_size, d->name);
			return -EINVAL;
		}
		if (job->max_open_zones && d->zbd->max_open != job->max_open_zones) {
			fprintf(err, "%s:%d: job '%s': max_open_zones=%u where another job on %s has %u "
				"(fio: Different 'max_open_zones' values)\n", job->file, job->line, job->name,
				job->max_open_zones, d->name, d->zbd->max_open);
			return -EINVAL;
		}
		if (job->job_max_open_zones && !d->zbd->max_open) {
			fprintf(err, "%s:%d: job '%s': job_max_open_zones needs max_open_zones on %s\n",
				job->file, job->line, job->name, d->name);
			return -EINVAL;
		}
		f->zbd = d->zbd;
		f->zmin = zone_idx(f->zbd, f->start);
		f->zmax = zone_idx(f->zbd, f->end);
	}
	return 0;
}

int eng_zbd_setup(struct rq_engine *e, FILE *err)
{
	for (unsigned int k = 0; k < e->nr_clones; k++) {
		struct clone *c = &e->clones[k];
		int ret;

		if (c->job->zonemode != RQ_ZONEMODE_ZBD)
			continue;
		ret = clone_zbd_setup(c, &e->facts[c->job_index], err);
		if (ret)
			return ret;
	}
	return 0;
}

void eng_zbd_free(struct rq_engine *e)
{
	for (unsigned int i = 0; e->devs && i < e->nr_devs; i++) {
		struct rq_zbd *zd = e->devs[i].zbd;

		if (!zd)
			continue;
		pthread_mutex_destroy(&zd->lock);
		free(zd->open);
		free(zd);
		e->devs[i].zbd = NULL;
	}
}

/* ---- zones: the device's lock held ---------------------------------- */

static bool zone_full(const struct zone *z, uint64_t need)
{
	return z->wp + need > z->cap_end;
}

/* fio's zbd_close_zone(): the closing clone's count goes down, whoever opened it */
static void zone_close(struct clone *c, struct rq_zbd *zd, struct zone *z)
{
	uint32_t i, idx = (uint32_t)(z - zd->z);

	if (!z->open)
		return;
	for (i = 0; i < zd->nr_open && zd->open[i] != idx; i++)
		;
	if (i == zd->nr_open)
		return;
	memmove(&zd->open[i], &zd->open[i + 1], (zd->nr_open - i - 1) * sizeof(zd->open[0]));
	zd->nr_open--;
	if (c->zbd.open)
		c->zbd.open--;
	z->open = false;
}

/* fio's zbd_reset_zone(): back to empty; a reset counts only where there was data */
static void zone_reset(struct clone *c, struct rq_zbd *zd, struct zone *z)
{
	if (z->wp == z->start)
		return;
	zd->swd -= z->wp - z->start;
	z->wp = z->start;
	c->rep.zone_resets++;
}

/* fio's zbd_open_zone() */
static bool zone_open(struct clone *c, struct rq_zbd *zd, struct zone *z)
{
	const struct rq_job *job = c->job;

	/* a full zone is not written again under verify: its reset would lose the data */
	if (job->verify != RQ_VERIFY_NONE && zone_full(z, c->zbd.min_bs[RQ_OP_WRITE]))
		return false;
	if (!zd->max_open)
		return true;
	if (z->open)
		return z->wp < z->cap_end;	/* filled by writes in flight: as a full one */
	if (job->job_max_open_zones && c->zbd.open >= job->job_max_open_zones)
		return false;
	if (zd->nr_open >= zd->max_open)
		return false;
	zd->open[zd->nr_open++] = (uint32_t)(z - zd->z);
	c->zbd.open++;
	z->open = true;
	return true;
}

static bool in_region(const struct clone_file *f, uint64_t off)
{
	return off - f->start < f->end - f->start;
}

/* fio's pick_random_zone_idx(): an open zone chosen by where the offset fell */
static uint32_t pick_open(const struct rq_zbd *zd, const struct clone_file *f, uint64_t off)
{
	return (uint32_t)((off - f->start) * zd->nr_open / (f->end - f->start));
}

/*
 * fio's zbd_convert_to_open_zone(): a zone that can take the write
 * instead of @zi - an open one of the clone's region chosen by the
 * offset, else the next that can be opened, else an open one with room.
 * The zone's index, or -1 (RQ_ZBD_EOF) or -2 (RQ_ZBD_WAIT).
 */
static long convert_to_open(struct clone *c, struct rq_zbd *zd, struct clone_file *f, uint64_t off)
{
	const struct rq_job *job = c->job;
	const uint32_t min_bs = c->zbd.min_bs[RQ_OP_WRITE];
	uint32_t zi = zd->nr_open && (zd->max_open || job->job_max_open_zones) ?
		      zd->open[pick_open(zd, f, off) < zd->nr_open ? pick_open(zd, f, off) : 0] :
		      zone_idx(zd, off);
	struct zone *z;

	zi = zi < f->zmin ? f->zmin : zi >= f->zmax ? f->zmax - 1 : zi;
	if (zd->max_open || job->job_max_open_zones) {
		if (!zd->nr_open)
			goto open_other;
		/* an open zone of this clone's region, from the one the offset picks */
		for (uint32_t n = 0, i = pick_open(zd, f, off); n < zd->nr_open; n++, i++) {
			if (i >= zd->nr_open)
				i = 0;
			if (zd->open[i] >= f->zmin && zd->open[i] < f->zmax) {
				zi = zd->open[i];
				goto examine;
			}
		}
		return -1;
	}
examine:
	z = &zd->z[zi];
	if (z->wp + min_bs <= z->cap_end)
		return zi;
open_other:
	/* the limits are reached: fio waits for its I/Os in flight to close zones */
	if ((zd->nr_open == f->zmax - f->zmin || (zd->max_open && zd->nr_open == zd->max_open) ||
	     (job->job_max_open_zones && c->zbd.open == job->job_max_open_zones)) && c->inflight)
		return -2;
	for (uint64_t n = (f->end - f->start) / zd->zone_size; n > 0; n--) {
		if (++zi >= f->zmax || !in_region(f, zd->z[zi].start))
			zi = f->zmin;	/* round the region */
		z = &zd->z[zi];
		if (!z->open && zone_open(c, zd, z))
			return zi;
	}
	for (uint32_t i = 0; i < zd->nr_open; i++) {
		z = &zd->z[zd->open[i]];
		if (zd->open[i] >= f->zmin && zd->open[i] < f->zmax && z->wp + min_bs <= z->cap_end)
			return zd->open[i];
	}
	/* I/Os in flight, this clone's or others', may close zones: try again once they are back */
	return zd->inflight ? -2 : -1;
}

/* fio's zbd_find_zone(): the next zone with @need bytes of data (random: the nearest either way) */
static long find_data(const struct clone *c, const struct rq_zbd *zd, const struct clone_file *f,
		      uint32_t zb, uint64_t need)
{
	const bool rnd = rq_rw_random(c->job->rw);

	for (long z1 = (long)zb + 1, z2 = (long)zb - 1; z1 < (long)f->zmax || z2 >= (long)f->zmin;
	     z1++, z2--) {
		if (z1 < (long)f->zmax) {
			if (zd->z[z1].start + need <= zd->z[z1].wp)
				return z1;
		} else if (!rnd) {
			break;
		}
		if (rnd && z2 >= (long)f->zmin && zd->z[z2].start + need <= zd->z[z2].wp)
			return z2;
	}
	return -1;
}

/* A read below the write pointer, as fio's zbd_adjust_block() places it. */
static int adjust_read(struct clone *c, struct rq_zbd *zd, struct clone_file *f, uint64_t *off,
		       uint32_t *bs)
{
	const uint32_t min_bs = c->zbd.min_bs[RQ_OP_READ];
	const bool rnd = rq_rw_random(c->job->rw);
	const uint32_t orig = zone_idx(zd, *off);
	uint32_t zi = orig;
	uint64_t range = zd->z[zi].wp - zd->z[zi].start, len;

	if (range < min_bs || (!rnd && *off + min_bs > zd->z[zi].wp)) {
		long n = find_data(c, zd, f, zi, min_bs);

		if (n < 0)
			return RQ_ZBD_EOF;
		zi = (uint32_t)n;
		range = zd->z[zi].wp - zd->z[zi].start;
		if (!rnd)
			*off = zd->z[zi].start;
	}
	/* within the zone's data, keeping a random offset random */
	if (range <= *bs)
		*off = zd->z[zi].start;
	else if (rnd)
		*off = zd->z[zi].start + ((*off - zd->z[orig].start) % (range - *bs)) / min_bs * min_bs;
	len = zd->z[zi].wp - *off < *bs ? zd->z[zi].wp - *off : *bs;
	*bs = (uint32_t)(len / min_bs * min_bs);
	return RQ_ZBD_ACCEPT;
}

/* zone_reset_threshold/frequency: every 1/frequency-th write past the threshold resets its zone */
static bool reset_by_frequency(const struct clone *c, struct rq_zbd *zd, const struct clone_file *f)
{
	const struct rq_job *job = c->job;

	if (zd->swd < (uint64_t)((double)(f->end - f->start) * job->zone_reset_threshold))
		return false;
	if (zd->write_cnt)
		zd->write_cnt--;
	if (zd->write_cnt)
		return false;
	zd->write_cnt = (uint32_t)(1.0 / job->zone_reset_frequency < (double)UINT32_MAX ?
				   1.0 / job->zone_reset_frequency : (double)UINT32_MAX);
	return true;
}

static int zbd_error(struct clone *c, int err, const char *what)
{
	if (!c->error) {
		c->error = err;
		fprintf(stderr, "rqlock: job '%s': zonemode=zbd: %s\n", c->job->name, what);
	}
	return -err;
}

/* A write at its zone's write pointer, as fio's zbd_adjust_block() and zbd_queue_io() place it. */
static int adjust_write(struct clone *c, struct rq_zbd *zd, struct clone_file *f, uint64_t *off,
			uint32_t *bs)
{
	const uint32_t min_bs = c->zbd.min_bs[RQ_OP_WRITE];
	uint32_t zi = zone_idx(zd, *off);
	struct zone *z;
	uint64_t len;

	if (*bs > zd->zone_size)
		return zbd_error(c, EINVAL, "I/O buflen exceeds zone size");
	if (!zone_open(c, zd, &zd->z[zi])) {
		long n = convert_to_open(c, zd, f, *off);

		if (n < 0)
			return n == -2 ? RQ_ZBD_WAIT : RQ_ZBD_EOF;
		zi = (uint32_t)n;
	}
	z = &zd->z[zi];
	if (c->job->zone_reset_frequency > 0 && reset_by_frequency(c, zd, f))
		z->reset_due = true;
	if (z->reset_due || zone_full(z, min_bs)) {
		z->reset_due = false;
		zone_reset(c, zd, z);
		if (z->cap_end - z->start < min_bs)
			return zbd_error(c, EINVAL, "zone capacity smaller than the minimum block size");
	}
	*off = z->wp;
	if (!in_region(f, *off))
		return zbd_error(c, EINVAL, "write pointer outside the job's region");
	len = z->cap_end - *off < *bs ? z->cap_end - *off : *bs;
	len = len / min_bs * min_bs;
	if (len < min_bs)
		return zbd_error(c, EIO, "zone remainder smaller than the minimum block size");
	*bs = (uint32_t)len;
	return RQ_ZBD_ACCEPT;
}

/* fio's zbd_queue_io(): the write pointer moves as the write is issued */
static void queue_write(struct rq_zbd *zd, uint64_t off, uint32_t len)
{
	struct zone *z = &zd->z[zone_idx(zd, off)];
	uint64_t end = off + len < z->cap_end ? off + len : z->cap_end;

	if (z->wp <= end)
		zd->swd += end - z->wp;
	z->wp = end;
}

/*
 * A random job's map (mixed sizes: randmap.c) takes the I/O now, at the
 * offset drawn and with the length the zone left it, as fio's fill_io_u()
 * calls mark_random_map() after zbd_adjust_block(): a write a zone cut
 * short leaves the rest of its blocks to later draws, and the pass still
 * moves its size.  The length shrinks to the free run there.
 */
static uint32_t mark_map(const struct clone *c, struct clone_file *f, int op, uint64_t drawn, uint32_t len)
{
	const uint32_t mb = c->dir_min_bs[op] ? c->dir_min_bs[op] : c->min_bs;
	uint64_t b, want, got;

	if (!f->map.bits || !rq_rw_random(c->job->rw))
		return len;
	b = (drawn - f->start) / mb;
	want = (len + mb - 1) / mb;
	got = rq_randmap_take(&f->map, b, want);
	return got && got < want ? (uint32_t)(got * mb) : len;
}

/* A trim resets its zone (fio's zbd_do_io_u_trim()); a random one goes to a zone with data. */
static int adjust_trim(struct clone *c, struct rq_zbd *zd, struct clone_file *f, uint64_t *off)
{
	uint32_t zi = zone_idx(zd, *off);

	if (rq_rw_random(c->job->rw) && zd->z[zi].wp == zd->z[zi].start) {
		long n = find_data(c, zd, f, zi, 1);

		if (n < 0)
			return RQ_ZBD_EOF;
		zi = (uint32_t)n;
		*off = zd->z[zi].start;
	}
	if (*off != zd->z[zi].start)
		return zbd_error(c, EINVAL, "trim offset not at a zone's start");
	zone_reset(c, zd, &zd->z[zi]);
	return RQ_ZBD_ACCEPT;
}

/* ---- the clone's side ------------------------------------------------ */

int eng_zbd_ddir(const struct clone *c, int op)
{
	const struct clone_file *f = c->files;
	bool data;

	if (op != RQ_OP_READ || c->job->read_beyond_wp || !rq_rw_reads(c->job->rw) ||
	    !rq_rw_writes(c->job->rw))
		return op;
	pthread_mutex_lock(&f->zbd->lock);
	data = f->zbd->swd != 0;
	pthread_mutex_unlock(&f->zbd->lock);
	return data ? op : RQ_OP_WRITE;
}

void eng_zbd_pass(struct clone *c)
{
	const struct rq_job *job = c->job;

	if (!rq_rw_writes(job->rw))
		return;		/* fio's zbd_file_reset() is a writer's */
	for (unsigned int i = 0; i < c->nr_files; i++) {
		struct clone_file *f = &c->files[i];
		struct rq_zbd *zd = f->zbd;
		uint64_t swd = 0;

		pthread_mutex_lock(&zd->lock);
		/* fio's zbd_process_swd(SET_SWD): the data below the pointers of this region */
		for (uint32_t z = f->zmin; z < f->zmax; z++)
			swd += zd->z[z].wp - zd->z[z].start;
		zd->swd = swd;
		/* with verify, the region's zones start empty: a reset mid-run would lose data */
		for (uint32_t z = f->zmin; job->verify != RQ_VERIFY_NONE && z < f->zmax; z++) {
			zone_close(c, zd, &zd->z[z]);
			zone_reset(c, zd, &zd->z[z]);
		}
		zd->write_cnt = job->zone_reset_frequency > 0 ?
			(uint32_t)(1.0 / job->zone_reset_frequency < (double)UINT32_MAX ?
				   1.0 / job->zone_reset_frequency : (double)UINT32_MAX) : UINT32_MAX;
		pthread_mutex_unlock(&zd->lock);
	}
}

void eng_zbd_seq_pos(struct clone *c, struct clone_file *f, int op)
{
	const struct rq_job *job = c->job;
	struct rq_zbd *zd = f->zbd;
	const struct zone *z;
	uint64_t zone_end;

	if (rq_rw_random(job->rw) || op > RQ_OP_WRITE)
		return;
	pthread_mutex_lock(&zd->lock);
	z = &zd->z[zone_idx(zd, f->pos[op])];
	zone_end = (z + (z - zd->z < zd->nr_zones))->start;
	/* a sequential writer past a zone's capacity goes on at the next zone */
	if (op == RQ_OP_WRITE && z->cap_end < zone_end && f->pos[op] >= z->cap_end)
		f->pos[op] = zone_end;
	/* zoneskip: the next zone once this one is done (its end, or a read's write pointer) */
	if (job->zoneskip && (f->zone_bytes >= job->zonesize || f->pos[op] >= zone_end ||
			      (op == RQ_OP_READ && !job->read_beyond_wp && f->pos[op] >= z->wp))) {
		f->zone_bytes = 0;
		f->zone_start += job->zonesize + job->zoneskip;
		if (f->zone_start >= f->file_size)
			f->zone_start = f->start;
		f->pos[op] = f->zone_start;
	}
	pthread_mutex_unlock(&zd->lock);
}

int eng_zbd_adjust(struct clone *c, struct clone_file *f, int op, uint64_t *off, uint32_t *bs)
{
	struct rq_zbd *zd = f->zbd;
	const uint64_t drawn = *off;
	int ret = RQ_ZBD_ACCEPT;

	pthread_mutex_lock(&zd->lock);
	if (op == RQ_OP_READ && !c->job->read_beyond_wp)
		ret = adjust_read(c, zd, f, off, bs);
	else if (op == RQ_OP_WRITE)
		ret = adjust_write(c, zd, f, off, bs);
	else if (op == RQ_OP_DISCARD)
		ret = adjust_trim(c, zd, f, off);
	if (ret == RQ_ZBD_ACCEPT && (*off + *bs > zd->size || !*bs))
		ret = RQ_ZBD_EOF;	/* past the file's end: fio's fill_io_u() gives up the file */
	if (ret == RQ_ZBD_ACCEPT) {
		*bs = mark_map(c, f, op, drawn, *bs);
		if (op == RQ_OP_WRITE)
			queue_write(zd, *off, *bs);
		zd->inflight++;
	}
	pthread_mutex_unlock(&zd->lock);
	return ret;
}

/* fio's zbd_end_zone_io(): a write that reached its zone's capacity closes the zone */
static void write_ended(struct clone *c, struct rq_zbd *zd, uint64_t off, uint32_t len)
{
	struct zone *z = &zd->z[zone_idx(zd, off)];

	if (off + len >= z->cap_end)
		zone_close(c, zd, z);
}

void eng_zbd_done(struct clone *c, struct clone_file *f, const struct rq_bio *bio)
{
	struct rq_zbd *zd = f->zbd;

	pthread_mutex_lock(&zd->lock);
	if (zd->inflight)
		zd->inflight--;
	if (bio->op == RQ_OP_WRITE)
		write_ended(c, zd, bio->offset, bio->len);
	pthread_mutex_unlock(&zd->lock);
}

void eng_zbd_unissue(struct clone *c, struct clone_file *f, int op, uint64_t off, uint32_t bs)
{
	struct rq_zbd *zd = f->zbd;
	struct zone *z = &zd->z[zone_idx(zd, off)];

	(void)c;
	pthread_mutex_lock(&zd->lock);
	if (zd->inflight)
		zd->inflight--;
	/* the write the pointer moved for never went: the pointer goes back (fio's zbd_queue_io() on failure) */
	if (op == RQ_OP_WRITE && z->wp == (off + bs < z->cap_end ? off + bs : z->cap_end) && z->wp >= off) {
		zd->swd -= z->wp - off;
		z->wp = off;
	}
	pthread_mutex_unlock(&zd->lock);
}
