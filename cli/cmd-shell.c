/*
 * memctl shell: every memctl command from one prompt, through the same
 * command table and option parser as the command line (mc_main), with one
 * host shared by all lines.
 *
 * On a terminal it is a readline REPL: completion of command names, group
 * names below the parent (from a walk of the live tree), knob names and
 * profile paths; history in ~/.memctl_history (or $MEMCTL_HISTORY).
 * Otherwise (memctl shell < FILE, memctl -f FILE) it runs the lines as a
 * script: blank lines and '#' comments are skipped, a failing line is named
 * ("memctl: FILE:LINE: ...") and stops the script with its exit status,
 * unless --keep-going, which runs every line and exits with the status of
 * the last failing one.
 *
 * Each line is parsed from scratch on a copy of the shell's context, so an
 * option given on one line (-p, --insecure-profile, --cgroup-root) holds
 * for that line only. A script may run another with -f (an include), at
 * most SHELL_MAX_DEPTH deep, so a script that runs itself stops with an
 * error instead of exhausting the stack. A -f script decides what root
 * writes as much as a profile does, and gets the same trust check.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <readline/history.h>
#include <readline/readline.h>

#include "buf.h"
#include "cmd.h"
#include "columns.h"
#include "subtree.h"

#define SHELL_MAX_ARGS 128
#define SHELL_HISTORY_LINES 2000
#define SHELL_MAX_DEPTH 8          /* scripts running scripts (-f inside -f) */
#define SHELL_MAX_LINE 65536       /* bytes of one script line */
#define SHELL_MAX_SCRIPT MC_PROFILE_MAX_BYTES   /* bytes of a -f script */

struct shell_opts {
	const char *file;         /* -f FILE ('-': stdin) */
	bool keep_going;
};

static struct mc_ctx *shell_ctx;   /* for readline's completion callbacks */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int mc_line_split(const char *line, char **ret_buf, char **argv, int max)
{
	char *buf = malloc(strlen(line) + 1), *w = buf;
	const char *p = line;
	int argc = 0;

	*ret_buf = buf;
	if (!buf)
		return -ENOMEM;
	for (;;) {
		char quote = 0;

		while (is_blank(*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = w;
		for (; *p && (quote || !is_blank(*p)); p++) {
			if (quote && *p == quote)
				quote = 0;
			else if (!quote && (*p == '\'' || *p == '"'))
				quote = *p;
			else if (*p == '\\' && quote != '\'' && p[1])
				*w++ = *++p;
			else
				*w++ = *p;
		}
		if (quote)
			return -EINVAL;
		*w++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

int mc_line_quote(const char *word, char **ret)
{
	char *q = malloc(2 * strlen(word) + 3), *o = q;

	if (!q)
		return -ENOMEM;
	if (!*word) {
		strcpy(q, "''");
		*ret = q;
		return 0;
	}
	for (const char *p = word; *p; p++) {
		if (is_blank(*p) || *p == '\'' || *p == '"' || *p == '\\' || (*p == '#' && p == word))
			*o++ = '\\';
		*o++ = *p;
	}
	*o = '\0';
	*ret = q;
	return 0;
}

static void shell_help(FILE *f, int argc, char **argv)
{
	if (argc > 1) {
		char *args[] = { "memctl", "--help", argv[1], NULL };

		mc_main(shell_ctx, 3, args);
		return;
	}
	fputs("Commands (options as on the command line, e.g. '-o json get web'):\n", f);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
		fprintf(f, "  %-8s %-22s %s\n", (*c)->name, (*c)->args, (*c)->summary);
	fputs("  help [COMMAND]                  this list, or a command's help\n"
	      "  exit, quit (or end of input)    leave the shell\n", f);
}

/* Runs one line. Returns its exit status; *ret_quit set for exit/quit. */
static int run_line(struct mc_ctx *ctx, const char *line, bool *ret_quit, bool *ret_empty)
{
	char *argv[SHELL_MAX_ARGS + 2], *buf = NULL;
	int argc, rc;

	*ret_empty = false;
	argv[0] = "memctl";
	argc = mc_line_split(line, &buf, argv + 1, SHELL_MAX_ARGS);
	if (argc < 0) {
		mc_err("%s", argc == -EINVAL ? "unterminated quote" :
			     argc == -E2BIG ? "too many words" : "out of memory");
		free(buf);
		return MC_EXIT_INVALID;
	}
	if (argc == 0) {
		*ret_empty = true;
		free(buf);
		return MC_EXIT_OK;
	}
	if (strcmp(argv[1], "exit") == 0 || strcmp(argv[1], "quit") == 0) {
		*ret_quit = true;
		rc = MC_EXIT_OK;
	} else if (strcmp(argv[1], "help") == 0) {
		shell_help(ctx->out_f, argc, argv + 1);
		rc = MC_EXIT_OK;
	} else {
		rc = mc_main(ctx, argc + 1, argv);
	}
	fflush(ctx->out_f);
	free(buf);
	return rc;
}

/* --- completion --- */

static char **words;        /* candidates of the current completion */
static size_t n_words, cap_words;

static void words_clear(void)
{
	for (size_t i = 0; i < n_words; i++)
		free(words[i]);
	free(words);
	words = NULL;
	n_words = cap_words = 0;
}

/* Out of memory, a candidate is not offered: completion is a convenience, the line still works. */
static void words_add(const char *w)
{
	if (mc_array_reserve(&words, &cap_words, n_words + 1, sizeof(*words)) < 0)
		return;
	if ((words[n_words] = strdup(w)))
		n_words++;
}

static char *words_generator(const char *text, int state)
{
	static size_t i;
	size_t len = strlen(text);

	if (!state)
		i = 0;
	while (i < n_words) {
		const char *w = words[i++];

		if (strncmp(w, text, len) == 0)
			return strdup(w);
	}
	return NULL;
}

/* Group paths below the parent, from a walk of the live tree, quoted for a line. */
static void add_groups(void)
{
	struct mc_subtree *rd = NULL;
	char *parent = NULL;

	if (!shell_ctx->host || mc_host_resolve_parent(shell_ctx->host, shell_ctx->parent,
							 &parent) < 0)
		return;
	if (mc_subtree_new(shell_ctx->host, parent, &rd) == 0 && mc_subtree_scan(rd, true) >= 0)
		for (size_t i = 1; i < mc_subtree_count(rd); i++) {
			char *q;

			if (mc_line_quote(mc_subtree_entry(rd, i)->path, &q) == 0) {
				words_add(q);
				free(q);
			}
		}
	mc_subtree_free(rd);
	free(parent);
}

static void add_knobs(bool assign)
{
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		char w[64];

		snprintf(w, sizeof(w), "%s%s", mc_knob_info(k)->name, assign ? "=" : "");
		words_add(w);
	}
	if (!assign)
		words_add("usage");
}

static void add_opt(const struct mc_opt *o, void *arg)
{
	char w[64];

	snprintf(w, sizeof(w), "--%s", o->name);
	words_add(w);
	if (o->short_name) {
		snprintf(w, sizeof(w), "-%c", o->short_name);
		words_add(w);
	}
}

/*
 * The command of the line before the word being completed, and what that
 * word is: an option's value (*ret_opt) or argument *ret_index (0: the
 * command itself).
 */
static const struct mc_cmd *line_command(int start, int *ret_index, const struct mc_opt **ret_opt)
{
	char *argv[SHELL_MAX_ARGS + 2], *buf = NULL, *head = strndup(rl_line_buffer, (size_t)start);
	const struct mc_cmd *cmd = NULL;
	int argc;

	*ret_index = 0;
	*ret_opt = NULL;
	argv[0] = "memctl";
	argc = head ? mc_line_split(head, &buf, argv + 1, SHELL_MAX_ARGS) : -ENOMEM;
	if (argc >= 0) {
		argc++;
		cmd = mc_complete_position(argc, argv, ret_opt, ret_index);
	}
	free(buf);
	free(head);
	return cmd;
}

static char **shell_complete(const char *text, int start, int end)
{
	const struct mc_opt *opt;
	const struct mc_cmd *cmd;
	enum mc_complete what;
	int index;

	rl_attempted_completion_over = 1;
	words_clear();
	cmd = line_command(start, &index, &opt);
	if (!opt && text[0] == '-') {
		mc_cmd_each_opt(cmd, add_opt, NULL);
		return rl_completion_matches(text, words_generator);
	}
	if (!opt && index == 0) {
		for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
			words_add((*c)->name);
		words_add("help");
		words_add("exit");
		words_add("quit");
		return rl_completion_matches(text, words_generator);
	}
	what = opt ? opt->complete : mc_cmd_arg_complete(cmd, index - 1);
	switch (what) {
	case MC_COMPLETE_FILE:
	case MC_COMPLETE_DIR:
	case MC_COMPLETE_PROFILE:
		rl_attempted_completion_over = 0;   /* readline's file names */
		return NULL;
	case MC_COMPLETE_GROUP:
		add_groups();
		break;
	case MC_COMPLETE_KNOB_SET:
		add_knobs(true);
		rl_completion_append_character = '\0';
		break;
	case MC_COMPLETE_KNOB:
		add_knobs(false);
		break;
	case MC_COMPLETE_COLUMN:
		for (size_t i = 0; i < top_n_cols; i++)
			words_add(top_cols[i].name);
		break;
	case MC_COMPLETE_WORDS:
		for (const char *w = opt ? opt->words : cmd->arg_words; w && *w;
		     w += strcspn(w, " "), w += strspn(w, " ")) {
			char *one = strndup(w, strcspn(w, " "));

			if (one)
				words_add(one);
			free(one);
		}
		break;
	default:
		return NULL;
	}
	return rl_completion_matches(text, words_generator);
}

/* --- the two ways to run --- */

static const char *history_path(char **ret_alloc)
{
	const char *p = getenv("MEMCTL_HISTORY"), *home = getenv("HOME");

	*ret_alloc = NULL;
	if (p && *p)
		return p;
	if (!home || !*home || asprintf(ret_alloc, "%s/.memctl_history", home) < 0)
		return NULL;
	return *ret_alloc;
}

/* ^C at the prompt drops the line being typed, as in bash; it does not end the shell. */
static void on_sigint(int sig)
{
	(void)!write(STDOUT_FILENO, "\n", 1);
	rl_on_new_line();
	rl_replace_line("", 0);
	rl_redisplay();
}

static int run_interactive(struct mc_ctx *ctx)
{
	struct sigaction sa = { .sa_handler = on_sigint }, old;
	char *alloc, *line;
	const char *hist = history_path(&alloc);
	int rc = MC_EXIT_OK;
	bool quit = false;

	rl_readline_name = "memctl";
	rl_attempted_completion_function = shell_complete;
	rl_completer_word_break_characters = " \t";
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, &old);
	if (hist) {
		read_history(hist);
		/* make sure it exists, so append_history can add to it */
		if (access(hist, F_OK) != 0)
			write_history(hist);
	}
	while (!quit && (line = readline("memctl> "))) {
		bool empty;

		rc = run_line(ctx, line, &quit, &empty);
		if (!empty) {
			add_history(line);
			if (hist && append_history(1, hist) != 0)
				hist = NULL;   /* unwritable: keep the session's history only */
		}
		free(line);
	}
	if (!line && !quit)
		fputc('\n', stdout);
	sigaction(SIGINT, &old, NULL);
	if (hist)
		history_truncate_file(hist, SHELL_HISTORY_LINES);
	words_clear();
	free(alloc);
	return rc;
}

/*
 * One line of a script, checked: a NUL byte or an over-long line is an
 * error of its own (the line is not run). Returns the exit status.
 */
static int script_line(struct mc_ctx *ctx, const char *name, unsigned long no, char *line,
		       size_t len, bool *ret_quit)
{
	bool empty;

	if (memchr(line, '\0', len)) {
		mc_err("%s:%lu: the line holds a NUL byte; not run", name, no);
		return MC_EXIT_INVALID;
	}
	if (len > SHELL_MAX_LINE) {
		mc_err("%s:%lu: the line is longer than %d bytes; not run", name, no, SHELL_MAX_LINE);
		return MC_EXIT_INVALID;
	}
	return run_line(ctx, line, ret_quit, &empty);
}

static int run_script(struct mc_ctx *ctx, const struct shell_opts *o, FILE *in, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned long no = 0;
	int last_fail = MC_EXIT_OK;
	bool quit = false;
	ssize_t len;

	while (!quit && (len = getline(&line, &cap, in)) >= 0) {
		int rc;

		no++;
		rc = script_line(ctx, name, no, line, (size_t)len, &quit);
		if (rc == MC_EXIT_OK)
			continue;
		line[strcspn(line, "\n")] = '\0';
		mc_err("%s:%lu: '%s' failed (exit status %d)%s", name, no, line, rc,
		       o->keep_going ? "" : "; stopping");
		last_fail = rc;
		if (!o->keep_going)
			break;
	}
	free(line);
	return last_fail;
}

/*
 * Runs the -f script at path: read whole with the checks of every input
 * file (a regular file, read consistently, and as root the trust check of
 * profiles: a script decides what root does as much as a profile does).
 */
static int run_script_file(struct mc_ctx *ctx, const struct shell_opts *o, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if ((rc = mc_read_input(ctx, "script", path, SHELL_MAX_SCRIPT, &buf, &len)) != 0)
		return rc;
	f = len ? fmemopen(buf, len, "r") : NULL;
	if (!f && len) {
		mc_err("cannot read script '%s': %s", path, mc_strerror(-errno));
		free(buf);
		return MC_EXIT_HOST;
	}
	rc = f ? run_script(ctx, o, f, path) : MC_EXIT_OK;
	if (f)
		fclose(f);
	free(buf);
	return rc;
}

static int cmd_shell_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct shell_opts *o = opts;
	struct mc_ctx base = *ctx;
	struct mc_ctx *outer = shell_ctx;
	int rc;

	if (ctx->depth > 0 && !o->file) {
		mc_err("already in the shell");
		return MC_EXIT_INVALID;
	}
	if (ctx->depth >= SHELL_MAX_DEPTH) {
		mc_err("scripts run scripts more than %d deep (one that runs itself?); not running '%s'",
		       SHELL_MAX_DEPTH, o->file);
		return MC_EXIT_INVALID;
	}
	base.depth = ctx->depth + 1;
	shell_ctx = &base;
	if (o->file && strcmp(o->file, "-") == 0) {
		if (ctx->reading_stdin) {
			mc_err("'-f -' inside a script that reads stdin itself");
			rc = MC_EXIT_INVALID;
		} else {
			base.reading_stdin = true;
			rc = run_script(&base, o, stdin, "<stdin>");
		}
	} else if (o->file) {
		rc = run_script_file(&base, o, o->file);
	} else if (isatty(STDIN_FILENO)) {
		rc = run_interactive(&base);
	} else {
		base.reading_stdin = true;
		rc = run_script(&base, o, stdin, "<stdin>");
	}
	shell_ctx = outer;
	return rc;
}

static const struct mc_opt shell_opt_file = {
	"file", 'f', MC_OPT_STRING, "FILE", "run the commands in FILE ('-': stdin)",
	MC_COMPLETE_FILE, NULL, false, offsetof(struct shell_opts, file),
};
static const struct mc_opt shell_opt_keep_going = {
	"keep-going", 0, MC_OPT_FLAG, NULL, "go on after a failing line",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct shell_opts, keep_going),
};

const struct mc_cmd cmd_shell_entry = {
	.name = "shell",
	.args = "",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEED_HOST,
	.summary = "run memctl commands from a prompt or a script (stdin, -f FILE)",
	.help = "Lines are memctl command lines without 'memctl'; '#' starts a comment.\n"
		"A script stops at the first failing line (named FILE:LINE) with its exit\n"
		"status; --keep-going runs on and exits with the last failure's status.\n"
		"Options given on a line hold for that line only. A line may run another\n"
		"script with -f FILE, at most 8 deep.\n"
		"History: ~/.memctl_history ($MEMCTL_HISTORY). Tab completes commands,\n"
		"options, groups, knobs and profile paths.\n",
	.opts = (const struct mc_opt *const[]){ &shell_opt_file, &shell_opt_keep_going,
						&mc_opt_parent, &mc_opt_state_dir, &mc_opt_no_wait,
						&mc_opt_quiet, &mc_opt_insecure_profile,
						&mc_opt_cgroup_root, NULL },
	.opts_size = sizeof(struct shell_opts),
	.exec = cmd_shell_exec,
};
