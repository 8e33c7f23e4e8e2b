// SPDX-License-Identifier: MIT
/*
 * pci.c - a PCI function as sysfs tells it, for the userspace NVMe driver
 * (nvme_pci.c: what it refuses and why) and `rqlock devices` (which NVMe
 * controllers there are, their driver, whether rqlock can take them).
 * Only reads /sys/bus/pci: binding is scripts/nvme-bind's, never rqlock's.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devices/nvme_pci.h"

#define PCI_SYS "/sys/bus/pci/devices"

int rq_pci_bdf_parse(const char *s, char *out, size_t len)
{
	unsigned int dom = 0, bus, dev, fn;
	int n = 0;

	if (!s || strlen(s) > 12)
		return -EINVAL;
	if (sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) != 4 || s[n]) {
		dom = 0;
		n = 0;
		if (sscanf(s, "%2x:%2x.%1x%n", &bus, &dev, &fn, &n) != 3 || s[n])
			return -EINVAL;
	}
	for (const char *c = s; *c; c++)
		if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.')
			return -EINVAL;
	if (dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* The last component of the link @dir/@name points to ("nvme", "vfio-pci"), "" if none. */
static void link_base(const char *dir, const char *name, char *out, size_t len)
{
	char p[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *b;

	out[0] = 0;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	n = readlink(p, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = 0;
	b = strrchr(target, '/');
	b = b ? b + 1 : target;
	if (strlen(b) < len)
		memcpy(out, b, strlen(b) + 1);
}

static uint64_t hex_file(const char *dir, const char *file)
{
	char buf[32];

	if (rq_sysfs_read(dir, file, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 16);
}

/* The other functions of @fn's IOMMU group bound to something but vfio-pci. */
static void group_others(struct rq_pci_fn *fn)
{
	char dir[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/kernel/iommu_groups/%d/devices", fn->iommu_group);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char drv[32], sys[PATH_MAX];

		if (de->d_name[0] == '.' || !strcmp(de->d_name, fn->bdf))
			continue;
		snprintf(sys, sizeof(sys), PCI_SYS "/%s", de->d_name);
		link_base(sys, "driver", drv, sizeof(drv));
		/* a bridge or an unbound function does not stop vfio; a bound one does */
		if (drv[0] && strcmp(drv, "vfio-pci") && strcmp(drv, "pcieport") && n + 16 < sizeof(fn->group_others))
			n += (size_t)snprintf(fn->group_others + n, sizeof(fn->group_others) - n, "%s%s (%s)",
					      n ? ", " : "", de->d_name, drv);
	}
	if (d)
		closedir(d);
}

/* The kernel's namespaces of an NVMe controller bound to nvme: nvme/nvmeX/nvmeXnY */
static void kernel_namespaces(struct rq_pci_fn *fn)
{
	char dir[PATH_MAX];
	struct dirent *c, *ns;
	size_t n = 0;
	DIR *d, *e;

	snprintf(dir, sizeof(dir), "%s/nvme", fn->sys);
	d = opendir(dir);
	while (d && (c = readdir(d))) {
		char sub[PATH_MAX + 260];

		if (c->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, c->d_name);
		e = opendir(sub);
		while (e && (ns = readdir(e))) {
			size_t l = strlen(c->d_name);

			if (!strncmp(ns->d_name, c->d_name, l) && ns->d_name[l] == 'n' &&
			    n + strlen(ns->d_name) + 2 < sizeof(fn->ns))
				n += (size_t)snprintf(fn->ns + n, sizeof(fn->ns) - n, "%s%s", n ? " " : "",
						      ns->d_name);
		}
		if (e)
			closedir(e);
	}
	if (d)
		closedir(d);
}

int rq_pci_fn_read(const char *bdf, struct rq_pci_fn *fn)
{
	char group[32], uio_dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	memset(fn, 0, sizeof(*fn));
	fn->iommu_group = -1;
	snprintf(fn->bdf, sizeof(fn->bdf), "%s", bdf);
	snprintf(fn->sys, sizeof(fn->sys), PCI_SYS "/%s", bdf);
	if (stat(fn->sys, &st) || !S_ISDIR(st.st_mode))
		return -ENODEV;
	fn->class_code = (uint32_t)hex_file(fn->sys, "class");
	fn->vendor = (uint16_t)hex_file(fn->sys, "vendor");
	fn->device = (uint16_t)hex_file(fn->sys, "device");
	link_base(fn->sys, "driver", fn->driver, sizeof(fn->driver));
	link_base(fn->sys, "iommu_group", group, sizeof(group));
	if (group[0])
		fn->iommu_group = atoi(group);
	if (fn->iommu_group >= 0)
		group_others(fn);
	if (!strcmp(fn->driver, "nvme"))
		kernel_namespaces(fn);
	snprintf(uio_dir, sizeof(uio_dir), "%s/uio", fn->sys);
	d = opendir(uio_dir);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "uio", 3))
			snprintf(fn->uio, sizeof(fn->uio), "%.15s", de->d_name);
	if (d)
		closedir(d);
	return 0;
}

const char *rq_pci_nvme_way(const struct rq_pci_fn *fn, char *why, size_t len)
{
	if (fn->class_code != RQ_PCI_CLASS_NVME) {
		snprintf(why, len, "%s is not an NVMe controller (PCI class 0x%06x, NVMe is 0x%06x)", fn->bdf,
			 fn->class_code, RQ_PCI_CLASS_NVME);
		return NULL;
	}
	if (!strcmp(fn->driver, "vfio-pci")) {
		if (fn->iommu_group < 0) {
			snprintf(why, len, "%s is bound to vfio-pci but has no IOMMU group", fn->bdf);
			return NULL;
		}
		if (fn->group_others[0]) {
			snprintf(why, len, "%s: IOMMU group %d also holds %s, not on vfio-pci", fn->bdf,
				 fn->iommu_group, fn->group_others);
			return NULL;
		}
		return "vfio";
	}
	if (!strcmp(fn->driver, "uio_pci_generic")) {
		if (!fn->uio[0]) {
			snprintf(why, len, "%s is bound to uio_pci_generic but has no /dev/uioN", fn->bdf);
			return NULL;
		}
		return "uio";
	}
	if (!strcmp(fn->driver, "nvme"))
		snprintf(why, len, "%s is bound to the kernel's nvme driver%s%s%s; give it to rqlock with "
			 "scripts/nvme-bind %s (and back with scripts/nvme-bind --unbind %s)", fn->bdf,
			 fn->ns[0] ? " (namespaces " : "", fn->ns, fn->ns[0] ? ")" : "", fn->bdf, fn->bdf);
	else if (!fn->driver[0])
		snprintf(why, len, "%s is bound to no driver; bind it to vfio-pci or uio_pci_generic with "
			 "scripts/nvme-bind %s", fn->bdf, fn->bdf);
	else
		snprintf(why, len, "%s is bound to %s; rqlock takes a controller bound to vfio-pci or "
			 "uio_pci_generic (scripts/nvme-bind %s)", fn->bdf, fn->driver, fn->bdf);
	return NULL;
}

static int fn_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rq_pci_fn *)a)->bdf, ((const struct rq_pci_fn *)b)->bdf);
}

unsigned int rq_pci_nvme_list(struct rq_pci_fn **out)
{
	struct dirent *de;
	unsigned int n = 0, cap = 0;
	DIR *d = opendir(PCI_SYS);

	*out = NULL;
	while (d && (de = readdir(d))) {
		char sys[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sys, sizeof(sys), PCI_SYS "/%s", de->d_name);
		if (hex_file(sys, "class") != RQ_PCI_CLASS_NVME)
			continue;
		if (n == cap) {
			struct rq_pci_fn *g = realloc(*out, sizeof(**out) * (cap = cap ? 2 * cap : 4));

			if (!g)
				break;
			*out = g;
		}
		if (!rq_pci_fn_read(de->d_name, &(*out)[n]))
			n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(*out, n, sizeof(**out), fn_cmp);
	return n;
}
