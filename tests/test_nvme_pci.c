// SPDX-License-Identifier: MIT
/*
 * test_nvme_pci.c - nvme-pci without hardware (devices/nvme_pci.c and
 * what it includes): a queue pair in plain memory stands for the
 * controller's.  Checked: the commands a request becomes (opcode, cid,
 * nsid, SLBA, the 0-based block count, PRP1/PRP2 and the PRP list) for
 * one page, several pages, an offset start, a split past cmd_max, merged
 * segments that meet or do not meet at page boundaries, bounce buffers;
 * the doorbell's value; the reap of fabricated completions (identifiers
 * back to the ring, a split request ended by its last command, an error
 * status taken as the request's); trims (DSM ranges, Write Zeroes);
 * the NVMe status names and errnos, Identify parsing, the nvme-cli
 * cross-check and PCI addresses.  The VM tests (test_vm_nvme_pci) run the
 * real controller; this one runs under ASan and TSan too.
 */
#include "../devices/nvme_pci.c"
#include "tests/helpers.h"

#include <stdio.h>

#define QSIZE 8u
#define PAGES 64u

static uint8_t data[PAGES * NPCI_PAGE] __attribute__((aligned(4096)));
static uint8_t own[PAGES * NPCI_PAGE] __attribute__((aligned(4096)));
static struct nvme_sqe sq[QSIZE];
static struct nvme_cqe cq[QSIZE];
static uint64_t prp_pages[QSIZE][512];
static uint64_t own_bus[PAGES];
static volatile uint32_t sq_db, cq_db;
static struct npci_map data_map = { (uintptr_t)data, sizeof(data), 0x100000000ull };
static const struct npci_map *maps[1] = { &data_map };

/* A device of one pair over data[] (mapped at 4 GiB), or with bounce buffers in own[]. */
static void setup(struct npci_dev *nd, struct npci_qp *qp, bool bounce, uint32_t cmd_max)
{
	static uint16_t ring[QSIZE];
	static struct npci_cmd cmds[QSIZE];
	static _Atomic uint8_t reaper[1];

	memset(nd, 0, sizeof(*nd));
	memset(qp, 0, sizeof(*qp));
	memset(sq, 0, sizeof(sq));
	memset(cq, 0, sizeof(cq));
	memset(cmds, 0, sizeof(cmds));
	nd->qp = qp;
	nd->nr_qp = 1;
	nd->qsize = QSIZE;
	nd->nr_cids = QSIZE - 1;
	nd->nr_cpus = 1;
	nd->lba_shift = 9;
	nd->cmd_max = cmd_max;
	nd->bounce = bounce;
	nd->ctrl.id.nsid = 3;
	snprintf(nd->fn.bdf, sizeof(nd->fn.bdf), "0000:00:09.0");
	nd->io.va = own;
	nd->io.len = sizeof(own);
	nd->io.bus = own_bus;
	for (unsigned int i = 0; i < PAGES; i++)
		own_bus[i] = 0x800000000ull + (uint64_t)(i ^ 1) * NPCI_PAGE;	/* not contiguous */
	qp->sq = sq;
	qp->cq = cq;
	qp->sq_db = &sq_db;
	qp->cq_db = &cq_db;
	qp->phase = 1;
	qp->qid = 1;
	qp->dispatcher = -1;
	qp->ring = ring;
	qp->mask = QSIZE - 1;
	qp->cmds = cmds;
	qp->reaper = reaper;
	qp->maps = maps;
	qp->nr_maps = qp->cap_maps = 1;
	for (unsigned int t = 0; t < NPCI_TLB; t++)
		qp->tlb[t].page = UINTPTR_MAX;
	for (unsigned int k = 0; k < nd->nr_cids; k++) {
		ring[k] = (uint16_t)k;
		cmds[k].prp = prp_pages[k];
		cmds[k].prp_bus = 0x200000000ull + k * NPCI_PAGE;
		cmds[k].bounce = own + (size_t)k * (PAGES / QSIZE) * NPCI_PAGE;
	}
	atomic_init(&qp->prod, nd->nr_cids);
	atomic_init(&qp->cons_pub, 0);
	atomic_init(&qp->peek, 1u << 31);
	atomic_init(&reaper[0], 0);
	sq_db = cq_db = 0;
}

static uint64_t dbus(size_t off)
{
	return data_map.iova + off;
}

/* A request of @n segments, each @len bytes at data + @offs[i]. */
static void mkrq(struct rq_request *rq, enum rq_op op, uint64_t dev_off, const size_t *offs, const uint32_t *lens,
		 unsigned int n)
{
	static struct rq_bio bios[RQ_MAX_SEGS];

	memset(rq, 0, sizeof(*rq));
	rq->op = (uint8_t)op;
	rq->offset = dev_off;
	rq->nr_segs = (uint16_t)n;
	for (unsigned int i = 0; i < n; i++) {
		memset(&bios[i], 0, sizeof(bios[i]));
		bios[i].buf = data + offs[i];
		bios[i].len = lens[i];
		bios[i].next = i + 1 < n ? &bios[i + 1] : NULL;
		rq->len += lens[i];
	}
	rq->bio = &bios[0];
	rq->biotail = &bios[n - 1];
	rq_request_map(rq);
}

/* The controller answers command @cid with @status (0 = success) at the queue's next slot. */
static void complete(struct npci_qp *qp, unsigned int slot, uint16_t cid, uint16_t status, unsigned int phase)
{
	cq[slot].cid = cid;
	cq[slot].status = (uint16_t)(status << 1 | phase);
	(void)qp;
}

static void test_one_page(struct rq_ctx *ctx)
{
	struct npci_dev nd;
	struct npci_qp qp;
	struct rq_request rq;
	struct rq_dev dev = { .priv = &nd };
	size_t off = 8192;
	uint32_t len = 4096;

	setup(&nd, &qp, false, 64 << 10);
	mkrq(&rq, RQ_OP_READ, 1 << 20, &off, &len, 1);
	CHECK(npci_queue_rq(&dev, ctx, &rq) == RQ_Q_QUEUED, "a 4k read is queued");
	CHECK(sq[0].opcode == NVME_IO_READ && sq[0].cid == 0 && sq[0].nsid == 3, "opcode %u cid %u nsid %u",
	      sq[0].opcode, sq[0].cid, sq[0].nsid);
	CHECK(sq[0].cdw10 == (1 << 20) / 512 && sq[0].cdw11 == 0 && sq[0].cdw12 == 7, "slba %u nlb %u",
	      sq[0].cdw10, sq[0].cdw12);
	CHECK(sq[0].prp1 == dbus(8192) && sq[0].prp2 == 0, "prp1 %#llx prp2 %#llx",
	      (unsigned long long)sq[0].prp1, (unsigned long long)sq[0].prp2);
	CHECK(sq_db == 1 && qp.dispatcher == -1 && atomic_load(&qp.reaper[0]), "doorbell %u", sq_db);
	CHECK(npci_pending(&dev, ctx), "a command out is pending");
	complete(&qp, 0, 0, 0, 1);
	{
		struct rq_request *done = reap_cq(&nd, &qp);

		CHECK(done == &rq && !done->next && rq.res == 4096, "reaped %p res %d", (void *)done, rq.res);
	}
	CHECK(cq_db == 1 && cids_free(&qp) == QSIZE - 1 && !npci_pending(&dev, ctx), "cq doorbell %u, free %u",
	      cq_db, cids_free(&qp));
}

static void test_pages_and_split(struct rq_ctx *ctx)
{
	struct npci_dev nd;
	struct npci_qp qp;
	struct rq_request rq;
	struct rq_dev dev = { .priv = &nd };
	size_t off = 512;		/* an offset start: PRP1 keeps it */
	uint32_t len = 3 * 4096;

	setup(&nd, &qp, false, 64 << 10);
	mkrq(&rq, RQ_OP_WRITE, 0, &off, &len, 1);
	CHECK(npci_queue_rq(&dev, ctx, &rq) == RQ_Q_QUEUED, "12k write");
	CHECK(sq[0].opcode == NVME_IO_WRITE && sq[0].prp1 == dbus(512) && sq[0].prp2 == qp.cmds[0].prp_bus,
	      "4 pages: PRP1 with the offset, PRP2 the list");
	CHECK(prp_pages[0][0] == dbus(4096) && prp_pages[0][1] == dbus(8192) && prp_pages[0][2] == dbus(12288),
	      "list %#llx %#llx %#llx", (unsigned long long)prp_pages[0][0], (unsigned long long)prp_pages[0][1],
	      (unsigned long long)prp_pages[0][2]);

	/* 128k past a 64 KiB cmd_max: two commands, the request ends with the second */
	setup(&nd, &qp, false, 64 << 10);
	off = 0;
	len = 128 << 10;
	mkrq(&rq, RQ_OP_READ, 4096, &off, &len, 1);
	CHECK(npci_queue_rq(&dev, ctx, &rq) == RQ_Q_QUEUED, "128k read");
	CHECK(sq_db == 2 && sq[0].cdw12 == 127 && sq[1].cdw12 == 127 && sq[1].cdw10 == 8 + 128 &&
	      sq[1].prp1 == dbus(64 << 10), "split: doorbell %u, nlb %u/%u, slba %u", sq_db, sq[0].cdw12,
	      sq[1].cdw12, sq[1].cdw10);
	complete(&qp, 0, sq[0].cid, 0, 1);
	CHECK(!reap_cq(&nd, &qp), "not ended by its first command");
	complete(&qp, 1, sq[1].cid, 0x80, 1);	/* LBA Out of Range */
	CHECK(reap_cq(&nd, &qp) == &rq && rq.res == -EREMOTEIO, "ended by the second, with its error: %d", rq.res);
}

static void test_segments(struct rq_ctx *ctx)
{
	struct npci_dev nd;
	struct npci_qp qp;
	struct rq_request rq;
	struct rq_dev dev = { .priv = &nd };
	const size_t joined[] = { 0, 4096, 8192 };
	const uint32_t pages[] = { 4096, 4096, 4096 };
	const size_t apart[] = { 0, 8192, 16384 };
	const uint32_t six[] = { 6144, 6144, 6144 };

	/* page-sized segments anywhere: one command, a page each */
	setup(&nd, &qp, false, 64 << 10);
	mkrq(&rq, RQ_OP_WRITE, 0, apart, pages, 3);
	CHECK(npci_queue_rq(&dev, ctx, &rq) == RQ_Q_QUEUED && sq_db == 1, "3 whole pages: one command");
	CHECK(sq[0].prp1 == dbus(0) && sq[0].prp2 == qp.cmds[0].prp_bus && prp_pages[0][0] == dbus(8192) &&
	      prp_pages[0][1] == dbus(16384), "their pages in the list");
	CHECK(cmd_count(&nd, &rq) == 1, "counted one");
	/* 6k segments end inside a page: a command each */
	setup(&nd, &qp, false, 64 << 10);
	mkrq(&rq, RQ_OP_WRITE, 0, apart, six, 3);
	CHECK(cmd_count(&nd, &rq) == 3 && npci_queue_rq(&dev, ctx, &rq) == RQ_Q_QUEUED && sq_db == 3,
	      "6k segments: 3 commands, doorbell %u", sq_db);
	CHECK(sq[1].cdw10 == 12 && sq[2].cdw10 == 24 && sq[1].prp1 == dbus(8192) && sq[1].prp2 == dbus(12288),
	      "second command: slba %u prp %#llx %#llx", sq[1].cdw10, (unsigned long long)sq[1].prp1,
	      (unsigned long long)sq[1].prp2);
	/* the same through bounce buffers: joined in one */
	setup(&nd, &qp, true, 64 << 10);
	mkrq(&rq, RQ_OP_WRITE, 0, joined, six, 3);
	memset(data, 0xab, 18432);
	CHECK(cmd_count(&nd, &rq) == 1 && npci_queue_rq(&dev, ctx, &rq) == RQ_Q_QUEUED && sq_db == 1,
	      "bounce: one command");
	CHECK(qp.cmds[0].bounce[18431] == 0xab && sq[0].prp1 == own_bus[0] && prp_pages[0][0] == own_bus[1] &&
	      prp_pages[0][3] == own_bus[4], "copied in, its 5 pages listed");
	/* more segments than a pair has identifiers: refused, never stuck */
	setup(&nd, &qp, false, 64 << 10);
	{
		size_t o[QSIZE];
		uint32_t l[QSIZE];

		for (unsigned int i = 0; i < QSIZE; i++) {
			o[i] = (size_t)i * 8192;
			l[i] = 512;
		}
		mkrq(&rq, RQ_OP_READ, 0, o, l, QSIZE);
		CHECK(npci_queue_rq(&dev, ctx, &rq) == RQ_Q_DONE && rq.res == -EINVAL && sq_db == 0,
		      "8 commands on 7 identifiers: EINVAL");
	}
}

static void test_busy_and_trims(struct rq_ctx *ctx)
{
	struct npci_dev nd;
	struct npci_qp qp;
	struct rq_request rq[QSIZE];
	struct rq_dev dev = { .priv = &nd };
	size_t off = 0;
	uint32_t len = 4096;

	setup(&nd, &qp, false, 64 << 10);
	for (unsigned int i = 0; i < QSIZE - 1; i++) {
		mkrq(&rq[i], RQ_OP_READ, 0, &off, &len, 1);
		CHECK(npci_queue_rq(&dev, ctx, &rq[i]) == RQ_Q_QUEUED, "read %u", i);
	}
	mkrq(&rq[QSIZE - 1], RQ_OP_READ, 0, &off, &len, 1);
	CHECK(npci_queue_rq(&dev, ctx, &rq[QSIZE - 1]) == RQ_Q_BUSY, "the 8th with 7 identifiers out: BUSY");

	setup(&nd, &qp, false, 64 << 10);
	nd.trim_dsm = true;
	nd.dsm_ranges = 256;
	nd.dsm_range_blocks = 1000;
	mkrq(&rq[0], RQ_OP_DISCARD, 512 * 10, &off, &len, 1);
	rq[0].len = 2500 * 512;
	CHECK(npci_queue_rq(&dev, ctx, &rq[0]) == RQ_Q_QUEUED && sq[0].opcode == NVME_IO_DSM && sq[0].cdw10 == 2 &&
	      sq[0].cdw11 == 4 && sq[0].prp1 == qp.cmds[0].prp_bus, "DSM: 3 ranges (nr %u), deallocate", sq[0].cdw10);
	CHECK(prp_pages[0][0] == 1000ull << 32 && prp_pages[0][1] == 10 && prp_pages[0][5] == 2010 &&
	      prp_pages[0][4] == 500ull << 32, "ranges: length << 32, then the LBA");
	setup(&nd, &qp, false, 64 << 10);
	nd.trim_wz = true;
	nd.wz_blocks = 65536;
	nd.wz_deac = true;
	mkrq(&rq[0], RQ_OP_DISCARD, 0, &off, &len, 1);
	rq[0].len = 70000 * 512;
	CHECK(npci_queue_rq(&dev, ctx, &rq[0]) == RQ_Q_QUEUED && sq_db == 2 && sq[0].opcode == NVME_IO_WRITE_ZEROES &&
	      sq[0].cdw12 == (65535u | 1u << 25) && sq[1].cdw10 == 65536 && (sq[1].cdw12 & 0xffff) == 4463,
	      "Write Zeroes: 65536 + 4464 blocks, DEAC");
	/* a flush without a volatile cache completes at once */
	setup(&nd, &qp, false, 64 << 10);
	mkrq(&rq[0], RQ_OP_FLUSH, 0, &off, &len, 1);
	rq[0].len = 0;
	CHECK(npci_queue_rq(&dev, ctx, &rq[0]) == RQ_Q_DONE && rq[0].res == 0 && sq_db == 0, "flush, no VWC");
	nd.vwc = true;
	CHECK(npci_queue_rq(&dev, ctx, &rq[0]) == RQ_Q_QUEUED && sq[0].opcode == NVME_IO_FLUSH && sq[0].nsid == 3,
	      "flush with VWC: an NVMe Flush");
}

static void test_status_and_identify(void)
{
	static const struct {
		uint16_t status;
		int err;
		const char *name;
	} st[] = {
		{ 0x000, 0, "Successful" }, { 0x080, -EREMOTEIO, "LBA Out of Range" },
		{ 0x4002, -EOPNOTSUPP, "Invalid Field in Command (sct 0 sc 0x02, dnr)" },
		{ 0x281, -ENODATA, "Unrecovered Read Error" }, { 0x3ff, -EIO, "status sct 3 sc 0xff" },
	};
	uint8_t page[4096];
	struct npci_id id;
	char name[96];

	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		int e = npci_status_errno(st[i].status, name, sizeof(name));

		CHECK(e == st[i].err && strstr(name, st[i].name), "status %#x: %d %s", st[i].status, e, name);
	}
	memset(page, 0, sizeof(page));
	memset(page + 4, ' ', 20);
	memcpy(page + 4, "rqvm-pci", 8);
	memset(page + 24, ' ', 40);
	memcpy(page + 24, "QEMU NVMe Ctrl", 14);
	page[77] = 4;
	page[516] = 2;
	page[520] = 0x5d;
	page[525] = 7;
	memset(&id, 0, sizeof(id));
	npci_parse_id_ctrl(page, &id);
	CHECK(!strcmp(id.sn, "rqvm-pci") && !strcmp(id.mn, "QEMU NVMe Ctrl") && id.mdts == 4 && id.nn == 2 &&
	      id.oncs == 0x5d && id.vwc == 7, "id-ctrl: '%s' '%s' mdts %u nn %u", id.sn, id.mn, id.mdts, id.nn);
	memset(page, 0, sizeof(page));
	page[0] = 0x00;
	page[2] = 0x02;			/* nsze 0x20000 */
	page[25] = 7;
	page[26] = 4;			/* format 4 */
	page[33] = 1;
	page[128 + 4 * 4 + 2] = 12;
	CHECK(!npci_parse_id_ns(page, &id) && id.nsze == 0x20000 && id.lbaf == 4 && id.lbads == 12 && !id.ms &&
	      id.dlfeat == 1, "id-ns: nsze %llu lbaf %u lbads %u", (unsigned long long)id.nsze, id.lbaf, id.lbads);
	page[26] = 9;			/* past nlbaf */
	CHECK(npci_parse_id_ns(page, &id) == -EINVAL, "a format past NLBAF is refused");
}

static void test_cli_json(void)
{
	struct npci_dev nd;
	char path[64], why[256];
	FILE *f;

	memset(&nd, 0, sizeof(nd));
	snprintf(nd.ctrl.id.sn, sizeof(nd.ctrl.id.sn), "rqvm-pci");
	snprintf(nd.ctrl.id.mn, sizeof(nd.ctrl.id.mn), "QEMU NVMe Ctrl");
	snprintf(nd.ctrl.id.fr, sizeof(nd.ctrl.id.fr), "7.2.22");
	nd.ctrl.id.vid = 0x1b36;
	nd.ctrl.id.mdts = 4;
	nd.ctrl.id.nn = 256;
	nd.ctrl.id.oncs = 0x15d;
	nd.ctrl.id.vwc = 7;
	snprintf(path, sizeof(path), "/tmp/rqlock-idctrl-%d.json", (int)getpid());
	snprintf(nd.o.id_ctrl, sizeof(nd.o.id_ctrl), "%s", path);
	f = fopen(path, "w");
	fprintf(f, "{\"vid\":6966,\"sn\":\"rqvm-pci            \",\"mn\":\"QEMU NVMe Ctrl  \",\"fr\":\"7.2.22  \","
		"\"mdts\":4,\"nn\":256,\"oncs\":349,\"vwc\":7}\n");
	fclose(f);
	CHECK(!id_check(&nd, why, sizeof(why)), "nvme-cli's padded strings agree: %s", why);
	nd.ctrl.id.mdts = 5;
	CHECK(id_check(&nd, why, sizeof(why)) == -EPROTO && strstr(why, "mdts"), "mdts differs: %s", why);
	unlink(path);
	CHECK(id_check(&nd, why, sizeof(why)) == -ENOENT, "a missing file: %s", why);
}

static void test_bdf(void)
{
	static const struct { const char *in, *out; } ok[] = {
		{ "0000:00:04.0", "0000:00:04.0" }, { "00:1f.7", "0000:00:1f.7" }, { "0001:3A:00.1", "0001:3a:00.1" },
	};
	static const char *const bad[] = { "", "zz", "0000:00:20.0", "0000:00:04.8", "0000:00:04", "00:04.0x",
					   "0000:00:04.0 " };
	char out[16];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		CHECK(!rq_pci_bdf_parse(ok[i].in, out, sizeof(out)) && !strcmp(out, ok[i].out), "%s -> %s",
		      ok[i].in, out);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(rq_pci_bdf_parse(bad[i], out, sizeof(out)) == -EINVAL, "'%s' refused", bad[i]);
}

int main(void)
{
	struct rq_ctx *ctx = rq_ctx_create(0, NULL);

	CHECK(ctx != NULL, "a context");
	rq_ctx_set_current(ctx);
	test_one_page(ctx);
	test_pages_and_split(ctx);
	test_segments(ctx);
	test_busy_and_trims(ctx);
	test_status_and_identify();
	test_cli_json();
	test_bdf();
	rq_ctx_set_current(NULL);
	rq_ctx_destroy(ctx);
	if (failures) {
		printf("test_nvme_pci: %d failures\n", failures);
		return 1;
	}
	printf("test_nvme_pci: ok\n");
	return 0;
}
