#!/bin/bash
# Hostile bytes in what fsbench writes as JSON (issue 25 item 8): a label
# and a directory name that are not valid UTF-8 give a file python3 can
# load, with the exact bytes in base64 beside the string (label_bytes,
# dir_bytes), and a reader that takes the bytes back. A result whose
# figures disagree or overflow 64 bits is refused, naming the key (item 9),
# and so is one whose median, min, cv, noisy flag or unit contradicts its
# runs or its test.
. "$(dirname "$0")/lib.sh"
tmpdir T || exit 1
D=$T/$'\xc3('
mkdir "$D" || exit 1
QUICK=(run --tests null --repeat 1 --min-time 0.001 --quiet --format json)

if "$FSBENCH" "${QUICK[@]}" --label $'\xff\xfe' -o "$T/a.json" "$D" 2>"$T/err"; then
	ok "run --label \\xff\\xfe in a directory named \\xc3(: exit 0"
else
	nok "run --label \\xff\\xfe in a directory named \\xc3(: exit 0"; diag "$T/err"
fi
check "python3 json.load takes the file" \
	python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$T/a.json"
check "label_bytes decodes to the label given, label is U+FFFD twice" python3 -c '
import base64, json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))["setup"]
assert base64.b64decode(s["label_bytes"]) == b"\xff\xfe", s
assert s["label"] == "\ufffd\ufffd", s' "$T/a.json"
check "dir_bytes decodes to the directory's bytes" python3 -c '
import base64, json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))["setup"]
assert b"/\xc3(/" in base64.b64decode(s["dir_bytes"]), s
assert "/\ufffd(/" in s["dir"], s' "$T/a.json"

# The reader restores the bytes: compare shows the original, escaped.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
d["setup"].pop("dir_bytes")
d["setup"]["dir"] = "/x"
json.dump(d, open(sys.argv[2], "w"))' "$T/a.json" "$T/b.json"
if "$FSBENCH" compare "$T/b.json" >"$T/out" 2>"$T/err" && grep -qF '\xff\xfe' "$T/out"; then
	ok "compare of a file with label_bytes shows the original label escaped"
else
	nok "compare of a file with label_bytes shows the original label escaped"; diag "$T/out"
fi
# label_bytes that are not the label's bytes: refused, naming the field.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
d["setup"]["label_bytes"] = "YWJj"
json.dump(d, open(sys.argv[2], "w"))' "$T/b.json" "$T/c.json"
"$FSBENCH" compare "$T/c.json" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && one_line "$T/err" && grep -q 'setup.label_bytes' "$T/err"; then
	ok "label_bytes that do not match the label: exit 1, one line naming it"
else
	nok "label_bytes that do not match the label: exit 1, one line naming it (exit $rc)"
	diag "$T/err"
fi
# ---- a result whose figures disagree (issue 25 item 9) ----
# A real result, corrupted one way per file: compare and report refuse
# each with exit 1 and one line naming the key; the largest --seed
# (2^64-1) still reads back as written.
if "$FSBENCH" run --tests write,read --size 1m --repeat 2 --min-time 0.001 --quiet \
	--format json --seed 18446744073709551615 -o "$T/r.json" "$T" 2>"$T/err"; then
	ok "run --tests write,read --seed 18446744073709551615 -o r.json: exit 0"
else
	nok "run --tests write,read --seed 18446744073709551615 -o r.json: exit 0"; diag "$T/err"
fi
python3 - "$T" <<'EOF'
import json, re, sys
t = sys.argv[1]
d = json.load(open(t + "/r.json"))
def put(name, text):
    open(t + "/bad-" + name + ".json", "w").write(text)
def edit(name, fn):
    c = json.loads(json.dumps(d))
    fn(c)
    put(name, json.dumps(c))
def run1(c):
    c["tests"][1]["runs"][1] = c["tests"][1]["max"] * 2 + 1
def times(c):
    c["tests"][0]["start_ns"][1] = c["tests"][0]["end_ns"][1] + 1
edit("minmax", lambda c: c["tests"][1].update(min=c["tests"][1]["max"] * 2 + 1))
edit("median", lambda c: c["tests"][0].update(median=c["tests"][0]["max"] * 2 + 1))
edit("run", run1)
edit("dup", lambda c: c["tests"][1].update(id=c["tests"][0]["id"]))
edit("p50", lambda c: c["tests"][0]["latency_us"].update(p50=c["tests"][0]["latency_us"]["p99"] * 2 + 1))
edit("p99", lambda c: c["tests"][1]["latency_us"].update(p99=c["tests"][1]["latency_us"]["p999"] * 2 + 1))
edit("times", times)
edit("negseed", lambda c: c["params"].update(seed=-1))
# A summary that contradicts its runs (recomputed as the writer does).
t0 = d["tests"][0]
edit("median2", lambda c: c["tests"][0].update(median=t0["runs"][0]))
edit("min2", lambda c: c["tests"][0].update(min=t0["min"] / 2))
edit("cv", lambda c: c["tests"][0].update(cv=t0["cv"] + 0.5, noisy=True))
edit("noisy", lambda c: c["tests"][0].update(noisy=not t0["noisy"]))
edit("unit", lambda c: c["tests"][0].update(unit="ops/s"))
import statistics
r = t0["runs"]
want = open(t + "/want", "w")
want.write("%.6g %.6g\n" % (r[0], statistics.median(r)))
want.write("%.6g %.6g\n" % (t0["min"] / 2, min(r)))
want.write("%.6g %.6g\n" % (t0["cv"] + 0.5, t0["cv"]))
want.write("%s %.6g\n" % (str(not t0["noisy"]).lower(), t0["cv"]))
text = json.dumps(d)
put("dupkey", text.replace('"min": ', '"min": 0, "min": ', 1))
put("ram", re.sub(r'"ram_bytes": [0-9]+', '"ram_bytes": 18446744073709551616', text))
put("work", re.sub(r'"work": [0-9]+', '"work": 99999999999999999999999', text, count=1))
put("neg", re.sub(r'"iodepth": [0-9]+', '"iodepth": -9223372036854775809', text))
EOF
refused() { # refused NAME "what the one line says after the file"
	local cmd rc f=$T/bad-$1.json
	for cmd in compare report; do
		if [ $cmd = compare ]; then
			"$FSBENCH" compare "$f" >"$T/out" 2>"$T/err"
		else
			"$FSBENCH" report -o "$T/bad.html" "$f" >"$T/out" 2>"$T/err"
		fi
		rc=$?
		if [ $rc -eq 1 ] && one_line "$T/err" && [ ! -s "$T/out" ] && [ ! -e "$T/bad.html" ] &&
			[ "$(cat "$T/err")" = "fsbench: cannot read '$f': $2" ]; then
			ok "$cmd, $1: exit 1, one line: $2"
		else
			nok "$cmd, $1: exit 1, one line: $2 (exit $rc)"; diag "$T/err"
		fi
	done
}
refused minmax "tests[1].min is greater than tests[1].max"
refused median "tests[0].median is not between tests[0].min and tests[0].max"
refused run "tests[1].runs[1] is not between tests[1].min and tests[1].max"
refused dup "tests[1].id \"write\" is also tests[0].id"
refused p50 "tests[0].latency_us.p50 is greater than tests[0].latency_us.p99"
refused p99 "tests[1].latency_us.p99 is greater than tests[1].latency_us.p999"
refused times "tests[0].start_ns[1] is after tests[0].end_ns[1]"
refused negseed "params.seed is negative"
refused dupkey "tests[0].min appears twice"
refused ram "host.ram_bytes is out of range (an integer above 2^64-1)"
refused work "tests[0].work is out of range (an integer above 2^64-1)"
refused neg "params.iodepth is out of range (an integer below -2^63)"
{ read -r m1 m2; read -r n1 n2; read -r c1 c2; read -r f1 f2; } <"$T/want"
refused median2 "tests[0] (write): median $m1 is not the median of its runs ($m2)"
refused min2 "tests[0] (write): min $n1 is not the lowest of its runs ($n2)"
refused cv "tests[0] (write): cv $c1 is not the cv of its runs ($c2)"
refused noisy "tests[0] (write): noisy $f1 contradicts cv $f2 (noisy above 0.1)"
refused unit 'tests[0] (write): unit "ops/s" is not the unit of test write (B/s)'

# The largest seed is no overflow: read and shown as written.
"$FSBENCH" compare "$T/r.json" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok "compare of the unedited result (seed 2^64-1): exit 0" ||
	{ nok "compare of the unedited result (seed 2^64-1): exit 0 (exit $rc)"; diag "$T/err"; }
if "$FSBENCH" report -o "$T/r.html" "$T/r.json" 2>"$T/err" &&
	grep -qF '<th>seed</th><td>18446744073709551615</td>' "$T/r.html"; then
	ok "report of a result with seed 2^64-1 shows the seed as written"
else
	nok "report of a result with seed 2^64-1 shows the seed as written"; diag "$T/err"
fi
done_testing
