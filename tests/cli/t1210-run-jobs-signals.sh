#!/bin/bash
# fsbench run --jobs 8: SIGINT (and SIGTERM) while the jobs prepare their
# files (setup), in the timed region (block reads; seeks with 3 seekers
# per job, 24 processes), and while the run removes the 8 jobs' files at
# its end (teardown): exit 130/143, at most one line, no scratch directory
# left, no process left (the jobs are threads of one process; the seekers
# are its children). Runs on a tmpfs (root) or a plain temp dir.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
D=$T/fs
mkdir "$D"
if is_root; then
	mount_tmpfs "$D" size=768m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
	SIZE=64m
else
	SIZE=16m
fi

# procs_of DIR: pids of processes whose command line holds DIR (fsbench
# and its seekers, which are forks of it, never anything else).
procs_of() { pgrep -f -- "$1" | grep -vx "$$" || true; }

# wait_for SECS CMD...: poll CMD every 50 ms until it succeeds.
wait_for() {
	local n=$(($1 * 20)); shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
# pending PID SIGNUM: the signal is sent to PID but not delivered yet.
pending() {
	local mask=0 word
	for word in $(awk '/^(SigPnd|ShdPnd):/ { print $2 }' "/proc/$1/status" 2>/dev/null); do
		mask=$((mask | 16#$word))
	done
	(((mask >> ($2 - 1)) & 1))
}
scratch_has() { compgen -G "$D/fsbench.*/$1" >/dev/null; }
has_children() { [ "$(pgrep -P "$1" | wc -l)" -ge "$2" ]; }

# The progress line on stderr ("write        run 1/5  37%  1.2 GB/s") is
# printed only inside a timed run: it tells when a test is really running.
timed() { grep -qaE "(^|\[K)$1 +run [0-9]+/" "$T/err" 2>/dev/null; }
# stderr without progress lines: what fsbench said (must be "fsbench: ...").
said() { tr '\r' '\n' <"$T/err" | sed 's/\x1b\[K//g' | grep -avE '^$|^[a-z-]+ +run [0-9]+/'; }

# stop_case NAME SIGS WANT READY DELAY ARGS...: start fsbench run ARGS D in
# the background, wait until READY (a command) holds, sleep DELAY, send
# each signal of SIGS (comma-separated), then check exit status WANT, the
# scratch dir, stray processes and stderr. One TAP line per property.
stop_case() {
	local name=$1 sigs=$2 want=$3 ready=$4 delay=$5 pid rc why kids="" left sig
	shift 5
	"$FSBENCH" run --progress always "$@" "$D" >"$T/out" 2>"$T/err" &
	pid=$!
	if ! wait_for 20 eval "$ready"; then
		kill -KILL $pid 2>/dev/null; wait $pid
		nok "$name: never reached the point to interrupt ($ready)"; said | sed 's/^/#   /'
		return
	fi
	sleep "$delay"
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid; rc=$?
		nok "$name: fsbench ended (exit $rc) before the signal: make the run longer"
		said | sed 's/^/#   /'
		return
	fi
	kids=$(pgrep -P $pid | tr '\n' ' ')
	# Each signal is sent once the one before it has been delivered:
	# signals pending together are delivered in one go, the last one's
	# handler running first, so "first" would mean nothing.
	for sig in ${sigs//,/ }; do
		kill -s "$sig" $pid 2>/dev/null || break # (gone already: stopped by the one before)
		wait_for 2 eval "! pending $pid $(kill -l "$sig")"
	done
	sig=${sigs//,/ then SIG}
	# Stopping must be prompt: 10 s at most, else it is killed (and fails).
	if ! wait_for 10 eval "! kill -0 $pid 2>/dev/null || [[ \$(ps -o stat= -p $pid) == Z* ]]"; then
		kill -KILL $pid 2>/dev/null
		echo "#   fsbench did not stop within 10 s of SIG$sig: killed"
	fi
	wait $pid; rc=$?
	why=""
	[ $rc -eq "$want" ] || why="$why exit $rc, want $want;"
	# stderr: only "fsbench: ..." lines besides progress (no sanitizer
	# report, no stray output), and at most one of them.
	said >"$T/said"
	grep -qav '^fsbench: ' "$T/said" && why="$why stray stderr;"
	[ "$(wc -l <"$T/said")" -le 1 ] || why="$why more than one message;"
	[ -z "$why" ] && ok "$name: SIG$sig -> exit $want" || { nok "$name: SIG$sig -> exit $want ($why)"; diag "$T/said"; }
	if empty_dir "$D"; then
		ok "$name: no scratch dir left"
	else
		nok "$name: no scratch dir left"; find "$D" | head | sed 's/^/#   /'
		rm -rf "${D:?}"/fsbench.* # do not let the next case inherit it
	fi
	# The children (seekers) must be gone too: give them a moment to be
	# reaped by init if they were orphaned.
	left=""
	wait_for 2 eval '[ -z "$(procs_of "$D")" ]' || left=$(procs_of "$D" | tr '\n' ' ')
	for k in $kids; do
		kill -0 "$k" 2>/dev/null && [[ $(ps -o stat= -p "$k") != Z* ]] && left="$left $k"
	done
	if [ -z "$left" ]; then
		ok "$name: no process left${kids:+ (children were: $kids)}"
	else
		nok "$name: no process left (still there: $left)"
		ps -o pid,ppid,stat,args -p "$(echo $left | tr ' ' ,)" | sed 's/^/#   /'
		for k in $left; do kill -KILL "$k" 2>/dev/null; done
	fi
}

# The jobs' creates ended (a set's marker is there) and the job threads
# are gone (the process has one thread left): the run is removing the
# jobs' files.
removing() {
	[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -eq 1 ] &&
		compgen -G "$D/fsbench.*/job-*/files.set" >/dev/null
}

LONG=(--repeat 5 --min-time 30 --jobs 8)

# Setup: the 8 jobs write their files, untimed, before the first run.
stop_case "8 jobs, preparing their files" INT 130 \
	'compgen -G "$D/fsbench.*/job-*/block.dat" >/dev/null && ! timed read' 0.05 \
	--tests read --size "$SIZE" "${LONG[@]}"
# The timed region.
stop_case "8 jobs, reading" INT 130 'timed read' 0.2 --tests read --size "$SIZE" "${LONG[@]}"
stop_case "8 jobs, writing" TERM 143 'timed write' 0.1 --tests write --size "$SIZE" "${LONG[@]}"
stop_case "8 jobs, io_uring depth 16" INT 130 'timed randread' 0.2 --tests randread \
	--engine io_uring --iodepth 16 --size "$SIZE" "${LONG[@]}"
stop_case "8 jobs x 3 seekers" INT 130 "has_children \$pid 24" 0.3 --tests seeks --size 16m \
	--seeks 50000000 --seekers 3 "${LONG[@]}"
# Teardown: the files of every job being removed at the end.
stop_case "8 jobs, removing their files" INT 130 "removing \$pid" 0 \
	--tests seq-create --files 30k --repeat 1 --min-time 0.01 --jobs 8

[ -z "$(procs_of "$D")" ] && ok "no fsbench process on $D at the end" ||
	nok "no fsbench process on $D at the end"

done_testing
