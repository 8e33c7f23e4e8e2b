// SPDX-License-Identifier: MIT
/*
 * uring.c - the file and blkdev devices: O_DIRECT I/O through the
 * dispatching worker's io_uring ring.
 *
 * file:   a regular file, named by its path.  A missing or short file is
 *         laid out (written) in prepare(), as fio lays out its files, and
 *         only after every job was checked.
 * blkdev: a block device, named by its path.  Its kind (nvme, sata, scsi,
 *         virtio, loop, floppy, ...) and queue facts come from sysfs.  It
 *         is opened read-write only when a job writes, then with O_EXCL,
 *         and refused if mounted, claimed or holding a filesystem or
 *         partition-table signature, unless --allow-mounted-write.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include "devices/device.h"
#include "engine/job.h"

static bool is_blk(const char *spec)
{
	struct stat st;

	return spec[0] != '@' && !stat(spec, &st) && S_ISBLK(st.st_mode);
}

static bool blk_probe(const struct rq_dev_open *o)
{
	return o->ioengine == RQ_IOENGINE_IO_URING && is_blk(o->spec);
}

static bool file_probe(const struct rq_dev_open *o)
{
	return o->ioengine == RQ_IOENGINE_IO_URING && o->spec[0] != '@' && !is_blk(o->spec);
}

static int read_sysfs(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return 0;
}

static uint64_t read_sysfs_u64(const char *dir, const char *file, uint64_t def)
{
	char buf[64];

	if (read_sysfs(dir, file, buf, sizeof(buf)))
		return def;
	return strtoull(buf, NULL, 10);
}

/* The sysfs directory of the disk holding dev_t @rdev (a partition's parent). */
static int sysfs_disk_dir(dev_t rdev, char *out, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX], q[PATH_MAX + 8];
	struct stat st;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	if (!realpath(link, real))
		return -errno;
	snprintf(q, sizeof(q), "%s/queue", real);
	if (stat(q, &st))
		*strrchr(real, '/') = 0;	/* a partition: its disk is the parent */
	snprintf(out, len, "%s", real);
	return 0;
}

static uint32_t dio_align(const char *path)
{
	struct statx stx;
	char dir[PATH_MAX], sys[PATH_MAX];
	struct stat st;

#ifdef STATX_DIOALIGN
	if (!statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &stx) && (stx.stx_mask & STATX_DIOALIGN) &&
	    stx.stx_dio_offset_align)
		return stx.stx_dio_offset_align;
#else
	(void)stx;
#endif
	snprintf(dir, sizeof(dir), "%s", path);
	if (stat(path, &st) && stat(dirname(dir), &st))
		return 512;
	if (sysfs_disk_dir(st.st_dev, sys, sizeof(sys)))
		return 512;
	return (uint32_t)read_sysfs_u64(sys, "queue/logical_block_size", 512);
}

static int open_flags(const struct rq_dev_open *o)
{
	return (o->write ? O_RDWR : O_RDONLY) | (o->direct ? O_DIRECT : 0) | O_CLOEXEC;
}

static int file_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dev->path, sizeof(dev->path), "%s", o->spec);
	dev->depth = 128;
	dev->max_bytes = 512 * 1024;
	snprintf(dev->subkind, sizeof(dev->subkind), "regular");
	if (stat(o->spec, &st)) {
		if (errno != ENOENT) {
			fprintf(err, "%s: %s: %s\n", o->where, o->spec, strerror(errno));
			return -errno;
		}
		snprintf(dir, sizeof(dir), "%s", o->spec);
		if (stat(dirname(dir), &st) || !S_ISDIR(st.st_mode)) {
			fprintf(err, "%s: %s: no such file, and its directory does not exist\n",
				o->where, o->spec);
			return -ENOENT;
		}
		if (!o->min_size) {
			fprintf(err, "%s: %s: no such file, and no size given to create it\n",
				o->where, o->spec);
			return -ENOENT;
		}
		dev->lbs = dio_align(o->spec);
		dev->size = o->min_size;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(err, "%s: %s: not a regular file or block device\n", o->where, o->spec);
		return -EINVAL;
	}
	dev->fd = open(o->spec, open_flags(o));
	if (dev->fd < 0) {
		int e = errno;

		fprintf(err, "%s: %s: %s\n", o->where, o->spec, strerror(e));
		return -e;
	}
	dev->lbs = dio_align(o->spec);
	dev->size = (uint64_t)st.st_size > o->min_size ? (uint64_t)st.st_size : o->min_size;
	return 0;
}

/* Lay out a missing or short file: write it up to min_size, then open it. */
static int file_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	const size_t chunk = 1 << 20;
	struct stat st;
	uint64_t pos;
	char *buf;
	int fd, ret = 0;

	if (!stat(o->spec, &st) && (uint64_t)st.st_size >= o->min_size && dev->fd >= 0)
		return 0;
	fd = open(o->spec, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		fprintf(err, "%s: %s: cannot create: %s\n", o->where, o->spec, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	pos = (uint64_t)st.st_size;
	if (pos < o->min_size) {
		fprintf(err, "rqlock: laying out %s (%llu MiB)\n", o->spec,
			(unsigned long long)((o->min_size - pos) >> 20));
		buf = malloc(chunk);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < chunk; i++)
			buf[i] = (char)(i * 131 + 7);
		while (pos < o->min_size) {
			size_t n = o->min_size - pos < chunk ? o->min_size - pos : chunk;
			ssize_t w = pwrite(fd, buf, n, (off_t)pos);

			if (w <= 0) {
				ret = w < 0 ? -errno : -EIO;
				break;
			}
			pos += (uint64_t)w;
		}
		free(buf);
		if (!ret && fsync(fd))
			ret = -errno;
	}
out:
	close(fd);
	if (ret) {
		fprintf(err, "%s: %s: layout failed: %s\n", o->where, o->spec, strerror(-ret));
		return ret;
	}
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = open(o->spec, open_flags(o));
	if (dev->fd < 0) {
		ret = -errno;
		fprintf(err, "%s: %s: %s\n", o->where, o->spec, strerror(-ret));
		return ret;
	}
	dev->lbs = dio_align(o->spec);
	return 0;
}

static void subkind_of(const char *sys, struct rq_dev *dev)
{
	const char *name = strrchr(sys, '/') ? strrchr(sys, '/') + 1 : sys;
	char vendor[64] = "";
	static const struct { const char *prefix, *kind; } tab[] = {
		{ "nvme", "nvme" }, { "loop", "loop" }, { "vd", "virtio" }, { "fd", "floppy" },
		{ "sr", "scsi" }, { "dm-", "dm" }, { "md", "md" }, { "nbd", "nbd" },
		{ "ram", "ram" }, { "zram", "zram" }, { "nullb", "null_blk" }, { "mmcblk", "mmc" },
	};

	snprintf(dev->subkind, sizeof(dev->subkind), "other");
	if (!strncmp(name, "sd", 2)) {
		read_sysfs(sys, "device/vendor", vendor, sizeof(vendor));
		snprintf(dev->subkind, sizeof(dev->subkind), "%s", !strcmp(vendor, "ATA") ? "sata" : "scsi");
		return;
	}
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (!strncmp(name, tab[i].prefix, strlen(tab[i].prefix))) {
			snprintf(dev->subkind, sizeof(dev->subkind), "%s", tab[i].kind);
			return;
		}
	}
}

/*
 * Signatures that mean "someone's data lives here": filesystems, swap,
 * LUKS, LVM, partition tables.  Offsets as blkid's magic tables list them.
 */
static const char *signature(int fd)
{
	static const struct {
		const char *name;
		size_t off;
		const char *magic;
		size_t len;
	} sigs[] = {
		{ "ext2/3/4", 1080, "\x53\xef", 2 },
		{ "xfs", 0, "XFSB", 4 },
		{ "btrfs", 65600, "_BHRfS_M", 8 },
		{ "swap", 4086, "SWAPSPACE2", 10 },
		{ "swap", 4086, "SWAP-SPACE", 10 },
		{ "LUKS", 0, "LUKS\xba\xbe", 6 },
		{ "LVM2", 536, "LVM2 001", 8 },
		{ "iso9660", 32769, "CD001", 5 },
		{ "vfat", 54, "FAT1", 4 },
		{ "vfat", 82, "FAT32", 5 },
		{ "GPT", 512, "EFI PART", 8 },
		{ "MBR partition table", 510, "\x55\xaa", 2 },
		{ "f2fs", 1024, "\x10\x20\xf5\xf2", 4 },
	};
	static char buf[65600 + 16];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (n > 0 && sigs[i].off + sigs[i].len <= (size_t)n &&
		    !memcmp(buf + sigs[i].off, sigs[i].magic, sigs[i].len))
			return sigs[i].name;
	return NULL;
}

static int blk_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	char sys[PATH_MAX];
	struct stat st;
	uint64_t size = 0;
	int lbs = 512, fd, e;

	snprintf(dev->path, sizeof(dev->path), "%s", o->spec);
	if (stat(o->spec, &st))
		return -errno;
	if (o->write && !o->allow_mounted_write) {
		const char *sig;

		fd = open(o->spec, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0) {
			e = errno;
			if (e == EBUSY)
				fprintf(err, "%s: refusing to write to %s: it is mounted or in use "
					"(--allow-mounted-write to override)\n", o->where, o->spec);
			else
				fprintf(err, "%s: %s: %s\n", o->where, o->spec, strerror(e));
			return -e;
		}
		sig = signature(fd);
		close(fd);
		if (sig) {
			fprintf(err, "%s: refusing to write to %s: it holds a %s signature "
				"(--allow-mounted-write to override)\n", o->where, o->spec, sig);
			return -EBUSY;
		}
	}
	dev->fd = open(o->spec, open_flags(o) | (o->write && !o->allow_mounted_write ? O_EXCL : 0));
	if (dev->fd < 0) {
		e = errno;
		fprintf(err, "%s: %s: %s\n", o->where, o->spec, strerror(e));
		return -e;
	}
	if (ioctl(dev->fd, BLKGETSIZE64, &size) || ioctl(dev->fd, BLKSSZGET, &lbs)) {
		e = errno;
		fprintf(err, "%s: %s: cannot read its size: %s\n", o->where, o->spec, strerror(e));
		return -e;
	}
	dev->size = size;
	dev->lbs = (uint32_t)lbs;
	dev->depth = 128;
	dev->max_bytes = 512 * 1024;
	if (!sysfs_disk_dir(st.st_rdev, sys, sizeof(sys))) {
		subkind_of(sys, dev);
		dev->depth = (uint32_t)read_sysfs_u64(sys, "queue/nr_requests", 128);
		dev->max_bytes = (uint32_t)read_sysfs_u64(sys, "queue/max_sectors_kb", 512) * 1024;
		read_sysfs(sys, "device/model", dev->model, sizeof(dev->model));
	}
	if (!dev->depth)
		dev->depth = 128;
	if (dev->max_bytes < dev->lbs)
		dev->max_bytes = 512 * 1024;
	return 0;
}

static void uring_close(struct rq_dev *dev)
{
	(void)dev;
}

static int uring_queue_rq(struct rq_dev *dev, struct rq_cpu *cpu, struct rq_request *rq)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(rq_cpu_ring(cpu));

	if (!sqe)
		return RQ_Q_BUSY;
	if (rq->nr_segs == 1) {
		if (rq->op == RQ_OP_READ)
			io_uring_prep_read(sqe, dev->fd, rq->iov[0].iov_base, rq->len, rq->offset);
		else
			io_uring_prep_write(sqe, dev->fd, rq->iov[0].iov_base, rq->len, rq->offset);
	} else {
		if (rq->op == RQ_OP_READ)
			io_uring_prep_readv(sqe, dev->fd, rq->iov, rq->nr_segs, rq->offset);
		else
			io_uring_prep_writev(sqe, dev->fd, rq->iov, rq->nr_segs, rq->offset);
	}
	io_uring_sqe_set_data(sqe, rq);
	return RQ_Q_QUEUED;
}

const struct rq_dev_ops rq_dev_file = {
	.name = "file",
	.flags = RQ_DEV_NEEDS_RING | RQ_DEV_HAS_DATA,
	.probe = file_probe,
	.open = file_open,
	.prepare = file_prepare,
	.close = uring_close,
	.queue_rq = uring_queue_rq,
};

const struct rq_dev_ops rq_dev_blkdev = {
	.name = "blkdev",
	.flags = RQ_DEV_NEEDS_RING | RQ_DEV_HAS_DATA,
	.probe = blk_probe,
	.open = blk_open,
	.close = uring_close,
	.queue_rq = uring_queue_rq,
};
