// SPDX-License-Identifier: MIT
/*
 * model.c - the floppy and hdd devices: a disk's service time from a
 * mechanical model, data kept in RAM or in a file.
 *
 * Spec: "@floppy[N][,opt=val]..." and "@hdd[N][,opt=val]...".
 *
 *   option      floppy default        hdd default       meaning
 *   file        (RAM)                 (RAM)             backing file (created sparse if
 *                                                       missing) or block device
 *   size        C*H*S*512 = 1440 KiB  job's need, 1 GiB bytes modelled (hdd only; the
 *                                                       floppy's follows its geometry)
 *   cylinders   80                    100000            tracks per surface
 *   heads       2                     -                 surfaces (floppy)
 *   spt         18                    -                 512-byte sectors per track (floppy)
 *   rpm         300                   7200              spindle speed
 *   rate_kbit   500                   -                 floppy data rate (kbit/s): a track
 *                                                       of spt sectors must fit in one
 *                                                       revolution at this rate
 *   rate        -                     150m              hdd sustained rate, bytes/s
 *   step_us     4000                  -                 floppy head step, per track
 *   settle_us   15000                 -                 floppy head settle after a step
 *   t2t_us      -                     1000              hdd track-to-track seek (settle incl.)
 *   seek_us     -                     8500              hdd average seek (random pairs)
 *   hold_us     20                    0                 driver lock hold per request
 *               (alias driver_hold_us)
 *   depth       1                     32                queue depth
 *
 * Defaults: the 3.5" 1.44 MB drive (80 cylinders x 2 heads x 18 sectors of
 * 512 B, 300 RPM, 500 kbit/s; step rate 4 ms as Linux floppy.c programs
 * the 1.44M drive, 15 ms head settle from drive data sheets) and a 7200
 * RPM desktop disk (8.5 ms average seek, 1 ms track to track, 150 MiB/s).
 *
 * The model (times in ns; C cylinders, R one revolution = 60e9/rpm,
 * T bytes under the head per revolution: floppy spt*512, hdd rate*R):
 *   cylinder(off) = off * C / size  (the backing store spans the whole
 *                   stroke, so a random job over any size sees the drive's
 *                   full-stroke seek behaviour)
 *   seek(d)       floppy: d * step + settle;  hdd: t2t + (full - t2t) *
 *                 sqrt((d-1)/(C-2)), full = t2t + (seek_us - t2t) * 15/8,
 *                 so that seek over uniform random pairs averages seek_us
 *                 (E[sqrt(x)] = 8/15 for the distance x of two uniform
 *                 points); seek(0) = 0
 *   rotation      the platter turns with the clock: the angle at time t is
 *                 (t mod R) / R; the first byte of the request is under the
 *                 head at angle (off mod T) / T; the wait is the time until
 *                 the head and that angle meet, after the seek: on random
 *                 requests it averages R/2
 *   transfer      len * R / T (a floppy sector: R / spt = 11.1 ms)
 *   sequential    a request that starts where the previous one ended pays
 *                 no seek and no rotational wait (the hdd's read-ahead and
 *                 write cache; the floppy driver's track buffer), only its
 *                 transfer; a floppy request also pays seek(1) for each
 *                 cylinder boundary it crosses (the hdd's sustained rate
 *                 already includes its track and cylinder switches)
 * Service is serial and FIFO, one request at a time, as the drive is:
 *   start = max(now, busy_until); done = start + seek + rotation + transfer;
 *   busy_until = done.
 * The request ends at `done` through the dispatching worker's timer
 * (rq_ctx_complete_after), not by a sleeping worker.  Spin-up, motor-off
 * and retries are not modelled.
 *
 * hold_us: the 2.4 drivers did real work inside request_fn, under
 * io_request_lock: floppy.c programs the FDC byte by byte, polling its
 * status register for each of a command's nine bytes, and sets up ISA DMA
 * (about a microsecond per port access: ~20 us by default).  queue_rq
 * busy-waits that long on the clock while the caller holds the queue's
 * dispatch lock, so under --lock=global a floppy stalls every other disk.
 *
 * Locking: the model state (head position, where the last request ended,
 * busy_until) is updated in queue_rq, under the queue's dispatch lock in
 * the legacy modes; the model also takes its own lock (md->lock, class
 * "model_lock", an rq_lock that lockstat and lockdep see) around those
 * few loads and stores (never contended there) so that a mode dispatching
 * from several hardware queues stays correct; nr_hw_queues = 1 asks such
 * modes for one.  Its order: inside the dispatch lock (queue_lock,
 * io_request_lock or an hctx lock), nothing taken inside it.  Data moves under the dispatch lock only (memcpy or
 * pread/pwrite), before the timer is armed.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"
#include "lib/clock.h"

enum model_kind { MODEL_FLOPPY, MODEL_HDD };

struct model_geom {
	enum model_kind kind;
	uint64_t size;			/* bytes */
	uint64_t cylinders;
	uint64_t rot_ns;		/* one revolution */
	uint64_t track_bytes;		/* bytes per revolution under one head */
	/* floppy seek: linear */
	uint64_t step_ns, settle_ns;
	/* hdd seek: sqrt curve */
	uint64_t t2t_ns, full_ns;
	uint64_t hold_ns;
};

struct model_state {
	uint64_t cyl;			/* head position */
	uint64_t next_off;		/* where the last request ended */
	uint64_t busy_until;		/* ns, the worker clock's timebase */
	bool any;			/* a request was served: next_off means something */
};

struct model_timing {
	uint64_t start, seek, rot, xfer, done;
	bool seq;
};

struct model_dev {
	struct model_geom g;
	struct rq_lock lock;		/* protects st and served: see the header comment */
	struct model_state st;
	struct rq_store store;
	uint64_t served;
};

static uint64_t model_cyl(const struct model_geom *g, uint64_t off)
{
	uint64_t c = (uint64_t)((unsigned __int128)off * g->cylinders / g->size);

	return c < g->cylinders ? c : g->cylinders - 1;
}

static uint64_t model_seek_ns(const struct model_geom *g, uint64_t d)
{
	if (!d)
		return 0;
	if (g->kind == MODEL_FLOPPY)
		return d * g->step_ns + g->settle_ns;
	if (g->cylinders <= 2)
		return g->t2t_ns;
	return g->t2t_ns + (uint64_t)((double)(g->full_ns - g->t2t_ns) *
				      sqrt((double)(d - 1) / (double)(g->cylinders - 2)));
}

/* The service of one request starting no earlier than @now; updates @st. */
static void model_service(const struct model_geom *g, struct model_state *st, uint64_t now,
			  uint64_t off, uint32_t len, struct model_timing *t)
{
	uint64_t c0 = model_cyl(g, off), c1 = model_cyl(g, off + (len ? len - 1 : 0));
	uint64_t at;

	memset(t, 0, sizeof(*t));
	t->start = now > st->busy_until ? now : st->busy_until;
	t->seq = st->any && off == st->next_off;
	if (!t->seq) {
		uint64_t d = c0 > st->cyl ? c0 - st->cyl : st->cyl - c0;
		uint64_t want, phase;

		t->seek = model_seek_ns(g, d);
		at = t->start + t->seek;
		phase = at % g->rot_ns;
		want = (uint64_t)((unsigned __int128)(off % g->track_bytes) * g->rot_ns / g->track_bytes);
		t->rot = want >= phase ? want - phase : g->rot_ns - phase + want;
	}
	/*
	 * A floppy request spanning cylinders steps once per boundary (its
	 * geometry is exact).  The hdd's sustained rate already includes its
	 * track and cylinder switches, and its cylinders are a scaled map.
	 */
	if (g->kind == MODEL_FLOPPY)
		t->seek += (c1 - c0) * model_seek_ns(g, 1);
	t->xfer = (uint64_t)((unsigned __int128)len * g->rot_ns / g->track_bytes);
	t->done = t->start + t->seek + t->rot + t->xfer;
	st->cyl = c1;
	st->next_off = off + len;
	st->busy_until = t->done;
	st->any = true;
}

/* The options as parsed, before the geometry is derived from them. */
struct model_opts {
	uint64_t size, cylinders, heads, spt, rpm, rate_kbit, rate;
	uint64_t step_us, settle_us, t2t_us, seek_us, hold_us, depth;
	char file[256];
};

static void model_defaults(enum model_kind kind, struct model_opts *m)
{
	memset(m, 0, sizeof(*m));
	if (kind == MODEL_FLOPPY) {
		m->cylinders = 80;
		m->heads = 2;
		m->spt = 18;
		m->rpm = 300;
		m->rate_kbit = 500;
		m->step_us = 4000;
		m->settle_us = 15000;
		m->hold_us = 20;
		m->depth = 1;
	} else {
		m->cylinders = 100000;
		m->rpm = 7200;
		m->rate = 150ULL << 20;
		m->t2t_us = 1000;
		m->seek_us = 8500;
		m->hold_us = 0;
		m->depth = 32;
	}
}

/* Derive the geometry; returns NULL or what is wrong with the options. */
static const char *model_geom_init(enum model_kind kind, const struct model_opts *m,
				   uint64_t min_size, struct model_geom *g)
{
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	if (!m->rpm || m->rpm > 100000)
		return "rpm must be 1..100000";
	if (!m->cylinders)
		return "cylinders must be at least 1";
	g->rot_ns = 60000000000ULL / m->rpm;
	g->cylinders = m->cylinders;
	g->hold_ns = m->hold_us * 1000;
	if (kind == MODEL_FLOPPY) {
		if (!m->heads || !m->spt || m->heads > 16 || m->spt > 255 || m->cylinders > 1024)
			return "heads must be 1..16, spt 1..255, cylinders 1..1024";
		if (!m->rate_kbit)
			return "rate_kbit must be at least 1";
		/* a track's sectors must fit in one revolution at the data rate */
		if (m->spt * 512 * 8 * m->rpm > m->rate_kbit * 1000 * 60)
			return "spt sectors of 512 B do not fit in one revolution at rate_kbit";
		g->track_bytes = m->spt * 512;
		g->size = m->cylinders * m->heads * g->track_bytes;
		g->step_ns = m->step_us * 1000;
		g->settle_ns = m->settle_us * 1000;
	} else {
		if (!m->rate)
			return "rate must be at least 1 byte/s";
		if (m->seek_us < m->t2t_us)
			return "seek_us (the average) must be at least t2t_us";
		g->track_bytes = (uint64_t)((unsigned __int128)m->rate * g->rot_ns / 1000000000ULL);
		if (g->track_bytes < 512)
			g->track_bytes = 512;
		g->size = m->size ? m->size : (min_size ? min_size : 1ULL << 30);
		g->t2t_ns = m->t2t_us * 1000;
		g->full_ns = g->t2t_ns + (m->seek_us * 1000 - g->t2t_ns) * 15 / 8;
	}
	if (g->size % 512)
		return "size must be a multiple of 512";
	if (g->size < 512)
		return "size must be at least 512";
	return NULL;
}

static bool floppy_probe(const struct rq_dev_open *o)
{
	return rq_dev_spec_is(o->spec, "floppy");
}

static bool hdd_probe(const struct rq_dev_open *o)
{
	return rq_dev_spec_is(o->spec, "hdd");
}

static int model_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err,
		      enum model_kind kind)
{
	struct model_opts m;
	struct model_dev *md;
	const char *why;
	int ret;

	model_defaults(kind, &m);
	struct rq_dev_opt tab[] = {
		{ "file", NULL, false, m.file, sizeof(m.file) },
		{ "size", &m.size, false, NULL, 0 },
		{ "cylinders", &m.cylinders, false, NULL, 0 },
		{ "heads", &m.heads, false, NULL, 0 },
		{ "spt", &m.spt, false, NULL, 0 },
		{ "rpm", &m.rpm, false, NULL, 0 },
		{ "rate_kbit", &m.rate_kbit, false, NULL, 0 },
		{ "rate", &m.rate, false, NULL, 0 },
		{ "step_us", &m.step_us, true, NULL, 0 },
		{ "settle_us", &m.settle_us, true, NULL, 0 },
		{ "t2t_us", &m.t2t_us, true, NULL, 0 },
		{ "seek_us", &m.seek_us, true, NULL, 0 },
		{ "hold_us", &m.hold_us, true, NULL, 0 },
		{ "driver_hold_us", &m.hold_us, true, NULL, 0 },
		{ "depth", &m.depth, false, NULL, 0 },
	};
	ret = rq_dev_parse_opts(o->spec, rq_dev_spec_opts(o->spec), tab,
				(int)(sizeof(tab) / sizeof(tab[0])), err);
	if (ret)
		return ret;
	if (kind == MODEL_FLOPPY && m.size) {
		fprintf(err, "%s: device '%s': a floppy's size follows its geometry "
			"(cylinders, heads, spt)\n", o->where, o->spec);
		return -EINVAL;
	}
	if (!m.depth || m.depth > 65536) {
		fprintf(err, "%s: device '%s': depth must be 1..65536\n", o->where, o->spec);
		return -EINVAL;
	}
	md = calloc(1, sizeof(*md));
	if (!md)
		return -ENOMEM;
	md->store.fd = -1;
	dev->priv = md;
	why = model_geom_init(kind, &m, o->min_size, &md->g);
	if (why) {
		fprintf(err, "%s: device '%s': %s\n", o->where, o->spec, why);
		return -EINVAL;
	}
	if (m.file[0]) {
		ret = rq_store_file(&md->store, o, m.file, md->g.size, err);
		snprintf(dev->path, sizeof(dev->path), "%s", m.file);
	} else {
		ret = rq_store_mem(&md->store, md->g.size, o->spec, err);
	}
	if (ret)
		return ret;
	dev->size = md->g.size;
	dev->lbs = 512;
	dev->depth = (uint32_t)m.depth;
	dev->max_bytes = kind == MODEL_FLOPPY ? (uint32_t)md->g.track_bytes * 2 : 512 * 1024;
	dev->nr_hw_queues = 1;
	dev->rotational = 1;
	snprintf(dev->subkind, sizeof(dev->subkind), "%s", kind == MODEL_FLOPPY ? "floppy" : "hdd");
	snprintf(dev->transport, sizeof(dev->transport), "model");
	if (kind == MODEL_FLOPPY)
		snprintf(dev->model, sizeof(dev->model), "floppy %ux%ux%u %urpm %ukbit/s hold=%uus%s",
			 (unsigned)m.cylinders, (unsigned)m.heads, (unsigned)m.spt, (unsigned)m.rpm,
			 (unsigned)m.rate_kbit, (unsigned)m.hold_us, m.file[0] ? " file" : " ram");
	else
		snprintf(dev->model, sizeof(dev->model), "hdd %urpm seek=%.1fms %lluMiB/s hold=%uus%s",
			 (unsigned)m.rpm, (double)m.seek_us / 1000, (unsigned long long)(m.rate >> 20),
			 (unsigned)m.hold_us, m.file[0] ? " file" : " ram");
	return 0;
}

static int floppy_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	return model_open(dev, o, err, MODEL_FLOPPY);
}

static int hdd_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	return model_open(dev, o, err, MODEL_HDD);
}

static int model_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	struct model_dev *md = dev->priv;

	return rq_store_prepare(&md->store, o, err);
}

static void model_close(struct rq_dev *dev)
{
	struct model_dev *md = dev->priv;

	if (md)
		rq_store_close(&md->store);
	free(md);
	dev->priv = NULL;
}

/* "Program the controller": busy-wait @ns on the clock, the caller's lock held. */
static void model_hold(uint64_t ns)
{
	uint64_t until;

	if (!ns)
		return;
	until = rq_clock_ns() + ns;
	while (rq_clock_ns() < until)
		cpu_relax();
}

static const struct rq_lock_class model_lock_class = { .name = "model_lock" };

/* The run's lock layer is configured now: the model's lock joins it. */
static int model_attach(struct rq_dev *dev, struct rq_queue *q)
{
	struct model_dev *md = dev->priv;

	(void)q;
	rq_lock_init(&md->lock, &model_lock_class, "model_lock");
	return 0;
}

static int model_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct model_dev *md = dev->priv;
	struct model_timing t;
	uint64_t now;
	int res;

	model_hold(md->g.hold_ns);
	now = rq_clock_ns();
	rq_lock(&md->lock, rq_ctx_id(cpu));
	model_service(&md->g, &md->st, now, rq->offset, rq->len, &t);
	md->served++;
	rq_unlock(&md->lock, rq_ctx_id(cpu));
	res = rq_store_rw(&md->store, rq);
	rq_ctx_complete_after(cpu, rq, res, t.done - now);
	return RQ_Q_QUEUED;
}

const struct rq_dev_ops rq_dev_floppy = {
	.name = "floppy",
	.builtin = "@floppy",
	.flags = RQ_DEV_HAS_DATA,
	.probe = floppy_probe,
	.open = floppy_open,
	.prepare = model_prepare,
	.close = model_close,
	.attach = model_attach,
	.queue_rq = model_queue_rq,
};

const struct rq_dev_ops rq_dev_hdd = {
	.name = "hdd",
	.builtin = "@hdd",
	.flags = RQ_DEV_HAS_DATA,
	.probe = hdd_probe,
	.open = hdd_open,
	.prepare = model_prepare,
	.close = model_close,
	.attach = model_attach,
	.queue_rq = model_queue_rq,
};
