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

. "$(dirname "$0")/stop-lib.sh"

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
# The timed region. Reads on the tmpfs last 0.1 s a run (their growth cut
# short by its space), too short to signal by the clock: the first job is
# held in its first progress line, inside the timed run (stop-lib.sh).
stop_case "8 jobs, reading" INT 130 held 0 --tests read --size "$SIZE" "${LONG[@]}"
stop_case "8 jobs, writing" TERM 143 'timed write' 0.1 --tests write --size "$SIZE" "${LONG[@]}"
stop_case "8 jobs, io_uring depth 16" INT 130 'timed randread' 0.2 --tests randread \
	--engine io_uring --iodepth 16 --size "$SIZE" "${LONG[@]}"
stop_case "8 jobs x 3 seekers" INT 130 "has_children \$pid 24" 0.3 --tests seeks --size 32m --chunk 512 \
	--seeks 50000000 --seekers 3 "${LONG[@]}"
# Teardown: the files of every job being removed at the end.
stop_case "8 jobs, removing their files" INT 130 "removing \$pid" 0 \
	--tests seq-create --files 30k --repeat 1 --min-time 0.01 --jobs 8

[ -z "$(procs_of "$D")" ] && ok "no fsbench process on $D at the end" ||
	nok "no fsbench process on $D at the end"

done_testing
