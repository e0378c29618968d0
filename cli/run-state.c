/*
 * memctl run's published state: what the loop decided and did in its last
 * interval, for `memctl top` and `memctl export` (format and file in
 * host/runstate.c). Groups in the engine's and planner's records are
 * relative to the profile's parent; the published ones are absolute, so a
 * reader can match them with the groups it shows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run-state.h"

static double clock_s(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int run_state_init(struct run_state *rs, const char *profile_path, const struct mc_profile *p,
		   bool dry_run)
{
	memset(rs, 0, sizeof(*rs));
	rs->st.pid = (long)getpid();
	rs->st.started = clock_s(CLOCK_REALTIME);
	rs->st.dry_run = dry_run;
	rs->st.period_ms = p->interval_ms;
	rs->st.profile = strdup(profile_path);
	return rs->st.profile ? 0 : -ENOMEM;
}

void run_state_free(struct run_state *rs)
{
	mc_runstate_release(&rs->st);
	free(rs->buf);
	free(rs->parent);
	memset(rs, 0, sizeof(*rs));
}

void run_state_begin(struct run_state *rs, struct mc_ctx *ctx, const struct mc_profile *p)
{
	char *parent = NULL;

	rs->t0 = clock_s(CLOCK_MONOTONIC);
	rs->oom = false;
	mc_runstate_clear_interval(&rs->st);
	rs->st.period_ms = p->interval_ms;
	if (mc_host_resolve_parent(ctx->host, p->parent, &parent) == 0) {
		free(rs->parent);
		rs->parent = parent;
	}
}

/* The absolute path of group (relative to the parent), into a new string. */
static char *abs_of(struct run_state *rs, const char *group)
{
	char *abs = NULL;

	if (mc_path_join(rs->parent ? rs->parent : "/", group, &abs) < 0)
		rs->oom = true;
	return abs;
}

static void add(struct run_state *rs, const struct mc_run_decision *d)
{
	if (d->group && mc_runstate_add_decision(&rs->st, d) < 0)
		rs->oom = true;
}

void run_state_decisions(struct run_state *rs, const struct mc_decisions *dec)
{
	for (size_t i = 0; i < dec->n_set; i++) {
		const struct mc_setting *s = &dec->set[i];
		struct mc_run_decision d = { .kind = MC_RUN_SET, .policy = (char *)s->policy,
					     .knob = (char *)mc_knob_info(s->knob)->name,
					     .value = s->value, .reason = s->reason };

		d.group = abs_of(rs, s->group);
		add(rs, &d);
		free(d.group);
	}
	for (size_t i = 0; i < dec->n_notes; i++)
		if (mc_runstate_add_note(&rs->st, dec->notes[i]) < 0)
			rs->oom = true;
}

void run_state_step(struct run_state *rs, const struct mc_step *s)
{
	struct mc_run_decision d = { .kind = MC_RUN_WRITE, .policy = (char *)s->policy,
				     .knob = (char *)s->file, .old_valid = s->old_valid,
				     .old = s->old_raw, .value = s->new_raw, .reason = s->reason };

	if (s->kind == MC_STEP_RECLAIM && rs->st.dry_run) {
		/* a dry run asks for nothing: the reclaim it would ask, obtained 0 */
		d.kind = MC_RUN_RECLAIM;
		d.knob = NULL;
		d.old_valid = false;
		d.value = s->bytes;
	} else if (s->kind != MC_STEP_WRITE) {
		return;   /* reclaims come with their outcome; mkdir and notes are logged */
	}
	d.group = abs_of(rs, s->group);
	add(rs, &d);
	free(d.group);
}

void run_state_reclaim(struct run_state *rs, const struct mc_step *s, int err, uint64_t got)
{
	struct mc_run_decision d = { .kind = MC_RUN_RECLAIM, .policy = (char *)s->policy,
				     .value = s->bytes, .got = got, .err = err, .reason = s->reason };

	rs->st.reclaim_requests++;
	rs->st.reclaimed_bytes += got;
	if (err < 0)
		rs->st.reclaim_failures++;
	d.group = abs_of(rs, s->group);
	add(rs, &d);
	free(d.group);
}

void run_state_error(struct run_state *rs, const char *msg)
{
	/* the same problem reported twice in an interval is one record */
	for (size_t i = 0; i < rs->st.n_errors; i++)
		if (strcmp(rs->st.errors[i], msg) == 0)
			return;
	if (mc_runstate_add_error(&rs->st, msg) < 0)
		rs->oom = true;
}

/* The engine's v1 cap on group's max this interval (active-set). */
static bool cap_of(const struct run_state *rs, const char *abs, uint64_t *ret)
{
	for (size_t k = 0; k < rs->st.n_dec; k++) {
		const struct mc_run_decision *d = &rs->st.dec[k];

		if (d->kind == MC_RUN_SET && strcmp(d->knob, "max") == 0 &&
		    strcmp(d->policy, MC_POLICY_ACTIVE_SET) == 0 && strcmp(d->group, abs) == 0) {
			*ret = d->value;
			return true;
		}
	}
	return false;
}

/* The working set and cap of every group of the profile, depth first. */
static void add_groups(struct run_state *rs, const struct mc_group_spec *g, size_t n,
		       const char *rel, const struct mc_policy *pol)
{
	for (size_t i = 0; i < n; i++) {
		char *path = NULL, *abs;
		uint64_t ws = 0, cap = 0;
		bool ws_ok, cap_ok;

		if (mc_path_join(rel, g[i].name, &path) < 0) {
			rs->oom = true;
			continue;
		}
		/* mc_path_join makes "/name": the engine's groups have no leading slash */
		ws_ok = pol && mc_policy_working_set(pol, path + 1, &ws) == 0;
		abs = abs_of(rs, path + 1);
		cap_ok = abs && cap_of(rs, abs, &cap);
		if (abs && mc_runstate_add_group(&rs->st, abs, ws_ok, ws, cap_ok, cap) < 0)
			rs->oom = true;
		free(abs);
		add_groups(rs, g[i].children, g[i].n_children, path, pol);
		free(path);
	}
}

int run_state_end(struct run_state *rs, struct mc_ctx *ctx, const struct mc_profile *p,
		  const struct mc_policy *pol, int rc)
{
	rs->st.duration = clock_s(CLOCK_MONOTONIC) - rs->t0;
	rs->st.time = clock_s(CLOCK_REALTIME);
	rs->st.interval++;
	rs->st.exit_code = rc;
	if (rc != MC_EXIT_OK)
		rs->st.intervals_failed++;
	mc_runstate_observe(&rs->st, rs->st.duration);
	free(rs->st.parent);
	rs->st.parent = strdup(rs->parent ? rs->parent : "/");
	if (!rs->st.parent)
		return -ENOMEM;
	add_groups(rs, p->groups, p->n_groups, "/", pol);
	if (rs->oom)
		run_state_error(rs, "out of memory: some of this interval's records are missing");
	return mc_runstate_publish(ctx->state_dir, &rs->st, &rs->buf, &rs->cap);
}

void run_state_unpublish(struct run_state *rs, struct mc_ctx *ctx)
{
	mc_runstate_unpublish(ctx->state_dir, rs->st.pid);
}
