// SPDX-License-Identifier: MIT
/*
 * fill.c - fill_device (fill_fs) as fio 3.33 runs it: a job without size
 * writes until its filesystem is full, and the write that finds it full
 * ends the job without an error (devices/blk.c gives such a file a region
 * past the free space); another job on that file reads it as it is when
 * the job starts, as fio sets a job's files up then.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "engine/runner.h"
#include "lib/compiler.h"

/*
 * fill_device: a write the full filesystem refused (ENOSPC, EDQUOT; a
 * short one, which the queue reports as EIO) ends the job, not as its
 * error: fio clears it (backend.c io_queue_event()).  fio counts the I/O
 * as issued, a short one twice (it requeued the rest), and not its bytes:
 * 16 MiB of tmpfs by 64 KiB writes is 16711680 bytes in 257 I/Os there.
 */
bool eng_fill_full(struct clone *c, const struct clone_file *f, const struct rq_bio *bio)
{
	const int e = -bio->error;
	struct statvfs vfs;

	if (!c->job->fill_device || bio->op != RQ_OP_WRITE)
		return false;
	if (e == EIO) {
		/* short: the filesystem had less room than the write */
		if (!f->q->dev || !f->q->dev->path[0] || statvfs(f->q->dev->path, &vfs) ||
		    (uint64_t)vfs.f_bavail * vfs.f_frsize >= bio->len)
			return false;
	} else if (e != ENOSPC && e != EDQUOT) {
		return false;
	}
	c->rep.dir[RQ_OP_WRITE].total_ios += e == EIO ? 2 : 1;
	c->issue_done = true;
	return true;
}

/*
 * A job on a file a fill_device writer grew (devices/blk.c fill_room())
 * that is not that writer, and gives no size, as it starts: each such
 * file's region and size end at the file's size now (fio sets a job's
 * files up as it starts, after the writer filled the file), and the bytes
 * it moves are those regions'.  Debian's surface-scan reads back what its
 * write phase left: a region past the file's end read beyond it.
 */
void eng_fill_start(struct clone *c)
{
	const struct rq_job *job = c->job;
	bool any = false;
	struct stat st;

	if (job->size || job->size_pct || (job->fill_device && rq_rw_writes(job->rw)))
		return;
	for (unsigned int i = 0; i < c->nr_files; i++) {
		struct clone_file *f = &c->files[i];
		const struct dev_entry *d = container_of(f->q, struct dev_entry, q);

		if (!d->o.fill || !d->dev.path[0] || stat(d->dev.path, &st) || !S_ISREG(st.st_mode) ||
		    (uint64_t)st.st_size >= f->end)
			continue;
		f->end = (uint64_t)st.st_size > f->start ? (uint64_t)st.st_size : f->start;
		f->file_size = (uint64_t)st.st_size;	/* fio's real_file_size */
		any = true;
	}
	if (!any)
		return;
	c->io_limit = 0;
	for (unsigned int i = 0; i < c->nr_files; i++)
		c->io_limit += c->files[i].end - c->files[i].start;
	c->pass_limit = c->io_limit;
}
