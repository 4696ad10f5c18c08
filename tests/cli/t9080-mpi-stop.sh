#!/bin/bash
# fsbench-mpi stops when a rank is gone or mpirun is told to stop: every
# rank acts on SIGTERM within its grace wherever it waits (a collective
# included, whose other rank may be dead) and removes its files, and rank
# 0 the scratch directory. A launch whose ranks were given different
# arguments or directories (mpirun's MPMD form, A : B) is refused at start
# (exit 2, one line naming the ranks). Skipped without Open MPI or root.
. "$(dirname "$0")/lib.sh"

MPI_BIN=${FSBENCH_MPI:-$TOP/fsbench-mpi}
tmpdir T || exit 1

need_mpi "tmpfs"

MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
# This script's ranks: their command line names its temporary directory.
mpi_procs() { pgrep -f -- "$MPI_BIN run .*$T" || true; }
# Whatever a failed case leaves running, by pid.
on_exit 'p=$(mpi_procs); [ -z "$p" ] || kill -KILL $p'

mkdir "$T/tmpfs"
mount_tmpfs "$T/tmpfs" size=1g || exit 1
D=$T/tmpfs
# Runs of several seconds (40 reads of 256 MiB: a given size is run exactly).
LONG=(--quiet --tests read --size 256m --repeat 40 --min-time 0.1 --cache keep)

# rank_pid N: the pid of this script's rank N.
rank_pid() {
	local c
	for c in $(mpi_procs); do
		if tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# stopped NAME ACTION: 2 ranks in the background; once rank 1's file
# exists, ACTION ($pid is mpirun's); then mpirun must exit within 15 s
# (timeout 60 ends a hung one), leaving no rank and nothing in DIR.
stopped() {
	local name=$1 action=$2 pid t0 rc
	timeout -s KILL 60 "${MPIRUN[@]}" -np 2 "$MPI_BIN" run "${LONG[@]}" "$D" </dev/null \
		>"$T/$name.out" 2>"$T/$name.err" &
	pid=$!
	if ! wait_for 30 eval 'compgen -G "$D/fsbench.*/rank-1/block.dat" >/dev/null'; then
		nok "$name: rank 1's file appeared"
		diag "$T/$name.err"
		kill -KILL $pid
		wait $pid
		return
	fi
	sleep 0.3
	# timeout's child is mpirun: signals to "mpirun" go to it.
	eval "$action"
	t0=$SECONDS
	wait $pid
	rc=$?
	# (timeout's SIGKILL at 60 s is past 15 s; 128 + 9 is mpirun's exit
	# when the rank it saw end first was killed)
	if [ $((SECONDS - t0)) -le 15 ] && [ $rc -ne 0 ]; then
		ok "$name: mpirun exits within 15 s (exit $rc, $((SECONDS - t0)) s)"
	else
		nok "$name: mpirun exits within 15 s (exit $rc after $((SECONDS - t0)) s)"
		diag "$T/$name.err"
	fi
	check "$name: no fsbench-mpi rank left" wait_for 5 eval 'test -z "$(mpi_procs)"'
	if empty_dir "$D"; then
		ok "$name: nothing left in DIR (no scratch directory, no rank-N)"
	else
		nok "$name: nothing left in DIR"
		find "$D" | sed 's/^/#   /'
		rm -rf "${D:?}"/*
	fi
}

# Rank 1 killed: mpirun's SIGTERM reaches rank 0 in a collective that
# waits for rank 1 (it waited there forever, and left both ranks' files).
stopped "SIGKILL to rank 1" 'kill -KILL "$(rank_pid 1)"'
# SIGTERM to mpirun: its SIGTERM to every rank, each cleans up.
stopped "SIGTERM to mpirun" 'kill -TERM $(pgrep -P $pid)'
# SIGTERM to rank 0 alone while rank 1 hangs (SIGSTOP; mpirun, which
# would send it SIGCONT with its own SIGTERM, is not told): rank 0 gives
# up waiting for rank 1 in a collective, removes its files and the
# scratch directory (rank 1's files with it), and exits; mpirun then ends
# rank 1. (Rank 0 waited for rank 1 forever.)
stopped "SIGTERM to rank 0, rank 1 hung" \
	'kill -STOP "$(rank_pid 1)"; kill -TERM "$(rank_pid 0)"'

# mpirun's MPMD form with different arguments (here: directories), or
# the same arguments in different working directories: refused before
# any work, exit 2, one line from rank 0 naming rank 1.
mkdir "$D/a" "$D/b"
# mpmd NAME ARGS...: ARGS are mpirun's; exit 2, one line naming rank 1,
# nothing made in a or b.
mpmd() {
	local name=$1 rc
	shift
	timeout -s KILL 60 "${MPIRUN[@]}" "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(grep -c '^fsbench: ' "$T/$name.err")" -eq 1 ] &&
		grep -q '^fsbench: arguments differ between ranks: rank 1 differs from rank 0' \
			"$T/$name.err"; then
		ok "$name: exit 2, one line naming rank 1"
	else
		nok "$name: exit 2, one line naming rank 1 (exit $rc)"
		diag "$T/$name.err"
	fi
	check "$name: nothing made in either directory" \
		bash -c "[ -z \"\$(find '$D/a' '$D/b' -mindepth 1)\" ]"
}
SHORT=(--quiet --tests write --size 1m --repeat 1 --min-time 0.01 --cache keep)
mpmd "MPMD, different directories" -np 1 "$MPI_BIN" run "${SHORT[@]}" "$D/a" : \
	-np 1 "$MPI_BIN" run "${SHORT[@]}" "$D/b"
mpmd "MPMD, same arguments in different working directories" \
	-np 1 -wdir "$D/a" "$MPI_BIN" run "${SHORT[@]}" . : \
	-np 1 -wdir "$D/b" "$MPI_BIN" run "${SHORT[@]}" .
# Three ranks, the last two different: both named.
timeout -s KILL 60 "${MPIRUN[@]}" -np 1 "$MPI_BIN" run "${SHORT[@]}" "$D/a" : \
	-np 2 "$MPI_BIN" run "${SHORT[@]}" "$D/b" </dev/null >/dev/null 2>"$T/three.err"
check "MPMD, ranks 1 and 2 differ: both named" \
	grep -q '^fsbench: arguments differ between ranks: ranks 1, 2 differ from rank 0' \
	"$T/three.err"
# The same arguments in the MPMD form are one command: it runs.
same_twice() {
	timeout -s KILL 60 "${MPIRUN[@]}" -np 1 "$MPI_BIN" run "${SHORT[@]}" "$D/a" : \
		-np 1 "$MPI_BIN" run "${SHORT[@]}" "$D/a" </dev/null >/dev/null 2>"$T/same.err"
}
expect_exit 0 "MPMD with the same arguments runs" same_twice

done_testing
