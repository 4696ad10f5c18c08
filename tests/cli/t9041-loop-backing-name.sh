#!/bin/bash
# A loop device's backing file is known only when proven (issue 25, #5).
# /sys/block/loopN/loop/backing_file is the name and a newline: a backing
# file whose name has a newline in it reads as the name of its first line,
# which may be another file (the decoy here). fsbench must name the file
# the device holds (stat of the name gives LOOP_GET_STATUS64's device and
# inode) or say it does not know; never the decoy's name or resident share.
# Root only: this script makes its own image, loop device and mount and
# releases exactly those.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
if ! is_root || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	skip "loop backing file with a newline in its name" "needs root, losetup and mkfs.ext4"
	done_testing
	exit 0
fi

# On a disk's filesystem, as in t9040: the resident share is measured
# only for a loop device over a file that is not in memory.
if ! disk_tmpdir T; then
	skip "loop backing file with a newline in its name" "no directory on a disk's filesystem"
	done_testing
	exit 0
fi

IMG="$T/disk
tail.img"
DECOY="$T/disk"
truncate -s 128m "$IMG" || exit 1
# The decoy is all data and all in memory: its share would be 1.
dd if=/dev/zero of="$DECOY" bs=1M count=4 status=none && cat "$DECOY" >/dev/null || exit 1
INO=$(stat -c %i "$IMG")
DEV=$(losetup --find --show "$IMG") || { echo "Bail out! cannot attach $IMG"; exit 1; }
on_exit "detach_own_ino '$DEV' '$INO'"
mkfs.ext4 -q -F "$DEV" >/dev/null 2>&1 && mkdir "$T/mnt" && mount -t ext4 "$DEV" "$T/mnt" ||
	{ echo "Bail out! cannot make an ext4 on $DEV"; exit 1; }
on_exit "umount '$T/mnt'"

"$FSBENCH" run --cache direct --tests write --size 8m --repeat 1 --min-time 0.05 --quiet \
	--format json -o "$T/r.json" "$T/mnt" 2>"$T/err"
expect_rc=$?
check "run on the loop device's ext4: exit 0, nothing left" \
	test "$expect_rc" -eq 0 -a -z "$(compgen -G "$T/mnt/fsbench.*")"
[ "$expect_rc" -eq 0 ] || diag "$T/err"
check "setup.loop names the file the device holds, never the decoy" \
	pycheck "$T/r.json" '
lo = d["setup"]["loop"]
assert lo["device"] == argv[0].split("/")[-1], lo
b = lo.get("backing_file")
assert b != argv[2], ("decoy named", lo)
# Its full name, newline and all, is proven by stat: it is known.
assert b == argv[1], lo
assert 0 <= lo["backing_resident"] < 1, ("the decoy'"'"'s share?", lo)
' "$DEV" "$IMG" "$DECOY"

# Deleted (the device still holds it): its name is nobody's, unknown.
rm -f "$IMG" || exit 1
"$FSBENCH" run --cache direct --tests write --size 8m --repeat 1 --min-time 0.05 --quiet \
	--format json -o "$T/r2.json" "$T/mnt" 2>"$T/err2"
check "deleted backing file: run exits 0" test $? -eq 0
check "deleted backing file: setup.loop has no backing file, no resident share" \
	pycheck "$T/r2.json" '
lo = d["setup"]["loop"]
assert lo.get("backing_file") is None, lo
assert lo.get("backing_resident") is None, lo
'
done_testing
