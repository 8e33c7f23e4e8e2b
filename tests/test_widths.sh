#!/usr/bin/env bash
# test_widths: what the tools print fits a 100-column terminal (issue 33).
# scripts/compare of a scripts/sweep --quick run: no line over 100 columns,
# the verdicts' reasons as numbered footnotes where a table would be wider;
# --wide gives the one-line rows (its widest line is the old layout's);
# --format csv and json give every table.  Then bench-all's rows (two
# lines each) on its quickest rows.  Nothing here is a timing.
. "$(dirname "$0")/lib.sh"
need python3
export RQLOCK_RUNS=$TMP/runs
run=$("$SRCDIR/scripts/sweep" --rqlock "$RQLOCK" --quick 2>"$TMP/sweep.err") || fail "sweep --quick: $(tail -3 "$TMP/sweep.err")"
[ -s "$run/summary.csv" ] || fail "sweep --quick gave no summary in '$run'"
"$SRCDIR/scripts/compare" "$run" >"$TMP/cmp.txt" || fail "compare"
grep -q 'multi-drive-scaling: IOPS' "$TMP/cmp.txt" || fail "compare printed no IOPS table: $(head -5 "$TMP/cmp.txt")"
long=$(awk 'length > 100 { print NR ": " length " columns: " substr($0, 1, 60) }' "$TMP/cmp.txt")
[ -z "$long" ] || fail "compare printed lines over 100 columns: $long"
"$SRCDIR/scripts/compare" --wide "$run" >"$TMP/wide.txt" || fail "compare --wide"
wmax=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$TMP/wide.txt")
[ "$wmax" -gt 100 ] || fail "compare --wide kept every line within 100 columns ($wmax): not the one-line layout"
"$SRCDIR/scripts/compare" --format json "$run" >"$TMP/cmp.json" || fail "compare --format json"
ntab=$(json "$TMP/cmp.json" 'sum(len(s["tables"]) for s in j["sections"])')
[ "$ntab" -ge 4 ] || fail "compare --format json has $ntab tables"
"$SRCDIR/scripts/compare" --format csv "$run" >"$TMP/cmp.csv" || fail "compare --format csv"
[ "$(grep -c '^"\?# ' "$TMP/cmp.csv")" = "$ntab" ] || fail "csv has $(grep -c '^"\?# ' "$TMP/cmp.csv") tables, json $ntab"

# bench-all (its exit status says whether targets were met; here only the layout counts)
rc=0
RQLOCK=$RQLOCK "$SRCDIR/scripts/bench-all" mq lockstat --runs 3 --runtime 1 >"$TMP/bench.txt" 2>"$TMP/bench.err" || rc=$?
[ $rc -le 1 ] || fail "bench-all: $(tail -3 "$TMP/bench.err")"
grep -q '^mq ' "$TMP/bench.txt" || fail "bench-all printed no mq row: $(cat "$TMP/bench.txt")"
long=$(awk 'length > 100 { print NR ": " length " columns" }' "$TMP/bench.txt")
[ -z "$long" ] || fail "bench-all printed lines over 100 columns: $long"
echo "PASS"
