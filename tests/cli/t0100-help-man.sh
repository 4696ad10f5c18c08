#!/bin/bash
# The man page is complete against every --help:
#   - every command 'fsbench --help' lists has its subsection
#     .SS "fsbench CMD ..." under COMMANDS and a line in the SYNOPSIS;
#   - every option 'fsbench CMD --help' lists is documented in that
#     command's part of the page (its .SS, and its .SH "CMD OPTIONS" when
#     it has one) as an item of its own: a .TP tag naming the long option,
#     and its short form when it has one; --help and --version, which every
#     command takes, in OPTIONS OF EVERY COMMAND;
#   - the reverse: an option tag in a command's part names an option that
#     command has (no stale entries);
#   - every INI key 'fsbench matrix --help' lists is a tag in MATRIX FILE;
#   - the --repeat auto item states the numbers 'fsbench run --help' says
#     (the least and the most runs, the interval's width), which come
#     from the runner's constants;
#   - the page renders without a groff warning.
# Root-free.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
MAN=$TOP/man/fsbench.1
[ -f "$MAN" ] || { echo "Bail out! $MAN missing"; exit 1; }
tmpdir T || exit 1

# The commands, from the top-level help ("  run        throughput ...").
"$FSBENCH" --help >"$T/help" 2>&1 || { echo "Bail out! fsbench --help failed"; exit 1; }
cmds=$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\)  .*/\1/p' "$T/help")
if [ "$(echo $cmds)" = "run lifecycle matrix compare report show guest clean" ]; then
	ok "fsbench --help lists the eight commands"
else
	nok "fsbench --help lists the eight commands (found: $(echo $cmds))"
fi
for c in $cmds; do
	"$FSBENCH" "$c" --help >"$T/help.$c" 2>&1 ||
		nok "fsbench $c --help exits 0"
done

# The checks, in Python over the man page's source; each line it prints
# is "ok<TAB>what" or "nok<TAB>what" (then "#" lines: the details).
python3 - "$MAN" "$T" $cmds >"$T/result" <<'PYEOF'
import re, sys

man_path, tdir, cmds = sys.argv[1], sys.argv[2], sys.argv[3:]
src = open(man_path, encoding='utf-8').read().split('\n')

def plain(line):
    """A roff line as text: no macro name, escapes and quotes resolved."""
    line = re.sub(r'^\.[A-Z]+\s*', '', line)
    line = line.replace('\\-', '-').replace('\\ ', ' ').replace('\\(aq', "'")
    line = re.sub(r'\\f[BIRP]', '', line)
    line = re.sub(r'\\[&|^]', '', line)
    return line.replace('"', '')

def block(pred):
    """The source lines from a heading pred accepts to the next heading
    of the same or a higher level."""
    out, on, level = [], False, None
    for line in src:
        m = re.match(r'^\.(SH|SS)\s+"?([^"]*)"?', line)
        if m:
            if on and (m.group(1) == 'SH' or level == 'SS'):
                on = False
            if pred(m.group(1), m.group(2)):
                on, level = True, m.group(1)
                continue
        if on:
            out.append(line)
    return out

def tags(lines):
    """The item tags: the line after each .TP, as text."""
    return [plain(lines[i + 1]) for i, l in enumerate(lines[:-1])
            if l.startswith('.TP')]

def has_opt(text, opt):
    return re.search(r'(?<![\w-])' + re.escape(opt) + r'(?![\w-])', text) is not None

def report(good, what, details=()):
    print(('ok' if good else 'nok') + '\t' + what)
    for d in details:
        print('#\t' + d)

def help_opts(cmd):
    """{long: short or None} from 'fsbench CMD --help' option lines."""
    opts = {}
    for line in open('%s/help.%s' % (tdir, cmd), encoding='utf-8'):
        m = re.match(r'^ {2,6}(?:(-[A-Za-z]), )?(--[a-z][a-z0-9-]*)', line)
        if m:
            opts[m.group(2)] = m.group(1)
    return opts

every = tags(block(lambda lvl, t: lvl == 'SH' and t == 'OPTIONS OF EVERY COMMAND'))
synopsis = ' '.join(plain(l) for l in block(lambda lvl, t: lvl == 'SH' and t == 'SYNOPSIS'))

for cmd in cmds:
    sub = block(lambda lvl, t: lvl == 'SS' and re.match(r'fsbench %s\b' % cmd, t))
    own = block(lambda lvl, t: lvl == 'SH' and t == '%s OPTIONS' % cmd.upper())
    report(bool(sub), 'man: COMMANDS has .SS "fsbench %s ..."' % cmd)
    report(re.search(r'\bfsbench %s\b' % cmd, synopsis) is not None or cmd == 'run',
           'man: SYNOPSIS shows fsbench %s' % cmd)
    ctags = tags(sub + own)
    opts = help_opts(cmd)
    missing, short = [], []
    for lo, sh in sorted(opts.items()):
        where = every if lo in ('--help', '--version') else ctags
        hits = [t for t in where if has_opt(t, lo)]
        if not hits:
            missing.append(lo)
        elif sh and not any(has_opt(t, sh) for t in hits):
            short.append('%s (%s)' % (lo, sh))
    report(not missing, 'man: every option of fsbench %s --help has an item in its section'
           % cmd, ['undocumented: ' + ' '.join(missing)] if missing else [])
    report(not short, 'man: fsbench %s: the items name the short forms too' % cmd,
           ['without their short form: ' + ', '.join(short)] if short else [])
    stale = sorted({o for t in ctags for o in re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', t)
                    if o not in opts})
    report(not stale, 'man: fsbench %s: no item names an option it lacks' % cmd,
           ['not in --help: ' + ' '.join(stale)] if stale else [])

for o, sh in (('--help', '-h'), ('--version', '-V')):
    report(any(has_opt(t, o) and has_opt(t, sh) for t in every),
           'man: OPTIONS OF EVERY COMMAND has %s, %s' % (sh, o))

# --repeat auto: "auto: 3 to 10," and "within +-5%" in the help, "at least 3
# runs", "up to 10 runs" and "\(+-5% of" in the man page's item.
def item(lines, opt):
    """The text of the item whose .TP tag names opt, tag excluded."""
    for i, l in enumerate(lines[:-1]):
        if l.startswith('.TP') and has_opt(plain(lines[i + 1]), opt):
            body = []
            for b in lines[i + 2:]:
                if re.match(r'^\.(TP|SH|SS|RE)\b', b):
                    break
                body.append(plain(b).replace('\\(+-', '+-'))
            return ' '.join(body)
    return ''

helptext = ' '.join(open('%s/help.run' % tdir, encoding='utf-8').read().split())
m = re.search(r'auto: (\d+) to (\d+),.*?within \+-(\d+(?:\.\d+)?)%', helptext)
got = (m.group(1), m.group(2), m.group(3)) if m else None
text = item(block(lambda lvl, t: lvl == 'SS' and re.match(r'fsbench run\b', t)) +
            block(lambda lvl, t: lvl == 'SH' and t == 'RUN OPTIONS'), '--repeat')
least = re.search(r'at least (\d+) runs', text)
most = re.search(r'up to (\d+) runs', text)
width = re.search(r'\+-(\d+(?:\.\d+)?)% of', text)
man = (least.group(1) if least else None, most.group(1) if most else None,
       width.group(1) if width else None)
report(got is not None and man == got,
       'man: the --repeat auto item states the numbers of fsbench run --help',
       [] if got is not None and man == got else
       ['help: %s' % (got,), 'man:  %s' % (man,)])
# The matrix INI keys: "  [global]   image_size = SIZE", "             fill = ...".
keys = []
for line in open('%s/help.matrix' % tdir, encoding='utf-8'):
    m = re.match(r'^ +(?:\[[A-Za-z]+\] +)?([a-z_]+) = ', line)
    if m:
        keys.append(m.group(1))
ftags = tags(block(lambda lvl, t: lvl == 'SH' and t == 'MATRIX FILE'))
missing = [k for k in keys
           if not any(re.match(r'\s*%s\s*=' % k, t) or re.match(r'\s*%s\b.*,' % k, t)
                      for t in ftags)]
report(len(keys) >= 12 and not missing,
       'man: MATRIX FILE has an item for each of the %d keys of fsbench matrix --help'
       % len(keys), ['undocumented: ' + ' '.join(missing)] if missing else [])
PYEOF
while IFS=$'\t' read -r verdict what; do
	case $verdict in
	ok) ok "$what" ;;
	nok) nok "$what" ;;
	'#') echo "#   $what" ;;
	esac
done <"$T/result"

# It renders: no groff warning, and man(1) shows the guest section.
if groff -man -Tutf8 -ww "$MAN" >/dev/null 2>"$T/groff" && [ ! -s "$T/groff" ]; then
	ok "groff -man -ww renders the page without a warning"
else
	nok "groff -man -ww renders the page without a warning"
	diag "$T/groff"
fi
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$MAN" 2>"$T/man.err" | col -b >"$T/man.txt"
	if grep -q '^ *fsbench guest \[OPTIONS\]' "$T/man.txt" && [ ! -s "$T/man.err" ]; then
		ok "man -l shows the page, fsbench guest included"
	else
		nok "man -l shows the page, fsbench guest included"
		diag "$T/man.err"
	fi
else
	skip "man -l shows the page" "man is not installed"
fi

done_testing
