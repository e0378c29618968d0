/* snapshot -> decide -> plan, once: see pipeline.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

/* The note about groups whose files a snapshot reopens each time. 0 or -ENOMEM. */
static int note_uncached(struct mc_decisions *dec, const struct mc_snapshot *snap)
{
	char *note;

	if (!snap->uncached)
		return 0;
	note = mc_asprintf("%zu of %zu groups do not fit the %zu open files memctl keeps (the soft "
			   "RLIMIT_NOFILE but 1024): their files are opened and closed again every "
			   "snapshot, which is slower", snap->uncached, snap->n, snap->fd_budget);
	return mc_decisions_add_note(dec, note);
}

int mc_pipeline_run(struct mc_host *h, const struct mc_profile *p,
		    const struct mc_pipeline_opts *o, struct mc_pipeline *ret)
{
	const struct mc_caps *caps = mc_host_caps(h);
	struct mc_plan_opts po = { .create = o->create };
	struct mc_snapshot *snap = &ret->snap;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->failed = MC_STAGE_RESOLVE;
	if (o->parent)
		r = (ret->parent = strdup(o->parent)) ? 0 : -ENOMEM;
	else
		r = mc_host_resolve_parent(h, p->parent, &ret->parent);
	if (r < 0)
		return r;
	ret->failed = MC_STAGE_SNAPSHOT;
	if ((r = mc_host_snapshot(h, ret->parent, snap)) < 0)
		return r;
	ret->have_snap = true;
	if (o->pol) {
		ret->failed = MC_STAGE_DECIDE;
		r = mc_policy_decide(o->pol, p, snap, caps, &ret->dec, &ret->decide_diags);
		if (r == 0)
			r = note_uncached(&ret->dec, snap);
		po.decisions = &ret->dec;
	}
	if (r == 0 && o->plan) {
		ret->failed = MC_STAGE_PLAN;
		/* with self resolved, the whole path of every group must fit */
		r = mc_profile_check_paths(p, strcmp(ret->parent, "/") == 0 ? 0 :
					   strlen(ret->parent), &ret->plan_diags);
		if (r > 0)
			return -EINVAL;
		if (r < 0)
			return r;
		r = mc_plan_build(p, snap, caps, &po, &ret->plan, &ret->plan_diags);
		ret->have_plan = r == 0;
	}
	return r;
}

void mc_pipeline_release(struct mc_pipeline *pl)
{
	free(pl->parent);
	if (pl->have_snap)
		mc_snapshot_free(&pl->snap);
	mc_decisions_free(&pl->dec);
	mc_diags_free(&pl->decide_diags);
	mc_diags_free(&pl->plan_diags);
	if (pl->have_plan)
		mc_plan_free(&pl->plan);
	memset(pl, 0, sizeof(*pl));
}
