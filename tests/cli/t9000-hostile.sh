#!/bin/bash
# fsbench never destroys what it was not given: the one place to check it.
# Every hostile case of issue 9 is planted here, fsbench is pointed at it,
# and then the victims are compared with what they were, by sha256 of the
# content (a regular file, a block device) and by stat: type, mode, owner,
# size, device number, symlink target. The manifest below covers every
# path this script planted plus /dev/null; it must not change at all.
#
#   -o /dev/null, -o a character device made here (mknod), -o a FIFO:
#      written in place, still a device / a FIFO, same mode and owner;
#   -o naming an input (compare, report, lifecycle's image, matrix's INI);
#   lifecycle --image: a symlink planted to a victim, an image owned by
#      another user (with --destroy-data too), an image holding an ext4
#      filesystem with a file (refused without --destroy-data);
#   a matrix mkfs template naming another loop device this script made
#      (directly, through a symlink, as --opt=DEV), in an INI with LF and
#      in one with CR-only (old Mac) line ends, which also hides a 5000
#      character line after a bare CR (a stack overflow once);
#   an INI writable by others;
#   run in a directory holding the user's files, one named like a scratch
#      dir; clean of a directory that looks like fsbench's but has no marker.
# Some cases are also in t1300 (output) and t3100 (images); this one is
# where a reader checks "nothing outside what fsbench made changed".
# Root-only parts (mknod, chown, loop devices) skip without root.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
export TMPDIR=$T/tmp       # lifecycle's mountpoints, fallback files
mkdir "$TMPDIR"
V=$T/victims               # everything planted lives here
mkdir "$V"
D=$T/dir                   # run's DIR: holds the user's files
mkdir "$D"
W=$T/work                  # matrix workdir
mkdir "$W"
OUT=$T/out                 # where fsbench may write reports
mkdir "$OUT"

sha() { sha256sum "$1" | cut -d' ' -f1; }
# manifest: one line per planted path (and /dev/null): what it is, and
# for files and our loop device what they hold.
manifest() {
	local p sum
	for p in /dev/null "$D" "$D"/* "$V" "$V"/* "$V"/.[!.]* ${OTHER:+"$OTHER"}; do
		[ -e "$p" ] || [ -L "$p" ] || continue
		sum=-
		if [ -L "$p" ]; then
			sum="-> $(readlink "$p")"
		elif [ -f "$p" ] || [ -b "$p" ]; then
			sum=$(sha "$p")
		fi
		printf '%s %s\n' "$(stat -c '%n %F %a %u:%g %s %t:%T' "$p")" "$sum"
	done
}

# ---------------- plant ----------------
echo "the user's notes" >"$D/notes.txt"
printf 'not a scratch dir\n' >"$D/fsbench.1.aaaaaa"   # a file with a scratch dir's name
chmod 0640 "$D/notes.txt"
mkfifo -m 0620 "$V/fifo"
echo '{"x": 1}' >"$V/input.json"
printf 'root-owned secrets\n' >"$V/secret"
ln -s "$V/secret" "$V/link.img"
# An INI another user could change, and a directory that only looks like fsbench's.
printf '[global]\nworkdir = %s\nrun = --size 1m\n[ext4]\n' "$W" >"$V/open.ini"
chmod 0666 "$V/open.ini"
mkdir -m 0700 "$V/fsbench.4242.zzzzzz"
echo "keep me" >"$V/fsbench.4242.zzzzzz/data"
if is_root; then
	mknod -m 0620 "$V/chr" c 1 3     # a character device of this script's own
	chown nobody "$V/chr"
	: >"$V/nobody.img"
	chown nobody "$V/nobody.img"
	mkdir "$V/content"
	echo "the only copy" >"$V/content/thesis.txt"
	truncate -s 64m "$V/e4.img"
	mkfs.ext4 -q -F -d "$V/content" "$V/e4.img"
	truncate -s 16m "$V/other.img"
	mkfs.ext4 -q -F "$V/other.img"
	loop_attach "$V/other.img" OTHER || { echo "Bail out! cannot attach a loop device"; exit 1; }
	ln -s "$OTHER" "$V/other-link"
fi
# A result for compare and report to read (the null test: instant).
"$FSBENCH" run --tests null --repeat 1 --min-time 0.001 --quiet --format json \
	-o "$V/result.json" "$D" 2>"$T/err" || { diag "$T/err"; echo "Bail out! no result"; exit 1; }
cp "$V/result.json" "$V/result2.json"
manifest >"$T/before"
# The matrix INIs are planted after the first manifest is taken: they are
# compared too, at the end, by a manifest of their own.

# ---------------- point fsbench at it ----------------
QUICK=(run --tests null --repeat 1 --min-time 0.001 --quiet)
# hostile DESC WANT ARGS...: fsbench ARGS exits WANT (one line on stderr
# when WANT is not 0).
hostile() {
	local what=$1 want=$2 rc; shift 2
	timeout "${TMO:-120}" "$FSBENCH" "$@" >"$T/stdout" 2>"$T/err"; rc=$?
	if [ $rc -eq "$want" ] && { [ "$want" -eq 0 ] || one_line "$T/err"; }; then
		ok "$what: exit $rc"
	else
		nok "$what: exit $rc, want $want"; diag "$T/err"
	fi
}

hostile "run -o /dev/null" 0 "${QUICK[@]}" --format json -o /dev/null "$D"
timeout 20 cat "$V/fifo" >"$OUT/from-fifo" &
reader=$!
hostile "run -o FIFO" 0 "${QUICK[@]}" --format json -o "$V/fifo" "$D"
wait $reader
pycheck "$OUT/from-fifo" 'assert d["kind"] == "run"' && ok "the FIFO's reader got the report" ||
	nok "the FIFO's reader got the report"
hostile "run in a DIR holding the user's files (and a file named like a scratch dir)" 0 \
	"${QUICK[@]}" --format json -o "$OUT/r.json" "$D"
hostile "compare -o INPUT INPUT" 2 compare -o "$V/result.json" "$V/result.json"
hostile "compare -o /dev/null A B" 0 compare -o /dev/null "$V/result.json" "$V/result2.json"
hostile "report -o INPUT A INPUT" 2 report -o "$V/result2.json" "$V/result.json" "$V/result2.json"
# A FIFO as a result file: refused at once, not waited on (it hung).
TMO=10 hostile "compare FIFO-AS-INPUT: refused at once, the FIFO not waited on" 1 compare "$V/fifo"
"$FSBENCH" clean "$V" >"$T/stdout" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^refused directory '$V/fsbench.4242.zzzzzz': no marker" "$T/stdout"; then
	ok "clean of a directory with a scratch dir's name and no marker: refused, exit 1"
else
	nok "clean of a directory with a scratch dir's name and no marker: refused (exit $rc)"
	diag "$T/stdout"; diag "$T/err"
fi

# A scratch file swapped for a symlink to a victim while the run goes
# (lib.sh's spoil, in a directory of its own): never opened through it,
# the run stops with one line, and the victim is unchanged (the manifest).
D0=$D D=$T/swap
mkdir "$D"
SIZE=$((4 << 20))
SWAP='ln -s "$V/secret" "$F.lnk" && mv -T "$F.lnk" "$F"'
spoil "block.dat swapped for a symlink to a victim" block.dat "$SWAP" \
	"^fsbench: read: cannot open '.*/block.dat': Too many levels of symbolic links" \
	--tests read --size 4m --repeat 40 --min-time 0.1
spoil "char.dat swapped for a symlink to a victim" char.dat "$SWAP" \
	"^fsbench: getc: cannot open '.*/char.dat': Too many levels of symbolic links" \
	--tests getc --char-size 64m --repeat 40 --min-time 0.1
check "the symlinks' victim is unchanged" test "$(cat "$V/secret")" = "root-owned secrets"
D=$D0

if is_root; then
	hostile "run -o CHARDEV (mknod'ed, owned by nobody, 0620)" 0 "${QUICK[@]}" --format json \
		-o "$V/chr" "$D"
	LC=(lifecycle --fs ext4 --image-size 64m --repeat 1 --phases mount-umount --progress never)
	hostile "lifecycle --image SYMLINK-TO-VICTIM" 1 "${LC[@]}" --image "$V/link.img"
	hostile "lifecycle --image SYMLINK-TO-VICTIM --destroy-data" 1 "${LC[@]}" --image "$V/link.img" \
		--destroy-data
	hostile "lifecycle --image NOBODYS-FILE --destroy-data" 1 "${LC[@]}" --image "$V/nobody.img" \
		--destroy-data
	hostile "lifecycle --image EXT4-IMAGE-WITH-A-FILE" 1 "${LC[@]}" --image "$V/e4.img"
	grep -q "ext4" "$T/err" && grep -q -- "--destroy-data" "$T/err" &&
		ok "the refusal names ext4 and --destroy-data" ||
		{ nok "the refusal names ext4 and --destroy-data"; diag "$T/err"; }
	hostile "lifecycle -o IMAGE --image IMAGE" 2 "${LC[@]}" --image "$V/e4.img" -o "$V/e4.img"
	hostile "lifecycle --mkfs naming another loop device" 2 "${LC[@]}" --image "$T/new.img" \
		--mkfs "wipefs -a $OTHER {dev}"
	[ ! -e "$T/new.img" ] && ok "no image made for a refused template" || nok "no image made for a refused template"

	# Matrix files: planted now, each checked by its own sums.
	tmpl_ini() { # tmpl_ini FILE EOL TEMPLATE
		printf "[global]${2}workdir = %s${2}image_size = 64m${2}run = --size 1m --repeat 1${2}[ext4]${2}mkfs = %s${2}" \
			"$W" "$3" >"$1"
		chmod 0644 "$1"
	}
	tmpl_ini "$T/lf.ini" '\n' "wipefs -a $OTHER {dev}"
	tmpl_ini "$T/link.ini" '\n' "wipefs -a $V/other-link {dev}"
	tmpl_ini "$T/opt.ini" '\n' "mkfs.ext4 -q -F --opt=$OTHER {dev}"
	tmpl_ini "$T/cr.ini" '\r' "wipefs -a $OTHER {dev}"
	long=$(printf '%*s' 5000 '' | tr ' ' A)
	printf '[global]\rworkdir = %s\rrun = --size 1m\r%s\r[ext4]\rmkfs = wipefs -a %s {dev}\r' \
		"$W" "$long" "$OTHER" >"$T/crlong.ini"
	chmod 0644 "$T/crlong.ini"
	inis=("$T/lf.ini" "$T/link.ini" "$T/opt.ini" "$T/cr.ini" "$T/crlong.ini" "$V/open.ini")
	ini_sums=$(sha256sum "${inis[@]}")
	hostile "matrix: mkfs naming another loop device (LF file)" 2 matrix --progress never "$T/lf.ini"
	grep -q "lf.ini:6: invalid mkfs" "$T/err" && ok "the refusal names line 6" ||
		{ nok "the refusal names line 6"; diag "$T/err"; }
	hostile "matrix: mkfs naming a symlink to it" 2 matrix --progress never "$T/link.ini"
	hostile "matrix: mkfs naming it as --opt=DEV" 2 matrix --progress never "$T/opt.ini"
	hostile "matrix: the same in a CR-only (old Mac) file" 2 matrix --progress never "$T/cr.ini"
	grep -q "cr.ini:6: invalid mkfs" "$T/err" && ok "CR-only: a bare CR ends a line (line 6 named)" ||
		{ nok "CR-only: a bare CR ends a line (line 6 named)"; diag "$T/err"; }
	hostile "matrix: CR-only file with 5000 characters after a bare CR" 2 matrix --progress never \
		"$T/crlong.ini"
	hostile "matrix: an INI writable by others" 2 matrix --progress never "$V/open.ini"
	hostile "matrix -o CONFIG CONFIG" 2 matrix --progress never -o "$T/lf.ini" "$T/lf.ini"
	[ "$(sha256sum "${inis[@]}")" = "$ini_sums" ] && ok "every matrix file is unchanged" ||
		nok "every matrix file is unchanged"
	[ -z "$(ls -A "$W")" ] && ok "nothing made in the matrix workdir" ||
		{ nok "nothing made in the matrix workdir"; ls -A "$W" | diag /dev/stdin; }
else
	skip "character device, images, loop devices, matrix files" "needs root (mknod, chown, losetup)"
fi

# ---------------- nothing changed ----------------
manifest >"$T/after"
if diff "$T/before" "$T/after" >"$T/diff"; then
	ok "nothing planted changed: $(wc -l <"$T/before") paths, same type, mode, owner, size, device and sha256"
else
	nok "nothing planted changed"; diag "$T/diff"
fi
if [ -c /dev/null ] && [ "$(stat -c '%t:%T %a %u' /dev/null)" = "1:3 666 0" ]; then
	ok "/dev/null is still the null device (1:3, 0666, root)"
else
	nok "/dev/null is still the null device ($(stat -c '%F %t:%T %a %u' /dev/null))"
fi
# What fsbench makes is named fsbench.<pid>.XXXXXX or fsbench-result.*;
# the two planted look-alikes are in the manifest.
left=$(find "$T" -mindepth 1 -name 'fsbench*' ! -path "$D/fsbench.1.aaaaaa" ! -path "$V/fsbench.4242.zzzzzz*")
if [ -z "$left" ] && [ -z "$(find "$TMPDIR" -mindepth 1 -print -quit)" ]; then
	ok "no scratch dir, mountpoint or fallback file left"
else
	nok "no scratch dir, mountpoint or fallback file left"; printf '%s\n' "$left" | diag /dev/stdin
fi
if is_root; then
	[ "$(our_loops)" = "$OTHER" ] && ok "no loop device left but the one this script made" ||
		nok "no loop device left but the one this script made ($(our_loops | tr '\n' ' '))"
	[ -z "$(our_mounts)" ] && ok "no mount left" || nok "no mount left ($(our_mounts | tr '\n' ' '))"
fi

done_testing
