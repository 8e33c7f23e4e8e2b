#!/usr/bin/env bash
# test_report_browser: `rqlock report`'s page in a real browser (issue 33).
# A small real run (floppy-vs-disk with driver=sync and lock-scaling at
# D = 1 and D = W, two lock modes of the registry, two repeats) and the
# floppy timeline as the quickstart records it; the sweep itself writes the
# page (its stdout stays the run directory alone), then `rqlock report`
# rewrites it with the timeline, drawing the run's plots itself (the run has
# none but the timeline).  Headless Chromium loads the page from disk with
# the network off (a network namespace of its own when unshare -n works, and
# no resolver or proxy either way) and the checks are on what it rendered:
# the floppy verdict table, the scaling table, every plot an <svg> element
# with a size (the floppy bars, the timeline, the scaling chart), no console
# message, no request to any network address (Chromium's net log), and a
# screenshot kept as an artifact: $1 (default: none kept).
# Skips (77) only when Chromium is not installed and cannot be.
. "$(dirname "$0")/lib.sh"
need python3
artifact=${1:-}
S=$SRCDIR/scripts
command -v gnuplot >/dev/null || fail "gnuplot is not installed (scripts/install-deps): the page's plots need it"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	echo "installing chromium (apt-get install chromium) ..."
	DEBIAN_FRONTEND=noninteractive timeout 400 apt-get install -y -qq --no-install-recommends chromium \
		>"$TMP/apt.out" 2>&1 || echo "apt-get install chromium failed: $(tail -2 "$TMP/apt.out")"
	browser=$(command -v chromium || true)
fi
[ -n "$browser" ] || skip "chromium is not installed and could not be (scripts/install-deps --test)"

# 1. the run: the sweep writes its page and says where on stderr
read -r m1 m2 _ <<<"$(rq_modes)"
[ -n "$m2" ] || fail "rqlock --list gives fewer than two lock modes: $(rq_modes)"
disk='@null{n},irqmode=2,delay_us=1000,depth=2'
"$S/sweep" --rqlock "$RQLOCK" --out "$TMP/runs" --id t --scaling --workers 1,2 --modes "$m1,$m2" \
	--lock-types ttas --runtime 1 --repeat 2 --dev "DISK=$disk" --dev 'FLOPPY=@floppy{n},driver=sync' \
	"$SRCDIR/jobs/floppy-vs-disk.fio" "$SRCDIR/jobs/lock-scaling.fio" >"$TMP/sweep.out" 2>"$TMP/sweep.err" ||
	fail "sweep: $(tail -3 "$TMP/sweep.err")"
run=$TMP/runs/t
[ "$(cat "$TMP/sweep.out")" = "$run" ] || fail "sweep printed '$(cat "$TMP/sweep.out")', not the run directory alone"
grep -qx "report: $run/report.html" "$TMP/sweep.err" || fail "the sweep wrote no report: $(tail -3 "$TMP/sweep.err")"
[ -s "$run/report.html" ] || fail "no $run/report.html"
[ -e "$run/plots" ] && fail "the sweep's report wrote into the run's plots/"

# 2. the timeline, as scripts/quickstart records it, then the page again
mkdir -p "$run/plots"
for mode in "$m1" "$m2"; do
	DISK0=${disk//\{n\}/0} FLOPPY0=@floppy0,driver=sync RUNTIME=2 "$RQLOCK" run --lock="$mode" --workers=2 \
		--output-format=json --output "$TMP/tl-$mode.json" --timeline="$run/plots/sync-$mode.csv" \
		"$SRCDIR/jobs/floppy-vs-disk.fio" >"$TMP/tl.out" 2>&1 || fail "rqlock run --timeline: $(tail -3 "$TMP/tl.out")"
done
"$S/plot" --timeline "$run/plots/sync-$m1.csv" --timeline "$run/plots/sync-$m2.csv" --capacity 2000 \
	--out "$run/plots" >"$TMP/plot.out" 2>&1 || fail "plot --timeline: $(tail -3 "$TMP/plot.out")"
"$S/report" "$run" >"$TMP/report.out" 2>"$TMP/report.err" || fail "report: $(cat "$TMP/report.err")"
page=$run/report.html
[ "$(cat "$TMP/report.out")" = "$page" ] || fail "report printed '$(cat "$TMP/report.out")', not $page"
[ -s "$TMP/report.err" ] && fail "report said on stderr: $(head -3 "$TMP/report.err")"

# 3. the file: nothing from elsewhere
grep -Eioq 'https?://' "$page" && fail "the page names a network address: $(grep -Eio 'https?://[^ "<]*' "$page" | head -3)"
grep -Eiq '<script|<link|<img|<iframe|@import| src=' "$page" && fail "the page loads something: $(grep -Eio '<script[^>]*|<link[^>]*|<img[^>]*| src=[^ >]*' "$page" | head -3)"

# 4. the browser, the network off
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --disable-sync
	--disable-background-networking --disable-component-update --host-resolver-rules='MAP * ~NOTFOUND'
	--proxy-server=127.0.0.1:9 --enable-logging=stderr --v=0)
netns=()
if unshare -n true 2>/dev/null; then
	netns=(unshare -n)
fi
chrome() { # chrome NAME ARGS...: a fresh profile; stdout NAME.out, stderr NAME.log, net log NAME.net
	local n=$1
	shift
	timeout 120 "${netns[@]}" "$browser" "${flags[@]}" --user-data-dir="$TMP/prof-$n" --log-net-log="$TMP/$n.net" \
		"$@" >"$TMP/$n.out" 2>"$TMP/$n.log" || fail "chromium ($n) exited $?: $(grep -v dbus "$TMP/$n.log" | tail -3)"
}
chrome dom --dump-dom "file://$page"
chrome shot --screenshot="$TMP/report.png" --window-size=1280,4000 "file://$page"
# the same page with a probe appended (a copy; the page itself has no script): what the browser drew
sed 's|</body>|<script>window.addEventListener("load", function () { var o = []; document.querySelectorAll("svg[data-plot]").forEach(function (s) { var r = s.getBoundingClientRect(); o.push(s.getAttribute("data-plot") + " " + (s instanceof SVGSVGElement ? "svg" : "not-svg") + " " + Math.round(r.width) + " " + Math.round(r.height) + " " + s.querySelectorAll("path").length + " " + Math.round(s.getBBox().width)); }); var p = document.createElement("pre"); p.id = "probe"; p.textContent = o.join("\\n"); document.body.appendChild(p); });</script></body>|' \
	"$page" >"$TMP/probe.html"
chrome probe --virtual-time-budget=5000 --window-size=1280,4000 --dump-dom "file://$TMP/probe.html"

python3 - "$TMP" "$page" "$m1" <<'PY' || fail "the rendered page"
import html.parser, json, re, sys
tmp, page, m1 = sys.argv[1:4]


class Dom(html.parser.HTMLParser):
    """The tables (class, header cells, first cells) and the <svg data-plot> of a dumped DOM."""
    def __init__(self):
        super().__init__()
        self.tables, self.svgs, self.cur, self.cell, self.text = [], [], None, None, ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.cur = {"class": a.get("class", ""), "head": [], "cells": []}
            self.tables.append(self.cur)
        elif tag in ("th", "td") and self.cur is not None:
            self.cell, self.text = tag, ""
        elif tag == "svg" and "data-plot" in a:
            self.svgs.append(a["data-plot"])

    def handle_data(self, d):
        if self.cell:
            self.text += d

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self.cell and self.cur is not None:
            (self.cur["head"] if self.cell == "th" else self.cur["cells"]).append(self.text.strip())
            self.cell = None
        elif tag == "table":
            self.cur = None


dom = open(tmp + "/dom.out").read()
assert dom.startswith("<!DOCTYPE html>") or "<html" in dom[:200], dom[:200]
d = Dom()
d.feed(dom)
fl = [t for t in d.tables if "verdict" in t["class"] and "delayed: verdict" in t["head"]]
assert fl, "no floppy verdict table: %s" % [t["head"][:3] for t in d.tables]
assert any(c == m1 for t in fl for c in t["cells"]), "the floppy table has no row for %s" % m1
assert any(c in ("met", "NOT met") or c.startswith("inconclusive") for t in fl for c in t["cells"]), fl[0]["cells"]
sc = [t for t in d.tables if "verdict" in t["class"] and "expected" in t["head"]]
assert sc and any(h.startswith("D=W=2 vs 2x D=W=1") for h in sc[0]["head"]), "no scaling table"
assert [t for t in d.tables if "verdict" in t["class"] and "ceiling" in t["head"]], "no prediction table"
assert [t for t in d.tables if "metric" in t["class"]], "no IOPS / p99 tables"
assert [t for t in d.tables if "lockstat" in t["class"] and "holders: who waited on whom" in t["head"]], "no lockstat"
assert [t for t in d.tables if "timeline" in t["class"]], "no timeline prediction table"
assert [t for t in d.tables if "run" in t["class"] and "noise" in t["head"]], "no noise table"
for want in ("floppy-vs-disk", "timeline", "lock-scaling-scaling"):
    assert want in d.svgs, "no <svg> %s in %s" % (want, d.svgs)
for s in ("What it asks: Does one slow floppy stall", "The noise this run measured", "git revision"):
    assert s in dom, s

# what the browser drew: each plot an SVG element (not unknown HTML), with a size and paths
probe = re.search(r'<pre id="probe">(.*?)</pre>', open(tmp + "/probe.out").read(), re.S)
assert probe, "the probe did not run"
drawn = {}
for ln in probe.group(1).strip().splitlines():
    name, kind, w, h, paths, bw = ln.split()
    drawn[name] = (kind, int(w), int(h), int(paths), int(bw))
for name in d.svgs:
    kind, w, h, paths, bw = drawn[name]
    assert kind == "svg" and w > 300 and h > 100 and paths > 5 and bw > 100, "%s drawn as %s" % (name, drawn[name])

# nothing on the console, no request to the network from the page
for n in ("dom", "shot", "probe"):
    log = open("%s/%s.log" % (tmp, n), errors="replace").read()
    if n != "probe":
        # the page's console messages (Chromium's own UI, chrome:// sources, also logs some)
        bad = [ln for ln in log.splitlines() if (":CONSOLE" in ln or "Uncaught" in ln or "Failed to load" in ln)
               and not re.search(r"source: chrome(-untrusted)?://", ln)]
        assert not bad, "%s: %s" % (n, bad[:3])
    net = json.load(open("%s/%s.net" % (tmp, n)))
    types = {v: k for k, v in net["constants"]["logEventTypes"].items()}
    starts = [e["params"] for e in net["events"] if types.get(e["type"]) == "URL_REQUEST_START_JOB"
              and "url" in (e.get("params") or {})]
    # the page's own requests carry its site (file://) in their isolation key; Chromium's
    # background ones (updates, clock) do not
    mine = [p["url"] for p in starts if "file://" in p.get("network_isolation_key", "")]
    assert not mine, "%s: the page asked the network for %s" % (n, mine[:3])
PY

head -c 8 "$TMP/report.png" | od -An -c | tr -d ' \n' | grep -q '^211PNG' || fail "no screenshot ($(grep -v dbus "$TMP/shot.log" | tail -2))"
[ "$(stat -c %s "$TMP/report.png")" -gt 50000 ] || fail "the screenshot is nearly empty ($(stat -c %s "$TMP/report.png") bytes)"
if [ -n "$artifact" ]; then
	mkdir -p "$(dirname "$artifact")"
	cp "$TMP/report.png" "$artifact"
	cp "$page" "${artifact%.png}.html"
	echo "screenshot: $artifact"
fi
echo "PASS"
