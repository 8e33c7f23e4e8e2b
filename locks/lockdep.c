// SPDX-License-Identifier: MIT
/*
 * lockdep.c - lockdep: the lock-class graph, cycle search and reports (see
 * lock.c's header).  The floor of locks/: it calls nothing of lock.c or
 * lockstat.c; lockstat.c reads its report, lock.c calls its check.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "locks/locks_internal.h"

/* "queues/legacy.c:95" rather than the absolute path the compiler was given. */
const char *lk_site_trim(const char *site)
{
	static const char self[] = __FILE__;
	static const char tail[] = "locks/lockdep.c";
	size_t root = sizeof(self) - sizeof(tail);

	if (!site)
		return "?";
	if (sizeof(self) >= sizeof(tail) && !strcmp(self + root, tail) && !strncmp(site, self, root))
		return site + root;
	return site;
}

/* ---- lockdep --------------------------------------------------------- */

static int ld_path(unsigned int from, unsigned int to, unsigned int *path, unsigned int depth,
		   uint64_t *seen)
{
	uint64_t next;

	if (from == to) {
		path[depth] = to;
		return (int)depth + 1;
	}
	if (depth >= LD_MAX_CLASSES - 1 || (*seen >> from & 1))
		return 0;
	*seen |= 1ULL << from;
	path[depth] = from;
	next = atomic_load_explicit(&lk_ld_edges[from], memory_order_relaxed);
	while (next) {
		unsigned int b = (unsigned int)__builtin_ctzll(next);
		int n;

		next &= next - 1;
		if ((n = ld_path(b, to, path, depth + 1, seen)))
			return n;
	}
	return 0;
}


/* Append to the first cycle's report (ld_mutex held). */
static void ld_report(const char *fmt, ...)
{
	size_t n = strlen(lk_ld_msg);
	va_list ap;

	if (n >= sizeof(lk_ld_msg) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(lk_ld_msg + n, sizeof(lk_ld_msg) - n, fmt, ap);
	va_end(ap);
}

static void __attribute__((noinline)) ld_add_edge(const struct ld_held *h, struct rq_lock *l,
						  const char *site, int cpu)
{
	unsigned int a = h->l->class_id, b = l->class_id;
	unsigned int path[LD_MAX_CLASSES];
	uint64_t seen = 0;
	int n;

	pthread_mutex_lock(&lk_ld_mutex);
	if (atomic_load_explicit(&lk_ld_edges[a], memory_order_relaxed) >> b & 1) {
		pthread_mutex_unlock(&lk_ld_mutex);
		return;
	}
	lk_ld_info[a][b] = (struct ld_edge_info){ h->site, site, h->l->name, l->name, cpu };
	n = a == b ? 1 : ld_path(b, a, path, 0, &seen);
	atomic_fetch_or_explicit(&lk_ld_edges[a], 1ULL << b, memory_order_relaxed);
	if (n && !lk_ld_cycles++) {
		if (a == b) {
			ld_report("rqlock: lockdep: possible recursive locking: worker %d takes %s (class %s) at %s "
				  "while holding %s of the same class, taken at %s\n", cpu, l->name,
				  lk_classes[a]->name, lk_site_trim(site), h->l->name, lk_site_trim(h->site));
		} else {
			ld_report("rqlock: lockdep: lock order cycle (possible deadlock) between classes %s and %s:\n",
				  lk_classes[a]->name, lk_classes[b]->name);
			ld_report("  worker %d takes %s (%s) at %s while holding %s (%s) taken at %s\n", cpu,
				  lk_classes[b]->name, l->name, lk_site_trim(site), lk_classes[a]->name, h->l->name,
				  lk_site_trim(h->site));
			for (int i = 0; i + 1 < n; i++) {
				const struct ld_edge_info *e = &lk_ld_info[path[i]][path[i + 1]];

				ld_report("  but before, worker %d took %s (%s) at %s while holding %s (%s) taken at %s\n",
					  e->cpu, lk_classes[path[i + 1]]->name, e->to_lock, lk_site_trim(e->to_site),
					  lk_classes[path[i]]->name, e->from_lock, lk_site_trim(e->from_site));
			}
		}
		fputs(lk_ld_msg, stderr);
	}
	pthread_mutex_unlock(&lk_ld_mutex);
}

/* Held locks already on @c's stack against the one being taken: edges. */
void __attribute__((noinline)) lk_ld_check(struct ld_cpu *c, struct rq_lock *l, const char *site, int cpu)
{
	for (unsigned int i = 0; l && i < c->depth; i++) {
		const struct ld_held *h = &c->held[i];

		if (h->l == l) {
			fprintf(stderr, "rqlock: lockdep: BUG: worker %d takes %s at %s while already holding it "
				"(taken at %s): deadlock\n", cpu, l->name, lk_site_trim(site), lk_site_trim(h->site));
			abort();
		}
		if (!(atomic_load_explicit(&lk_ld_edges[h->l->class_id], memory_order_relaxed) >> l->class_id & 1))
			ld_add_edge(h, l, site, cpu);
	}
	if (c->depth == LD_MAX_HELD) {
		fprintf(stderr, "rqlock: lockdep: BUG: worker %d holds more than %d locks (at %s)\n", cpu,
			LD_MAX_HELD, lk_site_trim(site));
		abort();
	}
}

/*
 * Push @l on @cpu's held stack (lockdep on).  The common case,
 * nothing held, is a few stores to this worker's own line; edges are
 * looked at only when something is held.  A trylock cannot deadlock: it
 * adds no edge, but what is taken under it does.
 */
int rq_lockdep_result(char *msg, size_t len)
{
	int ret = 0;

	pthread_mutex_lock(&lk_ld_mutex);
	if (lk_ld_cycles) {
		if (msg && len)
			snprintf(msg, len, "%s", lk_ld_msg);
		ret = -EDEADLK;
	}
	pthread_mutex_unlock(&lk_ld_mutex);
	return ret;
}

int lk_lockdep_fill(struct rq_lockdep_report *out, unsigned int classes_used)
{
	unsigned int n = 0;

	memset(out, 0, sizeof(*out));
	out->enabled = lk_cfg.lockdep;
	out->classes = classes_used;
	pthread_mutex_lock(&lk_ld_mutex);
	for (unsigned int a = 0; a < LD_MAX_CLASSES; a++)
		n += (unsigned int)__builtin_popcountll(atomic_load(&lk_ld_edges[a]));
	free(lk_rep_edges);
	lk_rep_edges = calloc(n ? n : 1, sizeof(*lk_rep_edges));
	if (!lk_rep_edges) {
		pthread_mutex_unlock(&lk_ld_mutex);
		return -ENOMEM;
	}
	for (unsigned int a = 0; a < LD_MAX_CLASSES; a++) {
		uint64_t bits = atomic_load(&lk_ld_edges[a]);

		while (bits) {
			unsigned int b = (unsigned int)__builtin_ctzll(bits);
			const struct ld_edge_info *e = &lk_ld_info[a][b];
			struct rq_lockdep_edge *r = &lk_rep_edges[out->nr_edges++];

			bits &= bits - 1;
			snprintf(r->from, sizeof(r->from), "%s", a < lk_nr_classes ? lk_classes[a]->name : "?");
			snprintf(r->to, sizeof(r->to), "%s", b < lk_nr_classes ? lk_classes[b]->name : "?");
			snprintf(r->from_site, sizeof(r->from_site), "%s", lk_site_trim(e->from_site));
			snprintf(r->to_site, sizeof(r->to_site), "%s", lk_site_trim(e->to_site));
			r->cpu = e->cpu;
		}
	}
	out->edges = n;
	out->edge_list = lk_rep_edges;
	out->cycles = lk_ld_cycles;
	snprintf(out->cycle, sizeof(out->cycle), "%s", lk_ld_msg);
	pthread_mutex_unlock(&lk_ld_mutex);
	return 0;
}

