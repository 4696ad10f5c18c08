#!/bin/bash
# fsbench's throughput suite against its peers: issue 2's "Speed and
# fidelity" check. In one run, on the same directories with the same sizes:
#
#  (a) tmpfs, block write and read: fsbench vs fio (ioengine=psync, the same
#      chunk, rw=write / rw=read; fio's default invalidate=1, a no-op on
#      tmpfs). Target: fsbench >= 0.95 x fio (the tool adds no overhead).
#  (b) tmpfs, per-char write and read with --char-io=syscall vs bonnie++
#      2.00a's per-char figures (CSV fields 9 and 15, K/s = KiB/s), both at
#      bonnie++'s per-char size (20 MiB), taking turns. Target: >= 1.0 x.
#  (c) xfs on a 2 GiB loop device attached with direct I/O (image filled
#      first, so the device really reads):
#        fsbench --cache=drop block read vs fio buffered read of a same-sized
#        file (invalidate=1): within +-10%;
#        fsbench --cache=direct block read and write vs fio direct=1 at the
#        same chunk: within +-10%;
#        both reads never above the raw device (fio, read-only, direct=1,
#        bs=1m, libaio with 8 in flight, on the loop device made here, over
#        the random data it was filled with); bonnie++'s block read for
#        contrast (it reads the page cache, so it may exceed the device).
#  (d) `fsbench run` with defaults on tmpfs: wall time < 60 s, every figure
#      measured (no '+++++': no run under 0.5 s), CV < 10% for block tests.
#  (e) peak RSS of `fsbench run --size 4g --tests write,read` < 32 MiB.
#
# fsbench and fio take turns (REPEAT runs each, medians compared) so that
# a busy machine hurts both alike. Each figure is printed with its peer,
# the ratio and the target, then "ok" or "MISSED". Exit status: 0 when
# every target is met, 1 when one is missed, 2 when something could not run. Root only (tmpfs, loop device).
# Everything it makes (mounts, the loop device, files) is released at exit;
# it never touches a device or mount it did not make.
#
# Environment:
#   FSBENCH     binary to measure (default ./fsbench, the optimised build)
#   SIZE        block file size for (a) (default 1g)
#   CHUNK       block I/O size everywhere (default 8k)
#   REPEAT      runs of each tool per figure, fsbench and fio taking turns;
#               the median is used (default 5)
#   CHAR_SIZE   per-char size for (b) (default 20m, bonnie++'s default)
#   CHAR_REPEAT runs of each tool for (b) (default 3: 1-byte syscalls are slow)
#   XFS_FILE    file size for the xfs buffered read (default 1g)
#   XFS_DIRECT  file size for the xfs O_DIRECT comparisons (default 256m)
#   RSS_SIZE    --size for the RSS check (default 4g)
#   ONLY        run only these cases, e.g. ONLY=ac (default abcde)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${FSBENCH:-$TOP/fsbench}
SIZE=${SIZE:-1g}
CHUNK=${CHUNK:-8k}
REPEAT=${REPEAT:-5}
CHAR_SIZE=${CHAR_SIZE:-20m}
CHAR_REPEAT=${CHAR_REPEAT:-3}
XFS_FILE=${XFS_FILE:-1g}
XFS_DIRECT=${XFS_DIRECT:-256m}
RSS_SIZE=${RSS_SIZE:-4g}
ONLY=${ONLY:-abcde}

# ---- cleanup: everything made here, undone in reverse order at exit ----
BENCH=vs-peers
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || die "needs root (tmpfs and loop mounts)"
[ -x "$FSBENCH" ] || die "no $FSBENCH (run make fsbench)"
for t in fio bonnie++ mkfs.xfs losetup python3; do
	command -v "$t" >/dev/null || die "needs $t"
done
[ -x /usr/bin/time ] || die "needs GNU time (apt-get install time)"

W=$(mktemp -d "${TMPDIR:-/tmp}/vs-peers.XXXXXX") || die "no temp dir"
undo "rm -rf '$W'"
MISSED=0 MET=0

# ---- helpers ----
bytes() { # bytes SIZE: 8k, 1g, ... in bytes
	python3 -c 'import sys
s = sys.argv[1].lower(); m = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))' "$1"
}

# fsb OUT.json ARGS... DIR: fsbench run, JSON out, no progress; fatal on error.
fsb() {
	local out=$1; shift
	"$FSBENCH" run --progress never --format json -o "$out" "$@" 2>"$W/fsb.err" ||
		{ cat "$W/fsb.err" >&2; die "fsbench run $* failed"; }
	[ -s "$W/fsb.err" ] && sed 's/^/  (fsbench said) /' "$W/fsb.err"
	return 0
}

# jfig FILE ID [KEY]: a test's median (or KEY) from an fsbench JSON result.
jfig() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = next(t for t in d["tests"] if t["id"] == sys.argv[2])
print(t[sys.argv[3]])' "$1" "$2" "${3:-median}"
}

# fio_once TARGET RW ARGS...: one fio job (psync) on TARGET; prints the
# bandwidth of its read or write side in B/s.
fio_once() {
	local target=$1 rw=$2 side; shift 2
	case $rw in *read*) side="read" ;; *) side="write" ;; esac
	fio --name=vs-peers --filename="$target" --rw="$rw" --ioengine=psync \
		--output-format=json "$@" >"$W/fio.json" 2>"$W/fio.err" ||
		{ cat "$W/fio.err" >&2; die "fio --rw=$rw $* on $target failed"; }
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]
assert j["io_bytes"] > 0, "fio did no I/O"
print(j["bw_bytes"])' "$W/fio.json" "$side" || die "cannot read fio's output"
}

# med FILE: the median of the numbers in FILE, one a line.
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# fsb_once OUT.json TEST:FILE... -- ARGS...: one fsbench run (--repeat 1);
# appends each TEST's figure to its FILE.
fsb_once() {
	local out=$1 pairs=() p; shift
	while [ "$1" != -- ]; do pairs+=("$1"); shift; done
	shift
	fsb "$out" --repeat 1 "$@"
	for p in "${pairs[@]}"; do
		jfig "$out" "${p%%:*}" >>"${p#*:}" || die "no ${p%%:*} in $out"
	done
}

# human B/s: 2.10 GB/s, 512 MB/s, 3.91 MB/s (decimal units).
human() {
	python3 -c 'import sys
v = float(sys.argv[1])
for u, d in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
    if v >= d:
        print("%.3g %s" % (v / d, u) if v / d < 100 else "%.0f %s" % (v / d, u)); break
else:
    print("%.0f B/s" % v)' "$1"
}

# verdict LABEL A_NAME A B_NAME B KIND X: one line with the ratio A/B and
# the target; KIND is ge (ratio >= X), within (|ratio - 1| <= X) or le
# (ratio <= X).
verdict() {
	local label=$1 an=$2 a=$3 bn=$4 b=$5 kind=$6 x=$7 line
	line=$(python3 -c 'import sys
label, an, a, bn, b, kind, x, ha, hb = sys.argv[1:10]
a, b, x = float(a), float(b), float(x)
r = a / b if b > 0 else float("inf")
if kind == "ge":
    good, tgt = r >= x, "target >= %.2f" % x
elif kind == "le":
    good, tgt = r <= x, "target <= %.2f" % x
else:
    good, tgt = abs(r - 1) <= x, "target %.2f-%.2f" % (1 - x, 1 + x)
print("%s: %s %s, %s %s, ratio %.2f (%s)  %s" % (label, an, ha, bn, hb, r, tgt,
      "ok" if good else "MISSED"))' "$label" "$an" "$a" "$bn" "$b" "$kind" "$x" \
		"$(human "$a")" "$(human "$b")")
	echo "$line"
	case $line in *MISSED) MISSED=$((MISSED + 1)) ;; *) MET=$((MET + 1)) ;; esac
}

# runs NAME FILE...: the single runs behind a median, for the record.
runs() {
	local out="  runs:" name file
	while [ $# -ge 2 ]; do
		name=$1 file=$2; shift 2
		out="$out $name $(python3 -c 'import sys
v = [float(l) / 1e6 for l in open(sys.argv[1]) if l.strip()]
print(" ".join("%.0f" % x if x >= 100 else "%.3g" % x for x in v))' "$file") MB/s;"
	done
	echo "$out"
}

# check LABEL OK? TEXT: a target that is not a ratio.
check() {
	if [ "$2" = 1 ]; then echo "$1: $3  ok"; MET=$((MET + 1)); else echo "$1: $3  MISSED"; MISSED=$((MISSED + 1)); fi
}

# bonnie_csv DIR ARGS...: bonnie++ 2.00a's CSV line (it refuses to run in a
# dir with an old Bonnie.* file, so it gets a fresh subdirectory).
bonnie_csv() {
	local dir=$1/bonnie line; shift
	mkdir "$dir" || die "cannot mkdir $dir"
	line=$(bonnie++ -q -d "$dir" -r 0 -n 0 -u root "$@" 2>"$W/bonnie.err" | tail -n 1)
	rm -rf "$dir"
	case $line in 1.98,*) echo "$line" ;; *) cat "$W/bonnie.err" >&2; die "bonnie++ $* failed" ;; esac
}
# field CSV N: field N (from 0) of a CSV line.
field() { echo "$1" | cut -d, -f$(($2 + 1)); }

# wait_free DIR BYTES: wait (10 s at most) until DIR's filesystem has BYTES
# free: xfs frees a deleted file's blocks in the background.
wait_free() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(df -B1 --output=avail "$1" | tail -n 1)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

mount_tmpfs_here() { # mount_tmpfs_here DIR SIZE
	mkdir -p "$1" && mount -t tmpfs -o "size=$2" vs-peers "$1" || die "cannot mount tmpfs on $1"
	undo "umount '$1'"
}

echo "vs-peers: $("$FSBENCH" --version), $(fio --version), bonnie++ 2.00a; $(uname -r), $(nproc) CPUs"
echo "vs-peers: chunk $CHUNK, median of $REPEAT runs for fsbench and fio; load average $(cut -d' ' -f1-3 /proc/loadavg)"
TMPFS=$W/tmpfs
if [[ $ONLY == *[abde]* ]]; then
	mount_tmpfs_here "$TMPFS" 6g
fi

# ---- (a) block write and read on tmpfs vs fio ----
# fsbench and fio take turns, $REPEAT times, so that a noisy neighbour hurts
# both alike; each figure is the median of its tool's runs.
if [[ $ONLY == *a* ]]; then
	echo
	echo "== (a) tmpfs: block write/read, $SIZE in $CHUNK chunks, fsbench vs fio psync"
	for ((i = 1; i <= REPEAT; i++)); do
		# --min-time 0.1: the same bytes as fio (no growth) unless a run
		# is shorter than that.
		fsb_once "$W/a$i.json" write:"$W/a.sw" read:"$W/a.sr" -- --tests write,read \
			--size "$SIZE" --chunk "$CHUNK" --min-time 0.1 "$TMPFS"
		# fsbench truncates its file before each write (untimed) and
		# fsyncs before the clock stops: fio the same, no preallocation
		# (fallocate on tmpfs would allocate the pages ahead of time).
		rm -f "$TMPFS/fio.dat"
		fio_once "$TMPFS/fio.dat" write --bs="$CHUNK" --size="$SIZE" --end_fsync=1 \
			--fallocate=none >>"$W/a.fw"
		fio_once "$TMPFS/fio.dat" read --bs="$CHUNK" --size="$SIZE" >>"$W/a.fr"
		rm -f "$TMPFS/fio.dat"
	done
	echo "  fsbench work per run: write $(jfig "$W/a1.json" write work) B, read $(jfig "$W/a1.json" read work) B"
	verdict "block write tmpfs" fsbench "$(med "$W/a.sw")" fio "$(med "$W/a.fw")" ge 0.95
	runs fsbench "$W/a.sw" fio "$W/a.fw"
	verdict "block read tmpfs" fsbench "$(med "$W/a.sr")" fio "$(med "$W/a.fr")" ge 0.95
	runs fsbench "$W/a.sr" fio "$W/a.fr"
fi

# ---- (b) per-char with 1-byte syscalls vs bonnie++ ----
# bonnie++ 2.00a does its per-char I/O on 20 MiB (its -f size; the option
# takes no separate argument), so CHAR_SIZE defaults to that. The two take
# turns, CHAR_REPEAT times each.
if [[ $ONLY == *b* ]]; then
	echo
	echo "== (b) tmpfs: per-char, $CHAR_SIZE, fsbench --char-io=syscall vs bonnie++ 2.00a"
	for ((i = 1; i <= CHAR_REPEAT; i++)); do
		fsb_once "$W/b$i.json" putc:"$W/b.sp" getc:"$W/b.sg" -- --tests putc,getc \
			--char-io syscall --char-size "$CHAR_SIZE" "$TMPFS"
		csv=$(bonnie_csv "$TMPFS" -s 64m -m tmpfs) || exit 2
		echo "  bonnie++: $csv"
		bp=$(field "$csv" 9) bg=$(field "$csv" 15)
		for v in "$bp" "$bg"; do
			[[ $v =~ ^[0-9]+$ ]] || die "bonnie++ gave no per-char figure ('$v')"
		done
		echo $((bp * 1024)) >>"$W/b.bp"
		echo $((bg * 1024)) >>"$W/b.bg"
	done
	verdict "per-char write tmpfs (syscall)" fsbench "$(med "$W/b.sp")" bonnie++ "$(med "$W/b.bp")" ge 1.0
	runs fsbench "$W/b.sp" bonnie++ "$W/b.bp"
	verdict "per-char read tmpfs (syscall)" fsbench "$(med "$W/b.sg")" bonnie++ "$(med "$W/b.bg")" ge 1.0
	runs fsbench "$W/b.sg" bonnie++ "$W/b.bg"
fi

# ---- (c) xfs on a loop device with direct I/O ----
if [[ $ONLY == *c* ]]; then
	echo
	echo "== (c) xfs on a 2 GiB loop device (direct I/O): $XFS_FILE buffered, $XFS_DIRECT O_DIRECT, $CHUNK chunks"
	IMG=$W/xfs.img XFS=$W/xfs
	XFS_FILE_B=$(bytes "$XFS_FILE") XFS_DIRECT_B=$(bytes "$XFS_DIRECT")
	# Filled with random data first: reading a sparse or zeroed image can
	# cost the host nothing (holes, zero detection), which is no device.
	dd if=/dev/urandom of="$IMG" bs=1M count=2048 conv=fsync status=none ||
		die "cannot make $IMG"
	DEV=$(losetup --find --show --direct-io=on "$IMG") || die "cannot attach $IMG"
	undo "detach_loop '$DEV' '$IMG'"
	[ "$(losetup -n -O DIO "$DEV" | tr -d ' ')" = 1 ] || die "$DEV is not in direct I/O mode"
	# The raw device: read-only, O_DIRECT, 1 MiB requests (only ours),
	# before mkfs, over the random data. With 8 requests in flight: a
	# buffered sequential read has readahead in flight too, and measured
	# 1.3-2.5x a one-at-a-time (psync) reading here, so that is no ceiling.
	for ((i = 1; i <= REPEAT; i++)); do
		fio_once "$DEV" read --readonly --direct=1 --bs=1m --size="$XFS_FILE" \
			--ioengine=libaio --iodepth=8 >>"$W/c.raw"
	done
	raw=$(med "$W/c.raw")
	mkfs.xfs -q -f "$DEV" || die "mkfs.xfs $DEV failed"
	mkdir "$XFS" && mount -t xfs "$DEV" "$XFS" || die "cannot mount $DEV"
	undo "umount '$XFS'"
	echo "  device $DEV (direct I/O on), image $IMG; raw read $(human "$raw") (direct, 1 MiB, 8 in flight)"
	runs "raw device" "$W/c.raw"

	for ((i = 1; i <= REPEAT; i++)); do
		# --cache=drop vs fio's buffered read (fio drops the file's cache
		# first: invalidate=1). Both files cannot fit at once: fsbench
		# removes its own at exit; fio's is written and fsynced first, so
		# no dirty page escapes the invalidation.
		wait_free "$XFS" $((XFS_FILE_B + XFS_FILE_B / 25 + (4 << 20)))
		fsb_once "$W/c-drop$i.json" read:"$W/c.sdrop" -- --tests read --size "$XFS_FILE" \
			--chunk "$CHUNK" --min-time 0.1 --cache drop "$XFS"
		fio --name=layout --filename="$XFS/fio.dat" --rw=write --bs=1m --size="$XFS_FILE" \
			--ioengine=psync --end_fsync=1 --output-format=terse >/dev/null 2>&1 ||
			die "fio cannot lay out $XFS/fio.dat"
		fio_once "$XFS/fio.dat" read --bs="$CHUNK" --size="$XFS_FILE" --invalidate=1 >>"$W/c.fdrop"
		rm -f "$XFS/fio.dat"
		# --cache=direct vs fio direct=1: write then read, same chunk and
		# size, each reading the file it wrote itself.
		wait_free "$XFS" $((XFS_DIRECT_B + XFS_DIRECT_B / 25 + (4 << 20)))
		fsb_once "$W/c-direct$i.json" write:"$W/c.sdw" read:"$W/c.sdr" -- --tests write,read \
			--size "$XFS_DIRECT" --chunk "$CHUNK" --min-time 0.1 --cache direct "$XFS"
		fio_once "$XFS/fio.dat" write --bs="$CHUNK" --size="$XFS_DIRECT" --direct=1 \
			--end_fsync=1 --fallocate=none >>"$W/c.fdw"
		fio_once "$XFS/fio.dat" read --bs="$CHUNK" --size="$XFS_DIRECT" --direct=1 >>"$W/c.fdr"
		rm -f "$XFS/fio.dat"
	done
	# bonnie++'s block read of a file of the same size: it reads what it
	# has just written, from the page cache.
	wait_free "$XFS" $((XFS_FILE_B + XFS_FILE_B / 25 + (4 << 20)))
	csv=$(bonnie_csv "$XFS" -s "$XFS_FILE" -f -m xfs) || exit 2
	echo "  bonnie++: $csv"
	bbr=$(field "$csv" 17)

	drop=$(med "$W/c.sdrop") dread=$(med "$W/c.sdr")
	verdict "block read xfs --cache=drop" fsbench "$drop" "fio buffered" "$(med "$W/c.fdrop")" within 0.10
	runs fsbench "$W/c.sdrop" fio "$W/c.fdrop"
	verdict "block read xfs --cache=direct" fsbench "$dread" "fio direct=1" "$(med "$W/c.fdr")" within 0.10
	runs fsbench "$W/c.sdr" fio "$W/c.fdr"
	verdict "block write xfs --cache=direct" fsbench "$(med "$W/c.sdw")" "fio direct=1" "$(med "$W/c.fdw")" within 0.10
	runs fsbench "$W/c.sdw" fio "$W/c.fdw"
	verdict "block read xfs --cache=drop vs device" fsbench "$drop" "raw device" "$raw" le 1.0
	verdict "block read xfs --cache=direct vs device" fsbench "$dread" "raw device" "$raw" le 1.0
	if [[ $bbr =~ ^[0-9]+$ ]]; then
		echo "block read xfs, for contrast: bonnie++ $(human $((bbr * 1024))), raw device $(human "$raw"), ratio $(python3 -c "print('%.2f' % ($bbr * 1024 / $raw))") (bonnie++ reads the page cache; no target)"
	else
		# bonnie++ prints +++++ for a test under 0.5 s.
		echo "block read xfs, for contrast: bonnie++ '$bbr' (read $XFS_FILE in under 0.5 s: above $(human "$(python3 -c "print($(bytes "$XFS_FILE") / 0.5)")"), from the page cache), raw device $(human "$raw") (no target)"
	fi
	echo "  fsbench device bytes, --cache=drop read: $(jfig "$W/c-drop1.json" read device) (work $(jfig "$W/c-drop1.json" read work) B)"
fi

# ---- (d) the default run on tmpfs ----
# Defaults throughout; only the view is JSON (the CV is in no other view).
# bonnie++ prints '+++++' for a test that ran under 0.5 s: fsbench must
# instead have a figure > 0 for every test, each from runs >= --min-time.
if [[ $ONLY == *d* ]]; then
	echo
	echo "== (d) tmpfs: 'fsbench run' with defaults (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	t0=$(date +%s.%N)
	"$FSBENCH" run --format json -o "$W/d.json" "$TMPFS" 2>"$W/d.err"; rc=$?
	t1=$(date +%s.%N)
	[ $rc -eq 0 ] || { cat "$W/d.err" >&2; die "default fsbench run failed (exit $rc)"; }
	[ -s "$W/d.err" ] && sed 's/^/  (fsbench said) /' "$W/d.err"
	python3 - "$W/d.json" >"$W/d.check" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
mt = d["params"]["min_time_s"]
tests = d["tests"]
def h(v, unit):
    if unit != "B/s":
        return "%.0f %s" % (v, unit)
    for u, k in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if v >= k:
            return "%.3g %s" % (v / k, u)
    return "%.0f B/s" % v
for t in tests:
    print("row -   %-12s %12s  cv %5.1f%%  mean run %5.2f s  work %d" % (t["id"],
          h(t["median"], t["unit"]), 100 * t["cv"], t.get("elapsed_s", 0), t["work"]))
bad = [t["id"] for t in tests if not t["median"] > 0 or t.get("elapsed_s", 0) < mt]
shortest = min(tests, key=lambda t: t.get("elapsed_s", 0))
print("measured %d %d figures, all > 0, shortest mean run %.2f s (%s), target >= %.1f s%s" % (
    not bad, len(tests), shortest.get("elapsed_s", 0), shortest["id"], mt,
    "" if not bad else "; short: " + ",".join(bad)))
for t in tests:
    if t["id"] in ("write", "rewrite", "read"):
        print("cv-%s %d %.1f%% (target < 10%%)" % (t["id"], t["cv"] < 0.10, 100 * t["cv"]))
EOF
	wall=$(python3 -c "print('%.1f' % ($t1 - $t0))")
	while read -r what good text; do
		case $what in
		row) echo "  $text" ;;
		measured) check "default run tmpfs, no '+++++'" "$good" "$text" ;;
		cv-*) check "default run tmpfs ${what#cv-} CV" "$good" "$text" ;;
		esac
	done <"$W/d.check"
	check "default run tmpfs wall time" "$(python3 -c "print(int($wall < 60))")" \
		"${wall} s (target < 60 s; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
fi

# ---- (e) peak RSS at --size 4g ----
if [[ $ONLY == *e* ]]; then
	echo
	echo "== (e) tmpfs: peak RSS of 'fsbench run --size $RSS_SIZE --tests write,read'"
	wait_free "$TMPFS" $(($(bytes "$RSS_SIZE") + (64 << 20))) || die "$TMPFS lacks room for $RSS_SIZE"
	/usr/bin/time -f %M -o "$W/rss" "$FSBENCH" run --size "$RSS_SIZE" --tests write,read \
		--progress never --format json -o "$W/e.json" "$TMPFS" 2>"$W/e.err" ||
		{ cat "$W/e.err" >&2; die "fsbench --size $RSS_SIZE failed"; }
	kib=$(tail -n 1 "$W/rss")
	echo "  work: write $(jfig "$W/e.json" write work) B, read $(jfig "$W/e.json" read work) B"
	check "peak RSS --size $RSS_SIZE" "$(python3 -c "print(int($kib < 32 * 1024))")" \
		"$(python3 -c "print('%.1f MiB' % ($kib / 1024))") (target < 32 MiB)"
fi

echo
echo "vs-peers: $MET targets met, $MISSED missed (load average $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$MISSED" -eq 0 ]
