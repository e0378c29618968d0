#ifndef MEMCTL_KNOB_H
#define MEMCTL_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The memory knobs memctl manages, described once. An abstract knob (what
 * profiles and `memctl get/set` speak of) maps to one file per kind of host.
 * A NULL file name means the host kind has no such file: the plan and
 * `memctl status` say so instead of dropping the setting.
 *
 * On cgroup v1, swap is limited through memory.memsw.limit_in_bytes, which
 * bounds memory + swap together. The raw file value is therefore
 * max + swap_max there; the planner converts (see plan.c).
 */
enum mc_knob {
	MC_KNOB_MAX = 0,
	MC_KNOB_HIGH,
	MC_KNOB_LOW,
	MC_KNOB_MIN,
	MC_KNOB_SOFT,
	MC_KNOB_SWAP,
	MC_KNOB_PROTECT_ACTIVE,  /* a 0/1 switch of memctl's kernel patch, not a size */
	MC_KNOB__COUNT
};

enum mc_cgver {
	MC_CGV1 = 1,
	MC_CGV2 = 2,
};

struct mc_knob_info {
	const char *name;         /* profile key and get/set name: "max" */
	const char *v1_file;      /* "memory.limit_in_bytes", or NULL */
	const char *v2_file;      /* "memory.max", or NULL */
	const char *patched_file; /* v2 file added by memctl's kernel patch, or NULL */
	const char *help;
	bool flag;                /* a 0/1 switch: no percentages, no page alignment */
};

/* Returns the table entry for k (k must be < MC_KNOB__COUNT). */
const struct mc_knob_info *mc_knob_info(enum mc_knob k);

/*
 * Looks a knob up by abstract name ("max", "soft_limit") or by any of its
 * file names ("memory.high", "memory.limit_in_bytes"). Returns 0, or -ENOENT.
 */
int mc_knob_lookup(const char *name, enum mc_knob *ret);

/*
 * The systemd unit property that sets k on a unit's cgroup (cgroup v2
 * semantics): "MemoryMax", "MemoryHigh", "MemoryLow", "MemoryMin",
 * "MemorySwapMax"; NULL for the knobs systemd has no property for
 * (soft_limit, reclaim_protect_active).
 */
const char *mc_knob_unit_property(enum mc_knob k);

/* The knob name closest to an unknown one (edit distance), for "did you mean". */
const char *mc_knob_suggest(const char *name);

/*
 * The candidate closest to name by edit distance, or NULL when none is close
 * enough to be a plausible typo. For "unknown key 'hihg', did you mean 'high'".
 */
const char *mc_suggest(const char *name, const char *const *candidates, size_t n);

#endif
