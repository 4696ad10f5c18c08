# Shared by the bench scripts, sourced with BENCH set to the script's name
# (the prefix of its messages): an undo list run at exit (newest first, so
# a mount goes before the loop device under it), die and say, and the
# loop device the scripts make.

_undo=()
undo() { _undo+=("$1"); }
cleanup() {
	local i
	for ((i = ${#_undo[@]} - 1; i >= 0; i--)); do
		eval "${_undo[$i]}" >/dev/null 2>&1 || true
	done
}
trap cleanup EXIT
trap 'echo "$BENCH: interrupted" >&2; exit 2' INT TERM HUP

die() { echo "$BENCH: $*" >&2; exit 2; }
say() { echo "$BENCH: $*" >&2; }

# attach_loop IMG: a loop device over IMG, its path on stdout; direct I/O
# on the backing file where the kernel allows it, so that the device
# reads what it is asked rather than the host's page cache.
attach_loop() {
	losetup --find --show --direct-io=on "$1" 2>/dev/null || losetup --find --show "$1"
}

# detach_loop DEV IMG: detach DEV only while it is still backed by IMG
# (a device number is reused once freed: never detach another's).
detach_loop() {
	[ "$(losetup -n -O BACK-FILE "$1" 2>/dev/null | sed 's/ *$//')" = "$2" ] && losetup -d "$1"
}
