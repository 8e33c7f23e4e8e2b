#!/usr/bin/env bash
# prio, prioclass (issue 34, item 5): the job's I/O priority on every
# request, reported and checked as fio 3.33 does it:
#  - libaio under strace: every iocb carries it (aio_reqprio with
#    IOCB_FLAG_IOPRIO), the value fio 3.33 gives ioprio_set() for the same
#    job; without prio no iocb asks for one (io_uring's SQE: test_uring_ioprio);
#  - JSON "prios" as fio's stat.c keeps them: per group, when its jobs
#    differ in priority or use cmdprio, each job's I/Os at its own (lat_ns
#    under lat_percentiles), none for one job or for equal priorities;
#    cmdprio's entry 0 is the job's priority, one equal to it merges;
#    beside fio 3.33 the same (class, level, N) for every case it can run;
#  - the per-I/O logs' last column: the value (log_prio=1) or whether it
#    is realtime, as fio's, where rqlock wrote 0 before;
#  - realtime without CAP_SYS_ADMIN and CAP_SYS_NICE (setpriv): that job
#    fails with EPERM before any I/O, the others run, exit 1, as fio's
#    ioprio_set() failure;
#  - bad values: one line, exit 2.
. "$(dirname "$0")/lib.sh"
need python3
f="$TMP/data"
truncate -s 16m "$f"
have_fio=false
command -v fio >/dev/null && fio --version | grep -q '^fio-3\.33' && have_fio=true

# prios COMMAND...: its JSON's jobs, a line each: "name error dir:key:class/level=N,..." (sorted)
prios() {
	"$@" --output-format=json >"$TMP/p.json" 2>"$TMP/p.err"
	echo "rc=$?" >"$TMP/p.rc"
	python3 - "$TMP/p.json" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
for x in json.loads(t[t.index('{'):])['jobs']:
    out = [x['jobname'], str(x['error'])]
    for d in ('read', 'write'):
        ps = x[d].get('prios')
        if ps is not None:
            key = 'lat_ns' if 'lat_ns' in ps[0] else 'clat_ns'
            out.append(d + ':' + key + ':' + ','.join(sorted('%d/%d=%d' % (p['prioclass'], p['prio'], p[key]['N']) for p in ps)))
    print(' '.join(out))
PY
}
case_() {	# case_ NAME WANT ARGS...: rqlock's prios are WANT; fio 3.33's too, when it is here
	local name=$1 want=$2 got
	shift 2
	got=$(prios "$RQLOCK" run "$@")
	[ "$got" = "$want" ] || { cat "$TMP/p.err"; fail "$name: rqlock: '$got', expected '$want'"; }
	if $have_fio; then
		got=$(prios fio "$@")
		[ "$got" = "$want" ] || fail "$name: fio 3.33 gives '$got', rqlock '$want'"
	fi
	echo "$name: $want"
}
null=(--ioengine=null --size=4m --rw=randread)
case_ "group, two priorities" "a 0 read:clat_ns:2/2=1024,3/0=1024" \
	--group_reporting "${null[@]}" --name=a --prio=2 --name=b --prioclass=3
case_ "group, one priority" "a 0" --group_reporting "${null[@]}" --name=a --prio=2 --name=b --prio=2
case_ "group, one job without" "a 0 read:clat_ns:0/0=1024,2/2=1024" \
	--group_reporting "${null[@]}" --name=a --prio=2 --name=b
case_ "group, lat_percentiles" "a 0 read:lat_ns:2/0=1024,2/7=1024" --group_reporting "${null[@]}" \
	--lat_percentiles=1 --name=a --prioclass=2 --prio=0 --name=b --prio=7
case_ "no group_reporting" $'a 0\nb 0' "${null[@]}" --name=a --prio=2 --name=b --prioclass=3
# cmdprio's share beside the job's own: entry 0 is the job's priority
got=$(prios "$RQLOCK" run --name=a --ioengine=io_uring --filename="$f" --size=4m --rw=randread --prio=2 \
	--cmdprio_percentage=30 --cmdprio_class=2 --cmdprio=6)
python3 - "$got" <<'PY' || fail "cmdprio with prio: $got"
import sys
name, err, prios = sys.argv[1].split()
d = dict(p.split('=') for p in prios.split(':')[2].split(','))
assert err == '0' and set(d) == {'2/2', '2/6'}, d
assert sum(int(v) for v in d.values()) == 1024 and abs(int(d['2/6']) / 1024 - 0.3) < 0.06, d
PY
echo "cmdprio beside prio=2: $got"
case_ "cmdprio at the job's own priority" "a 0" --name=a --ioengine=io_uring --filename="$f" --size=4m \
	--rw=randread --prio=2 --prioclass=2 --cmdprio_percentage=30 --cmdprio_class=2 --cmdprio=2

# ---- the logs' last column: the priority with log_prio=1, else whether it is realtime (fio's) ----
for lp in 1 0; do
	for cls in 3 1; do
		rm -f "$TMP"/lg*
		"$RQLOCK" run --name=t --ioengine=io_uring --filename="$f" --size=64k --rw=randread --prio=5 \
			--prioclass=$cls --write_lat_log="$TMP/lg" --log_prio=$lp --output-format=json >/dev/null ||
			fail "log_prio=$lp prioclass=$cls: exit $?"
		want=$([ $lp = 1 ] && printf '0x%04x' $(((cls << 13) | 5)) || echo $((cls == 1)))
		got=$(awk -F', ' '{print $NF}' "$TMP/lg_lat.1.log" | sort -u | tr '\n' ' ')
		[ "$got" = "$want " ] || fail "log_prio=$lp prioclass=$cls: the lat log's last column is '$got', not $want"
		if $have_fio; then
			fio --name=t --ioengine=io_uring --filename="$f" --size=64k --rw=randread --prio=5 --prioclass=$cls \
				--write_lat_log="$TMP/lgf" --log_prio=$lp --output-format=json >/dev/null 2>&1 || fail "fio's log run"
			got=$(awk -F', ' '{print $NF}' "$TMP/lgf_lat.1.log" | sort -u | tr '\n' ' ')
			[ "$got" = "$want " ] || fail "fio 3.33 logs '$got' where rqlock logs $want"
		fi
		echo "log_prio=$lp prioclass=$cls: every line ends in $want"
	done
done

# ---- libaio: the priority in every iocb, the value fio gives ioprio_set() ----
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
	st() {	# st OUT PROGRAM ARGS...: the run under strace, its syscalls in OUT
		local out=$1
		shift
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -v \
			-e trace=io_submit,ioprio_set -o "$out" "$@" --name=t --ioengine=libaio --filename="$f" \
			--size=1m --rw=randrw --iodepth=4 --output-format=json --output=/dev/null ||
			fail "strace $*: exit $?"
	}
	st "$TMP/st.txt" "$RQLOCK" run --prio=5 --prioclass=3
	n=$(grep -o 'aio_lio_opcode=' "$TMP/st.txt" | wc -l)
	k=$(grep -o 'aio_reqprio=IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 5)[^}]*aio_flags=IOCB_FLAG_IOPRIO' "$TMP/st.txt" | wc -l)
	[ "$n" = 256 ] && [ "$k" = "$n" ] || fail "libaio: $k of $n iocbs at idle/5, expected all 256"
	grep -q 'ioprio_set' "$TMP/st.txt" && fail "rqlock set a thread's priority"
	echo "libaio: all $n iocbs carry IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 5)"
	st "$TMP/st0.txt" "$RQLOCK" run
	grep -q 'aio_reqprio\|IOCB_FLAG_IOPRIO' "$TMP/st0.txt" && fail "libaio: a job without prio asked for one"
	echo "libaio: without prio no iocb asks for a priority"
	if $have_fio; then
		st "$TMP/stf.txt" fio --prio=5 --prioclass=3
		grep -q 'ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 5)) = 0' "$TMP/stf.txt" ||
			fail "fio 3.33 did not ask the kernel for idle/5: $(grep ioprio_set "$TMP/stf.txt")"
		echo "fio 3.33 gives ioprio_set() the same value"
	fi
else
	echo "libaio: no strace here (or not allowed): the iocbs are not checked"
fi

# ---- realtime without the capabilities: that job fails before any I/O, as fio's ioprio_set() ----
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
   setpriv --bounding-set=-sys_admin,-sys_nice true 2>/dev/null; then
	nocap=(setpriv --bounding-set=-sys_admin,-sys_nice --inh-caps=-sys_admin,-sys_nice --)
	got=$(prios "${nocap[@]}" "$RQLOCK" run "${null[@]}" --name=a --prioclass=1 --name=b)
	rc=$(cat "$TMP/p.rc")
	ios=$(json "$TMP/p.json" "[x['read']['total_ios'] for x in j['jobs']]")
	[ "$got" = $'a 1\nb 0' ] && [ "$rc" = rc=1 ] && [ "$ios" = "[0, 1024]" ] ||
		{ cat "$TMP/p.err"; fail "realtime without capabilities: '$got' $rc reads $ios"; }
	[ "$(wc -l <"$TMP/p.err")" = 1 ] && grep -q "job 'a'.*realtime.*Operation not permitted" "$TMP/p.err" ||
		{ cat "$TMP/p.err"; fail "realtime without capabilities: not one line naming job a and EPERM"; }
	echo "realtime without CAP_SYS_ADMIN/CAP_SYS_NICE: $(cat "$TMP/p.err")"
	if $have_fio; then
		want=$(prios "${nocap[@]}" fio "${null[@]}" --name=a --prioclass=1 --name=b)
		[ "$want" = "$got" ] && [ "$(cat "$TMP/p.rc")" = rc=1 ] || fail "fio 3.33: '$want', rqlock '$got'"
		echo "fio 3.33 fails the same job the same way"
	fi
	# with them (root), realtime runs
	got=$(prios "$RQLOCK" run "${null[@]}" --name=a --prioclass=1 --prio=4)
	[ "$got" = "a 0" ] && [ "$(cat "$TMP/p.rc")" = rc=0 ] || fail "realtime as root: '$got'"
else
	echo "realtime: skipped (needs root and setpriv)"
fi

# ---- bad values: one line naming the file, line and option, exit 2 ----
for bad in prio=8 prio=-1 prio=x prioclass=4; do
	printf '[t]\nioengine=null\nsize=1m\n%s\n' "$bad" >"$TMP/bad.fio"
	"$RQLOCK" run "$TMP/bad.fio" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/bad.err")" = 1 ] && grep -q "bad.fio:4: .*'${bad%%=*}'" "$TMP/bad.err" &&
		[ ! -s "$TMP/bad.out" ] || { cat "$TMP/bad.err"; fail "$bad: exit $rc, not one line naming the option"; }
	echo "$bad: $(cat "$TMP/bad.err")"
done
echo PASS
