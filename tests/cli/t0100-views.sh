#!/bin/bash
# The views end to end, for the same result documents before and after a
# change: `fsbench compare` (text, json, csv, markdown) and `fsbench report` of
# tests/golden/run.json, lifecycle.json and matrix.json must print exactly
# the golden files made from them (tests/golden/README says when and how;
# tests/unit/test_views.c pins the run, lifecycle and matrix views of the
# same documents). Root-free.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
# Relative paths: compare prints them, and the goldens hold these.
cd "$TOP" || exit 1
G=tests/golden
docs=("$G/run.json" "$G/lifecycle.json" "$G/matrix.json")

# same WHAT GOLDEN CMD...: CMD exits 0, says nothing on stderr and prints
# GOLDEN byte for byte (the first lines that differ shown on failure).
same() {
	local what=$1 golden=$2 rc; shift 2
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$golden"; then
		ok "$what prints $golden"
	else
		nok "$what prints $golden (exit $rc)"
		diag "$T/err"
		diff "$golden" "$T/out" >"$T/diff"
		diag "$T/diff"
	fi
}

for view in text json csv markdown; do
	same "compare --format $view" "$G/compare.$view.txt" \
		"$FSBENCH" compare --format "$view" "${docs[@]}"
done
same "report -o -" "$G/report.html.txt" "$FSBENCH" report "${docs[@]}" -o -
# The markdown report is compare's markdown view of the same inputs.
same "report --format markdown -o -" "$G/compare.markdown.txt" \
	"$FSBENCH" report --format markdown "${docs[@]}" -o -
# Without --format the output's name says it: OUT.md (OUT.MD) is
# markdown, any other name HTML (".md" alone is a name without an
# extension); --format wins over the name.
for f in r.md R.MD r.html .md; do
	"$FSBENCH" report "${docs[@]}" -o "$T/$f" 2>>"$T/err"
done
"$FSBENCH" report --format html "${docs[@]}" -o "$T/forced.md" 2>>"$T/err"
if cmp -s "$T/r.md" "$G/compare.markdown.txt" && cmp -s "$T/R.MD" "$G/compare.markdown.txt" &&
	cmp -s "$T/r.html" "$G/report.html.txt" && cmp -s "$T/.md" "$G/report.html.txt" &&
	cmp -s "$T/forced.md" "$G/report.html.txt" && [ ! -s "$T/err" ]; then
	ok "report -o OUT.md writes markdown; -o OUT.html, -o .md and --format html -o OUT.md HTML"
else
	nok "report -o OUT.md writes markdown; -o OUT.html, -o .md and --format html -o OUT.md HTML"
	diag "$T/err"
fi

done_testing
