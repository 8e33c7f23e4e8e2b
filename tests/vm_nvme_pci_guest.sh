#!/bin/sh
# vm_nvme_pci_guest.sh - what tests/test_vm_nvme_pci.sh runs inside
# `scripts/vm --nvme-pci WAY` (busybox sh): the unbound controller
# $VM_NVME_PCI is given to rqlock with scripts/nvme-bind, then rqlock's
# userspace NVMe driver (@nvme-pci) runs jobs on it.  Every step leaves
# NAME.json (rqlock's report, when it made one), NAME.out, NAME.err and a
# line "NAME<TAB>EXIT" in $VM_RESULTS/steps.tsv; the host judges them.
# $1: the lock modes to run (default: every mode rqlock lists).
. /vm/env
R=$VM_RESULTS
B=$VM_NVME_PCI
A=$(echo "$B" | sed 's/:/\\:/g')	# fio's filename= splits at unescaped colons
DEV="@nvme-pci,addr=$A"
MODES=${1:-$(rqlock --list | sed -n '/^Lock modes/,/^$/s/^  \([^ ][^ ]*\) .*/\1/p')}
: >"$R/steps.tsv"

# step NAME CMD...: run it, keep its output, record its exit status
step() {
	name=$1
	shift
	"$@" >"$R/$name.out" 2>"$R/$name.err"
	rc=$?
	printf '%s\t%s\n' "$name" "$rc" >>"$R/steps.tsv"
	echo "step $name: exit $rc $(head -c 200 "$R/$name.err" | head -n 1)"
	return $rc
}

run() {
	name=$1
	shift
	step "$name" rqlock run --output-format=json --output="$R/$name.json" "$@"
}

# bad input, each one line and exit 2: an address with no device, a PCI function that is not
# NVMe, a controller bound to no driver, one bound to the kernel's nvme, a namespace it lacks
bad() {
	name=$1 spec=$2
	run "$name" --name=b --filename="$spec" --rw=read --size=64k
}
echo 64 >/proc/sys/vm/nr_hugepages
bad bad-nodev "@nvme-pci,addr=0000\:00\:1e.0"
bad bad-notnvme "@nvme-pci,addr=0000\:00\:00.0"
bad bad-unbound "$DEV"
step devices-unbound rqlock devices --json
step bad-bind-notnvme nvme-bind 0000:00:00.0
step bad-bind-addr nvme-bind 00:00:zz

# the kernel first: nvme-cli's reading of the controller, for rqlock's Identify to match
step give-kernel nvme-bind --unbind "$B"
C=$(ls "/sys/bus/pci/devices/$B/nvme/" 2>/dev/null | head -n 1)
step id-ctrl nvme id-ctrl "/dev/$C" -o json
step id-ns nvme id-ns "/dev/${C}n1" -o json
bad bad-kernel "$DEV"
step devices-kernel rqlock devices --json
# a swap signature on namespace 2: rqlock refuses to write over it without --allow-mounted-write
step mkswap mkswap "/dev/${C}n2"
step bind nvme-bind "$B" || exit 1
step devices-bound rqlock devices --json
step devices-table rqlock devices
run bad-signature --name=s --filename="$DEV,ns=2" --rw=write --bs=4k --size=64k
bad bad-ns "$DEV,ns=9"

# crc32c-verified random writes over mixed sizes, 128k past the 64 KiB MDTS, in each lock
# mode, two clones (one per worker: both submit, both reap) on 2 MiB regions of their own.
# Mostly 4k: a lock taken 128 times has at least one sampled hold (lockstat's gap).
# verify NAME SPEC [RQLOCK OPTIONS]
verify() {
	name=$1 spec=$2
	shift 2
	run "$name" --lockstat=on "$@" --name=v --filename="$spec" --rw=randwrite \
		--bssplit=4k/70:16k/10:64k/10:128k/10 --size=2m --offset_increment=2m --numjobs=2 --iodepth=16 --verify=crc32c
}
for m in $MODES; do
	verify "verify-$m" "$DEV" --lock="$m"
done
# mq never maps more hardware contexts than the controller's queue pairs (one here)
verify verify-mq-1pair "$DEV,qpairs=1" --lock=mq --hw-queues=2
# cluster with a partition per worker: only the owner submits, with no lock, and reaps
verify verify-cluster-k1 "$DEV" --lock=cluster --cluster-size=1
# Identify against nvme-cli's reading from before the unbind; a doctored one is refused
run idcheck --name=i --filename="$DEV,id-ctrl=$R/id-ctrl.out,id-ns=$R/id-ns.out" --rw=read --size=64k
sed 's/"sn" *: *"[^"]*"/"sn":"not-this-one"/' "$R/id-ctrl.out" >/tmp/id-ctrl-bad.json
run idcheck-bad --name=i --filename="$DEV,id-ctrl=/tmp/id-ctrl-bad.json" --rw=read --size=64k
run ns2 --allow-mounted-write --name=n --filename="$DEV,ns=2" --rw=randwrite --bs=4k --size=256k \
	--verify=crc32c

# small sequential bios queue behind a short queue and merge: 6k segments do not meet at page
# boundaries, so a merged request becomes one command per segment (PRP lists cannot join them)
run merge --lock=per-queue --name=m --filename="$DEV,qsize=8" --rw=write --bs=6k --size=1536k \
	--iodepth=32 --verify=crc32c

# trims: written, trimmed, read back as zeroes (DLFEAT says DSM deallocate reads zeroes; Write
# Zeroes always does); the same read without the trim must fail (the check can fail)
cat >/tmp/trim.fio <<'JOB'
[global]
filename=${DEV}
size=1m
offset=${OFF}
[w]
rw=write
bs=64k
[t]
stonewall
rw=trim
bs=${TBS}
[r]
stonewall
rw=read
bs=64k
verify=pattern
verify_pattern=0x00
JOB
sed '/^\[t\]/,/^bs=\${TBS}/d' /tmp/trim.fio >/tmp/notrim.fio
# runj NAME JOBFILE VAR=VALUE...: a job file with ${VAR}s
runj() {
	name=$1 file=$2
	shift 2
	step "$name" env "$@" rqlock run --output-format=json --output="$R/$name.json" "$file"
}
runj trim-auto /tmp/trim.fio DEV="$DEV" OFF=8m TBS=256k
runj trim-wz /tmp/trim.fio DEV="$DEV,trim=write-zeroes" OFF=9m TBS=512k
runj trim-control /tmp/notrim.fio DEV="$DEV" OFF=10m
# flushes: fsync every 8 writes, NVMe Flush commands when the controller has a volatile cache
run flush --name=f --filename="$DEV" --rw=randwrite --bs=4k --size=256k --fsync=8 --offset=11m
# ---- exit paths: the controller is disabled (CC.EN = 0) after each ----------------------
# (read through /dev/mem; under vfio the function's reset on close would hide a miss, the
# check means most under uio)
cc() {
	bar=$(head -n 1 "/sys/bus/pci/devices/$B/resource" | cut -d' ' -f1)
	v=$(devmem $((bar + 0x14)) 32)
	echo "CC $v after $1"
	[ $((v & 1)) -eq 0 ]
}
step cc-end cc "a normal end"
# an error after the open (the second file is no device): closed on the way out
run error-path --name=e --filename="$DEV:@nosuch" --rw=read --size=64k
step cc-error cc "a failed setup"
# SIGTERM: the drain, the report, exit 143
bg() {
	name=$1
	shift
	rqlock run --output-format=json --output="$R/$name.json" --name=k --filename="$DEV" --rw=randwrite \
		--bs=4k --size=4m --offset=20m --iodepth=16 --time_based --runtime=300 "$@" \
		>"$R/$name.out" 2>"$R/$name.err" &
	pid=$!
	sleep 8		# TCG: well into the run
}
bg sigterm
kill -TERM $pid
wait $pid
printf '%s\t%s\n' sigterm $? >>"$R/steps.tsv"
step cc-sigterm cc SIGTERM
# a crash (SIGABRT, as a BUG line's abort()): no close runs, the crash hook disables it
bg sigabrt
kill -ABRT $pid
wait $pid
printf '%s\t%s\n' sigabrt $? >>"$R/steps.tsv"
step cc-sigabrt cc SIGABRT

# written by rqlock's driver, read back by the kernel's after a SIGKILL (below)
run handoff --name=h --filename="$DEV" --rw=randwrite --bs=16k --size=1m --offset=16m --verify=crc32c \
	--do_verify=0
# SIGKILL mid-job: nothing of rqlock runs, the kernel's nvme takes the controller back and reads
bg sigkill
run busy --name=b --filename="$DEV" --rw=read --size=64k
kill -KILL $pid
wait $pid
printf '%s\t%s\n' sigkill $? >>"$R/steps.tsv"
step kill-give-kernel nvme-bind --unbind "$B"
C=$(ls "/sys/bus/pci/devices/$B/nvme/" 2>/dev/null | head -n 1)
run kill-read --name=h --filename="/dev/${C}n1" --rw=randwrite --bs=16k --size=1m --offset=16m \
	--verify=crc32c --verify_only=1 --direct=1
if [ "$VM_NVME_PCI_WAY" = uio ] && [ "$(cat /proc/sys/vm/compact_unevictable_allowed)" != 0 ]; then
	# without hugepages, uio has no memory that stays put: refused in one line
	step rebind nvme-bind "$B"
	echo 0 >/proc/sys/vm/nr_hugepages
	bad bad-nohuge "$DEV"
fi
exit 0
