#ifndef MEMCTL_RUN_STATE_H
#define MEMCTL_RUN_STATE_H

#include "cmd.h"
#include "runstate.h"

/*
 * memctl run's published state (host/runstate.h): the loop calls begin at
 * the start of each interval, feeds it the interval's decisions, steps,
 * reclaims and problems as they are reported, and end publishes the file.
 * Everything is kept between intervals, so a steady loop reuses memory.
 */
struct run_state {
	struct mc_runstate st;
	char *buf;               /* formatted file, reused */
	size_t cap;
	char *parent;            /* the profile's parent this interval, absolute */
	double t0;               /* CLOCK_MONOTONIC at begin */
	bool oom;                /* a record was lost this interval */
};

/* Starts the state of a daemon running profile_path. 0 or -ENOMEM. */
int run_state_init(struct run_state *rs, const char *profile_path, const struct mc_profile *p,
		   bool dry_run);
void run_state_free(struct run_state *rs);

/* A new interval of profile p (its parent resolved on the host of ctx). */
void run_state_begin(struct run_state *rs, struct mc_ctx *ctx, const struct mc_profile *p);
/* The engine's decisions of this interval. */
void run_state_decisions(struct run_state *rs, const struct mc_decisions *dec);
/* A write made (or, dry run, planned). */
void run_state_step(struct run_state *rs, const struct mc_step *s);
/* A reclaim's outcome. */
void run_state_reclaim(struct run_state *rs, const struct mc_step *s, int err, uint64_t got);
/* A problem of this interval (one line). */
void run_state_error(struct run_state *rs, const char *msg);

/*
 * Ends the interval (exit code rc) with the working sets of p's groups
 * from pol, and publishes the file in ctx->state_dir. 0 or -errno.
 */
int run_state_end(struct run_state *rs, struct mc_ctx *ctx, const struct mc_profile *p,
		  const struct mc_policy *pol, int rc);

/* Removes the published file (the daemon stops). */
void run_state_unpublish(struct run_state *rs, struct mc_ctx *ctx);

#endif
