/*
 * Fault injection points (libfiu), compiled in only for the
 * fault-injection build (`make build/fiu/fsbench`, -DFSB_FIU): everywhere
 * else every macro here is nothing, and libfiu is not needed to build.
 *
 * libfiu's POSIX preload (`fiu-run -x`) fails open, read, write, pread,
 * pwrite, fsync, unlink, rename, fflush, ... by symbol; it cannot see the
 * *at calls, mkdir or mkdtemp. fsbench makes those through util/io.h's
 * fsb_io_* wrappers, each a point of its own:
 *
 *   fsbench/io/openat  fsbench/io/mkdirat  fsbench/io/unlinkat
 *   fsbench/io/renameat  fsbench/io/fstatat  fsbench/io/linkat
 *   fsbench/io/symlinkat  fsbench/io/mkdir (the scratch directory)
 *
 * enabled like the preload's: `fiu-run -x -c 'enable_random
 * name=fsbench/io/openat,probability=0.01,failinfo=28'`. The failinfo
 * is the errno the call fails with (EIO when none is given).
 *
 * Cleanup is never injected: what removes fsbench's own files goes
 * through fsb_cleanup_* (util/io.h), which have no point and in this
 * build reach the kernel directly, past the preload. A fault may stop
 * the work; it must never be what leaves the work behind.
 */
#ifndef FSB_UTIL_FAULT_H
#define FSB_UTIL_FAULT_H

#ifdef FSB_FIU
#include <errno.h>
#include <stdint.h>
#define FIU_ENABLE 1
#include <fiu-local.h>

/* The errno an enabled point fails with: its failinfo, else EIO. */
static inline int fsb_fault_errno(void)
{
	intptr_t e = (intptr_t)fiu_failinfo();

	return e > 0 && e < 4096 ? (int)e : EIO;
}

/* In a function returning -1 with errno (a syscall's convention). */
#define FSB_FAULT_SYSCALL(name) fiu_return_on(name, (errno = fsb_fault_errno(), -1))
/* In a function returning 0 or -errno (fsbench's convention). */
#define FSB_FAULT_NEG(name) fiu_return_on(name, -fsb_fault_errno())
#else
#define FSB_FAULT_SYSCALL(name) \
	do {                    \
	} while (0)
#define FSB_FAULT_NEG(name) \
	do {                \
	} while (0)
#endif

#endif
