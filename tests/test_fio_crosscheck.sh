#!/usr/bin/env bash
# The job-file parser against fio itself: every file of tests/fio-corpus is
# resolved by fio 3.33 (--parse-only --debug=parse) and by rqlock
# (--showcmd); the values must agree (tests/fio_crosscheck.py says how).
# Skips (77) when fio or python3 is missing.
. "$(dirname "$0")/lib.sh"
need python3
need fio
case "$(fio --version)" in
fio-3.33*) ;;
*) echo "note: $(fio --version) is not fio-3.33; the corpus was written against 3.33" ;;
esac
python3 "$SRCDIR/tests/fio_crosscheck.py" "$RQLOCK" "$SRCDIR/tests/fio-corpus"
rc=$?
[ $rc -eq 77 ] && skip "fio is not installed"
[ $rc -eq 0 ] || fail "rqlock and fio resolve the corpus differently (above)"
echo "test_fio_crosscheck: ok"
