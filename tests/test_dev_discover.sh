#!/usr/bin/env bash
# `rqlock devices`: the table and well-formed JSON; NVMe namespaces from
# nvme-cli's JSON in both of its layouts (a stand-in `nvme` on PATH prints
# them, so no NVMe device is needed); a plain line when nvme-cli is
# missing; a loop device made for the test (root only) listed as a loop.
. "$(dirname "$0")/test_dev_lib.sh"

"$RQLOCK" devices >"$TMP/table" 2>"$TMP/err" || fail "devices exited $?: $(cat "$TMP/err")"
head -1 "$TMP/table" | grep -q "DEVICE.*KIND.*TRANSPORT.*SIZE" || fail "no table header: $(head -1 "$TMP/table")"
"$RQLOCK" devices --json >"$TMP/d.json" || fail "devices --json exited $?"
python3 - "$TMP/d.json" <<'PY' || fail "devices --json: $(head -c 400 "$TMP/d.json")"
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("block_devices", "nvme_generic", "nvme", "hidden_empty_devices"):
    assert k in j, k
for b in j["block_devices"]:
    for k in ("name", "path", "kind", "transport", "model", "serial", "size", "logical_block_size",
              "nr_requests", "rotational", "in_use"):
        assert k in b, (b.get("name"), k)
    assert b["size"] > 0 and b["logical_block_size"] >= 512, b
assert isinstance(j["nvme"]["namespaces"], list)
PY
echo "ok: table and JSON ($(json "$TMP/d.json" 'len(j["block_devices"])') block devices)"

# nvme-cli missing: said plainly, in both renderings
mkdir -p "$TMP/nobin"
PATH="$TMP/nobin" "$RQLOCK" devices >"$TMP/t2" || fail "devices without nvme-cli exited $?"
grep -q "nvme-cli is not installed" "$TMP/t2" || fail "missing nvme-cli not said: $(tail -2 "$TMP/t2")"
PATH="$TMP/nobin" "$RQLOCK" devices --json >"$TMP/d2.json"
[ "$(json "$TMP/d2.json" 'j["nvme"]["nvme_cli"]')" = False ] || fail "nvme_cli should be false"
json "$TMP/d2.json" 'j["nvme"]["note"]' | grep -q "not installed" || fail "JSON note: $(json "$TMP/d2.json" 'j["nvme"]["note"]')"
echo "ok: without nvme-cli: $(json "$TMP/d2.json" 'j["nvme"]["note"]')"

# nvme-cli 2.x's flat layout
mkdir -p "$TMP/flat" "$TMP/tree"
cat >"$TMP/flat/nvme" <<'SH'
#!/bin/sh
[ "$1" = list ] || exit 1
cat <<'JSON'
{
  "Devices" : [
    {
      "NameSpace" : 1,
      "DevicePath" : "/dev/nvme0n1",
      "GenericPath" : "/dev/ng0n1",
      "Firmware" : "8.0.0",
      "Index" : 0,
      "ModelNumber" : "QEMU NVMe Ctrl",
      "SerialNumber" : "rqlock0001",
      "UsedBytes" : 0,
      "MaximumLBA" : 131072,
      "PhysicalSize" : 67108864,
      "SectorSize" : 512
    },
    {
      "NameSpace" : 2,
      "DevicePath" : "/dev/nvme0n2",
      "GenericPath" : "/dev/ng0n2",
      "Firmware" : "8.0.0",
      "Index" : 0,
      "ModelNumber" : "QEMU NVMe Ctrl",
      "SerialNumber" : "rqlock0001",
      "UsedBytes" : 0,
      "MaximumLBA" : 16384,
      "PhysicalSize" : 67108864,
      "SectorSize" : 4096
    }
  ]
}
JSON
SH
# the hosts > subsystems > controllers > namespaces layout
cat >"$TMP/tree/nvme" <<'SH'
#!/bin/sh
[ "$1" = list ] || exit 1
cat <<'JSON'
{"Devices":[{"HostNQN":"nqn.2014-08.org.nvmexpress:uuid:0","HostID":"0","Subsystems":[
 {"Subsystem":"nvme-subsys0","SubsystemNQN":"nqn.2019-08.org.qemu:rqlock","Controllers":[
  {"Controller":"nvme0","Cntlid":"0","SerialNumber":"rqlock\u00e90002","ModelNumber":"QEMU NVMe Ctrl",
   "Firmware":"8.0.0","Transport":"pcie","Address":"0000:00:04.0","Slot":"",
   "Namespaces":[{"NameSpace":"nvme0n1","Generic":"ng0n1","NSID":1,"UsedBytes":0,
     "MaximumLBA":262144,"PhysicalSize":134217728,"SectorSize":512}],"Paths":[]}],
 "Namespaces":[]}]}]}
JSON
SH
chmod +x "$TMP/flat/nvme" "$TMP/tree/nvme"
PATH="$TMP/flat:$PATH" "$RQLOCK" devices --json >"$TMP/flat.json" || fail "flat: exit $?"
python3 - "$TMP/flat.json" <<'PY' || fail "flat layout: $(cat "$TMP/flat.json")"
import json, sys
ns = json.load(open(sys.argv[1]))["nvme"]["namespaces"]
assert len(ns) == 2, ns
assert ns[0]["path"] == "/dev/nvme0n1" and ns[0]["generic_path"] == "/dev/ng0n1", ns[0]
assert ns[0]["model"] == "QEMU NVMe Ctrl" and ns[0]["serial"] == "rqlock0001", ns[0]
assert ns[0]["nsid"] == 1 and ns[0]["size"] == 67108864 and ns[0]["logical_block_size"] == 512, ns[0]
assert ns[1]["nsid"] == 2 and ns[1]["logical_block_size"] == 4096, ns[1]
PY
PATH="$TMP/flat:$PATH" "$RQLOCK" devices >"$TMP/flat.txt"
grep -q "/dev/ng0n2" "$TMP/flat.txt" || fail "table lacks the namespaces: $(cat "$TMP/flat.txt")"
PATH="$TMP/tree:$PATH" "$RQLOCK" devices --json >"$TMP/tree.json" || fail "tree: exit $?"
python3 - "$TMP/tree.json" <<'PY' || fail "tree layout: $(cat "$TMP/tree.json")"
import json, sys
ns = json.load(open(sys.argv[1]))["nvme"]["namespaces"]
assert len(ns) == 1, ns
n = ns[0]
assert n["path"] == "/dev/nvme0n1" and n["generic_path"] == "/dev/ng0n1", n
assert n["nsid"] == 1 and n["model"] == "QEMU NVMe Ctrl" and n["transport"] == "pcie", n
assert n["serial"].startswith("rqlock") and n["size"] == 134217728, n
PY
echo "ok: nvme list JSON, flat and tree layouts"

# a loop device of our own is listed as one
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null; then
	truncate -s 4M "$TMP/l.img"
	if dev=$(losetup --find --show "$TMP/l.img" 2>/dev/null); then
		cleanup_hooks+=("losetup -d $dev")
		"$RQLOCK" devices --json >"$TMP/l.json"
		python3 - "$TMP/l.json" "$dev" <<'PY' || fail "loop device not listed right: $(cat "$TMP/l.json")"
import json, sys
j = json.load(open(sys.argv[1]))
b = [b for b in j["block_devices"] if b["path"] == sys.argv[2]]
assert len(b) == 1, sys.argv[2]
b = b[0]
assert b["kind"] == "loop" and b["size"] == 4 << 20 and not b["in_use"], b
assert "l.img" in b["model"], b
PY
		echo "ok: $dev listed as loop"
	fi
fi
rc=0
"$RQLOCK" devices --bogus >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc"
echo "test_dev_discover: ok"
