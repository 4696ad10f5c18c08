#!/bin/bash
# Hostile trial classes of issue 25, items 6 and 7: figures that are not
# storage's, and different work put in one row.
#
#  - --engine null: every view says its block figures are the harness's
#    own cost (text, json, csv, markdown, bonnie, bonnie++, html report),
#    and compare takes no ratio between it and a real run, saying why;
#  - compare gives no ratio and no verdict across a difference in the
#    work (char-io, I/O size, engine, iodepth, data, cache, jobs, fsync) and says
#    where the inputs differ, per row; inputs of the same work keep theirs;
#  - bonnie++ 2.00a's per-char tests (one-byte syscalls) are not fsbench's
#    stdio putc, and the bonnie++ view names the per-char mode;
#  - a fio file's warm-up job and its repeats are one row with those jobs
#    as its runs; a job with another bs is a row of its own.
#
# Runs anywhere (a tiny run in the test's own directory, the rest edited
# copies of it and hand-written fio and bonnie++ files).
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
mkdir "$T/d"

RUN=(run --size 4m --char-size 256k --files 64 --repeat 2 --min-time 0.02 --quiet
	--tests putc,write,read,seq-create)
if "$FSBENCH" "${RUN[@]}" --label real -f json -o "$T/real.json" "$T/d" 2>"$T/err" &&
	"$FSBENCH" "${RUN[@]}" --label null --engine null -f json -o "$T/null.json" "$T/d" \
		2>>"$T/err"; then
	ok "two small runs: psync and --engine null"
else
	nok "two small runs: psync and --engine null"; diag "$T/err"
fi

# ---------------- the null engine in every view ----------------
vw_ok=1
"$FSBENCH" report -f markdown -o "$T/null.md" "$T/null.json" 2>"$T/err" &&
	"$FSBENCH" report -o "$T/null.html" "$T/null.json" 2>>"$T/err" || vw_ok=0
for v in text bonnie bonnie++ csv json; do
	"$FSBENCH" "${RUN[@]}" --label null2 --engine null --seed 7 -f "$v" -o "$T/null2.$v" \
		"$T/d" 2>>"$T/err" || vw_ok=0
done
[ $vw_ok -eq 1 ] && ok "the null-engine run in every view" ||
	{ nok "the null-engine run in every view"; diag "$T/err"; }
check "text: a line under each null-engine figure, and that nothing was written" \
	bash -c "grep -A1 '^write ' '$T/null2.text' | grep -q \"null engine: no I/O, the harness's own cost\" &&
		grep -q '^Engine null: no I/O, nothing written or read: write, read\.' '$T/null2.text' &&
		! grep -A1 '^putc ' '$T/null2.text' | grep -q 'null engine'"
for v in text bonnie bonnie++; do
	check "$v: the caveat names the null engine's figures as the harness's own cost" \
		grep -q "^  - write, read ran through the null engine, which does no I/O: their figures are the harness's own cost" "$T/null2.$v"
done
check "markdown report: the caveat of the null engine" \
	grep -q "write, read ran through the null engine.*harness's own cost" "$T/null.md"
check "html report: the caveat of the null engine" \
	grep -q "write, read ran through the null engine.*harness&#39;s own cost\|write, read ran through the null engine.*harness's own cost" "$T/null.html"
if pycheck "$T/null2.json" '
c = [x for x in d["caveats"] if x["id"] == "engine-null"]
assert len(c) == 1 and "harness" in c[0]["text"] and c[0]["evidence"] == "params.engine: null", c
'; then
	ok "json: an engine-null caveat"
else
	nok "json: an engine-null caveat"
fi
check "csv: the bonnie++ line's version field says engine null" \
	bash -c "tail -1 '$T/null2.csv' | cut -d, -f2 | grep -qx '0.2.0 (engine null: harness cost; no I/O)' ||
		tail -1 '$T/null2.csv' | cut -d, -f2 | grep -q '(engine null: harness cost; no I/O)\$'"

# ---------------- compare: null beside real ----------------
"$FSBENCH" compare "$T/real.json" "$T/null.json" >"$T/cmp.txt" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && grep -Eq '^write +[0-9.]+ [KMG]?i?B/s( !)? +[0-9.]+ [KMG]?i?B/s( !)? +differs: engine$' "$T/cmp.txt" &&
	grep -Eq '^read .*differs: engine$' "$T/cmp.txt" &&
	! grep -E '^(write|read) ' "$T/cmp.txt" | grep -q 'x' &&
	grep -q "^  write: engine psync (real), null (no I/O: the harness's own cost) (null)" "$T/cmp.txt" &&
	grep -Eq '^putc .*(x|x faster|x slower|single run\))' "$T/cmp.txt"; then
	ok "compare real null: no ratio for write and read, the engine named; putc keeps its ratio"
else
	nok "compare real null: no ratio for write and read, the engine named; putc keeps its ratio (exit $rc)"
	diag "$T/cmp.txt"
fi
"$FSBENCH" compare -f json -o "$T/cmp.json" "$T/real.json" "$T/null.json" 2>"$T/err"
if pycheck "$T/cmp.json" '
rows = {r["id"]: r for r in d["rows"]}
for tid in ("write", "read"):
    c = rows[tid]["cells"][1]
    assert c["verdict"] == "different-work" and "ratio" not in c and not c["significant"], c
    assert c["work_differs"] == ["engine"], c
    assert rows[tid]["work_differs"]["engine"] == ["psync", "null"], rows[tid]
assert "work_differs" not in rows["putc"], rows["putc"]
assert rows["putc"]["cells"][1]["verdict"] != "different-work"
'; then
	ok "compare json: verdict different-work, no ratio, the engines as evidence"
else
	nok "compare json: verdict different-work, no ratio, the engines as evidence"
fi
"$FSBENCH" compare -f csv "$T/real.json" "$T/null.json" >"$T/cmp.csv" 2>"$T/err"
check "compare csv: different-work without a ratio, the parameter named" \
	grep -q '^write,run,B/s,null,.*,,0,different-work,engine$' "$T/cmp.csv"
"$FSBENCH" compare -f markdown "$T/real.json" "$T/null.json" >"$T/cmp.md" 2>"$T/err"
check "compare markdown: 'differs: engine' in the row, the values under the table" \
	bash -c "grep -q '^| write |.*| differs: engine |\$' '$T/cmp.md' && grep -q '^### Different work' '$T/cmp.md'"
"$FSBENCH" report -o "$T/cmp.html" "$T/real.json" "$T/null.json" 2>"$T/err"
check "report html: 'differs: engine' and the list of what differs" \
	bash -c "grep -q 'differs: engine' '$T/cmp.html' && grep -q '<pre class=\"work\">' '$T/cmp.html'"

# ---------------- compare: each work parameter ----------------
# Copies of the real run, each with one parameter of another value.
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
base = json.load(open(t + '/real.json'))
for name, key, val in [('chunk', 'chunk_bytes', 1 << 20), ('zero', 'data', 'zero'),
                       ('depth', 'iodepth', 32), ('direct', 'cache', 'direct'),
                       ('syscall', 'char_io', 'syscall'), ('jobs', 'jobs', 4),
                       ('same', 'seed', 12345)]:
    d = json.loads(json.dumps(base))
    d['params'][key] = val
    d['setup']['label'] = name
    json.dump(d, open('%s/%s.json' % (t, name), 'w'))
EOF
for spec in "chunk write I/O size" "zero write data" "depth read iodepth" "direct read cache" \
	"syscall putc char-io" "jobs seq-create jobs"; do
	set -- $spec
	name=$1 row=$2 what=${*:3}
	"$FSBENCH" compare -f json -o "$T/w.json" "$T/real.json" "$T/$name.json" 2>"$T/err"
	if pycheck "$T/w.json" '
name, row, what = argv[0], argv[1], argv[2]
rows = {r["id"]: r for r in d["rows"]}
c = rows[row]["cells"][1]
assert c["verdict"] == "different-work" and "ratio" not in c, c
assert c["work_differs"] == [what], c
assert list(rows[row]["work_differs"]) == [what], rows[row]
' "$name" "$row" "$what"; then
		ok "compare: $what differs ($name): no ratio on $row, '$what' named"
	else
		nok "compare: $what differs ($name): no ratio on $row, '$what' named"
	fi
done
"$FSBENCH" compare -f json -o "$T/w.json" "$T/real.json" "$T/same.json" 2>"$T/err"
if pycheck "$T/w.json" '
for r in d["rows"]:
    assert "work_differs" not in r, r
    assert r["cells"][1]["verdict"] in ("same", "faster", "slower"), r
'; then
	ok "compare: the same work (another seed): a ratio and a verdict on every row"
else
	nok "compare: the same work (another seed): a ratio and a verdict on every row"
fi
"$FSBENCH" compare -f json -o "$T/w.json" "$T/real.json" "$T/chunk.json" 2>"$T/err"
check "compare: --chunk applies to the block tests only (putc and seq-create keep their ratio)" \
	pycheck "$T/w.json" '
rows = {r["id"]: r for r in d["rows"]}
for tid in ("putc", "seq-create"):
    assert rows[tid]["cells"][1]["verdict"] != "different-work", rows[tid]
'

# ---------------- bonnie++ 2.00a's per-char tests ----------------
# One bonnie++ 2.00a line (format 1.98): per-char 900 K/sec, block 400000.
printf '%s\n' '1.98,2.00a,b200,1,1700000000,4M,,8192,5,900,99,400000,50,200000,30,950,99,800000,40,5000,60,64,,,,,1000,50,2000,60,3000,70,4000,80,5000,90,6000,99,10ms,20ms,30ms,40ms,50ms,60ms,1ms,2ms,3ms,4ms,5ms,6ms' >"$T/b200.csv"
printf '%s\n' 'b103,4M,950,99,400000,50,200000,30,960,99,800000,40,5000,60,64,1000,50,2000,60,3000,70,4000,80,5000,90,6000,99' >"$T/b103.csv"
"$FSBENCH" compare -f json -o "$T/b.json" "$T/real.json" "$T/b200.csv" "$T/b103.csv" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/b.json" '
rows = {r["id"]: r for r in d["rows"]}
for tid in ("putc",):
    c2, c3 = rows[tid]["cells"][1], rows[tid]["cells"][2]
    assert c2["verdict"] == "different-work" and "ratio" not in c2, c2
    assert c2["work_differs"] == ["char-io"], c2
    assert c3["verdict"] == "single-run" and "ratio" in c3, c3
    assert rows[tid]["work_differs"]["char-io"] == ["stdio", "syscall", "stdio"], rows[tid]
# The same 8 KiB chunk: block write keeps its ratio.
assert rows["write"]["cells"][1]["verdict"] == "single-run", rows["write"]
'; then
	ok "compare fsbench, bonnie++ 2.00a, 1.03: 2.00a's one-byte syscalls get no ratio beside putc; 1.03's putc does"
else
	nok "compare fsbench, bonnie++ 2.00a, 1.03: 2.00a's one-byte syscalls get no ratio beside putc; 1.03's putc does (exit $rc)"
	diag "$T/err"
fi
"$FSBENCH" run --size 4m --char-size 256k --repeat 1 --min-time 0.02 --quiet --tests putc,getc \
	--char-io syscall -f bonnie++ -o "$T/sys.bpp" "$T/d" 2>"$T/err"
check "bonnie++ view: the Per Chr columns name their call (stdio putc/getc, write/read)" \
	bash -c "grep -q '^                    -Chr putc --Block-- -Rewrite- -Chr getc --Block-- --Seeks--\$' '$T/null2.bonnie++' &&
		grep -q '^                    Chr write --Block-- -Rewrite- -Chr read --Block-- --Seeks--\$' '$T/sys.bpp'"

# ---------------- fio: a warm-up job and its repeats ----------------
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
def side(bw):
    return {"io_bytes": 4194304, "bw_bytes": bw, "bw": bw // 1024, "iops": bw / 1048576.0,
            "runtime": 10, "total_ios": 4,
            "clat_ns": {"min": 1, "max": 9, "mean": 1, "stddev": 0, "N": 4,
                        "percentile": {"50.000000": 5, "99.000000": 8, "99.900000": 9}}}
idle = {"io_bytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0, "total_ios": 0}
def job(name, bs, bw):
    return {"jobname": name, "groupid": 0, "error": 0,
            "job options": {"rw": "write", "bs": bs}, "read": idle, "write": side(bw),
            "trim": idle, "usr_cpu": 1.0, "sys_cpu": 2.0}
doc = {"fio version": "fio-3.33", "time": "Thu Dec  3 07:00:00 2026",
       "global options": {"size": "4m", "ioengine": "psync"},
       "jobs": [job("warmup", "1m", 100 << 20), job("rep1", "1m", 300 << 20),
                job("rep2", "1m", 200 << 20), job("small", "8k", 50 << 20)]}
json.dump(doc, open(t + '/fio.json', 'w'))
EOF
"$FSBENCH" compare -f json -o "$T/f.json" "$T/fio.json" "$T/real.json" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/f.json" '
rows = {r["id"]: r for r in d["rows"]}
w = rows["write"]["cells"][0]
assert w["runs"] == 3 and w["median"] == 200 << 20 and w["min"] == 100 << 20 and w["max"] == 300 << 20, w
assert not any(r["id"].startswith("fio:rep") for r in d["rows"]), [r["id"] for r in d["rows"]]
assert "fio:small:write" in rows, [r["id"] for r in d["rows"]]
# 1 MiB jobs beside an 8 KiB chunk: different work, no ratio.
c = rows["write"]["cells"][1]
assert c["verdict"] == "different-work" and "I/O size" in c["work_differs"] and "ratio" not in c, c
assert rows["write"]["work_differs"]["I/O size"][0] == "1.0 MiB", rows["write"]
'; then
	ok "fio import: warm-up and repeats one row of 3 runs, bs=8k apart; 1 MiB beside 8 KiB: no ratio"
else
	nok "fio import: warm-up and repeats one row of 3 runs, bs=8k apart; 1 MiB beside 8 KiB: no ratio (exit $rc)"
	diag "$T/err"
fi
"$FSBENCH" compare "$T/fio.json" "$T/real.json" >"$T/f.txt" 2>"$T/err"
check "compare text: 'I/O size 1.0 MiB (fio.json), 8.0 KiB (real)' under the table" \
	grep -q '^  write: I/O size 1.0 MiB (fio.json), 8.0 KiB (real)' "$T/f.txt"

# A fio file records no host: beside fsbench's, no "different hosts".
"$FSBENCH" report -o "$T/fh.html" "$T/real.json" "$T/fio.json" 2>"$T/err"
check "html report with a fio input: no 'different hosts', the host not recorded said" \
	bash -c "! grep -q 'different hosts' '$T/fh.html' && grep -q 'Some inputs record no host' '$T/fh.html'"

# ---------------- fio's flushes: end_fsync is other work ----------------
# fsbench's writing tests fsync before the clock stops; a fio job without
# end_fsync (fsync=, fdatasync=) measured none: no ratio across it. Two
# fio files of one job, with and without end_fsync, the same bs.
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
d = json.load(open(t + '/fio.json'))
d["jobs"] = [d["jobs"][0]]
json.dump(d, open(t + '/nofs.json', 'w'))
d["global options"]["end_fsync"] = "1"
json.dump(d, open(t + '/endfs.json', 'w'))
EOF
"$FSBENCH" compare -f json -o "$T/fs.json" "$T/nofs.json" "$T/endfs.json" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/fs.json" '
w = {r["id"]: r for r in d["rows"]}["write"]
c = w["cells"][1]
assert c["verdict"] == "different-work" and "fsync" in c["work_differs"] and "ratio" not in c, c
assert w["work_differs"]["fsync"] == ["none", "at the end"], w["work_differs"]
'; then
	ok "fio import: end_fsync against none is other work: no ratio, 'fsync' named"
else
	nok "fio import: end_fsync against none is other work (exit $rc)"; diag "$T/err"
fi

# ---------------- the null engine takes no space ----------------
# Nothing is written through it: a --size far over the free space runs,
# nothing is cut short by free space, no data pattern is claimed.
if is_root && mkdir "$T/small" && mount_tmpfs "$T/small" size=8m; then
	"$FSBENCH" run --engine null --size 64m --files 0 --repeat 2 \
		--min-time 0.02 --quiet --tests write,rewrite,read,seeks,randread \
		-o "$T/ns.txt" "$T/small" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && ! grep -q "cut short by free space\|^Data written\|of the device" "$T/ns.txt" &&
		[ "$(du -sk "$T/small" | cut -f1)" -lt 1024 ]; then
		ok "null engine: --size 64m on an 8 MiB tmpfs runs, nothing cut by space, no data claimed"
	else
		nok "null engine: --size 64m on an 8 MiB tmpfs runs, nothing cut by space, no data claimed (exit $rc)"
		diag "$T/err"; diag "$T/ns.txt"
	fi
else
	skip "null engine on a small tmpfs" "needs root (a tmpfs mount)"
fi

done_testing
