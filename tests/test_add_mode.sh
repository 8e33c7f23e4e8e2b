#!/usr/bin/env bash
# Adding a lock mode is its file plus one registry line, and so is adding
# a device kind (issue 27, DESIGN.md).  A copy of the source tree gets
# tests/toy/toy_mode.c as queues/toy.c with one line in queues/modes.def,
# and tests/toy/toy_dev.c as devices/toy.c with one line in
# devices/kinds.def, nothing else; the copy is built, and "toy" and
# "@toy" must then be in --help, --list --json, a JSON report (the mode's
# own facts rendered under rqlock.mode, one counted in its per-request
# area (.cmd_size), the registry), the Python tools
# (sweep's modes, compare's and plot's order and colours) and the bash
# completion.  Builds rqlock once (a few minutes on a small machine).
. "$(dirname "$0")/lib.sh"
need python3
need cmake
need git
src="$TMP/src"
mkdir -p "$src"
tar -C "$SRCDIR" --exclude='./build*' --exclude=./.git --exclude='./results/runs' -cf - . | tar -C "$src" -xf - \
	|| fail "copying the tree"
git -C "$src" init -q && git -C "$src" add -A && git -C "$src" -c user.name=t -c user.email=t@t commit -qm base \
	|| fail "git in the copy"

# the whole change: two new files, one line in each registry
cp "$SRCDIR/tests/toy/toy_mode.c" "$src/queues/toy.c"
echo 'RQ_MODE(rq_mode_toy)' >>"$src/queues/modes.def"
cp "$SRCDIR/tests/toy/toy_dev.c" "$src/devices/toy.c"
echo 'RQ_DEV_KIND(rq_dev_toy)' >>"$src/devices/kinds.def"
git -C "$src" add -A
stat=$(git -C "$src" diff --cached --numstat | awk '{print $1 "+" $2 "-" " " $3}' | sort | tr '\n' ' ')
echo "the change: $stat"
[ "$(git -C "$src" diff --cached --numstat -- queues/modes.def devices/kinds.def | awk '{s += $1 + $2} END {print s}')" = 2 ] \
	|| fail "the registries changed by more than a line each: $stat"
[ "$(git -C "$src" diff --cached --name-only | wc -l)" = 4 ] || fail "more files touched: $stat"

cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$TMP/cmake.log" 2>&1 || fail "configure: $(tail -5 "$TMP/cmake.log")"
cmake --build "$src/build" --target rqlock -j2 >"$TMP/build.log" 2>&1 || fail "build: $(grep -m5 -i error "$TMP/build.log")"
toy="$src/build/rqlock"

"$toy" --help | grep -qE '^  toy +a toy' || fail "--help does not list the mode"
"$toy" --help | grep -qE '^  toy +@toy' || fail "--help does not list the device"
"$toy" --list --json >"$TMP/list.json" || fail "--list --json"
printf '[j]\nfilename=d0\nrw=randread\nbs=4k\nsize=64k\n' >"$TMP/j.fio"
"$toy" run --lock=toy --workers 2 --device d0=@toy0,depth=4 --output-format=json --output "$TMP/run.json" "$TMP/j.fio" \
	|| fail "a run under the toy mode on the toy device: exit $?"
# completions the mode ends itself (the toy device's come back inside queue_rq): null's on the next reap
"$toy" run --lock=toy --workers 2 --device d0=@null0,irqmode=1 --output-format=json --output "$TMP/null.json" "$TMP/j.fio" \
	|| fail "a run under the toy mode on @null0,irqmode=1: exit $?"
python3 - "$TMP" <<'PY' || fail "the toy is not everywhere"
import json, sys
d = sys.argv[1]
L = json.load(open(d + "/list.json"))
assert "toy" in [m["name"] for m in L["modes"]], L["modes"]
toy = [k for k in L["devices"] if k["name"] == "toy"]
assert toy and toy[0]["builtin"] == "@toy" and toy[0]["options"][0]["default"] == "8", toy
r = json.load(open(d + "/run.json"))["rqlock"]
assert r["mode"]["name"] == "toy" and r["mode"]["queues"][0]["submits"] == 16, r["mode"]
# counted in each request's own area (.cmd_size) by the mode's end_request: 16 bios of 4k
# at random, none merged; the toy device completes inside queue_rq, so none there
n = json.load(open(d + "/null.json"))["rqlock"]["mode"]["queues"][0]
assert r["mode"]["queues"][0]["completed"] == 0 and n["completed"] == 16 and n["submits"] == 16, (r["mode"], n)
assert r["registry"] == L
assert r["devices"][0]["kind"] == "toy" and r["devices"][0]["queue_depth"] == 4, r["devices"]
PY
RQLOCK="$toy" PYTHONPATH="$src/python" python3 - <<'PY' || fail "the Python tools do not see the toy"
from rqlock import compare, plot, registry, sweep
assert "toy" in sweep.RQ_MODES and "toy" in list(compare.MODE_ORDER), list(sweep.RQ_MODES)
assert registry.is_mode("toy") and not registry.has_flag("toy", "shared_lock")
assert plot.mode_style("toy") is not None and compare.mode_key("toy") < compare.mode_key("fio-kernel")
PY
"$toy" sweep --help 2>&1 | grep -q "toy" || fail "rqlock sweep --help does not name the mode"
# shellcheck disable=SC1091
modes=$(. "$src/scripts/completion/rqlock.bash" && _rqlock_list "$toy" modes)
case " $modes " in *" toy "*) ;; *) fail "completion: $modes" ;; esac
echo "toy mode and toy device: file + one registry line each; in --help, --list --json, the report, sweep, compare, plot, completion"
