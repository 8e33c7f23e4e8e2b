// SPDX-License-Identifier: MIT
/*
 * test_dev_filter.c - a device under the fault filter with no fault asked
 * is the bare device (issue 27).
 *
 * Pins the bug of the fault wrapper: it was a device of its own that
 * forwarded some hooks by hand and not others.  The floppy and HDD
 * models' irq and end_rq (2.4's bottom half and end_request hold under
 * io_request_lock) never ran under it, so a wrapped floppy held the lock
 * for less and ran faster than the bare one; and nr_hw_queues was not
 * copied, so mq gave a wrapped @null one hardware queue instead of one
 * per worker.
 *
 * Checked structurally, never by timing:
 *  - every built-in kind that needs no hardware (null in its three
 *    irqmodes, ram, floppy, hdd, a regular file through io_uring and
 *    through libaio), bare and wrapped: the same ops, flags, geometry and
 *    nr_hw_queues, and a queue over each calls the same irq and end_rq;
 *  - runs through the engine under --lock=global with every hold timed
 *    (RQLOCK_LOCKSTAT_SAMPLE=1): the floppy's end_rq holds io_request_lock
 *    at least end_us once per request, bare and wrapped alike, and its
 *    own lock is taken once per request; under mq a wrapped @null gets a
 *    hardware queue per worker, as the bare one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/device.h"
#include "jobfile/job.h"
#include "queues/queue.h"
#include "results/results.h"
#include "tests/helpers.h"

struct kind {
	const char *spec;		/* "%s" is the temporary file's path */
	const char *ioengine;
};

static char file[256];

static void wrap_one(const struct kind *k, const struct rq_queue_mode_ops *mode)
{
	char spec[512], wspec[600];
	struct rq_dev bare, wrapped;
	struct rq_queue qb, qw;
	struct rq_dev_open o = { .min_size = 1 << 20, .where = "test", .nr_cpus = 2 };
	int rb, rw;

	snprintf(spec, sizeof(spec), k->spec, file);
	snprintf(wspec, sizeof(wspec), "@fault,of=%s", spec);
	o.ioengine = k->ioengine;
	o.spec = spec;
	rb = rq_dev_open(&bare, &o, stderr);
	o.spec = wspec;
	rw = rq_dev_open(&wrapped, &o, stderr);
	CHECK(rb == 0 && rw == 0, "%s: open: bare %d, wrapped %d", spec, rb, rw);
	if (rb || rw)
		goto out;
	CHECK(wrapped.ops == bare.ops, "%s: wrapped ops '%s', bare '%s'", spec, wrapped.ops->name,
	      bare.ops->name);
	CHECK(wrapped.filter && !bare.filter, "%s: the filter is not in front", spec);
	CHECK(!strcmp(wrapped.name, wspec), "%s: wrapped name '%s'", spec, wrapped.name);
	CHECK(wrapped.flags == bare.flags, "%s: flags %#x, bare %#x", spec, wrapped.flags, bare.flags);
	CHECK(wrapped.nr_hw_queues == bare.nr_hw_queues, "%s: nr_hw_queues %u, bare %u", spec,
	      wrapped.nr_hw_queues, bare.nr_hw_queues);
	CHECK(wrapped.depth == bare.depth && wrapped.lbs == bare.lbs && wrapped.size == bare.size &&
	      wrapped.max_bytes == bare.max_bytes, "%s: geometry differs", spec);
	CHECK(!strcmp(rq_dev_kind(&wrapped), rq_dev_kind(&bare)), "%s: kind %s", spec,
	      rq_dev_kind(&wrapped));
	rb = rq_queue_init(&qb, mode, &bare, 16);
	rw = rq_queue_init(&qw, mode, &wrapped, 16);
	CHECK(rb == 0 && rw == 0, "%s: queue_init: %d %d", spec, rb, rw);
	if (!rb && !rw) {
		CHECK(qw.dev_irq == qb.dev_irq, "%s: the irq hook is not the device's", spec);
		CHECK(qw.dev_end_rq == qb.dev_end_rq, "%s: the end_rq hook is not the device's", spec);
		CHECK(qb.queue_rq == bare.ops->queue_rq && qw.queue_rq == wrapped.filter->map,
		      "%s: dispatch does not go through the filter only", spec);
		printf("  %-40s %-7s irq %-3s end_rq %-3s hw_queues %u flags %#x\n", wspec, bare.ops->name,
		       qw.dev_irq ? "yes" : "no", qw.dev_end_rq ? "yes" : "no", wrapped.nr_hw_queues,
		       wrapped.flags);
	}
	if (!rb)
		rq_queue_exit(&qb);
	if (!rw)
		rq_queue_exit(&qw);
out:
	rq_dev_close(&bare);
	rq_dev_close(&wrapped);
}

static void structure(void)
{
	static const struct kind kinds[] = {
		{ "@null0", "io_uring" },
		{ "@null1,irqmode=1", "io_uring" },
		{ "@null2,irqmode=2,delay_us=5", "io_uring" },
		{ "@ram0,size=1m", "io_uring" },
		{ "@floppy0", "io_uring" },
		{ "@hdd0,size=1m", "io_uring" },
		{ "%s", "io_uring" },
		{ "%s", "libaio" },
	};
	const struct rq_queue_mode_ops *mode = rq_queue_mode_find("global");
	struct rq_mode_config cfg = { .nr_cpus = 2, .lock_type = RQ_LOCK_TTAS, .lockstat = true };

	rq_locks_reset();
	CHECK(mode && (!mode->setup || mode->setup(&cfg) == 0), "global: setup");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		wrap_one(&kinds[i], mode);
	if (mode->teardown)
		mode->teardown();
	rq_locks_reset();
}

static const struct rq_lockstat_class *lock_class(const struct rq_run_report *r, const char *name)
{
	for (unsigned int i = 0; i < r->lockstat.nr_classes; i++)
		if (!strcmp(r->lockstat.classes[i].name, name))
			return &r->lockstat.classes[i];
	return NULL;
}

/* Holds of at least @ns: the samples in buckets starting at or above it. */
static uint64_t holds_at_least(const struct rq_lockstat_class *c, uint64_t ns)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < c->hold.nr_buckets; i++)
		if (c->hold.buckets[i].lo_ns >= ns)
			n += c->hold.buckets[i].count;
	return n;
}

#define NR_IOS 8
#define END_US 2000

static const char job[] = "[f]\nfilename=d0\nrw=randread\nbs=4k\niodepth=1\nsize=1m\nnumber_ios=8\n";

/* One run of the job on @spec (its filename d0) under @mode with @workers; -1 when it could not start. */
static int run_on(struct rq_test_run *t, const char *spec, const char *mode, unsigned int workers)
{
	char alias[256];
	const char *aliases[] = { alias };
	struct rq_engine_opts o;

	snprintf(alias, sizeof(alias), "d0=%s", spec);
	rq_engine_opts_init(&o);
	o.lock_mode = mode;
	o.workers = workers;
	o.aliases = aliases;
	o.nr_aliases = 1;
	if (rq_test_run_job(t, spec, job, &o))
		return -1;
	CHECK(t->ret == 0, "%s: run %d", spec, t->ret);
	return 0;
}

/* One run of the job on @spec under global; the lock facts in the out parameters. */
static void floppy_run(const char *spec, uint64_t *long_holds, uint64_t *model_acq)
{
	struct rq_test_run t;

	*long_holds = *model_acq = 0;
	if (run_on(&t, spec, "global", 1))
		return;
	if (!t.ret) {
		const struct rq_lockstat_class *io = lock_class(t.r, "io_request_lock");
		const struct rq_lockstat_class *m = lock_class(t.r, "model_lock");

		CHECK(io && m, "%s: no io_request_lock or model_lock class in lockstat", spec);
		if (io && m) {
			/* a bucket's lower bound is within 1/16 of its samples: half the hold is safe */
			*long_holds = holds_at_least(io, END_US * 1000 / 2);
			*model_acq = m->acquisitions;
		}
	}
	rq_test_run_free(&t);
}

static void floppy_holds(void)
{
	static const char bare[] = "@floppy0,end_us=2000";
	static const char wrapped[] = "@fault,of=@floppy0,end_us=2000";
	uint64_t hb, mb, hw, mw;

	floppy_run(bare, &hb, &mb);
	floppy_run(wrapped, &hw, &mw);
	printf("  floppy end_us=%d, %d reads: io_request_lock holds >= end_us/2: bare %llu, wrapped %llu; "
	       "model_lock taken: bare %llu, wrapped %llu\n", END_US, NR_IOS, (unsigned long long)hb,
	       (unsigned long long)hw, (unsigned long long)mb, (unsigned long long)mw);
	CHECK(hb >= NR_IOS, "bare floppy: %llu long holds, expected >= %d", (unsigned long long)hb, NR_IOS);
	CHECK(hw >= NR_IOS, "wrapped floppy: %llu long holds (end_rq not run?), expected >= %d",
	      (unsigned long long)hw, NR_IOS);
	CHECK(mb == NR_IOS && mw == NR_IOS, "model_lock taken %llu (bare), %llu (wrapped) times, expected %d",
	      (unsigned long long)mb, (unsigned long long)mw, NR_IOS);
}

/* Hardware queues mq gives @spec with two workers. */
static unsigned int mq_hw_queues(const char *spec)
{
	struct rq_test_run t;
	unsigned int n = 0;

	if (run_on(&t, spec, "mq", 2))
		return 0;
	if (!t.ret && t.r->mode.nr_queues == 1)
		n = (unsigned int)rq_fact_get(&t.r->mode.queues[0].facts, "hw_queues", 0);
	rq_test_run_free(&t);
	return n;
}

int main(void)
{
	char msg[256];
	int ret;
	unsigned int hb, hw;

	setenv("RQLOCK_LOCKSTAT_SAMPLE", "1", 1);	/* every hold timed */
	CHECK(rq_devs_check(msg, sizeof(msg)) == 0, "%s", msg);
	ret = rq_test_tmpfile(file, sizeof(file), "filter");
	if (ret) {
		printf("skipped: no temporary file (%d)\n", ret);
		return 77;
	}
	ret = truncate(file, 1 << 20);
	CHECK(ret == 0, "truncate %s", file);
	printf("every kind, bare and under @fault with no fault asked:\n");
	structure();
	floppy_holds();
	hb = mq_hw_queues("@null0");
	hw = mq_hw_queues("@fault,of=@null0");
	printf("  mq, 2 workers: hardware queues of @null0 %u, of @fault,of=@null0 %u\n", hb, hw);
	CHECK(hb == 2 && hw == hb, "mq hardware queues: bare %u, wrapped %u, expected 2", hb, hw);
	unlink(file);
	return failures ? 1 : 0;
}
