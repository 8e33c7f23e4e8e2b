// SPDX-License-Identifier: MIT
/*
 * store.c - backing stores for the RAM disk and the disk models: memory
 * (an anonymous mapping, zero pages until written) or a file (pread and
 * pwrite).  A store moves data; it knows nothing about time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "devices/dev_internal.h"

int rq_store_mem(struct rq_store *s, uint64_t size, const char *name, FILE *err)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->size = size;
	if (size > (uint64_t)SIZE_MAX / 2) {
		fprintf(err, "device '%s': size %llu is too large for memory\n", name,
			(unsigned long long)size);
		return -EINVAL;
	}
	/* MAP_NORESERVE: a RAM disk larger than it is ever written costs nothing */
	s->mem = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->mem == MAP_FAILED) {
		int e = errno;

		s->mem = NULL;
		fprintf(err, "device '%s': cannot map %llu bytes of memory: %s\n", name,
			(unsigned long long)size, strerror(e));
		return -e;
	}
	return 0;
}

int rq_store_file(struct rq_store *s, const struct rq_dev_open *o, const char *path,
		  uint64_t size, FILE *err)
{
	struct stat st;
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->size = size;
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return rq_open_error(o, path, errno, err);
		return 0;	/* created in rq_store_prepare */
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes = 0;

		ret = rq_blk_check_write(o, path, st.st_rdev, NULL, NULL, err);
		if (ret)
			return ret;
		s->fd = open(path, (o->write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (s->fd < 0)
			return rq_open_error(o, path, errno, err);
		if (!ioctl(s->fd, BLKGETSIZE64, &bytes) && bytes < size) {
			fprintf(err, "%s: %s: %llu bytes, the model needs %llu\n", o->where, path,
				(unsigned long long)bytes, (unsigned long long)size);
			return -ENOSPC;
		}
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(err, "%s: %s: not a regular file or block device\n", o->where, path);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size >= size) {
		s->fd = open(path, (o->write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (s->fd < 0)
			return rq_open_error(o, path, errno, err);
	} else if (access(path, o->write ? R_OK | W_OK : R_OK)) {
		return rq_open_error(o, path, errno, err);
	}
	return 0;
}

/*
 * A missing backing file is created here (sparse, at the model's size);
 * a short one is extended only when a job writes: a read job opens it
 * read-only and finds zeros past its end.
 */
int rq_store_prepare(struct rq_store *s, const struct rq_dev_open *o, FILE *err)
{
	struct stat st;
	bool exists = !stat(s->path, &st);

	if (s->mem || s->fd >= 0)
		return 0;
	if (exists && !o->write)
		s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
	else
		s->fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->fd < 0)
		return rq_open_error(o, s->path, errno, err);
	if ((!exists || o->write) && !fstat(s->fd, &st) && (uint64_t)st.st_size < s->size &&
	    ftruncate(s->fd, (off_t)s->size)) {
		int e = errno;

		fprintf(err, "%s: %s: cannot extend it to %llu bytes: %s\n", o->where, s->path,
			(unsigned long long)s->size, strerror(e));
		return -e;
	}
	return 0;
}

void rq_store_close(struct rq_store *s)
{
	if (s->mem)
		munmap(s->mem, (size_t)s->size);
	if (s->fd >= 0)
		close(s->fd);
	s->mem = NULL;
	s->fd = -1;
}

int rq_fd_discard(int fd, uint64_t off, uint64_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t range[2] = { off, len };

		return ioctl(fd, BLKDISCARD, range) ? -errno : 0;
	}
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) ?
	       -errno : 0;
}

int rq_fd_sync(int fd, const struct rq_request *rq)
{
	unsigned int k = rq->bio->sync;
	int ret;

	if (k & RQ_SYNC_RANGE) {
		if (!rq->len && !(k & RQ_SYNC_TO_END))
			return 0;	/* nothing written since the last sync */
		ret = sync_file_range(fd, (off_t)rq->offset, (off_t)rq->len, k & RQ_SYNC_SFR_MASK);
	} else {
		ret = k & RQ_SYNC_DATA ? fdatasync(fd) : fsync(fd);
	}
	return ret ? -errno : (int)rq->len;
}

/* A discard of memory: whole pages dropped (zero pages on the next touch), the edges cleared. */
static void mem_discard(char *base, uint64_t off, uint64_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)(base + off), e = a + len;
	uintptr_t pa = (a + pg - 1) & ~(pg - 1), pe = e & ~(pg - 1);

	if (pa >= pe || madvise((void *)pa, pe - pa, MADV_DONTNEED)) {
		memset((void *)a, 0, len);
		return;
	}
	memset((void *)a, 0, pa - a);
	memset((void *)pe, 0, e - pe);
}

int rq_store_rw(struct rq_store *s, const struct rq_request *rq)
{
	if (rq->op == RQ_OP_FLUSH)	/* memory is as durable as it gets; a file is synced */
		return s->mem ? (int)rq->len : rq_fd_sync(s->fd, rq);
	if (rq->offset > s->size || rq->len > s->size - rq->offset)
		return -EIO;	/* past the end: as a disk's "access beyond end" */
	if (rq->op == RQ_OP_DISCARD) {
		int ret = 0;

		if (s->mem)
			mem_discard(s->mem, rq->offset, rq->len);
		else
			ret = rq_fd_discard(s->fd, rq->offset, rq->len);
		return ret ? ret : (int)rq->len;
	}
	if (s->mem) {
		char *p = s->mem + rq->offset;

		for (unsigned int i = 0; i < rq->nr_segs; i++) {
			if (rq->op == RQ_OP_READ)
				memcpy(rq->iov[i].iov_base, p, rq->iov[i].iov_len);
			else
				memcpy(p, rq->iov[i].iov_base, rq->iov[i].iov_len);
			p += rq->iov[i].iov_len;
		}
		return (int)rq->len;
	}
	ssize_t n = rq->op == RQ_OP_READ ?
		preadv(s->fd, rq->iov, rq->nr_segs, (off_t)rq->offset) :
		pwritev(s->fd, rq->iov, rq->nr_segs, (off_t)rq->offset);

	if (n < 0)
		return -errno;
	if ((uint64_t)n != rq->len) {
		/* a short read past a sparse file's data: the rest is zeros */
		if (rq->op == RQ_OP_READ) {
			size_t left = (size_t)n;

			for (unsigned int i = 0; i < rq->nr_segs; i++) {
				size_t l = rq->iov[i].iov_len;

				if (left >= l) {
					left -= l;
					continue;
				}
				memset((char *)rq->iov[i].iov_base + left, 0, l - left);
				left = 0;
			}
			return (int)rq->len;
		}
		return -EIO;
	}
	return (int)rq->len;
}
