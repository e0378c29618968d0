#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "columns.h"
#include "host.h"
#include "model.h"
#include "subtree.h"
#include "tap.h"

/*
 * The subtree reader against fake trees (plain directories shaped like a
 * memory hierarchy, no root needed):
 *   - v1 memory.stat / numa_stat keys come out under v2's names, once, in
 *     the host layer (and v1's group-local keys do not come out at all);
 *   - a value that does not parse is invalid and named, never fatal;
 *   - the effective limit includes the group's own max;
 *   - groups appearing, vanishing, renamed and replaced between scans are
 *     seen exactly, against an oracle that lists the tree afresh, while the
 *     reader lists only directories that changed;
 *   - a v1 group's processes: an empty group is not read again until its
 *     cgroup.procs or tasks is written, and then counted; on v2, until its
 *     cgroup.events reports a change;
 *   - the read model over it (view/model.c) reads only the knob files the
 *     columns ask for, and its display order, kept from one refresh to the
 *     next, is the sorted one whatever the keys did in between.
 */

static char top[] = "/tmp/memctl-test-subtree.XXXXXX";
static char tree[sizeof(top) + 8];

static void bail(const char *what, const char *path)
{
	printf("Bail out! %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		bail("cannot write", path);
}

static void mkdir_rel(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	if (mkdir(path, 0755) < 0)
		bail("mkdir", path);
}

static int rm_entry(const char *path, const struct stat *s, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_rel(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	if (nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS) < 0)
		bail("remove", path);
}

static void rename_rel(const char *from, const char *to)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/%s", tree, from);
	snprintf(b, sizeof(b), "%s/%s", tree, to);
	if (rename(a, b) < 0)
		bail("rename", a);
}

static const char v1_stat[] =
	"cache 4096\nrss 8192\nrss_huge 0\ninactive_anon 4096\nactive_anon 4096\n"
	"inactive_file 4096\nactive_file 0\nhierarchical_memory_limit 1073741824\n"
	"total_cache 40960\ntotal_rss 81920\ntotal_rss_huge 2097152\ntotal_shmem 0\n"
	"total_mapped_file 12288\ntotal_workingset_refault 351\ntotal_pgfault 100\n"
	"total_pgpgin 7\ntotal_inactive_anon 40960\ntotal_active_anon 40960\n"
	"total_inactive_file 20480\ntotal_active_file 20480\ntotal_unevictable 0\n";
static const char v1_numa[] =
	"total=30 N0=20 N1=10\nfile=10 N0=5 N1=5\nanon=20 N0=15 N1=5\nunevictable=0 N0=0 N1=0\n"
	"hierarchical_total=300 N0=200 N1=100\nhierarchical_file=100 N0=50 N1=50\n"
	"hierarchical_anon=200 N0=150 N1=50\nhierarchical_unevictable=0 N0=0 N1=0\n";

/* A v1 group with every file the reader reads there. */
static void make_v1_group(const char *rel, const char *limit)
{
	static const struct {
		const char *name;
		const char *text;
	} files[] = {
		{ "memory.soft_limit_in_bytes", "9223372036854771712\n" },
		{ "memory.memsw.limit_in_bytes", "9223372036854771712\n" },
		{ "memory.usage_in_bytes", "122880\n" },
		{ "memory.stat", v1_stat },
		{ "memory.numa_stat", v1_numa },
		{ "memory.failcnt", "7\n" },
		{ "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n" },
	};
	char f[256];

	if (*rel)
		mkdir_rel(rel);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(f, sizeof(f), "%s%s%s", rel, *rel ? "/" : "", files[i].name);
		put(f, files[i].text);
	}
	snprintf(f, sizeof(f), "%s%smemory.limit_in_bytes", rel, *rel ? "/" : "");
	put(f, limit);
}

static struct mc_host *open_fake(int version)
{
	struct mc_host_opts o = { .cgroup_root = tree, .fake_version = version };
	struct mc_host *h = NULL;

	if (mc_host_open(&o, &h) < 0) {
		printf("Bail out! cannot open the fake tree\n");
		exit(1);
	}
	return h;
}

static bool has_key_prefix(const struct mc_kvs *kv, const char *pfx)
{
	for (size_t i = 0; i < kv->n; i++)
		if (strncmp(kv->v[i].key, pfx, strlen(pfx)) == 0)
			return true;
	return false;
}

static void test_v1_names(struct mc_host *h)
{
	const uint64_t page = mc_host_caps(h)->page_size;
	struct mc_snapshot s;
	const struct mc_group_snap *g;
	uint64_t v = 0;
	int r = mc_host_snapshot(h, "/a", &s);

	tap_eq_int(r, 0, "v1: snapshot /a");
	if (r < 0)
		return;
	g = mc_snapshot_find(&s, "b");
	tap_check(g && g->present, "v1: a/b read");
	if (!g)
		goto out;
	tap_check(mc_kvs_get(&g->stat, "anon", &v) == 0 && v == 81920, "v1 total_rss is anon");
	tap_check(mc_kvs_get(&g->stat, "file", &v) == 0 && v == 40960, "v1 total_cache is file");
	tap_check(mc_kvs_get(&g->stat, "anon_thp", &v) == 0 && v == 2097152,
		  "v1 total_rss_huge is anon_thp");
	tap_check(mc_kvs_get(&g->stat, "file_mapped", &v) == 0 && v == 12288,
		  "v1 total_mapped_file is file_mapped");
	tap_check(mc_kvs_get(&g->stat, "inactive_anon", &v) == 0 && v == 40960,
		  "v1 inactive_anon is the hierarchical total, not the group-local value");
	tap_check(mc_kvs_get(&g->stat, "workingset_refault_file", &v) == 0 && v == 351,
		  "v1 total_workingset_refault (before 5.9) is workingset_refault_file");
	tap_check(!has_key_prefix(&g->stat, "total_") && !has_key_prefix(&g->stat, "hierarchical_") &&
			  mc_kvs_get(&g->stat, "rss", &v) < 0 && mc_kvs_get(&g->stat, "cache", &v) < 0 &&
			  mc_kvs_get(&g->stat, "pgpgin", &v) < 0,
		  "no v1 name comes out (%zu keys)", g->stat.n);
	tap_check(g->n_numa == 2 && mc_kvs_get(&g->numa[0], "anon", &v) == 0 && v == 150 * page,
		  "v1 numa hierarchical_anon is anon (bytes)");
	tap_check(g->n_numa == 2 && mc_kvs_get(&g->numa[1], "file", &v) == 0 && v == 50 * page,
		  "v1 numa hierarchical_file is file");
	tap_check(g->n_numa == 2 && mc_kvs_get(&g->numa[0], "total", &v) < 0 &&
			  !has_key_prefix(&g->numa[0], "hierarchical_"),
		  "no v1 numa name comes out");
	tap_check(mc_kvs_get(&g->events, "max", &v) == 0 && v == 7, "v1 failcnt is event max");
	tap_check(mc_kvs_get(&g->events, "oom_kill", &v) == 0 && v == 2,
		  "v1 oom_control's oom_kill is event oom_kill");
	tap_eq_u64(g->bad, 0, "v1: every file parsed");
out:
	mc_snapshot_free(&s);
}

/* The effective limit counts the group's own max and every ancestor's, capped at RAM. */
static void test_limit(struct mc_host *h)
{
	uint64_t ram = mc_host_caps(h)->mem_total, v = 0, want;
	struct mc_subtree *t = NULL;
	struct mc_snapshot s;

	want = ram < 536870912 ? ram : 536870912;
	tap_eq_int(mc_host_effective_limit(h, "/a/b", &v), 0, "effective limit of /a/b");
	tap_eq_u64(v, want, "its own 512M counts");
	want = ram < 1073741824 ? ram : 1073741824;
	tap_eq_int(mc_host_effective_limit(h, "/a", &v), 0, "effective limit of /a");
	tap_eq_u64(v, want, "/a: its 1G (the unlimited root adds nothing)");
	if (mc_host_snapshot(h, "/a", &s) == 0) {
		tap_eq_u64(s.parent_limit, want, "snapshot's parent limit is the same function");
		mc_snapshot_free(&s);
	}
	if (mc_subtree_new(h, "/a", &t) == 0 && mc_subtree_scan(t, false) >= 0)
		tap_eq_u64(mc_subtree_limit(t), want, "the reader's limit is the same function");
	mc_subtree_free(t);

	/* the reader keeps the max files open: a change to any of them shows at the next scan */
	t = NULL;
	if (mc_subtree_new(h, "/a/b", &t) == 0 && mc_subtree_scan(t, false) >= 0) {
		put("a/memory.limit_in_bytes", "268435456\n");
		tap_check(mc_subtree_scan(t, false) >= 0, "scan after the ancestor's change");
		tap_eq_u64(mc_subtree_limit(t), ram < 268435456 ? ram : 268435456,
			   "an ancestor's lower max is the reader's limit at the next scan");
		put("a/memory.limit_in_bytes", "1073741824\n");
		put("a/b/memory.limit_in_bytes", "134217728\n");
		tap_check(mc_subtree_scan(t, false) >= 0, "scan after the group's own change");
		tap_eq_u64(mc_subtree_limit(t), ram < 134217728 ? ram : 134217728,
			   "the group's own lower max too");
		put("a/b/memory.limit_in_bytes", "536870912\n");
		tap_check(mc_subtree_scan(t, false) >= 0, "scan after both were restored");
		tap_eq_u64(mc_subtree_limit(t), ram < 536870912 ? ram : 536870912, "and back to 512M");
		mc_host_effective_limit(h, "/a/b", &v);
		tap_eq_u64(mc_subtree_limit(t), v, "the same as mc_host_effective_limit");
	}
	mc_subtree_free(t);
}

/* A value that does not parse: invalid and named, the rest of the snapshot intact. */
static void test_bad_values(struct mc_host *h)
{
	struct mc_snapshot s;
	const struct mc_group_snap *g;
	struct mc_subtree *t = NULL;
	struct mc_group_snap gs = { 0 };
	char *files = NULL;
	uint64_t v;
	int r;

	put("a/b/memory.limit_in_bytes", "garbage\n");
	put("a/b/memory.stat", "total_rss 12x\n");
	r = mc_host_snapshot(h, "/a", &s);
	tap_eq_int(r, 0, "a bad value does not fail the snapshot");
	if (r == 0) {
		g = mc_snapshot_find(&s, "b");
		tap_check(g && g->present && !g->raw_valid[MC_KNOB_MAX] && g->stat.n == 0,
			  "bad limit and memory.stat are invalid, not zero");
		tap_check(g && g->usage_valid && g->usage == 122880 &&
				  mc_kvs_get(&g->events, "max", &v) == 0,
			  "the group's other files are read");
		if (g && mc_host_bad_files(h, g->bad, &files) == 0)
			tap_eq_str(files, "memory.limit_in_bytes, memory.stat", "bad files named");
		free(files);
		tap_check(s.n_notes == 1 && strstr(s.notes[0], "'/a/b'") &&
				  strstr(s.notes[0], "memory.limit_in_bytes, memory.stat"),
			  "the snapshot says so: %s", s.n_notes ? s.notes[0] : "no note");
		g = mc_snapshot_find(&s, "");
		tap_check(g && g->raw_valid[MC_KNOB_MAX] && g->bad == 0, "the parent is unaffected");
		mc_snapshot_free(&s);
	}
	/* the reader's own read: the same rule */
	if (mc_subtree_new(h, "/a", &t) == 0 && mc_subtree_scan(t, false) >= 0) {
		r = mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
		tap_check(r == 0 && !gs.raw_valid[MC_KNOB_MAX] && gs.bad != 0,
			  "read: bad knob invalid and marked");
		put("a/b/memory.limit_in_bytes", "536870912\n");
		r = mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
		tap_check(r == 0 && gs.raw_valid[MC_KNOB_MAX] && gs.raw[MC_KNOB_MAX] == 536870912,
			  "read: fixed value read again");
		r = mc_subtree_read(t, 1, MC_READ_STAT, &gs, NULL);
		tap_check(r == 0 && gs.bad != 0 && gs.stat.n == 0, "read: memory.stat still bad");
		put("a/b/memory.stat", v1_stat);
		r = mc_subtree_read(t, 1, MC_READ_STAT, &gs, NULL);
		tap_check(r == 0 && gs.bad == 0 && gs.stat.n > 0, "read: all good again, bits cleared");
		/* names are remembered by place: a file whose keys move must still map right */
		put("a/b/memory.stat", "total_cache 1\nnew_key 5\ntotal_rss 2\nrss 9\n");
		r = mc_subtree_read(t, 1, MC_READ_STAT, &gs, NULL);
		tap_check(r == 0 && gs.stat.n == 2 && mc_kvs_get(&gs.stat, "file", &v) == 0 && v == 1 &&
				  mc_kvs_get(&gs.stat, "anon", &v) == 0 && v == 2,
			  "read: keys in another order still renamed right (%zu keys)", gs.stat.n);
		put("a/b/memory.stat", v1_stat);
		r = mc_subtree_read(t, 1, MC_READ_STAT, &gs, NULL);
		tap_check(r == 0 && mc_kvs_get(&gs.stat, "anon", &v) == 0 && v == 81920,
			  "read: and back");
		mc_group_snap_free(&gs);
	}
	mc_subtree_free(t);
	put("a/b/memory.limit_in_bytes", "536870912\n");
}

/*
 * mc_subtree_keep_knobs: a knob file is read once, then again only after
 * a write to it (reported by inotify at the next scan); the parent's
 * effective limit likewise. Other files are read every time.
 * It is long because it is one sequence of writes and scans, each read
 * counted.
 */
static void test_keep_knobs(struct mc_host *h)
{
	uint64_t ram = mc_host_caps(h)->mem_total;
	struct mc_subtree *t = NULL;
	struct mc_group_snap gs = { 0 };
	size_t n0;
	int r;

	if (mc_subtree_new(h, "/a", &t) < 0) {
		tap_check(false, "keep: a reader of /a");
		return;
	}
	mc_subtree_keep_knobs(t);   /* as top does: before the first scan */
	tap_check(mc_subtree_scan(t, false) >= 0, "keep: first scan");
	r = mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
	tap_check(r == 0 && gs.raw_valid[MC_KNOB_MAX] && gs.raw[MC_KNOB_MAX] == 536870912,
		  "keep: first read reads the files");
	n0 = mc_subtree_preads(t);
	mc_subtree_scan(t, false);
	r = mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
	tap_check(r == 0 && gs.raw_valid[MC_KNOB_MAX] && gs.raw[MC_KNOB_MAX] == 536870912 &&
			  gs.raw_valid[MC_KNOB_SOFT],
		  "keep: the values again");
	tap_eq_u64(mc_subtree_preads(t) - n0, 0, "keep: without reading a knob file again");
	r = mc_subtree_read(t, 1, MC_READ_USAGE, &gs, NULL);
	tap_eq_u64(mc_subtree_preads(t) - n0, 1, "keep: usage is read every time");

	put("a/b/memory.limit_in_bytes", "268435456\n");
	n0 = mc_subtree_preads(t);
	mc_subtree_scan(t, false);
	r = mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
	tap_check(r == 0 && gs.raw[MC_KNOB_MAX] == 268435456, "keep: a write is read at the next scan");
	tap_eq_u64(mc_subtree_preads(t) - n0, 1, "keep: that file alone");

	put("a/b/memory.limit_in_bytes", "garbage\n");
	mc_subtree_scan(t, false);
	r = mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
	n0 = mc_subtree_preads(t);
	r |= mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
	tap_check(r == 0 && !gs.raw_valid[MC_KNOB_MAX] && (gs.bad & 1u << MC_KNOB_MAX),
		  "keep: a bad value stays invalid and marked");
	tap_eq_u64(mc_subtree_preads(t) - n0, 0, "keep: also without reading it again");
	put("a/b/memory.limit_in_bytes", "536870912\n");
	mc_subtree_scan(t, false);
	r = mc_subtree_read(t, 1, MC_READ_KNOBS, &gs, NULL);
	tap_check(r == 0 && gs.raw_valid[MC_KNOB_MAX] && !(gs.bad & 1u << MC_KNOB_MAX),
		  "keep: fixed, valid again");

	/* the effective limit: the parent's and its ancestors' max files */
	n0 = mc_subtree_preads(t);
	mc_subtree_scan(t, false);
	tap_eq_u64(mc_subtree_preads(t) - n0, 0, "keep: a scan without writes reads no max file");
	put("a/memory.limit_in_bytes", "268435456\n");
	mc_subtree_scan(t, false);
	tap_eq_u64(mc_subtree_limit(t), ram < 268435456 ? ram : 268435456,
		   "keep: a write to the parent's max is its limit at the next scan");
	put("memory.limit_in_bytes", "134217728\n");
	mc_subtree_scan(t, false);
	tap_eq_u64(mc_subtree_limit(t), ram < 134217728 ? ram : 134217728,
		   "keep: and a write to an ancestor's");
	put("memory.limit_in_bytes", "9223372036854771712\n");
	put("a/memory.limit_in_bytes", "1073741824\n");
	mc_subtree_scan(t, false);
	tap_eq_u64(mc_subtree_limit(t), ram < 1073741824 ? ram : 1073741824, "keep: and back");
	mc_group_snap_free(&gs);
	mc_subtree_free(t);
}

/* The number of processes count gives for entry i, and the files it read. */
static uint64_t count_of(int (*count)(struct mc_subtree *, size_t, uint64_t *), struct mc_subtree *t,
			 size_t i, size_t *ret_preads)
{
	size_t n0 = mc_subtree_preads(t);
	uint64_t n = UINT64_MAX;

	if (count(t, i, &n) < 0)
		n = UINT64_MAX;
	*ret_preads = mc_subtree_preads(t) - n0;
	return n;
}

/* The number of processes mc_subtree_tasks gives for entry i, and the files it read. */
static uint64_t tasks_of(struct mc_subtree *t, size_t i, size_t *ret_preads)
{
	return count_of(mc_subtree_tasks, t, i, ret_preads);
}

/*
 * A reader of /a, whose b is empty and a holds process 17 (its tasks file
 * a_tasks); NULL after failing the check named by what.
 */
static struct mc_subtree *procs_reader(struct mc_host *h, const char *a_tasks, const char *what)
{
	struct mc_subtree *t = NULL;

	put("a/b/cgroup.procs", "");
	put("a/b/tasks", "");
	put("a/cgroup.procs", "17\n");
	put("a/tasks", a_tasks);
	if (mc_subtree_new(h, "/a", &t) < 0 || mc_subtree_scan(t, false) < 0) {
		tap_check(false, "%s: a reader of /a", what);
		mc_subtree_free(t);
		return NULL;
	}
	return t;
}

/* procs_reader's files removed, and its reader freed. */
static void procs_reader_free(struct mc_subtree *t)
{
	rm_rel("a/b/cgroup.procs");
	rm_rel("a/b/tasks");
	rm_rel("a/cgroup.procs");
	rm_rel("a/tasks");
	mc_subtree_free(t);
}

static void test_empty_tasks(struct mc_host *h)
{
	struct mc_subtree *t = procs_reader(h, "17\n18\n", "tasks");
	size_t reads;

	if (!t)
		return;
	tap_eq_u64(tasks_of(t, 0, &reads), 1, "tasks: a counts its process");
	tap_eq_u64(tasks_of(t, 1, &reads), 0, "tasks: b none");
	tap_eq_u64(reads, 1, "tasks: read once");
	mc_subtree_scan(t, false);
	tap_eq_u64(tasks_of(t, 0, &reads), 1, "tasks: a again");
	tap_eq_u64(reads, 1, "tasks: a group with processes is read every time");
	tap_eq_u64(tasks_of(t, 1, &reads), 0, "tasks: b still none");
	tap_eq_u64(reads, 0, "tasks: an empty group without a write is not read again");

	/* a process moved in between two samples */
	put("a/b/cgroup.procs", "42\n");
	mc_subtree_scan(t, false);
	tasks_of(t, 0, &reads);
	tap_eq_u64(tasks_of(t, 1, &reads), 1, "tasks: a process written to cgroup.procs is counted");
	tap_eq_u64(reads, 1, "tasks: by reading the file");
	put("a/b/cgroup.procs", "");
	mc_subtree_scan(t, false);
	tap_eq_u64(tasks_of(t, 1, &reads), 0, "tasks: gone again");
	/* a thread moved through tasks, seen when a pass begins even without a scan */
	put("a/b/tasks", "43\n");
	put("a/b/cgroup.procs", "43\n");
	tasks_of(t, 0, &reads);
	tap_eq_u64(tasks_of(t, 1, &reads), 1, "tasks: a write to tasks is counted at the next pass");
	put("a/b/tasks", "");
	put("a/b/cgroup.procs", "");
	mc_subtree_scan(t, false);
	tap_eq_u64(tasks_of(t, 1, &reads), 0, "tasks: empty once more");
	tap_eq_u64(tasks_of(t, 1, &reads), 0, "tasks: and kept");
	tap_eq_u64(reads, 0, "tasks: without a read");
	/* the scan after a pass's events still relists what they marked */
	mkdir_rel("a/b/c");
	put("a/b/cgroup.procs", "44\n");
	tasks_of(t, 0, &reads);
	mc_subtree_scan(t, false);
	tap_eq_u64(mc_subtree_count(t), 3, "tasks: a group made before the pass is found by the next scan");
	rm_rel("a/b/c");
	procs_reader_free(t);
}

/* The number of processes mc_subtree_nprocs gives for entry i, and the files it read. */
static uint64_t nprocs_of(struct mc_subtree *t, size_t i, size_t *ret_preads)
{
	return count_of(mc_subtree_nprocs, t, i, ret_preads);
}

/*
 * Counts for top's rows, some at a time and never entry 0: a group with
 * processes is read at every call, an empty one once until a write to its
 * cgroup.procs is taken in by a scan.
 */
static void test_nprocs(struct mc_host *h)
{
	struct mc_subtree *t = procs_reader(h, "17\n", "nprocs");
	size_t reads;

	if (!t)
		return;
	tap_eq_u64(nprocs_of(t, 1, &reads), 0, "nprocs: b none");
	tap_eq_u64(reads, 1, "nprocs: read once");
	mc_subtree_scan(t, false);
	tap_eq_u64(nprocs_of(t, 1, &reads), 0, "nprocs: b still none");
	tap_eq_u64(reads, 0, "nprocs: an empty group without a write is not read again");
	put("a/b/cgroup.procs", "42\n43\n");
	put("a/cgroup.procs", "17\n18\n");
	mc_subtree_scan(t, false);
	tap_eq_u64(nprocs_of(t, 1, &reads), 2, "nprocs: processes written to b counted, entry 0 not asked");
	tap_eq_u64(nprocs_of(t, 0, &reads), 2, "nprocs: a's count read again");
	tap_eq_u64(reads, 1, "nprocs: by reading its file");
	put("a/b/cgroup.procs", "42\n");
	tap_eq_u64(nprocs_of(t, 1, &reads), 1, "nprocs: a group with processes read at every call");
	procs_reader_free(t);
}
/* The parent removed and made again under its name: the next scan sees the new one. */
static void test_root_replaced(struct mc_host *h)
{
	struct mc_subtree *t = NULL;
	int r;

	if (mc_subtree_new(h, "/a", &t) < 0 || mc_subtree_scan(t, false) < 0) {
		tap_check(false, "root: a reader of /a");
		mc_subtree_free(t);
		return;
	}
	tap_eq_int(mc_subtree_scan(t, false), 0, "root: unchanged, a scan changes nothing");
	tap_eq_u64(mc_subtree_count(t), 2, "root: /a and b");
	rename_rel("a", "a.old");
	make_v1_group("a", "268435456\n");
	r = mc_subtree_scan(t, false);
	tap_eq_int(r, 1, "root: replaced, the scan says the tree changed");
	tap_eq_u64(mc_subtree_count(t), 1, "root: the new /a, without b");
	rm_rel("a");
	r = mc_subtree_scan(t, false);
	tap_eq_int(r, -ENOENT, "root: removed, the scan says so");
	rename_rel("a.old", "a");
	tap_eq_int(mc_subtree_scan(t, false), 1, "root: back, the old tree again");
	tap_eq_u64(mc_subtree_count(t), 2, "root: /a and b again");
	mc_subtree_free(t);
}

/* --- the read model over the reader --- */

/*
 * A knob column reads its own file (and max, for the effective limit),
 * the ancestors their max alone; the detail pane's row reads everything.
 * Files that do not parse show whether they were read: a bad file read
 * sets its bit in bad.
 */
static void test_model_parts(struct mc_host *h)
{
	const uint32_t soft_bit = 1u << MC_KNOB_SOFT, swap_bit = 1u << MC_KNOB_SWAP;
	struct top_model m;
	const struct top_row *p, *b;

	put("a/memory.soft_limit_in_bytes", "garbage\n");
	put("a/b/memory.memsw.limit_in_bytes", "garbage\n");
	if (top_model_init(&m, h, "/a") < 0 || top_model_refresh(&m, 1) < 0 || m.n_order != 2) {
		tap_check(false, "model over the fake tree");
		top_model_release(&m);
		return;
	}
	p = &m.rows[m.order[0]];
	b = &m.rows[m.order[1]];
	tap_eq_int(top_model_fill(&m, 1, 1, (size_t)-1, MC_READ_KNOB_SOFT), 0, "fill the soft column");
	tap_check(b->g.raw_valid[MC_KNOB_SOFT] && b->g.raw_valid[MC_KNOB_MAX] &&
			  !b->g.raw_valid[MC_KNOB_SWAP] && !(b->g.bad & swap_bit),
		  "the row: soft limit and max read, memsw not (bad %#x)", b->g.bad);
	tap_check(p->g.raw_valid[MC_KNOB_MAX] && !p->g.raw_valid[MC_KNOB_SOFT] &&
			  !(p->g.bad & soft_bit) && p->eff_limit == 1073741824,
		  "its ancestor: max alone (bad %#x)", p->g.bad);
	tap_eq_int(top_model_fill(&m, 1, 1, m.order[0], MC_READ_KNOB_SOFT), 0, "fill with a detail row");
	tap_check((p->g.bad & soft_bit) && p->g.usage_valid && p->g.stat.n > 0,
		  "the detail row: every file (bad %#x)", p->g.bad);
	tap_check(!(b->g.bad & swap_bit), "the other row: still not memsw");
	top_model_release(&m);
	put("a/memory.soft_limit_in_bytes", "9223372036854771712\n");
	put("a/b/memory.memsw.limit_in_bytes", "9223372036854771712\n");
}

/* The children of the parent in display order, as "name,name,...". */
static void order_names(const struct top_model *m, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t k = 1; k < m->n_order && at < len; k++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", k > 1 ? "," : "",
				       m->rows[m->order[k]].name);
}

static void set_usages(const char *const *names, const char *const *values, size_t n)
{
	char f[64];

	for (size_t i = 0; i < n; i++) {
		snprintf(f, sizeof(f), "a/%s/memory.usage_in_bytes", names[i]);
		put(f, values[i]);
	}
}

static void test_model_order(struct mc_host *h)
{
	static const char *const kids[] = { "b", "c1", "c2", "c3", "c4" };
	static const struct {
		const char *usage[5];
		bool reverse;
		const char *want;
	} steps[] = {
		{ { "122880", "100", "400", "300", "200" }, false, "b,c2,c3,c4,c1" },
		{ { "122880", "500000", "400", "50", "200" }, false, "c1,b,c2,c4,c3" },
		/* ties go by name, whichever way */
		{ { "122880", "7", "7", "50", "7" }, false, "b,c3,c1,c2,c4" },
		{ { "122880", "7", "7", "50", "7" }, true, "c1,c2,c4,c3,b" },
		{ { "1", "2", "3", "4", "5" }, true, "b,c1,c2,c3,c4" },
		{ { "1", "2", "3", "4", "5" }, false, "c4,c3,c2,c1,b" },
	};
	struct top_model m;
	char got[64];

	for (size_t i = 1; i < 5; i++) {
		snprintf(got, sizeof(got), "a/%s", kids[i]);
		make_v1_group(got, "9223372036854771712\n");
	}
	if (top_model_init(&m, h, "/a") < 0) {
		tap_check(false, "model over the fake tree");
		return;
	}
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		set_usages(kids, steps[s].usage, 5);
		if (s == 0 || steps[s].reverse != steps[s - 1].reverse)
			top_model_sort_by(&m, top_col_lookup("usage"), steps[s].reverse);
		tap_eq_int(top_model_refresh(&m, 1.0 + (double)s), 0, "refresh %zu", s);
		order_names(&m, got, sizeof(got));
		tap_eq_str(got, steps[s].want, "order after refresh %zu", s);
	}
	top_model_release(&m);
	for (size_t i = 1; i < 5; i++) {
		snprintf(got, sizeof(got), "a/%s", kids[i]);
		rm_rel(got);
	}
	put("a/b/memory.usage_in_bytes", "122880\n");
}

/*
 * The order keeps each row's key from order to order and takes again only
 * the keys of rows read since: a row read for the screen (top_model_fill)
 * moves at the next order without its turn (m: test_model_turns' model).
 */
static void check_read_row_moves(struct top_model *m)
{
	char got[64];

	put("a/c1/memory.usage_in_bytes", "999999\n");
	for (size_t k = 1; k < m->n_order; k++) {
		if (strcmp(m->rows[m->order[k]].name, "c1") == 0) {
			tap_eq_int(top_model_fill(m, k, 1, (size_t)-1, MC_READ_USAGE), 0, "fill c1");
			break;
		}
	}
	top_model_order(m);
	order_names(m, got, sizeof(got));
	tap_eq_str(got, "c1,c3,c4,c2,b", "a row read for the screen moves at the next order");
}

/*
 * With a key budget below the number of rows, a refresh reads at most that
 * many sort keys, and every row's key, a new value included, is read again
 * within ceil(rows / budget) refreshes (the rows on screen aside, which
 * top_model_fill reads).
 */
static void test_model_turns(struct mc_host *h)
{
	static const char *const kids[] = { "b", "c1", "c2", "c3", "c4" };
	static const char *const usage[] = { "100\n", "200\n", "300\n", "400\n", "500\n" };
	const size_t budget = 2, turns = 3;   /* 6 rows: the parent and five */
	unsigned long last[6] = { 0 };
	struct top_model m;
	char f[64];
	bool bound = true, budget_kept = true, seen = true;

	for (size_t i = 1; i < 5; i++) {
		snprintf(f, sizeof(f), "a/%s", kids[i]);
		make_v1_group(f, "9223372036854771712\n");
	}
	set_usages(kids, usage, 5);
	if (top_model_init(&m, h, "/a") < 0) {
		tap_check(false, "model over the fake tree");
		return;
	}
	m.key_budget = budget;
	top_model_sort_by(&m, top_col_lookup("usage"), false);
	tap_eq_int(top_model_refresh(&m, 1), 0, "first refresh");
	tap_eq_int((int)m.n, 6, "six rows");
	for (size_t i = 0; i < 6; i++)
		last[i] = m.refreshes;   /* new rows: all read */
	for (int r = 2; r <= 12 && m.n == 6; r++) {
		unsigned long before = m.reads;

		if (r == 5)
			put("a/c3/memory.usage_in_bytes", "123456\n");
		if (top_model_refresh(&m, (double)r) < 0)
			bound = false;
		if (m.reads - before > budget)
			budget_kept = false;
		for (size_t i = 0; i < m.n; i++) {
			if (m.rows[i].fresh_at == m.refreshes && (m.rows[i].fresh & MC_READ_USAGE))
				last[i] = m.refreshes;
			if (m.refreshes - last[i] >= turns)
				bound = false;
		}
		if (r == 5 + (int)turns - 1) {
			size_t c3 = top_model_find(&m, "c3");

			seen = c3 != (size_t)-1 && m.rows[c3].g.usage == 123456;
		}
	}
	tap_check(budget_kept, "at most %zu sort keys a refresh", budget);
	tap_check(bound, "every row's key read within %zu refreshes", turns);
	tap_check(seen, "a new usage is in the order within %zu refreshes", turns);
	order_names(&m, f, sizeof(f));
	tap_eq_str(f, "c3,c4,c2,c1,b", "the order has the new usage");
	check_read_row_moves(&m);
	top_model_release(&m);
	for (size_t i = 1; i < 5; i++) {
		snprintf(f, sizeof(f), "a/%s", kids[i]);
		rm_rel(f);
	}
	put("a/b/memory.usage_in_bytes", "122880\n");
}

/* Sets group a/rel's usage (rel "" is a itself) to mib MiB. */
static void put_usage_mib(const char *rel, unsigned mib)
{
	char f[256], v[32];

	snprintf(f, sizeof(f), "a/%s%smemory.usage_in_bytes", rel, *rel ? "/" : "");
	snprintf(v, sizeof(v), "%llu\n", (unsigned long long)mib << 20);
	put(f, v);
}

/* test_model_growth's model and clock */
struct growth {
	struct top_model m;
	int t;
	bool ok;
};

#define GROWTH_TURNS 26ul   /* rows: a, five and twenty more, one key a refresh */

/* One refresh of a screen showing the parent and its first child. */
static void growth_step(struct growth *g)
{
	if (top_model_refresh(&g->m, (double)g->t++) < 0 ||
	    top_model_fill(&g->m, 0, 2, (size_t)-1, MC_READ_USAGE) < 0)
		g->ok = false;
}

/*
 * Refreshes until the next one reads the key of row 3 by its turn, so that
 * the next few read rows 3, 4, 5...: what grows then is read by its turn
 * only if it is one of those.
 */
static void growth_align(struct growth *g)
{
	while ((g->m.refreshes + 1) % GROWTH_TURNS != 3)
		growth_step(g);
}

/* Child rel's usage and the parent's, in MiB; then two refreshes. */
static void growth_put(struct growth *g, const char *rel, unsigned kid, unsigned parent)
{
	put_usage_mib(rel, kid);
	put_usage_mib("", parent);
	growth_step(g);   /* the fill reads the parent's new usage */
	growth_step(g);   /* which the next refresh sees */
}

/* b (row 1) grows by 8 MiB off screen: read at once, then on screen, growing again. */
static void growth_off_screen(struct growth *g)
{
	char f[64];

	growth_align(g);
	growth_put(g, "b", 9, 108);
	order_names(&g->m, f, sizeof(f));
	tap_check(g->m.sweeps == 1 && strncmp(f, "b,c4,", 5) == 0,
		  "growth: a child off screen that grew is read at once (sweeps %lu, order %s)",
		  g->m.sweeps, f);
	growth_put(g, "b", 13, 112);
	for (int i = 0; i < 7; i++)
		growth_step(g);
	tap_eq_u64(g->m.sweeps, 1, "growth: a child on screen that grew: no sweep");
}

/* c3 shrinks off screen, its key read later; c1 grows by half a MiB. */
static void growth_accounted(struct growth *g)
{
	struct top_model *m = &g->m;
	char f[64];

	growth_align(g);
	growth_put(g, "c3", 0, 108);
	for (size_t k = 0; k < m->n_order; k++)
		if (strcmp(m->rows[m->order[k]].name, "c3") == 0)
			g->ok &= top_model_fill(m, k, 1, (size_t)-1, MC_READ_USAGE) == 0;
	growth_step(g);
	growth_step(g);
	tap_eq_u64(m->sweeps, 1, "growth: a key read lower than before: no sweep");
	growth_align(g);
	snprintf(f, sizeof(f), "%llu\n", (2ull << 20) + (512ull << 10));
	put("a/c1/memory.usage_in_bytes", f);
	snprintf(f, sizeof(f), "%llu\n", (108ull << 20) + (512ull << 10));
	put("a/memory.usage_in_bytes", f);
	growth_step(g);
	growth_step(g);
	tap_eq_u64(m->sweeps, 1, "growth: half a MiB waits for the turn");
}

/*
 * Two growths right after one another: the second sweep waits for the
 * gap of 8 refreshes (x00 and x10 are rows 6 and 16, the turn reads rows
 * 3 to 12 meanwhile).
 */
static void growth_gap(struct growth *g)
{
	unsigned long swept;
	char f[64];

	growth_align(g);
	growth_put(g, "x00", 20, 128);
	tap_eq_u64(g->m.sweeps, 2, "growth: x00 grew, a sweep");
	swept = g->m.refreshes;
	put_usage_mib("x10", 30);
	put_usage_mib("", 158);
	while (g->m.refreshes < swept + 7)
		growth_step(g);
	tap_eq_u64(g->m.sweeps, 2, "growth: x10 grew, 7 refreshes after the sweep: none yet");
	growth_step(g);
	order_names(&g->m, f, sizeof(f));
	tap_check(g->m.sweeps == 3 && strncmp(f, "x10,", 4) == 0,
		  "growth: the next sweep 8 refreshes after (sweeps %lu, order %s)", g->m.sweeps, f);
}

/* Makes (make true) or removes the groups of test_model_growth. */
static void growth_groups(bool make)
{
	static const char *const kids[] = { "b", "c1", "c2", "c3", "c4" };
	char f[64];

	for (int i = 1; i < 25; i++) {
		if (i < 5)
			snprintf(f, sizeof(f), "a/%s", kids[i]);
		else
			snprintf(f, sizeof(f), "a/x%02d", i - 5);
		if (make)
			make_v1_group(f, "9223372036854771712\n");
		else
			rm_rel(f);
	}
	for (int i = 0; make && i < 20; i++) {
		snprintf(f, sizeof(f), "x%02d", i);
		put_usage_mib(f, 0);
	}
	for (int i = 0; make && i < 5; i++)
		put_usage_mib(kids[i], (unsigned)i + 1);   /* b 1M ... c4 5M */
	if (make) {
		put_usage_mib("", 100);
	} else {
		put("a/b/memory.usage_in_bytes", "122880\n");
		put("a/memory.usage_in_bytes", "122880\n");
	}
}

/*
 * Sorted by usage, largest first, with the parent on screen: a child off
 * screen that grows (the parent's usage with it) is read at the refresh
 * after the parent's usage showed it, not at its turn; growth the keys
 * account for (the child on screen, a key read lower than before) reads
 * nothing more; growth under 1 MiB waits for the turn; and a parent
 * sweeps its children at most every 8 refreshes.
 */
static void test_model_growth(struct mc_host *h)
{
	struct growth g = { .t = 1, .ok = true };

	growth_groups(true);
	if (top_model_init(&g.m, h, "/a") < 0) {
		tap_check(false, "growth: model over the fake tree");
		growth_groups(false);
		return;
	}
	g.m.key_budget = 4;
	g.m.key_budget_watched = 1;
	top_model_sort_by(&g.m, top_col_lookup("usage"), false);
	for (int i = 0; i < 4; i++)
		growth_step(&g);
	tap_eq_int((int)g.m.n, (int)GROWTH_TURNS, "growth: 26 rows");
	tap_eq_u64(g.m.sweeps, 0, "growth: nothing grew, no sweep");
	growth_off_screen(&g);
	growth_accounted(&g);
	growth_gap(&g);
	tap_check(g.ok, "growth: every refresh and fill succeeded");
	top_model_release(&g.m);
	growth_groups(false);
}

/* b's memory.stat with total_rss (anon) and total_workingset_refault (refaults) */
static void put_b_stat(unsigned anon, unsigned refaults)
{
	char text[sizeof(v1_stat) + 64];

	snprintf(text, sizeof(text), "total_rss %u\ntotal_workingset_refault %u\n%s", anon, refaults,
		 strstr(v1_stat, "total_rss_huge"));
	put("a/b/memory.stat", text);
}

/* One refresh of a screen showing both rows at time t; b's anon then. */
static uint64_t lazy_step(struct top_model *m, int t)
{
	size_t b;
	uint64_t v = 0;

	if (top_model_refresh(m, (double)t) < 0 ||
	    top_model_fill(m, 0, m->n_order, (size_t)-1, MC_READ_USAGE | MC_READ_STAT) < 0 ||
	    (b = top_model_find(m, "b")) == (size_t)-1 || mc_kvs_get(&m->rows[b].g.stat, "anon", &v) < 0)
		return 0;
	return v;
}

/*
 * The screen's memory.stat (stat_lazy): a row whose usage holds reads it
 * every other refresh, its refault rate over the span between the reads;
 * a row whose usage moved, at once; without stat_lazy (batch, export),
 * every refresh.
 */
static void test_model_stat_lazy(struct mc_host *h)
{
	struct top_model m;
	size_t b;

	put_b_stat(4096, 100);
	if (top_model_init(&m, h, "/a") < 0) {
		tap_check(false, "stat_lazy: model over the fake tree");
		return;
	}
	m.stat_lazy = true;
	top_model_sort_by(&m, top_col_lookup("usage"), false);
	tap_eq_u64(lazy_step(&m, 1), 4096, "stat_lazy: first refresh reads memory.stat");
	put_b_stat(8192, 300);
	tap_eq_u64(lazy_step(&m, 2), 4096, "stat_lazy: usage held: memory.stat a refresh old");
	tap_eq_u64(lazy_step(&m, 3), 8192, "stat_lazy: and read at the next");
	b = top_model_find(&m, "b");
	tap_check(b != (size_t)-1 && m.rows[b].refault.valid && m.rows[b].refault.rate == 100.0,
		  "stat_lazy: the refault rate over the two refreshes between reads (%.1f/s)",
		  b != (size_t)-1 ? m.rows[b].refault.rate : -1.0);
	put_b_stat(12288, 300);
	put("a/b/memory.usage_in_bytes", "126976\n");
	tap_eq_u64(lazy_step(&m, 4), 12288, "stat_lazy: usage moved: memory.stat read at once");
	m.stat_lazy = false;
	put_b_stat(16384, 300);
	tap_eq_u64(lazy_step(&m, 5), 16384, "stat_lazy off: read every refresh");
	top_model_release(&m);
	put("a/b/memory.stat", v1_stat);
	put("a/b/memory.usage_in_bytes", "122880\n");
}

/* --- churn --- */

struct names {
	char **v;
	size_t n;
	size_t cap;
};

static void names_add(struct names *ns, const char *s)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 64;
		ns->v = realloc(ns->v, ns->cap * sizeof(*ns->v));
		if (!ns->v)
			abort();
	}
	ns->v[ns->n] = strdup(s);
	if (!ns->v[ns->n++])
		abort();
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The oracle: the groups below tree/rel listed afresh, preorder, children by name. */
static void oracle(const char *rel, struct names *out)
{
	struct names kids = { 0 };
	char path[512];
	struct dirent *de;
	DIR *d;

	names_add(out, rel);
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	d = opendir(path);
	if (!d)
		bail("opendir", path);
	while ((de = readdir(d))) {
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			names_add(&kids, de->d_name);
	}
	closedir(d);
	if (kids.n > 1)
		qsort(kids.v, kids.n, sizeof(*kids.v), str_cmp);
	for (size_t i = 0; i < kids.n; i++) {
		snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", kids.v[i]);
		oracle(path, out);
	}
	names_free(&kids);
}

/* The reader's entries are the oracle's, in order; and what a fresh read of each says. */
static bool same_as_oracle(struct mc_subtree *t, const char *step)
{
	struct names o = { 0 };
	bool ok;

	oracle("", &o);
	ok = o.n == mc_subtree_count(t);
	for (size_t i = 0; ok && i < o.n; i++)
		ok = strcmp(o.v[i], mc_subtree_entry(t, i)->path) == 0;
	if (!ok)
		printf("# %s: reader has %zu groups, oracle %zu\n", step, mc_subtree_count(t), o.n);
	names_free(&o);
	return ok;
}

/* A v2 group with the two files the churn test looks at. */
static void make_v2_group(const char *rel, unsigned long usage)
{
	char f[256], v[32];

	mkdir_rel(rel);
	snprintf(f, sizeof(f), "%s/memory.stat", rel);
	put(f, "anon 0\nfile 0\n");
	snprintf(f, sizeof(f), "%s/memory.current", rel);
	snprintf(v, sizeof(v), "%lu\n", usage);
	put(f, v);
}

/* Usage read for every entry: each must be the value last written under its name. */
static bool usages_match(struct mc_subtree *t, const struct names *written, const unsigned long *val)
{
	for (size_t i = 1; i < mc_subtree_count(t); i++) {
		struct mc_group_snap gs = { 0 };
		const char *p = mc_subtree_entry(t, i)->path;
		size_t j;
		int r = mc_subtree_read(t, i, MC_READ_USAGE, &gs, NULL);

		for (j = written->n; j-- > 0;)
			if (strcmp(written->v[j], p) == 0)
				break;
		if (r != 0 || !gs.usage_valid || j == (size_t)-1 || gs.usage != val[j]) {
			printf("# %s: read %d usage %llu, want %lu\n", p, r,
			       (unsigned long long)gs.usage, j == (size_t)-1 ? 0 : val[j]);
			return false;
		}
	}
	return true;
}

/*
 * Random churn, with a scan (and a check) after each step or two. It is
 * long because it is one scenario read top to bottom, its four kinds of
 * step side by side.
 */
static void churn_random(struct mc_subtree *t, struct names *written, unsigned long *val,
			 unsigned long next)
{
	unsigned seed = 12;
	bool all_ok = true, all_read = true;
	int r, changed = 0, unchanged = 0, scans = 0;

	for (int step = 0; step < 300 && written->n < 4000; step++) {
		struct names now = { 0 };
		char name[256], label[32];
		const char *g;
		int op;

		oracle("", &now);
		g = now.v[rand_r(&seed) % now.n];
		op = now.n < 4 ? 0 : (int)(rand_r(&seed) % 4);
		if (op == 0 || !*g) {
			/* mkdir below g (or below the root) */
			snprintf(name, sizeof(name), "%s%sg%lu", g, *g ? "/" : "", next);
			make_v2_group(name, next);
			names_add(written, name);
			val[written->n - 1] = next++;
		} else if (op == 1) {
			rm_rel(g);
		} else if (op == 2) {
			const char *slash = strrchr(g, '/');

			snprintf(name, sizeof(name), "%.*s%sr%lu", slash ? (int)(slash - g) : 0, g,
				 slash ? "/" : "", next++);
			rename_rel(g, name);
			/* everything below keeps its value under the new prefix */
			for (size_t i = 0, n = written->n; i < n; i++) {
				size_t gl = strlen(g);
				char moved[512];

				if (strncmp(written->v[i], g, gl) == 0 &&
				    (written->v[i][gl] == '\0' || written->v[i][gl] == '/')) {
					snprintf(moved, sizeof(moved), "%s%s", name, written->v[i] + gl);
					names_add(written, moved);
					val[written->n - 1] = val[i];
				}
			}
		} else {
			snprintf(name, sizeof(name), "%s", g);
			rm_rel(name);
			make_v2_group(name, next);
			names_add(written, name);
			val[written->n - 1] = next++;
		}
		names_free(&now);
		/* now and then two changes before one scan */
		if (rand_r(&seed) % 3 == 0)
			continue;
		r = mc_subtree_scan(t, false);
		changed += r == 1;
		scans++;
		snprintf(label, sizeof(label), "step %d", step);
		if (r < 0 || !same_as_oracle(t, label)) {
			all_ok = false;
			break;
		}
		if (!usages_match(t, written, val)) {
			all_read = false;
			break;
		}
		unchanged += mc_subtree_scan(t, false) == 0;
	}
	tap_check(all_ok, "churn: after every random step the reader lists what is there");
	tap_check(all_read, "churn: and reads each group's own files");
	/* (two steps between scans can undo each other: not every scan sees a change) */
	tap_check(changed > 100 && unchanged == scans,
		  "churn: changes reported (%d of %d scans), a scan after each reports none (%d)",
		  changed, scans, unchanged);
}

/* The churn scenario. It is long because it reads as one story, step after step. */
static void test_churn(void)
{
	struct mc_host *h;
	struct mc_subtree *t = NULL;
	struct names written = { 0 };
	unsigned long *val = calloc(4096, sizeof(*val)), next = 4096;
	int r;

	rm_rel("");
	if (mkdir(tree, 0755) < 0)
		bail("mkdir", tree);
	put("cgroup.controllers", "memory\n");
	make_v2_group("a", next);
	names_add(&written, "a");
	val[0] = next++;
	make_v2_group("a/x", next);
	names_add(&written, "a/x");
	val[1] = next++;
	h = open_fake(2);
	if (!val || mc_subtree_new(h, "/", &t) < 0) {
		printf("Bail out! cannot make a reader\n");
		exit(1);
	}
	tap_eq_int(mc_subtree_scan(t, false), 1, "churn: first scan finds groups");
	tap_eq_int(mc_subtree_scan(t, false), 0, "churn: nothing changed, nothing listed again");
	tap_check(same_as_oracle(t, "start"), "churn: start as listed afresh");

	/* one removal and one creation under the same parent: same link count */
	rm_rel("a/x");
	make_v2_group("a/y", next);
	names_add(&written, "a/y");
	val[written.n - 1] = next++;
	tap_eq_int(mc_subtree_scan(t, false), 1, "churn: rmdir + mkdir (same count) seen");
	tap_check(same_as_oracle(t, "swap") && usages_match(t, &written, val),
		  "churn: the new group is there, the old one gone");
	/* a rename keeps the count and the inode */
	rename_rel("a/y", "a/z");
	names_add(&written, "a/z");
	val[written.n - 1] = val[written.n - 2];
	tap_eq_int(mc_subtree_scan(t, false), 1, "churn: rename seen");
	tap_check(same_as_oracle(t, "rename"), "churn: renamed group under its new name");
	/* removed and made again under the same name, with another value */
	rm_rel("a/z");
	make_v2_group("a/z", next);
	names_add(&written, "a/z");
	val[written.n - 1] = next++;
	r = mc_subtree_scan(t, false);
	tap_check(r >= 0 && same_as_oracle(t, "replace") && usages_match(t, &written, val),
		  "churn: a replaced group is read through new descriptors");

	churn_random(t, &written, val, next);
	/* the snapshot (another reader of the same host) agrees */
	{
		struct mc_snapshot s;
		struct names o = { 0 };
		bool ok;

		oracle("", &o);
		ok = mc_host_snapshot(h, "/", &s) == 0 && s.n == o.n;
		for (size_t i = 0; ok && i < o.n; i++)
			ok = strcmp(s.groups[i].path, o.v[i]) == 0 && s.groups[i].present;
		tap_check(ok, "churn: a snapshot sees the same %zu groups", o.n);
		if (ok)
			mc_snapshot_free(&s);
		names_free(&o);
	}
	mc_subtree_free(t);
	mc_host_free(h);
	names_free(&written);
	free(val);
}

/* The entry of the group at path (relative to the reader's parent); -1 when none. */
static size_t entry_of(struct mc_subtree *t, const char *path)
{
	for (size_t i = 0; i < mc_subtree_count(t); i++)
		if (strcmp(mc_subtree_entry(t, i)->path, path) == 0)
			return i;
	return (size_t)-1;
}

static void put_v2_procs(const char *rel, const char *procs, int populated)
{
	char f[256], v[64];

	snprintf(f, sizeof(f), "%s/cgroup.procs", rel);
	put(f, procs);
	snprintf(f, sizeof(f), "%s/cgroup.events", rel);
	snprintf(v, sizeof(v), "populated %d\nfrozen 0\n", populated);
	put(f, v);
}

/*
 * v2: a group whose read lists nobody is not read again while its
 * cgroup.events says populated 0 and nothing notified a change; a group
 * with a process only below it (populated 1) is read, its cgroup.events not.
 * It is long because it reads as one story: each step starts from the
 * watches and kept values the step before left.
 */
static void test_empty_tasks_v2(void)
{
	struct mc_subtree *t = NULL;
	struct mc_host *h;
	size_t reads, a, b, c, d;

	rm_rel("");
	if (mkdir(tree, 0755) < 0)
		bail("mkdir", tree);
	put("cgroup.controllers", "memory\n");
	make_v2_group("a", 4096);
	make_v2_group("a/b", 4096);
	make_v2_group("a/b/c", 4096);
	make_v2_group("a/d", 4096);
	put_v2_procs("a", "17\n", 1);
	put_v2_procs("a/b", "", 1);
	put_v2_procs("a/b/c", "18\n19\n", 1);
	put_v2_procs("a/d", "", 0);
	h = open_fake(2);
	if (mc_subtree_new(h, "/a", &t) < 0 || mc_subtree_scan(t, false) < 0) {
		tap_check(false, "v2 tasks: a reader of /a");
		mc_subtree_free(t);
		mc_host_free(h);
		return;
	}
	a = entry_of(t, "");
	b = entry_of(t, "b");
	c = entry_of(t, "b/c");
	d = entry_of(t, "d");
	tap_check(a == 0 && b != (size_t)-1 && c != (size_t)-1 && d != (size_t)-1,
		  "v2 tasks: the four groups listed");
	if (d == (size_t)-1 || b == (size_t)-1 || c == (size_t)-1)
		goto out;
	tap_eq_u64(tasks_of(t, a, &reads), 1, "v2 tasks: a counts its process");
	tap_eq_u64(reads, 1, "v2 tasks: a group with a process: cgroup.procs alone");
	tap_eq_u64(tasks_of(t, c, &reads), 2, "v2 tasks: c counts two");
	tap_eq_u64(tasks_of(t, d, &reads), 0, "v2 tasks: d none");
	tap_eq_u64(reads, 2, "v2 tasks: d's cgroup.procs and cgroup.events read");
	tap_eq_u64(tasks_of(t, b, &reads), 0, "v2 tasks: b none of its own");
	tap_eq_u64(reads, 2, "v2 tasks: b's cgroup.procs and cgroup.events read");
	mc_subtree_scan(t, false);
	tap_eq_u64(tasks_of(t, a, &reads), 1, "v2 tasks: a again");
	tap_eq_u64(tasks_of(t, d, &reads), 0, "v2 tasks: d still none");
	tap_eq_u64(reads, 0, "v2 tasks: an unpopulated group is not read again");
	tap_eq_u64(tasks_of(t, b, &reads), 0, "v2 tasks: b still none");
	tap_eq_u64(reads, 1, "v2 tasks: a populated group's cgroup.procs, not its cgroup.events");

	/* a process came in (any way: the kernel notifies the populated change) */
	put_v2_procs("a/d", "42\n", 1);
	tasks_of(t, a, &reads);
	tap_eq_u64(tasks_of(t, d, &reads), 1, "v2 tasks: d's new process counted at the next pass");
	tap_eq_u64(reads, 1, "v2 tasks: by reading cgroup.procs");
	put_v2_procs("a/d", "", 0);
	mc_subtree_scan(t, false);
	tap_eq_u64(tasks_of(t, d, &reads), 0, "v2 tasks: d empty again");
	tap_eq_u64(reads, 2, "v2 tasks: cgroup.events read again after its event");
	tap_eq_u64(tasks_of(t, d, &reads), 0, "v2 tasks: and kept");
	tap_eq_u64(reads, 0, "v2 tasks: without a read");
	/* c's processes gone: b's populated changes, b's cgroup.events is read again */
	put_v2_procs("a/b/c", "", 0);
	put_v2_procs("a/b", "", 0);
	tasks_of(t, a, &reads);
	tap_eq_u64(tasks_of(t, b, &reads), 0, "v2 tasks: b, nothing below it now");
	tap_eq_u64(reads, 2, "v2 tasks: b's cgroup.events read after its event");
	tap_eq_u64(tasks_of(t, b, &reads), 0, "v2 tasks: b kept");
	tap_eq_u64(reads, 0, "v2 tasks: b without a read");
	/* a cgroup.events that says neither: read every time, never skipped */
	put("a/d/cgroup.events", "populated 2\nfrozen 0\n");
	tasks_of(t, a, &reads);
	tap_eq_u64(tasks_of(t, d, &reads), 0, "v2 tasks: d with a bad cgroup.events");
	tap_eq_u64(tasks_of(t, d, &reads), 0, "v2 tasks: d again");
	tap_eq_u64(reads, 2, "v2 tasks: a bad cgroup.events skips nothing");
	put("a/d/cgroup.events", "frozen 0\npopulated 0");
	tasks_of(t, a, &reads);
	tasks_of(t, d, &reads);
	tap_eq_u64(tasks_of(t, d, &reads), 0, "v2 tasks: populated last, no newline");
	tap_eq_u64(reads, 0, "v2 tasks: still understood");
out:
	mc_subtree_free(t);
	mc_host_free(h);
}

int main(void)
{
	struct mc_host *h;

	unsetenv("MEMCTL_FAKE_SELF");
	if (!mkdtemp(top))
		bail("mkdtemp", top);
	snprintf(tree, sizeof(tree), "%s/tree", top);
	if (mkdir(tree, 0755) < 0)
		bail("mkdir", tree);
	make_v1_group("", "9223372036854771712\n");
	make_v1_group("a", "1073741824\n");
	make_v1_group("a/b", "536870912\n");
	h = open_fake(1);
	test_v1_names(h);
	test_limit(h);
	test_bad_values(h);
	test_keep_knobs(h);
	test_empty_tasks(h);
	test_nprocs(h);
	test_root_replaced(h);
	test_model_parts(h);
	test_model_order(h);
	test_model_turns(h);
	test_model_growth(h);
	test_model_stat_lazy(h);
	mc_host_free(h);
	test_churn();
	test_empty_tasks_v2();
	nftw(top, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
