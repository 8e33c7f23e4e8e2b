// SPDX-License-Identifier: MIT
/*
 * nvme_pci_dma.c - the userspace NVMe driver's two ways to the hardware,
 * SPDK's and ixy's: BAR0 mapped into the process, bus mastering on, and
 * memory the controller can reach by DMA.
 *
 * vfio-pci (an IOMMU): the device's IOMMU group is opened into a type 1
 * container; BAR0 is mmap'd from the device fd (its mmappable areas, the
 * MSI-X table may be left out); memory is mapped at IOVAs this file hands
 * out (VFIO_IOMMU_MAP_DMA pins it).  The engine's I/O buffers are mapped
 * too, the first time a request uses a page, so reads and writes go to
 * them directly.  The IOMMU confines the device to what was mapped; on
 * exit, even a SIGKILL, vfio-pci resets the function and clears its bus
 * mastering when the fds close.
 *
 * uio_pci_generic (no IOMMU): BAR0 through sysfs's resource0, bus
 * mastering through the config space, and physical addresses from
 * /proc/self/pagemap.  A physical address must stay the page's for as
 * long as the controller may use it, which only hugepages (and locked
 * memory when the kernel may not compact it) promise: the driver's
 * memory is hugepages, and the engine's buffers, which may move, are
 * never handed to the controller (nvme_pci.c copies through bounce
 * buffers, as SPDK does for memory that is not its own).  /dev/uioN is
 * held open: uio_pci_generic clears bus mastering when it closes, so a
 * killed rqlock leaves no DMA running.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/vfio.h>

#include "devices/nvme_pci.h"

#define PCI_COMMAND 0x04
#define PCI_COMMAND_MEMORY 0x2
#define PCI_COMMAND_MASTER 0x4
#define HUGE_2M (2u << 20)
#define IOVA_BASE (1ull << 30)		/* above the low MMIO holes */
#define IOVA_MIN_SPAN (1ull << 30)

const char *npci_way_name(enum npci_way w)
{
	return w == NPCI_VFIO ? "vfio" : "uio";
}

/* ---- PCI command register (bus mastering) ---- */

static int cfg_command(struct npci_dma *d, bool master)
{
	off_t base = 0;
	uint16_t cmd;
	int fd = d->cfg;

	if (d->way == NPCI_VFIO) {
		struct vfio_region_info ri = { .argsz = sizeof(ri), .index = VFIO_PCI_CONFIG_REGION_INDEX };

		if (ioctl(d->device, VFIO_DEVICE_GET_REGION_INFO, &ri))
			return -errno;
		base = (off_t)ri.offset;
		fd = d->device;
	}
	if (pread(fd, &cmd, 2, base + PCI_COMMAND) != 2)
		return -EIO;
	if (master)
		cmd |= PCI_COMMAND_MASTER | PCI_COMMAND_MEMORY;
	else
		cmd &= (uint16_t)~PCI_COMMAND_MASTER;
	return pwrite(fd, &cmd, 2, base + PCI_COMMAND) == 2 ? 0 : -EIO;
}

/* ---- vfio ---- */

/* Where IOVAs can go: the first usable range the IOMMU reports, from 1 GiB on. */
static void vfio_iova_window(struct npci_dma *d)
{
	struct vfio_iommu_type1_info *info = calloc(1, 4096);

	d->iova_next = IOVA_BASE;
	d->iova_end = 1ull << 39;	/* VT-d's 39-bit address width, the narrowest */
	if (!info)
		return;
	info->argsz = 4096;
	if (!ioctl(d->container, VFIO_IOMMU_GET_INFO, info) && (info->flags & VFIO_IOMMU_INFO_CAPS) &&
	    info->cap_offset) {
		struct vfio_info_cap_header *h = (void *)((char *)info + info->cap_offset);

		for (;;) {
			if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
				struct vfio_iommu_type1_info_cap_iova_range *r = (void *)h;

				for (uint32_t i = 0; i < r->nr_iovas; i++) {
					uint64_t s = r->iova_ranges[i].start, e = r->iova_ranges[i].end + 1;

					if (s < IOVA_BASE)
						s = IOVA_BASE;
					if (e > s && e - s >= IOVA_MIN_SPAN) {
						d->iova_next = s;
						d->iova_end = e;
						break;
					}
				}
			}
			if (!h->next || h->next >= 4096)
				break;
			h = (void *)((char *)info + h->next);
		}
	}
	free(info);
}

static int vfio_map(struct npci_dma *d, void *va, size_t len, uint64_t *iova)
{
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uint64_t)(uintptr_t)va,
		.size = len,
	};

	if (d->iova_next + len > d->iova_end)
		return -ENOSPC;
	m.iova = d->iova_next;
	if (ioctl(d->container, VFIO_IOMMU_MAP_DMA, &m))
		return -errno;
	*iova = d->iova_next;
	d->iova_next += len;
	d->mapped_bytes += len;
	return 0;
}

static void vfio_unmap(struct npci_dma *d, uint64_t iova, size_t len)
{
	struct vfio_iommu_type1_dma_unmap u = { .argsz = sizeof(u), .iova = iova, .size = len };

	ioctl(d->container, VFIO_IOMMU_UNMAP_DMA, &u);
}

/* BAR0: mmap its mmappable areas into one reservation the BAR's size. */
static int vfio_bar(struct npci_dma *d, size_t need, char *why, size_t wl)
{
	struct vfio_region_info *ri = calloc(1, 1024);
	struct vfio_region_sparse_mmap_area whole;
	const struct vfio_region_sparse_mmap_area *areas = &whole;
	uint32_t nr = 1;
	int ret = 0;

	if (!ri)
		return -ENOMEM;
	ri->argsz = 1024;
	ri->index = VFIO_PCI_BAR0_REGION_INDEX;
	if (ioctl(d->device, VFIO_DEVICE_GET_REGION_INFO, ri) || !ri->size) {
		snprintf(why, wl, "vfio: BAR0: %s", strerror(errno ? errno : ENODEV));
		free(ri);
		return -ENODEV;
	}
	whole.offset = 0;
	whole.size = ri->size;
	if ((ri->flags & VFIO_REGION_INFO_FLAG_CAPS) && ri->cap_offset && ri->cap_offset < 1024) {
		struct vfio_info_cap_header *h = (void *)((char *)ri + ri->cap_offset);

		if (h->id == VFIO_REGION_INFO_CAP_SPARSE_MMAP) {
			struct vfio_region_info_cap_sparse_mmap *s = (void *)h;

			areas = s->areas;
			nr = s->nr_areas;
		}
	}
	if (!(ri->flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		snprintf(why, wl, "vfio: BAR0 cannot be mmap'd");
		free(ri);
		return -ENOTSUP;
	}
	d->bar_len = ri->size;
	d->bar_map_len = ri->size;
	d->bar_map = mmap(NULL, ri->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->bar_map == MAP_FAILED) {
		d->bar_map = NULL;
		free(ri);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nr && !ret; i++) {
		void *p = mmap((char *)d->bar_map + areas[i].offset, areas[i].size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_FIXED, d->device, (off_t)(ri->offset + areas[i].offset));

		if (p == MAP_FAILED)
			ret = -errno;
		else if (areas[i].offset == 0 && areas[i].size < need)
			ret = -ERANGE;
	}
	if (nr && areas[0].offset != 0)
		ret = -ERANGE;
	if (ret)
		snprintf(why, wl, "vfio: cannot mmap the registers and doorbells of BAR0 (%zu bytes): %s",
			 need, strerror(-ret));
	d->bar = d->bar_map;
	free(ri);
	return ret;
}

static int vfio_open(struct npci_dma *d, const struct rq_pci_fn *fn, size_t need, char *why, size_t wl)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	char path[32];

	d->container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (d->container < 0) {
		snprintf(why, wl, "/dev/vfio/vfio: %s (is the vfio module loaded?)", strerror(errno));
		return -errno;
	}
	if (ioctl(d->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    !ioctl(d->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU)) {
		snprintf(why, wl, "vfio: no type 1 IOMMU support in this kernel");
		return -ENOTSUP;
	}
	snprintf(path, sizeof(path), "/dev/vfio/%d", fn->iommu_group);
	d->group = open(path, O_RDWR | O_CLOEXEC);
	if (d->group < 0) {
		int e = errno;

		snprintf(why, wl, "%s: %s%s", path, strerror(e),
			 e == EBUSY ? " (another process holds this controller)" : "");
		return -e;
	}
	if (ioctl(d->group, VFIO_GROUP_GET_STATUS, &st) || !(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		snprintf(why, wl, "vfio: IOMMU group %d is not viable (every device in it must be bound to "
			 "vfio-pci)", fn->iommu_group);
		return -EBUSY;
	}
	if (ioctl(d->group, VFIO_GROUP_SET_CONTAINER, &d->container) ||
	    (ioctl(d->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) &&
	     ioctl(d->container, VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU))) {
		snprintf(why, wl, "vfio: cannot set up the IOMMU container: %s", strerror(errno));
		return -errno;
	}
	d->device = ioctl(d->group, VFIO_GROUP_GET_DEVICE_FD, fn->bdf);
	if (d->device < 0) {
		snprintf(why, wl, "vfio: %s: %s", fn->bdf, strerror(errno));
		return -errno;
	}
	vfio_iova_window(d);
	return vfio_bar(d, need, why, wl);
}

/* ---- uio ---- */

static int uio_open(struct npci_dma *d, const struct rq_pci_fn *fn, size_t need, char *why, size_t wl)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/dev/%s", fn->uio);
	d->uio = open(path, O_RDWR | O_CLOEXEC);
	if (d->uio < 0) {
		snprintf(why, wl, "%s: %s", path, strerror(errno));
		return -errno;
	}
	/* one driver at a time: uio lets every opener in, the lock does not */
	if (flock(d->uio, LOCK_EX | LOCK_NB)) {
		snprintf(why, wl, "%s: another process holds this controller", path);
		return -EBUSY;
	}
	snprintf(path, sizeof(path), "%s/resource0", fn->sys);
	d->res = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (d->res < 0 || fstat(d->res, &st) || (size_t)st.st_size < need) {
		snprintf(why, wl, "%s: %s", path, d->res < 0 ? strerror(errno) : "smaller than the registers");
		return d->res < 0 ? -errno : -ERANGE;
	}
	d->bar_len = d->bar_map_len = (size_t)st.st_size;
	d->bar_map = mmap(NULL, d->bar_len, PROT_READ | PROT_WRITE, MAP_SHARED, d->res, 0);
	if (d->bar_map == MAP_FAILED) {
		d->bar_map = NULL;
		snprintf(why, wl, "mmap %s: %s", path, strerror(errno));
		return -errno;
	}
	d->bar = d->bar_map;
	snprintf(path, sizeof(path), "%s/config", fn->sys);
	d->cfg = open(path, O_RDWR | O_CLOEXEC);
	d->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (d->cfg < 0 || d->pagemap < 0) {
		snprintf(why, wl, "%s: %s", d->cfg < 0 ? path : "/proc/self/pagemap", strerror(errno));
		return -errno;
	}
	return 0;
}

/* The physical address of the page holding @va (locked, present), 0 if unknown. */
static uint64_t uio_phys(const struct npci_dma *d, const void *va)
{
	uint64_t e;
	off_t off = (off_t)((uintptr_t)va / NPCI_PAGE * sizeof(e));

	if (pread(d->pagemap, &e, sizeof(e), off) != (ssize_t)sizeof(e) || !(e & (1ull << 63)))
		return 0;
	e &= (1ull << 55) - 1;		/* the PFN; 0 without CAP_SYS_ADMIN */
	return e * NPCI_PAGE;
}

/* Locked memory that compaction may move is no place for physical addresses. */
static bool unevictable_compacted(void)
{
	char buf[8];

	return rq_sysfs_read("/proc/sys/vm", "compact_unevictable_allowed", buf, sizeof(buf)) || buf[0] != '0';
}

/* ---- open, close ---- */

int npci_dma_open(struct npci_dma *d, const struct rq_pci_fn *fn, const char *want, char *why, size_t len)
{
	const char *way = rq_pci_nvme_way(fn, why, len);
	int ret;

	memset(d, 0, sizeof(*d));
	d->container = d->group = d->device = d->uio = d->res = d->cfg = d->pagemap = -1;
	pthread_mutex_init(&d->lock, NULL);
	if (!way)
		return -EBUSY;
	if (want && strcmp(want, "auto") && strcmp(want, way)) {
		snprintf(why, len, "%s is bound to %s, not to what dma=%s needs (scripts/nvme-bind --driver %s %s)",
			 fn->bdf, fn->driver, want, !strcmp(want, "vfio") ? "vfio-pci" : "uio_pci_generic", fn->bdf);
		return -EINVAL;
	}
	d->way = !strcmp(way, "vfio") ? NPCI_VFIO : NPCI_UIO;
	ret = d->way == NPCI_VFIO ? vfio_open(d, fn, NVME_REG_DBS + 2 * 4096, why, len) :
				    uio_open(d, fn, NVME_REG_DBS + 8, why, len);
	if (!ret && (ret = cfg_command(d, true)))
		snprintf(why, len, "%s: cannot enable bus mastering: %s", fn->bdf, strerror(-ret));
	return ret;
}

void npci_dma_close(struct npci_dma *d)
{
	if (d->bar && (d->device >= 0 || d->cfg >= 0))
		cfg_command(d, false);
	for (unsigned int i = 0; i < d->nr_maps; i++) {
		vfio_unmap(d, d->maps[i]->iova, d->maps[i]->len);
		free(d->maps[i]);
	}
	free(d->maps);
	d->maps = NULL;
	d->nr_maps = d->cap_maps = 0;
	if (d->bar_map)
		munmap(d->bar_map, d->bar_map_len);
	d->bar_map = NULL;
	d->bar = NULL;
	/* the device before its group before the container: vfio-pci resets the function here */
	int *fds[] = { &d->device, &d->group, &d->container, &d->res, &d->cfg, &d->pagemap, &d->uio };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	pthread_mutex_destroy(&d->lock);
}

/* ---- the driver's own memory ---- */

int npci_dma_alloc(struct npci_dma *d, size_t len, struct npci_region *r, char *why, size_t wl)
{
	size_t pages;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	len = (len + NPCI_PAGE - 1) / NPCI_PAGE * NPCI_PAGE;
	pages = len / NPCI_PAGE;
	r->bus = calloc(pages, sizeof(*r->bus));
	if (!r->bus)
		return -ENOMEM;
	r->len = len;
	if (d->way == NPCI_UIO) {
		r->map_len = (len + HUGE_2M - 1) / HUGE_2M * HUGE_2M;
		r->va = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE | MAP_LOCKED, -1, 0);
		r->huge = r->va != MAP_FAILED;
		if (!r->huge && unevictable_compacted()) {
			snprintf(why, wl, "uio: no hugepages for %zu KiB of DMA memory (echo N > "
				 "/proc/sys/vm/nr_hugepages; or vm.compact_unevictable_allowed=0 for locked "
				 "pages), and without an IOMMU memory that may move cannot be given to the "
				 "controller", r->map_len >> 10);
			r->va = NULL;
			return -ENOMEM;
		}
	}
	if (!r->huge) {
		r->map_len = len;
		r->va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (r->va == MAP_FAILED || mlock(r->va, len)) {
			snprintf(why, wl, "cannot lock %zu KiB of DMA memory: %s", len >> 10, strerror(errno));
			if (r->va != MAP_FAILED)
				munmap(r->va, len);
			r->va = NULL;
			return -ENOMEM;
		}
	}
	memset(r->va, 0, len);
	if (d->way == NPCI_VFIO) {
		ret = vfio_map(d, r->va, len, &r->iova);
		for (size_t i = 0; !ret && i < pages; i++)
			r->bus[i] = r->iova + i * NPCI_PAGE;
		if (ret)
			snprintf(why, wl, "vfio: VFIO_IOMMU_MAP_DMA of %zu KiB: %s", len >> 10, strerror(-ret));
	} else {
		for (size_t i = 0; !ret && i < pages; i++)
			if (!(r->bus[i] = uio_phys(d, r->va + i * NPCI_PAGE)))
				ret = -EPERM;
		if (ret)
			snprintf(why, wl, "uio: /proc/self/pagemap gives no physical addresses (needs root)");
	}
	if (ret) {
		npci_dma_free(d, r);
		return ret;
	}
	return 0;
}

void npci_dma_free(struct npci_dma *d, struct npci_region *r)
{
	if (r->va && r->iova)
		vfio_unmap(d, r->iova, r->len);
	if (r->va)
		munmap(r->va, r->map_len);
	free(r->bus);
	memset(r, 0, sizeof(*r));
}

bool npci_region_contiguous(const struct npci_region *r, const void *p, size_t len)
{
	size_t first = (size_t)((const uint8_t *)p - r->va) / NPCI_PAGE;
	size_t last = ((size_t)((const uint8_t *)p - r->va) + len - 1) / NPCI_PAGE;

	for (size_t i = first; i < last; i++)
		if (r->bus[i + 1] != r->bus[i] + NPCI_PAGE)
			return false;
	return true;
}

/* ---- the engine's buffers (vfio) ---- */

unsigned int npci_maps_upper(const struct npci_map *const *maps, unsigned int nr, uintptr_t va)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (maps[mid]->va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct npci_map *npci_dma_map_buf(struct npci_dma *d, uintptr_t va, uintptr_t end, int *err)
{
	uintptr_t page = va & ~(uintptr_t)(NPCI_PAGE - 1);
	struct npci_map *m = NULL;
	unsigned int i;

	end = (end + NPCI_PAGE - 1) & ~(uintptr_t)(NPCI_PAGE - 1);
	pthread_mutex_lock(&d->lock);
	i = npci_maps_upper((const struct npci_map *const *)d->maps, d->nr_maps, page);
	if (i && page < d->maps[i - 1]->va + d->maps[i - 1]->len) {
		m = d->maps[i - 1];
		goto out;
	}
	/* new pages from @page to @end or the next map, whichever comes first */
	if (i < d->nr_maps && end > d->maps[i]->va)
		end = d->maps[i]->va;
	if (d->nr_maps == d->cap_maps) {
		unsigned int cap = d->cap_maps ? 2 * d->cap_maps : 16;
		struct npci_map **g = realloc(d->maps, sizeof(*g) * cap);

		if (!g) {
			*err = -ENOMEM;
			goto out;
		}
		d->maps = g;
		d->cap_maps = cap;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		*err = -ENOMEM;
		goto out;
	}
	m->va = page;
	m->len = end - page;
	*err = vfio_map(d, (void *)page, m->len, &m->iova);
	if (*err) {
		free(m);
		m = NULL;
		goto out;
	}
	memmove(&d->maps[i + 1], &d->maps[i], sizeof(*d->maps) * (d->nr_maps - i));
	d->maps[i] = m;
	d->nr_maps++;
out:
	pthread_mutex_unlock(&d->lock);
	return m;
}
