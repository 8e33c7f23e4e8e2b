// SPDX-License-Identifier: MIT
/*
 * lockstat.c - the lockstat, lockdep and lock-mode parts of a report:
 * JSON members of the "rqlock" object and a normal-output section laid out
 * as Linux's /proc/lock_stat.
 *
 * JSON (inside "rqlock"):
 *   "lockstat": { enabled, clock, hold_sample, overhead_ns, elapsed_ns,
 *                 classes: [ { name, locks, acquisitions, contentions,
 *                   con_bounces, acq_bounces, rel_sampled, rel_waited,
 *                   wait_ns: { samples, min, avg, max, total, histogram },
 *                   hold_ns: { ... }, handoff_ns: { ... }, gap_ns: { ... },
 *                   sites: [ { site, contentions } ],
 *                   holders: [ { waiter, holder, holder_site, contentions,
 *                                wait_ns } ], holders_other } ] }
 *               handoff_ns: a sampled hold's release to the next
 *               acquisition, when that one waited for it (lock.h).
 *               gap_ns: a sampled release that left a waiter behind
 *               (rel_waited of rel_sampled) to the next acquisition,
 *               whoever made it (lock.h).
 *               holders: each contended wait attributed to the holder at
 *               the time its wait began (queue/device and site), longest
 *               total wait first.
 *   "lockdep":  { enabled, classes, edges, cycles, edge_list: [...], cycle }
 *   "mode":     { name, the mode's own facts (named values it reports,
 *                 rendered here without knowing the mode),
 *                 queues: [ { name, the mode's facts about the queue } ] }
 *   "cluster":  the worker partitions, for a mode that has them
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

static const struct rq_json_field time_fields[] = {
	RQ_JSON_MEMBER(struct rq_lockstat_time, samples, RQ_JSON_UINT),
	RQ_JSON_FIELD(struct rq_lockstat_time, min_ns, "min", RQ_JSON_UINT),
	RQ_JSON_FIELD(struct rq_lockstat_time, avg_ns, "avg", RQ_JSON_DBL),
	RQ_JSON_FIELD(struct rq_lockstat_time, max_ns, "max", RQ_JSON_UINT),
	RQ_JSON_FIELD(struct rq_lockstat_time, total_ns, "total", RQ_JSON_UINT),
};

static void json_time(struct rq_json *j, const char *key, const struct rq_lockstat_time *t)
{
	char lo[32];

	rq_json_obj_open(j, key);
	rq_json_fields_of(j, t, time_fields);
	rq_json_obj_open(j, "histogram");
	for (unsigned int i = 0; i < t->nr_buckets && i < RQ_LOCKSTAT_HIST_NR; i++) {
		snprintf(lo, sizeof(lo), "%" PRIu64, t->buckets[i].lo_ns);
		rq_json_u64(j, lo, t->buckets[i].count);
	}
	rq_json_obj_close(j);
	rq_json_obj_close(j);
}

static const struct rq_json_field topo_fields[] = {
	RQ_JSON_FIELD(struct rq_topo, root, "sysfs", RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_topo, cache_index, RQ_JSON_INT),
	RQ_JSON_FIELD(struct rq_topo, nr_cpus, "cpus", RQ_JSON_UINT),
	RQ_JSON_FIELD(struct rq_topo, nr_llcs, "llcs", RQ_JSON_UINT),
	RQ_JSON_FIELD(struct rq_topo, nr_packages, "packages", RQ_JSON_UINT),
	RQ_JSON_FIELD(struct rq_topo, nr_nodes, "nodes", RQ_JSON_UINT),
};

static const struct rq_json_field topo_cpu_fields[] = {
	RQ_JSON_MEMBER(struct rq_topo_cpu, cpu, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct rq_topo_cpu, package, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct rq_topo_cpu, node, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct rq_topo_cpu, llc, RQ_JSON_UINT),
};

static void json_topology(struct rq_json *j, const struct rq_run_report *r)
{
	const struct rq_topo *t = r->topo;

	if (!t || !t->cpus)
		return;
	rq_json_obj_open(j, "topology");
	rq_json_fields_of(j, t, topo_fields);
	rq_json_objects_of(j, "cpu_list", t->cpus, t->nr_cpus, topo_cpu_fields);
	rq_json_obj_close(j);
}

/* One entry per partition: its workers, the CPUs they run on, the devices it owns. */
static void json_cluster(struct rq_json *j, const struct rq_run_report *r)
{
	const struct rq_mode_report *m = &r->mode;

	rq_json_obj_open(j, "cluster");
	rq_json_str(j, "source", r->cluster_from_llc ? "llc" : "cluster-size");
	rq_json_arr_open(j, "partitions");
	for (unsigned int p = 0; m->worker_part && p < m->nr_partitions; p++) {
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
			if (rq_fact_get(&m->queues[i].facts, "owner_partition", -1) == (int64_t)p)
				rq_json_strn(j, NULL, m->queues[i].name, sizeof(m->queues[i].name));
		rq_json_arr_close(j);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_obj_close(j);
}

static const struct rq_json_field lockstat_fields[] = {
	RQ_JSON_MEMBER(struct rq_lockstat_report, enabled, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_report, clock, RQ_JSON_STR),
	RQ_JSON_MEMBER(struct rq_lockstat_report, hold_sample, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_report, overhead_ns, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_lockstat_report, elapsed_ns, RQ_JSON_UINT),
};

/* A class's counters; its times, sites and holders follow as objects and arrays. */
static const struct rq_json_field class_fields[] = {
	RQ_JSON_MEMBER(struct rq_lockstat_class, name, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockstat_class, locks, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, acquisitions, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, contentions, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, con_bounces, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, acq_bounces, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, rel_sampled, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, rel_waited, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, release_samples, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_class, release_ns, RQ_JSON_DBL),
};

static const struct rq_json_field site_fields[] = {
	RQ_JSON_MEMBER(struct rq_lockstat_site, site, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockstat_site, contentions, RQ_JSON_UINT),
};

static const struct rq_json_field holder_fields[] = {
	RQ_JSON_MEMBER(struct rq_lockstat_holder, waiter, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockstat_holder, holder, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockstat_holder, holder_site, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockstat_holder, contentions, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockstat_holder, wait_ns, RQ_JSON_UINT),
};

static const struct rq_json_field lockdep_fields[] = {
	RQ_JSON_MEMBER(struct rq_lockdep_report, enabled, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockdep_report, classes, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockdep_report, edges, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lockdep_report, cycles, RQ_JSON_UINT),
};

static const struct rq_json_field edge_fields[] = {
	RQ_JSON_MEMBER(struct rq_lockdep_edge, from, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockdep_edge, to, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockdep_edge, from_site, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lockdep_edge, to_site, RQ_JSON_CHARS),
	RQ_JSON_FIELD(struct rq_lockdep_edge, cpu, "worker", RQ_JSON_INT),
};

static unsigned int at_most(unsigned int n, unsigned int max)
{
	return n < max ? n : max;
}

static void json_classes(struct rq_json *j, const struct rq_lockstat_report *ls)
{
	rq_json_arr_open(j, "classes");
	for (unsigned int i = 0; ls->classes && i < ls->nr_classes; i++) {
		const struct rq_lockstat_class *c = &ls->classes[i];

		rq_json_obj_open(j, NULL);
		rq_json_fields_of(j, c, class_fields);
		json_time(j, "wait_ns", &c->wait);
		json_time(j, "hold_ns", &c->hold);
		json_time(j, "handoff_ns", &c->handoff);
		json_time(j, "gap_ns", &c->gap);
		rq_json_objects_of(j, "sites", c->sites, at_most(c->nr_sites, RQ_LOCKSTAT_SITES),
				   site_fields);
		rq_json_objects_of(j, "holders", c->holders,
				   at_most(c->nr_holders, RQ_LOCKSTAT_HOLDERS), holder_fields);
		rq_json_u64(j, "holders_other", c->holders_other);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
}

static void json_facts(struct rq_json *j, const struct rq_facts *f)
{
	for (unsigned int i = 0; i < f->nr; i++)
		rq_json_i64(j, f->v[i].name, f->v[i].value);
}

/* The mode's own facts, whatever the mode: its list of named values. */
static void json_mode(struct rq_json *j, const struct rq_run_report *r)
{
	const struct rq_mode_report *m = &r->mode;

	rq_json_obj_open(j, "mode");
	rq_json_str(j, "name", r->lock_mode);
	json_facts(j, &m->facts);
	rq_json_arr_open(j, "queues");
	for (unsigned int i = 0; m->queues && i < m->nr_queues; i++) {
		const struct rq_mode_queue_report *q = &m->queues[i];

		rq_json_obj_open(j, NULL);
		rq_json_strn(j, "name", q->name, sizeof(q->name));
		json_facts(j, &q->facts);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_obj_close(j);
}

void rq_lockstat_json(struct rq_json *j, const struct rq_run_report *r)
{
	const struct rq_lockdep_report *ld = &r->lockdep;

	rq_json_obj_open(j, "lockstat");
	rq_json_fields_of(j, &r->lockstat, lockstat_fields);
	json_classes(j, &r->lockstat);
	rq_json_obj_close(j);

	rq_json_obj_open(j, "lockdep");
	rq_json_fields_of(j, ld, lockdep_fields);
	rq_json_objects_of(j, "edge_list", ld->edge_list, ld->nr_edges, edge_fields);
	rq_json_strn(j, "cycle", ld->cycle, sizeof(ld->cycle));
	rq_json_obj_close(j);

	json_topology(j, r);
	if (r->mode.worker_part)
		json_cluster(j, r);
	json_mode(j, r);
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

/* "  mq @null0: hw_queues 2, tags 64, ...": a mode's facts, one line (none when it has none) */
static void text_facts(FILE *f, const char *mode, const char *queue, const struct rq_facts *facts)
{
	if (!facts->nr)
		return;
	fprintf(f, "  %s%s%s:", mode ? mode : "mode", *queue ? " " : "", queue);
	for (unsigned int i = 0; i < facts->nr; i++)
		fprintf(f, "%s %s %" PRId64, i ? "," : "", facts->v[i].name, facts->v[i].value);
	fprintf(f, "\n");
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
	text_facts(f, r->lock_mode, "", &r->mode.facts);
	for (unsigned int i = 0; r->mode.queues && i < r->mode.nr_queues; i++)
		text_facts(f, r->lock_mode, clean_name(name, sizeof(name), r->mode.queues[i].name,
						       sizeof(r->mode.queues[i].name)), &r->mode.queues[i].facts);
	return ferror(f) ? -EIO : 0;
}
