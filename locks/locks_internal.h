/* SPDX-License-Identifier: MIT */
/*
 * locks_internal.h - shared by the lock layer's files only (locks/): the
 * run's configuration, lockstat's clock, the lock and class registries
 * and lockdep's per-worker held stacks.
 */
#ifndef RQ_LOCKS_INTERNAL_H
#define RQ_LOCKS_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "lib/alloc.h"
#include "lib/clock.h"
#include "locks/lock.h"
#include "results/results.h"

#define SPIN_LIMIT 128
#define MCS_NODES 8			/* mcs locks one worker may hold at once */
#define LD_MAX_CLASSES 64		/* lock classes (one bit each in an edge word) */
#define LD_MAX_HELD 16			/* locks one worker may hold at once (lockdep) */
#define HOLD_SAMPLE_DEFAULT 64

/* Spin then yield: call once per failed look at the lock. */
static inline void spin_wait(unsigned int *spins)
{
	if (++*spins >= SPIN_LIMIT) {
		*spins = 0;
		sched_yield();
	} else {
		cpu_relax();
	}
}

/* the run's configuration (rq_lock_setup) */
struct lk_cfg {
	enum rq_lock_type type;
	bool lockstat, lockdep;
	unsigned int nr_cpus;
	unsigned int hold_sample;
};
extern struct lk_cfg lk_cfg;

/*
 * lockstat reads lib/clock's raw counter (the TSC where the kernel trusts
 * it, else CLOCK_MONOTONIC) and converts ticks to ns only for the report,
 * with the clock's calibrated rate.  A sample is the difference of two
 * reads minus the cost of one read back to back (measured at set-up); the
 * TSC read is not serialising, so a single sample is good to about one
 * read (~10 ns) either way; averages are better.
 */
struct lk_clk {
	uint64_t ns0;			/* ns at set-up */
	uint64_t overhead;		/* ticks of one read, back to back */
};
extern struct lk_clk lk_clk;

static inline uint64_t ticks(void)
{
	return rq_clock_ticks();
}

/* lockdep state, reset with the registries */
struct ld_held {
	struct rq_lock *l;
	const char *site;
};

struct ld_cpu {
	unsigned int depth;
	struct ld_held held[LD_MAX_HELD];
} __attribute__((aligned(RQ_CACHELINE)));

struct ld_edge_info {
	const char *from_site, *to_site;
	const char *from_lock, *to_lock;	/* lock names (registered locks outlive the run) */
	int cpu;
};

/* shared state (lock.c defines it) */
extern struct rq_lock **lk_registry;
extern unsigned int lk_nr_registered;
extern const struct rq_lock_class *lk_classes[LD_MAX_CLASSES];
extern unsigned int lk_nr_classes;
extern _Atomic uint64_t lk_ld_edges[LD_MAX_CLASSES];
extern struct ld_edge_info lk_ld_info[LD_MAX_CLASSES][LD_MAX_CLASSES];
extern pthread_mutex_t lk_ld_mutex;
extern unsigned int lk_ld_cycles;
extern char lk_ld_msg[1024];
extern struct rq_lockstat_class *lk_rep_classes;
extern struct rq_lockdep_edge *lk_rep_edges;
extern const struct rq_lock_ops *const lk_lock_ops[];
/* primitives.c: every registered primitive has every hook; 0 or -EINVAL */
int lk_lock_ops_check(void);

/* ns per tick, and the ns since set-up (lk_clk, set up by lock.c) */
static inline double lk_clock_rate(uint64_t *elapsed_ns)
{
	*elapsed_ns = rq_clock_mono_ns() - lk_clk.ns0;
	return rq_clock_ns_per_tick();
}

/* lockdep.c (the floor below lockstat.c, which is below lock.c) */
const char *lk_site_trim(const char *site);

/* lockstat.c */
void lk_time_add(struct rq_lock_time *t, uint64_t v);
void lk_stat_contended(struct rq_lock *l, const char *site, uint64_t t0, uint64_t t1);
/* a contended wait of @wait ticks by @waiter, while @holder (taken at @holder_site) held @l */
void lk_stat_holder(struct rq_lock *l, const char *waiter, const char *holder, const char *holder_site,
		    uint64_t wait);

/* lockdep.c */
void lk_ld_check(struct ld_cpu *c, struct rq_lock *l, const char *site, int cpu);
int lk_lockdep_fill(struct rq_lockdep_report *out, unsigned int classes_used);

#endif /* RQ_LOCKS_INTERNAL_H */
