#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libcgroup.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "host-internal.h"
#include "sdbus.h"
#include "proc-read.h"

/*
 * Discovery: what kind of host this is, found out rather than assumed.
 *
 * The memory controller's mount point comes from libcgroup; its version from
 * the file system's magic number (statfs), which is the kernel's own answer,
 * cross-checked against /proc/self/mountinfo, which also lists every other
 * cgroup mount and so tells v1, v2 and hybrid apart.
 *
 * Which knobs exist is decided by looking for their files. The root of a v2
 * hierarchy has no memory.max, memory.low, ... (they are not allowed on the
 * root), so the files are looked for in the root, in our own group and in the
 * first child of the root that has the memory controller; a knob exists when
 * any of them has its file.
 *
 * libcgroup 2.0.2 is used for the mount point and, on v1, for our own group,
 * and nothing else: its cgroup_strerror() reads past its table for codes
 * above 50022 and crashes on 50030, so codes are translated here, and it logs
 * to stdout unless given a logger, which would corrupt memctl's own output.
 */

/* libcgroup's ECG* codes as errno, in one place (see the top comment). */
static const struct {
	int ecg;
	int err;
} ecg_errno_table[] = {
	{ ECGROUPNOTCOMPILED, ENOSYS },
	{ ECGROUPNOTMOUNTED, ENOENT },
	{ ECGROUPNOTEXIST, ENOENT },
	{ ECGROUPNOTCREATED, EIO },
	{ ECGROUPSUBSYSNOTMOUNTED, ENOENT },
	{ ECGROUPNOTOWNER, EPERM },
	{ ECGROUPMULTIMOUNTED, EBUSY },
	{ ECGROUPNOTALLOWED, EACCES },
	{ ECGMAXVALUESEXCEEDED, E2BIG },
	{ ECGCONTROLLEREXISTS, EEXIST },
	{ ECGVALUEEXISTS, EEXIST },
	{ ECGINVAL, EINVAL },
	{ ECGCONTROLLERCREATEFAILED, EIO },
	{ ECGFAIL, EIO },
	{ ECGROUPNOTINITIALIZED, ENXIO },
	{ ECGROUPVALUENOTEXIST, ENOENT },
	{ ECGROUPNOTEQUAL, EINVAL },
	{ ECGCONTROLLERNOTEQUAL, EINVAL },
	{ ECGROUPPARSEFAIL, EINVAL },
	{ ECGROUPNORULES, ENOENT },
	{ ECGMOUNTFAIL, EIO },
	{ ECGEOF, ENODATA },
	{ ECGCONFIGPARSEFAIL, EINVAL },
	{ ECGNAMESPACEPATHS, EINVAL },
	{ ECGNAMESPACECONTROLLER, EINVAL },
	{ ECGMOUNTNAMESPACE, EINVAL },
	{ ECGROUPUNSUPP, EOPNOTSUPP },
	{ ECGCANTSETVALUE, EIO },
	{ ECGNONEMPTY, EBUSY },
};

int host_ecg_errno(int ecg)
{
	if (ecg == 0)
		return 0;
	if (ecg == ECGOTHER) {
		int e = cgroup_get_last_errno();

		return e > 0 ? -e : -EIO;
	}
	/* Some paths of libcgroup hand back a plain errno. */
	if (ecg > 0 && ecg < ECGROUPNOTCOMPILED)
		return -ecg;
	for (size_t i = 0; i < sizeof(ecg_errno_table) / sizeof(ecg_errno_table[0]); i++)
		if (ecg_errno_table[i].ecg == ecg)
			return -ecg_errno_table[i].err;
	return -EIO;
}

static void libcgroup_quiet(void *userdata, int level, const char *fmt, va_list ap)
{
}

/*
 * Reads a /proc or /sys file to the end into a new NUL-terminated buffer.
 * These are multi-record seq_files, where a short read is not the end.
 */
static int read_small_file(const char *path, char **ret, size_t *ret_len)
{
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = mc_file_read_fd(fd, 16u << 20, ret, &len);
	close(fd);
	if (r == 0 && ret_len)
		*ret_len = len;
	return r;
}

/* Undoes mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape_mount_field(char *s)
{
	char *w = s;

	for (char *p = s; *p; ) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 4;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
}

static void mounts_free(struct mc_mount *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].path);
		free(m[i].type);
		free(m[i].options);
	}
	free(m);
}

/*
 * Splits one line of /proc/self/mountinfo in place ("id parent maj:min root
 * mountpoint options [optional...] - type source superopts"). True for a
 * cgroup or cgroup2 mount, with its root and mount point unescaped; false
 * (outputs untouched) for any other line, malformed ones included.
 */
static bool mountinfo_cgroup_line(char *line, char **ret_root, char **ret_point,
				  char **ret_type, char **ret_super)
{
	char *f[6], *sep, *type, *source, *super, *s2 = NULL;
	int nf = 0;

	sep = strstr(line, " - ");
	if (!sep)
		return false;
	*sep = '\0';
	for (char *t = strtok_r(line, " ", &s2); t && nf < 6; t = strtok_r(NULL, " ", &s2))
		f[nf++] = t;
	if (nf < 5)
		return false;
	s2 = NULL;
	type = strtok_r(sep + 3, " ", &s2);
	source = type ? strtok_r(NULL, " ", &s2) : NULL;
	super = source ? strtok_r(NULL, " ", &s2) : NULL;
	if (!super || (strcmp(type, "cgroup") != 0 && strcmp(type, "cgroup2") != 0))
		return false;
	unescape_mount_field(f[3]);
	unescape_mount_field(f[4]);
	*ret_root = f[3];
	*ret_point = f[4];
	*ret_type = type;
	*ret_super = super;
	return true;
}

/*
 * Collects the cgroup and cgroup2 mounts of /proc/self/mountinfo. For the
 * one at memory_mount, also returns its root field (the hierarchy path that
 * is mounted there), needed to turn our own group's path into one relative
 * to the mount.
 */
static int read_cgroup_mounts(const char *memory_mount, struct mc_mount **ret,
			      size_t *ret_n, char **ret_memory_root)
{
	struct mc_mount *m = NULL;
	size_t n = 0, cap = 0;
	char *text, *save = NULL, *memory_root = NULL;
	int r;

	r = read_small_file("/proc/self/mountinfo", &text, NULL);
	if (r < 0)
		return r;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *root, *point, *type, *super;

		if (!mountinfo_cgroup_line(line, &root, &point, &type, &super))
			continue;
		if (mc_array_reserve(&m, &cap, n + 1, sizeof(*m)) < 0) {
			r = -ENOMEM;
			goto fail;
		}
		m[n].path = strdup(point);
		m[n].type = strdup(type);
		m[n].options = strdup(super);
		n++;
		if (!m[n - 1].path || !m[n - 1].type || !m[n - 1].options) {
			r = -ENOMEM;
			goto fail;
		}
		if (memory_mount && strcmp(point, memory_mount) == 0 && !memory_root) {
			memory_root = strdup(root);
			if (!memory_root) {
				r = -ENOMEM;
				goto fail;
			}
		}
	}
	free(text);
	*ret = m;
	*ret_n = n;
	*ret_memory_root = memory_root;
	return 0;
fail:
	free(text);
	free(memory_root);
	mounts_free(m, n);
	return r;
}

/* Our cgroup v2 path: the "0::" line of /proc/self/cgroup. */
static int read_v2_self(char **ret)
{
	char *text, *save = NULL;
	int r;

	r = read_small_file("/proc/self/cgroup", &text, NULL);
	if (r < 0)
		return r;
	r = -ENOENT;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "0::", 3) == 0) {
			*ret = strdup(line + 3);
			r = *ret ? 0 : -ENOMEM;
			break;
		}
	}
	free(text);
	return r;
}

/*
 * Turns our group's path in the hierarchy into a path below the mount,
 * which mounts a subtree (root) of the hierarchy. *ret is NULL when our
 * group lies outside what is mounted.
 */
static int self_below_mount(const char *self, const char *root, char **ret)
{
	size_t rl;

	*ret = NULL;
	if (!root || strcmp(root, "/") == 0)
		return mc_path_join("/", self[0] == '/' ? self + 1 : self, ret) == -ENOMEM ?
			-ENOMEM : 0;
	rl = strlen(root);
	if (strncmp(self, root, rl) != 0 || (self[rl] != '/' && self[rl] != '\0'))
		return 0;
	return mc_path_join("/", self[rl] == '/' ? self + rl + 1 : "", ret) == -ENOMEM ?
		-ENOMEM : 0;
}

static int open_real(struct mc_host *h)
{
	struct mc_host_status *st = &h->st;
	char *mnt = NULL, *root = NULL, *self = NULL;
	bool any_v1 = false, any_v2 = false;
	struct statfs sfs;
	int r;

	cgroup_set_logger(libcgroup_quiet, CGROUP_LOG_ERROR, NULL);
	r = host_ecg_errno(cgroup_init());
	if (r < 0)
		return r;
	r = host_ecg_errno(cgroup_get_subsys_mount_point("memory", &mnt));
	if (r < 0)
		return r;
	st->memory_mount = mnt;

	r = read_cgroup_mounts(mnt, &st->mounts, &st->n_mounts, &root);
	if (r < 0)
		return r;
	for (size_t i = 0; i < st->n_mounts; i++) {
		if (strcmp(st->mounts[i].type, "cgroup2") == 0)
			any_v2 = true;
		else
			any_v1 = true;
	}
	st->layout = any_v1 && any_v2 ? MC_LAYOUT_HYBRID : any_v2 ? MC_LAYOUT_V2 : MC_LAYOUT_V1;

	if (statfs(mnt, &sfs) < 0) {
		r = -errno;
		goto out;
	}
	if (sfs.f_type == CGROUP2_SUPER_MAGIC) {
		st->memory_version = MC_CGV2;
	} else if (sfs.f_type == CGROUP_SUPER_MAGIC) {
		st->memory_version = MC_CGV1;
	} else {
		/* libcgroup named a directory that is not a cgroup file system. */
		r = -ENOENT;
		goto out;
	}

	if (st->memory_version == MC_CGV2)
		r = read_v2_self(&self);
	else
		r = host_ecg_errno(cgroup_get_current_controller_path(getpid(), "memory", &self));
	if (r < 0)
		goto out;
	r = self_below_mount(self, root, &st->self_path);
	if (r < 0)
		goto out;

	h->rootfd = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (h->rootfd < 0)
		r = -errno;
out:
	free(root);
	free(self);
	return r;
}

static bool file_in(int dirfd, const char *file)
{
	struct stat s;

	return fstatat(dirfd, file, &s, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(s.st_mode);
}

static int open_fake(struct mc_host *h, const struct mc_host_opts *o)
{
	struct mc_host_status *st = &h->st;
	const char *self = getenv("MEMCTL_FAKE_SELF");
	int r;

	h->fake = true;
	st->layout = MC_LAYOUT_FAKE;
	st->memory_mount = strdup(o->cgroup_root);
	if (!st->memory_mount)
		return -ENOMEM;
	h->rootfd = open(o->cgroup_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (h->rootfd < 0)
		return -errno;
	if (o->fake_version == 1 || o->fake_version == 2)
		st->memory_version = (enum mc_cgver)o->fake_version;
	else if (o->fake_version == 0)
		st->memory_version = file_in(h->rootfd, "cgroup.controllers") ? MC_CGV2 : MC_CGV1;
	else
		return -EINVAL;
	r = cgfs_check_path(self ? self : "/");
	if (r < 0)
		return r;
	return mc_path_join("/", self ? self + 1 : "", &st->self_path);
}

/* The first child of the root that has the memory controller (v2 root lacks the knobs). */
static int open_first_memory_child(struct mc_host *h, const char *usage_file)
{
	struct dirent *de;
	DIR *d;
	int fd = openat(h->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), found = -1;

	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while (found < 0 && (de = readdir(d))) {
		int cfd;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		cfd = openat(h->rootfd, de->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		if (file_in(cfd, usage_file))
			found = cfd;
		else
			close(cfd);
	}
	closedir(d);
	return found;
}

/* What `memctl status` says for each knob on each kind of host. */
struct knob_how {
	enum mc_cgver ver;
	enum mc_knob knob;
	bool present;     /* the knob's file was found */
	enum mc_mech mech;
	const char *how;
};

static const struct knob_how knob_hows[] = {
	{ MC_CGV1, MC_KNOB_MAX, true, MC_MECH_NATIVE, "memory.limit_in_bytes" },
	{ MC_CGV1, MC_KNOB_MAX, false, MC_MECH_MISSING,
	  "no memory.limit_in_bytes in the memory hierarchy" },
	{ MC_CGV1, MC_KNOB_HIGH, false, MC_MECH_EMULATED,
	  "no memory.high on cgroup v1: memctl run reclaims the excess above it each interval" },
	{ MC_CGV1, MC_KNOB_LOW, false, MC_MECH_MISSING,
	  "cgroup v1 has no memory.low: not applied" },
	{ MC_CGV1, MC_KNOB_MIN, false, MC_MECH_MISSING,
	  "cgroup v1 has no memory.min: not applied" },
	{ MC_CGV1, MC_KNOB_SOFT, true, MC_MECH_NATIVE, "memory.soft_limit_in_bytes" },
	{ MC_CGV1, MC_KNOB_SOFT, false, MC_MECH_MISSING,
	  "no memory.soft_limit_in_bytes in the memory hierarchy" },
	{ MC_CGV1, MC_KNOB_SWAP, true, MC_MECH_NATIVE,
	  "memory.memsw.limit_in_bytes (limits memory+swap together)" },
	{ MC_CGV1, MC_KNOB_SWAP, false, MC_MECH_MISSING,
	  "no memory.memsw.limit_in_bytes: swap accounting is off (swapaccount=1)" },
	{ MC_CGV2, MC_KNOB_MAX, true, MC_MECH_NATIVE, "memory.max" },
	{ MC_CGV2, MC_KNOB_MAX, false, MC_MECH_MISSING, "no memory.max in the memory hierarchy" },
	{ MC_CGV2, MC_KNOB_HIGH, true, MC_MECH_NATIVE, "memory.high" },
	{ MC_CGV2, MC_KNOB_HIGH, false, MC_MECH_EMULATED,
	  "no memory.high on this kernel: memctl run reclaims the excess above it each interval" },
	{ MC_CGV2, MC_KNOB_LOW, true, MC_MECH_NATIVE, "memory.low" },
	{ MC_CGV2, MC_KNOB_LOW, false, MC_MECH_MISSING,
	  "no memory.low on this kernel: not applied" },
	{ MC_CGV2, MC_KNOB_MIN, true, MC_MECH_NATIVE, "memory.min" },
	{ MC_CGV2, MC_KNOB_MIN, false, MC_MECH_MISSING, "no memory.min on this kernel" },
	{ MC_CGV2, MC_KNOB_SOFT, true, MC_MECH_NATIVE,
	  "memory.soft_limit (memctl kernel patch: the kernel reclaims groups above it first)" },
	{ MC_CGV2, MC_KNOB_SOFT, false, MC_MECH_EMULATED,
	  "no memory.soft_limit (memctl kernel patch absent): memctl run sets memory.low up to it and reclaims groups above it first" },
	{ MC_CGV2, MC_KNOB_SWAP, true, MC_MECH_NATIVE, "memory.swap.max" },
	{ MC_CGV2, MC_KNOB_SWAP, false, MC_MECH_MISSING,
	  "no memory.swap.max: swap accounting is off" },
	{ MC_CGV1, MC_KNOB_PROTECT_ACTIVE, false, MC_MECH_EMULATED,
	  "memctl kernel patch only (v2): protect: active caps the siblings' limits instead" },
	{ MC_CGV2, MC_KNOB_PROTECT_ACTIVE, true, MC_MECH_NATIVE,
	  "memory.reclaim_protect_active (memctl kernel patch: reclaim takes inactive pages first)" },
	{ MC_CGV2, MC_KNOB_PROTECT_ACTIVE, false, MC_MECH_EMULATED,
	  "no memory.reclaim_protect_active (memctl kernel patch absent): protect: active sets memory.low alone" },
};

/* The memctl kernel patch's files (v2 only). memory.soft_limit marks the patch. */
static const char *const patch_files[] = {
	"memory.soft_limit",
	"memory.reclaim_protect_active",
};

static bool present_in(const int *dirs, int nd, const char *file)
{
	for (int i = 0; i < nd; i++)
		if (file_in(dirs[i], file))
			return true;
	return false;
}

/* Whether the kernel command line has word (a whole parameter). */
static bool cmdline_has(const char *word)
{
	char *text = NULL;
	size_t len;
	bool found;

	if (read_small_file("/proc/cmdline", &text, &len) < 0)
		return false;
	found = host_has_word(text, word);
	free(text);
	return found;
}

/*
 * v2 with the memory controller enabled in no group yet (a fresh host, a
 * test guest): no directory shows a group's memory.* files, and the root
 * has none of the knobs. They are deduced from the kernel instead:
 * memory.{min,low,high,max} exist on every group the controller is enabled
 * in; memory.swap.max unless the kernel has no swap or swapaccount=0; the
 * patch's files when its sysctl vm.reclaim_protect_active exists (the
 * series is applied as a whole). status says the knobs were deduced, and
 * the next memctl run after a group exists sees the files themselves.
 */
static void deduce_v2_knobs(struct mc_host *h)
{
	struct mc_host_status *st = &h->st;
	struct mc_caps *c = &h->caps;
	bool patched = access("/proc/sys/vm/reclaim_protect_active", F_OK) == 0;
	bool swap = access("/proc/swaps", F_OK) == 0 && !cmdline_has("swapaccount=0");

	st->knobs_deduced = true;
	st->psi = st->psi || access("/proc/pressure/memory", F_OK) == 0;
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		const struct mc_knob_info *ki = mc_knob_info((enum mc_knob)k);

		c->file[k] = patched && ki->patched_file ? ki->patched_file : ki->v2_file;
		if (k == MC_KNOB_SWAP && !swap)
			c->file[k] = NULL;
	}
	if (patched)
		for (size_t i = 0; i < sizeof(patch_files) / sizeof(patch_files[0]); i++)
			st->patch_files_found[st->n_patch_files++] = patch_files[i];
	c->patched = patched;
	st->patched = patched;
}

static int detect_knobs(struct mc_host *h)
{
	struct mc_host_status *st = &h->st;
	struct mc_caps *c = &h->caps;
	bool v1 = st->memory_version == MC_CGV1;
	int dirs[3], nd = 0, selffd = -1, childfd;

	dirs[nd++] = h->rootfd;
	if (st->self_path && strcmp(st->self_path, "/") != 0 &&
	    cgfs_open_group(h, st->self_path, O_PATH, &selffd) == 0)
		dirs[nd++] = selffd;
	childfd = open_first_memory_child(h, v1 ? "memory.usage_in_bytes" : "memory.current");
	if (childfd >= 0)
		dirs[nd++] = childfd;

	c->ver = st->memory_version;
	st->psi = present_in(dirs, nd, "memory.pressure");
	st->numa_stat = present_in(dirs, nd, "memory.numa_stat");
	st->reclaim = present_in(dirs, nd, "memory.reclaim");
	if (!v1 && !present_in(dirs, nd, "memory.current")) {
		deduce_v2_knobs(h);
		goto mechs;
	}
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		const struct mc_knob_info *ki = mc_knob_info((enum mc_knob)k);
		const char *f = v1 ? ki->v1_file : ki->v2_file;

		if (!v1 && ki->patched_file && present_in(dirs, nd, ki->patched_file))
			f = ki->patched_file;
		c->file[k] = f && present_in(dirs, nd, f) ? f : NULL;
	}
	if (!v1) {
		for (size_t i = 0; i < sizeof(patch_files) / sizeof(patch_files[0]); i++)
			if (present_in(dirs, nd, patch_files[i]))
				st->patch_files_found[st->n_patch_files++] = patch_files[i];
	}
	c->patched = !v1 && c->file[MC_KNOB_SOFT] != NULL;
	st->patched = c->patched;
mechs:
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		bool present = c->file[k] != NULL;

		st->knob[k].mech = MC_MECH_MISSING;
		st->knob[k].how = "not available on this host";
		for (size_t i = 0; i < sizeof(knob_hows) / sizeof(knob_hows[0]); i++) {
			const struct knob_how *kh = &knob_hows[i];

			if (kh->ver == c->ver && (int)kh->knob == k && kh->present == present) {
				st->knob[k].mech = kh->mech;
				st->knob[k].how = kh->how;
				break;
			}
		}
	}
	if (selffd >= 0)
		close(selffd);
	if (childfd >= 0)
		close(childfd);
	return 0;
}

/* MemTotal and SwapTotal of /proc/meminfo, in bytes. */
static int read_mem_total(uint64_t *ret, uint64_t *ret_swap)
{
	char *text, *p, *q;
	unsigned long long kb, swkb = 0;
	int r;

	r = read_small_file("/proc/meminfo", &text, NULL);
	if (r < 0)
		return r;
	p = strstr(text, "MemTotal:");
	r = p && sscanf(p, "MemTotal: %llu kB", &kb) == 1 ? 0 : -EINVAL;
	q = strstr(text, "SwapTotal:");
	if (q && sscanf(q, "SwapTotal: %llu kB", &swkb) != 1)
		swkb = 0;
	if (r == 0) {
		*ret = (uint64_t)kb * 1024;
		*ret_swap = (uint64_t)swkb * 1024;
	}
	free(text);
	return r;
}

/* Counts the members of a kernel list ("0", "0-1,3"; "" or "\n": none). */
static int count_list(const char *text)
{
	const char *p = text;
	int n = 0;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p)
			break;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		if (b >= a)
			n += (int)(b - a + 1);
		if (*p == ',')
			p++;
	}
	return n;
}

/* Counts the nodes in /sys/devices/system/node/online. */
static int count_numa_nodes(void)
{
	char *text;
	int n;

	/* A kernel without NUMA has no such file: it is one node. */
	if (read_small_file("/sys/devices/system/node/online", &text, NULL) < 0)
		return 1;
	n = count_list(text);
	free(text);
	return n > 0 ? n : 1;
}

/*
 * The fewest online CPUs of a NUMA node that has any (memory-only nodes
 * have none and take no direct reclaimers of their own), or cpus when
 * the kernel lists no node's CPUs.
 */
static int fewest_cpus_per_node(int cpus)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	int fewest = 0;

	while (d && (e = readdir(d))) {
		char path[300], *text;
		int n;

		if (strncmp(e->d_name, "node", 4) != 0 || !isdigit((unsigned char)e->d_name[4]))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpulist", e->d_name);
		if (read_small_file(path, &text, NULL) < 0)
			continue;
		n = count_list(text);
		free(text);
		if (n > 0 && (fewest == 0 || n < fewest))
			fewest = n;
	}
	if (d)
		closedir(d);
	return fewest > 0 ? fewest : cpus;
}

/*
 * Snapshots keep the files of up to all but 1024 of the soft RLIMIT_NOFILE
 * open (see subtree.c). The soft limit is often 1024 (systemd's default) with a
 * hard limit far above: raise it to the hard one, as systemd advises
 * programs that need many descriptors to do. The only descriptor memctl
 * waits on (readline, ncurses: select/poll) is standard input, so high
 * descriptor numbers do not matter to FD_SETSIZE.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1 << 20 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int mc_host_open(const struct mc_host_opts *o, struct mc_host **ret)
{
	struct mc_host *h = calloc(1, sizeof(*h));
	long pg, cpus;
	int r;

	if (!h)
		return -ENOMEM;
	h->rootfd = -1;
	raise_nofile();
	host_fd_budget_update(h);
	r = o && o->cgroup_root ? open_fake(h, o) : open_real(h);
	if (r < 0)
		goto fail;
	r = detect_knobs(h);
	if (r < 0)
		goto fail;
	{
		/* host-wide PSI exists on v1 hosts too: not the same as memory.pressure */
		struct mc_psi psi;

		h->st.host_psi = mc_host_pressure(NULL, &psi) == 0;
	}
	pg = sysconf(_SC_PAGESIZE);
	h->caps.page_size = pg > 0 ? (uint64_t)pg : 4096;
	r = read_mem_total(&h->caps.mem_total, &h->st.swap_total);
	if (r < 0)
		goto fail;
	/* A fake tree simulates a host, its RAM included (golden outputs). */
	if (h->fake && getenv("MEMCTL_FAKE_MEM_TOTAL")) {
		struct mc_size sz;
		const char *why;

		if (mc_size_parse(getenv("MEMCTL_FAKE_MEM_TOTAL"), &sz, &why) < 0 ||
		    sz.kind != MC_SIZE_BYTES) {
			r = -EINVAL;
			goto fail;
		}
		h->caps.mem_total = sz.bytes;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	h->st.cpus_online = cpus > 0 ? (int)cpus : 1;
	h->st.numa_nodes = count_numa_nodes();
	h->st.cpus_per_node = fewest_cpus_per_node(h->st.cpus_online);
	h->write_timeout_ms = MC_WRITE_TIMEOUT_MS;
	r = host_fault_init(h);
	if (r < 0)
		goto fail;
	*ret = h;
	return 0;
fail:
	mc_host_free(h);
	return r;
}

void mc_host_free(struct mc_host *h)
{
	if (!h)
		return;
	host_trees_free(h);
	mc_host_bus_close(h);
	host_buf_free(&h->buf);
	if (h->rootfd >= 0)
		close(h->rootfd);
	free(h->st.memory_mount);
	mounts_free(h->st.mounts, h->st.n_mounts);
	free(h->st.self_path);
	free(h);
}

const struct mc_caps *mc_host_caps(const struct mc_host *h)
{
	return &h->caps;
}

const struct mc_host_status *mc_host_status(const struct mc_host *h)
{
	return &h->st;
}

int mc_host_resolve_parent(struct mc_host *h, const char *spec, char **ret)
{
	if (spec[0] == '/')
		return mc_path_join("/", spec + 1, ret);
	if (strncmp(spec, "self", 4) == 0 && (spec[4] == '\0' || spec[4] == '/')) {
		if (!h->st.self_path)
			return -ENOENT;
		return mc_path_join(h->st.self_path, spec[4] == '/' ? spec + 5 : "", ret);
	}
	return -EINVAL;
}
