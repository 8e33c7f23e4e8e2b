#!/usr/bin/env bash
# test_sweep_fio: the kernel baseline of scripts/sweep ("fio-kernel"): the same
# job files run by real fio on loop devices that the sweep makes over sparse
# files, recorded as a mode of their own, and the loop devices detached
# afterwards, also when the sweep is interrupted.  Needs root, fio, losetup.
. "$(dirname "$0")/lib.sh"
need python3
need fio
need losetup
[ "$(id -u)" -eq 0 ] || skip "not root: the kernel baseline needs loop devices"
[ -e /dev/loop-control ] || skip "no /dev/loop-control"
S=$SRCDIR/scripts
out=$TMP/runs

# our loop devices (those over the run's backing files) that are still attached
leftover() {
	local dir
	dir=$(json "$1/manifest.json" 'j["fio"].get("loop_devices", {}) and list(j["fio"]["loop_devices"].values())[0]["backing"].rsplit("/", 1)[0]')
	[ -n "$dir" ] && [ "$dir" != False ] || return 1
	losetup -a | grep -F "$dir/" || true
	[ -d "$dir" ] && echo "backing directory $dir remains"
	return 0
}

"$S/sweep" --rqlock "$RQLOCK" --out "$out" --id k --modes per-queue,fio-kernel --drives 1,2 --workers 1 \
	--runtime 1 --repeat 1 "$SRCDIR/jobs/multi-drive-scaling.fio" >/dev/null 2>"$TMP/k.err" ||
	fail "sweep: $(tail -3 "$TMP/k.err")"
run=$out/k
[ "$(json "$run/manifest.json" 'sorted(j["fio"]["loop_devices"])')" = "['DISK0', 'DISK1']" ] ||
	fail "manifest loop devices: $(json "$run/manifest.json" 'j["fio"].get("loop_devices")')"
left=$(leftover "$run") || fail "no loop devices recorded"
[ -z "$left" ] || fail "left behind: $left"
python3 - "$run/summary.csv" <<'PY' || fail "summary.csv: fio-kernel rows"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["mode"] == "fio-kernel"]
assert sorted(r["drives"] for r in rows) == ["1", "2"], rows
for r in rows:
    assert r["primitive"] == "kernel" and float(r["iops"]) > 0 and float(r["lat_p99_us"]) > 0, r
    assert r["contention_share"] == "" and r["lock_wait_share"] == "", r
PY
f=$(ls "$run"/json/multi-drive-scaling.fio-kernel.kernel.d2.w1.*-r1.json)
[ "$(json "$f" '"fio version" in j and sorted(x["jobname"] for x in j["jobs"])')" = "['drive0']" ] ||
	fail "$f is not fio's JSON of the drive jobs"
cmd=$(json "${f%.json}.meta.json" '" ".join(j["command"])')
case $cmd in
taskset\ -c\ 0-0\ *fio*--section\ drive0\ --section\ drive1*) ;;
*) fail "fio command: $cmd" ;;
esac
"$S/compare" "$run" | grep -q 'fio-kernel' || fail "compare has no fio-kernel column"

# interrupted while fio runs: the loop devices still go
"$S/sweep" --rqlock "$RQLOCK" --out "$out" --id i --modes fio-kernel --drives 1,2 --workers 1 \
	--runtime 5 --repeat 1 "$SRCDIR/jobs/multi-drive-scaling.fio" >/dev/null 2>"$TMP/i.err" &
pid=$!
for _ in $(seq 1 200); do
	[ -f "$out/i/manifest.json" ] && [ "$(json "$out/i/manifest.json" 'bool(j["fio"].get("loop_devices"))')" = True ] && break
	sleep 0.1
done
sleep 1
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 130 ] || fail "interrupted sweep exited $rc: $(tail -3 "$TMP/i.err")"
left=$(leftover "$out/i") || fail "no loop devices recorded in the interrupted run"
[ -z "$left" ] || fail "left behind after the interruption: $left"
echo "PASS"
