// SPDX-License-Identifier: MIT
/*
 * test_topology - the machine's shape from a fake sysfs (RQLOCK_SYSFS), no
 * real /sys read: CPU lists parse as the kernel writes them; a tree of two
 * LLC domains of two CPUs each gives two LLCs, workers placed so that
 * each domain's CPUs are consecutive workers, and the cluster mode two
 * partitions of two workers that own the devices between them; the
 * highest cache index stands in for a missing index3; NUMA nodes order
 * the placement; --cluster-size overrides the domains.  Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "lib/topology.h"
#include "tests/helpers.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* A fresh tree: @n CPUs, cpuN's LLC list from @llc[N] at cache index @idx, package @pkg[N]. */
static void tree(const char *tag, unsigned int n, const char *const *llc, int idx, const int *pkg)
{
	char rel[256], buf[64];

	snprintf(root, sizeof(root), "/tmp/rqlock-topo-%s-%d", tag, (int)getpid());
	mkdir(root, 0755);
	snprintf(buf, sizeof(buf), "0-%u\n", n - 1);
	put("devices/system/cpu/online", buf);
	for (unsigned int c = 0; c < n; c++) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/physical_package_id", c);
		snprintf(buf, sizeof(buf), "%d\n", pkg ? pkg[c] : 0);
		put(rel, buf);
		/* an L1 every CPU has alone: the LLC is the highest index, not the first */
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/cache/index0/shared_cpu_list", c);
		snprintf(buf, sizeof(buf), "%u\n", c);
		put(rel, buf);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/cache/index%d/shared_cpu_list", c, idx);
		snprintf(buf, sizeof(buf), "%s\n", llc[c]);
		put(rel, buf);
	}
	setenv("RQLOCK_SYSFS", root, 1);
}

static void cleanup(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "test_topology: could not remove %s\n", root);
}

static void cpulists(void)
{
	uint64_t m[2];

	CHECK(rq_cpulist_parse("0-3,8,10-11\n", m, 128) == 7 && m[0] == 0xd0f, "0-3,8,10-11: %#" PRIx64, m[0]);
	CHECK(rq_cpulist_parse("64", m, 128) == 1 && m[1] == 1 && m[0] == 0, "64");
	CHECK(rq_cpulist_parse("3-1", m, 128) == -EINVAL, "3-1 is refused");
	CHECK(rq_cpulist_parse("0,x", m, 128) == -EINVAL, "0,x is refused");
	CHECK(rq_cpulist_parse("200", m, 128) == -EINVAL, "a CPU past the mask is refused");
}

static void two_llcs(void)
{
	static const char *const llc[] = { "0-1", "0-1", "2-3", "2-3" };
	struct rq_topo t;

	tree("llc", 4, llc, 3, NULL);
	CHECK(rq_topo_read(&t) == 0, "read %s", root);
	CHECK(t.nr_cpus == 4 && t.nr_llcs == 2 && t.cache_index == 3 && t.nr_packages == 1,
	      "4 CPUs, 2 LLCs at index3, 1 package: got %u, %u at %d, %u", t.nr_cpus, t.nr_llcs, t.cache_index,
	      t.nr_packages);
	for (unsigned int i = 0; i < t.nr_cpus; i++)
		CHECK(t.cpus[i].cpu == (int)i && t.cpus[i].llc == i / 2, "cpu %u in LLC %u", i, t.cpus[i].llc);
	rq_topo_free(&t);

	/* the engine: cluster mode, no --cluster-size, 4 workers on the 4 CPUs, 2 devices */
	struct rq_engine_opts o = { .lock_mode = "cluster", .lock_type = "ttas", .workers = 4,
				    .stall_timeout_ns = 10ULL * 1000000000ULL };
	struct rq_test_run run;
	const struct rq_run_report *r;

	if (rq_test_run_job(&run, "two-llcs", "[global]\nbs=4k\nsize=256k\nnumjobs=4\n[j]\nrw=randread\n"
			    "filename=@null0:@null1\n", &o)) {
		CHECK(0, "the cluster run did not start");
		return;
	}
	r = rq_engine_report(run.e);
	CHECK(run.ret == 0, "run returned %d", run.ret);
	CHECK(r->mode.nr_partitions == 2, "cluster: %u partitions, want 2 (one per LLC domain)", r->mode.nr_partitions);
	CHECK(r->cluster_from_llc, "the partitions say they come from the LLC domains");
	CHECK(r->mode.worker_part && r->mode.nr_workers == 4, "worker map");
	for (unsigned int w = 0; r->mode.worker_part && w < 4; w++) {
		CHECK(r->mode.worker_part[w] == w / 2, "worker %u in partition %u", w, r->mode.worker_part[w]);
		CHECK(r->worker_cpu[w] == (int)w, "worker %u on CPU %d", w, r->worker_cpu[w]);
	}
	for (unsigned int q = 0; q < r->mode.nr_queues; q++)
		CHECK(rq_fact_get(&r->mode.queues[q].facts, "owner_partition", -1) == (int64_t)(q % 2),
		      "device %u owned by partition %" PRId64, q,
		      rq_fact_get(&r->mode.queues[q].facts, "owner_partition", -1));
	rq_test_run_free(&run);

	/* --cluster-size overrides the domains */
	o.cluster_size = 1;
	if (!rq_test_run_job(&run, "size-1", "[j]\nbs=4k\nsize=64k\nrw=read\nioengine=null\n", &o)) {
		r = rq_engine_report(run.e);
		CHECK(r->mode.nr_partitions == 4 && !r->cluster_from_llc, "--cluster-size 1: %u partitions",
		      r->mode.nr_partitions);
		rq_test_run_free(&run);
	}
	cleanup();
}

/* No index3: the highest index present (here index2) gives the domains; nodes order the CPUs. */
static void fallback_and_nodes(void)
{
	static const char *const llc[] = { "0,2", "1,3", "0,2", "1,3" };
	static const int pkg[] = { 0, 1, 0, 1 };
	struct rq_topo t;

	tree("idx2", 4, llc, 2, pkg);
	put("devices/system/node/node0/cpulist", "0,2\n");
	put("devices/system/node/node1/cpulist", "1,3\n");
	CHECK(rq_topo_read(&t) == 0, "read %s", root);
	CHECK(t.cache_index == 2 && t.nr_llcs == 2 && t.nr_nodes == 2 && t.nr_packages == 2,
	      "index2: %d, LLCs %u, nodes %u, packages %u", t.cache_index, t.nr_llcs, t.nr_nodes, t.nr_packages);
	/* placement order: node 0's CPUs (0, 2), then node 1's (1, 3) */
	static const int order[] = { 0, 2, 1, 3 };
	for (unsigned int i = 0; i < t.nr_cpus; i++)
		CHECK(t.cpus[i].cpu == order[i] && t.cpus[i].node == order[i] % 2 && t.cpus[i].llc == i / 2,
		      "place %u: cpu %d node %d llc %u", i, t.cpus[i].cpu, t.cpus[i].node, t.cpus[i].llc);
	rq_topo_free(&t);
	cleanup();
}

int main(void)
{
	cpulists();
	two_llcs();
	fallback_and_nodes();
	if (failures) {
		fprintf(stderr, "test_topology: %d failures\n", failures);
		return 1;
	}
	printf("test_topology: ok\n");
	return 0;
}
