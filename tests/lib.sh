# Shared helpers for the shell tests.  Exit 0 pass, 1 fail, 77 skip.
set -u
RQLOCK=${RQLOCK:?RQLOCK must name the rqlock binary}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
TMP=$(mktemp -d /tmp/rqlock-test.XXXXXX)
cleanup_hooks=()
cleanup() {
	local h
	for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need() { command -v "$1" >/dev/null || skip "$1 is not installed"; }
# need_fio VERSION: fio of that version on PATH (what the test compares with), else skip
need_fio() {
	need fio
	case $(fio --version 2>/dev/null) in
	"fio-$1"*) ;;
	*) skip "fio is $(fio --version 2>/dev/null), the test compares with fio $1" ;;
	esac
}
# json FILE EXPR: evaluate a python expression over the parsed JSON as j
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# the binary's lock modes, from its registry (`rqlock --list`): tests name none
rq_modes() { "$RQLOCK" --list | sed -n '/^Lock modes/,/^$/s/^  \([^ ][^ ]*\) .*/\1/p' | tr '\n' ' '; }
# need_fio_333 WHY: skip unless the fio installed is 3.33 (what WHY says is fio 3.33's)
need_fio_333() {
	need fio
	case $(fio --version 2>/dev/null) in
	fio-3.33*) ;;
	*) skip "fio is $(fio --version 2>/dev/null), $1" ;;
	esac
}
# run_json TOOL JOB: the JSON report of JOB under fio (TOOL fio) or rqlock (TOOL
# rqlock, or a lock mode: RQLOCK_LOCK=TOOL); stderr in JOB.TOOL.err; fails on an exit
run_json() {
	local tool=$1 job=$2 out
	if [ "$tool" = fio ]; then
		out=$(fio --output-format=json "$job" 2>"$job.$tool.err")
	elif [ "$tool" = rqlock ]; then
		out=$("$RQLOCK" run --output-format=json "$job" 2>"$job.$tool.err")
	else
		out=$(RQLOCK_LOCK=$tool "$RQLOCK" run --output-format=json "$job" 2>"$job.$tool.err")
	fi || { cat "$job.$tool.err" >&2; fail "$job: $tool: exit"; }
	printf '%s' "$out"
}
