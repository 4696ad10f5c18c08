#!/bin/bash
# fsbench run, metadata suite: the six file tests on tmpfs and on ext4 and
# xfs on loop devices this script makes (all six figures in JSON, > 0);
# files with data read back and verified; --links hard and soft; --sync;
# a test alone; bon_csv2txt rendering the full CSV line (throughput and
# metadata); inode exhaustion (one-line error, exit 1, nothing left);
# SIGINT during create and during delete (nothing left); --files 0 skips
# the suite; malformed specs exit 2. Without root the mounts are skipped and
# the rest runs in a temp dir on /dev/shm (tmpfs) when there is one.
. "$(dirname "$0")/lib.sh"

IDS="seq-create seq-stat seq-delete rand-create rand-stat rand-delete"

# The six figures are there, in order, each > 0 ops/s, with work >= MIN.
SIX='
ids = [t["id"] for t in d["tests"]]
want = ["seq-create", "seq-stat", "seq-delete", "rand-create", "rand-stat", "rand-delete"]
assert ids == want, "tests %s" % ids
for t in d["tests"]:
    assert t["unit"] == "ops/s", "%s unit %s" % (t["id"], t["unit"])
    assert t["median"] > 0 and t["min"] > 0, "%s median %s" % (t["id"], t["median"])
    assert len(t["runs"]) == int(argv[0]), "%s runs %s" % (t["id"], t["runs"])
    assert t["work"] >= int(argv[1]), "%s work %s" % (t["id"], t["work"])
    assert t["latency_us"]["max"] > 0, "%s latency %s" % (t["id"], t["latency_us"])
'
QUICK=(--repeat 2 --min-time 0.05 --progress never)

# suite_on LABEL DIR ARGS...: run --tests files in DIR; six figures, exit 0,
# DIR left as it was (empty).
suite_on() {
	local label=$1 dir=$2 rc
	shift 2
	"$FSBENCH" run --tests files "${QUICK[@]}" --format json -o "$T/$label.json" "$@" \
		"$dir" >"$T/out" 2>"$T/err"
	rc=$?
	# Warm stat tests (no global cache drop) may outrun the inodes a small
	# filesystem has before --min-time: that is a caveat said, not noise.
	grep -v 'under --min-time, at the largest work the free space allows' "$T/err" \
		>"$T/err.other"
	if [ $rc -eq 0 ] && [ ! -s "$T/err.other" ]; then
		ok "$label: --tests files $* exits 0, quietly"
	else
		nok "$label: --tests files $* exits 0, quietly (exit $rc)"; diag "$T/err"
		return
	fi
	check "$label: all six figures present and > 0" pycheck "$T/$label.json" "$SIX" 2 \
		"${MINWORK:-1}"
	check "$label: the directory is left empty" empty_dir "$dir"
}

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1

# Where the unprivileged cases run: a tmpfs when we can have one.
D=$T/fs
mkdir "$D"
if is_root; then
	mount_tmpfs "$D" size=512m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
	tmpdir D /dev/shm || exit 1
fi

# --- usage errors ------------------------------------------------------------
for spec in 16k:1k:4k -5 abc 16x 1:2:3:4:5 16k: 10000000 16k:4k:1k:100000 ""; do
	"$FSBENCH" run --tests files --files "$spec" "$D" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- '--files' "$T/err"; then
		ok "--files '$spec' is a usage error naming --files (exit 2)"
	else
		nok "--files '$spec' is a usage error naming --files (exit $rc)"; diag "$T/err"
	fi
done
check "usage errors leave nothing behind" empty_dir "$D"

# --- --files 0 skips the suite -----------------------------------------------
expect_exit 0 "--files 0 with another test runs only that test" \
	"$FSBENCH" run --tests null,files --files 0 "${QUICK[@]}" --format json \
	-o "$T/zero.json" "$D"
check "--files 0: no file test in the report" pycheck "$T/zero.json" \
	'ids = [t["id"] for t in d["tests"]]; assert ids == ["null"], ids'

# --- the suite, the data, links, sync, a test alone (tmpfs or /dev/shm) --------
suite_on plain "$D" --files 1k
MINWORK=2048 suite_on data "$D" --files 2k:4k:1k:4
check "data: the report keeps the spec" pycheck "$T/data.json" '
p = d["params"]
assert (p["files"], p["file_max_bytes"], p["file_min_bytes"], p["file_dirs"]) == (2048, 4096, 1024, 4), p'
suite_on hard "$D" --files 1k --links hard
suite_on soft "$D" --files 1k:0:0:3 --links soft
suite_on sync "$D" --files 300:1k --sync
check "sync: the report says --sync" pycheck "$T/sync.json" 'assert d["params"]["sync"] in (True, 1), d["params"]'
for t in seq-stat rand-delete; do
	"$FSBENCH" run --tests $t --files 1k:512 "${QUICK[@]}" --format json -o "$T/alone.json" \
		"$D" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && pycheck "$T/alone.json" \
		'assert [t["id"] for t in d["tests"]] == [argv[0]] and d["tests"][0]["median"] > 0' $t; then
		ok "--tests $t alone makes its own file set"
	else
		nok "--tests $t alone makes its own file set (exit $rc)"; diag "$T/err"
	fi
done
check "tests alone leave the directory empty" empty_dir "$D"

# --- the CSV line through bonnie++'s own renderer --------------------------------
if command -v bon_csv2txt >/dev/null; then
	"$FSBENCH" run --tests putc,write,rewrite,getc,read,seeks,files --size 16m --seeks 512 \
		--files 1k "${QUICK[@]}" --format csv -o "$T/line.csv" "$D" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "throughput + files suite as CSV exits 0"
	else
		nok "throughput + files suite as CSV exits 0 (exit $rc)"; diag "$T/err"
	fi
	check "CSV: one line of 50 fields, the twelve metadata figures and latencies set" \
		python3 - "$T/line.csv" <<'EOF'
import sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l]
assert len(lines) == 1, lines
f = lines[0].split(",")
assert len(f) == 50, len(f)
assert all(f[i] for i in list(range(26, 38)) + list(range(44, 50))), f[21:]
assert all(f[i].isdigit() for i in range(26, 37, 2)), f[26:38]
assert "+" not in lines[0], lines[0]
EOF
	bon_csv2txt <"$T/line.csv" >"$T/line.txt" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q "Sequential Create" "$T/line.txt" &&
		grep -q "Random Create" "$T/line.txt" && ! grep -q '+++' "$T/line.txt"; then
		ok "bon_csv2txt renders the line, metadata block included, no +++++"
	else
		nok "bon_csv2txt renders the line (exit $rc)"; diag "$T/line.txt"; diag "$T/err"
	fi
else
	skip "bon_csv2txt renders the CSV line" "bon_csv2txt not installed"
fi
check "the CSV run leaves the directory empty" empty_dir "$D"

# --- SIGINT during create and during delete -----------------------------------------
# timed (the progress line, printed only inside a timed run: the test is
# really creating or deleting) and said (stderr without it) on $T/err.
. "$(dirname "$0")/stop-lib.sh"

# sigint_case TEST FILES: SIGINT while TEST runs: exit 130, nothing left.
sigint_case() {
	local test=$1 files=$2 pid rc
	"$FSBENCH" run --tests "$test" --files "$files" --repeat 1 --min-time 60 --progress always \
		"$D" >"$T/out" 2>"$T/err" &
	pid=$!
	if ! wait_for 60 timed "$test"; then
		kill -KILL $pid 2>/dev/null; wait $pid
		nok "SIGINT during $test: never saw it run"; said | sed 's/^/#   /'
		return
	fi
	sleep 0.3
	kill -INT $pid
	wait $pid
	rc=$?
	if [ $rc -eq 130 ]; then
		ok "SIGINT during $test: exit 130"
	else
		nok "SIGINT during $test: exit $rc, want 130"; said | sed 's/^/#   /'
	fi
	check "SIGINT during $test: the directory is left empty" empty_dir "$D"
	if [ -z "$(said | grep -v '^fsbench: ' )" ]; then
		ok "SIGINT during $test: nothing but fsbench: lines on stderr"
	else
		nok "SIGINT during $test: stray stderr"; said | sed 's/^/#   /'
	fi
}
sigint_case seq-create 2m
sigint_case rand-delete 300k

# --- root: tmpfs, ext4 and xfs on loop devices; inode exhaustion --------------------
if is_root; then
	if make_fs ext4 256m; then
		suite_on ext4 "$FS_MNT" --files 1k
		MINWORK=2048 suite_on ext4-data "$FS_MNT" --files 2k:4k:1k:4
		suite_on ext4-hard "$FS_MNT" --files 1k --links hard
	else
		nok "ext4 on a loop device"
	fi
	if make_fs xfs 512m; then
		suite_on xfs "$FS_MNT" --files 1k
		MINWORK=2048 suite_on xfs-data "$FS_MNT" --files 2k:4k:1k:4
		suite_on xfs-soft "$FS_MNT" --files 1k --links soft
	else
		nok "xfs on a loop device"
	fi

	# A tmpfs with 1000 inodes and 5k files asked: ENOSPC mid-create.
	mkdir "$T/small"
	mount_tmpfs "$T/small" size=64m,nr_inodes=1000 || nok "mount a 1000-inode tmpfs"
	"$FSBENCH" run --tests files --files 5k "${QUICK[@]}" "$T/small" >"$T/out" 2>"$T/err"
	rc=$?
	expect_exit 1 "1000 inodes, --files 5k: exit 1" sh -c "exit $rc"
	if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qE \
		"^fsbench: seq-create: cannot create '$T/small/fsbench\.[^']*/files/[0-9]{7}[0-9A-Za-z]*' after [0-9]+ files: No space left on device$" \
		"$T/err"; then
		ok "inode exhaustion: one line naming the test, the file and the count"
	else
		nok "inode exhaustion: one line naming the test, the file and the count"; diag "$T/err"
	fi
	check "inode exhaustion: the directory is left empty" empty_dir "$T/small"
	check "inode exhaustion: every inode is free again" \
		test "$(df --output=iused "$T/small" | tail -1 | tr -d ' ')" -le 1

	# 3000 inodes and --files 2500 asked: they fit (90% of the 2999 free
	# is 2699), so 2500 are made, not cut to whole 1024s (it made 1024).
	mkdir "$T/few"
	mount_tmpfs "$T/few" size=64m,nr_inodes=3000 || nok "mount a 3000-inode tmpfs"
	"$FSBENCH" run --tests seq-create --files 2500 --repeat 1 --min-time 0.001 --quiet \
		--format json -o "$T/few.json" "$T/few" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && pycheck "$T/few.json" \
		'w = d["tests"][0]["work"]; assert w == 2500, "work %d" % w'; then
		ok "3000 inodes, --files 2500: 2500 files made, as asked"
	else
		nok "3000 inodes, --files 2500: 2500 files made, as asked (exit $rc)"; diag "$T/err"
	fi
else
	for what in "ext4 on a loop device" "xfs on a loop device" "inode exhaustion on a small tmpfs" \
		"--files that fits a 3000-inode tmpfs"; do
		skip "$what" "not root"
	done
fi

done_testing
