// SPDX-License-Identifier: MIT
/*
 * test_dev_nvme.c - nvme-pt without hardware (devices/nvme.c): the NVMe
 * Read/Write command a request becomes (opcode, nsid, SLBA in CDW10/11,
 * the 0-based block count in CDW12, the data pointer and length, the
 * vectored form for merged requests), the Identify Namespace parsing
 * (FLBAS and its high bits, LBADS, metadata), the cross-check against
 * nvme-cli's JSON, and the CQE result mapping.
 */
#include "../devices/nvme.c"
#include "tests/helpers.h"

#include <stddef.h>
#include <stdio.h>

static char buf[1 << 20] __attribute__((aligned(4096)));

static void mkrq(struct rq_request *rq, enum rq_op op, uint64_t off, uint32_t len, unsigned int segs)
{
	memset(rq, 0, sizeof(*rq));
	rq->op = (uint8_t)op;
	rq->offset = off;
	rq->len = len;
	rq->nr_segs = (uint16_t)segs;
	for (unsigned int i = 0; i < segs; i++) {
		rq->iov[i].iov_base = buf + (size_t)i * (len / segs);
		rq->iov[i].iov_len = len / segs;
	}
}

static bool rest_zero(const struct nvme_uring_cmd *c)
{
	return !c->flags && !c->rsvd1 && !c->cdw2 && !c->cdw3 && !c->metadata && !c->metadata_len &&
	       !c->cdw13 && !c->cdw14 && !c->cdw15 && !c->timeout_ms && !c->rsvd2;
}

static void test_layout(void)
{
	/* the ABI of include/uapi/linux/nvme_ioctl.h; it must fit the SQE128's 80 command bytes */
	CHECK(sizeof(struct nvme_uring_cmd) == 72, "sizeof %zu", sizeof(struct nvme_uring_cmd));
	CHECK(offsetof(struct nvme_uring_cmd, nsid) == 4, "nsid at %zu", offsetof(struct nvme_uring_cmd, nsid));
	CHECK(offsetof(struct nvme_uring_cmd, addr) == 24, "addr");
	CHECK(offsetof(struct nvme_uring_cmd, data_len) == 36, "data_len");
	CHECK(offsetof(struct nvme_uring_cmd, cdw10) == 40, "cdw10");
	CHECK(offsetof(struct nvme_uring_cmd, cdw12) == 48, "cdw12");
	CHECK(offsetof(struct io_uring_sqe, cmd) == 48, "sqe->cmd at %zu", offsetof(struct io_uring_sqe, cmd));
	CHECK(48 + sizeof(struct nvme_uring_cmd) <= 128, "command past the SQE128");
}

static void test_encode(void)
{
	static const struct {
		const char *what;
		enum rq_op op;
		uint64_t off;
		uint32_t len;
		unsigned int segs, shift;
		int ret;		/* 0, or -EINVAL */
		uint32_t op_want;
		uint32_t cdw10, cdw11, cdw12;
	} cases[] = {
		{ "read 4k at 8k, 512 B blocks", RQ_OP_READ, 8192, 4096, 1, 9, 0, NVME_URING_CMD_IO, 16, 0, 7 },
		{ "write 4k at 0, 4k blocks", RQ_OP_WRITE, 0, 4096, 1, 12, 0, NVME_URING_CMD_IO, 0, 0, 0 },
		{ "read 512 B at LBA 2^36 (SLBA high word)", RQ_OP_READ, 1ULL << 45, 512, 1, 9,
		  0, NVME_URING_CMD_IO, 0, 16, 0 },
		{ "write at LBA 0x1_2345_6789", RQ_OP_WRITE, 0x123456789ULL << 12, 8192, 1, 12,
		  0, NVME_URING_CMD_IO, 0x23456789, 1, 1 },
		{ "65536 blocks: NLB 0xffff", RQ_OP_READ, 0, 65536u * 512, 1, 9, 0, NVME_URING_CMD_IO, 0, 0, 0xffff },
		{ "merged: 3 segments, vectored", RQ_OP_WRITE, 1 << 20, 3 * 4096, 3, 9,
		  0, NVME_URING_CMD_IO_VEC, 2048, 0, 23 },
		{ "misaligned offset", RQ_OP_READ, 100, 4096, 1, 9, -EINVAL, 0, 0, 0, 0 },
		{ "partial block", RQ_OP_READ, 0, 4000, 1, 9, -EINVAL, 0, 0, 0, 0 },
		{ "65537 blocks", RQ_OP_READ, 0, 65537u * 512, 1, 9, -EINVAL, 0, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvme_uring_cmd c;
		struct rq_request rq;
		uint32_t op = 0;
		int ret;

		mkrq(&rq, cases[i].op, cases[i].off, cases[i].len, cases[i].segs);
		memset(&c, 0xa5, sizeof(c));
		ret = nvme_pt_encode(&c, &op, 7, cases[i].shift, &rq);
		CHECK(ret == cases[i].ret, "%s: returned %d, want %d", cases[i].what, ret, cases[i].ret);
		if (ret < 0) {
			printf("  %-42s -> refused (%d)\n", cases[i].what, ret);
			continue;
		}
		printf("  %-42s -> op %s opcode 0x%02x nsid %u cdw10 0x%08x cdw11 0x%08x cdw12 %u "
		       "addr %s data_len %u\n", cases[i].what,
		       op == NVME_URING_CMD_IO ? "IO" : "IO_VEC", c.opcode, c.nsid, c.cdw10, c.cdw11,
		       c.cdw12, c.addr == (uint64_t)(uintptr_t)rq.iov ? "iov[]" : "buf", c.data_len);
		CHECK(op == cases[i].op_want, "%s: cmd_op 0x%x", cases[i].what, op);
		CHECK(c.opcode == (cases[i].op == RQ_OP_WRITE ? 0x01 : 0x02), "%s: opcode 0x%x",
		      cases[i].what, c.opcode);
		CHECK(c.nsid == 7, "%s: nsid %u", cases[i].what, c.nsid);
		CHECK(c.cdw10 == cases[i].cdw10 && c.cdw11 == cases[i].cdw11, "%s: slba 0x%x:%08x",
		      cases[i].what, c.cdw11, c.cdw10);
		CHECK(c.cdw12 == cases[i].cdw12, "%s: cdw12 %u, want %u", cases[i].what, c.cdw12,
		      cases[i].cdw12);
		if (cases[i].segs == 1)
			CHECK(c.addr == (uint64_t)(uintptr_t)buf && c.data_len == cases[i].len,
			      "%s: addr/len", cases[i].what);
		else
			CHECK(c.addr == (uint64_t)(uintptr_t)rq.iov && c.data_len == cases[i].segs,
			      "%s: vectored addr/count", cases[i].what);
		CHECK(rest_zero(&c), "%s: fields that must be zero are not", cases[i].what);
	}
}

static void put_lbaf(uint8_t *id, unsigned int i, unsigned int ms, unsigned int lbads)
{
	id[128 + 4 * i] = (uint8_t)ms;
	id[128 + 4 * i + 1] = (uint8_t)(ms >> 8);
	id[128 + 4 * i + 2] = (uint8_t)lbads;
}

static void test_identify(void)
{
	static uint8_t id[4096];
	struct nvme_id_ns_info info;
	char why[256];

	memset(id, 0, sizeof(id));
	id[0] = 0x00;
	id[2] = 0x20;			/* NSZE 0x200000 blocks */
	id[25] = 1;			/* two formats */
	id[26] = 1;			/* in use: LBAF 1 */
	put_lbaf(id, 0, 0, 9);
	put_lbaf(id, 1, 0, 12);
	CHECK(!nvme_parse_id_ns(id, &info), "parse");
	printf("  identify: nsze %llu, nlbaf %u, flbas 0x%02x -> lbaf %u, ds %u (%u B), ms %u\n",
	       (unsigned long long)info.nsze, info.nlbaf, info.flbas, info.lbaf, info.lbads,
	       1u << info.lbads, info.ms);
	CHECK(info.nsze == 0x200000 && info.lbaf == 1 && info.lbads == 12 && info.ms == 0, "fields");

	/* more than 16 formats: FLBAS bits 6:5 are the index's high bits */
	id[25] = 19;
	id[26] = 0x21;			/* low 1, high 1 -> 17 */
	put_lbaf(id, 17, 8, 9);
	CHECK(!nvme_parse_id_ns(id, &info), "parse 17");
	CHECK(info.lbaf == 17 && info.ms == 8 && info.lbads == 9, "lbaf %u ms %u", info.lbaf, info.ms);
	/* with 16 formats or fewer those bits mean nothing */
	id[25] = 15;
	put_lbaf(id, 1, 0, 12);
	CHECK(!nvme_parse_id_ns(id, &info) && info.lbaf == 1, "high bits ignored: lbaf %u", info.lbaf);
	/* an index past nlbaf, or an impossible block size */
	id[25] = 0;
	CHECK(nvme_parse_id_ns(id, &info), "index past nlbaf accepted");
	id[25] = 1;
	put_lbaf(id, 1, 0, 3);
	CHECK(nvme_parse_id_ns(id, &info), "8-byte blocks accepted");
	put_lbaf(id, 1, 0, 12);
	id[26] = 1;
	CHECK(!nvme_parse_id_ns(id, &info) && info.lbaf == 1 && info.lbads == 12, "restored");

	/* nvme-cli's reading must agree (nvme id-ns -o json, abridged) */
	const char *agree = "{\n  \"nsze\" : 2097152,\n  \"ncap\" : 2097152,\n  \"flbas\" : 1,\n"
			    "  \"lbafs\" : [\n    {\"ms\" : 0, \"ds\" : 9, \"rp\" : 0},\n"
			    "    {\"ms\" : 0, \"ds\" : 12, \"rp\" : 0}\n  ]\n}\n";
	const char *differ = "{\"nsze\":2097152,\"flbas\":1,\"lbafs\":[{\"ms\":0,\"ds\":9},{\"ms\":0,\"ds\":9}]}";
	CHECK(nvme_cli_check(agree, &info, why, sizeof(why)) == 0, "agreeing JSON");
	CHECK(nvme_cli_check(differ, &info, why, sizeof(why)) == -EPROTO, "differing JSON");
	printf("  nvme-cli disagreeing: %s\n", why);
	CHECK(nvme_cli_check("{}", &info, why, sizeof(why)) == 1, "empty JSON is no verdict");
}

static void test_cqe(void)
{
	struct rq_request rq;

	mkrq(&rq, RQ_OP_READ, 0, 8192, 1);
	CHECK(nvme_cqe_res(NULL, &rq, 0) == 8192, "success -> bytes");
	CHECK(nvme_cqe_res(NULL, &rq, 0x4002) == -EIO, "NVMe status -> -EIO");
	CHECK(nvme_cqe_res(NULL, &rq, -EINVAL) == -EINVAL, "kernel error kept");
	printf("  cqe res 0 -> %d, status 0x4002 -> %d, -EINVAL -> %d\n", nvme_cqe_res(NULL, &rq, 0),
	       nvme_cqe_res(NULL, &rq, 0x4002), nvme_cqe_res(NULL, &rq, -EINVAL));
}

int main(void)
{
	test_layout();
	test_encode();
	test_identify();
	test_cqe();
	if (failures) {
		printf("test_dev_nvme: %d failures\n", failures);
		return 1;
	}
	printf("test_dev_nvme: ok\n");
	return 0;
}
