// SPDX-License-Identifier: MIT
/*
 * discover.c - `rqlock devices [--json] [--all]`: what this machine has
 * to run jobs against.
 *
 *  - block devices from /sys/block: kind and transport (as the blkdev
 *    driver reads them), model, vendor, serial, size, logical and physical
 *    block size, nr_requests, max_sectors_kb, rotational, scheduler, and
 *    whether it or a partition is mounted, swap or held (what the write
 *    safety checks would refuse);
 *  - NVMe generic character devices from /sys/class/nvme-generic (what
 *    ioengine=io_uring_cmd opens);
 *  - NVMe namespaces from `nvme list -o json` when nvme-cli is installed,
 *    in either of its layouts (the flat "Devices" list of nvme-cli 2.x, or
 *    hosts > subsystems > controllers > namespaces); without nvme-cli a
 *    line says so;
 *  - NVMe controllers from /sys/bus/pci (devices/pci.c): address, the
 *    driver bound, IOMMU group, the kernel's namespaces, and whether
 *    rqlock's userspace driver (@nvme-pci) can take it, or why not.
 * Loop devices with nothing attached and other empty devices are left out
 * unless --all (the count is said).  Only reads: sysfs, /proc and nvme-cli.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "devices/dev_internal.h"
#include "devices/nvme_pci.h"

/* ---- what is found -------------------------------------------------- */

struct blk_info {
	char name[64], path[80];
	struct rq_dev facts;		/* subkind, transport, model, serial, rotational */
	char vendor[64], scheduler[32], in_use[512];
	uint64_t size;
	uint32_t lbs, pbs, nr_requests, max_sectors_kb;
	int removable, ro, partitions;
};

struct nvme_ns {
	char path[96], generic[96], model[64], serial[64], firmware[32], transport[16];
	uint64_t nsid, size, used;
	uint32_t lbs;
};

struct ng_info {
	char name[64], path[80], block[80], model[64], serial[64];
};

struct found {
	struct blk_info *blk;
	unsigned int nr_blk, hidden;
	struct ng_info *ng;
	unsigned int nr_ng;
	struct nvme_ns *ns;
	unsigned int nr_ns;
	bool nvme_cli;			/* nvme-cli ran and answered JSON */
	char nvme_note[256];
	struct rq_pci_fn *ctrl;		/* NVMe controllers on the PCI bus */
	unsigned int nr_ctrl;
};

static void scan_block(struct found *f, bool all)
{
	struct dirent **names;
	int n = scandir("/sys/block", &names, NULL, alphasort);

	if (n < 0)
		return;
	f->blk = calloc((size_t)n + 1, sizeof(*f->blk));
	for (int i = 0; i < n; i++) {
		struct dirent *de = names[i];
		char sys[PATH_MAX], buf[PATH_MAX], devno[32];
		unsigned int ma, mi;
		struct blk_info *b;

		if (de->d_name[0] == '.' || !f->blk) {
			free(de);
			continue;
		}
		snprintf(sys, sizeof(sys), "/sys/block/%s", de->d_name);
		b = &f->blk[f->nr_blk];
		memset(b, 0, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%.63s", de->d_name);
		snprintf(b->path, sizeof(b->path), "/dev/%.63s", de->d_name);
		b->size = rq_sysfs_u64(sys, "size", 0) * 512;
		if (!b->size && !all) {
			f->hidden++;
			free(de);
			continue;
		}
		/* the path blk_facts expects: the device's real sysfs directory */
		if (realpath(sys, buf) == NULL)
			snprintf(buf, sizeof(buf), "%s", sys);
		rq_blk_facts(buf, &b->facts);
		rq_sysfs_read(sys, "device/vendor", b->vendor, sizeof(b->vendor));
		b->lbs = (uint32_t)rq_sysfs_u64(sys, "queue/logical_block_size", 512);
		b->pbs = (uint32_t)rq_sysfs_u64(sys, "queue/physical_block_size", 512);
		b->nr_requests = (uint32_t)rq_sysfs_u64(sys, "queue/nr_requests", 0);
		b->max_sectors_kb = (uint32_t)rq_sysfs_u64(sys, "queue/max_sectors_kb", 0);
		b->removable = (int)rq_sysfs_u64(sys, "removable", 0);
		b->ro = (int)rq_sysfs_u64(sys, "ro", 0);
		if (!rq_sysfs_read(sys, "queue/scheduler", buf, sizeof(buf))) {
			char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;

			if (l && r) {
				*r = 0;
				snprintf(b->scheduler, sizeof(b->scheduler), "%s", l + 1);
			} else {
				snprintf(b->scheduler, sizeof(b->scheduler), "%.31s", buf);
			}
		}
		{
			DIR *d = opendir(sys);
			struct dirent *p;

			while (d && (p = readdir(d))) {
				char part[PATH_MAX + 300];
				struct stat st;

				snprintf(part, sizeof(part), "%s/%s/partition", sys, p->d_name);
				if (p->d_name[0] != '.' && !stat(part, &st))
					b->partitions++;
			}
			if (d)
				closedir(d);
		}
		if (!rq_sysfs_read(sys, "dev", devno, sizeof(devno)) &&
		    sscanf(devno, "%u:%u", &ma, &mi) == 2)
			rq_blk_in_use(makedev(ma, mi), b->in_use, sizeof(b->in_use));
		f->nr_blk++;
		free(de);
	}
	free(names);
}

static void scan_ng(struct found *f)
{
	struct dirent **names;
	int n = scandir("/sys/class/nvme-generic", &names, NULL, alphasort);

	if (n < 0)
		return;
	f->ng = calloc((size_t)n + 1, sizeof(*f->ng));
	for (int i = 0; i < n; i++) {
		char sys[PATH_MAX], blk[PATH_MAX];
		struct stat st;

		if (names[i]->d_name[0] != '.' && f->ng) {
			struct ng_info *g = &f->ng[f->nr_ng++];

			snprintf(g->name, sizeof(g->name), "%.63s", names[i]->d_name);
			snprintf(g->path, sizeof(g->path), "/dev/%.63s", names[i]->d_name);
			snprintf(sys, sizeof(sys), "/sys/class/nvme-generic/%s", names[i]->d_name);
			rq_sysfs_read(sys, "device/model", g->model, sizeof(g->model));
			rq_sysfs_read(sys, "device/serial", g->serial, sizeof(g->serial));
			if (!strncmp(g->name, "ng", 2)) {
				snprintf(blk, sizeof(blk), "/sys/block/nvme%s", g->name + 2);
				if (!stat(blk, &st))
					snprintf(g->block, sizeof(g->block), "/dev/nvme%s", g->name + 2);
			}
		}
		free(names[i]);
	}
	free(names);
}

/* One namespace object of nvme-cli's output, with what its controller said. */
static void add_ns(struct found *f, const struct rq_jv *o, const struct rq_jv *ctrl)
{
	struct nvme_ns *ns, *grown;
	const char *s;
	double x;

	grown = realloc(f->ns, sizeof(*f->ns) * (f->nr_ns + 1));
	if (!grown)
		return;
	f->ns = grown;
	ns = &f->ns[f->nr_ns++];
	memset(ns, 0, sizeof(*ns));
	if ((s = rq_jv_str(o, "DevicePath")))
		snprintf(ns->path, sizeof(ns->path), "%s", s);
	else if ((s = rq_jv_str(o, "NameSpace")))
		snprintf(ns->path, sizeof(ns->path), "%s%s", s[0] == '/' ? "" : "/dev/", s);
	if ((s = rq_jv_str(o, "GenericPath")) || (s = rq_jv_str(o, "Generic")))
		snprintf(ns->generic, sizeof(ns->generic), "%s%s", s[0] == '/' ? "" : "/dev/", s);
	if (rq_jv_num(o, "NSID", &x) || (rq_jv_get(o, "NameSpace") && rq_jv_num(o, "NameSpace", &x)))
		ns->nsid = (uint64_t)x;
	for (const struct rq_jv *src = o; src; src = src == o ? ctrl : NULL) {
		if (!ns->model[0] && (s = rq_jv_str(src, "ModelNumber")))
			snprintf(ns->model, sizeof(ns->model), "%s", s);
		if (!ns->serial[0] && (s = rq_jv_str(src, "SerialNumber")))
			snprintf(ns->serial, sizeof(ns->serial), "%s", s);
		if (!ns->firmware[0] && (s = rq_jv_str(src, "Firmware")))
			snprintf(ns->firmware, sizeof(ns->firmware), "%s", s);
		if (!ns->transport[0] && (s = rq_jv_str(src, "Transport")))
			snprintf(ns->transport, sizeof(ns->transport), "%s", s);
	}
	if (rq_jv_num(o, "SectorSize", &x))
		ns->lbs = (uint32_t)x;
	if (rq_jv_num(o, "PhysicalSize", &x))
		ns->size = (uint64_t)x;
	if (rq_jv_num(o, "UsedBytes", &x))
		ns->used = (uint64_t)x;
	if (!ns->size && ns->lbs && rq_jv_num(o, "MaximumLBA", &x))
		ns->size = (uint64_t)x * ns->lbs;
}

/*
 * Walk nvme-cli's JSON: a namespace is an object with DevicePath (flat
 * layout) or with NameSpace and SectorSize (the tree layout); the nearest
 * enclosing object with a ModelNumber is its controller.
 */
static void walk_nvme(struct found *f, const struct rq_jv *v, const struct rq_jv *ctrl)
{
	if (v->t == RQ_J_OBJ) {
		if (rq_jv_str(v, "DevicePath") || (rq_jv_get(v, "NameSpace") && rq_jv_get(v, "SectorSize"))) {
			add_ns(f, v, ctrl);
			return;
		}
		if (rq_jv_str(v, "ModelNumber"))
			ctrl = v;
	}
	if (v->t == RQ_J_OBJ || v->t == RQ_J_ARR)
		for (unsigned int i = 0; i < v->nr; i++)
			walk_nvme(f, &v->kids[i], ctrl);
}

static void scan_nvme_cli(struct found *f)
{
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap);
	FILE *p;
	int st;

	if (!out)
		return;
	/* stderr joins stdout: its first line explains a failure */
	p = popen("nvme list -o json 2>&1", "r");
	if (!p) {
		snprintf(f->nvme_note, sizeof(f->nvme_note), "cannot run nvme-cli: %s", strerror(errno));
		free(out);
		return;
	}
	for (;;) {
		size_t r;

		if (n + 1 >= cap) {
			char *g = realloc(out, cap *= 2);

			if (!g)
				break;
			out = g;
		}
		r = fread(out + n, 1, cap - 1 - n, p);
		if (!r)
			break;
		n += r;
	}
	out[n] = 0;
	st = pclose(p);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		snprintf(f->nvme_note, sizeof(f->nvme_note),
			 "nvme-cli is not installed: NVMe namespaces are listed from sysfs only "
			 "(apt-get install nvme-cli)");
	} else {
		const char *j = strchr(out, '{');
		struct rq_jv v;

		if (j && !rq_jv_parse(j, &v)) {
			f->nvme_cli = true;
			walk_nvme(f, &v, NULL);
			rq_jv_free(&v);
			if (!f->nr_ns)
				snprintf(f->nvme_note, sizeof(f->nvme_note), "nvme list: no NVMe namespaces");
		} else {
			char *nl = strchr(out, '\n');

			if (nl)
				*nl = 0;
			snprintf(f->nvme_note, sizeof(f->nvme_note), "nvme list found no NVMe devices%s%.200s",
				 out[0] ? ": " : "", out);
		}
	}
	free(out);
}

/* ---- rendering ------------------------------------------------------ */

static void jstr(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void print_json(FILE *o, const struct found *f)
{
	fprintf(o, "{\n  \"block_devices\": [");
	for (unsigned int i = 0; i < f->nr_blk; i++) {
		const struct blk_info *b = &f->blk[i];

		fprintf(o, "%s\n    {\"name\": ", i ? "," : "");
		jstr(o, b->name);
		fprintf(o, ", \"path\": ");
		jstr(o, b->path);
		fprintf(o, ", \"kind\": ");
		jstr(o, b->facts.subkind);
		fprintf(o, ", \"transport\": ");
		jstr(o, b->facts.transport);
		fprintf(o, ", \"model\": ");
		jstr(o, b->facts.model);
		fprintf(o, ", \"vendor\": ");
		jstr(o, b->vendor);
		fprintf(o, ", \"serial\": ");
		jstr(o, b->facts.serial);
		fprintf(o, ", \"size\": %" PRIu64 ", \"logical_block_size\": %u, "
			"\"physical_block_size\": %u, \"nr_requests\": %u, \"max_sectors_kb\": %u, "
			"\"rotational\": %s, \"removable\": %s, \"read_only\": %s, \"partitions\": %d, "
			"\"scheduler\": ", b->size, b->lbs, b->pbs, b->nr_requests, b->max_sectors_kb,
			b->facts.rotational < 0 ? "null" : b->facts.rotational ? "true" : "false",
			b->removable ? "true" : "false", b->ro ? "true" : "false", b->partitions);
		jstr(o, b->scheduler);
		fprintf(o, ", \"in_use\": %s, \"in_use_why\": ", b->in_use[0] ? "true" : "false");
		jstr(o, b->in_use);
		fprintf(o, "}");
	}
	fprintf(o, "\n  ],\n  \"hidden_empty_devices\": %u,\n  \"nvme_generic\": [", f->hidden);
	for (unsigned int i = 0; i < f->nr_ng; i++) {
		fprintf(o, "%s\n    {\"name\": ", i ? "," : "");
		jstr(o, f->ng[i].name);
		fprintf(o, ", \"path\": ");
		jstr(o, f->ng[i].path);
		fprintf(o, ", \"kind\": \"nvme-pt\", \"block_device\": ");
		jstr(o, f->ng[i].block);
		fprintf(o, ", \"model\": ");
		jstr(o, f->ng[i].model);
		fprintf(o, ", \"serial\": ");
		jstr(o, f->ng[i].serial);
		fprintf(o, "}");
	}
	fprintf(o, "\n  ],\n  \"nvme\": {\"nvme_cli\": %s, \"note\": ", f->nvme_cli ? "true" : "false");
	jstr(o, f->nvme_note);
	fprintf(o, ", \"namespaces\": [");
	for (unsigned int i = 0; i < f->nr_ns; i++) {
		const struct nvme_ns *ns = &f->ns[i];

		fprintf(o, "%s\n    {\"path\": ", i ? "," : "");
		jstr(o, ns->path);
		fprintf(o, ", \"generic_path\": ");
		jstr(o, ns->generic);
		fprintf(o, ", \"nsid\": %" PRIu64 ", \"model\": ", ns->nsid);
		jstr(o, ns->model);
		fprintf(o, ", \"serial\": ");
		jstr(o, ns->serial);
		fprintf(o, ", \"firmware\": ");
		jstr(o, ns->firmware);
		fprintf(o, ", \"transport\": ");
		jstr(o, ns->transport);
		fprintf(o, ", \"size\": %" PRIu64 ", \"used\": %" PRIu64 ", \"logical_block_size\": %u}",
			ns->size, ns->used, ns->lbs);
	}
	fprintf(o, "\n  ]},\n  \"nvme_controllers\": [");
	for (unsigned int i = 0; i < f->nr_ctrl; i++) {
		const struct rq_pci_fn *c = &f->ctrl[i];
		char why[320];
		const char *way = rq_pci_nvme_way(c, why, sizeof(why));

		fprintf(o, "%s\n    {\"address\": ", i ? "," : "");
		jstr(o, c->bdf);
		fprintf(o, ", \"vendor\": \"0x%04x\", \"device\": \"0x%04x\", \"driver\": ", c->vendor, c->device);
		jstr(o, c->driver);
		fprintf(o, ", \"iommu_group\": %d, \"namespaces\": ", c->iommu_group);
		jstr(o, c->ns);
		fprintf(o, ", \"rqlock\": %s, \"dma\": ", way ? "true" : "false");
		jstr(o, way ? way : "");
		fprintf(o, ", \"why\": ");
		jstr(o, way ? "" : why);
		fprintf(o, "}");
	}
	fprintf(o, "\n  ]\n}\n");
}

static void human(uint64_t b, char *out, size_t len)
{
	static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)b;
	int i = 0;

	while (x >= 1024 && i < 5) {
		x /= 1024;
		i++;
	}
	snprintf(out, len, i ? "%.1f%s" : "%.0f%s", x, u[i]);
}

static void print_controllers(FILE *o, const struct found *f);

static void print_table(FILE *o, const struct found *f)
{
	char sz[32];

	fprintf(o, "%-14s %-8s %-9s %9s %5s %5s %4s %-24s %-20s %s\n", "DEVICE", "KIND", "TRANSPORT",
		"SIZE", "LBS", "QD", "ROT", "MODEL", "SERIAL", "IN USE");
	for (unsigned int i = 0; i < f->nr_blk; i++) {
		const struct blk_info *b = &f->blk[i];

		human(b->size, sz, sizeof(sz));
		fprintf(o, "%-14s %-8s %-9s %9s %5u %5u %4s %-24.24s %-20.20s %s\n", b->path,
			b->facts.subkind, b->facts.transport, sz, b->lbs, b->nr_requests,
			b->facts.rotational < 0 ? "?" : b->facts.rotational ? "yes" : "no",
			b->facts.model[0] ? b->facts.model : "-", b->facts.serial[0] ? b->facts.serial : "-",
			b->in_use[0] ? b->in_use : "no");
	}
	for (unsigned int i = 0; i < f->nr_ng; i++)
		fprintf(o, "%-14s %-8s %-9s %9s %5s %5s %4s %-24.24s %-20.20s %s\n", f->ng[i].path,
			"nvme-pt", "pcie", "-", "-", "-", "no", f->ng[i].model[0] ? f->ng[i].model : "-",
			f->ng[i].serial[0] ? f->ng[i].serial : "-",
			f->ng[i].block[0] ? f->ng[i].block : "-");
	if (f->hidden)
		fprintf(o, "(%u empty devices not shown, such as loop devices with nothing attached: --all)\n",
			f->hidden);
	if (f->nr_ns) {
		fprintf(o, "\nNVMe namespaces (nvme list):\n%-16s %-14s %5s %9s %5s %-24s %-20s %s\n",
			"NAMESPACE", "GENERIC", "NSID", "SIZE", "LBS", "MODEL", "SERIAL", "FIRMWARE");
		for (unsigned int i = 0; i < f->nr_ns; i++) {
			const struct nvme_ns *ns = &f->ns[i];

			human(ns->size, sz, sizeof(sz));
			fprintf(o, "%-16s %-14s %5" PRIu64 " %9s %5u %-24.24s %-20.20s %s\n", ns->path,
				ns->generic[0] ? ns->generic : "-", ns->nsid, sz, ns->lbs,
				ns->model[0] ? ns->model : "-", ns->serial[0] ? ns->serial : "-",
				ns->firmware[0] ? ns->firmware : "-");
		}
	}
	if (f->nvme_note[0])
		fprintf(o, "%s%s\n", f->nr_ns ? "" : "\n", f->nvme_note);
	if (f->nr_ctrl)
		print_controllers(o, f);
}

/* The controllers' table; why rqlock cannot take one goes under it, as a footnote. */
static void print_controllers(FILE *o, const struct found *f)
{
	unsigned int notes = 0;

	fprintf(o, "\nNVMe controllers (PCI; @nvme-pci,addr=ADDRESS takes one bound to vfio-pci or "
		"uio_pci_generic):\n%-13s %-16s %5s %-30s %s\n", "ADDRESS", "DRIVER", "IOMMU", "NAMESPACES", "RQLOCK");
	for (unsigned int i = 0; i < f->nr_ctrl; i++) {
		const struct rq_pci_fn *c = &f->ctrl[i];
		char why[320], grp[12], cell[24];
		const char *way = rq_pci_nvme_way(c, why, sizeof(why));

		snprintf(grp, sizeof(grp), "%d", c->iommu_group);
		if (way)
			snprintf(cell, sizeof(cell), "yes, %s", way);
		else
			snprintf(cell, sizeof(cell), "no [%u]", ++notes);
		fprintf(o, "%-13s %-16s %5s %-30.30s %s\n", c->bdf, c->driver[0] ? c->driver : "-",
			c->iommu_group < 0 ? "-" : grp, c->ns[0] ? c->ns : "-", cell);
	}
	notes = 0;
	for (unsigned int i = 0; i < f->nr_ctrl; i++) {
		char why[320];

		if (!rq_pci_nvme_way(&f->ctrl[i], why, sizeof(why)))
			fprintf(o, "[%u] %s\n", ++notes, why);
	}
}

int rq_devices_cmd(int argc, char **argv)
{
	struct found f;
	bool json = false, all = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--all"))
			all = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: rqlock devices [--json] [--all]\n\n"
			       "Lists block devices (sysfs), NVMe generic character devices, NVMe\n"
			       "namespaces (nvme list -o json, when nvme-cli is installed) and NVMe\n"
			       "controllers on the PCI bus: their driver, and whether @nvme-pci can take them.\n"
			       "  --json   one JSON object instead of the table\n"
			       "  --all    also empty devices (unattached loop devices, no medium)\n");
			return 0;
		} else {
			fprintf(stderr, "rqlock: devices: unknown option '%s' (--json, --all)\n", argv[i]);
			return 2;
		}
	}
	memset(&f, 0, sizeof(f));
	scan_block(&f, all);
	scan_ng(&f);
	scan_nvme_cli(&f);
	f.nr_ctrl = rq_pci_nvme_list(&f.ctrl);
	if (json)
		print_json(stdout, &f);
	else
		print_table(stdout, &f);
	free(f.blk);
	free(f.ng);
	free(f.ns);
	free(f.ctrl);
	return fflush(stdout) ? 1 : 0;
}
