#!/bin/bash
# The metadata suite against its peers (issue 3's speed check).
#
# On a tmpfs and on xfs over a loop device, both made here and released at
# exit, with the same file count:
#   - fsbench --tests files vs bonnie++ 2.00a -n: one ratio per figure
#     (fsbench / bonnie++; a figure bonnie++ prints only as +++++ is skipped);
#   - seq-create vs fs_mark -s 0 -S 0 (its Files/sec);
# then, on tmpfs:
#   - linearity: 16x the files -> time ratio per test (target <= 20);
#   - peak RSS of fsbench at 1M files (target < 64 MiB).
# A ratio >= 1.0 means fsbench is at least as fast: the tool is not the
# bottleneck. The tools run in interleaved rounds (fsbench, bonnie++,
# fs_mark, again ...) and each figure is the median of its rounds, so a
# burst of background load hits all of them alike; bonnie++'s own figures
# vary 2x between runs on a loop device.
#
# Root only (mounts, loop devices). Environment:
#   FSBENCH   binary to measure (default ./fsbench, the optimised build)
#   N         file count in bonnie++ -n units of 1024 files (default 128)
#   ROUNDS    interleaved rounds per filesystem (default 3)
#   SMALL BIG file counts of the linearity check (default 65536, 1048576)
# Takes about 6 minutes on a 2-core VM.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${FSBENCH:-$TOP/fsbench}
N=${N:-128}
ROUNDS=${ROUNDS:-3}
SMALL=${SMALL:-65536}
BIG=${BIG:-$((16 * SMALL))}

# Everything made here is released at exit, last made first. (Not lib.sh's
# tmpdir/make_fs: they register cleanup inside $(...), where it is lost.)
_cleanup=()
on_exit() { _cleanup+=("$1"); }
_run_cleanup() {
	local i
	for ((i = ${#_cleanup[@]} - 1; i >= 0; i--)); do
		eval "${_cleanup[$i]}" >/dev/null 2>&1 || true
	done
}
trap _run_cleanup EXIT
trap 'exit 130' INT TERM

# new_tmpdir VAR: a fresh directory, removed at exit, path in $VAR.
new_tmpdir() {
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench.XXXXXX") || return 1
	on_exit "rm -rf '$d'"
	printf -v "$1" %s "$d"
}

# new_xfs SIZE: image + loop device + mkfs.xfs + mount; sets FS_MNT.
new_xfs() {
	local dir dev
	new_tmpdir dir || return 1
	truncate -s "$1" "$dir/img" || return 1
	dev=$(losetup --find --show --direct-io=on "$dir/img" 2>/dev/null) ||
		dev=$(losetup --find --show "$dir/img") || return 1
	on_exit "detach_loop '$dev' '$dir/img'"
	mkfs.xfs -q -f "$dev" || return 1
	FS_MNT=$dir/mnt
	mkdir "$FS_MNT" && mount -t xfs "$dev" "$FS_MNT" || return 1
	on_exit "umount '$FS_MNT'"
}

# new_tmpfs OPTS: a tmpfs mounted in a temp dir; sets FS_MNT.
new_tmpfs() {
	local dir
	new_tmpdir dir || return 1
	FS_MNT=$dir/mnt
	mkdir "$FS_MNT" && mount -t tmpfs -o "$1" fsbench-bench "$FS_MNT" || return 1
	on_exit "umount '$FS_MNT'"
}

die() { echo "files-vs-peers: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (tmpfs and loop mounts)"
[ -x "$FSBENCH" ] || die "no $FSBENCH (run make fsbench)"
for t in bonnie++ fs_mark mkfs.xfs python3; do
	command -v "$t" >/dev/null || die "needs $t (scripts/deps.sh bench)"
done
[ -x /usr/bin/time ] || die "needs GNU time (apt-get install time)"

files=$((N * 1024))
new_tmpdir work || die "no temp dir"

# compare_on LABEL DIR: interleaved rounds, then one line per figure.
compare_on() {
	local label=$1 dir=$2 r
	# fsbench at exactly the peers' count (--min-time 1ms: no growth);
	# --cache keep: bonnie++ and fs_mark do not drop caches either.
	echo "== $label: $files files ($N x 1024), median of $ROUNDS interleaved rounds"
	for ((r = 1; r <= ROUNDS; r++)); do
		/usr/bin/time -f "%U %S" -o "$work/$label-fsbench-$r.cpu" \
			"$FSBENCH" run --tests files --files "$files" --repeat 1 --min-time 1ms \
			--cache keep --progress never --format json -o "$work/$label-fsbench-$r.json" \
			"$dir" || die "fsbench failed in $dir"
		mkdir "$dir/bonnie" || die "cannot mkdir in $dir"
		/usr/bin/time -f "%U %S" -o "$work/$label-bonnie-$r.cpu" \
			bonnie++ -q -d "$dir/bonnie" -s 0 -n "$N" -r 0 -u root -m "$label" \
			>"$work/$label-bonnie-$r.out" 2>/dev/null
		tail -1 "$work/$label-bonnie-$r.out" >"$work/$label-bonnie-$r.csv"
		rm -rf "$dir/bonnie"
		mkdir "$dir/fsmark" || die "cannot mkdir in $dir"
		# fs_mark writes fs_log.txt into its working directory.
		(cd "$work" && fs_mark -d "$dir/fsmark" -s 0 -S 0 -n "$files" -L 1 >"$work/$label-fsmark-$r.txt" 2>&1)
		rm -rf "$dir/fsmark"
	done
	python3 - "$work" "$label" "$ROUNDS" <<'EOF'
import json, statistics, sys
work, label, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
ids = ["seq-create", "seq-stat", "seq-delete", "rand-create", "rand-stat", "rand-delete"]
bon_field = dict(zip(ids, [26, 28, 30, 32, 34, 36]))   # bonnie++ 1.98 CSV (DESIGN.md)
fsb = {i: [] for i in ids}
bon = {i: [] for i in ids}
plus = {i: 0 for i in ids}
fsm = []
for r in range(1, rounds + 1):
    for t in json.load(open(f"{work}/{label}-fsbench-{r}.json"))["tests"]:
        fsb[t["id"]].append(t["median"])
    line = open(f"{work}/{label}-bonnie-{r}.csv").read().strip().split(",")
    for i in ids:
        v = line[bon_field[i]] if len(line) > bon_field[i] else ""
        if v.isdigit():
            bon[i].append(float(v))
        else:
            plus[i] += 1
    for l in open(f"{work}/{label}-fsmark-{r}.txt"):
        f = l.split()
        if len(f) >= 5 and f[0].isdigit() and f[1].isdigit():
            fsm.append(float(f[3]))
for i in ids:
    f = statistics.median(fsb[i])
    if not bon[i]:
        print("%-6s %-12s fsbench %9.0f/s  bonnie++ %9s       ratio   -    (bonnie++: +++++ in every round)"
              % (label, i, f, "+++++"))
        continue
    b = statistics.median(bon[i])
    note = " (bonnie++: +++++ in %d of %d rounds)" % (plus[i], rounds) if plus[i] else ""
    print("%-6s %-12s fsbench %9.0f/s  bonnie++ %9.0f/s     ratio %5.2f%s" % (label, i, f, b, f / b, note))
# The tool's own cost, whatever the load: user CPU per file operation (six
# operations per file; fsbench's also pays for its untimed setup work).
def ucpu(tool):
    v = [float(open(f"{work}/{label}-{tool}-{r}.cpu").read().split()[-2]) for r in range(1, rounds + 1)]
    return statistics.median(v) / (6 * int(fsb_work)) * 1e6
fsb_work = json.load(open(f"{work}/{label}-fsbench-1.json"))["tests"][0]["work"]
print("%-6s user CPU per file operation: fsbench %.2f us, bonnie++ %.2f us" % (label, ucpu("fsbench"), ucpu("bonnie")))
if fsm:
    f, m = statistics.median(fsb["seq-create"]), statistics.median(fsm)
    print("%-6s %-12s fsbench %9.0f/s  fs_mark  %9.0f/s     ratio %5.2f" % (label, "seq-create", f, m, f / m))
else:
    print("%-6s fs_mark printed no Files/sec" % label)
EOF
}

# --- tmpfs and xfs on a loop device -----------------------------------------
new_tmpfs size=4g,nr_inodes=4m || die "cannot mount a tmpfs"
mnt=$FS_MNT
compare_on tmpfs "$mnt"

new_xfs 4g || die "cannot make xfs on a loop device"
compare_on xfs "$FS_MNT"

# --- linearity and peak RSS on tmpfs ------------------------------------------
# Time of a test = its work / its best run's rate: the least disturbed of
# ROUNDS runs, at both sizes. Both sizes are beyond the CPU caches, so the
# ratio shows how cost grows with N, not where the working set stops
# fitting in cache.
echo "== linearity on tmpfs: $SMALL vs $BIG files (best of $ROUNDS; ideal x16, limit x20)"
for n in "$SMALL" "$BIG"; do
	/usr/bin/time -f %M -o "$work/rss-$n" "$FSBENCH" run --tests files --files "$n" \
		--repeat "$ROUNDS" --min-time 1ms --cache keep --progress never --format json \
		-o "$work/lin-$n.json" "$mnt" || die "fsbench failed at $n files"
done
python3 - "$work/lin-$SMALL.json" "$work/lin-$BIG.json" <<'EOF'
import json, sys
a, b = ({t["id"]: t for t in json.load(open(p))["tests"]} for p in sys.argv[1:3])
def best(t):
    return t["work"] / max(t["runs"])
ta = tb = 0
for i in b:
    sa, sb = best(a[i]), best(b[i])
    ta, tb = ta + sa, tb + sb
    print("tmpfs  %-12s %7.3f s -> %7.3f s   x%5.1f  %s" % (i, sa, sb, sb / sa, "ok" if sb / sa <= 20 else "OVER 20"))
print("tmpfs  %-12s %7.3f s -> %7.3f s   x%5.1f  %s" % ("all six", ta, tb, tb / ta, "ok" if tb / ta <= 20 else "OVER 20"))
EOF
echo "== peak RSS of fsbench on tmpfs (limit 64 MiB at 1M files)"
for n in "$SMALL" "$BIG"; do
	awk -v n="$n" '{ printf "tmpfs  %8d files  peak RSS %5.1f MiB\n", n, $1 / 1024 }' "$work/rss-$n"
done
