// SPDX-License-Identifier: MIT
/*
 * blk.c - what the block-device drivers share: sysfs facts, the
 * write-safety checks (mounted, swap, holders, exclusive use, signatures),
 * permission messages, and the open paths of files and block devices used
 * by both the io_uring (uring.c) and the libaio (aio.c) engines.
 *
 * The safety checks only read: /proc/self/mountinfo, /proc/swaps, sysfs,
 * an O_EXCL open that is closed at once, and the first 64 KiB of the
 * device.  Nothing is opened for writing before they all passed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "devices/dev_internal.h"

/*
 * open(2), retrying an exclusive open of a block device that is busy for
 * up to a second.  Callers have already checked mounts and holders, so a
 * busy device here is most often one a previous run just closed: the
 * kernel drops a ring's registered files, and with them the exclusive
 * claim, from deferred work after the process exited.  Returns the fd or
 * -1 with errno set, as open(2).
 */
int rq_open_excl(const char *path, int flags)
{
	for (int i = 0;; i++) {
		int fd = open(path, flags);

		if (fd >= 0 || errno != EBUSY || !(flags & O_EXCL) || i == 20)
			return fd;
		usleep(50000);
	}
}

/* ---- sysfs -------------------------------------------------------------- */

int rq_sysfs_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) {
		buf[0] = 0;
		return -EIO;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == 0))
		n--;
	buf[n] = 0;
	/* leading blanks too (SCSI pads model and vendor) */
	size_t skip = strspn(buf, " ");
	if (skip)
		memmove(buf, buf + skip, strlen(buf + skip) + 1);
	return 0;
}

uint64_t rq_sysfs_u64(const char *dir, const char *file, uint64_t def)
{
	char buf[64];

	if (rq_sysfs_read(dir, file, buf, sizeof(buf)) || !buf[0])
		return def;
	return strtoull(buf, NULL, 10);
}

int rq_sysfs_blk_dir(dev_t rdev, char *out, size_t len)
{
	char link[64], real[PATH_MAX];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	if (!realpath(link, real))
		return -errno;
	snprintf(out, len, "%s", real);
	return 0;
}

int rq_sysfs_disk_dir(dev_t rdev, char *out, size_t len)
{
	char real[PATH_MAX], q[PATH_MAX + 16];
	struct stat st;
	int ret = rq_sysfs_blk_dir(rdev, real, sizeof(real));

	if (ret)
		return ret;
	snprintf(q, sizeof(q), "%s/partition", real);
	if (!stat(q, &st))
		*strrchr(real, '/') = 0;	/* a partition: its disk is the parent */
	snprintf(out, len, "%s", real);
	return 0;
}

bool rq_path_is_blk(const char *path)
{
	struct stat st;

	return path[0] != '@' && !stat(path, &st) && S_ISBLK(st.st_mode);
}

uint32_t rq_dio_align(const char *path)
{
	char dir[PATH_MAX], sys[PATH_MAX];
	struct stat st;
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (!statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &stx) && (stx.stx_mask & STATX_DIOALIGN) &&
	    stx.stx_dio_offset_align)
		return stx.stx_dio_offset_align;
#endif
	snprintf(dir, sizeof(dir), "%s", path);
	if (stat(path, &st) && stat(dirname(dir), &st))
		return 512;
	if (rq_sysfs_disk_dir(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, sys, sizeof(sys)))
		return 512;
	return (uint32_t)rq_sysfs_u64(sys, "queue/logical_block_size", 512);
}

/* The serial number where the kernel shows one (NVMe, virtio, SCSI VPD 0x80). */
static void serial_of(const char *sys, char *out, size_t len)
{
	char buf[256];
	ssize_t n;
	int fd;

	if (!rq_sysfs_read(sys, "device/serial", out, len) && out[0])
		return;
	if (!rq_sysfs_read(sys, "serial", out, len) && out[0])
		return;
	out[0] = 0;
	snprintf(buf, sizeof(buf), "%s/device/vpd_pg80", sys);
	fd = open(buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 4) {
		size_t l = ((size_t)(unsigned char)buf[2] << 8) | (unsigned char)buf[3];
		size_t i, j = 0;

		if (l > (size_t)n - 4)
			l = (size_t)n - 4;
		for (i = 0; i < l && j + 1 < len; i++)
			if (buf[4 + i] > ' ' && buf[4 + i] < 127)
				out[j++] = buf[4 + i];
		out[j] = 0;
	}
}

void rq_blk_facts(const char *sys, struct rq_dev *dev)
{
	const char *name = strrchr(sys, '/') ? strrchr(sys, '/') + 1 : sys;
	char vendor[64] = "", real[PATH_MAX];
	static const struct { const char *prefix, *kind, *transport; } tab[] = {
		{ "nvme", "nvme", "pcie" }, { "loop", "loop", "loop" }, { "vd", "virtio", "virtio" },
		{ "fd", "floppy", "floppy" }, { "sr", "scsi", "scsi" }, { "dm-", "dm", "virtual" },
		{ "md", "md", "virtual" }, { "nbd", "nbd", "network" }, { "ram", "ram", "memory" },
		{ "zram", "zram", "memory" }, { "nullb", "null_blk", "virtual" },
		{ "mmcblk", "mmc", "mmc" }, { "xvd", "xen", "xen" }, { "hd", "ide", "ata" },
	};

	snprintf(dev->subkind, sizeof(dev->subkind), "other");
	snprintf(dev->transport, sizeof(dev->transport), "other");
	if (!strncmp(name, "sd", 2)) {
		rq_sysfs_read(sys, "device/vendor", vendor, sizeof(vendor));
		bool ata = !strcmp(vendor, "ATA");

		snprintf(dev->subkind, sizeof(dev->subkind), "%s", ata ? "sata" : "scsi");
		snprintf(dev->transport, sizeof(dev->transport), "%s", ata ? "sata" : "scsi");
		if (realpath(sys, real) && strstr(real, "/usb"))
			snprintf(dev->transport, sizeof(dev->transport), "usb");
	} else {
		for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
			if (!strncmp(name, tab[i].prefix, strlen(tab[i].prefix))) {
				snprintf(dev->subkind, sizeof(dev->subkind), "%s", tab[i].kind);
				snprintf(dev->transport, sizeof(dev->transport), "%s", tab[i].transport);
				break;
			}
		}
		if (!strcmp(dev->subkind, "nvme")) {
			char t[sizeof(dev->transport)];

			/* fabrics (tcp, rdma, fc, loop) say so in the controller's transport */
			if (!rq_sysfs_read(sys, "device/transport", t, sizeof(t)) && t[0])
				snprintf(dev->transport, sizeof(dev->transport), "%s", t);
		}
	}
	if (rq_sysfs_read(sys, "device/model", dev->model, sizeof(dev->model)) || !dev->model[0]) {
		char backing[256];

		if (!rq_sysfs_read(sys, "loop/backing_file", backing, sizeof(backing)) && backing[0])
			snprintf(dev->model, sizeof(dev->model), "loop over %.50s", backing);
	}
	serial_of(sys, dev->serial, sizeof(dev->serial));
	uint64_t rot = rq_sysfs_u64(sys, "queue/rotational", 2);

	dev->rotational = rot > 1 ? -1 : (int8_t)rot;
}

/* ---- write safety -------------------------------------------------------- */

/*
 * Signatures that mean "someone's data lives here": filesystems, swap,
 * LUKS, LVM, md RAID, partition tables.  Offsets as blkid's magic tables
 * list them.
 */
const char *rq_blk_signature(const void *buf_, size_t n)
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
		{ "md RAID (1.1)", 0, "\xfc\x4e\x2b\xa9", 4 },
		{ "md RAID (1.2)", 4096, "\xfc\x4e\x2b\xa9", 4 },
		{ "iso9660", 32769, "CD001", 5 },
		{ "vfat", 54, "FAT1", 4 },
		{ "vfat", 82, "FAT32", 5 },
		{ "GPT", 512, "EFI PART", 8 },
		{ "f2fs", 1024, "\x10\x20\xf5\xf2", 4 },
		{ "MBR partition table", 510, "\x55\xaa", 2 },
	};
	const char *buf = buf_;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i].off + sigs[i].len <= n && !memcmp(buf + sigs[i].off, sigs[i].magic, sigs[i].len))
			return sigs[i].name;
	return NULL;
}

#define MAX_PARTS 128

/* @rdev and the dev_t of each of its partitions (when it is a whole disk). */
static unsigned int dev_and_parts(dev_t rdev, dev_t *out, char sysdirs[][PATH_MAX])
{
	char sys[PATH_MAX];
	unsigned int n = 0;
	struct dirent *de;
	DIR *d;

	out[n] = rdev;
	if (rq_sysfs_blk_dir(rdev, sysdirs[n], PATH_MAX))
		sysdirs[n][0] = 0;
	n++;
	if (!sysdirs[0][0])
		return n;
	snprintf(sys, sizeof(sys), "%.*s", (int)sizeof(sys) - 1, sysdirs[0]);
	d = opendir(sys);
	if (!d)
		return n;
	while ((de = readdir(d)) && n < MAX_PARTS) {
		char part[PATH_MAX + 300], devno[32];
		unsigned int ma, mi;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(part, sizeof(part), "%s/%s/partition", sys, de->d_name);
		if (stat(part, &st))
			continue;
		snprintf(part, sizeof(part), "%s/%s", sys, de->d_name);
		if (rq_sysfs_read(part, "dev", devno, sizeof(devno)) || sscanf(devno, "%u:%u", &ma, &mi) != 2)
			continue;
		out[n] = makedev(ma, mi);
		snprintf(sysdirs[n], PATH_MAX, "%.*s", PATH_MAX - 1, part);
		n++;
	}
	closedir(d);
	return n;
}

static int in_set(dev_t x, const dev_t *set, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (set[i] == x)
			return (int)i;
	return -1;
}

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo */
static void unescape(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] && s[3]) {
			*w++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = 0;
}

/* Mounted: "is mounted on MNT" (or a partition of it is), into @why. */
static bool mounted(const dev_t *set, unsigned int n, char *why, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int ma, mi;
		char mnt[1024], src[1024] = "";
		char *sep = strstr(line, " - ");
		int idx;

		if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &ma, &mi, mnt) != 3)
			continue;
		idx = in_set(makedev(ma, mi), set, n);
		if (idx < 0 && sep) {
			struct stat st;

			/* btrfs and others report an anonymous dev_t: look at the source */
			if (sscanf(sep + 3, "%*s %1023s", src) == 1 && src[0] == '/') {
				unescape(src);
				if (!stat(src, &st) && S_ISBLK(st.st_mode))
					idx = in_set(st.st_rdev, set, n);
			}
		}
		if (idx >= 0) {
			unescape(mnt);
			if (idx == 0)
				snprintf(why, len, "it is mounted on %s", mnt);
			else
				snprintf(why, len, "its partition %u:%u is mounted on %s",
					 major(set[idx]), minor(set[idx]), mnt);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool swapped(const dev_t *set, unsigned int n, char *why, size_t len)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[1024], path[1024];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		struct stat st;

		if (sscanf(line, "%1023s", path) != 1 || path[0] != '/')
			continue;
		unescape(path);
		if (!stat(path, &st) && S_ISBLK(st.st_mode) && in_set(st.st_rdev, set, n) >= 0) {
			snprintf(why, len, "it is in use as swap (%s)", path);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Held: sysfs holders/ lists device-mapper, md, bcache... stacked on it. */
static bool held(char sysdirs[][PATH_MAX], unsigned int n, char *why, size_t len)
{
	for (unsigned int i = 0; i < n; i++) {
		char h[PATH_MAX + 16];
		struct dirent *de;
		DIR *d;

		if (!sysdirs[i][0])
			continue;
		snprintf(h, sizeof(h), "%.*s/holders", PATH_MAX - 1, sysdirs[i]);
		d = opendir(h);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(why, len, "%s is held by %s (device mapper, md or LVM)",
				 i ? "its partition" : "it", de->d_name);
			closedir(d);
			return true;
		}
		closedir(d);
	}
	return false;
}

bool rq_blk_in_use(dev_t rdev, char *why, size_t len)
{
	static char sysdirs[MAX_PARTS][PATH_MAX];	/* single-threaded callers */
	dev_t set[MAX_PARTS];
	unsigned int n = dev_and_parts(rdev, set, sysdirs);

	return mounted(set, n, why, len) || swapped(set, n, why, len) || held(sysdirs, n, why, len);
}

static ssize_t pread_head(void *arg, void *buf, size_t len)
{
	return pread(*(int *)arg, buf, len, 0);
}

int rq_blk_check_write(const struct rq_dev_open *o, const char *path, dev_t rdev,
		       rq_read_head_fn read_head, void *arg, FILE *err)
{
	char why[1200];
	const char *sig;
	char *head;
	ssize_t got;
	int fd = -1;

	if (!o->write || o->allow_mounted_write)
		return 0;
	if (rq_blk_in_use(rdev, why, sizeof(why)))
		goto refuse;
	if (!read_head) {
		/* O_EXCL on a block device: EBUSY while mounted or claimed by the kernel */
		fd = rq_open_excl(path, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			if (e == EBUSY) {
				snprintf(why, sizeof(why), "it is in use (the kernel refuses an exclusive open)");
				goto refuse;
			}
			return rq_open_error(o, path, e, err);
		}
		read_head = pread_head;
		arg = &fd;
	}
	head = calloc(1, RQ_SIGNATURE_SCAN_BYTES);
	if (!head) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	got = read_head(arg, head, RQ_SIGNATURE_SCAN_BYTES);
	sig = got > 0 ? rq_blk_signature(head, (size_t)got) : NULL;
	free(head);
	if (fd >= 0)
		close(fd);
	if (got < 0) {
		fprintf(err, "%s: %s: cannot read its first blocks to look for a filesystem: %s\n",
			o->where, path, strerror((int)-got));
		return (int)got;
	}
	if (!sig)
		return 0;
	snprintf(why, sizeof(why), "it carries a signature: %s", sig);
refuse:
	fprintf(err, "%s: refusing to write to %s: %s (--allow-mounted-write to override)\n",
		o->where, path, why);
	return -EBUSY;
}

int rq_open_error(const struct rq_dev_open *o, const char *path, int e, FILE *err)
{
	const char *how = o->write ? "read-write, as the job writes" : "read-only";

	if (e == EACCES || e == EPERM || e == EROFS)
		fprintf(err, "%s: %s: %s opening it %s (check its permissions, or run as a user "
			"that may)\n", o->where, path, strerror(e), how);
	else if (e == EINVAL && o->direct)
		fprintf(err, "%s: %s: cannot open it with O_DIRECT (direct=1): %s\n", o->where, path,
			strerror(e));
	else
		fprintf(err, "%s: %s: %s\n", o->where, path, strerror(e));
	return -e;
}

int rq_open_flags(const struct rq_dev_open *o)
{
	return (o->write ? O_RDWR : O_RDONLY) | (o->direct ? O_DIRECT : 0) | O_CLOEXEC;
}

/* ---- regular files ---------------------------------------------------- */

/* The bytes free to a user on @path's filesystem (its directory's, for a file not there yet). */
static uint64_t fs_free(const char *path)
{
	char dir[PATH_MAX];
	struct statvfs vfs;

	snprintf(dir, sizeof(dir), "%s", path);
	if (statvfs(path, &vfs) && statvfs(dirname(dir), &vfs))
		return 0;
	return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

/*
 * fill_device: the file's region, past what the filesystem has free, so
 * that writes go on until it says it is full (ENOSPC, or a short write):
 * fio's size is unbounded then (-1), and the write that finds the end
 * counts (engine/fill.c).
 */
static uint64_t fill_room(const char *path, uint64_t now)
{
	return now + 2 * fs_free(path) + (1 << 20);
}

int rq_file_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dev->path, sizeof(dev->path), "%s", o->spec);
	dev->depth = 128;
	dev->max_bytes = 512 * 1024;
	dev->rotational = -1;
	snprintf(dev->subkind, sizeof(dev->subkind), "regular");
	snprintf(dev->transport, sizeof(dev->transport), "file");
	if (stat(o->spec, &st)) {
		if (errno != ENOENT)
			return rq_open_error(o, o->spec, errno, err);
		snprintf(dir, sizeof(dir), "%s", o->spec);
		if (stat(dirname(dir), &st) || !S_ISDIR(st.st_mode)) {
			fprintf(err, "%s: %s: no such file, and its directory does not exist\n",
				o->where, o->spec);
			return -ENOENT;
		}
		if (!o->min_size && !o->fill) {
			fprintf(err, "%s: %s: no such file, and no size given to create it\n",
				o->where, o->spec);
			return -ENOENT;
		}
		snprintf(dir, sizeof(dir), "%s", o->spec);
		if (access(dirname(dir), W_OK | X_OK))
			return rq_open_error(o, o->spec, errno, err);
		dev->lbs = rq_dio_align(o->spec);
		dev->size = o->fill && !o->min_size ? fill_room(o->spec, 0) : o->min_size;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(err, "%s: %s: not a regular file or block device\n", o->where, o->spec);
		return -EINVAL;
	}
	dev->fd = open(o->spec, rq_open_flags(o));
	if (dev->fd < 0)
		return rq_open_error(o, o->spec, errno, err);
	dev->lbs = rq_dio_align(o->spec);
	dev->size = (uint64_t)st.st_size > o->min_size ? (uint64_t)st.st_size : o->min_size;
	/* fill_device: a writer may go on past the file's end, until the filesystem is full */
	if (o->fill && o->write && !o->min_size)
		dev->size = fill_room(o->spec, (uint64_t)st.st_size);
	return 0;
}

/*
 * Lay out a missing or short file: write it up to min_size, then open it.
 * A layout that fails (ENOSPC, EDQUOT, EIO) or is interrupted leaves the
 * file as it found it: a file it created is removed, one it extended is
 * truncated back - a full disk must not keep a partial w.img.  A file it
 * created is remembered in dev->created for rq_dev_discard_layout().
 */
int rq_file_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	const size_t chunk = 1 << 20;
	struct stat st;
	uint64_t pos = 0, orig = 0;
	bool created = false;
	char *buf;
	int fd, ret = 0;

	if (!stat(o->spec, &st) && (uint64_t)st.st_size >= o->min_size && dev->fd >= 0)
		return 0;
	fd = open(o->spec, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		created = true;
	else if (errno == EEXIST)
		fd = open(o->spec, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return rq_open_error(o, o->spec, errno, err);
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	pos = orig = (uint64_t)st.st_size;
	if (pos < o->min_size) {
		/* fio's normal output says this, on stdout (filesetup.c) */
		if (o->info) {
			fprintf(o->info, "%s: Laying out IO file (1 file / %lluMiB)\n",
				o->job ? o->job : o->spec, (unsigned long long)((o->min_size - pos) >> 20));
			fflush(o->info);	/* seen while the layout runs, through a pipe too */
		}
		buf = malloc(chunk);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < chunk; i++)
			buf[i] = (char)(i * 131 + 7);
		while (pos < o->min_size) {
			size_t n = o->min_size - pos < chunk ? o->min_size - pos : chunk;
			ssize_t w;

			if (rq_devs_interrupted()) {
				ret = -EINTR;
				break;
			}
			w = pwrite(fd, buf, n, (off_t)pos);
			if (w < 0 && errno == EINTR)
				continue;	/* the loop head sees an interrupt */
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
	if (ret && !created && pos > orig && ftruncate(fd, (off_t)orig))
		fprintf(err, "%s: %s: cannot truncate back to %llu bytes: %s\n", o->where, o->spec,
			(unsigned long long)orig, strerror(errno));
	close(fd);
	if (ret) {
		if (created)
			unlink(o->spec);
		fprintf(err, "%s: %s: layout %s: %s; %s\n", o->where, o->spec,
			ret == -EINTR ? "interrupted" : "failed", strerror(-ret),
			created ? "removed the file it created" :
			pos > orig ? "truncated back to its old size" : "nothing was written");
		return ret;
	}
	if (created)
		dev->created = strdup(o->spec);
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = open(o->spec, rq_open_flags(o));
	if (dev->fd < 0)
		return rq_open_error(o, o->spec, errno, err);
	dev->lbs = rq_dio_align(o->spec);
	return 0;
}

int rq_path_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	return rq_path_is_blk(o->spec) ? rq_blk_open(dev, o, err) : rq_file_open(dev, o, err);
}

int rq_path_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	return rq_path_is_blk(o->spec) ? 0 : rq_file_prepare(dev, o, err);
}

/* ---- block devices --------------------------------------------------- */

int rq_blk_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	char sys[PATH_MAX];
	struct stat st;
	uint64_t size = 0;
	int lbs = 512, ret;

	snprintf(dev->path, sizeof(dev->path), "%s", o->spec);
	if (stat(o->spec, &st))
		return rq_open_error(o, o->spec, errno, err);
	ret = rq_blk_check_write(o, o->spec, st.st_rdev, NULL, NULL, err);
	if (ret)
		return ret;
	/* O_EXCL while writing: nobody mounts it under the run */
	dev->fd = rq_open_excl(o->spec, rq_open_flags(o) | (o->write && !o->allow_mounted_write ? O_EXCL : 0));
	if (dev->fd < 0)
		return rq_open_error(o, o->spec, errno, err);
	if (ioctl(dev->fd, BLKGETSIZE64, &size) || ioctl(dev->fd, BLKSSZGET, &lbs)) {
		int e = errno;

		fprintf(err, "%s: %s: cannot read its size: %s\n", o->where, o->spec, strerror(e));
		return -e;
	}
	if (o->write) {
		int ro = 0;

		/* the kernel opens a read-only disk for writing and fails the writes later */
		if (!ioctl(dev->fd, BLKROGET, &ro) && ro) {
			fprintf(err, "%s: %s: the device is read-only, and a job writes to it\n",
				o->where, o->spec);
			return -EROFS;
		}
	}
	if (!size) {
		fprintf(err, "%s: %s: the device is empty (size 0: no medium, or a loop device "
			"with nothing attached)\n", o->where, o->spec);
		return -ENOSPC;
	}
	dev->size = size;
	dev->lbs = (uint32_t)lbs;
	dev->depth = 128;
	dev->max_bytes = 512 * 1024;
	dev->rotational = -1;
	if (!rq_sysfs_disk_dir(st.st_rdev, sys, sizeof(sys))) {
		rq_blk_facts(sys, dev);
		dev->depth = (uint32_t)rq_sysfs_u64(sys, "queue/nr_requests", 128);
		dev->max_bytes = (uint32_t)rq_sysfs_u64(sys, "queue/max_sectors_kb", 512) * 1024;
	}
	if (!dev->depth)
		dev->depth = 128;
	if (dev->max_bytes < dev->lbs)
		dev->max_bytes = 512 * 1024;
	return 0;
}
