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
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <readline/history.h>
#include <readline/readline.h>

#include "cmd.h"
#include "subtree.h"

#define SHELL_MAX_ARGS 128
#define SHELL_HISTORY_LINES 2000

static struct mc_ctx *shell_ctx;   /* for readline's completion callbacks */

/*
 * Splits a line into words: blanks separate, '...' and "..." quote,
 * backslash escapes one character outside single quotes. Returns the
 * number of words (0: empty or comment), -EINVAL for an unterminated quote
 * or too many words. The words point into buf (a copy the caller frees).
 */
static int split_words(const char *line, char **ret_buf, char **argv, int max)
{
	char *buf = malloc(strlen(line) + 1), *w = buf;
	const char *p = line;
	int argc = 0;

	if (!buf)
		return -ENOMEM;
	*ret_buf = buf;
	for (;;) {
		char quote = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = w;
		for (; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')); p++) {
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
	argc = split_words(line, &buf, argv + 1, SHELL_MAX_ARGS);
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
	} else if (strcmp(argv[1], "shell") == 0) {
		mc_err("already in the shell");
		rc = MC_EXIT_INVALID;
	} else {
		rc = mc_main(ctx, argc + 1, argv);
	}
	fflush(ctx->out_f);
	free(buf);
	return rc;
}

/* --- completion --- */

static char **words;        /* candidates of the current completion */
static size_t n_words;

static void words_clear(void)
{
	for (size_t i = 0; i < n_words; i++)
		free(words[i]);
	free(words);
	words = NULL;
	n_words = 0;
}

static void words_add(const char *w)
{
	char **v = realloc(words, (n_words + 1) * sizeof(*v));

	if (!v)
		return;
	words = v;
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

/* Group paths below the parent, from a walk of the live tree. */
static void add_groups(void)
{
	struct mc_subtree *rd = NULL;
	char *parent = NULL;

	if (!shell_ctx->host || mc_host_resolve_parent(shell_ctx->host, shell_ctx->parent,
							 &parent) < 0)
		return;
	if (mc_subtree_new(shell_ctx->host, parent, &rd) == 0 && mc_subtree_scan(rd, true) >= 0)
		for (size_t i = 1; i < mc_subtree_count(rd); i++)
			words_add(mc_subtree_entry(rd, i)->path);
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

/* Which command the line starts with (after options), and the word index of text. */
static const struct mc_cmd *line_command(int start, int *ret_index)
{
	char *argv[SHELL_MAX_ARGS + 1], *buf = NULL, *head = strndup(rl_line_buffer, (size_t)start);
	const struct mc_cmd *cmd = NULL;
	int argc, index = 0;

	*ret_index = 0;
	if (!head)
		return NULL;
	argc = split_words(head, &buf, argv, SHELL_MAX_ARGS);
	for (int i = 0; i < argc; i++) {
		if (!cmd && argv[i][0] == '-')
			continue;
		if (!cmd) {
			for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
				if (strcmp((*c)->name, argv[i]) == 0)
					cmd = *c;
			if (!cmd)
				break;
			continue;
		}
		index++;
	}
	*ret_index = cmd ? index + 1 : 0;
	free(buf);
	free(head);
	return cmd;
}

static char **shell_complete(const char *text, int start, int end)
{
	const struct mc_cmd *cmd;
	int index;

	rl_attempted_completion_over = 1;
	words_clear();
	cmd = line_command(start, &index);
	if (index == 0) {
		for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
			words_add((*c)->name);
		words_add("help");
		words_add("exit");
		words_add("quit");
	} else if (!cmd) {
		return NULL;
	} else if (strcmp(cmd->args, "PROFILE") == 0) {
		rl_attempted_completion_over = 0;   /* readline's file names */
		return NULL;
	} else if (index == 1 && strncmp(cmd->args, "GROUP", 5) == 0) {
		add_groups();
		rl_completion_append_character = ' ';
	} else if (strcmp(cmd->name, "set") == 0) {
		add_knobs(true);
		rl_completion_append_character = '\0';
	} else if (strcmp(cmd->name, "get") == 0) {
		add_knobs(false);
	} else {
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

static int run_script(struct mc_ctx *ctx, FILE *in, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned long no = 0;
	int last_fail = MC_EXIT_OK;
	bool quit = false;

	while (!quit && getline(&line, &cap, in) >= 0) {
		bool empty;
		int rc;

		no++;
		rc = run_line(ctx, line, &quit, &empty);
		if (rc == MC_EXIT_OK)
			continue;
		line[strcspn(line, "\n")] = '\0';
		mc_err("%s:%lu: '%s' failed (exit status %d)%s", name, no, line, rc,
		       ctx->keep_going ? "" : "; stopping");
		last_fail = rc;
		if (!ctx->keep_going)
			break;
	}
	free(line);
	return last_fail;
}

static int cmd_shell_exec(struct mc_ctx *ctx, int argc, char **argv)
{
	struct mc_ctx base = *ctx;
	int rc;

	base.script = NULL;   /* a line's own -f would start another shell */
	shell_ctx = &base;
	if (ctx->script) {
		FILE *f = strcmp(ctx->script, "-") == 0 ? stdin : fopen(ctx->script, "re");

		if (!f) {
			mc_err("cannot read script '%s': %s", ctx->script, mc_strerror(-errno));
			return MC_EXIT_INVALID;
		}
		rc = run_script(&base, f, ctx->script);
		if (f != stdin)
			fclose(f);
	} else if (isatty(STDIN_FILENO)) {
		rc = run_interactive(&base);
	} else {
		rc = run_script(&base, stdin, "<stdin>");
	}
	shell_ctx = NULL;
	return rc;
}

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
		"History: ~/.memctl_history ($MEMCTL_HISTORY). Tab completes commands,\n"
		"groups, knobs and profile paths.\n",
	.exec = cmd_shell_exec,
};
