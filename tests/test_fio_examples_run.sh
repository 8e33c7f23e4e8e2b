#!/usr/bin/env bash
# Debian's fio examples side by side under fio 3.33 and rqlock (issue 34):
# tests/fio_examples_run.py runs every example both parse, each from one
# rewritten copy that is safe and short here (devices become sparse files,
# sizes and times capped, fill_device in a tmpfs of its own), and compares
# exit status, bytes and I/Os per direction (the op mix where the clock or
# random draws decide; random-ended jobs over 7 seeds).  It fails when an
# example fio runs differs.  Nothing is left out unsaid: an example only
# fio refuses, or that names an engine rqlock does not have, is listed as
# such; a known difference (docs/) is checked to be that one.  Skips (77)
# without fio 3.33 or the fio-examples package.  RQ_FIO_EXAMPLES="a.fio
# b.fio" runs only those; RQ_FIO_EXAMPLES_CAP=SECONDS fails what a slow
# build does not reach in that time, and says which.
. "$(dirname "$0")/lib.sh"
need python3
need_fio_333 "the known differences are fio 3.33's"
EX=${FIO_EXAMPLES:-}
if [ -z "$EX" ]; then
	f=$(dpkg -L fio-examples 2>/dev/null | grep -E '\.fio(\.gz)?$' | head -n1)
	[ -n "$f" ] && EX=$(dirname "$f")
fi
[ -n "$EX" ] && [ -d "$EX" ] || skip "fio-examples is not installed (apt-get install fio-examples)"
# shellcheck disable=SC2086
python3 "$SRCDIR/tests/fio_examples_run.py" ${RQ_FIO_EXAMPLES_CAP:+--time-cap "$RQ_FIO_EXAMPLES_CAP"} \
	"$RQLOCK" "$EX" ${RQ_FIO_EXAMPLES:-}
