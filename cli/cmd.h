#ifndef MEMCTL_CMD_H
#define MEMCTL_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "host.h"
#include "txn.h"
#include "plan.h"
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
};

enum mc_output {
	MC_OUT_TEXT = 0,
	MC_OUT_JSON,
};

/* Setup a command needs before it runs (git style). */
enum {
	CMD_NEED_HOST = 1 << 0,   /* discover the host */
};

struct mc_ctx {
	const char *prog;
	enum mc_output out;
	const char *parent;       /* -p: default "self" */
	const char *state_dir;    /* -s / MEMCTL_STATE_DIR, default /run/memctl */
	const char *cgroup_root;  /* --cgroup-root / MEMCTL_CGROUP_ROOT (tests) */
	int fake_version;         /* MEMCTL_CGROUP_VERSION with cgroup_root */
	bool no_wait;             /* --no-wait: fail instead of waiting for the lock */
	bool quiet;
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

extern const struct mc_cmd *const mc_cmd_table[];

/*
 * Finds a command by name, alias or unique prefix. Returns it, or NULL and
 * prints "unknown command" or "ambiguous command: X, could be: ...".
 */
const struct mc_cmd *mc_cmd_find(const char *prog, const char *name);

/* --- common.c: helpers shared by commands (they print; the program may) --- */

/* "memctl: " + message + newline on stderr. */
void mc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Reads and validates a profile file. Prints every diagnostic; returns 0,
 * or MC_EXIT_INVALID (bad profile, unreadable file).
 */
int mc_load_profile(const char *path, struct mc_profile *ret);

/* Prints every diagnostic of d on stderr. */
void mc_print_diags(const struct mc_diags *d);

/*
 * Takes a snapshot of parent and builds the plan for profile p. Prints the
 * problems; returns 0 or an exit code.
 */
int mc_make_plan(struct mc_ctx *ctx, const struct mc_profile *p, bool create,
		 struct mc_plan *ret_plan);

/*
 * Runs the transaction for plan with the lock held, prints what changed or
 * what failed and whether the host was rolled back. Returns an exit code.
 */
int mc_run_plan(struct mc_ctx *ctx, const struct mc_profile *p, bool create);

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

/* Prints s as a JSON string literal (quotes included). */
void mc_json_str(FILE *f, const char *s);
/* Prints a raw value as JSON: a number, or "max". */
void mc_json_size(FILE *f, uint64_t v);
/* Formats a value for people: "max", "256M", "4097". */
const char *mc_fmt_size(uint64_t v, char buf[static 24]);
/* Prints the plan in ctx->out format. */
void mc_print_plan(struct mc_ctx *ctx, const struct mc_plan *plan, const char *title);

/* Abstract value of knob k from raw file values (v1 swap is memsw - max). */
uint64_t mc_abstract_value(const struct mc_caps *caps, enum mc_knob k,
			   const uint64_t raw[MC_KNOB__COUNT]);

#endif
