#!/usr/bin/env bash
# `rqlock --list --json`: the registries' own facts (issue 27), the one
# source of names for the tools.  Checked: every mode --help lists is
# there with its help and flags, the primitives --lock-type takes, every
# device kind and filter with options that carry a help and parse at
# their default; each mode's own flags (options) are flags --help
# lists; the text listing names the same; every JSON report
# carries the same document as rqlock.registry; a stray argument is
# refused with exit 2.
. "$(dirname "$0")/lib.sh"
need python3

"$RQLOCK" --list --json >"$TMP/list.json" || fail "--list --json: exit $?"
"$RQLOCK" --list >"$TMP/list.txt" || fail "--list: exit $?"
"$RQLOCK" --help >"$TMP/help.txt" || fail "--help: exit $?"
printf '[j]\nioengine=null\nrw=read\nbs=4k\nsize=64k\n' >"$TMP/j.fio"
"$RQLOCK" run --output-format=json --output "$TMP/run.json" "$TMP/j.fio" || fail "run: exit $?"
python3 - "$TMP" <<'PY' || fail "registry checks"
import json, re, sys
d = sys.argv[1]
L = json.load(open(d + "/list.json"))
txt = open(d + "/list.txt").read()
hlp = open(d + "/help.txt").read()
assert sorted(L) == ["devices", "modes", "primitives"], list(L)
names = [m["name"] for m in L["modes"]]
assert {"global", "per-queue", "mq", "cluster"} <= set(names), names
for m in L["modes"]:
    assert m["help"] and isinstance(m["flags"], list), m
    assert isinstance(m["options"], list), m
    reads = "; reads " + ", ".join("--" + o for o in m["options"]) if m["options"] else ""
    assert re.search(r"^  %s +%s$" % (re.escape(m["name"]), re.escape(m["help"] + reads)), hlp, re.M), m["name"]
    for o in m["options"]:    # a flag rqlock run takes
        assert re.search(r"^\s+--%s\b" % re.escape(o), hlp, re.M), (m["name"], o)
assert [m["name"] for m in L["modes"] if "shared_lock" in m["flags"]] == ["global"], L["modes"]
assert {m["name"]: m["options"] for m in L["modes"]}["mq"] == ["hw-queues"], L["modes"]
assert "|".join(L["primitives"]) in hlp, L["primitives"]
kinds = {k["name"]: k for k in L["devices"]}
assert {"null", "ram", "floppy", "hdd", "file", "blkdev", "aio", "nvme-pt", "fault"} <= set(kinds), kinds
assert kinds["fault"]["filter"] and not kinds["null"]["filter"]
assert kinds["null"]["builtin"] == "@null" and kinds["null"]["ioengine"] == "null"
assert kinds["aio"]["ioengine"] == "libaio" and kinds["file"]["builtin"] == ""
for k in L["devices"]:
    assert k["help"], k
    assert re.search(r"^  %s +" % re.escape(k["name"]), txt, re.M), k["name"]
    for o in k["options"]:
        assert o["help"] and o["type"] in ("int", "time_us", "str"), o
floppy = {o["name"]: o for o in kinds["floppy"]["options"]}
assert floppy["end_us"]["default"] == "1" and floppy["driver"]["default"] == "2.4", floppy
assert json.load(open(d + "/run.json"))["rqlock"]["registry"] == L, "the report's registry differs"
PY
rc=0; "$RQLOCK" --list --yaml >/dev/null 2>"$TMP/bad.err" || rc=$?
[ $rc -eq 2 ] && grep -q -- "--yaml" "$TMP/bad.err" || fail "--list --yaml: exit $rc: $(cat "$TMP/bad.err")"
echo "list: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["modes"]), "modes,", len(d["primitives"]), "primitives,", len(d["devices"]), "device kinds")' "$TMP/list.json")"
