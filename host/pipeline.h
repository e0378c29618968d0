#ifndef MEMCTL_PIPELINE_H
#define MEMCTL_PIPELINE_H

#include <stdbool.h>

#include "diag.h"
#include "host.h"
#include "plan.h"
#include "policy.h"
#include "profile.h"
#include "sdbus.h"

/*
 * The one path from a profile to a plan: resolve the profile's parent,
 * take a snapshot of it, let the policies decide, build the plan. apply,
 * set, run, export and top all go through it, each taking what it needs
 * (export and top's decision column stop after the decisions or keep the
 * plan without running it). Nothing is written to the host. Like the rest
 * of host/, it never prints: problems come back as the stage that failed,
 * -errno and the engine's diagnostics, for the front end to report.
 */

enum mc_pipeline_stage {
	MC_STAGE_RESOLVE,        /* the profile's parent does not resolve */
	MC_STAGE_SNAPSHOT,       /* the parent cannot be read */
	MC_STAGE_DECIDE,         /* the policy engine failed */
	MC_STAGE_PLAN,           /* the planner refused (diagnostics in plan_diags) */
	MC_STAGE_UNITS,          /* a unit of the profile could not be read through systemd
	                            (failed_unit; mc_host_bus_error says why) */
};

struct mc_pipeline_opts {
	const char *parent;      /* the profile's parent, absolute; NULL: resolve p->parent */
	struct mc_policy *pol;   /* policies to run, or NULL (set: the profile alone) */
	bool plan;               /* build the plan (export: decisions only) */
	bool create;             /* the plan may create groups (apply, run: yes; set: no) */
};

struct mc_pipeline {
	char *parent;               /* the profile's parent, absolute */
	struct mc_snapshot snap;    /* of parent, once taken (its notes say what it could not read) */
	bool have_snap;
	double snap_time;           /* unix time (CLOCK_REALTIME) when its reading began */
	struct mc_decisions dec;    /* with pol: this interval's decisions and notes */
	struct mc_diags decide_diags;   /* the policies' warnings (they do not stop the plan) */
	struct mc_diags plan_diags;     /* why the planner refused */
	struct mc_plan plan;        /* with opts->plan, on success */
	bool have_plan;
	enum mc_pipeline_stage failed;  /* when mc_pipeline_run returned < 0 */
	size_t failed_unit;         /* MC_STAGE_UNITS: the index in p->units */
	const struct mc_bus_error *bus_err;   /* MC_STAGE_UNITS: why (the host's, until its
	                                         next bus call) */
	/* with opts->plan and units in the profile: each unit as systemd has it */
	struct mc_unit_info *units;
	size_t n_units;
	/* with the policies: their decisions per parent cgroup of the units */
	struct unit_parent *unit_parents;
	size_t n_unit_parents;
};

/*
 * Runs the pipeline for profile p on host h. Returns 0, or -errno with
 * ret->failed saying where it stopped; either way *ret holds what was made
 * up to then (the parent once resolved, decisions, diagnostics) and must be
 * released. A snapshot that keeps fewer files open than it has groups adds
 * a note to the decisions saying so. With a plan, the profile's units are
 * read through systemd's bus and their steps appended (mc_plan_units).
 */
int mc_pipeline_run(struct mc_host *h, const struct mc_profile *p,
		    const struct mc_pipeline_opts *o, struct mc_pipeline *ret);

/* Frees what mc_pipeline_run made. */
void mc_pipeline_release(struct mc_pipeline *pl);

#endif
