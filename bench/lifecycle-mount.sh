#!/bin/bash
# The lifecycle speed check (issue 4).
#
# 1. A mount+umount cycle timed by fsbench costs no more than `mount` +
#    `umount` run from a shell loop on the same loop device: fsbench mounts
#    through libmount in its own process, the shell forks and execs two
#    programs per cycle. Both sides flush the device's buffer cache before
#    every cycle, outside the timing (fsbench: BLKFLSBUF in setup; the
#    shell: blockdev --flushbufs), so both mount cold. Prints the medians
#    and the ratio fsbench / shell (target <= 1.0).
# 2. Timer resolution and overhead: clock_getres(CLOCK_MONOTONIC) and the
#    cost of one fsb_clock_ns() read, measured by a small program built
#    against fsbench's own clock code, and fsbench's shortest measured
#    mount+umount with its digits: a 1 ms phase is measured, not rounded.
#
# Root only (loop device, mounts); everything made here is released at exit.
# Environment:
#   FSBENCH   binary to measure (default ./fsbench, the optimised build)
#   FS        filesystem (default ext4)
#   SIZE      image size (default 64m; xfs needs 300m or more)
#   N         cycles on each side (default 60)
#   ROUNDS    turns the two sides take (default 6)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${FSBENCH:-$TOP/fsbench}
FS=${FS:-ext4}
SIZE=${SIZE:-64m}
N=${N:-60}
ROUNDS=${ROUNDS:-6}

die() { echo "lifecycle-mount: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (loop device, mounts)"
[ -x "$FSBENCH" ] || die "$FSBENCH not built (make fsbench)"
command -v "mkfs.$FS" >/dev/null || die "mkfs.$FS not found"

W=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench.XXXXXX") || die "cannot make a temp dir"
W=$(realpath "$W")
DEV=
cleanup() {
	if awk -v d="$W/mnt" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; then
		umount "$W/mnt"
	fi
	# Detach only the device this script attached, if it still is ours.
	if [ -n "$DEV" ] &&
		[ "$(losetup -n -O BACK-FILE "$DEV" 2>/dev/null | sed 's/ *$//')" = "$W/img" ]; then
		losetup -d "$DEV"
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s "$SIZE" "$W/img" || die "cannot make the image"
DEV=$(losetup --find --show --direct-io=on "$W/img" 2>/dev/null) ||
	DEV=$(losetup --find --show "$W/img") || die "cannot attach a loop device"
case $FS in
xfs | btrfs) "mkfs.$FS" -q -f "$DEV" >/dev/null ;;
*) "mkfs.$FS" -q -F "$DEV" ;;
esac || die "mkfs.$FS failed"
mkdir "$W/mnt"

# Both sides take turns (ROUNDS rounds of N/ROUNDS cycles each) so that a
# change in the machine's load hits both alike; medians are over all cycles.
: >"$W/shell.txt"
: >"$W/fsb.txt"
mount -t "$FS" "$DEV" "$W/mnt" && umount "$W/mnt" || die "mount(8) failed"  # warm-up
PER=$(((N + ROUNDS - 1) / ROUNDS))
for ((r = 0; r < ROUNDS; r++)); do
	# ---- the shell loop: mount(8) + umount(8), each cycle timed ----
	for ((i = 0; i < PER; i++)); do
		blockdev --flushbufs "$DEV"
		t0=$EPOCHREALTIME
		mount -t "$FS" "$DEV" "$W/mnt"
		umount "$W/mnt"
		t1=$EPOCHREALTIME
		echo "$t0 $t1" >>"$W/shell.txt"
	done
	# ---- fsbench: the mount-umount phase on the same device ----
	# --fill none --refill once: fsbench makes a fresh filesystem once in
	# setup (untimed), as the shell side had one made above.
	"$FSBENCH" lifecycle --fs "$FS" --device "$DEV" --destroy-data --fill none \
		--refill once --phases mount-umount --repeat "$PER" --progress never \
		--format json -o "$W/fsb.json" || die "fsbench lifecycle failed"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("\n".join(repr(v) for v in d["tests"][0]["runs"]))' "$W/fsb.json" >>"$W/fsb.txt"
done

# ---- timer resolution and overhead, with fsbench's own clock code ----
cat >"$W/clk.c" <<'EOF'
#include <stdio.h>
#include "stats/clock.h"
int main(void)
{
	enum { N = 1000000 };
	volatile uint64_t sink = 0;
	uint64_t t0 = fsb_clock_ns();
	for (int i = 0; i < N; i++)
		sink += fsb_clock_ns();
	uint64_t t1 = fsb_clock_ns();
	printf("%llu %.1f\n", (unsigned long long)fsb_clock_res_ns(), (double)(t1 - t0) / N);
	return (int)(sink & 0);
}
EOF
CLK=$(cc -O2 -std=c11 -D_GNU_SOURCE -I"$TOP/src" "$W/clk.c" "$TOP/src/stats/clock.c" \
	-o "$W/clk" && "$W/clk") || CLK="? ?"

python3 - "$W/shell.txt" "$W/fsb.txt" "$FS" "$DEV" $CLK <<'EOF'
import statistics, sys
shell_path, fsb_path, fs, dev, res, ovh = sys.argv[1:7]
shell = sorted(float(b) - float(a) for a, b in (l.split() for l in open(shell_path)))
fsb = sorted(float(l) for l in open(fsb_path))
sm, fm = statistics.median(shell), statistics.median(fsb)
ms = lambda s: "%.3f ms" % (s * 1e3)
print("mount+umount cycle on %s (%s, %d cycles each, cold buffer cache)" % (dev, fs, len(fsb)))
print("  shell loop, mount(8)+umount(8): median %s  [%s - %s]" % (ms(sm), ms(shell[0]), ms(shell[-1])))
print("  fsbench lifecycle mount-umount: median %s  [%s - %s]" % (ms(fm), ms(fsb[0]), ms(fsb[-1])))
ratio = fm / sm
print("  ratio fsbench / shell = %.2f (target <= 1.0): %s" % (ratio, "PASS" if ratio <= 1.0 else "FAIL"))
print("timer: CLOCK_MONOTONIC, resolution %s ns (clock_getres), %s ns per read (fsb_clock_ns)" % (res, ovh))
print("  shortest fsbench cycle %.6f s = %d us: phases of 1 ms are measured to the microsecond, not rounded" % (fsb[0], round(fsb[0] * 1e6)))
sys.exit(0 if ratio <= 1.0 else 1)
EOF
