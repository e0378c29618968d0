#ifndef MEMCTL_PLAN_BUILD_H
#define MEMCTL_PLAN_BUILD_H

/*
 * The planner's builder, inside the engine only: what the plans of groups
 * (plan.c), of systemd units (plan-unit.c) and of removals (prune.c) share.
 * A group and a unit want knob values in the same way (the profile's,
 * rounded to a page, or a policy's in their place), and every step enters
 * a plan through plan_step_add, which owns the step's strings; a unit's
 * steps differ only in their target, which is reached via systemd.
 */
#include <stdbool.h>
#include <stdint.h>

#include "caps.h"
#include "knob.h"
#include "plan.h"
#include "policy.h"
#include "size.h"

/* What one group or unit is asked to have, knob by knob. */
struct plan_want {
	uint64_t v[MC_KNOB__COUNT];               /* the abstract value asked for */
	bool set[MC_KNOB__COUNT];                 /* v[k] is asked for */
	const char *policy_why[MC_KNOB__COUNT];   /* a policy's reason for v[k], or NULL */
	const char *policy[MC_KNOB__COUNT];       /* and the policy's name */
	unsigned policy_unit[MC_KNOB__COUNT];     /* and the unit of its reason */
};

/*
 * Where a step acts: a group of the plan, named relative to its parent
 * (cgroup NULL), or a systemd unit, via systemd, named group; a unit's
 * step that memctl carries out itself (UNIT_FILE, RECLAIM) names the
 * unit's own absolute cgroup in cgroup.
 */
struct plan_target {
	const char *group;
	const char *cgroup;
};

/*
 * v marked as a size into buf for a step's reason or a diagnostic, which
 * plan_step_add and the plan's diagnostics resolve into one unit per line
 * (units.h); returns buf.
 */
const char *plan_fmt_size(uint64_t v, char buf[static 24]);

/*
 * How a planned step writes w's knob k: with the policy's unit when a
 * policy decided it (its reason is already in that unit), else unchosen
 * (plan_step_add chooses one). Sets tmpl's unit fields.
 */
void plan_want_unit(const struct plan_want *w, enum mc_knob k, struct mc_step *tmpl);

/* The page size the plan rounds to: the host's, else 4096. */
uint64_t plan_page(const struct mc_caps *caps);

/*
 * Sets knob k of w to v, rounded down to page unless v is unlimited or k
 * is a switch, as the profile asks for it.
 */
void plan_want_size(struct plan_want *w, enum mc_knob k, uint64_t v, uint64_t page);

/* A policy's setting takes the place of the profile's value, with its reason. */
void plan_want_setting(struct plan_want *w, const struct mc_setting *set, uint64_t page);

/*
 * The reason for knob k of w, as a new string: the policy's, or the
 * profile's value sz (a percentage with what it resolved to). NULL when out
 * of memory.
 */
char *plan_want_why(const struct plan_want *w, enum mc_knob k, const struct mc_size *sz);

/*
 * Appends a copy of tmpl to plan, acting on to (both names copied), with
 * reason, which it takes (NULL: an allocation that failed). Unless tmpl's
 * unit is chosen, the sizes marked in reason (plan_fmt_size) are resolved
 * into the unit that also divides the step's old and new value (or its
 * reclaim's bytes), and that unit is the step's. tmpl's group,
 * cgroup and reason are ignored; its node_bytes (NULL or allocated) is
 * taken too. 0 or -ENOMEM, and then nothing is appended and what it took
 * is freed.
 */
int plan_step_add(struct mc_plan *plan, const struct mc_step *tmpl, struct plan_target to,
		  char *reason);

/* Appends policy reclaim rc of to as a RECLAIM step (node shares copied). 0 or -ENOMEM. */
int plan_reclaim_add(struct mc_plan *plan, const struct mc_reclaim *rc, struct plan_target to);

#endif
