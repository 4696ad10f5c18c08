#!/bin/bash
# fsbench guest: usage errors (exit 2); refusals before anything boots
# (qemu missing, a module absent from the kernel: exit 1, one line naming
# it); then, when qemu-system-x86_64 and a guest kernel are there, one boot
# running a JFFS2 lifecycle on a 64 MiB blank emulated flash (every phase
# in the returned JSON, the guest marked in host, the copy read back and
# verified in the guest), one matrix setup with guest = yes (the same
# lifecycle, its row marked), run on reiserfs made and mounted in the
# guest (--fs), and a guest made to hang, killed at
# --guest-timeout with its scratch files removed. About 2 minutes under TCG.
. "$(dirname "$0")/lib.sh"

tmpdir T
err=$T/err

expect_exit 2 "no command is a usage error" "$FSBENCH" guest 2>"$err"
expect_exit 2 "only run and lifecycle run in a guest" "$FSBENCH" guest -- compare x.json 2>>"$err"
expect_exit 2 "--disk below 1 MiB is refused" "$FSBENCH" guest --disk 100k -- run 2>>"$err"
expect_exit 2 "--format after -- is refused" "$FSBENCH" guest -- lifecycle -f json 2>>"$err"
expect_exit 2 "--accel takes auto, kvm, tcg" "$FSBENCH" guest --accel xen -- run 2>>"$err"
check "usage errors are one line each" test "$(grep -c '^fsbench: ' "$err")" -eq 5
# The inner command goes through run's own parser: a bad one is a usage
# error before anything boots (no qemu on PATH: a boot would fail with 1).
PATH=/nonexistent "$FSBENCH" guest -- run --bogus >/dev/null 2>"$err"
rc=$?
check "an inner command run refuses: exit 2 before anything boots, run's message" \
	sh -c "[ $rc -eq 2 ] && [ \"\$(cat '$err')\" = \"fsbench: unknown option '--bogus' (see --help)\" ]"
check "--help names the options" sh -c "'$FSBENCH' guest --help | grep -q -- --guest-timeout"

PATH=/nonexistent "$FSBENCH" guest -- run --version >/dev/null 2>"$err"
rc=$?
check "qemu missing: exit 1 naming the package" \
	sh -c "[ $rc -eq 1 ] && grep -q 'qemu-system-x86' '$err' && [ \$(wc -l <'$err') -eq 1 ]"

# The kernel `fsbench guest` would boot: the running one's, else the cache.
kernel=
if [ -f "/boot/vmlinuz-$(uname -r)" ] && [ -f "/lib/modules/$(uname -r)/modules.dep" ]; then
	kernel=/boot/vmlinuz-$(uname -r)
else
	kernel=$(ls -1 "${XDG_CACHE_HOME:-$HOME/.cache}"/fsbench/kernel/boot/vmlinuz-* 2>/dev/null | tail -n1)
fi

if [ -n "$kernel" ]; then
	mkdir -p "$T/mods" && : >"$T/mods/modules.dep"
	"$FSBENCH" guest --kernel "$kernel" --modules "$T/mods" -- run --version >/dev/null 2>"$err"
	rc=$?
	check "a module absent from the kernel: exit 1 naming it, before boot" \
		sh -c "[ $rc -eq 1 ] && grep -q \"module 'virtio_pci' is not in kernel\" '$err'"
else
	skip "a module absent from the kernel" "no guest kernel (make guest-kernel)"
fi

if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "jffs2 lifecycle in a guest" "qemu-system-x86_64 missing (package qemu-system-x86)"
	skip "a hung guest is killed" "qemu-system-x86_64 missing"
	done_testing
	exit 0
fi
if [ -z "$kernel" ]; then
	skip "jffs2 lifecycle in a guest" "no guest kernel (run make guest-kernel)"
	skip "a hung guest is killed" "no guest kernel"
	done_testing
	exit 0
fi
for tool in busybox flash_erase; do
	if ! command -v "$tool" >/dev/null && [ ! -x "/usr/sbin/$tool" ]; then
		skip "jffs2 lifecycle in a guest" "$tool missing"
		skip "a hung guest is killed" "$tool missing"
		done_testing
		exit 0
	fi
done

# ---- one boot: JFFS2 on a 64 MiB blank (0xff) flash, format on mount ----
out=$T/jffs2.json
TMPDIR=$T "$FSBENCH" guest --disk 64m,fill=0xff -f json -o "$out" -- \
	lifecycle --fs jffs2 --mtd /dev/vda,128k --repeat 1 2>"$err"
rc=$?
if [ $rc -ne 0 ]; then
	nok "jffs2 lifecycle in a guest (exit $rc): $(tail -n 15 "$err" | tr '\n' '|')"
else
	ok "jffs2 lifecycle in a guest"
fi
check "every phase is in the returned JSON" test "$(json_get "$out" \
	"','.join(t['id'] for t in d['tests'])" 2>/dev/null)" = \
	"mkfs-mount,mkfs-umount,mount-umount,write,read"
check "the read phase read back (and verified) the 16 MiB copy" test "$(json_get "$out" \
	"[t['work'] for t in d['tests'] if t['id'] == 'read'][0]" 2>/dev/null)" = 16777216
check "host says the result came from a guest, with its acceleration" test "$(json_get "$out" \
	"('(guest, ' in d['host']['kernel']) and d['params']['guest_accel'] in ('tcg', 'kvm')" \
	2>/dev/null)" = True
check "the flash was jffs2 on an MTD device" test "$(json_get "$out" \
	"d['setup']['fs_type'] + ' ' + d['params']['mtd_device']" 2>/dev/null)" = "jffs2 /dev/mtd0"
check "its scratch files are gone" no_scratch_left "$T"

# ---- the matrix: one guest = yes setup, a jffs2 lifecycle on 64 MiB flash ----
printf '%s\n' '[global]' 'image_size = 64m' 'lifecycle = --repeat 1' \
	'[jffs2]' 'guest = yes' 'mtd = 128k' 'mkfs = none' >"$T/m.ini"
# Everything the setup makes is in the matrix's work directory: no TMPDIR.
TMPDIR=/nonexistent "$FSBENCH" matrix -f json -o "$T/m.json" "$T/m.ini" 2>"$err"
rc=$?
if [ $rc -ne 0 ]; then
	nok "a guest matrix setup (exit $rc): $(tail -n 15 "$err" | tr '\n' '|')"
else
	ok "a guest matrix setup"
fi
check "its row is marked as run in a guest" test "$(json_get "$T/m.json" \
	"d['setups'][0]['label']" 2>/dev/null)" = "jffs2 (guest, tcg)"
check "its lifecycle has every phase, the erase complete" test "$(json_get "$T/m.json" \
	"','.join(t['id'] for t in d['setups'][0]['results'][0]['tests']) + ' ' + \
	str(d['setups'][0]['results'][0]['params']['erase_blocks_left_by_umount'])" \
	2>/dev/null)" = "mkfs-mount,mkfs-umount,mount-umount,write,read 0"
check "the note says guest times are not comparable with host rows" test "$(json_get \
	"$T/m.json" "'not comparable with host rows' in d['setups'][0]['note']" 2>/dev/null)" = True
check "its config says the flash was 0xff, not the default fill" test "$(json_get \
	"$T/m.json" "d['setups'][0]['config']['fill']" 2>/dev/null)" = 0xff
check "its scratch files are gone" no_scratch_left "$T"

# ---- run on reiserfs, made and mounted in the guest (--fs, --mkfs) ----
if command -v mkreiserfs >/dev/null || [ -x /usr/sbin/mkreiserfs ] || [ -x /sbin/mkreiserfs ]; then
	out=$T/reiserfs.json
	TMPDIR=$T "$FSBENCH" guest --disk 256m,fill=zero --fs reiserfs \
		--mkfs 'mkreiserfs -q -f -f {dev}' --options notail -f json -o "$out" -- \
		run --size 16m --tests throughput --repeat 1 2>"$err"
	rc=$?
	if [ $rc -ne 0 ]; then
		nok "run on reiserfs in a guest (exit $rc): $(tail -n 15 "$err" | tr '\n' '|')"
	else
		ok "run on reiserfs in a guest"
	fi
	check "it measured reiserfs mounted notail on /dev/vda" test "$(json_get "$out" \
		"d['setup']['fs_type'] + ' ' + d['setup']['device'] + ' ' + \
		str('notail' in d['setup']['mount_options'])" 2>/dev/null)" = "reiserfs /dev/vda True"
	check "every throughput test is in the returned JSON" test "$(json_get "$out" \
		"','.join(t['id'] for t in d['tests'])" 2>/dev/null)" = \
		"putc,write,rewrite,getc,read,seeks"
	check "its scratch files are gone" no_scratch_left "$T"
else
	skip "run on reiserfs in a guest" "mkreiserfs missing (package reiserfsprogs)"
fi
expect_exit 2 "--fs goes with run only" "$FSBENCH" guest --disk 64m --fs ext4 -- \
	lifecycle --fs ext4 --device /dev/vda 2>/dev/null

# ---- a guest that hangs: killed at --guest-timeout, cleaned up ----
start=$(date +%s)
TMPDIR=$T "$FSBENCH" guest --guest-timeout 20 --disk 64m,fill=none -- \
	lifecycle --fs ext4 --device /dev/vda --destroy-data --mkfs 'sleep 600' \
	--phases mkfs --repeat 1 >/dev/null 2>"$err"
rc=$?
took=$(($(date +%s) - start))
check "a hung guest: exit 1" test $rc -eq 1
check "killed at the timeout (took ${took}s)" test $took -lt 40
if grep -q 'killed after --guest-timeout 20' "$err" && grep -q '  | ' "$err"; then
	ok "the error names the timeout and shows the console"
else
	nok "the error names the timeout and shows the console"; diag "$err"
fi
check "no QEMU of ours is left" sh -c "! pgrep -f 'qemu-system-x86_6[4].*$T' >/dev/null"
check "its scratch files are gone" no_scratch_left "$T"

done_testing
