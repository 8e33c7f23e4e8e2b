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

# crc32c-verified random writes over mixed sizes, 128k past the 64 KiB MDTS, in each lock mode
for m in $MODES; do
	run "verify-$m" --lock="$m" --lockstat=on --name=v --filename="$DEV" --rw=randwrite \
		--bsrange=4k-128k --size=4m --iodepth=16 --verify=crc32c
done
exit 0
