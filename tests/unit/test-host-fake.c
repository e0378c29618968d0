#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "lowwatch.h"
#include "size.h"
#include "tap.h"

/*
 * The host layer against a fake cgroup v2 tree: a plain directory made in
 * a temporary directory, shaped like /sys/fs/cgroup (cgroup.controllers at
 * the root, memory.* files in the groups, none of the limits at the root).
 * Discovery, snapshots, writes with read-back, and the refusals (symlinks,
 * "..") are checked without root and without touching the real hierarchy.
 *
 *   tree/
 *     cgroup.controllers memory.stat memory.pressure
 *     batch/    (full set of files)
 *     web/      (full set)   web/cache/ (full set)
 *     link -> web            (a symlinked "group": must never be followed)
 *   outside                  (a file outside the tree, target of a trap)
 */

static char top[] = "/tmp/memctl-test-host-fake.XXXXXX";
static char tree[sizeof(top) + 8];

static const char stat_text[] =
	"anon 221184\nfile 4096000\nkernel 339968\nshmem 0\nfile_mapped 2580480\n"
	"inactive_anon 200704\nactive_anon 20480\ninactive_file 1515520\n"
	"active_file 2580480\nunevictable 0\npgscan 1024\npgsteal 998\n"
	"pgfault 4410\npgmajfault 61\n";
static const char events_text[] = "low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n";
static const char psi_text[] =
	"some avg10=1.50 avg60=0.75 avg300=0.25 total=123456\n"
	"full avg10=0.50 avg60=0.25 avg300=0.05 total=65432\n";
static const char numa_text[] = "anon N0=786432 N1=262144\nfile N0=4194304 N1=4194304\n";

/* Writes text to tree/rel (created or replaced); aborts the test on failure. */
static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* The contents of tree/rel, or "" when unreadable. */
static const char *get(const char *rel)
{
	static char buf[256];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "r");
	if (!f)
		return "";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void mkdir_rel(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		printf("Bail out! mkdir %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* A group directory with every v2 memory file; max and current given. */
static void make_group(const char *rel, const char *max, const char *current)
{
	char f[256];
	static const struct {
		const char *name;
		const char *text;
	} files[] = {
		{ "memory.high", "max\n" },
		{ "memory.low", "0\n" },
		{ "memory.min", "0\n" },
		{ "memory.swap.max", "max\n" },
		{ "memory.stat", stat_text },
		{ "memory.events", events_text },
		{ "memory.pressure", psi_text },
		{ "memory.numa_stat", numa_text },
	};

	mkdir_rel(rel);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(f, sizeof(f), "%s/%s", rel, files[i].name);
		put(f, files[i].text);
	}
	snprintf(f, sizeof(f), "%s/memory.max", rel);
	put(f, max);
	snprintf(f, sizeof(f), "%s/memory.current", rel);
	put(f, current);
}

static void build_tree(void)
{
	char path[512];

	if (!mkdtemp(top)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(tree, sizeof(tree), "%s/tree", top);
	if (mkdir(tree, 0755) < 0) {
		printf("Bail out! mkdir %s: %s\n", tree, strerror(errno));
		exit(1);
	}
	put("cgroup.controllers", "cpu io memory pids\n");
	put("memory.stat", stat_text);
	put("memory.pressure", psi_text);
	put("memory.numa_stat", numa_text);
	make_group("web", "1073741824\n", "52428800\n");
	make_group("web/cache", "536870912\n", "10485760\n");
	make_group("batch", "max\n", "4096\n");
	snprintf(path, sizeof(path), "%s/link", tree);
	if (symlink("web", path) < 0) {
		printf("Bail out! symlink: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/outside", top);
	put("../outside", "untouched\n");
}

static int rm_entry(const char *path, const struct stat *s, int flag, struct FTW *ftw)
{
	return remove(path);
}

static struct mc_host *open_fake(int version)
{
	struct mc_host_opts o = { .cgroup_root = tree, .fake_version = version };
	struct mc_host *h = NULL;
	int r = mc_host_open(&o, &h);

	tap_eq_int(r, 0, "open fake tree (version %d)", version);
	if (r < 0) {
		printf("Bail out! cannot open the fake tree\n");
		exit(1);
	}
	return h;
}

static void test_discovery(struct mc_host *h)
{
	const struct mc_caps *c = mc_host_caps(h);
	const struct mc_host_status *st = mc_host_status(h);

	tap_eq_int(st->layout, MC_LAYOUT_FAKE, "layout is fake");
	tap_eq_int(st->memory_version, MC_CGV2, "version 2 from cgroup.controllers");
	tap_eq_int(c->ver, MC_CGV2, "caps version 2");
	tap_eq_str(st->memory_mount, tree, "memory mount is the given root");
	tap_eq_str(st->self_path, "/", "self is / without MEMCTL_FAKE_SELF");
	tap_eq_str(c->file[MC_KNOB_MAX], "memory.max", "max file");
	tap_eq_str(c->file[MC_KNOB_HIGH], "memory.high", "high file");
	tap_eq_str(c->file[MC_KNOB_LOW], "memory.low", "low file");
	tap_eq_str(c->file[MC_KNOB_MIN], "memory.min", "min file");
	tap_eq_str(c->file[MC_KNOB_SWAP], "memory.swap.max", "swap file");
	tap_eq_str(c->file[MC_KNOB_SOFT], NULL, "no soft limit file on a stock v2 kernel");
	tap_check(!c->patched && !st->patched && st->n_patch_files == 0, "not patched");
	/* memctl run emulates it with memory.low and ordered reclaim. */
	tap_eq_int(st->knob[MC_KNOB_SOFT].mech, MC_MECH_EMULATED, "soft limit is emulated on stock v2");
	tap_check(strstr(st->knob[MC_KNOB_SOFT].how, "kernel patch absent") != NULL,
		  "soft limit: says the kernel patch is absent");
	tap_eq_int(st->knob[MC_KNOB_MAX].mech, MC_MECH_NATIVE, "max is native");
	tap_eq_str(st->knob[MC_KNOB_MAX].how, "memory.max", "max: how");
	tap_check(st->psi, "memory.pressure found");
	tap_check(st->numa_stat, "memory.numa_stat found");
	tap_check(!st->reclaim, "no memory.reclaim in the tree");
	tap_check(c->page_size >= 4096, "page size %llu", (unsigned long long)c->page_size);
	tap_check(c->mem_total > 0, "mem_total from /proc/meminfo");
	tap_check(st->cpus_online >= 1 && st->numa_nodes >= 1, "cpus and nodes counted");
}

static const struct {
	const char *spec;
	int rc;
	const char *want;
} resolve_cases[] = {
	{ "/", 0, "/" },
	{ "/a/b", 0, "/a/b" },
	{ "/a//b/", 0, "/a/b" },
	{ "//", 0, "/" },
	{ "self", 0, "/web" },
	{ "self/", 0, "/web" },
	{ "self/x/y", 0, "/web/x/y" },
	{ "self//x/", 0, "/web/x" },
	{ "", -EINVAL, NULL },
	{ "web", -EINVAL, NULL },
	{ "selfish", -EINVAL, NULL },
	{ "/a/../b", -EINVAL, NULL },
	{ "/a/./b", -EINVAL, NULL },
	{ "/..", -EINVAL, NULL },
	{ "self/..", -EINVAL, NULL },
};

static void test_resolve(void)
{
	struct mc_host *h;

	setenv("MEMCTL_FAKE_SELF", "/web", 1);
	h = open_fake(0);
	unsetenv("MEMCTL_FAKE_SELF");
	tap_eq_int(mc_host_status(h)->memory_version, MC_CGV2, "version detected: 2");
	tap_eq_str(mc_host_status(h)->self_path, "/web", "self from MEMCTL_FAKE_SELF");
	for (size_t i = 0; i < sizeof(resolve_cases) / sizeof(resolve_cases[0]); i++) {
		char *p = NULL;
		int r = mc_host_resolve_parent(h, resolve_cases[i].spec, &p);

		tap_eq_int(r, resolve_cases[i].rc, "resolve '%s': rc", resolve_cases[i].spec);
		tap_eq_str(p, resolve_cases[i].want, "resolve '%s': path", resolve_cases[i].spec);
		free(p);
	}
	mc_host_free(h);
}

static void test_path_join(void)
{
	static const struct {
		const char *parent, *rel;
		int rc;
		const char *want;
	} cases[] = {
		{ "/", "", 0, "/" },
		{ "/", "a", 0, "/a" },
		{ "/a", "b/c", 0, "/a/b/c" },
		{ "/a/", "b/", 0, "/a/b" },
		{ "/a", "", 0, "/a" },
		{ "a", "b", -EINVAL, NULL },
		{ "/a", "b/..", -EINVAL, NULL },
		{ "/a/.", "b", -EINVAL, NULL },
	};
	char longname[300];
	char *p = NULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = mc_path_join(cases[i].parent, cases[i].rel, &p);

		tap_eq_int(r, cases[i].rc, "join '%s' + '%s': rc", cases[i].parent, cases[i].rel);
		tap_eq_str(r == 0 ? p : NULL, cases[i].want, "join '%s' + '%s'", cases[i].parent,
			   cases[i].rel);
		if (r == 0)
			free(p);
	}
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	tap_eq_int(mc_path_join("/", longname, &p), -ENAMETOOLONG,
		   "join: a component over NAME_MAX is refused, not cut");
}

static void test_snapshot(struct mc_host *h)
{
	const struct mc_caps *c = mc_host_caps(h);
	struct mc_snapshot s;
	const struct mc_group_snap *g;
	static const char *const order[] = { "", "batch", "web", "web/cache" };
	uint64_t v = 0;
	int r;

	r = mc_host_snapshot(h, "/", &s);
	tap_eq_int(r, 0, "snapshot /");
	if (r < 0)
		return;
	tap_eq_str(s.parent, "/", "snapshot parent");
	tap_eq_u64(s.n, 4, "four groups; the symlink is not one");
	for (size_t i = 0; i < 4 && i < s.n; i++)
		tap_eq_str(s.groups[i].path, order[i], "preorder, by name: group %zu", i);
	tap_eq_u64(s.parent_limit, c->mem_total, "unlimited root: parent limit is RAM");

	g = &s.groups[0];
	tap_check(g->present && !g->raw_valid[MC_KNOB_MAX] && !g->usage_valid,
		  "root: no memory.max, no memory.current (missing files are normal)");
	tap_check(g->stat.n == 14 && g->psi.valid && g->n_numa == 2, "root: stat, psi, numa read");

	g = mc_snapshot_find(&s, "web");
	tap_check(g && g->present, "web present");
	if (g) {
		tap_check(g->raw_valid[MC_KNOB_MAX] && g->raw[MC_KNOB_MAX] == 1073741824,
			  "web max 1G");
		tap_check(g->raw_valid[MC_KNOB_HIGH] && g->raw[MC_KNOB_HIGH] == MC_SIZE_MAX,
			  "web high max");
		tap_check(g->raw_valid[MC_KNOB_SWAP] && g->raw[MC_KNOB_SWAP] == MC_SIZE_MAX,
			  "web swap max");
		tap_check(!g->raw_valid[MC_KNOB_SOFT], "web: no soft limit file");
		tap_check(g->usage_valid && g->usage == 52428800, "web usage");
		tap_eq_int(mc_kvs_get(&g->stat, "inactive_file", &v), 0, "web stat inactive_file");
		tap_eq_u64(v, 1515520, "web stat inactive_file value");
		tap_eq_int(mc_kvs_get(&g->events, "oom_kill", &v), 0, "web events oom_kill");
		tap_eq_u64(v, 1, "web events oom_kill value");
		tap_check(g->psi.valid && g->psi.some_total == 123456, "web psi");
		tap_check(g->n_numa == 2 && mc_kvs_get(&g->numa[1], "anon", &v) == 0 &&
				  v == 262144, "web numa N1 anon");
	}
	mc_snapshot_free(&s);

	r = mc_host_snapshot(h, "/web/cache", &s);
	tap_eq_int(r, 0, "snapshot /web/cache");
	if (r == 0) {
		uint64_t want = c->mem_total < 536870912 ? c->mem_total : 536870912;

		tap_eq_u64(s.n, 1, "leaf: one group");
		tap_eq_u64(s.parent_limit, want, "parent limit: smallest max up the tree");
		mc_snapshot_free(&s);
	}
	r = mc_host_snapshot(h, "/nope", &s);
	tap_eq_int(r, -ENOENT, "snapshot of a missing parent");
	r = mc_host_snapshot(h, "/link", &s);
	tap_check(r < 0, "snapshot through a symlink refused (%d)", r);
	r = mc_host_snapshot(h, "/web/..", &s);
	tap_eq_int(r, -EINVAL, "snapshot of /web/.. refused");
}

/* Removes tree/rel and everything below it. */
static void rm_rel(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* A second snapshot reads through kept-open descriptors: it must still see every change. */
static void test_snapshot_changes(struct mc_host *h)
{
	struct mc_snapshot s;
	const struct mc_group_snap *g;
	static const char *const order[] = { "", "new", "web", "web/cache" };
	int r;

	char from[512], to[512];

	/*
	 * Replace web's memory.current by another file (rename over it): the
	 * kept-open descriptor now reads a removed file, which must be noticed.
	 */
	put("web/memory.current.new", "99999744\n");
	snprintf(from, sizeof(from), "%s/web/memory.current.new", tree);
	snprintf(to, sizeof(to), "%s/web/memory.current", tree);
	if (rename(from, to) < 0)
		printf("# rename: %s\n", strerror(errno));
	/* And change its memory.max in place: the same file, new contents. */
	put("web/memory.max", "2147483648\n");
	make_group("new", "4194304\n", "0\n");
	rm_rel("batch");
	/* web/cache removed and made again with another limit: a new group. */
	rm_rel("web/cache");
	make_group("web/cache", "268435456\n", "0\n");

	r = mc_host_snapshot(h, "/", &s);
	tap_eq_int(r, 0, "second snapshot /");
	if (r < 0)
		return;
	tap_eq_u64(s.n, 4, "second snapshot: four groups");
	for (size_t i = 0; i < 4 && i < s.n; i++)
		tap_eq_str(s.groups[i].path, order[i], "second snapshot: group %zu", i);
	g = mc_snapshot_find(&s, "web");
	tap_check(g && g->present && g->usage == 99999744,
		  "replaced file read anew, not through the old descriptor");
	tap_check(g && g->raw[MC_KNOB_MAX] == 2147483648ULL, "file changed in place read again");
	g = mc_snapshot_find(&s, "web/cache");
	tap_check(g && g->present && g->raw[MC_KNOB_MAX] == 268435456,
		  "recreated group read fresh, not through the old descriptors");
	g = mc_snapshot_find(&s, "new");
	tap_check(g && g->present && g->raw[MC_KNOB_MAX] == 4194304, "new group found");
	tap_check(mc_snapshot_find(&s, "batch") == NULL, "removed group gone");
	mc_snapshot_free(&s);
}

static void test_write(struct mc_host *h)
{
	uint64_t v = 0, back = 7;
	int r;

	r = mc_host_write_knob(h, "/web", MC_KNOB_MAX, 536870912, &back);
	tap_eq_int(r, 0, "write web max");
	tap_eq_str(get("web/memory.max"), "536870912", "one decimal written, old value gone");
	tap_eq_u64(back, 7, "readback untouched on success");
	tap_eq_int(mc_host_read_knob(h, "/web", MC_KNOB_MAX, &v), 0, "read web max");
	tap_eq_u64(v, 536870912, "read back what was written");
	tap_eq_int(mc_host_write_knob(h, "/web", MC_KNOB_HIGH, MC_SIZE_MAX, NULL), 0,
		   "write web high max");
	tap_eq_str(get("web/memory.high"), "max", "no limit is written as max on v2");
	tap_eq_int(mc_host_write_knob(h, "/", MC_KNOB_MAX, 1 << 20, NULL), -ENOENT,
		   "write to a file the group lacks: -ENOENT");
	tap_eq_int(mc_host_write_knob(h, "/nope", MC_KNOB_MAX, 1 << 20, NULL), -ENOENT,
		   "write to a missing group: -ENOENT");
	tap_eq_int(mc_host_write_knob(h, "/web", MC_KNOB_SOFT, 1 << 20, NULL), -ENOENT,
		   "write of a knob this host lacks: -ENOENT");
	tap_eq_int(mc_host_read_knob(h, "/", MC_KNOB_MAX, &v), -ENOENT, "root has no memory.max");
	tap_eq_int(mc_host_read_knob(h, "/web", MC_KNOB__COUNT, &v), -EINVAL, "bad knob");
}

static void test_refusals(struct mc_host *h)
{
	char path[512];
	uint64_t v = 0;
	int r;

	r = mc_host_write_knob(h, "/link", MC_KNOB_MAX, 4096, NULL);
	tap_check(r < 0, "write through a symlinked group refused (%d)", r);
	tap_eq_str(get("web/memory.max"), "536870912", "symlink target untouched");
	tap_check(mc_host_read_knob(h, "/link", MC_KNOB_MAX, &v) < 0, "read through symlink refused");
	tap_check(!mc_host_group_exists(h, "/link"), "a symlink is not a group");
	tap_check(mc_host_mkdir(h, "/link/x") < 0, "mkdir below a symlink refused");
	snprintf(path, sizeof(path), "%s/web/x", tree);
	tap_check(access(path, F_OK) < 0, "nothing made in the symlink's target");

	/* A knob file that is a symlink leading out of the tree. */
	snprintf(path, sizeof(path), "%s/web/memory.low", tree);
	unlink(path);
	if (symlink("../../outside", path) < 0)
		printf("# symlink: %s\n", strerror(errno));
	r = mc_host_write_knob(h, "/web", MC_KNOB_LOW, 4096, NULL);
	tap_eq_int(r, -ELOOP, "write to a symlinked knob file refused");
	tap_eq_str(get("../outside"), "untouched\n", "file outside the tree untouched");
	tap_eq_int(mc_host_read_knob(h, "/web", MC_KNOB_LOW, &v), -ELOOP,
		   "read of a symlinked knob file refused");
	unlink(path);
	put("web/memory.low", "0\n");

	static const char *const dots[] = { "/web/..", "/../web", "/./web", "/web/../..", "web" };
	for (size_t i = 0; i < sizeof(dots) / sizeof(dots[0]); i++) {
		tap_eq_int(mc_host_read_knob(h, dots[i], MC_KNOB_MAX, &v), -EINVAL,
			   "read '%s' refused", dots[i]);
		tap_eq_int(mc_host_write_knob(h, dots[i], MC_KNOB_MAX, 4096, NULL), -EINVAL,
			   "write '%s' refused", dots[i]);
		tap_eq_int(mc_host_mkdir(h, dots[i]), -EINVAL, "mkdir '%s' refused", dots[i]);
		tap_check(!mc_host_group_exists(h, dots[i]), "'%s' does not exist", dots[i]);
	}
}

static void test_mkdir(struct mc_host *h)
{
	tap_eq_int(mc_host_mkdir(h, "/web/made"), 0, "mkdir /web/made");
	tap_check(mc_host_group_exists(h, "/web/made"), "made group exists");
	tap_eq_int(mc_host_mkdir(h, "/web/made"), -EEXIST, "mkdir again: -EEXIST");
	tap_eq_int(mc_host_mkdir(h, "/"), -EEXIST, "mkdir /: -EEXIST");
	tap_eq_int(mc_host_mkdir(h, "/nope/x"), -ENOENT, "mkdir below a missing group");
	tap_eq_int(mc_host_rmdir(h, "/web/made"), 0, "rmdir /web/made");
	tap_check(!mc_host_group_exists(h, "/web/made"), "removed group is gone");
	tap_eq_int(mc_host_rmdir(h, "/web/made"), -ENOENT, "rmdir again: -ENOENT");
	tap_eq_int(mc_host_rmdir(h, "/"), -EBUSY, "rmdir /: -EBUSY");
	tap_check(mc_host_rmdir(h, "/link") < 0, "rmdir of a symlink refused");
	tap_check(mc_host_group_exists(h, "/web"), "web still there");
}

static void test_patched(void)
{
	struct mc_host *h;
	const struct mc_host_status *st;

	put("web/memory.soft_limit", "max\n");
	put("web/memory.reclaim_protect_active", "0\n");
	put("memory.reclaim", "");
	h = open_fake(2);
	st = mc_host_status(h);
	tap_eq_str(mc_host_caps(h)->file[MC_KNOB_SOFT], "memory.soft_limit", "patched: soft file");
	tap_check(mc_host_caps(h)->patched && st->patched, "patched detected");
	tap_eq_u64(st->n_patch_files, 2, "patched: both patch files listed");
	tap_eq_int(st->knob[MC_KNOB_SOFT].mech, MC_MECH_NATIVE, "patched: soft limit native");
	tap_check(st->reclaim, "memory.reclaim found");
	mc_host_free(h);

	/* A v1-shaped tree: no cgroup.controllers. */
	rm_rel("cgroup.controllers");
	h = open_fake(0);
	tap_eq_int(mc_host_caps(h)->ver, MC_CGV1, "no cgroup.controllers: version 1");
	tap_check(mc_host_caps(h)->file[MC_KNOB_MAX] == NULL, "v1 tree without limit_in_bytes");
	tap_eq_int(mc_host_status(h)->knob[MC_KNOB_HIGH].mech, MC_MECH_EMULATED,
		   "v1: high is emulated by memctl run");
	mc_host_free(h);
	put("cgroup.controllers", "cpu io memory pids\n");
}

/*
 * The descriptor budget of the subtree readers: all of the soft
 * RLIMIT_NOFILE but 1024, half of it below 2048. Lowers this process's
 * limits for good, so it runs last.
 */
static void test_fd_budget(void)
{
	static const struct {
		rlim_t nofile;
		size_t want;
	} cases[] = { { 20000, 18976 }, { 4096, 3072 }, { 2048, 1024 }, { 2047, 1023 }, { 1024, 512 } };
	struct rlimit rl;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mc_host *h;

		if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max < cases[i].nofile) {
			printf("# RLIMIT_NOFILE %lu not tried: the hard limit is lower\n",
			       (unsigned long)cases[i].nofile);
			continue;
		}
		rl.rlim_cur = rl.rlim_max = cases[i].nofile;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			tap_check(false, "setrlimit RLIMIT_NOFILE %lu", (unsigned long)cases[i].nofile);
			continue;
		}
		h = open_fake(2);
		tap_eq_u64(mc_host_fd_budget(h), cases[i].want, "RLIMIT_NOFILE %lu: budget %zu",
			   (unsigned long)cases[i].nofile, cases[i].want);
		mc_host_free(h);
	}
}

/*
 * The test-only failure injection. Whether it is compiled into the host
 * library shows in how a malformed switch is taken: refused when compiled
 * in, ignored otherwise.
 */
static void test_fault_injection(void)
{
	struct mc_host_opts o = { .cgroup_root = tree, .fake_version = 2 };
	struct mc_host *h = NULL;
	int r, status;
	pid_t pid;

	setenv("MEMCTL_FAIL_WRITE", "bogus", 1);
	r = mc_host_open(&o, &h);
	unsetenv("MEMCTL_FAIL_WRITE");
	if (r == 0) {
		mc_host_free(h);
		tap_check(true, "fault injection not compiled in: malformed switch ignored");
		return;
	}
	tap_eq_int(r, -EINVAL, "malformed MEMCTL_FAIL_WRITE refused");

	setenv("MEMCTL_FAIL_WRITE", "2:EBUSY", 1);
	h = open_fake(2);
	unsetenv("MEMCTL_FAIL_WRITE");
	tap_eq_int(mc_host_write_knob(h, "/web", MC_KNOB_MAX, 8388608, NULL), 0, "write 1 ok");
	tap_eq_int(mc_host_write_knob(h, "/web", MC_KNOB_MAX, 4194304, NULL), -EBUSY,
		   "write 2 fails as injected");
	tap_eq_str(get("web/memory.max"), "8388608", "failed write did not touch the file");
	tap_eq_int(mc_host_write_knob(h, "/web", MC_KNOB_MAX, 2097152, NULL), 0, "write 3 ok");
	mc_host_free(h);

	setenv("MEMCTL_FAIL_WRITE", "1:28", 1);
	h = open_fake(2);
	unsetenv("MEMCTL_FAIL_WRITE");
	tap_eq_int(mc_host_write_knob(h, "/web", MC_KNOB_MAX, 8388608, NULL), -28,
		   "errno given as a number");
	mc_host_free(h);

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setenv("MEMCTL_STOP_AFTER_WRITE", "2", 1);
		if (mc_host_open(&o, &h) < 0)
			_exit(2);
		mc_host_write_knob(h, "/web", MC_KNOB_MAX, 16777216, NULL);
		mc_host_write_knob(h, "/web", MC_KNOB_MAX, 33554432, NULL);
		mc_host_write_knob(h, "/web", MC_KNOB_MAX, 67108864, NULL);
		_exit(0);
	}
	r = waitpid(pid, &status, WUNTRACED);
	tap_check(r == pid && WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP,
		  "stopped itself after the 2nd write");
	tap_eq_str(get("web/memory.max"), "33554432", "2nd write done, 3rd not");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* Whether the watch's descriptor becomes readable within a second. */
static bool lowwatch_readable(const struct mc_lowwatch *w)
{
	struct pollfd p = { .fd = mc_lowwatch_fd(w), .events = POLLIN };

	return poll(&p, 1, 1000) == 1;
}

/*
 * The memory.low watch (lowwatch.h): inotify reports writes to the fake
 * tree's plain files as it reports the kernel's notifications.
 */
static void test_lowwatch(struct mc_host *h)
{
	char *both[] = { "/web", "/web/cache" }, *missing[] = { "/nope" }, *link[] = { "/link" };
	char *gone[] = { "/web/gone" };
	struct mc_lowwatch *w = NULL;
	const char *g = NULL;

	tap_eq_int(mc_lowwatch_open(h, &w), 0, "lowwatch: opens on cgroup v2");
	if (!w)
		return;
	tap_eq_int(mc_lowwatch_set(h, w, both, 2), 2, "lowwatch: two groups watched");
	tap_eq_int(mc_lowwatch_check(w, &g), 0, "lowwatch: nothing before a change");
	put("web/cache/memory.events", "low 0\nhigh 13\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
	tap_check(lowwatch_readable(w), "lowwatch: a change makes the descriptor readable");
	tap_eq_int(mc_lowwatch_check(w, &g), 0, "lowwatch: another counter moving is no failure of memory.low");
	put("web/memory.events", "low 2\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
	tap_check(lowwatch_readable(w), "lowwatch: the rise of low makes the descriptor readable");
	tap_eq_int(mc_lowwatch_check(w, &g), 1, "lowwatch: the rise of low is reported");
	tap_eq_str(g, "/web", "lowwatch: the group it failed is named");
	put("web/memory.events", "low 3\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
	tap_eq_int(mc_lowwatch_check(w, &g), 0, "lowwatch: a group reports its failure once");
	tap_eq_int(mc_lowwatch_set(h, w, both, 2), 1, "lowwatch: the group that fired stays silent while listed");
	tap_eq_int(mc_lowwatch_set(h, w, both + 1, 1), 1, "lowwatch: a group no longer listed is dropped");
	tap_eq_int(mc_lowwatch_set(h, w, both, 2), 2, "lowwatch: listed again, it is watched again");
	tap_eq_int(mc_lowwatch_set(h, w, missing, 1), 0, "lowwatch: a group that does not exist is not watched");
	tap_eq_int(mc_lowwatch_set(h, w, link, 1), 0, "lowwatch: a symlink in the tree is never followed");
	make_group("web/gone", "max\n", "0\n");
	tap_eq_int(mc_lowwatch_set(h, w, gone, 1), 1, "lowwatch: a new group is watched");
	rm_rel("web/gone");
	tap_check(lowwatch_readable(w), "lowwatch: a removed group's watch ends");
	tap_eq_int(mc_lowwatch_check(w, &g), 0, "lowwatch: a removed group reports nothing");
	tap_eq_int(mc_lowwatch_set(h, w, gone, 1), 0, "lowwatch: a removed group is not watched");
	make_group("web/gone", "max\n", "0\n");
	tap_eq_int(mc_lowwatch_set(h, w, gone, 1), 1, "lowwatch: a group made again is watched again");
	rm_rel("web/gone");
	mc_lowwatch_free(w);
	put("web/memory.events", events_text);
	put("web/cache/memory.events", events_text);
}

int main(void)
{
	struct mc_host *h;

	unsetenv("MEMCTL_FAKE_SELF");
	unsetenv("MEMCTL_FAIL_WRITE");
	unsetenv("MEMCTL_STOP_AFTER_WRITE");
	build_tree();
	h = open_fake(2);
	test_discovery(h);
	test_resolve();
	test_path_join();
	test_snapshot(h);
	test_snapshot_changes(h);
	test_write(h);
	test_refusals(h);
	test_mkdir(h);
	test_lowwatch(h);
	mc_host_free(h);
	test_patched();
	test_fault_injection();
	test_fd_budget();
	nftw(top, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	tap_check(access(top, F_OK) < 0, "temporary tree removed");
	return tap_done();
}
