#!/usr/bin/env bash
# A mixed job ahead of its rate in the direction it drew takes the other
# direction when that one is due, as fio 3.33's io_u.c rate_ddir() does.
# rqlock held the drawn direction back instead: Debian's exitwhat.fio
# (randrw, rate=300: a 4 KiB I/O per direction every 13 s) issued 3 reads
# and 2 writes over its 3 clones where fio issues 3 and 3, as a clone
# that drew a read twice waited 13 s for it.  Here every clone of a
# randrw job limited by rate= (and by rate_iops=) issues its first read
# and its first write at once, so in one second exactly one of each; with
# rwmixread=100 no write is taken.  fio 3.33 is run beside where installed.
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP" || fail "cd $TMP"
truncate -s 16m f || fail "truncate"

# per_clone TOOL JOB: "R/W" per clone, space separated
per_clone() {
	run_json "$1" "$2" | python3 -c '
import json, sys
print(" ".join("%d/%d" % (j["read"]["total_ios"], j["write"]["total_ios"]) for j in json.load(sys.stdin)["jobs"]))'
}

n=0
# check WANT OPTIONS...: every one of 4 clones issues WANT (reads/writes)
check() {
	local want=$1 job got tool
	shift
	n=$((n + 1))
	job=j$n.fio
	{ echo "[j]"; echo "filename=f"; echo "rw=randrw"; echo "bs=4k"; echo "numjobs=4"
	  echo "runtime=1"; echo "time_based"; printf '%s\n' "$@"; } >"$job"
	for tool in rqlock fio; do
		[ $tool = fio ] && ! command -v fio >/dev/null && continue
		got=$(per_clone $tool "$job")
		[ "$got" = "$want $want $want $want" ] || fail "$tool, $*: per clone $got, want $want each"
	done
	echo "ok: $* ($want per clone)"
}

check 1/1 rate=300
check 1/1 rate_iops=1
check 1/1 rate=300,300 rwmixread=90
check 1/0 rate=300 rwmixread=100
echo "test_rate_ddir: ok"
