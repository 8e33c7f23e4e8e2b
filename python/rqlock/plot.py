"""plot: the plots of a run of scripts/sweep, as PNG and SVG, with gnuplot.

Usage: rqlock plot [--out DIR] [--workers W] RUN [RUN...]   (or scripts/plot, the same)

RUN is a run directory or an id under results/runs/.  Reads the run's
summary.csv and manifest.json; writes DIR (default RUN/plots/):

  <job>-iops-vs-drives   IOPS against drives, one curve per lock mode and the
                         fio-kernel baseline, at the most workers of the run
                         (or --workers W); bars from the fastest to the
                         slowest repeat
  <job>-iops-vs-workers  the same against workers, at the most drives
  <job>-p99-vs-drives    p99 latency against drives, per mode
  <job>-lock-share       lock wait share per mode (lockstat), grouped by
                         drives; contention share (contentions/acquisitions)
                         when the run has no lockstat, and the title says so
  <job>-scaling          a run of `sweep --scaling` (points at D = 1 and D = W):
                         IOPS against workers, one curve per mode and
                         primitive, in two panels, D = 1 and D = W
  floppy-vs-disk         the disk's p99 and IOPS with the floppy idle and
                         busy, per mode, as grouped bars
  <job>-fleet-scaling    rows from several hosts (a fleet sweep, or several
                         RUNs): IOPS against workers per core (workers when
                         the cores agree; --fleet-x), one curve per host x
                         mode over every RUN given, at each W the point
                         with the most drives

With several RUNs the other plots draw the first one (into its plots/
unless --out).  Rows of a store older than the host axis are host "local".

<job> is each job file of the run that has a drive or worker axis.  Each plot
is written as .png and .svg, with the .dat and .gp files that made it, so a
plot can be remade or restyled by hand (gnuplot FILE.gp).  The titles carry
the machine (host, CPUs, kernel) and the run's date.  Prints the files made.
Exit 0, 1 when gnuplot fails, 2 on bad input, 77 when gnuplot is missing.
"""
import argparse
import datetime
import math
import os
import shutil
import subprocess
import sys

from . import model, registry, store, sweep
from .metrics import BY_COLUMN, num

MODE_ORDER = registry.MODE_ORDER     # the binary's modes (`rqlock --list --json`), then fio's
FIO_MODES = registry.FIO_MODES
# one colour and point type per mode, the same on every plot: the binary's
# modes take MODE_COLOURS in its registry's order, fio's baselines grey
MODE_COLOURS = [("#d62728", 7), ("#1f77b4", 5), ("#2ca02c", 9), ("#9467bd", 11)]
FIO_STYLE = {"fio-kernel": ("#555555", 13), "fio-null": ("#999999", 15)}


def mode_style(mode):
    """A mode's colour and point type, or None for a name that is no mode."""
    if mode in FIO_STYLE:
        return FIO_STYLE[mode]
    ms = registry.modes()
    if mode not in ms:
        return None
    i = ms.index(mode)
    return MODE_COLOURS[i] if i < len(MODE_COLOURS) else (EXTRA_COLOURS[i % len(EXTRA_COLOURS)], 4 + 2 * (i % 6))
EXTRA_COLOURS = ["#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
FONT = "DejaVu Sans,11"
PREDICT_W = 64      # the scaling plots draw the predicted ceiling out to this many workers


def die(msg, code=2):
    sys.stderr.write("plot: %s\n" % msg)
    sys.exit(code)


def mode_key(m):
    base = m.split("/")[0]
    return (MODE_ORDER.index(base) if base in MODE_ORDER else len(MODE_ORDER), m)


def series_name(r, multi_prim, multi_host=False):
    """mode[/primitive][ on HOST]: a curve of the plots."""
    s = r["mode"]
    if multi_prim and r["mode"] not in FIO_MODES:
        s += "/" + r["primitive"]
    if multi_host:
        s += " on " + (r.get("host") or store.LOCAL_HOST)
    return s


def style_of(name, i):
    base = name.split("/")[0]
    if mode_style(base) and "/" not in name and " on " not in name:
        return mode_style(base)
    return (EXTRA_COLOURS[i % len(EXTRA_COLOURS)], 4 + 2 * (i % 6))


class Plotter:
    def __init__(self, run_dir, out_dir, man, rows):
        self.run = run_dir
        self.out = out_dir
        self.man = man
        self.rows = rows
        self.made = []
        m = man["machine"]
        when = (man.get("created") or "")[:10] or datetime.date.today().isoformat()
        self.machine = "%s: %s CPUs (%s), Linux %s, %s" % (m.get("hostname"), m.get("cpus"),
                                                             m.get("cpu_model") or "?", m.get("kernel"), when)
        prims = {}
        for r in rows:
            prims.setdefault(r["mode"], set()).add(r["primitive"])
        self.multi_prim = any(len(p) > 1 for k, p in prims.items() if k not in FIO_MODES)
        self.hosts = sorted({r.get("host") or store.LOCAL_HOST for r in rows})
        self.multi_host = len(self.hosts) > 1
        self.fleet_x = None

    # gnuplot ---------------------------------------------------------------
    def gnuplot(self, name, body, width=900, height=560):
        """Write NAME.gp producing NAME.png and NAME.svg, run it."""
        gp = os.path.join(self.out, name + ".gp")
        png, svg = name + ".png", name + ".svg"
        with open(gp, "w") as f:
            f.write("# made by scripts/plot from %s; run: gnuplot %s.gp (in this directory)\n" % (
                self.man["id"], name))
            for term, out in (("pngcairo size %d,%d enhanced font '%s'" % (width, height, FONT), png),
                              ("svg size %d,%d dynamic enhanced font '%s' background '#ffffff'" % (
                                  width, height, FONT), svg)):
                f.write("reset\nset terminal %s\nset output '%s'\n" % (term, out))
                f.write("set encoding utf8\nset border lw 1.2\nset grid ytics mytics lc rgb '#dddddd' lw 1\n")
                f.write(body)
                f.write("\nunset output\n")
        p = subprocess.run(["gnuplot", name + ".gp"], cwd=self.out, capture_output=True, text=True)
        if p.returncode != 0:
            die("gnuplot failed on %s:\n%s" % (gp, p.stderr), 1)
        for f in (png, svg):
            path = os.path.join(self.out, f)
            if not os.path.exists(path) or os.path.getsize(path) == 0:
                die("gnuplot wrote no %s" % path, 1)
            self.made.append(path)

    def title(self, what):
        return "set title \"{/:Bold %s}\\n{/*0.85 %s}\"\n" % (gp_str(what), gp_str(self.machine))

    # line plots against drives or workers ----------------------------------
    def line_plot(self, jobfile, rows, xfield, fixed_field, fixed_val, metric, name, what, ylabel,
                  logy, scale, note="", xlabel=None):
        by = {}
        for r in rows:
            if int(r[fixed_field]) != fixed_val:
                continue
            v = num(r[metric])
            if v is None:
                continue
            lo = hi = v
            if metric in BY_COLUMN and BY_COLUMN[metric].spread:
                lo, hi = num(r.get(metric + "_min")), num(r.get(metric + "_max"))
            s = series_name(r, self.multi_prim, self.multi_host)
            by.setdefault(s, []).append((int(float(r[xfield])), v * scale, (lo or v) * scale, (hi or v) * scale))
        if not by or all(len(p) < 2 for p in by.values()):
            return
        names = sorted(by, key=mode_key)
        dat = os.path.join(self.out, name + ".dat")
        with open(dat, "w") as f:
            f.write("# %s: %s; columns: %s value min max (repeats' median, fastest, slowest)\n" % (
                jobfile, what, xfield))
            for s in names:
                f.write("\n\n# %s\n" % s)
                for x, v, lo, hi in sorted(by[s]):
                    f.write("%d %.6g %.6g %.6g\n" % (x, v, lo, hi))
        xs = sorted({p[0] for s in names for p in by[s]})
        body = self.title(what)
        body += "set xlabel '%s'\nset ylabel '%s'\n" % (
            xlabel or ("drives (D)" if xfield == "drives" else "workers (W, CPUs)"), gp_str(ylabel))
        body += "set xtics (%s)\n" % ", ".join("'%d' %d" % (x, x) for x in xs)
        pad = max(0.3, 0.06 * (xs[-1] - xs[0]))
        body += "set xrange [%g:%g]\n" % (max(0, xs[0] - pad), xs[-1] + 1.5 * pad)
        if logy:
            body += "set logscale y\nset format y '%s'\nset mytics 10\n" % ("%.0s%c" if metric == "iops" else "%g")
        else:
            body += "set yrange [0:*]\nset mytics 2\n"
        body += "set key outside right top vertical Left reverse noenhanced title 'lock mode' box lc rgb '#bbbbbb'\n"
        body += "set bmargin 5\n"
        if note:
            body += "set label 1 \"%s\" at screen 0.01, screen 0.02 left font ',9' tc rgb '#444444' noenhanced\n" % gp_str(note)
        plots = []
        for i, s in enumerate(names):
            col, pt = style_of(s, i)
            dash = " dt 2" if s.split(" on ")[0] in FIO_MODES else ""
            plots.append("'%s' index %d using 1:2:3:4 with yerrorlines lw 2.2%s pt %d ps 1.3 lc rgb '%s' title '%s'" % (
                os.path.basename(dat), i, dash, pt, col, s))
        body += "plot " + ", \\\n     ".join(plots) + "\n"
        self.gnuplot(name, body)

    def drive_worker_plots(self):
        jobfiles = []
        for r in self.rows:
            if r["jobfile"] not in jobfiles:
                jobfiles.append(r["jobfile"])
        vcols = sorted({k for r in self.rows for k in r if k.startswith("var_")})
        for jf in jobfiles:
            rows = [r for r in self.rows if r["jobfile"] == jf]
            jobs = sorted({r["job"] for r in rows})
            if len(jobs) != 1:
                continue        # several reported jobs (floppy-vs-disk): its own plot
            combos = sorted({tuple(r.get(v, "") for v in vcols) for r in rows})
            for combo in combos:
                rs = [r for r in rows if tuple(r.get(v, "") for v in vcols) == combo]
                vtxt = "".join(", %s=%s" % (v[4:], x) for v, x in zip(vcols, combo) if x)
                vsuf = "".join("-%s%s" % (v[4:].lower(), x) for v, x in zip(vcols, combo) if x and len(combos) > 1)
                drives = sorted({int(r["drives"]) for r in rs})
                workers = sorted({int(r["workers"]) for r in rs})
                w = self.want_workers if self.want_workers in workers else workers[-1]
                d = max(drives)
                rt = self.man["axes"]["runtime"]
                reps = self.man["axes"]["repeat"]
                note = "%s.fio, %g s per point, median of %d repeat%s (bars: fastest..slowest)%s" % (
                    jf, rt, reps, "" if reps == 1 else "s", self.dev_note(jf))
                if len(drives) > 1:
                    self.line_plot(jf, rs, "drives", "workers", w, "iops", "%s-iops-vs-drives%s" % (jf, vsuf),
                                   "IOPS against drives, %d worker%s%s" % (w, "" if w == 1 else "s", vtxt),
                                   "IOPS (4 KiB random reads, all drives)", True, 1.0, note)
                    self.line_plot(jf, rs, "drives", "workers", w, "lat_p99_us", "%s-p99-vs-drives%s" % (jf, vsuf),
                                   "p99 latency against drives, %d worker%s%s" % (w, "" if w == 1 else "s", vtxt),
                                   "p99 latency (µs, %s)" % self.lat_kind(rs), True, 1.0, note)
                if len(workers) > 1:
                    self.line_plot(jf, rs, "workers", "drives", d, "iops", "%s-iops-vs-workers%s" % (jf, vsuf),
                                   "IOPS against workers, %d drive%s%s" % (d, "" if d == 1 else "s", vtxt),
                                   "IOPS (4 KiB random reads, all drives)", True, 1.0, note)
                if len(drives) > 1 or len(workers) > 1:
                    self.lock_share(jf, rs, w, "%s-lock-share%s" % (jf, vsuf), vtxt)
            # a --var axis with several values (QD of queue-depth.fio): IOPS and p99 against it
            for i, v in enumerate(vcols):
                vals = sorted({r.get(v, "") for r in rows if r.get(v, "")}, key=natural)
                if len(vals) < 2 or not all(natural(x)[0] == 0 for x in vals):
                    continue
                others = [u for u in vcols if u != v]
                if any(len({r.get(u, "") for r in rows}) > 1 for u in others):
                    continue        # one var axis at a time
                workers = sorted({int(r["workers"]) for r in rows})
                w = self.want_workers if self.want_workers in workers else workers[-1]
                d = max(int(r["drives"]) for r in rows)
                rs = [dict(r, _x=r[v]) for r in rows if int(r["drives"]) == d]
                name = v[4:]
                note = "%s.fio, %g s per point, median of %d%s" % (
                    jf, self.man["axes"]["runtime"], self.man["axes"]["repeat"], self.dev_note(jf))
                self.line_plot(jf, rs, "_x", "workers", w, "iops", "%s-iops-vs-%s" % (jf, name.lower()),
                               "IOPS against %s, %d drive%s, %d worker%s" % (name, d, "" if d == 1 else "s",
                                                                           w, "" if w == 1 else "s"),
                               "IOPS (all drives)", True, 1.0, note, xlabel=name)
                self.line_plot(jf, rs, "_x", "workers", w, "lat_p99_us", "%s-p99-vs-%s" % (jf, name.lower()),
                               "p99 latency against %s, %d drive%s, %d worker%s" % (name, d, "" if d == 1 else "s",
                                                                                  w, "" if w == 1 else "s"),
                               "p99 latency (µs, %s)" % self.lat_kind(rs), True, 1.0, note, xlabel=name)

    def lat_kind(self, rows):
        k = {r.get("lat_kind") for r in rows}
        return "total latency" if k == {"lat"} else "completion latency" if k == {"clat"} else "latency"

    def dev_note(self, jf):
        """The device templates the job file uses, and what fio-kernel ran on."""
        try:
            text = open(os.path.join(self.run, "jobs", jf + ".fio")).read()
        except OSError:
            text = ""
        d = {k: v for k, v in self.man.get("devices", {}).items() if "${%s" % k in text}
        s = "; rqlock devices: " + ", ".join("%s=%s" % kv for kv in sorted(d.items())) if d else ""
        if "fio-kernel" in self.man.get("modes", []):
            s += "; fio-kernel: loop devices"
        return s

    # lock share bars -------------------------------------------------------------
    def lock_share(self, jf, rows, w, name, vtxt):
        rs = [r for r in rows if int(r["workers"]) == w and r["mode"] not in FIO_MODES]
        if not rs:
            return
        use_wait = any(num(r["lock_wait_share"]) is not None for r in rs)
        field = "lock_wait_share" if use_wait else "contention_share"
        modes = sorted({series_name(r, self.multi_prim, self.multi_host) for r in rs}, key=mode_key)
        drives = sorted({int(r["drives"]) for r in rs})
        val = {(series_name(r, self.multi_prim, self.multi_host), int(r["drives"])): num(r[field]) for r in rs}
        dat = os.path.join(self.out, name + ".dat")
        with open(dat, "w") as f:
            f.write("# %s: %s (%%) per mode; columns: mode, then one per drive count %s\n" % (jf, field, drives))
            for m in modes:
                f.write("\"%s\" %s\n" % (m, " ".join("%.6g" % (100 * val[(m, d)]) if val.get((m, d)) is not None
                                                     else "0" for d in drives)))
        if use_wait:
            what = "Lock wait share per mode, %d worker%s%s" % (w, "" if w == 1 else "s", vtxt)
            ylabel = "time waiting for locks / (workers × run time)  (%)"
        else:
            what = "Lock contention share per mode, %d worker%s%s" % (w, "" if w == 1 else "s", vtxt)
            ylabel = "contended acquisitions / acquisitions  (%)"
        body = self.title(what)
        body += "set ylabel '%s'\nset xlabel 'lock mode'\n" % gp_str(ylabel)
        body += "set style data histogram\nset style histogram clustered gap 1.5\n"
        body += "set style fill solid 0.85 border rgb '#333333'\nset boxwidth 0.9\n"
        body += "set key outside right top title 'drives' box lc rgb '#bbbbbb'\nset xtics nomirror\n"
        body += "set bmargin 5\n"
        src = "lockstat (rqlock.lockstat wait_ns)" if use_wait else \
            "no lockstat in this run's JSON: contentions / acquisitions instead"
        body += "set label 1 \"%s.fio; %s\" at screen 0.01, screen 0.02 left font ',9' tc rgb '#444444' noenhanced\n" % (
            jf, gp_str(src))
        shades = ["#9ecae1", "#6baed6", "#3182bd", "#08519c", "#08306b", "#252525"]
        top = max([100 * v for v in val.values() if v is not None] or [0])
        body += "set yrange [0:%g]\n" % (top * 1.18 if top > 0 else 1)
        plots = []
        n, gap = len(drives), 1.5
        for i, d in enumerate(drives):
            plots.append("'%s' using %d:xtic(1) lc rgb '%s' title '%d'" % (
                os.path.basename(dat), i + 2, shades[i % len(shades)], d))
        for i, d in enumerate(drives):
            plots.append("'' using ($0 + %g):%d:(sprintf('%%.2g', $%d)) with labels offset 0,0.7 font ',9' notitle" % (
                (i - (n - 1) / 2.0) / (n + gap), i + 2, i + 2))
        body += "plot " + ", \\\n     ".join(plots) + "\n"
        self.gnuplot(name, body)

    # hosts side by side: one scaling curve over machines with different cores
    def fleet_scaling(self, rows, mans):
        """<job>-fleet-scaling: IOPS against workers per core (or workers),
        one curve per host x mode, from every run given; at each W the
        point with the most drives.  Made when the rows come from more than
        one host or from hosts with different core counts."""
        cores = {r.get("cores") for r in rows}
        if len({r.get("host") for r in rows}) < 2 and len(cores) < 2:
            return
        vcols = sorted({k for r in rows for k in r if k.startswith("var_")})
        groups = {}
        for r in rows:
            if num(r.get("iops")) is None:
                continue
            k = (r["jobfile"], r["job"]) + tuple(r.get(v, "") for v in vcols)
            s = series_name(r, self.multi_prim, True)
            w, d = int(r["workers"]), int(r["drives"])
            cur = groups.setdefault(k, {}).setdefault(s, {}).get(w)
            if cur is None or d > int(cur["drives"]):
                groups[k][s][w] = r
        per_core = self.fleet_x == "per-core" or (self.fleet_x is None and len(cores) > 1)
        for k in sorted(groups, key=lambda k: tuple(natural(x) for x in k)):
            g = groups[k]
            jf, job = k[0], k[1]
            vtxt = "".join(", %s=%s" % (v[4:], x) for v, x in zip(vcols, k[2:]) if x)
            several = len({kk[2:] for kk in groups if kk[0] == jf}) > 1
            vsuf = "".join("-%s%s" % (v[4:].lower(), x) for v, x in zip(vcols, k[2:]) if x and several)
            jsuf = "" if len({kk[1] for kk in groups if kk[0] == jf}) == 1 else "-" + job
            name = "%s%s-fleet-scaling%s" % (jf, jsuf, vsuf)
            names = sorted(g, key=lambda s: (s.split(" on ", 1)[1], mode_key(s.split(" on ")[0])))
            dat = os.path.join(self.out, name + ".dat")
            xs = set()
            with open(dat, "w") as f:
                f.write("# %s (%s): IOPS against %s, one block per host x mode; columns: x W cores drives "
                        "IOPS fastest slowest\n" % (jf, job, "workers per core" if per_core else "workers"))
                for s in names:
                    host = s.split(" on ", 1)[1]
                    f.write("\n\n# %s (host %s)\n" % (s, host))
                    for w in sorted(g[s]):
                        r = g[s][w]
                        c = num(r.get("cores"))
                        x = w / c if per_core and c else w
                        xs.add(x)
                        v = num(r["iops"])
                        f.write("%.6g %d %s %s %.6g %.6g %.6g\n" % (
                            x, w, r.get("cores") or "?", r["drives"], v, num(r.get("iops_min")) or v,
                            num(r.get("iops_max")) or v))
            hosts = []
            for s in names:
                h = s.split(" on ", 1)[1]
                r = next(iter(g[s].values()))
                if (h, r.get("cores")) not in hosts:
                    hosts.append((h, r.get("cores")))
            what = "IOPS against %s, hosts side by side%s (%s)" % (
                "workers per core" if per_core else "workers", vtxt, job)
            sub = "hosts: " + ", ".join("%s (%s cores)" % hc for hc in hosts)
            body = "set title \"{/:Bold %s}\\n{/*0.85 %s}\"\n" % (gp_enh(what), gp_enh(sub))
            body += "set xlabel '%s'\nset ylabel 'IOPS (all drives of the host)'\n" % (
                "workers / cores (W over the CPUs of each host)" if per_core else "workers (W)")
            lo, hi = min(xs), max(xs)
            pad = max(0.1 * (hi - lo), 0.1 * hi, 0.05)
            body += "set xrange [%g:%g]\nset yrange [0:*]\nset mytics 2\nset format y '%%.0s%%c'\n" % (
                max(0, lo - pad), hi + pad)
            if not per_core:
                body += "set xtics (%s)\n" % ", ".join("'%g' %g" % (x, x) for x in sorted(xs))
            body += "set key outside right top vertical Left reverse noenhanced title 'mode on host' box lc rgb '#bbbbbb'\n"
            body += "set bmargin 5\n"
            note = "%s.fio; at each W the point with the most drives; runs %s" % (jf, ", ".join(sorted(mans)))
            body += "set label 1 \"%s\" at screen 0.01, screen 0.02 left font ',9' tc rgb '#444444' noenhanced\n" % (
                gp_str(note))
            plots = []
            for i, s in enumerate(names):
                mode = s.split(" on ")[0].split("/")[0]
                col = EXTRA_COLOURS[i % len(EXTRA_COLOURS)] if len(names) > len(MODE_ORDER) else \
                    (mode_style(mode) or (EXTRA_COLOURS[i % len(EXTRA_COLOURS)], 0))[0]
                if sum(1 for t in names if t.split(" on ")[0].split("/")[0] == mode) > 1:
                    col = EXTRA_COLOURS[i % len(EXTRA_COLOURS)]
                dash = 2 if mode in FIO_MODES else 1
                plots.append("'%s' index %d using 1:5:6:7 with yerrorlines lw 2 dt %d pt %d ps 1.3 lc rgb '%s' "
                             "title '%s'" % (os.path.basename(dat), i, dash, 5 + 2 * (i % 6), col, gp_str(s)))
            body += "plot " + ", \\\n     ".join(plots) + "\n"
            self.gnuplot(name, body, width=1000, height=560)

    # lock scaling: IOPS against workers at D = 1 and D = W ------------------
    def scaling(self):
        """<job>-scaling: for a run of `sweep --scaling` (points at D = 1 and
        D = W only), IOPS against workers, one curve per mode and primitive:
        colour by mode, line and point by primitive; two panels, D = 1 (all
        workers on one drive) and D = W (each worker its own drive)."""
        for jf in sorted({r["jobfile"] for r in self.rows}):
            rows = [r for r in self.rows if r["jobfile"] == jf]
            pairs = {(int(r["drives"]), int(r["workers"])) for r in rows}
            ws = sorted({w for _, w in pairs})
            if len(ws) < 2 or any(d not in (1, w) for d, w in pairs):
                continue
            vcols = sorted({k for r in rows for k in r if k.startswith("var_")})
            if any(len({r.get(v, "") for r in rows}) > 1 for v in vcols):
                continue        # one --var value per plot; more: not a scaling run
            modes = sorted({r["mode"] for r in rows}, key=mode_key)
            prims = sorted({r["primitive"] for r in rows})
            series = [(m, t) for m in modes for t in prims
                      if any(r["mode"] == m and r["primitive"] == t for r in rows)]
            dat = os.path.join(self.out, jf + "-scaling.dat")
            idx, pidx, pmodels = {}, {}, set()
            pred_ws = [w for w in (1, 2, 4, 8, 16, 32, 64) if w <= max(PREDICT_W, ws[-1])]
            with open(dat, "w") as f:
                f.write("# %s: IOPS against workers W; blocks per (panel, mode/primitive); "
                        "columns: W median fastest slowest\n" % jf)
                i = 0
                for panel in ("d1", "dw"):
                    for m, t in series:
                        pts = sorted((int(r["workers"]), num(r["iops"]), num(r.get("iops_min")), num(r.get("iops_max")))
                                     for r in rows if r["mode"] == m and r["primitive"] == t and
                                     int(r["drives"]) == (1 if panel == "d1" else int(r["workers"])) and
                                     num(r["iops"]) is not None)
                        f.write("\n\n# %s %s/%s\n" % (panel, m, t))
                        for w, v, lo, hi in pts:
                            f.write("%d %.6g %.6g %.6g\n" % (w, v, lo if lo is not None else v,
                                                              hi if hi is not None else v))
                        if not pts:
                            f.write("nan nan nan nan\n")
                        idx[(panel, m, t)] = i
                        i += 1
                        # the ceiling predicted from the measured holds and gaps, out to
                        # PREDICT_W: the model's line, and past the largest W measured its band
                        # (model.extrapolate_band: a waiter behind every release .. holds only)
                        ser = {int(r["workers"]): r for r in rows if r["mode"] == m and r["primitive"] == t and
                               int(r["drives"]) == (1 if panel == "d1" else int(r["workers"]))}
                        x1 = num((ser.get(1) or {}).get("iops"))
                        f.write("\n\n# %s %s/%s predicted from measured lock times: W IOPS band-low "
                                "band-high\n" % (panel, m, t))
                        if x1 is not None and any(num(r.get("hold_ns_per_io")) for r in ser.values()):
                            for w in pred_ws:
                                # at a measured W the band is the point; past it, low .. high
                                mid = model.predict_series(ser, w, x1)
                                lo, hi = ((mid, mid) if w in ser else
                                          (model.predict_series(ser, w, x1, "low"),
                                           model.predict_series(ser, w, x1, "high")))
                                f.write("%d %.6g %.6g %.6g\n" % (w, mid, lo, hi))
                            pidx[(panel, m, t)] = i
                            pmodels.add(model.name(ser[max(ser)]))
                        else:
                            f.write("nan nan nan nan\n")
                        i += 1
            ncpu = self.man.get("axes", {}).get("cpus_usable") or self.man["machine"].get("cpus")
            rt, reps = self.man["axes"]["runtime"], self.man["axes"]["repeat"]
            note = "%s.fio, %g s per point, median of %d (bars: fastest..slowest)%s" % (
                jf, rt, reps, self.dev_note(jf))
            if ncpu and int(ncpu) < 16:
                note += "; %s CPUs: the ticket-lock collapse and the global plateau need tens of cores" % ncpu
            dashes = {"ttas": 1, "ticket": 2, "mcs": 4, "mutex": 5}
            points = {"ttas": 7, "ticket": 5, "mcs": 9, "mutex": 13}
            # the note is the title's third line: the key takes the bottom margin
            body = "set multiplot layout 1,2 title \"{/:Bold Lock scaling: IOPS against workers, per mode and " \
                   "primitive}\\n{/*0.85 %s}\\n{/*0.7 %s}\" font ',12'\n" % (
                       gp_str(self.machine), gp_str(note).replace("_", "\\\\_").replace("{", "\\\\{")
                       .replace("}", "\\\\}").replace("@", "\\\\@").replace("^", "\\\\^"))
            body += "set xlabel 'workers (W, CPUs)'\nset ylabel 'IOPS (4 KiB random reads, all drives)'\n"
            xs = sorted(set(ws) | (set(pred_ws) if pidx else set()))
            body += "set xtics (%s)\n" % ", ".join("'%d' %d" % (w, w) for w in xs)
            body += "set xrange [%g:%g]\nset logscale y\nset format y '%%.0s%%c'\nset mytics 10\n" % (
                xs[0] * 0.8 if xs[0] > 1 else 0.8, xs[-1] * 1.2)
            if len(xs) > 2 and xs[-1] >= 4:
                body += "set logscale x 2\n"
            if pidx:
                body += "set arrow from %g, graph 0 to %g, graph 1 nohead dt 3 lc rgb '#888888'\n" % (
                    ws[-1] * 1.1, ws[-1] * 1.1)
                body += "set label 'measured | predicted, model %s (dashed)' at %g, graph 0.96 center " \
                        "font ',8' tc rgb '#555555'\n" % (" / ".join(sorted(pmodels)), ws[-1] * 1.1)
                body += "set label 'band: a waiter behind every release .. holds only' at %g, graph 0.92 left " \
                        "font ',8' tc rgb '#555555'\n" % (ws[-1] * 1.1)
            # one key, under the left panel (the same curves are in both); the note below it
            body += "set bmargin %d\nset key outside bottom center horizontal maxrows %d noenhanced font ',9'\n" % (
                5 + len(prims), max(1, len(prims)))
            for panel, title in (("d1", "D = 1: every worker on one drive"),
                                 ("dw", "D = W: each worker its own drive")):
                body += "set title '%s'\n" % title
                plots = []
                for m, t in series:
                    col = (mode_style(m) or (EXTRA_COLOURS[modes.index(m) % len(EXTRA_COLOURS)], 0))[0]
                    plots.append("'%s' index %d using 1:2:3:4 with yerrorlines lw 2 dt %d pt %d ps 1.1 "
                                 "lc rgb '%s' title '%s/%s'" % (
                                     os.path.basename(dat), idx[(panel, m, t)], dashes.get(t, 3),
                                     points.get(t, 11), col, m, t))
                first = True
                for m, t in series:
                    if (panel, m, t) not in pidx:
                        continue
                    col = (mode_style(m) or (EXTRA_COLOURS[modes.index(m) % len(EXTRA_COLOURS)], 0))[0]
                    # the band only past the largest W measured (below it, both ends are the line)
                    plots.append("'%s' index %d using 1:($1 >= %d ? $3 : NaN):($1 >= %d ? $4 : NaN) "
                                 "with filledcurves fs transparent solid 0.12 noborder lc rgb '%s' %s" % (
                                     os.path.basename(dat), pidx[(panel, m, t)], ws[-1], ws[-1], col,
                                     "title 'band past W=%d'" % ws[-1] if first else "notitle"))
                    plots.append("'%s' index %d using 1:2 with lines lw 1 dt (6,4) lc rgb '%s' %s" % (
                        os.path.basename(dat), pidx[(panel, m, t)], col,
                        "title 'predicted (dashed)'" if first else "notitle"))
                    first = False
                body += "plot " + ", \\\n     ".join(plots) + "\n"
                body += "unset key\n"
            body += "unset multiplot\n"
            self.gnuplot(jf + "-scaling", body, width=1300, height=700)

    # floppy-vs-disk ---------------------------------------------------------------
    def floppy(self):
        rs = [r for r in self.rows if r["job"].startswith("disk") and ("idle" in r["job"] or "busy" in r["job"])]
        if not rs:
            return
        for jf in sorted({r["jobfile"] for r in rs}):
            rj = [r for r in rs if r["jobfile"] == jf]
            workers = sorted({int(r["workers"]) for r in rj})
            w = self.want_workers if self.want_workers in workers else workers[-1]
            rj = [r for r in rj if int(r["workers"]) == w]
            # a --var axis (the quickstart's DRIVER=sync,2.4): a bar group per value
            vmulti = sorted(k for k in {k for r in rj for k in r if k.startswith("var_")}
                            if len({r.get(k, "") for r in rj}) > 1)

            def name_of(r):
                return series_name(r, self.multi_prim, self.multi_host) + "".join(
                    " %s=%s" % (v[4:], r.get(v, "")) for v in vmulti)
            modes = sorted({name_of(r) for r in rj}, key=mode_key)
            val = {}
            for r in rj:
                kind = "idle" if "idle" in r["job"] else "busy"
                val[(name_of(r), kind)] = r
            modes = [m for m in modes if (m, "idle") in val and (m, "busy") in val]
            if not modes:
                continue
            name = jf if jf == "floppy-vs-disk" else jf + "-floppy"
            dat = os.path.join(self.out, name + ".dat")
            with open(dat, "w") as f:
                f.write("# mode, disk p99 idle (us), busy (us), IOPS idle, busy, p99 busy/idle\n")
                for m in modes:
                    pi, pb = p99_of(val[(m, "idle")]), p99_of(val[(m, "busy")])
                    ii, ib = num(val[(m, "idle")]["iops"]), num(val[(m, "busy")]["iops"])
                    f.write("\"%s\" %.6g %.6g %.6g %.6g %.6g\n" % (m, pi, pb, ii, ib, pb / pi if pi else 0))
            b = os.path.basename(dat)
            body = "set multiplot layout 1,2 title \"{/:Bold Floppy versus disk: the disk job with the floppy " \
                   "idle and busy, %d worker%s}\\n{/*0.85 %s}\" font ',12'\n" % (w, "" if w == 1 else "s",
                                                                             gp_str(self.machine))
            body += "set style data histogram\nset style histogram clustered gap 1.2\n"
            body += "set style fill solid 0.85 border rgb '#333333'\nset boxwidth 0.9\n"
            body += "set logscale y\nset format y '%g'\nset mytics 10\nset xtics nomirror rotate by -25\n"
            body += "set key above horizontal box lc rgb '#bbbbbb' title 'floppy:'\nset xlabel 'lock mode'\n"
            body += "set bmargin 6\n"
            body += "set title 'disk p99 latency (busy/idle ratio above)'\nset ylabel 'p99 latency (µs, %s)'\n" % (
                "intended: from the rate schedule" if all(num(r.get("int_p99_us")) for r in rj) else self.lat_kind(rj))
            p99s = [p99_of(val[(m, k)]) for m in modes for k in ("idle", "busy")]
            iops = [num(val[(m, k)]["iops"]) for m in modes for k in ("idle", "busy")]
            body += "set yrange [%g:%g]\n" % decades(p99s, 4)
            body += ("plot '%s' using 2:xtic(1) lc rgb '#74c476' title 'idle', '' using 3 lc rgb '#e6550d' "
                     "title 'busy', '' using 0:($3*1.25):(sprintf('%%.2f×', $6)) with labels font ',10' "
                     "notitle\n" % b)
            body += "set title 'disk IOPS'\nset ylabel 'IOPS (4 KiB random reads, QD 16)'\n"
            body += "set yrange [%g:%g]\nset format y '%%.0s%%c'\n" % decades(iops, 2)
            body += "plot '%s' using 4:xtic(1) lc rgb '#74c476' title 'idle', '' using 5 lc rgb '#e6550d' " \
                    "title 'busy'\n" % b
            body += "unset multiplot\n"
            devs = self.man.get("devices", {})
            note = "%s.fio, %g s per group, median of %d; rqlock devices: disk %s, floppy %s; fio-kernel: " \
                   "loop devices" % (jf, self.man["axes"]["runtime"], self.man["axes"]["repeat"],
                                     devs.get("DISK", "?").replace("{n}", "0"),
                                     devs.get("FLOPPY", "?").replace("{n}", "0"))
            # a label set before the first plot of the multiplot is drawn with it
            body = body.replace("set style data histogram", "set label 1 \"%s\" at screen 0.01, screen 0.02 "
                                "left font ',9' tc rgb '#444444' noenhanced\nset style data histogram" % gp_str(note), 1)
            self.gnuplot(name, body, width=1100, height=560)


def p99_of(r):
    """The disk's p99 as compare judges it: intended (from the rate schedule,
    where a stall cannot hide) when the job is rate-limited, else fio's."""
    v = num(r.get("int_p99_us"))
    return v if v is not None else num(r.get("lat_p99_us"))


def natural(x):
    """Sort key: numbers by value, before strings."""
    try:
        return (0, float(x), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(x))


def decades(vals, head):
    """A log-scale range: a decade under the smallest value, head x over the largest."""
    vs = [v for v in vals if v and v > 0]
    if not vs:
        return (0.1, 10)
    return (10 ** (math.floor(math.log10(min(vs))) - 1), max(vs) * head)


def gp_enh(s):
    """A string for an enhanced-text gnuplot label: gp_str, and the
    characters enhanced text would take as markup escaped."""
    out = gp_str(s)
    for ch in "_^@{}&~":
        out = out.replace(ch, "\\\\" + ch)
    return out


def gp_str(s):
    return str(s).replace("\\", "\\\\").replace("\"", "\\\"").replace("'", "’")


BIN_NS = 10 * 1000 * 1000	# the timeline's bins: 10 ms


def timeline_data(csv_path, disk_job="disk-busy-floppy", floppy_job="floppy"):
    """From rqlock run --timeline CSV: per 10 ms bin of the disk job, its
    completions (IOPS) and the p99 of the intended latency of the I/Os due
    in the bin; and the floppy's submissions [start, issue] (under
    driver=sync its lock holds).  Times in ms from the disk job's first due."""
    import csv as _csv
    disk, holds = [], []
    with open(csv_path) as f:
        for r in _csv.DictReader(x for x in f if not x.startswith("#")):
            if r["job"] == disk_job:
                due = int(r["due_ns"]) if r["due_ns"] else int(r["start_ns"])
                disk.append((due, int(r["done_ns"])))
            elif r["job"] == floppy_job:
                holds.append((int(r["start_ns"]), int(r["issue_ns"])))
    if not disk:
        return None
    t0 = min(d for d, _ in disk)
    nb = int((max(max(x for _, x in disk), max(d for d, _ in disk)) - t0) // BIN_NS) + 1
    done = [0] * nb
    lats = [[] for _ in range(nb)]
    for due, dn in disk:
        done[(dn - t0) // BIN_NS] += 1
        lats[(due - t0) // BIN_NS].append(dn - due)
    rows = []
    for b in range(nb):
        ls = sorted(lats[b])
        p99 = ls[min(len(ls) - 1, int(0.99 * len(ls)))] if ls else None
        rows.append((b * BIN_NS / 1e6, done[b] * 1e9 / BIN_NS, p99 / 1e3 if p99 is not None else None))
    return rows, [((a - t0) / 1e6, (b - t0) / 1e6) for a, b in holds if b >= t0]


def timeline_check(csv_path, capacity=None):
    """The analytic expectation beside the measurement, from one timeline:
    s = the floppy's submission (under driver=sync: lock-hold) share of the
    disk job's span; a disk I/O is due inside a hold with probability s and
    then waits the hold's residual, H/2 on average (H the mean hold).
    Measured: the share of disk I/Os due inside a hold, their mean intended
    latency above the floppy-idle group's median, and the share of all disk
    I/Os whose intended latency exceeds the idle group's p99 (predicted s,
    or s x C / (C - R) with the catch-up when the disk's capacity C is
    given).  Returns a dict."""
    import bisect
    import csv as _csv
    idle, busy, holds = [], [], []
    with open(csv_path) as f:
        first = f.readline()
        mode = first.split("lock=")[1].split()[0] if first.startswith("#") and "lock=" in first else None
        f.seek(0)
        for r in _csv.DictReader(x for x in f if not x.startswith("#")):
            if r["job"] == "floppy":
                holds.append((int(r["start_ns"]), int(r["issue_ns"])))
            elif r["job"] in ("disk-idle-floppy", "disk-busy-floppy") and r["due_ns"]:
                (idle if "idle" in r["job"] else busy).append((int(r["due_ns"]), int(r["done_ns"])))
    if not busy or not idle:
        return None
    holds.sort()
    t0, t1 = min(d for d, _ in busy), max(d for d, _ in busy)
    span = max(t1 - t0, 1)
    held = sum(min(b, t1) - max(a, t0) for a, b in holds if b > t0 and a < t1)
    s = held / span
    # only under global do the floppy and the disk share a lock
    s_lock = s if mode is None or registry.has_flag(mode, "shared_lock") else 0.0
    H = sum(b - a for a, b in holds) / len(holds) if holds else 0
    il = sorted(dn - d for d, dn in idle)
    med, p99 = il[len(il) // 2], il[min(len(il) - 1, int(0.99 * len(il)))]
    starts = [a for a, _ in holds]
    landing, extra = 0, []
    for d, dn in busy:
        i = bisect.bisect_right(starts, d) - 1
        if i >= 0 and holds[i][0] <= d < holds[i][1]:
            landing += 1
            extra.append((dn - d) - med)
    delayed = sum(1 for d, dn in busy if dn - d > p99) / len(busy)
    rate = len(busy) * 1e9 / span
    fq = s_lock * capacity / (capacity - rate) if capacity and capacity > rate else None
    return {"mode": mode or "?", "s": s, "s_lock": s_lock, "H_ms": H / 1e6, "landing": landing / len(busy),
            "wait_pred_ms": H / 2e6 if s_lock else 0.0,
            "wait_meas_ms": (sum(extra) / len(extra) / 1e6) if extra else None,
            "idle_p99_ms": p99 / 1e6, "delayed": delayed, "delayed_pred": fq if fq is not None else s_lock,
            "rate": rate}


def _agree(pred, meas, tol=0.005):
    """Within +-30 % of the prediction, or within @tol of it when it is ~0."""
    if pred is None or meas is None:
        return "-"
    return "yes" if abs(meas - pred) <= max(0.3 * pred, tol) else "NO"


def timeline_plot(csvs, out, title=""):
    """One panel per CSV: disk IOPS and intended p99 per 10 ms, floppy holds shaded."""
    os.makedirs(out, exist_ok=True)
    body, n = "", len(csvs)
    for i, path in enumerate(csvs):
        d = timeline_data(path)
        if d is None:
            die("%s: no disk-busy-floppy records (rqlock run --timeline FILE jobs/floppy-vs-disk.fio)" % path)
        rows, holds = d
        stem = os.path.splitext(os.path.basename(path))[0]
        dat = os.path.join(out, "timeline-%s.dat" % stem)
        with open(dat, "w") as f:
            f.write("# t_ms iops intended_p99_us\n")
            for t, iops, p in rows:
                f.write("%.1f %.0f %s\n" % (t, iops, "%.1f" % p if p is not None else "NaN"))
        body += "set title \"{/:Bold %s}\"\n" % gp_str(stem)
        body += "unset object\n"
        for k, (a, b) in enumerate(holds):
            w = max(b - a, 0.5)
            body += ("set object %d rect from %.2f, graph 0 to %.2f, graph 1 fc rgb '#f4a582' "
                     "fs solid 0.5 noborder behind\n" % (k + 1, a, a + w))
        body += ("set xlabel 'time (ms); shaded: the floppy submissions (driver=sync: its lock holds)'\nset ylabel 'disk IOPS'\n"
                 "set y2label 'disk intended p99 (us)'\nset logscale y2\nset ytics nomirror\nset y2tics\n"
                 "set key top left\nplot '%s' using 1:2 with steps lw 1.5 lc rgb '#2166ac' title 'IOPS per 10 ms', "
                 "'' using 1:3 axes x1y2 with points pt 7 ps 0.4 lc rgb '#b2182b' title 'intended p99 per 10 ms'\n"
                 % (os.path.basename(dat)))
    gp = os.path.join(out, "timeline.gp")
    made = []
    with open(gp, "w") as f:
        f.write("# made by scripts/plot --timeline; run: gnuplot timeline.gp (in this directory)\n")
        for term, name in (("pngcairo size 1100,%d enhanced font '%s'" % (330 * n, FONT), "timeline.png"),
                           ("svg size 1100,%d dynamic enhanced font '%s' background '#ffffff'" % (330 * n, FONT),
                            "timeline.svg")):
            f.write("reset\nset terminal %s\nset output '%s'\nset multiplot layout %d,1 title '%s'\n"
                    % (term, name, n, gp_str(title)))
            f.write("set grid ytics lc rgb '#dddddd'\n" + body + "unset multiplot\nunset output\n")
            made.append(os.path.join(out, name))
    p = subprocess.run(["gnuplot", "timeline.gp"], cwd=out, capture_output=True, text=True)
    if p.returncode != 0:
        die("gnuplot failed on %s:\n%s" % (gp, p.stderr), 1)
    return made


def parser(prog=None):
    """The command line (also read by manpage.py)."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", metavar="RUN", nargs="*",
                    help="one run, or several: their rows are merged (hosts side by side, <job>-fleet-scaling)")
    ap.add_argument("--capacity", type=float, metavar="IOPS",
                    help="with --timeline: the disk's capacity C, for the catch-up prediction s x C / (C - R)")
    ap.add_argument("--timeline", action="append", metavar="CSV",
                    help="instead of a run: the disk's IOPS and intended p99 per 10 ms with the floppy's "
                    "lock holds marked, one panel per `rqlock run --timeline CSV jobs/floppy-vs-disk.fio` "
                    "(repeatable; written to --out, default the current directory)")
    ap.add_argument("--out", help="output directory (default RUN/plots)")
    ap.add_argument("--workers", type=int, help="the worker count of the against-drives plots (default: the most)")
    ap.add_argument("--fleet-x", choices=["workers", "per-core"],
                    help="the x axis of <job>-fleet-scaling: workers, or workers per core (default: per-core when "
                    "the hosts' core counts differ)")
    return ap


def main(argv=None, prog=None):
    prog = prog or store.rel(sys.argv[0])
    a = parser(prog).parse_args(argv)
    if a.timeline:
        if not shutil.which("gnuplot"):
            print("SKIP: gnuplot is not installed (apt-get install gnuplot-nox)")
            return 77
        for c in a.timeline:
            if not os.path.isfile(c):
                die("--timeline %s: no such file" % c)
        for f in timeline_plot(a.timeline, os.path.abspath(a.out or "."), "floppy vs disk"):
            print(os.path.relpath(f))
        print("prediction beside measurement (s: the floppy's hold share, H: its mean hold; a disk I/O is due "
              "in a hold with probability s and waits H/2 on average; delayed: intended latency above the "
              "floppy-idle p99; agree: within +-30 %)")
        head = ["timeline", "lock", "s", "H (ms)", "due in a hold", "agree", "wait pred (ms)", "wait meas (ms)", "agree",
                "idle p99 (ms)", "delayed pred", "delayed meas", "agree"]
        body = []
        for c in a.timeline:
            k = timeline_check(c, a.capacity)
            if not k:
                continue
            body.append([os.path.splitext(os.path.basename(c))[0], k["mode"], "%.2f%%" % (100 * k["s"]), "%.1f" % k["H_ms"],
                         "%.2f%%" % (100 * k["landing"]), _agree(k["s"], k["landing"], 0.001),
                         "%.1f" % k["wait_pred_ms"],
                         "%.1f" % k["wait_meas_ms"] if k["wait_meas_ms"] is not None else "-",
                         _agree(k["wait_pred_ms"], k["wait_meas_ms"], 1.0) if k["s"] > 0.001 else "-",
                         "%.1f" % k["idle_p99_ms"], "%.2f%%" % (100 * k["delayed_pred"]),
                         "%.2f%%" % (100 * k["delayed"]), _agree(k["delayed_pred"], k["delayed"])])
        w = [max(len(str(x)) for x in col) for col in zip(head, *body)]
        for r in [head] + body:
            print("  ".join(str(x).rjust(w[i]) if i else str(x).ljust(w[i]) for i, x in enumerate(r)))
        return 0
    if not a.run:
        die("give a RUN (or --timeline CSV)")
    try:
        runs = [store.resolve_run(r) for r in a.run]
        rows, mans = store.load_runs(runs, summarize=sweep.summarize)
        run = runs[0]
        man = store.load_manifest(run)
    except store.StoreError as e:
        die(str(e))
    if not rows:
        die("%s has no finished point" % " ".join(runs))
    if not shutil.which("gnuplot"):
        print("SKIP: gnuplot is not installed (apt-get install gnuplot-nox)")
        return 77
    out = os.path.abspath(a.out or os.path.join(run, "plots"))
    os.makedirs(out, exist_ok=True)
    # the per-run plots draw the first run; <job>-fleet-scaling every run's hosts
    p = Plotter(run, out, man, [r for r in rows if r["run"] == man["id"]])
    p.want_workers = a.workers
    p.fleet_x = a.fleet_x
    p.drive_worker_plots()
    p.scaling()
    p.floppy()
    p.fleet_scaling(rows, mans)
    if not p.made:
        die("nothing to plot: the run has no drive or worker axis and no floppy-vs-disk job")
    for f in p.made:
        print(os.path.relpath(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
