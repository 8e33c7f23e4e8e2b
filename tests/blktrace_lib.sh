# Shared by the blktrace tests (issue 34), after lib.sh: the generator,
# counts from JSON reports and from the generator, the lines of logs,
# and whether fio 3.33 is here to compare with.
GEN=$SRCDIR/tests/blktrace_gen.py
# "READ_BYTES READ_IOS WRITE_BYTES WRITE_IOS TRIM_BYTES TRIM_IOS SYNC_IOS" of job N of a JSON report
counts() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][int(sys.argv[2])]
print(*[j[d][k] for d in ("read", "write", "trim") for k in ("io_bytes", "total_ios")], j["sync"]["total_ios"])' \
		"$1" "${2:-0}"
}
# the same, as blktrace_gen.py --expect wrote the trace
want() {
	python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
print(*[e[d][k] for d in ("read", "write", "trim") for k in ("bytes", "ios")], e["sync"]["ios"])' "$1"
}
# a write_iolog's I/O lines as "ACTION OFFSET LENGTH"
ios() { awk 'NF == 5 { print $3, $4, $5 }' "$1"; }
# a latency log's lines as "DIRECTION LENGTH OFFSET" (log_offset=1), in order
lat() { awk -F', ' '{ print $3, $4, $5 }' "$1"; }
# FIO=fio when fio 3.33 is installed: the comparisons assume its rules
FIO=
if command -v fio >/dev/null && [ "$(fio --version)" = fio-3.33 ]; then
	FIO=fio
else
	echo "fio 3.33 is not installed: the comparisons with fio are skipped"
fi
