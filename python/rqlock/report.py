"""report: one self-contained HTML page of a run of sweep, or of two.

Usage: rqlock report [--output FILE] RUN [RUN_B]   (or scripts/report, the same)

RUN is a run directory or an id under results/runs/.  Writes one HTML file
(default RUN/report.html; with RUN_B, RUN_B/report-vs-A.html, A the first
run's id) and prints its path.  The page holds:

  the run       its machine (host, CPUs, kernel), git revision, budget
                (runtime x repeats, wall time), modes, primitives, devices,
                and the noise it measured (repeats' spread, the floppy-idle
                noise floor, load from elsewhere, steal, CPU clock spread)
  B against A   with RUN_B: per job file, job, mode, D and W, the ratio
                B / A of IOPS and p99 with its 90 % bootstrap interval,
                "changed" only beyond both runs' noise (verdict.judge_change)
  experiments   per job file of the run: the question it asks (its first
                line), compare's verdict tables (met / NOT met /
                inconclusive against the noise floor) and prediction
                tables, the IOPS and p99 tables with intervals, the plots
                of rqlock plot inline as SVG (the timeline of
                `rqlock run --timeline` too, where RUN/plots has it), and
                lockstat per mode: wait and hold per lock class and who
                held the lock while others waited

The page needs no network: no address, script or font from elsewhere, its
style inline, the plots' SVG embedded (RUN/plots when rqlock plot made them
after the run's last summary, else drawn into a temporary directory; the
run is not changed).  Without gnuplot the page says it has no plots.
Exit 0, 2 on bad input (one line naming it; nothing written).
"""
import argparse
import contextlib
import datetime
import glob
import html
import io
import json
import os
import re
import shutil
import sys
import tempfile

from . import compare, metrics, plot, store, sweep, verdict
from .metrics import BY_KEY, human, num

CHANGE_METRICS = ["iops", "p99", "ip99"]
TABLE_METRICS = "iops,p99,ip99"


class Bad(Exception):
    """Bad input: the message names it."""


# ---------------------------------------------------------------------------
# HTML
_URL = re.compile(r"(?i)\b(https?):(?=//)")


def esc(s):
    """Text for HTML; an address in it (a note, a path) is written with its
    colon as a character reference, so the file names no network address
    while the page shows the text as it is."""
    return _URL.sub(r"\1&#58;", html.escape(str(s), quote=True))


def cell_class(c):
    """The class of a table cell from the verdict it states, or None."""
    c = str(c)
    if "NOT met" in c:
        return "v-not"
    if c.startswith("inconclusive") or ": inconclusive" in c:
        return "v-inc"
    if c == verdict.MET or c.endswith(": met"):
        return "v-met"
    if c.startswith(verdict.UNCHANGED):
        return "v-same"
    if c.startswith(verdict.CHANGED):
        return "v-chg"
    return None


def numeric(c):
    return bool(re.match(r"^[-+]?[\d.]+", str(c).strip()))


class Html:
    """compare.Out's interface (heading, para, table, render) writing HTML,
    so compare's sections render into the page unchanged.  table() takes
    any keyword: notes / footnotes (a string or a list) go under the table
    as footnotes, caption / title above it; others are ignored.  A method
    compare may call that this class does not know renders its text
    arguments as paragraphs."""

    def __init__(self, kind=""):
        self.parts = []
        self.kind = kind          # the class every table gets: what the report's test looks for
        self.verdicts = {}        # verdict class -> cells
        self.ntables = 0

    def heading(self, s, level=2, **kw):
        self.parts.append("<h%d>%s</h%d>" % (min(level + 2, 6), esc(s), min(level + 2, 6)))

    def para(self, s, **kw):
        self.parts.append("<p>%s</p>" % esc(s).replace("\n", "<br>"))
        self._notes(kw)

    def raw(self, s):
        self.parts.append(s)

    def _notes(self, kw):
        notes = []
        for k in ("notes", "footnotes", "note", "footnote"):
            v = kw.get(k)
            if isinstance(v, str):
                notes.append(v)
            elif isinstance(v, (list, tuple)):
                notes += [str(x) for x in v]
        if notes:
            self.parts.append('<ol class="notes">%s</ol>' % "".join("<li>%s</li>" % esc(n) for n in notes))

    def table(self, head, body, **kw):
        self.ntables += 1
        cap = kw.get("caption") or kw.get("title")
        facts = kw.get("facts")         # a two-column table of facts: text, left-aligned, wrapped
        t = ['<div class="scroll"><table class="%s">' % esc(" ".join(x for x in ("t", self.kind, "facts" if facts
                                                                                 else "") if x))]
        if cap:
            t.append("<caption>%s</caption>" % esc(cap))
        t.append("<thead><tr>%s</tr></thead><tbody>" % "".join("<th>%s</th>" % esc(h) for h in head))
        for r in body:
            cells = []
            for i, c in enumerate(r):
                cls = [x for x in (cell_class(c), "num" if i and not facts and numeric(c) else None) if x]
                if cell_class(c):
                    self.verdicts.setdefault(cell_class(c), []).append(str(c))
                cells.append("<td%s>%s</td>" % (' class="%s"' % " ".join(cls) if cls else "", esc(c)))
            t.append("<tr>%s</tr>" % "".join(cells))
        t.append("</tbody></table></div>")
        self.parts.append("".join(t))
        self._notes(kw)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def any_text(*args, **kw):
            for a in args:
                if isinstance(a, str):
                    self.para(a)
            self._notes(kw)
        return any_text

    def render(self):
        return "\n".join(self.parts) + "\n"


STYLE = """
body { font: 14px/1.45 "DejaVu Sans", sans-serif; color: #222; margin: 1.5em auto; max-width: 1400px;
       padding: 0 1em; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { border-bottom: 2px solid #ccc; margin-top: 2em; }
h3, h4 { margin: 1.4em 0 .4em; } p { max-width: 100ch; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .5em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 7px; text-align: left; white-space: nowrap; }
th { background: #f2f2f2; white-space: normal; vertical-align: bottom; }
table.facts td { white-space: normal; max-width: 110ch; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.v-met { background: #e3f4e1; } td.v-not { background: #fadcdc; font-weight: bold; }
td.v-inc { background: #fff3cd; } td.v-chg { background: #dde8fb; font-weight: bold; } td.v-same { color: #555; }
ol.notes { font-size: 12px; color: #444; max-width: 100ch; }
figure.plot { margin: 1em 0; max-width: 1100px; } figure.plot svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 12px; color: #555; }
nav ul { columns: 2; } .q { font-style: italic; } .muted { color: #666; }
"""


# ---------------------------------------------------------------------------
# SVG: gnuplot's files, made fit to sit inside the page
def inline_svg(text, prefix, name):
    """gnuplot's SVG as an element of the page: no XML prolog, DOCTYPE or
    comments; no namespace declarations (HTML5 parses inline SVG without
    them) and xlink:href as href; every id (gnuplot gives each plot the
    same gpPt0.., gnuplot_canvas) prefixed, with the references to it, so
    plots cannot take each other's markers or clip paths; no attribute
    naming a network address; an address left in text written as esc()
    does.  Returns the <svg> element, or None when there is none."""
    text = re.sub(r"<\?xml.*?\?>", "", text, flags=re.S)
    text = re.sub(r"<!DOCTYPE[^\[>]*(\[.*?\])?\s*>", "", text, flags=re.S | re.I)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    i, j = text.find("<svg"), text.rfind("</svg>")
    if i < 0 or j < 0:
        return None
    text = text[i:j + len("</svg>")]
    text = re.sub(r"""\s+xmlns(:[\w.-]+)?\s*=\s*("[^"]*"|'[^']*')""", "", text)
    text = text.replace("xlink:href", "href")
    text = re.sub(r"""(\sid\s*=\s*["'])""", r"\1" + prefix, text)
    text = re.sub(r"""(\shref\s*=\s*["'])#""", r"\1#" + prefix, text)
    text = re.sub(r"url\(\s*#", "url(#" + prefix, text)
    text = re.sub(r"""\s[\w:.-]+\s*=\s*("\s*https?://[^"]*"|'\s*https?://[^']*')""", "", text, flags=re.I)
    text = _URL.sub(r"\1&#58;", text)
    text = re.sub(r"<title>[^<]*</title>", "<title>%s</title>" % esc(name), text, count=1)
    return text.replace("<svg", '<svg data-plot="%s" role="img" aria-label="%s"' % (esc(name), esc(name)), 1)


class Plots:
    """The SVG plots of one run: RUN/plots when rqlock plot made them after
    the run's summary.csv was written, else drawn into a temporary
    directory; the timeline from RUN/plots (timeline.svg, else its CSVs)."""

    def __init__(self, run_dir, man, tmp):
        self.run, self.man, self.notes = run_dir, man, []
        self.svgs = {}            # name -> path
        pd = os.path.join(run_dir, "plots")
        made = sorted(glob.glob(os.path.join(pd, "*.svg")))
        summ = os.path.join(run_dir, "summary.csv")
        t0 = os.path.getmtime(summ) if os.path.exists(summ) else 0
        ours = [p for p in made if os.path.basename(p) != "timeline.svg"]
        gp = shutil.which("gnuplot")
        if ours and all(os.path.getmtime(p) >= t0 for p in ours):
            src = ours
        elif gp:
            out = os.path.join(tmp, "plots-" + man["id"])
            os.makedirs(out, exist_ok=True)
            code = quiet(plot.main, [run_dir, "--out", out])
            if code != 0:
                self.notes.append("rqlock plot %s failed (exit %s): this run's plots are missing" % (man["id"], code))
            src = sorted(glob.glob(os.path.join(out, "*.svg")))
        else:
            src = []
            self.notes.append("gnuplot is not installed (apt-get install gnuplot-nox): no plots")
        for p in src:
            self.svgs[os.path.splitext(os.path.basename(p))[0]] = p
        self.csvs = timeline_csvs(pd)
        tl = os.path.join(pd, "timeline.svg")
        if os.path.exists(tl):
            self.svgs["timeline"] = tl
        elif self.csvs and gp:
            out = os.path.join(tmp, "timeline-" + man["id"])
            os.makedirs(out, exist_ok=True)
            code = quiet(plot.timeline_plot, self.csvs, out, "floppy vs disk")
            if code is None and os.path.exists(os.path.join(out, "timeline.svg")):
                self.svgs["timeline"] = os.path.join(out, "timeline.svg")
            else:
                self.notes.append("the timeline could not be drawn from %s" % ", ".join(
                    os.path.basename(c) for c in self.csvs))

    def of(self, jobfile):
        """The plots of a job file: <jobfile>.svg and <jobfile>-*.svg."""
        return [n for n in sorted(self.svgs) if n == jobfile or n.startswith(jobfile + "-")]


def quiet(f, *args):
    """f(*args) with its stdout (the files plot prints) kept off ours; its
    exit status when it exits (plot's die()), else None."""
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            r = f(*args)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    return r if isinstance(r, int) else None


def timeline_csvs(pd):
    """The `rqlock run --timeline` CSVs in a run's plots/ (their first line says so)."""
    out = []
    for c in sorted(glob.glob(os.path.join(pd, "*.csv"))):
        try:
            with open(c) as f:
                if f.readline().startswith("# rqlock --timeline"):
                    out.append(c)
        except OSError:
            pass
    return out


def figure(out, plots, name, run_id, seq):
    try:
        with open(plots.svgs[name]) as f:
            svg = inline_svg(f.read(), "p%d-" % seq, name)
    except OSError as e:
        out.para("%s: cannot read %s (%s)" % (name, plots.svgs[name], e))
        return
    if svg is None:
        out.para("%s: %s holds no SVG" % (name, plots.svgs[name]))
        return
    out.raw('<figure class="plot" id="fig-%s-%s">%s<figcaption>%s (run %s; PNG, data and gnuplot script: '
            'RUN/plots/%s.*, rqlock plot RUN)</figcaption></figure>' % (
                esc(run_id), esc(name), svg, esc(name), esc(run_id), esc(name)))


# ---------------------------------------------------------------------------
# what the run holds
def question(run_dir, jobfile):
    """The question a job file asks: its first comment line after "NAME.fio - "."""
    for p in (os.path.join(run_dir, "jobs", jobfile + ".fio"), os.path.join(store.jobs_dir(), jobfile + ".fio")):
        try:
            with open(p) as f:
                first = f.readline().strip()
        except OSError:
            continue
        first = first.lstrip(";#").strip()
        return first.split(" - ", 1)[1] if " - " in first else first
    return None


def spread(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return max(xs) / min(xs) if len(xs) > 1 else None


def run_noise(rows, column):
    """A run's repeat spread of a metric: per point, its largest over its
    smallest repeat; (median over the points, largest, points) or None."""
    sp = sorted(s for s in (spread(metrics.reps(r, column)) for r in rows) if s is not None)
    if not sp:
        return None
    return sp[len(sp) // 2], sp[-1], len(sp)


def floppy_noise(rows):
    """{workers: the floppy-idle p99 noise floor}: the largest over the
    smallest p99 of the disk with the floppy idle, of every mode and repeat
    (the noise floor compare's floppy table judges against)."""
    out = {}
    for w in sorted({int(r["workers"]) for r in rows}):
        idle = [r for r in rows if r["job"].startswith("disk") and "idle" in r["job"] and int(r["workers"]) == w
                and r["mode"] not in compare.FIO_MODES]
        groups = [compare._reps_or_median(r, "int_p99_us") for r in idle]
        if not any(x is not None for g in groups for x in g):
            groups = [compare._reps_or_median(r, "lat_p99_us") for r in idle]
        n = verdict.ratio_noise(groups)
        if n is not None:
            out[w] = n
    return out


def wall_time(run_dir):
    """Seconds the run's points took (their meta files' wall_s), and how many."""
    tot, n = 0.0, 0
    for p in glob.glob(os.path.join(run_dir, "json", "*.meta.json")):
        try:
            with open(p) as f:
                tot += float(json.load(f).get("wall_s") or 0)
            n += 1
        except (OSError, ValueError, TypeError):
            pass
    return tot, n


def header(out, run_dir, man, rows):
    m, g, ax = man.get("machine") or {}, man.get("git") or {}, man.get("axes") or {}
    out.heading("run %s" % man["id"], level=0)
    wall, npts = wall_time(run_dir)
    budget = "%s s per point x %s repeats" % (ax.get("runtime"), ax.get("repeat"))
    if ax.get("budget"):
        budget = "budget %s s: " % ax["budget"] + budget
    if npts:
        budget += "; %d runs, %.0f s of running" % (npts, wall)
    rq = man.get("rqlock") or {}
    facts = [
        ("machine", "%s: %s CPUs (%s)%s" % (m.get("hostname"), m.get("cpus"), m.get("cpu_model") or "?",
                                            ", %s memory" % m["memory"] if m.get("memory") else "")),
        ("kernel", "Linux %s %s" % (m.get("kernel"), m.get("os") or "")),
        ("CPUs the sweep used", str(ax.get("cpus_usable") or m.get("cpus"))),
        ("git revision", "%s%s" % (g.get("revision") or "?",
                                   " (dirty: uncommitted changes)" if g.get("dirty") else "")),
        ("rqlock", "%s (%s)" % (rq.get("version"), rq.get("path")) if rq else "-"),
        ("fio", str((man.get("fio") or {}).get("version") or "not installed")),
        ("started, finished", "%s, %s (%s)" % (man.get("created", "?"), man.get("finished", "-"),
                                                man.get("status", "status not recorded"))),
        ("budget", budget),
        ("job files", ", ".join(j.get("copy") or j.get("path") for j in man.get("jobfiles", []))),
        ("modes", ", ".join(man.get("modes", []))),
        ("modes not run", "; ".join("%s: %s" % kv for kv in sorted((man.get("modes_unavailable") or {}).items()))
         or "none"),
        ("lock primitives", ", ".join(man.get("lock_types") or ["ttas"])),
        ("devices", "; ".join("%s=%s" % kv for kv in sorted((man.get("devices") or {}).items())) or "-"),
        ("drives, workers", "D = %s; W = %s%s" % (ax.get("drives"), ax.get("workers"),
                                                  " (pairs: %s)" % ax["pairs"] if ax.get("pairs") else "")),
        ("command", " ".join(man.get("command") or [])),
    ]
    for k, v in sorted((ax.get("vars") or {}).items()):
        facts.append(("--var %s" % k, ",".join(v)))
    out.table(["", "run %s" % man["id"]], facts, facts=True)
    for n in man.get("notes", []):
        out.para("note: " + n)
    # the noise this run measured: what every verdict below is judged against
    body = []
    for col, what in (("iops", "IOPS"), ("lat_p99_us", "p99 latency"), ("int_p99_us", "intended p99")):
        n = run_noise(rows, col)
        if n:
            body.append(["%s: repeats' spread (max / min)" % what, "%.3fx median, %.3fx largest, over %d points" % n])
    for w, n in sorted(floppy_noise(rows).items()):
        body.append(["floppy idle against idle, p99 (W=%d)" % w, "%.2fx" % n])
    for col, what, f in (("bg_cpu", "load from elsewhere (cores)", "%.2f"), ("steal", "steal (share of the CPUs)",
                                                                              "%.3f"),
                         ("mhz_spread", "CPU clock spread (max / min)", "%.3f")):
        xs = [x for r in rows for x in metrics.reps(r, col) + [num(r.get(col))] if x is not None]
        if xs:
            body.append([what + ", largest", f % max(xs)])
    if body:
        out.para("The noise this run measured.  Every verdict below is judged against it: a difference it "
                 "covers is inconclusive, never NOT met (docs/EXPERIMENTS.md, \"Noise\").")
        out.table(["noise", "measured"], body, facts=True)
    else:
        out.para("This run measured no noise (one repeat, no floppy-idle group): its verdicts cannot tell an "
                 "effect from noise.")


def point_docs(run_dir, row):
    """The JSON documents of a summary row's point, one per repeat that has one."""
    docs = []
    for k in range(1, int(num(row.get("repeats")) or 1) + 1):
        path = store.point_paths(run_dir, row["point"], k)[0]
        try:
            docs.append(store.load_json(path))
        except (OSError, ValueError):
            continue
    return docs


def lock_classes(docs):
    """lockstat's classes over a point's repeats: per class the mean per
    repeat of acquisitions, contentions, total wait; the largest wait and
    hold; the mean hold weighted by samples; the holders (waiter, holder,
    site) with their wait summed and divided by the repeats."""
    cls = {}
    n = 0
    for d in docs:
        ls = (d.get("rqlock") or {}).get("lockstat") or {}
        if not ls.get("classes"):
            continue
        n += 1
        for c in ls["classes"]:
            a = cls.setdefault(c["name"], {"locks": c.get("locks", 1), "acq": 0, "con": 0, "wait": 0.0,
                                           "wait_max": 0, "hold_sum": 0.0, "hold_n": 0, "hold_max": 0,
                                           "holders": {}, "sites": {}})
            a["acq"] += c.get("acquisitions", 0)
            a["con"] += c.get("contentions", 0)
            w, h = c.get("wait_ns") or {}, c.get("hold_ns") or {}
            a["wait"] += w.get("total", 0) or 0
            a["wait_max"] = max(a["wait_max"], w.get("max", 0) or 0)
            a["hold_sum"] += h.get("total", 0) or 0
            a["hold_n"] += h.get("samples", 0) or 0
            a["hold_max"] = max(a["hold_max"], h.get("max", 0) or 0)
            for x in c.get("holders", []):
                k = (x.get("waiter"), x.get("holder"), x.get("holder_site"))
                a["holders"][k] = a["holders"].get(k, 0) + (x.get("wait_ns") or 0)
            for s in c.get("sites", []):
                a["sites"][s.get("site")] = a["sites"].get(s.get("site"), 0) + (s.get("contentions") or 0)
    return cls, n


def ns(v):
    """A duration in ns for a cell: ns below 1 us (never 0 us), else us or ms."""
    if v is None:
        return "-"
    if v < 1000:
        return "%.0f ns" % v
    if v < 1e6:
        return "%.3g us" % (v / 1e3)
    return "%.4g ms" % (v / 1e6)


def lockstat_section(out, run_dir, rows, labels, order):
    """Per mode and --var values: the lockstat of its largest point (most
    workers, then most drives) of the job file."""
    vcols = compare.var_cols(rows)
    pick = {}
    for r in rows:
        if r["mode"] in compare.FIO_MODES:
            continue
        key = (labels[compare.colkey(r)], tuple(r.get(v, "") for v in vcols))
        k = (int(r["workers"]), int(r["drives"]))
        if key not in pick or k > pick[key][0]:
            pick[key] = (k, r)
    body = []
    for lab, vals in sorted(pick, key=lambda k: (order.index(k[0]) if k[0] in order else len(order),
                                                 tuple(compare.natural(x) for x in k[1]))):
        (w, d), r = pick[(lab, vals)]
        vtxt = "".join(" %s=%s" % (v[4:], x) for v, x in zip(vcols, vals) if x)
        cls, n = lock_classes(point_docs(run_dir, r))
        for name, a in sorted(cls.items(), key=lambda kv: -kv[1]["wait"]):
            if not a["acq"]:
                continue
            hold = a["hold_sum"] / a["hold_n"] if a["hold_n"] else None
            top = sorted(a["holders"].items(), key=lambda kv: -kv[1])[:3]
            who = "; ".join("%s waited on %s (%s): %s" % (wt, hd, site, ns(v / n)) for (wt, hd, site), v in top)
            sites = ", ".join("%s x%.0f" % (s, c / n)
                              for s, c in sorted(a["sites"].items(), key=lambda kv: -kv[1])[:2])
            body.append([lab, "D=%d W=%d%s" % (d, w, vtxt), name, str(a["locks"]), human(a["acq"] / n, "iops"),
                         "%s (%.2f%%)" % (human(a["con"] / n, "iops"), 100.0 * a["con"] / a["acq"]),
                         ns(a["wait"] / n), ns(a["wait_max"]), ns(hold), ns(a["hold_max"]),
                         sites or "-", who or "-"])
    if not body:
        out.para("No lockstat in this job file's points (rqlock's JSON has no rqlock.lockstat).")
        return
    out.table(["mode", "point", "lock class", "locks", "acquisitions", "contentions", "wait total", "wait max",
               "hold mean", "hold max", "contended at", "holders: who waited on whom"], body)
    out.para("lockstat of each mode's largest point (most workers, then most drives; per --var value), per "
             "lock class, the "
             "mean per repeat: acquisitions, contentions (share of acquisitions), the total and the longest "
             "wait, the mean and longest hold (holds are sampled), the sites contended most and the holder "
             "attribution: which queue (device) waited while which held the lock, at which site.")


def change_section(out, rows, mans, a_id, b_id):
    """Run B against run A: per job file, the ratio B / A of each metric at
    each point both runs have, judged against both runs' noise."""
    vcols = compare.var_cols(rows)
    key = lambda r: (r["jobfile"], r["job"], r["mode"], r["primitive"], compare.host_of(r), int(r["drives"]),
                     int(r["workers"])) + tuple(r.get(v, "") for v in vcols)
    A = {key(r): r for r in rows if r["run"] == a_id}
    B = {key(r): r for r in rows if r["run"] == b_id}
    cols = {k: BY_KEY[k].column for k in CHANGE_METRICS}
    floors = {(run, c): (run_noise([r for r in rows if r["run"] == run], c) or (None,))[0]
              for run in (a_id, b_id) for c in cols.values()}
    common = sorted(set(A) & set(B), key=lambda k: tuple(compare.natural(x) for x in k))
    out.heading("%s against %s: B / A" % (b_id, a_id), level=1)
    if not common:
        out.para("The runs have no point in common (the same job file, job, mode, primitive, drives, workers "
                 "and --var values): nothing to set side by side.")
        return
    out.para("Each metric of each point both runs have: A = %s, B = %s (medians over repeats), B / A with the "
             "90 %% bootstrap interval, and the verdict of the change judged against both runs' noise: a "
             "median can move by its run's spread of repeats (largest / smallest; with one repeat, the run's "
             "median spread over its other points), so B / A by their product, the noise floor.  changed: "
             "outside it and the interval leaves out 1; unchanged within noise: inside it." % (a_id, b_id))
    counts = {}
    for jf in sorted({k[0] for k in common}):
        body = []
        for k in [k for k in common if k[0] == jf]:
            ra, rb = A[k], B[k]
            for mk, col in cols.items():
                xa, xb = compare._reps_or_median(ra, col), compare._reps_or_median(rb, col)
                if not any(x is not None for x in xa) or not any(x is not None for x in xb):
                    continue
                r, ci, nz, v, t = verdict.judge_change(xa, xb, floors[(a_id, col)], floors[(b_id, col)])
                counts[v] = counts.get(v, 0) + 1
                vt = "".join(", %s=%s" % (c[4:], x) for c, x in zip(vcols, k[7:]) if x)
                body.append([k[1], k[2] + ("/" + k[3] if len(set(x[3] for x in common)) > 1 else ""),
                             str(k[5]), str(k[6]) + vt, BY_KEY[mk].title, human(num(ra.get(col)), mk),
                             human(num(rb.get(col)), mk), verdict.fmt_ci(r, ci, "%.3f", unit="x"),
                             "%.3fx" % nz if nz else "-", t])
        if body:
            out.heading("%s: %s against %s" % (jf, b_id, a_id))
            out.table(["job", "mode", "D", "W", "metric", "A", "B", "B / A (90% CI)", "noise floor", "verdict"],
                      body)
    out.para("In all: %s." % ", ".join("%d %s" % (n, v) for v, n in sorted(counts.items())))


def experiment(out, jf, rows, labels, order, mans, runs, plots, seq, metric_keys):
    """One job file: its question, verdicts, tables, plots, lockstat."""
    jrows = [r for r in rows if r["jobfile"] == jf]
    out.raw('<section class="experiment" id="exp-%s">' % esc(jf))
    out.heading(jf, level=1)
    q = next((question(d, jf) for d in runs.values() if question(d, jf)), None)
    if q:
        out.raw('<p class="q">What it asks: %s</p>' % esc(q[0].upper() + q[1:]))
    v = Html("verdict")
    compare.floppy_section(v, jrows, labels, order, mans)
    compare.scaling_section(v, jrows, labels, order, mans)
    compare.fleet_section(v, jrows, labels, order)
    if v.ntables:
        out.heading("%s: verdicts" % jf)
        out.raw(v.render())
        for k, cells in v.verdicts.items():
            out.verdicts.setdefault(k, []).extend(cells)
        out.ntables += v.ntables
    else:
        out.para("This job file has no expectation compare judges (no floppy idle/busy groups, no drive or "
                 "worker axis to scale over).")
    t = Html("metric")
    ks = [k for k in metric_keys if any(num(r.get(BY_KEY[k].column)) is not None for r in jrows)]
    if ks:
        compare.main_tables(t, jrows, labels, order, ks)
        out.heading("%s: %s per point" % (jf, ", ".join(BY_KEY[k].title for k in ks)))
        out.raw(t.render())
        out.ntables += t.ntables
    names = [(rid, n) for rid, p in plots.items() for n in p.of(jf)]
    if jf == "floppy-vs-disk":
        names += [(rid, "timeline") for rid, p in plots.items() if "timeline" in p.svgs]
    if names:
        out.heading("%s: plots" % jf)
        for rid, n in names:
            seq[0] += 1
            figure(out, plots[rid], n, rid, seq[0])
            if n == "timeline":
                timeline_table(out, plots[rid], mans[rid])
    elif jf == "floppy-vs-disk":
        out.para("No timeline: record one with rqlock run --timeline RUN/plots/NAME.csv jobs/floppy-vs-disk.fio "
                 "(scripts/quickstart does).")
    out.heading("%s: lockstat per mode" % jf)
    for rid in runs:
        rr = [r for r in jrows if r["run"] == rid]
        if rr:
            if len(runs) > 1:
                out.para("run %s" % rid)
            lk = Html("lockstat")
            lockstat_section(lk, runs[rid], rr, labels, order)
            out.raw(lk.render())
            out.ntables += lk.ntables
    out.raw("</section>")


def timeline_table(out, plots, man):
    """plot's prediction beside measurement for each timeline CSV."""
    cap = compare.disk_capacity((man.get("devices") or {}).get("DISK"))
    body = []
    for c in plots.csvs:
        try:
            k = plot.timeline_check(c, cap)
        except (OSError, ValueError, KeyError, ZeroDivisionError):
            k = None
        if not k:
            continue
        body.append([os.path.splitext(os.path.basename(c))[0], k["mode"], "%.2f%%" % (100 * k["s"]),
                     "%.1f" % k["H_ms"], "%.2f%%" % (100 * k["landing"]), "%.1f" % k["wait_pred_ms"],
                     "%.1f" % k["wait_meas_ms"] if k["wait_meas_ms"] is not None else "-",
                     "%.1f" % k["idle_p99_ms"], "%.2f%%" % (100 * k["delayed_pred"]),
                     "%.2f%%" % (100 * k["delayed"])])
    if body:
        t = Html("timeline")
        t.table(["timeline", "lock", "s", "H (ms)", "due in a hold", "wait pred (ms)", "wait meas (ms)",
                 "idle p99 (ms)", "delayed pred", "delayed meas"], body)
        t.para("The timeline's prediction beside its measurement (rqlock plot --timeline prints the same): s, the "
               "floppy's lock-hold share; H, its mean hold; a disk I/O is due in a hold with probability s and "
               "waits H/2 on average; delayed: intended latency above the floppy-idle p99%s." % (
                   "; the disk's capacity %g IOPS from the DISK template" % cap if cap else ""))
        out.raw(t.render())
        out.ntables += t.ntables


def build(run_args, tmp, metric_keys=None):
    """The page of one run or two (run_args: directories or ids).  Returns
    (html text, {run id: directory}, notes).  Raises Bad."""
    metric_keys = metric_keys or TABLE_METRICS.split(",")
    try:
        dirs = [store.resolve_run(r) for r in run_args]
        rows, mans = store.load_runs(dirs, summarize=sweep.summarize)
    except store.StoreError as e:
        raise Bad(str(e))
    ids = [store.load_manifest(d)["id"] for d in dirs]
    runs = dict(zip(ids, dirs))
    if not rows:
        raise Bad("%s: no finished point in %s" % (", ".join(run_args), "the runs" if len(ids) > 1 else "the run"))
    for rid in ids:
        if not any(r["run"] == rid for r in rows):
            raise Bad("%s: the run has no finished point" % runs[rid])
    labels, order = compare.columns(rows)
    plots = {rid: Plots(runs[rid], mans[rid], tmp) for rid in ids}
    body = Html()
    seq = [0]
    jobfiles = []
    for rid in ids:
        for j in mans[rid].get("jobfiles", []):
            n = os.path.splitext(j.get("copy") or os.path.basename(j.get("path", "")))[0]
            if n not in jobfiles and any(r["jobfile"] == n for r in rows):
                jobfiles.append(n)
    jobfiles += sorted({r["jobfile"] for r in rows} - set(jobfiles))
    if len(ids) == 2:
        ch = Html("change")
        change_section(ch, rows, mans, ids[0], ids[1])
        body.raw('<section id="change">' + ch.render() + "</section>")
        body.verdicts.update(ch.verdicts)
    for jf in jobfiles:
        experiment(body, jf, rows, labels, order, mans, runs, plots, seq, metric_keys)
    head = Html("run")
    for rid in ids:
        header(head, runs[rid], mans[rid], [r for r in rows if r["run"] == rid])
    notes = [n for p in plots.values() for n in p.notes]
    title = "rqlock report: " + (" against ".join(reversed(ids)) if len(ids) == 2 else ids[0])
    counts = ", ".join("%d %s" % (len(body.verdicts.get(k, [])), w) for k, w in (
        ("v-met", "met"), ("v-not", "NOT met"), ("v-inc", "inconclusive"),
        ("v-chg", "changed"), ("v-same", "unchanged within noise")) if body.verdicts.get(k) or k in (
            "v-met", "v-not", "v-inc"))
    nav = "".join('<li><a href="#exp-%s">%s</a></li>' % (esc(j), esc(j)) for j in jobfiles)
    if len(ids) == 2:
        nav = '<li><a href="#change">%s against %s</a></li>' % (esc(ids[1]), esc(ids[0])) + nav
    page = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>%s</title>" % esc(title), "<style>%s</style>" % STYLE, "</head>", "<body>",
            "<h1>%s</h1>" % esc(title),
            '<p class="muted">Written %s by rqlock report from %s.  Verdicts on this page: %s.</p>' % (
                esc(datetime.datetime.now().astimezone().isoformat(timespec="seconds")),
                esc(", ".join(store.rel(d) for d in dirs)), esc(counts)),
            "<nav><ul>%s</ul></nav>" % nav,
            '<section id="run">', head.render(), "</section>"]
    for n in notes:
        page.append('<p class="note">note: %s</p>' % esc(n))
    page += [body.render(), "</body>", "</html>", ""]
    return "\n".join(page), runs, notes


def default_output(runs_dirs, ids):
    if len(ids) == 2:
        return os.path.join(runs_dirs[1], "report-vs-%s.html" % ids[0])
    return os.path.join(runs_dirs[0], "report.html")


def write(run_args, output=None, metric_keys=None):
    """Writes the page; returns its path.  Raises Bad (nothing written)."""
    with tempfile.TemporaryDirectory(prefix="rqlock-report.") as tmp:
        text, runs, _ = build(run_args, tmp, metric_keys)
    if _URL.search(text) or re.search(r"(?i)https?://", text):
        raise Bad("the page would name a network address")       # inline_svg and esc() leave none
    path = os.path.abspath(output) if output else default_output(list(runs.values()), list(runs))
    try:
        store.write_atomic(path, text)
    except OSError as e:
        raise Bad("--output %s: %s" % (path, e.strerror or e))
    return path


def parser(prog=None):
    """The command line (also read by manpage.py)."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="RUN", help="a run, or two: RUN_A RUN_B (B against A)")
    ap.add_argument("--output", metavar="FILE",
                    help="write the page here (default RUN/report.html; with two runs RUN_B/report-vs-A.html)")
    ap.add_argument("--metric", default=TABLE_METRICS,
                    help="the per-point tables' metrics, a comma list of: %s (default %s)" % (
                        " ".join(compare.METRIC_KEYS), TABLE_METRICS))
    return ap


def after_sweep(run_dir):
    """What `rqlock sweep` does with its finished run: writes its page and
    says where, on stderr (stdout is the run directory alone)."""
    sys.stderr.write("report: %s\n" % write([run_dir]))


def main(argv=None, prog=None):
    prog = prog or store.rel(sys.argv[0])
    a = parser(prog).parse_args(argv)
    try:
        if len(a.runs) > 2:
            raise Bad("give one run, or two (RUN_A RUN_B), not %d" % len(a.runs))
        ks = [k for k in a.metric.split(",") if k]
        for k in ks:
            if k not in compare.METRIC_KEYS:
                raise Bad("--metric: unknown metric %s (%s)" % (k, ",".join(compare.METRIC_KEYS)))
        if a.output and not os.path.isdir(os.path.dirname(os.path.abspath(a.output))):
            raise Bad("--output %s: no such directory" % os.path.dirname(os.path.abspath(a.output)))
        if a.output and os.path.isdir(a.output):
            raise Bad("--output %s is a directory" % a.output)
        path = write(a.runs, a.output, ks)
    except Bad as e:
        sys.stderr.write("report: %s\n" % e)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
