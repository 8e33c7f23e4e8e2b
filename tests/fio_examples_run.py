#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
fio_examples_run.py RQLOCK EXAMPLES_DIR [NAME...] - Debian's fio examples
run side by side under fio 3.33 and rqlock (issue 34).

Every example both tools parse (`--parse-only`) is run twice, by fio and by
rqlock, each in a fresh directory of its own, from one rewritten copy: so
that an example is safe and short here, and the same for both,

  filename=/dev/X, /abs/path   a file in the run's directory (never a device)
  directory=DIR                a directory in the run's directory
  size, filesize, io_size,     at most 16 MiB (an example sized for a real
  io_limit, offset_increment   disk: 10G, 120g)
  runtime, ramp_time           at most 2 s
  loops, numjobs               at most 3 and 4

then each JSON report's jobs are compared: exit status, and per job name
the bytes and I/Os of each direction.  A job that ran until its runtime
(time_based, or a runtime it reached) cannot give equal bytes: there the
op mix (each direction's share of the I/Os) must agree within 0.05.

Prints one line per example (same / DIFFERS: what) and the count.  Exit 0
when every example fio ran is the same, 1 otherwise, 77 without fio.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CAP_BYTES = 16 << 20
CAP_TIME_S = 2
CAPS_COUNT = {"loops": 3, "numjobs": 4}
SIZE_OPTS = ("size", "filesize", "io_size", "io_limit", "offset_increment")
TIME_OPTS = ("runtime", "ramp_time")
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}
TUNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "ms": 0.001, "us": 1e-6}
DIRS = ("read", "write", "trim")


def parse_bytes(v):
    m = re.fullmatch(r"(\d+)\s*([kmgtp]?)(i?b)?", v.strip().lower())
    return int(m.group(1)) * UNITS[m.group(2)] if m else None


def parse_secs(v):
    m = re.fullmatch(r"(\d+)\s*(s|m|h|d|ms|us)?", v.strip().lower())
    return int(m.group(1)) * TUNITS[m.group(2) or ""] if m else None


STANDIN_BYTES = 128 << 20


def rewrite(text, wdir):
    """The example made safe and short (the module's text); the lines
    changed are returned too.  A device the example names becomes a sparse
    file of STANDIN_BYTES in wdir (so that the example runs: a job on a
    device gives no size of its own)."""
    out, changed = [], []
    for line in text.splitlines():
        m = re.match(r"^(\s*)([A-Za-z_]+)(\s*=\s*)([^;#]*?)(\s*([;#].*)?)$", line)
        if not m:
            out.append(line)
            continue
        ind, key, eq, val, tail = m.group(1), m.group(2).lower(), m.group(3), m.group(4), m.group(5) or ""
        new = val
        if key == "filename":
            parts = []
            for f in val.split(":"):
                if f.startswith("/dev/") and f not in ("/dev/null", "/dev/zero"):
                    f = "dev-" + os.path.basename(f)
                    with open(os.path.join(wdir, f), "a") as sf:
                        sf.truncate(STANDIN_BYTES)
                elif f.startswith("/"):
                    f = os.path.basename(f) or "file"
                parts.append(f)
            new = ":".join(parts)
        elif key == "directory":
            new = os.path.join(wdir, "dir-" + re.sub(r"[^A-Za-z0-9]", "_", val))
            os.makedirs(new, exist_ok=True)
        elif key in SIZE_OPTS and "%" not in val:
            b = parse_bytes(val)
            if b is None or b > CAP_BYTES:
                new = "16m"
        elif key in TIME_OPTS:
            s = parse_secs(val)
            if s is None or s > CAP_TIME_S:
                new = "%ds" % CAP_TIME_S
        elif key in CAPS_COUNT:
            try:
                if int(val) > CAPS_COUNT[key]:
                    new = str(CAPS_COUNT[key])
            except ValueError:
                pass
        if new != val:
            changed.append("%s=%s -> %s" % (key, val, new))
        out.append(ind + m.group(2) + eq + new + tail)
    text = "\n".join(out) + "\n"
    # a rate-limited example would take minutes at its rate: a runtime on
    # every job (its own, if shorter, stays); the op mix is compared then
    if re.search(r"^\s*rate(_iops)?(_min)?\s*=", text, re.M) and not re.search(r"^\s*runtime\s*=", text, re.M):
        text = re.sub(r"^(\[[^\]]+\])$", r"\1\nruntime=%ds" % CAP_TIME_S, text, count=1, flags=re.M)
        changed.append("runtime=%ds added (rate-limited)" % CAP_TIME_S)
    return text, changed


def run(cmd, cwd, out):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "timeout", None, ""
    doc = None
    try:
        with open(out) as f:
            t = f.read()
        doc = json.loads(t[t.index("{"):]) if "{" in t else None
    except (OSError, ValueError):
        doc = None
    return p.returncode, doc, (p.stderr or "").strip().splitlines()[-1:] if p.returncode else ""


def jobs_of(doc):
    """{job name: {dir: (bytes, ios)}, plus whether it reached its runtime}"""
    res = {}
    glob = (doc or {}).get("global options") or {}
    for j in (doc or {}).get("jobs", []):
        name = j.get("jobname")
        j = dict(j, **{"job options": dict(glob, **(j.get("job options") or {}))})
        d = res.setdefault(name, {"dirs": {x: [0, 0] for x in DIRS}, "timed": False,
                                  "rw": str((j.get("job options") or {}).get("rw", ""))})
        for x in DIRS:
            s = j.get(x) or {}
            d["dirs"][x][0] += s.get("io_bytes", 0)
            d["dirs"][x][1] += s.get("total_ios", 0)
        opts = j.get("job options") or {}
        rt = parse_secs(str(opts.get("runtime", "0"))) or 0
        if opts.get("time_based") in ("1", "") or (rt and j.get("job_runtime", 0) >= rt * 1000 - 50):
            d["timed"] = True
    return res


def compare(fj, rj, timed_hint):
    diffs = []
    for name in sorted(set(fj) | set(rj), key=str):
        if name not in fj or name not in rj:
            diffs.append("job %s only under %s" % (name, "fio" if name in fj else "rqlock"))
            continue
        fd, rd = fj[name]["dirs"], rj[name]["dirs"]
        if fj[name]["timed"] or timed_hint:
            fi, ri = sum(v[1] for v in fd.values()), sum(v[1] for v in rd.values())
            for x in DIRS:
                fs, rs = (fd[x][1] / fi if fi else 0), (rd[x][1] / ri if ri else 0)
                if abs(fs - rs) > 0.05:
                    diffs.append("%s: %s share of I/Os %.2f vs fio %.2f" % (name, x, rs, fs))
            if (fi == 0) != (ri == 0):
                diffs.append("%s: %d I/Os vs fio %d" % (name, ri, fi))
        elif sum(1 for x in DIRS if fd[x][1]) > 1 and re.search(r"rand", fj[name]["rw"]):
            # a random mix: which I/O reads and which writes is each tool's
            # own random choice (rqlock's generator is not fio's): the bytes
            # of all directions together, and the mix within 0.05
            if sum(v[0] for v in fd.values()) != sum(v[0] for v in rd.values()):
                diffs.append("%s: %d B vs fio %d B" % (name, sum(v[0] for v in rd.values()),
                                                      sum(v[0] for v in fd.values())))
            fi, ri = sum(v[1] for v in fd.values()), sum(v[1] for v in rd.values())
            for x in DIRS:
                if abs(fd[x][1] / fi - (rd[x][1] / ri if ri else 0)) > 0.05:
                    diffs.append("%s: %s share of I/Os %.2f vs fio %.2f" % (name, x, rd[x][1] / ri if ri else 0,
                                                                           fd[x][1] / fi))
            if abs(ri - fi) > 0.05 * fi:
                diffs.append("%s: %d I/Os vs fio %d (mean size %.0f vs %.0f B)" % (
                    name, ri, fi, sum(v[0] for v in rd.values()) / max(ri, 1), sum(v[0] for v in fd.values()) / fi))
        else:
            for x in DIRS:
                if fd[x] != rd[x]:
                    diffs.append("%s: %s %d B in %d I/Os vs fio %d B in %d" % (name, x, rd[x][0], rd[x][1],
                                                                               fd[x][0], fd[x][1]))
    return diffs


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: fio_examples_run.py RQLOCK EXAMPLES_DIR [NAME...]")
    rqlock, ex, only = os.path.abspath(argv[1]), argv[2], set(argv[3:])
    if not shutil.which("fio"):
        print("SKIP: fio is not installed")
        return 77
    same = ran = 0
    bad = []
    for name in sorted(os.listdir(ex)):
        if not name.endswith(".fio") or (only and name not in only):
            continue
        path = os.path.join(ex, name)
        if subprocess.run(["fio", "--parse-only", path], capture_output=True).returncode != 0:
            continue
        if subprocess.run([rqlock, "run", "--parse-only", path], capture_output=True).returncode != 0:
            continue
        top = tempfile.mkdtemp(prefix="rqlock-ex.")
        try:
            res = {}
            for tool in ("fio", "rqlock"):
                w = os.path.join(top, tool)
                os.makedirs(w)
                with open(path) as f:
                    text, changed = rewrite(f.read(), w)
                job = os.path.join(w, name)
                with open(job, "w") as f:
                    f.write(text)
                out = os.path.join(w, "out.json")
                cmd = (["fio"] if tool == "fio" else [rqlock, "run"]) + \
                    ["--output-format=json", "--output=" + out, job]
                res[tool] = run(cmd, w, out)
            (frc, fdoc, ferr), (rrc, rdoc, rerr) = res["fio"], res["rqlock"]
            # time_based, or a job that stops the others when it ends: bytes follow the clock
            timed = bool(re.search(r"^\s*(time_based|exitall|exit_what)", text, re.M))
            diffs = []
            # fio exits 1 (or the count of failed jobs) where rqlock refuses bad input with 2
            if (frc == 0) != (rrc == 0):
                diffs.append("exit %s vs fio %s%s" % (rrc, frc, (": " + rerr[0]) if rerr else ""))
            elif frc == 0:
                diffs += compare(jobs_of(fdoc), jobs_of(rdoc), timed)
            if frc == 0:
                ran += 1
            tag = " (fio: exit %s)" % frc if frc else ""
            if diffs:
                bad.append(name)
                print("DIFFERS %s%s: %s%s" % (name, tag, "; ".join(diffs[:4]), " ..." if len(diffs) > 4 else ""))
            else:
                same += 1
                print("same    %s%s%s" % (name, tag, ("  [%s]" % ", ".join(changed)) if changed else ""))
        finally:
            shutil.rmtree(top, ignore_errors=True)
        sys.stdout.flush()
    print("%d of %d examples the same under fio and rqlock (%d that fio runs here)" % (same, same + len(bad), ran))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
