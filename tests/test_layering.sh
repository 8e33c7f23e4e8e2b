#!/usr/bin/env bash
# tests/test_layering.sh OBJLIST: dependencies point down only (DESIGN.md).
# OBJLIST names the built objects, one path a line (written by CMake).  No
# object of lib/, locks/, queues/, devices/ or results/ may reference
# (an undefined symbol) a function defined in engine/ or jobfile/; the one
# way up is a pointer the engine set (bio->end_io).  lib/ references
# nothing of rqlock at all, jobfile/ nothing but lib/, locks/ nothing but
# lib/ and results/ (its report structs).
# Exit 0: clean; 1: an upward reference, each printed with its objects.
set -u
list=${1:?usage: test_layering.sh OBJLIST}
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
	if (f !~ /^(lib|jobfile|locks|queues|devices|results|engine)$/) next
	seen[path] = f
	if (NF == 3 && $2 ~ /^[TDBR]$/) def[$3] = f ":" obj
	if ($(NF - 1) == "U") { nu++; upath[nu] = path; usym[nu] = $NF }
}
END {
	allow["lib"] = " lib "
	allow["jobfile"] = " lib jobfile "
	allow["locks"] = " lib locks results "
	allow["queues"] = allow["devices"] = allow["results"] = " lib locks queues devices results "
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
	printf "layering: %d objects of lib/ jobfile/ locks/ queues/ devices/ results/, no upward reference\n", checked
}'
