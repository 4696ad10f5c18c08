#!/bin/bash
# A run under the shell's `ulimit -f` (issue 25 item 11): the write over
# the limit fails with EFBIG instead of killing fsbench by SIGXFSZ (exit
# 153, no word, scratch left); fsbench names the limit in one line, exits
# 1 and removes its scratch files.
. "$(dirname "$0")/lib.sh"
tmpdir T || exit 1
mkdir "$T/d" || exit 1

(ulimit -f 2048; exec "$FSBENCH" run --tests write --size 8m --repeat 1 --quiet "$T/d") \
	>"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 1 ]; then
	ok "ulimit -f 2048 under an 8 MiB write: exit 1"
else
	nok "ulimit -f 2048 under an 8 MiB write: exit 1 (got $rc)"; diag "$T/err"
fi
if one_line "$T/err" && grep -qF 'file size limit reached (ulimit -f)' "$T/err"; then
	ok "one line naming the limit: file size limit reached (ulimit -f)"
else
	nok "one line naming the limit: file size limit reached (ulimit -f)"; diag "$T/err"
fi
check "ulimit -f: no scratch left" no_scratch_left "$T/d"
check "ulimit -f: the directory given is left empty" empty_dir "$T/d"

# The report itself over the limit (-o FILE): the same words, one line,
# and the result still reaches standard output.
(ulimit -f 2; exec "$FSBENCH" run --tests seq-create --files 64 --repeat 1 --quiet \
	--min-time 0.001 -f json -o "$T/r.json" "$T/d") >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 1 ] && one_line "$T/err" &&
	grep -qF "cannot write '$T/r.json': file size limit reached (ulimit -f)" "$T/err" &&
	[ -s "$T/out" ] && [ ! -e "$T/r.json" ]; then
	ok "-o over ulimit -f: exit 1, one line naming the limit, the result on stdout"
else
	nok "-o over ulimit -f: exit 1, one line naming the limit, the result on stdout (exit $rc)"
	diag "$T/err"
fi

# Without a limit, EFBIG keeps strerror's words: the rule names the limit
# only where there is one.
if (ulimit -f unlimited; exec "$FSBENCH" run --tests write --size 8m --repeat 1 --quiet \
	--min-time 0.001 "$T/d") >"$T/out" 2>"$T/err"; then
	ok "no ulimit -f: the same run passes"
else
	nok "no ulimit -f: the same run passes"; diag "$T/err"
fi
done_testing
