#ifndef MEMCTL_PLAN_H
#define MEMCTL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "diag.h"
#include "knob.h"
#include "policy.h"
#include "profile.h"
#include "snapshot.h"

/*
 * A plan: the ordered list of changes that takes the live tree to the
 * profile, each with the reason for it. The host layer executes it
 * step by step inside a transaction; nothing else decides what to write.
 */

enum mc_step_kind {
	MC_STEP_MKDIR,   /* create group */
	MC_STEP_WRITE,   /* write a knob file */
	MC_STEP_NOTE,    /* a setting this host cannot carry out: shown, not executed */
	MC_STEP_RECLAIM, /* reclaim bytes from a group (a policy decision; not journaled) */
	MC_STEP_ENABLE,  /* v2: enable the memory controller for a new group's children */
	MC_STEP_SYSCTL,  /* vm.max_reclaimers_per_node (old_raw -> new_raw); group is "" */
	MC_STEP_UNIT,    /* a systemd unit's property (file: "MemoryMax"), through systemd;
	                    group is the unit's name */
	MC_STEP_UNIT_FILE, /* a knob file systemd does not manage (soft_limit,
	                      reclaim_protect_active) in a unit's cgroup (cgroup); group is
	                      the unit's name */
	MC_STEP_RMDIR,   /* remove an empty group (rm, apply --prune); saved: what undo recreates */
};


struct mc_step {
	enum mc_step_kind kind;
	char *group;          /* relative to the plan's parent ("web/cache") */
	enum mc_knob knob;    /* WRITE, NOTE */
	const char *file;     /* WRITE: file name on this host (static, from caps) */
	uint64_t old_raw;     /* WRITE: value before; MC_SIZE_MAX = no limit */
	bool old_valid;       /* false when the group is new */
	uint64_t new_raw;     /* WRITE: value to write */
	uint64_t want;        /* WRITE, NOTE: the abstract value asked for */
	uint64_t bytes;       /* RECLAIM: how much */
	uint64_t *node_bytes; /* RECLAIM: per NUMA node, or NULL */
	size_t n_nodes;
	/* WRITE, RECLAIM: the policy that decided it (static MC_POLICY_* name), or
	 * "profile" for the profile's own values */
	const char *policy;
	char *reason;
	/* The unit (shift: 0 bytes, 10 K, 20 M, 30 G, 40 T) the reason writes its
	 * sizes in, which divides old_raw, new_raw (or bytes): a line showing them
	 * beside the reason writes them in it, so the line has one unit.
	 * !unit_valid (a step read back from a journal): none was chosen. */
	unsigned unit;
	bool unit_valid;
	char *cgroup;         /* RECLAIM, UNIT_FILE of a unit: its absolute cgroup path
	                         (group: its name) */
	/* RMDIR: the group's knob values (bit k of saved_mask: saved_raw[k] was read),
	 * put back when the removal is undone, and whether memctl had created it */
	uint64_t saved_raw[MC_KNOB__COUNT];
	uint32_t saved_mask;
	bool created;
};

/* Whether a step changes the host (and is journaled): all but NOTE and RECLAIM. */
static inline bool mc_step_changes(const struct mc_step *s)
{
	return s->kind == MC_STEP_MKDIR || s->kind == MC_STEP_ENABLE || s->kind == MC_STEP_WRITE ||
	       s->kind == MC_STEP_SYSCTL || s->kind == MC_STEP_UNIT || s->kind == MC_STEP_UNIT_FILE ||
	       s->kind == MC_STEP_RMDIR;
}

struct mc_plan {
	char *parent;         /* absolute cgroup path */
	struct mc_step *steps;
	size_t n;
	size_t cap;
};

/* Options that change what a plan may do. */
struct mc_plan_opts {
	bool create;          /* may create missing groups (apply: yes; set: no) */
	/*
	 * Policy decisions for this interval (may be NULL): their settings
	 * take the place of the profile's value for that group and knob, and
	 * their reclaims are appended as RECLAIM steps after the writes.
	 */
	const struct mc_decisions *decisions;
};

/*
 * Builds the plan that takes snapshot s to profile p on a host with caps.
 * The snapshot must be of p's parent (s->parent). Values are resolved
 * (percentages against the parent's effective limit) and aligned down to the
 * page size, because the kernel stores limits in pages and reading back must
 * give what was written. Knobs equal to the live value produce no step, so
 * planning right after applying gives an empty plan.
 *
 * Writes are ordered so that every intermediate state satisfies, for each
 * group, min <= low <= high <= max, soft_limit <= max, v1's
 * limit <= memsw.limit, and a child's max <= its parent's: increases are
 * made from the top of each chain, decreases from the bottom, parents are
 * created before children.
 *
 * Problems that make the profile impossible on this host (a percentage of
 * an unlimited parent, a child max above the live parent's effective limit,
 * an order violated after resolution) are appended to diags and -EINVAL is
 * returned. Returns 0, -EINVAL or -ENOMEM; *ret is not written on failure.
 */
int mc_plan_build(const struct mc_profile *p, const struct mc_snapshot *s,
		  const struct mc_caps *caps, const struct mc_plan_opts *o,
		  struct mc_plan *ret, struct mc_diags *diags);

/* Number of steps that change the host (mc_step_changes: MKDIR, ENABLE, WRITE, SYSCTL). */
size_t mc_plan_n_changes(const struct mc_plan *plan);

/*
 * Replays plan's steps on the state in snapshot s (as the kernel would see
 * it) and checks the ordering invariant after every step. Returns the number
 * of steps after which the state violated more constraints than before the
 * plan started; *ret_first_bad (may be NULL) gets the first such step index.
 * Exposed so tests can prove a plan's intermediate states are all valid.
 */
int mc_plan_replay_check(const struct mc_plan *plan, const struct mc_snapshot *s,
			 const struct mc_caps *caps, size_t *ret_first_bad);

/*
 * A systemd unit the profile names, as the host found it: the value of
 * each property of mc_knob_unit_property that systemd has (prop_known:
 * false when this systemd has no such property), in bytes, MC_SIZE_MAX for
 * systemd's "infinity".
 */
struct mc_unit_state {
	const char *name;
	uint64_t prop[MC_KNOB__COUNT];
	bool prop_known[MC_KNOB__COUNT];
	const char *cgroup;             /* its absolute cgroup path; NULL: none now */
	/* the files of knobs without a unit property in that cgroup, as read */
	uint64_t raw[MC_KNOB__COUNT];
	bool raw_valid[MC_KNOB__COUNT];
	/*
	 * The policies' decisions for the unit's parent cgroup (settings and
	 * reclaims of the group named group there), or NULL, with no_policy
	 * saying why none were made (shown for protect: and thp:).
	 */
	const struct mc_decisions *dec;
	const char *group;
	const char *no_policy;
};

/*
 * Appends to plan the steps that take the units of p to their settings:
 * units[i] is the state of p->units[i]. A policy's setting for the unit
 * (units[i].dec) takes the place of the profile's value, as for groups;
 * its reclaims become RECLAIM steps in the unit's cgroup (step.cgroup) on
 * cgroup v2 (memory.reclaim, which systemd does not manage), notes on v1
 * (where reclaim lowers a limit systemd owns). A knob with a property is an
 * MC_STEP_UNIT step when it differs from the property's value (sizes
 * rounded down to caps->page_size); increases are ordered from max down,
 * decreases from min up, so min <= low <= high <= max holds after every
 * step. A knob systemd has no property for (and does not write) is written
 * in the unit's cgroup (UNIT_FILE) where the host has its file and the
 * unit has a cgroup, and otherwise a NOTE saying why it is not applied. A final state out of order (a knob against a live property),
 * or a property this systemd lacks, is a diagnostic and -EINVAL; 0 or
 * -ENOMEM otherwise.
 */
int mc_plan_units(const struct mc_profile *p, const struct mc_unit_state *units,
		  const struct mc_caps *caps, struct mc_plan *plan, struct mc_diags *diags);

void mc_plan_free(struct mc_plan *plan);

/*
 * The end of a group's life (prune.c). A removal is an RMDIR step that
 * carries the group's knob values, so that undoing it (the transaction's
 * rollback) recreates the group with its settings.
 */

/*
 * Appends the removal of group g (path: relative to plan->parent) to plan,
 * with g's valid knob values saved and created telling whether memctl made
 * it. 0 or -ENOMEM.
 */
int mc_plan_add_remove(struct mc_plan *plan, const char *path, const struct mc_group_snap *g,
		       bool created, const char *reason);

/* A group memctl created that apply --prune may remove. */
struct mc_prune_cand {
	const char *path;     /* relative to the snapshot's parent, not "" */
	size_t tasks;         /* processes in the group itself (its cgroup.procs) */
};

/*
 * apply --prune: appends to plan (built from p and s) the removal of each
 * candidate group the profile does not name (neither the group nor one
 * below it) and that is empty: no task of its own and no child group that
 * is not removed too. Children are removed before their parents. A
 * candidate that is kept gets a NOTE step saying why: how many tasks it
 * holds, or which child groups stay. Candidates the snapshot does not hold
 * are left out. *ret_removed (may be NULL) gets the number of removals.
 * 0 or -ENOMEM.
 */
int mc_plan_prune(struct mc_plan *plan, const struct mc_profile *p, const struct mc_snapshot *s,
		  const struct mc_prune_cand *cands, size_t n, size_t *ret_removed);

#endif
