#!/bin/sh
# bench-nvme.sh - the guest half of scripts/bench-all's nvme row, inside
# `scripts/vm --nvme-pci vfio` (busybox sh): instructions per I/O on the one
# emulated controller, counted by callgrind (/vm/add/valgrind: the launcher
# and the callgrind tool, VALGRIND_LIB), three ways:
#   fio      fio's io_uring engine on the kernel's nvme driver (/dev/nvmeXn1)
#   uring    rqlock's io_uring path on the same block device (per-queue)
#   pci-M    rqlock's userspace driver (@nvme-pci, vfio), lock mode M
# each a 4k random read at QD 32 of $SIZE, with loops=2 and loops=10: the
# host takes the difference (start-up and the controller's bring-up cancel).
# Counted: the threads that do the I/O (rqlock's worker, eng_worker_main;
# fio's job process, the one that runs get_io_u), not the ones that wait
# (rqlock's main and status threads, fio's parent and helper), whose work
# grows with the wall clock, which TCG under callgrind stretches unevenly.
# Results: $VM_RESULTS/instr.tsv, "NAME LOOPS IO-THREADS ALL IOS EXIT" lines
# (instructions), each run's JSON and stderr, and the guest kernel's word
# on its PMU.
. /vm/env
R=$VM_RESULTS
export VALGRIND_LIB=/vm/add/valgrind
VG=/vm/add/valgrind/valgrind.bin
B=$VM_NVME_PCI
A=$(echo "$B" | sed 's/:/\\:/g')
SIZE=${BENCH_SIZE:-1m}
JOB="--name=b --rw=randread --bs=4k --iodepth=32 --size=$SIZE"
: >"$R/instr.tsv"
# why not perf stat -e instructions: TCG gives the guest no PMU
dmesg | grep -i "Performance Events" >"$R/pmu.txt"

# count NAME LOOPS CMD...: callgrind's instruction total over CMD and its children
count() {
	name=$1 loops=$2
	shift 2
	rm -f /tmp/cg.*
	"$VG" --tool=callgrind --trace-children=yes --separate-threads=yes --callgrind-out-file=/tmp/cg.%p \
		"$@" >"$R/$name-$loops.json" 2>"$R/$name-$loops.err"
	rc=$?
	all=$(cat /tmp/cg.* 2>/dev/null | sed -n 's/^summary: //p' | awk '{ s += $1 } END { printf "%d", s }')
	io=$(grep -l -E "fn=\([0-9]+\) (eng_worker_main|get_io_u)$" /tmp/cg.* 2>/dev/null | xargs cat 2>/dev/null |
		sed -n 's/^summary: //p' | awk '{ s += $1 } END { printf "%d", s }')
	ios=$(sed -n 's/.*"total_ios" *: *\([0-9]*\).*/\1/p' "$R/$name-$loops.json" | awk '{ s += $1 } END { print s }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$loops" "$io" "$all" "$ios" "$rc" >>"$R/instr.tsv"
	echo "bench-nvme: $name loops=$loops: $io instructions in the I/O threads ($all in all), $ios I/Os, exit $rc"
	if [ "$loops" = 10 ]; then
		for f in /tmp/cg.*; do [ -f "$f" ] && cp "$f" "$R/$name.${f#/tmp/}"; done
	fi
	return 0
}

nvme-bind --unbind "$B" || exit 1
C=$(ls "/sys/bus/pci/devices/$B/nvme/" | head -n 1)
for L in 2 10; do
	count fio $L fio $JOB --ioengine=io_uring --direct=1 --filename="/dev/${C}n1" --loops=$L --output-format=json
	count uring $L rqlock run --workers=1 --no-pin --lock=per-queue --output-format=json $JOB --direct=1 \
		--filename="/dev/${C}n1" --loops=$L
done
nvme-bind "$B" || exit 1
for m in global per-queue mq cluster; do
	for L in 2 10; do
		count "pci-$m" $L rqlock run --workers=1 --no-pin --lock=$m --output-format=json $JOB \
			--filename="@nvme-pci,addr=$A" --loops=$L
	done
done
exit 0
