/*
 * fsbench completion SHELL: the completion script, made from the tables
 * (cli/completion.h). Hidden from 'fsbench --help': it is for the build
 * and for packagers, not for measuring.
 */
#include "cli/completion.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "util/error.h"
#include "util/version.h"
#include "util/vocab.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: fsbench completion bash\n"
	"\n"
	"Print the bash completion script for fsbench, made from the same option\n"
	"tables the commands parse with. Packages install it as\n"
	"/usr/share/bash-completion/completions/fsbench; to try it in a shell:\n"
	"  source <(fsbench completion bash)\n"
	"\n"
	"Options:\n"
	"  -h, --help         this text\n"
	"  -V, --version      the version\n";

/* The names bash's side knows the value kinds by (enum fsb_val). */
static const char *const kind_names[] = {
	[FSB_VAL_NONE] = "none",       [FSB_VAL_TEXT] = "text",
	[FSB_VAL_NUMBER] = "number",   [FSB_VAL_SIZE] = "size",
	[FSB_VAL_SECONDS] = "seconds", [FSB_VAL_FILE] = "file",
	[FSB_VAL_DIR] = "dir",	       [FSB_VAL_FSTYPE] = "fstype",
	[FSB_VAL_WORD] = "word",       [FSB_VAL_LIST] = "list",
	[FSB_VAL_FORMAT] = "word",     [FSB_VAL_SECTIONS] = "sections",
	[FSB_VAL_COMMAND] = "command",
};

/*
 * What the generated data does not say: how a command line is walked and
 * each kind of value offered. _fsbench_spec and _fsbench_value, written
 * before it from the tables, answer "what are CMD's options and operands"
 * and "what does CMD's option OPT take".
 */
static const char bash_logic[] =
	"# _fsbench_offer KIND WORDS CUR [CONFIG]: COMPREPLY for a value of KIND.\n"
	"_fsbench_offer()\n"
	"{\n"
	"\tlocal kind=$1 words=$2 cur=$3 head=\n"
	"\tcase $kind in\n"
	"\tfile)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
	"\t\t;;\n"
	"\tdir)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
	"\t\t;;\n"
	"\tfstype)\n"
	"\t\tmapfile -t COMPREPLY < <(_fsbench_match '' \"$cur\" \"$(_fsbench_fstypes)\")\n"
	"\t\t;;\n"
	"\tword | command)\n"
	"\t\tmapfile -t COMPREPLY < <(_fsbench_match '' \"$cur\" \"$words\")\n"
	"\t\t;;\n"
	"\tlist | sections)\n"
	"\t\t[[ $kind == sections ]] && words=$(_fsbench_sections \"$4\")\n"
	"\t\t# Comma-separated: complete the last item, keep the ones before\n"
	"\t\t# (and offer them no more).\n"
	"\t\tif [[ $cur == *,* ]]; then\n"
	"\t\t\thead=${cur%,*},\n"
	"\t\t\tcur=${cur##*,}\n"
	"\t\tfi\n"
	"\t\tmapfile -t COMPREPLY < <(_fsbench_match \"$head\" \"$cur\" \"$words\")\n"
	"\t\tcompopt -o nospace 2>/dev/null\n"
	"\t\t;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# _fsbench_match HEAD CUR WORDS: each of WORDS (split on blanks and\n"
	"# newlines, never expanded: a matrix file's section names are data, and\n"
	"# compgen -W would run a $(...) in them) that starts with CUR, after\n"
	"# HEAD; the items HEAD already names (comma-separated) are left out.\n"
	"_fsbench_match()\n"
	"{\n"
	"\tlocal head=$1 cur=$2 w\n"
	"\tlocal -a list\n"
	"\tIFS=$' \\t\\n' read -r -d '' -a list <<<\"$3\"\n"
	"\tfor w in \"${list[@]}\"; do\n"
	"\t\t[[ $w == \"$cur\"* ]] || continue\n"
	"\t\t[[ \",$head\" == *\",$w,\"* ]] && continue\n"
	"\t\tprintf '%s\\n' \"$head$w\"\n"
	"\tdone\n"
	"}\n"
	"\n"
	"# _fsbench_fstypes: the filesystem types whose mkfs.TYPE is installed.\n"
	"_fsbench_fstypes()\n"
	"{\n"
	"\tlocal c\n"
	"\tfor c in $(compgen -c mkfs.; compgen -G '/sbin/mkfs.*'; compgen -G '/usr/sbin/mkfs.*'); do\n"
	"\t\tc=${c##*/}\n"
	"\t\t[[ $c == mkfs.?* ]] && printf '%s\\n' \"${c#mkfs.}\"\n"
	"\tdone | sort -u\n"
	"}\n"
	"\n"
	"# _fsbench_sections FILE: the setup sections of a matrix file ([global] aside).\n"
	"_fsbench_sections()\n"
	"{\n"
	"\tlocal file=$1 line name size n=0 re='^[[:space:]]*\\[([^]]*)\\]'\n"
	"\t[[ $file == \\~/* ]] && file=$HOME/${file#\\~/}\n"
	"\t[[ -f $file && -r $file ]] || return 0\n"
	"\t# A TAB must not hang on a huge file, one without line ends, or a\n"
	"\t# /proc file (size 0) that blocks.\n"
	"\tsize=$(stat -c %s -- \"$file\" 2>/dev/null) || return 0\n"
	"\t((size > 0 && size <= 1048576)) || return 0\n"
	"\twhile IFS= read -r -n 4096 line || [[ -n $line ]]; do\n"
	"\t\t((++n > 10000)) && break\n"
	"\t\t[[ $line =~ $re ]] || continue\n"
	"\t\tname=${BASH_REMATCH[1]}\n"
	"\t\t# Plain names only: a section named with blanks, quotes or shell\n"
	"\t\t# characters is not offered (and never expanded, see _fsbench_match).\n"
	"\t\t[[ $name =~ ^[[:alnum:]_.+:@%=/-]+$ && $name != global ]] || continue\n"
	"\t\tprintf '%s\\n' \"$name\"\n"
	"\tdone <\"$file\"\n"
	"}\n"
	"\n"
	"_fsbench()\n"
	"{\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} last=$COMP_CWORD opt= pending=\n"
	"\tlocal cmd=run i=1 w dashdash=0 inner=0 config= at_cmd= at_dashdash=0\n"
	"\tlocal n=${#COMP_WORDS[@]}\n"
	"\tCOMPREPLY=()\n"
	"\t# --opt=VALUE: bash splits the word at '=' (COMP_WORDBREAKS), so the\n"
	"\t# value is cur and the option is one or two words back.\n"
	"\tif [[ $cur == = ]]; then\n"
	"\t\tcur=\n"
	"\t\topt=${COMP_WORDS[COMP_CWORD - 1]}\n"
	"\t\tlast=$((COMP_CWORD - 1))\n"
	"\telif ((COMP_CWORD > 2)) && [[ ${COMP_WORDS[COMP_CWORD - 1]} == = ]]; then\n"
	"\t\topt=${COMP_WORDS[COMP_CWORD - 2]}\n"
	"\t\tlast=$((COMP_CWORD - 2))\n"
	"\tfi\n"
	"\t# The command word is the first word, or there is none (run).\n"
	"\tif ((last > 1)) && _fsbench_spec \"${COMP_WORDS[1]}\"; then\n"
	"\t\tcmd=${COMP_WORDS[1]}\n"
	"\t\ti=2\n"
	"\tfi\n"
	"\t# Walk the words: which command the cursor is in, whether the word\n"
	"\t# before it is an option waiting for its value, and the first operand\n"
	"\t# (matrix's CONFIG.ini, wherever it is on the line).\n"
	"\twhile ((i < n)); do\n"
	"\t\tif ((i == last)); then\n"
	"\t\t\tat_cmd=$cmd at_dashdash=$dashdash\n"
	"\t\t\ti=$((COMP_CWORD + 1))\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\tw=${COMP_WORDS[i]}\n"
	"\t\tif ((!dashdash)) && [[ $w == -- ]]; then\n"
	"\t\t\tdashdash=1\n"
	"\t\telif ((!dashdash)) && [[ $w == -?* ]]; then\n"
	"\t\t\tif [[ $w != *=* && ${COMP_WORDS[i + 1]-} == = ]] && ((i + 1 != last)); then\n"
	"\t\t\t\ti=$((i + 3))\n"
	"\t\t\t\tcontinue\n"
	"\t\t\tfi\n"
	"\t\t\t_fsbench_value \"$cmd\" \"$w\"\n"
	"\t\t\tif [[ $w != *=* && $_fsb_kind != none ]] && [[ $w == --* || ${#w} == 2 ]]; then\n"
	"\t\t\t\tif ((i + 1 == last)) && [[ -z $at_cmd ]]; then\n"
	"\t\t\t\t\tpending=$w\n"
	"\t\t\t\telif ((i + 1 != last)); then\n"
	"\t\t\t\t\ti=$((i + 1))\n"
	"\t\t\t\tfi\n"
	"\t\t\tfi\n"
	"\t\telse\n"
	"\t\t\t_fsbench_spec \"$cmd\"\n"
	"\t\t\tif [[ $_fsb_operands == command ]] && ((!inner)); then\n"
	"\t\t\t\t# guest: the command it runs; its options follow.\n"
	"\t\t\t\tif [[ \" $_fsb_operand_words \" == *\" $w \"* ]]; then\n"
	"\t\t\t\t\tcmd=$w inner=1 dashdash=0\n"
	"\t\t\t\tfi\n"
	"\t\t\telif [[ -z $config ]]; then\n"
	"\t\t\t\tconfig=$w\n"
	"\t\t\tfi\n"
	"\t\tfi\n"
	"\t\ti=$((i + 1))\n"
	"\tdone\n"
	"\t[[ -n $at_cmd ]] || at_cmd=$cmd at_dashdash=$dashdash\n"
	"\tif [[ -n $opt || -n $pending ]]; then\n"
	"\t\t_fsbench_value \"$at_cmd\" \"${opt:-$pending}\"\n"
	"\t\t_fsbench_offer \"$_fsb_kind\" \"$_fsb_words\" \"$cur\" \"$config\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif ((last == 1)) && [[ $cur != -* ]]; then\n"
	"\t\t# A command, or run's DIR.\n"
	"\t\tif [[ $cur != [/.~]* ]]; then\n"
	"\t\t\tmapfile -t COMPREPLY < <(_fsbench_match '' \"$cur\" \"$_fsbench_commands\")\n"
	"\t\tfi\n"
	"\t\t((${#COMPREPLY[@]})) || _fsbench_offer dir '' \"$cur\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t_fsbench_spec \"$at_cmd\"\n"
	"\tif ((!at_dashdash)) && [[ $cur == -* ]]; then\n"
	"\t\tmapfile -t COMPREPLY < <(_fsbench_match '' \"$cur\" \"$_fsb_opts\")\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t_fsbench_offer \"$_fsb_operands\" \"$_fsb_operand_words\" \"$cur\" \"$config\"\n"
	"\treturn 0\n"
	"}\n"
	"complete -F _fsbench fsbench\n";

const char *fsb_completion_shells(void)
{
	return "bash";
}

/* s as one shell word in single quotes ('it'\''s'). */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

/* A vocabulary ("a|b|c") as one quoted shell word of blank-separated words. */
static void put_words(FILE *out, const char *vocab)
{
	char buf[1024];
	size_t i;

	snprintf(buf, sizeof(buf), "%s", vocab ? vocab : "");
	for (i = 0; buf[i]; i++)
		if (buf[i] == '|')
			buf[i] = ' ';
	put_quoted(out, buf);
}

/* The words a value of option o of spec may be, or NULL. */
static const char *words_of(const struct fsb_cmd_spec *spec, const struct fsb_opt *o)
{
	if (o->value == FSB_VAL_FORMAT)
		return spec->formats ? spec->formats() : NULL;
	return o->words ? o->words() : NULL;
}

/* _fsbench_spec CMD: _fsb_opts, _fsb_operands, _fsb_operand_words; 1 for no command. */
static void bash_spec(FILE *out)
{
	fputs("# _fsbench_spec CMD: CMD's options (_fsb_opts), what its operands are\n"
	      "# (_fsb_operands, _fsb_operand_words); fails when CMD is no command.\n"
	      "_fsbench_spec()\n{\n\tcase $1 in\n",
	      out);
	for (const struct fsb_command *c = fsb_commands; c->spec; c++) {
		const struct fsb_opt *opts[FSB_CLI_MAX_OPTS];
		size_t n = fsb_cli_options(c->spec, opts, FSB_CLI_MAX_OPTS);
		char list[2048];
		size_t used = 0;

		list[0] = '\0';
		for (size_t i = 0; i < n; i++) {
			int w = fsb_opt_short(opts[i])
					? snprintf(list + used, sizeof(list) - used, "%s--%s -%c",
						   used ? " " : "", opts[i]->name, opts[i]->code)
					: snprintf(list + used, sizeof(list) - used, "%s--%s",
						   used ? " " : "", opts[i]->name);

			if (w > 0 && (size_t)w < sizeof(list) - used)
				used += (size_t)w;
		}
		fprintf(out, "\t%s)\n\t\t_fsb_opts=", c->spec->name);
		put_quoted(out, list);
		fprintf(out, "\n\t\t_fsb_operands=%s _fsb_operand_words=",
			kind_names[c->spec->operands]);
		put_words(out, c->spec->operand_words ? c->spec->operand_words() : NULL);
		fputs("\n\t\t;;\n", out);
	}
	fputs("\t*) return 1 ;;\n\tesac\n}\n\n", out);
}

/* _fsbench_value CMD OPT: _fsb_kind (none for a flag or no option) and _fsb_words. */
static void bash_values(FILE *out)
{
	fputs("# _fsbench_value CMD OPT: what CMD's option OPT takes (_fsb_kind: none\n"
	      "# for a flag or an unknown option) and the words it may be (_fsb_words).\n"
	      "_fsbench_value()\n{\n\t_fsb_kind=none _fsb_words=\n\tcase $1:$2 in\n",
	      out);
	for (const struct fsb_command *c = fsb_commands; c->spec; c++) {
		const struct fsb_opt *opts[FSB_CLI_MAX_OPTS];
		size_t n = fsb_cli_options(c->spec, opts, FSB_CLI_MAX_OPTS);

		for (size_t i = 0; i < n; i++) {
			const struct fsb_opt *o = opts[i];
			const char *words = words_of(c->spec, o);

			if (o->value == FSB_VAL_NONE)
				continue;
			fprintf(out, "\t%s:--%s", c->spec->name, o->name);
			if (fsb_opt_short(o))
				fprintf(out, " | %s:-%c", c->spec->name, o->code);
			fprintf(out, ") _fsb_kind=%s", kind_names[o->value]);
			if (words) {
				fputs(" _fsb_words=", out);
				put_words(out, words);
			}
			fputs(" ;;\n", out);
		}
	}
	fputs("\tesac\n}\n\n", out);
}

/* The visible commands, blank-separated, into buf. */
static const char *command_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct fsb_command *c = fsb_commands; c->spec; c++) {
		int w;

		if (!c->summary)
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", c->spec->name);
		if (w > 0 && (size_t)w < len - used)
			used += (size_t)w;
	}
	return buf;
}

static int write_bash(FILE *out)
{
	char names[256];

	fprintf(out,
		"# bash completion for fsbench(1)                          -*- shell-script -*-\n"
		"#\n"
		"# Made by 'fsbench completion bash' (%s) from the option\n"
		"# tables the commands parse with: make it again, do not edit it.\n"
		"# Installed as /usr/share/bash-completion/completions/fsbench.\n"
		"\n",
		fsb_version_line());
	fputs("# The commands 'fsbench --help' lists.\n_fsbench_commands=", out);
	put_quoted(out, command_names(names, sizeof(names)));
	fputs("\n\n", out);
	bash_spec(out);
	bash_values(out);
	fputs(bash_logic, out);
	return ferror(out) ? -EIO : 0;
}

int fsb_completion_write(FILE *out, const char *shell)
{
	if (shell && !strcmp(shell, "bash"))
		return write_bash(out);
	return -EINVAL;
}

const struct fsb_cmd_spec fsb_completion_spec = {
	.name = "completion",
	.common = FSB_OPT_BASIC,
	.operands = FSB_VAL_WORD,
	.operand_words = fsb_completion_shells,
};

static void print_usage(FILE *out)
{
	fputs(usage_text, out);
}

int fsb_cmd_completion(int argc, char **argv)
{
	struct fsb_common co;
	char want[64];
	int i, rc = fsb_cli_getopt(&fsb_completion_spec, argc, argv, NULL, NULL, &co, &i);

	if (rc || fsb_cli_answered(&co, print_usage))
		return rc;
	if (i + 1 != argc || fsb_vocab_find(fsb_completion_shells(), argv[i]) < 0) {
		fsb_err("completion: expected one shell: %s (see --help)",
			fsb_vocab_describe(fsb_completion_shells(), want, sizeof(want)));
		return FSB_EXIT_USAGE;
	}
	if (fsb_completion_write(stdout, argv[i]) || fflush(stdout)) {
		fsb_err_errno(-EIO, "completion: cannot write the script");
		return FSB_EXIT_FAIL;
	}
	return FSB_EXIT_OK;
}
