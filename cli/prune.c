/*
 * apply --prune: the groups memctl created, from the record in the state
 * directory, turned into the candidates the engine decides on
 * (mc_plan_prune). A recorded group counts only while its directory is the
 * one memctl made (the same identity): a group someone removed and made
 * again under the name is not memctl's to remove.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "proc-read.h"

void mc_state_refused(struct mc_lock *lock, int r, const struct mc_ctx *ctx)
{
	if ((r == -EPERM || r == -EBADMSG) && mc_lock_why(lock))
		mc_err("refusing the state directory: %s; nothing was changed", mc_lock_why(lock));
	else
		mc_err("cannot read the record of the groups memctl created in '%s': %s",
		       ctx->state_dir, mc_strerror(r));
}

/* The part of path below parent, or NULL when path is not strictly below it. */
static const char *below(const char *path, const char *parent)
{
	size_t pl = strlen(parent);

	if (strcmp(parent, "/") == 0)
		return path[0] == '/' && path[1] ? path + 1 : NULL;
	if (strncmp(path, parent, pl) != 0 || path[pl] != '/' || !path[pl + 1])
		return NULL;
	return path + pl + 1;
}

/* The record's groups below plan's parent that are still memctl's, with their task counts. */
static int candidates(struct mc_ctx *ctx, const struct mc_created *c, const char *parent,
		      struct mc_prune_cand *ret, size_t *ret_n)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		const char *rel = below(c->v[i].path, parent);
		uint64_t id;
		size_t tasks;

		if (!rel || mc_host_group_id(ctx->host, c->v[i].path, &id) < 0 || id != c->v[i].id)
			continue;
		if (mc_host_group_nprocs(ctx->host, c->v[i].path, &tasks) < 0)
			continue;   /* gone since: the snapshot leaves it out too */
		ret[n++] = (struct mc_prune_cand){ .path = rel, .tasks = tasks };
	}
	*ret_n = n;
	return 0;
}

int mc_plan_add_prune(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_profile *p,
		      struct mc_plan *plan)
{
	struct mc_prune_cand *cands = NULL;
	struct mc_snapshot s = { 0 };
	struct mc_created c;
	size_t n = 0;
	int r;

	if ((r = mc_state_created_read(lock, &c)) < 0) {
		mc_state_refused(lock, r, ctx);
		return MC_EXIT_HOST;
	}
	if (c.n == 0) {
		mc_created_free(&c);
		return 0;
	}
	cands = calloc(c.n, sizeof(*cands));
	r = cands ? candidates(ctx, &c, plan->parent, cands, &n) : -ENOMEM;
	if (r == 0 && n)
		r = mc_host_snapshot(ctx->host, plan->parent, &s);
	if (r == 0 && n)
		r = mc_plan_prune(plan, p, &s, cands, n, NULL);
	if (r < 0)
		mc_err("cannot plan the removal of memctl's groups below '%s': %s", plan->parent,
		       mc_strerror(r));
	if (n)
		mc_snapshot_free(&s);
	free(cands);
	mc_created_free(&c);
	return r < 0 ? MC_EXIT_HOST : 0;
}
