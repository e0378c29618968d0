#ifndef MEMCTL_PROFILE_H
#define MEMCTL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "knob.h"
#include "size.h"

/*
 * A profile, version 1: the operator's intent. See man/memctl-profile.5 for
 * the format. The model keeps the position of every value so that errors
 * found later (against the live host) can still point into the file.
 */

#define MC_PROFILE_MAX_DEPTH 32       /* nesting of groups */
#define MC_PROFILE_MAX_BYTES (1024 * 1024)  /* a larger file is a mistake or an attack */
#define MC_GROUP_NAME_MAX 255
/*
 * The longest cgroup path of a group (its parent's path, then "/" and a
 * name per level): PATH_MAX less room for the mount point and a knob's file
 * name, so that every file path memctl opens, names or journals fits.
 */
#define MC_GROUP_PATH_MAX 3584

enum mc_protect {
	MC_PROTECT_UNSET = 0,
	MC_PROTECT_NONE,
	MC_PROTECT_ACTIVE,
	MC_PROTECT_SIZE,
};

enum mc_numa_mode {
	MC_NUMA_WEIGHTED = 0,  /* default */
	MC_NUMA_ROUND_ROBIN,
	MC_NUMA_OFF,
};

struct mc_pos {
	int line; /* 1-based, 0 = not from a file */
	int col;
};

struct mc_group_spec {
	char *name;                   /* one path component */
	struct mc_pos pos;            /* of the name */
	struct mc_size knob[MC_KNOB__COUNT];   /* kind UNSET = leave alone */
	struct mc_pos knob_pos[MC_KNOB__COUNT];
	enum mc_protect protect;
	struct mc_size protect_size;  /* MC_PROTECT_SIZE */
	struct mc_pos protect_pos;
	int thp;                      /* -1 unset, 0 false, 1 true */
	struct mc_pos thp_pos;
	struct mc_group_spec *children;
	size_t n_children;
};

struct mc_profile {
	char *file;                 /* as given, for messages */
	int version;                /* 1 */
	char *parent;               /* "/", "/abs/path" or "self" */
	struct mc_pos parent_pos;
	uint64_t interval_ms;       /* default 5000 */
	unsigned concurrency;       /* reclaim.concurrency, default 1 */
	bool has_kernel_per_node;   /* reclaim.kernel_per_node given (else leave the sysctl) */
	unsigned kernel_per_node;   /* the patched kernel's cap on direct reclaimers per
	                               node, 0 = no cap */
	bool kernel_per_node_auto;  /* "auto": the fewest CPUs of a node, found at plan time */
	enum mc_numa_mode numa;
	struct mc_group_spec *groups;
	size_t n_groups;
	/*
	 * units: systemd units as targets (name: the unit's name; no children,
	 * sizes in bytes only). Their settings reach the host through systemd.
	 */
	struct mc_group_spec *units;
	size_t n_units;
};

/*
 * Parses and validates a whole profile held in memory (buf, len bytes; it
 * need not be NUL-terminated). file is used only in messages. Every problem
 * found is appended to diags; the parse goes on after an error where it can,
 * so one run reports as many as possible. Returns 0 and fills *ret when the
 * profile is valid; returns -EINVAL (diags non-empty) or -ENOMEM otherwise,
 * and *ret is not written.
 */
int mc_profile_parse(const char *file, const char *buf, size_t len,
		     struct mc_profile *ret, struct mc_diags *diags);

void mc_profile_free(struct mc_profile *p);

/*
 * Checks a group name: not empty, not "." or "..", no '/', no control
 * characters, at most MC_GROUP_NAME_MAX bytes. Returns 0 or -EINVAL with a
 * static reason in *ret_why.
 */
int mc_group_name_check(const char *name, const char **ret_why);

/*
 * Checks that every group's cgroup path, parent_len bytes of the parent's
 * path (0 when not known yet) followed by "/NAME" per level, has at most
 * MC_GROUP_PATH_MAX bytes. Appends an error at each group too long (its
 * children are not looked at) to diags; returns how many, or -ENOMEM.
 */
int mc_profile_check_paths(const struct mc_profile *p, size_t parent_len, struct mc_diags *diags);

/*
 * Ordering checks that can be made without the host:
 * min <= low <= high <= max and soft_limit <= max, where both sides are
 * absolute or both are percentages; a child's max above its parent's.
 * Used by mc_profile_parse and by the planner after resolving percentages.
 * Appends to diags; returns the number of problems found.
 */
int mc_group_check_order(const char *file, const char *path,
			 const struct mc_group_spec *g, const uint64_t resolved[MC_KNOB__COUNT],
			 struct mc_diags *diags);

#endif
