#ifndef MEMCTL_SNAPSHOT_H
#define MEMCTL_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knob.h"
#include "size.h"

/*
 * A snapshot: what the host layer read from the live tree at one moment.
 * Pure data; the engine plans from it and the front ends show it.
 */

struct mc_kv {
	char *key;
	uint64_t val;
	bool borrowed;   /* key is not the kvs's: a string that outlives it (a parser's key map) */
};

struct mc_kvs {
	struct mc_kv *v;
	size_t n;
	size_t cap;
};

struct mc_psi {
	bool valid;
	double some_avg10, some_avg60, some_avg300;
	uint64_t some_total;
	double full_avg10, full_avg60, full_avg300;
	uint64_t full_total;
};

struct mc_group_snap {
	char *path;          /* relative to the snapshot's parent; "" is the parent */
	bool present;        /* false: the group vanished while being read */
	/* v2: cgroup.subtree_control does not enable memory, so children get no knobs */
	bool no_memory_children;
	/* Raw file values per knob (v1 swap: memory+swap), MC_SIZE_MAX = no limit. */
	uint64_t raw[MC_KNOB__COUNT];
	bool raw_valid[MC_KNOB__COUNT];
	uint64_t usage;
	bool usage_valid;
	struct mc_kvs stat;      /* memory.stat */
	struct mc_kvs events;    /* memory.events (v2) or failcnt/oom_control (v1) */
	struct mc_kvs *numa;     /* per node: numa_stat lines "N0=..." by field */
	size_t n_numa;
	struct mc_psi psi;
	/*
	 * Files that were there but did not parse, one bit per file of the host
	 * layer (mc_host_bad_files names them): their parts are invalid, never
	 * zero.
	 */
	uint32_t bad;
};

struct mc_snapshot {
	char *parent;            /* absolute cgroup path of the parent, "/..." */
	uint64_t parent_limit;   /* the parent's effective limit (mc_host_effective_limit) */
	/* vm.max_reclaimers_per_node of memctl's kernel patch; -1: no such sysctl */
	long kernel_per_node;
	/* the fewest online CPUs of a NUMA node (reclaim.kernel_per_node: auto) */
	long cpus_per_node;
	/* groups read with their files opened and closed again, past the budget
	 * of kept-open descriptors (fd_budget: half the soft RLIMIT_NOFILE) */
	size_t uncached;
	size_t fd_budget;
	struct mc_group_snap *groups;  /* [0] is the parent itself, then preorder */
	size_t n;
	/* what the front ends must say: one line per group with files that did not parse */
	char **notes;
	size_t n_notes, cap_notes;
};

/* Finds a group by path relative to the parent; NULL when absent. */
const struct mc_group_snap *mc_snapshot_find(const struct mc_snapshot *s, const char *path);

/* Appends key=val; key copied. Returns 0 or -ENOMEM. */
int mc_kvs_add(struct mc_kvs *kv, const char *key, size_t keylen, uint64_t val);
/* Appends key=val; key not copied: it must outlive kv (a string constant). 0 or -ENOMEM. */
int mc_kvs_add_borrowed(struct mc_kvs *kv, const char *key, uint64_t val);
/* Makes room for n entries in all (so that n appends do not reallocate). 0 or -ENOMEM. */
int mc_kvs_reserve(struct mc_kvs *kv, size_t n);
/* Returns 0 and the value, or -ENOENT. */
int mc_kvs_get(const struct mc_kvs *kv, const char *key, uint64_t *ret);
void mc_kvs_free(struct mc_kvs *kv);

/*
 * Parsers of the kernel's text files (pure: they take the bytes read).
 * "key value\n" lines (memory.stat, memory.events): appends to *ret.
 * Returns 0, -EINVAL on a malformed line, -ENOMEM.
 */
int mc_parse_flat_keyed(const char *buf, size_t len, struct mc_kvs *ret);

/*
 * A key map for the parsers: name() gets each line's key (key[0..len), not
 * NUL-terminated) and returns the name to store it under, a string that
 * outlives every kvs it goes into (stored without a copy); or sets
 * *ret_copy (store a copy of the key); or returns NULL (leave the line
 * out). The host layer renames v1's keys through it, and stores known names
 * without allocating.
 */
struct mc_key_map {
	const char *(*name)(void *arg, const char *key, size_t len, bool *ret_copy);
	void *arg;
};
/* mc_parse_flat_keyed with the keys passed through map (NULL: all copied). */
int mc_parse_flat_keyed_map(const char *buf, size_t len, const struct mc_key_map *map,
			    struct mc_kvs *ret);
/*
 * PSI text ("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull ...").
 */
int mc_parse_psi(const char *buf, size_t len, struct mc_psi *ret);
/*
 * numa_stat: v1 "total=N N0=N N1=N" and v2 "anon N0=N N1=N" lines. Fills one
 * mc_kvs per node (keys are the line's field names), *ret_n nodes. v1 values
 * are pages; they are multiplied by page_size so every value is bytes.
 */
int mc_parse_numa_stat(const char *buf, size_t len, uint64_t page_size, bool v1,
		       struct mc_kvs **ret, size_t *ret_n);
/* mc_parse_numa_stat with the field names passed through map (NULL: all copied). */
int mc_parse_numa_stat_map(const char *buf, size_t len, uint64_t page_size, bool v1,
			   const struct mc_key_map *map, struct mc_kvs **ret, size_t *ret_n);
/*
 * A single knob value as the kernel prints it: "max", a decimal, or on v1
 * the page-counter maximum (>= 0x7ffffffffffff000) which also means no limit.
 * "-1" (v1's way of writing "no limit", kept verbatim by a fake v1 tree) is
 * MC_SIZE_MAX too. Surrounding blanks and newlines are ignored. Returns 0 or
 * -EINVAL.
 */
int mc_parse_knob_value(const char *buf, size_t len, uint64_t *ret);

void mc_group_snap_free(struct mc_group_snap *g);
void mc_snapshot_free(struct mc_snapshot *s);

#endif
