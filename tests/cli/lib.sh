# Shared helpers for the end-to-end tests (sourced by tests/cli/t*.sh).
#
# Each test script prints TAP lines ("ok N - what", "not ok N - what",
# "ok N - what # SKIP why"). Everything a test makes (temp dirs, images,
# loop devices, mounts) is registered here and released by an EXIT trap, in
# reverse order, whatever happens: tests never touch what they did not make.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The sanitized binary: every end-to-end test also checks ASan/UBSan.
FSBENCH=${FSBENCH:-$TOP/build/san/fsbench}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=99}
_n=0
_cleanup=()

ok()   { _n=$((_n + 1)); echo "ok $_n - $*"; }
nok()  { _n=$((_n + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }

# check "description" command...: passes when the command exits 0.
check() {
	local what=$1; shift
	if "$@"; then ok "$what"; else nok "$what"; fi
}

# expect_exit CODE "description" command...: passes on that exit status.
expect_exit() {
	local want=$1 what=$2 rc; shift 2
	"$@"; rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$what"; else nok "$what (exit $rc, want $want)"; fi
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# on_exit CMD: run CMD (a string, eval'ed) at exit, last registered first.
on_exit() { _cleanup+=("$1"); }
_run_cleanup() {
	local i
	for ((i = ${#_cleanup[@]} - 1; i >= 0; i--)); do
		eval "${_cleanup[$i]}" >/dev/null 2>&1 || true
	done
}
trap _run_cleanup EXIT
trap 'exit 130' INT TERM

# tmpdir VAR [PARENT]: make a fresh directory (under PARENT, default $TMPDIR
# or /tmp), removed at exit, and store its real path in VAR. (Not
# "$(tmpdir)": a command substitution is a subshell, and the cleanup it
# registered would be lost with it.)
tmpdir() {
	local _d
	_d=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/fsbench-test.XXXXXX") || return 1
	_d=$(realpath "$_d") || return 1
	on_exit "rm -rf '$_d'"
	printf -v "$1" '%s' "$_d"
}

# disk_tmpdir VAR: as tmpdir, on a disk's filesystem: $TMPDIR when it is
# one, else under the build directory. Returns 1 (VAR unset) when neither
# is: a loop device over a file in memory is storage in memory, so a test
# of what a disk-backed loop device records cannot run there.
disk_tmpdir() {
	local _t
	tmpdir _t || return 1
	case $(stat -f -c %T "$_t") in
	tmpfs | ramfs) mkdir -p "$TOP/build" && tmpdir _t "$TOP/build" || return 1 ;;
	esac
	case $(stat -f -c %T "$_t") in
	tmpfs | ramfs) return 1 ;;
	esac
	printf -v "$1" '%s' "$_t"
}

# mount_tmpfs DIR [OPTS]: mount a tmpfs on DIR (root only); unmounted at exit.
mount_tmpfs() {
	mount -t tmpfs -o "${2:-size=256m}" fsbench-test "$1" || return 1
	on_exit "umount '$1'"
}

# need_mpi WHY: fsbench-mpi scripts need mpirun, the fsbench-mpi binary
# (MPI_BIN) and root (WHY: what for); otherwise one skip line and exit 0.
need_mpi() {
	if ! command -v mpirun >/dev/null || [ ! -x "$MPI_BIN" ]; then
		skip "fsbench-mpi" "no Open MPI (mpirun) or no fsbench-mpi: make mpi"
		done_testing
		exit 0
	fi
	if ! is_root; then
		skip "fsbench-mpi" "needs root ($1)"
		done_testing
		exit 0
	fi
}

# What this script's fsbench made under $T (a matrix's loop devices,
# backed by images there, and mounts there), deepest mount first; and
# release_ours, which unmounts and detaches exactly those (on_exit it).
our_loops() { losetup -n -O NAME,BACK-FILE 2>/dev/null | awk -v d="$T/" 'index($2, d) == 1 { print $1 }'; }
our_mounts() { awk -v d="$T/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r; }
release_ours() {
	local m l
	for m in $(our_mounts); do umount "$m" || umount -l "$m"; done
	for l in $(our_loops); do losetup -d "$l"; done
}

# detach_own DEV IMG: detach DEV only if it is still backed by IMG (an
# absolute path), so a cleanup never detaches a device number that was
# freed and then reused by someone else.
detach_own() {
	[ "$(losetup -n -O BACK-FILE "$1" 2>/dev/null | sed 's/ *$//')" = "$2" ] && losetup -d "$1"
}

# detach_own_ino DEV INO: as detach_own, by the backing file's inode, for
# a backing file whose name losetup cannot print (a newline in it).
detach_own_ino() {
	[ "$(losetup -n -O BACK-INO "$1" 2>/dev/null | tr -d ' ')" = "$2" ] && losetup -d "$1"
}

# loop_attach IMG VAR: attach IMG to a new loop device (direct I/O where
# the backing filesystem supports it), store the device in VAR; detached at
# exit if still backed by IMG. (Not in "$(...)", for the reason given at
# tmpdir.)
loop_attach() {
	local _dev _img
	_img=$(realpath "$1") || return 1
	_dev=$(losetup --find --show --direct-io=on "$_img" 2>/dev/null) ||
		_dev=$(losetup --find --show "$_img") || return 1
	on_exit "detach_own '$_dev' '$_img'"
	printf -v "$2" '%s' "$_dev"
}

# make_fs TYPE SIZE: image + loop device + mkfs + mount under a temp dir.
# Sets FS_DEV, FS_MNT, FS_IMG. Root only. Everything is released at exit.
make_fs() {
	local type=$1 size=$2 dir
	tmpdir dir || return 1
	FS_IMG=$dir/img
	truncate -s "$size" "$FS_IMG" || return 1
	loop_attach "$FS_IMG" FS_DEV || return 1
	case $type in
	xfs) mkfs.xfs -q -f "$FS_DEV" ;;
	btrfs) mkfs.btrfs -q -f "$FS_DEV" ;;
	*) "mkfs.$type" -q -F "$FS_DEV" ;;
	esac >/dev/null || return 1
	FS_MNT=$dir/mnt
	mkdir "$FS_MNT" && mount -t "$type" "$FS_DEV" "$FS_MNT" || return 1
	on_exit "umount '$FS_MNT'"
}

# json_get FILE EXPR: evaluate a Python expression on the parsed JSON `d`.
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# no_scratch_left DIR: no fsbench.* entry remains in DIR.
no_scratch_left() { ! compgen -G "$1/fsbench.*" >/dev/null; }

# fsbench_children: pids of processes named fsbench (seekers included).
fsbench_procs() { pgrep -f "$FSBENCH" || true; }

done_testing() { echo "1..$_n"; }

# diag FILE: show a file as TAP comments (why a check failed).
diag() { sed 's/^/#   /' "$1" | head -20; }

# wait_for SECS CMD...: poll CMD every 50 ms until it succeeds, SECS at most.
wait_for() {
	local n=$(($1 * 20)); shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# has_children PID N: PID has at least N child processes.
has_children() { [ "$(pgrep -P "$1" | wc -l)" -ge "$2" ]; }

# one_line FILE: exactly one line, starting "fsbench: ".
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && [ "$(head -c 9 "$1")" = "fsbench: " ]; }

# spoil NAME FILE ACTION WANT ARGS...: fsbench run ARGS... DIR in the
# background (DIR is $D); once FILE (a path under its scratch directory,
# e.g. block.dat or job-1/block.dat) holds $SIZE bytes, do ACTION to it (a
# shell command with $F the file), then expect exit 1, one line matching
# WANT (an ERE), no scratch and no process left. $T holds NAME's stderr.
spoil() {
	local name=$1 file=$2 action=$3 want=$4 pid n=400 F rc err
	shift 4
	err=$T/spoil.err
	"$FSBENCH" run --quiet "$@" "$D" >/dev/null 2>"$err" &
	pid=$!
	F=""
	while [ $n -gt 0 ] && kill -0 $pid 2>/dev/null; do
		F=$(compgen -G "$D/fsbench.*/$file" | head -1)
		[ -n "$F" ] && [ "$(stat -c %s "$F" 2>/dev/null || echo 0)" -ge "$SIZE" ] && break
		F=""
		sleep 0.02
		n=$((n - 1))
	done
	if [ -z "$F" ]; then
		kill -KILL $pid 2>/dev/null; wait $pid
		nok "$name: $file never appeared (or fsbench ended first)"
		diag "$err"
		return
	fi
	eval "$action"
	wait $pid; rc=$?
	if [ $rc -eq 1 ] && one_line "$err" && grep -qE "$want" "$err"; then
		ok "$name: exit 1, one line: $(cat "$err")"
	else
		nok "$name: exit 1 and one line matching '$want' (exit $rc)"; diag "$err"
	fi
	check "$name: no scratch left (every file removed)" no_scratch_left "$D"
	check "$name: no process left" test -z "$(pgrep -f -- "$D" | grep -vx "$$")"
}

# dir_in_place FILE DIR: put an empty directory in FILE's place in one
# step (renameat2 RENAME_EXCHANGE with a directory made in DIR, on FILE's
# filesystem and outside any scratch directory), then remove the file. An
# rm then a mkdir left a moment without either, and a run that opened FILE
# then failed with ENOENT instead of EISDIR.
dir_in_place() {
	local spare=$2/swap.$$
	mkdir "$spare" || return 1
	python3 - "$spare" "$1" <<'PYEOF' || { rmdir "$spare"; return 1; }
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if libc.renameat2(AT_FDCWD, os.fsencode(sys.argv[1]), AT_FDCWD, os.fsencode(sys.argv[2]),
                  RENAME_EXCHANGE):
    sys.exit('renameat2: ' + os.strerror(ctypes.get_errno()))
PYEOF
	rm -f "$spare"
}

# empty_dir DIR: nothing inside DIR but a filesystem's own lost+found.
empty_dir() { [ -z "$(ls -A "$1" | grep -vx 'lost+found')" ]; }

# used_kib DIR: the KiB in use on DIR's filesystem (df).
used_kib() { df -k --output=used "$1" | tail -1 | tr -d ' '; }

# pycheck FILE CODE [ARGS...]: run Python CODE with d = the parsed JSON of
# FILE (and argv = ARGS, json = the module); an assertion failing or any
# exception fails the check, its message printed as a TAP comment.
pycheck() {
	python3 - "$@" <<'PYEOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    exec(sys.argv[2], {'d': d, 'argv': sys.argv[3:], 'json': json})
except AssertionError as e:
    print('#   ' + str(e)); sys.exit(1)
except Exception as e:
    print('#   %s: %s' % (type(e).__name__, e)); sys.exit(1)
PYEOF
}
