#!/usr/bin/env bash
# rqlock's userspace NVMe driver (@nvme-pci, devices/nvme_pci.c) on QEMU's
# emulated controller (ctest label vm): scripts/vm --nvme-pci vfio boots a
# q35 guest with intel-iommu whose second NVMe controller is left unbound;
# tests/vm_nvme_pci_guest.sh binds it to vfio-pci with scripts/nvme-bind
# and runs rqlock on it; the JSON reports are judged here.  Skips (77)
# where QEMU or the kernel cannot be installed, and in sanitizer builds
# (the VM runs the plain binary).  VM_KEEP=DIR keeps the VM's results.
. "$(dirname "$0")/lib.sh"
need python3
if ldd "$RQLOCK" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
	skip "a sanitizer build: the VM harness runs the plain build only"
fi
way=${NVME_PCI_WAY:-vfio}
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

for m in modes:
    j = report("verify-" + m)
    if not j:
        continue
    job, r = j["jobs"][0], j["rqlock"]
    w, rd = job["write"]["io_bytes"], job["read"]["io_bytes"]
    dev = r["devices"][0]
    probs = []
    if job["error"]:
        probs.append("error %d" % job["error"])
    if w != 4 << 20 or rd != w:
        probs.append("wrote %d read %d, expected 4 MiB each" % (w, rd))
    if r["sectors_verified"] < (4 << 20) // 512:
        probs.append("%d sectors verified" % r["sectors_verified"])
    if r["bios_submitted"] != r["bios_completed"] or r["bios_abandoned"]:
        probs.append("bios %d/%d/%d" % (r["bios_submitted"], r["bios_completed"], r["bios_abandoned"]))
    if dev["kind"] != "nvme-pci" or dev["registered"] != way or dev["serial"] != "rqvm-pci":
        probs.append("device %s" % dev)
    print("verify-%s: %s" % (m, "; ".join(probs) if probs else
          "4 MiB written and read back, %d sectors verified, %s" % (r["sectors_verified"], dev["model"])))
    bad += ["verify-%s: %s" % (m, p) for p in probs]
for b in bad:
    print("FAIL", b)
sys.exit(1 if bad else 0)
PY
[ $rc -eq 0 ] || fail "scripts/vm exited $rc (a guest step or its dmesg; see $out)"
echo "test_vm_nvme_pci: ok ($(( $(date +%s) - start ))s wall time, TCG: not a performance figure)"
