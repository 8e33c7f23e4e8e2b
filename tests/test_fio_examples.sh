#!/usr/bin/env bash
# Debian's fio-examples, as a new user meets them (issue 15): every example
# whose engines rqlock has (libaio, io_uring, io_uring_cmd, null, sync,
# psync, or none: fio's default) and that fio 3.33 itself parses is
# accepted by `rqlock run --parse-only`; every other example is refused
# with exit 2 and one line naming the file, the line and the reason.  The
# set is read from the files' own ioengine= lines and from fio, not from a
# list here.  The accepted ones are also resolved by fio and by rqlock
# --showcmd and the values compared (tests/fio_crosscheck.py).  Skips (77)
# without the fio-examples package or fio.
. "$(dirname "$0")/lib.sh"
need fio
need python3
EX=${FIO_EXAMPLES:-}
if [ -z "$EX" ]; then
	f=$(dpkg -L fio-examples 2>/dev/null | grep '\.fio$' | head -n1)
	[ -n "$f" ] && EX=$(dirname "$f")
fi
[ -n "$EX" ] && [ -d "$EX" ] || skip "fio-examples is not installed (apt-get install fio-examples)"

ours=" libaio io_uring io_uring_cmd null sync psync "
mkdir -p "$TMP/ours"
nr_ok=0 nr_refused=0 bad=0
for f in "$EX"/*.fio; do
	mine=1
	for e in $(sed -n 's/^[[:space:]]*ioengine[[:space:]]*=[[:space:]]*\([^[:space:];#]*\).*/\1/p' "$f" | sort -u); do
		case "$ours" in *" $e "*) ;; *) mine=0 ;; esac
	done
	[ $mine -eq 1 ] && ! fio --parse-only "$f" >/dev/null 2>&1 && mine=0	# fio refuses it too
	"$RQLOCK" run --parse-only "$f" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $mine -eq 1 ]; then
		if [ $rc -ne 0 ]; then
			echo "FAIL $(basename "$f"): engines rqlock has, refused (rc=$rc): $(grep -v warning: "$TMP/err" | head -n1)"
			bad=$((bad + 1))
		else
			nr_ok=$((nr_ok + 1))
			ln -s "$f" "$TMP/ours/$(basename "$f")"
		fi
		continue
	fi
	# refused: exit 2, and the first line that is not a warning is "FILE:LINE: reason"
	line=$(grep -v ': warning: ' "$TMP/err" | head -n1)
	if [ $rc -ne 2 ]; then
		echo "FAIL $(basename "$f"): an engine rqlock lacks, yet rc=$rc"
		bad=$((bad + 1))
	elif ! printf '%s\n' "$line" | grep -Eq "^$f:[0-9]+: .{12,}"; then
		echo "FAIL $(basename "$f"): refused without file:line and a reason: '$line'"
		bad=$((bad + 1))
	elif [ -s "$TMP/out" ]; then
		echo "FAIL $(basename "$f"): refused, yet wrote to stdout"
		bad=$((bad + 1))
	else
		nr_refused=$((nr_refused + 1))
		echo "refused $(basename "$f"): ${line#"$f":}"
	fi
done
echo "fio-examples in $EX: $nr_ok accepted, $nr_refused refused with file:line, $bad wrong"
[ $nr_ok -gt 0 ] || fail "no example with rqlock's engines found in $EX"
[ $bad -eq 0 ] || fail "$bad example(s) handled wrongly (above)"

python3 "$SRCDIR/tests/fio_crosscheck.py" "$RQLOCK" "$TMP/ours" ||
	fail "rqlock and fio resolve the examples differently (above)"
echo "test_fio_examples: ok"
