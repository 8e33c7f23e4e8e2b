#!/usr/bin/env bash
# rqlock's userspace NVMe driver (@nvme-pci, devices/nvme_pci.c) on QEMU's
# emulated controller (ctest label vm): `test_vm_nvme_pci.sh vfio` boots a
# q35 guest with intel-iommu (scripts/vm --nvme-pci vfio) whose second NVMe
# controller is left unbound, `test_vm_nvme_pci.sh uio` a guest without an
# IOMMU; tests/vm_nvme_pci_guest.sh binds it to vfio-pci or uio_pci_generic
# with scripts/nvme-bind and runs rqlock on it; the JSON reports are judged
# here.  Skips (77)
# where QEMU or the kernel cannot be installed, and in sanitizer builds
# (the VM runs the plain binary).  VM_KEEP=DIR keeps the VM's results.
. "$(dirname "$0")/lib.sh"
need python3
if ldd "$RQLOCK" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
	skip "a sanitizer build: the VM harness runs the plain build only"
fi
way=${1:-vfio}
case $way in vfio|uio) ;; *) fail "usage: test_vm_nvme_pci.sh vfio|uio" ;; esac
out=${VM_KEEP:-$TMP/vm}
start=$(date +%s)
"$SRCDIR/scripts/vm" --rqlock "$RQLOCK" --nvme 0 --sata 0 --nvme-pci "$way" --timeout 800 --quiet \
	--out "$out" --add "$SRCDIR/tests/vm_nvme_pci_guest.sh" --sh 'sh /vm/add/vm_nvme_pci_guest.sh'
rc=$?
[ $rc -eq 77 ] && exit 77
[ -f "$out/results/steps.tsv" ] || fail "the guest left no steps.tsv (scripts/vm exited $rc; see $out/console.log)"
python3 - "$out/results" "$way" "$(rq_modes)" <<'PY' || fail "the guest's results do not hold (above)"
import json, os, sys

res, way, modes = sys.argv[1], sys.argv[2], sys.argv[3].split()
steps = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(res, "steps.tsv")))
bad = []

def err(name):
    p = os.path.join(res, name + ".err")
    return open(p).read().strip()[:300] if os.path.exists(p) else ""

def report(name):
    if steps.get(name) != "0":
        bad.append("%s: exit %s: %s" % (name, steps.get(name), err(name)))
        return None
    return json.load(open(os.path.join(res, name + ".json")))

# the lock that guards the doorbell of each mode (docs/ARCHITECTURE.md), and the pairs used
DOORBELL = {"global": "io_request_lock", "per-queue": "queue_lock", "mq": "hctx_lock",
            "cluster": "cluster_queue_lock"}

def judge_verify(name, mode, pairs, hwq=None):
    j = report(name)
    if not j:
        return
    r, probs = j["rqlock"], []
    dev = r["devices"][0]
    for job in j["jobs"]:
        w, rd = job["write"]["io_bytes"], job["read"]["io_bytes"]
        if job["error"] or w != 2 << 20 or rd != w:
            probs.append("clone %s: error %d, wrote %d read %d (2 MiB each expected)" %
                         (job["jobname"], job["error"], w, rd))
    if r["sectors_verified"] < (4 << 20) // 512:
        probs.append("%d sectors verified" % r["sectors_verified"])
    if r["bios_submitted"] != r["bios_completed"] or r["bios_abandoned"]:
        probs.append("bios %d/%d/%d" % (r["bios_submitted"], r["bios_completed"], r["bios_abandoned"]))
    if dev["kind"] != "nvme-pci" or dev["registered"] != way or dev["serial"] != "rqvm-pci":
        probs.append("device %s" % dev)
    # which completion queues were reaped: the pairs that had commands
    reaped = sorted(int(l["name"].rsplit("/", 1)[1]) for l in r["locks"]
                    if l["name"].startswith("nvme_cq:") and l["acquisitions"])
    if reaped != pairs:
        probs.append("queue pairs reaped %s, expected %s" % (reaped, pairs))
    cls = {c["name"]: c for c in r["lockstat"]["classes"]}
    db = DOORBELL[mode] if not name.endswith("-k1") else None
    if db:
        c = cls.get(db)
        if not c or not c["acquisitions"] or not c["hold_ns"]["samples"]:
            probs.append("lockstat has no sampled holds of %s, the doorbell's lock" % db)
    elif "cluster_queue_lock" in cls and cls["cluster_queue_lock"]["acquisitions"]:
        probs.append("a partition of one worker took a queue lock")
    if hwq is not None:
        got = r["mode"]["queues"][0].get("hw_queues")
        if got != hwq:
            probs.append("mq made %s hardware contexts, expected %d" % (got, hwq))
    hold = cls[db]["hold_ns"] if db else None
    print("%s: %s" % (name, "; ".join(probs) if probs else
          "2 x 2 MiB written and read back, %d sectors verified, pairs %s, doorbell under %s%s" % (
              r["sectors_verified"], reaped, db or "no lock (one owner)",
              " (hold avg %.0f ns over %d samples)" % (hold["avg"], hold["samples"]) if hold else "")))
    bad.extend("%s: %s" % (name, p) for p in probs)

for m in modes:
    judge_verify("verify-" + m, m, [1, 2] if m == "mq" else [1], 2 if m == "mq" else None)
judge_verify("verify-mq-1pair", "mq", [1], 1)
judge_verify("verify-cluster-k1", "cluster", [1])
def check(name, cond, ok, why):
    print("%s: %s" % (name, ok if cond else "FAIL " + why))
    if not cond:
        bad.append("%s: %s" % (name, why))

for st in ("give-kernel", "id-ctrl", "id-ns", "mkswap", "bind"):
    check(st, steps.get(st) == "0", "exit 0", "exit %s: %s" % (steps.get(st), err(st)))

# Identify: rqlock's agrees with nvme-cli's from before the unbind, a doctored one is refused
j = report("idcheck")
if j:
    dev = j["rqlock"]["devices"][0]
    idc = json.load(open(os.path.join(res, "id-ctrl.out")))
    idn = json.load(open(os.path.join(res, "id-ns.out")))
    ds = idn["lbafs"][idn["flbas"] & 15]["ds"]
    check("idcheck", "id:nvme-cli" in dev["model"] and dev["serial"] == idc["sn"].strip() and
          dev["size"] == idn["nsze"] << ds and dev["logical_block_size"] == 1 << ds,
          "%s, %d bytes in %d-byte blocks, as nvme id-ctrl/id-ns read them" % (dev["model"], dev["size"], 1 << ds),
          "device %s against id-ctrl sn %r, id-ns nsze %d ds %d" % (dev, idc["sn"], idn["nsze"], ds))
e = err("idcheck-bad")
check("idcheck-bad", steps.get("idcheck-bad") == "2" and len(e.splitlines()) == 1 and "sn" in e,
      "refused: " + e, "exit %s, stderr %r" % (steps.get("idcheck-bad"), e))

def plain(name, want_bytes):
    j = report(name)
    if not j:
        return None
    probs = []
    for job in j["jobs"]:
        if job["error"]:
            probs.append("%s: error %d" % (job["jobname"], job["error"]))
    moved = sum(job[d]["io_bytes"] for job in j["jobs"] for d in ("read", "write", "trim"))
    if moved != want_bytes:
        probs.append("moved %d bytes, expected %d" % (moved, want_bytes))
    check(name, not probs, "%d bytes, no errors" % moved, "; ".join(probs))
    return j

j = plain("ns2", 2 * (256 << 10))
if j:
    check("ns2 size", j["rqlock"]["devices"][0]["model"].find("nsid=2") >= 0, "namespace 2",
          j["rqlock"]["devices"][0]["model"])
j = plain("merge", 2 * 1536 << 10)
if j:
    q = j["rqlock"]["queues"][0]
    check("merge", q["merges_back"] + q["merges_front"] > 0,
          "%d merged bios (6k segments: a command each), crc32c verified" % (q["merges_back"] + q["merges_front"]),
          "no bio merged: the multi-segment path was not exercised (%s)" % q)
for t in ("trim-auto", "trim-wz"):
    plain(t, 3 << 20)
e = err("trim-control")
check("trim-control", steps.get("trim-control") == "1" and "pattern" in e,
      "without the trim the zero check fails: " + e.splitlines()[0] if e else "",
      "exit %s, stderr %r" % (steps.get("trim-control"), e))
j = plain("flush", 256 << 10)
if j:
    sync = j["jobs"][0]["sync"]
    check("flush", sync["lat_ns"]["N"] > 0, "%d flushes" % sync["lat_ns"]["N"], "no flush issued: %s" % sync)

# rqlock devices: the controller, its driver and whether rqlock can take it, at each phase
drv = {"vfio": "vfio-pci", "uio": "uio_pci_generic"}[way]
for phase, want_drv, take, word in (("unbound", "", False, "no driver"),
                                    ("kernel", "nvme", False, "kernel's nvme driver"),
                                    ("bound", drv, True, "")):
    name = "devices-" + phase
    try:
        ctl = [c for c in json.load(open(os.path.join(res, name + ".out")))["nvme_controllers"]
               if c["address"] == "0000:00:06.0"]
    except (OSError, ValueError, KeyError) as e:
        ctl = []
    c = ctl[0] if ctl else {}
    ok = (steps.get(name) == "0" and c.get("driver") == want_drv and c.get("rqlock") == take and
          word in c.get("why", "") and (not take or c.get("dma") == way) and
          (phase != "kernel" or c.get("namespaces") == "nvme0n1 nvme0n2"))
    check(name, ok, "%s: driver %r, rqlock %s %s" % (c.get("address"), c.get("driver"), c.get("rqlock"),
                                                   c.get("dma") or c.get("why")), "entry %s" % c)
tab = open(os.path.join(res, "devices-table.out")).read() if os.path.exists(
    os.path.join(res, "devices-table.out")) else ""
line = [l for l in tab.splitlines() if l.startswith("0000:00:06.0")]
check("devices-table", line and line[0].split()[-1] == way and "yes," in line[0] and
      max(len(l) for l in tab[tab.find("NVMe controllers"):].splitlines() if not l.startswith("[")) <= 100,
      line[0] if line else "", "table %r" % tab[-400:])

# bad input: exit 2 and one line saying what
BAD = {"bad-nodev": "no PCI device", "bad-notnvme": "not an NVMe controller", "bad-unbound": "nvme-bind",
       "bad-kernel": "kernel's nvme driver", "bad-ns": "namespace 9 does not exist",
       "bad-bind-notnvme": "not an NVMe controller", "bad-bind-addr": "not a PCI address",
       "busy": "another process holds", "bad-nohuge": "hugepages", "bad-signature": "swap"}
for name, word in BAD.items():
    if name == "bad-nohuge" and name not in steps:
        continue	# vfio, or a kernel that does not compact locked pages
    e = err(name)
    check(name, steps.get(name) == "2" and len(e.splitlines()) == 1 and word in e, "exit 2: " + e,
          "exit %s, expected 2 and one line with %r: %r" % (steps.get(name), word, e))

# exit paths: CC.EN = 0 after each; SIGTERM drains and reports; after SIGKILL the kernel reads
for name, want in (("cc-end", "0"), ("error-path", "2"), ("cc-error", "0"), ("sigterm", "143"),
                   ("cc-sigterm", "0"), ("sigabrt", "134"), ("cc-sigabrt", "0"), ("handoff", "0"), ("sigkill", "137"), ("kill-give-kernel", "0")):
    out = open(os.path.join(res, name + ".out")).read().strip() if os.path.exists(
        os.path.join(res, name + ".out")) else ""
    check(name, steps.get(name) == want, "exit %s %s" % (want, out[:80]),
          "exit %s, expected %s: %s %s" % (steps.get(name), want, out[:200], err(name)))
p = os.path.join(res, "sigterm.json")
if os.path.exists(p):
    r = json.load(open(p))["rqlock"]
    check("sigterm report", r["interrupted"] == 15 and
          r["bios_submitted"] == r["bios_completed"] + r["bios_abandoned"],
          "interrupted 15, %d bios submitted, %d completed, %d abandoned" % (
              r["bios_submitted"], r["bios_completed"], r["bios_abandoned"]), "report %s" % r["interrupted"])
j = report("kill-read")
if j:
    job, r = j["jobs"][0], j["rqlock"]
    check("kill-read", not job["error"] and job["read"]["io_bytes"] == 1 << 20 and
          r["devices"][0]["kind"] == "blkdev" and r["sectors_verified"] >= 2048,
          "the kernel's nvme read back and verified the 1 MiB rqlock's driver wrote (%s)" % r["devices"][0]["path"],
          "error %d, read %d, %s" % (job["error"], job["read"]["io_bytes"], r["devices"][0]))

for b in bad:
    print("FAIL", b)
sys.exit(1 if bad else 0)
PY
[ $rc -eq 0 ] || fail "scripts/vm exited $rc (a guest step or its dmesg; see $out)"
echo "test_vm_nvme_pci: ok ($(( $(date +%s) - start ))s wall time, TCG: not a performance figure)"
