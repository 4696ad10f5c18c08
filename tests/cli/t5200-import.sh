#!/bin/bash
# Other tools' results beside fsbench's: a bonnie++ 2.00a CSV line and a
# fio JSON file, both produced here and now on a tmpfs (bonnie++ -q -s 64m
# -n 1; fio with a write, a read and a randread job, whose output starts
# with fio's own "note:" line), read by compare (text, json, csv) and
# report (the HTML in headless Chromium: no console errors, every chart
# present, a screenshot in build/test-artifacts/import-report.png).
# bonnie++'s +++++ is "not measured", never 0, and never in a ratio; each
# imported figure is one run, so its ratio is marked "single run". A broken
# CSV (too few fields, junk numbers), a file of no known kind and hostile
# fio JSON (huge numbers, wrong types) are refused with one line naming
# the file; <script> in fio job names stays text. The producing part needs
# root (tmpfs), bonnie++ and fio; the refusals run anywhere.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chrome-lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
ART=$TOP/build/test-artifacts

# refused FILE WANT "what": compare and report exit 1 with one line naming
# FILE and saying WANT (grep -F), nothing on stdout, no page written.
refused() {
	local file=$1 want=$2 what=$3 cmd rc
	for cmd in compare report; do
		rm -f "$T/bad.html"
		if [ $cmd = report ]; then
			"$FSBENCH" report "$file" -o "$T/bad.html" >"$T/out" 2>"$T/err"
		else
			"$FSBENCH" compare "$file" >"$T/out" 2>"$T/err"
		fi
		rc=$?
		if [ $rc -eq 1 ] && one_line "$T/err" && grep -qF "cannot read '$file': " "$T/err" &&
			grep -qF -- "$want" "$T/err" && [ ! -s "$T/out" ] && [ ! -e "$T/bad.html" ]; then
			ok "$cmd, $what: exit 1, one line naming the file"
		else
			nok "$cmd, $what: exit 1, one line naming the file (exit $rc)"; diag "$T/err"
		fi
	done
}

# ---------------- refusals (no root needed) ----------------
printf 'sys26,2G,,,28299,17\n' >"$T/few.csv"
refused "$T/few.csv" "line 1 has 6 comma-separated fields where bonnie++ CSV has 27, 48 or 50" \
	"a CSV line with too few fields"
printf '1.98,2.00a,t,1,,64M,,8192,5\n' >"$T/short.csv"
refused "$T/short.csv" "line 1: 9 fields: a bonnie++ 1.98 line has 50" \
	"a bonnie++ 1.98 line cut short"
printf '# bonnie++ 1.03\nsys26,2G,,,28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,5140,98,3964,67,+++++,+++,5652,99\nsys26,2G,,,0x1F,19,36634,16,,,92023,26,1431.8,12,16,585,13,+++++,+++,578,5,538,11,+++++,+++,417,5\n' \
	>"$T/junk.csv"
refused "$T/junk.csv" "line 3: field 4 (block write K/sec) is not a number: '0x1F'" \
	"a junk number on line 3"
printf 'sys26,2G,,,28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++,+++,5140,98,3964,67,-1,+++,5652,99\n' \
	>"$T/neg.csv"
refused "$T/neg.csv" "field 23 (random read /sec) is not a number: '-1'" "a negative figure"
printf 'hello, world\nthis is no result\n' >"$T/hello.txt"
refused "$T/hello.txt" "not a result fsbench reads" "a text file of no known kind"
printf 'fio: some note\n{"tool": "fsbench"}\n' >"$T/notfio.json"
refused "$T/notfio.json" "not a result fsbench reads" "text, then JSON that is not fio's"

# ---------------- produce real inputs ----------------
if ! is_root; then
	skip "bonnie++ and fio results produced on a tmpfs" "needs root (mount tmpfs)"
	done_testing
	exit 0
fi
for tool in bonnie++ fio; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		skip "bonnie++ and fio results produced on a tmpfs" "$tool is not installed"
		done_testing
		exit 0
	fi
done
M=$T/mnt
mkdir "$M" && mount_tmpfs "$M" size=320m || { echo "Bail out! cannot mount a tmpfs"; exit 1; }
mkdir "$M/fsbench" "$M/bonnie" "$M/fio"
if "$FSBENCH" run --size 8m --repeat 2 --min-time 0.05 --files 256 --quiet --label fsbench-tmpfs \
	--format json -o "$T/fsbench.json" "$M/fsbench" 2>"$T/err"; then
	ok "fsbench run on the tmpfs"
else
	nok "fsbench run on the tmpfs"; diag "$T/err"
fi
if bonnie++ -q -d "$M/bonnie" -s 64m -r 0 -n 1 -m tmpfs-bonnie -u root >"$T/bonnie.csv" \
	2>"$T/bonnie.txt" && [ "$(grep -c '^1\.98,2\.00a,tmpfs-bonnie,' "$T/bonnie.csv")" -eq 1 ] &&
	[ "$(head -1 "$T/bonnie.csv" | tr -cd , | wc -c)" -eq 49 ]; then
	ok "bonnie++ -q -s 64m -n 1 writes one 1.98 CSV line of 50 fields"
else
	nok "bonnie++ -q -s 64m -n 1 writes one 1.98 CSV line of 50 fields"; diag "$T/bonnie.txt"
fi
# iodepth=4 with the default (synchronous) engine: fio prints a "note:" line
# before its JSON on stdout, as in many a saved fio output.
if fio --output-format=json --directory="$M/fio" --size=32m --name=seqwrite --rw=write --bs=1m \
	--name=seqread --rw=read --bs=1m --stonewall --name=rand4k --rw=randread --bs=4k \
	--iodepth=4 --stonewall >"$T/fio.json" 2>"$T/fio.err" && grep -q '"fio version"' "$T/fio.json"; then
	ok "fio --output-format=json: write, read and randread jobs"
else
	nok "fio --output-format=json: write, read and randread jobs"; diag "$T/fio.err"
fi
head -1 "$T/fio.json" | grep -q '^note:' && ok "fio's JSON output starts with its note line" ||
	skip "fio's JSON output starts with its note line" "this fio printed no note"

# ---------------- compare: text ----------------
IN=("$T/fsbench.json" "$T/bonnie.csv" "$T/fio.json")
"$FSBENCH" compare "${IN[@]}" >"$T/cmp.txt" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/err" ] &&
	grep -qF "  tmpfs-bonnie   imported: bonnie++ 2.00a CSV (format 1.98), line 1 of $T/bonnie.csv" "$T/cmp.txt" &&
	grep -qF "  fio.json       imported: fio 3.33 JSON, $T/fio.json" "$T/cmp.txt"; then
	ok "compare fsbench.json bonnie.csv fio.json: exit 0, each import's source named"
else
	nok "compare fsbench.json bonnie.csv fio.json: exit 0, each import's source named (exit $rc)"
	diag "$T/err"; diag "$T/cmp.txt"
fi
# Which of bonnie++'s twelve figures are +++++, from its own line.
python3 - "$T/bonnie.csv" >"$T/plus" <<'EOF'
import sys
f = open(sys.argv[1]).readline().rstrip('\n').split(',')
ids = ['putc', 'write', 'rewrite', 'getc', 'read', 'seeks', 'seq-create', 'seq-stat',
       'seq-delete', 'rand-create', 'rand-stat', 'rand-delete']
vals = f[9:21:2] + f[26:38:2]
for i, v in zip(ids, vals):
    print(i, 'plus' if v.startswith('+') else ('none' if v == '' else v))
EOF
nplus=$(grep -c ' plus$' "$T/plus")
[ "$nplus" -gt 0 ] && ok "bonnie++ wrote +++++ for $nplus tests (tmpfs is fast)" ||
	skip "bonnie++ wrote +++++ for some tests" "every test on this machine took 0.5 s or more"
# Without a +++++ there is nothing to read as "not measured": skipped,
# not passed.
if [ "$nplus" -eq 0 ]; then
	skip "compare text: every +++++ test reads 'not measured', explained" "no +++++ on this machine"
else
	bad=0
	while read -r id what; do
		[ "$what" = plus ] || continue
		grep -Eq "^$id +.*not measured" "$T/cmp.txt" || bad=1
	done <"$T/plus"
	[ $bad -eq 0 ] && grep -q "^'not measured': bonnie++ printed +++++" "$T/cmp.txt" &&
		ok "compare text: every +++++ test reads 'not measured', explained" ||
		{ nok "compare text: every +++++ test reads 'not measured', explained"; diag "$T/cmp.txt"; }
fi
# A ratio without a verdict, or none across different work (issue 25).
grep -Eq "\(single run\)|differs: " "$T/cmp.txt" &&
	ok "compare text: ratios against imports marked '(single run)'" ||
	{ nok "compare text: ratios against imports marked '(single run)'"; diag "$T/cmp.txt"; }

# ---------------- compare: json, against the inputs themselves ----------------
"$FSBENCH" compare --format json -o "$T/cmp.json" "${IN[@]}" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/cmp.json" '
import json
plus = dict(l.split() for l in open(argv[0]))
fio = open(argv[1]).read(); fio = json.loads(fio[fio.index("\n{") + 1:] if not fio.startswith("{") else fio)
bon = open(argv[2]).readline().rstrip("\n").split(",")
labels = [i["label"] for i in d["inputs"]]
assert labels == ["fsbench-tmpfs", "tmpfs-bonnie", "fio.json"], labels
src = d["inputs"][1]["sources"][0]
assert src["imported"] and src["tool"] == "bonnie++ 2.00a", src
assert d["inputs"][2]["sources"][0]["tool"] == "fio 3.33"
rows = {r["id"]: r for r in d["rows"]}
for tid, what in plus.items():
    if what == "none":
        assert tid not in rows or rows[tid]["cells"][1] is None, tid
        continue
    c = rows[tid]["cells"][1]
    if what == "plus":
        # Not measured: no number, no ratio, never 0.
        assert c["not_measured"] is True and c["median"] is None and "ratio" not in c, c
        assert c["verdict"] == "not-measured" and c["runs"] == 0, c
    else:
        want = float(what) * (1 if tid == "seeks" or "-" in tid else 1024)
        assert abs(c["median"] - want) < 1e-6 * want, (tid, c["median"], want)
        want = "single-run" if rows[tid]["cells"][0] else "none"
        # bonnie++ 2.00a per-char tests are one-byte syscalls, fsbench ones stdio putc:
        # different work, no ratio (issue 25 item 7).
        if want == "single-run" and tid in ("putc", "getc"):
            want = "different-work"
        assert c["runs"] == 1 and c["verdict"] == want and not c["significant"], c
# fio: write and read are bandwidth (B/s), randread IOPS, one run each.
jobs = {j["jobname"]: j for j in fio["jobs"]}
for tid, job, side, key, unit in [("write", "seqwrite", "write", "bw_bytes", "B/s"),
                                  ("read", "seqread", "read", "bw_bytes", "B/s"),
                                  ("randread", "rand4k", "read", "iops", "ops/s")]:
    r = rows[tid]; c = r["cells"][2]
    assert r["unit"] == unit, (tid, r["unit"])
    assert abs(c["median"] - jobs[job][side][key]) < 1e-6 * c["median"], (tid, c, jobs[job][side][key])
    # Beside the fsbench figure a ratio without a verdict; alone, no ratio.
    want = "single-run" if r["cells"][0] else "none"
    # fio 1 MiB jobs beside the fsbench 8 KiB chunk: different work.
    if want == "single-run" and tid in ("write", "read"):
        want = "different-work"
    assert c["runs"] == 1 and c["verdict"] == want, (c, want)
for r in d["rows"]:
    for c in r["cells"]:
        assert c is None or c.get("not_measured") or c["median"] > 0, (r["id"], c)
' "$T/plus" "$T/fio.json" "$T/bonnie.csv"; then
	ok "compare --format json: bonnie++ and fio figures as their files hold them, +++++ null"
else
	nok "compare --format json: bonnie++ and fio figures as their files hold them, +++++ null (exit $rc)"
	diag "$T/err"
fi

# ---------------- compare: csv ----------------
"$FSBENCH" compare --format csv "${IN[@]}" >"$T/cmp.csv" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && python3 - "$T/cmp.csv" "$T/plus" <<'EOF'
import csv, sys
plus = dict(l.split() for l in open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[1])))
bon = {r['test']: r for r in rows if r['input'] == 'tmpfs-bonnie'}
ok = True
for tid, what in plus.items():
    r = bon.get(tid)
    if what == 'plus':
        ok &= r is not None and r['median'] == '' and r['ratio'] == '' and r['verdict'] == 'not-measured'
    elif what != 'none':
        ok &= r is not None and float(r['median']) > 0 and r['verdict'] == (
            'different-work' if tid in ('putc', 'getc') else 'single-run')
ok &= all(r['median'] != '0' for r in rows)
sys.exit(0 if ok else 1)
EOF
then
	ok "compare --format csv: +++++ has empty figures and the verdict not-measured, never 0"
else
	nok "compare --format csv: +++++ has empty figures and the verdict not-measured, never 0 (exit $rc)"
	diag "$T/cmp.csv"
fi

# ---------------- report ----------------
H=$T/import.html
"$FSBENCH" report "${IN[@]}" -o "$H" >"$T/out" 2>"$T/err"; rc=$?
nrows=$(json_get "$T/cmp.json" "len(d['rows'])")
if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && [ "$(grep -c '<svg class="chart"' "$H")" -eq "$nrows" ]; then
	ok "report: exit 0, one chart per row ($nrows)"
else
	nok "report: exit 0, one chart per row ($nrows) (exit $rc)"; diag "$T/err"
fi
if grep -q '<span class="badge imp">imported</span>' "$H" &&
	grep -qF "imported: fio 3.33 JSON, $T/fio.json" "$H" &&
	grep -qF "bonnie++ 2.00a CSV (format 1.98), line 1 of $T/bonnie.csv" "$H"; then
	ok "report: imported inputs marked, their sources named"
else
	nok "report: imported inputs marked, their sources named"
fi
if [ "$nplus" -eq 0 ]; then
	skip "report: +++++ in words" "no +++++ on this machine"
else
	check "report: +++++ in words" grep -qF '+++++ (under 0.5 s)' "$H"
fi

# ---------------- hostile fio JSON ----------------
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
s = open(t + '/fio.json').read()
s = s[s.index('\n{') + 1:] if not s.startswith('{') else s
d = json.loads(s)
def dump(name, f):
    e = json.loads(s); f(e); json.dump(e, open(t + '/' + name, 'w'))
dump('huge.json', lambda e: e['jobs'][0]['write'].update(bw_bytes=1e300))
dump('bigint.json', lambda e: e['jobs'][1]['read'].update(io_bytes=10**30))
dump('type.json', lambda e: e['jobs'][2]['read'].update(iops='fast'))
dump('opts.json', lambda e: e['jobs'][0].update({'job options': ['rw', 'write']}))
def evil(e):
    for j, n in zip(e['jobs'], ['<script>alert(1)</script>', '\x1b]0;pwned\x07\x1b[2J',
                                '<img src=x onerror=alert(1)>']):
        j['jobname'] = n
        j['job options']['rw'] = 'randrw'
dump('evil.json', evil)
EOF
refused "$T/huge.json" "jobs[0].write.bw_bytes is out of range" "fio JSON with a huge bandwidth"
refused "$T/bigint.json" "jobs[1].read.io_bytes is out of range" "fio JSON with a huge integer"
refused "$T/type.json" "jobs[2].read.iops is not a number" "fio JSON with a string for a number"
refused "$T/opts.json" "jobs[0].job options is not an object" "fio JSON with an array for the options"
"$FSBENCH" compare "$T/evil.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && ! grep -q $'\e' "$T/out" "$T/err" && grep -qF 'fio:<script>alert(1)</script>:write' "$T/out"; then
	ok "compare: fio job names with markup and escapes: shown as text, no ESC byte"
else
	nok "compare: fio job names with markup and escapes: shown as text, no ESC byte (exit $rc)"
	LC_ALL=C cat -v "$T/out" | head -5 | sed 's/^/#   /'
fi
"$FSBENCH" report "$T/evil.json" -o "$T/evil.html" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && ! grep -qi '<script' "$T/evil.html" && ! grep -q '<img' "$T/evil.html" &&
	! grep -q $'\e' "$T/evil.html" && grep -qF 'fio:&lt;script&gt;alert(1)&lt;/script&gt;:write' "$T/evil.html"; then
	ok "report: fio job names with markup stay text"
else
	nok "report: fio job names with markup stay text (exit $rc)"
fi

# ---------------- the page in a real browser ----------------
chrome_or_skip "Chromium's DOM has one svg.chart per row"
chrome_loads "$H"
chrome_charts "Chromium's DOM has one svg.chart per row, fsbench's and the imports', and no script" \
	"$T/cmp.json"
chrome_shot "$H" import-report 2400

done_testing
