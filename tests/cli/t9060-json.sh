#!/bin/bash
# Hostile bytes in what fsbench writes as JSON (issue 25 item 8): a label
# and a directory name that are not valid UTF-8 give a file python3 can
# load, with the exact bytes in base64 beside the string (label_bytes,
# dir_bytes), and a reader that takes the bytes back.
. "$(dirname "$0")/lib.sh"
tmpdir T || exit 1
D=$T/$'\xc3('
mkdir "$D" || exit 1
QUICK=(run --tests null --repeat 1 --min-time 0.001 --quiet --format json)

if "$FSBENCH" "${QUICK[@]}" --label $'\xff\xfe' -o "$T/a.json" "$D" 2>"$T/err"; then
	ok "run --label \\xff\\xfe in a directory named \\xc3(: exit 0"
else
	nok "run --label \\xff\\xfe in a directory named \\xc3(: exit 0"; diag "$T/err"
fi
check "python3 json.load takes the file" \
	python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$T/a.json"
check "label_bytes decodes to the label given, label is U+FFFD twice" python3 -c '
import base64, json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))["setup"]
assert base64.b64decode(s["label_bytes"]) == b"\xff\xfe", s
assert s["label"] == "\ufffd\ufffd", s' "$T/a.json"
check "dir_bytes decodes to the directory's bytes" python3 -c '
import base64, json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))["setup"]
assert b"/\xc3(/" in base64.b64decode(s["dir_bytes"]), s
assert "/\ufffd(/" in s["dir"], s' "$T/a.json"

# The reader restores the bytes: compare shows the original, escaped.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
d["setup"].pop("dir_bytes")
d["setup"]["dir"] = "/x"
json.dump(d, open(sys.argv[2], "w"))' "$T/a.json" "$T/b.json"
if "$FSBENCH" compare "$T/b.json" >"$T/out" 2>"$T/err" && grep -qF '\xff\xfe' "$T/out"; then
	ok "compare of a file with label_bytes shows the original label escaped"
else
	nok "compare of a file with label_bytes shows the original label escaped"; diag "$T/out"
fi
# label_bytes that are not the label's bytes: refused, naming the field.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
d["setup"]["label_bytes"] = "YWJj"
json.dump(d, open(sys.argv[2], "w"))' "$T/b.json" "$T/c.json"
"$FSBENCH" compare "$T/c.json" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && one_line "$T/err" && grep -q 'setup.label_bytes' "$T/err"; then
	ok "label_bytes that do not match the label: exit 1, one line naming it"
else
	nok "label_bytes that do not match the label: exit 1, one line naming it (exit $rc)"
	diag "$T/err"
fi
done_testing
