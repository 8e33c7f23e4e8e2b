#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
fio_examples_run.py [--time-cap S] RQLOCK EXAMPLES_DIR [NAME...] - Debian's
fio examples run side by side under fio 3.33 and rqlock (issue 34).

Every example is listed with a verdict; none is left out unsaid:

  fio refuses  fio 3.33 itself does not parse it here (an engine this fio
               was built without, options of one): nothing to compare
  refused      rqlock refuses it, and only because it names an ioengine or
               an engine's option rqlock does not have (a block layer has no
               cpuio, net or http engine); any other refusal DIFFERS
  same         run by both, the same (below)
  known        run by both, a difference docs/ name, checked to be that one
               (KNOWN below): the cause is verified in the run, not assumed
  excluded     not run, for the reason printed (fill_device without root)
  DIFFERS      anything else

Each run is from one rewritten copy of the example, in a fresh directory
per tool, so that it is safe and short here and the same for both:

  filename=/dev/X, /abs/path   a file in the run's directory (never a device);
                               one the example only reads (no size given) is a
                               sparse stand-in of 128 MiB, or as large as the
                               example's offset and zones need
  directory=DIR                a directory in the run's directory
  size, filesize, io_size,     at most 16 MiB, or two zones of a zonemode=zbd
  io_limit, offset_increment   example (an example sized for a real disk: 10G)
  runtime, ramp_time,          at most 2 s (startdelay too)
  startdelay
  loops, numjobs               at most 3 and 4
  fill_device=1                the run's directory is a 16 MiB tmpfs of its
                               own (mounted for the run; root only), so that
                               "until the device is full" ends there and not
                               on this machine's disk

then each JSON report's jobs are compared: exit status (zero or not), and
per job name the bytes and I/Os of each direction.  A job that ran until
its runtime (time_based, or a runtime it reached) cannot give equal bytes:
there the op mix (each direction's share of the I/Os) must agree within
0.05.  A random job whose end is fio's random map's (a pass ends when the
map cannot place the next I/O, which depends on the random draws: fio's
own bytes vary from seed to seed), or whose mix of reads and writes is
the draws' (a few hundred I/Os: fio's own read share is 0.45 to 0.56 from
seed to seed), is run again under SEEDS seeds by both tools and its bytes
and read share compared as distributions (an exact two-sided
Mann-Whitney test, p < 0.01 differs): rqlock's generator is not fio's.

Prints one line per example and the counts.  Exit 0 when every example fio
runs is the same or a checked known difference, 1 otherwise, 77 without
fio.  --time-cap S: examples not started within S seconds are listed as
"not reached" and fail the run (a cap is for a slow build, not a way to
leave examples out).
"""
import gzip
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CAP_BYTES = 16 << 20
CAP_TIME_S = 2
CAPS_COUNT = {"loops": 3, "numjobs": 4}
SIZE_OPTS = ("size", "filesize", "io_size", "io_limit", "offset_increment")
TIME_OPTS = ("runtime", "ramp_time", "startdelay")
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}
TUNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "ms": 0.001, "us": 1e-6}
DIRS = ("read", "write", "trim")
STANDIN_BYTES = 128 << 20
SEEDS = 7
RUN_TIMEOUT_S = 40
# what rqlock says when it refuses an engine it does not have (jobfile/options.c)
ENGINE_REFUSAL = re.compile(r"ioengine=\S+ is not supported in rqlock|"
                            r"option '[^']+' belongs to fio's ioengine=")


def parse_bytes(v):
    m = re.fullmatch(r"(\d+)\s*([kmgtp]?)(i?b)?", v.strip().lower())
    return int(m.group(1)) * UNITS[m.group(2)] if m else None


def parse_secs(v):
    m = re.fullmatch(r"(\d+)\s*(s|m|h|d|ms|us)?", v.strip().lower())
    return int(m.group(1)) * TUNITS[m.group(2) or ""] if m else None


def option_values(text, key):
    """The values an example gives @key on its uncommented lines."""
    return [m.group(1).strip() for m in
            re.finditer(r"^\s*%s\s*=\s*([^;#\n]*)" % re.escape(key), text, re.M)]


def zone_bytes(text):
    """The largest zonesize of a zonemode=zbd example, else 0."""
    if "zbd" not in option_values(text, "zonemode"):
        return 0
    return max([parse_bytes(v) or 0 for v in option_values(text, "zonesize")] + [0])


def size_cap(text):
    """
    What a size is capped at: 16 MiB, and two zones of a zonemode=zbd
    example (a region inside one zone is not what such an example asks
    for, and fio 3.33 asserts on a sequential read's: zbd.c
    zbd_setup_files(), min_zone < max_zone).
    """
    return max(CAP_BYTES, 2 * zone_bytes(text))


def standin_bytes(text):
    """
    A stand-in device as large as the example needs: its offset plus what
    it moves there, and with zonemode=zbd four zones at least (fio 3.33
    refuses a device smaller than a zone); sparse, so only what is written
    takes room.
    """
    need = STANDIN_BYTES
    offs = [parse_bytes(v) or 0 for v in option_values(text, "offset")]
    if offs:
        need = max(need, max(offs) + size_cap(text) + zone_bytes(text))
    need = max(need, 4 * zone_bytes(text))
    return (need + (1 << 20) - 1) >> 20 << 20


def rewrite(text, wdir):
    """
    The example made safe and short (the module's text); the lines
    changed are returned too.  A device the example names becomes a
    sparse file in wdir (so that the example runs: a job on a device gives
    no size of its own), and so does a file it names by absolute path when
    it gives no size to lay one out with.
    """
    out, changed = [], []
    sized = any(option_values(text, k) for k in ("size", "filesize", "io_size", "io_limit"))
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
                standin = False
                if f.startswith("/dev/") and f not in ("/dev/null", "/dev/zero"):
                    f, standin = "dev-" + os.path.basename(f), True
                elif f.startswith("/"):
                    f, standin = os.path.basename(f) or "file", not sized
                if standin:
                    with open(os.path.join(wdir, f), "a") as sf:
                        sf.truncate(standin_bytes(text))
                parts.append(f)
            new = ":".join(parts)
        elif key == "directory":
            new = os.path.join(wdir, "dir-" + re.sub(r"[^A-Za-z0-9]", "_", val))
            os.makedirs(new, exist_ok=True)
        elif key in SIZE_OPTS and "%" not in val:
            b = parse_bytes(val)
            if b is None or b > size_cap(text):
                new = "%dm" % (size_cap(text) >> 20)
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


def with_option(text, line):
    """@line (KEY=VALUE) in every section, in place of the example's own KEY."""
    key = line.split("=", 1)[0]
    text = re.sub(r"^\s*%s\s*=.*$" % re.escape(key), "", text, flags=re.M)
    return re.sub(r"^(\[[^\]]+\])$", r"\1\n%s" % line, text, flags=re.M)


def descendants(pid):
    """Every process under @pid (fio's job processes start sessions of their own)."""
    kids = {}
    for d in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
        except (OSError, ValueError, IndexError):
            continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def run(cmd, cwd, out, timeout=RUN_TIMEOUT_S):
    """(exit status or "timeout", the JSON report or None, stderr's lines)"""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        # fio forks its jobs, each in a session of its own: all of them go
        for pid in descendants(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _, err = p.communicate()
        rc = "timeout"
    doc = None
    try:
        with open(out) as f:
            t = f.read()
        doc = json.loads(t[t.index("{"):]) if "{" in t else None
    except (OSError, ValueError):
        doc = None
    return rc, doc, (err or "").strip().splitlines()


def jobs_of(doc):
    """{job name: {dir: (bytes, ios)}, plus whether it reached its runtime}"""
    res = {}
    glob = (doc or {}).get("global options") or {}
    for j in (doc or {}).get("jobs", []):
        name = j.get("jobname")
        j = dict(j, **{"job options": dict(glob, **(j.get("job options") or {}))})
        d = res.setdefault(name, {"dirs": {x: [0, 0] for x in DIRS}, "timed": False, "error": 0,
                                  "rw": str((j.get("job options") or {}).get("rw", ""))})
        for x in DIRS:
            s = j.get(x) or {}
            d["dirs"][x][0] += s.get("io_bytes", 0)
            d["dirs"][x][1] += s.get("total_ios", 0)
        d["error"] = d["error"] or j.get("error", 0)
        opts = j.get("job options") or {}
        rt = parse_secs(str(opts.get("runtime", "0"))) or 0
        if opts.get("time_based") in ("1", "") or (rt and j.get("job_runtime", 0) >= rt * 1000 - 50):
            d["timed"] = True
    return res


def mix_diffs(name, fd, rd):
    diffs = []
    fi, ri = sum(v[1] for v in fd.values()), sum(v[1] for v in rd.values())
    for x in DIRS:
        fs, rs = (fd[x][1] / fi if fi else 0), (rd[x][1] / ri if ri else 0)
        if abs(fs - rs) > 0.05:
            diffs.append("%s: %s share of I/Os %.2f vs fio %.2f" % (name, x, rs, fs))
    return diffs, fi, ri


def compare(fj, rj, timed_hint):
    """[(job, what differs, whether the job's end is random)]"""
    diffs = []
    for name in sorted(set(fj) | set(rj), key=str):
        if name not in fj or name not in rj:
            diffs.append((name, "job %s only under %s" % (name, "fio" if name in fj else "rqlock"), False))
            continue
        fd, rd = fj[name]["dirs"], rj[name]["dirs"]
        rand = bool(re.search(r"rand", fj[name]["rw"]))
        if fj[name]["timed"] or timed_hint:
            d, fi, ri = mix_diffs(name, fd, rd)
            if (fi == 0) != (ri == 0):
                d.append("%s: %d I/Os vs fio %d" % (name, ri, fi))
            diffs += [(name, x, False) for x in d]
        elif sum(1 for x in DIRS if fd[x][1]) > 1 and rand:
            # a random mix: which I/O reads and which writes is each tool's
            # own random choice (rqlock's generator is not fio's): the bytes
            # of all directions together, and the mix within 0.05
            fb, rb = sum(v[0] for v in fd.values()), sum(v[0] for v in rd.values())
            if fb != rb:
                diffs.append((name, "%s: %d B vs fio %d B" % (name, rb, fb), True))
            # which I/O reads is the draws' choice: a mix that differs is judged over seeds
            d, fi, ri = mix_diffs(name, fd, rd)
            diffs += [(name, x, True) for x in d]
            if abs(ri - fi) > 0.05 * fi:
                diffs.append((name, "%s: %d I/Os vs fio %d (mean size %.0f vs %.0f B)" % (
                    name, ri, fi, rb / max(ri, 1), fb / fi), True))
        else:
            for x in DIRS:
                if fd[x] != rd[x]:
                    diffs.append((name, "%s: %s %d B in %d I/Os vs fio %d B in %d" % (
                        name, x, rd[x][0], rd[x][1], fd[x][0], fd[x][1]), rand))
    return diffs


def mann_whitney_p(a, b):
    """Exact two-sided p of the Mann-Whitney U of samples @a and @b (ties count a half)."""
    def u_of(x, y):
        return sum(1.0 if xi > yi else 0.5 if xi == yi else 0.0 for xi in x for yi in y)

    pooled, n = a + b, len(a)
    u0 = u_of(a, b)
    mean = len(a) * len(b) / 2.0
    dev = abs(u0 - mean)
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), n):
        s = set(idx)
        x = [pooled[i] for i in idx]
        y = [pooled[i] for i in range(len(pooled)) if i not in s]
        total += 1
        hits += abs(u_of(x, y) - mean) >= dev - 1e-9
    return hits / total


class Run:
    """One example's runs: the rewritten copies, each tool's result."""

    def __init__(self, rqlock, path, name):
        self.rqlock, self.path, self.name = rqlock, path, name
        with open(path) as f:
            self.text = f.read()
        self.fill = bool(re.search(r"^\s*(fill_device|fill_fs)\s*=\s*(1|true)?\s*$", self.text, re.M))
        self.changed = []

    def once(self, tool, extra=None, timeout=RUN_TIMEOUT_S):
        """Run @tool on a fresh copy (@extra: a line added to every section)."""
        top = tempfile.mkdtemp(prefix="rqlock-ex.")
        mounted = False
        try:
            w = os.path.join(top, tool)
            os.makedirs(w)
            if self.fill:
                # fill_device writes until ENOSPC: a filesystem of its own
                if os.geteuid() != 0 or subprocess.run(
                        ["mount", "-t", "tmpfs", "-o", "size=%d" % CAP_BYTES, "tmpfs", w],
                        capture_output=True).returncode:
                    return "no-tmpfs", None, []
                mounted = True
            text, self.changed = rewrite(self.text, w)
            if extra:
                text = with_option(text, extra)
            job = os.path.join(w, self.name)
            with open(job, "w") as f:
                f.write(text)
            out = os.path.join(top, tool + ".json")
            cmd = (["fio"] if tool == "fio" else [self.rqlock, "run"]) + \
                ["--output-format=json", "--output=" + out, job]
            if self.fill:
                # verify state files outside the filesystem the example fills
                cmd.insert(2 if tool == "rqlock" else 1, "--aux-path=" + top)
            return run(cmd, w, out, timeout)
        finally:
            if mounted:
                subprocess.run(["umount", "-l", os.path.join(top, tool)], capture_output=True)
            shutil.rmtree(top, ignore_errors=True)


def seeds_differ(r, jobs):
    """
    The @jobs whose end or mix the draws decide, over SEEDS seeds: their
    bytes and their share of reads, as distributions.
    """
    none = {"dirs": {x: [0, 0] for x in DIRS}}
    seen = {t: {j: ([], []) for j in jobs} for t in ("fio", "rqlock")}
    for k in range(1, SEEDS + 1):
        for tool in ("fio", "rqlock"):
            rc, doc, _ = r.once(tool, "randseed=%d" % (1000 + k))
            if rc != 0:
                return ["seed %d: %s exit %s" % (k, tool, rc)]
            js = jobs_of(doc)
            for j in jobs:
                d = js.get(j, none)["dirs"]
                ios = sum(v[1] for v in d.values())
                seen[tool][j][0].append(sum(v[0] for v in d.values()))
                seen[tool][j][1].append(d["read"][1] / ios if ios else 0.0)
    out = []
    for j in jobs:
        for i, what in ((0, "MiB"), (1, "read share")):
            f, q = seen["fio"][j][i], seen["rqlock"][j][i]
            p = mann_whitney_p(q, f)
            if p < 0.01:
                show = (lambda v: sorted(x >> 20 for x in v)) if i == 0 else (lambda v: sorted(round(x, 2) for x in v))
                out.append("%s: %s over %d seeds %s vs fio %s (p=%.4f)" % (j, what, SEEDS, show(q), show(f), p))
    return out


# ---- known differences: each with where it is written and a check that it is the one seen

def known_enospc(fj, rj, ferr, rerr):
    """fio's trim job failed with ENOTTY, rqlock's trimmed; the rest ran under rqlock."""
    trims = [n for n in fj if fj[n]["rw"] == "randtrim"]
    return bool(trims) and all(fj[n]["error"] == 25 for n in trims) and \
        all(rj[n]["dirs"]["trim"][1] > 0 for n in trims if n in rj)


def known_cross_stripe(fj, rj, ferr, rerr):
    """
    rqlock refused the overlap; fio reported the other clones' writes as
    corruption, or (its clones' timing) passed this time.
    """
    return any("each verify log knows only its own writes" in x for x in rerr) and \
        (any("bad header" in x for x in ferr) or all(not j["error"] for j in fj.values()))


KNOWN = {
    "enospc-pressure.fio": (
        known_enospc,
        "fio (3.33 and later) trims a regular file with BLKDISCARD (os/os-linux.h os_trim()), "
        "which fails with ENOTTY: its punch_hole job errs at once and exitall ends the others; "
        "rqlock punches the hole (docs/ARCHITECTURE.md, Trims)"),
    "cross-stripe-verify.fio": (
        known_cross_stripe,
        "its clones' regions overlap (each writes io_size across the stripes after its own), so "
        "fio 3.33 reports each other's writes as corruption when their timing lets one land "
        "between another's write and read-back (exit 3 here, or 0); rqlock refuses verifying "
        "clones that overlap before anything is written (engine/setup.c check_shared_verify(), "
        "docs/ARCHITECTURE.md)"),
}

# fio 3.33 hangs here where an example asks for io_submit_mode=offload (a race in
# workqueue.c start_worker(): the worker's SW_F_RUNNING overwritten by SW_F_IDLE,
# so workqueue_init() waits for ever; fixed by 736c2015, fio 3.42): the
# reference is fio's inline run, which offload only moves to other threads
OFFLOAD = re.compile(r"^\s*io_submit_mode\s*=\s*offload", re.M)


def judge(r):
    """(verdict, text) of one example that both tools parse."""
    offload = bool(OFFLOAD.search(r.text))
    # fio's hang with offload shows within seconds: the example's runtime is 2 s here
    frc, fdoc, ferr = r.once("fio", timeout=12 if offload else RUN_TIMEOUT_S)
    note = ""
    if frc == "no-tmpfs":
        return "excluded", ": fill_device writes until the filesystem is full: it runs in a 16 MiB " \
            "tmpfs of its own, which only root can mount"
    if frc == "timeout" and offload:
        frc, fdoc, ferr = r.once("fio", "io_submit_mode=inline")
        note = " (fio 3.33 hangs with io_submit_mode=offload: compared with its inline run)"
    rrc, rdoc, rerr = r.once("rqlock")
    text = r.text
    timed = bool(re.search(r"^\s*(time_based|exitall|exit_what)", text, re.M))
    diffs = []
    fj, rj = jobs_of(fdoc), jobs_of(rdoc)
    if r.name in KNOWN and KNOWN[r.name][0](fj, rj, ferr, rerr):
        return "known", KNOWN[r.name][1]
    if (frc == 0) != (rrc == 0):
        diffs.append("exit %s vs fio %s%s" % (rrc, frc, (": " + rerr[-1]) if rerr and rrc else ""))
    elif frc == 0:
        found = compare(fj, rj, timed)
        random_end = sorted({j for j, _, rnd in found if rnd})
        rest = [d for j, d, rnd in found if j not in random_end]
        diffs += rest
        if random_end:
            diffs += seeds_differ(r, random_end)
            if not rest and len(diffs) == 0:
                note += " (drawn %s: the same over %d seeds)" % (", ".join(random_end), SEEDS)
    tag = " (fio: exit %s)" % frc if frc else ""
    if diffs:
        return "DIFFERS", "%s%s: %s%s" % (tag, note, "; ".join(diffs[:4]), " ..." if len(diffs) > 4 else "")
    return "same", "%s%s%s" % (tag, note, ("  [%s]" % ", ".join(r.changed)) if r.changed else "")


def plain_copy(path, tmp):
    """A .fio.gz example as a plain file."""
    if not path.endswith(".gz"):
        return path
    out = os.path.join(tmp, os.path.basename(path)[:-3])
    with gzip.open(path, "rt") as f, open(out, "w") as g:
        g.write(f.read())
    return out


def main(argv):
    args = argv[1:]
    cap = None
    if args[:1] == ["--time-cap"]:
        cap, args = float(args[1]), args[2:]
    if len(args) < 2:
        sys.exit("usage: fio_examples_run.py [--time-cap S] RQLOCK EXAMPLES_DIR [NAME...]")
    rqlock, ex, only = os.path.abspath(args[0]), args[1], set(args[2:])
    if not shutil.which("fio"):
        print("SKIP: fio is not installed")
        return 77
    t0 = time.monotonic()
    count = {}
    failed = []
    unz = tempfile.mkdtemp(prefix="rqlock-exz.")
    try:
        for name in sorted(os.listdir(ex)):
            if not re.search(r"\.fio(\.gz)?$", name):
                continue
            path = plain_copy(os.path.join(ex, name), unz)
            name = os.path.basename(path)
            if only and name not in only:
                continue
            if cap is not None and time.monotonic() - t0 > cap:
                verdict, text = "NOT REACHED", " within --time-cap %gs" % cap
            elif subprocess.run(["fio", "--parse-only", path], capture_output=True).returncode != 0:
                verdict, text = "fio refuses", ""
            else:
                p = subprocess.run([rqlock, "run", "--parse-only", path], capture_output=True, text=True)
                why = [x for x in p.stderr.splitlines() if ": warning: " not in x][:1]
                if p.returncode == 0:
                    verdict, text = judge(Run(rqlock, path, name))
                elif why and ENGINE_REFUSAL.search(why[0]):
                    verdict, text = "refused", ": " + why[0].split(": ", 1)[-1]
                else:
                    verdict, text = "DIFFERS", ": rqlock refuses what fio parses: %s" % (why[0] if why else p.returncode)
            count[verdict] = count.get(verdict, 0) + 1
            if verdict in ("DIFFERS", "NOT REACHED"):
                failed.append(name)
            print("%-11s %s%s" % (verdict, name, text if verdict != "known" else ": " + text))
            sys.stdout.flush()
    finally:
        shutil.rmtree(unz, ignore_errors=True)
    ran = count.get("same", 0) + count.get("known", 0) + count.get("DIFFERS", 0)
    print("%d of %d examples both run are the same under fio and rqlock, %d a known difference, "
          "%d differ; %d refused (an engine rqlock lacks), %d fio refuses, %d excluded, %d not reached" % (
              count.get("same", 0), ran, count.get("known", 0), count.get("DIFFERS", 0),
              count.get("refused", 0), count.get("fio refuses", 0), count.get("excluded", 0),
              count.get("NOT REACHED", 0)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
