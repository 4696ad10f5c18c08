/*
 * Kernel modules for a guest: which .ko files a set of module names needs,
 * in an order insmod can load them, from the text of a kernel's
 * modules.dep. No libkmod: the guest's kernel is not the host's, and the
 * resolution is pure so it can be tested on a fabricated modules.dep.
 */
#ifndef FSB_DEVICE_KMOD_H
#define FSB_DEVICE_KMOD_H
#include <stddef.h>

/*
 * A module's name as the kernel spells it: the basename of path without
 * ".ko" (and ".xz", ".zst", ".gz"), '-' replaced by '_'. Pure; writes at
 * most len bytes to out (always NUL-terminated) and returns out.
 */
char *fsb_kmod_name(const char *path, char *out, size_t len);

/*
 * Resolve names (module names, '-' and '_' alike) against dep_text, the
 * content of modules.dep ("kernel/fs/jffs2/jffs2.ko: kernel/drivers/mtd/mtd.ko").
 * Every dependency comes before the modules that need it; each path appears
 * once, in the order of first need. Pure.
 * Returns the number of paths and a NULL-terminated malloc'ed vector of
 * paths relative to the modules directory in *out (free with
 * fsb_kmod_free), -ENOENT with the first missing name copied to missing
 * (missing_len bytes; a dependency named in modules.dep but absent as an
 * entry counts too), or -ENOMEM.
 */
int fsb_kmod_resolve(const char *dep_text, const char *const *names, size_t nnames, char ***out,
		     char *missing, size_t missing_len);

/* Free a vector from fsb_kmod_resolve (NULL is fine). */
void fsb_kmod_free(char **paths);

#endif
