#!/usr/bin/env bash
# test_static_binary: the RQ_STATIC build (issue 28) needs no shared library:
# ldd finds none, and the binary runs a job with nothing on the library path.
. "$(dirname "$0")/lib.sh"
need ldd
file "$RQLOCK" 2>/dev/null | grep -q 'statically linked' || ! ldd "$RQLOCK" 2>&1 | grep -q '=>' ||
	fail "$RQLOCK links shared libraries: $(ldd "$RQLOCK" 2>&1 | tr '\n' ' ')"
printf '[j]\nioengine=io_uring\nrw=randread\nbs=4k\nsize=1m\nfilename=@null0\n' >"$TMP/j.fio"
LD_LIBRARY_PATH=/nonexistent "$RQLOCK" run --workers=1 --output-format=json --output "$TMP/o.json" "$TMP/j.fio" ||
	fail "the static binary does not run a job"
json "$TMP/o.json" 'j["jobs"][0]["read"]["total_ios"]' | grep -qx 256 || fail "the job did not read 1 MiB"
