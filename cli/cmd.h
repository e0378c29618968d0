#ifndef MEMCTL_CMD_H
#define MEMCTL_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "format.h"
#include "host.h"
#include "txn.h"
#include "plan.h"
#include "policy.h"
#include "profile.h"

/*
 * The command table (tmux style): one entry per command, one file per
 * command (cmd-NAME.c). The same table serves argv, and later the shell
 * and the top screen's prompt.
 */

/* Exit codes, documented in memctl(8). */
enum {
	MC_EXIT_OK = 0,
	MC_EXIT_FAILED = 1,       /* apply failed; the host was rolled back */
	MC_EXIT_INVALID = 2,      /* bad usage, profile or value; nothing was changed */
	MC_EXIT_HOST = 3,         /* host problem before any change (no controller, busy, journal) */
	MC_EXIT_PARTIAL = 4,      /* apply failed and rollback failed too: run memctl rollback */
	MC_EXIT_INCOMPLETE = 5,   /* import: profile written, some settings not converted */
};

enum mc_output {
	MC_OUT_TEXT = 0,
	MC_OUT_JSON,
	MC_OUT_PROM,              /* export, run --export: Prometheus text format */
};

/* Setup a command needs before it runs (git style). */
enum {
	CMD_NEED_HOST = 1 << 0,   /* discover the host */
};

struct mc_ctx {
	const char *prog;
	enum mc_output out;
	const char *parent;       /* -p: default "self" */
	bool parent_set;          /* -p was given (import's default parent is "/") */
	const char *state_dir;    /* -s / MEMCTL_STATE_DIR, default /run/memctl */
	const char *cgroup_root;  /* --cgroup-root / MEMCTL_CGROUP_ROOT (tests) */
	int fake_version;         /* MEMCTL_CGROUP_VERSION with cgroup_root */
	bool no_wait;             /* --no-wait: fail instead of waiting for the lock */
	bool quiet;
	bool once;                /* run --once */
	bool dry_run;             /* run --dry-run */
	bool no_mlock;            /* run --no-mlock */
	bool batch;               /* top -b */
	long iterations;          /* top -n: 0 = until stopped */
	double delay;             /* top -d: seconds between refreshes */
	const char *profile;      /* top --profile */
	const char *sort;         /* top --sort */
	const char *columns;      /* top --columns */
	const char *script;       /* shell -f FILE; export --file FILE */
	const char *export_file;  /* run --export FILE */
	bool keep_going;          /* shell --keep-going */
	struct mc_host *host;     /* set when CMD_NEED_HOST */
	FILE *out_f;              /* stdout, or the shell's output later */
};

struct mc_cmd {
	const char *name;
	const char *alias;
	const char *args;         /* "PROFILE", "GROUP [KNOB...]" */
	int min_args;
	int max_args;             /* -1: unbounded */
	unsigned flags;
	const char *summary;
	const char *help;         /* extra lines for `memctl CMD --help` */
	int (*exec)(struct mc_ctx *ctx, int argc, char **argv);
};

extern const struct mc_cmd cmd_check_entry;
extern const struct mc_cmd cmd_plan_entry;
extern const struct mc_cmd cmd_apply_entry;
extern const struct mc_cmd cmd_get_entry;
extern const struct mc_cmd cmd_set_entry;
extern const struct mc_cmd cmd_status_entry;
extern const struct mc_cmd cmd_rollback_entry;
extern const struct mc_cmd cmd_run_entry;
extern const struct mc_cmd cmd_top_entry;
extern const struct mc_cmd cmd_shell_entry;
extern const struct mc_cmd cmd_import_entry;
extern const struct mc_cmd cmd_completion_entry;
extern const struct mc_cmd cmd_export_entry;

extern const struct mc_cmd *const mc_cmd_table[];

/*
 * The options, for getopt_long and for the generated shell completion:
 * mc_longopts (NULL-terminated), mc_shortopts, and the help text that
 * describes each one ("  -p, --parent PATH   text").
 */
extern const struct option mc_longopts[];
extern const char mc_shortopts[];
extern const char mc_options_help[];

/*
 * Finds a command by name, alias or unique prefix. Returns it, or NULL and
 * prints "unknown command" or "ambiguous command: X, could be: ...".
 */
const struct mc_cmd *mc_cmd_find(const char *prog, const char *name);

/*
 * Parses options and a command line (argv[0] is the program name) into a
 * copy of base, and runs the command. base->host, when set, is used and
 * kept; otherwise a host is opened for the command and freed after it.
 * Returns the exit status. The program and the shell both go through it.
 */
int mc_main(struct mc_ctx *base, int argc, char **argv);

/*
 * --- Helpers shared by commands (they print; the program may), by concern:
 * messages.c (mc_err, mc_strerror, diagnostics and notes), input.c (input
 * files, GROUP arguments), plan-run.c (planning against the host, locks,
 * running a plan), output.c (plans and steps as text and JSON). ---
 */

/*
 * Where mc_err's messages go instead of stderr when fn is set (memctl run
 * logs them through its journal-aware logger, once per cause); fn gets arg.
 */
struct mc_err_sink {
	void (*fn)(void *arg, const char *msg);
	void *arg;
};
extern struct mc_err_sink mc_err_sink;

/* "memctl: " + message + newline on stderr, or mc_err_sink. */
void mc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --insecure-profile: accept profiles others could have written (as root). */
extern bool mc_insecure_profiles;

/*
 * Reads the input file path (what names it in messages: "profile",
 * "script") whole into *ret_buf (NUL-terminated, the caller frees it) and
 * *ret_len: a regular file of at most max bytes, read consistently, and as
 * root only when it passes the trust check of host/file.h (mc_file_trust:
 * the file and every folder on its resolved path owned by root or the
 * caller and not writable by others), unless --insecure-profile. Prints
 * why it refuses; returns 0 or MC_EXIT_INVALID.
 */
int mc_read_input(const char *what, const char *path, size_t max, char **ret_buf,
		  size_t *ret_len);

/*
 * Reads and validates a profile file. Prints every diagnostic; returns 0,
 * or MC_EXIT_INVALID (bad profile, unreadable file).
 */
int mc_load_profile(const char *path, struct mc_profile *ret);

/* Prints every diagnostic of d on stderr. */
void mc_print_diags(const struct mc_diags *d);

/* Says what a snapshot could not read (its notes: files that did not parse) through mc_err. */
void mc_print_snapshot_notes(const struct mc_snapshot *s);

/*
 * What one plan/apply iteration should do, and how it reports. The
 * callbacks may be NULL: then problems go to stderr and changes to stdout.
 * Each gets arg, the caller's own state (memctl run's loop).
 */
struct mc_plan_req {
	bool create;              /* may create groups (apply, run: yes; set: no) */
	bool dry_run;             /* plan only (memctl run --dry-run) */
	struct mc_policy *pol;    /* policies to run, or NULL (set) */
	void *arg;                /* passed to the callbacks */
	/* policy diagnostics and notes of this iteration */
	void (*notes)(void *arg, const struct mc_decisions *dec, const struct mc_diags *diags);
	/* each executed (or, with dry_run, planned) step */
	void (*step_done)(void *arg, const struct mc_step *s);
	/* each reclaim's outcome */
	void (*reclaim_done)(void *arg, const struct mc_step *s, int err, uint64_t reclaimed);
	unsigned *ret_peak;       /* most reclaims in flight at once */
};

/* A policy engine configured for this host (CPUs, swap). 0 or an exit code. */
int mc_policy_for_host(struct mc_ctx *ctx, struct mc_policy **ret);

/*
 * Takes a snapshot of the profile's parent, runs the policies (req->pol)
 * and builds the plan. Prints the problems; returns 0 or an exit code.
 */
int mc_make_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req,
		 struct mc_plan *ret_plan);

struct mc_pipeline;
/*
 * Reports where the pipeline stopped (host/pipeline.h) when it failed
 * before the plan, after the snapshot's notes: the exit code, or 0 when r
 * says it got that far.
 */
int mc_report_pipeline(const struct mc_profile *p, const struct mc_pipeline *pl, int r);

/*
 * Under the lock: plans, runs the writes as one transaction, then the
 * reclaims with at most p->concurrency in flight, and reports each step.
 * Returns an exit code.
 */
int mc_run_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req);

/* One line for a step: "created web", "web: memory.max 1G -> 512M[: reason]". */
void mc_print_step(FILE *f, const char *prefix, const struct mc_step *s, bool reason);

/* Takes the state lock, printing who holds it while waiting. Exit code or 0. */
int mc_take_lock(struct mc_ctx *ctx, struct mc_lock **ret);

/*
 * Turns a GROUP argument into an absolute cgroup path: "/a/b" is taken from
 * the hierarchy root, anything else is relative to -p PARENT (default self).
 */
int mc_resolve_group(struct mc_ctx *ctx, const char *arg, char **ret);

/* Human text for a -errno (strerror, plus memctl's own meanings). */
const char *mc_strerror(int err);

/* --- output.c --- */

/* Width of the name column of get and status: the longest knob name. */
#define MC_NAME_COL ((int)sizeof("reclaim_protect_active") - 1)

/* Prints s as a JSON string literal (quotes included; escape.h's rules). */
void mc_json_str(FILE *f, const char *s);
/* Prints a raw value as JSON: a number, or "max". */
void mc_json_size(FILE *f, uint64_t v);
/* Prints s escaped for a terminal (escape.h's text rules). */
void mc_text_str(FILE *f, const char *s);
/* A reclaim step's amount and node split: "64M (N0=48M, N1=16M)". */
const char *mc_fmt_reclaim(const struct mc_step *s, char *buf, size_t len);
/* Prints the plan in ctx->out format. */
void mc_print_plan(struct mc_ctx *ctx, const struct mc_plan *plan, const char *title);

#endif
