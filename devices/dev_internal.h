/* SPDX-License-Identifier: MIT */
/*
 * dev_internal.h - helpers shared by the device drivers of devices/ (and
 * by nothing outside it): sysfs facts, the write-safety checks, the open
 * paths of files and block devices that several ioengines share, and the
 * backing stores of the RAM disk and the disk models.
 */
#ifndef RQ_DEV_INTERNAL_H
#define RQ_DEV_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "devices/device.h"

/* ---- specs ---- */

/* Is @spec "@KIND", "@KIND<digits>" or either followed by ",options"? */
bool rq_dev_spec_is(const char *spec, const char *kind);
/* The options part of a built-in spec (after the first ','), or NULL. */
static inline const char *rq_dev_spec_opts(const char *spec)
{
	const char *c = spec;

	while (*c && *c != ',')
		c++;
	return *c ? c + 1 : NULL;
}

/* ---- sysfs ---- */

/* Read @dir/@file, trailing blanks stripped.  0 or -errno. */
int rq_sysfs_read(const char *dir, const char *file, char *buf, size_t len);
uint64_t rq_sysfs_u64(const char *dir, const char *file, uint64_t def);
/* The sysfs directory of the disk holding block dev_t @rdev (a partition's parent). */
int rq_sysfs_disk_dir(dev_t rdev, char *out, size_t len);
/* The sysfs directory of block dev_t @rdev itself (the partition, if one). */
int rq_sysfs_blk_dir(dev_t rdev, char *out, size_t len);
/*
 * Fill @dev's subkind, transport, model, serial and rotational from the
 * disk's sysfs directory @sys (/sys/devices/.../block/NAME).
 */
void rq_blk_facts(const char *sys, struct rq_dev *dev);
/* Alignment O_DIRECT needs for @path (statx DIOALIGN, else the disk's lbs). */
uint32_t rq_dio_align(const char *path);
bool rq_path_is_blk(const char *path);
/* An NVMe generic character device (/dev/ngXnY)? */
bool rq_path_is_ng(const char *path);

/* ---- write safety ---- */

/*
 * May a job write to block device @rdev (named @path)?  Refused, with one
 * line "WHERE: refusing to write to PATH: REASON (--allow-mounted-write
 * to override)", when it or one of its partitions is mounted or used as
 * swap, when something holds it (device mapper, md, LVM), when the
 * kernel says it is in use (O_EXCL), or when it carries a filesystem,
 * swap, RAID/LVM/LUKS or partition-table signature.  Checked by reading
 * only.  @read_head (optional) reads the first bytes for the signature
 * scan when the path cannot be read with pread() (a character device).
 * Returns 0, or -EBUSY after printing the line.
 */
typedef ssize_t (*rq_read_head_fn)(void *arg, void *buf, size_t len);
int rq_blk_check_write(const struct rq_dev_open *o, const char *path, dev_t rdev,
		       rq_read_head_fn read_head, void *arg, FILE *err);
/* Mounted (it or a partition), swap, or held: true with the reason in @why. */
bool rq_blk_in_use(dev_t rdev, char *why, size_t len);
/* The name of the signature in the first @n bytes of @buf, or NULL. */
const char *rq_blk_signature(const void *buf, size_t n);
#define RQ_SIGNATURE_SCAN_BYTES (65600 + 16)
/* Where a signature scan reads: enough for btrfs's superblock magic. */

/*
 * One line for a failed open(2) of @path: permission problems are said
 * plainly (which access was asked for and why).  Returns -@e.
 */
int rq_open_error(const struct rq_dev_open *o, const char *path, int e, FILE *err);
int rq_open_flags(const struct rq_dev_open *o);

/*
 * The open paths shared by io_uring's file/blkdev and by aio: a regular
 * file (laid out in rq_file_prepare when short or missing) and a block
 * device (safety checks, size, logical block size, sysfs facts).
 */
int rq_file_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
int rq_file_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
int rq_blk_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
/* The path as what it is: rq_blk_open() for a block device, else rq_file_open() */
int rq_path_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
/* Its prepare: a file laid out (rq_file_prepare()), a block device as it is */
int rq_path_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);

/* ---- per-worker state of the polled drivers: aio, posixaio (percpu.c) ---- */

/*
 * A polled driver (its requests come back through its poll hook) keeps
 * its state per worker of the run: an entry of the driver's own type per
 * worker, on cache lines of its own, touched only by that worker (no
 * lock), as blk-mq keeps a hardware context's.  dev->priv is the struct
 * rq_percpu; the driver's rq_percpu_ops says how large an entry is and
 * how one is made and freed:
 *  - init (required): make the zeroed entry @cpu ready for @pc->per_cpu
 *    requests in flight.  0, or -errno (after one line on @err where
 *    there is more to say than "no memory").
 *  - exit (required): free what init made of @cpu; also called for an
 *    entry whose init failed or never ran (still zeroed).  @dev's fd is
 *    still open.
 */
struct rq_percpu;

struct rq_percpu_ops {
	size_t size;			/* an entry: sizeof the driver's per-worker struct */
	int (*init)(const struct rq_percpu *pc, void *cpu, const struct rq_dev_open *o, FILE *err);
	void (*exit)(const struct rq_dev *dev, void *cpu);
};

struct rq_percpu {
	const struct rq_percpu_ops *ops;
	void *cpus;			/* nr_cpus entries of ops->size bytes */
	unsigned int nr_cpus;		/* the run's workers (o->nr_cpus, at least 1) */
	unsigned int per_cpu;		/* requests one worker may have in flight: dev->depth */
};

/*
 * Make dev->priv, a struct rq_percpu of @ops's entries, each through
 * @ops->init, once the device is open (dev->depth known).  0 or -errno;
 * a failed one leaves what it made to rq_percpu_close().
 */
int rq_percpu_open(struct rq_dev *dev, const struct rq_dev_open *o, const struct rq_percpu_ops *ops,
		   FILE *err);
/* A polled driver's close hook: ops->exit on each entry, then the entries and dev->priv. */
void rq_percpu_close(struct rq_dev *dev);

/* Entry @i of @pc (i < nr_cpus). */
static inline void *rq_percpu_entry(const struct rq_percpu *pc, unsigned int i)
{
	return (char *)pc->cpus + (size_t)i * pc->ops->size;
}

/* Worker @cpu's entry of @dev, NULL for a context that is not one of the run's workers. */
static inline void *rq_percpu_get(const struct rq_dev *dev, const struct rq_ctx *cpu)
{
	const struct rq_percpu *pc = dev->priv;
	int id = rq_ctx_id(cpu);

	return id < 0 || (unsigned int)id >= pc->nr_cpus ? NULL : rq_percpu_entry(pc, (unsigned int)id);
}

/*
 * A worker's pool of @nr zeroed slots of @size bytes each (the driver's
 * iocb, or its set of aiocbs) and the stack of the free ones, all free at
 * first.  rq_slot_get() takes one, NULL when all are out (the driver
 * answers RQ_Q_BUSY); rq_slot_put() gives one back.  A slot comes back as
 * it was left: the driver fills it on each use.
 */
struct rq_slots {
	void *mem;			/* the pool */
	void **free;			/* the free stack */
	unsigned int nr_free;
};

/* 0, or -ENOMEM (rq_slots_fini() still frees what was made). */
int rq_slots_init(struct rq_slots *s, unsigned int nr, size_t size);
void rq_slots_fini(struct rq_slots *s);

static inline void *rq_slot_get(struct rq_slots *s)
{
	return s->nr_free ? s->free[--s->nr_free] : NULL;
}

static inline void rq_slot_put(struct rq_slots *s, void *slot)
{
	s->free[s->nr_free++] = slot;
}

/* ---- backing stores: memory or a file ---- */

/*
 * A store holds a device's data.  Memory is an anonymous private mapping
 * that the kernel fills with zero pages on first touch (so a large RAM
 * disk costs what is written); a file is read and written with
 * pread/pwrite.  Callers serialise overlapping writes, as a disk would
 * (the queue lock in the legacy modes).
 */
struct rq_store {
	char *mem;			/* NULL when file-backed */
	int fd;				/* -1 when memory */
	uint64_t size;
	char path[256];
};

int rq_store_mem(struct rq_store *s, uint64_t size, const char *name, FILE *err);
/* Open @path (created/extended to @size in rq_store_prepare, not here). */
int rq_store_file(struct rq_store *s, const struct rq_dev_open *o, const char *path,
		  uint64_t size, FILE *err);
int rq_store_prepare(struct rq_store *s, const struct rq_dev_open *o, FILE *err);
void rq_store_close(struct rq_store *s);
/*
 * Move @rq's data: returns rq->len or -errno.  A discard (RQ_OP_DISCARD)
 * zeroes its range: memory drops the range's whole pages (they read as
 * zeros again) and clears the partial ones; a file store punches a hole
 * (rq_fd_discard()).
 */
int rq_store_rw(struct rq_store *s, const struct rq_request *rq);
/*
 * Discard [@off, @off + @len) of @fd, synchronously: BLKDISCARD on a block
 * device, fallocate(PUNCH_HOLE | KEEP_SIZE) on a regular file (the size
 * stays, the range reads as zeros).  0 or -errno (-EOPNOTSUPP where the
 * device or file system has no discard).
 */
int rq_fd_discard(int fd, uint64_t off, uint64_t len);
/*
 * Serve the flush @rq on @fd, synchronously: fsync(), fdatasync() or
 * sync_file_range() as rq->bio->sync says (queues/queue.h, enum rq_sync).
 * Returns rq->len or -errno.
 */
int rq_fd_sync(int fd, const struct rq_request *rq);

/*
 * The options the memory devices (null, ram) share, as null_blk's: size,
 * depth (default 64), irqmode 0..2, delay_us (sets irqmode 2).  Parsed
 * from @opts (after the kind, NULL for none) and checked; a size of 0
 * becomes the jobs' need, else @def_size.  0, or -errno after one line
 * on @err.
 */
struct rq_mem_opts {
	uint64_t size, depth, irqmode, delay_us;
};
extern const struct rq_dev_option rq_mem_options[];
int rq_dev_mem_opts(const struct rq_dev_open *o, const char *opts, uint64_t def_size,
		    struct rq_mem_opts *m, FILE *err);

/* ---- a small JSON reader (json.c): nvme-cli's output ---- */

enum rq_jtype { RQ_J_NULL, RQ_J_BOOL, RQ_J_NUM, RQ_J_STR, RQ_J_ARR, RQ_J_OBJ };

struct rq_jv {
	enum rq_jtype t;
	char *s;			/* RQ_J_STR */
	double n;			/* RQ_J_NUM, RQ_J_BOOL */
	unsigned int nr;		/* RQ_J_ARR, RQ_J_OBJ */
	char **keys;			/* RQ_J_OBJ */
	struct rq_jv *kids;
};

/* Parse the whole of @text into @v (freed by rq_jv_free); 0 or -EINVAL. */
int rq_jv_parse(const char *text, struct rq_jv *v);
void rq_jv_free(struct rq_jv *v);
/* The member @key of object @o, NULL when absent (or @o is not an object). */
const struct rq_jv *rq_jv_get(const struct rq_jv *o, const char *key);
/* ... as a string, or NULL */
const char *rq_jv_str(const struct rq_jv *o, const char *key);
/* ... as a number (a number, or a string that starts with a digit); false when not one */
bool rq_jv_num(const struct rq_jv *o, const char *key, double *out);

/* open(2), waiting up to a second for a just-released exclusive claim */
int rq_open_excl(const char *path, int flags);

#endif /* RQ_DEV_INTERNAL_H */
