#!/usr/bin/env bash
# tests/test_layering.sh OBJLIST [SRCDIR]: dependencies point down only (DESIGN.md).
# OBJLIST names the built objects, one path a line (written by CMake).  No
# object of lib/, locks/, queues/, devices/ or results/ may reference
# (an undefined symbol) a function defined in engine/ or jobfile/; the one
# way up is a pointer the engine set (bio->end_io).  lib/ references
# nothing of rqlock at all, jobfile/ nothing but lib/, locks/ nothing but
# lib/ and results/ (its report structs).
# With SRCDIR, includes too: each folder's sources include headers of the
# folders below it only, and devices/ reaches the block layer through
# queues/driver.h alone (the driver interface is declared there, as
# include/linux/blk-mq.h declares blk_mq_ops): queues/ includes nothing of
# devices/; and struct rq_ctx is defined in queues/ctx.c alone (opaque to
# engine/ and devices/, which reach it through rq_ctx_*).  engine/ includes
# and calls nothing of server/ or cli/, server/ nothing of cli/: the
# command line (cli/main.c, the one room above both) dispatches to each.
# Exit 0: clean; 1: an upward reference, each printed with its objects.
set -u
list=${1:?usage: test_layering.sh OBJLIST [SRCDIR]}
src=${2:-}
if [ -n "$src" ]; then
	bad=0 n=0
	# folder: the folders whose headers it may include
	for rule in "lib:lib" "jobfile:lib jobfile" "locks:lib locks results" \
		"queues:lib locks queues results" "devices:lib devices queues/driver.h" \
		"results:lib results" "engine:lib jobfile locks queues devices results engine" \
		"server:lib jobfile locks queues devices results engine server"; do
		dir=${rule%%:*} allowed=" ${rule#*:} "
		while IFS= read -r line; do
			f=${line%%:*} inc=${line#*#include \"}; inc=${inc%%\"*}
			n=$((n + 1))
			case "$allowed" in *" ${inc%%/*} "* | *" $inc "*) continue ;; esac
			echo "FAIL: $f includes $inc (a $dir/ source may include: ${rule#*:})"
			bad=1
		done < <(cd "$src" && grep -rHE '^#include "[a-z]+/' "$dir" --include='*.c' --include='*.h')
	done
	[ $n -gt 20 ] || { echo "FAIL: only $n includes checked in $src: is SRCDIR right?"; exit 1; }
	# the per-CPU context is opaque: its fields are declared in queues/ctx.c
	# alone, so neither engine/ nor devices/ can touch one (DESIGN.md)
	defs=$(cd "$src" && grep -rlE '^struct rq_ctx[[:space:]]*\{' --include='*.c' --include='*.h' \
		lib jobfile locks queues devices results engine server 2>/dev/null | tr '\n' ' ')
	if [ "$defs" != "queues/ctx.c " ]; then
		echo "FAIL: struct rq_ctx is defined in: ${defs:-nowhere} (only queues/ctx.c may: it is opaque)"
		bad=1
	fi
	[ $bad -eq 0 ] || exit 1
	echo "layering: $n includes of lib/ jobfile/ locks/ queues/ devices/ results/ engine/ server/ point down"
fi
command -v nm >/dev/null || { echo "SKIP: nm is not installed"; exit 77; }
mapfile -t objs <"$list"
for o in "${objs[@]}"; do [ -f "$o" ] || { echo "FAIL: $o is not built"; exit 1; }; done
# one nm over every object: "path: [addr] type symbol"
nm -A "${objs[@]}" | awk '
function folder(path,   n, p) {
	n = split(path, p, "/")
	return n >= 2 ? p[n - 1] : ""
}
{
	path = $1; sub(/:[^/]*$/, "", path)
	f = folder(path); obj = path; sub(/.*\//, "", obj)
	if (f !~ /^(lib|jobfile|locks|queues|devices|results|engine|server)$/) next
	seen[path] = f
	if (NF == 3 && $2 ~ /^[TDBR]$/) def[$3] = f ":" obj
	if ($(NF - 1) == "U") { nu++; upath[nu] = path; usym[nu] = $NF }
}
END {
	allow["lib"] = " lib "
	allow["jobfile"] = " lib jobfile "
	allow["locks"] = " lib locks results "
	allow["queues"] = allow["devices"] = allow["results"] = " lib locks queues devices results "
	allow["engine"] = " lib jobfile locks queues devices results engine "
	allow["server"] = " lib jobfile locks queues devices results engine server "
	for (p in seen) if (seen[p] in allow) checked++
	for (i = 1; i <= nu; i++) {
		f = seen[upath[i]]
		if (!(f in allow) || !(usym[i] in def)) continue
		to = def[usym[i]]; tf = to; sub(/:.*/, "", tf)
		if (index(allow[f], " " tf " ")) continue
		obj = upath[i]; sub(/.*\//, "", obj)
		printf "FAIL: %s/%s references %s, defined in %s\n", f, obj, usym[i], to
		bad++
	}
	if (checked <= 10) { printf "FAIL: only %d objects checked: is the list right?\n", checked; exit 1 }
	if (bad) exit 1
	printf "layering: %d objects of lib/ jobfile/ locks/ queues/ devices/ results/ engine/ server/, no upward reference\n", checked
}'
