#!/usr/bin/env bash
# tests/test_layering.sh OBJLIST: dependencies point down only (DESIGN.md).
# OBJLIST names the built objects, one path a line (written by CMake).  No
# object of lib/, locks/, queues/, devices/ or results/ may reference
# (an undefined symbol) a function defined in engine/ or jobfile/; the one
# way up is a pointer the engine set (bio->end_io).  lib/ references
# nothing of rqlock at all, and jobfile/ nothing but lib/.
# Exit 0: clean; 1: an upward reference, each printed with its objects.
set -u
list=${1:?usage: test_layering.sh OBJLIST}
command -v nm >/dev/null || { echo "SKIP: nm is not installed"; exit 77; }
fail=0
folder() { sed -n 's#.*/\(lib\|jobfile\|locks\|queues\|devices\|results\|engine\)/[^/]*\.o$#\1#p' <<<"$1"; }
declare -A def
while read -r o; do
	[ -f "$o" ] || { echo "FAIL: $o is not built"; exit 1; }
	f=$(folder "$o")
	[ -n "$f" ] || continue
	while read -r s; do def[$s]="$f:${o##*/}"; done < <(nm --defined-only "$o" | awk '$2 ~ /[TDBR]/ {print $3}')
done <"$list"
checked=0
while read -r o; do
	f=$(folder "$o")
	case $f in
	lib) allowed="lib" ;;
	jobfile) allowed="lib jobfile" ;;
	locks) allowed="lib locks results" ;;
	queues | devices | results) allowed="lib locks queues devices results" ;;
	*) continue ;;
	esac
	checked=$((checked + 1))
	while read -r s; do
		to=${def[$s]:-}
		[ -n "$to" ] || continue	# libc, liburing, ...
		case " $allowed " in *" ${to%%:*} "*) continue ;; esac
		echo "FAIL: $f/${o##*/} references $s, defined in $to"
		fail=1
	done < <(nm --undefined-only "$o" | awk '{print $NF}')
done <"$list"
[ $checked -gt 10 ] || { echo "FAIL: only $checked objects checked: is $list right?"; exit 1; }
[ $fail -eq 0 ] && echo "layering: $checked objects of lib/ jobfile/ locks/ queues/ devices/ results/, no upward reference"
exit $fail
