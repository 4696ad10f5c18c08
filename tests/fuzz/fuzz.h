/*
 * Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): each is one
 * LLVMFuzzerTestOneInput for one parser, side-effect free (no file written,
 * no process started), and aborts on a broken invariant so libFuzzer keeps
 * the input. Built and run by `make fuzz`; `make test` replays the corpus.
 */
#ifndef FSB_TESTS_FUZZ_H
#define FSB_TESTS_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (cut at its first NUL); free it. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A broken invariant: say which, then abort so the input is kept. */
#define FUZZ_ASSERT(cond)                                                                    \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                      \
			abort();                                                             \
		}                                                                            \
	} while (0)

#endif
