// SPDX-License-Identifier: MIT
/*
 * test_uring_ioprio - a bio's I/O priority reaches the kernel in the
 * io_uring SQE (devices/uring.c), which no tool here can watch from
 * outside (strace does not decode the ring; tests/test_prio.sh watches
 * libaio's iocbs instead).  Through a queue (per-queue mode) over a
 * regular file, no engine:
 *  - a read and a write at best effort 5 and idle 0: the SQE prepared for
 *    each carries the value, and the kernel completes them;
 *  - in a child without CAP_SYS_ADMIN and CAP_SYS_NICE, a read at
 *    realtime 0 comes back EPERM from the kernel's ioprio_check_cap(),
 *    which it only says of a priority it was given, and one at best
 *    effort still reads.
 * Exit 0 pass, 1 fail, 77 skip (no io_uring here).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devices/device.h"
#include "queues/queue.h"
#include "tests/helpers.h"

#define BE(l) ((2u << 13) | (l))
#define IDLE(l) ((3u << 13) | (l))
#define RT(l) ((1u << 13) | (l))

static char path[] = "/tmp/rqlock-ioprio-XXXXXX";
static unsigned int ended;

static void end_io(struct rq_ctx *ctx, struct rq_bio *bio)
{
	(void)ctx;
	(void)bio;
	ended++;
}

struct rig {
	struct rq_ctx *ctx;
	struct rq_dev dev;
	struct rq_queue q;
	const struct rq_queue_mode_ops *mode;
};

/* A context with a ring, the file's device and a per-queue queue over it; 0, 77 or 1. */
static int rig_up(struct rig *r)
{
	struct rq_dev_open o = { .min_size = 1 << 20, .where = "test", .nr_cpus = 1,
				 .ioengine = "io_uring", .spec = path, .write = true };
	struct rq_ctx *ctxs[1];
	struct rq_mode_config cfg = { .nr_cpus = 1, .lock_type = RQ_LOCK_TTAS, .cluster_size = 1,
				      .ctxs = ctxs, .hw_queues = 1 };
	struct rq_dev *devs[1] = { &r->dev };

	memset(r, 0, sizeof(*r));
	r->mode = rq_queue_mode_find("per-queue");
	r->ctx = rq_ctx_create(0, NULL);
	if (!r->mode || !r->ctx)
		return 1;
	ctxs[0] = r->ctx;
	rq_ctx_set_polled(r->ctx, r->mode, NULL, 0);
	rq_ctx_set_current(r->ctx);
	if (rq_dev_open(&r->dev, &o, stderr))
		return 1;
	if (rq_ctx_ring_setup(r->ctx, 0, devs, 1, NULL, 0) < 0)
		return 77;
	if (r->mode->setup && r->mode->setup(&cfg))
		return 1;
	return rq_queue_init(&r->q, r->mode, &r->dev, 16) ? 1 : 0;
}

/*
 * One bio at @ioprio: the SQE the driver prepared for it, and the bio's
 * error once the kernel is done with it (*@err).  False when it did not
 * come back.
 */
static bool one_io(struct rig *r, uint8_t op, uint16_t ioprio, uint16_t *sqe_prio, int *err)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct io_uring *ring = rq_ctx_ring(r->ctx);
	struct rq_bio bio;
	unsigned int spins = 0, want = ended + 1;

	memset(&bio, 0, sizeof(bio));
	bio.op = op;
	bio.offset = 8192;
	bio.len = sizeof(buf);
	bio.buf = buf;
	bio.ioprio = ioprio;
	bio.end_io = end_io;
	if (rq_submit_bio(&r->q, r->ctx, &bio))
		return false;
	/* prepared, not yet submitted: the SQE the kernel will read */
	*sqe_prio = ring->sq.sqes[(ring->sq.sqe_tail - 1) & ring->sq.ring_mask].ioprio;
	while (ended < want && ++spins < 100000) {
		rq_ctx_submit(r->ctx, 1, 10000000);
		rq_ctx_reap(r->ctx, UINT64_MAX, UINT32_MAX);
	}
	*err = bio.error;
	return ended == want;
}

static void rig_down(struct rig *r)
{
	rq_queue_exit(&r->q);
	if (r->mode->teardown)
		r->mode->teardown();
	rq_ctx_ring_teardown(r->ctx);
	rq_dev_close(&r->dev);
	rq_ctx_destroy(r->ctx);
}

/* Drop CAP_SYS_ADMIN and CAP_SYS_NICE from this (single-threaded) process's effective set. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[0].effective &= ~((1u << CAP_SYS_ADMIN) | (1u << CAP_SYS_NICE));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/* The child: realtime refused by the kernel, best effort read; exit 0, 1, or 77 (cannot drop caps) */
static int child(void)
{
	struct rig r;
	uint16_t sp;
	int err = 0, ret;

	if (drop_caps())
		return 77;
	ret = rig_up(&r);
	if (ret)
		return ret;
	CHECK(one_io(&r, RQ_OP_READ, RT(0), &sp, &err) && sp == RT(0), "realtime read: sqe 0x%x", sp);
	CHECK(err == -EPERM, "without CAP_SYS_ADMIN/CAP_SYS_NICE the kernel took a realtime read: %d", err);
	CHECK(one_io(&r, RQ_OP_READ, BE(3), &sp, &err) && sp == BE(3) && !err, "best effort read: %d", err);
	rig_down(&r);
	return failures ? 1 : 0;
}

int main(void)
{
	struct rig r;
	uint16_t sp;
	int fd = mkstemp(path), err = 0, ret, st;
	pid_t pid;

	if (fd < 0 || ftruncate(fd, 1 << 20)) {
		perror("temporary file");
		return 1;
	}
	close(fd);
	ret = rig_up(&r);
	if (ret) {
		unlink(path);
		if (ret == 77)
			printf("SKIP: no io_uring ring here\n");
		return ret;
	}
	CHECK(one_io(&r, RQ_OP_WRITE, BE(5), &sp, &err) && sp == BE(5) && !err,
	      "write at best effort 5: sqe->ioprio 0x%x, error %d", sp, err);
	CHECK(one_io(&r, RQ_OP_READ, IDLE(0), &sp, &err) && sp == IDLE(0) && !err,
	      "read at idle: sqe->ioprio 0x%x, error %d", sp, err);
	CHECK(one_io(&r, RQ_OP_READ, 0, &sp, &err) && sp == 0 && !err, "read with none: 0x%x", sp);
	rig_down(&r);
	printf("the SQE carries each bio's priority, and the kernel completes them\n");

	pid = fork();
	if (pid == 0)
		_exit(child());
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st), "the child did not exit");
	if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 77)
		printf("realtime: skipped, the child could not drop its capabilities\n");
	else
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child failed (exit %d)", WEXITSTATUS(st));
	if (pid > 0 && WIFEXITED(st) && !WEXITSTATUS(st))
		printf("without the capabilities the kernel refuses a realtime SQE (EPERM): it reads the field\n");
	unlink(path);
	if (failures) {
		fprintf(stderr, "test_uring_ioprio: %d failure(s)\n", failures);
		return 1;
	}
	return 0;
}
