#!/bin/bash
# fsbench compare and fsbench report: two small real results side by side,
# every kind of bad input file (exit 1, one line naming it), a matrix file
# expanding to its setups, a hostile label, and the HTML page opened in
# headless Chromium (DOM: one chart per test; no console errors; a
# screenshot in build/test-artifacts/report.png). Root-free; the Chromium
# part is skipped when chromium is not installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chrome-lib.sh"

tmpdir T || exit 1
ART=$TOP/build/test-artifacts

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }

# ---- help, usage ----
for cmd in compare report; do
	"$FSBENCH" $cmd --help >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && grep -q "^usage: fsbench $cmd" "$T/out" && grep -q overlap "$T/out" &&
		[ ! -s "$T/err" ]; then
		ok "'fsbench $cmd --help' exits 0 and states the significance rule"
	else
		nok "'fsbench $cmd --help' exits 0 and states the significance rule (exit $rc)"
	fi
	"$FSBENCH" $cmd >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$T/out" ] &&
		[ "$(cat "$T/err")" = "fsbench: $cmd: no result files (see --help)" ]; then
		ok "'fsbench $cmd' without files: one line on stderr, exit 2"
	else
		nok "'fsbench $cmd' without files: one line on stderr, exit 2 (exit $rc)"; diag "$T/err"
	fi
done
"$FSBENCH" compare --format xml "$T/x.json" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && one_line "$T/err" && ok "compare --format xml: exit 2, one line" ||
	{ nok "compare --format xml: exit 2, one line (exit $rc)"; diag "$T/err"; }

# ---- two small real results ----
D=$T/dir
mkdir "$D"
for x in a:alpha b:beta; do
	f=${x%%:*} label=${x#*:}
	if "$FSBENCH" run --size 4m --repeat 2 --min-time 0.05 --files 256 --quiet \
		--label "$label" --format json -o "$T/$f.json" "$D" 2>"$T/err"; then
		ok "run --label $label --format json -o $f.json"
	else
		nok "run --label $label --format json -o $f.json"; diag "$T/err"
		echo "Bail out! cannot make results to compare"
		exit 1
	fi
done
ntests=$(json_get "$T/a.json" "len(set(t['id'] for t in d['tests']))")

# ---- compare: text, json, csv, --output ----
"$FSBENCH" compare "$T/a.json" "$T/b.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && grep -qw alpha "$T/out" && grep -qw beta "$T/out"; then
	ok "compare a.json b.json: exit 0, both labels"
else
	nok "compare a.json b.json: exit 0, both labels (exit $rc)"; diag "$T/err"; diag "$T/out"
fi
# Every test row has beta's ratio: "1.23x faster", "2.00x slower" or "~1.02x".
ratio='(~?[0-9]+\.[0-9]{2}x)( faster| slower)?'
rows=$(grep -Ec "^(putc|write|rewrite|getc|read|seeks|seq-|rand-).* $ratio\$" "$T/out")
[ "$rows" -eq "$ntests" ] && ok "compare: a ratio on each of the $ntests rows" ||
	{ nok "compare: a ratio on each of the $ntests rows (found $rows)"; diag "$T/out"; }
grep -q "overlap" "$T/out" && ok "compare: the text says what '~' means" ||
	nok "compare: the text says what '~' means"

"$FSBENCH" compare --format json -o "$T/cmp.json" "$T/a.json" "$T/b.json" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/cmp.json" "
assert d['kind'] == 'compare' and d['baseline'] == 'alpha', d.get('baseline')
assert [i['label'] for i in d['inputs']] == ['alpha', 'beta'], d['inputs']
assert len(d['rows']) == $ntests, len(d['rows'])
for r in d['rows']:
    base, other = r['cells']
    assert base['verdict'] == 'baseline' and base['ratio'] == 1, base
    assert other['verdict'] in ('faster', 'slower', 'same'), other
    assert other['significant'] == (other['verdict'] != 'same'), other
    lo = max(base['min'], other['min']); hi = min(base['max'], other['max'])
    if lo <= hi:
        assert not other['significant'], ('overlapping ranges called significant', r['id'])
    want = other['median'] / base['median']
    assert abs(other['ratio'] - want) < 1e-6 * want, (other['ratio'], want)
"; then
	ok "compare --format json -o: inputs, rows, ratios and the overlap rule"
else
	nok "compare --format json -o: inputs, rows, ratios and the overlap rule (exit $rc)"
	diag "$T/err"
fi
"$FSBENCH" compare --format csv "$T/a.json" "$T/b.json" >"$T/cmp.csv" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(head -1 "$T/cmp.csv" | cut -d, -f1-5)" = "test,kind,unit,input,median" ] &&
	[ "$(wc -l <"$T/cmp.csv")" -eq $((2 * ntests + 1)) ]; then
	ok "compare --format csv: header and one line per test and input"
else
	nok "compare --format csv: header and one line per test and input (exit $rc)"
	diag "$T/cmp.csv"
fi

# ---- bad input: exit 1, one line naming the file, nothing on stdout ----
printf 'hello, world\n' >"$T/garbage.json"
head -c 600 "$T/a.json" >"$T/truncated.json"
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
a = json.load(open(t + '/a.json'))
json.dump(dict(a, tool='bonnie++'), open(t + '/tool.json', 'w'))
json.dump(dict(a, format_version=99), open(t + '/v99.json', 'w'))
json.dump({'format_version': 99, 'kind': 'matrix', 'setups': []}, open(t + '/m99.json', 'w'))
json.dump(dict(a, tests=[{'id': 'write'}]), open(t + '/notest.json', 'w'))
# A hand-edited figure of 1e308: refused at import (above FSB_MAX_FIGURE),
# never a 300-digit cell in a view.
huge = json.loads(json.dumps(a))
huge['tests'][0].update(median=1e308, max=1e308)
json.dump(huge, open(t + '/huge.json', 'w'))
EOF
: >"$T/empty.json"
bad_input() { # bad_input CMD FILE "what"
	local cmd=$1 file=$2 what=$3 rc
	if [ "$cmd" = report ]; then
		"$FSBENCH" report "$T/a.json" "$file" -o "$T/bad.html" >"$T/out" 2>"$T/err"
	else
		"$FSBENCH" compare "$T/a.json" "$file" >"$T/out" 2>"$T/err"
	fi
	rc=$?
	if [ $rc -eq 1 ] && one_line "$T/err" && grep -qF "'$file'" "$T/err" &&
		[ ! -s "$T/out" ]; then
		ok "$cmd, $what: exit 1, one line naming the file"
	else
		nok "$cmd, $what: exit 1, one line naming the file (exit $rc)"; diag "$T/err"
	fi
}
for cmd in compare report; do
	bad_input $cmd "$T/garbage.json" "not JSON"
	bad_input $cmd "$T/truncated.json" "truncated file"
	bad_input $cmd "$T/tool.json" "another tool's file"
	bad_input $cmd "$T/v99.json" "format_version 99"
	bad_input $cmd "$T/m99.json" "matrix with format_version 99"
	bad_input $cmd "$T/notest.json" "test without unit or figures"
	bad_input $cmd "$T/huge.json" "a figure of 1e308"
	bad_input $cmd "$T/empty.json" "empty file"
	bad_input $cmd "$T/missing.json" "missing file"
	bad_input $cmd "$T" "a directory"
done
grep -q "truncated" <("$FSBENCH" compare "$T/truncated.json" 2>&1) &&
	ok "a truncated file is called truncated" || nok "a truncated file is called truncated"
[ "$("$FSBENCH" compare "$T/huge.json" 2>&1)" = "fsbench: cannot read '$T/huge.json': tests[0].median is out of range" ] &&
	ok "a figure of 1e308 is called out of range" || nok "a figure of 1e308 is called out of range"
"$FSBENCH" report -f markdown "$T/huge.json" -o "$T/huge.md" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && one_line "$T/err" && [ ! -e "$T/huge.md" ] &&
	ok "report -f markdown, a figure of 1e308: exit 1, one line, no file" ||
	{ nok "report -f markdown, a figure of 1e308: exit 1, one line, no file (exit $rc)"; diag "$T/err"; }
grep -q "newer" <("$FSBENCH" compare "$T/v99.json" 2>&1) &&
	ok "format_version 99 is called newer" || nok "format_version 99 is called newer"
[ ! -e "$T/bad.html" ] && ok "report with a bad input writes no page" ||
	nok "report with a bad input writes no page"

# ---- a matrix document expands to its setups ----
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
a = json.load(open(t + '/a.json')); b = json.load(open(t + '/b.json'))
json.dump({'format_version': 1, 'kind': 'matrix', 'setups': [
    {'label': 'ext2', 'config': {'type': 'ext2'}, 'results': [a]},
    {'label': '<script>alert(1)</script>', 'config': {}, 'results': [b]}]},
    open(t + '/matrix.json', 'w'))
EOF
"$FSBENCH" compare "$T/matrix.json" "$T/a.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && grep -q "ext2" "$T/out" && grep -qF "<script>alert(1)</script>" "$T/out" &&
	grep -qw alpha "$T/out"; then
	ok "compare matrix.json a.json: one column per setup, then the file"
else
	nok "compare matrix.json a.json: one column per setup, then the file (exit $rc)"
	diag "$T/err"
fi

# ---- hostile strings: escaped for the terminal and for HTML ----
# A label, a unit and an id holding terminal escapes (OSC retitle, clear
# screen, U+009B, a raw 0x9b byte) and markup; a matrix setup that failed
# with such an error. The unit goes on the test with the hostile id: the
# reader refuses a unit that is not its known test's (t9060), and an id
# fsbench does not make keeps the unit it has, so the views escape it.
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
a = json.load(open(t + '/a.json'))
evil = '\x1b]0;pwned\x07\x1b[2J\u009b2J<img src=x onerror=alert(1)>'
a['setup']['label'] = 'RAWCSI' + evil
a['tests'][1]['unit'] = evil
a['tests'][1]['id'] = 'id' + evil
m = {'format_version': 1, 'kind': 'matrix', 'setups': [
    {'label': 'ok', 'results': [json.load(open(t + '/b.json'))]},
    {'label': 'bad' + evil, 'error': 'mkfs said ' + evil, 'results': []}]}
# A raw 0x9b byte is not valid UTF-8: json-c takes it, Python cannot write it.
open(t + '/evil.json', 'wb').write(json.dumps(a, ensure_ascii=False).encode().replace(b'RAWCSI', b'\x9b'))
json.dump(m, open(t + '/evil-matrix.json', 'w'))
EOF
no_esc() { [ "$(cat "$@" | grep -c $'\e')" -eq 0 ] && ! cat "$@" | LC_ALL=C grep -q $'\x9b'; }
for fmt in text csv; do
	"$FSBENCH" compare -f $fmt "$T/evil.json" "$T/evil-matrix.json" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && no_esc "$T/out" "$T/err" && grep -q 'x1b' "$T/out" && grep -q 'x1b' "$T/err"; then
		ok "compare -f $fmt: hostile label, unit, id and error: no ESC or CSI byte anywhere"
	else
		nok "compare -f $fmt: hostile label, unit, id and error: no ESC or CSI byte anywhere (exit $rc)"
		LC_ALL=C cat -v "$T/out" "$T/err" | grep -E '\^\[|M-\^\[' | head -3 | sed 's/^/#   /'
	fi
done
"$FSBENCH" report "$T/evil.json" "$T/evil-matrix.json" -o "$T/evil.html" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && ! grep -q '<img' "$T/evil.html" && no_esc "$T/evil.html" "$T/err" &&
	grep -qF '&lt;img src=x onerror=alert(1)&gt;' "$T/evil.html"; then
	ok "report: hostile label, unit and id stay text (no <img, no ESC)"
else
	nok "report: hostile label, unit and id stay text (no <img, no ESC) (exit $rc)"
	grep -o '.\{30\}<img.\{30\}' "$T/evil.html" | head -3 | sed 's/^/#   /'
fi
# html.c writes through report/html_out.h only: no stdio call of its own.
if ! grep -nE '\b(fprintf|fputs|fputc|fwrite|putc|printf|puts)\(' "$TOP/src/report/html.c"; then
	ok "html.c prints nothing itself (all through html_out)"
else
	nok "html.c prints nothing itself (all through html_out)"
fi

# ---- report ----
H=$T/report.html
"$FSBENCH" report "$T/a.json" "$T/b.json" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && one_line "$T/err" && ok "report without -o: exit 2, one line" ||
	{ nok "report without -o: exit 2, one line (exit $rc)"; diag "$T/err"; }
"$FSBENCH" report "$T/a.json" "$T/b.json" "$T/matrix.json" -o "$H" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ -s "$H" ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ]; then
	ok "report a.json b.json matrix.json -o report.html"
else
	nok "report a.json b.json matrix.json -o report.html (exit $rc)"; diag "$T/err"
fi
! compgen -G "$H.*" >/dev/null && ok "report: no temporary file left" ||
	nok "report: no temporary file left"
"$FSBENCH" report "$T/a.json" -o - >"$T/stdout.html" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && head -1 "$T/stdout.html" | grep -q '^<!DOCTYPE html>' &&
	ok "report -o -: the page on stdout" || nok "report -o -: the page on stdout (exit $rc)"
if ! grep -qi '<script' "$H" && grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$H"; then
	ok "report: the <script> label stays text; no script element anywhere"
else
	nok "report: the <script> label stays text; no script element anywhere"
fi
if ! grep -Eqi '(src|href)=|https?://|url\(|@import' "$H"; then
	ok "report: self-contained (no external reference)"
else
	nok "report: self-contained (no external reference)"
	grep -Eoi '.{20}((src|href)=|https?://|url\(|@import).{20}' "$H" | head -3 | sed 's/^/#   /'
fi
# Charts in the file: one per test (the matrix repeats a's and b's tests).
charts=$(grep -o '<svg class="chart" data-test="[^"]*"' "$H" | sort -u | wc -l)
[ "$charts" -eq "$ntests" ] && [ "$(grep -c '<svg class="chart"' "$H")" -eq "$ntests" ] &&
	ok "report: one svg.chart per test ($ntests)" ||
	nok "report: one svg.chart per test (found $charts distinct, want $ntests)"

# ---- the page in a real browser ----
chrome_or_skip "Chromium's DOM has one svg.chart per test"
chrome_loads "$H"
chrome_charts "Chromium's DOM has one svg.chart per test and no script" "$ntests"
chrome_shot "$H" report 2000

done_testing
