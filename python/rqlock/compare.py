"""compare: lock modes side by side, from one or more runs of scripts/sweep.

Usage: rqlock compare [--format text|markdown|both] [--metric iops,p99,...] RUN...
       (or scripts/compare, the same)

RUN is a run directory or an id under results/runs/.  Reads each run's
summary.csv and manifest.json (the JSON-derived summary, never rqlock's text
output).

For each job file, each reported job, worker count and --var value it prints
a table per metric with one row per drive count and one column per lock mode
(the kernel baseline, fio-kernel, is a column like the others).  Each cell is
the median over the repeats and its ratio to the best mode of the row: for
IOPS the highest is best, for latency the lowest.  A column is named by its
mode, with /primitive when the runs hold more than one primitive, and with
@run when two runs hold the same mode and primitive.

Rows from several hosts (a fleet sweep, runs from other machines; a store
older than the host axis is host "local" with its manifest's CPUs): columns
are "mode on HOST", and a last table puts the hosts side by side: IOPS
against workers per core, per host x mode, at each W the most drives run.

Then, where the runs have them:
  floppy-vs-disk  per mode: the disk's intended-latency p99 (lat_intended_ns,
                  from the rate schedule; fio's lat p99 when the job has no
                  rate) and IOPS with the floppy idle and busy, busy / idle,
                  checked against the expectation for the floppy's driver
                  model (the FLOPPY device template: driver=sync under
                  global >= 100x, else <= 1.2x); then the prediction beside
                  the measurement: the share of disk I/Os delayed predicted
                  from the floppy's lock-hold share s (naive: s; with the
                  disk's capacity C and rate R, a hold then a catch-up at
                  C - R: s x C / (C - R)) against the measured late share
                  (busy minus idle), agreeing within +-30 %; the predicted
                  p99 from the hold H (a delayed I/O waits uniformly 0..H:
                  p99 ~ H x (1 - 0.01 / f)); and lockstat's holders: how long
                  the disks waited on the lock and how much of it while the
                  floppy held it
  scaling         per mode: IOPS at D = W = k over k x IOPS at D = W = 1, for
                  k up to the CPU count (expected >= 0.8 for per-queue, mq,
                  cluster); and IOPS at the most drives over IOPS at one drive
                  with the most workers (global: flat); with points at D = 1
                  and W > 1 (sweep --scaling), IOPS at D = 1, W = k over
                  D = 1, W = 1: one drive's lock under k workers
"""
import argparse
import csv
import io
import json
import sys

from . import layout, metrics, model, registry, store, sweep, verdict
from .metrics import BY_KEY, human, num, reps as metric_reps

MODE_ORDER = registry.MODE_ORDER     # the binary's modes (`rqlock --list --json`), then fio's
FIO_MODES = ("fio-kernel", "fio-null")
# what --metric takes: every metric of the table that is a number
METRIC_KEYS = [m.key for m in metrics.METRICS if m.unit != "text"]


def load(runs):
    try:
        return store.load_runs(runs, summarize=sweep.summarize)
    except store.StoreError as e:
        sys.exit("compare: %s" % e)


def natural(x):
    """Sort key: numbers by value, before strings."""
    try:
        return (0, float(x), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(x))


def mode_key(m):
    return (MODE_ORDER.index(m) if m in MODE_ORDER else len(MODE_ORDER), m)


def host_of(r):
    return r.get("host") or store.LOCAL_HOST


def colkey(r):
    """The key of a row's column in the labels of columns()."""
    return (r["run"], r["mode"], r["primitive"], host_of(r))


def label_mode(label):
    """The lock mode of a column label "mode[/primitive][@run][ on HOST]"."""
    return label.split(" on ", 1)[0].split("/")[0].split("@")[0]


def columns(rows):
    """Column label per (run, mode, primitive, host): the mode, /primitive
    when the runs hold several, @run when two runs hold the same mode and
    primitive on one host, " on HOST" when the rows come from several hosts."""
    prims = {}
    owners = {}
    for r in rows:
        prims.setdefault(r["mode"], set()).add(r["primitive"])
        owners.setdefault((r["mode"], r["primitive"], host_of(r)), set()).add(r["run"])
    multi_prim = any(len(p) > 1 for m, p in prims.items() if m not in FIO_MODES)
    multi_host = len({host_of(r) for r in rows}) > 1
    labels, hosts = {}, {}
    for r in rows:
        lab = r["mode"]
        if multi_prim and r["mode"] not in FIO_MODES:
            lab += "/" + r["primitive"]
        if len(owners[(r["mode"], r["primitive"], host_of(r))]) > 1:
            lab += "@" + r["run"]
        if multi_host:
            lab += " on " + host_of(r)
        labels[colkey(r)] = lab
        hosts[lab] = host_of(r)
    order = sorted(set(labels.values()), key=lambda l: (hosts[l], mode_key(label_mode(l)), l))
    return labels, order


class Out:
    """The tables and paragraphs of a comparison, rendered as text (within
    layout.WIDTH columns unless wide), markdown, both, csv or json."""

    def __init__(self, fmt, wide=False):
        self.fmt = fmt
        self.wide = wide
        self.parts = {"text": [], "markdown": []}
        self.sections = [{"title": None, "level": 1, "paras": [], "tables": []}]

    def heading(self, s, level=2):
        self.parts["text"].append("\n" + s + "\n" + ("=" if level == 1 else "-") * len(s))
        self.parts["markdown"].append("\n" + "#" * (level + 1) + " " + s + "\n")
        self.sections.append({"title": s, "level": level, "paras": [], "tables": []})

    def para(self, s):
        self.parts["text"].append(s if self.wide else layout.wrap(s))
        self.parts["markdown"].append(s + "\n")
        self.sections[-1]["paras"].append(s)

    def table(self, head, body, keys=1):
        """keys: the leading columns that name a row (repeated in each
        block when the text table splits to fit)."""
        self.parts["text"].append("\n".join(layout.table(head, body, keys=keys, wide=self.wide)))
        md = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
        for r in body:
            md.append("| " + " | ".join(str(c) for c in r) + " |")
        self.parts["markdown"].append("\n".join(md) + "\n")
        self.sections[-1]["tables"].append({"head": list(head), "rows": [[str(c) for c in r] for r in body]})

    def render(self):
        if self.fmt == "json":
            secs = [s for s in self.sections if s["title"] or s["paras"] or s["tables"]]
            return json.dumps({"sections": secs}, indent=1) + "\n"
        if self.fmt == "csv":
            f = io.StringIO()
            w = csv.writer(f, lineterminator="\n")
            for s in self.sections:
                for i, t in enumerate(s["tables"]):
                    w.writerow(["# %s%s" % (s["title"] or "", " (%d)" % (i + 1) if len(s["tables"]) > 1 else "")])
                    w.writerow(t["head"])
                    w.writerows(t["rows"])
                    w.writerow([])
            return f.getvalue()
        out = []
        if self.fmt in ("text", "both"):
            out.append("\n".join(self.parts["text"]).lstrip("\n"))
        if self.fmt in ("markdown", "both"):
            if out:
                out.append("\n" + "-" * 72 + "\n")
            out.append("\n".join(self.parts["markdown"]).lstrip("\n"))
        return "\n".join(out) + "\n"


def var_cols(rows):
    return sorted({k for r in rows for k in r if k.startswith("var_")})


def main_tables(out, rows, labels, order, metrics):
    vcols = var_cols(rows)
    groups = {}
    for r in rows:
        key = (r["jobfile"], int(r["workers"])) + tuple(r.get(v, "") for v in vcols)
        groups.setdefault(key, []).append(r)
    for key in sorted(groups, key=lambda k: tuple(natural(x) for x in k)):
        g = groups[key]
        jobfile, workers = key[0], key[1]
        vtxt = "".join(", %s=%s" % (v[4:], x) for v, x in zip(vcols, key[2:]) if x)
        jobs = []
        for r in g:
            if r["job"] not in jobs:
                jobs.append(r["job"])
        cols = [c for c in order if any(labels[colkey(r)] == c for r in g)]
        for key in metrics:
            m = BY_KEY[key]
            title, field, high = m.title, m.column, m.high
            out.heading("%s: %s, %d worker%s%s" % (jobfile, title, workers, "" if workers == 1 else "s", vtxt))
            head = (["job"] if len(jobs) > 1 else []) + ["drives"] + cols
            body = []
            for job in jobs:
                for d in sorted({int(r["drives"]) for r in g if r["job"] == job}):
                    cells, cis = {}, {}
                    for r in g:
                        if r["job"] == job and int(r["drives"]) == d:
                            cells[labels[colkey(r)]] = num(r.get(field))
                            cis[labels[colkey(r)]] = verdict.bootstrap_ci(metric_reps(r, field))
                    vals = [v for v in cells.values() if v is not None]
                    best = (max(vals) if high else min(vals)) if vals and m.better else None
                    line = ([job] if len(jobs) > 1 else []) + [str(d)]
                    for c in cols:
                        v = cells.get(c)
                        if v is None:
                            line.append("-")
                        else:
                            ci = cis.get(c)
                            cell = human(v, m) + (" [%s..%s]" % (human(ci[0], m), human(ci[1], m)) if ci else "")
                            line.append("%s (%.2f)" % (cell, v / best) if best else cell)
                    body.append(line)
            out.table(head, body, keys=2 if len(jobs) > 1 else 1)
        out.para("[lo..hi] = the 90 %% bootstrap interval of the median over the repeats; (ratio) = to the best "
                 "mode of the row: %s." % (
            ", ".join("%s %s" % (BY_KEY[k].title, "highest" if BY_KEY[k].high else "lowest")
                      for k in metrics if BY_KEY[k].better)))


def _template_opts(t):
    """{opt: value} of a device template "@null{n},delay_us=500,depth=2"."""
    out = {}
    for part in (t or "").split(",")[1:]:
        k, _, v = part.partition("=")
        out[k.strip()] = v.strip()
    return out


def disk_capacity(tmpl):
    """IOPS a null disk template serves at most (depth / delay), or None."""
    if not (tmpl or "").startswith("@null"):
        return None
    o = _template_opts(tmpl)
    try:
        delay = float(o.get("delay_us", 0))
        depth = float(o.get("depth", 64))
    except ValueError:
        return None
    return depth * 1e6 / delay if delay > 0 else None


def floppy_driver(tmpl):
    if not (tmpl or "").startswith("@floppy"):
        return None
    return _template_opts(tmpl).get("driver", "2.4")


def _reps_or_median(row, column):
    """A row's per-repeat values of COLUMN (a store without COLUMN_reps: its median alone)."""
    xs = metrics.reps(row, column)
    return xs if xs else [num(row.get(column))]


def _pairwise(a, b, f):
    """f(a[k], b[k]) per repeat k where both are there."""
    return [f(x, y) for x, y in zip(a, b) if x is not None and y is not None]


def floppy_judgement(d, mode, drv, cap, idle_p99_all, idle_late_all):
    """The verdicts of one floppy-vs-disk point (d: its idle, busy and
    floppy rows) against the noise of its run.  Primary: the delayed
    fraction (late share busy - idle) against its prediction s x C / (C - R)
    under global (the floppy and the disk share io_request_lock), 0 in
    any other mode.  Secondary: the p99 busy / idle against its bound
    (driver=sync under global: >= 10x, an order of magnitude, ~100x on a quiet
    machine; else <= 1.2x).  Returns a dict of what the tables print."""
    kind = "intended"
    ipi, ipb = _reps_or_median(d["idle"], "int_p99_us"), _reps_or_median(d["busy"], "int_p99_us")
    if not any(x is not None for x in ipi + ipb):
        ipi, ipb, kind = _reps_or_median(d["idle"], "lat_p99_us"), _reps_or_median(d["busy"], "lat_p99_us"), "lat"
    ratios = verdict.paired_ratios(ipb, ipi)
    rp = metrics.median(ratios)
    rp_ci = verdict.bootstrap_ci(ratios)
    noise = verdict.ratio_noise(idle_p99_all)
    stall = drv == "sync" and registry.has_flag(mode, "shared_lock")
    bound, sense = (10.0, "ge") if stall else (1.2, "le")
    p99v, p99t = verdict.judge_ratio(rp, bound, sense, noise, rp_ci)
    # the delayed fraction, per repeat: measured late share busy - idle, and
    # its prediction from that repeat's floppy hold share and idle IOPS
    fl = d.get("floppy")
    s_reps = _reps_or_median(fl, "slat_share") if fl else []
    ii_reps = _reps_or_median(d["idle"], "iops")
    shared = registry.has_flag(mode, "shared_lock")   # only io_request_lock is shared by the floppy and the disk
    preds = []
    for s, ii in zip(s_reps, ii_reps):
        if s is None:
            continue
        f = s if shared else 0.0
        if shared and cap and ii and cap > ii:
            f = s * cap / (cap - ii)
        preds.append(f)
    meas = _pairwise(_reps_or_median(d["busy"], "late_share"), _reps_or_median(d["idle"], "late_share"),
                     lambda b, i: b - i)
    fp, fm = metrics.median(preds), metrics.median(meas)
    fm_ci = verdict.bootstrap_ci(meas)
    fnoise = verdict.share_noise(idle_late_all)
    fv, ft = verdict.judge_share(fm, fp, fnoise, ci=fm_ci)
    hold = num(fl.get("slat_mean_us")) if fl else None
    ipi_m, ipb_m = metrics.median(ipi), metrics.median(ipb)
    p99p = None
    if fp is not None and hold is not None and ipi_m is not None:
        p99p = ipi_m + (hold * (1 - 0.01 / fp) if fp > 0.01 else 0.0)
    bg = [x for x in _reps_or_median(d["busy"], "bg_cpu") + _reps_or_median(d["idle"], "bg_cpu") if x is not None]
    return {"kind": kind, "ipi": ipi_m, "ipb": ipb_m, "rp": rp, "rp_ci": rp_ci, "noise": noise, "bound": bound,
            "sense": sense, "p99v": p99v, "p99t": p99t, "s": metrics.median(s_reps), "hold": hold, "fp": fp,
            "fm": fm, "fm_ci": fm_ci, "fnoise": fnoise, "fv": fv, "ft": ft, "p99p": p99p,
            "verdict": verdict.combine(fv, p99v), "n": len(ratios), "bg": max(bg) if bg else None,
            "steal": num(d["busy"].get("steal")), "ii": num(d["idle"].get("iops")), "ib": num(d["busy"].get("iops"))}


def floppy_section(out, rows, labels, order, mans=None):
    mans = mans or {}
    vcols = var_cols(rows)
    by, devs = {}, {}
    for r in rows:
        j = r["job"]
        kind = "idle" if "idle" in j else "busy" if "busy" in j else "floppy" if j.startswith("floppy") else None
        if kind is None:
            continue
        label = labels[colkey(r)]
        vals = tuple(r.get(v, "") for v in vcols)
        by.setdefault((r["jobfile"], int(r["workers"]), label, vals), {})[kind] = r
        devs[label] = (mans.get(r["run"]) or {}).get("devices") or {}
    if not by:
        return
    for jf, w in sorted({(k[0], k[1]) for k in by}):
        keys = [k for k in by if k[:2] == (jf, w) and "idle" in by[k] and "busy" in by[k]]
        # the noise floor: every floppy-idle measurement of this job file and worker count
        idle_p99 = [_reps_or_median(by[k]["idle"], "int_p99_us") for k in keys]
        if not any(x is not None for g in idle_p99 for x in g):
            idle_p99 = [_reps_or_median(by[k]["idle"], "lat_p99_us") for k in keys]
        idle_late = [_reps_or_median(by[k]["idle"], "late_share") for k in keys]
        out.heading("%s: the disk with the floppy idle and busy, %d worker%s" % (jf, w, "" if w == 1 else "s"))
        body, pred_body, hold_lines = [], [], []
        for vals in sorted({k[3] for k in keys}, key=lambda v: tuple(natural(x) for x in v)):
            for c in order:
                k = (jf, w, c, vals)
                if k not in keys:
                    continue
                d = by[k]
                mode = label_mode(c)
                tmpl = devs.get(c, {}).get("FLOPPY")
                for v, x in zip(vcols, vals):
                    tmpl = (tmpl or "").replace("${%s}" % v[4:], x)
                drv = floppy_driver(tmpl)
                if mode in FIO_MODES:
                    continue
                J = floppy_judgement(d, mode, drv, disk_capacity(devs.get(c, {}).get("DISK")), idle_p99, idle_late)
                body.append([c, drv or "-", verdict.fmt_ci(J["fp"], None, "%.2f", 100, "%"),
                             verdict.fmt_ci(J["fm"], J["fm_ci"], "%.2f", 100, "%"), J["ft"],
                             human(J["ipi"], "p99"), human(J["ipb"], "p99"),
                             verdict.fmt_ci(J["rp"], J["rp_ci"], unit="x"),
                             "%.2fx" % J["noise"] if J["noise"] else "-",
                             "%s %gx: %s" % ("<=" if J["sense"] == "le" else ">=", J["bound"], J["p99t"]),
                             "%.2f" % J["bg"] if J["bg"] is not None else "-", str(J["n"]), J["verdict"]])
                pred_body.append([c, drv or "-", human(J["s"], "lock"), human(J["hold"], "p99"),
                                  human(J["p99p"], "p99"), human(J["ipb"], "p99"),
                                  human(J["ii"], "iops"), human(J["ib"], "iops")])
                wm, fw = num(d["busy"].get("holder_wait_ms")), num(d["busy"].get("floppy_wait_share"))
                if wm is not None:
                    hold_lines.append("%s, floppy driver=%s: the disk's workers waited %.1f ms on %s, %s of it while "
                                      "the floppy held it" % (c, drv, wm, "io_request_lock" if registry.has_flag(mode, "shared_lock")
                                                              else "their locks",
                                                              human(fw, "lock") if fw is not None else "none"))
        out.table(["mode", "floppy driver", "delayed pred", "delayed measured (90% CI)", "delayed: verdict",
                   "p99 idle (us)", "p99 busy (us)", "p99 busy/idle (90% CI)", "noise floor", "p99: expected",
                   "bg_cpu", "repeats", "verdict"], body, keys=2)
        out.para("The delayed fraction is the primary judge: the share of the disk's I/Os made late by the floppy "
                 "(late share busy minus idle, median over repeats) against its prediction s x C / (C - R) where "
                 "the floppy and the disk share a lock (global: io_request_lock; s the floppy's lock-hold share, "
                 "C the disk's capacity from the DISK template, R its idle IOPS), 0 where they do not; met within "
                 "+-30 % or 1 point.  The p99 ratio (busy / idle, per repeat, median) is secondary.  The noise "
                 "floor is measured in this run: for the p99 ratio, the largest over the smallest floppy-idle p99 "
                 "of every mode and repeat (idle against idle); for the delayed fraction, the spread of the idle "
                 "late shares.  A difference the noise floor covers is inconclusive, never NOT met.  Intervals: "
                 "bootstrap of the median over repeats (90 %).  bg_cpu: the most cores the rest of the machine "
                 "kept busy during the point's runs.  verdict: the delayed fraction's, or met when it is "
                 "inconclusive and the p99 is met.")
        out.table(["mode", "floppy driver", "s", "H (us)", "p99 predicted (us)", "p99 measured (us)", "IOPS idle",
                   "IOPS busy"], pred_body, keys=2)
        out.para("s: the floppy's lock-hold share (its submissions' share of run time: under driver=sync the whole "
                 "service runs there, under the queue lock); H: its mean hold.  p99 predicted: idle p99 + H x "
                 "(1 - 0.01 / f) (a delayed I/O waits uniformly 0..H); it uses the mean hold, so the longest holds "
                 "put the measurement above it.")
        for line in hold_lines:
            out.para(line)


def scaling_section(out, rows, labels, order, mans):
    ncpu = min([m["machine"].get("cpus") or 1 for m in mans.values()] or [1])
    by, rowsby = {}, {}
    vcols = var_cols(rows)
    for r in rows:
        if r["jobfile"] == "floppy-vs-disk":
            continue
        k = (r["jobfile"], r["job"]) + tuple(r.get(v, "") for v in vcols)
        by.setdefault(k, {}).setdefault(labels[colkey(r)], {})[
            (int(r["drives"]), int(r["workers"]))] = num(r["iops"])
        rowsby.setdefault(k, {}).setdefault(labels[colkey(r)], {})[(int(r["drives"]), int(r["workers"]))] = r
    for k in sorted(by):
        g = by[k]
        dws = {dw for c in g.values() for dw in c}
        if len({d for d, _ in dws}) < 2:
            continue
        ks = [n for n in range(2, ncpu + 1) if (n, n) in dws and (1, 1) in dws]
        # D = 1 (every worker on one drive, sweep --scaling): W = n against W = 1
        k1 = sorted(n for d, n in dws if d == 1 and n > 1 and (1, 1) in dws)
        wmax = max(w for _, w in dws)
        dmax = max(d for d, w in dws if w == wmax)
        vtxt = "".join(", %s=%s" % (v[4:], x) for v, x in zip(vcols, k[2:]) if x)
        out.heading("%s: scaling%s" % (k[0], vtxt))
        head = ["mode"] + ["D=W=%d vs %dx D=W=1" % (n, n) for n in ks] + [
            "D=1: W=%d vs W=1" % n for n in k1] + ["D=%d vs D=1 at W=%d" % (dmax, wmax), "expected"]
        body = []
        for c in order:
            if c not in g:
                continue
            p = g[c]
            line = [c]
            effs, judged = [], []
            for n in ks:
                a, b = p.get((n, n)), p.get((1, 1))
                e = a / (n * b) if a is not None and b else None
                effs.append(e)
                judged.append(scaling_judgement(rowsby[k][c].get((n, n)), rowsby[k][c].get((1, 1)), n, ncpu))
                line.append(verdict.fmt_ci(e, judged[-1][2]) if e is not None else "-")
            for n in k1:
                a, b = p.get((1, n)), p.get((1, 1))
                line.append("%.2f" % (a / b) if a is not None and b else "-")
            a, b = p.get((dmax, wmax)), p.get((1, wmax))
            line.append("%.2f" % (a / b) if a is not None and b else "-")
            mode = label_mode(c)
            if registry.is_mode(mode) and not registry.has_flag(mode, "shared_lock") and \
                    any(e is not None for e in effs):
                ok = all(e is not None and e >= 0.8 for e in effs)
                line.append(">= 0.8 linear: %s" % (verdict.MET if ok else worst(judged)))
            elif registry.has_flag(mode, "shared_lock"):
                line.append("flat once saturated")
            else:
                line.append("")
            body.append(line)
        out.table(head, body)
        out.para("D=W=n vs n x D=W=1: the efficiency, with the 90 % bootstrap interval over paired repeats.  "
                 "Judged against the noise of the same run: the repeats' spread of both points (max / min, "
                 "multiplied), and the cores the rest of the machine left free (bg_cpu): a point whose W "
                 "workers did not have W free CPUs cannot show linear scaling, and is inconclusive.")
        prediction_table(out, k, rowsby[k], order, ncpu)


def scaling_judgement(rn, r1, n, ncpu):
    """(verdict, text, ci) of the efficiency IOPS(D=W=n) / (n x IOPS(D=W=1))
    >= 0.8 against the run's noise: repeats' spread and free cores."""
    if rn is None or r1 is None:
        return verdict.INCONCLUSIVE, "inconclusive: not measured", None
    an, a1 = metric_reps(rn, "iops"), metric_reps(r1, "iops")
    effs = [x / (n * y) for x, y in zip(an, a1) if x is not None and y]
    e = num(rn.get("iops")) / (n * num(r1["iops"])) if num(rn.get("iops")) and num(r1.get("iops")) else None
    ci = verdict.bootstrap_ci(effs)
    sn, s1 = verdict.ratio_noise([an]), verdict.ratio_noise([a1])
    noise = (sn or 1.0) * (s1 or 1.0) if (sn or s1) else None
    bg = max([x for x in metric_reps(rn, "bg_cpu") + [num(rn.get("bg_cpu"))] if x is not None] or [0.0])
    v, t = verdict.judge_ratio(e, 0.8, "ge", noise, ci)
    if v == verdict.NOT_MET and ncpu - bg < n - 0.25:
        v, t = verdict.INCONCLUSIVE, "inconclusive: %.1f of %d CPUs free for W=%d" % (max(0.0, ncpu - bg), ncpu, n)
    return v, t, ci


def worst(judged):
    """NOT met if any is, else the first inconclusive text, else met."""
    for v, t, _ in judged:
        if v == verdict.NOT_MET:
            return t
    for v, t, _ in judged:
        if v == verdict.INCONCLUSIVE:
            return t
    return verdict.MET


def short_of_cpus(row, w, ncpu):
    """Whether a repeat of the point had fewer than W CPUs free for its W
    workers (bg_cpu, the load from elsewhere, as scaling_judgement)."""
    bg = max([x for x in metric_reps(row, "bg_cpu") + [num(row.get("bg_cpu"))] if x is not None] or [0.0])
    return bool(ncpu) and ncpu - bg < w - 0.25


def prediction_table(out, key, cols, order, ncpu):
    """Prediction beside measurement: per column and D = 1 / D = W, the
    ceiling of the most loaded lock at the largest W (model.ceiling: its
    measured hold and gap, or for an older run handoff, per I/O), and at
    each W > 1 the IOPS
    measured / predicted from that W's own lockstat (model.predict), with
    the model that drew it (model.name)."""
    body = []
    ws = sorted({w for c in cols.values() for _, w in c if w > 1})
    for c in order:
        if c not in cols:
            continue
        pts = cols[c]
        for panel in ("D=1", "D=W"):
            ser = {w: r for (d, w), r in pts.items() if d == (1 if panel == "D=1" else w)}
            x1 = num((ser.get(1) or {}).get("iops"))
            if x1 is None or len(ser) < 2:
                continue
            wm = max(ser)
            h, g = num(ser[wm].get("hold_ns_per_io")), num(ser[wm].get("gap_ns_per_io"))
            hf = num(ser[wm].get("handoff_ns_per_io"))
            ceil = model.ceiling(ser[wm])
            line = [c, panel, human(x1, "iops"), "%.1f" % h if h is not None else "-",
                    "%.1f" % g if g is not None else "%.1f h" % hf if hf is not None else "-",
                    model.name(ser[wm]) if h is not None else "-",
                    human(ceil, "iops") if ceil else "none"]
            for w in ws:
                r = ser.get(w)
                pred = model.predict_at(w, x1, r, ser.get(1)) if r is not None else None
                meas = num((r or {}).get("iops"))
                line.append("%s / %s (%.2f)%s" % (human(meas, "iops"), human(pred, "iops"), meas / pred,
                                                  " *" if short_of_cpus(r, w, ncpu) else "")
                            if meas and pred else "-")
            body.append(line)
    if not body:
        return
    out.para("Predicted from measured lock times (a prediction, not a measurement past this machine's %d "
             "CPUs): a lock every request takes saturates at 1 / (the time per I/O it is unavailable), "
             "whatever the CPU count (the ceiling).  hold (ns per I/O): lockstat's acquisitions per I/O x mean "
             "hold of the most loaded lock instance; gap: x the share of releases that left a waiter behind x "
             "the mean time from such a release to the next acquisition, whoever made it (the line's move, "
             "the primitive's wake-up, a lock left free while its waiter woke).  model %s: ceiling 1e9 / "
             "(hold + gap) (Boyd-Wickizer et al. 2012: serial section plus handoff); %s (a run older than "
             "gap_ns; its gap cell ends in h): the handoff to a waiter only; %s: 1e9 / hold, for a run with "
             "neither (optimistic).  hold, gap and ceiling: at the largest W (x the instances when each drive "
             "has its own).  Each W=n cell: measured / predicted (ratio), the prediction by Mean Value "
             "Analysis (Reiser and Lavenberg 1980) of W workers whose I/O spends 1 / X1 outside the lock "
             "(X1 measured at W=1, less its hold) plus what the primitive's release grew at W (a futex wake), "
             "and hold + gap at the lock, from that point's own lockstat: the ceiling far past the knee, "
             "W x X1 far below it.  Left out: a handoff that grows with the waiters (ticket locks collapse "
             "on many CPUs), other lines the CPUs share outside the lock, and a holder or waiter the host "
             "preempted (docs/EXPERIMENTS.md); *: the point's W workers did not have W free CPUs (bg_cpu of "
             "a repeat), they took turns, and no lock model applies." % (
                 ncpu, model.GAPS, model.CONTENDED, model.OPTIMISTIC))
    out.table(["column", "D", "X1", "hold", "gap", "model", "ceiling"] +
              ["W=%d" % w for w in ws], body, keys=2)


def scaling_points(rows, labels):
    """One scaling curve from hosts with different core counts: per job
    file, job and --var values, per column (host x mode), the point at each
    worker count W with the most drives run at that W: {(jobfile, job,
    vars...): {label: [(W, cores, D, row)]}}."""
    vcols = var_cols(rows)
    best = {}
    for r in rows:
        if num(r.get("iops")) is None:
            continue
        k = (r["jobfile"], r["job"]) + tuple(r.get(v, "") for v in vcols)
        w, d = int(r["workers"]), int(r["drives"])
        cur = best.setdefault(k, {}).setdefault(labels[colkey(r)], {}).get(w)
        if cur is None or d > cur[2]:
            cores = int(float(r["cores"])) if num(r.get("cores")) else None
            best[k][labels[colkey(r)]][w] = (w, cores, d, r)
    return {k: {lab: sorted(v.values(), key=lambda p: p[0]) for lab, v in g.items()} for k, g in best.items()}


def fleet_section(out, rows, labels, order):
    """Hosts side by side: IOPS against workers per core, one block of rows
    per host x mode (the curve rqlock plot draws as <job>-fleet-scaling)."""
    if len({host_of(r) for r in rows}) < 2 and len({r.get("cores") for r in rows}) < 2:
        return
    vcols = var_cols(rows)
    for k, g in sorted(scaling_points(rows, labels).items(), key=lambda kv: tuple(natural(x) for x in kv[0])):
        vtxt = "".join(", %s=%s" % (v[4:], x) for v, x in zip(vcols, k[2:]) if x)
        out.heading("%s (%s): hosts side by side, IOPS against workers per core%s" % (k[0], k[1], vtxt))
        body = []
        for c in order:
            for w, cores, d, r in g.get(c, []):
                iops = num(r["iops"])
                body.append([c, host_of(r), str(cores) if cores else "?", str(w),
                             "%.2f" % (w / cores) if cores else "-", str(d), human(iops, BY_KEY["iops"]),
                             human(iops / w, BY_KEY["iops"])])
        out.table(["column", "host", "cores", "W", "W/cores", "D", "IOPS", "IOPS per worker"], body, keys=2)
        out.para("Each host x mode at each worker count W its run has, with the most drives run at that W; "
                 "W/cores puts hosts with different core counts on one axis.  Servers' W is their own "
                 "(rqlock server --workers); fio baselines take the W of the sweep.")


def parser(prog=None):
    """The command line (also read by manpage.py)."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="RUN")
    ap.add_argument("--format", choices=["text", "markdown", "both", "csv", "json"], default="text",
                    help="text (within 100 columns), markdown, both, csv or json (default text)")
    ap.add_argument("--wide", action="store_true",
                    help="text tables one line per row however long, reasons in place (default: off)")
    ap.add_argument("--metric", default="iops,p99",
                    help="comma list of metric keys, any of: %s (default iops,p99)" % " ".join(METRIC_KEYS))
    ap.add_argument("--output", help="write here instead of stdout")
    ap.add_argument("--verdicts", action="store_true",
                    help="only the experiments' own tables, with their verdicts (no per-metric tables)")
    ap.add_argument("--busy", type=float, default=0.25, metavar="CORES",
                    help="flag points whose bg_cpu (load from elsewhere) exceeds this (default 0.25)")
    return ap


def main(argv=None, prog=None):
    prog = prog or store.rel(sys.argv[0])
    a = parser(prog).parse_args(argv)
    metrics = [m for m in a.metric.split(",") if m]
    for m in metrics:
        if m not in METRIC_KEYS:
            sys.exit("compare: unknown metric %s (%s)" % (m, ",".join(METRIC_KEYS)))
    rows, mans = load(a.runs)
    if not rows:
        sys.exit("compare: the runs have no finished point")
    labels, order = columns(rows)
    out = Out(a.format, wide=a.wide)
    mach = sorted({"%s, %s CPUs (%s), kernel %s" % (m["machine"].get("hostname"), m["machine"].get("cpus"),
                                                    m["machine"].get("cpu_model"), m["machine"].get("kernel"))
                   for m in mans.values()})
    out.heading("rqlock compare: %s" % ", ".join(sorted(mans)), level=1)
    out.para("machine: %s" % "; ".join(mach))
    for m in mans.values():
        out.para("run %s: %s, git %s%s, %s s x %d repeats; modes %s%s" % (
            m["id"], m.get("created", "?"), (m["git"].get("revision") or "?")[:12],
            " (dirty)" if m["git"].get("dirty") else "", m["axes"]["runtime"], m["axes"]["repeat"],
            ",".join(m["modes"]),
            "".join("; %s" % n for n in m.get("notes", []))))
    busy = sorted({(r["run"], r["point"], num(r.get("bg_cpu"))) for r in rows
                   if (num(r.get("bg_cpu")) or 0) > a.busy and r["mode"] not in FIO_MODES})
    if busy:
        out.para("note: %d point(s) ran while the rest of the machine kept > %.2f cores busy (bg_cpu), "
                 "their numbers are suspect (fio-kernel is not flagged: the kernel threads doing its I/O "
                 "count as load from elsewhere): %s" % (len(busy), a.busy, ", ".join(
                     "%s:%s (%.2f)" % b for b in busy[:8]) + (" ..." if len(busy) > 8 else "")))
    for m in mans.values():
        fl = m.get("fleet") or {}
        for sv in fl.get("servers", []) + fl.get("fio_servers", []):
            out.para("run %s, host %s: %s (%s, %s, %s cores)%s" % (
                m["id"], sv["name"], sv["addr"], sv.get("hostname"), sv.get("version"), sv.get("cores"),
                " lock=%s lock-type=%s workers=%s" % (sv["mode"], sv["primitive"], sv["workers"])
                if "mode" in sv else " " + fl.get("fio_mode", "")))
    if not a.verdicts:
        main_tables(out, rows, labels, order, metrics)
    floppy_section(out, rows, labels, order, mans)
    scaling_section(out, rows, labels, order, mans)
    fleet_section(out, rows, labels, order)
    text = out.render()
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
