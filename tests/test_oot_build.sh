#!/usr/bin/env bash
# test_oot_build: the tree builds in any build directory (issue 33).  A copy
# of the source tree with no build/ in it (so nothing can fall back on the
# source tree's build/rqlock) is configured and built in a directory outside
# it, with RQLOCK unset and no rqlock on PATH; every step that runs rqlock
# (the man page, from the binary's --help and its Python parsers) must use
# the binary it was given.  Then cpack there: the .deb holds the binary and
# a man page that documents this binary's run options.
. "$(dirname "$0")/lib.sh"
need cmake
need cpack
need dpkg-deb
need python3
src=$TMP/src
out=$TMP/elsewhere
mkdir -p "$src"
tar -C "$SRCDIR" --exclude='./build*' --exclude=./.git --exclude='./results/runs' -cf - . | tar -C "$src" -xf - \
	|| fail "copying the tree"
[ ! -e "$src/build" ] || fail "the copy has a build/"
path=$(echo "$PATH" | tr : '\n' | while read -r d; do [ -x "$d/rqlock" ] || echo "$d"; done | paste -sd:)
e() { env -u RQLOCK -u RQLOCK_PYTHONPATH -u PYTHONPATH PATH="$path" "$@"; }
e cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release >"$TMP/cmake.log" 2>&1 || fail "configure: $(tail -5 "$TMP/cmake.log")"
# every target that runs a built program: rqlock (its rqlock-fio link) and the man page
e cmake --build "$out" --target rqlock man -j2 >"$TMP/build.log" 2>&1 \
	|| fail "cmake --build $out: $(grep -m3 -iE 'error|cannot' "$TMP/build.log")"
[ -x "$out/rqlock" ] || fail "no $out/rqlock"
[ ! -e "$src/build" ] || fail "the build wrote into the source tree's build/"
gzip -dc "$out/rqlock.1.gz" >"$TMP/rqlock.1" || fail "no man page in $out"
grep -q '^\.TH RQLOCK 1' "$TMP/rqlock.1" || fail "rqlock.1 has no .TH"
# the man page lists the binary's lock modes (read from that binary's registry)
for m in $("$out/rqlock" --list --json | python3 -c 'import json,sys; print(" ".join(m["name"] for m in json.load(sys.stdin)["modes"]))'); do
	sed 's/\\-/-/g' "$TMP/rqlock.1" | grep -q -- "$m" || fail "the man page lacks the mode $m"
done
(cd "$out" && e cpack -G DEB -B "$TMP/pkg") >"$TMP/cpack.log" 2>&1 || fail "cpack: $(tail -5 "$TMP/cpack.log")"
deb=$(ls "$TMP"/pkg/rqlock_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no .deb: $(ls "$TMP/pkg")"
dpkg-deb --contents "$deb" | awk '{print $6}' >"$TMP/contents"
for f in ./usr/bin/rqlock ./usr/share/man/man1/rqlock.1.gz ./usr/share/rqlock/python/rqlock/__main__.py; do
	grep -qx "$f" "$TMP/contents" || fail "the .deb lacks $f"
done
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/man/man1/rqlock.1.gz | gzip -dc | cmp -s - "$TMP/rqlock.1" \
	|| fail "the .deb's man page is not the one built"
echo "PASS"
