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
#include "escape.h"
#include "file.h"
#include "pipeline.h"

struct mc_err_sink mc_err_sink;

/*
 * Messages quote what others named (groups, files): whatever they hold,
 * no control character reaches the terminal or the log (escape.h's text
 * rules; a backslash stays one, parts may be escaped already).
 */
void mc_err(const char *fmt, ...)
{
	struct mc_buf b = { 0 };
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("memctl: out of memory\n", stderr);
		return;
	}
	mc_esc_controls(&b, msg);
	free(msg);
	if (mc_err_sink.fn)
		mc_err_sink.fn(mc_err_sink.arg, mc_buf_error(&b) < 0 ? "out of memory" : mc_buf_str(&b));
	else
		fprintf(stderr, "memctl: %s\n", mc_buf_error(&b) < 0 ? "out of memory" : mc_buf_str(&b));
	mc_buf_release(&b);
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
	struct mc_pipeline_opts o = { .pol = req->pol, .plan = true, .create = req->create };
	struct mc_pipeline pl;
	int r, rc = 0;

	r = mc_pipeline_run(ctx->host, p, &o, &pl);
	if (pl.have_snap)
		mc_print_snapshot_notes(&pl.snap);
	if (r < 0 && pl.failed == MC_STAGE_RESOLVE) {
		mc_err("%s:%d:%d: parent: cannot resolve '%s': %s", p->file, p->parent_pos.line,
		       p->parent_pos.col, p->parent, mc_strerror(r));
		rc = MC_EXIT_INVALID;
	} else if (r < 0 && pl.failed == MC_STAGE_SNAPSHOT) {
		mc_err("cannot read parent '%s': %s", pl.parent, mc_strerror(r));
		rc = MC_EXIT_HOST;
	} else if (r < 0 && pl.failed == MC_STAGE_DECIDE) {
		mc_err("policy engine: %s", mc_strerror(r));
		rc = MC_EXIT_HOST;
	} else {
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
	return r < 0 ? MC_EXIT_HOST : 0;
}

/*
 * Takes the host-wide lock on the profile's subtree, so that a memctl with
 * another state directory cannot plan from or change the same groups at
 * the same time. Waits at most SUBTREE_WAIT_MS (--no-wait: not at all).
 */
#define SUBTREE_WAIT_MS 60000
static int take_subtree(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_profile *p)
{
	char *parent, hb[32];
	long holder = 0;
	int r;

	if (mc_host_resolve_parent(ctx->host, p->parent, &parent) < 0)
		return 0;   /* mc_make_plan says why */
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
	free(parent);
	return r < 0 ? MC_EXIT_HOST : 0;
}

void mc_print_step(FILE *f, const char *prefix, const struct mc_step *s, bool reason)
{
	struct mc_step_text t;

	if (mc_step_describe(s, &t) < 0) {
		fprintf(f, "%s", prefix);
		mc_text_str(f, s->group);
		fputs(": (out of memory)\n", f);
		return;
	}
	/* the step's text quotes the group (and a note's reason): escaped as a whole */
	fputs(prefix, f);
	mc_text_str(f, t.done);
	if (reason && s->kind != MC_STEP_NOTE) {
		fputs(": ", f);
		mc_text_str(f, s->reason);
	}
	fputc('\n', f);
	mc_step_text_free(&t);
}

/* Runs the writes as one transaction; prints what failed. Returns an exit code. */
static int run_writes(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_plan *plan)
{
	struct mc_txn_result res;
	int rc = MC_EXIT_OK, r;

	r = mc_txn_apply(ctx->host, lock, plan, &res);
	if (r == 0) {
		/* done */
	} else if (res.done == 0 && res.failed_err == 0) {
		if (r == -EPERM && mc_lock_why(lock))
			mc_err("refusing the state directory: %s", mc_lock_why(lock));
		else
			mc_err("cannot write the journal in '%s': %s", ctx->state_dir, mc_strerror(r));
		rc = MC_EXIT_HOST;
	} else {
		const struct mc_step *s = &plan->steps[res.failed_step];
		char *abs = NULL, *msg;

		mc_path_join(plan->parent, s->group, &abs);
		msg = mc_step_failure(s, abs ? abs : s->group, r, res.readback, mc_strerror(r));
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
			req->reclaim_done(req->arg, s, res[i].err, res[i].reclaimed);
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
	if ((rc = take_subtree(ctx, lock, p)) != 0) {
		mc_lock_release(lock);
		return rc;
	}
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
