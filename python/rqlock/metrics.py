"""The metrics of a point, read from its JSON (rqlock's, or fio's for the
kernel baseline), in one table.

Each entry of METRICS says how one metric is read and shown:
  key      the name compare's --metric takes
  column   its summary.csv column (and, with spread, COLUMN_min/COLUMN_max)
  title    the heading of its tables and plots
  scope    "job": read per reported job, get(job); "point": read once per
           point JSON, get(doc, workers); "meta": from the run's meta file,
           get(meta)
  better   "high", "low", or None (no "best" in a row, no ratio)
  unit     how it is printed: count, bytes, us, share, cores, text
  spread   summary.csv also keeps the fastest and slowest repeat
  reps     summary.csv also keeps every repeat's value, in repeat order,
           joined by ';' (COLUMN_reps): compare's confidence intervals and
           noise floors (verdict.py) are computed from them
  doc      what it means, written into every run's manifest

summary.csv's columns are the table's, in the table's order, between
"repeats" and "status".  Over repeats a value is the median (text: the first
repeat's).  Adding a metric is one entry here: sweep writes its column,
compare takes it in --metric, plot can draw it.
"""
import statistics


def pct(d, key):
    """A percentile from fio's {"99.000000": ns} map; keys written with other
    precision ("99.9") match too."""
    if not d:
        return None
    v = d.get(key)
    if v is None:
        for k, x in d.items():
            try:
                if abs(float(k) - float(key)) < 1e-9:
                    return x
            except ValueError:
                pass
    return v


def _dirs(job):
    return [job.get(d) or {} for d in ("read", "write", "trim")]


def lat_dir(job):
    """The direction latency is read from: reads when the job reads, else writes."""
    r, w = job.get("read") or {}, job.get("write") or {}
    return r if (r.get("total_ios") or not w.get("total_ios")) else w


def lat_kind(job):
    """ "lat" (total latency, lat_percentiles=1) when reported, else "clat"."""
    x = lat_dir(job)
    return "lat" if (x.get("lat_ns") or {}).get("percentile") else "clat"


def lat_pct_us(key):
    def get(job):
        x = lat_dir(job)
        v = pct((x.get(lat_kind(job) + "_ns") or {}).get("percentile"), key)
        return None if v is None else v / 1000.0
    return get


def lat_max_us(job):
    lat = lat_dir(job).get("lat_ns") or {}
    return lat["max"] / 1000.0 if lat.get("N") and "max" in lat else None


def intended_pct_us(key):
    """lat_intended_ns (rate-limited jobs: latency from the due time) percentile, us."""
    def get(job):
        x = lat_dir(job)
        v = pct((x.get("lat_intended_ns") or {}).get("percentile"), key)
        return None if v is None else v / 1000.0
    return get


def intended_max_us(job):
    li = lat_dir(job).get("lat_intended_ns") or {}
    return li["max"] / 1000.0 if li.get("N") and "max" in li else None


def late_share(job):
    """late_ios / total_ios: I/Os built more than one interval after their due time."""
    x = lat_dir(job)
    if "late_ios" not in x or not x.get("total_ios"):
        return None
    return x["late_ios"] / x["total_ios"]


def slat_share(job):
    """The share of the job's run time its I/Os spent being submitted: N x mean
    slat / job_runtime.  For the floppy under driver=sync, whose whole service
    runs inside the submission with the queue lock held, its lock-hold share."""
    x = lat_dir(job)
    sl = x.get("slat_ns") or {}
    rt = job.get("job_runtime") or 0
    if not sl.get("N") or not rt:
        return None
    return sl["N"] * sl.get("mean", 0) / (rt * 1e6)


def slat_mean_us(job):
    sl = lat_dir(job).get("slat_ns") or {}
    return sl["mean"] / 1000.0 if sl.get("N") else None


def _holders(doc):
    rq = doc.get("rqlock") or {}
    ls = rq.get("lockstat") or {}
    return [h for c in ls.get("classes") or [] for h in c.get("holders") or []]


def floppy_wait_share(doc, workers):
    """lockstat holders: of all contended waits (ns), the share that began
    while a floppy (@floppy...) held the lock."""
    hs = _holders(doc)
    if not hs:
        return None
    tot = sum(h.get("wait_ns", 0) for h in hs)
    fl = sum(h.get("wait_ns", 0) for h in hs if h.get("holder", "").startswith("@floppy"))
    return fl / tot if tot else None


def wait_ms(doc, workers):
    """lockstat holders: total wait (ms) of waiters other than the floppy."""
    hs = _holders(doc)
    if not hs:
        return None
    return sum(h.get("wait_ns", 0) for h in hs if not h.get("waiter", "").startswith("@floppy")) / 1e6


def _elapsed_ns(doc):
    """Run time of the point: the longest job of each group, summed (ns)."""
    jobs = doc.get("jobs", [])
    return sum(max([jb.get("job_runtime", 0) for jb in jobs if jb.get("groupid") == g] or [0])
               for g in {jb.get("groupid") for jb in jobs}) * 1e6


def lock_wait_share(doc, workers):
    rq = doc.get("rqlock")
    ls = rq.get("lockstat") if rq else None
    if not (isinstance(ls, dict) and ls.get("enabled", 1) and ls.get("classes") is not None):
        return None
    wait = sum((c.get("wait_ns") or {}).get("total", 0) for c in ls["classes"])
    el = ls.get("elapsed_ns") or _elapsed_ns(doc)
    w = rq.get("workers") or workers
    return wait / (w * el) if el and w else None


def contention_share(doc, workers):
    rq = doc.get("rqlock")
    if not rq:
        return None
    acq = sum(l.get("acquisitions", 0) for l in rq.get("locks", []))
    con = sum(l.get("contentions", 0) for l in rq.get("locks", []))
    return con / acq if acq else 0.0


def _machine(doc):
    return (doc.get("rqlock") or {}).get("machine") or {}


def machine_steal(doc, workers):
    """rqlock.machine.steal: the share of the CPUs the hypervisor gave
    someone else during the run (rqlock run's own JSON, lib/machine.h)."""
    return _machine(doc).get("steal")


def machine_mhz_spread(doc, workers):
    """rqlock.machine.mhz_spread: fastest over slowest CPU clock seen."""
    return _machine(doc).get("mhz_spread")


def bg_cpu(meta, doc=None):
    """The sweep's own meter (meta), else what rqlock run measured itself
    (rqlock.machine.bg_cpu: a portable run's store has no sweep meter)."""
    v = (meta or {}).get("bg_cpu")
    return v if v is not None else _machine(doc or {}).get("bg_cpu")


def _hist_trimmed_mean(h, keep=0.99):
    """The mean of the fastest @keep of a lockstat histogram {"ns": count}."""
    items = sorted((float(k), c) for k, c in (h or {}).items())
    n = sum(c for _, c in items)
    if not n:
        return None
    room, tot, cnt = keep * n, 0.0, 0.0
    for v, c in items:
        take = min(c, room - cnt)
        if take <= 0:
            break
        tot += v * take
        cnt += take
    return tot / cnt if cnt else None


def _most_loaded(doc):
    """(lock time per I/O of one instance, instances, the class) of the
    most loaded lockstat class, or (None, None, None)."""
    rq = doc.get("rqlock") or {}
    ls = rq.get("lockstat") or {}
    ios = sum((x.get("total_ios") or 0) for j in doc.get("jobs", []) for x in _dirs(j))
    if not ios or not ls.get("classes"):
        return None, None, None
    best = (None, None, None)
    for c in ls["classes"]:
        hold = _hist_trimmed_mean((c.get("hold_ns") or {}).get("histogram"))
        if hold is None or not c.get("acquisitions"):
            continue
        n = max(1, c.get("locks") or 1)
        per_io = c["acquisitions"] / ios * hold / n
        if best[0] is None or per_io > best[0]:
            best = (per_io, n, c)
    return best


def _handoff(doc, every):
    """Handoff time per I/O of the most loaded lock instance: acquisitions
    per I/O / instances x (every: 1, else the share of acquisitions that
    moved the lock to another worker) x the mean handoff."""
    per_io, n, c = _most_loaded(doc)
    if not per_io:
        return None
    hand = _hist_trimmed_mean((c.get("handoff_ns") or {}).get("histogram"))
    if hand is None:
        return None
    acq_per_io = per_io / _hist_trimmed_mean(c["hold_ns"]["histogram"])    # acquisitions / I/Os / instances
    share = 1.0 if every else min(1.0, (c.get("acq_bounces") or 0) / c["acquisitions"])
    return acq_per_io * share * hand


def shared_handoff_ns(doc, workers):
    """The handoff time per I/O of the most loaded lock instance (the class
    shared_hold_ns reads): acquisitions per I/O x the share of them that
    moved the lock to another worker (acq_bounces / acquisitions) x the
    mean handoff (lockstat handoff_ns: a sampled hold's release to the
    waiter that took it, fastest 99 %) / instances.  What a saturated lock
    adds to its holds (model.py).  None without handoff samples (a binary
    older than handoff_ns, or no contended acquisition followed a sampled
    hold, as at W=1)."""
    return _handoff(doc, False)


def shared_handoff_full_ns(doc, workers):
    """As shared_handoff_ns with every acquisition a handoff: a saturated
    fair lock with waiters always queued hands the lock to another worker
    at each release."""
    return _handoff(doc, True)


def _gap(doc, every):
    """Gap time per I/O of the most loaded lock instance: acquisitions per
    I/O / instances x (every: 1, else the share of sampled releases that
    left a waiter behind) x the mean gap."""
    per_io, n, c = _most_loaded(doc)
    if not per_io:
        return None
    gap = _hist_trimmed_mean((c.get("gap_ns") or {}).get("histogram"))
    if gap is None or not c.get("rel_sampled"):
        return None
    acq_per_io = per_io / _hist_trimmed_mean(c["hold_ns"]["histogram"])    # acquisitions / I/Os / instances
    share = 1.0 if every else min(1.0, (c.get("rel_waited") or 0) / c["rel_sampled"])
    return acq_per_io * share * gap


def shared_gap_ns(doc, workers):
    """The gap time per I/O of the most loaded lock instance (the class
    shared_hold_ns reads): acquisitions per I/O x the share of sampled
    releases that left a waiter behind (rel_waited / rel_sampled) x the
    mean gap (lockstat gap_ns: such a release to the next acquisition,
    whoever made it, fastest 99 %) / instances.  Unlike the handoff it
    also counts a lock left free while its waiter was still waking and
    the releaser took it again (a futex mutex).  None without gap
    samples (a binary older than gap_ns, or no release left a waiter, as
    at W=1)."""
    return _gap(doc, False)


def shared_gap_full_ns(doc, workers):
    """As shared_gap_ns with a waiter behind every release: the lock
    saturated, its waiters always queued."""
    return _gap(doc, True)


def shared_release_ns(doc, workers):
    """The time the primitive's unlock takes per I/O, of the class
    shared_hold_ns reads: acquisitions per I/O x the mean time a sampled
    release spent in the unlock (lockstat release_ns: a store, or a futex
    wake when a mutex has a sleeper).  Work of the releasing worker
    outside the lock, not lock time: not divided by the instances.  None
    for a binary older than release_ns."""
    per_io, n, c = _most_loaded(doc)
    if not per_io or not c.get("release_samples"):
        return None
    acq_per_io = per_io / _hist_trimmed_mean(c["hold_ns"]["histogram"]) * n
    return acq_per_io * (c.get("release_ns") or 0.0)


def shared_hold_locks(doc, workers):
    """The instances (locks) of the class shared_hold_ns reads."""
    return _most_loaded(doc)[1]


def shared_hold_ns(doc, workers):
    """The lock time per I/O of the most loaded lock instance: over the
    lockstat classes, acquisitions per I/O x mean hold / instances (the
    class's locks), the largest.  A lock every request takes saturates when
    this much time per I/O fills it: the ceiling is 1 / this (IOPS).  The
    mean hold is of the fastest 99 % of the sampled holds (the slowest 1 %
    are holders the host preempted, a cost of this VM, not of the lock);
    None without lockstat."""
    return _most_loaded(doc)[0]


def merges(doc, workers):
    rq = doc.get("rqlock")
    if rq:
        return sum(q.get("merges_front", 0) + q.get("merges_back", 0) for q in rq.get("queues", []))
    if "disk_util" in doc:
        return sum(d.get("read_merges", 0) + d.get("write_merges", 0) for d in doc["disk_util"])
    return None


class Metric:
    def __init__(self, key, column, title, get, scope="job", better=None, unit="count", spread=False, doc="",
                 reps=False):
        self.key, self.column, self.title, self.get = key, column, title, get
        self.scope, self.better, self.unit, self.spread, self.doc = scope, better, unit, spread, doc
        self.reps = reps

    @property
    def columns(self):
        return [self.column] + ([self.column + "_min", self.column + "_max"] if self.spread else []) + (
            [self.column + "_reps"] if self.reps else [])

    @property
    def high(self):
        return self.better == "high"


METRICS = [
    Metric("iops", "iops", "IOPS", lambda j: sum(x.get("iops", 0) or 0 for x in _dirs(j)),
           better="high", spread=True, reps=True, doc="sum over the reported job's directions; median over repeats"),
    Metric("bw", "bw_bytes", "bandwidth (MiB/s)", lambda j: sum(x.get("bw_bytes", 0) or 0 for x in _dirs(j)),
           better="high", unit="bytes", doc="bytes/s summed over directions"),
    Metric("p50", "lat_p50_us", "p50 latency (us)", lat_pct_us("50.000000"), better="low", unit="us",
           doc="median latency (lat_kind), microseconds"),
    Metric("p99", "lat_p99_us", "p99 latency (us)", lat_pct_us("99.000000"), better="low", unit="us",
           spread=True, reps=True, doc="lat_kind lat: total latency (lat_percentiles=1), clat: completion latency; of "
           "reads when the job reads, else of writes; microseconds"),
    Metric("p99.9", "lat_p999_us", "p99.9 latency (us)", lat_pct_us("99.900000"), better="low", unit="us",
           doc="99.9th percentile latency (lat_kind), microseconds"),
    Metric("max", "lat_max_us", "max latency (us)", lat_max_us, better="low", unit="us",
           doc="the largest total latency, microseconds"),
    Metric("ip99", "int_p99_us", "intended p99 latency (us)", intended_pct_us("99.000000"), better="low",
           unit="us", spread=True, reps=True, doc="lat_intended_ns p99: latency from each I/O's due time on the job's "
           "rate schedule (rate-limited jobs only; docs/LATENCY.md), microseconds"),
    Metric("ip99.99", "int_p9999_us", "intended p99.99 latency (us)", intended_pct_us("99.990000"),
           better="low", unit="us", doc="lat_intended_ns p99.99, microseconds"),
    Metric("imax", "int_max_us", "intended max latency (us)", intended_max_us, better="low", unit="us",
           doc="lat_intended_ns max, microseconds"),
    Metric("lateshare", "late_share", "late share (late_ios / total_ios)", late_share, better="low", unit="share",
           reps=True, doc="I/Os built more than one mean interval after their due time, over all I/Os"),
    Metric("slat_share", "slat_share", "submission share of run time", slat_share, unit="share", reps=True,
           doc="N x mean slat / job_runtime; the floppy under driver=sync: its lock-hold share"),
    Metric("slat", "slat_mean_us", "mean submission latency (us)", slat_mean_us, better="low", unit="us",
           doc="mean slat; the floppy under driver=sync: its mean lock hold"),
    Metric("lat_kind", "lat_kind", "latency kind", lat_kind, unit="text",
           doc="lat: total latency percentiles were reported; clat: completion latency"),
    Metric("lock", "lock_wait_share", "lock wait share", lock_wait_share, scope="point", better="low",
           unit="share", doc="lockstat: total wait time of all lock classes / (workers x elapsed); empty "
           "when the JSON has no rqlock.lockstat"),
    Metric("contention", "contention_share", "contention share (contentions / acquisitions)", contention_share,
           scope="point", better="low", unit="share", doc="contentions / acquisitions over all locks"),
    Metric("waitms", "holder_wait_ms", "lock wait of the disks (ms)", wait_ms, scope="point", better="low",
           unit="us", doc="lockstat holders: total contended wait of waiters other than the floppy, ms"),
    Metric("floppywait", "floppy_wait_share", "share of lock wait while a floppy held it", floppy_wait_share,
           scope="point", unit="share", doc="lockstat holders: the share of contended wait that began while "
           "a @floppy queue held the lock"),
    Metric("merges", "merges", "merges", merges, scope="point",
           doc="front + back merges over all queues (fio-kernel: disk_util merges)"),
    Metric("bg_cpu", "bg_cpu", "load from elsewhere (cores)", bg_cpu, scope="meta",
           unit="cores", reps=True, doc="cores the rest of the machine kept busy while the point ran (for "
           "fio-kernel this includes the kernel threads doing its I/O, loop workers and io_uring workers); the "
           "sweep's meter, else rqlock.machine.bg_cpu"),
    Metric("steal", "steal", "steal share", machine_steal, scope="point", unit="share",
           doc="rqlock.machine.steal: the share of the CPUs the hypervisor took during the run"),
    Metric("mhz_spread", "mhz_spread", "CPU clock spread (max / min)", machine_mhz_spread, scope="point",
           unit="cores", doc="rqlock.machine.mhz_spread: the fastest over the slowest CPU clock seen"),
    Metric("hold", "hold_ns_per_io", "shared lock time per I/O (ns)", shared_hold_ns, scope="point",
           unit="count", doc="lockstat: of the lock classes, the largest acquisitions per I/O x mean hold "
           "(fastest 99 %) / instances; the ceiling a lock every request takes allows is 1e9 / this IOPS"),
    Metric("hold_locks", "hold_locks", "instances of the most loaded lock class", shared_hold_locks,
           scope="point", doc="lockstat: the locks of the class hold_ns_per_io reads (1: one lock every "
           "request takes; D: one per drive)"),
    Metric("handoff", "handoff_ns_per_io", "lock handoff time per I/O (ns)", shared_handoff_ns, scope="point",
           unit="count", doc="lockstat: of the class hold_ns_per_io reads, acquisitions per I/O x the share "
           "that moved the lock to another worker x mean handoff (a sampled hold's release to the waiter "
           "that took it; fastest 99 %) / instances; the contention-aware ceiling is 1e9 / (hold + this)"),
    Metric("handoff_full", "handoff_full_ns_per_io", "lock handoff time per I/O, every acquisition (ns)",
           shared_handoff_full_ns, scope="point", unit="count", doc="lockstat: as handoff_ns_per_io with "
           "every acquisition a handoff (a fair lock, saturated)"),
    Metric("gap", "gap_ns_per_io", "lock gap time per I/O (ns)", shared_gap_ns, scope="point",
           unit="count", doc="lockstat: of the class hold_ns_per_io reads, acquisitions per I/O x the share "
           "of sampled releases that left a waiter behind x mean gap (such a release to the next "
           "acquisition, whoever made it; fastest 99 %) / instances; the ceiling is 1e9 / (hold + this)"),
    Metric("gap_full", "gap_full_ns_per_io", "lock gap time per I/O, a waiter behind every release (ns)",
           shared_gap_full_ns, scope="point", unit="count", doc="lockstat: as gap_ns_per_io with a waiter "
           "behind every release (the lock saturated); the pessimistic end of the band past W"),
    Metric("release", "release_ns_per_io", "lock release time per I/O (ns)", shared_release_ns,
           scope="point", unit="count", doc="lockstat: of the class hold_ns_per_io reads, acquisitions per "
           "I/O x the mean time a sampled release spent in the primitive's unlock (a futex wake for a mutex "
           "with a sleeper); the model adds what it grew beyond W=1's to each I/O's work outside the lock"),
]
BY_KEY = {m.key: m for m in METRICS}
BY_COLUMN = {m.column: m for m in METRICS}


def summary_columns():
    """The metric columns of summary.csv, in order."""
    return [c for m in METRICS for c in m.columns]


def job_metrics(job):
    """{column: value} of the job-scope metrics of one reported job."""
    return {m.column: m.get(job) for m in METRICS if m.scope == "job"}


def run_metrics(doc, workers):
    """{column: value} of the point-wide metrics (lock wait share, contention
    share, merges) of one point JSON."""
    return {m.column: m.get(doc, workers) for m in METRICS if m.scope == "point"}


def meta_metrics(meta, doc=None):
    return {m.column: m.get(meta, doc) for m in METRICS if m.scope == "meta"}


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def aggregate(samples):
    """One summary row's metric columns from the per-repeat {column: value}
    samples of one job: medians, spreads, the first text value."""
    out = {}
    for m in METRICS:
        vals = [s.get(m.column) for s in samples]
        if m.unit == "text":
            out[m.column] = next((v for v in vals if v is not None), None)
            continue
        out[m.column] = median(vals)
        if m.reps:
            out[m.column + "_reps"] = ";".join(fmt(v) for v in vals)
        if m.spread:
            vs = [v for v in vals if v is not None]
            out[m.column + "_min"] = min(vs) if vs else None
            out[m.column + "_max"] = max(vs) if vs else None
    return out


def reps(row, column):
    """The per-repeat values of a summary row's COLUMN_reps, None where a
    repeat had none; [] when the row has no such column."""
    txt = row.get(column + "_reps") or ""
    return [num(x) for x in txt.split(";")] if txt else []


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def human(v, m):
    """A value of metric m (a Metric or its key) for a table cell."""
    if isinstance(m, str):
        m = BY_KEY[m]
    if v is None:
        return "-"
    if m.unit == "text":
        return str(v)
    if m.unit == "bytes":
        v = v / 1048576.0
    if m.unit == "share":
        return "%.2f%%" % (100 * v) if v >= 0.0001 or v == 0 else "%.1e" % v
    # thresholds on the value as three digits show it: 999.6 is "1k" (or "1000"), never "1e+03"
    a = abs(float("%.3g" % v))
    if m.unit in ("count", "bytes"):
        for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if a >= div:
                return "%.3g%s" % (v / div, suf)
        return "%.3g" % v
    if a >= 1000:
        return "%.0f" % v
    return "%.3g" % v


def fmt(v):
    """A value as written into summary.csv."""
    if v is None:
        return ""
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)
