/*
 * Planning against the live host and running the plan: the policy engine
 * for this host, the pipeline's problems reported, the locks, the writes as
 * one transaction and the reclaims after them, each step reported.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "pipeline.h"
#include "units.h"

int mc_policy_for_host(struct mc_ctx *ctx, struct mc_policy **ret)
{
	const struct mc_host_status *st = mc_host_status(ctx->host);
	struct mc_policy_config cfg = {
		.cpus = st->cpus_online > 0 ? (unsigned)st->cpus_online : 1,
		.swap = st->swap_total > 0,
	};
	int r = mc_policy_new(&cfg, ret);

	if (r < 0)
		mc_err("cannot set up the policy engine: %s", mc_strerror(r));
	return r < 0 ? MC_EXIT_HOST : 0;
}

char *mc_bus_error_text(const struct mc_bus_error *e)
{
	const char *d = e->detail ? e->detail : "no details";

	switch (e->fail) {
	case MC_BUS_NO_BUS:
		return mc_asprintf("no systemd bus: %s; units need systemd as the service manager, "
				   "reached on the system bus", d);
	case MC_BUS_NO_UNIT:
		return mc_asprintf("unit '%s' not found: %s", e->unit ? e->unit : "?", d);
	case MC_BUS_NOT_LOADED:
		return mc_asprintf("unit '%s' is not loaded: %s", e->unit ? e->unit : "?", d);
	case MC_BUS_TOO_OLD:
		return mc_asprintf("systemd is too old for %s of unit '%s': %s",
				   e->property ? e->property : "a property", e->unit ? e->unit : "?", d);
	case MC_BUS_REFUSED:
		return mc_asprintf("systemd refused %s of unit '%s': %s",
				   e->property ? e->property : "a property", e->unit ? e->unit : "?", d);
	default:
		return mc_asprintf("systemd's bus%s%s%s: %s", e->unit ? " (unit '" : "",
				   e->unit ? e->unit : "", e->unit ? "')" : "", d);
	}
}

/* Stage UNITS: what systemd said, at the unit's key; exit 2 for a unit that is not there. */
static int report_units(const struct mc_profile *p, const struct mc_pipeline *pl, int r)
{
	const struct mc_group_spec *u = &p->units[pl->failed_unit];
	static const struct mc_bus_error unknown = { MC_BUS_FAILED, NULL, NULL, NULL };
	const struct mc_bus_error *e = pl->bus_err ? pl->bus_err : &unknown;
	char *msg = mc_bus_error_text(e);

	mc_err("%s:%d:%d: units.%s: %s", p->file, u->pos.line, u->pos.col, u->name,
	       msg ? msg : mc_strerror(r));
	free(msg);
	return e->fail == MC_BUS_NO_UNIT ? MC_EXIT_INVALID : MC_EXIT_HOST;
}

int mc_report_pipeline(const struct mc_profile *p, const struct mc_pipeline *pl, int r)
{
	if (pl->have_snap)
		mc_print_snapshot_notes(&pl->snap);
	if (r < 0 && pl->failed == MC_STAGE_RESOLVE) {
		mc_err("%s:%d:%d: parent: cannot resolve '%s': %s", p->file, p->parent_pos.line,
		       p->parent_pos.col, p->parent, mc_strerror(r));
		return MC_EXIT_INVALID;
	}
	if (r < 0 && pl->failed == MC_STAGE_SNAPSHOT) {
		mc_err("cannot read parent '%s': %s", pl->parent, mc_strerror(r));
		return MC_EXIT_HOST;
	}
	if (r < 0 && pl->failed == MC_STAGE_DECIDE) {
		mc_err("policy engine: %s", mc_strerror(r));
		return MC_EXIT_HOST;
	}
	if (r < 0 && pl->failed == MC_STAGE_UNITS)
		return report_units(p, pl, r);
	return 0;
}

int mc_make_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req,
		 struct mc_plan *ret_plan)
{
	struct mc_pipeline_opts o = { .pol = req->pol, .plan = true, .create = req->create };
	struct mc_pipeline pl;
	int r, rc = 0;

	r = mc_pipeline_run(ctx->host, p, &o, &pl);
	rc = mc_report_pipeline(p, &pl, r);
	if (rc == 0) {
		/* Policy problems do not stop the plan: the profile's own values still apply. */
		if (req->pol && req->notes) {
			req->notes(req->arg, &pl.dec, &pl.decide_diags);
		} else if (req->pol) {
			mc_print_diags(&pl.decide_diags);
			for (size_t i = 0; i < pl.dec.n_notes; i++)
				mc_err("note: %s", pl.dec.notes[i]);
		}
		if (r < 0) {
			if (r == -ENOMEM)
				mc_err("out of memory while planning");
			mc_print_diags(&pl.plan_diags);
			rc = r == -ENOMEM ? MC_EXIT_HOST : MC_EXIT_INVALID;
		} else {
			*ret_plan = pl.plan;
			pl.have_plan = false;   /* handed over */
		}
	}
	if (pl.have_snap && req->snapshot)
		req->snapshot(req->arg, &pl.snap, pl.snap_time);
	mc_pipeline_release(&pl);
	return rc;
}

/* "pid 1234", or "another process" when /proc/locks did not say. */
static const char *holder_text(long pid, char buf[static 32])
{
	if (pid > 0)
		snprintf(buf, 32, "pid %ld", pid);
	else
		snprintf(buf, 32, "another process");
	return buf;
}

/* Says why the state directory could not be used, and what to do. */
static void lock_error(struct mc_ctx *ctx, int r, const struct mc_lock_info *info)
{
	char hb[32];

	if (r == -EWOULDBLOCK)
		mc_err("another memctl (%s) is applying; lock '%s/lock' is busy; try again when it "
		       "is done", holder_text(info->holder, hb), ctx->state_dir);
	else if (r == -EPERM && info->why)
		mc_err("refusing the state directory: %s; it must be a directory (not a symlink) "
		       "owned by root or you, writable by no one else, holding only regular files",
		       info->why);
	else if ((r == -EACCES || r == -EPERM || r == -EROFS) && geteuid() != 0)
		mc_err("changing memory cgroups needs root, or write access to the groups and a "
		       "state directory of your own (-s DIR): cannot use '%s': %s", ctx->state_dir,
		       mc_strerror(r));
	else
		mc_err("cannot use the state directory '%s': %s", ctx->state_dir, mc_strerror(r));
}

/*
 * Each write that can block in the kernel is bounded: MEMCTL_WRITE_TIMEOUT_MS
 * (milliseconds, 0 = unbounded), else MC_WRITE_TIMEOUT_MS.
 */
static long write_timeout_ms(void)
{
	const char *e = getenv("MEMCTL_WRITE_TIMEOUT_MS");
	char *end;
	long v;

	if (!e || !*e)
		return MC_WRITE_TIMEOUT_MS;
	errno = 0;
	v = strtol(e, &end, 10);
	return errno || *end || v < 0 ? -1 : v;
}

static int set_write_timeout(struct mc_ctx *ctx)
{
	long ms = write_timeout_ms();

	if (ms < 0) {
		mc_err("MEMCTL_WRITE_TIMEOUT_MS: not a number of milliseconds: '%s'",
		       getenv("MEMCTL_WRITE_TIMEOUT_MS"));
		return MC_EXIT_INVALID;
	}
	mc_host_set_write_timeout(ctx->host, ms);
	return 0;
}

int mc_take_lock(struct mc_ctx *ctx, struct mc_lock **ret)
{
	struct mc_lock_info info;
	char hb[32];
	int r;

	r = mc_lock_take(ctx->state_dir, false, ret, &info);
	if (r == -EWOULDBLOCK && !ctx->no_wait) {
		if (!ctx->quiet)
			fprintf(stderr, "memctl: waiting for the lock in '%s' (held by %s)\n",
				ctx->state_dir, holder_text(info.holder, hb));
		mc_lock_info_free(&info);
		r = mc_lock_take(ctx->state_dir, true, ret, &info);
	}
	if (r < 0)
		lock_error(ctx, r, &info);
	mc_lock_info_free(&info);
	if (r < 0)
		return MC_EXIT_HOST;
	return set_write_timeout(ctx);
}

/*
 * Takes the host-wide lock on the profile's subtree, so that a memctl with
 * another state directory cannot plan from or change the same groups at
 * the same time. Waits at most SUBTREE_WAIT_MS (--no-wait: not at all).
 */
#define SUBTREE_WAIT_MS 60000
static int take_subtree(struct mc_ctx *ctx, struct mc_lock *lock, const char *parent)
{
	char hb[32];
	long holder = 0;
	int r;

	r = mc_lock_subtree(lock, ctx->host, parent, 0, &holder);
	if (r == -EWOULDBLOCK && !ctx->no_wait) {
		if (!ctx->quiet)
			fprintf(stderr, "memctl: waiting for %s, which is changing groups at or "
				"around '%s'\n", holder_text(holder, hb), parent);
		r = mc_lock_subtree(lock, ctx->host, parent, SUBTREE_WAIT_MS, &holder);
	}
	if (r == -EWOULDBLOCK)
		mc_err("another memctl (%s) is changing groups at or around '%s'%s; try again "
		       "when it is done", holder_text(holder, hb), parent,
		       ctx->no_wait ? "" : " (gave up after 60 s)");
	else if (r < 0)
		mc_err("cannot lock the groups below '%s': %s", parent, mc_strerror(r));
	return r < 0 ? MC_EXIT_HOST : 0;
}

/*
 * Takes the host-wide locks of the profile's units, so that a memctl with
 * another state directory cannot set the same unit's properties at the
 * same time, under the Ids in ids (systemd asked for those it lacks, once
 * for both tries). Waits as take_subtree does.
 */
static int take_units(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_profile *p,
		      struct mc_unit_ids *ids)
{
	const char **names = calloc(p->n_units, sizeof(*names)), *busy = NULL;
	char hb[32];
	long holder = 0;
	int r = names ? 0 : -ENOMEM;

	for (size_t i = 0; names && i < p->n_units; i++)
		names[i] = p->units[i].name;
	if (r == 0)
		r = mc_txn_lock_units(ctx->host, lock, names, p->n_units, 0, ids, &busy, &holder);
	if (r == -EWOULDBLOCK && !ctx->no_wait) {
		if (!ctx->quiet)
			fprintf(stderr, "memctl: waiting for %s, which is changing unit '%s'\n",
				holder_text(holder, hb), busy ? busy : "?");
		r = mc_txn_lock_units(ctx->host, lock, names, p->n_units, SUBTREE_WAIT_MS, ids,
				      &busy, &holder);
	}
	if (r == -EWOULDBLOCK)
		mc_err("another memctl (%s) is changing unit '%s'%s; try again when it is done",
		       holder_text(holder, hb), busy ? busy : "?",
		       ctx->no_wait ? "" : " (gave up after 60 s)");
	else if (r == -EPERM && mc_lock_why(lock))
		mc_err("cannot lock the profile's units: %s; nothing was changed", mc_lock_why(lock));
	else if (r == -EACCES)
		mc_err("changing systemd units needs root: their locks in '%s' are root's: %s; "
		       "nothing was changed", MC_UNIT_LOCK_DIR, mc_strerror(r));
	else if (r < 0)
		mc_err("cannot lock the profile's units in '%s': %s; nothing was changed",
		       MC_UNIT_LOCK_DIR, mc_strerror(r));
	free(names);
	return r < 0 ? MC_EXIT_HOST : 0;
}

int mc_lock_for_change(struct mc_ctx *ctx, const char *parent, struct mc_lock **ret)
{
	struct mc_lock *lock;
	int rc;

	if ((rc = mc_take_lock(ctx, &lock)) != 0)
		return rc;
	if (parent && (rc = take_subtree(ctx, lock, parent)) != 0) {
		mc_lock_release(lock);
		return rc;
	}
	if (mc_journal_exists(ctx->state_dir)) {
		mc_err("an interrupted apply left a journal in '%s'; run 'memctl rollback' first",
		       ctx->state_dir);
		mc_lock_release(lock);
		return MC_EXIT_HOST;
	}
	*ret = lock;
	return 0;
}

/* Why a write timed out: the bound it ran into. */
static const char *timeout_cause(struct mc_ctx *ctx, char *buf, size_t len)
{
	long deadline = mc_host_write_deadline(ctx->host);

	if (deadline)
		snprintf(buf, len, "not done when this interval's time ran out (the kernel was "
			 "still reclaiming)");
	else
		snprintf(buf, len, "not done after %ld ms (the kernel was still reclaiming; "
			 "MEMCTL_WRITE_TIMEOUT_MS sets the bound)", write_timeout_ms());
	return buf;
}

void mc_record_warning(const struct mc_ctx *ctx, int err)
{
	if (err)
		mc_err("warning: the groups are as they should be, but the record of the groups "
		       "memctl created ('%s/created') could not be brought in step: %s; apply "
		       "--prune leaves the groups this changed alone", ctx->state_dir,
		       mc_strerror(err));
}

int mc_run_writes(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_plan *plan)
{
	struct mc_txn_result res;
	int rc = MC_EXIT_OK, r;

	r = mc_txn_apply(ctx->host, lock, plan, &res);
	mc_record_warning(ctx, res.record_err);
	if (r == 0) {
		/* done */
	} else if (res.done == 0 && res.failed_err == 0) {
		if ((r == -EPERM || r == -EBADMSG) && mc_lock_why(lock))
			mc_err("refusing the state directory: %s", mc_lock_why(lock));
		else
			mc_err("cannot write the journal in '%s': %s", ctx->state_dir, mc_strerror(r));
		rc = MC_EXIT_HOST;
	} else {
		const struct mc_step *s = &plan->steps[res.failed_step];
		char *abs = NULL, *msg, *bus_cause = NULL, cause[160];

		mc_path_join(plan->parent, s->group, &abs);
		if (res.failed_bus.fail != MC_BUS_OK && r != -EIO)
			bus_cause = mc_bus_error_text(&res.failed_bus);
		msg = mc_step_failure(s, abs ? abs : s->group, r, res.readback,
				      bus_cause ? bus_cause :
				      r == -ETIMEDOUT ? timeout_cause(ctx, cause, sizeof(cause)) :
				      mc_strerror(r));
		free(bus_cause);
		mc_err("%s", msg ? msg : mc_strerror(r));
		free(msg);
		free(abs);
		if ((r == -EACCES || r == -EPERM) && geteuid() != 0)
			mc_err("changing memory cgroups needs root, or write access to the groups");
		if (res.rolled_back && res.done == 0 && res.undone == 0) {
			/* The first write was refused: there was nothing to roll back. */
			mc_err("nothing was changed");
			rc = MC_EXIT_HOST;
		} else if (res.rolled_back) {
			mc_err("rolled back: the host is as before (%zu change%s undone)", res.undone,
			       res.undone == 1 ? "" : "s");
			rc = MC_EXIT_FAILED;
		} else {
			char *why = res.rollback_bus.fail != MC_BUS_OK ?
				mc_bus_error_text(&res.rollback_bus) : NULL;

			mc_err("rollback failed at %s: %s", res.rollback_what ? res.rollback_what : "?",
			       why ? why : mc_strerror(res.rollback_err));
			free(why);
			mc_err("the journal is kept in '%s'; run 'memctl rollback'", ctx->state_dir);
			rc = MC_EXIT_PARTIAL;
		}
	}
	mc_txn_result_release(&res);
	return rc;
}

/* Runs the plan's reclaims (after its writes succeeded) and reports each. */
static void run_reclaims(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_plan *plan,
			 unsigned concurrency, const struct mc_plan_req *req)
{
	struct mc_reclaim_result *res;
	unsigned peak = 0;

	res = calloc(plan->n ? plan->n : 1, sizeof(*res));
	if (!res) {
		mc_err("out of memory: reclaims skipped");
		return;
	}
	mc_reclaims_run(ctx->host, lock, plan, concurrency, res, &peak);
	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *s = &plan->steps[i];
		char a[MC_UNITS_MARK_LEN], b[MC_UNITS_MARK_LEN];
		uint64_t both[2] = { s->bytes, res[i].reclaimed };
		unsigned u = mc_units_shift(both, 2);   /* one unit for the line */

		if (s->kind != MC_STEP_RECLAIM)
			continue;

		if (req->reclaim_done)
			req->reclaim_done(req->arg, s, &res[i]);
		else if (res[i].err < 0)
			mc_err("reclaim of %s from '%s': %s (got %s)", mc_units_format(s->bytes, u, a),
			       s->group, mc_strerror(res[i].err), mc_units_format(res[i].reclaimed, u, b));
		else if (!ctx->quiet)
			fprintf(ctx->out_f, "%s: reclaimed %s of %s\n", s->group,
				mc_units_format(res[i].reclaimed, u, a), mc_units_format(s->bytes, u, b));
	}
	if (req->ret_peak)
		*req->ret_peak = peak;
	free(res);
}

/* mc_run_plan with the units' Ids in ids; *ret_units: their locks were taken. */
static int run_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req,
		    struct mc_unit_ids *ids, bool *ret_units)
{
	struct mc_lock *lock;
	struct mc_plan plan;
	char *parent = NULL;
	int rc;

	/* a parent that does not resolve is not locked: mc_make_plan says why */
	if (mc_host_resolve_parent(ctx->host, p->parent, &parent) < 0)
		parent = NULL;
	rc = mc_lock_for_change(ctx, parent, &lock);
	free(parent);
	if (rc != 0)
		return rc;
	if (p->n_units && (rc = take_units(ctx, lock, p, ids)) != 0) {
		mc_lock_release(lock);
		return rc;
	}
	*ret_units = p->n_units > 0;
	/* Plan under the lock: a concurrent apply's result is what we start from. */
	if ((rc = mc_make_plan(ctx, p, req, &plan)) != 0) {
		mc_lock_release(lock);
		return rc;
	}
	if (req->prune && (rc = mc_plan_add_prune(ctx, lock, p, &plan)) != 0) {
		mc_plan_free(&plan);
		mc_lock_release(lock);
		return rc;
	}
	if (req->dry_run) {
		rc = MC_EXIT_OK;
	} else {
		/*
		 * The budget starts with the first write, not with the interval:
		 * waiting for another memctl's lock or a slow snapshot must not use
		 * it up, or no write of this interval would even be tried.
		 */
		if (req->write_budget_ms > 0)
			mc_host_set_write_deadline(ctx->host,
						   mc_host_now_ms() + req->write_budget_ms);
		rc = mc_run_writes(ctx, lock, &plan);
		if (rc == MC_EXIT_OK)
			run_reclaims(ctx, lock, &plan, p->concurrency, req);
		mc_host_set_write_deadline(ctx->host, 0);
	}
	if (rc == MC_EXIT_OK) {
		for (size_t i = 0; i < plan.n; i++)
			if (req->step_done)
				req->step_done(req->arg, &plan.steps[i]);
			else if (!ctx->quiet && plan.steps[i].kind != MC_STEP_RECLAIM)
				mc_print_step(ctx->out_f, "", &plan.steps[i], false);
		if (!ctx->quiet && !req->step_done && mc_plan_n_changes(&plan) == 0)
			fprintf(ctx->out_f, "nothing to change\n");
	}
	mc_plan_free(&plan);
	mc_lock_release(lock);
	return rc;
}

int mc_run_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req)
{
	struct mc_unit_ids once = { 0 }, *ids = req->unit_ids ? req->unit_ids : &once;
	bool units = false;
	int rc = run_plan(ctx, p, req, ids, &units);

	/*
	 * A failure once the units were locked may come from a name that
	 * stands for another unit now; a busy state or subtree lock before
	 * says nothing of them (take_units forgets on its own failures).
	 */
	if ((rc != MC_EXIT_OK && units) || ids == &once)
		mc_unit_ids_clear(ids);
	return rc;
}
