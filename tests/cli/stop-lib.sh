# Shared by the signal tests (t1200, t1210): sourced after lib.sh, with
# FSBENCH, T (a temp dir) and D (the directory runs work in) set. Helpers
# to start a run, wait until it is at a given point, signal it and check
# what it left behind.

# procs_of DIR: pids of processes whose command line holds DIR (fsbench
# and its seekers, which are forks of it, never anything else).
procs_of() { pgrep -f -- "$1" | grep -vx "$$" || true; }

# pending PID SIGNUM: the signal is sent to PID but not delivered yet.
pending() {
	local mask=0 word
	for word in $(awk '/^(SigPnd|ShdPnd):/ { print $2 }' "/proc/$1/status" 2>/dev/null); do
		mask=$((mask | 16#$word))
	done
	(((mask >> ($2 - 1)) & 1))
}
scratch_has() { compgen -G "$D/fsbench.*/$1" >/dev/null; }

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
