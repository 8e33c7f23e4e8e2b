"""model: how far a lock mode can scale, predicted from its measured lock
holds and the gaps between them.

A lock that every request takes serializes the time it is unavailable:
however many CPUs submit, the requests through one lock instance cannot
exceed 1 / (that time per request).  Below that, W workers do W times the
work of one (each request's work outside the lock runs in parallel).  So

    bound:      IOPS(W) <= min(W x X1, ceiling)
    predicted:  IOPS(W) = mva(W, z, s): Mean Value Analysis of W workers,
                each I/O z = 1/X1 (less W=1's hold, plus what the release
                grew at W) outside the lock and s = the ceiling's time per
                I/O at it (predict_at)

with X1 the IOPS one worker measured.  What the ceiling counts is the
model, named in compare's table and plot's legend:

  holds            (the optimistic model, issue 28)
                   ceiling = 1e9 / hold_ns_per_io: lockstat's acquisitions
                   per I/O x mean hold of the most loaded lock class,
                   divided by its instances (metrics.shared_hold_ns).  It
                   counts only the time the lock is held, so it promises
                   more than a contended lock gives: on a 2-CPU VM the
                   global lock measured 0.3-0.6 of it at W=2.
  holds+handoffs   (the contention-aware model, issue 33)
                   ceiling = 1e9 / (hold_ns_per_io + handoff_ns_per_io):
                   a saturated lock is also unavailable from one holder's
                   release until the next holder has it, the lock's line
                   moving to the waiter's CPU and the primitive waking it
                   (futex wake for the mutex).  lockstat measures that
                   handoff on contended acquisitions that follow a sampled
                   hold (locks/lock.h); handoff_ns_per_io counts it for the
                   share of acquisitions that moved the lock to another
                   worker (acq_bounces / acquisitions, metrics.
                   shared_handoff_ns).  This is the serial-section-plus-
                   handoff service time of Boyd-Wickizer et al., "Non-
                   scalable locks are dangerous" (Linux Symposium 2012,
                   section 3), with the handoff measured instead of modelled.
                   Both inputs are lockstat times of the lock's own events
                   at the W predicted, not its IOPS.  A run older than
                   gap_ns is read with it.
  holds+gaps       (issue 33, what runs use now)
                   ceiling = 1e9 / (hold_ns_per_io + gap_ns_per_io): the
                   handoff sees only a release followed by its waiter; a
                   releaser that takes the lock again while its waiter is
                   still waking (a futex mutex's sleeper: 0.72-0.76 of the
                   holds+handoffs ceiling on quiet runs) leaves the lock
                   free with a waiter there, and no handoff sample counts
                   it.  lockstat's gap is measured after every sampled
                   release that left a waiter behind, to the next
                   acquisition by anyone (locks/lock.h); gap_ns_per_io
                   counts it for the share of sampled releases that left a
                   waiter (rel_waited / rel_sampled, metrics.shared_gap_ns).
                   Still the serial section plus what passing the lock on
                   costs, with "passing on" measured from the lock's
                   events whoever takes it.

Past the largest W measured the prediction is a band, not a line:
  high  the optimistic model (holds only: no gap can be cheaper than
        none);
  low   a waiter behind every release (gap_full_ns_per_io; for a run
        older than gap_ns, handoff_full_ns_per_io: every acquisition a
        handoff).
A class with one lock per drive (hold_locks = D) gains instances with the
drives at D = W; a class with one lock (global's io_request_lock, any
queue's lock at D = 1) keeps its ceiling.

What it still leaves out (docs/EXPERIMENTS.md, "Past this machine"): a
handoff that grows with the waiters (a ticket lock's waiters all re-read
its line at each release: the collapse Boyd-Wickizer et al. measured),
work outside the lock slowed by lines the CPUs share, memory and device
bounds, and the scheduler (a preempted holder, more workers than CPUs).
It is a ceiling, not a forecast.
"""
from .metrics import num

OPTIMISTIC = "holds"
CONTENDED = "holds+handoffs"
GAPS = "holds+gaps"
# the model's name -> the summary column it adds to the holds
_ADDS = {CONTENDED: "handoff_ns_per_io", GAPS: "gap_ns_per_io"}


def _hold(row):
    h = num((row or {}).get("hold_ns_per_io"))
    return h if h and h > 0 else None


def name(row):
    """The model ceiling() uses for a summary row: GAPS when the row has
    gap samples, else CONTENDED when it has handoff samples (a run older
    than gap_ns), else OPTIMISTIC (older than handoff_ns, or W=1, where
    no acquisition waited)."""
    row = row or {}
    if num(row.get("gap_ns_per_io")) is not None:
        return GAPS
    return CONTENDED if num(row.get("handoff_ns_per_io")) is not None else OPTIMISTIC


def ceiling(row, model=None):
    """IOPS at which the most loaded lock of a summary row saturates, by
    @model (default name(row)): 1e9 / hold, 1e9 / (hold + handoff) or
    1e9 / (hold + gap); None without lockstat."""
    h = _hold(row)
    if h is None:
        return None
    add = _ADDS.get(model or name(row))
    if add:
        h += num(row.get(add)) or 0.0
    return 1e9 / h


def band(row):
    """(low, high) ceilings of a summary row: a waiter behind every
    release (or, for a run older than gap_ns, every acquisition a
    handoff), and holds only.  low is high without such samples;
    (None, None) without lockstat."""
    h = _hold(row)
    if h is None:
        return None, None
    full = num(row.get("gap_full_ns_per_io"))
    if full is None:
        full = num(row.get("handoff_full_ns_per_io"))
    return 1e9 / (h + (full or 0.0)), 1e9 / h


def _scale(points, w):
    """The factor a ceiling measured at the largest W gains at W: W / Wmax
    when its most loaded class has one lock per drive at D = W, else 1."""
    wm = max(points)
    r = points[wm]
    if int(num(r.get("drives")) or 1) == wm > 1 and int(num(r.get("hold_locks")) or 1) == wm:
        return w / wm
    return 1.0


def extrapolate(points, w, model=None):
    """The ceiling at W workers of a series {W: summary row} (one lock mode
    and primitive, at D = 1 or D = W): the measured point's own at a W it
    has, else the largest W's, times W / Wmax when its most loaded class
    has one lock per drive at D = W."""
    if w in points:
        return ceiling(points[w], model)
    c = ceiling(points[max(points)], model)
    return c * _scale(points, w) if c else c


def extrapolate_band(points, w):
    """(low, high) ceilings at W: the measured point's own band at a W it
    has (both its contention-aware ceiling, as measured there), else the
    largest W's band, scaled as extrapolate()."""
    if w in points:
        c = ceiling(points[w])
        return c, c
    lo, hi = band(points[max(points)])
    k = _scale(points, w)
    return (lo * k if lo else lo), (hi * k if hi else hi)


def predict(w, x1, ceil):
    """The asymptotic bound at W workers: W x X1 until the ceiling (what
    mva() tends to far from the knee)."""
    if x1 is None:
        return None
    lin = w * x1
    return min(lin, ceil) if ceil else lin


def mva(w, z, s, n=1):
    """Throughput (per ns) of W workers, each I/O z ns outside the lock
    and s ns of one of n lock instances' time (the I/O takes one of them,
    each as often): exact Mean Value Analysis of the closed network (M.
    Reiser and S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain
    Queuing Networks", JACM 27(2), 1980).  Per instance q waiters and
    holders; an I/O's time at the locks is n x s x (1 + q) with one
    worker fewer, so W = 1 gives 1 / (z + n s) and a large W 1 / s (each
    instance busy all the time): the bound predict() draws, without its
    corner at the knee, where the workers queue now and then but the lock
    is not yet saturated."""
    q = 0.0
    x = 0.0
    for k in range(1, w + 1):
        r = s * (1.0 + q)
        x = k / (z + n * r)
        q = x * r
    return x


def _release(row):
    return num((row or {}).get("release_ns_per_io")) or 0.0


def predict_at(w, x1, row, row1=None, model=None, add=None, scale=1.0):
    """IOPS at W workers from a summary row's lockstat (measured at W, or
    the largest W measured for a W past it): mva() with

      s = hold + what @model adds (gap, handoff; @add: that many ns
          instead), per instance; hold_locks instances (x @scale, and s /
          @scale, past W when each drive has its lock);
      z = 1e9 / X1 - the hold per I/O at W = 1 (@row1), the work of an
          I/O outside the lock, + the release's cost beyond W = 1's
          (release_ns_per_io: the primitive's unlock, a futex wake for a
          mutex with a sleeper, is work outside the lock that contention
          adds).

    Without lockstat, W x X1."""
    if x1 is None:
        return None
    h = _hold(row)
    if h is None:
        return w * x1
    s = h + (add if add is not None else (num(row.get(_ADDS.get(model or name(row), ""))) or 0.0))
    h1 = _hold(row1) or 0.0
    z = max(0.0, 1e9 / x1 - h1) + max(0.0, _release(row) - _release(row1))
    n = max(1, int(num(row.get("hold_locks")) or 1))
    return mva(w, z, s / scale, n * scale) * 1e9


def predict_series(points, w, x1, which=None):
    """predict_at() of a series {W: summary row} at W: from the point's
    own row at a W it has, else from the largest W's, its instances
    grown as extrapolate() grows the ceiling.  @which: None (the row's
    model), "low" (a waiter behind every release: gap_full, or
    handoff_full for an older run) or "high" (holds only)."""
    r = points[w] if w in points else points[max(points)]
    k = 1.0 if w in points else _scale(points, w)
    add = None
    if which == "high":
        add = 0.0
    elif which == "low":
        add = num(r.get("gap_full_ns_per_io"))
        if add is None:
            add = num(r.get("handoff_full_ns_per_io")) or 0.0
    return predict_at(w, x1, r, points.get(1), add=add, scale=k)
