// SPDX-License-Identifier: MIT
/*
 * nvme_pci.c - nvme-pci: a userspace NVMe driver, the driver stage of the
 * block layer that owns the hardware.  "@nvme-pci,addr=BDF[,ns=N]
 * [,qpairs=Q][,qsize=E][,dma=auto|vfio|uio][,trim=auto|dsm|write-zeroes]"
 * takes the controller at PCI address BDF (bound to vfio-pci or
 * uio_pci_generic by scripts/nvme-bind; rqlock never binds or unbinds),
 * resets and enables it (nvme_pci_ctrl.c), creates Q I/O queue pairs and
 * serves namespace N through them: queue_rq writes commands into a
 * submission queue and rings its doorbell, poll reaps the completion
 * queue.  In a fio job file the address's colons are escaped, as fio's
 * filename= wants: addr=0000\:00\:04.0.
 *
 * Which lock guards a doorbell is the lock mode's business, as it was the
 * kernel's (docs/ARCHITECTURE.md, "The userspace NVMe driver"):
 *   global     queue pair 0, rung under io_request_lock (2.4's request_fn)
 *   per-queue  queue pair 0, under the queue's lock (2.5)
 *   mq         queue pair h for hardware context h (rq->hwq), under that
 *              hctx's lock, as blk-mq's nvme_queue_rq() rings its nvmeq's
 *   cluster    queue pair 0, under the owner partition's queue lock (or
 *              no lock with one worker per partition): only that partition
 *              submits to and reaps from it
 * The driver takes no lock of its own to submit: queue_rq is always
 * called with the one lock that serialises it (queues/driver.h), and a
 * queue pair is only ever dispatched from one of them (mq never maps more
 * contexts than there are pairs: RQ_DEV_HWQ_LIMIT).
 *
 * Completions: the completion queues are polled, interrupts masked.  A
 * worker reaps a pair once it has dispatched to it (so in cluster mode
 * only the owner partition does, and its end_request runs there); the
 * reap holds the pair's nvme_cq_lock (a trylock, as nvme_poll() takes
 * cq_poll_lock), collects the ended requests, releases it and then ends
 * them: no lock is held into the mode's completion, no lock order to
 * keep.  Command identifiers come from a ring per pair: taken under the
 * dispatch lock, given back under nvme_cq_lock (one producer and one
 * consumer at a time: acquire/release indices, no atomic RMW).
 *
 * A request becomes one command or several: the data of one command is
 * at most cmd_max bytes (MDTS, as the kernel's max_hw_sectors), and its
 * pages must form one PRP list, so a request whose segments do not meet
 * at page boundaries splits there.  It completes when its last command
 * does, with the first error any of them had (the NVMe status decoded on
 * stderr).  Data moves without copies under vfio (the engine's buffers
 * are mapped into the IOMMU on first use); under uio through bounce
 * buffers in the driver's hugepages (nvme_pci_dma.c says why).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "devices/nvme_pci.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/compiler.h"

#define NPCI_MAX_QPAIRS 64
#define NPCI_MAX_CMD (2u << 20)		/* one PRP list page: 512 entries */
#define NPCI_BOUNCE_MAX (128u << 10)	/* uio: a bounce buffer per command identifier */
#define NPCI_SCRATCH (64u << 10)	/* open's own reads (the signature scan) */
#define NPCI_ERRORS_SHOWN 8
#define NPCI_TLB 64			/* pages a queue pair's translation cache holds */

struct npci_opts {
	char addr[32];
	uint64_t ns, qpairs, qsize;
	char dma[8], trim[16];
	char id_ctrl[200], id_ns[200];
};

#define NPCI_OPT(n, f, t, l, d, h) { n, t, offsetof(struct npci_opts, f), l, d, h }
static const struct rq_dev_option npci_options[] = {
	NPCI_OPT("addr", addr, RQ_DEV_OPT_STR, 32, NULL, "the controller's PCI address, 0000:00:04.0 (required)"),
	NPCI_OPT("ns", ns, RQ_DEV_OPT_U64, 0, "1", "the namespace id"),
	NPCI_OPT("qpairs", qpairs, RQ_DEV_OPT_U64, 0, "0",
		 "I/O queue pairs; 0: one per worker, up to what the controller gives"),
	NPCI_OPT("qsize", qsize, RQ_DEV_OPT_U64, 0, "64", "entries per queue (qsize-1 commands in flight per pair)"),
	NPCI_OPT("dma", dma, RQ_DEV_OPT_STR, 8, "auto", "auto (the bound driver's), vfio or uio"),
	NPCI_OPT("trim", trim, RQ_DEV_OPT_STR, 16, "auto",
		 "auto (DSM deallocate where DLFEAT reads zeroes, else Write Zeroes), dsm or write-zeroes"),
	NPCI_OPT("id-ctrl", id_ctrl, RQ_DEV_OPT_STR, 200, NULL,
		 "a file of nvme-cli's id-ctrl -o json of it (before the unbind): open fails unless Identify agrees"),
	NPCI_OPT("id-ns", id_ns, RQ_DEV_OPT_STR, 200, NULL, "the same for nvme-cli's id-ns -o json of the namespace"),
	{ NULL, 0, 0, 0, NULL, NULL },
};

/* One command identifier's state. */
struct npci_cmd {
	_Atomic(struct rq_request *) rq;
	uint32_t off, len;		/* the request's bytes it moves (bounce: what to copy back) */
	uint64_t *prp;			/* its PRP list page (or DSM ranges) */
	uint64_t prp_bus;
	uint8_t *bounce;		/* uio: cmd_max bytes */
};

struct npci_qp {
	/* the dispatcher's: under the mode's dispatch lock for this pair */
	struct nvme_sqe *sq;
	volatile uint32_t *sq_db;
	uint32_t sq_tail;
	uint32_t cons;			/* identifiers taken from the ring */
	/*
	 * vfio: pages this pair translated lately, direct mapped by page
	 * number (a run's buffers are a few pages per request slot: one compare
	 * on a hit), and every map it has used, by va, for the misses.
	 */
	struct { uintptr_t page; const struct npci_map *m; } tlb[NPCI_TLB];
	const struct npci_map **maps;
	unsigned int nr_maps, cap_maps;
	uint64_t nr_cmds, nr_doorbells;
	/*
	 * The worker inside queue_rq on this pair, -1 for none: a tripwire for
	 * a mode that lets two dispatchers at one submission queue (plain
	 * accesses: the mode's lock orders them; a race is the bug it catches).
	 */
	int dispatcher;
	_Atomic uint32_t cons_pub RQ_ALIGNED;	/* cons, for pending() */
	/* the reaper's: under cq_lock */
	struct rq_lock cq_lock;
	struct nvme_cqe *cq;
	volatile uint32_t *cq_db;
	uint32_t cq_head;
	uint32_t phase;
	_Atomic uint32_t peek;		/* cq_head | phase << 31, for a look without the lock */
	_Atomic uint32_t prod RQ_ALIGNED;	/* identifiers given back */
	/* set at open */
	uint16_t *ring;
	uint32_t mask;
	unsigned int qid;
	struct npci_cmd *cmds;
	_Atomic uint8_t *reaper;	/* per worker: it dispatched here, it reaps here */
	char lock_name[48];
};

struct npci_dev {
	struct npci_opts o;
	struct rq_pci_fn fn;
	struct npci_dma dma;
	struct npci_ctrl ctrl;
	struct npci_region io;		/* queues, PRP pages, bounce buffers, scratch */
	uint8_t *scratch;
	struct npci_qp *qp;
	unsigned int nr_qp, qsize, nr_cids, nr_cpus;
	unsigned int lba_shift;
	uint32_t cmd_max;		/* bytes of data per command */
	uint32_t dsm_ranges, dsm_range_blocks, wz_blocks;
	bool bounce, vwc, trim_dsm, trim_wz, wz_deac;
	bool dma_open;			/* npci_dma_open() ran: close undoes it */
	_Atomic unsigned int errors;
};

static const struct rq_lock_class nvme_cq_lock_class = { .name = "nvme_cq_lock" };

/* ---- the controllers to disable however the process exits ---- */

#define NPCI_MAX_OPEN 16
static struct npci_dev *volatile open_devs[NPCI_MAX_OPEN];

/*
 * exit() without a close (a fatal path): stop every controller still
 * running, as close does (npci_ctrl_stop(): Delete I/O SQ and CQ, a
 * normal shutdown, CC.EN = 0), while the other workers may still submit.
 * The queues go first because a controller must abort what they hold:
 * CC.EN = 0 with commands in flight is the spec's too, but QEMU 7.2's
 * emulated controller (Debian 12's) then frees requests whose writes are
 * still completing and crashes in nvme_rw_complete_cb() (SIGSEGV, in the
 * SIGABRT step of tests/test_vm_nvme_pci.sh uio: CI's run and 2 of 40
 * here); its Delete SQ cancels them first.  MMIO, our own queue memory,
 * clock_gettime and nanosleep: async-signal-safe (snprintf only on a
 * command's error).
 */
static void npci_atexit(void)
{
	for (unsigned int i = 0; i < NPCI_MAX_OPEN; i++) {
		struct npci_dev *nd = open_devs[i];

		if (nd && nd->ctrl.enabled)
			npci_ctrl_stop(&nd->ctrl, nd->nr_qp);
		else if (nd)
			npci_ctrl_disable_now(nd->ctrl.regs);
	}
}

/*
 * A crash (abort() from a BUG line, a fault) runs neither close nor the
 * exit hooks: the controllers are disabled here (MMIO stores only:
 * async-signal-safe), then the signal's previous handling is put back:
 * a fault happens again when the handler returns, a signal that was sent
 * (abort()'s raise, kill) is sent again, and either ends the process as
 * it would have (a sanitizer's report included).
 */
static const int crash_sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE };
static struct sigaction crash_old[sizeof(crash_sigs) / sizeof(crash_sigs[0])];

static void npci_crash(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	npci_atexit();
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	if (si->si_code <= 0)
		raise(sig);	/* sent, not a fault: delivered again once this returns */
}

static void crash_hooks(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = npci_crash;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		sigaction(crash_sigs[i], &sa, &crash_old[i]);
}

static void exit_track(struct npci_dev *nd, bool add)
{
	static bool registered;

	if (add && !registered && !atexit(npci_atexit)) {
		registered = true;
		crash_hooks();
	}
	for (unsigned int i = 0; i < NPCI_MAX_OPEN; i++) {
		if (add && !open_devs[i]) {
			open_devs[i] = nd;
			return;
		}
		if (!add && open_devs[i] == nd)
			open_devs[i] = NULL;
	}
}

/* ---- command identifiers ---- */

static inline uint32_t cids_free(struct npci_qp *qp)
{
	return atomic_load_explicit(&qp->prod, memory_order_acquire) - qp->cons;
}

static inline struct npci_cmd *cid_take(struct npci_qp *qp, uint16_t *cid)
{
	*cid = qp->ring[qp->cons++ & qp->mask];
	return &qp->cmds[*cid];
}

/* Write @s at the submission tail (the doorbell waits for the caller). */
static inline void sq_push(struct npci_dev *nd, struct npci_qp *qp, const struct nvme_sqe *s)
{
	qp->sq[qp->sq_tail] = *s;
	if (++qp->sq_tail == nd->qsize)
		qp->sq_tail = 0;
	qp->nr_cmds++;
}

static inline void sq_ring(struct npci_qp *qp)
{
	atomic_store_explicit(&qp->cons_pub, qp->cons, memory_order_relaxed);
	npci_wmb();	/* the entries before the doorbell */
	*qp->sq_db = qp->sq_tail;
	qp->nr_doorbells++;
}

/* ---- the engine's buffers on the bus (vfio) ---- */

static const struct npci_map *qp_map_find(const struct npci_qp *qp, uintptr_t va)
{
	unsigned int i = npci_maps_upper(qp->maps, qp->nr_maps, va);

	return i && va < qp->maps[i - 1]->va + qp->maps[i - 1]->len ? qp->maps[i - 1] : NULL;
}

/* A miss: the device-wide map (made if new), kept in this pair's sorted list. */
static const struct npci_map *qp_map_miss(struct npci_dev *nd, struct npci_qp *qp, uintptr_t va, uintptr_t end,
					  int *err)
{
	const struct npci_map *m = npci_dma_map_buf(&nd->dma, va, end, err);
	unsigned int i = 0;

	if (!m)
		return NULL;
	if (qp->nr_maps == qp->cap_maps) {
		unsigned int cap = qp->cap_maps ? 2 * qp->cap_maps : 16;
		const struct npci_map **g = realloc(qp->maps, sizeof(*g) * cap);

		if (!g) {
			*err = -ENOMEM;
			return NULL;
		}
		qp->maps = g;
		qp->cap_maps = cap;
	}
	while (i < qp->nr_maps && qp->maps[i]->va < m->va)
		i++;
	memmove(&qp->maps[i + 1], &qp->maps[i], sizeof(*qp->maps) * (qp->nr_maps - i));
	qp->maps[i] = m;
	qp->nr_maps++;
	return m;
}

static inline int bus_of(struct npci_dev *nd, struct npci_qp *qp, uintptr_t va, uintptr_t end, uint64_t *bus)
{
	uintptr_t page = va / NPCI_PAGE;
	unsigned int slot = page % NPCI_TLB;
	const struct npci_map *m = qp->tlb[slot].m;

	if (unlikely(qp->tlb[slot].page != page)) {
		int err = 0;

		m = qp_map_find(qp, va);
		if (!m && !(m = qp_map_miss(nd, qp, va, end, &err)))
			return err;
		qp->tlb[slot].page = page;
		qp->tlb[slot].m = m;
	}
	*bus = m->iova + (va - m->va);
	return 0;
}

/* ---- commands of a request ---- */

/*
 * The next command's length from segment *@s, offset *@o of @rq, moving
 * them past it: at most cmd_max bytes, and (without a bounce buffer) only
 * across segments that meet at page boundaries, since PRP entries after
 * the first must be whole pages.
 */
static uint32_t cmd_cut(const struct npci_dev *nd, const struct rq_request *rq, unsigned int *s, uint32_t *o)
{
	uint32_t len = 0;

	for (;;) {
		const struct iovec *v = &rq->iov[*s];
		uint32_t left = (uint32_t)v->iov_len - *o, room = nd->cmd_max - len;
		uint32_t take = left < room ? left : room;

		len += take;
		*o += take;
		if (*o < v->iov_len)
			return len;
		(*s)++;
		*o = 0;
		if (*s == rq->nr_segs || len == nd->cmd_max)
			return len;
		if (!nd->bounce && ((((uintptr_t)v->iov_base + v->iov_len) | (uintptr_t)rq->iov[*s].iov_base) &
				    (NPCI_PAGE - 1)))
			return len;
	}
}

static unsigned int cmd_count(const struct npci_dev *nd, const struct rq_request *rq)
{
	unsigned int s = 0, n = 0;
	uint32_t o = 0;

	while (s < rq->nr_segs) {
		cmd_cut(nd, rq, &s, &o);
		n++;
	}
	return n;
}

/* PRP entries for @len bytes from segment @s, offset @o: the engine's pages, mapped (vfio). */
static int prp_direct(struct npci_dev *nd, struct npci_qp *qp, struct npci_cmd *cmd, const struct rq_request *rq,
		      unsigned int s, uint32_t o, uint32_t len, struct nvme_sqe *sqe)
{
	unsigned int np = 0;

	while (len) {
		uintptr_t va = (uintptr_t)rq->iov[s].iov_base + o;
		uint32_t left = (uint32_t)rq->iov[s].iov_len - o, take = left < len ? left : len;
		uintptr_t end = va + take;

		for (uintptr_t p = va; p < end; p = (p | (NPCI_PAGE - 1)) + 1) {
			uint64_t bus = 0;
			int ret = bus_of(nd, qp, p, end, &bus);

			if (ret)
				return ret;
			if (np++)
				cmd->prp[np - 2] = bus;
			else
				sqe->prp1 = bus;
		}
		len -= take;
		s++;
		o = 0;
	}
	sqe->prp2 = np == 2 ? cmd->prp[0] : np > 2 ? cmd->prp_bus : 0;
	return 0;
}

/* PRP entries of @len bytes at @buf, page aligned in the driver's own memory (a bounce buffer). */
static void prp_own(const struct npci_dev *nd, struct npci_cmd *cmd, const uint8_t *buf, uint32_t len,
		    struct nvme_sqe *sqe)
{
	unsigned int np = (len + NPCI_PAGE - 1) / NPCI_PAGE;

	sqe->prp1 = npci_bus(&nd->io, buf);
	for (unsigned int i = 1; i < np; i++)
		cmd->prp[i - 1] = npci_bus(&nd->io, buf + (size_t)i * NPCI_PAGE);
	sqe->prp2 = np == 2 ? cmd->prp[0] : np > 2 ? cmd->prp_bus : 0;
}

/* Copy the request's bytes [off, off + len) to (@in: from) @buf. */
static void copy_iov(const struct rq_request *rq, uint32_t off, uint32_t len, uint8_t *buf, bool to_buf)
{
	for (unsigned int s = 0; len && s < rq->nr_segs; s++) {
		uint32_t sl = (uint32_t)rq->iov[s].iov_len, take;
		uint8_t *p = rq->iov[s].iov_base;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		take = sl - off < len ? sl - off : len;
		if (to_buf)
			memcpy(buf, p + off, take);
		else
			memcpy(p + off, buf, take);
		buf += take;
		len -= take;
		off = 0;
	}
}

static void say_once_too_big(struct npci_dev *nd, const struct rq_request *rq, unsigned int n)
{
	if (atomic_fetch_add_explicit(&nd->errors, 1, memory_order_relaxed) <
	    NPCI_ERRORS_SHOWN)
		fprintf(stderr, "rqlock: nvme-pci %s: a request of %" PRIu32 " bytes needs %u commands of at most "
			"%" PRIu32 " bytes, a queue pair has %u (qsize=%u): a larger qsize= takes it\n", nd->fn.bdf,
			rq->len, n, nd->cmd_max, nd->nr_cids, nd->qsize);
}

/*
 * Room for @rq's @n commands: RQ_Q_QUEUED with the request set up to count
 * them down (res = len until an error, dev_priv = commands left), RQ_Q_BUSY
 * until completions give identifiers back, RQ_Q_DONE if it can never fit.
 */
static int cmds_reserve(struct npci_dev *nd, struct npci_qp *qp, struct rq_request *rq, unsigned int n)
{
	if (unlikely(n > nd->nr_cids)) {
		say_once_too_big(nd, rq, n);
		rq->res = -EINVAL;
		return RQ_Q_DONE;
	}
	if (cids_free(qp) < n)
		return RQ_Q_BUSY;
	rq->res = (int32_t)rq->len;
	rq->dev_priv = (void *)(uintptr_t)n;
	return RQ_Q_QUEUED;
}

/*
 * One read or write command, @len bytes from segment @s, offset @o of @rq
 * (byte @byte of the request), written straight into the submission
 * queue's tail entry, which is free: at most qsize - 1 commands are out,
 * so the one that used it before has completed.  0, or -errno when its
 * pages cannot be mapped (nothing advanced then).
 */
static int rw_cmd(struct npci_dev *nd, struct npci_qp *qp, struct rq_request *rq, unsigned int s, uint32_t o,
		  uint32_t len, uint32_t byte)
{
	struct nvme_sqe *sqe = &qp->sq[qp->sq_tail];
	uint64_t slba = (rq->offset + byte) >> nd->lba_shift;
	struct npci_cmd *cmd = &qp->cmds[qp->ring[qp->cons & qp->mask]];

	cmd->off = byte;
	cmd->len = len;
	if (nd->bounce) {
		if (rq->op == RQ_OP_WRITE)
			copy_iov(rq, byte, len, cmd->bounce, true);
		prp_own(nd, cmd, cmd->bounce, len, sqe);
	} else {
		int ret = prp_direct(nd, qp, cmd, rq, s, o, len, sqe);

		if (unlikely(ret))
			return ret;
	}
	sqe->opcode = rq->op == RQ_OP_WRITE ? NVME_IO_WRITE : NVME_IO_READ;
	sqe->flags = 0;
	sqe->cid = qp->ring[qp->cons++ & qp->mask];
	sqe->nsid = nd->ctrl.id.nsid;
	sqe->cdw2 = sqe->cdw3 = 0;
	sqe->mptr = 0;
	sqe->cdw10 = (uint32_t)slba;
	sqe->cdw11 = (uint32_t)(slba >> 32);
	sqe->cdw12 = (len >> nd->lba_shift) - 1;
	sqe->cdw13 = sqe->cdw14 = sqe->cdw15 = 0;
	atomic_store_explicit(&cmd->rq, rq, memory_order_release);
	if (++qp->sq_tail == nd->qsize)
		qp->sq_tail = 0;
	qp->nr_cmds++;
	return 0;
}

static int submit_rw(struct npci_dev *nd, struct npci_qp *qp, struct rq_request *rq)
{
	uint32_t mask = (1u << nd->lba_shift) - 1, o = 0, byte = 0, cons0 = qp->cons, tail0 = qp->sq_tail;
	uint64_t cmds0 = qp->nr_cmds;
	unsigned int s = 0;
	int st, ret = 0;

	if (unlikely(((rq->offset | rq->len) & mask) || !rq->nr_segs)) {
		rq->res = -EINVAL;
		return RQ_Q_DONE;
	}
	rq_request_map(rq);
	if (likely(rq->nr_segs == 1 && rq->len <= nd->cmd_max)) {
		/* the common case: one command, no cutting */
		st = cmds_reserve(nd, qp, rq, 1);
		if (st != RQ_Q_QUEUED)
			return st;
		ret = rw_cmd(nd, qp, rq, 0, 0, rq->len, 0);
	} else {
		st = cmds_reserve(nd, qp, rq, cmd_count(nd, rq));
		if (st != RQ_Q_QUEUED)
			return st;
		while (!ret && s < rq->nr_segs) {
			unsigned int s0 = s;
			uint32_t o0 = o, len = cmd_cut(nd, rq, &s, &o);

			ret = rw_cmd(nd, qp, rq, s0, o0, len, byte);
			byte += len;
		}
	}
	if (unlikely(ret)) {
		/* nothing rung yet: the identifiers and entries are still ours */
		qp->cons = cons0;
		qp->sq_tail = tail0;
		qp->nr_cmds = cmds0;
		rq->res = ret;
		return RQ_Q_DONE;
	}
	sq_ring(qp);
	return RQ_Q_QUEUED;
}

/* Flush: the volatile write cache to media; nothing to do without one. */
static int submit_flush(struct npci_dev *nd, struct npci_qp *qp, struct rq_request *rq)
{
	struct nvme_sqe sqe = { .opcode = NVME_IO_FLUSH, .nsid = nd->ctrl.id.nsid };
	struct npci_cmd *cmd;

	rq->res = (int32_t)rq->len;
	if (!nd->vwc)
		return RQ_Q_DONE;
	if (!cids_free(qp))
		return RQ_Q_BUSY;
	rq->dev_priv = (void *)(uintptr_t)1;
	cmd = cid_take(qp, &sqe.cid);
	cmd->off = cmd->len = 0;
	atomic_store_explicit(&cmd->rq, rq, memory_order_release);
	sq_push(nd, qp, &sqe);
	sq_ring(qp);
	return RQ_Q_QUEUED;
}

/*
 * A discard: Dataset Management with the deallocate attribute (ranges in
 * the identifier's PRP page), or Write Zeroes, split by the controller's
 * limits (DMRL, DMRSL; WZSL).
 */
static int submit_trim(struct npci_dev *nd, struct npci_qp *qp, struct rq_request *rq)
{
	uint64_t lba = rq->offset >> nd->lba_shift, left = (uint64_t)rq->len >> nd->lba_shift;
	uint64_t per = nd->trim_dsm ? (uint64_t)nd->dsm_ranges * nd->dsm_range_blocks : nd->wz_blocks;
	unsigned int n = (unsigned int)((left + per - 1) / per);
	int st;

	if (unlikely(((rq->offset | rq->len) & ((1u << nd->lba_shift) - 1)) || !left)) {
		rq->res = left ? -EINVAL : 0;
		return RQ_Q_DONE;
	}
	st = cmds_reserve(nd, qp, rq, n);
	if (st != RQ_Q_QUEUED)
		return st;
	while (left) {
		uint64_t blocks = left < per ? left : per;
		struct nvme_sqe sqe = { .nsid = nd->ctrl.id.nsid };
		struct npci_cmd *cmd = cid_take(qp, &sqe.cid);

		if (nd->trim_dsm) {
			unsigned int nr = 0;

			for (uint64_t b = 0; b < blocks; nr++) {
				uint64_t l = blocks - b < nd->dsm_range_blocks ? blocks - b : nd->dsm_range_blocks;

				cmd->prp[2 * nr] = l << 32;	/* context attributes 0, length in blocks */
				cmd->prp[2 * nr + 1] = lba + b;	/* starting LBA */
				b += l;
			}
			sqe.opcode = NVME_IO_DSM;
			sqe.prp1 = cmd->prp_bus;
			sqe.cdw10 = nr - 1;
			sqe.cdw11 = 1u << 2;	/* AD: deallocate */
		} else {
			sqe.opcode = NVME_IO_WRITE_ZEROES;
			sqe.cdw10 = (uint32_t)lba;
			sqe.cdw11 = (uint32_t)(lba >> 32);
			sqe.cdw12 = (uint32_t)(blocks - 1) | (nd->wz_deac ? 1u << 25 : 0);
		}
		cmd->off = cmd->len = 0;
		atomic_store_explicit(&cmd->rq, rq, memory_order_release);
		sq_push(nd, qp, &sqe);
		lba += blocks;
		left -= blocks;
	}
	sq_ring(qp);
	return RQ_Q_QUEUED;
}

static void __attribute__((noreturn, cold)) npci_two_dispatchers(const struct npci_dev *nd,
								 const struct npci_qp *qp, int id)
{
	fprintf(stderr, "rqlock: BUG: nvme-pci %s: workers %d and %d inside queue_rq on queue pair %u at once: "
		"the lock mode does not serialise its submission queue\n", nd->fn.bdf, qp->dispatcher, id, qp->qid);
	abort();
}

static int npci_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct npci_dev *nd = dev->priv;
	unsigned int id = (unsigned int)rq_ctx_id(cpu);
	struct npci_qp *qp;
	int st;

	if (unlikely(rq->hwq >= nd->nr_qp || id >= nd->nr_cpus)) {
		rq->res = -EPROTO;	/* a context with no pair of its own: never with RQ_DEV_HWQ_LIMIT */
		return RQ_Q_DONE;
	}
	qp = &nd->qp[rq->hwq];
	if (unlikely(qp->dispatcher != -1))
		npci_two_dispatchers(nd, qp, (int)id);
	qp->dispatcher = (int)id;
	if (unlikely(!atomic_load_explicit(&qp->reaper[id], memory_order_relaxed)))
		atomic_store_explicit(&qp->reaper[id], 1, memory_order_relaxed);
	switch (rq->op) {
	case RQ_OP_READ:
	case RQ_OP_WRITE:
		st = submit_rw(nd, qp, rq);
		break;
	case RQ_OP_FLUSH:
		st = submit_flush(nd, qp, rq);
		break;
	default:
		st = submit_trim(nd, qp, rq);
		break;
	}
	qp->dispatcher = -1;
	return st;
}

/* ---- completions ---- */

static void cmd_error(struct npci_dev *nd, struct rq_request *rq, const struct npci_cmd *cmd, uint16_t status)
{
	char name[96];
	int err = npci_status_errno(status, name, sizeof(name));

	if (rq->res == (int32_t)rq->len)
		rq->res = err;	/* the first error is the request's */
	if (atomic_fetch_add_explicit(&nd->errors, 1, memory_order_relaxed) < NPCI_ERRORS_SHOWN)
		fprintf(stderr, "rqlock: nvme-pci %s: %s of %" PRIu32 " bytes at byte %" PRIu64 ": %s\n",
			nd->fn.bdf, rq_op_name(rq->op), cmd->len ? cmd->len : rq->len, rq->offset + cmd->off, name);
}

/*
 * Reap @qp's completion queue, nvme_cq_lock held: identifiers back to the
 * ring, read data out of the bounce buffers, and the requests whose last
 * command ended on the returned list (oldest first), to be ended once the
 * lock is dropped.
 */
static struct rq_request *reap_cq(struct npci_dev *nd, struct npci_qp *qp)
{
	struct rq_request *head = NULL, **tail = &head;
	uint32_t prod = atomic_load_explicit(&qp->prod, memory_order_relaxed), seen = 0;

	for (;;) {
		volatile struct nvme_cqe *c = &qp->cq[qp->cq_head];
		uint16_t status = c->status, cid;
		struct npci_cmd *cmd;
		struct rq_request *rq;

		if ((status & 1u) != qp->phase)
			break;
		npci_dma_rmb();	/* the entry after its phase */
		cid = c->cid;
		cmd = &qp->cmds[cid < nd->nr_cids ? cid : 0];
		rq = atomic_load_explicit(&cmd->rq, memory_order_acquire);
		if (unlikely(status >> 1))
			cmd_error(nd, rq, cmd, (uint16_t)(status >> 1));
		else if (nd->bounce && rq->op == RQ_OP_READ)
			copy_iov(rq, cmd->off, cmd->len, cmd->bounce, false);
		qp->ring[prod++ & qp->mask] = cid;
		rq->dev_priv = (void *)((uintptr_t)rq->dev_priv - 1);
		if (!rq->dev_priv) {
			rq->next = NULL;
			*tail = rq;
			tail = &rq->next;
		}
		if (++qp->cq_head == nd->qsize) {
			qp->cq_head = 0;
			qp->phase ^= 1;
		}
		seen++;
	}
	if (seen) {
		*qp->cq_db = qp->cq_head;
		atomic_store_explicit(&qp->prod, prod, memory_order_release);
		atomic_store_explicit(&qp->peek, qp->cq_head | qp->phase << 31, memory_order_relaxed);
	}
	return head;
}

static int npci_poll(struct rq_dev *dev, struct rq_ctx *cpu)
{
	struct npci_dev *nd = dev->priv;
	unsigned int id = (unsigned int)rq_ctx_id(cpu);
	int n = 0;

	if (id >= nd->nr_cpus)
		return 0;
	for (unsigned int i = 0; i < nd->nr_qp; i++) {
		struct npci_qp *qp = &nd->qp[i];
		uint32_t peek = atomic_load_explicit(&qp->peek, memory_order_relaxed);
		struct rq_request *done;

		if (!atomic_load_explicit(&qp->reaper[id], memory_order_relaxed) ||
		    (((volatile struct nvme_cqe *)qp->cq)[peek & 0x7fffffffu].status & 1u) != peek >> 31)
			continue;
		if (!rq_trylock(&qp->cq_lock, (int)id))
			continue;	/* another worker reaps it now */
		done = reap_cq(nd, qp);
		rq_unlock(&qp->cq_lock, (int)id);
		while (done) {
			struct rq_request *next = done->next;

			rq_end_request(done, cpu, 0);
			done = next;
			n++;
		}
	}
	return n;
}

static bool npci_pending(struct rq_dev *dev, struct rq_ctx *cpu)
{
	const struct npci_dev *nd = dev->priv;
	unsigned int id = (unsigned int)rq_ctx_id(cpu);

	for (unsigned int i = 0; id < nd->nr_cpus && i < nd->nr_qp; i++) {
		struct npci_qp *qp = &nd->qp[i];

		if (atomic_load_explicit(&qp->reaper[id], memory_order_relaxed) &&
		    atomic_load_explicit(&qp->prod, memory_order_relaxed) -
		    atomic_load_explicit(&qp->cons_pub, memory_order_relaxed) != nd->nr_cids)
			return true;
	}
	return false;
}

/* The cq locks are the run's: lockstat and lockdep count them. */
static int npci_attach(struct rq_dev *dev, struct rq_queue *q)
{
	struct npci_dev *nd = dev->priv;

	(void)q;
	for (unsigned int i = 0; i < nd->nr_qp; i++)
		rq_lock_init(&nd->qp[i].cq_lock, &nvme_cq_lock_class, nd->qp[i].lock_name);
	return 0;
}

/* ---- open and close ---- */

/*
 * One command on pair 0 while nothing else runs (open): submit @sqe, poll
 * its completion.  0 or -errno with the status in @why.
 */
static int sync_cmd(struct npci_dev *nd, struct nvme_sqe *sqe, const char *what, char *why, size_t wl)
{
	struct npci_qp *qp = &nd->qp[0];
	uint64_t end = rq_clock_mono_ns() + 10000000000ull;
	volatile struct nvme_cqe *c;
	char name[96];
	uint16_t st;
	int ret;

	cid_take(qp, &sqe->cid);
	sq_push(nd, qp, sqe);
	sq_ring(qp);
	for (c = &qp->cq[qp->cq_head]; (c->status & 1u) != qp->phase;) {
		if (rq_clock_mono_ns() > end) {
			snprintf(why, wl, "%s: no completion in 10 s", what);
			return -ETIMEDOUT;
		}
		sched_yield();
	}
	npci_dma_rmb();
	st = (uint16_t)(c->status >> 1);
	qp->ring[atomic_load_explicit(&qp->prod, memory_order_relaxed) & qp->mask] = c->cid;
	atomic_fetch_add_explicit(&qp->prod, 1, memory_order_release);
	if (++qp->cq_head == nd->qsize) {
		qp->cq_head = 0;
		qp->phase ^= 1;
	}
	*qp->cq_db = qp->cq_head;
	atomic_store_explicit(&qp->peek, qp->cq_head | qp->phase << 31, memory_order_relaxed);
	ret = npci_status_errno(st, name, sizeof(name));
	if (ret)
		snprintf(why, wl, "%s: %s", what, name);
	return ret;
}

/* Read [@off, @off + @len) of the namespace into @buf, through the scratch buffer. */
static int sync_read(struct npci_dev *nd, uint64_t off, uint8_t *buf, size_t len, char *why, size_t wl)
{
	uint32_t chunk = nd->cmd_max < NPCI_SCRATCH ? nd->cmd_max : NPCI_SCRATCH;

	while (len) {
		uint32_t n = len < chunk ? (uint32_t)len : chunk;
		uint32_t blocks = (n + (1u << nd->lba_shift) - 1) >> nd->lba_shift;
		uint64_t lba = off >> nd->lba_shift;
		struct nvme_sqe sqe = {
			.opcode = NVME_IO_READ,
			.nsid = nd->ctrl.id.nsid,
			.cdw10 = (uint32_t)lba,
			.cdw11 = (uint32_t)(lba >> 32),
			.cdw12 = blocks - 1,
		};
		int ret;

		/* the ring's next identifier holds the PRP list: it is the one sync_cmd takes */
		prp_own(nd, &nd->qp[0].cmds[nd->qp[0].ring[nd->qp[0].cons & nd->qp[0].mask]], nd->scratch,
			blocks << nd->lba_shift, &sqe);
		ret = sync_cmd(nd, &sqe, "Read", why, wl);
		if (ret)
			return ret;
		memcpy(buf, nd->scratch, n);
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* Refuse to write to a namespace that holds a filesystem or another signature (blk.c's list). */
static int check_signature(struct npci_dev *nd, const struct rq_dev_open *o, uint64_t size, FILE *err)
{
	size_t n = RQ_SIGNATURE_SCAN_BYTES < size ? RQ_SIGNATURE_SCAN_BYTES : (size_t)size;
	uint8_t *head = malloc(n);
	char why[160];
	const char *sig;
	int ret;

	if (!head)
		return -ENOMEM;
	ret = sync_read(nd, 0, head, n, why, sizeof(why));
	if (ret) {
		fprintf(err, "%s: %s: reading namespace %u's first blocks: %s\n", o->where, o->spec,
			nd->ctrl.id.nsid, why);
		free(head);
		return ret;
	}
	sig = rq_blk_signature(head, n);
	if (sig)
		fprintf(err, "%s: refusing to write to %s: namespace %u holds a %s signature "
			"(--allow-mounted-write to override)\n", o->where, o->spec, nd->ctrl.id.nsid, sig);
	free(head);
	return sig ? -EBUSY : 0;
}

/* The bytes per command, the discard and write-zeroes limits, the flush, from Identify. */
static int limits_setup(struct npci_dev *nd, struct rq_dev *dev, const char *where, const char *spec, FILE *err)
{
	const struct npci_id *id = &nd->ctrl.id;
	uint64_t max = id->mdts ? (uint64_t)NPCI_PAGE << id->mdts : NPCI_MAX_CMD;
	uint32_t unit = (1u << id->lbads) > NPCI_PAGE ? 1u << id->lbads : NPCI_PAGE;
	bool dsm = id->oncs & 4, wz = id->oncs & 8;

	nd->lba_shift = id->lbads;
	if (max > NPCI_MAX_CMD)
		max = NPCI_MAX_CMD;
	if (nd->bounce && max > NPCI_BOUNCE_MAX)
		max = NPCI_BOUNCE_MAX;
	if (max > (65536ull << id->lbads))
		max = 65536ull << id->lbads;
	nd->cmd_max = (uint32_t)(max / unit * unit);
	nd->vwc = id->vwc & 1;
	nd->dsm_ranges = id->dmrl ? id->dmrl : 256;	/* a page of 16-byte ranges */
	nd->dsm_range_blocks = id->dmrsl ? id->dmrsl : 0xffffffffu;
	nd->wz_blocks = 65536;
	if (id->wzsl && ((uint64_t)NPCI_PAGE << id->wzsl >> id->lbads) < nd->wz_blocks)
		nd->wz_blocks = (uint32_t)((uint64_t)NPCI_PAGE << id->wzsl >> id->lbads);
	nd->wz_deac = id->dlfeat & 8;
	if (!strcmp(nd->o.trim, "auto")) {
		nd->trim_dsm = dsm && (id->dlfeat & 7) == 1;	/* deallocated blocks read as zeroes */
		nd->trim_wz = !nd->trim_dsm && wz;
	} else if (!strcmp(nd->o.trim, "dsm") || !strcmp(nd->o.trim, "write-zeroes")) {
		nd->trim_dsm = nd->o.trim[0] == 'd';
		nd->trim_wz = !nd->trim_dsm;
		if (nd->trim_dsm ? !dsm : !wz) {
			fprintf(err, "%s: %s: trim=%s: the controller has no %s command (ONCS 0x%x)\n", where, spec,
				nd->o.trim, nd->trim_dsm ? "Dataset Management" : "Write Zeroes", id->oncs);
			return -EINVAL;
		}
	} else {
		fprintf(err, "%s: %s: trim=%s: expected auto, dsm or write-zeroes\n", where, spec, nd->o.trim);
		return -EINVAL;
	}
	if (!nd->trim_dsm && !nd->trim_wz)
		dev->flags &= ~RQ_DEV_DISCARD;
	return 0;
}

/* The I/O region: queues first (each must be contiguous), PRP pages, bounce buffers, scratch. */
static int qpairs_alloc(struct npci_dev *nd, char *why, size_t wl)
{
	size_t sq = ((size_t)nd->qsize * 64 + NPCI_PAGE - 1) / NPCI_PAGE * NPCI_PAGE;
	size_t cq = ((size_t)nd->qsize * 16 + NPCI_PAGE - 1) / NPCI_PAGE * NPCI_PAGE;
	size_t per_cid = NPCI_PAGE + (nd->bounce ? nd->cmd_max : 0), at;
	size_t total = nd->nr_qp * (sq + cq + nd->nr_cids * per_cid) + NPCI_SCRATCH;
	int ret = npci_dma_alloc(&nd->dma, total, &nd->io, why, wl);

	if (ret)
		return ret;
	nd->qp = rq_zalloc_lines(sizeof(*nd->qp) * nd->nr_qp);
	if (!nd->qp)
		return -ENOMEM;
	at = 0;
	for (unsigned int i = 0; i < nd->nr_qp; i++) {
		struct npci_qp *qp = &nd->qp[i];

		qp->sq = (struct nvme_sqe *)(void *)(nd->io.va + at);
		qp->cq = (struct nvme_cqe *)(void *)(nd->io.va + at + sq);
		if (!npci_region_contiguous(&nd->io, qp->sq, sq) || !npci_region_contiguous(&nd->io, qp->cq, cq)) {
			snprintf(why, wl, "qsize=%u: a queue is not contiguous in this memory (qsize=64 fits a page)",
				 nd->qsize);
			return -ENOMEM;
		}
		at += sq + cq;
	}
	for (unsigned int i = 0; i < nd->nr_qp; i++) {
		struct npci_qp *qp = &nd->qp[i];

		qp->cmds = calloc(nd->nr_cids, sizeof(*qp->cmds));
		for (qp->mask = 1; qp->mask < nd->nr_cids; qp->mask <<= 1)
			;
		qp->ring = calloc(qp->mask, sizeof(*qp->ring));
		qp->mask--;
		qp->reaper = calloc(nd->nr_cpus, sizeof(*qp->reaper));
		if (!qp->cmds || !qp->ring || !qp->reaper)
			return -ENOMEM;
		for (unsigned int k = 0; k < nd->nr_cids; k++) {
			qp->cmds[k].prp = (uint64_t *)(void *)(nd->io.va + at);
			qp->cmds[k].prp_bus = npci_bus(&nd->io, qp->cmds[k].prp);
			at += NPCI_PAGE;
			if (nd->bounce) {
				qp->cmds[k].bounce = nd->io.va + at;
				at += nd->cmd_max;
			}
			qp->ring[k] = (uint16_t)k;
		}
		atomic_init(&qp->prod, nd->nr_cids);
	}
	nd->scratch = nd->io.va + at;
	return 0;
}

/* Set Features, then each pair: its queues created, its doorbells, its lock's name. */
static int qpairs_setup(struct npci_dev *nd, unsigned int want, char *why, size_t wl)
{
	int got = npci_ctrl_set_queues(&nd->ctrl, want, why, wl);
	int ret;

	if (got < 0)
		return got;
	nd->nr_qp = (unsigned int)got;
	nd->qsize = (unsigned int)nd->o.qsize < nd->ctrl.mqes ? (unsigned int)nd->o.qsize : nd->ctrl.mqes;
	nd->nr_cids = nd->qsize - 1;
	ret = qpairs_alloc(nd, why, wl);
	for (unsigned int i = 0; !ret && i < nd->nr_qp; i++) {
		struct npci_qp *qp = &nd->qp[i];

		qp->qid = i + 1;
		qp->dispatcher = -1;
		for (unsigned int t = 0; t < NPCI_TLB; t++)
			qp->tlb[t].page = UINTPTR_MAX;	/* no page */
		qp->sq_db = npci_doorbell(&nd->ctrl, qp->qid, false);
		qp->cq_db = npci_doorbell(&nd->ctrl, qp->qid, true);
		qp->phase = 1;
		atomic_init(&qp->peek, 1u << 31);
		snprintf(qp->lock_name, sizeof(qp->lock_name), "nvme_cq:%s/%u", nd->fn.bdf, qp->qid);
		ret = npci_ctrl_create_qpair(&nd->ctrl, qp->qid, nd->qsize, npci_bus(&nd->io, qp->sq),
					     npci_bus(&nd->io, qp->cq), why, wl);
	}
	return ret;
}

static int npci_opts_check(struct npci_dev *nd, const struct rq_dev_open *o, FILE *err)
{
	char bdf[16];
	int ret = rq_dev_opts_parse(npci_options, &nd->o, o->spec, rq_dev_spec_opts(o->spec), err);

	if (ret)
		return ret;
	if (!nd->o.addr[0] || rq_pci_bdf_parse(nd->o.addr, bdf, sizeof(bdf))) {
		fprintf(err, "%s: %s: addr=%s: expected the controller's PCI address, e.g. addr=0000:00:04.0 "
			"(in a job file addr=0000\\:00\\:04.0)\n", o->where, o->spec,
			nd->o.addr[0] ? nd->o.addr : "(missing)");
		return -EINVAL;
	}
	if (!nd->o.ns || nd->o.ns > 0xfffffffeull || nd->o.qsize < 2 || nd->o.qsize > 65536 ||
	    nd->o.qpairs > NPCI_MAX_QPAIRS) {
		fprintf(err, "%s: %s: ns must be 1..4294967294, qsize 2..65536, qpairs 0..%u\n", o->where, o->spec,
			NPCI_MAX_QPAIRS);
		return -EINVAL;
	}
	if (strcmp(nd->o.dma, "auto") && strcmp(nd->o.dma, "vfio") && strcmp(nd->o.dma, "uio")) {
		fprintf(err, "%s: %s: dma=%s: expected auto, vfio or uio\n", o->where, o->spec, nd->o.dma);
		return -EINVAL;
	}
	ret = rq_pci_fn_read(bdf, &nd->fn);
	if (ret)
		fprintf(err, "%s: %s: no PCI device %s on this machine (rqlock devices lists the NVMe "
			"controllers)\n", o->where, o->spec, bdf);
	return ret;
}

/* ---- Identify against nvme-cli's reading of it ---- */

struct id_field {
	const char *key;
	const char *s;			/* a string field, or NULL for a number */
	uint64_t n;
};

/* Each of @f in JSON object @o: 0, or -EPROTO with the first disagreement in @why. */
static int id_fields(const struct rq_jv *o, const struct id_field *f, unsigned int nr, const char *what,
		     char *why, size_t wl)
{
	for (unsigned int i = 0; i < nr; i++) {
		const char *js = rq_jv_str(o, f[i].key);
		double x;

		if (f[i].s) {
			size_t n = js ? strlen(js) : 0;

			while (n && js[n - 1] == ' ')
				n--;
			if (js && n == strlen(f[i].s) && !strncmp(js, f[i].s, n))
				continue;
			snprintf(why, wl, "%s: nvme-cli read %s \"%.40s\", rqlock's Identify reads \"%s\"", what,
				 f[i].key, js ? js : "(none)", f[i].s);
			return -EPROTO;
		}
		if (rq_jv_num(o, f[i].key, &x) && (uint64_t)x == f[i].n)
			continue;
		snprintf(why, wl, "%s: nvme-cli read %s %s, rqlock's Identify reads %" PRIu64, what, f[i].key,
			 rq_jv_get(o, f[i].key) ? "otherwise" : "nothing", f[i].n);
		return -EPROTO;
	}
	return 0;
}

static int id_file(const char *path, struct rq_jv *j, char *why, size_t wl)
{
	FILE *f = fopen(path, "r");
	size_t n = 0, cap = 1 << 20;
	char *text = malloc(cap);
	int ret;

	if (!f || !text) {
		snprintf(why, wl, "%s: %s", path, strerror(f ? ENOMEM : errno));
		if (f)
			fclose(f);
		free(text);
		return -ENOENT;
	}
	n = fread(text, 1, cap - 1, f);
	fclose(f);
	text[n] = 0;
	ret = rq_jv_parse(text, j);
	free(text);
	if (ret)
		snprintf(why, wl, "%s: not nvme-cli's JSON output", path);
	return ret;
}

/*
 * id-ctrl=FILE, id-ns=FILE: nvme-cli's reading of this controller and
 * namespace, taken while the kernel had it, must agree with Identify.
 */
static int id_check(struct npci_dev *nd, char *why, size_t wl)
{
	const struct npci_id *id = &nd->ctrl.id;
	const struct id_field ctrl[] = {
		{ "vid", NULL, id->vid }, { "sn", id->sn, 0 }, { "mn", id->mn, 0 }, { "fr", id->fr, 0 },
		{ "mdts", NULL, id->mdts }, { "nn", NULL, id->nn }, { "oncs", NULL, id->oncs },
		{ "vwc", NULL, id->vwc },
	};
	const struct id_field ns[] = {
		{ "nsze", NULL, id->nsze }, { "flbas", NULL, id->flbas }, { "nlbaf", NULL, id->nlbaf },
		{ "dlfeat", NULL, id->dlfeat },
	};
	const struct id_field lbaf[] = { { "ds", NULL, id->lbads }, { "ms", NULL, id->ms } };
	struct rq_jv j;
	int ret = 0;

	if (nd->o.id_ctrl[0]) {
		ret = id_file(nd->o.id_ctrl, &j, why, wl);
		if (ret)
			return ret;
		ret = id_fields(&j, ctrl, sizeof(ctrl) / sizeof(ctrl[0]), nd->o.id_ctrl, why, wl);
		rq_jv_free(&j);
	}
	if (!ret && nd->o.id_ns[0]) {
		const struct rq_jv *l;

		ret = id_file(nd->o.id_ns, &j, why, wl);
		if (ret)
			return ret;
		ret = id_fields(&j, ns, sizeof(ns) / sizeof(ns[0]), nd->o.id_ns, why, wl);
		l = rq_jv_get(&j, "lbafs");
		if (!ret && (!l || l->t != RQ_J_ARR || id->lbaf >= l->nr)) {
			snprintf(why, wl, "%s: no lbafs[%u] in nvme-cli's output", nd->o.id_ns, id->lbaf);
			ret = -EPROTO;
		}
		if (!ret)
			ret = id_fields(&l->kids[id->lbaf], lbaf, 2, nd->o.id_ns, why, wl);
		rq_jv_free(&j);
	}
	return ret;
}

static void npci_facts(struct npci_dev *nd, struct rq_dev *dev)
{
	const struct npci_id *id = &nd->ctrl.id;

	dev->size = id->nsze << id->lbads;
	dev->lbs = 1u << id->lbads;
	dev->depth = nd->nr_cids;
	dev->max_bytes = nd->cmd_max;	/* merges stay within one command; a larger bio splits */
	/* a merged request is at most a command per segment: never more than a pair holds */
	dev->max_segs = nd->nr_cids < RQ_MAX_SEGS ? nd->nr_cids : RQ_MAX_SEGS;
	dev->nr_hw_queues = nd->nr_qp;
	dev->rotational = 0;
	snprintf(dev->path, sizeof(dev->path), "%s", nd->fn.bdf);
	snprintf(dev->subkind, sizeof(dev->subkind), "nvme");
	snprintf(dev->transport, sizeof(dev->transport), "pcie");
	snprintf(dev->serial, sizeof(dev->serial), "%s", id->sn);
	snprintf(dev->model, sizeof(dev->model), "%.32s nsid=%u %s%s", id->mn, id->nsid,
		 npci_way_name(nd->dma.way), nd->o.id_ctrl[0] || nd->o.id_ns[0] ? " id:nvme-cli" : "");
	atomic_store_explicit(&dev->registered, RQ_DEV_REG_PROBED |
			      (nd->dma.way == NPCI_VFIO ? RQ_DEV_REG_VFIO : RQ_DEV_REG_UIO), memory_order_relaxed);
}

static int npci_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	struct npci_dev *nd = calloc(1, sizeof(*nd));
	char why[320];
	unsigned int want;
	int ret;

	if (!nd)
		return -ENOMEM;
	dev->priv = nd;
	nd->nr_cpus = o->nr_cpus ? o->nr_cpus : 1;
	ret = npci_opts_check(nd, o, err);
	if (ret)
		return ret;
	ret = npci_dma_open(&nd->dma, &nd->fn, nd->o.dma, why, sizeof(why));
	nd->dma_open = true;
	nd->bounce = nd->dma.way == NPCI_UIO;
	if (!ret) {
		ret = npci_ctrl_start(&nd->ctrl, &nd->dma, (uint32_t)nd->o.ns, why, sizeof(why));
		if (nd->ctrl.enabled)
			exit_track(nd, true);
	}
	if (!ret && (ret = limits_setup(nd, dev, o->where, o->spec, err)))
		return ret;
	want = nd->o.qpairs ? (unsigned int)nd->o.qpairs : nd->nr_cpus;
	if (!ret)
		ret = id_check(nd, why, sizeof(why));
	if (!ret)
		ret = qpairs_setup(nd, want < NPCI_MAX_QPAIRS ? want : NPCI_MAX_QPAIRS, why, sizeof(why));
	if (ret) {
		fprintf(err, "%s: %s: %s\n", o->where, o->spec, why);
		return ret;
	}
	npci_facts(nd, dev);
	if (o->min_size > dev->size) {
		fprintf(err, "%s: %s: namespace %u has %" PRIu64 " bytes, the jobs need %" PRIu64 "\n", o->where,
			o->spec, nd->ctrl.id.nsid, dev->size, o->min_size);
		return -ENOSPC;
	}
	if (o->write && !o->allow_mounted_write)
		return check_signature(nd, o, dev->size, err);
	return 0;
}

static void npci_close(struct rq_dev *dev)
{
	struct npci_dev *nd = dev->priv;

	if (!nd)
		return;
	/* the controller stops before any of its memory goes */
	if (nd->ctrl.regs) {
		npci_ctrl_stop(&nd->ctrl, nd->nr_qp);
		exit_track(nd, false);
	}
	npci_dma_free(&nd->dma, &nd->io);
	npci_dma_free(&nd->dma, &nd->ctrl.admin);
	for (unsigned int i = 0; nd->qp && i < nd->nr_qp; i++) {
		free(nd->qp[i].cmds);
		free(nd->qp[i].ring);
		free((void *)nd->qp[i].reaper);
		free(nd->qp[i].maps);
	}
	free(nd->qp);
	if (nd->dma_open)
		npci_dma_close(&nd->dma);
	free(nd);
	dev->priv = NULL;
}


const struct rq_dev_ops rq_dev_nvme_pci = {
	.name = "nvme-pci",
	.builtin = "@nvme-pci",
	.help = "a userspace NVMe driver on a controller bound to vfio-pci or uio_pci_generic "
		"(scripts/nvme-bind): addr= its PCI address",
	.options = npci_options,
	.flags = RQ_DEV_HAS_DATA | RQ_DEV_ALIGNED | RQ_DEV_DISCARD | RQ_DEV_FLUSH | RQ_DEV_HWQ_LIMIT,
	.open = npci_open,
	.close = npci_close,
	.attach = npci_attach,
	.queue_rq = npci_queue_rq,
	.poll = npci_poll,
	.pending = npci_pending,
};
