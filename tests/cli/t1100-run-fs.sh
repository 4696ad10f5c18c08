#!/bin/bash
# fsbench run: every throughput test on tmpfs and on ext4 on a loop device
# this script makes; cache modes, --char-io syscall, every view (the CSV
# through bonnie++'s own bon_csv2txt/bon_csv2html), ENOSPC. Root only for
# the mounts; without root those parts are skipped.
. "$(dirname "$0")/lib.sh"

tmpdir T || exit 1

# Every figure of the throughput suite present, > 0, with its runs and latency.
ALL_FIGURES='
want = ["putc", "write", "rewrite", "getc", "read", "seeks"]
ids = [t["id"] for t in d["tests"]]
assert sorted(ids) == sorted(want), ids
for t in d["tests"]:
    i = t["id"]
    for k in ("median", "min", "max", "cpu_pct", "work"):
        assert t[k] > 0, (i, k, t[k])
    assert len(t["runs"]) == d["params"]["repeat"] and min(t["runs"]) > 0, (i, t["runs"])
    assert t["min"] <= t["median"] <= t["max"], (i, t["min"], t["median"], t["max"])
    assert "cv" in t and t["cv"] >= 0, (i, "cv")
    lat = t["latency_us"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"], (i, lat)
'

# run_json NAME DIR ARGS...: fsbench run ... -f json -o $T/NAME.json DIR;
# one TAP line for exit 0 and no scratch entry left behind.
run_json() {
	local name=$1 dir=$2 rc; shift 2
	"$FSBENCH" run --quiet "$@" --format json -o "$T/$name.json" "$dir" 2>"$T/$name.err"; rc=$?
	if [ $rc -eq 0 ] && no_scratch_left "$dir"; then
		ok "$name: fsbench run $* exits 0, no scratch left"
	else
		nok "$name: fsbench run $* exits 0, no scratch left (exit $rc)"; diag "$T/$name.err"
		return 1
	fi
}

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
SMALL=(--size 32m --repeat 2 --min-time 0.1 --tests throughput)

# ---------------- tmpfs (a plain temp dir when not root) ----------------
TMPFS=$T/tmpfs
mkdir "$TMPFS" || exit 1
if is_root; then
	mount_tmpfs "$TMPFS" size=256m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
	FSTYPE=tmpfs
else
	FSTYPE=$(findmnt -n -o FSTYPE -T "$TMPFS")
fi

if run_json "$FSTYPE" "$TMPFS" "${SMALL[@]}"; then
	check "$FSTYPE: every figure present and > 0" pycheck "$T/$FSTYPE.json" "$ALL_FIGURES"
	check "$FSTYPE: setup names $FSTYPE, params echo the options" pycheck "$T/$FSTYPE.json" '
assert d["setup"]["fs_type"] == argv[0], (d["setup"], argv[0])
p = d["params"]
assert p["size_bytes"] == 32 << 20 and p["repeat"] == 2 and p["cache"] == "drop", p
assert p["char_io"] == "stdio", p["char_io"]
' "$FSTYPE"
	check "$FSTYPE: block tests did at least --size of work, in whole chunks" pycheck "$T/$FSTYPE.json" '
for t in d["tests"]:
    if t["id"] in ("write", "rewrite", "read"):
        assert t["work"] >= 32 << 20 and t["work"] % 8192 == 0, (t["id"], t["work"])
'
	# A file under 512 MiB would go over a CPU cache again: no passes (and
	# one under half of that is not made 512 MiB first).
	check "$FSTYPE: a 32 MiB block file is gone over once a run (no file_bytes)" \
		pycheck "$T/$FSTYPE.json" '
assert not [t["id"] for t in d["tests"] if "file_bytes" in t], d["tests"]
'
fi
empty_dir "$TMPFS" && ok "$FSTYPE: empty after the run" || nok "$FSTYPE: empty after the run"
# O_DIRECT on memory storage bypasses no cache: the text view says so.
if [ "$FSTYPE" = tmpfs ]; then
	"$FSBENCH" run --quiet --size 8m --files 0 --tests read --repeat 1 --min-time 0.01 \
		--cache direct "$TMPFS" >"$T/direct.txt" 2>"$T/direct.err"
	check "tmpfs, --cache direct: 'the storage is memory', not 'page cache bypassed'" \
		bash -c "grep -q '^Cache mode direct (O_DIRECT; the storage is memory' '$T/direct.txt' &&
			! grep -q 'page cache bypassed' '$T/direct.txt'"
fi

# --char-io syscall --char-size 64k: one-byte syscalls, exactly 64 KiB.
if run_json syscall "$TMPFS" --size 8m --repeat 2 --min-time 0.05 --tests putc,getc \
	--char-io syscall --char-size 64k; then
	check "--char-io syscall --char-size 64k: putc and getc did exactly 64 KiB, > 0 B/s" \
		pycheck "$T/syscall.json" '
assert d["params"]["char_io"] == "syscall", d["params"]["char_io"]
assert d["params"]["char_size_bytes"] == 65536, d["params"]["char_size_bytes"]
ids = [t["id"] for t in d["tests"]]
assert ids == ["putc", "getc"], ids
for t in d["tests"]:
    assert t["work"] == 65536 and t["median"] > 0 and len(t["runs"]) == 2, (t["id"], t["work"], t["median"])
'
fi

# ---------------- views ----------------
# One small run per view, all with a label the view must show.
view() {
	local fmt=$1 rc
	"$FSBENCH" run --quiet --size 8m --repeat 1 --min-time 0.02 --tests throughput \
		--label "lbl-$fmt" --format "$fmt" "$TMPFS" >"$T/view.$fmt" 2>"$T/view.$fmt.err"; rc=$?
	# (Warnings are --quiet's business, checked below; nothing else on stderr.)
	if [ $rc -eq 0 ] && ! grep -qv '^fsbench: warning: ' "$T/view.$fmt.err" &&
		grep -qF "lbl-$fmt" "$T/view.$fmt" && ! grep -qF '+++' "$T/view.$fmt"; then
		ok "--format $fmt: exit 0, shows the label, no '+++++'"
	else
		nok "--format $fmt: exit 0, shows the label, no '+++++' (exit $rc)"
		diag "$T/view.$fmt.err"; diag "$T/view.$fmt"
		return 1
	fi
}
view text
view bonnie
view bonnie++
if view csv; then
	check "csv: one line of 50 fields, 1.98, label, every throughput figure a number" python3 - "$T/view.csv" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
try:
    assert len(lines) == 1, "%d lines" % len(lines)
    f = lines[0].split(",")
    assert len(f) == 50, "%d fields" % len(f)
    assert f[0] == "1.98" and f[2] == "lbl-csv", f[:3]
    assert re.fullmatch(r"[0-9]+[KMGT]?", f[5]), ("size", f[5])
    for i in range(9, 21):
        assert re.fullmatch(r"[0-9]+(\.[0-9]+)?", f[i]), (i, f[i])
    for i in (9, 11, 13, 15, 17, 19):
        assert float(f[i]) > 0, (i, f[i])
    for i in range(38, 44):
        assert re.fullmatch(r"[0-9]+(us|ms|s)", f[i]), (i, f[i])
except AssertionError as e:
    print("#   " + str(e)); sys.exit(1)
EOF
	bon_csv2txt <"$T/view.csv" >"$T/csv2txt.out" 2>"$T/csv2txt.err"; rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/csv2txt.err" ] && grep -q '^lbl-csv ' "$T/csv2txt.out" &&
		[ "$(grep -c '^Latency ' "$T/csv2txt.out")" -eq 1 ]; then
		ok "bon_csv2txt reads the CSV: exit 0, no stderr, shows the row"
	else
		nok "bon_csv2txt reads the CSV (exit $rc)"; diag "$T/csv2txt.err"; diag "$T/csv2txt.out"
	fi
	bon_csv2html <"$T/view.csv" >"$T/csv2html.out" 2>"$T/csv2html.err"; rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/csv2html.err" ] && grep -qF lbl-csv "$T/csv2html.out" &&
		grep -qi '<table' "$T/csv2html.out"; then
		ok "bon_csv2html reads the CSV: exit 0, no stderr, a table with the row"
	else
		nok "bon_csv2html reads the CSV (exit $rc)"; diag "$T/csv2html.err"
	fi
	# The bonnie++ view ends with the same kind of CSV line.
	# (bon_csv2txt shows the first 8 characters of a name.)
	if tail -n 1 "$T/view.bonnie++" | bon_csv2txt >"$T/csv2txt2.out" 2>"$T/csv2txt2.err" &&
		[ ! -s "$T/csv2txt2.err" ] && grep -q '^lbl-bonn' "$T/csv2txt2.out" &&
		tail -n 1 "$T/view.bonnie++" | grep -q '^1\.98,[^,]*,lbl-bonnie++,'; then
		ok "bonnie++ view: its last line is a CSV line bon_csv2txt reads"
	else
		nok "bonnie++ view: its last line is a CSV line bon_csv2txt reads"; diag "$T/csv2txt2.err"
		diag "$T/csv2txt2.out"
	fi
fi
empty_dir "$TMPFS" && ok "$FSTYPE: empty after the view runs" || nok "$FSTYPE: empty after the view runs"

if ! is_root; then
	skip "ENOSPC" "needs root (tmpfs mounts)"
	skip "ext4" "needs root (loop device, mount)"
	done_testing
	exit 0
fi

# ---------------- ENOSPC ----------------
SMALLFS=$T/small
mkdir "$SMALLFS" && mount_tmpfs "$SMALLFS" size=8m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
"$FSBENCH" run --size 64m --tests throughput "$SMALLFS" >"$T/out" 2>"$T/err"; rc=$?
why=""
[ $rc -eq 1 ] || why="$why exit $rc, want 1;"
one_line "$T/err" || why="$why not one 'fsbench: ' line;"
grep -Eq 'fsbench: (putc|write|rewrite|getc|read|seeks)\b' "$T/err" || why="$why no test named;"
grep -Eq '64(\.0)? ?MiB|67108864' "$T/err" || why="$why space needed (64 MiB) not given;"
empty_dir "$SMALLFS" || why="$why tmpfs not empty: $(ls -A "$SMALLFS");"
[ -z "$why" ] && ok "ENOSPC up front: 8 MiB tmpfs, --size 64m: exit 1, one line, test and space named, nothing left" ||
	{ nok "ENOSPC up front ($why)"; diag "$T/err"; }

# A file set of the user's (--files N:max, x jobs) that cannot fit is
# refused up front too, not by ENOSPC in the middle of seq-create.
"$FSBENCH" run --files 8:1m --tests files --jobs 2 "$SMALLFS" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$T/err" && empty_dir "$SMALLFS" &&
	grep -q "^fsbench: seq-create: needs .* for --files: 8 files of up to 1.0 MiB x 2 jobs.*(use a smaller --files or --jobs)" "$T/err"; then
	ok "ENOSPC up front: --files 8:1m x 2 jobs on 8 MiB: exit 1, one line naming --files, nothing left"
else
	nok "ENOSPC up front: --files 8:1m x 2 jobs on 8 MiB (exit $rc)"; diag "$T/err"
fi

# Auto --char-size never asks for more than the free space.
"$FSBENCH" run --quiet --size 64m --tests putc,getc --repeat 2 --min-time 0.05 --format json \
	-o "$T/smallchar.json" "$SMALLFS" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/smallchar.json" '
for t in d["tests"]:
    assert 0 < t["work"] <= 8 << 20 and t["median"] > 0, (t["id"], t["work"])
'; then
	ok "per-char tests alone on an 8 MiB tmpfs fit in the free space"
else
	nok "per-char tests alone on an 8 MiB tmpfs fit in the free space (exit $rc)"; diag "$T/err"
fi
[ ! -s "$T/err" ] && ok "--quiet: no warning on stderr (short runs at the largest work)" ||
	{ nok "--quiet: no warning on stderr (short runs at the largest work)"; diag "$T/err"; }
# Block tests that grow up to the free space still do whole chunks.
"$FSBENCH" run --quiet --size 1m --tests write,rewrite,read --repeat 1 --min-time 2 --format json \
	-o "$T/smallblock.json" "$SMALLFS" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/smallblock.json" '
for t in d["tests"]:
    assert 1 << 20 <= t["work"] <= 8 << 20, (t["id"], t["work"])
    assert t["work"] % 8192 == 0, (t["id"], "work", t["work"], "is not whole 8 KiB chunks")
'; then
	ok "block tests grown to the free space of an 8 MiB tmpfs do whole chunks"
else
	nok "block tests grown to the free space of an 8 MiB tmpfs do whole chunks (exit $rc)"; diag "$T/err"
fi
empty_dir "$SMALLFS" && ok "small tmpfs empty afterwards" || nok "small tmpfs empty afterwards"

# ENOSPC during a run: something else fills the filesystem while the
# write test runs. The run must fail with one line naming the test and
# remove its scratch directory.
MIDFS=$T/mid
mkdir "$MIDFS" && mount_tmpfs "$MIDFS" size=64m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
mkdir "$MIDFS/other"
"$FSBENCH" run --size 32m --tests write --repeat 1000 --min-time 0.02 "$MIDFS" \
	>"$T/out" 2>"$T/err" &
pid=$!
# Once the write test is writing, grab every free block, again and again,
# until fsbench gives up.
for _ in $(seq 100); do
	compgen -G "$MIDFS/fsbench.*/*" >/dev/null && break
	sleep 0.05
done
for _ in $(seq 200); do
	kill -0 $pid 2>/dev/null || break
	dd if=/dev/zero bs=64k count=1024 2>/dev/null >>"$MIDFS/other/fill"
	sleep 0.05
done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; echo "# fsbench still running after the fill: killed"; }
wait $pid; rc=$?
rm -rf "$MIDFS/other"
why=""
[ $rc -eq 1 ] || why="$why exit $rc, want 1;"
one_line "$T/err" || why="$why not one 'fsbench: ' line;"
grep -q '^fsbench: write: ' "$T/err" || why="$why test not named;"
grep -q 'No space left on device' "$T/err" || why="$why no ENOSPC;"
grep -Eq 'needs [0-9.]+ ?[KMG]iB' "$T/err" || why="$why space needed not given;"
empty_dir "$MIDFS" || why="$why left: $(ls -A "$MIDFS");"
[ -z "$why" ] && ok "ENOSPC mid-run: exit 1, one line naming write and the space, scratch removed" ||
	{ nok "ENOSPC mid-run ($why)"; diag "$T/err"; }

# ---------------- passes over a file in memory ----------------
# On tmpfs the page cache is the storage: rewrite, read and seeks go over a
# block file of 512 MiB or more again instead of growing it. Every chunk
# read, in every pass, is verified. psync does 512 MiB in about 0.15 s
# here; io_uring at depth 8 (tmpfs's buffered I/O through the kernel's
# workers, about 0.5 GB/s here) with --min-time 2, so that one pass is
# short of it as well: a rewrite or seeker pass starts when the last one's
# I/Os are done.
PASSES='
ids = [t["id"] for t in d["tests"]]
assert ids == ["rewrite", "read", "seeks"], ids
for t in d["tests"]:
    assert t.get("file_bytes") == 512 << 20, (t["id"], t.get("file_bytes"))
    assert t["median"] > 0 and len(t["runs"]) == int(argv[0]), (t["id"], t["runs"])
    if t["id"] == "seeks":
        assert t["work"] > (512 << 20) // 8192 // 3 * 3, ("seeks", t["work"])
    else:
        assert t["work"] > 512 << 20 and t["work"] % 8192 == 0, (t["id"], t["work"])
'
PASSFS=$T/pass
mkdir "$PASSFS" && mount_tmpfs "$PASSFS" size=1280m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
# --min-time 2: one psync pass of 512 MiB must be shorter than the minimum
# for passes to happen, and 0.5 s is not on a loaded machine.
"$FSBENCH" run --size 512m --tests rewrite,read,seeks --repeat 2 --min-time 2 --seekers 3 --progress never \
	"$PASSFS" >"$T/passes.txt" 2>"$T/passes.err"; rc=$?
if [ $rc -eq 0 ] && grep -q '^Runs went over their file again, pass after pass' "$T/passes.txt" &&
	grep -Eq '^  rewrite over 512(\.0)? MiB,$' "$T/passes.txt" &&
	grep -Eq '^  read over 512(\.0)? MiB,$' "$T/passes.txt" &&
	grep -Eq '^  seeks over 512(\.0)? MiB\.$' "$T/passes.txt" &&
	grep -Eq '^  - rewrite, read, seeks went over their file again, pass after pass, .*\(file_bytes: rewrite 512\.0 MiB, read 512\.0 MiB, seeks 512\.0 MiB\)$' \
		"$T/passes.txt"; then
	ok "tmpfs, psync: the text view and its caveats say rewrite, read and seeks went over the 512 MiB file again"
else
	nok "tmpfs, psync: the text view and its caveats say rewrite, read and seeks went over the 512 MiB file again (exit $rc)"
	diag "$T/passes.txt"; diag "$T/passes.err"
fi
if run_json passes-uring "$PASSFS" --size 512m --tests rewrite,read,seeks --repeat 1 \
	--min-time 2 --engine io_uring --iodepth 8 --seekers 3; then
	check "tmpfs, io_uring at depth 8: the same passes, every chunk verified" \
		pycheck "$T/passes-uring.json" "$PASSES" 1
fi
# A --size the user gave is the file, used exactly (issue 26): read's
# 64 MiB file is not grown to the space's cap to reach --min-time 6 (as
# it was before a given size was exact); its runs are short of
# --min-time and say so (short_reason "given"), and each is one pass.
"$FSBENCH" run --size 64m --tests read --repeat 1 --min-time 6 --format json \
	-o "$T/passes-cap.json" "$PASSFS" 2>"$T/passes-cap.err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/passes-cap.json" '
t = d["tests"][0]
assert t["work"] == 64 << 20 and "file_bytes" not in t, (t.get("file_bytes"), t["work"])
assert t.get("short_reason") == "given", t.get("short_reason")
assert t["chosen"]["how"] == "given", t.get("chosen")
'; then
	ok "tmpfs: read of a given 64 MiB is not grown to the space's cap, its short runs say why"
else
	nok "tmpfs: read of a given 64 MiB is not grown to the space's cap, its short runs say why (exit $rc)"
	diag "$T/passes-cap.err"
fi
# Seeks in passes have no limit but time: the default --seeks (8192,
# sized for 8 KiB chunks) starts at every chunk once, as elsewhere, not
# at 8192 chunks of 64 MiB (runs of 80 s here).
timeout 60 "$FSBENCH" run --size 512m --chunk 64m --tests seeks --repeat 1 --format json \
	-o "$T/passes-seeks.json" "$PASSFS" 2>"$T/passes-seeks.err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/passes-seeks.json" '
t = d["tests"][0]
assert t["work"] < 8192 and t["elapsed_s"] < 5, (t["work"], t["elapsed_s"])
'; then
	ok "tmpfs: seeks of 64 MiB chunks start at every chunk once, not at the default 8192"
else
	nok "tmpfs: seeks of 64 MiB chunks start at every chunk once, not at the default 8192 (exit $rc)"
	diag "$T/passes-seeks.err"
fi
# getc too, over char.dat made 512 MiB: putc grows it to the space's cap
# on a tmpfs of 900 MiB (about 425 MiB: the sanitized build's putc does
# 210 MB/s here, short of --min-time 5), and getc's setup makes it 512
# MiB (a file of half that or more is), untimed. Its open first attempt
# then reads on, pass after pass, every byte checked, until 1.2 x
# --min-time (about twice the file at the sanitized build's 190 MB/s, so
# a loaded machine still goes past it): the series' one run.
CHARFS=$T/charpass
mkdir "$CHARFS" && mount_tmpfs "$CHARFS" size=900m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
"$FSBENCH" run --tests putc,getc --repeat 1 --min-time 5 --progress never --format json \
	-o "$T/passes-getc.json" "$CHARFS" 2>"$T/passes-getc.err"; rc=$?
# How far putc grows in 5 s is the machine's speed: under 256 MiB (a
# loaded machine) getc has no file of half 512 MiB to make whole.
grown=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["tests"][0]["work"] >> 20)' \
	"$T/passes-getc.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$grown" ] && [ "$grown" -lt 256 ]; then
	skip "tmpfs: getc makes putc's char.dat 512 MiB" "putc grew to only $grown MiB in 5 s here"
elif [ $rc -eq 0 ] && pycheck "$T/passes-getc.json" '
p, g = d["tests"]
assert p["id"] == "putc" and g["id"] == "getc", (p["id"], g["id"])
assert "file_bytes" not in p, p["file_bytes"]
assert 256 << 20 <= p["work"] < 512 << 20, p["work"]
assert g.get("file_bytes") == 512 << 20, g.get("file_bytes")
assert g["work"] > g["file_bytes"] and len(g["runs"]) == 1 and g["median"] > 0, g
assert 5.8 < g["elapsed_s"] < 15, g["elapsed_s"]
'; then
	ok "tmpfs: getc makes putc's char.dat of 256-512 MiB 512 MiB and goes over it again, its open first run kept"
else
	nok "tmpfs: getc makes putc's char.dat of 256-512 MiB 512 MiB and goes over it again, its open first run kept (exit $rc)"
	diag "$T/passes-getc.err"
fi
empty_dir "$CHARFS" && ok "tmpfs for getc's passes empty afterwards" ||
	nok "tmpfs for getc's passes empty afterwards"
empty_dir "$PASSFS" && ok "tmpfs for passes empty afterwards" || nok "tmpfs for passes empty afterwards"

# ---------------- ext4 on a loop device ----------------
if ! command -v mkfs.ext4 >/dev/null || ! make_fs ext4 256M; then
	skip "ext4" "cannot make ext4 on a loop device"
	done_testing
	exit 0
fi
if run_json ext4 "$FS_MNT" "${SMALL[@]}"; then
	check "ext4: every figure present and > 0" pycheck "$T/ext4.json" "$ALL_FIGURES"
	check "ext4: setup.fs_type is ext4, setup.device is the loop device" pycheck "$T/ext4.json" '
assert d["setup"]["fs_type"] == "ext4", d["setup"]
assert d["setup"]["device"] == argv[0], (d["setup"].get("device"), argv[0])
' "$FS_DEV"
	check "ext4: device bytes for every test; write wrote >= its work to the device" \
		pycheck "$T/ext4.json" '
t = {t["id"]: t for t in d["tests"]}
for i, x in t.items():
    assert "device" in x, (i, "no device bytes")
w = t["write"]
assert w["device"]["write_bytes"] > 0, w["device"]
assert w["device"]["write_bytes"] >= w["work"], ("write", w["device"], w["work"])
assert t["rewrite"]["device"]["write_bytes"] >= t["rewrite"]["work"], t["rewrite"]["device"]
assert t["putc"]["device"]["write_bytes"] >= t["putc"]["work"], t["putc"]["device"]
assert w.get("write_amplification", 0) >= 1.0, w.get("write_amplification")
'
	# --cache drop: the reads must really come from the device.
	check "ext4 --cache drop: read and getc fetched their data from the device" \
		pycheck "$T/ext4.json" '
for t in d["tests"]:
    if t["id"] in ("read", "getc"):
        assert t["device"]["read_bytes"] >= 0.9 * t["work"], (t["id"], t["device"], t["work"])
'
fi
if run_json ext4-direct "$FS_MNT" "${SMALL[@]}" --cache direct; then
	check "ext4 --cache direct: every figure present and > 0" pycheck "$T/ext4-direct.json" "$ALL_FIGURES"
	check "ext4 --cache direct: mode recorded, block read and write all at the device" \
		pycheck "$T/ext4-direct.json" '
assert d["params"]["cache"] == "direct", d["params"]["cache"]
t = {t["id"]: t for t in d["tests"]}
assert t["read"]["device"]["read_bytes"] >= t["read"]["work"], t["read"]
assert t["write"]["device"]["write_bytes"] >= t["write"]["work"], t["write"]
'
fi
if run_json ext4-syscall "$FS_MNT" --size 8m --repeat 2 --min-time 0.05 --tests putc,getc \
	--char-io syscall --char-size 64k; then
	check "ext4 --char-io syscall --char-size 64k: 64 KiB each, > 0" pycheck "$T/ext4-syscall.json" '
for t in d["tests"]:
    assert t["work"] == 65536 and t["median"] > 0, (t["id"], t["work"], t["median"])
'
fi
# Only lost+found remains.
[ "$(ls -A "$FS_MNT")" = "lost+found" ] && ok "ext4: nothing left but lost+found" ||
	{ nok "ext4: nothing left but lost+found"; ls -A "$FS_MNT" | sed 's/^/#   /'; }

done_testing
