/*
 * The matrix INI loader (cli/matrix_ini.c) from memory: the line reader inih
 * calls, the key checks, the resolution of setups, then each setup's mkfs
 * command with stand-in devices, and each run/lifecycle line through its
 * command's parser into a plan. fmemopen: no file is opened.
 */
#include "cli/matrix_ini.h"
#include "core/matrix.h"
#include "device/mkfs.h"
#include "fuzz.h"
#include "util/error.h"
#include "util/spawn.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const devs[FSB_MATRIX_MAX_DEVICES] = {
		"/dev/loop1", "/dev/loop2", "/dev/loop3", "/dev/loop4",
		"/dev/loop5", "/dev/loop6", "/dev/loop7", "/dev/loop8",
	};
	struct fsb_matrix_config cfg;
	struct fsb_error said;
	struct fsb_err_scope scope;
	char why[512] = "";
	FILE *f;
	int rc;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	rc = fsb_matrix_config_load_stream(f, "fuzz.ini", NULL, 0, &cfg, why, sizeof(why));
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
			cfg.setups[i].selected = true;
		}
		/* Every run and lifecycle line through its command's parser: a
		 * plan, or one usage error (captured: the harness stays quiet). */
		fsb_error_clear(&said);
		fsb_err_capture_begin(&scope, &said, true);
		rc = fsb_matrix_lines_to_plans(&cfg);
		fsb_err_capture_end(&scope, 0);
		FUZZ_ASSERT(rc == 0 || rc == FSB_EXIT_USAGE || rc == FSB_EXIT_FAIL);
		FUZZ_ASSERT(!rc || said.msg[0]);
		for (size_t i = 0; !rc && i < cfg.nsetups; i++)
			FUZZ_ASSERT(!cfg.setups[i].run == !cfg.setups[i].run_plan &&
				    !cfg.setups[i].lifecycle == !cfg.setups[i].lc_plan);
	}
	fsb_matrix_config_release(&cfg);
	return 0;
}
