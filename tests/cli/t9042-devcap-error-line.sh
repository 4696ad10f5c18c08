#!/bin/bash
# A forgiven device-capability failure is not the run's reason (issue 25,
# #4). On an ext4 on a loop device too small to measure (under 16 MiB) the
# device capability is not measured: one warning line, exit 0. A run there
# that then fails (a write over `ulimit -f`) says one line naming the
# write that failed, not the device capability. Root only: this script
# makes its own image, loop device and mount and releases exactly those.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
if ! is_root || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	skip "device capability failure lines" "needs root, losetup and mkfs.ext4"
	done_testing
	exit 0
fi

tmpdir T || exit 1
IMG=$T/small.img
truncate -s 12m "$IMG" || exit 1
INO=$(stat -c %i "$IMG")
detach_own() {
	[ "$(losetup -n -O BACK-INO "$1" 2>/dev/null | tr -d ' ')" = "$2" ] && losetup -d "$1"
}
DEV=$(losetup --find --show "$IMG") || { echo "Bail out! cannot attach $IMG"; exit 1; }
on_exit "detach_own '$DEV' '$INO'"
mkfs.ext4 -q -F "$DEV" >/dev/null 2>&1 && mkdir "$T/mnt" && mount -t ext4 "$DEV" "$T/mnt" ||
	{ echo "Bail out! cannot make an ext4 on $DEV"; exit 1; }
on_exit "umount '$T/mnt'"

SMALL=(--cache direct --tests write --size 4m --repeat 1 --min-time 0.05)

"$FSBENCH" run "${SMALL[@]}" --format json -o "$T/r.json" "$T/mnt" 2>"$T/ok.err"
check "too small to measure: exit 0" test $? -eq 0
# (Other warnings, such as a short --min-time, are not this one's.)
check "too small to measure: one line says so, the warning" \
	eval '[ "$(grep -c "device capability" "$T/ok.err")" -eq 1 ] &&
	grep -q "^fsbench: warning: device capability not measured: .*too small" "$T/ok.err"'
[ "$(grep -c "device capability" "$T/ok.err")" -eq 1 ] || diag "$T/ok.err"

(ulimit -f 1024; exec "$FSBENCH" run "${SMALL[@]}" --quiet --format json -o "$T/f.json" \
	"$T/mnt" 2>"$T/fail.err")
check "a write over ulimit -f after it: exit 1" test $? -eq 1
check "the one line names the write, not the device capability" \
	eval 'one_line "$T/fail.err" && grep -q "^fsbench: write: .*(ulimit -f)" "$T/fail.err"'
one_line "$T/fail.err" || diag "$T/fail.err"
check "nothing left in the filesystem" no_scratch_left "$T/mnt"
done_testing
