// SPDX-License-Identifier: MIT
/*
 * nvme_pci_ctrl.c - the controller of the userspace NVMe driver: its
 * registers, the reset and enable handshake, the admin queue (polled,
 * one command at a time: it serves open and close only), Identify, the
 * I/O queue pairs' creation, the shutdown and the NVMe status codes.
 *
 * Bring-up, as the base specification's "Controller Initialization":
 * CC.EN = 0 and wait for CSTS.RDY = 0; AQA, ASQ, ACQ; CC with the entry
 * sizes (64-byte SQEs, 16-byte CQEs), 4 KiB pages (MPS 0), the NVM
 * command set, EN = 1; wait for CSTS.RDY = 1 (CAP.TO bounds both waits).
 * Interrupts are masked (INTMS): every queue is polled.  Going down:
 * delete the I/O queues, a normal shutdown (CC.SHN, wait CSTS.SHST), CC.EN
 * = 0, so the kernel's nvme driver finds a disabled controller.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "devices/nvme_pci.h"
#include "lib/clock.h"

#define ADMIN_TIMEOUT_MS 10000u		/* TCG is slow; a real controller answers in microseconds */

static inline uint32_t rd32(const struct npci_ctrl *c, unsigned int off)
{
	return *npci_reg(c, off);
}

static inline void wr32(const struct npci_ctrl *c, unsigned int off, uint32_t v)
{
	*npci_reg(c, off) = v;
}

/* 64-bit registers as two 32-bit halves, low first: every controller takes that */
static uint64_t rd64(const struct npci_ctrl *c, unsigned int off)
{
	uint64_t lo = rd32(c, off);

	return lo | (uint64_t)rd32(c, off + 4) << 32;
}

static void wr64(const struct npci_ctrl *c, unsigned int off, uint64_t v)
{
	wr32(c, off, (uint32_t)v);
	wr32(c, off + 4, (uint32_t)(v >> 32));
}

static void nap(void)
{
	struct timespec ts = { 0, 100000 };

	nanosleep(&ts, NULL);
}

/* Wait up to @ms for (CSTS & @mask) == @want; false on a timeout or a fatal status. */
static bool wait_csts(const struct npci_ctrl *c, uint32_t mask, uint32_t want, unsigned int ms)
{
	uint64_t end = rq_clock_mono_ns() + (uint64_t)ms * 1000000;

	for (;;) {
		uint32_t s = rd32(c, NVME_REG_CSTS);

		if (s == 0xffffffffu)
			return false;	/* the device is gone */
		if ((s & mask) == want)
			return true;
		if (rq_clock_mono_ns() > end)
			return false;
		nap();
	}
}

void npci_ctrl_disable_now(volatile uint8_t *regs)
{
	volatile uint32_t *cc = (volatile uint32_t *)(void *)(regs + NVME_REG_CC);

	*cc = *cc & ~NVME_CC_EN;
}

/* ---- status codes ---- */

struct sc_name {
	uint16_t code;			/* SCT << 8 | SC */
	int err;
	const char *name;
};

static const struct sc_name sc_names[] = {
	{ 0x001, EOPNOTSUPP, "Invalid Command Opcode" },
	{ 0x002, EOPNOTSUPP, "Invalid Field in Command" },
	{ 0x003, EIO, "Command ID Conflict" },
	{ 0x004, EIO, "Data Transfer Error" },
	{ 0x005, EIO, "Commands Aborted due to Power Loss Notification" },
	{ 0x006, EIO, "Internal Error" },
	{ 0x007, EIO, "Command Abort Requested" },
	{ 0x008, EIO, "Command Aborted due to SQ Deletion" },
	{ 0x00b, EOPNOTSUPP, "Invalid Namespace or Format" },
	{ 0x00c, EIO, "Command Sequence Error" },
	{ 0x013, EIO, "PRP Offset Invalid" },
	{ 0x080, EREMOTEIO, "LBA Out of Range" },
	{ 0x081, ENOSPC, "Capacity Exceeded" },
	{ 0x082, EAGAIN, "Namespace Not Ready" },
	{ 0x083, EBADE, "Reservation Conflict" },
	{ 0x084, EAGAIN, "Format In Progress" },
	{ 0x100, EINVAL, "Completion Queue Invalid" },
	{ 0x101, EINVAL, "Invalid Queue Identifier" },
	{ 0x102, EINVAL, "Invalid Queue Size" },
	{ 0x180, EOPNOTSUPP, "Conflicting Attributes" },
	{ 0x181, EILSEQ, "Invalid Protection Information" },
	{ 0x182, ENODATA, "Attempted Write to Read Only Range" },
	{ 0x280, ENODATA, "Write Fault" },
	{ 0x281, ENODATA, "Unrecovered Read Error" },
	{ 0x282, EILSEQ, "End-to-end Guard Check Error" },
	{ 0x283, EILSEQ, "End-to-end Application Tag Check Error" },
	{ 0x284, EILSEQ, "End-to-end Reference Tag Check Error" },
	{ 0x285, ENODATA, "Compare Failure" },
	{ 0x286, ENODATA, "Access Denied" },
	{ 0x287, ENODATA, "Deallocated or Unwritten Logical Block" },
	{ 0x300, ENOLINK, "Internal Path Error" },
};

int npci_status_errno(uint16_t status, char *name, size_t len)
{
	uint16_t code = status & 0x7ff;	/* SCT and SC */

	if (!code) {
		snprintf(name, len, "Successful Completion");
		return 0;
	}
	for (size_t i = 0; i < sizeof(sc_names) / sizeof(sc_names[0]); i++) {
		if (sc_names[i].code == code) {
			snprintf(name, len, "%s (sct %u sc 0x%02x%s)", sc_names[i].name, code >> 8, code & 0xff,
				 status & 0x4000 ? ", dnr" : "");
			return -sc_names[i].err;
		}
	}
	snprintf(name, len, "status sct %u sc 0x%02x%s", code >> 8, code & 0xff, status & 0x4000 ? ", dnr" : "");
	return -EIO;
}

/* ---- the admin queue ---- */

/*
 * Submit @sqe on the admin queue and wait for its completion: 0, the
 * command's dw0 in *@dw0, or -errno with "@what: status" in @why.
 */
static int admin(struct npci_ctrl *c, struct nvme_sqe *sqe, uint32_t *dw0, unsigned int ms, const char *what,
		 char *why, size_t len)
{
	uint64_t end = rq_clock_mono_ns() + (uint64_t)ms * 1000000;
	volatile struct nvme_cqe *cqe;
	char name[96];
	uint16_t st;
	int ret;

	sqe->cid = c->admin_cid++;
	memcpy(&c->asq[c->asq_tail], sqe, sizeof(*sqe));
	c->asq_tail = (uint16_t)((c->asq_tail + 1) % NPCI_ADMIN_QSIZE);
	npci_wmb();
	*npci_doorbell(c, 0, false) = c->asq_tail;
	for (;;) {
		cqe = &c->acq[c->acq_head];
		if ((cqe->status & 1) == c->aphase)
			break;
		if (rq_clock_mono_ns() > end) {
			snprintf(why, len, "%s: no completion in %u ms (CSTS 0x%x)", what, ms, rd32(c, NVME_REG_CSTS));
			return -ETIMEDOUT;
		}
		nap();
	}
	npci_dma_rmb();
	st = (uint16_t)(cqe->status >> 1);
	if (dw0)
		*dw0 = cqe->dw0;
	if (++c->acq_head == NPCI_ADMIN_QSIZE) {
		c->acq_head = 0;
		c->aphase ^= 1;
	}
	*npci_doorbell(c, 0, true) = c->acq_head;
	ret = npci_status_errno(st, name, sizeof(name));
	if (ret)
		snprintf(why, len, "%s: %s", what, name);
	return ret;
}

static int identify(struct npci_ctrl *c, uint8_t cns, uint32_t nsid, uint8_t csi, const char *what, char *why,
		    size_t len)
{
	struct nvme_sqe s = {
		.opcode = NVME_ADM_IDENTIFY,
		.nsid = nsid,
		.prp1 = npci_bus(&c->admin, c->adata),
		.cdw10 = cns,
		.cdw11 = (uint32_t)csi << 24,
	};

	memset(c->adata, 0, NPCI_PAGE);
	return admin(c, &s, NULL, ADMIN_TIMEOUT_MS, what, why, len);
}

/* An ASCII field of @n bytes, trailing spaces dropped. */
static void id_str(char *out, const uint8_t *p, size_t n)
{
	memcpy(out, p, n);
	out[n] = 0;
	while (n && (out[n - 1] == ' ' || out[n - 1] == 0))
		out[--n] = 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void npci_parse_id_ctrl(const uint8_t *p, struct npci_id *id)
{
	id->vid = (uint16_t)(p[0] | p[1] << 8);
	id_str(id->sn, p + 4, 20);
	id_str(id->mn, p + 24, 40);
	id_str(id->fr, p + 64, 8);
	id->mdts = p[77];
	id->sqes = p[512];
	id->cqes = p[513];
	id->nn = le32(p + 516);
	id->oncs = (uint16_t)(p[520] | p[521] << 8);
	id->vwc = p[525];
}

int npci_parse_id_ns(const uint8_t *p, struct npci_id *id)
{
	const uint8_t *f;

	id->nsze = (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
	id->nlbaf = p[25];
	id->flbas = p[26];
	id->dlfeat = p[33];
	/* FLBAS bits 3:0, and 6:5 as the high bits past 16 formats */
	id->lbaf = (uint8_t)((id->flbas & 0xf) | (id->nlbaf >= 16 ? ((id->flbas >> 5) & 3) << 4 : 0));
	if (id->lbaf > id->nlbaf || id->lbaf >= 64)
		return -EINVAL;
	f = p + 128 + 4 * id->lbaf;
	id->ms = (uint16_t)(f[0] | f[1] << 8);
	id->lbads = f[2];
	return id->lbads < 9 || id->lbads > 16 || !id->nsze ? -EINVAL : 0;
}

/* Identify Controller (and its NVM command set page), the active list, the namespace. */
static int identify_all(struct npci_ctrl *c, uint32_t nsid, char *why, size_t len)
{
	struct npci_id *id = &c->id;
	const uint8_t *p = c->adata;
	char scratch[160];
	bool found = false;
	size_t n = 0;
	int ret;

	ret = identify(c, 1, 0, 0, "Identify Controller", why, len);
	if (ret)
		return ret;
	npci_parse_id_ctrl(p, id);
	if ((id->sqes & 0xf) > 6 || (id->sqes >> 4) < 6 || (id->cqes & 0xf) > 4 || (id->cqes >> 4) < 4) {
		snprintf(why, len, "the controller takes no 64-byte submission / 16-byte completion entries");
		return -ENOTSUP;
	}
	/* NVMe 1.4's I/O command set page: DSM and Write Zeroes limits; older ones have none */
	if (!identify(c, 6, 0, 0, "Identify NVM Controller", scratch, sizeof(scratch))) {
		id->wzsl = p[1];
		id->dmrl = p[3];
		id->dmrsl = le32(p + 4);
	}
	ret = identify(c, 2, 0, 0, "Identify Active Namespace List", why, len);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < 1024 && le32(p + 4 * i); i++) {
		uint32_t v = le32(p + 4 * i);

		found |= v == nsid;
		if (n + 12 < sizeof(scratch))
			n += (size_t)snprintf(scratch + n, sizeof(scratch) - n, "%s%u", n ? ", " : "", v);
	}
	if (!found) {
		snprintf(why, len, "namespace %u does not exist on this controller (active: %s)", nsid,
			 n ? scratch : "none");
		return -ENOENT;
	}
	ret = identify(c, 0, nsid, 0, "Identify Namespace", why, len);
	if (ret)
		return ret;
	id->nsid = nsid;
	if (npci_parse_id_ns(p, id)) {
		snprintf(why, len, "namespace %u: the LBA format in use is not one rqlock can read", nsid);
		return -EPROTO;
	}
	if (id->ms) {
		snprintf(why, len, "namespace %u: LBA format %u carries %u bytes of metadata per block; rqlock "
			 "sends data only", nsid, id->lbaf, id->ms);
		return -ENOTSUP;
	}
	return 0;
}

int npci_ctrl_start(struct npci_ctrl *c, struct npci_dma *d, uint32_t nsid, char *why, size_t len)
{
	unsigned int to, mpsmin;
	int ret;

	c->regs = d->bar;
	c->cap = rd64(c, NVME_REG_CAP);
	c->vs = rd32(c, NVME_REG_VS);
	c->mqes = (uint32_t)(c->cap & 0xffff) + 1;
	c->db_stride = 4u << ((c->cap >> 32) & 0xf);
	to = (unsigned int)((c->cap >> 24) & 0xff);
	c->timeout_ms = to ? to * 500 : 500;
	mpsmin = (unsigned int)((c->cap >> 48) & 0xf);
	if (c->cap == ~0ull) {
		snprintf(why, len, "the controller does not answer (CAP reads all ones)");
		return -ENODEV;
	}
	if (!((c->cap >> 37) & 1) || mpsmin) {
		snprintf(why, len, "the controller has %s", mpsmin ? "no 4 KiB memory pages (CAP.MPSMIN)" :
			 "no NVM command set (CAP.CSS)");
		return -ENOTSUP;
	}
	ret = npci_dma_alloc(d, 3 * NPCI_PAGE, &c->admin, why, len);
	if (ret)
		return ret;
	c->asq = (struct nvme_sqe *)(void *)c->admin.va;
	c->acq = (struct nvme_cqe *)(void *)(c->admin.va + NPCI_PAGE);
	c->adata = c->admin.va + 2 * NPCI_PAGE;
	c->asq_tail = c->acq_head = 0;
	c->aphase = 1;
	/* whatever ran it before (the kernel, a killed rqlock): off first */
	wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
	c->enabled = true;		/* from here on, close disables it */
	if (!wait_csts(c, NVME_CSTS_RDY, 0, c->timeout_ms)) {
		snprintf(why, len, "the controller did not stop within %u ms (CSTS 0x%x)", c->timeout_ms,
			 rd32(c, NVME_REG_CSTS));
		return -ETIMEDOUT;
	}
	wr32(c, NVME_REG_AQA, (NPCI_ADMIN_QSIZE - 1) << 16 | (NPCI_ADMIN_QSIZE - 1));
	wr64(c, NVME_REG_ASQ, npci_bus(&c->admin, c->asq));
	wr64(c, NVME_REG_ACQ, npci_bus(&c->admin, c->acq));
	wr32(c, NVME_REG_CC, NVME_CC_IOSQES | NVME_CC_IOCQES | NVME_CC_EN);
	if (!wait_csts(c, NVME_CSTS_RDY | NVME_CSTS_CFS, NVME_CSTS_RDY, c->timeout_ms)) {
		snprintf(why, len, "the controller did not become ready within %u ms (CSTS 0x%x)", c->timeout_ms,
			 rd32(c, NVME_REG_CSTS));
		return -ETIMEDOUT;
	}
	wr32(c, NVME_REG_INTMS, ~0u);	/* polled: no interrupts */
	return identify_all(c, nsid, why, len);
}

int npci_ctrl_set_queues(struct npci_ctrl *c, unsigned int want, char *why, size_t len)
{
	struct nvme_sqe s = {
		.opcode = NVME_ADM_SET_FEATURES,
		.cdw10 = NVME_FEAT_NUM_QUEUES,
		.cdw11 = (want - 1) | (want - 1) << 16,
	};
	uint32_t dw0 = 0;
	unsigned int sq, cq;
	int ret = admin(c, &s, &dw0, ADMIN_TIMEOUT_MS, "Set Features (Number of Queues)", why, len);

	if (ret)
		return ret;
	sq = (dw0 & 0xffff) + 1;
	cq = (dw0 >> 16) + 1;
	sq = sq < cq ? sq : cq;
	return (int)(sq < want ? sq : want);
}

int npci_ctrl_create_qpair(struct npci_ctrl *c, unsigned int qid, unsigned int qsize, uint64_t sq_bus,
			   uint64_t cq_bus, char *why, size_t len)
{
	/* physically contiguous (PC), interrupts off (IEN 0): polled */
	struct nvme_sqe cq = {
		.opcode = NVME_ADM_CREATE_CQ,
		.prp1 = cq_bus,
		.cdw10 = (qsize - 1) << 16 | qid,
		.cdw11 = 1,
	};
	struct nvme_sqe sq = {
		.opcode = NVME_ADM_CREATE_SQ,
		.prp1 = sq_bus,
		.cdw10 = (qsize - 1) << 16 | qid,
		.cdw11 = qid << 16 | 1,
	};
	int ret = admin(c, &cq, NULL, ADMIN_TIMEOUT_MS, "Create I/O Completion Queue", why, len);

	return ret ? ret : admin(c, &sq, NULL, ADMIN_TIMEOUT_MS, "Create I/O Submission Queue", why, len);
}

void npci_ctrl_stop(struct npci_ctrl *c, unsigned int nr_qpairs)
{
	char why[128];
	bool ok = true;

	if (!c->regs || !c->enabled)
		return;
	/* queues first (a queue that holds abandoned commands aborts them), then a normal shutdown */
	if ((rd32(c, NVME_REG_CSTS) & (NVME_CSTS_RDY | NVME_CSTS_CFS)) == NVME_CSTS_RDY) {
		for (unsigned int q = nr_qpairs; ok && q >= 1; q--) {
			struct nvme_sqe s = { .opcode = NVME_ADM_DELETE_SQ, .cdw10 = q };
			struct nvme_sqe k = { .opcode = NVME_ADM_DELETE_CQ, .cdw10 = q };

			ok = !admin(c, &s, NULL, 1000, "Delete I/O SQ", why, sizeof(why)) &&
			     !admin(c, &k, NULL, 1000, "Delete I/O CQ", why, sizeof(why));
		}
		wr32(c, NVME_REG_CC, (rd32(c, NVME_REG_CC) & ~(3u << 14)) | NVME_CC_SHN_NORMAL);
		wait_csts(c, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_DONE, c->timeout_ms);
	}
	wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~(NVME_CC_EN | 3u << 14));
	wait_csts(c, NVME_CSTS_RDY, 0, c->timeout_ms);
	c->enabled = false;
}
