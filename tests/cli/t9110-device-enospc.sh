#!/bin/bash
# Device-level ENOSPC (issue 25's fault sweep, beside t9100's syscall-level
# libfiu faults): the block layer itself runs out. A 1 GiB sparse image on
# a 256 MiB tmpfs, behind a loop device, holds an ext4, an xfs or a btrfs
# whose statvfs says it has ~900 MiB free: the filesystem accepts the
# work, and its writes fail below it, in the loop device (EIO or ENOSPC at
# writeback, a journal or transaction aborted, the filesystem forced
# read-only or its error counters moved: all of it is the case).
#
# Each case on a fresh filesystem (the tmpfs stays full after one): the
# block write, the random write and the file tests, each with more data
# than the tmpfs holds, and the file tests once more where a failed block
# write has filled the device already (the journal's or the metadata's
# next write fails: ext4 and btrfs abort and go read-only). fsbench must then exit 1 within the timeout (not a
# crash, not a hang), say one line "fsbench: ...: ..." naming the failing
# I/O or the harm seen (the harm detector: "turned read-only" / "error
# counters moved"), print no figures, no sanitizer report, leave no
# scratch directory where the filesystem is still writable (and say what
# it left where it is not), nothing in TMPDIR and no process. Root only
# (tmpfs, loop devices, mounts); a filesystem whose mkfs is missing skips.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
if ! is_root; then
	skip "device-level ENOSPC" "needs root (tmpfs, loop devices, mounts)"
	done_testing
	exit 0
fi
tmpdir T || exit 1
# fsbench's TMPDIR: whatever it would leave there (a kept report) shows.
mkdir "$T/tmp"
TMPFS=256m
IMAGE=1g
n_fs=0

# device_fs TYPE NAME: a $TMPFS tmpfs at $T/NAME.dev, a sparse $IMAGE image
# on it behind a loop device, mkfs TYPE, mounted at $T/NAME; sets M.
# release_fs NAME (after the case, and at exit) undoes it.
declare -A DEV
device_fs() {
	local type=$1 name=$2
	mkdir "$T/$name.dev" "$T/$name" || return 1
	on_exit "release_fs '$name'"
	mount -t tmpfs -o "size=$TMPFS" fsbench-test "$T/$name.dev" || return 1
	truncate -s "$IMAGE" "$T/$name.dev/img" || return 1
	DEV[$name]=$(losetup --find --show --direct-io=on "$T/$name.dev/img" 2>/dev/null) ||
		DEV[$name]=$(losetup --find --show "$T/$name.dev/img") || return 1
	case $type in
	xfs) mkfs.xfs -q -f "${DEV[$name]}" ;;
	btrfs) mkfs.btrfs -q -f "${DEV[$name]}" >/dev/null ;;
	*) "mkfs.$type" -q -F "${DEV[$name]}" ;;
	esac || return 1
	mount -t "$type" "${DEV[$name]}" "$T/$name" || return 1
	M=$T/$name
}

# release_fs NAME: only what device_fs NAME made, once: its filesystem
# (lazily when it cannot be unmounted: only this mount), the loop device
# while it still serves this image (a detached number may be someone
# else's by now), the tmpfs. Each tmpfs is RAM: released after its case.
release_fs() {
	local name=$1 dev=${DEV[$1]:-} i
	if mountpoint -q "$T/$name"; then
		timeout 60 umount "$T/$name" || umount -l "$T/$name"
	fi
	if [ -n "$dev" ] && [ "$(losetup -n -O BACK-FILE "$dev" 2>/dev/null)" = "$T/$name.dev/img" ]; then
		losetup -d "$dev"
	fi
	DEV[$name]=""
	# A lazily unmounted filesystem lets go of its device, and the
	# device of the image, a moment later.
	for ((i = 0; i < 100; i++)); do
		mountpoint -q "$T/$name.dev" || break
		umount "$T/$name.dev" 2>/dev/null && break
		sleep 0.1
	done
}

# writable DIR: a file can still be made (and removed) in DIR.
writable() { touch "$1/.probe.$$" 2>/dev/null && rm -f "$1/.probe.$$"; }

# past TYPE DESC WANT ARGS...: on a fresh TYPE filesystem over the small
# tmpfs, fsbench run ARGS fails as the header says; WANT (an ERE) is what
# the line must say (the test and its I/O) unless the harm detector spoke.
past() {
	local type=$1 what="device-level ENOSPC ($1): $2" want=$3 rc why="" n; shift 3
	n_fs=$((n_fs + 1)) n=$n_fs
	if ! device_fs "$type" "fs$n" 2>"$T/setup.err"; then
		nok "$what: cannot make the filesystem"; diag "$T/setup.err"
		return
	fi
	# FULL=1: a block write has filled the device first (and failed): now
	# even the journal's or the metadata's next write fails.
	if [ "${FULL:-0}" = 1 ]; then
		timeout 180 "$FSBENCH" run --tests write --size 512m --repeat 1 --cache keep \
			--no-device-capability --quiet "$M" >/dev/null 2>&1
	fi
	TMPDIR=$T/tmp timeout 180 "$FSBENCH" run --repeat 1 --min-time 0.001 --cache keep \
		--no-device-capability --quiet "$@" "$M" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || why="$why exit $rc, want 1;"
	grep -q 'Sanitizer\|runtime error' "$T/err" && why="$why a sanitizer report;"
	one_line "$T/err" || why="$why stderr is not one 'fsbench: ' line;"
	grep -Eq "^fsbench: ($want|.*: filesystem (turned read-only|error counters moved) after [a-z-]+)" \
		"$T/err" || why="$why the line names neither the failing I/O nor the harm;"
	[ -s "$T/out" ] && why="$why figures on standard output;"
	if writable "$M"; then
		no_scratch_left "$M" || why="$why a scratch directory on a writable filesystem;"
	elif ! no_scratch_left "$M"; then
		grep -q "cannot remove scratch directory '.*': " "$T/err" ||
			why="$why a scratch directory left on the read-only filesystem, unsaid;"
	fi
	[ -z "$(ls -A "$T/tmp")" ] || why="$why in TMPDIR: $(ls -A "$T/tmp" | head -3 | tr '\n' ' ');"
	[ -z "$(pgrep -f -- "$M" | grep -vx "$$")" ] || why="$why a process left;"
	if [ -z "$why" ]; then
		ok "$what: exit 1, one line: $(cat "$T/err")"
	else
		nok "$what ($why)"; diag "$T/err"
	fi
	rm -rf "${T:?}/tmp/"* "$T/tmp/".[!.]* 2>/dev/null
	release_fs "fs$n"
}

for type in ext4 xfs btrfs; do
	if ! command -v "mkfs.$type" >/dev/null; then
		skip "device-level ENOSPC ($type)" "mkfs.$type is missing"
		continue
	fi
	past "$type" "block write of 512 MiB" \
		"write: cannot [a-z]+ .*: (No space left on device|Input/output error)" \
		--tests write --size 512m
	past "$type" "random write of 512 MiB" \
		"randwrite: cannot [a-z]+ .*: (No space left on device|Input/output error)" \
		--tests randwrite --size 512m
	past "$type" "file tests, 3000 files of 100 KiB" \
		"seq-[a-z]+: cannot [a-z]+ .*: (No space left on device|Input/output error|Read-only file system)" \
		--tests seq-create,seq-stat,seq-delete --files 3000:100k:100k
	# A device already full may fail the run's first step, its scratch
	# directory: that is the one line then.
	FULL=1 past "$type" "file tests on a device already full" \
		"((seq|rand)-[a-z]+|run): cannot [a-z]+ .*: (No space left on device|Input/output error|Read-only file system)" \
		--tests seq-create,seq-stat,seq-delete,rand-create --files 2000:4k
done
done_testing
