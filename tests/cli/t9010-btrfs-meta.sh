#!/bin/bash
# Hostile (issue 25 item 1): fsbench's file-set growth must never drive a
# btrfs into ENOSPC on metadata (a transaction abort forces it read-only),
# a --files too large for the metadata is refused before any work, and a
# test after which the filesystem turned read-only or its error counters
# moved stops the run with one line. Root only (loop devices, mounts).
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
if ! is_root || ! command -v mkfs.btrfs >/dev/null; then
	skip "btrfs metadata" "needs root and mkfs.btrfs"
	done_testing
	exit 0
fi
tmpdir T || exit 1
since=$(date '+%Y-%m-%d %H:%M:%S')
dmesg_ok=false
dmesg >/dev/null 2>&1 && dmesg_ok=true

# btrfs_fs NAME MKFS-ARGS NDEV: NDEV 256 MiB images, mkfs, mount at $T/NAME.
btrfs_fs() {
	local name=$1 args=$2 n=$3 devs=() d
	for k in $(seq 1 "$n"); do
		truncate -s 256m "$T/$name-$k.img" || return 1
		loop_attach "$T/$name-$k.img" d || return 1
		devs+=("$d")
	done
	# shellcheck disable=SC2086
	mkfs.btrfs -q -f $args "${devs[@]}" >/dev/null || return 1
	mkdir "$T/$name" && mount -t btrfs "${devs[0]}" "$T/$name" || return 1
	on_exit "umount '$T/$name'"
}

# The issue's run (the block tests first: their data chunks take the
# unallocated space metadata would grow into), with --min-time 3 so that
# growth reaches the metadata's end on this machine too (before the fix:
# "seq-create: out of space at 163840 operations while growing" on RAID-1).
# Single device too: the block tests' data chunks must leave a metadata
# chunk unallocated (before the fix: "seq-create: cannot create directory
# ... after 0 files: No space left on device", data chunks allocated, empty).
for fs in single:"-m single -d single":1:all raid1:"-m raid1 -d raid1":2:all; do
	name=${fs%%:*}; rest=${fs#*:}; args=${rest%%:*}; rest=${rest#*:}; n=${rest%%:*}
	tests=${rest#*:}
	sel=(); [ "$tests" = files ] && sel=(--tests files)
	btrfs_fs "$name" "$args" "$n" || { echo "Bail out! cannot make btrfs $name"; exit 1; }
	M=$T/$name
	"$FSBENCH" run --size 32m --char-size 4m --seeks 1000 --files 1k --repeat 1 \
		--min-time 3 "${sel[@]}" --format json -o "$T/$name.json" "$M" 2>"$T/$name.err"
	rc=$?
	[ $rc -eq 0 ] && ! grep -v '^fsbench: warning: ' "$T/$name.err" | grep -q . &&
		ok "btrfs $name: the file tests exit 0, no error" ||
		{ nok "btrfs $name: the file tests exit 0 (exit $rc)"; diag "$T/$name.err"; }
	! grep -q "out of space" "$T/$name.err" &&
		ok "btrfs $name: growth never ran out of space" ||
		{ nok "btrfs $name: growth never ran out of space"; diag "$T/$name.err"; }
	touch "$M/still-writable" && rm -f "$M/still-writable" &&
		ok "btrfs $name: still writable after" || nok "btrfs $name: still writable after"
	if $dmesg_ok; then
		! dmesg --since "$since" 2>/dev/null | grep -qiE "forced readonly|transaction aborted|Transaction aborted" &&
			ok "btrfs $name: no transaction abort logged" ||
			{ nok "btrfs $name: no transaction abort logged"; dmesg | tail -5 | sed 's/^/#   /'; }
	else
		skip "btrfs $name: no transaction abort logged" "dmesg not readable"
	fi
	check "btrfs $name: every figure present, a short one with its reason" \
		pycheck "$T/$name.json" '
ids = [t["id"] for t in d["tests"]]
files = ["seq-create","seq-stat","seq-delete","rand-create","rand-stat","rand-delete"]
assert ids[-6:] == files and len(ids) == int(argv[0]), ids
for t in d["tests"]:
    assert t["median"] > 0, t["id"]
    if t["id"] in files and t["elapsed_s"] < 3:
        assert t.get("short_reason"), (t["id"], t["elapsed_s"])
' "$([ "$tests" = files ] && echo 6 || echo 12)"
	no_scratch_left "$M" && ok "btrfs $name: no scratch left" || nok "btrfs $name: no scratch left"
	# One device's counters are the test's; of two, either is only a part.
	want="on"; [ "$n" -gt 1 ] && want="off: the filesystem spans several devices"
	check "btrfs $name: device_stats says '$want'" pycheck "$T/$name.json" '
assert d["params"]["device_stats"].startswith(argv[0]), d["params"]["device_stats"]
' "$want"
done

# ---------------- a --files the metadata cannot hold ----------------
M=$T/single
"$FSBENCH" run --files 2000k --tests files "$M" >"$T/big.out" 2>"$T/big.err"
rc=$?
[ $rc -eq 1 ] && one_line "$T/big.err" && grep -q "btrfs metadata.*only .* free" "$T/big.err" &&
	ok "--files too large for the metadata: refused, exit 1, one line with need and free" ||
	{ nok "--files too large for the metadata: refused (exit $rc)"; diag "$T/big.err"; }
no_scratch_left "$M" && [ ! -s "$T/big.out" ] &&
	ok "--files too large: refused before any work" || nok "--files too large: refused before any work"

# Files no larger than max_inline live in the metadata: a count that fits
# as empty files (2 KiB each, counted high) but not with 2 KiB of inline
# data each is refused before any work, the cost per file named.
n=$(python3 -c '
import re, sys
u = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
m = re.search(r"only ([0-9.]+) (\w+) free of which ([0-9.]+) (\w+) stays", open(sys.argv[1]).read())
print(int((float(m[1]) * u[m[2]] - float(m[3]) * u[m[4]]) / 3072))' "$T/big.err" 2>/dev/null)
if [ -n "$n" ] && "$FSBENCH" run --files "$n:2k:2k" --tests files "$M" \
	>"$T/inl.out" 2>"$T/inl.err"; then
	nok "--files $n of 2 KiB (inline): refused before any work (it ran)"
elif [ -n "$n" ] && one_line "$T/inl.err" && grep -q "files x 4096 bytes" "$T/inl.err" &&
	no_scratch_left "$M" && [ ! -s "$T/inl.out" ]; then
	ok "--files $n of 2 KiB (inline data): refused, 4096 bytes a file, before any work"
else
	nok "--files of 2 KiB (inline data): refused, 4096 bytes a file (n=$n)"; diag "$T/inl.err"
fi

# ---------------- the harm detector: ext4 errors raised during a run ----------------
# ext4's trigger_fs_error is the kernel's own ext4_error(): errors_count moves
# (errors=continue), or the filesystem turns read-only (errors=remount-ro).
for mode in continue remount-ro; do
	truncate -s 256m "$T/e-$mode.img" && loop_attach "$T/e-$mode.img" E &&
		mkfs.ext4 -q -F "$E" && mkdir "$T/e-$mode" &&
		mount -o errors=$mode "$E" "$T/e-$mode" || { echo "Bail out! ext4"; exit 1; }
	on_exit "umount '$T/e-$mode'"
	dev=$(basename "$(realpath "$E")")
	if [ ! -w "/sys/fs/ext4/$dev/trigger_fs_error" ]; then
		skip "harm detector ($mode)" "no trigger_fs_error"
		continue
	fi
	M=$T/e-$mode
	( wait_for 20 compgen -G "$M/fsbench.*/files.set" >/dev/null
	  echo 1 >"/sys/fs/ext4/$dev/trigger_fs_error" ) &
	trig=$!
	"$FSBENCH" run --files 4k --tests files --min-time 0.3 "$M" >/dev/null 2>"$T/h-$mode.err"
	rc=$?
	wait $trig
	# errors=remount-ro: since 6.15 ext4 marks itself emergency read-only
	# without SB_RDONLY (statvfs still says rw); its errors_count moves.
	want="filesystem error counters moved after"
	[ $mode = remount-ro ] && want="filesystem (turned read-only|error counters moved) after"
	# One error line (warnings aside): the harm, or the failure it caused,
	# which the harm (and a scratch directory a read-only filesystem kept)
	# then joins.
	[ $rc -eq 1 ] && [ "$(grep -vc '^fsbench: warning: ' "$T/h-$mode.err")" -eq 1 ] &&
		grep -qE "^fsbench: .*[:;] $want [a-z-]+" "$T/h-$mode.err" &&
		ok "harm detector (ext4 errors=$mode): stops at once, exit 1, one line, '$want'" ||
		{ nok "harm detector (ext4 errors=$mode): '$want' (exit $rc)"; diag "$T/h-$mode.err"; }
done
# An error raised before the tests start (while the device's own figures
# are measured) is the run's too: the baseline is read before that.
M=$T/e-continue
dev=$(findmnt -n -o SOURCE "$M" 2>/dev/null); dev=$(basename "$(realpath "$dev" 2>/dev/null)")
if [ -w "/sys/fs/ext4/$dev/trigger_fs_error" ]; then
	( wait_for 20 compgen -G "$M/fsbench.*" >/dev/null
	  echo 1 >"/sys/fs/ext4/$dev/trigger_fs_error" ) &
	trig=$!
	"$FSBENCH" run --size 8m --files 0 --tests write --repeat 1 --min-time 0.05 "$M" \
		>/dev/null 2>"$T/h-early.err"
	rc=$?
	wait $trig
	[ $rc -eq 1 ] && grep -qE "^fsbench: .*filesystem error counters moved after write" "$T/h-early.err" &&
		ok "harm detector: an error raised before the first test is caught after it, exit 1" ||
		{ nok "harm detector: an error raised before the first test (exit $rc)"; diag "$T/h-early.err"; }
else
	skip "harm detector: an error before the first test" "no trigger_fs_error"
fi
done_testing
