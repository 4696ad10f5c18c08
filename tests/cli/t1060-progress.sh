#!/bin/bash
# Progress: on a terminal (a pseudo-terminal made by script(1)), one line
# rewritten with '\r' and erased at the end, with the test, run k of n, the
# percent, the rate and the time left for the whole suite; not on a file
# (auto); --progress json writes one JSON object per line on stderr
# (test-start, progress, test-end, done), parsed here with python3;
# --quiet silences both. Runs without root.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
D=$T/d
mkdir "$D"
# Runs of at least 0.3 s (per-char work left out, so fsbench grows it to
# --min-time): the 250 ms tick comes inside each.
RUN=(run --tests putc,getc --min-time 0.3 --repeat 2 -o /dev/null)

# ---- a terminal ----
if ! command -v script >/dev/null 2>&1; then
	skip "progress on a pseudo-terminal" "script (util-linux) is not installed"
else
	script -qec "$(printf '%q ' "$FSBENCH" "${RUN[@]}" "$D")" /dev/null >"$T/tty" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok "run on a pseudo-terminal: exit 0" ||
		{ nok "run on a pseudo-terminal: exit $rc"; diag "$T/tty"; }
	# The line as the terminal got it, one rewrite per row.
	tr '\r' '\n' <"$T/tty" | sed 's/\x1b\[K//g' | grep -a . >"$T/lines"
	if grep -qaE '^putc +run [12]/2 +[0-9]+%  [0-9.]+ [KMG]iB/s  test 1/2, ETA [0-9]+(s|m[0-9]{2}s)$' \
		"$T/lines" &&
		grep -qaE '^getc +run [12]/2 +[0-9]+%  [0-9.]+ [KMG]?i?B/s  test 2/2, ETA [0-9]+' "$T/lines"; then
		ok "the line: test, run k of n, percent, rate, test k of n and the ETA of the suite"
	else
		nok "the line: test, run k of n, percent, rate, test k of n and the ETA of the suite"
		diag "$T/lines"
	fi
	# Rewritten in place: a carriage return and an erase before each, no
	# newline anywhere, and the line erased at the end.
	if [ "$(grep -c $'\r\e\\[K' "$T/tty")" -ge 1 ] && [ "$(tr -cd '\n' <"$T/tty" | wc -c)" -eq 0 ] &&
		[ "$(tail -c 4 "$T/tty" | od -An -tx1 | tr -d ' \n')" = 0d1b5b4b ]; then
		ok "the line is rewritten with \\r, never a new line, and erased at the end"
	else
		nok "the line is rewritten with \\r, never a new line, and erased at the end"
		od -c "$T/tty" | tail -3 | sed 's/^/#   /'
	fi
fi

# ---- not a terminal: nothing (auto) ----
"$FSBENCH" "${RUN[@]}" "$D" 2>"$T/auto.err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$T/auto.err" ] && ok "--progress auto on a file: nothing on stderr" ||
	{ nok "--progress auto on a file: nothing on stderr (exit $rc)"; diag "$T/auto.err"; }

# ---- JSON lines ----
"$FSBENCH" "${RUN[@]}" --progress=json "$D" 2>"$T/json.err"; rc=$?
[ $rc -eq 0 ] && ok "--progress=json: exit 0" || { nok "--progress=json: exit $rc"; diag "$T/json.err"; }
if python3 - "$T/json.err" <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
names = [e["event"] for e in ev]
ok = names[0] == "test-start" and names[-1] == "done" and names.count("test-start") == 2
ok = ok and names.count("test-end") == 2 and "progress" in names
for e in ev:
    if e["event"] == "test-start":
        cur = e["test"]; ok = ok and e["tests"] == 2
    if e["event"] == "progress":
        ok = ok and e["test"] == cur and 1 <= e["run"] <= e["runs"] == 2
        ok = ok and 0 <= e["pct"] <= 100 and e["rate"] > 0 and e["unit"] == "B/s"
        ok = ok and e["eta_s"] >= 0
    if e["event"] == "test-end":
        ok = ok and e["test"] == cur and e["ok"] is True and e["elapsed_s"] > 0
ok = ok and [e["test"] for e in ev if e["event"] == "test-end"] == ["putc", "getc"]
ok = ok and ev[-1]["ok"] is True and ev[-1]["tests"] == 2
if not ok:
    print("#   %s" % names)
sys.exit(0 if ok else 1)
EOF
then
	ok "--progress=json: every line a JSON object, test-start/progress/test-end per test, done last"
else
	nok "--progress=json: every line a JSON object, test-start/progress/test-end per test, done last"
	diag "$T/json.err"
fi
"$FSBENCH" "${RUN[@]}" --progress=json --quiet "$D" 2>"$T/q.err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$T/q.err" ] && ok "--progress=json --quiet: nothing" ||
	{ nok "--progress=json --quiet: nothing (exit $rc)"; diag "$T/q.err"; }

# ---- a warning while the line is up ----
# A warning (putc cut short by a small tmpfs's free space, said while its
# progress line is drawn) first erases the line: it starts at column 0 on
# a line of its own, never glued to the progress after its '\r'.
if ! is_root; then
	skip "a warning ends the progress line first" "needs root (a small tmpfs)"
else
	mkdir "$T/small" && mount_tmpfs "$T/small" size=24m &&
		# 1-byte syscalls: runs of seconds, so a tick draws the line before
		# the space runs out and the warning comes.
		"$FSBENCH" run --tests putc --char-io syscall --min-time 30 --repeat 1 --progress always -o /dev/null \
			"$T/small" 2>"$T/warn.err"
	rc=$?
	if [ $rc -eq 0 ] && python3 - "$T/warn.err" <<'EOF'
import sys
raw = open(sys.argv[1], "rb").read()
w = raw.find(b"fsbench: warning: putc:")
assert w >= 0, raw[:200]
# What the terminal got since the last newline: the progress line drawn,
# then erased ('\r', erase to the end) right before the warning.
before = raw[raw.rfind(b"\n", 0, w) + 1:w]
assert b"putc " in before, before
assert before.endswith(b"\r\x1b[K"), before
EOF
	then
		ok "a warning ends the progress line first: it starts at column 0 on its own line"
	else
		nok "a warning ends the progress line first (exit $rc)"
		od -c "$T/warn.err" | head -12 | sed 's/^/#   /'
	fi
fi

"$FSBENCH" run --progress sometimes "$D" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -qF "expected auto, always, never or json" "$T/err" &&
	ok "--progress sometimes: exit 2, the four words named" ||
	{ nok "--progress sometimes: exit 2, the four words named (exit $rc)"; diag "$T/err"; }

done_testing
