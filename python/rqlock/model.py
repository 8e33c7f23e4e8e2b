"""model: how far a lock mode can scale, predicted from its measured lock holds.

A lock that every request takes serializes the time it is held: however
many CPUs submit, the requests through one lock instance cannot exceed
1 / (hold time per request).  Below that, W workers do W times the work of
one (each request's work outside the lock runs in parallel).  So

    predicted IOPS(W) = min(W x X1, ceiling)
    ceiling           = 1e9 / hold_ns_per_io

with X1 the IOPS one worker measured and hold_ns_per_io lockstat's
acquisitions per I/O x mean hold of the most loaded lock class, divided by
its instances (metrics.shared_hold_ns: I/Os spread over one lock per
drive share the load).  Past the largest W measured, a class with one lock
per drive (hold_locks = D) gains instances with the drives at D = W; a
class with one lock (global's io_request_lock, any queue's lock at D = 1)
keeps its ceiling.

What it leaves out (docs/EXPERIMENTS.md, "Past this machine"): the cost of
moving the lock's cache line between CPUs, which grows with their number
(a ticket lock's waiters all re-read it at each release: the collapse
Boyd-Wickizer et al. measured, "Non-scalable locks are dangerous", 2012),
memory and device bounds, and the scheduler (more workers than CPUs).
It is a ceiling, not a forecast.
"""
from .metrics import num


def ceiling(row):
    """IOPS at which the most loaded lock of a summary row saturates
    (1e9 / hold_ns_per_io), or None without lockstat."""
    h = num((row or {}).get("hold_ns_per_io"))
    return 1e9 / h if h and h > 0 else None


def extrapolate(points, w):
    """The ceiling at W workers of a series {W: summary row} (one lock mode
    and primitive, at D = 1 or D = W): the measured point's own at a W it
    has, else the largest W's, times W / Wmax when its most loaded class
    has one lock per drive at D = W."""
    if w in points:
        return ceiling(points[w])
    wm = max(points)
    r = points[wm]
    c = ceiling(r)
    if c and int(num(r.get("drives")) or 1) == wm > 1 and int(num(r.get("hold_locks")) or 1) == wm:
        c *= w / wm
    return c


def predict(w, x1, ceil):
    """IOPS predicted at W workers: W x X1 until the ceiling."""
    if x1 is None:
        return None
    lin = w * x1
    return min(lin, ceil) if ceil else lin
