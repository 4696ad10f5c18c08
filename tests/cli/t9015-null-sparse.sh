#!/bin/bash
# Hostile (issue 25 item 6): the null engine sizes its files and never
# writes them, which takes no space only where files can be sparse. On a
# filesystem that allocates what ftruncate sizes (vfat) the file is removed
# and the run refused in one line, instead of filling the disk. Root only
# (a loop device and a mount); skipped where mkfs.vfat or vfat is absent.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
if ! is_root || ! command -v mkfs.vfat >/dev/null; then
	skip "null engine on vfat" "needs root and mkfs.vfat (dosfstools)"
	done_testing
	exit 0
fi
truncate -s 128m "$T/v.img" && loop_attach "$T/v.img" V && mkfs.vfat "$V" >/dev/null ||
	{ echo "Bail out! cannot make vfat"; exit 1; }
mkdir "$T/v"
if ! mount -t vfat "$V" "$T/v" 2>/dev/null; then
	skip "null engine on vfat" "this kernel cannot mount vfat"
	done_testing
	exit 0
fi
on_exit "umount '$T/v'"
before=$(used_kib "$T/v")
"$FSBENCH" run --engine null --tests write,read --size 64m --repeat 1 "$T/v" \
	>"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && one_line "$T/err" && grep -q "^fsbench: null engine: FS allocates sized files" "$T/err" &&
	ok "null engine on vfat: refused in one line, exit 1" ||
	{ nok "null engine on vfat: refused in one line (exit $rc)"; diag "$T/err"; }
no_scratch_left "$T/v" && [ "$(used_kib "$T/v")" -le $((before + 64)) ] &&
	ok "null engine on vfat: the sized file is gone, no space kept" ||
	nok "null engine on vfat: the sized file is gone, no space kept"
done_testing
