#!/usr/bin/env bash
# test_cli_env: rqlock's own settings from the environment (issue 26), so a
# tool that drives fio sweeps lock modes unchanged: RQLOCK_LOCK,
# RQLOCK_LOCK_TYPE, RQLOCK_WORKERS (and the rest) set what --lock,
# --lock-type and --workers set; a flag wins; a bad value is one line
# naming the variable, exit 2.
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP"
r() { "$RQLOCK" run --name=e --ioengine=null --size=256k --output-format=json "$@"; }
for mode in mq per-queue cluster global; do
	RQLOCK_LOCK=$mode RQLOCK_LOCK_TYPE=ticket RQLOCK_WORKERS=1 r >"$mode.json" 2>"$mode.err" ||
		fail "RQLOCK_LOCK=$mode: $(cat "$mode.err")"
	[ "$(json "$mode.json" '(j["rqlock"]["lock_mode"], j["rqlock"]["lock_type"], j["rqlock"]["workers"])')" = \
		"('$mode', 'ticket', 1)" ] || fail "RQLOCK_LOCK=$mode: $(json "$mode.json" 'j["rqlock"]')"
done
# a flag wins over the environment
RQLOCK_LOCK=mq r --lock=per-queue >f.json 2>f.err || fail "flag over env: $(cat f.err)"
[ "$(json f.json 'j["rqlock"]["lock_mode"]')" = per-queue ] || fail "the environment beat --lock"
# an empty variable is no setting
RQLOCK_LOCK= r >e.json 2>e.err || fail "empty RQLOCK_LOCK: $(cat e.err)"
[ "$(json e.json 'j["rqlock"]["lock_mode"]')" = global ] || fail "empty RQLOCK_LOCK"
# bad values
for bad in RQLOCK_LOCK=bogus RQLOCK_LOCK_TYPE=bogus RQLOCK_WORKERS=0 RQLOCK_LOCKSTAT=maybe; do
	rc=0
	env "$bad" "$RQLOCK" run --name=e --ioengine=null --size=256k >b.out 2>b.err || rc=$?
	[ "$rc" -eq 2 ] || fail "$bad: exit $rc"
	[ "$(wc -l <b.err)" -eq 1 ] && grep -q "${bad%%=*}" b.err || fail "$bad: $(cat b.err)"
	[ -s b.out ] && fail "$bad: wrote stdout"
done
echo PASS
