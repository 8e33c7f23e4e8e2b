#!/usr/bin/env bash
# issue 34: merge_blktrace_file, merge_blktrace_scalars, merge_blktrace_iters
# were refused.  fio 3.33 documents the merge (HOWTO "I/O Replay - Merging
# Traces") but never does it: its read_trace() reads into the pointer, not
# the record, so every merge stops at "iolog short read", leaves an empty
# merged file and replays the traces unmerged (fixed in later fio, commit
# c55d29ef).  rqlock merges as documented; this test checks it against a
# merge of its own (tests/blktrace_gen.py --merge) and checks that fio 3.33
# replays that merged trace as rqlock replays its own:
#  - the merged file is byte for byte the reference's (queue events with a
#    direction, by time, each trace's times scaled by its percent, its
#    passes one after the other), under every lock mode, the byte orders
#    of the inputs mixed;
#  - the replay issues the merged I/Os (write_iolog's list) and numjobs
#    clones all replay it; fio 3.33 replays the reference merge with the
#    same bytes, counts and (direction, length, offset) sequence;
#  - fio 3.33's own merge is still broken as described (else this test
#    says so: then rqlock's docs need a word);
#  - bad merges: one line, exit 2, no merged file written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/blktrace_lib.sh"

# a merged trace's I/Os as write_iolog lists them (queue events: reads, writes, trims, flushes)
trace_ios() {
	python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
for i in range(0, len(d), 48):
    _m, _s, _t, sec, n, act = struct.unpack_from("=IIQQII", d, i)
    c = act >> 16
    op = "trim" if c & 0x2000 else "sync" if c & 4 else "write" if c & 2 else "read"
    print(op, 0 if op == "sync" else sec * 512, n)' "$1"
}
python3 "$GEN" "$TMP/a.bin" --seed 3 --count 60 --devices 8:0,8:16 --expect "$TMP/a.e.json" || fail "generator"
python3 "$GEN" "$TMP/b.bin" --seed 4 --count 40 --big --start 50000 --gap 150000 --expect "$TMP/b.e.json" ||
	fail "generator"
modes=$(rq_modes)
[ -n "$modes" ] || fail "no lock modes from rqlock --list"

merge_case() {	# SCALARS ITERS (comma lists; "" for the defaults)
	local s=$1 i=$2 opts=() n
	[ -n "$s" ] && opts+=(--merge_blktrace_scalars="${s/,/:}")
	[ -n "$i" ] && opts+=(--merge_blktrace_iters="${i/,/:}")
	python3 "$GEN" "$TMP/want.bin" --merge "$TMP/a.bin,$TMP/b.bin" ${s:+--scalars "$s"} ${i:+--iters "$i"} ||
		fail "reference merge"
	n=$(($(stat -c %s "$TMP/want.bin") / 48))
	for m in $modes; do
		rm -f "$TMP/merged.bin" "$TMP/w.log"
		"$RQLOCK" run --lock="$m" --name=r --read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_file="$TMP/merged.bin" \
			"${opts[@]}" --replay_redirect="$TMP/f" --ioengine=null --write_iolog="$TMP/w.log" \
			--output-format=json >"$TMP/r.json" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "$m $s/$i: exit"; }
		[ ! -s "$TMP/err" ] || fail "$m $s/$i: stderr: $(head -1 "$TMP/err")"
		cmp "$TMP/want.bin" "$TMP/merged.bin" >&2 || fail "$m scalars $s iters $i: merged file differs"
		diff -u <(trace_ios "$TMP/want.bin") <(ios "$TMP/w.log") >&2 ||
			fail "$m scalars $s iters $i: the replay is not the merged trace's"
	done
	echo "ok: scalars ${s:-default} iters ${i:-default}: $n events merged, $modes: $(counts "$TMP/r.json")"
	[ -z "$FIO" ] && return
	rm -f "$TMP"/flat_* "$TMP"/lat_*
	fio --name=r --read_iolog="$TMP/want.bin" --replay_redirect="$TMP/f" --ioengine=null --write_lat_log="$TMP/flat" \
		--log_offset=1 --output-format=json --output="$TMP/f.json" 2>"$TMP/err" || fail "fio: $(head -1 "$TMP/err")"
	"$RQLOCK" run --name=r --read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_file="$TMP/merged.bin" "${opts[@]}" \
		--replay_redirect="$TMP/f" --ioengine=null --write_lat_log="$TMP/lat" --log_offset=1 \
		--output-format=json >"$TMP/r.json" || fail "rqlock with logs"
	[ "$(counts "$TMP/r.json")" = "$(counts "$TMP/f.json")" ] ||
		fail "$s/$i: rqlock $(counts "$TMP/r.json"), fio 3.33 replaying the merge $(counts "$TMP/f.json")"
	diff -u <(lat "$TMP/flat_clat.1.log") <(lat "$TMP/lat_clat.1.log") >&2 ||
		fail "$s/$i: rqlock's I/Os (+) differ from fio 3.33's replay of the merge (-)"
}
merge_case "" ""
merge_case 50,100 2,1
merge_case 100,300 1,3

# numjobs: every clone replays the one merged trace
"$RQLOCK" run --name=r --numjobs=2 --read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_file="$TMP/merged.bin" \
	--replay_redirect="$TMP/f" --ioengine=null --output-format=json >"$TMP/n.json" || fail "numjobs: exit"
[ "$(counts "$TMP/n.json" 0)" = "$(counts "$TMP/n.json" 1)" ] || fail "numjobs: the clones replayed other I/Os"

# --merge-blktrace-only: the merged file, nothing run (nothing written to the replay's file)
python3 "$GEN" "$TMP/want.bin" --merge "$TMP/a.bin,$TMP/b.bin" --scalars 50,100 || fail "reference merge"
rm -f "$TMP/merged.bin" "$TMP/g"
"$RQLOCK" run --merge-blktrace-only --name=r --read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_file="$TMP/merged.bin" \
	--merge_blktrace_scalars=50:100 --replay_redirect="$TMP/g" >"$TMP/mo.out" 2>&1 || fail "--merge-blktrace-only: exit"
cmp "$TMP/want.bin" "$TMP/merged.bin" >&2 || fail "--merge-blktrace-only: merged file differs"
[ ! -s "$TMP/mo.out" ] && [ ! -e "$TMP/g" ] || fail "--merge-blktrace-only ran something: $(head -1 "$TMP/mo.out")"

# fio 3.33's own merge: "iolog short read", an empty merged file, the first trace replayed alone
if [ -n "$FIO" ]; then
	rm -f "$TMP/fm.bin"
	fio --name=r --read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_file="$TMP/fm.bin" --replay_redirect="$TMP/f" \
		--ioengine=null --output-format=json >"$TMP/fm.out" 2>&1 || fail "fio's merge: exit"
	if grep -q "iolog short read" "$TMP/fm.out" && [ ! -s "$TMP/fm.bin" ]; then
		echo "ok: fio 3.33's merge still stops at 'iolog short read' (docs/ARCHITECTURE.md)"
	else
		fail "fio 3.33 merged the traces: its merge is not broken as docs/ARCHITECTURE.md says"
	fi
fi

# bad merges: one line, exit 2, no merged file
bad() {	# NAME WANT ARGS...
	local n=$1 w=$2 rc=0
	shift 2
	rm -f "$TMP/merged.bin"
	"$RQLOCK" run --name=r --merge_blktrace_file="$TMP/merged.bin" --replay_redirect="$TMP/f" --ioengine=null "$@" \
		>/dev/null 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "$n: exit $rc, expected 2 ($(head -1 "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$n: not one line: $(cat "$TMP/err")"
	grep -q -- "$w" "$TMP/err" || fail "$n: $(cat "$TMP/err")"
	[ ! -e "$TMP/merged.bin" ] || fail "$n: wrote the merged file"
	echo "ok: $n: $(cat "$TMP/err")"
}
bad "scalars count" "merge_blktrace_scalars gives 3 values for the 2 traces of read_iolog" \
	--read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_scalars=50:50:50
bad "iters count" "merge_blktrace_iters gives 1 value for the 2 traces of read_iolog" \
	--read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_iters=2
printf 'fio version 2 iolog\n%s add\n%s read 0 4096\n' "$TMP/f" "$TMP/f" >"$TMP/text.log"
bad "text log" "read_iolog=$TMP/text.log: not a blktrace" --read_iolog="$TMP/a.bin:$TMP/text.log"
python3 "$GEN" "$TMP/bad.bin" --kind bad-magic --count 10 || fail "generator"
python3 "$GEN" "$TMP/none.bin" --count 0 || fail "generator"
bad "bad record" "read_iolog=$TMP/bad.bin, record 3 (byte [0-9]*): magic" --read_iolog="$TMP/a.bin:$TMP/bad.bin"
bad "nothing to merge" "hold no read, write or trim queue event to merge" --read_iolog="$TMP/none.bin"
rm -f "$TMP/merged.bin"
rc=0
"$RQLOCK" run --merge-blktrace-only --name=r --read_iolog="$TMP/a.bin" >/dev/null 2>"$TMP/err" || rc=$?
[ $rc = 2 ] && grep -q "no job has both read_iolog and merge_blktrace_file" "$TMP/err" ||
	fail "--merge-blktrace-only without a merge: exit $rc: $(cat "$TMP/err")"
bad "scalar 0" "merge_blktrace_scalars" --read_iolog="$TMP/a.bin:$TMP/b.bin" --merge_blktrace_scalars=0:100
echo "PASS"
