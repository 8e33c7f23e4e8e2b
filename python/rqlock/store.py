"""The run store and where things are.

A run is a directory (results/runs/<id>/ by default):
  manifest.json                 what ran, on what, with which axes; status
  jobs/                         the job files as run
  json/<point>-r<k>.json        fio-style JSON of one point and repeat
  json/<point>-r<k>.meta.json   its command, exit status, wall time, bg_cpu
  log/<point>-r<k>.stderr       the runner's diagnostics
  summary.csv                   one row per point and reported job

Every file is written to NAME.tmp and renamed, so a reader (or a resumed
sweep) sees a whole file or none.

The package lives either in the source tree (python/rqlock/, next to
engine/ and jobs/) or installed (share/rqlock/python/rqlock/, next to
share/rqlock/jobs/); the helpers below find the job files, the runs
directory and the rqlock binary in both.
"""
import csv
import json
import os
import re
import shutil

PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# python/rqlock -> the source tree; share/rqlock/python/rqlock -> share/rqlock
_UP2 = os.path.dirname(os.path.dirname(PKG_DIR))


class StoreError(Exception):
    """Bad input about a run: the message names the run and what is wrong."""


def source_top():
    """The source tree this package is part of, or None when installed."""
    if os.path.isfile(os.path.join(_UP2, "cli", "main.c")):
        return _UP2
    return None


def jobs_dir():
    """The job files shipped with rqlock: TOP/jobs or share/rqlock/jobs."""
    return os.path.join(source_top() or _UP2, "jobs")


def runs_root():
    """Where runs go by default: $RQLOCK_RUNS, else results/runs in the
    source tree, else results/runs under the current directory."""
    if os.environ.get("RQLOCK_RUNS"):
        return os.path.abspath(os.environ["RQLOCK_RUNS"])
    top = source_top()
    return os.path.join(top if top else os.getcwd(), "results", "runs")


def find_rqlock(given=None):
    """The rqlock binary: the one given, $RQLOCK (set by `rqlock sweep`),
    build/rqlock of the source tree, else rqlock on PATH."""
    if given:
        return os.path.abspath(given)
    if os.environ.get("RQLOCK"):
        return os.path.abspath(os.environ["RQLOCK"])
    top = source_top()
    if top:
        return os.path.join(top, "build", "rqlock")
    return shutil.which("rqlock") or "rqlock"


def use_rqlock(argv):
    """Takes --rqlock PATH (or --rqlock=PATH) from @argv before any parser
    reads the registry: every later find_rqlock() then finds that binary,
    not a guess at the source tree's build/ (a build elsewhere)."""
    for i, x in enumerate(argv):
        path = x[len("--rqlock="):] if x.startswith("--rqlock=") else \
            argv[i + 1] if x == "--rqlock" and i + 1 < len(argv) else None
        if path:
            os.environ["RQLOCK"] = os.path.abspath(path)


def rel(path):
    """A path as recorded in a manifest: relative to the source tree when
    inside it, else absolute."""
    p = os.path.abspath(path)
    top = source_top()
    if top and (p == top or p.startswith(top + os.sep)):
        return os.path.relpath(p, top)
    return p


def resolve_run(r):
    """A run directory from a path or an id under runs_root()."""
    if os.path.isdir(r):
        return os.path.abspath(r)
    d = os.path.join(runs_root(), r)
    if os.path.isdir(d):
        return d
    raise StoreError("no run %s (neither a directory nor %s)" % (r, d))


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def save_manifest(run_dir, man):
    write_atomic(os.path.join(run_dir, "manifest.json"), json.dumps(man, indent=1))


def load_manifest(run_dir):
    p = os.path.join(run_dir, "manifest.json")
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise StoreError("%s: no readable manifest.json (%s)" % (run_dir, e))


def parse_json_text(text):
    """fio's JSON output with text before it: fio's warnings, or the
    "<host> ..." lines a fio client prints from its servers (fio's own
    server sends them in JSON mode too).  The document starts at the first
    '{', or, when that does not parse (a brace in the text before), at the
    first line that is "{" alone, as fio writes it."""
    i = text.find("{")
    if i < 0:
        raise ValueError("no JSON object")
    try:
        return json.loads(text[i:])
    except ValueError:
        m = re.search(r"^\{$", text, re.M)
        if not m or m.start() == i:
            raise
        return json.loads(text[m.start():])


def load_json(path):
    """A point's JSON (parse_json_text)."""
    with open(path) as f:
        return parse_json_text(f.read())


def point_paths(run_dir, point_id, rep):
    """(json, meta, stderr log) of one point and repeat."""
    base = "%s-r%d" % (point_id, rep)
    return (os.path.join(run_dir, "json", base + ".json"),
            os.path.join(run_dir, "json", base + ".meta.json"),
            os.path.join(run_dir, "log", base + ".stderr"))


def stale_tmp_files(run_dir):
    """Partial files (*.tmp) that a killed writer left behind."""
    out = []
    for sub in ("", "json"):
        d = os.path.join(run_dir, sub)
        try:
            names = os.listdir(d)
        except OSError:
            continue
        out += [os.path.join(d, n) for n in names if n.endswith(".tmp")]
    return sorted(out)


def read_summary(run_dir, finished_only=True):
    """summary.csv's rows as dicts; by default only rows of finished points
    (a reported job, status not "failed")."""
    p = os.path.join(run_dir, "summary.csv")
    try:
        with open(p, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise StoreError("%s: no summary.csv (%s)" % (run_dir, e))
    if finished_only:
        rows = [r for r in rows if r.get("job") and not r.get("status", "").startswith("failed")]
    return rows


LOCAL_HOST = "local"


def with_host(rows, man):
    """Rows of a summary.csv written before the host axis (no host, no
    cores column) read as the machine's own: host "local", its CPUs."""
    cpus = (man.get("axes") or {}).get("cpus_usable") or (man.get("machine") or {}).get("cpus")
    for r in rows:
        if not r.get("host"):
            r["host"] = LOCAL_HOST
        if not r.get("cores") and r["host"] == LOCAL_HOST and cpus:
            r["cores"] = str(cpus)
    return rows


def load_runs(runs, summarize=None):
    """(rows of every run's summary, {run id: manifest}) for compare and
    plot; every row has a host and its cores (with_host).  @summarize(dir,
    manifest) writes the summary of a store made by `rqlock sweep
    --portable` on a machine without Python, the first time it is read
    (sweep.summarize: given by the caller, so that the store, the bottom
    of the package, imports nothing above it)."""
    rows, mans = [], {}
    for r in runs:
        d = resolve_run(r)
        man = load_manifest(d)
        if man["id"] in mans:
            raise StoreError("%s: run %s is given twice" % (d, man["id"]))
        mans[man["id"]] = man
        if (man.get("axes") or {}).get("portable") and not os.path.exists(os.path.join(d, "summary.csv")):
            if summarize is None:
                raise StoreError("%s: a portable run with no summary yet (rqlock sweep --summarize %s)" % (d, d))
            summarize(d, man)
        rows += with_host(read_summary(d), man)
    return rows, mans
