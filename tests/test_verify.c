// SPDX-License-Identifier: MIT
/*
 * test_verify - fio's verify= in rqlock: checksums against known vectors,
 * header fill/check round trips and the mismatches they must catch, then
 * whole runs on a file device in both legacy modes: write with
 * verify=crc32c/md5/pattern and read back (do_verify, verify_backlog),
 * and a corrupted byte found by a read-only verify job (exit 1, message
 * naming the offset).  Jobs are built as structs: this test does not
 * depend on the parser.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/verify.h"
#include "queues/queue.h"
#include "tests/helpers.h"

static void md5_hex(const char *in, char out[33])
{
	uint8_t d[16];

	rq_md5(in, strlen(in), d);
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void vectors(void)
{
	static const struct { const char *in, *md5; } md5v[] = {
		{ "", "d41d8cd98f00b204e9800998ecf8427e" },
		{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
		{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
		/* 56 bytes: the length no longer fits the first padding block */
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "8215ef0796a20bcaaae116d3876c664a" },
		{ "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		  "57edf4a22be3c955ac49da2e2107b67a" },
	};
	char hex[33];

	CHECK(rq_crc32c("123456789", 9) == 0xe3069283u, "crc32c check value %08x", rq_crc32c("123456789", 9));
	CHECK(rq_crc32c("", 0) == 0, "crc32c of nothing");
	for (size_t i = 0; i < sizeof(md5v) / sizeof(md5v[0]); i++) {
		md5_hex(md5v[i].in, hex);
		CHECK(!strcmp(hex, md5v[i].md5), "md5(\"%s\") = %s", md5v[i].in, hex);
	}
}

static void roundtrip(enum rq_verify type)
{
	static struct rq_job job;
	char buf[4096], msg[256];

	memset(&job, 0, sizeof(job));
	job.verify = type;
	if (type == RQ_VERIFY_PATTERN) {
		memcpy(job.verify_pattern, "\xde\xad\xbe\xef", 4);
		job.verify_pattern_len = 4;
	}
	rq_verify_fill(&job, buf, 8192, sizeof(buf), 42, 1);
	CHECK(rq_verify_check(&job, buf, 8192, sizeof(buf), msg, sizeof(msg)) == 0, "type %d: %s", type, msg);
	CHECK(rq_verify_check(&job, buf, 12288, sizeof(buf), msg, sizeof(msg)) == (type == RQ_VERIFY_PATTERN ? 0 : -EILSEQ),
	      "type %d: a block read at the wrong offset", type);
	buf[1000] ^= 1;
	CHECK(rq_verify_check(&job, buf, 8192, sizeof(buf), msg, sizeof(msg)) == -EILSEQ, "type %d: flipped bit", type);
	if (type == RQ_VERIFY_CRC32C)
		CHECK(strstr(msg, "crc32c mismatch") != NULL, "message '%s'", msg);
	if (type == RQ_VERIFY_PATTERN)
		CHECK(strstr(msg, "offset 9192") != NULL, "message '%s'", msg);
}

static int run(const char *path, const char *mode, struct rq_job *jobs, unsigned int n,
	       uint64_t *verified)
{
	struct rq_job_list list = { jobs, n };
	struct rq_engine_opts o = { .lock_mode = mode, .lock_type = "ttas", .workers = 2 };
	struct rq_engine *e;
	int ret;

	(void)path;
	ret = rq_engine_setup(&e, &o, &list, stderr);
	if (ret)
		return ret;
	ret = rq_engine_run(e, stderr);
	*verified = rq_engine_report(e)->sectors_verified;
	rq_engine_free(e);
	return ret;
}

static void job_init(struct rq_job *j, const char *name, const char *path, enum rq_rw rw,
		     enum rq_verify v)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "%s", name);
	snprintf(j->file, sizeof(j->file), "test_verify");
	snprintf(j->filename, sizeof(j->filename), "%s", path);
	j->rw = rw;
	j->rwmixread = 50;
	j->bs[0] = j->bs[1] = 4096;
	j->iodepth = 8;
	j->numjobs = 1;
	j->size = 1 << 20;
	j->direct = true;
	j->randrepeat = true;
	j->randseed = 0x89;
	j->verify = v;
	j->do_verify = true;
	j->iodepth_batch_submit = 1;
	if (v == RQ_VERIFY_PATTERN) {
		memcpy(j->verify_pattern, "\x5a\xa5\x0f", 3);
		j->verify_pattern_len = 3;
	}
}

static void runs(const char *dir)
{
	static const enum rq_verify types[] = { RQ_VERIFY_CRC32C, RQ_VERIFY_MD5, RQ_VERIFY_PATTERN };
	static struct rq_job jobs[2];
	char path[512];
	uint64_t v;
	int ret, fd;

	snprintf(path, sizeof(path), "%s/verify.dat", dir);
	/* every mode of the registry (queues/modes.def), no list of our own */
	for (unsigned int m = 0; rq_queue_mode_at(m); m++) {
		const char *mode = rq_queue_mode_at(m)->name;

		for (int t = 0; t < 3; t++) {
			unlink(path);
			job_init(&jobs[0], "w", path, RQ_RW_RANDWRITE, types[t]);
			jobs[0].verify_backlog = t == 1 ? 16 : 0;
			ret = run(path, mode, jobs, 1, &v);
			CHECK(ret == 0, "%s type %d: write+verify returned %d", mode, types[t], ret);
			CHECK(v == (1 << 20) / 512, "%s type %d: verified %" PRIu64 " sectors", mode, types[t], v);
		}
		/* crc32c data, then one byte changed behind rqlock's back */
		unlink(path);
		job_init(&jobs[0], "w", path, RQ_RW_WRITE, RQ_VERIFY_CRC32C);
		jobs[0].do_verify = false;
		ret = run(path, mode, jobs, 1, &v);
		CHECK(ret == 0 && v == 0, "%s: plain write %d, %" PRIu64 " verified", mode, ret, v);
		job_init(&jobs[0], "r", path, RQ_RW_RANDREAD, RQ_VERIFY_CRC32C);
		ret = run(path, mode, jobs, 1, &v);
		CHECK(ret == 0 && v == (1 << 20) / 512, "%s: clean read-verify %d, %" PRIu64, mode, ret, v);
		fd = open(path, O_WRONLY);
		CHECK(fd >= 0 && pwrite(fd, "X", 1, 5 * 4096 + 700) == 1, "corrupting %s", path);
		close(fd);
		fprintf(stderr, "(a verify error naming offset 20480 is expected next)\n");
		ret = run(path, mode, jobs, 1, &v);
		CHECK(ret == 1, "%s: a corrupted block must fail the job, got %d", mode, ret);
	}
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/rqlock-verify.XXXXXX";

	vectors();
	roundtrip(RQ_VERIFY_CRC32C);
	roundtrip(RQ_VERIFY_MD5);
	roundtrip(RQ_VERIFY_PATTERN);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	runs(dir);
	rmdir(dir);
	if (failures) {
		fprintf(stderr, "test_verify: %d failures\n", failures);
		return 1;
	}
	printf("test_verify: ok\n");
	return 0;
}
