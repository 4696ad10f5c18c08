# Shared by the signal tests (t1200, t1210 and t2000's): sourced after
# lib.sh, with FSBENCH, T (a temp dir) and D (the directory runs work in)
# set. Helpers to start a run, wait until it is at a given point, signal
# it and check what it left behind.

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

# held_fifo: make the FIFO $T/fifo, open it on fd 3 (both ends, so that
# neither side's open blocks) and fill it to the brim: the first write
# anyone makes to it then blocks until it is drained (drain_fifo).
held_fifo() {
	rm -f "$T/fifo" && mkfifo "$T/fifo" && exec 3<>"$T/fifo" || return 1
	python3 - "$T/fifo" <<'PYEOF'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
for chunk in (4096, 1):  # whole pages, then the last bytes
    while True:
        try:
            os.write(fd, b'\n' * chunk)  # empty lines: said() drops them
        except BlockingIOError:
            break
PYEOF
}
# drain_fifo: copy the FIFO to $T/err in the background and close fd 3.
# The copy reads a read-only descriptor opened here, before fd 3 closes:
# the FIFO is never without a reader (a writer would get EPIPE), and the
# copy ends when fsbench, the last writer, does (neither it nor the copy
# may hold fd 3, whose write end would keep the copy waiting).
drain_fifo() {
	exec 4<"$T/fifo"
	cat <&4 >"$T/err" 3<&- 4<&- &
	_drain=$!
	exec 3<&- 4<&-
}
# blocked_on_pipe PID: a thread of PID waits in a write to a full pipe.
blocked_on_pipe() { grep -qs 'pipe_write' /proc/"$1"/task/*/wchan; }
# held_write PID: print the bytes that PID's thread blocked on a full pipe
# is writing (write(2)'s buffer and count, from /proc/PID/task/*/syscall,
# read in /proc/PID/mem: root). Fails when there is none or it is unread.
held_write() {
	python3 - "$1" <<'PYEOF'
import glob, sys
for task in glob.glob('/proc/%s/task/*' % sys.argv[1]):
    try:
        if 'pipe_write' not in open(task + '/wchan').read():
            continue
        args = open(task + '/syscall').read().split()
        buf, count = int(args[2], 16), int(args[3], 16)
        with open('/proc/%s/mem' % sys.argv[1], 'rb') as mem:
            mem.seek(buf)
            sys.stdout.buffer.write(mem.read(min(count, 200)))
        sys.exit(0)
    except (OSError, ValueError, IndexError):
        pass
sys.exit(1)
PYEOF
}

# stop_case NAME SIGS WANT READY DELAY ARGS...: start fsbench run ARGS D in
# the background, wait until READY (a command) holds, sleep DELAY, send
# each signal of SIGS (comma-separated), then check exit status WANT, the
# scratch dir, stray processes and stderr. One TAP line per property.
#
# READY "held": the signal is certain to come inside a timed run, however
# short the run and however slow the machine. stderr is a full FIFO, so
# the run's first write there blocks: the progress line, written by the
# first job from inside its timed run (--progress always prints nothing
# before; a tick that comes between runs is printed at the next run's
# first operation, so any run of a test longer than a tick is held). Once a thread of fsbench waits in that write, the signals are
# sent and delivered, and only then is the FIFO drained. An extra TAP line
# checks that the held write was the progress line (read before the
# signal: one that comes to the writing thread cuts its write short, no
# SA_RESTART, and the line is lost).
stop_case() {
	local name=$1 sigs=$2 want=$3 ready=$4 delay=$5 pid rc why kids="" left sig held="" what
	local used0=""
	shift 5
	# On a tmpfs of the test's own (as root): what it holds now must be
	# all it holds once fsbench is gone.
	is_root && mountpoint -q "$D" && [ "$(stat -f -c %T "$D")" = tmpfs ] &&
		used0=$(used_kib "$D")
	if [ "$ready" = held ]; then
		held=1
		if ! held_fifo; then
			nok "$name: cannot make a full FIFO for stderr"
			return
		fi
		"$FSBENCH" run --progress always "$@" "$D" >"$T/out" 2>"$T/fifo" 3<&- 4<&- &
		pid=$!
		ready="blocked_on_pipe $pid"
	else
		"$FSBENCH" run --progress always "$@" "$D" >"$T/out" 2>"$T/err" &
		pid=$!
	fi
	if ! wait_for 20 eval "$ready"; then
		[ -n "$held" ] && drain_fifo
		kill -KILL $pid 2>/dev/null; wait $pid
		[ -n "$held" ] && wait "$_drain"
		nok "$name: never reached the point to interrupt ($ready)"; said | sed 's/^/#   /'
		return
	fi
	[ -n "$held" ] && { held_write $pid >"$T/held" || : >"$T/held"; }
	sleep "$delay"
	if ! kill -0 $pid 2>/dev/null; then
		[ -n "$held" ] && drain_fifo
		wait $pid; rc=$?
		[ -n "$held" ] && wait "$_drain"
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
	[ -n "$held" ] && drain_fifo
	# Stopping must be prompt: 10 s at most, else it is killed (and fails).
	if ! wait_for 10 eval "! kill -0 $pid 2>/dev/null || [[ \$(ps -o stat= -p $pid) == Z* ]]"; then
		kill -KILL $pid 2>/dev/null
		echo "#   fsbench did not stop within 10 s of SIG$sig: killed"
	fi
	wait $pid; rc=$?
	if [ -n "$held" ]; then
		wait "$_drain"
		what="$name: the signal came while the first job was held in its timed run"
		if grep -qaE $'^\r\e\\[K[a-z-]+ +run [0-9]+/' "$T/held"; then
			ok "$what, writing: $(tr -d '\r\033' <"$T/held" | sed 's/^\[K//' | tr -s ' ')"
		elif ! is_root && [ ! -s "$T/held" ]; then
			skip "$what" "not root: cannot read the held write in /proc/PID/mem"
		else
			nok "$what"
			od -c "$T/held" | head -5 | sed 's/^/#   /'
		fi
	fi
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
	# The space of the removed files is given back (a descriptor the
	# kernel still held, such as an io_uring ring's registered file, kept
	# it taken after fsbench had gone, and the next case found too little
	# space): at once, or within 10 s, which is said.
	[ -n "$used0" ] || return 0
	local t0=${EPOCHREALTIME/./} ms
	if wait_for 10 eval '[ "$(used_kib "$D")" -le $((used0 + 1024)) ]'; then
		ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
		ok "$name: its space given back ($(used_kib "$D") KiB used, $used0 before)$( ((ms >= 100)) && echo ", after $ms ms")"
	else
		nok "$name: its space given back ($(used_kib "$D") KiB used 10 s after, $used0 before)"
	fi
}
