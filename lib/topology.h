/* SPDX-License-Identifier: MIT */
/*
 * topology.h - the machine's CPUs as sysfs describes them: packages,
 * last-level-cache domains and NUMA nodes, read from
 * <root>/devices/system/cpu and <root>/devices/system/node, where <root>
 * is $RQLOCK_SYSFS or /sys (tests point it at a fake tree).
 *
 * Workers are the CPUs of this program; they are placed in the order
 * rq_topo_read() leaves t->cpus in: node, then package, then LLC domain,
 * then CPU number, so that consecutive workers share a cache and the
 * default cluster partitions (one per LLC domain, McVoy's small groups of
 * processors that share a cache) are runs of workers.
 */
#ifndef RQ_TOPOLOGY_H
#define RQ_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#define RQ_TOPO_MAX_CPUS 4096

struct rq_topo_cpu {
	int cpu;			/* the kernel's CPU number */
	int package;			/* topology/physical_package_id, -1 unknown */
	int node;			/* NUMA node, -1 unknown */
	int llc_first;			/* lowest CPU of its LLC's shared_cpu_list */
	unsigned int llc;		/* dense LLC domain index, in placement order */
};

struct rq_topo {
	unsigned int nr_cpus;		/* online (and, under /sys, allowed) CPUs */
	struct rq_topo_cpu *cpus;	/* placement order */
	unsigned int nr_llcs, nr_packages, nr_nodes;
	int cache_index;		/* cache/indexN giving the LLC domains; -1: none (one per CPU) */
	char root[256];			/* the sysfs root read */
};

/* $RQLOCK_SYSFS, else "/sys". */
const char *rq_topo_root(void);
/*
 * Read the topology under rq_topo_root().  Under the real /sys only the
 * CPUs this process may run on are kept; a fake root is taken as the
 * whole machine.  Returns 0, or -errno when the CPU list cannot be read
 * (the caller may fall back to rq_topo_flat()).
 */
int rq_topo_read(struct rq_topo *t);
/* @n CPUs 0..n-1, one LLC each, no packages or nodes known.  0 or -ENOMEM. */
int rq_topo_flat(struct rq_topo *t, unsigned int n);
void rq_topo_free(struct rq_topo *t);
/*
 * Parse a kernel CPU list ("0-3,8,10-11") into @mask (@bits bits).
 * Returns the number of CPUs set, or -EINVAL.
 */
int rq_cpulist_parse(const char *s, uint64_t *mask, unsigned int bits);

#endif /* RQ_TOPOLOGY_H */
