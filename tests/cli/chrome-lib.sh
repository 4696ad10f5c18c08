# Headless Chromium for the tests of the HTML report (t5000, t5200, t5250,
# t5300). Source after lib.sh; the caller's T is its temp dir and ART the
# artifacts directory (build/test-artifacts).

# The browser, or "" when Debian's chromium is not installed.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)

# chrome_or_skip WHAT...: return when Chromium is there; else skip the
# browser's checks (chrome_loads', each WHAT, chrome_shot's) and end the
# test here: they come last in every test that has them.
chrome_or_skip() {
	local what

	[ -n "$CHROMIUM" ] && return 0
	for what in "Chromium loads the page with no console errors" "$@" "screenshot saved"; do
		skip "$what" "chromium is not installed"
	done
	done_testing
	exit 0
}

# chrome PAGE ARGS...: headless Chromium on file://PAGE with ARGS, a
# throw-away profile, nothing fetched from the network.
chrome() {
	local page=$1 profile
	shift
	tmpdir profile || return 1
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-extensions --hide-scrollbars --user-data-dir="$profile" \
		"$@" "file://$page"
}

# chrome_loads PAGE: ok when Chromium loads PAGE with no console message,
# page error or refused load (CSP); its DOM is left in $T/dom.html.
chrome_loads() {
	local rc console='CONSOLE|Refused to|Uncaught|Failed to load'

	chrome "$1" --enable-logging=stderr --v=0 --dump-dom >"$T/dom.html" 2>"$T/chrome.log"
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$T/dom.html" ] && ! grep -Eqi "$console" "$T/chrome.log"; then
		ok "Chromium loads the page with no console errors"
	else
		nok "Chromium loads the page with no console errors (exit $rc)"
		grep -Ei "$console" "$T/chrome.log" | head -5 | sed 's/^/#   /'
	fi
}

# chrome_charts WHAT WANT: ok WHAT when the DOM chrome_loads left has no
# script and one svg.chart per figure: WANT distinct ones when WANT is a
# number, else one for each row id of WANT, a comparison's JSON.
chrome_charts() {
	if python3 - "$T/dom.html" "$2" <<'EOF'
import html.parser, json, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.charts = []; self.scripts = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg' and 'chart' in (a.get('class') or '').split():
            self.charts.append(a.get('data-test'))
        if tag == 'script':
            self.scripts += 1
p = P(); p.feed(open(sys.argv[1]).read())
if sys.argv[2].isdigit():
    want = int(sys.argv[2])
    ok = len(p.charts) == want == len(set(p.charts))
else:
    want = [r['id'] for r in json.load(open(sys.argv[2]))['rows']]
    ok = sorted(p.charts) == sorted(want)
ok = ok and not p.scripts
if not ok:
    print('#   charts %s, want %s, scripts %d' % (p.charts, want, p.scripts))
sys.exit(0 if ok else 1)
EOF
	then
		ok "$1"
	else
		nok "$1"
	fi
}

# chrome_shot PAGE NAME HEIGHT: a 1280 x HEIGHT screenshot of PAGE in
# $ART/NAME.png, and PAGE copied beside it as NAME.html; ok when it is a PNG.
chrome_shot() {
	local page=$1 png=$ART/$2.png rc

	mkdir -p "$ART"
	rm -f "$png"
	chrome "$page" --screenshot="$png" --window-size=1280,"$3" >"$T/shot.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$png" ] &&
		[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
		ok "screenshot saved: build/test-artifacts/$2.png"
	else
		nok "screenshot saved: build/test-artifacts/$2.png (exit $rc)"; diag "$T/shot.log"
	fi
	cp "$page" "$ART/$2.html" 2>/dev/null || true
}
