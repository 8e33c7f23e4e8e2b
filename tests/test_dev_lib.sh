# Helpers for the devices/ shell tests (sourced, not a test itself).
. "$(dirname "$0")/lib.sh"
need python3

# The lock modes this rqlock accepts: each candidate is tried on a null job.
lock_modes() {
	printf '[n]\nioengine=null\nrw=read\nbs=4k\nsize=64k\n' >"$TMP/modes.fio"
	local m
	for m in $(rq_modes); do
		"$RQLOCK" run --lock="$m" --output-format=json --output "$TMP/modes.json" \
			"$TMP/modes.fio" >/dev/null 2>&1 && echo "$m"
	done
}

# jobfile FILE ENGINE DEV BS SIZE DEPTH KIND: KIND write | read | verify (write, then read it back)
jobfile() {
	local f=$1 engine=$2 dev=$3 bs=$4 size=$5 depth=$6 kind=$7
	{
		printf '[global]\nioengine=%s\nfilename=%s\nbs=%s\nsize=%s\niodepth=%s\ndirect=1\n' \
			"$engine" "$dev" "$bs" "$size" "$depth"
		case $kind in
		write) printf '[write]\nrw=write\n' ;;
		read) printf '[read]\nrw=randread\n' ;;
		verify) printf '[write]\nrw=randwrite\n[read]\nstonewall\nrw=read\n' ;;
		esac
	} >"$f"
}

# run_ok NAME ARGS...: rqlock run ARGS with JSON to $TMP/NAME.json; fails the test on a non-zero exit
run_ok() {
	local name=$1; shift
	"$RQLOCK" run --output-format=json --output "$TMP/$name.json" "$@" 2>"$TMP/$name.err" ||
		fail "$name: rqlock exited $?: $(head -c 600 "$TMP/$name.err")"
}

verified() { json "$TMP/$1.json" 'j["rqlock"]["sectors_verified"]'; }
devfield() { json "$TMP/$1.json" "j['rqlock']['devices'][0]['$2']"; }

# run_refused NAME ARGS...: exit 2, one line on stderr, nothing on stdout
run_refused() {
	local name=$1 rc; shift
	"$RQLOCK" run "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" && rc=0 || rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2: $(head -c 600 "$TMP/$name.err")"
	[ ! -s "$TMP/$name.out" ] || fail "$name: stdout not empty"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] || fail "$name: expected one line on stderr: $(cat "$TMP/$name.err")"
}
