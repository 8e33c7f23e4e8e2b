// SPDX-License-Identifier: MIT
/*
 * lockstat.c - the lockstat, lockdep and lock-mode parts of a report:
 * JSON members of the "rqlock" object and a normal-output section laid out
 * as Linux's /proc/lock_stat.
 *
 * JSON (inside "rqlock"):
 *   "lockstat": { enabled, clock, hold_sample, overhead_ns, elapsed_ns,
 *                 classes: [ { name, locks, acquisitions, contentions,
 *                   con_bounces, acq_bounces,
 *                   wait_ns: { samples, min, avg, max, total, histogram },
 *                   hold_ns: { ... }, sites: [ { site, contentions } ],
 *                   holders: [ { waiter, holder, holder_site, contentions,
 *                                wait_ns } ], holders_other } ] }
 *               holders: each contended wait attributed to the holder at
 *               the time its wait began (queue/device and site), longest
 *               total wait first.
 *   "lockdep":  { enabled, classes, edges, cycles, edge_list: [...], cycle }
 *   "mode":     { partitions, cluster_size, forwarded, local, hw_queues,
 *                 queues: [ the mode's per-queue facts ] }
 *   "topology": { sysfs, cache_index, cpus, llcs, packages, nodes,
 *                 cpu_list: [ { cpu, package, node, llc } ] (placement order) }
 *   "cluster":  { source: "llc" | "cluster-size", partitions: [ { partition,
 *                 workers: [...], cpus: [...], devices: [...] } ] }
 * A histogram is an object { "<bucket lower bound, ns>": count } of its
 * non-empty buckets, in order (fio's json+ "bins" style).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "results/json_internal.h"
#include "results/results.h"

static void json_time(struct rq_json *j, const char *key, const struct rq_lockstat_time *t)
{
	char lo[32];

	rq_json_obj_open(j, key);
	rq_json_u64(j, "samples", t->samples);
	rq_json_u64(j, "min", t->min_ns);
	rq_json_dbl(j, "avg", t->avg_ns);
	rq_json_u64(j, "max", t->max_ns);
	rq_json_u64(j, "total", t->total_ns);
	rq_json_obj_open(j, "histogram");
	for (unsigned int i = 0; i < t->nr_buckets && i < RQ_LOCKSTAT_HIST_NR; i++) {
		snprintf(lo, sizeof(lo), "%" PRIu64, t->buckets[i].lo_ns);
		rq_json_u64(j, lo, t->buckets[i].count);
	}
	rq_json_obj_close(j);
	rq_json_obj_close(j);
}

static bool is_mode(const struct rq_run_report *r, const char *name)
{
	return r->lock_mode && !strcmp(r->lock_mode, name);
}

static void json_topology(struct rq_json *j, const struct rq_run_report *r)
{
	const struct rq_topo *t = r->topo;

	if (!t || !t->cpus)
		return;
	rq_json_obj_open(j, "topology");
	rq_json_str(j, "sysfs", t->root);
	rq_json_i64(j, "cache_index", t->cache_index);
	rq_json_u64(j, "cpus", t->nr_cpus);
	rq_json_u64(j, "llcs", t->nr_llcs);
	rq_json_u64(j, "packages", t->nr_packages);
	rq_json_u64(j, "nodes", t->nr_nodes);
	rq_json_arr_open(j, "cpu_list");
	for (unsigned int i = 0; i < t->nr_cpus; i++) {
		rq_json_obj_open(j, NULL);
		rq_json_i64(j, "cpu", t->cpus[i].cpu);
		rq_json_i64(j, "package", t->cpus[i].package);
		rq_json_i64(j, "node", t->cpus[i].node);
		rq_json_u64(j, "llc", t->cpus[i].llc);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_obj_close(j);
}

/* One entry per partition: its workers, the CPUs they run on, the devices it owns. */
static void json_cluster(struct rq_json *j, const struct rq_run_report *r)
{
	const struct rq_mode_report *m = &r->mode;

	rq_json_obj_open(j, "cluster");
	rq_json_str(j, "source", r->cluster_from_llc ? "llc" : "cluster-size");
	rq_json_arr_open(j, "partitions");
	for (unsigned int p = 0; m->worker_part && p < m->partitions; p++) {
		rq_json_obj_open(j, NULL);
		rq_json_u64(j, "partition", p);
		rq_json_arr_open(j, "workers");
		for (unsigned int w = 0; w < m->nr_workers; w++)
			if (m->worker_part[w] == p)
				rq_json_u64(j, NULL, w);
		rq_json_arr_close(j);
		rq_json_arr_open(j, "cpus");
		for (unsigned int w = 0; r->worker_cpu && w < m->nr_workers; w++)
			if (m->worker_part[w] == p)
				rq_json_i64(j, NULL, r->worker_cpu[w]);
		rq_json_arr_close(j);
		rq_json_arr_open(j, "devices");
		for (unsigned int i = 0; m->queues && i < m->nr_queues; i++)
			if (m->queues[i].owner_partition == (int)p)
				rq_json_strn(j, NULL, m->queues[i].name, sizeof(m->queues[i].name));
		rq_json_arr_close(j);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_obj_close(j);
}

void rq_lockstat_json(struct rq_json *j, const struct rq_run_report *r)
{
	const struct rq_lockstat_report *ls = &r->lockstat;
	const struct rq_lockdep_report *ld = &r->lockdep;
	const struct rq_mode_report *m = &r->mode;

	rq_json_obj_open(j, "lockstat");
	rq_json_u64(j, "enabled", ls->enabled);
	rq_json_str(j, "clock", ls->clock ? ls->clock : "");
	rq_json_u64(j, "hold_sample", ls->hold_sample);
	rq_json_dbl(j, "overhead_ns", ls->overhead_ns);
	rq_json_u64(j, "elapsed_ns", ls->elapsed_ns);
	rq_json_arr_open(j, "classes");
	for (unsigned int i = 0; ls->classes && i < ls->nr_classes; i++) {
		const struct rq_lockstat_class *c = &ls->classes[i];

		rq_json_obj_open(j, NULL);
		rq_json_strn(j, "name", c->name, sizeof(c->name));
		rq_json_u64(j, "locks", c->locks);
		rq_json_u64(j, "acquisitions", c->acquisitions);
		rq_json_u64(j, "contentions", c->contentions);
		rq_json_u64(j, "con_bounces", c->con_bounces);
		rq_json_u64(j, "acq_bounces", c->acq_bounces);
		json_time(j, "wait_ns", &c->wait);
		json_time(j, "hold_ns", &c->hold);
		rq_json_arr_open(j, "sites");
		for (unsigned int s = 0; s < c->nr_sites && s < RQ_LOCKSTAT_SITES; s++) {
			rq_json_obj_open(j, NULL);
			rq_json_strn(j, "site", c->sites[s].site, sizeof(c->sites[s].site));
			rq_json_u64(j, "contentions", c->sites[s].contentions);
			rq_json_obj_close(j);
		}
		rq_json_arr_close(j);
		rq_json_arr_open(j, "holders");
		for (unsigned int h = 0; h < c->nr_holders && h < RQ_LOCKSTAT_HOLDERS; h++) {
			const struct rq_lockstat_holder *o = &c->holders[h];

			rq_json_obj_open(j, NULL);
			rq_json_strn(j, "waiter", o->waiter, sizeof(o->waiter));
			rq_json_strn(j, "holder", o->holder, sizeof(o->holder));
			rq_json_strn(j, "holder_site", o->holder_site, sizeof(o->holder_site));
			rq_json_u64(j, "contentions", o->contentions);
			rq_json_u64(j, "wait_ns", o->wait_ns);
			rq_json_obj_close(j);
		}
		rq_json_arr_close(j);
		rq_json_u64(j, "holders_other", c->holders_other);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_obj_close(j);

	rq_json_obj_open(j, "lockdep");
	rq_json_u64(j, "enabled", ld->enabled);
	rq_json_u64(j, "classes", ld->classes);
	rq_json_u64(j, "edges", ld->edges);
	rq_json_u64(j, "cycles", ld->cycles);
	rq_json_arr_open(j, "edge_list");
	for (unsigned int i = 0; ld->edge_list && i < ld->nr_edges; i++) {
		const struct rq_lockdep_edge *e = &ld->edge_list[i];

		rq_json_obj_open(j, NULL);
		rq_json_strn(j, "from", e->from, sizeof(e->from));
		rq_json_strn(j, "to", e->to, sizeof(e->to));
		rq_json_strn(j, "from_site", e->from_site, sizeof(e->from_site));
		rq_json_strn(j, "to_site", e->to_site, sizeof(e->to_site));
		rq_json_i64(j, "worker", e->cpu);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_strn(j, "cycle", ld->cycle, sizeof(ld->cycle));
	rq_json_obj_close(j);

	json_topology(j, r);
	if (is_mode(r, "cluster"))
		json_cluster(j, r);

	rq_json_obj_open(j, "mode");
	rq_json_str(j, "name", r->lock_mode ? r->lock_mode : "");
	if (is_mode(r, "cluster")) {
		rq_json_u64(j, "partitions", m->partitions);
		rq_json_u64(j, "cluster_size", m->cluster_size);
		rq_json_u64(j, "forwarded", m->forwarded);
		rq_json_u64(j, "local", m->local);
	}
	if (is_mode(r, "mq"))
		rq_json_u64(j, "hw_queues_option", m->hw_queues);
	rq_json_arr_open(j, "queues");
	for (unsigned int i = 0; m->queues && i < m->nr_queues; i++) {
		const struct rq_mode_queue_report *q = &m->queues[i];

		rq_json_obj_open(j, NULL);
		rq_json_strn(j, "name", q->name, sizeof(q->name));
		if (is_mode(r, "mq")) {
			rq_json_u64(j, "hw_queues", q->hw_queues);
			rq_json_u64(j, "tags", q->tags);
			rq_json_u64(j, "tag_waits", q->tag_waits);
			rq_json_u64(j, "sw_queued", q->sw_queued);
			rq_json_u64(j, "remote_dispatch", q->remote_dispatch);
		}
		if (is_mode(r, "cluster")) {
			rq_json_i64(j, "owner_partition", q->owner_partition);
			rq_json_u64(j, "local", q->local);
			rq_json_u64(j, "forwarded", q->forwarded);
			rq_json_u64(j, "ring_full", q->ring_full);
		}
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_obj_close(j);
}

/* ---------------------------------------------------------------- text */

/* A queue name for text: control bytes shown as '?', at most the field. */
static const char *clean_name(char *buf, size_t len, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i + 1 < len && i < max && s[i]; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = 0;
	return buf;
}

#define NCOLS 14

/* Cells of one class row, as /proc/lock_stat orders them. */
static void class_cells(const struct rq_lockstat_class *c, char cell[NCOLS][64])
{
	const uint64_t v[NCOLS] = {
		0, c->locks, c->con_bounces, c->contentions, c->wait.min_ns, c->wait.max_ns,
		c->wait.total_ns, 0, c->acq_bounces, c->acquisitions, c->hold.min_ns, c->hold.max_ns,
		c->hold.total_ns, 0,
	};

	snprintf(cell[0], 64, "%s", c->name);
	for (int i = 1; i < NCOLS; i++)
		snprintf(cell[i], 64, "%" PRIu64, v[i]);
	snprintf(cell[7], 64, "%.1f", c->wait.avg_ns);
	snprintf(cell[13], 64, "%.1f", c->hold.avg_ns);
}

int rq_lockstat_text(FILE *f, const struct rq_run_report *r)
{
	static const char *const hdr[NCOLS] = {
		"class", "locks", "con-bounces", "contentions", "waittime-min", "waittime-max",
		"waittime-total", "waittime-avg", "acq-bounces", "acquisitions", "holdtime-min",
		"holdtime-max", "holdtime-total", "holdtime-avg",
	};
	const struct rq_lockstat_report *ls = &r->lockstat;
	const struct rq_lockdep_report *ld = &r->lockdep;
	unsigned int w[NCOLS];
	char cell[NCOLS][64], name[129];

	if (!ls->enabled) {
		fprintf(f, "  lockstat: off\n");
	} else {
		fprintf(f, "  lockstat (ns; wait on every contended acquisition, hold on 1 in %u, clock %s):\n",
			ls->hold_sample, ls->clock ? ls->clock : "?");
		for (int c = 0; c < NCOLS; c++)
			w[c] = (unsigned int)strlen(hdr[c]);
		for (unsigned int i = 0; ls->classes && i < ls->nr_classes; i++) {
			class_cells(&ls->classes[i], cell);
			for (int c = 0; c < NCOLS; c++)
				if (strlen(cell[c]) > w[c])
					w[c] = (unsigned int)strlen(cell[c]);
		}
		for (unsigned int i = 0; i <= ls->nr_classes; i++) {
			if (i)
				class_cells(&ls->classes[i - 1], cell);
			fprintf(f, "   ");
			for (int c = 0; c < NCOLS; c++)
				fprintf(f, c ? " %*s" : " %-*s", (int)w[c], i ? cell[c] : hdr[c]);
			fprintf(f, "\n");
		}
		for (unsigned int i = 0; ls->classes && i < ls->nr_classes; i++) {
			const struct rq_lockstat_class *c = &ls->classes[i];

			for (unsigned int s = 0; s < c->nr_sites && s < RQ_LOCKSTAT_SITES; s++)
				fprintf(f, "    %s contention %u: %" PRIu64 " at %s\n", c->name, s + 1,
					c->sites[s].contentions, c->sites[s].site);
			for (unsigned int h = 0; h < c->nr_holders && h < RQ_LOCKSTAT_HOLDERS; h++)
				fprintf(f, "    %s waits by %s while %s held it (%s): %" PRIu64 ", %.3f ms\n",
					c->name, c->holders[h].waiter[0] ? c->holders[h].waiter : "?",
					c->holders[h].holder[0] ? c->holders[h].holder : "?",
					c->holders[h].holder_site, c->holders[h].contentions,
					(double)c->holders[h].wait_ns / 1e6);
		}
	}
	if (ld->enabled)
		fprintf(f, "  lockdep: %u lock classes, %u ordering edges, %u cycles\n", ld->classes,
			ld->edges, ld->cycles);
	else
		fprintf(f, "  lockdep: %u lock classes (ordering edges: run with --lockdep)\n", ld->classes);
	for (unsigned int i = 0; ld->enabled && ld->edge_list && i < ld->nr_edges; i++)
		fprintf(f, "    %s -> %s (%s, then %s)\n", ld->edge_list[i].from, ld->edge_list[i].to,
			ld->edge_list[i].from_site, ld->edge_list[i].to_site);
	if (ld->cycles)
		fputs(ld->cycle, f);
	if (is_mode(r, "cluster")) {
		fprintf(f, "  cluster: %u partitions of %u workers; %" PRIu64 " bios local, %" PRIu64
			" forwarded\n", r->mode.partitions, r->mode.cluster_size, r->mode.local, r->mode.forwarded);
		for (unsigned int i = 0; r->mode.queues && i < r->mode.nr_queues; i++)
			fprintf(f, "    %s: partition %d, %" PRIu64 " local, %" PRIu64 " forwarded, %" PRIu64
				" refused by a full ring\n",
				clean_name(name, sizeof(name), r->mode.queues[i].name, sizeof(r->mode.queues[i].name)),
				r->mode.queues[i].owner_partition, r->mode.queues[i].local, r->mode.queues[i].forwarded,
				r->mode.queues[i].ring_full);
	}
	if (is_mode(r, "mq")) {
		for (unsigned int i = 0; r->mode.queues && i < r->mode.nr_queues; i++)
			fprintf(f, "  mq %s: %u hardware queues of %u tags; %" PRIu64 " waited for a tag, %" PRIu64
				" went through a software queue, %" PRIu64 " dispatched by another worker\n",
				clean_name(name, sizeof(name), r->mode.queues[i].name, sizeof(r->mode.queues[i].name)),
				r->mode.queues[i].hw_queues,
				r->mode.queues[i].tags, r->mode.queues[i].tag_waits, r->mode.queues[i].sw_queued,
				r->mode.queues[i].remote_dispatch);
	}
	return ferror(f) ? -EIO : 0;
}
