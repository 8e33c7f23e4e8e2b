#!/usr/bin/env bash
# The status line (engine/status.c, results/status.c): on a terminal fio's
# "Jobs: 1 (f=1): [r(1)][..%][r=...][r=... IOPS][eta ..]" appears on
# stderr; it never enters JSON, terse or an --output file; --eta=never
# silences it, --eta=always forces it without a terminal; --eta-newline
# starts new lines; --status-interval prints the normal report so far
# without touching a JSON report.  A pty comes from script(1); skips (77)
# without it.
. "$(dirname "$0")/lib.sh"
need script
need python3

cat >"$TMP/st.fio" <<'JOB'
[st]
filename=@null0
rw=randread
iodepth=4
time_based
runtime=3
JOB
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
# run ARGS... under a pty, the terminal's bytes in $TMP/tty
pty() { script -qfec "$(printf '%q ' "$RQLOCK" run "$@")" "$TMP/tty" >/dev/null 2>&1 </dev/null; }
status_re='Jobs: 1 \(f=1\): \[r\(1\)\]\[[0-9.]+%\]\[r=[0-9.]+[KMGT]?i?B/s\]\[r=[0-9.]+[kMG]? IOPS\]\[eta [0-9]{2}m:[0-9]{2}s\]'

# a terminal, the report in a file: the line on the terminal, the file clean
pty --output-format=json --output "$TMP/out.json" "$TMP/st.fio" || fail "rqlock under a pty failed: $(tail -c 300 "$TMP/tty")"
grep -qE "$status_re" "$TMP/tty" || fail "no status line on the terminal: $(tr '\r' '\n' <"$TMP/tty" | head -5)"
valid_json "$TMP/out.json" || fail "--output JSON is not valid JSON"
grep -q 'Jobs:' "$TMP/out.json" && fail "status bytes in the --output file"
tr -d '\n' <"$TMP/out.json" | grep -q $'\r' && fail "a carriage return in the --output file"

# normal report to the terminal: the line too, then the report on a line of its own
pty "$TMP/st.fio" || fail "rqlock under a pty failed"
grep -qE "$status_re" "$TMP/tty" || fail "no status line before a normal report on the terminal"
grep -q 'st: (groupid=0' "$TMP/tty" || fail "no report after the status line"

# JSON to the terminal's stdout: no status line (fio's rule), the bytes are the JSON
pty --output-format=json "$TMP/st.fio" || fail "rqlock under a pty failed"
grep -q 'Jobs:' "$TMP/tty" && fail "status line mixed into JSON on a terminal"
sed -e '1{/^Script started/d}' -e '/^Script done/d' "$TMP/tty" | tr -d '\r' >"$TMP/tty.json"
valid_json "$TMP/tty.json" || fail "the terminal's JSON is not valid: $(head -c 200 "$TMP/tty.json")"

# --eta=never on a terminal: nothing
pty --eta=never "$TMP/st.fio" || fail "rqlock --eta=never failed"
grep -q 'Jobs:' "$TMP/tty" && fail "--eta=never printed a status line"

# no terminal: nothing by default; --eta=always on stderr, stdout's JSON clean
"$RQLOCK" run --output-format=json "$TMP/st.fio" >"$TMP/o1" 2>"$TMP/e1" || fail "rqlock failed: $(cat "$TMP/e1")"
grep -q 'Jobs:' "$TMP/e1" "$TMP/o1" && fail "a status line without a terminal and without --eta=always"
valid_json "$TMP/o1" || fail "stdout JSON not valid"
sed 's/^runtime=3$/runtime=4/' "$TMP/st.fio" >"$TMP/st4.fio"
"$RQLOCK" run --eta=always --eta-newline=1 --output-format=json "$TMP/st4.fio" >"$TMP/o2" 2>"$TMP/e2" ||
	fail "rqlock --eta=always failed: $(cat "$TMP/e2")"
grep -qE "$status_re" "$TMP/e2" || fail "--eta=always: no status line on stderr: $(tr '\r' '\n' <"$TMP/e2" | head -3)"
valid_json "$TMP/o2" || fail "--eta=always: stdout JSON not valid"
grep -q 'Jobs:' "$TMP/o2" && fail "--eta=always: status bytes on stdout"
# --eta-newline=1 over a 4 s run: lines at about 1, 2 and 3 s, and a new line by the third
[ "$(grep -c 'Jobs: 1' "$TMP/e2")" -ge 2 ] || fail "--eta-newline: one line only: $(cat -v "$TMP/e2" | head -3)"

# --status-interval with JSON on stdout: the reports so far on stderr, stdout one valid JSON
"$RQLOCK" run --status-interval=1 --output-format=json "$TMP/st.fio" >"$TMP/o3" 2>"$TMP/e3" ||
	fail "rqlock --status-interval failed: $(cat "$TMP/e3")"
valid_json "$TMP/o3" || fail "--status-interval: stdout JSON not valid"
grep -q 'st: (groupid=0' "$TMP/e3" || fail "--status-interval: no report so far on stderr"
# ... with normal output on stdout: the reports so far come first, the final one last
"$RQLOCK" run --status-interval=1 "$TMP/st.fio" >"$TMP/o4" 2>"$TMP/e4" || fail "rqlock --status-interval failed"
[ "$(grep -c 'st: (groupid=0' "$TMP/o4")" -ge 2 ] || fail "--status-interval: $(grep -c 'st: (groupid=0' "$TMP/o4") reports on stdout"

# bad values: one line, exit 2
for a in --eta=sometimes --eta-newline=0 --status-interval=-1 --status-interval=1x; do
	"$RQLOCK" run "$a" "$TMP/st.fio" >"$TMP/o5" 2>"$TMP/e5"
	[ $? -eq 2 ] || fail "$a: expected exit 2"
	[ "$(wc -l <"$TMP/e5")" -eq 1 ] && [ ! -s "$TMP/o5" ] || fail "$a: expected one line on stderr, nothing on stdout"
done
echo "ok: status line on a terminal, never in JSON or --output; --eta, --eta-newline, --status-interval"
