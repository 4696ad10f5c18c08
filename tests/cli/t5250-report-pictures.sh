#!/bin/bash
# The report's pictures in a real browser: an fsbench run of 2 jobs (its
# JSON keeps each test's latency histogram), a bonnie++ 2.00a CSV line and
# a fio JSON file, all made here on a tmpfs, in one `report`. Headless
# Chromium loads the page with no console error and its DOM holds every
# chart: a bar chart per figure, a latency CDF per test with a histogram,
# a strip chart per figure some input measured, a bar chart of the jobs per
# test of the 2-job run, and "no latency histogram" for the imports; no
# script. A screenshot is kept in build/test-artifacts/report-pictures.png.
# The same inputs as markdown keep the shape of their tables. Needs root
# (tmpfs), bonnie++, fio and chromium (skips without them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chrome-lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
ART=$TOP/build/test-artifacts

# pyok "what" ARGS... <<EOF code EOF: ok when the Python code on stdin exits 0.
pyok() {
	local what=$1
	shift
	if python3 - "$@"; then ok "$what"; else nok "$what"; fi
}

need() {
	skip "report pictures in Chromium" "$1"
	done_testing
	exit 0
}
is_root || need "needs root (mount tmpfs)"
for tool in bonnie++ fio python3; do
	command -v "$tool" >/dev/null 2>&1 || need "$tool is not installed"
done
[ -n "$CHROMIUM" ] || need "chromium is not installed (Debian package chromium)"

M=$T/mnt
mkdir "$M" && mount_tmpfs "$M" size=320m || { echo "Bail out! cannot mount a tmpfs"; exit 1; }
mkdir "$M/fsbench" "$M/bonnie" "$M/fio"

# ---------------- the inputs ----------------
if "$FSBENCH" run --jobs 2 --tests write,read,seq-create --size 8m --files 128 --repeat 2 \
	--min-time 0.05 --quiet --label fsbench-2jobs --format json -o "$T/run.json" "$M/fsbench" \
	2>"$T/err"; then
	ok "fsbench run --jobs 2 on the tmpfs"
else
	nok "fsbench run --jobs 2 on the tmpfs"; diag "$T/err"
fi
# Every test that has latency percentiles keeps the histogram they came from.
pyok "run.json: every test with latency_us has a latency_hist whose counts add up" \
	"$T/run.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ok = len(d["tests"]) == 3
for t in d["tests"]:
    h = t.get("latency_hist")
    ok = ok and "latency_us" in t and h is not None and h["scheme"] == "log-linear-ns-6"
    ok = ok and sum(c for _, c in h["buckets"]) == h["count"] > 0
    idx = [i for i, _ in h["buckets"]]
    ok = ok and idx == sorted(set(idx)) and all(0 <= i < 1920 for i in idx)
    ok = ok and t["per_job"]["jobs"] == 2
sys.exit(0 if ok else 1)
EOF
if bonnie++ -q -d "$M/bonnie" -s 64m -r 0 -n 1 -m tmpfs-bonnie -u root >"$T/bonnie.csv" \
	2>"$T/bonnie.txt" && [ "$(grep -c '^1\.98,2\.00a,tmpfs-bonnie,' "$T/bonnie.csv")" -eq 1 ]; then
	ok "bonnie++ -q -s 64m -n 1 writes one CSV line"
else
	nok "bonnie++ -q -s 64m -n 1 writes one CSV line"; diag "$T/bonnie.txt"
fi
if fio --output-format=json --directory="$M/fio" --size=16m --name=seqwrite --rw=write --bs=1m \
	--name=seqread --rw=read --bs=1m --stonewall >"$T/fio.json" 2>"$T/fio.err" &&
	grep -q '"fio version"' "$T/fio.json"; then
	ok "fio --output-format=json: a write and a read job"
else
	nok "fio --output-format=json: a write and a read job"; diag "$T/fio.err"
fi
IN=("$T/run.json" "$T/bonnie.csv" "$T/fio.json")

# ---------------- the page ----------------
H=$T/report.html
if "$FSBENCH" report "${IN[@]}" -o "$H" 2>"$T/err" && [ ! -s "$T/err" ]; then
	ok "report run.json bonnie.csv fio.json -o report.html"
else
	nok "report run.json bonnie.csv fio.json -o report.html"; diag "$T/err"
fi
# What the page must hold, from the inputs as compare sees them.
"$FSBENCH" compare --format json "${IN[@]}" >"$T/cmp.json" 2>"$T/err" ||
	{ nok "compare --format json of the inputs"; diag "$T/err"; }

chrome_loads "$H"
pyok "Chromium's DOM: every bar, CDF, strip and jobs chart, no script" \
	"$T/dom.html" "$T/cmp.json" "$T/run.json" <<'EOF'
import collections, html.parser, json, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.n = collections.Counter(); self.scripts = 0
        self.nohist = 0; self.tests = collections.defaultdict(set)
    def handle_starttag(self, tag, attrs):
        a = dict(attrs); cls = (a.get('class') or '').split()
        if tag == 'svg' and 'chart' in cls:
            self.n['bar'] += 1
        if tag == 'svg' and 'pic' in cls:
            self.n[a.get('data-chart')] += 1
            self.tests[a.get('data-chart')].add(a.get('data-test'))
        if tag == 'script':
            self.scripts += 1
    def handle_data(self, data):
        self.nohist += data.count('no latency histogram')
p = P(); p.feed(open(sys.argv[1]).read())
rows = json.load(open(sys.argv[2]))["rows"]
run = json.load(open(sys.argv[3]))
measured = [r for r in rows if any(c and c.get("median") is not None for c in r["cells"])]
hist = {t["id"] for t in run["tests"] if "latency_hist" in t}
jobs = [t["id"] for t in run["tests"] if "per_job" in t]
want = {'bar': len(rows), 'cdf': len(hist), 'strip': len(measured), 'jobs': len(jobs)}
got = {k: p.n[k] for k in want}
ok = got == want and p.tests['cdf'] == hist and set(jobs) == p.tests['jobs']
# The imports have latency but no histogram: named in the CDFs and the note.
ok = ok and p.nohist >= 2 and not p.scripts and want['cdf'] == 3 and want['jobs'] == 3
if not ok:
    print('#   want %s, got %s, no-hist %d, scripts %d' % (want, got, p.nohist, p.scripts))
sys.exit(0 if ok else 1)
EOF
chrome_shot "$H" report-pictures 4000

# ---------------- the same as markdown ----------------
if "$FSBENCH" report --format markdown "${IN[@]}" -o "$T/report.md" 2>"$T/err" &&
	[ ! -s "$T/err" ]; then
	ok "report --format markdown -o report.md"
else
	nok "report --format markdown -o report.md"; diag "$T/err"
fi
pyok "markdown: three tables, every row as wide as its header, every input named" \
	"$T/report.md" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
tables, cur = [], None
for line in text.split('\n'):
    if line.startswith('|'):
        n = len(re.findall(r'(?<!\\)(?:\\\\)*\|', line))
        if cur is None:
            cur = [n]; tables.append(cur)
        else:
            cur.append(n)
    else:
        cur = None
ok = len(tables) == 3 and all(len(set(t)) == 1 and len(t) > 2 for t in tables)
ok = ok and all(s in text for s in ('fsbench-2jobs', 'tmpfs-bonnie', 'fio.json', 'not measured'))
if not ok:
    print('#   tables %s' % tables)
sys.exit(0 if ok else 1)
EOF

done_testing
