#!/usr/bin/env bash
# test_install: `cmake --install BUILD --prefix TMP` gives a working rqlock:
# the binary, the Python package (rqlock sweep/compare/plot find it under
# share/rqlock/python with no help from the environment), the job files, a
# man page that lists every option of `rqlock --help` with its default and
# every job option of the table, and bash completion that completes
# commands and options.  Argument: the build directory.
. "$(dirname "$0")/lib.sh"
build=${1:?usage: test_install.sh BUILD_DIR}
need python3
p=$TMP/prefix
cmake --install "$build" --prefix "$p" >"$TMP/install.log" 2>&1 || fail "cmake --install: $(tail -3 "$TMP/install.log")"
for f in bin/rqlock share/rqlock/python/rqlock/__main__.py share/rqlock/python/rqlock/store.py \
	share/rqlock/python/rqlock/metrics.py share/rqlock/jobs/demo.fio share/rqlock/jobs/multi-drive-scaling.fio \
	share/man/man1/rqlock.1.gz share/bash-completion/completions/rqlock; do
	[ -s "$p/$f" ] || fail "not installed: $f"
done
for j in "$SRCDIR"/jobs/*.fio; do
	cmp -s "$j" "$p/share/rqlock/jobs/$(basename "$j")" || fail "job file $(basename "$j") not installed as is"
done
[ -x "$p/bin/rqlock" ] || fail "bin/rqlock is not executable"
# rqlock-fio: a link to rqlock that takes fio's command line as is
[ "$(readlink "$p/bin/rqlock-fio")" = rqlock ] || fail "bin/rqlock-fio is not a link to rqlock"
"$p/bin/rqlock-fio" --name=i --ioengine=null --size=64k --minimal 2>"$TMP/fio.err" | grep -q '^3;rqlock-[^;]*;i;' ||
	fail "installed rqlock-fio: $(cat "$TMP/fio.err")"

# the installed commands, in a directory far from the source tree, with a
# clean environment: no RQLOCK, no PYTHONPATH
cd "$TMP"
env -u RQLOCK -u PYTHONPATH -u RQLOCK_PYTHONPATH "$p/bin/rqlock" sweep --help >"$TMP/sw.help" ||
	fail "installed rqlock sweep --help"
grep -q '^usage: rqlock sweep' "$TMP/sw.help" || fail "sweep --help: $(head -1 "$TMP/sw.help")"
env -u RQLOCK -u PYTHONPATH "$p/bin/rqlock" sweep --modes per-queue --drives 1 --workers 1 --runtime 0.5 \
	--repeat 1 --out "$TMP/runs" --id i "$p/share/rqlock/jobs/multi-drive-scaling.fio" >/dev/null 2>"$TMP/sw.err" ||
	fail "installed sweep: $(tail -3 "$TMP/sw.err")"
[ "$(json "$TMP/runs/i/manifest.json" 'j["rqlock"]["path"]')" = "$p/bin/rqlock" ] ||
	fail "the installed sweep ran $(json "$TMP/runs/i/manifest.json" 'j["rqlock"]["path"]'), not itself"
env -u RQLOCK -u PYTHONPATH "$p/bin/rqlock" compare "$TMP/runs/i" | grep -q 'multi-drive-scaling: IOPS' ||
	fail "installed compare"
rc=0
RQLOCK_PYTHONPATH=$TMP/none "$p/bin/rqlock" compare x 2>"$TMP/np.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'holds no Python package' "$TMP/np.err" || fail "a missing package: rc $rc, $(cat "$TMP/np.err")"

# a rqlock package in the current directory does not stand in for ours
mkdir -p "$TMP/cwd/rqlock"
echo 'raise SystemExit("the wrong rqlock package ran")' | tee "$TMP/cwd/rqlock/__init__.py" >"$TMP/cwd/rqlock.py"
cp "$TMP/cwd/rqlock/__init__.py" "$TMP/cwd/rqlock/__main__.py"
(cd "$TMP/cwd" && "$p/bin/rqlock" compare --help) >"$TMP/cwd.out" 2>&1 || fail "in a directory holding rqlock/: $(cat "$TMP/cwd.out")"
grep -q '^usage: rqlock compare' "$TMP/cwd.out" || fail "in a directory holding rqlock/: $(head -2 "$TMP/cwd.out")"

# the man page: every option of --help, each with its default
# rendered by man when it is installed, else the roff source with its escapes undone
if command -v man >/dev/null; then
	MANWIDTH=200 man -l "$p/share/man/man1/rqlock.1.gz" 2>/dev/null | sed 's/.\x08//g' >"$TMP/man.txt"
else
	gzip -dc "$p/share/man/man1/rqlock.1.gz" | sed 's/\\-/-/g; s/\\f[BIR]//g; s/^\.SH /\n/' >"$TMP/man.txt"
	echo "note: man is not installed; the page's roff source was checked"
fi
grep -q 'NAME' "$TMP/man.txt" || fail "man: no NAME section"
n=0
for o in $("$RQLOCK" --help | sed -n '/^Options of run/,/^$/p' | grep -oE '^  --[a-z-]+'); do
	n=$((n + 1))
	grep -A3 -E "^ *$o(=| |$)" "$TMP/man.txt" | grep -q 'Default: ' || fail "man: $o is missing or has no default"
done
[ "$n" -ge 15 ] || fail "only $n options in rqlock --help"
for o in --modes --drives --workers --repeat --resume --retry-failed --scaling --metric --format --json --all; do
	grep -A3 -E "^ *$o(=| |$)" "$TMP/man.txt" | grep -q 'Default: ' || fail "man: $o (devices/sweep/compare) missing or no default"
done
for o in iodepth rw bssplit rate_iops verify; do
	grep -A4 -E "^ *$o( |$)" "$TMP/man.txt" | grep -q 'Default: ' || fail "man: job option $o missing or no default"
done

# bash completion: commands, options read from the binary, lock modes
if [ -r /usr/share/bash-completion/bash_completion ]; then
	comp() {
		PATH=$p/bin:$PATH bash -c '
			. /usr/share/bash-completion/bash_completion
			. "$1"; shift
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			_rqlock rqlock "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
			printf "%s\n" "${COMPREPLY[@]}"' _ "$p/share/bash-completion/completions/rqlock" "$@"
	}
	[ "$(comp rqlock sw | tr '\n' ' ')" = "sweep " ] || fail "completion of 'rqlock sw': $(comp rqlock sw)"
	comp rqlock run --lo | grep -qx -- '--lock=' || fail "completion of 'rqlock run --lo': $(comp rqlock run --lo)"
	comp rqlock run --lock=p | grep -qx 'per-queue' || fail "completion of --lock=p"
	comp rqlock sweep --ret | grep -qx -- '--retry-failed' || fail "completion of 'rqlock sweep --ret'"
else
	echo "note: bash-completion is not installed; the completion was not exercised"
fi
echo "PASS"
