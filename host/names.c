/*
 * What the subtree reader calls things (see names.h for the contract): the
 * file each slot of a group is read from on this host, and the name each
 * key of memory.stat, numa_stat and the events is stored under.
 *
 * Every consumer (policies, columns, the exporter, the store) asks for
 * v2's key names only, so v1's are renamed here, once, for every host. The
 * tables are the whole of that knowledge; nothing else in memctl spells a
 * v1 key.
 *
 * Cost matters here too: each key of each file of each group passes
 * through a lookup at every snapshot. A file's keys come in the same order
 * at every read, so the cache (struct host_keys) compares each key with
 * the one read at its place last time and looks it up only when it
 * differs; known v2 names are stored without a copy.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "host-internal.h"
#include "names.h"

/* --- the files of the slots --- */

int mc_host_bad_files(const struct mc_host *h, uint32_t bad, char **ret)
{
	size_t len = 0;
	char *out;

	for (int f = 0; f < HOST_FILE__COUNT; f++)
		if (bad & (1u << f) && host_slot_file(h, f))
			len += strlen(host_slot_file(h, f)) + 2;
	out = malloc(len + 1);
	if (!out)
		return -ENOMEM;
	out[0] = '\0';
	for (int f = 0; f < HOST_FILE__COUNT; f++) {
		if (!(bad & (1u << f)) || !host_slot_file(h, f))
			continue;
		if (out[0])
			strcat(out, ", ");
		strcat(out, host_slot_file(h, f));
	}
	*ret = out;
	return 0;
}

/* The files a group's slots are read from: knob slots use caps->file[], then these. */
static const struct {
	const char *v1;
	const char *v2;
} other_files[HOST_FILE__COUNT] = {
	[HOST_FILE_USAGE] = { "memory.usage_in_bytes", "memory.current" },
	[HOST_FILE_STAT] = { "memory.stat", "memory.stat" },
	[HOST_FILE_NUMA] = { "memory.numa_stat", "memory.numa_stat" },
	[HOST_FILE_EVENTS] = { NULL, "memory.events" },
	[HOST_FILE_FAILCNT] = { "memory.failcnt", NULL },
	[HOST_FILE_OOM] = { "memory.oom_control", NULL },
	[HOST_FILE_PRESSURE] = { "memory.pressure", "memory.pressure" },
	[HOST_FILE_SUBTREE] = { NULL, "cgroup.subtree_control" },
	[HOST_FILE_PROCS] = { "cgroup.procs", "cgroup.procs" },
};

const char *host_slot_file(const struct mc_host *h, int f)
{
	if (f < MC_KNOB__COUNT)
		return h->caps.file[f];
	if (f == HOST_FILE_NUMA && !h->st.numa_stat)
		return NULL;
	if (f == HOST_FILE_PRESSURE && !h->st.psi)
		return NULL;
	return h->caps.ver == MC_CGV1 ? other_files[f].v1 : other_files[f].v2;
}

_Static_assert(HOST_FILE__COUNT <= 32, "mc_group_snap.bad has a bit per file");
_Static_assert(MC_BAD_USAGE == 1u << HOST_FILE_USAGE, "host.h numbers the usage bit");

/* --- the keys --- */

/*
 * v1 memory.stat keys under their v2 names. v2's memory.stat counts the
 * whole subtree, as v1's total_* keys do; v1's group-local keys have no v2
 * counterpart and are dropped, as are total_* keys v2 has no name for.
 * Before Linux 5.9 only file pages had refault tracking, under the names
 * workingset_refault / _activate / _restore (v2 too).
 */
struct rename {
	const char *from;
	const char *to;
};

static const struct rename stat_v1[] = {
	{ "total_cache", "file" },
	{ "total_rss", "anon" },
	{ "total_rss_huge", "anon_thp" },
	{ "total_shmem", "shmem" },
	{ "total_mapped_file", "file_mapped" },
	{ "total_dirty", "file_dirty" },
	{ "total_writeback", "file_writeback" },
	{ "total_swapcached", "swapcached" },
	{ "total_pgfault", "pgfault" },
	{ "total_pgmajfault", "pgmajfault" },
	{ "total_inactive_anon", "inactive_anon" },
	{ "total_active_anon", "active_anon" },
	{ "total_inactive_file", "inactive_file" },
	{ "total_active_file", "active_file" },
	{ "total_unevictable", "unevictable" },
	{ "total_workingset_refault_anon", "workingset_refault_anon" },
	{ "total_workingset_refault_file", "workingset_refault_file" },
	{ "total_workingset_refault", "workingset_refault_file" },
	{ "total_workingset_activate_anon", "workingset_activate_anon" },
	{ "total_workingset_activate_file", "workingset_activate_file" },
	{ "total_workingset_activate", "workingset_activate_file" },
	{ "total_workingset_restore_anon", "workingset_restore_anon" },
	{ "total_workingset_restore_file", "workingset_restore_file" },
	{ "total_workingset_restore", "workingset_restore_file" },
	{ "total_workingset_nodereclaim", "workingset_nodereclaim" },
	{ NULL, NULL },
}, stat_v2_old[] = {
	{ "workingset_refault", "workingset_refault_file" },
	{ "workingset_activate", "workingset_activate_file" },
	{ "workingset_restore", "workingset_restore_file" },
	{ NULL, NULL },
}, numa_v1[] = {
	{ "hierarchical_anon", "anon" },
	{ "hierarchical_file", "file" },
	{ "hierarchical_unevictable", "unevictable" },
	{ NULL, NULL },
}, oom_v1[] = {
	{ "oom_kill", "oom_kill" },
	{ NULL, NULL },
};

/*
 * Names v2 kernels print in memory.stat, numa_stat and memory.events,
 * sorted: stored without a copy. Another name is copied.
 */
static const char *const v2_names[] = {
	"active_anon", "active_file", "anon", "anon_thp", "file", "file_dirty", "file_mapped",
	"file_thp", "file_writeback", "high", "hugetlb", "inactive_anon", "inactive_file",
	"kernel", "kernel_stack", "low", "max", "oom", "oom_group_kill", "oom_kill", "pagetables",
	"percpu", "pgactivate", "pgdeactivate", "pgfault", "pglazyfree", "pglazyfreed",
	"pgmajfault", "pgrefill", "pgscan", "pgscan_direct", "pgscan_khugepaged",
	"pgscan_kswapd", "pgsteal", "pgsteal_direct", "pgsteal_khugepaged", "pgsteal_kswapd",
	"sec_pagetables", "shmem", "shmem_thp", "slab", "slab_reclaimable",
	"slab_unreclaimable", "sock", "swapcached", "thp_collapse_alloc",
	"thp_fault_alloc", "thp_fault_fallback_charge", "thp_swpout", "thp_swpout_fallback",
	"unevictable", "vmalloc", "workingset_activate_anon", "workingset_activate_file",
	"workingset_nodereclaim", "workingset_refault_anon", "workingset_refault_file",
	"workingset_restore_anon", "workingset_restore_file", "zswap", "zswapped", "zswpin",
	"zswpout",
};

static bool key_is(const char *name, const char *key, size_t len)
{
	return strncmp(name, key, len) == 0 && name[len] == '\0';
}

static const char *rename_find(const struct rename *t, const char *key, size_t len)
{
	for (; t->from; t++)
		if (key_is(t->from, key, len))
			return t->to;
	return NULL;
}

/* v2_names' own string for key; else NULL and *copy (an unknown name is kept, copied). */
static const char *v2_name(const char *key, size_t len, bool *copy)
{
	size_t lo = 0, hi = sizeof(v2_names) / sizeof(v2_names[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strncmp(v2_names[mid], key, len);

		if (d == 0 && v2_names[mid][len] == '\0')
			return v2_names[mid];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;   /* greater, or key is a prefix of it */
	}
	*copy = true;
	return NULL;
}

/* The name one key of a file is stored under (see struct mc_key_map). */
static const char *key_lookup(enum host_key_file kf, bool v1, const char *key, size_t len, bool *copy)
{
	const char *to;

	switch (kf) {
	case HOST_KEYS_STAT:
		if (v1)
			return rename_find(stat_v1, key, len);
		to = rename_find(stat_v2_old, key, len);
		return to ? to : v2_name(key, len, copy);
	case HOST_KEYS_NUMA:
		return v1 ? rename_find(numa_v1, key, len) : v2_name(key, len, copy);
	case HOST_KEYS_EVENTS:
		return v1 ? rename_find(oom_v1, key, len) : v2_name(key, len, copy);
	case HOST_KEYS__COUNT:
		break;
	}
	*copy = true;
	return NULL;
}

/*
 * A file's keys come in the same order at every read, so each key is
 * looked up once: the cache remembers the names of the last read in order
 * and a read compares each key with the one at its place.
 */
static const char *key_cached(void *arg, const char *key, size_t len, bool *copy)
{
	struct host_keys *c = arg;
	struct host_key_slot *k = c->pos < c->n ? &c->v[c->pos] : NULL;
	const char *to;

	if (k && k->len == len && memcmp(k->key, key, len) == 0) {
		c->pos++;
		*copy = k->copy;
		return k->to;
	}
	to = key_lookup(c->kf, c->v1, key, len, copy);
	if (len >= sizeof(k->key))
		return to;   /* longer than any kernel key: not kept */
	if (!k) {
		if (mc_array_reserve(&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0)
			return to;   /* not kept: looked up again next time */
		k = &c->v[c->n++];
	}
	memcpy(k->key, key, len);
	k->len = (unsigned char)len;
	k->to = to;
	k->copy = *copy;
	c->pos++;
	return to;
}

struct mc_key_map host_keys_map(struct host_keys *c, enum host_key_file kf, bool v1)
{
	c->kf = kf;
	c->v1 = v1;
	c->pos = 0;
	return (struct mc_key_map){ .name = key_cached, .arg = c };
}

void host_keys_release(struct host_keys *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}
