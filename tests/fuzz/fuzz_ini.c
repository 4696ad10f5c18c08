/*
 * The matrix INI loader (cli/matrix_ini.c) from memory: the line reader inih
 * calls, the key checks, the resolution of setups, then each setup's mkfs
 * command with stand-in devices. fmemopen: no file is opened.
 */
#include "fuzz.h"
#include "cli/matrix_ini.h"
#include "core/matrix.h"
#include "device/mkfs.h"
#include "util/spawn.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const devs[FSB_MATRIX_MAX_DEVICES] = {
		"/dev/loop1", "/dev/loop2", "/dev/loop3", "/dev/loop4",
		"/dev/loop5", "/dev/loop6", "/dev/loop7", "/dev/loop8",
	};
	struct fsb_matrix_config cfg;
	char why[512] = "";
	FILE *f;
	int rc;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	rc = fsb_matrix_config_load_stream(f, "fuzz.ini", &cfg, why, sizeof(why));
	fclose(f);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc) {
		/* Every refusal says where: "fuzz.ini:LINE: what". */
		FUZZ_ASSERT(!strncmp(why, "fuzz.ini:", 9));
	} else {
		FUZZ_ASSERT(cfg.nsetups >= 1);
		for (size_t i = 0; i < cfg.nsetups; i++) {
			const struct fsb_matrix_setup *s = &cfg.setups[i];
			const char *mwhy = NULL;
			char **argv = NULL;
			int n;

			FUZZ_ASSERT(s->label && s->type && s->mkfs && s->options);
			FUZZ_ASSERT(s->devices >= 1 && s->devices <= FSB_MATRIX_MAX_DEVICES);
			FUZZ_ASSERT(fsb_matrix_config_find(&cfg, s->label) == s);
			n = fsb_matrix_mkfs_argv(s, devs, s->devices, &argv, &mwhy);
			/* The loader checked the template: it must expand. */
			FUZZ_ASSERT(n > 0 || (n == -ENOENT && fsb_mkfs_is_none(s->mkfs)));
			fsb_words_free(argv);
		}
	}
	fsb_matrix_config_release(&cfg);
	return 0;
}
