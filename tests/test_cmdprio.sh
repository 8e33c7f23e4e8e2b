#!/usr/bin/env bash
# cmdprio (fio's engines/cmdprio.c, its io_uring and libaio options): a share
# of the I/Os goes at another I/O priority, each priority's latencies are
# reported apart as fio's "prios" (JSON) and "clat prio C/L" lines (normal),
# and they add up to the direction's own.  Checked on io_uring and libaio
# over a file of this test's own, at class 2 (best effort: no privilege
# needed; realtime needs CAP_SYS_ADMIN):
# - cmdprio_percentage=30: two priorities, 0/0 and 2/3, whose N sum to the
#   direction's, the 2/3 share within 30 +- 6 %, json+ bins summing alike;
# - lat_percentiles=1: the prios carry lat_ns, as fio;
# - group_reporting over numjobs=2 and unified_rw_reporting=mixed merge the
#   priorities by value (two entries, N summed);
# - cmdprio_bssplit: per block size shares at their own priorities;
# - fio 3.33 (when installed) reports the same keys for the same job, and
#   fio's client gets them from rqlock's server (fio's clat_prio records);
# - bad input exits 2 with file:line: cmdprio on ioengine=null, with both
#   cmdprio_percentage and cmdprio_bssplit, a malformed entry, a class of 4.
. "$(dirname "$0")/lib.sh"
need python3
f="$TMP/data"
truncate -s 16m "$f"
check() {	# check NAME PYEXPR JSONFILE: fail naming the check unless the expression holds
	python3 - "$3" "$2" <<'PY' || fail "$1"
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index('{'):])
job = j['jobs'][0]
def prios(d, key='clat_ns'):
    return {(p['prioclass'], p['prio']): p[key] for p in job[d].get('prios', [])}
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps({d: job[d].get('prios') and [(p['prioclass'], p['prio'], p.get('clat_ns', p.get('lat_ns'))['N']) for p in job[d]['prios']] for d in ('read', 'write', 'mixed') if d in job}))
sys.exit(0 if ok else 1)
PY
}
for eng in io_uring libaio; do
	base=(--name=t --ioengine=$eng --filename="$f" --size=16m --bs=4k --iodepth=4)
	"$RQLOCK" run "${base[@]}" --rw=randread --cmdprio_percentage=30 --cmdprio_class=2 --cmdprio=3 \
		--output-format=json+ --output "$TMP/a.json" || fail "$eng: cmdprio_percentage run: exit $?"
	check "$eng: two priorities summing to the reads" \
		"set(prios('read')) == {(0, 0), (2, 3)} and sum(v['N'] for v in prios('read').values()) == job['read']['clat_ns']['N'] == 4096" "$TMP/a.json"
	check "$eng: the 2/3 share is 30 +- 6 %" "abs(prios('read')[(2, 3)]['N'] / 4096 - 0.30) < 0.06" "$TMP/a.json"
	check "$eng: json+ bins of the priorities add up to the reads'" \
		"all(sum(v['bins'].get(k, 0) for v in prios('read').values()) == n for k, n in job['read']['clat_ns']['bins'].items())" "$TMP/a.json"
	check "$eng: min and max are the priorities' extremes" \
		"min(v['min'] for v in prios('read').values()) == job['read']['clat_ns']['min'] and max(v['max'] for v in prios('read').values()) == job['read']['clat_ns']['max']" "$TMP/a.json"
	"$RQLOCK" run "${base[@]}" --rw=randwrite --cmdprio_percentage=50 --cmdprio_class=2 --lat_percentiles=1 \
		--output-format=json --output "$TMP/b.json" || fail "$eng: lat_percentiles run"
	check "$eng: lat_percentiles: the prios carry lat_ns" \
		"set(prios('write', 'lat_ns')) == {(0, 0), (2, 0)} and sum(v['N'] for v in prios('write', 'lat_ns').values()) == job['write']['lat_ns']['N']" "$TMP/b.json"
	"$RQLOCK" run "${base[@]}" --rw=randrw --cmdprio_percentage=40,20 --cmdprio_class=2 --cmdprio=1,5 \
		--numjobs=2 --group_reporting --unified_rw_reporting=mixed --output-format=json --output "$TMP/c.json" \
		|| fail "$eng: group_reporting, mixed run"
	check "$eng: mixed and group_reporting merge the priorities by value" \
		"set(prios('mixed')) == {(0, 0), (2, 1), (2, 5)} and sum(v['N'] for v in prios('mixed').values()) == job['mixed']['clat_ns']['N'] == 2 * 4096" "$TMP/c.json"
	"$RQLOCK" run "${base[@]}" --rw=randread --bssplit=4k/50:8k/50 --cmdprio_bssplit=4k/50/3/0:8k/100/2/7 \
		--output-format=json --output "$TMP/d.json" || fail "$eng: cmdprio_bssplit run"
	check "$eng: cmdprio_bssplit: 8k all at 2/7, half of 4k at 3/0" \
		"set(prios('read')) == {(0, 0), (3, 0), (2, 7)} and abs(prios('read')[(0, 0)]['N'] - prios('read')[(3, 0)]['N']) < 0.25 * prios('read')[(3, 0)]['N']" "$TMP/d.json"
	"$RQLOCK" run "${base[@]}" --rw=randread --cmdprio_percentage=50 --cmdprio_class=2 >"$TMP/n.out" \
		|| fail "$eng: normal output run"
	grep -q '^    clat prio 2/0 (.sec): min=' "$TMP/n.out" && grep -q 'clat prio 0/0 (.*% of IOs) percentiles' "$TMP/n.out" \
		|| { cat "$TMP/n.out"; fail "$eng: no prio lines in the normal output"; }
done
# without cmdprio: no "prios" at all
"$RQLOCK" run --name=t --ioengine=io_uring --filename="$f" --size=16m --rw=randread --output-format=json \
	--output "$TMP/e.json" || fail "plain run"
check "no prios without cmdprio" "'prios' not in job['read']" "$TMP/e.json"

# the same keys as fio 3.33 reports for the same job
if command -v fio >/dev/null && fio --version | grep -q '^fio-3\.33'; then
	fio --name=t --ioengine=libaio --filename="$f" --size=16m --rw=randread --cmdprio_percentage=30 --cmdprio=3 \
		--cmdprio_class=2 --output-format=json+ --output="$TMP/fio.json" >/dev/null 2>&1 || fail "fio's run"
	python3 - "$TMP/fio.json" "$TMP/a.json" <<'PY' || fail "the prios' keys differ from fio's"
import json, sys
def load(p):
    t = open(p).read()
    return json.loads(t[t.index('{'):])['jobs'][0]['read']['prios']
a, b = load(sys.argv[1]), load(sys.argv[2])
ka = [sorted(p) + sorted(p['clat_ns']) for p in a]
kb = [sorted(p) + sorted(p['clat_ns']) for p in b]
assert ka == kb, (ka, kb)
assert [(p['prioclass'], p['prio']) for p in a] == [(p['prioclass'], p['prio']) for p in b], (a, b)
PY
	echo "fio 3.33 reports the same prios keys"
	# through rqlock's server, the fio client gets the priorities too (clat_prio records)
	"$RQLOCK" server "sock:$TMP/s.sock" --workers 2 --no-pin --allow "$TMP/" 2>"$TMP/s.log" &
	spid=$!
	cleanup_hooks+=("kill $spid 2>/dev/null; wait $spid 2>/dev/null")
	for _ in $(seq 100); do grep -q 'listening on' "$TMP/s.log" && break; sleep 0.1; done
	printf '[t]\nioengine=io_uring\nfilename=%s\nsize=16m\nrw=randread\ncmdprio_percentage=30\ncmdprio_class=2\ncmdprio=3\n' \
		"$f" >"$TMP/c.fio"
	fio --client="sock:$TMP/s.sock" --output-format=json+ "$TMP/c.fio" >"$TMP/cl.json" 2>"$TMP/cl.err" \
		|| { cat "$TMP/cl.err" "$TMP/s.log"; fail "fio --client to rqlock server: exit $?"; }
	python3 - "$TMP/cl.json" <<'PY' || fail "the fio client got no per-priority latencies from rqlock's server"
import json, sys
t = open(sys.argv[1]).read()
r = json.loads(t[t.index('{'):])['client_stats'][0]['read']
p = {(x['prioclass'], x['prio']): x['clat_ns'] for x in r['prios']}
assert set(p) == {(0, 0), (2, 3)}, p.keys()
assert sum(v['N'] for v in p.values()) == r['clat_ns']['N'] == 4096, [v['N'] for v in p.values()]
assert all(sum(v['bins'].get(k, 0) for v in p.values()) == n for k, n in r['clat_ns']['bins'].items())
PY
	echo "a fio client of rqlock's server gets the prios"
fi

# bad input: one line naming the file, line and option, exit 2, nothing run
bad() {	# bad WHAT TEXT...
	local what=$1; shift
	printf '%b' "$*" >"$TMP/bad.fio"
	"$RQLOCK" run "$TMP/bad.fio" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ $rc = 2 ] || { cat "$TMP/bad.err"; fail "$what: exit $rc, not 2"; }
	[ "$(wc -l <"$TMP/bad.err")" = 1 ] && grep -q "bad.fio:[0-9]" "$TMP/bad.err" \
		|| { cat "$TMP/bad.err"; fail "$what: not one line naming the file and line"; }
	echo "$what: $(cat "$TMP/bad.err")"
}
bad "cmdprio on ioengine=null" "[t]\nioengine=null\nsize=1m\ncmdprio_percentage=10\n"
bad "percentage and bssplit" "[t]\nioengine=io_uring\nfilename=$f\nsize=1m\ncmdprio_percentage=10\ncmdprio_bssplit=4k/10\n"
bad "a malformed entry" "[t]\nioengine=io_uring\nfilename=$f\nsize=1m\ncmdprio_bssplit=4k/10/2\n"
bad "over 100 % for a size" "[t]\nioengine=io_uring\nfilename=$f\nsize=1m\ncmdprio_bssplit=4k/60:4k/50\n"
bad "class 4" "[t]\nioengine=libaio\nfilename=$f\nsize=1m\ncmdprio_percentage=10\ncmdprio_class=4\n"
echo PASS
