#!/bin/bash
# The 2009 reference beside a fresh run: the btrfs RAID-1 line of
# docs/references.md section 2 (bonnie++ 1.03c on an SSD, taken from that
# file as published) and a scaled-down copy of
# examples/btrfs-raid1-vs-xfs.ini (the same setups on 320 MiB images,
# --size 16m --files 1k) in one `compare` and one `report`; the page
# checked in headless Chromium (no console errors, every chart present, a
# screenshot in build/test-artifacts/import-reference.png). Needs root,
# btrfs and xfs; the loop devices and images are the matrix's own, made
# and released by it, and only those under this test's directory are
# ever looked at.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chrome-lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
ART=$TOP/build/test-artifacts
REF=$TOP/docs/references.md
EX=$TOP/examples/btrfs-raid1-vs-xfs.ini

# The reference line: the first CSV line of section 2, btrfs RAID-1.
grep -m1 '^sys26,2G,' "$REF" >"$T/reference.csv"
if [ "$(tr -cd , <"$T/reference.csv" | wc -c)" -eq 26 ] &&
	grep -q '^sys26,2G,,,28299,17,18633,12,,,85702,29,3093.9,18,16,7513,99,+++++' "$T/reference.csv"; then
	ok "docs/references.md section 2: the btrfs RAID-1 line, 27 fields of bonnie++ 1.03"
else
	nok "docs/references.md section 2: the btrfs RAID-1 line, 27 fields of bonnie++ 1.03"
	diag "$T/reference.csv"
fi

if ! is_root; then
	skip "the reference beside a fresh matrix run" "needs root (loop devices, mount)"
	done_testing
	exit 0
fi
for fs in btrfs xfs; do
	if ! grep -qw "$fs" /proc/filesystems; then
		skip "the reference beside a fresh matrix run" "no $fs in this kernel"
		done_testing
		exit 0
	fi
	if ! command -v "mkfs.$fs" >/dev/null; then
		skip "the reference beside a fresh matrix run" "no mkfs.$fs"
		done_testing
		exit 0
	fi
done

W=$T/work
mkdir "$W"
export TMPDIR=$T
# Only ours: loop devices backed by a file under $T, mounts under $T.
on_exit release_ours

# The example, scaled down: its setups and mkfs lines as they are, small
# images (xfs wants 300 MiB at least), a short run with two repeats.
python3 - "$EX" "$W" >"$T/small.ini" <<'EOF'
import sys
ex, work = sys.argv[1], sys.argv[2]
for line in open(ex):
    key = line.split('=')[0].strip()
    if key == 'image_size':
        line = 'image_size = 320m\n'
    elif key == 'run':
        line = 'run = --size 16m --files 1k --min-time 0.05 --repeat 2\n'
    elif key == 'fill':
        continue
    print(line, end='')
    if line.strip() == '[global]':
        print('workdir = %s' % work)
EOF
if grep -q '^\[btrfs-raid1\]' "$T/small.ini" && grep -q '^\[xfs\]' "$T/small.ini" &&
	grep -q '^run = --size 16m' "$T/small.ini" &&
	grep -q '^mkfs = mkfs.btrfs -q -f -m raid1 -d raid1 {devs}' "$T/small.ini"; then
	ok "a scaled-down copy of examples/btrfs-raid1-vs-xfs.ini"
else
	nok "a scaled-down copy of examples/btrfs-raid1-vs-xfs.ini"; diag "$T/small.ini"
fi
"$FSBENCH" matrix --progress never --format json -o "$T/matrix.json" "$T/small.ini" \
	>"$T/m.out" 2>"$T/m.err"; rc=$?
if [ $rc -eq 0 ] && [ -z "$(our_mounts)" ] && [ -z "$(our_loops)" ] &&
	[ -z "$(find "$W" -name '*.img')" ]; then
	ok "matrix: btrfs RAID-1 over two loop devices and xfs, nothing left behind"
else
	nok "matrix: btrfs RAID-1 over two loop devices and xfs, nothing left behind (exit $rc)"
	diag "$T/m.err"
	echo "Bail out! no fresh results to put beside the reference"
	exit 1
fi

# ---------------- compare ----------------
"$FSBENCH" compare "$T/reference.csv" "$T/matrix.json" >"$T/cmp.txt" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/err" ] &&
	grep -q "^fsbench compare: 3 inputs, speed relative to 'sys26'" "$T/cmp.txt" &&
	grep -qF "  sys26        imported: bonnie++ 1.03 CSV, line 1 of $T/reference.csv" "$T/cmp.txt" &&
	grep -q '^  btrfs-raid1  ' "$T/cmp.txt" && grep -q '^  xfs  ' "$T/cmp.txt"; then
	ok "compare reference.csv matrix.json: the 2009 line, btrfs-raid1 and xfs"
else
	nok "compare reference.csv matrix.json: the 2009 line, btrfs-raid1 and xfs (exit $rc)"
	diag "$T/err"; diag "$T/cmp.txt"
fi
"$FSBENCH" compare --format json -o "$T/cmp.json" "$T/reference.csv" "$T/matrix.json" 2>"$T/err"
if pycheck "$T/cmp.json" '
labels = [i["label"] for i in d["inputs"]]
assert labels == ["sys26", "btrfs-raid1", "xfs"], labels
rows = {r["id"]: r["cells"] for r in d["rows"]}
# The reference as published: K/sec x 1024, /sec, one run each.
for tid, v in [("write", 28299 * 1024), ("rewrite", 18633 * 1024), ("read", 85702 * 1024),
               ("seeks", 3093.9), ("seq-create", 7513), ("seq-delete", 5140),
               ("rand-create", 3964), ("rand-delete", 5652)]:
    c = rows[tid][0]
    assert abs(c["median"] - v) < 1e-6 * v and c["runs"] == 1, (tid, c)
# Its +++++: not measured, no ratio for anyone against it.
for tid in ("seq-stat", "rand-stat"):
    c = rows[tid]
    assert c[0]["not_measured"] and c[0]["median"] is None, c[0]
    assert all("ratio" not in x and x["verdict"] == "none" for x in c[1:] if x), c
# Its empty per-char fields: absent, not zero.
assert rows["putc"][0] is None and rows["getc"][0] is None, rows["putc"]
# The fresh runs beside it: two runs each, a ratio, never a verdict.
for tid in ("write", "read", "seq-create"):
    for x in rows[tid][1:]:
        assert x["runs"] == 2 and x["verdict"] == "single-run" and not x["significant"], x
'; then
	ok "compare --format json: the reference figures as published, +++++ without ratio"
else
	nok "compare --format json: the reference figures as published, +++++ without ratio"
	diag "$T/err"
fi

# ---------------- report ----------------
H=$T/reference.html
"$FSBENCH" report "$T/reference.csv" "$T/matrix.json" -o "$H" >"$T/out" 2>"$T/err"; rc=$?
nrows=$(json_get "$T/cmp.json" "len(d['rows'])")
if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && [ "$(grep -c '<svg class="chart"' "$H")" -eq "$nrows" ] &&
	grep -qF "bonnie++ 1.03 CSV, line 1 of $T/reference.csv" "$H" &&
	grep -qF '+++++ (under 0.5 s)' "$H"; then
	ok "report reference.csv matrix.json: one chart per row ($nrows), the import marked"
else
	nok "report reference.csv matrix.json: one chart per row ($nrows), the import marked (exit $rc)"
	diag "$T/err"
fi

chrome_or_skip "Chromium's DOM has one svg.chart per row"
chrome_loads "$H"
chrome_charts "Chromium's DOM has one svg.chart per row and no script" "$T/cmp.json"
chrome_shot "$H" import-reference 2400

done_testing
