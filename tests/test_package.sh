#!/usr/bin/env bash
# test_package: CPack's .deb.  Builds it with cpack into a temporary
# directory, checks its control data (the library dependencies found by
# dpkg-shlibdeps, python3) and its contents, unpacks it with dpkg-deb -x into
# a temporary root (never dpkg -i on this machine) and runs the unpacked
# binary as a user of the package would: `rqlock run
# /usr/share/rqlock/jobs/demo.fio`, the man page, `rqlock sweep --help`.
# Argument: the build directory.
. "$(dirname "$0")/lib.sh"
build=${1:?usage: test_package.sh BUILD_DIR}
need cpack
need dpkg-deb
need dpkg-shlibdeps
need python3
(cd "$build" && cpack -G DEB -B "$TMP/pkg") >"$TMP/cpack.log" 2>&1 || fail "cpack: $(tail -5 "$TMP/cpack.log")"
deb=$(ls "$TMP"/pkg/rqlock_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no rqlock_*.deb: $(ls "$TMP/pkg")"
dpkg-deb --info "$deb" >"$TMP/info" || fail "dpkg-deb --info"
grep -q '^ Package: rqlock$' "$TMP/info" || fail "control: no Package: rqlock"
dep=$(sed -n 's/^ Depends: //p' "$TMP/info")
for d in python3 liburing2 libc6; do
	echo "$dep" | grep -q "\b$d\b" || fail "Depends lacks $d: $dep"
done
dpkg-deb --contents "$deb" | awk '{print $6}' >"$TMP/contents"
for f in ./usr/bin/rqlock ./usr/bin/rqlock-fio ./usr/share/rqlock/jobs/demo.fio ./usr/share/rqlock/python/rqlock/__main__.py \
	./usr/share/man/man1/rqlock.1.gz ./usr/share/bash-completion/completions/rqlock; do
	grep -qx "$f" "$TMP/contents" || fail "the .deb lacks $f"
done
grep -q '__pycache__\|\.pyc$' "$TMP/contents" && fail "the .deb carries compiled Python: $(grep pyc "$TMP/contents" | head -1)"

# what apt would do on this Debian (a simulation: nothing is installed)
if command -v apt-get >/dev/null; then
	apt-get install -s "$deb" >"$TMP/sim" 2>&1 || fail "apt-get install -s: $(tail -3 "$TMP/sim")"
	grep -q '^Inst rqlock ' "$TMP/sim" || fail "apt-get -s would not install rqlock: $(tail -3 "$TMP/sim")"
fi

root=$TMP/root
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x"
cd "$TMP"
env -u RQLOCK -u PYTHONPATH "$root/usr/bin/rqlock" run --output-format=json --output "$TMP/demo.json" \
	"$root/usr/share/rqlock/jobs/demo.fio" 2>"$TMP/demo.err" || fail "rqlock run demo.fio: $(tail -3 "$TMP/demo.err")"
[ "$(json "$TMP/demo.json" 'len(j["jobs"]) == 4 and all(x["read"]["iops"] > 0 for x in j["jobs"])')" = True ] ||
	fail "the demo's JSON: $(head -c 300 "$TMP/demo.json")"
# rqlock-fio: fio's command line, no `run`
[ "$(readlink "$root/usr/bin/rqlock-fio")" = rqlock ] || fail "the .deb's rqlock-fio is not a link to rqlock"
"$root/usr/bin/rqlock-fio" --name=p --ioengine=null --size=64k --minimal 2>"$TMP/fio.err" | grep -q '^3;rqlock-[^;]*;p;' ||
	fail "the unpacked rqlock-fio: $(cat "$TMP/fio.err")"
env -u RQLOCK -u PYTHONPATH "$root/usr/bin/rqlock" sweep --help | grep -q '^usage: rqlock sweep' ||
	fail "the unpacked rqlock sweep --help"
if command -v man >/dev/null; then
	man -l "$root/usr/share/man/man1/rqlock.1.gz" 2>/dev/null | grep -q 'OPTIONS OF RUN' || fail "the packaged man page"
fi
echo "PASS"
