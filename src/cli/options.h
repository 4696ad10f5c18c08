/*
 * Option parsing shared by the commands: one table of the options every
 * command may have (help, version, format, output, label, seed, progress,
 * quiet), one getopt loop with one tail (help, version, an unknown option,
 * a missing value), and the parsers of single values. Nothing here touches
 * the system: argv in, values or a usage error (described, one line) out.
 */
#ifndef FSB_CLI_OPTIONS_H
#define FSB_CLI_OPTIONS_H
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/plan.h"
#include "util/modes.h"

/* The shared options, as bits of struct fsb_cmd_spec.common and fsb_common.given. */
enum {
	FSB_OPT_HELP = 1u << 0,	    /* -h, --help */
	FSB_OPT_VERSION = 1u << 1,  /* -V, --version */
	FSB_OPT_FORMAT = 1u << 2,   /* -f, --format VIEW */
	FSB_OPT_OUTPUT = 1u << 3,   /* -o, --output FILE */
	FSB_OPT_LABEL = 1u << 4,    /* -l, --label NAME */
	FSB_OPT_SEED = 1u << 5,	    /* --seed N */
	FSB_OPT_PROGRESS = 1u << 6, /* --progress WHEN */
	FSB_OPT_QUIET = 1u << 7,    /* -q, --quiet */
};
#define FSB_OPT_BASIC (FSB_OPT_HELP | FSB_OPT_VERSION)
#define FSB_OPT_REPORTING                                                                 \
	(FSB_OPT_BASIC | FSB_OPT_FORMAT | FSB_OPT_OUTPUT | FSB_OPT_LABEL | FSB_OPT_SEED | \
	 FSB_OPT_PROGRESS | FSB_OPT_QUIET)

/* What the shared options said. Strings borrowed from argv. */
struct fsb_common {
	unsigned given;	    /* FSB_OPT_* seen */
	const char *format; /* NULL: the command's default */
	const char *output; /* NULL: standard output */
	const char *label;
	uint64_t seed;
	enum fsb_progress progress;
	bool quiet;
};

/*
 * What an option's value (or a command's operand) is. The parser needs
 * only "a value or none"; the shell completion (cli/completion.h) offers
 * candidates by kind, so every option says what it takes here, in the
 * table the parser reads, and the two cannot drift apart.
 */
enum fsb_val {
	FSB_VAL_NONE,	  /* a flag: no value (for an operand: no operands) */
	FSB_VAL_TEXT,	  /* free text: a label, a template, mount options */
	FSB_VAL_NUMBER,	  /* a whole number */
	FSB_VAL_SIZE,	  /* a size: 512m, 8k */
	FSB_VAL_SECONDS,  /* seconds: 0.5, 500ms */
	FSB_VAL_FILE,	  /* a path: a file or a device */
	FSB_VAL_DIR,	  /* a directory */
	FSB_VAL_FSTYPE,	  /* a filesystem type (offered: the mkfs.TYPE installed) */
	FSB_VAL_WORD,	  /* one of words() */
	FSB_VAL_LIST,	  /* comma-separated items of words() */
	FSB_VAL_FORMAT,	  /* one of the command's formats (fsb_cmd_spec.formats) */
	FSB_VAL_SECTIONS, /* comma-separated section names of the INI operand (matrix --only) */
	FSB_VAL_COMMAND,  /* operand: a command word of words(), then that command's options */
};

/*
 * One option of a command's table, {0}-terminated. code is what the
 * command's own() gets; a letter code is also the option's short form
 * (-s for --size); codes 256..511 (512 up: the shared options') have
 * none. Takes a value unless value is FSB_VAL_NONE.
 */
struct fsb_opt {
	const char *name;   /* the long name, without "--" */
	int code;	    /* a letter, or 256..511 */
	enum fsb_val value; /* what it takes */
	/* FSB_VAL_WORD, _LIST: the words accepted, '|'-separated
	 * ("drop|direct|keep"), from the vocabulary the parser checks with. */
	const char *(*words)(void);
};

/* A command's options: the shared ones it takes, and its own. */
struct fsb_cmd_spec {
	const char *name;		    /* the command word: "run" */
	unsigned common;		    /* FSB_OPT_* it takes */
	const struct fsb_opt *opts;	    /* its own options, {0}-terminated; NULL: none */
	bool stop_at_operand;		    /* options end at the first operand (guest) */
	enum fsb_val operands;		    /* what its operands are (DIR, FILE, ...) */
	const char *(*operand_words)(void); /* FSB_VAL_WORD, _COMMAND: the words allowed */
	const char *(*formats)(void);	    /* its --format names, '|'-separated */
	/* Handle one of its own options: 0, or FSB_EXIT_USAGE after describing. */
	int (*own)(void *ctx, int c, const char *arg);
};

/*
 * Every option spec takes, the shared ones (in the shared table's order)
 * then its own, into out[0..max). Returns how many (at most max).
 */
size_t fsb_cli_options(const struct fsb_cmd_spec *spec, const struct fsb_opt **out, size_t max);

/* The short form of o: its code when that is a letter, else 0. */
int fsb_opt_short(const struct fsb_opt *o);

/* The most options a command may have, the shared ones included. */
#define FSB_CLI_MAX_OPTS 64

/*
 * A command line inside another, whose caller sets some options itself (a
 * matrix file's `run =` line): those options (long names; their short
 * forms too) are refused with "option '--output' is set by OWNER, not in
 * the file", and operands with "unexpected argument 'X'".
 */
struct fsb_cli_nest {
	const char *owner;	    /* "fsbench matrix" */
	const char *const *refused; /* NULL-terminated long names */
};

/*
 * Parse argv[0..argc) (argv[0] the command word, not parsed) with spec:
 * the shared options into co (initialised here), the command's own through
 * spec->own(ctx, ...). Stops at --help or --version (their bit in
 * co->given; the caller prints). *first_operand is the index of the first
 * operand (argc when none). Pure but for getopt's own state (reset here).
 * Returns 0, or FSB_EXIT_USAGE after one line: an unknown option, a
 * missing value, a bad value, a refused option or operand (nest).
 */
int fsb_cli_getopt(const struct fsb_cmd_spec *spec, int argc, char **argv,
		   const struct fsb_cli_nest *nest, void *ctx, struct fsb_common *co,
		   int *first_operand);

/*
 * After fsb_cli_getopt: print the usage (usage(stdout)) or the version
 * (fsb_version_line) when co asks for one, and say so. The one place that
 * answers them.
 */
bool fsb_cli_answered(const struct fsb_common *co, void (*usage)(FILE *out));

/* A size with k/m/g/t suffix, > 0. 0 or FSB_EXIT_USAGE (described). */
int fsb_opt_size(const char *opt, const char *arg, uint64_t *out);
/* The operands argv[i..argc) of compare or report: at least one, none
 * empty. 0, or FSB_EXIT_USAGE after one line naming cmd. */
int fsb_cli_result_files(const char *cmd, int i, int argc, char **argv);

/* Whether arg is a whole number from min to max (then in *out); quiet. */
bool fsb_opt_is_count(const char *arg, uint64_t min, uint64_t max, uint64_t *out);

/* A decimal integer in [min, max]. */
int fsb_opt_count(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
/* Seconds: "0.5", "2", "500ms", "1.5s"; > 0 and at most a day. */
int fsb_opt_seconds(const char *opt, const char *arg, uint64_t *out_ns);
/* drop | direct | keep */
int fsb_opt_cache(const char *arg, enum fsb_cache_mode *out);
/* --data: random | zero | compressible:PCT | dedupe:PCT (util/modes.h) */
int fsb_opt_data(const char *arg, struct fsb_data *out);
/*
 * arg as one of words ('|'-separated, as in struct fsb_opt): *index is
 * its position (from 0). 0, or FSB_EXIT_USAGE after "invalid OPT 'ARG':
 * expected a, b or c".
 */
int fsb_opt_word(const char *opt, const char *arg, const char *words, unsigned *index);
/* "fsbench: invalid OPT 'ARG': expected WANT"; returns FSB_EXIT_USAGE. */
int fsb_opt_bad(const char *opt, const char *arg, const char *want);

#endif
