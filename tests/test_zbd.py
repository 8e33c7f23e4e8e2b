#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
test_zbd.py - zonemode=zbd on a regular file, emulated as fio 3.33's zbd.c
does it (issue 34): rqlock refused zonemode=zbd when a job ran.

Each job below runs on a sparse file under rqlock in every lock mode, and
under fio 3.33 where it is installed; the bytes and I/Os per direction, the
exit status and the zone resets (the normal output's "; N zone resets") must
be what fio's rules give, written beside each case (from zbd.c: writes at
the write pointer, reads below it, zonecapacity, max_open_zones, a full zone
reset before it is written again or skipped under verify, the zone reset
threshold and frequency, trims resetting zones), and fio's own numbers where
fio runs.  Many of them are fio's t/zbd/test-zbd-support cases on a file.

Exit 0 pass, 1 fail.  Without fio the rqlock side still runs.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

RQLOCK = os.environ.get("RQLOCK") or sys.exit("RQLOCK must name the rqlock binary")
ZS = 64 << 10			# the zone size of every case: fio's test script's on a plain device
FILE_BYTES = 4 << 20		# 64 zones
fails = []


def modes():
    out = subprocess.run([RQLOCK, "--list"], capture_output=True, text=True).stdout
    sect = out.split("Lock modes", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  (\S+) ", sect, re.M)


def run(tool, args, cwd, mode=None):
    """(exit status, {job: {dir: (bytes, ios)}}, zone resets per job, stderr)"""
    env = dict(os.environ)
    if mode:
        env["RQLOCK_LOCK"] = mode
    cmd = (["fio"] if tool == "fio" else [RQLOCK, "run"]) + ["--output-format=json,normal"] + args
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
    jobs, resets = {}, {}
    out = p.stdout
    if "{" in out:
        try:
            doc, end = json.JSONDecoder().raw_decode(out[out.index("{"):])
            for j in doc["jobs"]:
                jobs[j["jobname"]] = {d: (j[d]["io_bytes"], j[d]["total_ios"]) for d in ("read", "write", "trim")}
            out = out[out.index("{") + end:]
        except ValueError:
            pass
    name = None
    for line in out.splitlines():
        m = re.match(r"^(\S.*): \(groupid=", line)
        if m:
            name = m.group(1)
        m = re.search(r"write: .*; (\d+) zone resets", line)
        if m and name:
            resets[name] = int(m.group(1))
    return p.returncode, jobs, resets, p.stderr


def fresh(top):
    path = os.path.join(top, "zf")
    with open(path, "w") as f:
        f.truncate(FILE_BYTES)
    return path


def opts(**kw):
    return ["--%s=%s" % (k.replace("__", "-"), v) for k, v in kw.items()]


def case(name, args, want, resets=None, rc=0):
    """
    Run @args (fio's command line; the file is zf) under every tool and
    mode.  @want {job: {dir: bytes}} (None: not compared), @resets {job:
    set of counts}, @rc 0 or "fail" (an error exit).
    """
    top = tempfile.mkdtemp(prefix="rqlock-zbd.")
    try:
        tools = [("rqlock", m) for m in modes()] + ([("fio", None)] if shutil.which("fio") else [])
        for tool, mode in tools:
            fresh(top)
            code, jobs, rs, err = run(tool, args, top, mode)
            who = "%s%s" % (tool, "/" + mode if mode else "")
            if (code == 0) != (rc == 0):
                fails.append("%s: %s exit %d: %s" % (name, who, code, err.strip().splitlines()[-1:] or ""))
                continue
            if rc:
                continue
            if callable(want):
                why = want(jobs)
                if why:
                    fails.append("%s: %s %s" % (name, who, why))
            for job, dirs in (want if isinstance(want, dict) else {}).items():
                for d, b in dirs.items():
                    got = jobs.get(job, {}).get(d, (None, None))[0]
                    if got != b:
                        fails.append("%s: %s %s %s %s bytes, want %d" % (name, who, job, d, got, b))
            for job, ok in (resets or {}).items():
                if rs.get(job) not in ok:
                    fails.append("%s: %s %s %s zone resets, want %s" % (name, who, job, rs.get(job), sorted(ok)))
        print("%s %s" % ("FAIL" if any(x.startswith(name + ":") for x in fails) else "ok  ", name))
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main():
    base = opts(filename="zf", zonemode="zbd", zonesize=ZS, direct=1)
    one = lambda name, **kw: ["--name=" + name] + base + opts(**kw)
    # sequential write then read: the read sees what the writer left (zones shared by jobs)
    case("seq write, read below the write pointer",
         one("w", rw="write", bs="4k", size=4 * ZS) + one("r", rw="read", bs="4k", size=8 * ZS, wait_for="w"),
         {"w": {"write": 4 * ZS}, "r": {"read": 4 * ZS}})
    # read_beyond_wp=1: every byte of the empty zones is read
    case("read beyond the write pointer", one("r", rw="read", bs="16k", size=2 * ZS, read_beyond_wp=1),
         {"r": {"read": 2 * ZS}})
    # empty zones: nothing to read, and no error (fio's test 3)
    case("read of empty zones", one("r", rw="read", bs="4k", offset=8 * ZS, size=ZS), {"r": {"read": 0}})
    # zonecapacity: a sequential writer jumps to the next zone at the capacity (test 49)
    case("zone capacity", one("w", rw="write", bs="4k", size=2 * ZS, zonecapacity=ZS * 3 // 4, verify="md5"),
         {"w": {"write": 2 * ZS * 3 // 4, "read": 2 * ZS * 3 // 4}})
    # a full zone is reset before it is written again: 4 loops of one zone, 3 resets (test 26)
    case("overwrite loops", one("w", rw="write", bs="4k", size=ZS, loops=4), {"w": {"write": 4 * ZS}},
         {"w": {3}})
    # under verify the region's zones start empty each pass: 4 resets (test 26 with verify)
    case("overwrite loops, verify", one("w", rw="randwrite", bs="4k", size=ZS, loops=4, verify="md5"),
         {"w": {"write": 4 * ZS, "read": 4 * ZS}}, {"w": {3}})
    # random writes go to write pointers; one open zone at a time (test 12)
    case("max_open_zones=1", one("w", rw="randwrite", bs="16k", size=8 * ZS, max_open_zones=1, ioengine="libaio",
                                 iodepth=16, verify="md5"),
         {"w": {"write": 8 * ZS, "read": 8 * ZS}})
    # mixed sizes: the random map takes what a zone left a write (test 11)
    case("bsrange under verify", one("w", rw="randwrite", bsrange="4k-64k", size=4 * ZS, ioengine="libaio",
                                     iodepth=32, verify="md5"),
         {"w": {"write": 4 * ZS, "read": 4 * ZS}})
    # randrw: the first I/Os write (nothing to read yet); reads and writes add up (test 17)
    top_rw = one("rw", rw="randrw", bs="4k", size=ZS, offset=60 * ZS, loops=2, norandommap=1, ioengine="libaio",
                 iodepth=8)
    case("randrw in one zone", top_rw,
         lambda j: None if sum(j.get("rw", {}).get(d, (0, 0))[0] for d in ("read", "write")) == 2 * ZS
         else "read + written %s, want %d" % (j.get("rw"), 2 * ZS))
    # zone_reset_frequency: one write in 100 resets past 90% full; 9 loops of one zone (test 24)
    case("zone reset threshold and frequency",
         one("w", rw="write", bs="64k", size=ZS, loops=9, zone_reset_frequency=".01", zone_reset_threshold=".90"),
         {"w": {"write": 9 * ZS}}, {"w": {8, 9, 10}})
    # 8 clones share the zones: every write lands, group_reporting sums them (test 46)
    case("numjobs=8 share zones", one("w", rw="randwrite", bs="4k", size=4 * ZS, numjobs=8, group_reporting=1,
                                      ioengine="libaio", iodepth=32),
         {"w": {"write": 8 * 4 * ZS}})
    # trims reset zones: two zones written, both trimmed
    case("trims reset zones",
         one("w", rw="write", bs="16k", size=2 * ZS) + one("t", rw="trim", bs=ZS, size=2 * ZS, wait_for="w") +
         one("r", rw="read", bs="16k", size=2 * ZS, wait_for="t"),
         {"w": {"write": 2 * ZS}, "t": {"trim": 2 * ZS}, "r": {"read": 0}})
    # zone counts: size=2z from offset=1z
    case("zone counts", one("w", rw="write", bs="4k", size="2z", offset="1z"), {"w": {"write": 2 * ZS}})
    # a region rounded to whole zones: size = a zone and 1k writes a zone (test 37)
    case("region rounded down", one("w", rw="write", bs="16k", size=ZS + 1024), {"w": {"write": ZS}})
    # errors: no zone size; a write larger than a zone; a region of less than a zone
    case("zonesize missing", ["--name=e", "--filename=zf", "--zonemode=zbd", "--rw=write", "--size=64k"], None,
         rc="fail")
    case("bs above the zone size", one("e", rw="write", bs=2 * ZS, size=2 * ZS), None, rc="fail")
    case("region under a zone", one("e", rw="write", bs="4k", offset=512, size=ZS - 1024), None, rc="fail")
    case("verify bs not a divisor", one("e", rw="write", bs=3 * ZS // 4, size=2 * ZS, verify="md5"), None,
         rc="fail")
    for f in fails:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
