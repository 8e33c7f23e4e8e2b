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
 *   driver      2.4                   2.4               how the driver holds the queue lock:
 *                                                       2.4 or sync (below)
 *   dispatch_us 1                     0                 driver=2.4: queue-lock hold at dispatch
 *               (alias hold_us, driver_hold_us)
 *   end_us      1                     0                 driver=2.4: queue-lock hold at completion
 *   busy_us     40                    0                 driver=2.4: controller work, outside
 *                                                       the lock, on the completing worker
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
 * The driver models (driver=): what the 2.4.16 source does, read from
 * the tree (drivers/block/floppy.c, drivers/scsi/scsi.c, drivers/ide/ide.c
 * of Linux 2.4.16), and its cost in the parameters above.
 *
 * driver=2.4 (the default): what floppy.c did.
 *   - The request_fn, do_fd_request(), runs under io_request_lock (the
 *     block layer calls request_fns with it held) but only takes the FDC
 *     (lock_fdc: a test_and_set_bit on fdc_busy) and calls
 *     process_fd_request(), which queues redo_fd_request() as a bottom half
 *     (schedule_bh: queue_task on tq_immediate, mark_bh(IMMEDIATE_BH)).
 *     That short hold is dispatch_us: a few hundred instructions, an
 *     estimate (1 us), not a measurement.
 *   - The controller work runs from that bottom half and from timers,
 *     outside io_request_lock: redo_fd_request -> make_raw_rw_request
 *     (copies into the track buffer) -> floppy_start -> ... ->
 *     setup_rw_floppy(), which calls setup_DMA() (the ISA 8237's registers)
 *     and output_byte() for each of the command's 9 bytes, each of which
 *     polls the FDC's main status register in wait_til_ready().  The
 *     interrupt handler, floppy_interrupt() (registered SA_INTERRUPT in
 *     include/asm-i386/floppy.h fd_request_irq: interrupts off on that CPU),
 *     reads the 7 result bytes through result(), again polling the status
 *     register per byte, and schedules the continuation as a bottom half.
 *     None of it holds io_request_lock.  busy_us is that busy time of the
 *     worker the "interrupt" lands on (the one that reaps the completion),
 *     spent before the request is ended and with no lock held: ~40 port
 *     accesses of ~1 us on the ISA bus (DMA set-up ~10, 9 command bytes
 *     with a status read each, 7 result bytes with a status read each), an
 *     estimate from the code, not a measurement.
 *   - request_done() is the one place floppy.c takes io_request_lock
 *     (spin_lock_irqsave), around end_request() for each finished buffer
 *     head.  end_us is that hold (an estimate, 1 us), taken through the
 *     device's end_rq hook inside the mode's completion lock: in the
 *     legacy modes the queue's lock, io_request_lock under global.
 *   So under --lock=global a busy 2.4 floppy costs the other disks two
 *   short holds per request; its ~100 ms of mechanics cost them nothing.
 *
 * driver=sync: the worst case, not what floppy.c did.  The whole service
 *   of each request (seek, rotation, transfer: the model's time) is spent
 *   busy-waiting in queue_rq, under the queue lock, and the request
 *   completes inside it (RQ_Q_DONE).  In 2.4 that is what a SCSI host with
 *   can_queue == 0 got: scsi_dispatch_cmd() (drivers/scsi/scsi.c) calls
 *   the synchronous host->hostt->command() between
 *   spin_lock_irqsave(&io_request_lock) and its unlock, with interrupts
 *   off, for the whole command.  It is the picture of Jonathan Corbet's
 *   slide ("The entire system can stop while the floppy handles a
 *   request!", his Linux-Kongress talk on the 2.5 block layer): a
 *   simplification of floppy.c, true of those SCSI hosts.  (IDE, for
 *   contrast, drops io_request_lock around start_request() in
 *   ide_do_request(), drivers/ide/ide.c.)
 *
 * Locking: the model state (head position, where the last request ended,
 * busy_until) is updated in queue_rq, under the queue's dispatch lock in
 * the legacy modes; the model also takes its own lock (an instrumented
 * rq_lock, class "model_lock", initialised by the attach hook once the
 * lock layer is configured; inside the dispatch lock, nothing inside it) around those few loads and stores (never
 * contended there) so that a mode dispatching from several hardware
 * queues stays correct; nr_hw_queues = 1 asks such modes for one.  Data
 * moves under the dispatch lock only (memcpy or pread/pwrite), before the
 * completion is armed.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"
#include "lib/clock.h"

enum model_kind { MODEL_FLOPPY, MODEL_HDD };
enum model_driver { DRIVER_24 = 0, DRIVER_SYNC };

#define MODEL_HOLD_MAX_US 100000	/* dispatch_us, end_us, busy_us: at most 100 ms */

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
	enum model_driver driver;
	uint64_t dispatch_ns, end_ns, busy_ns;
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
	struct rq_lock lock;		/* around st: see the header comment */
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
	uint64_t step_us, settle_us, t2t_us, seek_us, depth;
	uint64_t dispatch_us, end_us, busy_us;
	char file[256];
	char driver[16];
};

#define MO(n, t, d, h) { #n, t, offsetof(struct model_opts, n), 0, d, h }
#define MO_STR(n, d, h) { #n, RQ_DEV_OPT_STR, offsetof(struct model_opts, n), sizeof(((struct model_opts *)0)->n), d, h }
/* what the two models share: the backing, the 2.4 driver's holds, the depth */
#define MODEL_COMMON_OPTIONS(def_depth, def_dispatch, def_end, def_busy)								\
	MO_STR(file, NULL, "back the data with this file (laid out), not memory"),		\
	MO_STR(driver, "2.4", "2.4: short holds, the work outside the lock; sync: all under it"), \
	MO(dispatch_us, RQ_DEV_OPT_TIME_US, def_dispatch, "driver=2.4: queue_rq's hold (0..100000)"),	\
	{ "hold_us", RQ_DEV_OPT_TIME_US, offsetof(struct model_opts, dispatch_us), 0, NULL,	\
	  "alias of dispatch_us" },								\
	{ "driver_hold_us", RQ_DEV_OPT_TIME_US, offsetof(struct model_opts, dispatch_us), 0,	\
	  NULL, "alias of dispatch_us" },							\
	MO(end_us, RQ_DEV_OPT_TIME_US, def_end, "driver=2.4: end_request's hold under the completion lock"), \
	MO(busy_us, RQ_DEV_OPT_TIME_US, def_busy, "driver=2.4: the interrupt's work, no lock held"), \
	MO(depth, RQ_DEV_OPT_U64, def_depth, "requests in flight, 1..65536")

static const struct rq_dev_option floppy_options[] = {
	MO(cylinders, RQ_DEV_OPT_U64, "80", "cylinders, 1..1024"),
	MO(heads, RQ_DEV_OPT_U64, "2", "heads, 1..16"),
	MO(spt, RQ_DEV_OPT_U64, "18", "512 B sectors per track, 1..255"),
	MO(rpm, RQ_DEV_OPT_U64, "300", "rotation speed"),
	MO(rate_kbit, RQ_DEV_OPT_U64, "500", "data rate, kbit/s"),
	MO(step_us, RQ_DEV_OPT_TIME_US, "4000", "one cylinder step"),
	MO(settle_us, RQ_DEV_OPT_TIME_US, "15000", "head settle after a seek"),
	MODEL_COMMON_OPTIONS("1", "1", "1", "40"),
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct rq_dev_option hdd_options[] = {
	MO(size, RQ_DEV_OPT_U64, NULL, "bytes; 0: what the jobs need, else 1g"),
	MO(cylinders, RQ_DEV_OPT_U64, "100000", "cylinders"),
	MO(rpm, RQ_DEV_OPT_U64, "7200", "rotation speed"),
	MO(rate, RQ_DEV_OPT_U64, "150m", "sustained transfer rate, bytes/s"),
	MO(t2t_us, RQ_DEV_OPT_TIME_US, "1000", "track-to-track seek"),
	MO(seek_us, RQ_DEV_OPT_TIME_US, "8500", "average seek"),
	MODEL_COMMON_OPTIONS("32", "0", "0", "0"),
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct rq_dev_option *model_options(enum model_kind kind)
{
	return kind == MODEL_FLOPPY ? floppy_options : hdd_options;
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
	if (!m->driver[0] || !strcmp(m->driver, "2.4"))
		g->driver = DRIVER_24;
	else if (!strcmp(m->driver, "sync"))
		g->driver = DRIVER_SYNC;
	else
		return "driver must be 2.4 or sync";
	if (m->dispatch_us > MODEL_HOLD_MAX_US || m->end_us > MODEL_HOLD_MAX_US ||
	    m->busy_us > MODEL_HOLD_MAX_US)
		return "dispatch_us, end_us and busy_us must be 0..100000";
	g->dispatch_ns = m->dispatch_us * 1000;
	g->end_ns = m->end_us * 1000;
	g->busy_ns = m->busy_us * 1000;
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

static int model_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err,
		      enum model_kind kind)
{
	struct model_opts m;
	struct model_dev *md;
	const char *why;
	int ret;

	memset(&m, 0, sizeof(m));	/* a floppy's size follows its geometry: no option sets it */
	ret = rq_dev_opts_parse(model_options(kind), &m, o->spec, rq_dev_spec_opts(o->spec), err);
	if (ret)
		return ret;
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
	if (kind == MODEL_FLOPPY) {
		char hold[24] = "";

		/* driver=2.4's dispatch hold (hold_us is its alias); sync holds the whole service */
		if (md->g.driver != DRIVER_SYNC)
			snprintf(hold, sizeof(hold), " hold=%lluus", (unsigned long long)m.dispatch_us);
		snprintf(dev->model, sizeof(dev->model), "floppy %ux%ux%u %urpm %ukbit/s driver=%s%s%s",
			 (unsigned)m.cylinders, (unsigned)m.heads, (unsigned)m.spt, (unsigned)m.rpm,
			 (unsigned)m.rate_kbit, md->g.driver == DRIVER_SYNC ? "sync" : "2.4", hold,
			 m.file[0] ? " file" : " ram");
	} else {
		snprintf(dev->model, sizeof(dev->model), "hdd %urpm seek=%.1fms %lluMiB/s driver=%s%s",
			 (unsigned)m.rpm, (double)m.seek_us / 1000, (unsigned long long)(m.rate >> 20),
			 md->g.driver == DRIVER_SYNC ? "sync" : "2.4", m.file[0] ? " file" : " ram");
	}
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

/* Busy-wait @ns on the clock: port I/O, polling, a synchronous command. */
static void model_spin(uint64_t ns)
{
	uint64_t until;

	if (!ns)
		return;
	until = rq_clock_ns() + ns;
	while (rq_clock_ns() < until)
		cpu_relax();
}

/* Busy-wait until the clock reads @t. */
static void model_spin_until(uint64_t t)
{
	while (rq_clock_ns() < t)
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

/* Called with the queue's dispatch lock held (see the header). */
static int model_queue_rq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct model_dev *md = dev->priv;
	int id = rq_ctx_id(cpu);
	struct model_timing t;
	uint64_t now;
	int res;

	if (md->g.driver == DRIVER_24)
		model_spin(md->g.dispatch_ns);	/* do_fd_request: lock_fdc, schedule_bh */
	now = rq_clock_ns();
	rq_lock(&md->lock, id);
	model_service(&md->g, &md->st, now, rq->offset, rq->len, &t);
	md->served++;
	rq_unlock(&md->lock, id);
	rq_request_map(rq);
	res = rq_store_rw(&md->store, rq);
	if (md->g.driver == DRIVER_SYNC) {
		/* hostt->command(): the whole service, the queue lock held */
		model_spin_until(t.done);
		rq->res = res;
		rq->error = res < 0 ? res : 0;
		return RQ_Q_DONE;
	}
	now = rq_clock_ns();
	rq_ctx_complete_after(cpu, rq, res, t.done > now ? t.done - now : 0);
	return RQ_Q_QUEUED;
}

/* driver=2.4: floppy_interrupt + the bottom half, no lock held, before the end. */
static void model_irq(struct rq_dev *dev, struct rq_ctx *cpu, struct rq_request *rq)
{
	struct model_dev *md = dev->priv;

	(void)cpu;
	(void)rq;
	if (md->g.driver == DRIVER_24)
		model_spin(md->g.busy_ns);
}

/* driver=2.4: request_done -> end_request, under the mode's completion lock. */
static void model_end_rq(struct rq_dev *dev, struct rq_request *rq)
{
	struct model_dev *md = dev->priv;

	(void)rq;
	if (md->g.driver == DRIVER_24)
		model_spin(md->g.end_ns);
}

const struct rq_dev_ops rq_dev_floppy = {
	.name = "floppy",
	.builtin = "@floppy",
	.help = "a 1.44 MB 3.5\" floppy drive model (seek, rotation, transfer; 2.4's floppy.c)",
	.options = floppy_options,
	.flags = RQ_DEV_HAS_DATA,
	.open = floppy_open,
	.prepare = model_prepare,
	.close = model_close,
	.attach = model_attach,
	.queue_rq = model_queue_rq,
	.irq = model_irq,
	.end_rq = model_end_rq,
};

const struct rq_dev_ops rq_dev_hdd = {
	.name = "hdd",
	.builtin = "@hdd",
	.help = "a disk model (seek, rotation, transfer)",
	.options = hdd_options,
	.flags = RQ_DEV_HAS_DATA,
	.open = hdd_open,
	.prepare = model_prepare,
	.close = model_close,
	.attach = model_attach,
	.queue_rq = model_queue_rq,
	.irq = model_irq,
	.end_rq = model_end_rq,
};
