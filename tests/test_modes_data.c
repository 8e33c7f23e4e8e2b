// SPDX-License-Identifier: MIT
/*
 * test_modes_data - data integrity on a file device in all four lock
 * modes under all four lock primitives.  A write pass stamps every 512 B
 * sector with its offset (sequential 8k writes, QD 8, two workers, so
 * requests merge in the legacy and cluster elevators); the file is then
 * checked from outside; a random-read pass of 4k through rqlock checks
 * every stamp again and must report all 8192 sectors verified.  With the
 * cluster mode, the second worker's bios are forwarded to the owner
 * partition; with mq, one hardware queue is shared by both workers.
 * Then, in each mode, one pass of plain 4k random writes must stamp every
 * sector.  Then a cluster regression: a device owned by a worker with no clone.
 * Exit 0 pass, 1 fail, 77 skip (no io_uring or no O_DIRECT where the file
 * lives: set TMPDIR).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "queues/queue.h"
#include "tests/helpers.h"

#define SIZE (4u << 20)
#define STAMP_MAGIC 0x72716c6f636b5354ULL	/* "rqlockST", as the engine stamps */

/* Run one job; returns the engine's verdict (0 ok), -1 on a set-up failure. */
static int run(const char *mode, const char *type, const char *job, uint64_t *verified)
{
	struct rq_engine_opts o = {
		.lock_mode = mode, .lock_type = type, .workers = 2, .lockstat = true, .hw_queues = 1,
		.stall_timeout_ns = 30ULL * 1000000000ULL,
	};
	struct rq_job_list jobs = { 0 };
	struct rq_engine *e;
	int ret;

	if (rq_jobs_parse_buf(mode, job, &jobs, stderr))
		return -1;
	ret = rq_engine_setup(&e, &o, &jobs, stderr);
	if (ret) {
		rq_jobs_free(&jobs);
		return -1;
	}
	ret = rq_engine_run(e, stderr);
	*verified = rq_engine_report(e)->sectors_verified;
	rq_engine_free(e);
	rq_jobs_free(&jobs);
	return ret;
}

static int check_file(const char *path)
{
	static uint64_t buf[SIZE / 8];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, SIZE, f);
	fclose(f);
	if (n != SIZE)
		return -1;
	for (uint64_t off = 0; off < SIZE; off += 512)
		if (buf[off / 8] != STAMP_MAGIC || buf[off / 8 + 1] != off)
			return (int)(off / 512) + 1;
	return 0;
}

/*
 * Regression: cluster mode with a device whose owner partition has no
 * clone of its own (one clone on worker 0 writing two files; the second
 * file's partition is worker 1).  That worker dispatches forwarded bios to
 * its own io_uring ring, so it needs one even without clones: it crashed
 * when the engine made rings only for workers with clones.  Run in a child
 * so that a crash is reported as this case failing, not as the test dying.
 */
static void cluster_clone_less_owner(const char *path)
{
	char path2[600], job[2800];
	int status = 0;
	pid_t pid;

	snprintf(path2, sizeof(path2), "%s.2", path);
	snprintf(job, sizeof(job), "[w]\nfilename=%s:%s\nrw=randwrite\nbs=4k\nsize=2m\niodepth=8\ndirect=1\n"
		 "[r]\nstonewall\nfilename=%s:%s\nrw=randread\nbs=4k\nsize=2m\niodepth=8\ndirect=1\n",
		 path, path2, path, path2);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		uint64_t v = 0;
		int ret = run("cluster", "ttas", job, &v);

		_exit(ret == 0 && v == (2u << 20) / 512 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "cluster: a device owned by a worker without clones: %s %d (that worker needs an io_uring "
	      "ring: the engine must give one to every worker when the mode has a poll hook)",
	      WIFSIGNALED(status) ? "killed by signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) :
	      WEXITSTATUS(status));
	unlink(path2);
}

int main(void)
{
	/* every mode of the registry (queues/modes.def), none named here */
	const char *modes[16];
	unsigned int nr_modes = 0;
	static const char *const types[] = { "ttas", "ticket", "mcs", "mutex" };
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	char path[512], wjob[1024], rjob[1024], pjob[1024];
	int fd, passes = 0;

	snprintf(path, sizeof(path), "%s/rqlock-modes-data.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		printf("SKIP: cannot create a file in %s: %s\n", dir, strerror(errno));
		return 77;
	}
	close(fd);
	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		printf("SKIP: %s does not take O_DIRECT: %s\n", dir, strerror(errno));
		unlink(path);
		return 77;
	}
	close(fd);
	snprintf(wjob, sizeof(wjob), "[w]\nfilename=%s\nrw=write\nbs=8k\niodepth=8\ndirect=1\nnumjobs=2\n"
		 "offset_increment=2m\nsize=2m\n", path);
	snprintf(rjob, sizeof(rjob), "[r]\nfilename=%s\nrw=randread\nbs=4k\nsize=4m\niodepth=8\ndirect=1\n", path);
	snprintf(pjob, sizeof(pjob), "[p]\nfilename=%s\nrw=randwrite\nbs=4k\nsize=4m\niodepth=8\ndirect=1\n", path);
	while (nr_modes < 16 && rq_queue_mode_at(nr_modes)) {
		modes[nr_modes] = rq_queue_mode_at(nr_modes)->name;
		nr_modes++;
	}
	for (unsigned int m = 0; m < nr_modes; m++) {
		for (unsigned int t = 0; t < 4; t++) {
			uint64_t v = 0;
			int ret, bad;

			if (truncate(path, 0)) {
				CHECK(0, "truncate %s", path);
				continue;
			}
			ret = run(modes[m], types[t], wjob, &v);
			if (ret < 0 && !passes) {
				printf("SKIP: the file device cannot run here (io_uring?)\n");
				unlink(path);
				return 77;
			}
			CHECK(ret == 0, "%s/%s: write pass returned %d", modes[m], types[t], ret);
			bad = check_file(path);
			CHECK(bad == 0, "%s/%s: stamps on disk wrong at sector %d", modes[m], types[t], bad - 1);
			ret = run(modes[m], types[t], rjob, &v);
			CHECK(ret == 0, "%s/%s: read pass returned %d", modes[m], types[t], ret);
			CHECK(v == SIZE / 512, "%s/%s: %" PRIu64 " sectors verified, expected %u", modes[m],
			      types[t], v, SIZE / 512);
			passes++;
		}
		/*
		 * One file, uniform 4k random writes, nothing shaped: the fill
		 * loop's plain copy (engine/clone.c fill()).  One pass must
		 * stamp every block: a block skipped or written twice leaves a
		 * sector unstamped.
		 */
		if (truncate(path, 0) == 0) {
			uint64_t v = 0;
			int bad;

			CHECK(run(modes[m], "ttas", pjob, &v) == 0, "%s: plain random write pass failed", modes[m]);
			bad = check_file(path);
			CHECK(bad == 0, "%s: plain random writes: stamps on disk wrong at sector %d", modes[m],
			      bad - 1);
		}
	}
	if (truncate(path, 0) == 0)
		cluster_clone_less_owner(path);
	unlink(path);
	if (failures) {
		fprintf(stderr, "test_modes_data: %d failures\n", failures);
		return 1;
	}
	printf("test_modes_data: ok (4 modes x 4 lock types, %u sectors each)\n", SIZE / 512);
	return 0;
}
