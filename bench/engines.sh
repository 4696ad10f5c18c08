#!/bin/bash
# fsbench's io_uring engine against fio (issue 11's depth sweep): 4 KiB
# random reads with O_DIRECT at queue depth 1, 4, 16 and 32, on one file in
# a filesystem (xfs by default) on a loop device this script makes and
# releases. fsbench's side is build/bench/engine-bench: the randread test
# measured by fsb_runner_measure exactly as `fsbench run` measures it
# (every block read once and verified); fio's side is
#
#   fio --name=engines --filename=FILE --ioengine=io_uring --direct=1
#       --rw=randread --bs=4k --iodepth=N --size=SIZE --lat_percentiles=1
#
# on the same file, which also reads every block once (its random map).
# The two take turns at each depth (the first to go alternates by round),
# ROUNDS rounds; the medians are compared. Prints a table of IOPS and p99
# latency (submission to completion for both) per depth, the ratio of the
# medians (the target: "ok" when fsbench >= 0.95 x fio, "MISSED"
# otherwise) and, for a busy machine, the median of each round's ratio. Exit status: 0 when
# every depth meets the target, 1 when one misses, 2 when something could
# not run. Root only (loop device, mount). Everything it makes (mount, loop
# device, image, files) is released at exit; nothing else is touched.
#
# Environment:
#   ENGINE_BENCH  the program (default build/bench/engine-bench; make it
#                 with `make build/bench/engine-bench`)
#   FS            filesystem to make (default xfs; ext4 works too)
#   IMG_SIZE      loop device size (default 1g)
#   SIZE          file size read at each run (default 256m: 65536 blocks)
#   DEPTHS        queue depths (default "1 4 16 32")
#   ROUNDS        runs of each tool per depth (default 5)
#   TMPDIR        where the image goes (default /tmp)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
ENGINE_BENCH=${ENGINE_BENCH:-$TOP/build/bench/engine-bench}
FS=${FS:-xfs}
IMG_SIZE=${IMG_SIZE:-1g}
SIZE=${SIZE:-256m}
DEPTHS=${DEPTHS:-1 4 16 32}
ROUNDS=${ROUNDS:-5}
TARGET=0.95

# ---- cleanup: everything made here, undone in reverse order at exit ----
BENCH=engines
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || die "needs root (loop device and mount)"
[ -x "$ENGINE_BENCH" ] || die "no $ENGINE_BENCH (run make build/bench/engine-bench)"
for t in fio "mkfs.$FS" losetup mount python3; do
	command -v "$t" >/dev/null || die "needs $t"
done

W=$(mktemp -d "${TMPDIR:-/tmp}/fsb-engines.XXXXXX") || die "no temp dir"
undo "rm -rf '$W'"
truncate -s "$IMG_SIZE" "$W/img" || die "cannot make $W/img"
# Direct I/O on the backing file, so the device reads what it is asked.
DEV=$(attach_loop "$W/img") || die "cannot attach $W/img"
undo "losetup -d '$DEV'"
case $FS in
xfs) mkfs.xfs -q -f "$DEV" ;;
btrfs) mkfs.btrfs -q -f "$DEV" >/dev/null ;;
*) "mkfs.$FS" -q -F "$DEV" ;;
esac || die "mkfs.$FS $DEV failed"
mkdir "$W/mnt" && mount -t "$FS" "$DEV" "$W/mnt" || die "cannot mount $DEV"
undo "umount '$W/mnt'"
FILE=$W/mnt/random.dat

"$ENGINE_BENCH" "$W/mnt" --size "$SIZE" --prepare || die "cannot prepare $FILE"
sync

# ours D: one engine-bench run; appends "iops p99_us" to $W/ours.D
ours() {
	local line
	line=$("$ENGINE_BENCH" "$W/mnt" --engine io_uring --iodepth "$1" --size "$SIZE" \
		--block-size 4k --cache direct 2>"$W/err") || { cat "$W/err" >&2; die "engine-bench failed"; }
	echo "$line" | sed -n 's/^iops=\([0-9.]*\) p99_us=\([0-9.]*\).*/\1 \2/p' >>"$W/ours.$1"
}

# theirs D: one fio run; appends "iops p99_us" to $W/fio.D
theirs() {
	fio --name=engines --filename="$FILE" --ioengine=io_uring --direct=1 --rw=randread \
		--bs=4k --iodepth="$1" --size="$SIZE" --lat_percentiles=1 \
		--output-format=json >"$W/fio.json" 2>"$W/err" ||
		{ cat "$W/err" >&2; die "fio failed"; }
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
assert j["io_bytes"] > 0, "fio did no I/O"
print(j["iops"], j["lat_ns"]["percentile"]["99.000000"] / 1000)' "$W/fio.json" >>"$W/fio.$1" ||
		die "cannot read fio's output"
}

echo "engines: $FS on $DEV ($IMG_SIZE image, direct I/O), file $SIZE, 4 KiB random reads, O_DIRECT"
echo "engines: $ROUNDS rounds, fsbench and fio taking turns at each depth"
for ((r = 1; r <= ROUNDS; r++)); do
	for d in $DEPTHS; do
		if ((r % 2)); then ours "$d"; theirs "$d"; else theirs "$d"; ours "$d"; fi
	done
	echo "engines: round $r/$ROUNDS done" >&2
done

python3 - "$W" "$TARGET" $DEPTHS <<'PYEOF'
import statistics, sys
w, target, depths = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
def load(name):
    rows = [l.split() for l in open(name) if l.strip()]
    return [float(r[0]) for r in rows], [float(r[1]) for r in rows]
print()
print("%5s  %12s %9s  %12s %9s  %6s %7s  %s" % ("depth", "fsbench IOPS", "p99 us", "fio IOPS",
      "p99 us", "ratio", "paired", "target >= %.2f" % target))
missed = 0
for d in depths:
    oi, op = load("%s/ours.%s" % (w, d))
    fi, fp = load("%s/fio.%s" % (w, d))
    mo, mf = statistics.median(oi), statistics.median(fi)
    ratio = mo / mf
    # Each round's two runs are neighbours in time: the median of their
    # ratios is less shaken by a busy machine than the ratio of medians.
    paired = statistics.median(a / b for a, b in zip(oi, fi))
    good = ratio >= target
    missed += not good
    print("%5s  %12.0f %9.1f  %12.0f %9.1f  %6.3f %7.3f  %s" % (d, mo, statistics.median(op),
          mf, statistics.median(fp), ratio, paired, "ok" if good else "MISSED"))
print()
for d in depths:
    oi, _ = load("%s/ours.%s" % (w, d))
    fi, _ = load("%s/fio.%s" % (w, d))
    print("runs at depth %s: fsbench %s; fio %s" % (d, " ".join("%.0f" % v for v in oi),
          " ".join("%.0f" % v for v in fi)))
sys.exit(1 if missed else 0)
PYEOF
