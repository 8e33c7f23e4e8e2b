#!/bin/sh
# portable-sweep.sh - the lock-scaling set on a machine that has only the
# rqlock binary and a POSIX shell: no Python, no fio, no jq.
#
# Run as `rqlock sweep --portable OUT [OPTIONS]`: the binary carries this
# script and jobs/lock-scaling.fio inside it (cli/portable.c) and runs
# the script with sh -c, RQLOCK naming itself; the script checks its
# options before it writes anything, then writes both into OUT (run.sh,
# jobs/lock-scaling.fio).  A finished (point, repeat) is not run again: the
# same command resumes an interrupted set.  Everything
# else comes from the machine: W = 1, 2, 4, ... up to the CPUs this shell
# may use, D = W and D = 1 at each W, every lock mode and primitive the
# binary knows (from its own refusal of an unknown one), null devices.
#
# OUT becomes a run store like scripts/sweep's (manifest.json, jobs/,
# json/<point>-r<k>.json and .meta.json, log/): copy it home and run
#   rqlock sweep --summarize OUT && rqlock compare OUT && rqlock plot OUT
# (compare and plot summarize a store that has no summary.csv themselves).
#
# Options:
#   --budget SECONDS   the whole set's wall time (default 480): chooses the
#                      repeats (3, else 2, else 1) and the runtime per point
#                      (at least 0.5 s), counting 0.5 s a run to start
#   --runtime S        seconds per point (overrides the budget's choice)
#   --repeat N         runs per point (overrides the budget's choice)
#   --workers LIST     comma list of W (default 1,2,4,...,CPUs)
#   --modes LIST       lock modes (default: every one the binary has)
#   --lock-types LIST  lock primitives (default: every one the binary has)
#   --qd N             iodepth of every drive (default 16)
# A run that fails is recorded (its .meta.json says why) and the set goes on.
set -eu

die() { echo "sweep --portable: $*" >&2; exit 2; }

RQ=${RQLOCK:-}
[ -n "$RQ" ] && [ -x "$RQ" ] || die "RQLOCK must name the rqlock binary (run me as rqlock sweep --portable OUT)"
[ $# -ge 1 ] || die "usage: rqlock sweep --portable OUT [--budget S] [--runtime S] [--repeat N] [--workers LIST] [--modes LIST] [--lock-types LIST] [--qd N]"
OUT=$1
shift
budget=480 runtime= repeat= workers= modes= types= qd=16
while [ $# -gt 0 ]; do
	case $1 in
	--budget) [ $# -ge 2 ] || die "--budget needs SECONDS"; budget=$2; shift 2 ;;
	--budget=*) budget=${1#*=}; shift ;;
	--runtime) [ $# -ge 2 ] || die "--runtime needs S"; runtime=$2; shift 2 ;;
	--runtime=*) runtime=${1#*=}; shift ;;
	--repeat) [ $# -ge 2 ] || die "--repeat needs N"; repeat=$2; shift 2 ;;
	--repeat=*) repeat=${1#*=}; shift ;;
	--workers) [ $# -ge 2 ] || die "--workers needs LIST"; workers=$2; shift 2 ;;
	--workers=*) workers=${1#*=}; shift ;;
	--modes) [ $# -ge 2 ] || die "--modes needs LIST"; modes=$2; shift 2 ;;
	--modes=*) modes=${1#*=}; shift ;;
	--lock-types) [ $# -ge 2 ] || die "--lock-types needs LIST"; types=$2; shift 2 ;;
	--lock-types=*) types=${1#*=}; shift ;;
	--qd) [ $# -ge 2 ] || die "--qd needs N"; qd=$2; shift 2 ;;
	--qd=*) qd=${1#*=}; shift ;;
	*) die "unknown option $1" ;;
	esac
done
isnum() { case $1 in '' | *[!0-9.]* | *.*.*) return 1 ;; esac; }
isint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }
isnum "$budget" || die "--budget $budget: not a number of seconds"
[ -z "$runtime" ] || isnum "$runtime" || die "--runtime $runtime: not a number of seconds"
[ -z "$repeat" ] || { isint "$repeat" && [ "$repeat" -ge 1 ]; } || die "--repeat $repeat: not a positive count"
isint "$qd" && [ "$qd" -ge 1 ] || die "--qd $qd: not a positive count"

# the machine
ncpu=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || grep -c '^processor' /proc/cpuinfo)
isint "$ncpu" && [ "$ncpu" -ge 1 ] || ncpu=1
[ "$ncpu" -le 64 ] || ncpu=64	# jobs/lock-scaling.fio has 64 drive sections
if [ -z "$workers" ]; then
	w=1
	while [ "$w" -lt "$ncpu" ]; do workers="$workers$w,"; w=$((w * 2)); done
	workers="$workers$ncpu"
fi
known() {	# the names the binary lists when it refuses "?"
	"$RQ" run "$1=?" x.fio 2>&1 | sed -n 's/.*unknown lock [a-z]* (\([^)]*\)).*/\1/p' | tr '|' ' '
}
[ -n "$modes" ] || modes=$(known --lock | tr ' ' ',')
[ -n "$types" ] || types=$(known --lock-type | tr ' ' ',')
[ -n "$modes" ] && [ -n "$types" ] || die "$RQ lists no lock modes or primitives"
list() { echo "$1" | tr ',' ' '; }
for w in $(list "$workers"); do
	isint "$w" && [ "$w" -ge 1 ] && [ "$w" -le 64 ] || die "--workers: $w is not a count from 1 to 64"
done

# the points: (W, D) pairs with D = W and D = 1
pairs=
for w in $(list "$workers"); do
	pairs="$pairs $w:$w"
	[ "$w" -gt 1 ] && pairs="$pairs $w:1"
done
npairs=$(echo $pairs | wc -w)
npoints=$((npairs * $(list "$modes" | wc -w) * $(list "$types" | wc -w)))

# the budget: repeats 3, else 2, else 1, with at least 0.5 s a run (+0.5 s to start)
choose() {
	awk -v b="$budget" -v p="$npoints" -v r="$runtime" -v k="$repeat" 'BEGIN {
		if (k == "") {
			k = 1
			for (n = 3; n >= 1; n--) {
				t = (r != "") ? r : b / (p * n) - 0.5
				if (t >= 0.5) { k = n; break }
			}
		}
		if (r == "") { r = b / (p * k) - 0.5; if (r < 0.5) r = 0.5 }
		ms = int(r * 1000 / 100) * 100
		if (ms < 100) ms = 100
		printf "%d %d %.1f\n", k, ms, p * k * (ms / 1000 + 0.5)
	}'
}
set -- $(choose)
repeat=$1 runtime_ms=$2 expect_s=$3
if [ $((runtime_ms % 1000)) -eq 0 ]; then rt=$((runtime_ms / 1000)); else rt=${runtime_ms}ms; fi
runtime_s=$(awk -v m="$runtime_ms" 'BEGIN { printf "%g", m / 1000 }')

if [ -n "${RQLOCK_PORTABLE_JOB:-}" ]; then
	[ -f "$OUT/jobs/lock-scaling.fio" ] || { mkdir -p "$OUT/jobs" && printf '%s' "$RQLOCK_PORTABLE_JOB" >"$OUT/jobs/lock-scaling.fio"; }
	# this script beside the store: `RQLOCK=... sh OUT/run.sh OUT` resumes it
	printf '%s' "${RQLOCK_PORTABLE_SCRIPT:-}" >"$OUT/run.sh"
fi
[ -f "$OUT/jobs/lock-scaling.fio" ] || die "$OUT/jobs/lock-scaling.fio is missing (run me as rqlock sweep --portable OUT)"
mkdir -p "$OUT/json" "$OUT/log"
id=$(basename "$OUT")
notes=
for w in $(list "$workers"); do
	if [ "$w" -gt "$ncpu" ]; then
		msg="warning: W=$w workers on $ncpu CPUs: more workers than CPUs; spinning locks under oversubscription measure the scheduler, not the lock"
		echo "sweep --portable: $msg" >&2
		notes="$notes, \"$msg\""
	fi
done
if awk -v e="$expect_s" -v b="$budget" 'BEGIN { exit !(e > b * 1.05) }'; then
	msg="warning: $npoints points x $repeat at the shortest runtime take about ${expect_s} s, over --budget $budget"
	echo "sweep --portable: $msg" >&2
	notes="$notes, \"$msg\""
fi
notes="[\"portable sweep: rqlock and a POSIX shell only (rqlock sweep --portable)\"$notes]"

jstr() {	# a JSON string
	printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\n\r\t')"
}
jlist() {	# a comma list as a JSON list of strings or numbers
	out= sep=
	for x in $(list "$1"); do
		if [ "${2:-}" = num ]; then out="$out$sep$x"; else out="$out$sep\"$x\""; fi
		sep=", "
	done
	printf '[%s]' "$out"
}
now() { date +%Y-%m-%dT%H:%M:%S%z | sed 's/\([0-9][0-9]\)$/:\1/'; }
drives=$(for p in $pairs; do echo "${p#*:}"; done | sort -n | uniq | tr '\n' ',' | sed 's/,$//')
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1)
mem=$(sed -n 's/^MemTotal:[[:space:]]*//p' /proc/meminfo 2>/dev/null | head -1)
sha=$(sha256sum "$OUT/jobs/lock-scaling.fio" 2>/dev/null | cut -d' ' -f1 || true)
version=$("$RQ" --version 2>/dev/null || echo "?")
created=$(now)

manifest() {	# $1: status
	cat >"$OUT/manifest.json.tmp" <<EOF
{
 "id": $(jstr "$id"),
 "command": ["rqlock", "sweep", "--portable", $(jstr "$OUT"), "--budget", $(jstr "$budget")],
 "created": $(jstr "$created"),
 "git": {"revision": null, "dirty": null, "note": $(jstr "portable: $version")},
 "machine": {"hostname": $(jstr "$(uname -n)"), "cpus": $ncpu, "cpu_model": $(jstr "$model"),
  "memory": $(jstr "$mem"), "kernel": $(jstr "$(uname -r)"), "os": $(jstr "$(uname -v)"), "block_devices": null},
 "rqlock": {"path": $(jstr "$RQ"), "version": $(jstr "$version")},
 "fio": {"path": null, "version": null},
 "jobfiles": [{"path": "jobs/lock-scaling.fio", "copy": "lock-scaling.fio", "sha256": $(jstr "$sha")}],
 "modes": $(jlist "$modes"),
 "modes_unavailable": {},
 "lock_types": $(jlist "$types"),
 "devices": {"DISK": "@null{n}"},
 "axes": {"drives": $(jlist "$drives" num), "workers": $(jlist "$workers" num), "vars": {"QD": ["$qd"]},
  "runtime": $runtime_s, "pairs": "D=1 or D=W", "cpus_usable": $ncpu, "repeat": $repeat, "no_pin": false,
  "stall_timeout": 60, "quick": false, "budget": $budget, "portable": true},
 "metrics": {},
 "notes": $notes,
 "status": $(jstr "$1")
}
EOF
	mv "$OUT/manifest.json.tmp" "$OUT/manifest.json"
}
manifest running

echo "sweep --portable: $npoints points x $repeat repeats of $runtime_s s on $ncpu CPUs (W=$workers), about ${expect_s} s; store $OUT" >&2
job=$OUT/jobs/lock-scaling.fio
i=0 failed=0 total=$((npoints * repeat)) t0=$(date +%s)
rep=1
while [ "$rep" -le "$repeat" ]; do
	for p in $pairs; do
		w=${p%:*} d=${p#*:}
		for m in $(list "$modes"); do
			for t in $(list "$types"); do
				i=$((i + 1))
				pid="lock-scaling.$m.$t.d$d.w$w.QD$qd"
				base="$OUT/json/$pid-r$rep"
				if [ -f "$base.json" ] && [ -f "$base.meta.json" ]; then continue; fi
				echo "[$i/$total] mode=$m type=$t D=$d W=$w rep $rep/$repeat  elapsed $(($(date +%s) - t0)) s" >&2
				secs= disks= n=0
				while [ "$n" -lt "$d" ]; do
					secs="$secs --section drive$n"
					disks="$disks${disks:+:}@null$n"
					eval "export DISK$n=@null$n"
					n=$((n + 1))
				done
				per=$((w / d)); [ "$per" -ge 1 ] || per=1
				started=$(date +%Y-%m-%dT%H:%M:%S)
				s0=$(date +%s)
				rc=0
				# shellcheck disable=SC2086
				RUNTIME=$rt NDRIVES=$d PER_DRIVE=$per WORKERS=$w QD=$qd DISKS=$disks \
					"$RQ" run --lock="$m" --lock-type="$t" --workers="$w" --stall-timeout=60 \
					--output-format=json --output "$base.json.tmp" $secs "$job" \
					2>"$OUT/log/$pid-r$rep.stderr" || rc=$?
				wall=$(($(date +%s) - s0))
				ok=true why=null
				if [ "$rc" -ne 0 ] || [ ! -s "$base.json.tmp" ]; then
					ok=false why=$(jstr "exit $rc")
					failed=$((failed + 1))
					rm -f "$base.json.tmp"
					echo "sweep --portable: $pid rep $rep failed (exit $rc): $(tail -1 "$OUT/log/$pid-r$rep.stderr")" >&2
				else
					mv "$base.json.tmp" "$base.json"
				fi
				cat >"$base.meta.json" <<EOF
{"point": "$pid", "repeat": $rep, "command": ["rqlock", "run", "--lock=$m", "--lock-type=$t", "--workers=$w"],
 "exit": $rc, "ok": $ok, "why": $why,
 "env": {"DISKS": "$disks", "NDRIVES": "$d", "PER_DRIVE": "$per", "QD": "$qd", "RUNTIME": "$rt", "WORKERS": "$w"},
 "started": "$started", "wall_s": $wall, "bg_cpu": null, "bg_cpu_before": null, "loadavg_1m_before": null}
EOF
			done
		done
	done
	rep=$((rep + 1))
done
if [ "$failed" -eq 0 ]; then manifest done; else manifest "done, $failed runs failed"; fi
echo "sweep --portable: done in $(($(date +%s) - t0)) s ($failed runs failed).  Bring $OUT home, then:" >&2
echo "  rqlock sweep --summarize $OUT && rqlock compare $OUT && rqlock plot $OUT" >&2
echo "$OUT"
[ "$failed" -eq 0 ]
