#!/bin/bash
# fsbench run: SIGINT and SIGTERM at several points (per-char write, block
# write, rewrite, per-char read, block read and its untimed preparation,
# random seeks with 3 seeker processes, right at the start): exit 130/143,
# one stop, no scratch directory left, no process left behind. The other
# catchable fatal signals (SIGQUIT, SIGUSR1, SIGUSR2, ...) stop it the same
# way, with exit 128+N: their default would kill it with everything left.
# Runs on a tmpfs (root) or a plain temp dir (not root).
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
D=$T/fs
mkdir "$D"
if is_root; then
	mount_tmpfs "$D" size=1536m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
	BIG=1g
else
	BIG=256m # plain temp dir: keep the disk footprint modest
fi

. "$(dirname "$0")/stop-lib.sh"

LONG=(--repeat 5 --min-time 30)

# Per-char write, stdio and 1-byte syscalls, in the timed loop.
stop_case "putc (stdio)" INT 130 'timed putc' 0.2 --tests putc --char-size "$BIG" "${LONG[@]}"
stop_case "putc (syscall)" TERM 143 'timed putc' 0.2 \
	--tests putc --char-io syscall --char-size 64m "${LONG[@]}"
# Block write and rewrite, in the timed loop.
stop_case "write" INT 130 'timed write' 0.2 --tests write --size "$BIG" "${LONG[@]}"
stop_case "write" TERM 143 'timed write' 0 --tests write --size "$BIG" "${LONG[@]}"
stop_case "rewrite" INT 130 'timed rewrite' 0.2 --tests rewrite --size 256m "${LONG[@]}"
# Per-char read (file prepared untimed first, then read a byte at a time).
stop_case "getc" INT 130 'timed getc' 0.2 --tests getc --char-size 256m "${LONG[@]}"
# Block read: during the untimed preparation of its file, and in the reads.
stop_case "read (preparing its file)" INT 130 'scratch_has block.dat && ! timed read' 0.05 \
	--tests read --size "$BIG" "${LONG[@]}"
# A given --size is read as it is: the size is left out so that fsbench
# grows the reads to --min-time and the signal lands inside one.
stop_case "read" TERM 143 'timed read' 0.2 --tests read "${LONG[@]}"
# Random seeks: 3 seeker processes must all be there, and all be gone.
# Each chunk is read once a run: 512-byte chunks of 256 MiB make runs of
# seconds.
stop_case "seeks (3 seekers)" INT 130 "has_children \$pid 3" 0.5 \
	--tests seeks --size 256m --chunk 512 --seeks 50000000 --seekers 3 "${LONG[@]}"
stop_case "seeks (3 seekers)" TERM 143 "has_children \$pid 3" 0.2 \
	--tests seeks --size 256m --chunk 512 --seeks 50000000 --seekers 3 "${LONG[@]}"
# Right after the scratch dir appears, whatever fsbench is doing then.
stop_case "at start" INT 130 'compgen -G "$D/fsbench.*" >/dev/null' 0 \
	--tests throughput --size 64m "${LONG[@]}"
# A whole suite, mid-way (in rewrite), at ordinary settings.
stop_case "suite, in rewrite" TERM 143 'timed rewrite' 0 --tests throughput \
	--repeat 2 --min-time 0.3
# The other catchable fatal signals: a clean stop too, not a death that
# leaves the scratch dir (and, in seeks, orphaned seekers) behind.
stop_case "write" USR1 138 'timed write' 0.2 --tests write --size 256m "${LONG[@]}"
stop_case "write" QUIT 131 'timed write' 0.2 --tests write --size 256m "${LONG[@]}"
stop_case "seeks (3 seekers)" USR1 138 "has_children \$pid 3" 0.2 \
	--tests seeks --size 256m --chunk 512 --seeks 50000000 --seekers 3 "${LONG[@]}"
stop_case "seeks (3 seekers)" QUIT 131 "has_children \$pid 3" 0.2 \
	--tests seeks --size 256m --chunk 512 --seeks 50000000 --seekers 3 "${LONG[@]}"
stop_case "rewrite" USR2 140 'timed rewrite' 0.2 --tests rewrite --size 256m "${LONG[@]}"
stop_case "read" XCPU 152 'timed read' 0.2 --tests read "${LONG[@]}"
# Two signals in a row: the first one decides the status.
stop_case "write" INT,TERM 130 'timed write' 0.2 --tests write --size "$BIG" "${LONG[@]}"
stop_case "write" TERM,INT 143 'timed write' 0.2 --tests write --size "$BIG" "${LONG[@]}"

# Nothing of ours anywhere, and the binary has no process of ours left.
[ -z "$(procs_of "$D")" ] && ok "no fsbench process on $D at the end" ||
	nok "no fsbench process on $D at the end"

done_testing
