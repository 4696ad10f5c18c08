/*
 * The metadata suite: bonnie++'s second half. Six tests that model mail
 * spools, caches and news servers:
 *
 *   seq-create   create N files in numeric name order
 *   seq-stat     stat them (and read + verify their data) in readdir order
 *   seq-delete   unlink them in readdir order
 *   rand-create  create N files (random characters first) in a random order
 *   rand-stat    stat (and read + verify) them in another random order
 *   rand-delete  unlink them in a third random order
 *
 * One operation is one file: work = number of files. Names, sizes,
 * contents and random orders are regenerated from (--seed, index) (see
 * names.h), so nothing per file is held in memory however large N grows.
 *
 * On disk, under the scratch directory:
 *   files/            the file set: files, or the 5-digit subdirectories
 *   files.links/      the link targets (--links)
 *   files.set         one line describing a complete set (kind, count, seed,
 *                     sizes, dirs, links): written only once a set is
 *                     whole, so a stat or delete test that runs after a
 *                     create test reuses its files instead of making them.
 *   files.spare.N/    whole sets an earlier create run made, set aside
 *   files.spare.set   (renamed, not removed) for the delete test of the
 *                     same kind to consume, as bonnie++ deletes what it
 *                     created: the marker line of every spare (one kind
 *                     and count for all). The stat test walks them
 *                     after files/.
 *   files.extra/      what files/ and the spares lack for the stat test's
 *   files.extra.set   runs: made once per stat series, removed by the
 *                     next delete or create test.
 *
 * Jobs (--jobs): each job has its own directory and set, or with
 * --shared-dir all jobs work in one (mdtest's shared mode): files/ and its
 * subdirectories are then common, every name a job makes starts with its
 * prefix ("j3-"), its marker is files.set.j3, and a job removes only what
 * carries its prefix; the directories stay for the scratch directory's
 * removal. A readdir walk passes over the other jobs' entries.
 *
 * What is timed: the runner times `run` as a whole; inside it, only the
 * create / stat (+ read) / unlink calls and, with --sync, their fsyncs are
 * timed per operation for the latency figures. Making directories and
 * link targets, building the set a stat or delete test needs, dropping
 * caches and removing leftovers all happen in setup or teardown, untimed.
 */
#include "device/btrfs_space.h"
#include "device/cache.h"
#include "util/error.h"
#include "util/io.h"
#include "workloads/names.h"
#include "workloads/pattern.h"
#include "workloads/workload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define BASE "files"
#define LINKS "files.links"
#define MARKER "files.set"
/* I/O size for file data: one buffer, however big --files max is, so
 * memory stays flat. */
#define CHUNK (64 * 1024)
/* File idx's data is the --data pattern's bytes at offset idx << FILE_SHIFT:
 * every file differs, and a file's chunks repeat (dedupe) only its own. */
#define FILE_SHIFT 40
/* --sync: fsync a directory after at most this many consecutive creates
 * or deletes in it, and whenever the next one is in another directory. */
#define SYNC_BATCH 16
/* --links hard: links per target file, below every filesystem's link
 * limit (ext4 65000, btrfs 65535), so growing N never fails with EMLINK. */
#define LINKS_PER_TARGET 32000
/* Default file count when --files gave none (DESIGN: 16k). */
#define DEFAULT_FILES 16384
/* A job's prefix in a shared directory: "j" + up to 10 digits + "-". */
#define PFX_LEN 16
/* A name with its subdirectory and prefix, and its NUL. */
#define REL_LEN (FSB_NAMES_DIR_LEN + PFX_LEN + FSB_NAMES_LEN)
/* Orders of the random tests: three independent permutations. */
#define ORDER_CREATE 0x63726561ull
#define ORDER_STAT 0x73746174ull
#define ORDER_DELETE 0x64656c65ull

/* The most spares kept: what they hold stays bounded however large
 * --repeat is; delete runs past them make their own sets. */
#define SPARE_MAX 3

enum files_op { OP_CREATE, OP_STAT, OP_DELETE };

/* The tests, for spare_wanted (defined at the end). */
extern const struct fsb_workload_ops fsb_wl_seq_create, fsb_wl_seq_delete, fsb_wl_rand_create,
	fsb_wl_rand_delete;

/* Which of the six a hook serves. */
struct files_test {
	const char *name;
	enum fsb_names_kind kind;
	enum files_op op;
};

/* A file set as the marker describes it. */
struct files_set {
	enum fsb_names_kind kind;
	uint64_t count, seed, max_bytes, min_bytes;
	unsigned dirs;
	enum fsb_links links;
};

/* A directory of files a walk covers: files/, a kept set or the extra set. */
struct files_part {
	int fd;
	uint64_t count; /* the files of its set, indices 0..count-1 */
	char name[24];	/* under the scratch directory, for error lines */
};

/* Per-run state (zeroed by the runner; priv_size). */
struct files_run {
	const struct files_test *t;
	const struct fsb_ctx *ctx;
	struct files_set set;
	int basefd, linkfd; /* files/ and files.links/ (valid when have_*) */
	bool have_base, have_link;
	bool complete;		/* run succeeded: the set is what `set` says */
	uint64_t done;		/* files created, stat'ed or deleted so far */
	struct fsb_pattern pat; /* the files' data (--data, the set's seed) */
	unsigned char *first;	/* a file's data, CHUNK bytes at a time */
	unsigned char *rbuf;	/* read-back buffer of the stat tests */
	/* --sync batching */
	unsigned sync_dir;
	unsigned sync_n;
	/* --shared-dir: this job's prefix and marker ("" and MARKER alone) */
	char pfx[PFX_LEN];
	char marker[sizeof(MARKER) + PFX_LEN];
	bool stopped; /* the sink said stop: the run ended early */
	/* What a stat or delete walk covers, in this order: files/ (part[0],
	 * r->set.count files) and, for a stat run, the kept sets after it
	 * and the extra set, `want` files in all. */
	struct files_part part[SPARE_MAX + 2];
	unsigned nparts;
	unsigned cur; /* the part being walked, for error lines */
	uint64_t want;
};

/* The prefix of this job's names and the name of its marker. */
static void job_names(const struct fsb_ctx *ctx, char *pfx, char *marker)
{
	if (ctx->shared) {
		snprintf(pfx, PFX_LEN, "j%u-", ctx->job);
		snprintf(marker, sizeof(MARKER) + PFX_LEN, MARKER ".j%u", ctx->job);
	} else {
		pfx[0] = '\0';
		snprintf(marker, sizeof(MARKER) + PFX_LEN, MARKER);
	}
}

/* ---- the set and its marker ---- */

static void set_want(const struct fsb_ctx *ctx, enum fsb_names_kind kind, uint64_t count,
		     struct files_set *s)
{
	const struct fsb_config *cfg = ctx->cfg;

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->count = count;
	s->seed = cfg->seed;
	s->links = cfg->links;
	/* Links have no data (the CLI refuses sizes with --links). */
	if (s->links == FSB_LINKS_NONE) {
		s->max_bytes = cfg->file_max_bytes;
		s->min_bytes = cfg->file_min_bytes;
	}
	s->dirs = cfg->file_dirs <= 1 ? 0 : cfg->file_dirs;
}

static int set_format(const struct files_set *s, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "fsbench-files 1 kind=%s count=%" PRIu64 " seed=%" PRIu64 " max=%" PRIu64
			 " min=%" PRIu64 " dirs=%u links=%d\n",
			 s->kind == FSB_NAMES_SEQ ? "seq" : "rand", s->count, s->seed, s->max_bytes,
			 s->min_bytes, s->dirs, (int)s->links);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* Read the marker in dir. 0, or -errno (-ENOENT: no complete set). */
static int set_read(const char *dir, const char *marker, struct files_set *s)
{
	char path[PATH_MAX], kind[8] = "";
	char *buf = NULL;
	size_t len;
	int links, err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, marker) >= sizeof(path))
		return -ENAMETOOLONG;
	err = fsb_read_file(path, 4096, &buf, &len);
	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	if (sscanf(buf,
		   "fsbench-files 1 kind=%7s count=%" SCNu64 " seed=%" SCNu64 " max=%" SCNu64
		   " min=%" SCNu64 " dirs=%u links=%d",
		   kind, &s->count, &s->seed, &s->max_bytes, &s->min_bytes, &s->dirs,
		   &links) != 7 ||
	    (strcmp(kind, "seq") && strcmp(kind, "rand")) ||
	    /* a set fsbench can make: not empty, names of 7 digits */
	    !s->count || s->count > FSB_NAMES_MAX_FILES || s->dirs > FSB_NAMES_MAX_DIRS)
		err = -EINVAL;
	s->kind = strcmp(kind, "seq") ? FSB_NAMES_RAND : FSB_NAMES_SEQ;
	s->links = (enum fsb_links)links;
	free(buf);
	return err;
}

static int set_write(const char *dir, const char *marker, const struct files_set *s)
{
	char path[PATH_MAX], line[256];
	int n = set_format(s, line, sizeof(line));

	if (n < 0)
		return n;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, marker) >= sizeof(path))
		return -ENAMETOOLONG;
	return fsb_write_file_atomic(path, line, (size_t)n);
}

/* Same set, whatever the count. */
static bool set_same_kind(const struct files_set *a, const struct files_set *b)
{
	return a->kind == b->kind && a->seed == b->seed && a->max_bytes == b->max_bytes &&
	       a->min_bytes == b->min_bytes && a->dirs == b->dirs && a->links == b->links;
}

/* ---- removing what we made (untimed; never stopped by SIGINT) ---- */

/*
 * Remove `name` under parent and everything below it, `depth` levels deep
 * at most (our layout has two). readdir + unlinkat, no stat per file: this
 * runs between measured runs on sets of millions of files.
 */
static int remove_tree(int parent, const char *name, int depth)
{
	struct dirent *e;
	DIR *dp;
	int fd, err = 0;

	fd = fsb_cleanup_openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP))
		/* Not a directory (a symlink planted in its place): only the
		 * name goes, never what it points at. */
		return fsb_cleanup_unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	dp = fdopendir(fd);
	if (!dp) {
		err = -errno;
		close(fd);
		return err;
	}
	/* Entries not yet removed are always returned by readdir; a second
	 * pass only covers an entry a racing rmdir saw as not empty. */
	for (int pass = 0; pass < 3; pass++) {
		while ((e = readdir(dp))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (e->d_type != DT_DIR && !fsb_cleanup_unlinkat(dirfd(dp), e->d_name, 0))
				continue;
			if (e->d_type == DT_DIR || errno == EISDIR || errno == EPERM) {
				int r = depth > 0 ? remove_tree(dirfd(dp), e->d_name, depth - 1)
						  : -ENOTEMPTY;
				if (r && !err)
					err = r;
			} else if (errno != ENOENT && !err) {
				err = -errno;
			}
		}
		if (!fsb_cleanup_unlinkat(parent, name, AT_REMOVEDIR) || errno == ENOENT) {
			err = 0;
			break;
		}
		if (errno != ENOTEMPTY && errno != EEXIST) {
			err = -errno;
			break;
		}
		rewinddir(dp);
	}
	closedir(dp);
	return err;
}

/*
 * In a directory the jobs share: remove this job's entries (those whose
 * name starts with pfx) under `name`, `depth` levels deep, and leave the
 * directories, which other jobs may be using.
 */
static int remove_own(int parent, const char *name, const char *pfx, int depth)
{
	size_t plen = strlen(pfx);
	struct dirent *e;
	DIR *dp;
	int fd, err = 0;

	fd = fsb_cleanup_openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	dp = fdopendir(fd);
	if (!dp) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((e = readdir(dp))) {
		int r = 0;

		if (!strncmp(e->d_name, pfx, plen)) {
			if (fsb_cleanup_unlinkat(dirfd(dp), e->d_name, 0) < 0 && errno != ENOENT)
				r = -errno;
		} else if (e->d_type == DT_DIR && depth > 0 && e->d_name[0] != '.') {
			r = remove_own(dirfd(dp), e->d_name, pfx, depth - 1);
		}
		if (r && !err)
			err = r;
	}
	closedir(dp);
	return err;
}

/* Remove the marker, the set and the link targets (this job's, in a
 * shared directory). 0 or the first -errno. */
static int wipe(const char *dir, const char *pfx, const char *marker)
{
	int top, err = 0, r;

	top = fsb_cleanup_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return errno == ENOENT ? 0 : -errno;
	/* Marker first: a half-removed set must never look complete. */
	if (fsb_cleanup_unlinkat(top, marker, 0) < 0 && errno != ENOENT)
		err = -errno;
	r = pfx[0] ? remove_own(top, BASE, pfx, 1) : remove_tree(top, BASE, 2);
	if (r && !err)
		err = r;
	r = pfx[0] ? remove_own(top, LINKS, pfx, 0) : remove_tree(top, LINKS, 1);
	if (r && !err)
		err = r;
	close(top);
	return err;
}

/* ---- spare sets: a create run's set, kept for the delete test ---- */

#define SPARE "files.spare"
#define SPARE_SET SPARE ".set"
#define EXTRA "files.extra"
#define EXTRA_SET EXTRA ".set"
/* Room a spare must leave: parking one only where this many more sets of
 * its size fit for every job, so that keeping it never takes the space the
 * next runs need (the jobs create at once; two fsbench runs may share the
 * filesystem). */
#define SPARE_ROOM 4

/* How many spares to keep: one for each run the delete test makes, at
 * most SPARE_MAX. */
static unsigned spare_max(const struct fsb_ctx *ctx)
{
	const struct fsb_config *cfg = ctx->cfg;

	return cfg->repeat && cfg->repeat < SPARE_MAX ? cfg->repeat : SPARE_MAX;
}

/* Spares are kept only where nothing else shares the names (a directory
 * of this job's alone, files without link targets beside them) and for
 * files without data: a kept set's pages may have been evicted by the
 * stat test's drops where a set just made has them all, and a delete run
 * frees what is cached, so delete runs would differ. */
static bool spare_allowed(const struct fsb_ctx *ctx)
{
	return !ctx->shared && ctx->cfg->links == FSB_LINKS_NONE && !ctx->cfg->file_max_bytes;
}

/* Whether this suite runs the delete test of create's kind after it: a
 * set kept for nobody would only hold space until the end. */
static bool spare_wanted(const struct fsb_ctx *ctx, enum fsb_names_kind kind)
{
	const struct fsb_workload_ops *create = kind == FSB_NAMES_SEQ ? &fsb_wl_seq_create
								      : &fsb_wl_rand_create;
	const struct fsb_workload_ops *del = kind == FSB_NAMES_SEQ ? &fsb_wl_seq_delete
								   : &fsb_wl_rand_delete;
	bool created = false;

	for (size_t i = 0; i < ctx->cfg->nsuite; i++) {
		if (ctx->cfg->suite[i] == create)
			created = true;
		else if (ctx->cfg->suite[i] == del && created)
			return true;
	}
	return false;
}

/* The spares in dir: how many (0..max, counted from files.spare.0 up)
 * and what set each is (*s, valid when the count is not 0). */
static unsigned spare_find(const char *dir, unsigned max, struct files_set *s)
{
	char path[PATH_MAX];
	struct stat st;
	unsigned n = 0;

	if (set_read(dir, SPARE_SET, s))
		return 0;
	while (n < max) {
		if ((size_t)snprintf(path, sizeof(path), "%s/" SPARE ".%u", dir, n) >=
			    sizeof(path) ||
		    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			break;
		n++;
	}
	return n;
}

/*
 * Remove a marker line and then the sets it describes (untimed): `stem`
 * itself when n is 0, else stem.0 .. stem.(n-1). 0 or -errno.
 */
static int wipe_kept(const char *dir, const char *marker, const char *stem, unsigned n)
{
	char name[32];
	int top, err = 0, r;

	top = fsb_cleanup_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fsb_cleanup_unlinkat(top, marker, 0) < 0 && errno != ENOENT)
		err = -errno;
	for (unsigned i = 0; i < (n ? n : 1); i++) {
		if (n)
			snprintf(name, sizeof(name), "%s.%u", stem, i);
		else
			snprintf(name, sizeof(name), "%s", stem);
		r = remove_tree(top, name, 2);
		if (r && !err)
			err = r;
	}
	close(top);
	return err;
}

/* Whether SPARE_ROOM more sets like s fit in dir's filesystem for each
 * of the jobs. */
static bool spare_room(const struct fsb_ctx *ctx, const struct files_set *s)
{
	uint64_t avg = s->max_bytes / 2 + s->min_bytes / 2, bsize, need, free;
	uint64_t room = (uint64_t)SPARE_ROOM * fsb_ctx_njobs(ctx);
	struct fsb_btrfs_meta bm;
	bool have_bm;
	struct statvfs sv;

	if (statvfs(ctx->dir, &sv) < 0)
		return false;
	/* btrfs: the spares' metadata, with the margin files_fit keeps. */
	have_bm = !fsb_btrfs_meta_read(ctx->dir, &bm);
	if (have_bm) {
		uint64_t meta = fsb_btrfs_meta_room(&bm);

		if ((meta - meta / FSB_BTRFS_META_MARGIN) / room /
			    fsb_btrfs_file_meta(s->min_bytes, s->max_bytes) <
		    s->count)
			return false;
	}
	/* f_files 0: the filesystem has no inode limit (btrfs). */
	if (sv.f_files && sv.f_favail / room < s->count)
		return false;
	bsize = sv.f_frsize ? sv.f_frsize : 4096;
	need = (avg + bsize - 1) / bsize * bsize;
	free = (uint64_t)sv.f_bavail * bsize;
	/* btrfs: the data leaves a metadata chunk unallocated. */
	if (have_bm && fsb_btrfs_data_room(&bm) < free)
		free = fsb_btrfs_data_room(&bm);
	return !need || free / room / need >= s->count;
}

/*
 * A create run about to start finds the whole set of the run before it
 * (have, described by the marker): set it aside as a spare instead of
 * removing it, when it is of the run's own kind and count and there is
 * room for it. 1 when it was set aside, 0 when it was not (the caller
 * removes it as before), or -errno.
 */
static int spare_park(struct files_run *r, const struct files_set *have)
{
	const char *dir = r->ctx->dir;
	unsigned max = spare_max(r->ctx), n;
	char from[PATH_MAX], to[PATH_MAX], path[PATH_MAX];
	struct files_set s;

	if (!spare_allowed(r->ctx))
		return 0;
	n = spare_find(dir, max, &s);
	/*
	 * Spares of another kind or count than this run's are no use to its
	 * delete (the test grew past them, or they are another test's
	 * leftovers), and a spare directory without its marker line is a
	 * leftover too: they go first, so that they hold no space the room
	 * check below would then miss.
	 */
	if (!n || !set_same_kind(&s, &r->set) || s.count != r->set.count) {
		int err = wipe_kept(dir, SPARE_SET, SPARE, max);

		if (err)
			return err;
		n = 0;
	}
	if (n >= max || !spare_wanted(r->ctx, r->set.kind) || !set_same_kind(have, &r->set) ||
	    have->count != r->set.count || !spare_room(r->ctx, have))
		return 0;
	if (!n) {
		int err = set_write(dir, SPARE_SET, have);

		if (err)
			return err;
	}
	/* The marker goes first: files/ is no longer a set in place. */
	snprintf(path, sizeof(path), "%s/%s", dir, r->marker);
	if (fsb_io_unlinkat(AT_FDCWD, path, 0) < 0 && errno != ENOENT)
		return -errno;
	if ((size_t)snprintf(from, sizeof(from), "%s/" BASE, dir) >= sizeof(from) ||
	    (size_t)snprintf(to, sizeof(to), "%s/" SPARE ".%u", dir, n) >= sizeof(to))
		return -ENAMETOOLONG;
	return fsb_io_renameat(AT_FDCWD, from, AT_FDCWD, to) < 0 ? -errno : 1;
}

/*
 * A delete run that found no set of its own in files/ takes the last spare
 * of its kind as its set (*have: the spare's set), files/ and whatever it
 * held going first. A spare smaller than the run is taken too where names
 * do not depend on the count (the caller makes the files it lacks, as it
 * grows a set in files/): the delete test's runs often need a little more
 * than the create's, and making the difference costs less than making
 * every set anew. 1 when it took one, 0 when there was none to take, or
 * -errno.
 */
static int spare_take(struct files_run *r, struct files_set *have)
{
	const char *dir = r->ctx->dir;
	unsigned max = spare_max(r->ctx), n;
	char from[PATH_MAX], to[PATH_MAX];
	struct files_set s;
	int err;

	if (!spare_allowed(r->ctx))
		return 0;
	n = spare_find(dir, max, &s);
	if (!n || !set_same_kind(&s, &r->set))
		return 0;
	/* Kept sets larger than the run, or smaller where names depend on
	 * the count, are no use to it: they go before they hold space its
	 * own sets need. */
	if (s.count > r->set.count ||
	    (s.count < r->set.count && (r->set.dirs || r->set.links != FSB_LINKS_NONE)))
		return wipe_kept(dir, SPARE_SET, SPARE, max);
	if ((err = wipe(dir, r->pfx, r->marker)))
		return err;
	if ((size_t)snprintf(from, sizeof(from), "%s/" SPARE ".%u", dir, n - 1) >= sizeof(from) ||
	    (size_t)snprintf(to, sizeof(to), "%s/" BASE, dir) >= sizeof(to))
		return -ENAMETOOLONG;
	if (fsb_io_renameat(AT_FDCWD, from, AT_FDCWD, to) < 0)
		return -errno;
	if (n == 1) {
		snprintf(from, sizeof(from), "%s/" SPARE_SET, dir);
		if (fsb_io_unlinkat(AT_FDCWD, from, 0) < 0 && errno != ENOENT)
			return -errno;
	}
	*have = s;
	return 1;
}

/*
 * The kept sets of s's kind in dir a stat run may walk after files/: how
 * many, each of *count files (0: none). The create runs' sets are stat'ed
 * (bonnie++ stats what it created) instead of a larger set made for the
 * stat test and removed after it.
 */
static unsigned stat_spares(const struct fsb_ctx *ctx, const struct files_set *want,
			    uint64_t *count)
{
	struct files_set s;
	unsigned n;

	if (!spare_allowed(ctx))
		return 0;
	n = spare_find(ctx->dir, spare_max(ctx), &s);
	if (!n || !set_same_kind(&s, want))
		return 0;
	*count = s.count;
	return n;
}

/* ---- names and paths ---- */

/* "00042/<prefix><name>" or "<prefix><name>", relative to files/ (or a
 * kept set) of `count` files. */
static void rel_name(const struct files_run *r, uint64_t count, uint64_t idx, char *buf)
{
	size_t n = 0;

	if (r->set.dirs) {
		n = fsb_names_dir_make(fsb_names_dir(idx, count, r->set.dirs), buf);
		buf[n++] = '/';
	}
	for (const char *c = r->pfx; *c; c++)
		buf[n++] = *c;
	fsb_names_make(r->set.kind, r->set.seed, idx, buf + n);
}

/* The one error line a workload prints: test, what, where, count reached. */
static int report(const struct files_run *r, int err, const char *what, const char *dname,
		  const char *name)
{
	const char *base = r->nparts ? r->part[r->cur].name : BASE;

	/* A stop (SIGINT/SIGTERM) is not an error: the run command says so. */
	if (err == -EINTR && fsb_stop_requested())
		return err;
	fsb_err_errno(err, "%s: %s '%s/%s%s%s/%s' after %" PRIu64 " files", r->t->name, what,
		      r->ctx->dir, base, dname ? "/" : "", dname ? dname : "", name, r->done);
	return err;
}

static void link_target(const struct files_run *r, uint64_t idx, char *buf, size_t len)
{
	if (r->set.links == FSB_LINKS_HARD)
		snprintf(buf, len, "%st%" PRIu64, r->pfx, idx / LINKS_PER_TARGET);
	else /* symlinks point from files/[dir/] to files.links/t0 */
		snprintf(buf, len, "%s" LINKS "/%st0", r->set.dirs ? "../../" : "../", r->pfx);
}

/* ---- the operations (what the latency figures time) ---- */

static int sync_fd_dir(const struct files_run *r, unsigned dir)
{
	char dname[FSB_NAMES_DIR_LEN];
	int fd, err = 0;

	if (!r->set.dirs)
		return fsync(r->basefd) < 0 ? -errno : 0;
	fsb_names_dir_make(dir, dname);
	fd = fsb_io_openat(r->basefd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* --sync, before an operation in `dir`: close the batch of another dir. */
static int sync_before(struct files_run *r, unsigned dir)
{
	int err = 0;

	if (r->sync_n && r->sync_dir != dir) {
		err = sync_fd_dir(r, r->sync_dir);
		r->sync_n = 0;
	}
	r->sync_dir = dir;
	return err;
}

/* --sync, after an operation: a full batch is synced now. */
static int sync_after(struct files_run *r)
{
	if (++r->sync_n < SYNC_BATCH)
		return 0;
	r->sync_n = 0;
	return sync_fd_dir(r, r->sync_dir);
}

/* --sync, end of run: the last, partial batch. */
static int sync_end(struct files_run *r)
{
	if (!r->sync_n)
		return 0;
	r->sync_n = 0;
	return sync_fd_dir(r, r->sync_dir);
}

/*
 * Create file idx at rel (relative to the directory dfd: files/ or the
 * extra set's): open O_CREAT|O_EXCL, write its data, fsync when asked,
 * close; or one link. Returns 0 or -errno and sets *what to the call that
 * failed.
 */
static int create_one(struct files_run *r, int dfd, uint64_t idx, const char *rel, bool sync,
		      uint64_t *bytes, const char **what)
{
	uint64_t size = 0;
	char target[64 + PFX_LEN];
	int fd, err = 0;

	*bytes = 0;
	if (r->set.links != FSB_LINKS_NONE) {
		link_target(r, idx, target, sizeof(target));
		*what = "cannot create link";
		if (r->set.links == FSB_LINKS_HARD)
			return fsb_io_linkat(r->linkfd, target, dfd, rel, 0) < 0 ? -errno : 0;
		return fsb_io_symlinkat(target, dfd, rel) < 0 ? -errno : 0;
	}
	*what = "cannot create";
	fd = fsb_io_openat(dfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size = fsb_names_bytes(r->set.seed, idx, r->set.min_bytes, r->set.max_bytes);
	if (size) {
		*what = "cannot write";
		for (uint64_t off = 0; off < size && !err; off += CHUNK) {
			size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;

			fsb_pattern_bytes(&r->pat, r->first, idx << FILE_SHIFT, off, n);
			err = fsb_write_full(fd, r->first, n);
		}
	}
	if (!err && sync && fsync(fd) < 0) {
		*what = "cannot fsync";
		err = -errno;
	}
	if (close(fd) < 0 && !err) {
		*what = "cannot close";
		err = -errno;
	}
	*bytes = size;
	return err;
}

/*
 * Stat file idx (name in the directory dfd) and, when it has data, read it
 * back and compare with what create_one wrote. 0 or -errno (-EIO: the data
 * or size is wrong); *what names the failing step.
 */
static int stat_one(struct files_run *r, int dfd, const char *name, uint64_t idx, uint64_t *bytes,
		    const char **what)
{
	uint64_t size;
	struct stat st;
	int fd, err = 0;

	*bytes = 0;
	*what = "cannot stat";
	/* Follows symlinks, as bonnie++'s stat() does: a link's target is stat'ed. */
	if (fsb_io_fstatat(dfd, name, &st, 0) < 0)
		return -errno;
	*what = "unexpected file type or size of";
	if (!S_ISREG(st.st_mode))
		return -EIO;
	if (r->set.links != FSB_LINKS_NONE)
		return 0;
	size = fsb_names_bytes(r->set.seed, idx, r->set.min_bytes, r->set.max_bytes);
	if ((uint64_t)st.st_size != size)
		return -EIO;
	if (!size)
		return 0;
	*what = "cannot read";
	fd = fsb_io_openat(dfd, name, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (uint64_t off = 0; off < size; off += CHUNK) {
		size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
		ssize_t got = fsb_read_full(fd, r->rbuf, n);

		if (got < 0) {
			err = (int)got;
			break;
		}
		if ((size_t)got != n)
			err = -EIO;
		else
			fsb_pattern_bytes(&r->pat, r->first, idx << FILE_SHIFT, off, n);
		if (err || memcmp(r->rbuf, r->first, n)) {
			*what = "data mismatch in";
			err = -EIO;
			break;
		}
	}
	close(fd);
	*bytes = err ? 0 : size;
	return err;
}

/* ---- building the set (setup) and the create tests (run) ---- */

/*
 * Create files 0..n-1 of r->set's kind in the directory dfd, in the test's
 * order: numeric for seq, a permutation for rand. With out == NULL (setup
 * building files/ or the extra set for a stat or delete test) nothing is
 * timed and nothing fsync'ed; the timed create (out) is the create test's,
 * in files/, whose directories its --sync batches fsync.
 */
static int create_all(struct files_run *r, int dfd, uint64_t n, struct fsb_sink *out)
{
	const struct fsb_config *cfg = r->ctx->cfg;
	bool sync = out && cfg->sync;
	struct fsb_names_perm perm;
	char rel[REL_LEN];
	const char *what = "cannot create";
	int err = 0;

	if (r->set.kind == FSB_NAMES_RAND)
		fsb_names_perm_init(&perm, n, r->set.seed ^ ORDER_CREATE);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t idx = r->set.kind == FSB_NAMES_SEQ ? k : fsb_names_perm_at(&perm, k);
		unsigned dir = fsb_names_dir(idx, n, r->set.dirs);
		uint64_t bytes, t0;

		rel_name(r, n, idx, rel);
		if (!out) {
			err = create_one(r, dfd, idx, rel, false, &bytes, &what);
			if (err)
				goto fail;
			r->done++;
			if ((k & 1023) == 0 && fsb_stop_requested()) {
				err = -EINTR;
				goto fail;
			}
			continue;
		}
		/* timed: create (+ fsync of the file, and of the directory at the
		 * end of a --sync batch) */
		t0 = fsb_clock_ns();
		if (sync && (err = sync_before(r, dir))) {
			what = "cannot fsync directory of";
			goto fail;
		}
		err = create_one(r, dfd, idx, rel, sync, &bytes, &what);
		if (err)
			goto fail;
		if (sync && (err = sync_after(r))) {
			what = "cannot fsync directory of";
			goto fail;
		}
		r->done++;
		if ((err = fsb_sink_op(out, bytes, fsb_clock_ns() - t0)) < 0)
			return err;
		if (err == FSB_SINK_STOP) {
			/* Stop creating; the last --sync batch is still synced. */
			r->stopped = true;
			break;
		}
	}
	err = 0;
	if (sync && (err = sync_end(r))) {
		what = "cannot fsync directory of";
		rel[0] = '\0';
		goto fail;
	}
	return 0;
fail:
	return report(r, err, what, NULL, rel);
}

/*
 * Grow a complete set of r->set's kind from `from` files to r->set.count
 * (setup, untimed): files from..count-1 in numeric order. Only for a set
 * whose names and places do not depend on the count (no subdirectories,
 * no link targets): the set is then the one a build from nothing makes,
 * made in another order.
 */
static int extend_set(struct files_run *r, uint64_t from)
{
	const char *what = "cannot create";
	char rel[REL_LEN];
	uint64_t bytes;
	int err;

	for (uint64_t idx = from; idx < r->set.count; idx++) {
		rel_name(r, r->set.count, idx, rel);
		err = create_one(r, r->basefd, idx, rel, false, &bytes, &what);
		if (err)
			return report(r, err, what, NULL, rel);
		r->done++;
		if ((idx & 1023) == 0 && fsb_stop_requested())
			return report(r, -EINTR, what, NULL, rel);
	}
	return 0;
}

/* ---- walking the set in readdir order (seq-stat, seq-delete) ---- */

/*
 * A name readdir returned must be one of ours, in the right directory:
 * 0 (its index in *idx), or -EIO. In a directory the jobs share, another
 * job's name (another prefix) is 1: passed over.
 */
static int check_entry(const struct files_run *r, uint64_t count, const char *name, unsigned dir,
		       uint64_t *idx)
{
	char want[FSB_NAMES_LEN];
	size_t plen = strlen(r->pfx);

	if (plen) {
		if (strncmp(name, r->pfx, plen))
			return 1;
		name += plen;
	}
	if (fsb_names_parse(r->set.kind, name, idx) || *idx >= count ||
	    fsb_names_dir(*idx, count, r->set.dirs) != dir)
		return -EIO;
	fsb_names_make(r->set.kind, r->set.seed, *idx, want);
	return strcmp(want, name) ? -EIO : 0;
}

/*
 * One pass over every directory of one part of the walk (files/ or a kept
 * set) in readdir order, stat'ing or unlinking each entry, until the walk
 * has its `want` files. A delete pass may meet an entry it already removed
 * (POSIX leaves that open): ENOENT is then skipped, not counted.
 */
static int walk_part(struct files_run *r, const struct files_part *pt, struct fsb_sink *out)
{
	bool del = r->t->op == OP_DELETE;
	unsigned ndirs = r->set.dirs ? r->set.dirs : 1;
	bool sync = del && r->ctx->cfg->sync;
	char dname[FSB_NAMES_DIR_LEN] = "";
	uint64_t start = r->done;
	unsigned ended = 0; /* directories read to their end */
	const char *what = "";
	struct dirent *e = NULL;
	DIR *dp = NULL;
	int err = 0;

	for (unsigned d = 0; d < ndirs && r->done < r->want; d++) {
		int fd;

		if (r->set.dirs)
			fsb_names_dir_make(d, dname);
		fd = fsb_io_openat(pt->fd, r->set.dirs ? dname : ".",
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
		if (fd < 0 || !(dp = fdopendir(fd))) {
			err = -errno;
			if (fd >= 0)
				close(fd);
			return report(r, err, "cannot open directory", NULL, dname);
		}
		while (r->done < r->want) {
			uint64_t idx, bytes = 0, t0;

			errno = 0;
			e = readdir(dp);
			if (!e) {
				if (errno) {
					err = -errno;
					what = "cannot read directory";
					goto fail;
				}
				ended++;
				break;
			}
			if (e->d_name[0] == '.')
				continue; /* ".", ".."; our names never start with '.' */
			err = check_entry(r, pt->count, e->d_name, d, &idx);
			if (err > 0)
				continue; /* another job's, in a shared directory */
			if (err) {
				what = "unexpected file";
				goto fail;
			}
			/* timed: one stat (+ read) or one unlink (+ --sync batch) */
			t0 = fsb_clock_ns();
			if (!del) {
				err = stat_one(r, dirfd(dp), e->d_name, idx, &bytes, &what);
				if (err)
					goto fail;
			} else {
				if (sync && (err = sync_before(r, d))) {
					what = "cannot fsync directory of";
					goto fail;
				}
				if (fsb_io_unlinkat(dirfd(dp), e->d_name, 0) < 0) {
					if (errno == ENOENT)
						continue;
					err = -errno;
					what = "cannot delete";
					goto fail;
				}
				if (sync && (err = sync_after(r))) {
					what = "cannot fsync directory of";
					goto fail;
				}
			}
			r->done++;
			err = fsb_sink_op(out, bytes, fsb_clock_ns() - t0);
			if (err) {
				closedir(dp);
				if (err < 0)
					return err;
				/* Stop: the walk ends here, the batch is synced. */
				r->stopped = true;
				err = 0;
				dp = NULL;
				break;
			}
		}
		if (r->stopped)
			break;
		closedir(dp);
		dp = NULL;
	}
	if (sync && (err = sync_end(r)))
		return report(r, err, "cannot fsync directory", NULL, "");
	/* A stat walk read all of this part: it must have held its whole set
	 * (the walk's total alone would not tell a file missing here from
	 * one more taken in the next part). */
	if (!del && ended == ndirs && r->done - start != pt->count) {
		fsb_err("%s: found %" PRIu64 " of %" PRIu64 " files in '%s/%s'", r->t->name,
			r->done - start, pt->count, r->ctx->dir, pt->name);
		return -EIO;
	}
	return 0;
fail:
	report(r, err, what, r->set.dirs ? dname : NULL, e ? e->d_name : "");
	if (dp)
		closedir(dp);
	return err;
}

/* One pass over the parts of the walk, in order. */
static int walk_pass(struct files_run *r, struct fsb_sink *out)
{
	int err = 0;

	for (r->cur = 0; r->cur < r->nparts && !err && !r->stopped && r->done < r->want; r->cur++)
		err = walk_part(r, &r->part[r->cur], out);
	r->cur = 0;
	return err;
}

static int walk_readdir(struct files_run *r, struct fsb_sink *out)
{
	int err = walk_pass(r, out);

	/* Entries a delete pass skipped (see walk_pass) get one more pass. */
	if (!err && !r->stopped && r->t->op == OP_DELETE && r->done < r->want)
		err = walk_pass(r, out);
	if (!err && !r->stopped && r->done != r->want) {
		fsb_err("%s: found %" PRIu64 " of %" PRIu64 " files in '%s/" BASE "'%s", r->t->name,
			r->done, r->want, r->ctx->dir,
			r->nparts > 1 ? " and the sets after it" : "");
		err = -EIO;
	}
	return err;
}

/* ---- random order by name (rand-stat, rand-delete) ---- */

static int walk_random(struct files_run *r, struct fsb_sink *out)
{
	bool del = r->t->op == OP_DELETE;
	bool sync = del && r->ctx->cfg->sync;
	struct fsb_names_perm perm;
	uint64_t n = r->want;
	char rel[REL_LEN];
	const char *what = "";
	int err = 0;

	fsb_names_perm_init(&perm, n, r->set.seed ^ (del ? ORDER_DELETE : ORDER_STAT));
	for (uint64_t k = 0; k < n; k++) {
		uint64_t idx = fsb_names_perm_at(&perm, k), bytes = 0, t0;
		const struct files_part *pt = r->part;
		unsigned dir;

		/* Index idx of the walk: of files/, then of each kept set. */
		for (r->cur = 0; r->cur + 1 < r->nparts && idx >= pt->count; r->cur++, pt++)
			idx -= pt->count;
		dir = fsb_names_dir(idx, pt->count, r->set.dirs);
		rel_name(r, pt->count, idx, rel);
		/* timed: one stat (+ read) or one unlink (+ --sync batch) */
		t0 = fsb_clock_ns();
		if (!del) {
			err = stat_one(r, pt->fd, rel, idx, &bytes, &what);
			if (err)
				goto fail;
		} else {
			if (sync && (err = sync_before(r, dir))) {
				what = "cannot fsync directory of";
				goto fail;
			}
			if (fsb_io_unlinkat(r->basefd, rel, 0) < 0) {
				err = -errno;
				what = "cannot delete";
				goto fail;
			}
			if (sync && (err = sync_after(r))) {
				what = "cannot fsync directory of";
				goto fail;
			}
		}
		r->done++;
		if ((err = fsb_sink_op(out, bytes, fsb_clock_ns() - t0)) < 0)
			return err;
		if (err == FSB_SINK_STOP) {
			r->stopped = true;
			break;
		}
	}
	r->cur = 0;
	if (sync && (err = sync_end(r)))
		return report(r, err, "cannot fsync directory", NULL, "");
	return 0;
fail:
	return report(r, err, what, NULL, rel);
}

/*
 * A kept set is read back into the caches (readdir and a stat per entry,
 * untimed), so that a delete run finds it as it finds a set just made
 * (0.2.0 and bonnie++ delete a warm set): the stat test's cache drops in
 * between may have evicted it. Nothing to do on a filesystem in memory,
 * or with --cache keep. 0 or -errno.
 */
static int warm_set(struct files_run *r)
{
	unsigned ndirs = r->set.dirs ? r->set.dirs : 1;
	char dname[FSB_NAMES_DIR_LEN] = ".";
	struct stat st;

	if (fsb_cache_moot(r->ctx->cfg->cache, r->basefd))
		return 0;
	for (unsigned d = 0; d < ndirs; d++) {
		struct dirent *e;
		DIR *dp;
		int fd;

		if (r->set.dirs)
			fsb_names_dir_make(d, dname);
		fd = openat(r->basefd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		dp = fdopendir(fd);
		if (!dp) {
			int err = -errno;

			close(fd);
			return err;
		}
		while ((e = readdir(dp)))
			if (e->d_name[0] != '.')
				(void)fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW);
		closedir(dp);
		if (fsb_stop_requested())
			return -EINTR;
	}
	return 0;
}

/* ---- setup: directories, targets, the set a test needs ---- */

/*
 * The subdirectories of every part of the walk must be directories, not
 * symlinks: the operations name files as "00042/name" from the part, and
 * would follow one out of the scratch directory. (Checked once, untimed:
 * only who may write in fsbench's own scratch directory could race it.)
 * 0 or -ENOTDIR (described).
 */
static int check_subdirs(struct files_run *r)
{
	char dname[FSB_NAMES_DIR_LEN];
	struct stat st;

	for (unsigned p = 0; p < r->nparts; p++)
		for (unsigned d = 0; d < r->set.dirs; d++) {
			int err = 0;

			fsb_names_dir_make(d, dname);
			if (fstatat(r->part[p].fd, dname, &st, AT_SYMLINK_NOFOLLOW) < 0)
				err = -errno;
			else if (!S_ISDIR(st.st_mode))
				err = -ENOTDIR;
			if (err) {
				r->cur = p;
				report(r, err, "unexpected entry", NULL, dname);
				r->cur = 0;
				return err;
			}
		}
	return 0;
}

/* Add the directory name under the scratch directory to the walk, with
 * its set of `count` files. 0 or -errno. */
static int add_part(struct files_run *r, const char *name, uint64_t count)
{
	char path[PATH_MAX];
	struct files_part *p = &r->part[r->nparts];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", r->ctx->dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = fsb_io_openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	p->fd = fd;
	p->count = count;
	snprintf(p->name, sizeof(p->name), "%s", name);
	r->nparts++;
	return 0;
}

/*
 * The stat test's extra set: what files/ and the kept sets lack for its
 * runs, made once per series in files.extra/ (its marker line
 * files.extra.set) and added to the walk, so that files/ stays the set
 * the create test left for the delete test to take. The delete and create
 * tests remove it. 0 or -errno (described).
 */
static int add_extra(struct files_run *r, uint64_t count)
{
	const char *dir = r->ctx->dir;
	struct files_set want = r->set, have;
	char name[FSB_NAMES_DIR_LEN], path[PATH_MAX];
	int err;

	want.count = count;
	if (set_read(dir, EXTRA_SET, &have) || !set_same_kind(&have, &want) ||
	    have.count != count) {
		/* Another series' (or a broken) extra set goes first. */
		if ((err = wipe_kept(dir, EXTRA_SET, EXTRA, 0)))
			goto fail;
		snprintf(path, sizeof(path), "%s/" EXTRA, dir);
		if (fsb_io_mkdirat(AT_FDCWD, path, 0755) < 0) {
			err = -errno;
			goto fail;
		}
		if ((err = add_part(r, EXTRA, count)))
			goto fail;
		for (unsigned d = 0; d < r->set.dirs; d++) {
			fsb_names_dir_make(d, name);
			if (fsb_io_mkdirat(r->part[r->nparts - 1].fd, name, 0755) < 0) {
				err = -errno;
				goto fail;
			}
		}
		/* r->cur names the extra set in create_all's error line. */
		r->cur = r->nparts - 1;
		err = create_all(r, r->part[r->cur].fd, count, NULL);
		r->cur = 0;
		r->done = 0;
		if (err)
			return err;
		if ((err = set_write(dir, EXTRA_SET, &want)))
			goto fail;
		return 0;
	}
	if (!(err = add_part(r, EXTRA, count)))
		return 0;
fail:
	fsb_err_errno(err, "%s: cannot make the extra set '%s/" EXTRA "'", r->t->name, dir);
	return err;
}

/*
 * The walk of a stat run that has kept sets: files/, then as many of the
 * n kept sets of `count` files as it needs for its `want` files, then the
 * extra set for what they lack. 0 or -errno (described).
 */
static int add_kept(struct files_run *r, unsigned n, uint64_t count)
{
	uint64_t have = r->set.count;
	char name[sizeof(r->part[0].name)];
	int err;

	for (unsigned i = 0; i < n && have < r->want; i++, have += count) {
		snprintf(name, sizeof(name), SPARE ".%u", i);
		if ((err = add_part(r, name, count))) {
			fsb_err_errno(err, "%s: cannot open '%s/%s'", r->t->name, r->ctx->dir,
				      name);
			return err;
		}
	}
	return have < r->want ? add_extra(r, r->want - have) : 0;
}

static int open_dirs(struct files_run *r)
{
	const char *dir = r->ctx->dir;
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/" BASE, dir) >= sizeof(path))
		return -ENAMETOOLONG;
	/* Never through a symlink: what is found there is deleted. */
	r->basefd = fsb_io_openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
				  0);
	if (r->basefd < 0)
		return -errno;
	r->have_base = true;
	if (r->set.links == FSB_LINKS_NONE)
		return 0;
	snprintf(path, sizeof(path), "%s/" LINKS, dir);
	r->linkfd = fsb_io_openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
				  0);
	if (r->linkfd < 0)
		return -errno;
	r->have_link = true;
	return 0;
}

/* The walk's directories opened again by name (after a remount). */
static int reopen_dirs(struct files_run *r)
{
	char path[PATH_MAX];
	int err = open_dirs(r);

	r->part[0].fd = r->basefd;
	for (unsigned i = 1; i < r->nparts && !err; i++) {
		snprintf(path, sizeof(path), "%s/%s", r->ctx->dir, r->part[i].name);
		r->part[i].fd = fsb_io_openat(AT_FDCWD, path,
					      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
		if (r->part[i].fd < 0) {
			err = -errno;
			r->nparts = i; /* teardown closes those before it */
		}
	}
	return err;
}

/* Every descriptor the run holds on the filesystem closed (teardown's
 * part of it), so that it can be unmounted. */
static void close_dirs(struct files_run *r)
{
	if (r->have_base)
		close(r->basefd);
	if (r->have_link)
		close(r->linkfd);
	for (unsigned i = 1; i < r->nparts; i++)
		close(r->part[i].fd);
	r->have_base = r->have_link = false;
}

/*
 * Stat what is on the device, not what the create left in memory. On a
 * filesystem fsbench made (a matrix setup) with this job alone on it:
 * unmount and mount it again, the walk's directories closed and opened
 * again, which empties its dentries, inodes and buffers and nothing of
 * the rest of the machine. Elsewhere the cache mode says: only drop-all
 * (root) reaches metadata; the other modes leave it warm and say so
 * (device/cache.h). Nothing on a filesystem in memory. 0 or -errno
 * (described).
 */
static int cold_metadata(struct files_run *r)
{
	const struct fsb_ctx *ctx = r->ctx;
	int err;

	if (!fsb_cache_remount_fits(ctx->cfg->cache, r->basefd, fsb_ctx_njobs(ctx) == 1)) {
		err = fsb_cache_prepare_read(r->basefd, ctx->cfg->cache, FSB_CACHE_IO_META);
		if (err)
			fsb_err_errno(err, "%s: cannot drop caches", r->t->name);
		return err;
	}
	close_dirs(r);
	if ((err = fsb_cache_remount()))
		return err;
	if ((err = reopen_dirs(r)))
		fsb_err_errno(err, "%s: cannot open '%s' again after the remount", r->t->name,
			      ctx->dir);
	return err;
}

/* mkdirat; in a directory the jobs share, one that exists is theirs too. */
static int make_dir(const struct files_run *r, int dirfd, const char *path)
{
	if (fsb_io_mkdirat(dirfd, path, 0755) == 0 || (r->pfx[0] && errno == EEXIST))
		return 0;
	return -1;
}

/* Make files/, its subdirectories and the link targets of an empty set. */
static int make_layout(struct files_run *r)
{
	const char *dir = r->ctx->dir;
	char path[PATH_MAX], name[32 + PFX_LEN];
	uint64_t targets;
	int err, fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/" BASE, dir) >= sizeof(path))
		return -ENAMETOOLONG;
	if (make_dir(r, AT_FDCWD, path) < 0)
		return report(r, -errno, "cannot create directory", NULL, "");
	if (r->set.links != FSB_LINKS_NONE) {
		snprintf(path, sizeof(path), "%s/" LINKS, dir);
		if (make_dir(r, AT_FDCWD, path) < 0) {
			err = -errno;
			fsb_err_errno(err, "%s: cannot create directory '%s'", r->t->name, path);
			return err;
		}
	}
	err = open_dirs(r);
	if (err) {
		fsb_err_errno(err, "%s: cannot open '%s/" BASE "'", r->t->name, dir);
		return err;
	}
	for (unsigned d = 0; d < r->set.dirs; d++) {
		fsb_names_dir_make(d, name);
		if (make_dir(r, r->basefd, name) < 0)
			return report(r, -errno, "cannot create directory", NULL, name);
	}
	if (r->set.links == FSB_LINKS_NONE)
		return 0;
	targets = r->set.links == FSB_LINKS_HARD
			  ? (r->set.count + LINKS_PER_TARGET - 1) / LINKS_PER_TARGET
			  : 1;
	for (uint64_t i = 0; i < targets; i++) {
		snprintf(name, sizeof(name), "%st%" PRIu64, r->pfx, i);
		fd = fsb_io_openat(r->linkfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			err = -errno;
			fsb_err_errno(err, "%s: cannot create '%s/" LINKS "/%s'", r->t->name, dir,
				      name);
			return err;
		}
		close(fd);
	}
	return 0;
}

static int files_setup(const struct files_test *t, struct fsb_ctx *ctx, struct files_run *r)
{
	struct files_set have;
	uint64_t kept_count = 0;
	unsigned kept = 0;
	bool reuse;
	int err;

	r->t = t;
	r->ctx = ctx;
	job_names(ctx, r->pfx, r->marker);
	set_want(ctx, t->kind, ctx->work, &r->set);
	r->want = ctx->work;
	/* The pattern's pool is made here, outside the clock. */
	r->first = malloc(CHUNK);
	r->rbuf = t->op == OP_STAT ? malloc(CHUNK) : NULL;
	if (!r->first || (t->op == OP_STAT && !r->rbuf) ||
	    fsb_pattern_init(&r->pat, &ctx->cfg->data, fsb_ctx_data_seed(ctx),
			     FSB_PATTERN_STREAM_CHUNK))
		return -ENOMEM;

	/* The stat test's extra set is of no use to the tests after it. */
	if (t->op != OP_STAT && (err = wipe_kept(ctx->dir, EXTRA_SET, EXTRA, 0))) {
		fsb_err_errno(err, "%s: cannot remove '%s/" EXTRA "'", t->name, ctx->dir);
		return err;
	}
	reuse = t->op != OP_CREATE && !set_read(ctx->dir, r->marker, &have) &&
		set_same_kind(&have, &r->set) && have.count <= r->set.count;
	/* A stat run walks the kept sets after files/: files/ needs only what
	 * they do not hold. */
	if (reuse && t->op == OP_STAT && (kept = stat_spares(ctx, &r->set, &kept_count)))
		r->set.count = have.count;
	/* A smaller set grows where its names do not depend on the count. */
	if (reuse && have.count < r->set.count)
		reuse = !r->set.dirs && r->set.links == FSB_LINKS_NONE;
	if (!reuse) {
		r->set.count = r->want;
		kept = 0;
	}
	/*
	 * A delete run consumes a set a create run made: the one in files/,
	 * else one that was kept (whatever files/ holds goes); a create run
	 * keeps the set of the run before it for that, rather than removing
	 * it: either way the files are made and removed once, not twice.
	 */
	if (t->op == OP_DELETE && !reuse) {
		err = spare_take(r, &have);
		if (err < 0) {
			fsb_err_errno(err, "%s: cannot take a set kept in '%s'", t->name, ctx->dir);
			return err;
		}
		reuse = err;
	} else if (t->op == OP_CREATE && !set_read(ctx->dir, r->marker, &have)) {
		err = spare_park(r, &have);
		if (err < 0) {
			fsb_err_errno(err, "%s: cannot keep the last run's set in '%s'", t->name,
				      ctx->dir);
			return err;
		}
	}
	if (reuse) {
		/* The set a create test (or an earlier run) left: reuse it. */
		err = open_dirs(r);
		if (err) {
			fsb_err_errno(err, "%s: cannot open '%s/" BASE "'", t->name, ctx->dir);
			return err;
		}
		/* Every set a delete run finds was made before the stat test's
		 * cache drops. */
		if (t->op == OP_DELETE && (err = warm_set(r)))
			return report(r, err, "cannot read back", NULL, "");
		if (have.count < r->set.count) {
			/*
			 * A stat test whose run was short grows the set it
			 * found by the files it lacks, instead of removing it
			 * and making it all again: the growth costs what the
			 * new files cost. No marker while it is not whole.
			 */
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", ctx->dir, r->marker);
			if (fsb_io_unlinkat(AT_FDCWD, path, 0) < 0 && errno != ENOENT) {
				err = -errno;
				fsb_err_errno(err, "%s: cannot remove '%s'", t->name, path);
				return err;
			}
			if ((err = extend_set(r, have.count)))
				return err;
			r->done = 0;
			if (t->op == OP_STAT && (err = set_write(ctx->dir, r->marker, &r->set))) {
				fsb_err_errno(err, "%s: cannot write '%s/%s'", t->name, ctx->dir,
					      r->marker);
				return err;
			}
		}
	} else {
		/* Whatever is there (another kind or count, a broken set) goes. */
		err = wipe(ctx->dir, r->pfx, r->marker);
		if (err) {
			fsb_err_errno(err, "%s: cannot remove the file set in '%s'", t->name,
				      ctx->dir);
			return err;
		}
		err = make_layout(r);
		if (!err && t->op != OP_CREATE)
			err = create_all(r, r->basefd, r->set.count, NULL);
		if (err)
			return err;
		r->done = 0;
		if (t->op == OP_STAT && (err = set_write(ctx->dir, r->marker, &r->set))) {
			fsb_err_errno(err, "%s: cannot write '%s/%s'", t->name, ctx->dir,
				      r->marker);
			return err;
		}
	}
	r->part[0].fd = r->basefd;
	r->part[0].count = r->set.count;
	snprintf(r->part[0].name, sizeof(r->part[0].name), BASE);
	r->nparts = 1;
	if (t->op != OP_STAT)
		r->want = r->set.count;
	else if (kept && (err = add_kept(r, kept, kept_count)))
		return err;
	if ((err = check_subdirs(r)))
		return err;
	if (t->op == OP_DELETE) {
		/* From here on the set is being destroyed: no marker may claim it. */
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", ctx->dir, r->marker);
		if (fsb_io_unlinkat(AT_FDCWD, path, 0) < 0 && errno != ENOENT) {
			err = -errno;
			fsb_err_errno(err, "%s: cannot remove '%s'", t->name, path);
			return err;
		}
	}
	/*
	 * Start every test from a quiet filesystem, as bonnie++ does with its
	 * sync() between tests: the writeback and background inode reclaim left
	 * by the untimed work above (removing the last run's set, building this
	 * one) or by the previous test must not be charged to this test's clock.
	 * On xfs that debt otherwise halves a random create or delete figure.
	 */
	if (syncfs(r->basefd) < 0) {
		err = -errno;
		fsb_err_errno(err, "%s: cannot sync '%s'", t->name, ctx->dir);
		return err;
	}
	return t->op == OP_STAT ? cold_metadata(r) : 0;
}

/* ---- run and teardown ---- */

static int files_do_run(struct fsb_ctx *ctx, void *priv, struct fsb_sink *out)
{
	struct files_run *r = priv;
	int err;

	(void)ctx;
	r->done = 0;
	if (r->t->op == OP_CREATE)
		err = create_all(r, r->basefd, r->set.count, out);
	else if (r->t->kind == FSB_NAMES_SEQ)
		err = walk_readdir(r, out);
	else
		err = walk_random(r, out);
	/* A create cut short made part of the set: not one to reuse. */
	if (!err && !(r->stopped && r->t->op == OP_CREATE))
		r->complete = true;
	return err;
}

static void files_teardown(struct fsb_ctx *ctx, void *priv)
{
	struct files_run *r = priv;

	close_dirs(r);
	r->nparts = 0;
	fsb_pattern_release(&r->pat);
	free(r->first);
	free(r->rbuf);
	r->first = r->rbuf = NULL;
	if (!r->t)
		return; /* setup never started */
	if (r->complete && r->t->op == OP_CREATE) {
		/* A whole set: describe it so a stat or delete test reuses it. */
		if (!set_write(ctx->dir, r->marker, &r->set))
			return;
	} else if (r->complete && r->t->op == OP_STAT) {
		return; /* the set stays, still described by the marker */
	}
	/*
	 * Failure or stop: remove every file this test made (the user's
	 * directory is left as it was found). After a delete, only the empty
	 * directories and link targets are left to remove.
	 */
	wipe(ctx->dir, r->pfx, r->marker);
}

/* ---- how much work ---- */

static uint64_t files_initial(const struct files_test *t, const struct fsb_ctx *ctx)
{
	uint64_t n = ctx->cfg->files ? ctx->cfg->files : DEFAULT_FILES;
	struct files_set want, have;
	char pfx[PFX_LEN], marker[sizeof(MARKER) + PFX_LEN];

	/*
	 * A stat test starts where the create test grew to, so its set is
	 * reused as it is. A delete test sizes itself (stat is several times
	 * faster than delete, and a delete run sized for stat would last
	 * seconds, each needing as long again to rebuild its set untimed),
	 * unless the create test kept sets for it.
	 */
	job_names(ctx, pfx, marker);
	if (t->op == OP_STAT && !set_read(ctx->dir, marker, &have)) {
		set_want(ctx, t->kind, n, &want);
		if (set_same_kind(&have, &want) && have.count > n)
			n = have.count;
	}
	/* A delete test starts at the sets the create test kept: its first
	 * run consumes one instead of making a set of its own. */
	if (t->op == OP_DELETE && spare_allowed(ctx) &&
	    spare_find(ctx->dir, spare_max(ctx), &have)) {
		set_want(ctx, t->kind, n, &want);
		if (set_same_kind(&have, &want))
			n = have.count;
	}
	return n < FSB_NAMES_MAX_FILES ? n : FSB_NAMES_MAX_FILES;
}

/*
 * A stat test grows to its files that are ready (files/ and the kept sets
 * after it, all the create runs made) when that is enough, rather than
 * past them: growing past them costs making the files it lacks before
 * every stat series and removing them after it, and leaves the delete
 * test a set of the wrong size.
 */
static uint64_t files_ready(const struct files_test *t, const struct fsb_ctx *ctx, uint64_t low,
			    uint64_t high)
{
	char pfx[PFX_LEN], marker[sizeof(MARKER) + PFX_LEN];
	struct files_set want, have;
	uint64_t count = 0, ready;
	unsigned kept;

	if (t->op != OP_STAT)
		return 0;
	job_names(ctx, pfx, marker);
	set_want(ctx, t->kind, high, &want);
	if (set_read(ctx->dir, marker, &have) || !set_same_kind(&have, &want))
		return 0;
	kept = stat_spares(ctx, &want, &count);
	ready = have.count + kept * count;
	/* Any part of them is ready too: a walk stops at its work. */
	return ready >= high ? high : ready >= low ? ready : 0;
}

/* Names have 7 digits: the largest set a run can make. */
static uint64_t files_max(const struct fsb_ctx *ctx)
{
	(void)ctx;
	return FSB_NAMES_MAX_FILES;
}

/*
 * The largest set this job's share of the filesystem holds: at most 90%
 * of its free inodes and (for files with data) of its free space. Never
 * below what the user asked for: an explicit --files that does not fit is
 * an error worth seeing (ENOSPC after N files), not a silent cut.
 */
static uint64_t files_fit(const struct fsb_ctx *ctx, const struct fsb_space *share)
{
	const struct fsb_config *cfg = ctx->cfg;
	/* The default is no user's: a filesystem short of inodes cuts it. */
	uint64_t cap = UINT64_MAX, asked = cfg->files_given ? cfg->files : 0;
	struct statvfs sv;

	/* Hard links use no inode. */
	if (share->inodes != UINT64_MAX && cfg->links != FSB_LINKS_HARD)
		cap = share->inodes / 10 * 9;
	if (cfg->links == FSB_LINKS_NONE && cfg->file_max_bytes) {
		/* Each file takes its average size rounded up to a block. */
		uint64_t bsize = !statvfs(ctx->dir, &sv) && sv.f_frsize ? sv.f_frsize : 4096;
		uint64_t avg = cfg->file_max_bytes / 2 + cfg->file_min_bytes / 2;
		uint64_t fit = share->bytes / (avg / bsize + 1) / bsize;

		if (fit < cap)
			cap = fit;
	}
	/* btrfs: what its metadata holds with a margin left free, since
	 * ENOSPC on metadata aborts a transaction and forces it read-only. */
	if (share->meta != UINT64_MAX) {
		uint64_t fit = (share->meta - share->meta / FSB_BTRFS_META_MARGIN) /
			       fsb_btrfs_file_meta(cfg->file_min_bytes, cfg->file_max_bytes);

		if (fit < cap)
			cap = fit;
	}
	if (cap < asked)
		cap = asked;
	return cap ? cap : 1;
}

/* ---- the six workloads ---- */

#define FILES_WORKLOAD(var, id, k, o, what)                                                 \
	static const struct files_test var##_test = { id, k, o };                           \
	static uint64_t var##_initial(const struct fsb_ctx *ctx)                            \
	{                                                                                   \
		return files_initial(&var##_test, ctx);                                     \
	}                                                                                   \
	static uint64_t var##_max(const struct fsb_ctx *ctx)                                \
	{                                                                                   \
		return files_max(ctx);                                                      \
	}                                                                                   \
	static uint64_t var##_fit(const struct fsb_ctx *ctx, const struct fsb_space *share) \
	{                                                                                   \
		return files_fit(ctx, share);                                               \
	}                                                                                   \
	static uint64_t var##_ready(const struct fsb_ctx *ctx, uint64_t low, uint64_t high) \
	{                                                                                   \
		return files_ready(&var##_test, ctx, low, high);                            \
	}                                                                                   \
	static int var##_setup(struct fsb_ctx *ctx, void *priv)                             \
	{                                                                                   \
		return files_setup(&var##_test, ctx, priv);                                 \
	}                                                                                   \
	const struct fsb_workload_ops var = {                                               \
		.name = id,                                                                 \
		.family = "files",                                                          \
		.flags = FSB_WL_NAMES | ((o) == OP_STAT ? FSB_WL_OPEN : 0),                 \
		.title = what,                                                              \
		.work_unit = FSB_WORK_OPS,                                                  \
		.initial_work = var##_initial,                                              \
		.max_work = var##_max,                                                      \
		.space_fit = var##_fit,                                                     \
		.ready_work = var##_ready,                                                  \
		.work_granule = 1024,                                                       \
		.priv_size = sizeof(struct files_run),                                      \
		.setup = var##_setup,                                                       \
		.run = files_do_run,                                                        \
		.teardown = files_teardown,                                                 \
	}

FILES_WORKLOAD(fsb_wl_seq_create, "seq-create", FSB_NAMES_SEQ, OP_CREATE,
	       "create files in numeric name order");
FILES_WORKLOAD(fsb_wl_seq_stat, "seq-stat", FSB_NAMES_SEQ, OP_STAT,
	       "stat files (read and verify their data) in readdir order");
FILES_WORKLOAD(fsb_wl_seq_delete, "seq-delete", FSB_NAMES_SEQ, OP_DELETE,
	       "delete files in readdir order");
FILES_WORKLOAD(fsb_wl_rand_create, "rand-create", FSB_NAMES_RAND, OP_CREATE,
	       "create files in random order");
FILES_WORKLOAD(fsb_wl_rand_stat, "rand-stat", FSB_NAMES_RAND, OP_STAT,
	       "stat files (read and verify their data) in random order");
FILES_WORKLOAD(fsb_wl_rand_delete, "rand-delete", FSB_NAMES_RAND, OP_DELETE,
	       "delete files in random order");
