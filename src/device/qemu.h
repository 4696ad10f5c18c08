/*
 * Running a QEMU guest: the command line (pure) and one boot watched
 * through its console. The console (first serial port) comes back on a
 * pipe and is only read for progress markers, panics and the lines shown
 * when something fails; results travel on the second serial port, which
 * QEMU writes to a host file, never on the console.
 */
#ifndef FSB_DEVICE_QEMU_H
#define FSB_DEVICE_QEMU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSB_QEMU_MAX_DISKS 8
#define FSB_QEMU_TAIL_LINES 12

/* What the guest's init prints on the console (the guest executor writes it). */
#define FSB_QEMU_READY "fsbench-guest: ready"
#define FSB_QEMU_EXIT "fsbench-guest: exit "

struct fsb_qemu_cfg {
	const char *qemu;  /* the program, resolved */
	const char *accel; /* "kvm" or "tcg" */
	const char *kernel, *initrd, *append;
	unsigned memory_mb, cpus;
	const char *result_path;	       /* host file behind the guest's ttyS1 */
	const char *disks[FSB_QEMU_MAX_DISKS]; /* raw images: vda, vdb, ... */
	bool snapshot[FSB_QEMU_MAX_DISKS];     /* writes kept in a temporary overlay */
	size_t ndisks;
};

/*
 * The argv for cfg (argv[0] = cfg->qemu). Pure. Returns the count and a
 * NULL-terminated vector in *out (free with fsb_qemu_argv_free), or -ENOMEM.
 */
int fsb_qemu_argv(const struct fsb_qemu_cfg *cfg, char ***out);
void fsb_qemu_argv_free(char **argv);

enum fsb_qemu_end {
	FSB_QEMU_EXITED,    /* init printed its exit marker, QEMU stopped */
	FSB_QEMU_NO_MARKER, /* QEMU stopped without the marker */
	FSB_QEMU_PANIC,	    /* "Kernel panic" on the console */
	FSB_QEMU_TIMEOUT,   /* timeout_ns passed */
	FSB_QEMU_NOT_READY, /* no ready marker within ready_ns (KVM probe) */
	FSB_QEMU_STOPPED,   /* SIGINT/SIGTERM on the host */
};

struct fsb_qemu_outcome {
	enum fsb_qemu_end end;
	int guest_status;		     /* the number after the exit marker */
	int qemu_status;		     /* waitpid status */
	uint64_t ready_ns, wall_ns;	     /* since the spawn */
	char tail[FSB_QEMU_TAIL_LINES][256]; /* last console lines, oldest first */
	size_t ntail;
};

/*
 * Feed console bytes through the line scanner: updates the tail and sets
 * *ready, *exit_status (>= 0) or *panic when a complete line carries a
 * marker. Pure apart from its state; exposed for tests.
 */
struct fsb_qemu_scan {
	char line[256];
	size_t len;
	bool ready, panic;
	int exit_status; /* -1 until the exit marker */
	char tail[FSB_QEMU_TAIL_LINES][256];
	size_t ntail; /* lines held (ring, oldest at first) */
	size_t first;
};
void fsb_qemu_scan_init(struct fsb_qemu_scan *s);
void fsb_qemu_scan_feed(struct fsb_qemu_scan *s, const char *buf, size_t n);

/*
 * Boot cfg and watch it until QEMU exits. It is killed (SIGKILL, reaped)
 * on a panic, after timeout_ns, when ready_ns (0 = no deadline) passes
 * without the ready marker, or when SIGINT/SIGTERM arrives. The console
 * is copied to stderr when echo is set. Returns 0 with *out filled (the
 * caller judges the outcome), or -errno when QEMU could not be started
 * (described).
 */
int fsb_qemu_run(const struct fsb_qemu_cfg *cfg, uint64_t timeout_ns, uint64_t ready_ns, bool echo,
		 struct fsb_qemu_outcome *out);

#endif
