#!/bin/bash
# fsbench show: every result document of tests/golden rendered again in
# every view that has a golden file there (DOCUMENT.VIEW.txt) prints it
# byte for byte, its json view gives back the document itself, html is
# what `fsbench report FILE` makes, and a bonnie++ CSV line (the csv
# golden, read by the importer) shows as itself. An unknown --format, a
# view that does not fit the file's kind and two files are usage errors
# (exit 2) that write nothing. Root-free.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
cd "$TOP" || exit 1
G=tests/golden

# same WHAT GOLDEN CMD...: CMD exits 0, says nothing on stderr and prints
# GOLDEN byte for byte.
same() {
	local what=$1 golden=$2 rc; shift 2
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$golden"; then
		ok "$what"
	else
		nok "$what (exit $rc)"
		diag "$T/err"
		diff "$golden" "$T/out" >"$T/diff"
		diag "$T/diff"
	fi
}

n=0
for doc in run mpi lifecycle matrix; do
	for golden in "$G/$doc.json".*.txt; do
		view=${golden#"$G/$doc.json."}
		view=${view%.txt}
		same "show $doc.json --format $view" "$golden" \
			"$FSBENCH" show --format "$view" "$G/$doc.json"
		n=$((n + 1))
	done
	same "show $doc.json --format json gives back the document" "$G/$doc.json" \
		"$FSBENCH" show -f json "$G/$doc.json"
	"$FSBENCH" report "$G/$doc.json" -o "$T/page.html" 2>"$T/err"
	same "show $doc.json --format html is report's page" "$T/page.html" \
		"$FSBENCH" show -f html "$G/$doc.json" -o -
done
# Every view golden of a document was found (5 + 5 + 3 + 2).
if [ $n -eq 15 ]; then ok "15 view goldens rendered"; else nok "$n view goldens rendered, want 15"; fi
# The default view is text.
same "show run.json without --format is the text view" "$G/run.json.text.txt" \
	"$FSBENCH" show "$G/run.json"
# bonnie++ CSV through the importer: the csv view gives the line back.
same "show of a bonnie++ CSV line, --format csv" "$G/run.json.csv.txt" \
	"$FSBENCH" show -f csv "$G/run.json.csv.txt"
# -o writes the same bytes to a file.
"$FSBENCH" show -f bonnie "$G/run.json" -o "$T/b.txt" 2>"$T/err"
check "show -o FILE writes the view" cmp -s "$T/b.txt" "$G/run.json.bonnie.txt"

# Refusals: exit 2, one line, nothing written; an unknown format is
# refused before the file is read (it does not exist here).
# A result that says how its work was chosen shows the run's "Work:" line:
# the text view prints it from "chosen", so show must read it back.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["tests"][0]["chosen"]={"how":"given","why":"--size given"}; json.dump(d,open(sys.argv[2],"w"))' \
	"$G/run.json" "$T/chosen.json"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tests"][0]["id"])' "$G/run.json")
"$FSBENCH" show "$T/chosen.json" >"$T/chosen.txt" 2>"$T/err"
check "show prints the Work: line a result's chosen records" \
	grep -qx "Work: given for $id." "$T/chosen.txt"

expect_exit 2 "unknown --format refused before the file is read" \
	"$FSBENCH" show -f xml "$T/missing.json" -o "$T/x1" 2>"$T/err"
check "... naming the formats, leaving no output" \
	sh -c "grep -q \"invalid --format 'xml'\" '$T/err' && [ ! -e '$T/x1' ] && [ \$(wc -l <'$T/err') -eq 1 ]"
expect_exit 2 "a view that does not fit the kind (lifecycle in bonnie)" \
	"$FSBENCH" show -f bonnie "$G/lifecycle.json" -o "$T/x2" 2>"$T/err"
check "... says which views fit, leaving no output" \
	sh -c "grep -q 'expected text|lifecycle|json|markdown' '$T/err' && [ ! -e '$T/x2' ]"
expect_exit 2 "a matrix in the bonnie++ view" \
	"$FSBENCH" show -f bonnie++ "$G/matrix.json" 2>/dev/null
expect_exit 2 "two files" "$FSBENCH" show "$G/run.json" "$G/mpi.json" 2>/dev/null
expect_exit 2 "no file" "$FSBENCH" show 2>/dev/null
expect_exit 1 "a file that is no result" "$FSBENCH" show "$G/compare.json.txt" 2>/dev/null

done_testing
