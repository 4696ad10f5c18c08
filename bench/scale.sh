#!/bin/bash
# Jobs and queue depth (issue 11), checked against fio and against fsbench
# itself, ratios printed in one run. Never a timed test: run it by hand on
# a quiet machine.
#
#  1. Block write and read with --jobs 1, 2, 4 (psync, 8 KiB I/Os, SIZE per
#     job) on a tmpfs and on xfs over a loop device, against fio with the
#     same numjobs, bs, size and ioengine, and the options that make fio do
#     the same work: a fresh file per job (fallocate=none, unlink=1: no
#     preallocated or reused file), end_fsync=1 for writes, the page cache
#     invalidated before reads (fio's default, fsbench's --cache drop), no
#     access-pattern advice (fadvise_hint=0: fsbench gives none to the
#     block tests; fio's POSIX_FADV_SEQUENTIAL changes the readahead, on the
#     loop device here from 1.8 to 1.1 GB/s with 4 jobs).
#     fsbench's data verification stays on as part of its cost; its figure
#     is the jobs' aggregate (all work / (last end - first start)), fio's
#     the group's (group_reporting: all work / the longest job). The work is
#     fixed (--min-time 0.01: nothing grows). Target: fsbench >= 0.95 x fio.
#  2. 4 KiB randread with --engine io_uring --iodepth 1, 4, 16, 32 and
#     --cache=direct on xfs over the loop device, every block of a RSIZE
#     file read once, against fio --ioengine=io_uring --direct=1 at the
#     same depth on the same file size: IOPS and p99 latency per depth.
#     Target: >= 0.95 x fio.
#  3. The aggregate of --jobs 4 against 4 independent fsbench processes
#     started together, each with the same fixed work (--repeat 1,
#     --min-time 0.01), aggregated the same way from the start_ns and
#     end_ns of their JSON (CLOCK_MONOTONIC, one host). Target: within 5%.
#     Tests whose setup takes the same time in every process, so that
#     processes without a barrier still start their timed runs together:
#     block read of SIZE on xfs over the loop device (the files prepared on
#     the device at once, the reads device-bound; --cache direct on both
#     sides: with drop, each independent process's global sync and cache
#     drop would land in the others' timed reads, while --jobs drops once),
#     and seq-create of FILES
#     files on the tmpfs (nothing to prepare). Not block write: its first
#     run is a discarded warm-up, and processes drift apart during it.
#  4. Memory: the largest RSS of fsbench run --jobs 16 --iodepth 32 (every
#     block and random test, io_uring; /usr/bin/time -v). Target: < 64 MiB.
#
# Every comparison takes ROUNDS rounds, the tools taking turns (the first
# to go alternates by round); medians are compared. Prints the tables and
# each command used; exit 0 when every target is met, 1 when one is
# missed, 2 when something could not run. Root only (tmpfs, loop device,
# mount); everything it makes is released at exit, nothing else touched.
#
# Environment:
#   FSBENCH  the binary (default ./fsbench, built with make)
#   SIZE     block test size per job (default 256m)
#   RSIZE    randread file size (default 256m: 65536 blocks)
#   FILES    seq-create files per job in part 3 (default 100k)
#   JOBS     job counts (default "1 2 4")
#   DEPTHS   queue depths (default "1 4 16 32")
#   ROUNDS   rounds (default 5)
#   PARTS    which parts to run (default "1 2 3 4")
#   TMPDIR   where the image goes (default /tmp)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${FSBENCH:-$TOP/fsbench}
SIZE=${SIZE:-256m}
RSIZE=${RSIZE:-256m}
FILES=${FILES:-100k}
JOBS=${JOBS:-1 2 4}
DEPTHS=${DEPTHS:-1 4 16 32}
ROUNDS=${ROUNDS:-5}
PARTS=${PARTS:-1 2 3 4}

BENCH=scale
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || die "needs root (tmpfs, loop device, mount)"
[ -x "$FSBENCH" ] || die "no $FSBENCH (run make)"
for t in fio mkfs.xfs losetup mount python3 /usr/bin/time; do
	command -v "$t" >/dev/null || die "needs $t"
done
part() { [[ " $PARTS " == *" $1 "* ]]; }

W=$(mktemp -d "${TMPDIR:-/tmp}/fsb-scale.XXXXXX") || die "no temp dir"
undo "rm -rf '$W'"
mkdir "$W/tmpfs" "$W/xfs" "$W/res"
mount -t tmpfs -o size=8g fsb-scale "$W/tmpfs" || die "cannot mount a tmpfs"
undo "umount '$W/tmpfs'"
truncate -s 4g "$W/img" || die "cannot make $W/img"
DEV=$(attach_loop "$W/img") || die "cannot attach $W/img"
undo "detach_loop '$DEV' '$W/img'"
mkfs.xfs -q -f "$DEV" || die "mkfs.xfs $DEV failed"
mount -t xfs "$DEV" "$W/xfs" || die "cannot mount $DEV"
undo "umount '$W/xfs'"
# The commands, as run, for the report.
CMDS=$W/commands
: >"$CMDS"
log_cmd() { grep -qxF -- "$*" "$CMDS" || echo "$*" >>"$CMDS"; }

# fsb OUT ARGS...: fsbench run ARGS, JSON to OUT.
fsb() {
	local out=$1; shift
	"$FSBENCH" run --quiet "$@" --format json -o "$out" 2>"$W/err" ||
		{ cat "$W/err" >&2; die "fsbench run $* failed"; }
}
# A figure of a fsbench JSON: jq-like EXPR over test t.
fsb_get() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["tests"] if t["id"] == sys.argv[2]][0]
print(eval(sys.argv[3]))' "$@"
}

# ---- 1. jobs: block write and read against fio ------------------------------

# fsbench side: fsb_block FS TEST N -> appends B/s to res/fsb.FS.TEST.N
fsb_block() {
	local fs=$1 test=$2 n=$3 args
	args=(--tests "$test" --jobs "$n" --size "$SIZE" --chunk 8k --engine psync --repeat 1
		--min-time 0.01 --cache drop --files 0)
	log_cmd "fsbench run ${args[*]} DIR"
	fsb "$W/f.json" "${args[@]}" "$W/$fs"
	fsb_get "$W/f.json" "$test" 't["median"]' >>"$W/res/fsb.$fs.$test.$n"
}
# fio side: fio_block FS TEST N -> appends B/s to res/fio.FS.TEST.N
fio_block() {
	local fs=$1 test=$2 n=$3 args
	args=(--name=scale --directory="$W/$fs" --rw="$test" --bs=8k --size="$SIZE"
		--numjobs="$n" --ioengine=psync --fallocate=none --unlink=1 --invalidate=1
		--fadvise_hint=0 --group_reporting)
	[ "$test" = write ] && args+=(--end_fsync=1)
	log_cmd "fio ${args[*]/$W\/$fs/DIR} --output-format=json"
	fio "${args[@]}" --output-format=json >"$W/fio.json" 2>"$W/err" ||
		{ cat "$W/err" >&2; die "fio failed"; }
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]
assert j["io_bytes"] > 0, "fio did no I/O"
print(j["bw_bytes"])' "$W/fio.json" "$test" >>"$W/res/fio.$fs.$test.$n" ||
		die "cannot read fio's output"
}

if part 1; then
	say "1: block write/read, jobs $JOBS, $SIZE per job, tmpfs and xfs on $DEV; $ROUNDS rounds"
	for ((r = 1; r <= ROUNDS; r++)); do
		for fs in tmpfs xfs; do
			for test in write read; do
				for n in $JOBS; do
					if ((r % 2)); then
						fsb_block $fs $test "$n"
						fio_block $fs $test "$n"
					else
						fio_block $fs $test "$n"
						fsb_block $fs $test "$n"
					fi
				done
			done
		done
		say "1: round $r/$ROUNDS done"
	done
fi

# ---- 2. queue depth: 4 KiB randread, io_uring, O_DIRECT ---------------------

# fsb_rand D -> appends "iops p99_us" to res/fsb.rand.D
fsb_rand() {
	local args=(--tests randread --engine io_uring --iodepth "$1" --block-size 4k --size "$RSIZE"
		--cache direct --repeat 1 --min-time 30 --files 0)
	# --min-time 30: the first attempt grows to the structural limit, every
	# block once (what fio reads), and stops there.
	log_cmd "fsbench run ${args[*]} DIR"
	fsb "$W/r.json" "${args[@]}" "$W/xfs"
	fsb_get "$W/r.json" randread 't["median"], t["latency_us"]["p99"], t["work"]' \
		| tr -d '(),' >>"$W/res/fsb.rand.$1"
}
fio_rand() {
	local args=(--name=scale --filename="$W/xfs/fio.dat" --ioengine=io_uring --direct=1
		--rw=randread --bs=4k --iodepth="$1" --size="$RSIZE" --lat_percentiles=1)
	log_cmd "fio ${args[*]/$W\/xfs/DIR} --output-format=json"
	fio "${args[@]}" --output-format=json >"$W/fio.json" 2>"$W/err" ||
		{ cat "$W/err" >&2; die "fio failed"; }
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
assert j["io_bytes"] > 0, "fio did no I/O"
print(j["iops"], j["lat_ns"]["percentile"]["99.000000"] / 1000, j["total_ios"])' "$W/fio.json" \
		>>"$W/res/fio.rand.$1" || die "cannot read fio's output"
}

if part 2; then
	say "2: 4 KiB randread, io_uring, O_DIRECT, depths $DEPTHS, $RSIZE on xfs on $DEV"
	for ((r = 1; r <= ROUNDS; r++)); do
		for d in $DEPTHS; do
			if ((r % 2)); then fsb_rand "$d"; fio_rand "$d"; else fio_rand "$d"; fsb_rand "$d"; fi
		done
		say "2: round $r/$ROUNDS done"
	done
	rm -f "$W/xfs/fio.dat"
fi

# ---- 3. --jobs 4 against 4 independent processes ----------------------------

# The fixed work of part 3: agg_args TEST -> the options.
agg_args() {
	case $1 in
	read) echo --tests read --size "$SIZE" --cache direct --files 0 ;;
	seq-create) echo --tests seq-create --files "$FILES" ;;
	esac
}
# agg_jobs FS TEST -> appends the figure of --jobs 4 to res/jobs4.TEST
agg_jobs() {
	local args
	read -ra args <<<"$(agg_args "$2") --repeat 1 --min-time 0.01"
	log_cmd "fsbench run ${args[*]} --jobs 4 DIR"
	fsb "$W/a.json" "${args[@]}" --jobs 4 "$W/$1"
	fsb_get "$W/a.json" "$2" 't["median"]' >>"$W/res/jobs4.$2"
}
# agg_procs FS TEST -> appends the aggregate of 4 processes to res/procs4.TEST
agg_procs() {
	local args k pids=()
	read -ra args <<<"$(agg_args "$2") --repeat 1 --min-time 0.01"
	log_cmd "4 x fsbench run ${args[*]} DIR (started together)"
	for k in 1 2 3 4; do
		"$FSBENCH" run --quiet "${args[@]}" --format json -o "$W/p$k.json" "$W/$1" \
			2>"$W/err.$k" &
		pids+=($!)
	done
	for k in 1 2 3 4; do
		wait "${pids[$((k - 1))]}" || { cat "$W/err.$k" >&2; die "fsbench process $k failed"; }
	done
	python3 -c 'import json, sys
ts = [[t for t in json.load(open(f))["tests"] if t["id"] == sys.argv[1]][0] for f in sys.argv[2:]]
work = sum(t["work"] for t in ts)
first = min(t["start_ns"][0] for t in ts)
last = max(t["end_ns"][0] for t in ts)
print(work / ((last - first) / 1e9))' "$2" "$W"/p[1-4].json >>"$W/res/procs4.$2" ||
		die "cannot read the processes' output"
}

if part 3; then
	say "3: --jobs 4 against 4 processes: read ($SIZE each, xfs), seq-create ($FILES each, tmpfs)"
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in xfs:read tmpfs:seq-create; do
			fs=${c%%:*} test=${c#*:}
			if ((r % 2)); then
				agg_jobs "$fs" "$test"; agg_procs "$fs" "$test"
			else
				agg_procs "$fs" "$test"; agg_jobs "$fs" "$test"
			fi
		done
		say "3: round $r/$ROUNDS done"
	done
fi

# ---- 4. memory ----------------------------------------------------------------

if part 4; then
	args=(--jobs 16 --iodepth 32 --engine io_uring --tests write,rewrite,read,seeks,randread,randwrite
		--size 32m --repeat 1 --min-time 0.05 --files 0)
	log_cmd "/usr/bin/time -v fsbench run ${args[*]} DIR"
	say "4: memory of fsbench run ${args[*]}"
	/usr/bin/time -v "$FSBENCH" run --quiet "${args[@]}" "$W/tmpfs" >/dev/null 2>"$W/time" ||
		{ cat "$W/time" >&2; die "fsbench run failed"; }
	sed -n 's/^\tMaximum resident set size (kbytes): //p' "$W/time" >"$W/res/rss"
fi

python3 - "$W/res" "$PARTS" "$JOBS" "$DEPTHS" <<'PYEOF'
import os, statistics, sys
res, parts, jobs, depths = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
def vals(name, col=0):
    p = os.path.join(res, name)
    return [float(l.split()[col]) for l in open(p) if l.strip()] if os.path.exists(p) else []
def mib(v):
    return v / 2**20
missed = 0
def verdict(good):
    global missed
    missed += not good
    return "ok" if good else "MISSED"
if "1" in parts:
    print("\n1. Block write/read, psync, 8 KiB I/Os, aggregate MiB/s (median of rounds)")
    print("%-6s %-5s %4s  %10s %10s  %6s %7s  %s" % ("fs", "test", "jobs", "fsbench", "fio",
          "ratio", "paired", "target >= 0.95"))
    for fs in ("tmpfs", "xfs"):
        for test in ("write", "read"):
            for n in jobs:
                a, b = vals("fsb.%s.%s.%s" % (fs, test, n)), vals("fio.%s.%s.%s" % (fs, test, n))
                if not a or not b:
                    continue
                ma, mb = statistics.median(a), statistics.median(b)
                paired = statistics.median(x / y for x, y in zip(a, b))
                print("%-6s %-5s %4s  %10.0f %10.0f  %6.3f %7.3f  %s" % (fs, test, n, mib(ma),
                      mib(mb), ma / mb, paired, verdict(ma / mb >= 0.95)))
if "2" in parts:
    print("\n2. 4 KiB randread, io_uring, O_DIRECT, xfs on a loop device (median of rounds)")
    print("%5s  %12s %9s  %12s %9s  %6s %7s  %s" % ("depth", "fsbench IOPS", "p99 us",
          "fio IOPS", "p99 us", "ratio", "paired", "target >= 0.95"))
    for d in depths:
        oi, op, ow = vals("fsb.rand." + d), vals("fsb.rand." + d, 1), vals("fsb.rand." + d, 2)
        fi, fp, fw = vals("fio.rand." + d), vals("fio.rand." + d, 1), vals("fio.rand." + d, 2)
        if not oi or not fi:
            continue
        mo, mf = statistics.median(oi), statistics.median(fi)
        paired = statistics.median(x / y for x, y in zip(oi, fi))
        print("%5s  %12.0f %9.1f  %12.0f %9.1f  %6.3f %7.3f  %s" % (d, mo, statistics.median(op),
              mf, statistics.median(fp), mo / mf, paired, verdict(mo / mf >= 0.95)))
    print("(I/Os per run: fsbench %s, fio %s)" % (
          sorted(set(int(w) for d in depths for w in vals("fsb.rand." + d, 2))),
          sorted(set(int(w) for d in depths for w in vals("fio.rand." + d, 2)))))
if "3" in parts:
    print("\n3. --jobs 4 against 4 processes started together (median of rounds)")
    print("%-22s  %10s %12s  %7s %7s  %s" % ("test", "--jobs 4", "4 processes", "diff", "paired",
          "target within 5%"))
    for test, what, scale in (("read", "read, xfs (MiB/s)", 2**20),
                              ("seq-create", "seq-create, tmpfs (/s)", 1)):
        a, b = vals("jobs4." + test), vals("procs4." + test)
        if not a or not b:
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        diff = ma / mb - 1
        paired = statistics.median(x / y for x, y in zip(a, b)) - 1
        print("%-22s  %10.0f %12.0f  %+6.1f%% %+6.1f%%  %s" % (what, ma / scale, mb / scale,
              100 * diff, 100 * paired, verdict(abs(diff) <= 0.05)))
if "4" in parts:
    rss = vals("rss")
    if rss:
        print("\n4. Memory: largest RSS %.1f MiB  %s" % (rss[0] / 1024,
              verdict(rss[0] / 1024 < 64) + " (target < 64 MiB)"))
sys.exit(1 if missed else 0)
PYEOF
rc=$?
echo
echo "Commands (DIR: the tmpfs, or xfs on $DEV; $ROUNDS rounds each):"
sed 's/^/  /' "$CMDS"
exit $rc
