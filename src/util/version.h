/*
 * The version fsbench reports: FSB_VERSION ("0.2.0", from the Makefile,
 * also the "version" of every result document), and the commit it was
 * built from when known (`git describe --always --dirty` at build time in
 * a checkout, the VERSION file of a `make dist` tarball), for --version.
 */
#ifndef FSB_UTIL_VERSION_H
#define FSB_UTIL_VERSION_H

/*
 * What --version prints, without the newline: "fsbench 0.2.0 (git
 * 1a2b3c4d, dirty)", "fsbench 0.2.0 (git 1a2b3c4d)", or "fsbench 0.2.0"
 * when the build knew no commit. A static string.
 */
const char *fsb_version_line(void);

/* The commit ("1a2b3c4d", "1a2b3c4d-dirty"), or "" when unknown. Static. */
const char *fsb_version_commit(void);

#endif
