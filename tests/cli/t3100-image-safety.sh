#!/bin/bash
# Images, devices and mkfs templates never destroy what fsbench was not
# given. Each hostile case is planted, fsbench is run, and the victims'
# sha256 (and sizes, modes, links) are compared before and after:
#   lifecycle --image: an ext4 image holding a file (refused without
#   --destroy-data, naming ext4; accepted with it), a text file, a larger
#   file with a smaller --image-size, a symlink to a victim, another
#   user's file; a new image is made 0600 and removed when the run fails;
#   two lifecycles on one image (or one --device): the second fails at once
#   naming the first's PID; --phases without write/read ignore --copy-size;
#   --fs must be a type name;
#   mkfs templates naming a device fsbench did not make (the device, a
#   symlink to it, --opt=DEV), in a matrix file (exit 2 naming the line,
#   before anything is made) and in lifecycle --mkfs;
#   matrix INI files another user could change: writable by others, owned
#   by nobody, in a world-writable directory without the sticky bit; a file
#   owned by SUDO_UID is accepted; matrix images are 0600.
# Only what this script made is ever detached or removed.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
export TMPDIR=$T
W=$T/work
mkdir "$W"

sha() { sha256sum "$1" | cut -d' ' -f1; }
no_loop_of() { [ -z "$(losetup -j "$1" 2>/dev/null)" ]; }

# ---------------- usage (no root needed) ----------------
"$FSBENCH" lifecycle --fs ../../bin/sh --image "$T/u.img" --image-size 64m >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && grep -q "invalid --fs '../../bin/sh': expected a filesystem type name" "$T/err" &&
	[ ! -e "$T/u.img" ]; then
	ok "--fs ../../bin/sh: exit 2, the type is invalid (not 'required')"
else
	nok "--fs ../../bin/sh: exit 2, the type is invalid (exit $rc)"; diag "$T/err"
fi

if ! is_root; then
	skip "image and device safety" "needs root (loop devices, chown, mount)"
	done_testing
	exit 0
fi

# lc NAME ARGS...: run lifecycle (small and quick), status in $rc, stderr in $T/NAME.err.
lc() {
	local name=$1; shift
	"$FSBENCH" lifecycle --fs ext4 --repeat 1 --copy-size 1m --progress never \
		--format json -o "$T/$name.json" "$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
}

# ---------------- existing images ----------------
# An ext4 image with a file in it (mkfs.ext4 -d fills it, no mount needed).
mkdir "$T/content"
echo "the only copy" >"$T/content/thesis.txt"
truncate -s 64m "$T/e4.img"
mkfs.ext4 -q -F -d "$T/content" "$T/e4.img"
before=$(sha "$T/e4.img")
lc e4 --image "$T/e4.img"
if [ $rc -eq 1 ] && one_line "$T/e4.err" && grep -q 'signature (ext4) (rule: signature)' "$T/e4.err" &&
	grep -q -- '--destroy-data' "$T/e4.err" && [ "$(sha "$T/e4.img")" = "$before" ] &&
	no_loop_of "$T/e4.img"; then
	ok "image with an ext4 filesystem: refused naming ext4 and --destroy-data, unchanged"
else
	nok "image with an ext4 filesystem: refused, unchanged (exit $rc)"; diag "$T/e4.err"
fi
lc e4d --image "$T/e4.img" --destroy-data
if [ $rc -eq 0 ] && [ "$(sha "$T/e4.img")" != "$before" ] && no_loop_of "$T/e4.img"; then
	ok "image with an ext4 filesystem, --destroy-data: used, exit 0"
else
	nok "image with an ext4 filesystem, --destroy-data: used (exit $rc)"; diag "$T/e4d.err"
fi

printf 'dear diary\n' >"$T/text.img"
before=$(sha "$T/text.img")
lc text --image "$T/text.img" --image-size 64m
if [ $rc -eq 1 ] && one_line "$T/text.err" && grep -q 'not empty' "$T/text.err" &&
	[ "$(sha "$T/text.img")" = "$before" ] && [ "$(stat -c %s "$T/text.img")" -eq 11 ]; then
	ok "a text file as the image: refused, unchanged (not refilled, not resized)"
else
	nok "a text file as the image: refused, unchanged (exit $rc)"; diag "$T/text.err"
fi

truncate -s 128m "$T/big.img"
printf 'data at the start' | dd of="$T/big.img" conv=notrunc status=none
before=$(sha "$T/big.img")
lc big --image "$T/big.img" --image-size 64m
if [ $rc -eq 1 ] && grep -q 'resize it from 128.0 MiB to 64.0 MiB' "$T/big.err" &&
	[ "$(stat -c %s "$T/big.img")" -eq $((128 << 20)) ] && [ "$(sha "$T/big.img")" = "$before" ]; then
	ok "larger image, smaller --image-size: refused, size and content unchanged"
else
	nok "larger image, smaller --image-size: refused, unchanged (exit $rc)"; diag "$T/big.err"
fi

printf 'root-owned secrets\n' >"$T/victim"
before=$(sha "$T/victim")
ln -s "$T/victim" "$T/link.img"
lc link --image "$T/link.img" --image-size 64m
lc link2 --image "$T/link.img" --image-size 64m --destroy-data; rc2=$rc
if grep -q 'it is a symbolic link (rule: symlink' "$T/link.err" && [ "$rc2" -eq 1 ] &&
	grep -q 'symbolic link' "$T/link2.err" && [ "$(sha "$T/victim")" = "$before" ] &&
	[ "$(stat -c %s "$T/victim")" -eq 19 ] && [ -L "$T/link.img" ]; then
	ok "symlink planted as the image: refused, with --destroy-data too; victim unchanged"
else
	nok "symlink planted as the image: refused, victim unchanged (exit $rc2)"
	diag "$T/link.err"; diag "$T/link2.err"
fi

: >"$T/nobody.img"
chown nobody "$T/nobody.img"
lc nobody --image "$T/nobody.img" --image-size 64m --destroy-data
if [ $rc -eq 1 ] && one_line "$T/nobody.err" && grep -q "owned by uid $(id -u nobody)" "$T/nobody.err" &&
	[ "$(stat -c %s "$T/nobody.img")" -eq 0 ] && no_loop_of "$T/nobody.img"; then
	ok "image owned by nobody: refused (with --destroy-data too), not resized or attached"
else
	nok "image owned by nobody: refused (exit $rc)"; diag "$T/nobody.err"
fi

# ---------------- new images ----------------
(umask 000; exec "$FSBENCH" lifecycle --fs ext4 --image "$T/new.img" --image-size 64m --repeat 1 \
	--phases mount-umount --progress never --quiet >/dev/null 2>"$T/new.err"); rc=$?
if [ $rc -eq 0 ] && [ "$(stat -c %a "$T/new.img")" = 600 ] && [ "$(stat -c %s "$T/new.img")" -eq $((64 << 20)) ]; then
	ok "new image: created with mode 0600 (even under umask 000), kept after success"
else
	nok "new image: created 0600 (exit $rc, mode $(stat -c %a "$T/new.img" 2>&1))"; diag "$T/new.err"
fi
lc fail --image "$T/fail.img" --image-size 64m --mkfs 'mkfs.ext4 -q -F -b 999 {dev}'
if [ $rc -eq 1 ] && [ ! -e "$T/fail.img" ] && no_loop_of "$T/fail.img"; then
	ok "new image, run fails: the image made for it is removed"
else
	nok "new image, run fails: removed (exit $rc)"; diag "$T/fail.err"
fi

# --copy-size only matters to the phases that copy.
lc small --image "$T/small.img" --image-size 8m --copy-size 16m --phases mount-umount
if [ $rc -eq 0 ]; then
	ok "--phases mount-umount on 8 MiB with --copy-size 16m: accepted (no copy made)"
else
	nok "--phases mount-umount: --copy-size not checked (exit $rc)"; diag "$T/small.err"
fi

# ---------------- two runs on one image, on one device ----------------
# second_run NAME FIRST_PID ARGS...: the second run must fail at once
# (exit 1, within 5 s) naming the first, which must still be running.
second_run() {
	local name=$1 pid=$2 what=$3 start; shift 3
	start=$(date +%s)
	lc "$name" "$@"
	if [ $rc -eq 1 ] && one_line "$T/$name.err" &&
		grep -q "$what is in use by fsbench PID $pid\$" "$T/$name.err" &&
		[ $(($(date +%s) - start)) -le 5 ] && kill -0 "$pid" 2>/dev/null; then
		ok "$name: the second run fails at once, naming the first's PID $pid"
	else
		nok "$name: the second run fails at once, naming PID $pid (exit $rc)"; diag "$T/$name.err"
	fi
}

attached() { [ -n "$(losetup -j "$1" 2>/dev/null)" ]; }
locked_by() { grep -q "FLOCK .* $1 " /proc/locks; }

"$FSBENCH" lifecycle --fs ext4 --image "$T/c.img" --image-size 64m --fill none --repeat 40 --copy-size 8m \
	--progress never --format json -o "$T/c1.json" >/dev/null 2>"$T/c1.err" &
pid=$!
on_exit "kill -9 $pid"
if wait_for 30 attached "$T/c.img"; then
	second_run concurrent-image $pid "image '$T/c.img'" --image "$T/c.img" --image-size 64m --destroy-data
else
	nok "concurrent-image: the first run never attached its image"; diag "$T/c1.err"
fi
wait $pid; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/c1.json" 'assert len(d["tests"]) == 6'; then
	ok "concurrent-image: the first run succeeds"
else
	nok "concurrent-image: the first run succeeds (exit $rc)"; diag "$T/c1.err"
fi

truncate -s 64m "$T/dev.img"
loop_attach "$T/dev.img" DEV || { echo "Bail out! cannot attach a loop device"; exit 1; }
"$FSBENCH" lifecycle --fs ext4 --device "$DEV" --repeat 40 --copy-size 8m \
	--progress never --format json -o "$T/d1.json" >/dev/null 2>"$T/d1.err" &
pid=$!
on_exit "kill -9 $pid"
if wait_for 30 locked_by $pid; then
	second_run concurrent-device $pid "device '$DEV'" --device "$DEV" --destroy-data
else
	nok "concurrent-device: the first run never locked the device"; diag "$T/d1.err"
fi
wait $pid; rc=$?
check "concurrent-device: the first run succeeds" [ $rc -eq 0 ]

# ---------------- mkfs templates naming other devices ----------------
truncate -s 16m "$T/other.img"
mkfs.ext4 -q -F "$T/other.img"
loop_attach "$T/other.img" OTHER || { echo "Bail out! cannot attach a loop device"; exit 1; }
ln -s "$OTHER" "$T/other-link"
before=$(sha "$OTHER")

# bad_template DESC TEMPLATE: refused at load (exit 2, naming line 6),
# nothing made, the other device unchanged.
bad_template() {
	local what=$1 ini=$T/tmpl.ini
	printf '[global]\nworkdir = %s\nimage_size = 64m\nrun = --size 1m --repeat 1\n[ext4]\nmkfs = %s\n' \
		"$W" "$2" >"$ini"
	"$FSBENCH" matrix --progress never "$ini" >"$T/tmpl.out" 2>"$T/tmpl.err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/tmpl.err" && grep -q "^fsbench: $ini:6: invalid mkfs '" "$T/tmpl.err" &&
		grep -q 'which fsbench did not make for it' "$T/tmpl.err" && no_scratch_left "$W" &&
		[ "$(sha "$OTHER")" = "$before" ] && [ "$(blkid -o value -s TYPE "$OTHER")" = ext4 ]; then
		ok "matrix mkfs naming $what: exit 2 naming the line, nothing made, device unchanged"
	else
		nok "matrix mkfs naming $what: exit 2, device unchanged (exit $rc)"; diag "$T/tmpl.err"
	fi
}
bad_template "$OTHER" "wipefs -a $OTHER {dev}"
bad_template "a symlink to $OTHER" "wipefs -a $T/other-link {dev}"
bad_template "--opt=$OTHER" "wipefs -a --opt=$OTHER {dev}"
bad_template "-d$OTHER" "mkfs.ext4 -qd$OTHER {dev}"

lc tmpl --image "$T/t.img" --image-size 64m --mkfs "wipefs -a $OTHER {dev}"
if [ $rc -eq 2 ] && one_line "$T/tmpl.err" && grep -q "invalid --mkfs 'wipefs -a $OTHER {dev}'" "$T/tmpl.err" &&
	[ ! -e "$T/t.img" ] && [ "$(sha "$OTHER")" = "$before" ]; then
	ok "lifecycle --mkfs naming $OTHER: exit 2, nothing made, device unchanged"
else
	nok "lifecycle --mkfs naming $OTHER: exit 2, device unchanged (exit $rc)"; diag "$T/tmpl.err"
fi

# ---------------- matrix files another user could change ----------------
INI=$T/trust.ini
printf '[global]\nworkdir = %s\nrun = --size 1m\n[ext4]\n' "$W" >"$INI"
chmod 0644 "$INI"
# mx_refused DESC GREP FILE [ENV...]: exit 2, one line matching GREP, nothing made.
mx_refused() {
	local what=$1 pat=$2 f=$3; shift 3
	env "$@" "$FSBENCH" matrix --progress never "$f" >"$T/mx.out" 2>"$T/mx.err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/mx.err" && grep -q -- "$pat" "$T/mx.err" && no_scratch_left "$W"; then
		ok "matrix file $what: exit 2, one line, nothing made"
	else
		nok "matrix file $what: exit 2, one line, nothing made (exit $rc)"; diag "$T/mx.err"
	fi
}
chmod o+w "$INI"
mx_refused "writable by others" "chmod go-w '$INI'" "$INI"
chmod go-w "$INI"
chmod g+w "$INI"
mx_refused "writable by its group" "mode 0664" "$INI"
chmod g-w "$INI"
chown nobody "$INI"
mx_refused "owned by nobody" "owned by uid $(id -u nobody)" "$INI"
mx_refused "owned by nobody, SUDO_UID someone else" "owned by uid" "$INI" SUDO_UID=4242
# Accepted for its owner under sudo: the file is read (the setup named is not in it).
env SUDO_UID="$(id -u nobody)" "$FSBENCH" matrix --only nosuch "$INI" >"$T/mx.out" 2>"$T/mx.err"; rc=$?
if [ $rc -eq 2 ] && grep -q "'nosuch' is no setup of '$INI'" "$T/mx.err"; then
	ok "matrix file owned by SUDO_UID: accepted (read and parsed)"
else
	nok "matrix file owned by SUDO_UID: accepted (exit $rc)"; diag "$T/mx.err"
fi
chown root "$INI"
mkdir "$T/open"
chmod 0777 "$T/open"
cp "$INI" "$T/open/m.ini"
mx_refused "in a world-writable directory" "its directory '$T/open' is writable" "$T/open/m.ini"
ln -s "$T/open/m.ini" "$T/via-link.ini"
mx_refused "reached by a symlink into that directory" "its directory '$T/open'" "$T/via-link.ini"
chmod +t "$T/open"
"$FSBENCH" matrix --only nosuch "$T/open/m.ini" >"$T/mx.out" 2>"$T/mx.err"; rc=$?
check "matrix file in a sticky world-writable directory (as /tmp): accepted" \
	grep -q "'nosuch' is no setup of" "$T/mx.err"

# ---------------- matrix images ----------------
cat >"$T/img.ini" <<EOF
[global]
workdir = $W
image_size = 64m
fill = none
run = --size 1m --files 16 --repeat 1 --min-time 0.01 --tests write
[ext2]
EOF
(umask 000; exec "$FSBENCH" matrix --progress never --keep-images --format json -o "$T/img.json" "$T/img.ini") \
	>"$T/img.out" 2>"$T/img.err"; rc=$?
kept=$(find "$W" -name 'setup1-dev1.img')
if [ $rc -eq 0 ] && [ -n "$kept" ] && [ "$(stat -c %a "$kept")" = 600 ] && no_loop_of "$kept"; then
	ok "matrix images: created 0600 (even under umask 000), detached"
else
	nok "matrix images: created 0600 (exit $rc)"; diag "$T/img.err"
fi
[ -n "$kept" ] && rm -rf "$(dirname "$kept")"

done_testing
