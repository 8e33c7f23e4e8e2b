#!/usr/bin/env python3
"""judge.py - the host's verdict on what scripts/vm --checks brought back.

The guest (guest-checks.sh, busybox only) runs things and records exit
codes; everything that needs parsing happens here, after the VM is gone:

  steps       every step of steps.tsv: ok, fail, or unavailable (a feature
              this build of rqlock does not have yet; reported, not failed)
  runs        every rqlock and fio JSON of runs.tsv: no job error, the
              bytes the region holds written or read, submitted = completed,
              and for rqlock's reads every sector's stamp checked
              (rqlock.sectors_verified = region / 512)
  kinds       the device rqlock opened is the kind the driver makes:
              nvme0nX nvme, sdX sata, fd0 floppy; its size is the backing file's
  identify    nvme-cli's list and id-ns (through /dev/nvme0nX and through
              the passthrough /dev/ng0nX) agree with each other, with the
              backing files and with rqlock's view (the run JSON's device
              and, when the build has it, `rqlock devices --json`)
  stamps      the sectors rqlock wrote are in the backing files on the host,
              each at its own offset: the kernel driver put the data where
              it was asked to
  dmesg       the splats scripts/vm found in the guest's kernel log

Exit 0 when nothing failed.  Timings are TCG wall time and are not shown as
performance figures.
"""
import argparse
import json
import os
import struct
import sys

STAMP_MAGIC = 0x72716C6F636B5354  # "rqlockST", engine/engine.c
SECTOR = 512


def parse_size(s):
    s = s.strip().lower()
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    if s and s[-1] in mult:
        return int(s[:-1]) * mult[s[-1]]
    return int(s)


def expected_kind(dev):
    base = os.path.basename(dev)
    if base.startswith("nvme") or base.startswith("ng"):
        return "nvme"
    if base.startswith("sd"):
        return "sata"
    if base.startswith("fd"):
        return "floppy"
    return None


IDENTITY = {}  # guest name -> QEMU identity (nvme-ns1, sata0, fd0), from inventory/identity.tsv


def identity(dev):
    """What QEMU calls a guest device: ng0nX is nvme0nX's namespace.  Without
    the guest's map, the names in probe order (sda = port 0)."""
    base = os.path.basename(dev)
    if base.startswith("ng"):
        base = "nvme" + base[2:]
    if base in IDENTITY:
        return IDENTITY[base]
    if base.startswith("nvme0n"):
        return "nvme-ns" + base[len("nvme0n"):]
    if base.startswith("sd"):
        return "sata%d" % (ord(base[2]) - 97)
    return base


def backing(disks, dev):
    """The host file behind a guest device."""
    return os.path.join(disks, identity(dev) + ".img")


def fsize(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return None


class Verdict:
    def __init__(self):
        self.lines = []
        self.failures = 0
        self.unavailable = 0
        self.oks = 0

    def add(self, section, name, status, note=""):
        self.lines.append((section, name, status, note))
        if status == "fail":
            self.failures += 1
        elif status == "unavailable":
            self.unavailable += 1
        else:
            self.oks += 1

    def print(self):
        print("== scripts/vm --checks (TCG wall time is not a performance figure)")
        width = max([len(n) for _, n, _, _ in self.lines] + [20])
        shown = {"ok": "ok", "fail": "FAIL", "unavailable": "n/a"}
        section = None
        for sec, name, status, note in self.lines:
            if sec != section:
                print("-- " + sec)
                section = sec
            print("  %-*s  %-4s  %s" % (width, name, shown[status], note))
        print("verdict: %d ok, %d failed, %d not available in this build" % (self.oks, self.failures, self.unavailable))


def read_tsv(path):
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def load_json(path):
    with open(path, errors="replace") as f:
        return json.load(f)


def job_bytes(j, direction):
    return sum(job.get(direction, {}).get("io_bytes", 0) for job in j.get("jobs", []))


def job_errors(j):
    return [job.get("error", 0) for job in j.get("jobs", []) if job.get("error", 0)]


def check_run(v, results, disks, row, rq_devices):
    tool, tgt, dev, eng, mode, phase, off, size, rel, st = row[:10]
    name = "%s %s %s%s" % (tool, tgt, "" if mode == "-" else mode + " ", phase)
    if st != "ok":
        return  # the step line already says why
    path = os.path.join(results, rel)
    try:
        j = load_json(path)
    except (OSError, ValueError) as e:
        v.add("runs", name, "fail", "no readable JSON: %s" % e)
        return
    region = parse_size(size)
    problems = []
    errs = job_errors(j)
    if errs:
        problems.append("job error %s" % errs)
    if phase == "write":
        if job_bytes(j, "write") != region:
            problems.append("wrote %d bytes, the region is %d" % (job_bytes(j, "write"), region))
        if tool == "fio" and job_bytes(j, "read") != region:
            problems.append("fio verified %d bytes, expected %d" % (job_bytes(j, "read"), region))
    else:
        if job_bytes(j, "read") != region:
            problems.append("read %d bytes, the region is %d" % (job_bytes(j, "read"), region))
    note = "%s %s, %d KiB" % (dev, eng, region >> 10)
    if tool == "rqlock":
        rq = j.get("rqlock", {})
        if rq.get("lock_mode") not in (None, mode):
            problems.append("ran in lock mode %r, asked %r" % (rq.get("lock_mode"), mode))
        if rq.get("bios_submitted") != rq.get("bios_completed"):
            problems.append("bios submitted %s != completed %s" % (rq.get("bios_submitted"), rq.get("bios_completed")))
        if phase == "read":
            want = region // SECTOR
            got = rq.get("sectors_verified")
            if got != want:
                problems.append("verified %s sectors, expected %d" % (got, want))
            else:
                note += ", %d sectors verified" % got
        devs = rq.get("devices", [])
        d = next((x for x in devs if x.get("path") == dev or x.get("name") == dev), devs[0] if devs else None)
        if d is None:
            problems.append("no device in rqlock.devices")
        else:
            rq_devices.setdefault(dev, d)
            kind = expected_kind(dev)
            seen = "%s/%s" % (d.get("kind", ""), d.get("subkind", ""))
            if not os.path.basename(dev).startswith("ng") and kind not in seen.lower():
                problems.append("device kind %s, expected %s" % (seen, kind))
            note += ", kind %s" % seen
            bfile = backing(disks, dev)
            if fsize(bfile) is not None and d.get("size") not in (None, 0) and d.get("size") != fsize(bfile):
                problems.append("device size %s, backing file %s" % (d.get("size"), fsize(bfile)))
    v.add("runs", name, "fail" if problems else "ok", "; ".join(problems) if problems else note)


def walk_dicts(o):
    if isinstance(o, dict):
        yield o
        for x in o.values():
            yield from walk_dicts(x)
    elif isinstance(o, list):
        for x in o:
            yield from walk_dicts(x)


def entries_naming(j, base):
    """Objects in rqlock devices' JSON that name /dev/BASE (schema-tolerant)."""
    out = []
    for d in walk_dicts(j):
        for k, x in d.items():
            if isinstance(x, str) and x in (base, "/dev/" + base) and k.lower() in (
                    "name", "path", "dev", "device", "node", "devname", "kname", "block", "generic", "generic_path", "char"):
                out.append(d)
                break
    return out


def first(d, *keys):
    for k in keys:
        if k in d and d[k] not in (None, ""):
            return d[k]
    return None


def check_identify(v, results, disks, nvme, sata, floppy, rq_devices):
    ident = os.path.join(results, "identify")
    nlist = None
    if nvme:
        p = os.path.join(ident, "nvme-list.json")
        if os.path.exists(p):
            try:
                nlist = load_json(p)
            except ValueError as e:
                v.add("identify", "nvme list -o json", "fail", "not JSON: %s" % e)
        if nlist is not None:
            devs = {d.get("DevicePath"): d for d in nlist.get("Devices", [])}
            for i in range(1, nvme + 1):
                dp = "/dev/nvme0n%d" % i
                d = devs.get(dp)
                size = fsize(backing(disks, dp))
                if d is None:
                    v.add("identify", "nvme list: %s" % dp, "fail", "not listed")
                    continue
                probs = []
                if d.get("PhysicalSize") != size:
                    probs.append("PhysicalSize %s, backing file %s" % (d.get("PhysicalSize"), size))
                if d.get("SerialNumber", "").strip() != "rqvm-nvme0":
                    probs.append("serial %r, QEMU was given rqvm-nvme0" % d.get("SerialNumber"))
                if d.get("GenericPath") not in (None, "/dev/ng0n%d" % i):
                    probs.append("generic path %s" % d.get("GenericPath"))
                rd = rq_devices.get(dp)
                if rd:
                    if rd.get("size") != d.get("PhysicalSize"):
                        probs.append("rqlock size %s != nvme list %s" % (rd.get("size"), d.get("PhysicalSize")))
                    if rd.get("logical_block_size") not in (None, d.get("SectorSize")):
                        probs.append("rqlock logical block %s != nvme list %s" % (rd.get("logical_block_size"), d.get("SectorSize")))
                    if rd.get("model") and rd.get("model").strip() != d.get("ModelNumber", "").strip():
                        probs.append("rqlock model %r != nvme list %r" % (rd.get("model"), d.get("ModelNumber")))
                v.add("identify", "nvme list: %s" % dp, "fail" if probs else "ok",
                      "; ".join(probs) if probs else "%s, %s, %s bytes, %s B sectors%s" % (
                          d.get("ModelNumber", "").strip(), d.get("SerialNumber", "").strip(), size,
                          d.get("SectorSize", 0), ", = rqlock's run JSON" if rd else ""))
        for i in range(1, nvme + 1):
            ids = {}
            for dn in ("nvme0n%d" % i, "ng0n%d" % i):
                p = os.path.join(ident, "nvme-id-ns-%s.json" % dn)
                if os.path.exists(p):
                    try:
                        ids[dn] = load_json(p)
                    except ValueError:
                        v.add("identify", "id-ns %s" % dn, "fail", "not JSON")
            if len(ids) != 2:
                continue
            blk, pt = ids["nvme0n%d" % i], ids["ng0n%d" % i]
            size = fsize(backing(disks, "nvme0n%d" % i))
            try:
                lbaf = blk["lbafs"][blk["flbas"] & 0xF]
                nbytes = blk["nsze"] * (1 << lbaf["ds"])
            except (KeyError, IndexError, TypeError) as e:
                v.add("identify", "id-ns nvme0n%d" % i, "fail", "unexpected id-ns JSON: %s" % e)
                continue
            probs = []
            if nbytes != size:
                probs.append("nsze*lba %d, backing file %s" % (nbytes, size))
            for k in ("nsze", "ncap", "flbas", "lbafs"):
                if blk.get(k) != pt.get(k):
                    probs.append("%s differs between /dev/nvme0n%d and /dev/ng0n%d" % (k, i, i))
            v.add("identify", "id-ns nvme0n%d = ng0n%d" % (i, i), "fail" if probs else "ok",
                  "; ".join(probs) if probs else "nsze %d x %d B through the block and the passthrough node" % (
                      blk["nsze"], 1 << lbaf["ds"]))

    # rqlock devices --json, when this build has it: before any I/O, with
    # --all, and after the I/O
    listings = {}
    for label in ("rqlock-devices", "rqlock-devices-all", "rqlock-devices-after-io"):
        p = os.path.join(ident, label + ".json")
        if not os.path.exists(p):
            continue
        try:
            listings[label] = load_json(p)
        except ValueError as e:
            v.add("identify", label, "fail", "not JSON: %s" % e)
    if "rqlock-devices" not in listings:
        return
    want = [("nvme0n%d" % i, "rqvm-nvme0") for i in range(1, nvme + 1)]
    want += [("sd%s" % chr(97 + i), "rqvm-" + identity("sd%s" % chr(97 + i))) for i in range(sata)]
    want += [("fd0", None)] if floppy else []
    nl = {d.get("DevicePath"): d for d in (nlist or {}).get("Devices", [])}
    for base, serial_given in want:
        kind = expected_kind(base)
        es = entries_naming(listings["rqlock-devices"], base)
        where = ""
        if not es and base.startswith("fd"):
            # a floppy's capacity is 0 in sysfs until a first open reads the medium
            for label in ("rqlock-devices-all", "rqlock-devices-after-io"):
                es = entries_naming(listings.get(label, {}), base)
                if es:
                    where = " (hidden as empty before the first open, its sysfs size 0 until the driver " \
                            "reads the medium; listed by %s)" % label.replace("rqlock-devices-", "--")
                    break
        if not es:
            v.add("identify", "rqlock devices: %s" % base, "fail", "not listed")
            continue
        e = es[0]
        kinds = "/".join(str(x) for k, x in e.items() if k.lower() in ("kind", "subkind", "type", "transport", "class"))
        probs = []
        if kind not in kinds.lower():
            probs.append("kind %r, expected %s" % (kinds, kind))
        size = fsize(backing(disks, base))
        sz = first(e, "size", "size_bytes", "bytes", "capacity")
        if isinstance(sz, int) and sz not in (size, 0 if where else size):
            probs.append("size %d, backing file %s" % (sz, size))
        serial = first(e, "serial", "serial_number", "sn")
        if serial_given and isinstance(serial, str) and serial.strip() != serial_given:
            probs.append("serial %r, QEMU was given %r" % (serial, serial_given))
        n = nl.get("/dev/" + base)
        if n:
            model = first(e, "model", "model_number")
            if isinstance(model, str) and model.strip() != n.get("ModelNumber", "").strip():
                probs.append("model %r != nvme list %r" % (model, n.get("ModelNumber")))
        v.add("identify", "rqlock devices: %s" % base, "fail" if probs else "ok",
              "; ".join(probs) if probs else "kind %s, %s bytes%s%s%s" % (
                  kinds, size, ", serial %s as given to QEMU" % serial_given if serial_given and serial else "",
                  ", agrees with nvme list" if n else "", where))
    for i in range(1, nvme + 1):
        es = entries_naming(listings["rqlock-devices"], "ng0n%d" % i)
        if not es:
            v.add("identify", "rqlock devices: ng0n%d" % i, "fail", "the passthrough node is not listed")
            continue
        e = es[0]
        kinds = "/".join(str(x) for k, x in e.items() if k.lower() in ("kind", "subkind", "type", "transport"))
        blk = first(e, "block_device", "blockdev", "block")
        probs = []
        if "nvme" not in kinds.lower():
            probs.append("kind %r" % kinds)
        if isinstance(blk, str) and blk != "/dev/nvme0n%d" % i:
            probs.append("block device %s, expected /dev/nvme0n%d" % (blk, i))
        v.add("identify", "rqlock devices: ng0n%d" % i, "fail" if probs else "ok",
              "; ".join(probs) if probs else "kind %s, the generic node of %s" % (kinds, blk or "?"))
    # rqlock's own reading of nvme list against nvme-cli's
    ns = []
    for d in walk_dicts(listings["rqlock-devices"]):
        if "nsid" in d and isinstance(d.get("path"), str):
            ns.append(d)
    for d in ns:
        n = nl.get(d["path"])
        if not n:
            v.add("identify", "rqlock devices nvme: %s" % d["path"], "fail", "not in nvme list")
            continue
        probs = []
        for mine, theirs in (("nsid", "NameSpace"), ("size", "PhysicalSize"), ("logical_block_size", "SectorSize"),
                             ("firmware", "Firmware"), ("serial", "SerialNumber"), ("model", "ModelNumber")):
            a, b = d.get(mine), n.get(theirs)
            if a is not None and b is not None and (a.strip() if isinstance(a, str) else a) != (
                    b.strip() if isinstance(b, str) else b):
                probs.append("%s %r != nvme list %s %r" % (mine, a, theirs, b))
        v.add("identify", "rqlock devices nvme: %s" % d["path"], "fail" if probs else "ok",
              "; ".join(probs) if probs else "nsid, size, block size, firmware, serial, model = nvme list")
    if nvme and nlist is not None and len(ns) != len(nl):
        v.add("identify", "rqlock devices nvme", "fail", "%d namespaces, nvme list has %d" % (len(ns), len(nl)))


def check_stamps(v, disks, runs):
    """The last rqlock write of each region: its stamps, read from the host's file."""
    last = {}
    for row in runs:
        tool, tgt, dev, eng, mode, phase, off, size, rel, st = row[:10]
        if tool == "rqlock" and phase == "write" and st == "ok":
            last[(backing(disks, dev), parse_size(off), parse_size(size))] = (tgt, dev)
    for (bfile, off, size), (tgt, dev) in sorted(last.items()):
        name = "%s: %s [%d K, %d K)" % (tgt, os.path.basename(bfile), off >> 10, (off + size) >> 10)
        try:
            with open(bfile, "rb") as f:
                f.seek(off)
                data = f.read(size)
        except OSError as e:
            v.add("stamps", name, "fail", str(e))
            continue
        bad = None
        for s in range(0, size, SECTOR):
            magic, where = struct.unpack_from("<QQ", data, s) if s + 16 <= len(data) else (0, 0)
            if magic != STAMP_MAGIC or where != off + s:
                bad = (off + s, magic, where)
                break
        if bad:
            v.add("stamps", name, "fail", "offset %d holds magic 0x%x offset %d" % bad)
        else:
            v.add("stamps", name, "ok", "%d sectors, each stamped with its own offset" % (size // SECTOR))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--disks", required=True)
    ap.add_argument("--nvme", type=int, default=0)
    ap.add_argument("--sata", type=int, default=0)
    ap.add_argument("--floppy", type=int, default=0)
    ap.add_argument("--dmesg-splats")
    ap.add_argument("--summary")
    a = ap.parse_args()
    v = Verdict()
    for row in read_tsv(os.path.join(a.results, "inventory", "identity.tsv")) or []:
        if len(row) == 2 and row[1]:
            IDENTITY[row[0]] = row[1]

    steps = read_tsv(os.path.join(a.results, "steps.tsv"))
    if steps is None:
        v.add("steps", "steps.tsv", "fail", "the guest wrote no steps.tsv")
        steps = []
    for row in steps:
        row += [""] * (5 - len(row))
        name, status, rc, secs, note = row[:5]
        if status not in ("ok", "fail", "unavailable"):
            status, note = "fail", "unknown status %r: %s" % (status, note)
        v.add("steps", name, status, note + ("" if status == "unavailable" else "  [%ss TCG]" % secs))

    runs = read_tsv(os.path.join(a.results, "runs.tsv")) or []
    rq_devices = {}
    for row in runs:
        if len(row) < 10:
            v.add("runs", "runs.tsv", "fail", "short line %r" % row)
            continue
        check_run(v, a.results, a.disks, row, rq_devices)
    if not any(r[0] == "rqlock" and r[9] == "ok" and r[5] == "read" for r in runs if len(r) >= 10):
        v.add("runs", "write-then-verify", "fail", "no rqlock read pass verified anything")

    check_identify(v, a.results, a.disks, a.nvme, a.sata, a.floppy, rq_devices)
    check_stamps(v, a.disks, [r for r in runs if len(r) >= 10])

    if a.dmesg_splats:
        splats = open(a.dmesg_splats, errors="replace").read().splitlines() if os.path.exists(a.dmesg_splats) else []
        v.add("dmesg", "BUG/WARNING/lockdep/Oops/I/O error", "fail" if splats else "ok",
              ("%d line(s), first: %s" % (len(splats), splats[0])) if splats else "none in the guest's kernel log")

    v.print()
    if a.summary:
        modes = open(os.path.join(a.results, "modes.txt")).read().split() if os.path.exists(
            os.path.join(a.results, "modes.txt")) else []
        with open(a.summary, "w") as f:
            json.dump({"passed": v.oks, "failed": v.failures, "unavailable": v.unavailable,
                       "lock_modes": modes,
                       "checks": [dict(section=s, name=n, status=st, note=no) for s, n, st, no in v.lines]},
                      f, indent=1)
    return 1 if v.failures else 0


if __name__ == "__main__":
    sys.exit(main())
