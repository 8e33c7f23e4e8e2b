// SPDX-License-Identifier: MIT
/*
 * setup.c - from parsed jobs to a ready engine: devices opened and checked,
 * resources checked before anything is written, clones initialised.
 */
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "devices/device.h"
#include "engine/cmdprio.h"
#include "engine/engine.h"
#include "engine/offsets.h"
#include "engine/pace.h"
#include "engine/paths.h"
#include "engine/runner.h"
#include "engine/steadystate.h"
#include "engine/verify.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "queues/queue.h"

/* ---- setup ------------------------------------------------------------ */

struct name_ctx {
	struct rq_engine *e;
	const struct rq_job *job;
	const struct job_facts *f;	/* the job's */
	unsigned int clone;
	struct clone *c;		/* NULL while counting devices */
	unsigned int nr;
	FILE *err;
	int ret;
	uint64_t fsize;			/* filesize: this file's size; 0 = from size */
	enum rq_path_kind kind;		/* what paths.c says this name is */
};

static struct dev_entry *dev_find(struct rq_engine *e, const char *name)
{
	for (unsigned int i = 0; i < e->nr_devs; i++)
		if (!strcmp(e->devs[i].name, name))
			return &e->devs[i];
	return NULL;
}

/*
 * A file's size under filesize=MIN-MAX: drawn per file from the job's seed,
 * rounded down to the smallest block size, as fio's get_rand_file_size.
 */
static uint64_t file_size_of(const struct rq_job *job, unsigned int clone, unsigned int i,
			     uint32_t min_bs)
{
	uint64_t lo = job->filesize_min, hi = job->filesize_max, x, v;

	if (hi <= lo)
		return lo;
	x = job->randseed + ((uint64_t)clone << 32) + i;
	v = lo + rq_rng_next(&x) % (hi - lo + 1);
	v -= v % min_bs;
	return v < lo ? lo : v;
}

struct dir_ctx {
	struct name_ctx *x;
	int (*fn)(const char *name, void *arg);
};

static int dir_name(const struct rq_path *p, void *arg)
{
	struct dir_ctx *d = arg;

	d->x->fsize = d->x->job->filesize_min ?
		file_size_of(d->x->job, d->x->clone, p->file, d->x->f->min_bs) : 0;
	d->x->kind = p->kind;
	return d->fn(p->path, d->x);
}

/* The files a clone uses: exactly those engine/paths.c names (the server judges the same). */
static int clone_names(const struct rq_job *job, unsigned int clone,
		       int (*fn)(const char *name, void *arg), struct name_ctx *x)
{
	struct dir_ctx d = { .x = x, .fn = fn };

	return rq_clone_files(&x->e->o, job, clone, dir_name, &d);
}

/* The smallest and largest block size a job issues in @dir: bssplit's, else bsrange's, else bs. */
static void bs_limits(const struct rq_job *job, int dir, uint32_t *lo, uint32_t *hi)
{
	*lo = *hi = job->bs[dir];
	if (job->nr_bssplit[dir]) {
		*lo = UINT32_MAX;
		*hi = 0;
		for (unsigned int i = 0; i < job->nr_bssplit[dir]; i++) {
			uint32_t b = job->bssplit[dir][i].bs;

			*lo = b < *lo ? b : *lo;
			*hi = b > *hi ? b : *hi;
		}
	} else if (job->bs_min[dir] && job->bs_max[dir] > job->bs_min[dir]) {
		*lo = job->bs_min[dir];
		*hi = job->bs_max[dir];
	}
}

static void job_facts(const struct rq_job *job, struct job_facts *f)
{
	f->min_bs = UINT32_MAX;
	f->max_bs = 0;
	for (int d = 0; d < 3; d++) {
		bs_limits(job, d, &f->lo[d], &f->hi[d]);
		if (!rq_rw_dir(job->rw, d))
			continue;
		f->min_bs = f->lo[d] < f->min_bs ? f->lo[d] : f->min_bs;
		f->max_bs = f->hi[d] > f->max_bs ? f->hi[d] : f->max_bs;
	}
	if (f->min_bs == UINT32_MAX)
		f->min_bs = job->bs[0];
	/* verification reads back what was written */
	if (job->verify != RQ_VERIFY_NONE && f->hi[1] > f->max_bs)
		f->max_bs = f->hi[1];
	f->nr_files = rq_job_nr_files(job);
	f->files_per_clone = rq_job_files_per_clone(job);
}

/* Every job's facts, once the jobs are final (replay rewrote its own); 0 or -ENOMEM. */
static int setup_facts(struct rq_engine *e)
{
	e->facts = calloc(e->jobs->nr ? e->jobs->nr : 1, sizeof(*e->facts));
	if (!e->facts)
		return -ENOMEM;
	for (unsigned int j = 0; j < e->jobs->nr; j++)
		job_facts(&e->jobs->jobs[j], &e->facts[j]);
	return 0;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/*
 * Where clone @k's region starts (offset, offset_increment) on a device
 * of @dev_size bytes; sizes given in percent of the device resolve as
 * fio's filesetup does: offsets rounded up to the minimum block size.
 */
static uint64_t clone_offset_on(const struct rq_job *job, uint32_t mb, unsigned int k,
				uint64_t dev_size)
{
	uint64_t off = job->offset_pct ? round_up((uint64_t)(dev_size * job->offset_pct / 100), mb)
				       : job->offset;
	uint64_t inc = job->offset_increment_pct ?
		round_up((uint64_t)(dev_size * job->offset_increment_pct / 100), mb) : job->offset_increment;

	return off + (uint64_t)k * inc;
}

static uint64_t clone_offset(const struct rq_job *job, unsigned int k)
{
	return clone_offset_on(job, 1, k, 0);
}

/* The size a job's region has on one of its files (size, or size in percent). */
static uint64_t job_file_size(const struct rq_job *job, const struct job_facts *f, uint64_t dev_size,
			      uint64_t off)
{
	uint64_t mb = f->min_bs, size, nr_files = f->nr_files;

	if (job->size_pct) {
		size = (uint64_t)(dev_size * job->size_pct / 100) / nr_files;
		if (size > dev_size - (off < dev_size ? off : dev_size))
			size = dev_size - (off < dev_size ? off : dev_size);
		return size / mb * mb;
	}
	return job->size / nr_files;
}

static int add_dev(const char *name, void *arg)
{
	struct name_ctx *x = arg;
	const struct rq_job *job = x->job;
	uint64_t per_file = job->size / x->f->nr_files;
	struct dev_entry *d = dev_find(x->e, name);
	/* filesize is the file's size, offsets inside it (fio's real_file_size) */
	uint64_t need = x->fsize ? x->fsize :
			per_file ? clone_offset(job, job->numjobs - 1) + per_file : 0;

	if (!d && job->no_file_create && job->ioengine != RQ_IOENGINE_NULL && name[0] != '@' &&
	    !rq_path_alias(&x->e->o, name) && access(name, F_OK)) {
		fprintf(x->err, "%s:%d: job '%s': %s does not exist and allow_file_create=0\n",
			job->file, job->line, job->name, name);
		return -ENOENT;
	}
	if (!d) {
		d = &x->e->devs[x->e->nr_devs++];
		snprintf(d->name, sizeof(d->name), "%s", name);
		const char *alias = rq_path_alias(&x->e->o, name);

		snprintf(d->spec, sizeof(d->spec), "%s", alias ? alias : name);
		/* the device registry picks the kind by the engine's name (fio's load_ioengine) */
		d->o.ioengine = job->ioengine == RQ_IOENGINE_SYNC || job->ioengine == RQ_IOENGINE_PSYNC ?
				"io_uring" :	/* fio's sync engines: io_uring at depth 1 (main.c) */
				rq_ioengine_name(job->ioengine);
		d->o.nr_cpus = x->e->nr_cpus;
		snprintf(d->where, sizeof(d->where), "%s:%d", job->file, job->line);
		d->o.spec = d->spec;
		d->o.where = d->where;
		d->o.job = job->name;
		d->o.info = x->e->o.info_f;
		d->o.allow_mounted_write = x->e->o.allow_mounted_write;
	}
	if (need > d->o.min_size)
		d->o.min_size = need;
	d->unlink |= x->kind == RQ_PATH_FILE && job->unlink;	/* never an alias's or a built-in's */
	d->o.write |= rq_rw_writes(job->rw) || rq_rw_trims(job->rw) ||	/* a trim changes data too */
		      (eng_replay_ops(x->e, job) & (1u << RQ_OP_DISCARD));
	d->o.direct |= job->direct;
	d->o.fill |= job->fill_device && !per_file;	/* fill_device without size: as large as the room */
	d->nr_requests += job->iodepth;
	return 0;
}

/* zipf, pareto, normal precompute; random and zoned draw directly */
static bool dist_needs_init(const struct rq_job *job)
{
	return job->random_distribution != RQ_RAND_UNIFORM &&
	       job->random_distribution != RQ_RAND_ZONED &&
	       job->random_distribution != RQ_RAND_ZONED_ABS;
}

/*
 * Clone @k's region on a device of @dev_size bytes: where it starts and
 * how long it is (the rest of the file or device when size says nothing).
 */
static void clone_region(const struct name_ctx *x, unsigned int k, uint64_t dev_size, uint64_t *off,
			 uint64_t *size)
{
	*off = clone_offset_on(x->job, x->f->min_bs, k, dev_size);
	*size = x->fsize ? (x->fsize > *off ? x->fsize - *off : 0) : job_file_size(x->job, x->f, dev_size, *off);
	if (!*size)
		*size = dev_size > *off ? dev_size - *off : 0;
}

/* zonemode=zbd: every clone's region of device @name takes zones (zbd.c) */
static int check_zbd(const struct name_ctx *x, const char *name, const struct rq_dev *dev)
{
	for (unsigned int k = 0; k < x->job->numjobs; k++) {
		uint64_t off, size;

		clone_region(x, k, dev->size, &off, &size);
		if (eng_zbd_check(x->job, name, dev, off, size, x->err))
			return -EINVAL;
	}
	return 0;
}

static int bind_file(const char *name, void *arg)
{
	struct name_ctx *x = arg;
	struct clone *c = x->c;
	const struct rq_job *job = x->job;
	struct dev_entry *d = dev_find(x->e, name);
	struct clone_file *f = &c->files[x->nr++];
	uint64_t off, size;

	f->q = &d->q;
	f->has_data = d->dev.flags & RQ_DEV_HAS_DATA;
	c->fill_dev |= d->o.fill;
	clone_region(x, x->clone, d->dev.size, &off, &size);
	/* zonemode=zbd: whole zones (fio's zbd_zone_align_file_sizes(); checked by check_zbd()) */
	if (job->zonemode == RQ_ZONEMODE_ZBD)
		eng_zbd_align(job, x->fsize ? x->fsize : d->dev.size, &off, &size);
	f->start = off;
	f->end = off + size;
	for (int k = 0; k < RQ_DDIR_NR; k++)
		f->pos[k] = f->start;
	f->sync_first = f->sync_last = UINT64_MAX;
	f->zone_start = f->start;
	f->file_size = x->fsize ? x->fsize : d->dev.size;
	f->nblocks = size / c->min_bs;
	/* strided: random blocks are drawn within a zone (fio's last_block) */
	if (c->strided)
		f->nblocks = (job->zonerange < f->file_size - off ? job->zonerange :
			      f->file_size - off) / c->min_bs;
	f->bits = 1;
	while (f->bits < 63 && (1ULL << f->bits) < f->nblocks)
		f->bits++;
	f->mask = (1ULL << f->bits) - 1;
	f->perm_shift = f->bits / 2 + 1;
	if (dist_needs_init(job) &&
	    rq_dist_init(&f->dist, job->random_distribution, job->rand_param, f->nblocks, job->rand_center))
		return -EINVAL;
	/*
	 * the random map (randmap.c) where sizes differ, within a direction or
	 * between directions: fio's blocks are the smallest size of all three
	 * (rw_min_bs), and each direction draws in its own (clone.c map_offset())
	 */
	if (rq_rw_random(job->rw) && job->random_distribution == RQ_RAND_UNIFORM && !job->lfsr &&
	    !job->norandommap && (c->max_bs > c->min_bs || c->min_bs != c->map_bs) &&
	    rq_randmap_init(&f->map, size / c->map_bs))
		return -ENOMEM;
	return 0;
}

/* Check one job against one of its devices: alignment and bounds. */
static int check_file(const char *name, void *arg)
{
	struct name_ctx *x = arg;
	const struct rq_job *job = x->job;
	const struct dev_entry *d = dev_find(x->e, name);
	const struct rq_dev *dev = &d->dev;
	uint64_t last = clone_offset_on(job, x->f->min_bs, job->numjobs - 1, dev->size);
	uint64_t per_file = job_file_size(job, x->f, dev->size, last);
	uint64_t end = x->fsize ? x->fsize : per_file ? last + per_file : dev->size;
	bool aligned = job->direct || (dev->flags & RQ_DEV_ALIGNED);

	if ((rq_job_syncs(job) || (eng_replay_ops(x->e, job) & (1u << RQ_OP_FLUSH))) &&
	    !(dev->flags & RQ_DEV_FLUSH)) {
		char why[64];

		if (eng_replay_ops(x->e, job) & (1u << RQ_OP_FLUSH))
			snprintf(why, sizeof(why), "read_iolog's log");
		else if (job->fsync_blocks)
			snprintf(why, sizeof(why), "fsync=%u", job->fsync_blocks);
		else if (job->fdatasync_blocks)
			snprintf(why, sizeof(why), "fdatasync=%u", job->fdatasync_blocks);
		else if (job->sfr_blocks)
			snprintf(why, sizeof(why), "sync_file_range=...:%u", job->sfr_blocks);
		else
			snprintf(why, sizeof(why), "%s=1", job->end_fsync ? "end_fsync" : "fsync_on_close");
		fprintf(x->err, "%s:%d: job '%s': %s flushes, and device %s (%s) has no flush\n",
			job->file, job->line, job->name, why, name, dev->ops->name);
		return -EINVAL;
	}
	/* the kernel had no discard before 2.6.28: the 2.4 models, like nvme-pt here, take none */
	if ((rq_rw_trims(job->rw) || rq_job_vtrims(job) ||
	     (eng_replay_ops(x->e, job) & (1u << RQ_OP_DISCARD))) && !(dev->flags & RQ_DEV_DISCARD)) {
		char why[64];

		if (job->read_iolog[0])
			snprintf(why, sizeof(why), "read_iolog's log");
		else if (rq_rw_trims(job->rw))
			snprintf(why, sizeof(why), "rw=%s", rq_rw_name(job->rw));
		else
			snprintf(why, sizeof(why), "trim_percentage=%u", job->trim_percentage);
		fprintf(x->err, "%s:%d: job '%s': %s trims, and device %s (%s) has no discard\n",
			job->file, job->line, job->name, why, name, dev->ops->name);
		return -EINVAL;
	}
	for (int dir = 0; dir < 3; dir++) {
		uint32_t lo = x->f->lo[dir], hi = x->f->hi[dir];

		if (!rq_rw_dir(job->rw, dir))
			continue;
		for (unsigned int i = 0; aligned && i <= job->nr_bssplit[dir]; i++) {
			uint32_t b = i < job->nr_bssplit[dir] ? job->bssplit[dir][i].bs : lo;

			if (b % dev->lbs) {
				fprintf(x->err, "%s:%d: job '%s': bs=%u is not a multiple of the logical "
					"block size %u of %s (direct=1)\n", job->file, job->line, job->name,
					b, dev->lbs, name);
				return -EINVAL;
			}
		}
		if (end < last + hi || dev->size < last + hi) {
			fprintf(x->err, "%s:%d: job '%s': region of %s (offset=%" PRIu64 ", size=%"
				PRIu64 ") is smaller than bs=%u\n", job->file, job->line, job->name,
				name, last, end > last ? end - last : 0, hi);
			return -EINVAL;
		}
	}
	if (aligned && job->offset_increment % dev->lbs) {
		fprintf(x->err, "%s:%d: job '%s': offset_increment=%" PRIu64 " is not a multiple of the "
			"logical block size %u of %s (direct=1)\n", job->file, job->line,
			job->name, job->offset_increment, dev->lbs, name);
		return -EINVAL;
	}
	if (aligned && job->offset % dev->lbs) {
		fprintf(x->err, "%s:%d: job '%s': offset=%" PRIu64 " is not a multiple of the "
			"logical block size %u of %s (direct=1)\n", job->file, job->line,
			job->name, job->offset, dev->lbs, name);
		return -EINVAL;
	}
	if (end > dev->size) {
		fprintf(x->err, "%s:%d: job '%s': offset+size=%" PRIu64 " is past the end of %s (%"
			PRIu64 " bytes)\n", job->file, job->line, job->name, end, name, dev->size);
		return -EINVAL;
	}
	return job->zonemode == RQ_ZONEMODE_ZBD ? check_zbd(x, name, dev) : 0;
}

/*
 * --max-memory (rqlock server): the memory built-in devices hold their data
 * in - a '@' spec with data and no backing path (ram, the models without
 * file=, a fault over them) - mapped at open, taken as written.  The
 * clones' I/O buffers join them in check_resources().
 */
static bool dev_in_memory(const struct dev_entry *d)
{
	return d->spec[0] == '@' && (d->dev.flags & RQ_DEV_HAS_DATA) && !d->dev.path[0];
}

static uint64_t dev_memory(const struct rq_engine *e)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < e->nr_devs; i++)
		if (dev_in_memory(&e->devs[i]))
			sum += e->devs[i].dev.size;
	return sum;
}

static int check_dev_memory(struct rq_engine *e, FILE *err)
{
	uint64_t sum = 0;

	if (!e->o.max_mem_bytes)
		return 0;
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		const struct dev_entry *d = &e->devs[i];

		if (!dev_in_memory(d))
			continue;
		sum += d->dev.size;
		if (sum > e->o.max_mem_bytes) {
			fprintf(err, "%s: device '%s' (%" PRIu64 " bytes) takes the run's devices to %" PRIu64
				" bytes of memory, over the server's --max-memory=%" PRIu64 "\n", d->where, d->spec,
				d->dev.size, sum, e->o.max_mem_bytes);
			return -E2BIG;
		}
	}
	return 0;
}

static unsigned int online_cpus(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

/*
 * The clone's random streams.  randrepeat: the same offsets run after
 * run; else seeded from the clock.  Each clone's stream apart: the
 * clone's number scrambled in, not added in steps of splitmix64's own
 * increment, which made clone k's stream clone 0's shifted by k draws (24
 * clones of a random-map job ended within a few MiB of each other; fio's
 * spread over 65-128 MiB).  fio's own streams (frand.h) for a mix's
 * directions and mixed sizes, seeded from thread number @k + 1.
 */
static void clone_seed(struct clone *c, const struct rq_job *job, unsigned int k)
{
	const uint64_t seed = job->randrepeat || job->randseed_set ? job->randseed : rq_clock_ns();
	uint64_t s = (seed * 0x100000001b3ULL) ^ ((uint64_t)k * 0xd1b54a32d192ed03ULL);

	c->seed = rq_rng_next(&s);
	c->rng = c->seed;
	c->mix_seed = rq_frand_seed(seed, k + 1, RQ_FRAND_MIX);
	/*
	 * mixed sizes: fio's bsrange_state per direction (init.c
	 * td_fill_rand_seeds_internal()): writes seeded as reads under
	 * verify, trims as writes under trimwrite (draw.c eng_pick_bs_fit())
	 */
	for (int d = 0; d < RQ_DDIR_NR; d++)
		c->bs_seed[d] = rq_frand_seed(seed, k + 1, RQ_FRAND_BS + d);
	if (job->verify != RQ_VERIFY_NONE)
		c->bs_seed[RQ_DDIR_WRITE] = c->bs_seed[RQ_DDIR_READ];
	if (rq_rw_trimwrite(job->rw))
		c->bs_seed[RQ_DDIR_TRIM] = c->bs_seed[RQ_DDIR_WRITE];
	eng_seed_streams(c);
}

static int clone_init(struct rq_engine *e, struct clone *c, const struct rq_job *job,
		      unsigned int index);

/*
 * Resource limits, checked before anything is written: the clones' I/O
 * buffers against the machine's memory and RLIMIT_AS, and one io_uring
 * ring per worker against RLIMIT_MEMLOCK and the kernel's ring limits
 * (created and closed again here; the workers create their own).
 */
static int check_resources(struct rq_engine *e, FILE *err)
{
	const struct rq_job_list *jobs = e->jobs;
	unsigned __int128 total = 0;
	struct sysinfo si;
	struct rlimit rl;
	bool ring = false;

	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];
		/* what clone_alloc() takes: iodepth buffers of the largest block, page-rounded */
		unsigned __int128 need = (unsigned __int128)job->numjobs * job->iodepth *
					 ((e->facts[j].max_bs + 4095ULL) & ~4095ULL);

		total += need;
		if (!sysinfo(&si) && need > (unsigned __int128)si.totalram * si.mem_unit / 2) {
			fprintf(err, "%s:%d: job '%s': numjobs x iodepth x bs needs %llu MiB of buffers, "
				"more than half of this machine's %llu MiB\n", job->file, job->line, job->name,
				(unsigned long long)(need >> 20),
				(unsigned long long)(((unsigned __int128)si.totalram * si.mem_unit) >> 20));
			return -ENOMEM;
		}
	}
	if (e->o.max_mem_bytes && total + dev_memory(e) > e->o.max_mem_bytes) {
		fprintf(err, "rqlock: the jobs' I/O buffers (numjobs x iodepth x bs: %llu MiB) and built-in devices "
			"(%llu MiB) are over the server's --max-memory=%llu MiB\n", (unsigned long long)(total >> 20),
			(unsigned long long)(dev_memory(e) >> 20), (unsigned long long)(e->o.max_mem_bytes >> 20));
		return -E2BIG;
	}
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY && total > rl.rlim_cur) {
		fprintf(err, "rqlock: the jobs need %llu MiB of buffers, more than RLIMIT_AS (%llu MiB)\n",
			(unsigned long long)(total >> 20), (unsigned long long)(rl.rlim_cur >> 20));
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < e->nr_devs; i++)
		ring |= e->devs[i].dev.flags & RQ_DEV_NEEDS_RING;
	if (ring) {
		unsigned int made;
		int ret = rq_ctx_ring_probe(e->nr_cpus, &made);

		if (ret) {
			getrlimit(RLIMIT_MEMLOCK, &rl);
			fprintf(err, "rqlock: cannot create io_uring ring %u of %u: %s (RLIMIT_MEMLOCK %llu KiB)\n",
				made + 1, e->nr_cpus, strerror(-ret),
				rl.rlim_cur == RLIM_INFINITY ? 0ULL : (unsigned long long)(rl.rlim_cur >> 10));
			return ret;
		}
	}
	return 0;
}

/* What can be checked of the jobs alone, before any device is opened. */
static int check_jobs(struct rq_engine *e, FILE *err)
{
	const struct rq_job_list *jobs = e->jobs;

	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct rq_job *job = &jobs->jobs[j];
		struct rq_dist d;
		bool any = false;

		if (job->wait_for[0]) {
			unsigned int k;

			for (k = 0; k < j; k++)
				if (!strcmp(jobs->jobs[k].name, job->wait_for))
					break;
			if (k == j) {
				fprintf(err, "%s:%d: job '%s': wait_for=%s: no job of that name before it\n",
					job->file, job->line, job->name, job->wait_for);
				return -EINVAL;
			}
		}
		if (eng_numa_check(job, err))
			return -EINVAL;
		if (!job->filename[0] && job->ioengine != RQ_IOENGINE_NULL && !job->size &&
		    !job->size_pct && !job->filesize_min && !job->fill_device) {
			fprintf(err, "%s:%d: job '%s': no filename, and no size or filesize to lay "
				"files out with\n", job->file, job->line, job->name);
			return -EINVAL;
		}
		if (dist_needs_init(job) &&
		    rq_dist_init(&d, job->random_distribution, job->rand_param, 1024, job->rand_center)) {
			fprintf(err, "%s:%d: job '%s': random_distribution: parameter %g out of range\n",
				job->file, job->line, job->name, job->rand_param);
			return -EINVAL;
		}
		for (unsigned int w = 0; job->has_cpus_allowed && w < e->nr_cpus; w++)
			any |= eng_job_allows_worker(e, job, w);
		if (job->has_cpus_allowed && !any) {
			fprintf(err, "%s:%d: job '%s': cpus_allowed names no CPU that one of the %u "
				"workers runs on\n", job->file, job->line, job->name, e->nr_cpus);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Two clones running at once whose regions overlap on a device, one of
 * them verifying and the other writing: each verify log knows only its own
 * clone's writes, so the other's data would be reported as corruption
 * (measured before this check: 834 false lines for numjobs=2 on one 16m
 * region).  fio runs such jobs and only warns that "multiple writers may
 * overwrite blocks that belong to other jobs. This can cause verification
 * failures" (axboe/fio#303, #185).  rqlock refuses them before anything is
 * written: a run that must report false corruption is bad input.  Disjoint
 * regions (offset_increment=, or size/offset per job) are fine.
 */
static int check_shared_verify(struct rq_engine *e, FILE *err)
{
	unsigned int phase_start = 0;

	for (unsigned int a = 0; a < e->nr_clones; a++) {
		const struct clone *ca = &e->clones[a];

		if (a && ca->job != e->clones[a - 1].job && (ca->job->stonewall & RQ_JOB_STONEWALL))
			phase_start = a;
		for (unsigned int b = phase_start; b < e->nr_clones; b++) {
			const struct clone *cb = &e->clones[b];

			if (b > a && cb->job != e->clones[b - 1].job && (cb->job->stonewall & RQ_JOB_STONEWALL))
				break;		/* the next phase: not at the same time */
			if (b == a || ca->job->verify == RQ_VERIFY_NONE || !rq_rw_writes(cb->job->rw))
				continue;
			for (unsigned int i = 0; i < ca->nr_files; i++) {
				for (unsigned int k = 0; k < cb->nr_files; k++) {
					const struct clone_file *fa = &ca->files[i], *fb = &cb->files[k];

					if (fa->q != fb->q || !fa->has_data || fa->start >= fb->end ||
					    fb->start >= fa->end)
						continue;
					fprintf(err, "%s:%d: job '%s' clone %u verifies %s [%" PRIu64 ", %" PRIu64
						") while job '%s' clone %u writes [%" PRIu64 ", %" PRIu64 "): each "
						"verify log knows only its own writes, so the other's would be "
						"reported as corruption; give each clone its own region "
						"(offset_increment=) or stonewall them\n",
						ca->job->file, ca->job->line, ca->job->name, ca->index,
						container_of(fa->q, struct dev_entry, q)->name, fa->start, fa->end, cb->job->name, cb->index,
						fb->start, fb->end);
					return -EINVAL;
				}
			}
		}
	}
	return 0;
}

/*
 * Setup failed after layout began (ENOSPC on a later file, SIGINT, a
 * limit): the run never starts, so the files it created go too - a failed
 * or interrupted start leaves nothing behind.  Files that were there
 * before are left (rq_file_prepare() already truncated a failed extension).
 */
static void discard_layouts(struct rq_engine *e, FILE *err)
{
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		char path[RQ_JOB_PATH_MAX];

		if (!e->devs[i].dev.created)
			continue;
		snprintf(path, sizeof(path), "%s", e->devs[i].dev.created);
		if (rq_dev_discard_layout(&e->devs[i].dev))
			fprintf(err, "rqlock: removed %s, laid out by this run\n", path);
	}
}

/* The engine's arrays sized by the jobs: devices, clones, workers and their contexts. */
static int setup_alloc(struct rq_engine *e, unsigned int max_devs)
{
	e->devs = calloc(max_devs ? max_devs : 1, sizeof(*e->devs));
	e->clones = rq_zalloc_lines((size_t)e->nr_clones * sizeof(*e->clones));
	e->cpus = aligned_alloc(RQ_CACHELINE, sizeof(*e->cpus) * e->nr_cpus);
	if (!e->devs || !e->clones || !e->cpus)
		return -ENOMEM;
	memset(e->cpus, 0, sizeof(*e->cpus) * e->nr_cpus);
	e->ctxs = calloc(e->nr_cpus, sizeof(*e->ctxs));
	if (!e->ctxs)
		return -ENOMEM;
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		e->ctxs[i] = e->cpus[i].ctx = rq_ctx_create((int)i, &e->cpus[i]);
		if (!e->ctxs[i])
			return -ENOMEM;
	}
	return 0;
}

/* @fn on every name every clone uses (once per job when its clones share files). */
static int setup_each_name(struct rq_engine *e, FILE *err,
			   int (*fn)(const char *name, void *arg))
{
	const struct rq_job_list *jobs = e->jobs;

	for (unsigned int j = 0; j < jobs->nr; j++) {
		for (unsigned int k = 0; k < jobs->jobs[j].numjobs; k++) {
			struct name_ctx x = { .e = e, .job = &jobs->jobs[j], .f = &e->facts[j],
					      .clone = k, .err = err };
			int ret = clone_names(x.job, k, fn, &x);

			if (ret < 0)
				return ret;
			if (!x.f->files_per_clone)
				break;		/* clones share the files */
		}
	}
	return 0;
}

/* Steps 1-3: which devices, opened writing nothing, and every job against every device it names. */
static int setup_devices(struct rq_engine *e, FILE *err)
{
	/* 1: which devices, with what they must allow */
	int ret = setup_each_name(e, err, add_dev);

	if (ret)
		return ret;
	/* 2: open them, writing nothing */
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		ret = rq_dev_open(&e->devs[i].dev, &e->devs[i].o, err);
		e->devs[i].opened = true;	/* close what a failed open left */
		if (ret)
			return ret;
		snprintf(e->devs[i].dev.name, sizeof(e->devs[i].dev.name), "%.127s", e->devs[i].name);
	}
	ret = check_dev_memory(e, err);
	if (ret)
		return ret;
	/* 3: every job against every device it names */
	return setup_each_name(e, err, check_file);
}

/* The flows (flow_id) the jobs share, and every clone's state. */
static int setup_clones(struct rq_engine *e, FILE *err)
{
	const struct rq_job_list *jobs = e->jobs;

	e->flows = calloc(jobs->nr ? jobs->nr : 1, sizeof(*e->flows));
	if (!e->flows)
		return -ENOMEM;
	for (unsigned int j = 0; j < jobs->nr; j++) {
		unsigned int i;

		if (!jobs->jobs[j].flow)
			continue;
		for (i = 0; i < e->nr_flows && e->flows[i].id != jobs->jobs[j].flow_id; i++)
			;
		if (i == e->nr_flows)
			e->flows[e->nr_flows++].id = jobs->jobs[j].flow_id;
	}
	for (unsigned int j = 0, k = 0; j < jobs->nr; j++) {
		for (unsigned int n = 0; n < jobs->jobs[j].numjobs; n++, k++) {
			int ret = clone_init(e, &e->clones[k], &jobs->jobs[j], n);

			e->clones[k].job_index = j;
			for (unsigned int w = 0; w < j; w++)
				if (!strcmp(jobs->jobs[w].name, jobs->jobs[j].wait_for))
					e->clones[k].wait_index = w;
			if (ret) {
				fprintf(err, "%s:%d: job '%s': cannot set up clone %u: %s\n",
					jobs->jobs[j].file, jobs->jobs[j].line, jobs->jobs[j].name, n,
					strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

/* A list of @n pointers (at least one slot), or NULL. */
static void *setup_list(unsigned int n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/*
 * The lock mode's set-up, a queue per device, and what each worker's
 * context reaps beyond its ring and lists: polled devices and the queues
 * blk-mq's delayed run restarts.
 */
static int setup_queues(struct rq_engine *e, const struct rq_engine_opts *o)
{
	int ret;

	rq_locks_reset();
	e->mcfg.nr_cpus = e->nr_cpus;
	e->mcfg.hw_queues = o->hw_queues;
	e->mcfg.cluster_size = o->cluster_size;
	e->mcfg.worker_part = e->worker_part;
	e->mcfg.nr_parts = e->nr_parts;
	e->mcfg.lockstat = o->lockstat;
	e->mcfg.lockdep = o->lockdep;
	e->mcfg.ctxs = e->ctxs;
	rq_lock_type_parse(o->lock_type, &e->mcfg.lock_type);
	if (e->mode->setup && (ret = e->mode->setup(&e->mcfg)))
		return ret;
	e->mode_setup = true;
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		struct dev_entry *d = &e->devs[i];
		uint32_t nr = d->nr_requests < 128 ? 128 : d->nr_requests;

		ret = rq_queue_init(&d->q, e->mode, &d->dev, nr);
		if (ret)
			return ret;
		d->q_ready = true;
	}
	e->polled = setup_list(e->nr_devs, sizeof(*e->polled));
	e->all_devs = setup_list(e->nr_devs, sizeof(*e->all_devs));
	e->rerun_qs = setup_list(e->nr_devs, sizeof(*e->rerun_qs));
	if (!e->polled || !e->all_devs || !e->rerun_qs)
		return -ENOMEM;
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		if (e->devs[i].dev.ops->poll)
			e->polled[e->nr_polled++] = &e->devs[i].dev;
		e->all_devs[i] = &e->devs[i].dev;
		if (e->devs[i].q_ready)
			e->rerun_qs[e->nr_rerun_qs++] = &e->devs[i].q;
	}
	for (unsigned int i = 0; i < e->nr_cpus; i++) {
		rq_ctx_set_polled(e->cpus[i].ctx, e->mode, e->polled, e->nr_polled);
		e->cpus[i].polls = e->nr_polled != 0;
		rq_ctx_set_queues(e->cpus[i].ctx, e->rerun_qs, e->nr_rerun_qs);
	}
	return 0;
}

/* The engine's options with their defaults filled in, and the run's global state reset. */
static void setup_opts(struct rq_engine *e, const struct rq_engine_opts *o)
{
	e->o = *o;
	if (!e->o.stall_timeout_ns)
		e->o.stall_timeout_ns = 300ULL * 1000000000ULL;	/* generous: a floppy is slow, not stuck */
	if (!e->o.grace_period_ns)
		e->o.grace_period_ns = 5ULL * 1000000000ULL;
	else if (e->o.grace_period_ns == RQ_GRACE_NONE)
		e->o.grace_period_ns = 0;
	atomic_store(&g_stalled, false);
	atomic_store(&g_abandoned, false);
	atomic_store(&g_grace_end_ns, 0);
}

int rq_engine_setup(struct rq_engine **ep, const struct rq_engine_opts *o,
		    const struct rq_job_list *jobs, FILE *err)
{
	struct rq_engine *e;
	unsigned int max_devs = 0;
	char msg[256];
	int ret;

	*ep = NULL;
	if (rq_queue_modes_check(msg, sizeof(msg)) || rq_devs_check(msg, sizeof(msg))) {
		fprintf(err, "rqlock: %s\n", msg);
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	rq_clock_setup();
	e->jobs = jobs;
	setup_opts(e, o);
	e->mode = rq_queue_mode_find(o->lock_mode);
	if (!e->mode) {
		fprintf(err, "rqlock: --lock=%s: unknown lock mode (%s)\n", o->lock_mode,
			rq_queue_mode_names());
		ret = -EINVAL;
		goto fail;
	}
	/* read_iolog: the logs are read and checked first, and the jobs that replay rewritten */
	ret = eng_replay_setup(e, err);
	if (ret)
		goto fail;
	jobs = e->jobs;
	ret = setup_facts(e);
	if (ret)
		goto fail;
	e->nr_cpus = o->workers ? o->workers : online_cpus();
	ret = eng_place(e, err);
	if (ret)
		goto fail;
	for (unsigned int j = 0; j < jobs->nr; j++) {
		const struct job_facts *f = &e->facts[j];

		max_devs += f->nr_files * (f->files_per_clone ? jobs->jobs[j].numjobs : 1);
		e->nr_clones += jobs->jobs[j].numjobs;
	}
	ret = check_jobs(e, err);
	if (!ret)
		ret = setup_alloc(e, max_devs);
	if (!ret)
		ret = setup_devices(e, err);
	/* 4: every clone's memory, and a ring to probe the limits, before any write */
	if (!ret)
		ret = check_resources(e, err);
	if (!ret)
		ret = setup_clones(e, err);
	/* zonemode=zbd: each device's zones, the clones' files on them */
	if (!ret)
		ret = eng_zbd_setup(e, err);
	if (!ret)
		ret = check_shared_verify(e, err);
	/* steady state: a group's settings agree; the judges and their windows */
	if (!ret)
		ret = eng_ss_setup(e, err);
	/* verify_state_load's files are read, experimental_verify's start kept (vstate.c) */
	if (!ret)
		ret = eng_vstate_setup(e, err);
	/* the logs' names and directories, before anything is written */
	if (!ret)
		ret = eng_logs_setup(e, err);
	if (ret)
		goto fail;
	for (unsigned int k = 0; k < e->nr_clones; k++)
		e->clones[k].traced = e->clones[k].logs || e->o.timeline || e->clones[k].cmdprio;
	/* 5: only now may anything be written (merge_blktrace_file, file layout) */
	ret = eng_replay_commit(e, err);
	if (ret)
		goto fail;
	for (unsigned int i = 0; i < e->nr_devs; i++) {
		ret = rq_dev_prepare(&e->devs[i].dev, &e->devs[i].o, err);
		if (ret)
			goto fail;
	}
	if (rq_devs_interrupted()) {
		fprintf(err, "rqlock: interrupted during layout\n");
		ret = -EINTR;
		goto fail;
	}
	ret = setup_queues(e, o);
	if (ret)
		goto fail;
	*ep = e;
	return 0;
fail:
	discard_layouts(e, err);
	rq_engine_free(e);
	return ret;
}

/*
 * Whether clone_place()'s short path draws this clone's offsets: the
 * general path's choices are all fixed by the job - uniform random over
 * the pass, one block size whichever way (no bssplit, no bsrange: neither
 * draws from the rng then), no random map (it needs sizes that differ,
 * also from a direction the job does not issue), no blockalign above the
 * block, no rw=rand...:N.
 */
static bool plain_rand(const struct clone *c, const struct rq_job *job)
{
	if (!rq_rw_random(job->rw) || job->random_distribution != RQ_RAND_UNIFORM ||
	    job->norandommap || job->lfsr || job->rw_seq_nr > 1 || c->max_bs != c->min_bs ||
	    c->strided || job->zonemode == RQ_ZONEMODE_ZBD || c->map_bs != c->min_bs)
		return false;
	for (int d = 0; d < 3; d++)
		if (job->nr_bssplit[d] || (job->bs_min[d] && job->bs_max[d] > job->bs_min[d]) ||
		    job->blockalign[d] > c->min_bs)
			return false;
	return true;
}

/* A sequential job with holes whose pass ends at the region's end (fio's file done). */
static bool seq_holes_end_pass(const struct clone *c, const struct rq_job *job)
{
	int d = rq_rw_writes(job->rw) ? 1 : 0;

	if (c->sized || rq_rw_random(job->rw) || job->rw_seq_add <= 0 || job->time_based || job->io_size ||
	    rq_rw_reads(job->rw) == rq_rw_writes(job->rw) || c->strided)
		return false;
	/* one block size: bs, not bsrange or bssplit */
	return !job->nr_bssplit[d] && c->min_bs == c->max_bs;
}

/* The clone's files, bios and buffers (zeroed); 0 or -ENOMEM. */
static int clone_alloc(struct clone *c, const struct rq_job *job)
{
	size_t buf_bytes = (size_t)job->iodepth * ((c->max_bs + 4095) & ~4095u);

	/*
	 * Written on every I/O by the clone's worker: each on cache lines of
	 * its own, or another worker's data on the same line bounces it
	 * (measured: a device's private data beside bio_flags halved scaling).
	 */
	c->files = rq_zalloc_lines((size_t)c->nr_files * sizeof(*c->files));
	c->bios = rq_zalloc_lines((size_t)job->iodepth * sizeof(*c->bios));
	c->bio_flags = rq_zalloc_lines(job->iodepth);
	c->bio_tag = calloc(job->iodepth, sizeof(*c->bio_tag));
	rq_vlog_init(&c->vlog);
	c->bufs = aligned_alloc(4096, buf_bytes);
	c->buf_bytes = buf_bytes;
	if (!c->files || !c->bios || !c->bufs || !c->bio_flags || !c->bio_tag)
		return -ENOMEM;
	memset(c->bufs, 0, buf_bytes);
	return 0;
}

/* Each of the clone's iodepth bios on its free list, with its buffer. */
static void clone_bios_init(struct clone *c, const struct rq_job *job)
{
	for (unsigned int i = 0; i < job->iodepth; i++) {
		struct rq_bio *b = &c->bios[i];

		b->buf = c->bufs + (size_t)i * ((c->max_bs + 4095) & ~4095u);
		b->private = c;
		b->end_io = eng_bio_end_io;
		b->next = c->free_bios;
		c->free_bios = b;
	}
}

/* The bytes the clone moves before it is done: fio's io_size, size, filesize, holes and loops. */
static void clone_io_limit(struct clone *c, const struct rq_job *job)
{
	if (job->io_size)
		c->io_limit = job->io_size;
	else if (job->size && !job->size_pct) {
		c->io_limit = job->size;
		/* filesize: size is at most what the files hold past offset (fio's setup_files) */
		if (job->filesize_min) {
			uint64_t held = 0;

			for (unsigned int i = 0; i < c->nr_files; i++)
				held += c->files[i].end - c->files[i].start;
			if (held < c->io_limit)
				c->io_limit = held;
		}
	} else
		for (unsigned int i = 0; i < c->nr_files; i++)
			c->io_limit += c->files[i].end - c->files[i].start;
	c->pass_limit = c->io_limit;
	/*
	 * rw=read:N or write:N (holes of N bytes), not time_based, no
	 * io_size, more than one file: fio's pass ends at the region's end
	 * (the file is done), so the amount is what fits with the holes, not
	 * size (t0007).  A sized clone finds its files' ends as it goes.
	 */
	if (seq_holes_end_pass(c, job)) {
		c->io_limit = 0;
		for (unsigned int i = 0; i < c->nr_files; i++) {
			uint64_t len = c->files[i].end - c->files[i].start, bs = c->min_bs;

			if (len >= bs)
				c->io_limit += ((len - bs) / (bs + (uint64_t)job->rw_seq_add) + 1) * bs;
		}
	}
	/* loops: the whole amount again, each loop from the region's start */
	c->io_limit *= job->loops ? job->loops : 1;
}

/* The clone's report (name, group, histograms) and its rate pacing per direction. */
static void clone_report_init(struct clone *c, const struct rq_job *job, unsigned int index)
{
	snprintf(c->rep.name, sizeof(c->rep.name), "%s", job->name);
	c->rep.groupid = job->groupid;
	c->rep.clone = index;
	for (int d = 0; d < RQ_DDIR_NR; d++) {
		rq_lat_init(&c->rep.dir[d].slat);
		rq_lat_init(&c->rep.dir[d].clat);
		rq_lat_init(&c->rep.dir[d].lat);
		rq_lat_init(&c->rep.dir[d].lat_intended);
		eng_pace_init(&c->pace[d], job->rate_iops[d], job->rate_poisson);
		c->rep.dir[d].paced = job->rate_iops[d] != 0;
	}
}

static int clone_init(struct rq_engine *e, struct clone *c, const struct rq_job *job,
		      unsigned int index)
{
	struct name_ctx x = { .e = e, .job = job, .f = &e->facts[job - e->jobs->jobs],
			      .clone = index, .c = c };
	int ret;

	memset(c, 0, sizeof(*c));
	c->job = job;
	c->index = index;
	c->pending_op = -1;
	c->tw_last[0] = c->tw_last[1] = UINT64_MAX;
	c->min_bs = x.f->min_bs;
	/* the smallest size of all three directions (one a job built without the parser left 0 aside) */
	c->map_bs = c->min_bs;
	for (int d = 0; d < 3; d++) {
		c->dir_min_bs[d] = x.f->lo[d];
		if (x.f->lo[d] && x.f->lo[d] < c->map_bs)
			c->map_bs = x.f->lo[d];
	}
	c->max_bs = x.f->max_bs;
	c->nr_files = x.f->nr_files;
	c->strided = job->zonemode == RQ_ZONEMODE_STRIDED && c->nr_files == 1;
	ret = clone_alloc(c, job);
	if (ret)
		return ret;
	if (clone_names(job, index, bind_file, &x) < 0)
		return -EINVAL;
	clone_bios_init(c, job);
	clone_seed(c, job, (unsigned int)(c - e->clones));
	/* lfsr: no map, as fio's (it covers each block once a pass by itself) */
	for (unsigned int i = 0; job->lfsr && i < c->nr_files; i++)
		rq_lfsr_init(&c->files[i].lfsr, c->files[i].nblocks, c->seed + i);
	/* fio 3.33's passes (clone.c clone_next_pass()): what is modelled so far */
	c->sized = !job->time_based && !c->strided && !rq_rw_trimwrite(job->rw) &&
		   job->rw_seq_add >= 0 && !job->lfsr &&
		   !(e->replay_of && e->replay_of[c - e->clones]);
	c->prog.passes = 1;
	clone_io_limit(c, job);
	c->plain_rand = plain_rand(c, job);
	/* a random file_service draws even for one file, keeping its sequence */
	c->one_file = c->nr_files == 1 && job->file_service != RQ_FS_RANDOM;
	c->ios_limit = job->number_ios * (job->loops ? job->loops : 1);
	if (job->latency_target_ns)
		eng_lat_init(c);
	if (job->flow) {
		for (unsigned int i = 0; i < e->nr_flows; i++)
			if (e->flows[i].id == job->flow_id)
				c->flow = &e->flows[i];
		if (c->flow)
			atomic_fetch_add(&c->flow->weight, job->flow);
	}
	clone_report_init(c, job, index);
	/* trim_percentage's marks: a stream of their own, as fio's trim_state (vtrim.c) */
	c->vtrim = rq_job_vtrims(job);
	c->trim_rng = c->seed ^ 0x7472696d73ULL;
	ret = eng_cmdprio_init(c, job, c->seed);
	if (ret)
		return ret;
	/* fio keeps serialize_overlap only for a job that changes data at iodepth > 1, or replays */
	c->serialize = job->serialize_overlap && job->iodepth > 1 &&
		       (rq_rw_writes(job->rw) || rq_rw_trims(job->rw) || job->read_iolog[0]);
	/* end_fsync, fsync_on_close: each file flushed once the I/O is done (fio's do_io()) */
	if ((job->end_fsync || job->fsync_on_close) && rq_rw_writes(job->rw))
		c->end_sync_nr = c->nr_files;
	c->shaped = c->serialize || rq_job_syncs(job) || job->latency_target_ns || job->verify != RQ_VERIFY_NONE ||
		    job->verify_only || job->thinktime_us || job->rate[0] || job->rate[1] || job->rate[2] || c->flow ||
		    c->pace[0].mean_gap_ns || c->pace[1].mean_gap_ns || c->pace[2].mean_gap_ns ||
		    job->zonemode == RQ_ZONEMODE_ZBD;	/* zbd: an I/O may wait for zones (fill_pick_new()) */
	/* read_iolog: the log's I/Os, through fill_pick_shaped(), until it is done */
	c->replay = e->replay_of ? e->replay_of[c - e->clones] : NULL;
	if (c->replay) {
		c->shaped = true;
		c->io_limit = c->replay->bytes + 1;	/* the log's end ends it: a last flush moves no byte */
	}
	c->plain = c->plain_rand && c->one_file && !c->shaped && !c->cmdprio &&
		   job->iodepth_batch_submit <= 1 && !job->write_iolog[0] && !rq_rw_trimwrite(job->rw);	/* fill()'s plain copy pairs no trims */
	return eng_iolog_open(c);
}

