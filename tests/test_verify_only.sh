#!/usr/bin/env bash
# Regression for issue 26 (false corruption): a rw=randwrite verify=md5 job,
# then a verify_only=1 job on the same file in the same run (fio's
# t/verify.py pattern), failed with "stale block ... (a lost write)" on
# every block.  A clone's seed depends on its place among the run's
# clones, so the second job draws the same blocks in another order and the
# write numbers it expects are not the ones the first job wrote; fio skips
# the numberio check for verify_only for this reason.  Both jobs must pass;
# a block changed under the file must still be found (exit 1).
. "$(dirname "$0")/lib.sh"

f=$TMP/verify
cat >"$TMP/v.fio" <<JOB
[global]
filename=$f
stonewall
ioengine=psync
filesize=1M
bs=4096
[layout]
rw=randwrite
verify=md5
[success_only]
verify_only=1
rw=randwrite
verify=md5
[success_read]
rw=randread
verify=md5
JOB
"$RQLOCK" run --output-format=json --output "$TMP/v.json" "$TMP/v.fio" 2>"$TMP/v.err"
rc=$?
[ $rc -eq 0 ] || { head -3 "$TMP/v.err" >&2; fail "layout + verify_only: exit $rc"; }
! grep -q "verify:" "$TMP/v.err" || { head -3 "$TMP/v.err" >&2; fail "verify lines on a clean file"; }
for j in 0 1 2; do
	[ "$(json "$TMP/v.json" "j['jobs'][$j]['error']")" = 0 ] || fail "job $j reports an error"
done
got=$(json "$TMP/v.json" "j['jobs'][1]['read']['io_bytes']")
[ "$got" = 1048576 ] || fail "verify_only read back $got bytes, expected 1048576"

# one byte flipped in a data area: the verify_only job must see it
printf '\xff' | dd of="$f" bs=1 seek=$((12 * 4096 + 100)) conv=notrunc status=none
cat >"$TMP/vo.fio" <<JOB
[layout_again]
filename=$f
filesize=1M
bs=4096
rw=randwrite
verify=md5
verify_only=1
JOB
"$RQLOCK" run --output-format=json --output "$TMP/vo.json" "$TMP/vo.fio" 2>"$TMP/vo.err"
rc=$?
[ $rc -eq 1 ] || fail "a flipped byte: exit $rc, expected 1"
grep -q "offset $((12 * 4096))" "$TMP/vo.err" || { cat "$TMP/vo.err" >&2; fail "flipped byte not named"; }
echo "PASS"
