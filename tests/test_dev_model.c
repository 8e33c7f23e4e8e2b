// SPDX-License-Identifier: MIT
/*
 * test_dev_model.c - the floppy and hdd timing models (devices/model.c),
 * without the engine: the model's numbers are printed, and checked.
 *
 *  - a random 512 B floppy read averages half a rotation + the average
 *    seek + one sector's transfer (the yardstick);
 *  - sequential floppy sectors cost one sector slot each (46 KB/s);
 *  - a request crossing a cylinder boundary pays one step + settle;
 *  - an hdd's random 4 KiB read averages seek_us + half a rotation +
 *    the transfer, sequential 4 KiB reads go at the sustained rate;
 *  - impossible geometries are refused with a reason;
 *  - driver= is 2.4 or sync, the holds 0..100000 us, anything else refused;
 *  - the busy-waits (dispatch_us, end_us, busy_us, sync's service) wait
 *    at least as long as asked.
 */
#include "../devices/model.c"
#include "tests/helpers.h"

/* The kind's defaults: its option table with no option given. */
static void model_defaults(enum model_kind kind, struct model_opts *m)
{
	memset(m, 0, sizeof(*m));
	rq_dev_opts_parse(model_options(kind), m, "", NULL, stderr);
}

#include <stdio.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double ms(double ns)
{
	return ns / 1e6;
}

static bool near(double got, double want, double rel)
{
	return got >= want * (1 - rel) && got <= want * (1 + rel);
}

struct avg {
	double seek, rot, xfer, total;
};

/* @n random requests of @len, each arriving at a random point after the last ended. */
static void random_reads(const struct model_geom *g, uint32_t len, unsigned int n, struct avg *a)
{
	struct model_state st = { 0 };
	struct model_timing t;
	uint64_t now = 1000000000ULL;

	memset(a, 0, sizeof(*a));
	for (unsigned int i = 0; i < n; i++) {
		uint64_t off = rnd() % (g->size / len) * len;

		now = st.busy_until + rnd() % (2 * g->rot_ns);	/* idle: the platter turns on */
		model_service(g, &st, now, off, len, &t);
		a->seek += (double)t.seek;
		a->rot += (double)t.rot;
		a->xfer += (double)t.xfer;
		a->total += (double)(t.done - t.start);
	}
	a->seek /= n;
	a->rot /= n;
	a->xfer /= n;
	a->total /= n;
}

static void test_floppy(void)
{
	struct model_opts m;
	struct model_geom g;
	struct model_state st = { 0 };
	struct model_timing t;
	struct avg a;
	const char *why;
	double c, ed, eseek, want;

	model_defaults(MODEL_FLOPPY, &m);
	why = model_geom_init(MODEL_FLOPPY, &m, 0, &g);
	CHECK(!why, "defaults refused: %s", why);
	c = (double)g.cylinders;
	ed = (c * c - 1) / (3 * c);		/* mean |i - j| of two uniform cylinders */
	eseek = ed * (double)g.step_ns + (1 - 1 / c) * (double)g.settle_ns;
	printf("floppy model (3.5\" 1.44 MB): %llu cylinders x %llu heads x %llu sectors x 512 B = %llu bytes\n",
	       (unsigned long long)m.cylinders, (unsigned long long)m.heads,
	       (unsigned long long)m.spt, (unsigned long long)g.size);
	printf("  rotation %.1f ms (%llu rpm), sector slot %.2f ms, track %llu B of %llu B raw "
	       "at %llu kbit/s\n", ms((double)g.rot_ns), (unsigned long long)m.rpm,
	       ms((double)g.rot_ns / (double)m.spt), (unsigned long long)g.track_bytes,
	       (unsigned long long)(m.rate_kbit * 1000 / 8 * 60 / m.rpm), (unsigned long long)m.rate_kbit);
	printf("  seek: %.1f ms per track step + %.1f ms settle; mean distance %.2f tracks; "
	       "mean seek %.1f ms; full stroke %.1f ms\n", ms((double)g.step_ns), ms((double)g.settle_ns),
	       ed, ms(eseek), ms((double)model_seek_ns(&g, g.cylinders - 1)));
	CHECK(g.size == 1474560, "size %llu", (unsigned long long)g.size);
	CHECK(g.rot_ns == 200000000ULL, "rotation %llu ns", (unsigned long long)g.rot_ns);

	random_reads(&g, 512, 40000, &a);
	want = (double)g.rot_ns / 2 + eseek + (double)g.rot_ns / (double)m.spt;
	printf("  random 512 B read (40000 samples): seek %.1f + rotation %.1f + transfer %.2f = %.1f ms; "
	       "half a rotation + mean seek + transfer = %.1f ms\n", ms(a.seek), ms(a.rot), ms(a.xfer),
	       ms(a.total), ms(want));
	CHECK(near(a.rot, (double)g.rot_ns / 2, 0.03), "mean rotational wait %.2f ms, want %.2f",
	      ms(a.rot), ms((double)g.rot_ns / 2));
	CHECK(near(a.seek, eseek, 0.03), "mean seek %.2f ms, want %.2f", ms(a.seek), ms(eseek));
	CHECK(near(a.total, want, 0.03), "mean service %.2f ms, want %.2f", ms(a.total), ms(want));

	/* sequential: sector after sector, no seek, no wait */
	model_service(&g, &st, 0, 0, 512, &t);
	double seq = 0;
	for (int i = 1; i < 18; i++) {
		model_service(&g, &st, t.done + 1000, (uint64_t)i * 512, 512, &t);
		CHECK(t.seq && !t.seek && !t.rot, "sector %d: seq %d seek %llu rot %llu", i, t.seq,
		      (unsigned long long)t.seek, (unsigned long long)t.rot);
		seq += (double)(t.done - t.start);
	}
	seq /= 17;
	printf("  sequential 512 B read: %.2f ms each = %.0f B/s\n", ms(seq), 512 / (seq / 1e9));
	CHECK(near(seq, (double)g.rot_ns / 18, 0.001), "sequential sector %.3f ms", ms(seq));

	/* the last sector of cylinder 0 (head 1) and the first of cylinder 1: one step */
	memset(&st, 0, sizeof(st));
	model_service(&g, &st, 0, 2 * 9216 - 512, 1024, &t);
	printf("  a 1 KiB read across the cylinder 0/1 boundary: seek %.1f ms (one step + settle)\n",
	       ms((double)t.seek));
	CHECK(t.seek == g.step_ns + g.settle_ns, "crossing seek %llu", (unsigned long long)t.seek);

	/* a full track from its first sector, head waiting there: one revolution */
	memset(&st, 0, sizeof(st));
	model_service(&g, &st, 0, 0, 9216, &t);
	printf("  a whole track (9216 B) from sector 0 at angle 0: %.1f ms\n", ms((double)(t.done - t.start)));
	CHECK(t.done - t.start == g.rot_ns, "full track %llu ns", (unsigned long long)(t.done - t.start));

	/* geometries that cannot exist */
	m.spt = 25;
	why = model_geom_init(MODEL_FLOPPY, &m, 0, &g);
	printf("  spt=25 at 500 kbit/s: %s\n", why ? why : "(accepted)");
	CHECK(why, "25 sectors per track accepted at 500 kbit/s");
	m.spt = 21;		/* DMF's 1.68 MB format fits */
	CHECK(!model_geom_init(MODEL_FLOPPY, &m, 0, &g), "21 sectors per track refused");
}

static void test_hdd(void)
{
	struct model_opts m;
	struct model_geom g;
	struct model_state st = { 0 };
	struct model_timing t;
	struct avg a;
	const char *why;
	double want, xfer;

	model_defaults(MODEL_HDD, &m);
	why = model_geom_init(MODEL_HDD, &m, 64ULL << 20, &g);
	CHECK(!why, "defaults refused: %s", why);
	xfer = 4096.0 * (double)g.rot_ns / (double)g.track_bytes;
	printf("hdd model: %llu rpm (rotation %.3f ms), %llu MiB/s (%llu B per revolution), %llu cylinders\n",
	       (unsigned long long)m.rpm, ms((double)g.rot_ns), (unsigned long long)(m.rate >> 20),
	       (unsigned long long)g.track_bytes, (unsigned long long)g.cylinders);
	printf("  seek: track to track %.1f ms, average %.1f ms, full stroke %.2f ms (sqrt curve)\n",
	       ms((double)g.t2t_ns), (double)m.seek_us / 1000, ms((double)model_seek_ns(&g, g.cylinders - 1)));
	random_reads(&g, 4096, 40000, &a);
	want = (double)m.seek_us * 1000 + (double)g.rot_ns / 2 + xfer;
	printf("  random 4 KiB read (40000 samples): seek %.2f + rotation %.2f + transfer %.3f = %.2f ms "
	       "(seek_us + half a rotation + transfer = %.2f ms, %.0f IOPS at depth 1)\n",
	       ms(a.seek), ms(a.rot), ms(a.xfer), ms(a.total), ms(want), 1e9 / a.total);
	CHECK(near(a.seek, (double)m.seek_us * 1000, 0.03), "mean seek %.3f ms", ms(a.seek));
	CHECK(near(a.rot, (double)g.rot_ns / 2, 0.03), "mean rotation %.3f ms", ms(a.rot));
	CHECK(near(a.total, want, 0.03), "mean service %.3f ms, want %.3f", ms(a.total), ms(want));
	CHECK(model_seek_ns(&g, 1) == g.t2t_ns, "seek(1) %llu", (unsigned long long)model_seek_ns(&g, 1));

	model_service(&g, &st, 0, 0, 4096, &t);
	double seq = 0;
	for (int i = 1; i <= 1000; i++) {
		model_service(&g, &st, t.done, (uint64_t)i * 4096, 4096, &t);
		seq += (double)(t.done - t.start);
	}
	seq /= 1000;
	printf("  sequential 4 KiB read: %.1f us each = %.1f MiB/s\n", seq / 1000,
	       4096 / (seq / 1e9) / (1 << 20));
	CHECK(near(seq, xfer, 0.001), "sequential 4 KiB %.3f us", seq / 1000);

	m.seek_us = 500;	/* below track to track */
	why = model_geom_init(MODEL_HDD, &m, 1 << 20, &g);
	CHECK(why, "seek_us below t2t_us accepted");
}

static void test_driver_opts(void)
{
	static const struct { const char *driver; uint64_t d, e, b; bool ok; enum model_driver want; } c[] = {
		{ "", 1, 1, 40, true, DRIVER_24 },
		{ "2.4", 0, 0, 0, true, DRIVER_24 },
		{ "sync", 1, 1, 40, true, DRIVER_SYNC },
		{ "2.6", 1, 1, 40, false, DRIVER_24 },
		{ "SYNC", 1, 1, 40, false, DRIVER_24 },
		{ "2.4", 100001, 1, 40, false, DRIVER_24 },
		{ "2.4", 1, 100001, 40, false, DRIVER_24 },
		{ "sync", 1, 1, 100001, false, DRIVER_24 },
		{ "2.4", 100000, 100000, 100000, true, DRIVER_24 },
	};
	for (unsigned int i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct model_opts m;
		struct model_geom g;
		const char *why;

		model_defaults(MODEL_FLOPPY, &m);
		snprintf(m.driver, sizeof(m.driver), "%s", c[i].driver);
		m.dispatch_us = c[i].d;
		m.end_us = c[i].e;
		m.busy_us = c[i].b;
		why = model_geom_init(MODEL_FLOPPY, &m, 0, &g);
		CHECK(!why == c[i].ok, "driver='%s' dispatch %llu end %llu busy %llu: %s", c[i].driver,
		      (unsigned long long)c[i].d, (unsigned long long)c[i].e, (unsigned long long)c[i].b,
		      why ? why : "accepted");
		if (!why)
			CHECK(g.driver == c[i].want && g.dispatch_ns == c[i].d * 1000 &&
			      g.end_ns == c[i].e * 1000 && g.busy_ns == c[i].b * 1000,
			      "driver='%s': geometry carries the wrong driver or holds", c[i].driver);
	}
}

static void test_hold(void)
{
	uint64_t t0 = rq_clock_ns(), t1;

	model_spin(200000);
	t1 = rq_clock_ns();
	printf("busy-wait: 200 us asked, %.1f us spent\n", (double)(t1 - t0) / 1000);
	CHECK(t1 - t0 >= 200000 && t1 - t0 < 20000000, "hold took %llu ns",
	      (unsigned long long)(t1 - t0));
}

int main(void)
{
	test_floppy();
	test_hdd();
	test_driver_opts();
	test_hold();
	if (failures) {
		printf("test_dev_model: %d failures\n", failures);
		return 1;
	}
	printf("test_dev_model: ok\n");
	return 0;
}
