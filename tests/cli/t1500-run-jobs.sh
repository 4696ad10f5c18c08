#!/bin/bash
# fsbench run --jobs: N copies of each test at once, on tmpfs and (as
# root) on ext4 and xfs over loop devices this script makes: every test
# reports the aggregate (all jobs' work over first start to last end, from
# the run's own start_ns/end_ns) and each job's figures; the views say the
# job count (text, bonnie++, CSV field 3). While a run goes on, each job
# works in its own job-K directory, or with --shared-file on one file, or
# with --shared-dir in one directory with prefixed names. --stonewall and
# --deadline stop the jobs early and say so. Small sizes: this is about
# behaviour, not speed.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1

# The aggregate and the per-job figures of every test, N jobs.
JOBS_FIGURES='
n = int(argv[0])
assert d["params"]["jobs"] == n, d["params"].get("jobs")
assert d["tests"], "no test"
for t in d["tests"]:
    i = t["id"]
    pj = t["per_job"]
    assert pj["jobs"] == n and len(pj["runs"]) == n, (i, pj)
    assert len(pj["cpu_pct"]) == n, i
    assert pj["min"] <= pj["median"] <= pj["max"], (i, pj)
    assert len(t["start_ns"]) == len(t["runs"]) == len(t["end_ns"]), i
    for r, v in enumerate(t["runs"]):
        wall = (t["end_ns"][r] - t["start_ns"][r]) / 1e9
        assert wall > 0, (i, r)
        # The aggregate: n jobs of `work` each over first start to last end.
        agg = n * t["work"] / wall
        assert abs(v - agg) <= 1e-6 * agg, (i, r, v, agg)
        for j in range(n):
            own = pj["runs"][j][r]
            # A job runs inside the run: its own rate is at least its
            # work over the whole run, and it did its share.
            assert own >= t["work"] / wall * (1 - 1e-6), (i, r, j, own, agg)
    assert "stopped_by" not in t, (i, t.get("stopped_by"))
'

# run_json NAME DIR ARGS...: fsbench run ... -f json -o $T/NAME.json DIR.
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

SMALL=(--size 4m --repeat 1 --min-time 0.05 --files 256 --char-size 1m --seeks 512)
ALL=(--tests throughput,files,random)

# ---- the suites with 3 jobs, on each filesystem ----
fs_case() {
	local fs=$1 dir=$2
	if run_json "$fs" "$dir" "${SMALL[@]}" "${ALL[@]}" --jobs 3; then
		check "$fs: 3 jobs: each figure the aggregate of the jobs, per-job figures" \
			pycheck "$T/$fs.json" "$JOBS_FIGURES" 3
	fi
}

mkdir "$T/tmpfs"
if is_root && mount_tmpfs "$T/tmpfs" size=256m; then
	fs_case tmpfs "$T/tmpfs"
else
	skip "tmpfs: 3 jobs" "needs root"
	mkdir -p "$T/tmpfs"
fi
for fs in ext4 xfs; do
	if ! is_root; then
		skip "$fs on a loop device: 3 jobs" "needs root"
		continue
	fi
	# (xfs needs 300 MiB at least; the image is sparse)
	if make_fs "$fs" 512m; then
		fs_case "$fs" "$FS_MNT"
		# On a block device, the queue depth it reached during the reads.
		check "$fs: the device's queue depth is reported" pycheck "$T/$fs.json" '
t = [t for t in d["tests"] if t["id"] == "read"][0]
dev = t["device"]
assert dev["inflight_max"] >= dev["inflight_mean"] >= 0, dev
'
	else
		nok "make $fs on a loop device"
	fi
done

# Views: the job count and what the figures are.
D=$T/tmpfs
"$FSBENCH" run --quiet "${SMALL[@]}" --tests write,read --jobs 2 "$D" >"$T/text" 2>&1
check "text: the jobs' spread under each figure and what an aggregate is" \
	grep -q "per job .* – .*(median .*), %cpu" "$T/text"
check "text: the footnote says 2 jobs ran at once" grep -q "^2 jobs ran each test at once" \
	"$T/text"
check "text: the footnote says the work column is one job's" grep -q "^The work column is one job's" \
	"$T/text"
"$FSBENCH" run --quiet "${SMALL[@]}" --tests write,read --jobs 2 --format csv "$D" >"$T/csv"
check "csv: bonnie++'s concurrency field (3) is the job count" \
	test "$(cut -d, -f4 "$T/csv")" = 2
"$FSBENCH" run --quiet "${SMALL[@]}" --tests write,read --jobs 2 --format bonnie++ "$D" >"$T/bpp"
check "bonnie++: the method line says 2 jobs and aggregates" \
	grep -q "^# fsbench: .*; 2 jobs, each figure their aggregate" "$T/bpp"

# ---- where the jobs work, seen while they run ----
# watch NAME ARGS...: run in the background until every pattern of WANT
# (an array) matches a block.dat or files/ entry of the scratch dir, keep
# that list, and let the run end.
watch() {
	local name=$1 pid n=200 rc; shift
	"$FSBENCH" run --quiet "$@" "$D" >/dev/null 2>"$T/$name.err" &
	pid=$!
	: >"$T/$name.seen"
	while [ $n -gt 0 ] && kill -0 $pid 2>/dev/null; do
		(cd "$D" && find fsbench.* \( -name block.dat -o -path '*/files/*' \) \
			2>/dev/null | sed 's|^fsbench\.[^/]*/||') >"$T/$name.seen"
		all_seen "$T/$name.seen" && break
		sleep 0.02
		n=$((n - 1))
	done
	wait $pid; rc=$?
	[ $rc -eq 0 ] || { echo "#   exit $rc"; diag "$T/$name.err"; }
	return $rc
}
# all_seen FILE: every pattern of WANT matches a line of FILE. (A check
# of two conditions is eval'ed in this shell, where all_seen and WANT are,
# rather than given to a "bash -c" with copies of them.)
all_seen() {
	local w
	for w in "${WANT[@]}"; do
		grep -q -- "$w" "$1" || return 1
	done
}
LONGER=(--repeat 4 --min-time 0.2 --size 8m)
WANT=('^job-0/block.dat$' '^job-1/block.dat$' '^job-2/block.dat$')
if watch own "${LONGER[@]}" --tests write --jobs 3; then
	check "own files: each job writes job-K/block.dat" all_seen "$T/own.seen"
else
	nok "own files: run"
fi
WANT=('^block.dat$')
if watch shared "${LONGER[@]}" --tests write,read --jobs 3 --shared-file; then
	check "--shared-file: one block.dat in the scratch dir, none in job dirs" \
		eval 'grep -qx block.dat "$T/shared.seen" && ! grep -q job- "$T/shared.seen"'
else
	nok "--shared-file: run"
fi
WANT=('^files/j0-' '^files/j1-' '^files/j2-')
if watch sdir --tests seq-create,seq-stat,rand-create --files 2k --repeat 3 --min-time 0.2 \
	--jobs 3 --shared-dir; then
	check "--shared-dir: one files/ directory, names prefixed by job" \
		eval 'all_seen "$T/sdir.seen" && ! grep -q job- "$T/sdir.seen"'
else
	nok "--shared-dir: run"
fi

# Shared file and directory, every test on them, the data verified.
if run_json sharedall "$D" "${SMALL[@]}" "${ALL[@]}" --jobs 3 --shared-file --shared-dir; then
	check "--shared-file --shared-dir: the aggregate and per-job figures" \
		pycheck "$T/sharedall.json" "$JOBS_FIGURES" 3
	check "--shared-file --shared-dir: recorded in params" pycheck "$T/sharedall.json" \
		'assert d["params"]["shared_file"] and d["params"]["shared_dir"]'
fi

# ---- stopping early ----
# A job that finishes raises the stop only after its last I/O: preempted
# in between (3 jobs on 2 cores, a loaded machine), it may find the others
# done too, and then no job was cut in any run (seen once in 30 runs with
# other work on the machine). Up to three tries, each of which must
# itself succeed; the last try's message is shown.
# stonewalled FILE: read was cut by --stonewall in the JSON result FILE.
stonewalled() {
	pycheck "$1" 'assert [t.get("stopped_by") for t in d["tests"] if t["id"] == "read"] == ["stonewall"], d["tests"]'
}
SW=(--size 8m --repeat 3 --min-time 0.1 --jobs 3 --stonewall)
if run_json stonewall "$D" "${SW[@]}" --tests write,read,seeks; then
	try=1
	while ! stonewalled "$T/stonewall.json" >/dev/null 2>&1 && [ $try -lt 3 ]; do
		try=$((try + 1))
		"$FSBENCH" run --quiet "${SW[@]}" --tests write,read,seeks --format json \
			-o "$T/stonewall.json" "$D" 2>"$T/stonewall.err" ||
			{ nok "--stonewall: try $try exits 0"; diag "$T/stonewall.err"; break; }
	done
	check "--stonewall: the other jobs stopped when the first finished (try $try of 3)" \
		pycheck "$T/stonewall.json" '
assert d["params"]["stonewall"] is True
for t in d["tests"]:
    # Reads end with their last I/O: three jobs on two CPUs hardly ever
    # end at once, so in one of three runs at least the others are cut
    # (stopped_by says any run was). A write ends with its fsync, which
    # may leave nothing to cut; seeks read each of the 1024 chunks of the
    # 8 MiB file once a run, split between forked seekers that see the
    # word between reads: on a loaded machine all may be done before it.
    if t["id"] == "read":
        assert t.get("stopped_by") == "stonewall", (t["id"], t.get("stopped_by"))
    assert t.get("stopped_by") in (None, "stonewall"), t["id"]
'
fi
# The text view of a run cut short says so.
try=0
while [ $try -lt 3 ]; do
	try=$((try + 1))
	"$FSBENCH" run --quiet "${SW[@]}" --tests read "$D" >"$T/sw.txt" 2>&1 || break
	grep -q "^Every job stopped when the first finished (--stonewall): read" "$T/sw.txt" && break
done
check "--stonewall: the text view says so (try $try of 3)" \
	grep -q "^Every job stopped when the first finished (--stonewall): read" "$T/sw.txt"
check "--stonewall: the text view says the jobs stopped did less than the work column" \
	grep -q "^The jobs stopped did less than the work column says" "$T/sw.txt"
# (tests that would run for seconds: seeks read each 512-byte chunk of
# 64 MiB once, 131072 seeks a run; a million files)
if run_json deadline "$D" --size 64m --chunk 512 --repeat 2 --min-time 5 \
	--tests seeks,seq-create --files 1000k --jobs 2 --deadline 0.1; then
	check "--deadline: every job stopped at about 0.1 s, runs not grown past it" \
		pycheck "$T/deadline.json" '
assert d["params"]["deadline_s"] == 0.1
for t in d["tests"]:
    assert t.get("stopped_by") == "deadline", (t["id"], t.get("stopped_by"))
    for s, e in zip(t["start_ns"], t["end_ns"]):
        assert 0.08 <= (e - s) / 1e9 <= 2.0, (t["id"], (e - s) / 1e9)
'
fi
# One job too: the text view says the runs did less than the work stated.
"$FSBENCH" run --quiet --repeat 1 --min-time 5 --tests seq-create --files 1000k \
	--deadline 0.1 "$D" >"$T/dl.txt" 2>&1
check "--deadline: the text view says the runs did less than the work column" \
	grep -q "^Their runs did less than the work column says, and may be under --min-time" \
	"$T/dl.txt"

# ---- usage: what does nothing is said, before any work ----
"$FSBENCH" run --size 4m --repeat 1 --min-time 0.02 --tests write --shared-file "$D" \
	>/dev/null 2>"$T/w1"
check "--shared-file with one job: a warning that it does nothing" \
	grep -q "warning: --shared-file does nothing with one job" "$T/w1"
"$FSBENCH" run --size 4m --repeat 1 --min-time 0.02 --tests seq-create --files 64 --jobs 2 \
	--shared-file "$D" >/dev/null 2>"$T/w2"
check "--shared-file with metadata tests only: a warning that it does nothing" \
	grep -q "warning: --shared-file does nothing here" "$T/w2"
"$FSBENCH" run --size 4m --repeat 1 --min-time 0.02 --tests write --iodepth 8 "$D" \
	>/dev/null 2>"$T/w3"
check "--iodepth 8 with psync: one warning that psync keeps one I/O in flight" \
	test "$(grep -c 'psync engine keeps one I/O in flight' "$T/w3")" = 1
# The space check counts every job's file, and the random tests' file.
if is_root; then
	"$FSBENCH" run --size 100m --tests write --jobs 4 "$D" >/dev/null 2>"$T/sp1"
	check "--jobs 4 --size 100m on a 256m tmpfs: refused up front, each job's file counted" \
		grep -q "^fsbench: write: needs .*400.0 MiB for --size x 4 jobs.*use a smaller --size or --jobs" \
		"$T/sp1"
	"$FSBENCH" run --size 150m --tests write,randread "$D" >/dev/null 2>"$T/sp2"
	check "--size 150m, write and randread on a 256m tmpfs: refused, random.dat counted" \
		grep -q "^fsbench: write: needs .*150.0 MiB for the random tests' --size" "$T/sp2"
else
	skip "the space check counts every job's file" "needs root (a small tmpfs)"
	skip "the space check counts random.dat" "needs root (a small tmpfs)"
fi
expect_exit 2 "--jobs 0 is a usage error" "$FSBENCH" run --jobs 0 "$D"
expect_exit 2 "--jobs 1025 is a usage error" "$FSBENCH" run -j 1025 "$D"
expect_exit 2 "--engine aio is a usage error" "$FSBENCH" run --engine aio "$D"
expect_exit 2 "--iodepth 0 is a usage error" "$FSBENCH" run --iodepth 0 "$D"
expect_exit 2 "--block-size 1000 is a usage error" "$FSBENCH" run --block-size 1000 "$D"
expect_exit 2 "--deadline 0 is a usage error" "$FSBENCH" run --deadline 0 "$D"
check "no scratch left in the tmpfs" no_scratch_left "$D"

done_testing
