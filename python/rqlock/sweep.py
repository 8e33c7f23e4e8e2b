"""sweep: run job files over lock modes, lock primitives, drive counts and
workers; keep every point's fio-style JSON in a run store.

Usage: rqlock sweep [OPTIONS] [JOBFILE...]      (or scripts/sweep, the same)
       rqlock sweep --clients [NAME=]ADDR,... [--fio-clients ADDR,...] [OPTIONS] [JOBFILE...]
       rqlock sweep --scaling [OPTIONS]
       rqlock sweep --resume RUN
       rqlock sweep --summarize RUN     (rewrite summary.csv from the JSON files)

With no job file: jobs/floppy-vs-disk.fio and jobs/multi-drive-scaling.fio.

The run store, results/runs/<id>/:
  manifest.json      the command, git revision, machine (CPUs, kernel, block
                     devices), rqlock and fio versions, the sweep's axes, the
                     modes and devices found usable (and why others were not),
                     the loop devices of the kernel baseline, start/end, status
  jobs/              a copy of each job file as run
  json/<point>-r<k>.json       one fio-style JSON per point and repeat
  json/<point>-r<k>.meta.json  its command, environment, wall time and the
                     CPU the rest of the machine used meanwhile (bg_cpu)
  log/<point>-r<k>.stderr      the runner's diagnostics
  summary.csv        one row per point and reported job: the median over the
                     repeats and the spread (min, max) of IOPS and p99

Axes: a point is (job file, mode, primitive, drives D, workers W, --var
values).  Modes are rqlock's --lock modes plus "fio-kernel": the same job file
run by real fio through the kernel on loop devices (root only; D loop devices
over sparse files in a temporary directory, detached on exit; skipped with a
note in the manifest otherwise).  fio-kernel has no primitive ("kernel"), and
W is the CPUs fio may use (taskset -c 0..W-1).

Drives: sections named driveN (or driveN-...) are per-drive jobs; a point with
D drives runs the first D of them (--section, which rqlock and fio both
take) plus every other section.  A job file with no driveN sections has no
drive axis: its D is the number of DISKn devices it names.

Devices: a job file names devices as ${PREFIXn} (DISK0, FLOPPY0, ...).  Each
prefix maps to a template, --dev PREFIX=TEMPLATE with {n} for the number
(defaults DISK=@null{n}, FLOPPY=@floppy{n}).  The sweep also exports DISKS
(the D disks joined with ':'), NDRIVES, WORKERS, PER_DRIVE (W / D, at least 1:
the clones per drive that give every worker a submitter), RUNTIME, and each --var.

Scaling (--scaling): jobs/lock-scaling.fio over W = 1, 2, 4, ... up to the
CPUs this process may use, with D = W and D = 1 at each W, every lock mode
and every lock primitive rqlock has (any axis given explicitly wins).  More
workers than CPUs draw a warning: spinning locks under oversubscription
measure the scheduler, not the lock.  On a machine with fewer than
16 CPUs the sweep says what it cannot show (the ticket-lock collapse, the
global lock's plateau).

Repeats are the outer loop (every point once, then every point again), so a
burst of load from elsewhere on the machine spreads over points rather than
sinking one.  A finished (point, repeat) is never redone: --resume RUN (or
the same --id again) picks up where an interrupted sweep stopped.

Progress: one line on stderr: the point, the elapsed time and the ETA.

Fleets (--clients): every point runs through the real `fio --client` on
`rqlock server`s the user started; each server's lock mode, primitive and
workers are its own, read from it before anything is written, and the
servers are grouped by them: a point is (job file, group, D, --var values),
one fio client run over the group's servers.  --fio-clients adds the fio
baseline on `fio --server`s (fio's null engine, mode fio-null, or
--fio-dev paths, mode fio-kernel).  summary.csv has a row per host, with
its cores (fio's PROBE reply).  python/rqlock/fleet.py and docs/SERVER.md
("Fleet sweeps") say more.
"""
import argparse
import csv
import datetime
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from . import fleet, metrics, registry, store
from .metrics import fmt, job_metrics, median, run_metrics  # noqa: F401 (run_metrics: the API tests use)
from .store import load_json, save_manifest

RQ_MODES = registry.MODES    # the binary's (`rqlock --list --json`)
FIO_MODE = "fio-kernel"
DEFAULT_JOBS = ["floppy-vs-disk.fio", "multi-drive-scaling.fio"]
SCALING_JOB = "lock-scaling.fio"
SCALING_MAX_W = 64      # the drive sections of jobs/lock-scaling.fio
SCALING_MIN_CPUS = 16   # fewer: the sweep says what it cannot show
DEFAULT_DEVS = {"DISK": "@null{n}", "FLOPPY": "@floppy{n}"}
# loop-device backing sizes for the kernel baseline, per device prefix
LOOP_SIZES = {"DISK": 256 << 20, "FLOPPY": 1440 << 10}
LOOP_SIZE_OTHER = 256 << 20
SUMMARY_COLS = ["run", "point", "jobfile", "job", "mode", "primitive", "drives", "workers", "host", "cores"]
LOCAL_HOST = store.LOCAL_HOST    # the host of a point run here (and of every row of an older store)
SUMMARY_TAIL = ["repeats"] + metrics.summary_columns() + ["status"]


def die(msg):
    sys.stderr.write("sweep: %s\n" % msg)
    sys.exit(2)


def parse_list(s, conv=str):
    return [conv(x) for x in s.split(",") if x != ""]


# ---------------------------------------------------------------- job files

def job_info(path):
    """Sections, referenced ${VARS}, device vars and driveN sections of a job file."""
    with open(path) as f:
        text = f.read()
    sections = []
    for line in text.splitlines():
        m = re.match(r"\s*\[([^\]]+)\]", line)
        if m and m.group(1) != "global":
            sections.append(m.group(1))
    # fio ignores lines starting with ';' or '#': their ${VARS} are not references
    live = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith((";", "#")))
    refs = sorted(set(re.findall(r"\$\{(\w+)\}", live)))
    drive_secs = {}
    for s in sections:
        m = re.match(r"drive(\d+)(?:$|-)", s)
        if m:
            drive_secs.setdefault(int(m.group(1)), []).append(s)
    devs = []
    for r in refs:
        m = re.match(r"([A-Z]+?)(\d+)$", r)
        if m:
            devs.append((m.group(1), int(m.group(2)), r))
    return {"path": path, "stem": os.path.splitext(os.path.basename(path))[0], "sections": sections,
            "refs": refs, "devs": devs, "drive_secs": drive_secs,
            "sha256": hashlib.sha256(text.encode()).hexdigest()}


def template_refs(devs, info):
    """The --var names the device templates of a job file's prefixes use, as
    ${NAME} (--dev 'FLOPPY=@floppy{n},driver=${DRIVER}' --var DRIVER=sync,2.4:
    the floppy's driver model as one more axis)."""
    out = set()
    for p in {p for p, _, _ in info["devs"]}:
        out |= set(re.findall(r"\$\{(\w+)\}", devs.get(p) or ""))
    return out


def fill_template(tmpl, n, vals):
    """A device template with {n} the device's number and ${NAME} its --var value."""
    s = tmpl.replace("{n}", str(n))
    for k, v in vals.items():
        s = s.replace("${%s}" % k, str(v))
    return s


def selected_sections(info, drives):
    """--section list for D drives, or None for the whole file."""
    if not info["drive_secs"]:
        return None
    keep = []
    in_drive = {s for v in info["drive_secs"].values() for s in v}
    for s in info["sections"]:
        if s not in in_drive:
            keep.append(s)
        else:
            n = int(re.match(r"drive(\d+)", s).group(1))
            if n < drives:
                keep.append(s)
    return keep


def drive_axis(info, drives):
    if info["drive_secs"]:
        most = max(info["drive_secs"]) + 1
        return [d for d in drives if d <= most]
    return [max([n + 1 for p, n, _ in info["devs"] if p == "DISK"] or [0])]


# ---------------------------------------------------------------- machine

def sh(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 30), **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


def machine_info(rqlock):
    cpu_model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        mem = open("/proc/meminfo").readline().split(":", 1)[1].strip()
    except (OSError, IndexError):
        pass
    devs = None
    p = sh([rqlock, "devices", "--json"])
    if p.returncode == 0:
        try:
            devs = json.loads(p.stdout)
        except ValueError:
            devs = None
    return {"hostname": socket.gethostname(), "cpus": os.cpu_count(), "cpu_model": cpu_model,
            "memory": mem, "kernel": os.uname().release, "os": os.uname().version,
            "block_devices": devs}


def git_info():
    top = store.source_top()
    if not top:
        return {"revision": None, "dirty": None, "note": "an installed rqlock: no source tree"}
    rev = sh(["git", "-C", top, "rev-parse", "HEAD"]).stdout.strip()
    dirty = sh(["git", "-C", top, "status", "--porcelain", "--untracked-files=no"]).stdout.strip() != ""
    return {"revision": rev, "dirty": dirty}



def point_id(info, mode, t, d, w, vals):
    """A point's id: job stem, mode, primitive, drives, workers, then each --var value."""
    return "%s.%s.%s.d%d.w%d" % (info["stem"], mode, t, d, w) + "".join(
        ".%s%s" % (v, vals[v]) for v in sorted(vals))

class CpuMeter:
    """CPU busy on the whole machine minus what our children used: the load
    the rest of the machine put on the cores while a point ran (in cores)."""

    @staticmethod
    def busy():
        try:
            f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
        except (OSError, ValueError):
            return None
        idle = f[3] + (f[4] if len(f) > 4 else 0)
        return (sum(f[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    def __init__(self):
        self.b0 = self.busy()
        r = os.times()
        self.c0 = r.children_user + r.children_system
        self.t0 = time.monotonic()

    def other(self):
        b1 = self.busy()
        r = os.times()
        dt = time.monotonic() - self.t0
        if self.b0 is None or b1 is None or dt <= 0:
            return None
        ours = r.children_user + r.children_system - self.c0
        return max(0.0, (b1 - self.b0 - ours) / dt)


def wait_quiet(limit_s, threshold):
    """Wait (up to limit_s) until the rest of the machine uses < threshold cores."""
    end = time.monotonic() + limit_s
    while True:
        m = CpuMeter()
        time.sleep(0.5)
        bg = m.other()
        if bg is None or bg < threshold or time.monotonic() >= end:
            return bg


# ---------------------------------------------------------------- probes

PROBE_JOB = "[probe]\nioengine=null\nrw=read\nbs=4k\nsize=64k\n"


def probe_mode(rqlock, mode, ltype, tmp):
    job = os.path.join(tmp, "probe.fio")
    with open(job, "w") as f:
        f.write(PROBE_JOB)
    p = sh([rqlock, "run", "--lock=" + mode, "--lock-type=" + ltype, "--workers=1",
            "--output-format=json", "--output", os.path.join(tmp, "probe.json"), job], timeout=60)
    if p.returncode == 0:
        return None
    return (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]


def probe_dev(rqlock, spec, tmp):
    job = os.path.join(tmp, "probe-dev.fio")
    with open(job, "w") as f:
        f.write("[probe]\nioengine=io_uring\ndirect=1\nrw=read\nbs=512\nsize=1k\nfilename=%s\n" % spec)
    p = sh([rqlock, "run", "--workers=1", "--output-format=json",
            "--output", os.path.join(tmp, "probe.json"), job], timeout=120)
    if p.returncode == 0:
        return None
    return (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]


# ---------------------------------------------------------------- kernel baseline

class Loops:
    """Loop devices over sparse files, ours only; detached by close()."""

    def __init__(self):
        self.dir = None
        self.devs = {}          # var -> /dev/loopN
        self.files = {}

    def setup(self, needed):
        self.dir = tempfile.mkdtemp(prefix="rqlock-sweep-loop.", dir="/var/tmp")
        for var, prefix in needed:
            f = os.path.join(self.dir, var.lower() + ".img")
            with open(f, "wb") as fh:
                fh.truncate(LOOP_SIZES.get(prefix, LOOP_SIZE_OTHER))
            p = sh(["losetup", "--find", "--show", "--direct-io=on", f])
            if p.returncode != 0:
                raise RuntimeError("losetup %s: %s" % (f, p.stderr.strip()))
            self.devs[var] = p.stdout.strip()
            self.files[var] = f

    def close(self):
        for var, dev in list(self.devs.items()):
            sh(["losetup", "-d", dev])
            del self.devs[var]
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


# ---------------------------------------------------------------- the sweep

class Sweep:
    def __init__(self, a, run_dir, manifest):
        self.a = a
        self.dir = run_dir
        self.man = manifest
        self.child = None
        self.loops = Loops()
        self.stop = False

    # points ---------------------------------------------------------------
    def job_combos(self):
        """(job file, its info, one combination of the --var values it uses), for each."""
        man = self.man
        for jf in man["jobfiles"]:
            info = job_info(os.path.join(self.dir, "jobs", jf["copy"]))
            combos = [{}]
            used = set(info["refs"]) | template_refs(man["devices"], info)
            for v in sorted(man["axes"]["vars"]):
                if v in used:
                    combos = [dict(c, **{v: x}) for c in combos for x in man["axes"]["vars"][v]]
            for vals in combos:
                yield jf, info, vals

    def points(self):
        man = self.man
        if man.get("fleet"):
            return self.fleet_points()
        out = []
        for jf, info, vals in self.job_combos():
            for w in man["axes"]["workers"]:
                for d in drive_axis(info, man["axes"]["drives"]):
                    if man["axes"].get("pairs") == "D=1 or D=W" and d not in (1, w):
                        continue
                    for mode in man["modes"]:
                        types = ["kernel"] if mode == FIO_MODE else man["lock_types"]
                        for t in types:
                            if "%s/%s" % (mode, t) in man.get("modes_unavailable", {}):
                                continue
                            out.append({"id": point_id(info, mode, t, d, w, vals), "job": jf, "info": info,
                                        "mode": mode, "type": t, "drives": d, "workers": w, "vars": vals})
        return out

    def fleet_points(self):
        """A fleet point per (job file, server group or fio baseline, D,
        --var values): one fio client run over the group's servers."""
        man, fl = self.man, self.man["fleet"]
        out = []
        grp = fleet.groups(fl["servers"])
        cfgs = [(m, t, w, grp[(m, t, w)]) for (m, t, w) in sorted(grp, key=lambda k: (k[2], k))
                if m in man["modes"]]
        if fl.get("fio_servers") and fl["fio_mode"] in man["modes"]:
            cfgs += [(fl["fio_mode"], "kernel", w, fl["fio_servers"]) for w in man["axes"]["workers"]]
        for jf, info, vals in self.job_combos():
            for mode, t, w, servers in cfgs:
                for d in drive_axis(info, man["axes"]["drives"]):
                    out.append({"id": point_id(info, mode, t, d, w, vals), "job": jf, "info": info,
                                "mode": mode, "type": t, "drives": d, "workers": w, "vars": vals,
                                "servers": servers})
        return out

    def paths(self, pt, rep):
        return store.point_paths(self.dir, pt["id"], rep)

    def done(self, pt, rep):
        jp, mp, _ = self.paths(pt, rep)
        if not (os.path.exists(jp) and os.path.exists(mp)):
            return False
        try:
            load_json(jp)
            return True
        except (OSError, ValueError):
            return False

    def env_for(self, pt, server=None):
        """The point's environment; with server (a fleet host), its own --dev HOST:PREFIX= templates."""
        man = self.man
        env = dict(os.environ)
        env["RUNTIME"] = runtime_str(man["axes"]["runtime"])
        env["NDRIVES"] = str(pt["drives"])
        env["PER_DRIVE"] = str(max(1, pt["workers"] // pt["drives"]))
        env["WORKERS"] = str(pt["workers"])
        for k, v in pt["vars"].items():
            env[k] = str(v)
        info = pt["info"]
        disks = []
        for prefix, n, var in info["devs"]:
            if pt["mode"] == FIO_MODE and "servers" not in pt:
                if var in self.loops.devs:
                    env[var] = self.loops.devs[var]
            else:
                tmpl = man["devices"].get(prefix)
                if server is not None:
                    tmpl = man.get("host_devices", {}).get(server["name"], {}).get(prefix, tmpl)
                if "servers" in pt and pt["mode"] in fleet.FIO_MODES:
                    # paths on the fio hosts (fio-kernel), or nothing the null engine opens
                    tmpl = (man["fleet"].get("fio_devices") or {}).get(prefix, "none")
                if tmpl is not None:
                    env[var] = fill_template(tmpl, n, pt["vars"])
        for n in range(pt["drives"]):
            v = "DISK%d" % n
            if v in env:
                disks.append(env[v])
        env["DISKS"] = ":".join(disks)
        return env

    def command(self, pt, out_json):
        info = pt["info"]
        job = os.path.join(self.dir, "jobs", pt["job"]["copy"])
        secs = selected_sections(info, pt["drives"])
        if "servers" in pt:
            return self.fleet_command(pt, job, secs)
        sec_args = []
        for s in secs or []:
            sec_args += ["--section", s]
        if pt["mode"] == FIO_MODE:
            ncpu = os.cpu_count() or 1
            cpus = "0-%d" % (min(pt["workers"], ncpu) - 1)
            return ["taskset", "-c", cpus, self.man["fio"]["path"], "--output-format=json",
                    "--output", out_json] + sec_args + [job]
        cmd = [self.man["rqlock"]["path"], "run", "--lock=" + pt["mode"], "--lock-type=" + pt["type"],
               "--workers=%d" % pt["workers"], "--stall-timeout=%d" % self.man["axes"]["stall_timeout"],
               "--output-format=json", "--output", out_json]
        if self.man["axes"]["no_pin"]:
            cmd.append("--no-pin")
        return cmd + sec_args + [job]

    def fleet_command(self, pt, job, secs):
        """fio --client=S1 JOB --client=S2 JOB ...: JOB resolved here
        (${VARS}, the point's sections; the null engine for fio-null) and
        kept in RUN/jobs/points/.  Its JSON goes to stdout."""
        with open(job) as f:
            text = f.read()
        d = os.path.join(self.dir, "jobs", "points")
        os.makedirs(d, exist_ok=True)
        jobs, written = {}, {}
        for sv in pt["servers"]:
            # each host's own device templates (--dev HOST:PREFIX=); hosts that resolve alike share a file
            resolved = fleet.resolve_job(text, self.env_for(pt, sv), secs, null_engine=pt["mode"] == fleet.FIO_NULL)
            if resolved not in written:
                path = os.path.join(d, pt["id"] + (".fio" if not written else ".%s.fio" % sv["name"]))
                store.write_atomic(path, resolved)
                written[resolved] = path
            jobs[sv["addr"]] = written[resolved]
        return [self.man["fio"]["path"], "--output-format=json"] + fleet.client_args(pt["servers"], jobs)

    # running --------------------------------------------------------------
    def run_one(self, pt, rep):
        jp, mp, lp = self.paths(pt, rep)
        tmp_json = jp + ".tmp"
        env = self.env_for(pt)
        cmd = self.command(pt, tmp_json)
        bg_before = None
        if self.a.quiet_wait:
            bg_before = wait_quiet(self.a.quiet_wait, self.a.quiet_threshold)
        load0 = os.getloadavg()[0]
        meter = CpuMeter()
        t0 = time.time()
        with open(lp, "w") as err:
            # its own session (a ^C reaches the sweep, which stops the runner
            # cleanly), and killed with the sweep if the sweep itself is killed
            out = open(tmp_json, "w") if "servers" in pt else subprocess.DEVNULL
            late = None
            try:
                self.child = subprocess.Popen(cmd, env=env, stdout=out, stderr=err,
                                              start_new_session=True, preexec_fn=_die_with_parent)
                if "servers" in pt:
                    # a host that stops answering must not hang the sweep: rqlock run has
                    # --stall-timeout for that, the fio client only its SEND_ETA retries
                    limit = 2 * self.guess_run_s() + self.man["axes"]["stall_timeout"]
                    try:
                        rc = self.child.wait(limit)
                    except subprocess.TimeoutExpired:
                        late = "the fio client did not finish within %d s (2 x the expected run time + " \
                               "--stall-timeout): stopped" % limit
                        err.write("sweep: %s\n" % late)
                        err.flush()
                        self.kill_child()
                        rc = self.child.wait()
                else:
                    rc = self.child.wait()
            finally:
                self.child = None
                if out is not subprocess.DEVNULL:
                    out.close()
        wall = time.time() - t0
        bg = meter.other()
        if self.stop:
            _unlink(tmp_json)
            return None
        ok = rc == 0 and late is None
        why = late
        if late is None and rc < 0:
            # killed from outside (the OOM killer, a user's kill -9): the
            # point failed; whatever the runner left half-written goes
            why = "killed by %s" % _signame(-rc)
        elif late is None and rc:
            why = "exit %d" % rc
        if ok:
            doc = None
            try:
                doc = load_json(tmp_json)
            except (OSError, ValueError) as e:
                ok = False
                why = "the output is not JSON: %s" % e
            if doc is not None and "servers" in pt:
                # every host answered, and (rqlock) with the point's options
                try:
                    fleet.split_by_host(doc, pt["servers"])
                    if pt["mode"] not in fleet.FIO_MODES:
                        why = fleet.check_desc(doc, pt["servers"], pt["mode"], pt["type"], pt["workers"])
                except ValueError as e:
                    why = str(e)
                ok = why is None
            if not ok:
                with open(lp, "a") as err:
                    err.write("sweep: %s\n" % why)
        if "servers" in pt:
            bg = bg_before = None   # the servers' CPU is not ours to tell from the rest's
        meta = {"point": pt["id"], "repeat": rep, "command": cmd, "exit": rc, "ok": ok, "why": why,
                "env": {k: env[k] for k in sorted(set(pt["info"]["refs"]) | {"RUNTIME", "NDRIVES", "WORKERS", "DISKS", "PER_DRIVE"})
                        if k in env},
                "started": datetime.datetime.fromtimestamp(t0).isoformat(timespec="seconds"),
                "wall_s": round(wall, 3), "bg_cpu": None if bg is None else round(bg, 3),
                "bg_cpu_before": None if bg_before is None else round(bg_before, 3),
                "loadavg_1m_before": load0}
        if ok:
            os.replace(tmp_json, jp)
        else:
            _unlink(tmp_json)
            # a failed point is recorded (meta only) and not retried on resume
            # unless --retry-failed; its JSON is absent
            meta["stderr_tail"] = _tail(lp)
        with open(mp + ".tmp", "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(mp + ".tmp", mp)
        return meta

    def kill_child(self):
        c = self.child
        if c and c.poll() is None:
            try:
                os.killpg(c.pid, signal.SIGINT)
                try:
                    c.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(c.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def run(self):
        pts = self.points()
        reps = self.man["axes"]["repeat"]
        todo = []
        for rep in range(1, reps + 1):
            for pt in pts:
                jp, mp, _ = self.paths(pt, rep)
                if self.done(pt, rep):
                    continue
                if os.path.exists(mp) and not self.a.retry_failed:
                    continue        # failed before: recorded, not redone
                todo.append((pt, rep))
        total = len(pts) * reps
        skipped = total - len(todo)
        if skipped:
            say("sweep: %d of %d runs already in %s, %d to go" % (skipped, total, self.dir, len(todo)))
        if any(pt["mode"] == FIO_MODE and "servers" not in pt for pt, _ in todo):
            self.setup_loops(pts)
        t0 = time.monotonic()
        durations = []
        guess = self.guess_run_s()
        failed = 0
        for i, (pt, rep) in enumerate(todo):
            if self.stop:
                break
            el = time.monotonic() - t0
            per = statistics.mean(durations) if durations else guess
            progress("[%d/%d] %s mode=%s type=%s D=%d W=%d%s rep %d/%d  elapsed %s  ETA %s" % (
                skipped + i + 1, total, pt["info"]["stem"], pt["mode"], pt["type"], pt["drives"],
                pt["workers"], "".join(" %s=%s" % kv for kv in sorted(pt["vars"].items())), rep, reps,
                hms(el), hms(per * (len(todo) - i))))
            t1 = time.monotonic()
            meta = self.run_one(pt, rep)
            if meta is None:
                break
            durations.append(time.monotonic() - t1)
            if not meta["ok"]:
                failed += 1
                progress_end()
                last = meta["stderr_tail"].strip().splitlines()[-1:]
                if "servers" in pt:
                    # name the hosts that no longer answer: fio's line does not
                    dead = fleet.unreachable(pt["servers"])
                    last = ["; ".join(dead)] if dead else last
                say("sweep: %s rep %d failed (%s)%s; recorded, not retried on resume without --retry-failed" % (
                    pt["id"], rep, meta["why"], ": " + last[0] if last else ""))
            write_summary(self.dir, self.man, pts)
        progress_end()
        write_summary(self.dir, self.man, pts)
        return failed

    def guess_run_s(self):
        groups = 2 if any("floppy" in j["copy"] for j in self.man["jobfiles"]) else 1
        return self.man["axes"]["runtime"] * groups + 0.5

    def setup_loops(self, pts):
        need = {}
        for pt in pts:
            if pt["mode"] != FIO_MODE or "servers" in pt:
                continue
            per_drive = bool(pt["info"]["drive_secs"])
            for prefix, n, var in pt["info"]["devs"]:
                if per_drive and prefix == "DISK" and n >= pt["drives"]:
                    continue        # its driveN section does not run
                need[var] = prefix
        self.loops.setup(sorted(need.items(), key=lambda kv: (kv[1], len(kv[0]), kv[0])))
        self.man.setdefault("fio", {})["loop_devices"] = {
            v: {"device": d, "backing": self.loops.files[v], "size": os.path.getsize(self.loops.files[v])}
            for v, d in self.loops.devs.items()}
        self.man["fio"]["note"] = ("loop devices (losetup --direct-io=on) over sparse files: reads of holes, "
                                   "so the kernel path is measured, not the disk under them")
        save_manifest(self.dir, self.man)


def runtime_str(s):
    """fio's time value: whole seconds, or milliseconds (fractions are refused)."""
    return str(int(s)) if float(s).is_integer() else "%dms" % round(s * 1000)


def _signame(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "signal %d" % sig


def _die_with_parent():
    """In the runner, before exec: SIGKILL when the sweep dies (prctl
    PR_SET_PDEATHSIG), so a killed sweep leaves no runner behind to write
    into the run it resumes later."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def lock_run(run_dir):
    """Hold RUN/.lock for the life of this process: two sweeps never write
    one run.  Returns the open file; dies when another sweep holds it."""
    import fcntl
    f = open(os.path.join(run_dir, ".lock"), "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        die("%s is being run by another sweep (pid %s)" % (run_dir, f.read().strip() or "?"))
    f.seek(0)
    f.truncate()
    f.write("%d\n" % os.getpid())
    f.flush()
    return f


def _unlink(p):
    try:
        os.unlink(p)
    except OSError:
        pass


def _tail(p, n=2000):
    try:
        with open(p) as f:
            return f.read()[-n:]
    except OSError:
        return ""


def hms(s):
    s = int(max(0, s))
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 else "%d:%02d" % (s // 60, s % 60)


_tty = sys.stderr.isatty()
_progress_open = False


def progress(line):
    global _progress_open
    if _tty:
        sys.stderr.write("\r\033[K" + line)
        _progress_open = True
    else:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def progress_end():
    global _progress_open
    if _progress_open:
        sys.stderr.write("\n")
        _progress_open = False


def say(msg):
    progress_end()
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------- summary

def write_summary(run_dir, man, pts):
    """summary.csv from the point files: per point and reported job, the
    metrics of metrics.METRICS aggregated over the finished repeats."""
    varnames = sorted(man["axes"]["vars"])
    cols = SUMMARY_COLS + ["var_" + v for v in varnames] + SUMMARY_TAIL
    rows = []
    for pt in pts:
        per_job = {}
        order = []
        nrep = 0
        failed = []
        for rep in range(1, man["axes"]["repeat"] + 1):
            jp, mp, _ = store.point_paths(run_dir, pt["id"], rep)
            try:
                with open(mp) as f:
                    meta = json.load(f)
            except (OSError, ValueError):
                continue
            if not meta.get("ok"):
                failed.append(meta.get("why") or "exit %s" % meta.get("exit"))
                continue
            try:
                j = load_json(jp)
            except (OSError, ValueError):
                continue
            if "servers" in pt:
                try:
                    docs = fleet.split_by_host(j, pt["servers"])
                except ValueError:
                    continue
                cores = {sv["name"]: sv.get("cores") for sv in pt["servers"]}
            else:
                docs = {LOCAL_HOST: j}
                cores = {LOCAL_HOST: local_cores(man)}
            nrep += 1
            for host, doc in docs.items():
                point = dict(run_metrics(doc, pt["workers"]), **metrics.meta_metrics(meta, doc))
                for jb in doc.get("jobs", []):
                    key = (host, jb.get("jobname", "?"))
                    if key not in per_job:
                        per_job[key] = []
                        order.append(key)
                    per_job[key].append(dict(job_metrics(jb), **point))
        if not nrep:
            if failed:
                hosts = [(sv["name"], sv.get("cores")) for sv in pt["servers"]] if "servers" in pt \
                    else [(LOCAL_HOST, local_cores(man))]
                for h, c in hosts:
                    rows.append(base_row(man, pt, varnames, "", {"repeats": 0, "status": "failed: " + failed[0],
                                                                 "host": h, "cores": c}))
            continue
        for host, name in order:
            r = metrics.aggregate(per_job[(host, name)])
            r["repeats"] = len(per_job[(host, name)])
            r["status"] = "ok" if not failed else "ok, %d failed" % len(failed)
            r["host"], r["cores"] = host, cores.get(host)
            rows.append(base_row(man, pt, varnames, name, r))
    tmp = os.path.join(run_dir, "summary.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([fmt(r.get(c)) for c in cols])
    os.replace(tmp, os.path.join(run_dir, "summary.csv"))


def summarize(run_dir, man):
    """summary.csv of a run from its point files (sweep --summarize)."""
    write_summary(run_dir, man, Sweep(None, run_dir, man).points())


def local_cores(man):
    """The cores of the machine a local sweep ran on (the CPUs it could use)."""
    return man["axes"].get("cpus_usable") or (man.get("machine") or {}).get("cpus")


def base_row(man, pt, varnames, job, extra):
    r = {"run": man["id"], "point": pt["id"], "jobfile": pt["info"]["stem"], "job": job, "mode": pt["mode"],
         "primitive": pt["type"], "drives": pt["drives"], "workers": pt["workers"]}
    for v in varnames:
        r["var_" + v] = pt["vars"].get(v, "")
    r.update(extra)
    return r


# ---------------------------------------------------------------- manifest

def usable_cpus():
    """The CPUs this process may run on (its affinity), else the online count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def scaling_workers(ncpu, most=SCALING_MAX_W):
    """W = 1, 2, 4, ... up to ncpu, and ncpu itself (at most `most`)."""
    n = min(ncpu, most)
    ws, w = [], 1
    while w < n:
        ws.append(w)
        w *= 2
    return ws + [n]


def lock_types_of(rqlock):
    """Every lock primitive rqlock has, from its own refusal of an unknown one
    ("unknown lock type (ttas|ticket|...)"), else the four known today."""
    p = sh([rqlock, "run", "--lock-type=?", "x.fio"])
    m = re.search(r"unknown lock type \(([^)]*)\)", p.stderr)
    types = re.split(r"[|, ]+", m.group(1).strip()) if m else []
    return [t for t in types if t] or ["ttas", "ticket", "mcs", "mutex"]


def scaling_notes(ncpu, workers, scaling):
    """What the machine cannot show, and oversubscribed worker counts."""
    notes = []
    over = [w for w in workers if w > ncpu]
    if over:
        notes.append("warning: W=%s workers on %d CPUs: more workers than CPUs; spinning locks under "
                     "oversubscription measure the scheduler, not the lock" % (",".join(map(str, over)), ncpu))
    if scaling and ncpu < SCALING_MIN_CPUS:
        notes.append("this machine gives the sweep %d CPUs, so W stops at %d.  It cannot show what needs many "
                     "contending cores: the ticket-lock collapse (Boyd-Wickizer et al., \"Non-scalable locks are "
                     "dangerous\", Linux Symposium 2012) and the global lock's plateau at D = W.  Run the same "
                     "sweep on a machine with tens of cores to see them; here it shows the curves up to W=%d "
                     "only" % (ncpu, max(workers), max(workers)))
    if scaling and ncpu > SCALING_MAX_W:
        notes.append("W stops at %d: jobs/lock-scaling.fio has %d drive sections (the machine has %d CPUs)"
                     % (SCALING_MAX_W, SCALING_MAX_W, ncpu))
    return notes


def probe_local(a, rqlock, infos, devs, notes, variables=None):
    """The modes, primitives and devices usable here: (modes, unavailable,
    types, dev_ok); what is not usable is said in notes."""
    tmp = tempfile.mkdtemp(prefix="rqlock-sweep-probe.")
    try:
        if not os.access(rqlock, os.X_OK):
            die("no rqlock binary at %s (build it: scripts/build, or give --rqlock)" % rqlock)
        want = parse_list(a.modes) if a.modes else RQ_MODES + ([] if a.scaling else [FIO_MODE])
        if a.lock_types:
            types = parse_list(a.lock_types)
        else:
            types = lock_types_of(rqlock) if a.scaling else ["ttas"]
        modes, unavailable = [], {}
        for m in want:
            if m == FIO_MODE:
                why = fio_unavailable()
                if why:
                    unavailable[m] = why
                    notes.append("%s skipped: %s" % (m, why))
                else:
                    modes.append(m)
                continue
            bad = {}
            for t in types:
                why = probe_mode(rqlock, m, t, tmp)
                if why:
                    bad[t] = why
            if len(bad) == len(types):
                unavailable[m] = bad[types[0]]
                notes.append("mode %s skipped: %s" % (m, bad[types[0]]))
                continue
            modes.append(m)
            for t, why in bad.items():
                unavailable["%s/%s" % (m, t)] = why
                notes.append("mode %s with --lock-type=%s skipped: %s" % (m, t, why))
        if not modes:
            die("no usable mode among %s" % ",".join(want))
        used_prefixes = sorted({p for i in infos for p, _, _ in i["devs"]})
        dev_ok = {}
        for p in used_prefixes:
            if p not in devs:
                continue
            spec = fill_template(devs[p], 0, {k: v[0] for k, v in (variables or {}).items() if v})
            why = probe_dev(rqlock, spec, tmp) if spec.startswith("@") else None
            dev_ok[p] = why
            if why:
                notes.append("device %s (%s) unusable: %s" % (p, spec, why))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return modes, unavailable, types, dev_ok


def new_manifest(a, run_id, run_dir, jobfiles, rqlock, fl=None):
    """The manifest of a new run; fl: the fleet found by discover_fleet()."""
    ncpu = usable_cpus()
    quick = a.quick
    runtime = a.runtime if a.runtime is not None else (1 if quick else 2)
    repeat = a.repeat if a.repeat is not None else (1 if quick else 3)
    if fl:
        ws = sorted({sv["workers"] for sv in fl["servers"]})
        workers = ws or (parse_list(a.workers, int) if a.workers else [1])
        drives = parse_list(a.drives, int) if a.drives else ([1, 2] if quick else [1, 2, 4])
    elif a.scaling:
        workers = parse_list(a.workers, int) if a.workers else scaling_workers(ncpu)
        drives = parse_list(a.drives, int) if a.drives else sorted(set(workers))
    else:
        drives = parse_list(a.drives, int) if a.drives else ([1, 2] if quick else [1, 2, 4])
        workers = parse_list(a.workers, int) if a.workers else ([ncpu] if quick else sorted({1, ncpu}))
    if repeat < 1 or runtime <= 0 or not drives or not workers or min(drives + workers) < 1:
        die("--repeat, --runtime, --drives and --workers must be positive")
    devs = dict(DEFAULT_DEVS)
    host_devs = {}      # --dev HOST:PREFIX=TEMPLATE: one --clients host's own template
    for d in a.dev or []:
        if "=" not in d:
            die("--dev wants [HOST:]PREFIX=TEMPLATE, e.g. DISK=@null{n},irqmode=1")
        k, v = d.split("=", 1)
        if ":" in k:
            host, k = k.split(":", 1)
            if not fl or host not in {sv["name"] for sv in fl["servers"]}:
                die("--dev %s: no --clients host is named %s" % (d, host))
            host_devs.setdefault(host, {})[k] = v
            continue
        devs[k] = v
    variables = {}
    for v in a.var or []:
        if "=" not in v:
            die("--var wants NAME=v1,v2,...")
        k, vals = v.split("=", 1)
        variables[k] = parse_list(vals)
    infos = [job_info(j) for j in jobfiles]
    for info in infos:
        for r in sorted(template_refs(devs, info) - set(variables)):
            die("--dev template uses ${%s}: give --var %s=..." % (r, r))
        if "QD" in info["refs"] and "QD" not in variables:
            variables["QD"] = ["16"]
        for r in info["refs"]:
            m = re.match(r"([A-Z]+?)(\d+)$", r)
            known = r in ("RUNTIME", "NDRIVES", "WORKERS", "DISKS", "PER_DRIVE") or r in variables
            if m and m.group(1) in devs:
                known = True
            if not known:
                die("%s uses ${%s}: give --var %s=... or --dev %s=..." % (info["path"], r, r,
                                                                           m.group(1) if m else r))
    notes = []
    if fl:
        # the servers said what they run (discover_fleet); devices are theirs to open
        modes, unavailable, dev_ok = fleet_modes(a, fl), {}, {}
        types = sorted({sv["primitive"] for sv in fl["servers"]}) or ["kernel"]
        notes += fleet_notes(fl)
    else:
        modes, unavailable, types, dev_ok = probe_local(a, rqlock, infos, devs, notes, variables)
    os.makedirs(os.path.join(run_dir, "jobs"), exist_ok=True)
    jf = []
    for info in infos:
        bad = [p for p, _, _ in info["devs"] if dev_ok.get(p)]
        if bad:
            notes.append("%s skipped: its %s device is unusable" % (info["path"], bad[0]))
            continue
        copy = os.path.basename(info["path"])
        shutil.copyfile(info["path"], os.path.join(run_dir, "jobs", copy))
        jf.append({"path": store.rel(info["path"]), "copy": copy,
                   "sha256": info["sha256"]})
    if not jf:
        die("no job file left to run: " + "; ".join(notes))
    rv = sh([rqlock, "--version"]).stdout.strip()
    fio = shutil.which("fio")
    if fl:
        for p in sorted({p for i in infos for p, _, _ in i["devs"]}):
            spec = devs.get(p, "")
            if spec.startswith("@") and not spec.startswith("@null") and fl["servers"]:
                notes.append("device %s=%s: the rqlock servers must allow it (--allow @builtin, their default)"
                             % (p, spec))
    man = {
        "id": run_id,
        "command": command_line(),
        "cwd": os.getcwd(),
        "created": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "git": git_info(),
        "machine": machine_info(rqlock),
        "rqlock": {"path": rqlock, "version": rv},
        "fio": {"path": fio, "version": sh([fio, "--version"]).stdout.strip() if fio else None},
        "jobfiles": jf,
        "modes": modes,
        "modes_unavailable": unavailable,
        "lock_types": types,
        "devices": devs,
        "axes": {"drives": drives, "workers": workers, "vars": variables, "runtime": runtime,
                 "pairs": "D=1 or D=W" if a.scaling else "all", "cpus_usable": ncpu,
                 "repeat": repeat, "no_pin": bool(a.no_pin), "stall_timeout": a.stall_timeout,
                 "quick": bool(quick)},
        "metrics": {m.column: m.doc for m in metrics.METRICS},
        "notes": notes + ([] if fl else scaling_notes(ncpu, workers, a.scaling)),
        "status": "running",
    }
    if fl:
        man["fleet"] = fl
        man["axes"]["pairs"] = "all"
        if host_devs:
            man["host_devices"] = host_devs
    return man


def discover_fleet(a):
    """--clients / --fio-clients: every server probed (name, address, host
    name, cores, and an rqlock server's mode, primitive, workers), before
    anything is written; bad input or an unusable server: one line, exit 2."""
    fio = shutil.which("fio")
    if not fio:
        die("--clients needs the fio client (fio 3.33): fio is not installed")
    servers, fios = [], []
    for opt, vals, kind, out in (("--clients", a.clients, "rqlock", servers),
                                 ("--fio-clients", a.fio_clients, "fio", fios)):
        if vals:
            try:
                out += fleet.discover(fleet.parse_clients(vals), fio, kind)
            except fleet.FleetError as e:
                die("%s: %s" % (opt, e))
    both = {s["addr"] for s in servers} & {s["addr"] for s in fios}
    if both:
        die("--clients and --fio-clients both name %s" % sorted(both)[0])
    fdev = {}
    for d in a.fio_dev or []:
        if "=" not in d:
            die("--fio-dev wants PREFIX=TEMPLATE, e.g. DISK=/dev/nvme{n}n1 (a path on the fio hosts)")
        k, v = d.split("=", 1)
        fdev[k] = v
    if fdev and not fios:
        die("--fio-dev without --fio-clients: no fio server to run it")
    if a.workers and servers:
        die("--workers with --clients: a server's workers are its own (rqlock server --workers=N)")
    if a.lock_types:
        die("--lock-types with --clients: a server's primitive is its own (rqlock server --lock-type=T)")
    if a.scaling:
        die("--scaling with --clients: the workers are the servers' own; start one server per W")
    fl = {"servers": servers, "fio_servers": fios, "fio_devices": fdev or None,
          "fio_mode": fleet.FIO_KERNEL if fdev else fleet.FIO_NULL}
    fleet_modes(a, fl)      # --modes the fleet cannot run: said before anything is written
    return fl


def fleet_modes(a, fl):
    have = sorted({sv["mode"] for sv in fl["servers"]}, key=lambda m: (RQ_MODES + [m]).index(m))
    if fl["fio_servers"]:
        have.append(fl["fio_mode"])
    if not a.modes:
        return have
    want = parse_list(a.modes)
    missing = [m for m in want if m not in have]
    if missing:
        die("--modes %s: no server of the fleet runs %s (the servers run %s)" % (
            a.modes, ",".join(missing), ",".join(have) or "nothing"))
    return [m for m in have if m in want]


def fleet_notes(fl):
    notes = []
    for sv in fl["servers"]:
        notes.append("host %s: %s (%s, %d cores) lock=%s lock-type=%s workers=%d lockdep=%s" % (
            sv["name"], sv["addr"], sv["hostname"], sv["cores"], sv["mode"], sv["primitive"], sv["workers"],
            sv.get("lockdep", "off")))
        if sv["workers"] > sv["cores"]:
            notes.append("warning: host %s runs %d workers on %d cores: spinning locks under oversubscription "
                         "measure the scheduler, not the lock" % (sv["name"], sv["workers"], sv["cores"]))
    for sv in fl["fio_servers"]:
        notes.append("fio host %s: %s (%s, %s, %d cores)%s" % (
            sv["name"], sv["addr"], sv["hostname"], sv["version"], sv["cores"],
            ": fio's null engine, no device" if fl["fio_mode"] == fleet.FIO_NULL else ""))
    return notes


def fio_unavailable():
    if os.geteuid() != 0:
        return "not root: the kernel baseline needs loop devices"
    if not shutil.which("fio"):
        return "fio is not installed"
    if not shutil.which("losetup") or not shutil.which("taskset"):
        return "losetup or taskset is missing"
    if not os.path.exists("/dev/loop-control"):
        return "no /dev/loop-control"
    return None


def resolve_run(r):
    try:
        return store.resolve_run(r)
    except store.StoreError as e:
        die(str(e))


def load_manifest(run_dir):
    try:
        return store.load_manifest(run_dir)
    except store.StoreError as e:
        die(str(e))


_command = []


def command_line():
    """The command as recorded in the manifest."""
    return list(_command)


def parser(prog=None):
    """The command line (also read by manpage.py)."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jobfiles", nargs="*", metavar="JOBFILE")
    ap.add_argument("--modes", help="comma list of %s and %s (default: all that work here)" %
                    ("|".join(RQ_MODES), FIO_MODE))
    ap.add_argument("--lock-types", help="comma list of lock primitives (default: ttas)")
    ap.add_argument("--drives", help="drive counts (default 1,2,4; --quick 1,2)")
    ap.add_argument("--workers", help="worker counts (default 1,CPUS; --quick CPUS)")
    ap.add_argument("--var", action="append", metavar="NAME=V1,V2",
                    help="an environment variable as one more axis, e.g. QD=1,4,16,64 (QD defaults to 16)")
    ap.add_argument("--dev", action="append", metavar="PREFIX=TEMPLATE",
                    help="device template per prefix, {n} the number (default DISK=@null{n}, FLOPPY=@floppy{n}); "
                    "HOST:PREFIX=TEMPLATE for one --clients host only")
    ap.add_argument("--runtime", type=float, help="seconds per job group (default 2; --quick 1)")
    ap.add_argument("--repeat", type=int, help="runs per point: median and spread (default 3; --quick 1)")
    ap.add_argument("--quick", action="store_true", help="a short sweep for tests and the quickstart")
    ap.add_argument("--scaling", action="store_true",
                    help="the lock-scaling set: jobs/lock-scaling.fio, W = 1, 2, 4, ... CPUs, D = W and D = 1, "
                    "every mode and primitive (explicit axes win)")
    ap.add_argument("--clients", action="append", metavar="HOSTS",
                    help="a fleet sweep: run every point through `fio --client` on these `rqlock server`s, a comma "
                    "list of [NAME=]ADDR in fio's syntax (sock:PATH, ip:HOST,PORT, HOST,PORT); each server's lock "
                    "mode, primitive and workers are its own (docs/SERVER.md, \"Fleet sweeps\")")
    ap.add_argument("--fio-clients", action="append", metavar="HOSTS",
                    help="the fio baseline of a fleet sweep: `fio --server`s, the same syntax")
    ap.add_argument("--fio-dev", action="append", metavar="PREFIX=TEMPLATE",
                    help="devices of the --fio-clients hosts (paths there, {n} the number; mode fio-kernel); "
                    "without it the fio baseline runs on fio's null engine (mode fio-null)")
    ap.add_argument("--id", help="run id (default: date-time); an existing run with this id is resumed")
    ap.add_argument("--out", default=store.runs_root(), help="where runs go (default results/runs, or $RQLOCK_RUNS)")
    ap.add_argument("--resume", metavar="RUN", help="continue an interrupted run with its own parameters")
    ap.add_argument("--portable", metavar="OUT",
                    help="the lock-scaling set with only the rqlock binary and a POSIX shell (no Python): the binary "
                    "runs it (scripts/portable-sweep.sh inside it), axes from the machine, store in OUT; options "
                    "there: --budget SECONDS (default 480), --runtime, --repeat, --workers, --modes, --lock-types, --qd")
    ap.add_argument("--budget", metavar="SECONDS", help="with --portable: the set's wall time, choosing runtime and repeats")
    ap.add_argument("--summarize", metavar="RUN", help="only rewrite RUN's summary.csv from its JSON files")
    ap.add_argument("--retry-failed", action="store_true", help="on resume, redo points that failed")
    ap.add_argument("--rqlock", help="the rqlock binary (default $RQLOCK, else build/rqlock)")
    ap.add_argument("--no-pin", action="store_true", help="pass --no-pin to rqlock")
    ap.add_argument("--stall-timeout", type=int, default=60,
                    help="rqlock's --stall-timeout; a fleet point is stopped after 2 x its expected run time "
                    "+ this (default 60)")
    ap.add_argument("--quiet-wait", type=float, default=0, metavar="S",
                    help="before each run wait up to S s for the rest of the machine to go quiet (default 0)")
    ap.add_argument("--quiet-threshold", type=float, default=0.2, metavar="CORES",
                    help="what counts as quiet for --quiet-wait (default 0.2 cores busy)")
    return ap


def main(argv=None, prog=None, on_done=None):
    """@on_done(run_dir): called when the sweep has finished its run."""
    argv = sys.argv[1:] if argv is None else argv
    prog = prog or store.rel(sys.argv[0])
    _command[:] = [prog] + argv
    store.use_rqlock(argv)
    a = parser(prog).parse_args(argv)

    if a.portable:
        # the set for a machine with only the binary and a shell: the binary
        # runs it itself (cli/portable.c, scripts/portable-sweep.sh)
        rq = store.find_rqlock(a.rqlock)
        args, skip = [], False
        for x in argv:
            if skip or x.startswith("--rqlock="):
                skip = False
                continue
            skip = x == "--rqlock"
            if not skip:
                args.append(x)
        try:
            os.execv(rq, [rq, "sweep"] + args)
        except OSError as e:
            die("--portable: cannot run %s: %s" % (rq, e))
    if a.summarize:
        run_dir = resolve_run(a.summarize)
        man = load_manifest(run_dir)
        summarize(run_dir, man)
        print(os.path.join(run_dir, "summary.csv"))
        return 0
    if a.resume or (a.id and os.path.exists(os.path.join(a.out, a.id, "manifest.json"))):
        run_dir = resolve_run(a.resume) if a.resume else os.path.join(a.out, a.id)
        man = load_manifest(run_dir)
        if a.jobfiles:
            say("sweep: resuming %s with its own parameters; the job files given are ignored" % man["id"])
        man.setdefault("resumed", []).append({
            "at": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "command": command_line(), "previous_status": man.get("status")})
    else:
        jobfiles = a.jobfiles or [os.path.join(store.jobs_dir(), j)
                                  for j in ([SCALING_JOB] if a.scaling else DEFAULT_JOBS)]
        for j in jobfiles:
            if not os.path.isfile(j):
                die("no job file %s" % j)
        run_id = a.id or datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        run_dir = os.path.join(a.out, run_id)
        if os.path.exists(run_dir) and os.listdir(run_dir):
            die("%s exists and has no manifest: choose another --id" % run_dir)
        fl = discover_fleet(a) if (a.clients or a.fio_clients) else None
        if not fl and a.fio_dev:
            die("--fio-dev without --fio-clients: no fio server to run it")
        created = [d for d in (a.out, run_dir) if not os.path.exists(d)]
        os.makedirs(os.path.join(run_dir, "json"), exist_ok=True)
        try:
            man = new_manifest(a, run_id, run_dir, jobfiles, store.find_rqlock(a.rqlock), fl)
        except SystemExit:
            # bad input found while building the manifest: nothing stays written
            if created:
                shutil.rmtree(created[0], ignore_errors=True)
            raise
    os.makedirs(os.path.join(run_dir, "json"), exist_ok=True)
    os.makedirs(os.path.join(run_dir, "log"), exist_ok=True)
    lock = lock_run(run_dir)  # noqa: F841 (held until exit)
    for t in store.stale_tmp_files(run_dir):
        say("sweep: removing %s, left by a sweep or runner that was killed" % os.path.relpath(t, run_dir))
        _unlink(t)
    for n in man.get("notes", []):
        say("sweep: " + (n if n.startswith("warning: ") else "note: " + n))
    man["status"] = "running"
    save_manifest(run_dir, man)

    sw = Sweep(a, run_dir, man)

    def on_signal(signum, frame):
        sw.stop = True
        sw.kill_child()
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    failed = 0
    try:
        failed = sw.run()
    except RuntimeError as e:
        say("sweep: %s" % e)
        man["status"] = "error: %s" % e
        save_manifest(run_dir, man)
        return 1
    finally:
        sw.kill_child()
        sw.loops.close()
    man["finished"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    if sw.stop:
        man["status"] = "interrupted"
        save_manifest(run_dir, man)
        say("sweep: interrupted; resume with: %s --resume %s" % (prog, run_dir))
        return 130
    man["status"] = "done" if not failed else "done, %d runs failed" % failed
    save_manifest(run_dir, man)
    say("sweep: %s  (%s)" % (os.path.join(run_dir, "summary.csv"), man["status"]))
    # what the caller does with a finished run: `rqlock sweep` writes its
    # page (report.after_sweep, given by the command above this module, so
    # that sweep imports nothing above it).  On stderr: stdout stays the run
    # directory alone (run=$(rqlock sweep ...)); a hook that fails is said
    # and does not fail the sweep
    if on_done:
        try:
            on_done(run_dir)
        except (Exception, SystemExit) as e:    # noqa: BLE001 (the data is safe; the page is a convenience)
            say("sweep: no report: %s%s" % ("" if type(e).__name__ == "Bad" else type(e).__name__ + ": ", e))
    print(run_dir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
