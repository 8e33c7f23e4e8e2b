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

echo 64 >/proc/sys/vm/nr_hugepages
step bind nvme-bind "$B" || exit 1

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
exit 0
