/*
 * Vocabularies: the words an option accepts (--cache drop|direct|keep|
 * drop-all, the --format names, the test ids), as one string of
 * '|'-separated words.
 * The parser checks a value against the same string the usage message
 * and the shell completion show, so they cannot disagree. Pure.
 */
#ifndef FSB_UTIL_VOCAB_H
#define FSB_UTIL_VOCAB_H
#include <stddef.h>

/*
 * names[0..n) joined with '|' into buf (len bytes), names already there
 * (an alias listed twice) skipped; a name that does not fit whole is left
 * out. Always NUL-terminates (len >= 1); returns buf.
 */
char *fsb_vocab_join(const char *const *names, size_t n, char *buf, size_t len);

/* The position (from 0) of word in vocab, or -1 when it is not one of them. */
int fsb_vocab_find(const char *vocab, const char *word);

/*
 * vocab for a message, into buf: "a, b or c" ("a or b", "a"). Always
 * NUL-terminates (len >= 1); returns buf.
 */
char *fsb_vocab_describe(const char *vocab, char *buf, size_t len);

#endif
