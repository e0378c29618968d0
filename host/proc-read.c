/*
 * Host pressure and a group's processes (see proc-read.h). cgroup.procs is
 * read through the group's directory opened below the mount root (no
 * symlink followed); /proc/PID files by PID, which is safe to race with an
 * exit: a process gone between the two reads only loses its memory figures.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "host-internal.h"
#include "proc-read.h"

/* Reads a small /proc file into buf (NUL-terminated). Length or -errno. */
static ssize_t read_proc(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got + 1 < len && (n = read(fd, buf + got, len - 1 - (size_t)got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* The PSI text in buf (n bytes read from a buffer of size bytes) as *ret. */
static int pressure_parse(const char *buf, size_t n, size_t size, struct mc_psi *ret)
{
	struct mc_psi p = { 0 };
	int r;

	if (n + 1 >= size)
		return -EINVAL;   /* longer than two PSI lines can be */
	if ((r = mc_parse_psi(buf, n, &p)) < 0)
		return r;
	if (!p.valid)
		return -EINVAL;
	*ret = p;
	return 0;
}

int mc_host_pressure(const char *path, struct mc_psi *ret)
{
	char buf[512];
	ssize_t n = read_proc(path ? path : "/proc/pressure/memory", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return pressure_parse(buf, (size_t)n, sizeof(buf), ret);
}

int mc_host_pressure_kept(int *fd, struct mc_psi *ret)
{
	char buf[512];
	ssize_t n;
	int r;

	if (*fd < 0 && (*fd = open("/proc/pressure/memory", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	/* a seq_file: a read at offset 0 makes the text afresh */
	while ((n = pread(*fd, buf, sizeof(buf) - 1, 0)) < 0 && errno == EINTR)
		;
	if (n >= 0)
		buf[n] = '\0';
	r = n < 0 ? -errno : pressure_parse(buf, (size_t)n, sizeof(buf), ret);
	if (r < 0) {
		close(*fd);
		*fd = -1;
	}
	return r;
}

int mc_parse_proc_status(const char *text, uint64_t *ret_rss, uint64_t *ret_swap)
{
	unsigned long long rss = 0, swap = 0;
	bool have_rss = false;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "VmRSS: %llu kB", &rss) == 1)
			have_rss = true;
		else
			sscanf(l, "VmSwap: %llu kB", &swap);
	}
	if (!have_rss)
		return -ENOENT;
	*ret_rss = (uint64_t)rss << 10;
	*ret_swap = (uint64_t)swap << 10;
	return 0;
}

/* cgroup.procs of group, read whole. */
static int read_procs_file(struct mc_host *h, const char *group, struct host_buf *b,
			   size_t *ret_len)
{
	int dfd, r;

	if ((r = cgfs_open_group(h, group, O_PATH, &dfd)) < 0)
		return r;
	r = cgfs_read_at(b, dfd, "cgroup.procs", ret_len);
	close(dfd);
	return r;
}

static int cmp_proc(const void *a, const void *b)
{
	long x = ((const struct mc_proc *)a)->pid, y = ((const struct mc_proc *)b)->pid;

	return (x > y) - (x < y);
}

static void proc_fill(struct mc_proc *p)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/comm", p->pid);
	n = read_proc(path, p->comm, sizeof(p->comm));
	if (n <= 0)
		snprintf(p->comm, sizeof(p->comm), "?");
	else
		p->comm[strcspn(p->comm, "\n")] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/status", p->pid);
	n = read_proc(path, buf, sizeof(buf));
	p->mem_valid = n > 0 && mc_parse_proc_status(buf, &p->rss, &p->swap) == 0;
}

int mc_host_group_procs(struct mc_host *h, const char *group, struct mc_proc **ret,
			size_t *ret_n)
{
	struct host_buf b = { 0 };
	struct mc_proc *v = NULL;
	size_t len, n = 0, cap = 0;
	int r = read_procs_file(h, group, &b, &len);

	if (r < 0) {
		host_buf_free(&b);
		return r;
	}
	for (char *l = b.p; l < b.p + len;) {
		char *end;
		long pid = strtol(l, &end, 10);

		if (end == l || pid <= 0 || (*end != '\n' && *end != '\0')) {
			r = -EINVAL;
			break;
		}
		if (mc_array_reserve(&v, &cap, n + 1, sizeof(*v)) < 0) {
			r = -ENOMEM;
			break;
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n++].pid = pid;
		l = end + 1;
	}
	host_buf_free(&b);
	if (r < 0) {
		free(v);
		return r;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_proc);
	for (size_t i = 0; i < n; i++)
		proc_fill(&v[i]);
	*ret = v;
	*ret_n = n;
	return 0;
}

int mc_host_group_nprocs(struct mc_host *h, const char *group, size_t *ret)
{
	struct host_buf b = { 0 };
	size_t len, n = 0;
	int r = read_procs_file(h, group, &b, &len);

	if (r == 0) {
		for (size_t i = 0; i < len; i++)
			n += b.p[i] == '\n';
		*ret = n;
	}
	host_buf_free(&b);
	return r;
}

static const char *const stat_files[] = {
	"memory.stat", "memory.numa_stat", "memory.events", "memory.events.local",
	"memory.swap.events", "memory.pressure", "memory.failcnt", "memory.oom_control",
};

int mc_host_group_file(struct mc_host *h, const char *group, const char *file, char **ret,
		       size_t *ret_len)
{
	struct host_buf b = { 0 };
	bool known = false;
	size_t len = 0;
	int dfd, r;

	for (size_t i = 0; i < sizeof(stat_files) / sizeof(stat_files[0]); i++)
		known |= strcmp(stat_files[i], file) == 0;
	if (!known)
		return -EPERM;
	if ((r = cgfs_open_group(h, group, O_PATH, &dfd)) < 0)
		return r;
	r = cgfs_read_at(&b, dfd, file, &len);
	close(dfd);
	if (r < 0) {
		host_buf_free(&b);
		return r;
	}
	*ret = b.p;   /* cgfs_read_fd NUL-terminates it */
	*ret_len = len;
	return 0;
}

int mc_parse_meminfo(const char *text, size_t len, struct mc_kvs *ret)
{
	size_t pos = 0;

	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, k = 0, i;
		unsigned long long v = 0;
		bool digits = false;
		int r;

		pos += n + 1;
		if (n == 0)
			continue;
		while (k < n && l[k] != ':')
			k++;
		if (k == 0 || k == n)
			return -EINVAL;
		for (i = k + 1; i < n && l[i] == ' '; i++)
			;
		for (; i < n && l[i] >= '0' && l[i] <= '9'; i++) {
			if (v > (UINT64_MAX - 9) / 10)
				return -EINVAL;
			v = v * 10 + (unsigned)(l[i] - '0');
			digits = true;
		}
		if (!digits)
			return -EINVAL;
		if (n - i == 3 && memcmp(l + i, " kB", 3) == 0) {
			if (v > UINT64_MAX / 1024)
				return -EINVAL;
			v *= 1024;
		} else if (i != n) {
			return -EINVAL;
		}
		if ((r = mc_kvs_add(ret, l, k, v)) < 0)
			return r;
	}
	return 0;
}

/* A /proc file whole into *ret (allocated, NUL-terminated). Length or -errno. */
static ssize_t slurp_proc(const char *path, char **ret)
{
	size_t cap = 8192;
	ssize_t n;

	for (;;) {
		char *buf = malloc(cap);

		if (!buf)
			return -ENOMEM;
		n = read_proc(path, buf, cap);
		if (n >= 0 && (size_t)n + 1 < cap) {
			*ret = buf;
			return n;
		}
		free(buf);
		if (n < 0 || cap >= (1u << 22))
			return n < 0 ? n : -EFBIG;
		cap *= 4;
	}
}

int mc_host_meminfo(const char *path, struct mc_kvs *ret)
{
	char *buf;
	ssize_t n = slurp_proc(path ? path : "/proc/meminfo", &buf);
	int r;

	if (n < 0)
		return (int)n;
	r = mc_parse_meminfo(buf, (size_t)n, ret);
	free(buf);
	return r;
}

bool mc_vmstat_reclaim_field(const char *key, size_t len)
{
	static const char *const prefix[] = {
		"pgscan", "pgsteal", "pgrefill", "pgdemote", "workingset_", "allocstall",
		"kswapd_", "pglazyfree",
	};
	static const char *const exact[] = {
		"pswpin", "pswpout", "pgmajfault", "pgactivate", "pgdeactivate", "pgrotated",
		"slabs_scanned", "pageoutrun", "oom_kill", "compact_stall", "compact_fail",
		"compact_success",
	};

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (len >= strlen(prefix[i]) && memcmp(key, prefix[i], strlen(prefix[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (len == strlen(exact[i]) && memcmp(key, exact[i], len) == 0)
			return true;
	return false;
}

static const char *vmstat_name(void *arg, const char *key, size_t len, bool *ret_copy)
{
	*ret_copy = mc_vmstat_reclaim_field(key, len);
	return NULL;
}

int mc_host_vmstat_reclaim(const char *path, struct mc_kvs *ret)
{
	const struct mc_key_map map = { vmstat_name, NULL };
	char *buf;
	ssize_t n = slurp_proc(path ? path : "/proc/vmstat", &buf);
	int r;

	if (n < 0)
		return (int)n;
	r = mc_parse_flat_keyed_map(buf, (size_t)n, &map, ret);
	free(buf);
	return r;
}
