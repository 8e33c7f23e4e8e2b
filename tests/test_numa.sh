#!/usr/bin/env bash
# numa_cpu_nodes= and numa_mem_policy= (issue 34: Debian's numa.fio ran
# under rqlock where fio 3.33 refuses it): --parse-only accepts them, as
# fio's callbacks do nothing then; the run checks the policy's form and
# that every node named is online, refusing with one line and exit 2
# (fio: exit 1) and writing nothing.  Each case is also run by fio where
# it is installed: both must accept it or both refuse it.
. "$(dirname "$0")/lib.sh"
online=$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)
last=$(echo "$online" | tr ',-' '\n\n' | sort -n | tail -1)
missing=$((last + 1))
check() {	# check ACCEPT|REFUSE OPTION=VALUE...
	local want=$1; shift
	{ echo "[a]"; echo "ioengine=null"; echo "size=64k"; printf '%s\n' "$@"; } >"$TMP/j.fio"
	"$RQLOCK" run --parse-only "$TMP/j.fio" >/dev/null 2>"$TMP/err" || fail "--parse-only refused $*: $(cat "$TMP/err")"
	rc=0
	"$RQLOCK" run --output-format=json --output="$TMP/out.json" "$TMP/j.fio" >"$TMP/stdout" 2>"$TMP/err" || rc=$?
	if [ "$want" = ACCEPT ]; then
		[ $rc -eq 0 ] || fail "$* refused: $(cat "$TMP/err")"
	else
		[ $rc -eq 2 ] || fail "$*: rc=$rc, expected 2"
		[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$*: not one line: $(cat "$TMP/err")"
		grep -q "^$TMP/j.fio:1: job 'a': ${1%%=*}=" "$TMP/err" || fail "$*: the line names no file, job and option: $(cat "$TMP/err")"
		[ ! -s "$TMP/out.json" ] && [ ! -s "$TMP/stdout" ] || fail "$*: refused, yet wrote output"
	fi
	rm -f "$TMP/out.json"
	if command -v fio >/dev/null; then
		frc=0
		(cd "$TMP" && fio --output-format=json j.fio >/dev/null 2>&1) || frc=$?
		[ $(( frc == 0 )) = $(( rc == 0 )) ] || fail "$*: fio rc=$frc, rqlock rc=$rc"
	fi
}
check ACCEPT numa_cpu_nodes=0
check ACCEPT numa_cpu_nodes=all
check ACCEPT numa_mem_policy=bind:0
check ACCEPT numa_mem_policy=interleave
check ACCEPT numa_mem_policy=local
check ACCEPT numa_mem_policy=prefer:$missing
check REFUSE numa_cpu_nodes=0-$missing
check REFUSE numa_mem_policy=interleave:0-$missing
check REFUSE numa_mem_policy=bind
check REFUSE numa_mem_policy=prefer
check REFUSE numa_mem_policy=local:0
check REFUSE numa_mem_policy=sometimes:0
check REFUSE numa_cpu_nodes=x
echo "PASS"
