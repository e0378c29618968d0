/*
 * Helpers shared by the commands: loading profiles, planning against the
 * live host and running the transaction, with the messages an operator sees.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "file.h"

void (*mc_err_hook)(const char *msg);

void mc_err(const char *fmt, ...)
{
	va_list ap;

	if (mc_err_hook) {
		char *msg;

		va_start(ap, fmt);
		if (vasprintf(&msg, fmt, ap) >= 0) {
			mc_err_hook(msg);
			free(msg);
		}
		va_end(ap);
		return;
	}
	fputs("memctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *mc_strerror(int err)
{
	switch (-err) {
	case EALREADY:
		return "an interrupted apply left a journal; run 'memctl rollback' first";
	case EBADMSG:
		return "the journal is damaged";
	case MC_ENOTREG:
		return "not a regular file";
	default:
		return strerror(-err);
	}
}

void mc_print_diags(const struct mc_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		char *s;

		if (mc_diag_format(&d->v[i], &s) < 0) {
			mc_err("out of memory");
			return;
		}
		fprintf(stderr, "%s\n", s);
		free(s);
	}
}

void mc_print_snapshot_notes(const struct mc_snapshot *s)
{
	for (size_t i = 0; i < s->n_notes; i++)
		mc_err("warning: %s", s->notes[i]);
}

bool mc_insecure_profiles;

int mc_read_input(const char *what, const char *path, size_t max, char **ret_buf,
		  size_t *ret_len)
{
	struct mc_read_opts o = {
		.max = max,
		/*
		 * As root, the file decides what is written to the kernel's memory
		 * settings: like sshd and sudo with theirs, refuse one that someone
		 * else could have changed (host/file.h says what is checked).
		 */
		.trust = geteuid() == 0 && !mc_insecure_profiles,
		.uid = getuid(),
	};
	char *why = NULL;
	int r;

	r = mc_file_read(path, &o, ret_buf, ret_len, &why);
	if (r == -EKEYREJECTED) {
		mc_err("refusing %s '%s': %s; pass --insecure-profile to accept it", what, path, why);
		free(why);
	} else if (r == -EFBIG) {
		mc_err("%s: %s is larger than %zu bytes", path, what, max);
	} else if (r == -EAGAIN) {
		mc_err("cannot read %s '%s': it kept changing while being read", what, path);
	} else if (r < 0) {
		mc_err("cannot read %s '%s': %s", what, path, mc_strerror(r));
	}
	return r < 0 ? MC_EXIT_INVALID : 0;
}

int mc_load_profile(const char *path, struct mc_profile *ret)
{
	struct mc_diags d = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int r;

	if ((r = mc_read_input("profile", path, MC_PROFILE_MAX_BYTES, &buf, &len)) != 0)
		return r;
	r = mc_profile_parse(path, buf, len, ret, &d);
	free(buf);
	if (r < 0) {
		if (r == -ENOMEM)
			mc_err("%s: out of memory", path);
		mc_print_diags(&d);
		mc_diags_free(&d);
		return MC_EXIT_INVALID;
	}
	mc_diags_free(&d);
	return 0;
}

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

int mc_make_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req,
		 struct mc_plan *ret_plan)
{
	struct mc_decisions dec = { 0 };
	struct mc_plan_opts o = { .create = req->create };
	struct mc_snapshot snap = { 0 };
	struct mc_diags d = { 0 };
	char *parent;
	int r;

	r = mc_host_resolve_parent(ctx->host, p->parent, &parent);
	if (r < 0) {
		mc_err("%s:%d:%d: parent: cannot resolve '%s': %s", p->file, p->parent_pos.line,
		       p->parent_pos.col, p->parent, mc_strerror(r));
		return MC_EXIT_INVALID;
	}
	r = mc_host_snapshot(ctx->host, parent, &snap);
	if (r < 0) {
		mc_err("cannot read parent '%s': %s", parent, mc_strerror(r));
		free(parent);
		return MC_EXIT_HOST;
	}
	free(parent);
	mc_print_snapshot_notes(&snap);
	if (req->pol) {
		/* Policy problems do not stop the plan: the profile's own values still apply. */
		r = mc_policy_decide(req->pol, p, &snap, mc_host_caps(ctx->host), &dec, &d);
		if (r < 0) {
			mc_err("policy engine: %s", mc_strerror(r));
			mc_snapshot_free(&snap);
			mc_diags_free(&d);
			return MC_EXIT_HOST;
		}
		if (snap.uncached &&
		    mc_decisions_add_note(&dec, mc_asprintf("%zu of %zu groups do not fit the %zu open files memctl keeps (half the soft RLIMIT_NOFILE): their files are opened and closed again every snapshot, which is slower",
							  snap.uncached, snap.n, snap.fd_budget)) < 0)
			mc_err("out of memory: a note is lost");
		if (req->notes) {
			req->notes(ctx, &dec, &d);
		} else {
			mc_print_diags(&d);
			for (size_t i = 0; i < dec.n_notes; i++)
				mc_err("note: %s", dec.notes[i]);
		}
		mc_diags_free(&d);
		o.decisions = &dec;
	}
	r = mc_plan_build(p, &snap, mc_host_caps(ctx->host), &o, ret_plan, &d);
	mc_snapshot_free(&snap);
	mc_decisions_free(&dec);
	if (r < 0) {
		if (r == -ENOMEM)
			mc_err("out of memory while planning");
		mc_print_diags(&d);
		mc_diags_free(&d);
		return r == -ENOMEM ? MC_EXIT_HOST : MC_EXIT_INVALID;
	}
	mc_diags_free(&d);
	return 0;
}

int mc_take_lock(struct mc_ctx *ctx, struct mc_lock **ret)
{
	int holder = 0;
	int r;

	r = mc_lock_take(ctx->state_dir, false, ret, &holder);
	if (r == -EWOULDBLOCK && !ctx->no_wait) {
		if (!ctx->quiet)
			fprintf(stderr, "memctl: waiting for the lock in '%s' (held by pid %d)\n",
				ctx->state_dir, holder);
		r = mc_lock_take(ctx->state_dir, true, ret, &holder);
	}
	if (r == -EWOULDBLOCK) {
		mc_err("another memctl (pid %d) is applying; lock '%s/lock' is busy", holder,
		       ctx->state_dir);
		return MC_EXIT_HOST;
	}
	if (r < 0) {
		mc_err("cannot take the lock in '%s': %s", ctx->state_dir, mc_strerror(r));
		return MC_EXIT_HOST;
	}
	return 0;
}

void mc_print_step(FILE *f, const char *prefix, const struct mc_step *s, bool reason)
{
	char a[24], b[24], v[128];

	if (s->kind == MC_STEP_MKDIR)
		fprintf(f, "%screated %s", prefix, s->group);
	else if (s->kind == MC_STEP_ENABLE)
		fprintf(f, "%s%s: cgroup.subtree_control +memory", prefix, s->group);
	else if (s->kind == MC_STEP_SYSCTL)
		fprintf(f, "%s%s %" PRIu64 " -> %" PRIu64, prefix, s->file, s->old_raw, s->new_raw);
	else if (s->kind == MC_STEP_WRITE)
		fprintf(f, "%s%s: %s %s -> %s", prefix, s->group, s->file,
			s->old_valid ? mc_fmt_size(s->old_raw, a) : "(new)", mc_fmt_size(s->new_raw, b));
	else if (s->kind == MC_STEP_RECLAIM)
		fprintf(f, "%s%s: reclaim %s", prefix, s->group, mc_fmt_reclaim(s, v, sizeof(v)));
	else
		fprintf(f, "%s%s: %s", prefix, s->group, s->reason);
	if (reason && s->kind != MC_STEP_NOTE)
		fprintf(f, ": %s", s->reason);
	fputc('\n', f);
}

/* Runs the writes as one transaction; prints what failed. Returns an exit code. */
static int run_writes(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_plan *plan)
{
	struct mc_txn_result res;
	int rc = MC_EXIT_OK, r;

	r = mc_txn_apply(ctx->host, lock, ctx->state_dir, plan, &res);
	if (r == 0) {
		/* done */
	} else if (res.done == 0 && res.failed_err == 0) {
		mc_err("cannot write the journal in '%s': %s", ctx->state_dir, mc_strerror(r));
		rc = MC_EXIT_HOST;
	} else {
		const struct mc_step *s = &plan->steps[res.failed_step];
		char *abs = NULL;
		char v[24], w[24];

		mc_path_join(plan->parent, s->group, &abs);
		if (s->kind == MC_STEP_MKDIR)
			mc_err("cannot create group '%s': %s", abs ? abs : s->group, mc_strerror(r));
		else if (s->kind == MC_STEP_SYSCTL)
			mc_err("cannot set %s to %" PRIu64 ": %s", s->file, s->new_raw,
			       r == -EIO ? "the kernel kept another value" : mc_strerror(r));
		else if (s->kind == MC_STEP_ENABLE)
			mc_err("cannot enable the memory controller for the children of '%s' "
			       "(cgroup.subtree_control +memory): %s", abs ? abs : s->group,
			       r == -EIO ? "the kernel did not keep it" : mc_strerror(r));
		else if (r == -EIO)
			mc_err("cannot set %s on '%s': the kernel kept %s instead of %s", s->file,
			       abs ? abs : s->group, mc_fmt_size(res.readback, v),
			       mc_fmt_size(s->new_raw, w));
		else
			mc_err("cannot set %s on '%s': %s", s->file, abs ? abs : s->group,
			       mc_strerror(r));
		free(abs);
		if (res.rolled_back) {
			mc_err("rolled back: the host is as before (%zu change%s undone)", res.done,
			       res.done == 1 ? "" : "s");
			rc = MC_EXIT_FAILED;
		} else {
			mc_err("rollback failed at %s: %s", res.rollback_what ? res.rollback_what : "?",
			       mc_strerror(res.rollback_err));
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
		char a[24], b[24];

		if (s->kind != MC_STEP_RECLAIM)
			continue;
		if (req->reclaim_done)
			req->reclaim_done(ctx, s, res[i].err, res[i].reclaimed);
		else if (res[i].err < 0)
			mc_err("reclaim of %s from '%s': %s (got %s)", mc_fmt_size(s->bytes, a), s->group,
			       mc_strerror(res[i].err), mc_fmt_size(res[i].reclaimed, b));
		else if (!ctx->quiet)
			fprintf(ctx->out_f, "%s: reclaimed %s of %s\n", s->group,
				mc_fmt_size(res[i].reclaimed, a), mc_fmt_size(s->bytes, b));
	}
	if (req->ret_peak)
		*req->ret_peak = peak;
	free(res);
}

int mc_run_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req)
{
	struct mc_lock *lock;
	struct mc_plan plan;
	int rc;

	if ((rc = mc_take_lock(ctx, &lock)) != 0)
		return rc;
	if (mc_journal_exists(ctx->state_dir)) {
		mc_err("an interrupted apply left a journal in '%s'; run 'memctl rollback' first",
		       ctx->state_dir);
		mc_lock_release(lock);
		return MC_EXIT_HOST;
	}
	/* Plan under the lock: a concurrent apply's result is what we start from. */
	if ((rc = mc_make_plan(ctx, p, req, &plan)) != 0) {
		mc_lock_release(lock);
		return rc;
	}
	if (req->dry_run) {
		rc = MC_EXIT_OK;
	} else {
		rc = run_writes(ctx, lock, &plan);
		if (rc == MC_EXIT_OK)
			run_reclaims(ctx, lock, &plan, p->concurrency, req);
	}
	if (rc == MC_EXIT_OK) {
		for (size_t i = 0; i < plan.n; i++)
			if (req->step_done)
				req->step_done(ctx, &plan.steps[i]);
			else if (!ctx->quiet && plan.steps[i].kind != MC_STEP_RECLAIM)
				mc_print_step(ctx->out_f, "", &plan.steps[i], false);
		if (!ctx->quiet && !req->step_done && mc_plan_n_changes(&plan) == 0)
			fprintf(ctx->out_f, "nothing to change\n");
	}
	mc_plan_free(&plan);
	mc_lock_release(lock);
	return rc;
}

int mc_resolve_group(struct mc_ctx *ctx, const char *arg, char **ret)
{
	char *spec;
	int r;

	if (arg[0] == '/')
		spec = strdup(arg);
	else if (asprintf(&spec, "%s/%s", ctx->parent, arg) < 0)
		spec = NULL;
	if (!spec)
		return -ENOMEM;
	r = mc_host_resolve_parent(ctx->host, spec, ret);
	free(spec);
	return r;
}
