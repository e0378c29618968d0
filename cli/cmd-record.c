/*
 * memctl record: a sample of every group below the parent (or a profile's
 * parent) and of the host every interval, appended to the history store in
 * --dir (history/store.h, docs/STORE.md), until SIGTERM or SIGINT (or -n
 * samples). It writes nothing to the cgroups. memctl run --record writes the
 * same store with the engine's decisions.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "duration.h"
#include "loop.h"
#include "recorder.h"

struct record_opts {
	struct recorder_opts rec;     /* first: the shared options' offsets are into it */
	const char *interval;         /* --interval DURATION */
	long iterations;              /* -n: stop after N samples; 0: run until a signal */
	const char *profile;
};

/* The parent to record: --profile's, else -p's. 0 or the exit status. */
static int record_parent(struct mc_ctx *ctx, const struct record_opts *o, char **ret)
{
	struct mc_profile p;
	int rc, r;

	if (!o->profile)
		return mc_resolve_parent_opt(ctx, ret);
	if (ctx->parent && strcmp(ctx->parent, "self") != 0) {
		mc_err("-p and --profile both name a parent: give one of them");
		return MC_EXIT_INVALID;
	}
	if ((rc = mc_load_profile(ctx, o->profile, &p)) != 0)
		return rc;
	r = mc_host_resolve_parent(ctx->host, p.parent, ret);
	if (r < 0) {
		mc_err("%s: parent: cannot resolve '%s': %s", p.file, p.parent, mc_strerror(r));
		rc = MC_EXIT_INVALID;
	}
	mc_profile_free(&p);
	return rc;
}

static int parse_interval(const char *s, uint64_t *ret_ms)
{
	const char *why = "less than 10 ms";
	double d;

	if (mc_duration_parse(s, &d, &why) < 0 || d < 0.01 || d > 86400) {
		mc_err("invalid --interval '%s': %s", s, d > 86400 ? "more than a day" : why);
		return MC_EXIT_INVALID;
	}
	*ret_ms = (uint64_t)(d * 1000 + 0.5);
	return 0;
}

static int cmd_record_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct record_opts *o = opts;
	bool journal = getenv("JOURNAL_STREAM") != NULL;
	struct recorder rec;
	struct timespec next;
	uint64_t ms = 0;
	char *parent = NULL;
	sigset_t set;
	long n = 0;
	int rc, sig;

	if (!o->rec.dir) {
		mc_err("record needs --dir DIR, the store to write");
		return MC_EXIT_INVALID;
	}
	if ((rc = parse_interval(o->interval ? o->interval : "5s", &ms)) != 0 ||
	    (rc = record_parent(ctx, o, &parent)) != 0)
		return rc;
	if ((rc = recorder_open(&rec, &o->rec, "record", journal)) != 0) {
		free(parent);
		return rc;
	}
	mc_loop_block_signals(&set);
	mc_loop_log(journal, "record", 6, "recording '%s' every %llu ms into '%s'", parent,
		    (unsigned long long)ms, o->rec.dir);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		recorder_sample(&rec, ctx->host, parent, NULL);
		if (o->iterations && ++n >= o->iterations)
			break;
		mc_deadline_next(&next, ms);
		while ((sig = mc_wait_signal(&set, &next)) == SIGHUP)
			;   /* nothing to reload */
		if (sig == SIGTERM || sig == SIGINT) {
			mc_loop_log(journal, "record", 6, "%s: stopping after %lu samples", strsignal(sig),
				    rec.written);
			break;
		}
	}
	rc = rec.written || !o->iterations ? MC_EXIT_OK : MC_EXIT_HOST;
	recorder_close(&rec);
	free(parent);
	return rc;
}

static const struct mc_opt record_opt_dir = {
	"dir", 0, MC_OPT_STRING, "DIR", "the store to write (made when missing, mode 0700)",
	MC_COMPLETE_DIR, NULL, false, offsetof(struct record_opts, rec.dir),
};
static const struct mc_opt record_opt_interval = {
	"interval", 0, MC_OPT_STRING, "DURATION", "time between samples (default 5s; ms s m h)",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct record_opts, interval),
};
static const struct mc_opt record_opt_iterations = {
	"iterations", 'n', MC_OPT_COUNT, "N", "stop after N samples",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct record_opts, iterations),
};
static const struct mc_opt record_opt_profile = {
	"profile", 0, MC_OPT_STRING, "FILE", "record the parent of the profile FILE",
	MC_COMPLETE_PROFILE, NULL, false, offsetof(struct record_opts, profile),
};

const struct mc_cmd cmd_record_entry = {
	.name = "record",
	.args = "",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEED_HOST,
	.summary = "record the groups below the parent into a history store every interval",
	.help = "Writes nothing to the cgroups; stops on SIGTERM or SIGINT (or after -n N).\n"
		"memctl dump reads the store, memctl top --replay shows it.\n"
		"A full disk pauses recording (one log line) until there is room again.\n",
	.opts = (const struct mc_opt *const[]){ &record_opt_dir, &record_opt_interval,
						&recorder_opt_retain, &recorder_opt_max_size,
						&record_opt_iterations, &record_opt_profile,
						&mc_opt_parent, &mc_opt_insecure_profile,
						&mc_opt_cgroup_root, NULL },
	.opts_size = sizeof(struct record_opts),
	.exec = cmd_record_exec,
};
