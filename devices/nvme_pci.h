/* SPDX-License-Identifier: MIT */
/*
 * nvme_pci.h - what the three files of the userspace NVMe driver share
 * (devices/ only): the PCI function's sysfs facts (pci.c), its DMA memory
 * through vfio-pci or uio_pci_generic (nvme_pci_dma.c), the controller's
 * registers and admin queue (nvme_pci_ctrl.c); the device kind itself,
 * its queue pairs, queue_rq and poll, is nvme_pci.c.
 *
 * Register layout, commands and PRPs as the NVM Express Base
 * Specification describes them (registers: CAP, VS, CC, CSTS, AQA, ASQ,
 * ACQ; doorbells at 0x1000 + (2 * qid + k) * (4 << CAP.DSTRD), k = 0 for a
 * submission queue's tail, 1 for a completion queue's head).  Little
 * endian hosts only: the structures below are the wire format as is.
 */
#ifndef RQ_NVME_PCI_H
#define RQ_NVME_PCI_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "devices/dev_internal.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "nvme-pci writes NVMe structures in the host's byte order: little endian only"
#endif

/*
 * Ordering against the device, the kernel's wmb() and dma_rmb(): the
 * entries written to DMA memory before the doorbell's MMIO write that
 * hands them over; a completion entry's fields read after its phase bit.
 * x86 keeps stores in order (to uncached MMIO too) and loads in order, so
 * only the compiler is held back there.  Not C11 fences: those order
 * threads, not a device, and TSan cannot model them.
 */
static inline void npci_wmb(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dsb st" ::: "memory");
#else
	__sync_synchronize();
#endif
}

static inline void npci_dma_rmb(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb oshld" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/* ---- a PCI function from sysfs (pci.c) ---- */

#define RQ_PCI_CLASS_NVME 0x010802u	/* mass storage, NVM, NVMe */

struct rq_pci_fn {
	char bdf[16];			/* canonical: 0000:00:04.0 */
	char sys[64];			/* /sys/bus/pci/devices/BDF */
	uint32_t class_code;
	uint16_t vendor, device;
	char driver[32];		/* the bound driver's name, "" for none */
	int iommu_group;		/* -1: none (no IOMMU) */
	/* members of the IOMMU group bound to something else than vfio-pci (vfio needs none) */
	char group_others[96];
	char ns[128];			/* the kernel's namespaces of it: "nvme0n1 nvme0n2" */
	char uio[16];			/* uio_pci_generic's node: "uio0", "" */
};

/* Canonical BDF from "DDDD:BB:DD.F" or "BB:DD.F" into @out; -EINVAL if malformed. */
int rq_pci_bdf_parse(const char *s, char *out, size_t len);
/* Read @bdf's facts; -ENODEV when there is no such PCI function. */
int rq_pci_fn_read(const char *bdf, struct rq_pci_fn *fn);
/*
 * Can nvme-pci take this NVMe controller, and how?  Returns "vfio" or
 * "uio", or NULL with the reason in @why (bound to the kernel's nvme,
 * no driver, another driver, a group member not on vfio-pci): one
 * sentence that names scripts/nvme-bind where it helps.
 */
const char *rq_pci_nvme_way(const struct rq_pci_fn *fn, char *why, size_t len);
/* Every NVMe controller on the machine (class 0x010802), sorted; *@out is malloc'd. */
unsigned int rq_pci_nvme_list(struct rq_pci_fn **out);

/* ---- DMA memory and the BAR (nvme_pci_dma.c) ---- */

#define NPCI_PAGE 4096u			/* CC.MPS = 0: the controller's memory page */

enum npci_way { NPCI_VFIO = 1, NPCI_UIO = 2 };

/*
 * A region of the driver's own DMA memory (queues, PRP lists, bounce
 * buffers): locked, with the bus address of each 4 KiB page.  Under vfio
 * it is mapped at one IOVA run; under uio the addresses are physical
 * (pagemap), contiguous inside a hugepage only.
 */
struct npci_region {
	uint8_t *va;
	size_t len;			/* a multiple of NPCI_PAGE */
	size_t map_len;			/* what mmap() took (hugepage rounded) */
	uint64_t *bus;			/* len / NPCI_PAGE entries */
	uint64_t iova;			/* vfio: where it is mapped, else 0 */
	bool huge;
};

/* The bus address of @p inside @r. */
static inline uint64_t npci_bus(const struct npci_region *r, const void *p)
{
	size_t off = (size_t)((const uint8_t *)p - r->va);

	return r->bus[off / NPCI_PAGE] + off % NPCI_PAGE;
}

/* Are [p, p + len) of @r contiguous on the bus (what a queue with CAP.CQR needs)? */
bool npci_region_contiguous(const struct npci_region *r, const void *p, size_t len);

/*
 * An I/O buffer's pages mapped for DMA (vfio only): [va, va + len) at
 * [iova, iova + len).  Made on the first request that uses a page, never
 * moved or dropped before the device closes: the engine's buffers live for
 * the run.
 */
struct npci_map {
	uintptr_t va;
	size_t len;
	uint64_t iova;
};

struct npci_dma {
	enum npci_way way;
	volatile uint8_t *bar;		/* BAR0: registers and doorbells */
	size_t bar_len;
	void *bar_map;			/* what was mmap'd (the BAR, or a reservation) */
	size_t bar_map_len;
	int container, group, device;	/* vfio, -1 when unused */
	int uio, res, cfg;		/* uio: /dev/uioN (held), resource0, config */
	int pagemap;			/* uio: /proc/self/pagemap */
	uint64_t iova_next, iova_end;	/* vfio: the IOVA still free */
	/* vfio: I/O buffer maps, by va; only their first use takes the mutex */
	pthread_mutex_t lock;
	struct npci_map **maps;
	unsigned int nr_maps, cap_maps;
	uint64_t mapped_bytes;
};

/*
 * Take @fn for DMA the way its driver says (vfio-pci or uio_pci_generic):
 * BAR0 mapped (at least @bar_need bytes), bus mastering on.  @want: NULL
 * or "auto" for the bound driver's way, else "vfio" or "uio", which must
 * match it.  0, or -errno with one sentence in @why.
 */
int npci_dma_open(struct npci_dma *d, const struct rq_pci_fn *fn, const char *want, char *why,
		  size_t len);
/* Bus mastering off, every map undone, the BAR unmapped, the fds closed. */
void npci_dma_close(struct npci_dma *d);
/* A region of @len bytes (rounded up to pages), zeroed; -errno with @why. */
int npci_dma_alloc(struct npci_dma *d, size_t len, struct npci_region *r, char *why, size_t wl);
void npci_dma_free(struct npci_dma *d, struct npci_region *r);
/*
 * vfio: the map holding the page at @va, made (with what follows it up to
 * @end, pages not yet mapped) when there is none.  NULL with -errno in
 * *@err when the IOMMU refuses.  Takes d->lock: callers keep what it
 * returns (nvme_pci.c: a cache per queue pair) and come here on a miss only.
 */
const struct npci_map *npci_dma_map_buf(struct npci_dma *d, uintptr_t va, uintptr_t end, int *err);
/* In @maps sorted by va, the index of the first whose va is above @va. */
unsigned int npci_maps_upper(const struct npci_map *const *maps, unsigned int nr, uintptr_t va);
/* "vfio" / "uio" */
const char *npci_way_name(enum npci_way w);

/* ---- the controller (nvme_pci_ctrl.c) ---- */

/* Registers (offsets in BAR0) */
#define NVME_REG_CAP	0x00
#define NVME_REG_VS	0x08
#define NVME_REG_INTMS	0x0c
#define NVME_REG_CC	0x14
#define NVME_REG_CSTS	0x1c
#define NVME_REG_AQA	0x24
#define NVME_REG_ASQ	0x28
#define NVME_REG_ACQ	0x30
#define NVME_REG_DBS	0x1000

#define NVME_CC_EN		(1u << 0)
#define NVME_CC_SHN_NORMAL	(1u << 14)
#define NVME_CC_IOSQES		(6u << 16)	/* 64-byte submission entries */
#define NVME_CC_IOCQES		(4u << 20)	/* 16-byte completion entries */
#define NVME_CSTS_RDY		(1u << 0)
#define NVME_CSTS_CFS		(1u << 1)
#define NVME_CSTS_SHST_MASK	(3u << 2)
#define NVME_CSTS_SHST_DONE	(2u << 2)

/* Opcodes */
enum {
	NVME_ADM_DELETE_SQ = 0x00, NVME_ADM_CREATE_SQ = 0x01, NVME_ADM_DELETE_CQ = 0x04,
	NVME_ADM_CREATE_CQ = 0x05, NVME_ADM_IDENTIFY = 0x06, NVME_ADM_SET_FEATURES = 0x09,
};
enum {
	NVME_IO_FLUSH = 0x00, NVME_IO_WRITE = 0x01, NVME_IO_READ = 0x02, NVME_IO_WRITE_ZEROES = 0x08,
	NVME_IO_DSM = 0x09,
};
#define NVME_FEAT_NUM_QUEUES 0x07

/* A submission queue entry (64 bytes) and a completion queue entry (16). */
struct nvme_sqe {
	uint8_t opcode;
	uint8_t flags;			/* FUSE, PSDT = 0: PRPs */
	uint16_t cid;
	uint32_t nsid;
	uint32_t cdw2, cdw3;
	uint64_t mptr;
	uint64_t prp1, prp2;
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};

struct nvme_cqe {
	uint32_t dw0, dw1;
	uint16_t sq_head, sq_id;
	uint16_t cid;
	uint16_t status;		/* bit 0 the phase tag, 15:1 the status field */
};

_Static_assert(sizeof(struct nvme_sqe) == 64, "NVMe submission entries are 64 bytes");
_Static_assert(sizeof(struct nvme_cqe) == 16, "NVMe completion entries are 16 bytes");

/* What Identify Controller and Identify Namespace say, as the driver uses it. */
struct npci_id {
	char sn[21], mn[41], fr[9];	/* trimmed */
	uint16_t vid;
	uint8_t mdts;			/* 2^mdts minimum pages, 0 = no limit */
	uint32_t nn;			/* namespaces */
	uint16_t oncs;			/* optional NVM commands: bit 2 DSM, bit 3 Write Zeroes */
	uint8_t vwc;			/* bit 0: a volatile write cache (flushes matter) */
	uint8_t sqes, cqes;
	uint32_t dmrsl;			/* DSM range size limit (blocks), 0 = none said */
	uint8_t dmrl;			/* DSM ranges per command, 0 = none said */
	uint8_t wzsl;			/* Write Zeroes size limit (2^wzsl pages), 0 = none */
	/* the namespace */
	uint32_t nsid;
	uint64_t nsze;			/* blocks */
	uint8_t flbas, nlbaf, lbaf, lbads, dlfeat;
	uint16_t ms;
};

struct npci_ctrl {
	volatile uint8_t *regs;
	uint64_t cap;
	uint32_t vs;
	uint32_t db_stride;		/* bytes between doorbells: 4 << CAP.DSTRD */
	uint32_t mqes;			/* largest queue, entries (CAP.MQES + 1) */
	unsigned int timeout_ms;	/* CAP.TO */
	bool enabled;
	/* the admin queue pair, single-threaded (open and close only) */
	struct npci_region admin;	/* ASQ, ACQ, a 4 KiB data page */
	struct nvme_sqe *asq;
	struct nvme_cqe *acq;
	void *adata;
	uint16_t asq_tail, acq_head, admin_cid;
	uint8_t aphase;
	struct npci_id id;
};

#define NPCI_ADMIN_QSIZE 32u

static inline volatile uint32_t *npci_reg(const struct npci_ctrl *c, unsigned int off)
{
	return (volatile uint32_t *)(void *)(c->regs + off);
}

/* The doorbell of queue @qid: its submission tail (@cq false) or completion head. */
static inline volatile uint32_t *npci_doorbell(const struct npci_ctrl *c, unsigned int qid, bool cq)
{
	return npci_reg(c, NVME_REG_DBS + (2 * qid + (cq ? 1 : 0)) * c->db_stride);
}

/*
 * Reset the controller (CC.EN = 0) and enable it with a fresh admin queue
 * in @d's memory; then Identify Controller and namespace @nsid (the
 * active list first: a namespace that is not there is -ENOENT with the
 * active ones in @why).  0 or -errno with one sentence in @why.
 */
int npci_ctrl_start(struct npci_ctrl *c, struct npci_dma *d, uint32_t nsid, char *why, size_t len);
/*
 * Set Features Number of Queues: ask for @want pairs, return how many the
 * controller gives (<= @want), or -errno.
 */
int npci_ctrl_set_queues(struct npci_ctrl *c, unsigned int want, char *why, size_t len);
/* Create completion queue then submission queue @qid of @qsize entries at those bus addresses. */
int npci_ctrl_create_qpair(struct npci_ctrl *c, unsigned int qid, unsigned int qsize, uint64_t sq_bus,
			   uint64_t cq_bus, char *why, size_t len);
/*
 * Stop the controller: delete I/O queues 1..@nr_qpairs (briefly: a queue
 * with abandoned commands may not answer), a normal shutdown (CC.SHN),
 * then CC.EN = 0, waiting for CSTS.RDY = 0.  Safe to call twice and on a
 * controller that never started.
 */
void npci_ctrl_stop(struct npci_ctrl *c, unsigned int nr_qpairs);
/* CC.EN = 0 with no wait: what the exit handler does. */
void npci_ctrl_disable_now(volatile uint8_t *regs);
/*
 * An NVMe status field (the CQE's status >> 1) as an errno, as the
 * kernel's nvme_error_status() maps it, and its name in @name.
 */
int npci_status_errno(uint16_t status, char *name, size_t len);
/* Parse the Identify Controller / Namespace data pages into @id. */
void npci_parse_id_ctrl(const uint8_t *p, struct npci_id *id);
int npci_parse_id_ns(const uint8_t *p, struct npci_id *id);

#endif /* RQ_NVME_PCI_H */
