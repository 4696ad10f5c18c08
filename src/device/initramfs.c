/*
 * newc cpio: per entry a 110-byte ASCII header ("070701" and thirteen
 * 8-digit hex fields), the name with its NUL padded to 4 bytes, the content
 * padded to 4 bytes; the archive ends with an entry named "TRAILER!!!".
 * Owners are root, times are zero: the archive depends only on its inputs.
 */
#include "device/initramfs.h"
#include "util/error.h"
#include "util/io.h"
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LDD_MAX_BYTES (64u << 10)

void fsb_irfs_init(struct fsb_irfs *fs)
{
	memset(fs, 0, sizeof(*fs));
}

void fsb_irfs_release(struct fsb_irfs *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->e[i].path);
		free(fs->e[i].src);
		free(fs->e[i].data);
	}
	free(fs->e);
	fsb_irfs_init(fs);
}

static bool path_ok(const char *path)
{
	return path[0] == '/' && path[1] && !strstr(path, "/../") &&
	       strcmp(path + strlen(path) - (strlen(path) >= 3 ? 3 : 0), "/..");
}

static bool has_path(const struct fsb_irfs *fs, const char *path)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->e[i].path, path))
			return true;
	return false;
}

/* A new zeroed entry for path, NULL when it is there already (*err = 0)
 * or on failure (*err < 0). */
static struct fsb_irfs_entry *add(struct fsb_irfs *fs, const char *path, int *err)
{
	struct fsb_irfs_entry *e;

	*err = 0;
	if (!path_ok(path)) {
		*err = -EINVAL;
		return NULL;
	}
	if (has_path(fs, path))
		return NULL;
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 64;
		struct fsb_irfs_entry *ne = realloc(fs->e, cap * sizeof(*ne));

		if (!ne) {
			*err = -ENOMEM;
			return NULL;
		}
		fs->e = ne;
		fs->cap = cap;
	}
	e = &fs->e[fs->n];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path) {
		*err = -ENOMEM;
		return NULL;
	}
	fs->n++;
	return e;
}

int fsb_irfs_add_file(struct fsb_irfs *fs, const char *path, const char *src, unsigned perm)
{
	int err;
	struct fsb_irfs_entry *e = add(fs, path, &err);

	if (!e)
		return err;
	e->mode = S_IFREG | (perm & 07777);
	e->src = strdup(src);
	return e->src ? 0 : -ENOMEM;
}

int fsb_irfs_add_data(struct fsb_irfs *fs, const char *path, const void *data, size_t len,
		      unsigned perm)
{
	int err;
	struct fsb_irfs_entry *e = add(fs, path, &err);

	if (!e)
		return err;
	e->mode = S_IFREG | (perm & 07777);
	e->data = malloc(len ? len : 1);
	if (!e->data)
		return -ENOMEM;
	memcpy(e->data, data, len);
	e->len = len;
	return 0;
}

int fsb_irfs_add_dir(struct fsb_irfs *fs, const char *path)
{
	int err;
	struct fsb_irfs_entry *e = add(fs, path, &err);

	if (e)
		e->mode = S_IFDIR | 0755;
	return err;
}

int fsb_irfs_add_chardev(struct fsb_irfs *fs, const char *path, unsigned major, unsigned minor)
{
	int err;
	struct fsb_irfs_entry *e = add(fs, path, &err);

	if (e) {
		e->mode = S_IFCHR | 0600;
		e->rdev_major = major;
		e->rdev_minor = minor;
	}
	return err;
}

int fsb_irfs_ldd_parse(const char *ldd_text, char ***out)
{
	char *copy = strdup(ldd_text), *line, *save = NULL;
	char **v = NULL;
	size_t n = 0;

	*out = NULL;
	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "=>"), *p, *end;
		char **nv;

		/* "libx.so.1 => /lib/.../libx.so.1 (0x...)" or "/lib64/ld-...so.2 (0x...)";
		 * the vdso ("linux-vdso.so.1 (0x...)") has no file. */
		p = arrow ? arrow + 2 : line;
		p += strspn(p, " \t");
		if (*p != '/')
			continue;
		end = p + strcspn(p, " \t(");
		*end = '\0';
		nv = realloc(v, (n + 2) * sizeof(*v));
		if (!nv)
			goto nomem;
		v = nv;
		v[n] = strdup(p);
		if (!v[n])
			goto nomem;
		v[++n] = NULL;
	}
	free(copy);
	*out = v;
	return (int)n;
nomem:
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(copy);
	return -ENOMEM;
}

/* ldd's output for host_path (empty for a static executable). */
static int run_ldd(const char *host_path, char **text)
{
	char *const argv[] = { "ldd", (char *)host_path, NULL };
	size_t len = 0, cap = 4096;
	int pipefd[2], status, err;
	pid_t pid;

	*text = calloc(1, cap);
	if (!*text)
		return -ENOMEM;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fsb_spawn("ldd", argv, (const int[3]){ -1, pipefd[1], -1 }, FSB_SPAWN_SEARCH_PATH);
	err = pid < 0 ? (int)pid : 0;
	close(pipefd[1]);
	if (err) {
		close(pipefd[0]);
		fsb_err_errno(err, "guest: cannot run 'ldd' (package libc-bin)");
		return err;
	}
	for (;;) {
		ssize_t r;

		if (len + 1 == cap) {
			char *nt;

			if (cap >= LDD_MAX_BYTES)
				break;
			nt = realloc(*text, cap * 2);
			if (!nt)
				break;
			*text = nt;
			cap *= 2;
		}
		r = read(pipefd[0], *text + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	(*text)[len] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* ldd exits 1 for a static executable: no libraries, not an error. */
	return 0;
}

int fsb_irfs_add_program(struct fsb_irfs *fs, const char *path, const char *host_path)
{
	char *text = NULL, **libs = NULL;
	int n, err;

	if (access(host_path, X_OK) < 0) {
		err = -errno;
		fsb_err_errno(err, "guest: cannot use '%s'", host_path);
		return err;
	}
	if ((err = fsb_irfs_add_file(fs, path, host_path, 0755)))
		goto out;
	if ((err = run_ldd(host_path, &text)))
		goto out;
	n = fsb_irfs_ldd_parse(text, &libs);
	if (n < 0) {
		err = n;
		goto out;
	}
	for (int i = 0; i < n && !err; i++)
		err = fsb_irfs_add_file(fs, libs[i], libs[i], 0755);
out:
	for (size_t i = 0; libs && libs[i]; i++)
		free(libs[i]);
	free(libs);
	free(text);
	return err;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct fsb_irfs_entry *)a)->path,
		      ((const struct fsb_irfs_entry *)b)->path);
}

int fsb_irfs_finish(struct fsb_irfs *fs)
{
	size_t n = fs->n;
	int err;

	for (size_t i = 0; i < n; i++) {
		char dir[4096], *slash;

		snprintf(dir, sizeof(dir), "%s", fs->e[i].path);
		while ((slash = strrchr(dir, '/')) && slash != dir) {
			*slash = '\0';
			if ((err = fsb_irfs_add_dir(fs, dir)))
				return err;
		}
	}
	/* A prefix sorts before what extends it: parents come first. */
	qsort(fs->e, fs->n, sizeof(*fs->e), cmp_entry);
	return 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t fsb_irfs_hash(const struct fsb_irfs *fs)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, "fsbench-initramfs-1", 19);
	for (size_t i = 0; i < fs->n; i++) {
		const struct fsb_irfs_entry *e = &fs->e[i];
		uint64_t v[6] = { e->mode, e->rdev_major, e->rdev_minor, e->len, 0, 0 };
		struct stat st;

		h = fnv(h, e->path, strlen(e->path) + 1);
		if (e->src) {
			h = fnv(h, e->src, strlen(e->src) + 1);
			if (stat(e->src, &st) == 0) {
				v[3] = (uint64_t)st.st_size;
				v[4] = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
				       (uint64_t)st.st_mtim.tv_nsec;
				v[5] = (uint64_t)st.st_ino;
			}
		} else if (e->data) {
			h = fnv(h, e->data, e->len);
		}
		h = fnv(h, v, sizeof(v));
	}
	return h;
}

static int write_pad(int fd, size_t n)
{
	static const char zeros[4];

	return (n & 3) ? fsb_write_full(fd, zeros, 4 - (n & 3)) : 0;
}

static int write_header(int fd, const char *name, unsigned mode, uint64_t size, unsigned ino,
			unsigned rmaj, unsigned rmin)
{
	char hdr[111 + 4096];
	size_t namesize = strlen(name) + 1;
	int n, err;

	if (size > 0xffffffffull || namesize > 4096)
		return -EFBIG;
	n = snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		     ino, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned)size, 0u, 0u, rmaj,
		     rmin, (unsigned)namesize, 0u);
	if ((err = fsb_write_full(fd, hdr, (size_t)n)) ||
	    (err = fsb_write_full(fd, name, namesize)))
		return err;
	return write_pad(fd, (size_t)n + namesize);
}

static int copy_file(int fd, const struct fsb_irfs_entry *e, unsigned ino)
{
	char buf[1 << 16];
	struct stat st;
	uint64_t left;
	int in, err;

	in = open(e->src, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		err = -errno;
		fsb_err_errno(err, "guest: cannot read '%s' for the initramfs", e->src);
		if (in >= 0)
			close(in);
		return err;
	}
	if ((err = write_header(fd, e->path + 1, e->mode, (uint64_t)st.st_size, ino, 0, 0)))
		goto out;
	for (left = (uint64_t)st.st_size; left;) {
		ssize_t r = fsb_read_full(in, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (r <= 0) {
			err = r < 0 ? (int)r : -EIO;
			fsb_err_errno(err, "guest: cannot read '%s' for the initramfs", e->src);
			goto out;
		}
		if ((err = fsb_write_full(fd, buf, (size_t)r)))
			goto out;
		left -= (uint64_t)r;
	}
	err = write_pad(fd, (size_t)st.st_size);
out:
	close(in);
	return err;
}

int fsb_irfs_write(const struct fsb_irfs *fs, int fd)
{
	int err = 0;

	for (size_t i = 0; i < fs->n && !err; i++) {
		const struct fsb_irfs_entry *e = &fs->e[i];
		unsigned ino = (unsigned)i + 1000;

		if (e->src) {
			err = copy_file(fd, e, ino);
		} else {
			err = write_header(fd, e->path + 1, e->mode, e->len, ino, e->rdev_major,
					   e->rdev_minor);
			if (!err && e->len)
				err = fsb_write_full(fd, e->data, e->len);
			if (!err)
				err = write_pad(fd, e->len);
		}
	}
	if (!err)
		err = write_header(fd, "TRAILER!!!", 0, 0, 0, 0, 0);
	return err;
}
