#!/usr/bin/env bash
# The real-driver path (ctest label vm): scripts/vm boots Debian's kernel
# under QEMU (TCG) with two NVMe namespaces, two SATA disks and a floppy,
# and runs scripts/vm.d/guest-checks.sh inside: identify through nvme-cli
# and rqlock, write-then-verify through rqlock in every lock mode it accepts
# and through fio on /dev/nvme0n1, /dev/ng0n1, /dev/sda (io_uring, libaio)
# and /dev/fd0, a moved sector that must be caught, and a clean guest dmesg.
# Then the harness itself: a guest command's exit status comes back, and a
# planted kernel WARNING is found.  Skips (77) where qemu or the kernel
# cannot be installed.  Set VM_KEEP=DIR to keep the VM's results.
. "$(dirname "$0")/lib.sh"
need python3
if ldd "$RQLOCK" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
	skip "a sanitizer build: the VM harness runs the plain build only"
fi
vm=$SRCDIR/scripts/vm
out=${VM_KEEP:-$TMP/checks}

start=$(date +%s)
"$vm" --rqlock "$RQLOCK" --nvme 2 --sata 2 --floppy --timeout 700 --out "$out" --checks
rc=$?
[ $rc -eq 77 ] && exit 77
if [ $rc -ne 0 ]; then
	echo "--- last console lines" >&2
	tail -n 30 "$out/console.log" >&2 2>/dev/null
	fail "scripts/vm --checks exited $rc"
fi
[ -s "$out/summary.json" ] || fail "no summary.json from the judge"
echo "test_vm: checks passed in $(( $(date +%s) - start ))s wall time (TCG)"

# the harness: the guest's status is the script's, a kernel splat is caught
self=$TMP/self
"$vm" --rqlock "$RQLOCK" --nvme 1 --sata 0 --timeout 120 --quiet --out "$self" \
	--sh 'echo "<4>rqvm: WARNING: planted by test_vm" >/dev/kmsg; exit 3'
rc=$?
[ $rc -eq 3 ] || fail "a guest command's exit 3 came back as $rc"
grep -q "planted by test_vm" "$self/dmesg-splats.txt" || fail "a planted WARNING in the guest's dmesg was not reported"
"$vm" --rqlock "$RQLOCK" --nvme 1 --sata 0 --timeout 120 --quiet --out "$self" \
	--sh 'echo "<4>rqvm: WARNING: planted by test_vm" >/dev/kmsg; exit 0'
rc=$?
[ $rc -eq 1 ] || fail "a clean exit with a kernel WARNING came back as $rc, expected 1"
echo "test_vm: ok ($(( $(date +%s) - start ))s wall time, TCG: not a performance figure)"
