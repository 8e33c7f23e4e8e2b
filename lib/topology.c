// SPDX-License-Identifier: MIT
/*
 * topology.c - CPUs, packages, LLC domains and NUMA nodes from sysfs.
 *
 * The files read (Documentation/ABI/stable/sysfs-devices-system-cpu and
 * .../testing/sysfs-devices-system-cpu):
 *   devices/system/cpu/online                          the CPU list
 *   devices/system/cpu/cpuN/topology/physical_package_id
 *   devices/system/cpu/cpuN/cache/indexI/shared_cpu_list  index3 is the
 *       LLC on x86; where there is no index3, the highest index present
 *   devices/system/node/nodeM/cpulist                  NUMA nodes
 * A file that is missing leaves the fact unknown (-1), never an error:
 * containers and some architectures hide parts of the tree.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/topology.h"

#define MASK_WORDS (RQ_TOPO_MAX_CPUS / 64)

const char *rq_topo_root(void)
{
	const char *r = getenv("RQLOCK_SYSFS");

	return r && r[0] ? r : "/sys";
}

int rq_cpulist_parse(const char *s, uint64_t *mask, unsigned int bits)
{
	int n = 0;

	memset(mask, 0, (bits + 63) / 64 * sizeof(*mask));
	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -EINVAL;
		}
		if (b >= bits)
			return -EINVAL;
		for (unsigned long c = a; c <= b; c++) {
			n += !(mask[c / 64] >> (c % 64) & 1);
			mask[c / 64] |= 1ULL << (c % 64);
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n;
}

/* The first line of @path into @buf; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

static int read_int(const char *path)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) ? atoi(buf) : -1;
}

/* The lowest CPU of a list file, -1 if unreadable. */
static int list_first(const char *path)
{
	uint64_t mask[MASK_WORDS];
	char buf[8192];

	if (!read_line(path, buf, sizeof(buf)) || rq_cpulist_parse(buf, mask, RQ_TOPO_MAX_CPUS) <= 0)
		return -1;
	for (unsigned int w = 0; w < MASK_WORDS; w++)
		if (mask[w])
			return (int)(w * 64 + (unsigned int)__builtin_ctzll(mask[w]));
	return -1;
}

/* The highest cache/indexI of CPU @cpu with a shared_cpu_list; 3 when present. */
static int llc_index(const char *root, int cpu)
{
	char path[PATH_MAX];
	int best = -1;

	for (int i = 0; i < 8; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", root, cpu, i);
		f = fopen(path, "re");
		if (f) {
			fclose(f);
			best = i;
		}
	}
	return best;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct rq_topo_cpu *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->package != y->package)
		return x->package < y->package ? -1 : 1;
	if (x->llc_first != y->llc_first)
		return x->llc_first < y->llc_first ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Sort into placement order and number the LLC domains, packages and nodes. */
static void finish(struct rq_topo *t)
{
	qsort(t->cpus, t->nr_cpus, sizeof(*t->cpus), cmp_cpu);
	t->nr_llcs = t->nr_packages = t->nr_nodes = 0;
	for (unsigned int i = 0; i < t->nr_cpus; i++) {
		const struct rq_topo_cpu *p = i ? &t->cpus[i - 1] : NULL;
		struct rq_topo_cpu *c = &t->cpus[i];

		if (!p || p->llc_first != c->llc_first || p->package != c->package || p->node != c->node)
			t->nr_llcs++;
		c->llc = t->nr_llcs - 1;
		if (c->package >= 0 && (!p || p->package != c->package || p->node != c->node))
			t->nr_packages++;
		if (c->node >= 0 && (!p || p->node != c->node))
			t->nr_nodes++;
	}
}

int rq_topo_flat(struct rq_topo *t, unsigned int n)
{
	memset(t, 0, sizeof(*t));
	t->cpus = calloc(n ? n : 1, sizeof(*t->cpus));
	if (!t->cpus)
		return -ENOMEM;
	t->nr_cpus = n ? n : 1;
	t->cache_index = -1;
	snprintf(t->root, sizeof(t->root), "%s", "none");
	for (unsigned int i = 0; i < t->nr_cpus; i++)
		t->cpus[i] = (struct rq_topo_cpu){ .cpu = (int)i, .package = -1, .node = -1, .llc_first = (int)i };
	finish(t);
	return 0;
}

int rq_topo_read(struct rq_topo *t)
{
	uint64_t online[MASK_WORDS], nodemask[MASK_WORDS];
	const char *root = rq_topo_root();
	bool real = !getenv("RQLOCK_SYSFS") || !getenv("RQLOCK_SYSFS")[0];
	char path[PATH_MAX], buf[8192];
	cpu_set_t allowed;
	int n;

	memset(t, 0, sizeof(*t));
	snprintf(t->root, sizeof(t->root), "%s", root);
	t->cache_index = -1;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root);
	if (!read_line(path, buf, sizeof(buf)))
		return -ENOENT;
	n = rq_cpulist_parse(buf, online, RQ_TOPO_MAX_CPUS);
	if (n <= 0)
		return -EINVAL;
	if (real && !sched_getaffinity(0, sizeof(allowed), &allowed)) {
		for (int c = 0; c < RQ_TOPO_MAX_CPUS && c < CPU_SETSIZE; c++)
			if (online[c / 64] >> (c % 64) & 1 && !CPU_ISSET(c, &allowed))
				online[c / 64] &= ~(1ULL << (c % 64)), n--;
		if (n <= 0)
			return -ENOENT;
	}
	t->cpus = calloc((size_t)n, sizeof(*t->cpus));
	if (!t->cpus)
		return -ENOMEM;
	for (int c = 0; c < RQ_TOPO_MAX_CPUS; c++) {
		struct rq_topo_cpu *p;
		int idx;

		if (!(online[c / 64] >> (c % 64) & 1))
			continue;
		p = &t->cpus[t->nr_cpus++];
		p->cpu = c;
		p->node = -1;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/physical_package_id", root, c);
		p->package = read_int(path);
		idx = llc_index(root, c);
		if (idx > t->cache_index)
			t->cache_index = idx;
		p->llc_first = -1;
		if (idx >= 0) {
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
				 root, c, idx);
			p->llc_first = list_first(path);
		}
		if (p->llc_first < 0)
			p->llc_first = c;	/* unknown: a domain of its own */
	}
	/* nodes: each node's cpulist, the node directories in number order */
	for (int m = 0; m < RQ_TOPO_MAX_CPUS; m++) {
		snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist", root, m);
		if (!read_line(path, buf, sizeof(buf))) {
			if (m > 64)
				break;	/* node numbers may have holes; they are small */
			continue;
		}
		if (rq_cpulist_parse(buf, nodemask, RQ_TOPO_MAX_CPUS) < 0)
			continue;
		for (unsigned int i = 0; i < t->nr_cpus; i++)
			if (nodemask[t->cpus[i].cpu / 64] >> (t->cpus[i].cpu % 64) & 1)
				t->cpus[i].node = m;
	}
	finish(t);
	return 0;
}

void rq_topo_free(struct rq_topo *t)
{
	free(t->cpus);
	t->cpus = NULL;
	t->nr_cpus = 0;
}
