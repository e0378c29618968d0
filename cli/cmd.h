#ifndef MEMCTL_CMD_H
#define MEMCTL_CMD_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "host.h"
#include "txn.h"
#include "plan.h"
#include "policy.h"
#include "profile.h"
#include "reclaim.h"
#include "sdbus.h"

/*
 * The command table (tmux style): one entry per command, one file per
 * command (cmd-NAME.c). The same table serves argv, the shell's lines and
 * the generated bash and zsh completion. Each command declares the options
 * it takes as data (git's builtin_*_options[]): an option another command
 * takes is an error for this one, --help lists them, and completion offers
 * exactly them.
 */

/* Exit codes, documented in memctl(8). */
enum {
	MC_EXIT_OK = 0,
	MC_EXIT_FAILED = 1,       /* apply failed; the host was rolled back */
	MC_EXIT_INVALID = 2,      /* bad usage, profile or value; nothing was changed */
	MC_EXIT_HOST = 3,         /* host problem before any change (no controller, busy, journal) */
	MC_EXIT_PARTIAL = 4,      /* apply failed and rollback failed too: run memctl rollback */
	MC_EXIT_INCOMPLETE = 5,   /* import: profile written, some settings not converted */
	MC_EXIT_CANNOT_RUN = 126, /* exec: the command was found but could not be run */
	MC_EXIT_NOT_FOUND = 127,  /* exec: no such command */
};

enum mc_output {
	MC_OUT_TEXT = 0,
	MC_OUT_JSON,
	MC_OUT_PROM,              /* export, run --export: Prometheus text format */
	MC_OUT_CSV,               /* dump */
	MC_OUT_OPENMETRICS,       /* dump: OpenMetrics text with timestamps */
};

/* Setup a command needs before it runs (git style). */
enum {
	CMD_NEED_HOST = 1 << 0,   /* discover the host */
};

/* What an option's value, or an argument, completes to in bash, zsh and the shell. */
enum mc_complete {
	MC_COMPLETE_NONE,         /* nothing to offer: a number, free text */
	MC_COMPLETE_FILE,
	MC_COMPLETE_DIR,
	MC_COMPLETE_PROFILE,      /* *.yaml, *.yml */
	MC_COMPLETE_PARENT,       /* self, self/GROUP */
	MC_COMPLETE_GROUP,        /* live groups below the parent */
	MC_COMPLETE_KNOB,         /* knob names (get) */
	MC_COMPLETE_KNOB_SET,     /* knob names with '=' (set) */
	MC_COMPLETE_COLUMN,       /* top's columns */
	MC_COMPLETE_WORDS,        /* the fixed words of the option (struct mc_opt.words) */
	MC_COMPLETE_COMMAND,      /* a program to run (exec) */
};

/* How an option's value is parsed, and the C type it is stored as. */
enum mc_opt_type {
	MC_OPT_FLAG,              /* bool, no value */
	MC_OPT_STRING,            /* const char *, pointing into argv */
	MC_OPT_COUNT,             /* long, >= 1 */
	MC_OPT_SECONDS,           /* double, 0.01 to 86400 */
	MC_OPT_OUTPUT,            /* enum mc_output, one of .words */
};

/*
 * One option. The value goes to offset in struct mc_ctx (in_ctx: the
 * options several commands share and common.c reads) or in the command's
 * own option struct (struct mc_cmd.opts_size). A long name has the same
 * short name and type in every command that takes it (a unit test checks),
 * so a command line can be scanned for its command before it is parsed.
 */
struct mc_opt {
	const char *name;         /* long name, without "--" */
	char short_name;          /* 0: none */
	enum mc_opt_type type;
	const char *metavar;      /* "FILE"; NULL for a flag */
	const char *help;         /* one line for --help */
	enum mc_complete complete;
	const char *words;        /* MC_OPT_OUTPUT / MC_COMPLETE_WORDS: "text json" */
	bool in_ctx;
	size_t offset;
};

struct mc_ctx {
	const char *prog;
	/* the global options, which every command takes */
	bool help;                /* -h, --help */
	bool version;             /* -V, --version */
	/* options several commands share (each lists the ones it takes) */
	const char *parent;       /* -p: default "self" */
	const char *state_dir;    /* -s / MEMCTL_STATE_DIR, default /run/memctl */
	const char *cgroup_root;  /* --cgroup-root / MEMCTL_CGROUP_ROOT (tests) */
	int fake_version;         /* MEMCTL_CGROUP_VERSION with cgroup_root */
	bool no_wait;             /* --no-wait: fail instead of waiting for the lock */
	bool quiet;               /* -q */
	bool insecure_profile;    /* --insecure-profile: as root, accept files others could change */
	/* set up by the program, the shell and the dispatcher */
	unsigned depth;           /* scripts being run, one inside the other (shell -f) */
	bool reading_stdin;       /* a script being run reads stdin */
	struct mc_host *host;     /* set when CMD_NEED_HOST */
	FILE *out_f;              /* stdout, or the shell's output later */
};

/* The options shared by several commands; each command lists those it takes. */
extern const struct mc_opt mc_opt_parent;
extern const struct mc_opt mc_opt_state_dir;
extern const struct mc_opt mc_opt_no_wait;
extern const struct mc_opt mc_opt_quiet;
extern const struct mc_opt mc_opt_insecure_profile;
extern const struct mc_opt mc_opt_cgroup_root;
/* -o text|json of plan and get: their option struct is struct mc_out_opts. */
struct mc_out_opts {
	enum mc_output out;
};
extern const struct mc_opt mc_opt_output;
/* The global options (help, version), taken by every command; NULL-terminated. */
extern const struct mc_opt *const mc_global_opts[];

struct mc_cmd {
	const char *name;
	const char *alias;
	const char *args;         /* "PROFILE", "GROUP [KNOB...]" */
	int min_args;
	int max_args;             /* -1: unbounded */
	/* > 0: after this many arguments every word is one, options included (exec's COMMAND) */
	int opts_end_after;
	unsigned flags;
	const char *summary;
	const char *help;         /* extra lines for `memctl CMD --help` */
	/* what each argument completes to; the last one repeats when args ends in "..." */
	enum mc_complete arg_complete[4];
	const char *arg_words;    /* MC_COMPLETE_WORDS arguments: "bash zsh" */
	const struct mc_opt *const *opts;   /* the command's own options, NULL-terminated */
	size_t opts_size;         /* size of its option struct (0: none) */
	const void *opts_default; /* initial values of that struct, or NULL: zeroes */
	int (*exec)(struct mc_ctx *ctx, const void *opts, int argc, char **argv);
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
extern const struct mc_cmd cmd_exec_entry;
extern const struct mc_cmd cmd_rm_entry;
extern const struct mc_cmd cmd_record_entry;
extern const struct mc_cmd cmd_dump_entry;

extern const struct mc_cmd *const mc_cmd_table[];

/*
 * Finds a command by name, alias or unique prefix. Returns it, or NULL and
 * prints "unknown command" or "ambiguous command: X, could be: ...".
 */
const struct mc_cmd *mc_cmd_find(const char *prog, const char *name);

/* --- opts.c: the option parser (it prints nothing) --- */

/* A parsed command line: the command, its option struct and its arguments. */
struct mc_call {
	const struct mc_cmd *cmd; /* NULL: no command (memctl --help, --version) */
	void *opts;               /* cmd->opts_size bytes, owned */
	int argc;
	char **argv;              /* the operands, owned array of pointers into argv */
};

/* Why a command line did not parse. */
struct mc_opt_error {
	enum {
		MC_OPT_ERR_NONE,
		MC_OPT_ERR_UNKNOWN,       /* no command takes it */
		MC_OPT_ERR_NOT_TAKEN,     /* another command takes it: .other names one */
		MC_OPT_ERR_AMBIGUOUS,     /* a prefix of several: .opt and .other */
		MC_OPT_ERR_NEEDS_VALUE,
		MC_OPT_ERR_NO_VALUE,      /* --flag=VALUE */
		MC_OPT_ERR_BAD_VALUE,     /* .value does not parse as .opt's type */
		MC_OPT_ERR_COMMAND,       /* .word is no command (or a prefix of several) */
		MC_OPT_ERR_NO_COMMAND,
		MC_OPT_ERR_ARGS,          /* wrong number of arguments */
		MC_OPT_ERR_NOMEM,
	} kind;
	const char *word;         /* the word of argv that is wrong */
	const struct mc_cmd *cmd; /* the command the line is for, or NULL */
	const struct mc_opt *opt;
	const struct mc_cmd *other;
	const struct mc_opt *other_opt;
	const char *value;
};

/*
 * Parses argv (argv[0] is the program) into ret: finds the command (the
 * first word that is no option or an option's value; -f FILE without one
 * means the shell), then parses every option before and after it against
 * the global options and the command's own into ctx and ret->opts. Long
 * options may be abbreviated to a unique prefix; "--" ends the options.
 * With --help or --version the arguments are not counted. Returns 0, or
 * -EINVAL / -ENOMEM with *ret_err saying why (ret is then released).
 */
int mc_call_parse(struct mc_ctx *ctx, int argc, char **argv, struct mc_call *ret,
		  struct mc_opt_error *ret_err);

/* Frees what mc_call_parse allocated; ret may be zeroed. */
void mc_call_release(struct mc_call *c);

/* Prints "memctl: CMD: ..." for e, and where to look for help. */
void mc_opt_error_print(const struct mc_ctx *ctx, const struct mc_opt_error *e);

/*
 * Calls fn for each option cmd takes: its own, the shared ones it lists,
 * then the global ones; cmd NULL: the global ones only.
 */
void mc_cmd_each_opt(const struct mc_cmd *cmd, void (*fn)(const struct mc_opt *o, void *arg),
		     void *arg);

/*
 * For completion: the command of a line whose words before the one being
 * completed are argv (argv[0] the program), or NULL when none is there
 * yet. *ret_opt: the option whose value the next word is, or NULL;
 * *ret_index: which argument of the command the next word is (1: the
 * first), 0 when it is the command itself.
 */
const struct mc_cmd *mc_complete_position(int argc, char **argv, const struct mc_opt **ret_opt,
					 int *ret_index);

/*
 * What argument i (0: the first) of cmd completes to: its arg_complete,
 * the last one repeating for commands without max_args.
 */
enum mc_complete mc_cmd_arg_complete(const struct mc_cmd *cmd, int i);

/* Prints the "Options:" block of cmd's help (cmd NULL: the global options). */
void mc_opts_help(FILE *f, const struct mc_cmd *cmd);

/*
 * Parses options and a command line (argv[0] is the program name) into a
 * copy of base, and runs the command. base->host, when set, is used and
 * kept, unless the line names another --cgroup-root; otherwise a host is
 * opened for the command and freed after it. Returns the exit status. The
 * program and the shell both go through it; nothing a line sets outlives it.
 */
int mc_main(struct mc_ctx *base, int argc, char **argv);

/*
 * Splits a shell line into words: blanks separate, '...' and "..." quote,
 * backslash escapes one character outside single quotes, '#' at the start
 * of a word begins a comment. Returns the number of words (at most max;
 * argv[n] is set to NULL), -EINVAL for an unterminated quote, -E2BIG for
 * more than max words, -ENOMEM. The words point into *ret_buf, which the
 * caller frees (also on error).
 */
int mc_line_split(const char *line, char **ret_buf, char **argv, int max);

/*
 * word quoted so that mc_line_split gives it back as one word (backslashes
 * before blanks, quotes, backslashes and a leading '#'). *ret is newly
 * allocated. 0 or -ENOMEM.
 */
int mc_line_quote(const char *word, char **ret);

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

/*
 * Reads the input file path (what names it in messages: "profile",
 * "script") whole into *ret_buf (NUL-terminated, the caller frees it) and
 * *ret_len: a regular file of at most max bytes, read consistently, and as
 * root only when it passes the trust check of host/file.h (mc_file_trust:
 * the file and every folder on its resolved path owned by root or the
 * caller and not writable by others), unless ctx->insecure_profile. Prints
 * why it refuses; returns 0 or MC_EXIT_INVALID.
 */
int mc_read_input(const struct mc_ctx *ctx, const char *what, const char *path, size_t max,
		  char **ret_buf, size_t *ret_len);

/*
 * Reads and validates a profile file (with mc_read_input). Prints every
 * diagnostic; returns 0, or MC_EXIT_INVALID (bad profile, unreadable file).
 */
int mc_load_profile(const struct mc_ctx *ctx, const char *path, struct mc_profile *ret);

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
	void (*reclaim_done)(void *arg, const struct mc_step *s, const struct mc_reclaim_result *res);
	unsigned *ret_peak;       /* most reclaims in flight at once */
	long write_budget_ms;     /* writes and reclaims end this long after the first write
	                             (0: each write bounded alone), so a slow one cannot stall
	                             run */
	bool prune;               /* apply --prune: also remove memctl's groups the profile dropped */
	/*
	 * The snapshot of the profile's parent the plan was made from, read at
	 * unix time time (run --record: the history's sample, so that the tree
	 * is read once an interval). The callee may move its parts out; it is
	 * freed after. Called whenever the snapshot was taken, whether or not
	 * the plan could be made.
	 */
	void (*snapshot)(void *arg, struct mc_snapshot *snap, double time);
	/*
	 * The Ids of the profile's units, kept across calls (memctl run: for
	 * its life; the rule that keeps them true is mc_unit_ids', txn.h), or
	 * NULL: asked of systemd once per call. mc_run_plan empties it when
	 * it fails once it holds the units' locks; the owner empties it when
	 * the profile is reloaded.
	 */
	struct mc_unit_ids *unit_ids;
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

/* A failure on systemd's bus in words, naming the unit and property (allocated, or NULL). */
char *mc_bus_error_text(const struct mc_bus_error *e);

/*
 * Under the lock (and the locks of the profile's units, under their Ids
 * from req->unit_ids): plans, runs the writes as one transaction, then the
 * reclaims with at most p->concurrency in flight, and reports each step.
 * Returns an exit code; a failure after the units' locks were taken (or
 * in taking them, but for a busy lock) empties req->unit_ids.
 */
int mc_run_plan(struct mc_ctx *ctx, const struct mc_profile *p, const struct mc_plan_req *req);

/*
 * Takes the state lock, the subtree lock of parent (an absolute cgroup
 * path; NULL: none) and makes sure no journal is pending, saying what is
 * wrong. 0 (*ret is the lock) or an exit code.
 */
int mc_lock_for_change(struct mc_ctx *ctx, const char *parent, struct mc_lock **ret);

/*
 * Runs plan's writes as one transaction under lock and prints what failed
 * (and a warning when the record of created groups lags). An exit code.
 */
int mc_run_writes(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_plan *plan);

/* The warning for a txn result's record_err (nothing when err is 0). */
void mc_record_warning(const struct mc_ctx *ctx, int err);

/*
 * --- prune.c: apply --prune ---
 * Appends to plan (of profile p, made under lock) the removal of the groups
 * memctl created below the plan's parent that the profile no longer names
 * and that are empty, and notes for those kept (mc_plan_prune). Groups are
 * taken from the record in the state directory, each only while its
 * directory is the one memctl made. Prints what is wrong; 0 or an exit code.
 */
int mc_plan_add_prune(struct mc_ctx *ctx, struct mc_lock *lock, const struct mc_profile *p,
		      struct mc_plan *plan);

/* "refusing the state directory: WHY" for a record or file the state directory refused. */
void mc_state_refused(struct mc_lock *lock, int r, const struct mc_ctx *ctx);

/* One line for a step: "created web", "web: memory.max 1G -> 512M[: reason]". */
void mc_print_step(FILE *f, const char *prefix, const struct mc_step *s, bool reason);

/* Takes the state lock, printing who holds it while waiting. Exit code or 0. */
int mc_take_lock(struct mc_ctx *ctx, struct mc_lock **ret);

/* Why a parent (-p, a profile's parent:) or a GROUP did not resolve (r), for people. */
const char *mc_resolve_why(int r, bool group);

/*
 * Turns -p PARENT (ctx->parent) into an absolute cgroup path (*ret, newly
 * allocated). When it cannot be one, says so naming -p: returns 0 or an
 * exit code.
 */
int mc_resolve_parent_opt(struct mc_ctx *ctx, char **ret);

/*
 * Turns a GROUP argument into an absolute cgroup path: "/a/b" is taken from
 * the hierarchy root, anything else is relative to -p PARENT (default self).
 * An empty GROUP is refused, never taken for the parent; so is a path
 * longer than PATH_MAX or a name longer than NAME_MAX.
 * Says what is wrong (-p, or the group); returns 0 or an exit code.
 */
int mc_resolve_group(struct mc_ctx *ctx, const char *arg, char **ret);

/*
 * Parses the TIME given to option opt ("-t", "--from"): host/when.h's
 * forms, "+1h" / "-10m" counting from now_ns. Says what is wrong, naming
 * the option, the text and where in it; returns 0 or MC_EXIT_INVALID.
 */
int mc_time_opt(const char *opt, const char *text, int64_t now_ns, int64_t *ret_ns);

/* Human text for a -errno (strerror, plus memctl's own meanings). */
const char *mc_strerror(int err);

/* --- output.c --- */

/* Width of the name column of get and status: the longest knob name. */
int mc_name_col(void);

/* Prints s as a JSON string literal (quotes included; escape.h's rules). */
void mc_json_str(FILE *f, const char *s);
/* Prints a raw value as JSON: a number, or "max". */
void mc_json_size(FILE *f, uint64_t v);
/* Prints s escaped for a terminal (escape.h's text rules). */
void mc_text_str(FILE *f, const char *s);
/* A reclaim step's amount and node split: "64M (N0=48M, N1=16M)". */
const char *mc_fmt_reclaim(const struct mc_step *s, char *buf, size_t len);
/* Prints the plan as text or JSON (out) on ctx->out_f. */
void mc_print_plan(struct mc_ctx *ctx, enum mc_output out, const struct mc_plan *plan,
		   const char *title);

#endif
