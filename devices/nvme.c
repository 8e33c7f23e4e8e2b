// SPDX-License-Identifier: MIT
/*
 * nvme.c - nvme-pt: NVMe passthrough on the generic character device
 * /dev/ngXnY with io_uring's IORING_OP_URING_CMD (SQE128 | CQE32 rings).
 *
 * Selected by ioengine=io_uring_cmd (fio's name) or by naming an ng
 * device under any io_uring engine.  Opening it:
 *  - NVME_IOCTL_ID gives the namespace id; an Identify Namespace admin
 *    command (opcode 0x06, CNS 0) gives its size (NSZE) and the LBA format
 *    in use (FLBAS -> LBAF: LBADS = log2 of the block size, MS = metadata
 *    bytes).  Formats with metadata are refused: rqlock sends no metadata
 *    buffer.  When nvme-cli is installed, `nvme id-ns DEV -o json` must
 *    agree on nsze, flbas and the format's ds, or the open fails.
 *  - The namespace's block device (nvmeXnY, the ng name with "nvme" for
 *    "ng", same nsid) gives the queue facts (nr_requests,
 *    max_hw_sectors_kb) and is where the write-safety checks look
 *    (mounted, holders, O_EXCL, signature); without one the signature is
 *    read with a passthrough Read.
 * I/O: NVMe Read (0x02) / Write (0x01) with SLBA in CDW10-11 and the
 * 0-based block count in CDW12 bits 0-15 (so at most 65536 blocks, and
 * never past max_hw_sectors), the data pointer in addr/data_len.  A merged
 * request (several bios) goes as one vectored command
 * (NVME_URING_CMD_IO_VEC: addr = the iovec array, data_len = its count),
 * so the elevator's merges reach the device as they would a block device.
 * Every request must be aligned to the namespace's block size
 * (RQ_DEV_ALIGNED), as there is no page cache under a passthrough command.
 * Completion: the CQE's res is 0 on success and the NVMe status (> 0) on
 * a command error; cqe_res() turns that into bytes or -EIO.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/nvme_ioctl.h>

#include "devices/dev_internal.h"

#define NVME_CMD_WRITE 0x01
#define NVME_CMD_READ 0x02
#define NVME_ADMIN_IDENTIFY 0x06
#define NVME_IDENTIFY_CNS_NS 0x00
#define NVME_IDENTIFY_BYTES 4096

struct nvme_pt {
	uint32_t nsid;
	unsigned int lba_shift;		/* log2 of the logical block size */
	unsigned int nr_cpus;
	int slot[];			/* per worker: fixed-file slot, or -1 */
};

/* What Identify Namespace says, as rqlock needs it. */
struct nvme_id_ns_info {
	uint64_t nsze;			/* blocks */
	unsigned int flbas;		/* byte 26 as is */
	unsigned int lbaf;		/* the index in use */
	unsigned int nlbaf;		/* formats, 1-based */
	unsigned int lbads;		/* log2 block size */
	unsigned int ms;		/* metadata bytes per block */
};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Parse an Identify Namespace data structure (NVMe base spec, figure "Identify Namespace"). */
static int nvme_parse_id_ns(const uint8_t *id, struct nvme_id_ns_info *info)
{
	const uint8_t *lbaf;

	memset(info, 0, sizeof(*info));
	info->nsze = le64(id + 0);
	info->nlbaf = (unsigned int)id[25] + 1;
	info->flbas = id[26];
	/* FLBAS bits 3:0, and bits 6:5 as the high bits when there are more than 16 formats */
	info->lbaf = (info->flbas & 0xf) | (info->nlbaf > 16 ? ((info->flbas >> 5) & 3) << 4 : 0);
	if (info->lbaf >= info->nlbaf || info->lbaf >= 64)
		return -EINVAL;
	lbaf = id + 128 + 4 * info->lbaf;
	info->ms = (unsigned int)lbaf[0] | (unsigned int)lbaf[1] << 8;
	info->lbads = lbaf[2];
	if (info->lbads < 9 || info->lbads > 16 || !info->nsze)
		return -EINVAL;
	return 0;
}

/*
 * The NVMe command of one request (struct nvme_uring_cmd, the SQE's 80
 * command bytes) and the uring_cmd op in @cmd_op (NVME_URING_CMD_IO, or
 * _IO_VEC for a merged request).  Returns 0, or -EINVAL if the request is
 * not whole blocks or is too long for one command.
 */
static int nvme_pt_encode(struct nvme_uring_cmd *cmd, uint32_t *cmd_op, uint32_t nsid,
			  unsigned int lba_shift, const struct rq_request *rq)
{
	uint64_t mask = (1ULL << lba_shift) - 1;
	uint64_t slba = rq->offset >> lba_shift;
	uint64_t nlb = (uint64_t)rq->len >> lba_shift;

	if ((rq->offset & mask) || (rq->len & mask) || !nlb || nlb > 65536 || !rq->nr_segs)
		return -EINVAL;
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = rq->op == RQ_OP_WRITE ? NVME_CMD_WRITE : NVME_CMD_READ;
	cmd->nsid = nsid;
	cmd->cdw10 = (uint32_t)slba;
	cmd->cdw11 = (uint32_t)(slba >> 32);
	cmd->cdw12 = (uint32_t)(nlb - 1);	/* 0-based */
	if (rq->nr_segs == 1) {
		cmd->addr = (uint64_t)(uintptr_t)rq->iov[0].iov_base;
		cmd->data_len = rq->len;
		*cmd_op = NVME_URING_CMD_IO;
		return 0;
	}
	cmd->addr = (uint64_t)(uintptr_t)rq->iov;
	cmd->data_len = rq->nr_segs;		/* vec_cnt */
	*cmd_op = NVME_URING_CMD_IO_VEC;
	return 0;
}

/* sysfs directory of an ng character device, or -ENODEV if @path is not one. */
static int ng_sysfs(const char *path, char *out, size_t len, struct stat *st)
{
	char link[64], real[PATH_MAX], cls[PATH_MAX];
	const char *base;
	struct stat cst;

	if (path[0] == '@' || stat(path, st) || !S_ISCHR(st->st_mode))
		return -ENODEV;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u", major(st->st_rdev), minor(st->st_rdev));
	if (!realpath(link, real))
		return -ENODEV;
	base = strrchr(real, '/') + 1;
	snprintf(cls, sizeof(cls), "/sys/class/nvme-generic/%s", base);
	if (stat(cls, &cst))
		return -ENODEV;
	snprintf(out, len, "%s", real);
	return 0;
}

bool rq_path_is_ng(const char *path)
{
	char sys[PATH_MAX];
	struct stat st;

	return !ng_sysfs(path, sys, sizeof(sys), &st);
}

/* ioengine=io_uring_cmd, or an NVMe generic device under plain io_uring */
static bool nvme_probe(const struct rq_dev_open *o)
{
	const char *e = o->ioengine ? o->ioengine : "io_uring";

	return !strcmp(e, "io_uring_cmd") || (!strcmp(e, "io_uring") && rq_path_is_ng(o->spec));
}

static int admin_identify_ns(int fd, uint32_t nsid, void *buf)
{
	struct nvme_admin_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_IDENTIFY;
	cmd.nsid = nsid;
	cmd.addr = (uint64_t)(uintptr_t)buf;
	cmd.data_len = NVME_IDENTIFY_BYTES;
	cmd.cdw10 = NVME_IDENTIFY_CNS_NS;
	return ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd) ? -errno : 0;
}

struct head_ctx {
	int fd;
	uint32_t nsid;
	unsigned int lba_shift;
};

/* The first bytes of the namespace by a synchronous passthrough Read. */
static ssize_t pt_read_head(void *arg, void *buf, size_t len)
{
	struct head_ctx *h = arg;
	struct nvme_passthru_cmd cmd;
	size_t bs = 1u << h->lba_shift, n = (len + bs - 1) / bs * bs;
	void *tmp;
	int ret;

	if (posix_memalign(&tmp, 4096, n))
		return -ENOMEM;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_CMD_READ;
	cmd.nsid = h->nsid;
	cmd.addr = (uint64_t)(uintptr_t)tmp;
	cmd.data_len = (uint32_t)n;
	cmd.cdw12 = (uint32_t)(n / bs - 1);
	ret = ioctl(h->fd, NVME_IOCTL_IO_CMD, &cmd);
	if (ret == 0)
		memcpy(buf, tmp, len);
	free(tmp);
	if (ret < 0)
		return -errno;
	return ret > 0 ? -EIO : (ssize_t)len;
}

/* "key": number inside @json, after @from; -1 when absent. */
static long long json_num(const char *json, const char *key, const char **end)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = strstr(json, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	while (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n')
		p++;
	if (end)
		*end = p;
	return strtoll(p, NULL, 0);
}

/*
 * Cross-check with nvme-cli's reading of the same Identify data.  Returns
 * 0 (agrees), 1 (nvme-cli unavailable or silent: nothing to compare) or
 * -EPROTO with @why filled.
 */
static int nvme_cli_check(const char *json, const struct nvme_id_ns_info *info, char *why, size_t len)
{
	long long nsze = json_num(json, "nsze", NULL), flbas = json_num(json, "flbas", NULL);
	const char *p = strstr(json, "\"lbafs\"");
	long long ds = -1;

	if (nsze < 0 || flbas < 0 || !p)
		return 1;
	for (unsigned int i = 0; i <= info->lbaf && p; i++) {
		const char *e;

		ds = json_num(p, "ds", &e);
		p = ds < 0 ? NULL : e;
	}
	if ((uint64_t)nsze != info->nsze || (unsigned long long)flbas != info->flbas ||
	    ds != (long long)info->lbads) {
		snprintf(why, len, "Identify Namespace read nsze=%llu flbas=%u ds=%u, nvme-cli says "
			 "nsze=%lld flbas=%lld ds=%lld", (unsigned long long)info->nsze, info->flbas,
			 info->lbads, nsze, flbas, ds);
		return -EPROTO;
	}
	return 0;
}

static int nvme_cli_id_ns(const char *path, char *out, size_t len)
{
	char cmd[PATH_MAX + 64];
	size_t n = 0;
	FILE *p;

	if (strchr(path, '\''))
		return -EINVAL;
	snprintf(cmd, sizeof(cmd), "nvme id-ns '%s' -o json 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (n + 1 < len) {
		size_t r = fread(out + n, 1, len - 1 - n, p);

		if (!r)
			break;
		n += r;
	}
	out[n] = 0;
	return pclose(p) == 0 && n ? 0 : -EIO;
}

/* The block device of the same namespace: nvmeXnY for ngXnY, with the same nsid. */
static int ns_block_dev(const char *ngsys, uint32_t nsid, char *path, size_t len, dev_t *rdev,
			char *bsys, size_t blen)
{
	const char *base = strrchr(ngsys, '/') + 1;
	char sys[PATH_MAX], devno[32];
	unsigned int ma, mi;

	if (strncmp(base, "ng", 2))
		return -ENODEV;
	snprintf(sys, sizeof(sys), "/sys/block/nvme%s", base + 2);
	if (rq_sysfs_u64(sys, "nsid", 0) != nsid ||
	    rq_sysfs_read(sys, "dev", devno, sizeof(devno)) || sscanf(devno, "%u:%u", &ma, &mi) != 2)
		return -ENODEV;
	snprintf(path, len, "/dev/nvme%s", base + 2);
	snprintf(bsys, blen, "%s", sys);
	*rdev = makedev(ma, mi);
	return 0;
}

/*
 * The namespace's id and Identify Namespace data, read on the open @dev->fd
 * and cross-checked with nvme-cli where it answers.  @checked says which
 * sources agreed.  0, or -errno after one line on @err.
 */
static int ns_identify(struct rq_dev *dev, struct nvme_pt *pt, const struct rq_dev_open *o,
		       struct nvme_id_ns_info *info, const char **checked, FILE *err)
{
	char why[256];
	void *id;
	int ret, nsid;

	*checked = "ioctl";
	nsid = ioctl(dev->fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		fprintf(err, "%s: %s: NVME_IOCTL_ID: %s\n", o->where, o->spec,
			strerror(nsid < 0 ? errno : ENODEV));
		return nsid < 0 ? -errno : -ENODEV;
	}
	pt->nsid = (uint32_t)nsid;
	if (posix_memalign(&id, 4096, NVME_IDENTIFY_BYTES))
		return -ENOMEM;
	memset(id, 0, NVME_IDENTIFY_BYTES);
	ret = admin_identify_ns(dev->fd, pt->nsid, id);
	if (!ret && nvme_parse_id_ns(id, info))
		ret = -EPROTO;
	free(id);
	if (ret) {
		fprintf(err, "%s: %s: Identify Namespace %u: %s\n", o->where, o->spec, pt->nsid,
			ret == -EPROTO ? "the LBA format in use is not one rqlock can read" : strerror(-ret));
		return ret;
	}
	if (info->ms) {
		fprintf(err, "%s: %s: LBA format %u carries %u bytes of metadata per block; rqlock "
			"sends data only (format the namespace without metadata)\n", o->where, o->spec,
			info->lbaf, info->ms);
		return -EINVAL;
	}
	{
		char *json = malloc(1 << 16);

		if (!json)
			return -ENOMEM;
		if (!nvme_cli_id_ns(o->spec, json, 1 << 16)) {
			ret = nvme_cli_check(json, info, why, sizeof(why));
			if (ret < 0) {
				fprintf(err, "%s: %s: %s\n", o->where, o->spec, why);
				free(json);
				return ret;
			}
			if (!ret)
				*checked = "ioctl+nvme-cli";
		}
		free(json);
	}
	return 0;
}

/* What the report shows of the device: geometry, transport, serial, model (from @sys). */
static void ns_facts(struct rq_dev *dev, const struct nvme_pt *pt, const char *sys,
		     const struct nvme_id_ns_info *info, const char *checked)
{
	dev->lbs = 1u << info->lbads;
	dev->size = info->nsze << info->lbads;
	dev->depth = 128;
	dev->max_bytes = 128 * 1024;
	dev->rotational = 0;
	snprintf(dev->subkind, sizeof(dev->subkind), "nvme");
	snprintf(dev->transport, sizeof(dev->transport), "pcie");
	rq_sysfs_read(sys, "device/transport", dev->transport, sizeof(dev->transport));
	if (!dev->transport[0])
		snprintf(dev->transport, sizeof(dev->transport), "pcie");
	rq_sysfs_read(sys, "device/serial", dev->serial, sizeof(dev->serial));
	{
		char m[48] = "";

		rq_sysfs_read(sys, "device/model", m, sizeof(m));
		snprintf(dev->model, sizeof(dev->model), "%.24s nsid=%u id:%s", m[0] ? m : "nvme",
			 pt->nsid, checked);
	}
}

static int nvme_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	char sys[PATH_MAX], bpath[64], bsys[PATH_MAX];
	struct nvme_id_ns_info info = { 0 };
	unsigned int n = o->nr_cpus ? o->nr_cpus : 1;
	struct nvme_pt *pt;
	struct stat st;
	dev_t brdev = 0;
	bool have_blk;
	int ret;
	const char *checked;

	snprintf(dev->path, sizeof(dev->path), "%s", o->spec);
	if (ng_sysfs(o->spec, sys, sizeof(sys), &st)) {
		if (stat(o->spec, &st))
			return rq_open_error(o, o->spec, errno, err);
		fprintf(err, "%s: %s: ioengine=io_uring_cmd needs an NVMe generic character device "
			"(/dev/ngXnY), and this is not one\n", o->where, o->spec);
		return -EINVAL;
	}
	pt = calloc(1, sizeof(*pt) + sizeof(int) * n);
	if (!pt)
		return -ENOMEM;
	dev->priv = pt;
	pt->nr_cpus = n;
	for (unsigned int i = 0; i < n; i++)
		pt->slot[i] = -1;
	dev->fd = open(o->spec, (o->write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (dev->fd < 0)
		return rq_open_error(o, o->spec, errno, err);
	ret = ns_identify(dev, pt, o, &info, &checked, err);
	if (ret)
		return ret;
	pt->lba_shift = info.lbads;
	ns_facts(dev, pt, sys, &info, checked);
	have_blk = !ns_block_dev(sys, pt->nsid, bpath, sizeof(bpath), &brdev, bsys, sizeof(bsys));
	if (have_blk) {
		uint64_t kb = rq_sysfs_u64(bsys, "queue/max_hw_sectors_kb", 128);

		dev->depth = (uint32_t)rq_sysfs_u64(bsys, "queue/nr_requests", 128);
		dev->max_bytes = kb * 1024 > (65536ULL << info.lbads) ? (uint32_t)(65536ULL << info.lbads) :
			(uint32_t)(kb * 1024);
		if (!dev->depth)
			dev->depth = 128;
	}
	if (dev->max_bytes < dev->lbs)
		dev->max_bytes = dev->lbs;
	if (o->write && !o->allow_mounted_write) {
		struct head_ctx h = { .fd = dev->fd, .nsid = pt->nsid, .lba_shift = pt->lba_shift };

		/* its block device, when there is one, answers mounts, holders and O_EXCL */
		if (have_blk)
			ret = rq_blk_check_write(o, bpath, brdev, NULL, NULL, err);
		else
			ret = rq_blk_check_write(o, o->spec, st.st_rdev, pt_read_head, &h, err);
		if (ret)
			return ret;
	}
	return 0;
}

static void nvme_close(struct rq_dev *dev)
{
	free(dev->priv);
	dev->priv = NULL;
}

static int nvme_ring_init(struct rq_dev *dev, struct rq_ctx *cpu, struct io_uring *ring,
			  unsigned int slot)
{
	struct nvme_pt *pt = dev->priv;
	int id = rq_ctx_id(cpu);

	if (id < 0 || (unsigned int)id >= pt->nr_cpus)
		return 0;
	pt->slot[id] = -1;
	if (slot != ~0u && io_uring_register_files_update(ring, slot, &dev->fd, 1) == 1) {
		pt->slot[id] = (int)slot;
		atomic_fetch_or_explicit(&dev->registered, RQ_DEV_REG_FILES, memory_order_relaxed);
	} else {
		atomic_fetch_or_explicit(&dev->registered, RQ_DEV_REG_FALLBACK, memory_order_relaxed);
	}
	return 0;
}

static int nvme_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct nvme_pt *pt = dev->priv;
	struct io_uring *ring = rq_ctx_ring(cpu);
	struct nvme_uring_cmd cmd;
	struct io_uring_sqe *sqe;
	int id = rq_ctx_id(cpu);
	int slot = (unsigned int)id < pt->nr_cpus ? pt->slot[id] : -1;
	uint32_t op;
	int ret;

	rq_request_map(rq);
	ret = nvme_pt_encode(&cmd, &op, pt->nsid, pt->lba_shift, rq);

	if (ret < 0 || !(ring->flags & IORING_SETUP_SQE128)) {
		/* not whole blocks, or the engine made a small ring: fail it, corrupt nothing */
		rq->res = ret < 0 ? ret : -EINVAL;
		return RQ_Q_DONE;
	}
	sqe = io_uring_get_sqe(ring);
	if (!sqe)
		return RQ_Q_BUSY;
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = slot >= 0 ? slot : dev->fd;
	if (slot >= 0)
		sqe->flags |= IOSQE_FIXED_FILE;
	sqe->cmd_op = op;
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
	io_uring_sqe_set_data(sqe, rq);
	return RQ_Q_QUEUED;
}

/* 0 = success (all bytes), > 0 = NVMe status, < 0 = -errno from the kernel. */
static int nvme_cqe_res(struct rq_dev *dev, struct rq_request *rq, int res)
{
	(void)dev;
	if (res == 0)
		return (int)rq->len;
	return res > 0 ? -EIO : res;
}

const struct rq_dev_ops rq_dev_nvme_pt = {
	.name = "nvme-pt",
	.ioengine = "io_uring_cmd",
	.help = "NVMe passthrough on /dev/ngXnY (uring_cmd); also an ng device under io_uring",
	.flags = RQ_DEV_NEEDS_RING | RQ_DEV_HAS_DATA | RQ_DEV_RING_BIG | RQ_DEV_ALIGNED,
	.probe = nvme_probe,
	.open = nvme_open,
	.close = nvme_close,
	.queue_rq = nvme_queue_rq,
	.cqe_res = nvme_cqe_res,
	.ring_init = nvme_ring_init,
};
