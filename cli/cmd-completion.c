/*
 * memctl completion bash|zsh|groups: shell completion scripts generated
 * from the program's own tables, so they cannot drift from it.
 *
 * One model is built from the tables, then written in either shell's
 * language. The model has a context per command (its names: every unique
 * prefix memctl accepts, and its alias) with the options it takes (from
 * its option table and the global ones) and what each of its arguments
 * completes to (struct mc_cmd.arg_complete), plus one context for the words
 * before the command, which may be any command's option. An option's value
 * completes to what its table entry says: -o to exactly the formats that
 * command accepts.
 *
 * Group names come from the host, and anyone allowed to create a group
 * below the parent chooses them: `$(touch x)` and backticks are names like
 * any other. So they never reach compgen -W, eval or _call_program, which
 * would expand them: `memctl completion groups` prints each one quoted for
 * the shell (control bytes escaped too, so none reaches the terminal), the
 * bash script matches and inserts those words as plain text, and the zsh
 * script removes the quoting with ${(Q)...} and lets compadd quote again.
 *
 * The build runs this to produce the installed files (CMakeLists.txt).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "subtree.h"
#include "columns.h"

/* ---- the model ---- */

#define COMP_MAX_OPTS 48

struct comp_opt {
	const struct mc_opt *opt;   /* the first command's entry for this name */
	char words[64];             /* MC_COMPLETE_WORDS: of every command in the context */
};

struct comp_ctx {
	const struct mc_cmd *cmd;   /* NULL: the words before the command */
	struct comp_opt opts[COMP_MAX_OPTS];
	size_t n_opts;
};

/* Adds a word of o's list to w unless it is there already. */
static void words_merge(char *w, size_t len, const char *add)
{
	for (const char *p = add; *p; p += strcspn(p, " "), p += strspn(p, " ")) {
		size_t l = strcspn(p, " "), have = strlen(w);
		bool found = false;

		for (const char *q = w; *q; q += strcspn(q, " "), q += strspn(q, " "))
			if (strcspn(q, " ") == l && strncmp(q, p, l) == 0)
				found = true;
		if (!found && have + l + 2 < len)
			snprintf(w + have, len - have, "%s%.*s", have ? " " : "", (int)l, p);
	}
}

static void ctx_add(const struct mc_opt *o, void *arg)
{
	struct comp_ctx *c = arg;
	struct comp_opt *co = NULL;

	for (size_t i = 0; i < c->n_opts; i++)
		if (strcmp(c->opts[i].opt->name, o->name) == 0)
			co = &c->opts[i];
	if (!co) {
		if (c->n_opts == COMP_MAX_OPTS)
			return;   /* tests/unit/test-opts.c keeps the tables below this */
		co = &c->opts[c->n_opts++];
		*co = (struct comp_opt){ .opt = o };
	}
	if (o->words)
		words_merge(co->words, sizeof(co->words), o->words);
}

/* The context of cmd (NULL: before the command, any command's options). */
static void ctx_build(const struct mc_cmd *cmd, struct comp_ctx *ret)
{
	*ret = (struct comp_ctx){ .cmd = cmd };
	if (cmd) {
		mc_cmd_each_opt(cmd, ctx_add, ret);
		return;
	}
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
		mc_cmd_each_opt(*c, ctx_add, ret);
}

/* How many arguments the context completes, and whether the last repeats. */
static int ctx_args(const struct comp_ctx *c, bool *ret_repeat)
{
	const int n = (int)(sizeof(c->cmd->arg_complete) / sizeof(c->cmd->arg_complete[0]));
	int last = -1;

	*ret_repeat = false;
	if (!c->cmd)
		return 0;
	for (int i = 0; i < n; i++)
		if (c->cmd->arg_complete[i] != MC_COMPLETE_NONE)
			last = i;
	*ret_repeat = c->cmd->max_args < 0 && last >= 0;
	return last + 1;
}

/*
 * The words memctl takes for c (see mc_cmd_find): each prefix of its name
 * that no other command shares, the name itself, and its alias.
 */
static void put_prefixes(FILE *f, const struct mc_cmd *c, const char *sep)
{
	size_t len = strlen(c->name);
	bool first = true;

	for (size_t l = 1; l <= len; l++) {
		bool unique = true;

		for (const struct mc_cmd *const *o = mc_cmd_table; *o; o++)
			if (*o != c && strncmp((*o)->name, c->name, l) == 0)
				unique = false;
		if (!unique && l < len)
			continue;
		fprintf(f, "%s%.*s", first ? "" : sep, (int)l, c->name);
		first = false;
	}
	if (c->alias)
		fprintf(f, "%s%s", sep, c->alias);
}

static void put_knobs(FILE *f, bool assign)
{
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		fprintf(f, "%s%s%s", k ? " " : "", mc_knob_info((enum mc_knob)k)->name,
			assign ? "=" : "");
	if (!assign)
		fputs(" usage", f);
}

static void put_columns(FILE *f)
{
	for (size_t i = 0; i < top_n_cols; i++)
		fprintf(f, "%s%s", i ? " " : "", top_cols[i].name);
}

/* The fixed words a kind completes to (knobs, columns, words); false: not a word list. */
static bool put_word_list(FILE *f, enum mc_complete what, const char *words)
{
	switch (what) {
	case MC_COMPLETE_KNOB:
		put_knobs(f, false);
		return true;
	case MC_COMPLETE_COLUMN:
		put_columns(f);
		return true;
	case MC_COMPLETE_WORDS:
		fputs(words ? words : "", f);
		return true;
	default:
		return false;
	}
}

/* How a shell writes the model. */
struct dialect {
	const char *prologue;
	const char *epilogue;
	void (*context)(FILE *f, const struct comp_ctx *c);
	const char *contexts_begin;
	const char *contexts_end;
};

static void generate(FILE *f, const struct dialect *d)
{
	struct comp_ctx c;

	fputs(d->prologue, f);
	ctx_build(NULL, &c);
	d->context(f, &c);
	fputs(d->contexts_begin, f);
	for (const struct mc_cmd *const *cmd = mc_cmd_table; *cmd; cmd++) {
		ctx_build(*cmd, &c);
		d->context(f, &c);
	}
	fputs(d->contexts_end, f);
	fputs(d->epilogue, f);
}

/* ---- bash ---- */

static void bash_complete(FILE *f, enum mc_complete what, const char *words, const char *indent)
{
	switch (what) {
	case MC_COMPLETE_NONE:
		fprintf(f, "%s:\n", indent);
		return;
	case MC_COMPLETE_FILE:
		fprintf(f, "%s_filedir\n", indent);
		return;
	case MC_COMPLETE_DIR:
		fprintf(f, "%s_filedir -d\n", indent);
		return;
	case MC_COMPLETE_PROFILE:
		fprintf(f, "%s_filedir '@(yaml|yml)'\n", indent);
		return;
	case MC_COMPLETE_GROUP:
		fprintf(f, "%s_memctl_groups \"$parent\" ''\n", indent);
		return;
	case MC_COMPLETE_PARENT:
		fprintf(f, "%s_memctl_groups '' self/ self\n", indent);
		return;
	case MC_COMPLETE_COMMAND:
		/* bash-completion's own: the command word, then its own completion */
		fprintf(f, "%s_command_offset $cword\n", indent);
		return;
	case MC_COMPLETE_KNOB_SET:
		fprintf(f, "%s_memctl_words ", indent);
		put_knobs(f, true);
		fprintf(f, "\n%scompopt -o nospace\n", indent);
		return;
	default:
		fprintf(f, "%s_memctl_words ", indent);
		put_word_list(f, what, words);
		fputc('\n', f);
		return;
	}
}

static void bash_opt_pattern(FILE *f, const struct mc_opt *o)
{
	if (o->short_name)
		fprintf(f, "-%c|", o->short_name);
	fprintf(f, "--%s", o->name);
}

/*
 * The words before the command, in bash: the loop that finds the command
 * (options that take a value skip it; -p is kept for the group lists),
 * then the branch for a line with no command yet.
 */
static void bash_find_command(FILE *f, const struct comp_ctx *c)
{
	fputs("\t# the options that take a value skip it when looking for the command\n"
	      "\tfor ((i = 1; i < ${#words[@]}; i++)); do\n"
	      "\t\t((i == cword)) && continue\n"
	      "\t\tw=${words[i]}\n"
	      "\t\tcase $w in\n"
	      "\t\t-p|--parent) ((i + 1 != cword)) && parent=${words[i + 1]}; ((i++)); continue ;;\n"
	      "\t\t--parent=*) parent=${w#--parent=}; continue ;;\n\t\t", f);
	for (size_t i = 0, first = 1; i < c->n_opts; i++) {
		if (c->opts[i].opt->type == MC_OPT_FLAG ||
		    strcmp(c->opts[i].opt->name, "parent") == 0)
			continue;
		fputs(first ? "" : "|", f);
		bash_opt_pattern(f, c->opts[i].opt);
		first = 0;
	}
	fputs(") ((i++)); continue ;;\n"
	      "\t\t-*) continue ;;\n"
	      "\t\tesac\n"
	      "\t\tif [[ -z $cmd ]]; then cmd=$w cmd_at=$i; elif ((i < cword)); then ((argi++)); fi\n"
	      "\tdone\n"
	      "\t# before the command only options make sense\n"
	      "\t((cmd_at > cword)) && argi=-1\n\n"
	      "\t# the command, by name, unique prefix or alias; then its argument argi\n"
	      "\tcase $cmd in\n"
	      "\t'')\n", f);
}

static void bash_context(FILE *f, const struct comp_ctx *c)
{
	bool repeat;
	int n = ctx_args(c, &repeat);

	if (c->cmd) {
		fputs("\t", f);
		put_prefixes(f, c->cmd, "|");
		fputs(")\n", f);
	} else {
		bash_find_command(f, c);
	}
	fputs("\t\tcase $prev in\n", f);
	for (size_t i = 0; i < c->n_opts; i++) {
		const struct mc_opt *o = c->opts[i].opt;

		if (o->type == MC_OPT_FLAG)
			continue;
		fputs("\t\t", f);
		bash_opt_pattern(f, o);
		fputs(")\n", f);
		bash_complete(f, o->complete, c->opts[i].words, "\t\t\t");
		fputs("\t\t\treturn ;;\n", f);
	}
	fputs("\t\tesac\n"
	      "\t\tif [[ $cur == -* ]]; then\n"
	      "\t\t\t_memctl_words", f);
	for (size_t i = 0; i < c->n_opts; i++) {
		fprintf(f, " --%s", c->opts[i].opt->name);
		if (c->opts[i].opt->short_name)
			fprintf(f, " -%c", c->opts[i].opt->short_name);
	}
	fputs("\n\t\t\treturn\n\t\tfi\n", f);
	if (!c->cmd) {
		fputs("\t\t_memctl_words", f);
		for (const struct mc_cmd *const *cmd = mc_cmd_table; *cmd; cmd++)
			fprintf(f, " %s", (*cmd)->name);
		fputs("\n\t\t;;\n", f);
		return;
	}
	if (n == 0) {
		fputs("\t\t;;\n", f);
		return;
	}
	fputs("\t\tcase $argi in\n", f);
	for (int i = 0; i < n; i++) {
		if (repeat && i == n - 1)
			fprintf(f, "\t\t%d|[1-9]*)\n", i);
		else
			fprintf(f, "\t\t%d)\n", i);
		bash_complete(f, c->cmd->arg_complete[i], c->cmd->arg_words, "\t\t\t");
		fputs("\t\t\t;;\n", f);
	}
	fputs("\t\tesac\n\t\t;;\n", f);
}

static const struct dialect bash = {
	.prologue =
		"# bash completion for memctl(8).\n"
		"# Generated by 'memctl completion bash' from memctl's command and option\n"
		"# tables: regenerate it, do not edit it.\n\n"
		"# Adds the words among $@ that start with $cur, as plain text: no compgen -W,\n"
		"# which would expand $(...) in them.\n"
		"_memctl_words()\n{\n"
		"\tlocal w\n"
		"\tfor w; do\n"
		"\t\t[[ $w == \"$cur\"* ]] && COMPREPLY+=(\"$w\")\n"
		"\tdone\n"
		"}\n\n"
		"# The groups below the parent $1 (default: the caller's own cgroup), each\n"
		"# with prefix $2, and the words $3...: those that start with $cur. Anyone\n"
		"# who may create a group below the parent names it, so memctl prints the\n"
		"# names quoted for the shell and they are matched and inserted as they are.\n"
		"_memctl_groups()\n{\n"
		"\tlocal parent=$1 prefix=$2 w\n"
		"\tshift 2\n"
		"\t_memctl_words \"$@\"\n"
		"\twhile IFS= read -r w; do\n"
		"\t\tw=$prefix$w\n"
		"\t\t[[ $w == \"$cur\"* ]] && COMPREPLY+=(\"$w\")\n"
		"\tdone < <(\"${_memctl_prog:-memctl}\" ${parent:+-p \"$parent\"} completion groups "
		"2>/dev/null)\n"
		"}\n\n"
		"_memctl()\n{\n"
		"\tlocal cur prev words cword split\n"
		"\t_init_completion -s -n = || return\n"
		"\tlocal _memctl_prog=${words[0]}\n"
		"\tlocal i w cmd= cmd_at=0 argi=0 parent=\n"
		"\tCOMPREPLY=()\n\n",
	.contexts_begin = "",
	.contexts_end = "\tesac\n",
	.epilogue = "} &&\n\tcomplete -F _memctl memctl\n",
	.context = bash_context,
};

/* ---- zsh ---- */

/* Text inside '...' in zsh, and inside an _arguments [description]. */
static void zsh_desc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
}

static void zsh_action(FILE *f, enum mc_complete what, const char *words)
{
	switch (what) {
	case MC_COMPLETE_NONE:
		fputs(" ", f);
		return;
	case MC_COMPLETE_FILE:
		fputs("_files", f);
		return;
	case MC_COMPLETE_DIR:
		fputs("_files -/", f);
		return;
	case MC_COMPLETE_PROFILE:
		fputs("_files -g \"*.(yaml|yml)(-.)\"", f);
		return;
	case MC_COMPLETE_GROUP:
		fputs("_memctl_groups", f);
		return;
	case MC_COMPLETE_PARENT:
		fputs("_memctl_parent", f);
		return;
	case MC_COMPLETE_KNOB_SET:
		fputs("_memctl_knob_set", f);
		return;
	case MC_COMPLETE_COMMAND:
		fputs("_command_names -e", f);
		return;
	default:
		fputs("(", f);
		put_word_list(f, what, words);
		fputs(")", f);
		return;
	}
}

static void zsh_opt(FILE *f, const struct comp_opt *co)
{
	const struct mc_opt *o = co->opt;
	bool value = o->type != MC_OPT_FLAG;

	fputs(" \\\n      ", f);
	if (o->short_name)
		fprintf(f, "'(-%c --%s)'{-%c%s,--%s%s}'[", o->short_name, o->name, o->short_name,
			value ? "+" : "", o->name, value ? "=" : "");
	else
		fprintf(f, "'--%s%s[", o->name, value ? "=" : "");
	zsh_desc(f, o->help);
	fputs("]", f);
	if (value) {
		fprintf(f, ":%s:", o->name);
		zsh_action(f, o->complete, co->words);
	}
	fputs("'", f);
}

static void zsh_context(FILE *f, const struct comp_ctx *c)
{
	bool repeat;
	int n = ctx_args(c, &repeat);

	if (!c->cmd) {
		fputs("  _arguments -C -s -S", f);
		for (size_t i = 0; i < c->n_opts; i++)
			zsh_opt(f, &c->opts[i]);
		fputs(" \\\n      '1:command:->command' \\\n"
		      "      '*::argument:->argument' && ret=0\n\n", f);
		return;
	}
	fputs("    ", f);
	put_prefixes(f, c->cmd, "|");
	fputs(")\n      _arguments -s -S", f);
	for (size_t i = 0; i < c->n_opts; i++)
		zsh_opt(f, &c->opts[i]);
	for (int i = 0; i < n; i++) {
		if (repeat && i == n - 1)
			fputs(" \\\n      '*:argument:", f);
		else
			fprintf(f, " \\\n      '%d:argument:", i + 1);
		zsh_action(f, c->cmd->arg_complete[i], c->cmd->arg_words);
		fputs("'", f);
	}
	fputs(" && ret=0\n      ;;\n", f);
}

/* The zsh prologue up to the command list, which comes from the table. */
static const char zsh_head[] =
	"#compdef memctl\n"
	"# zsh completion for memctl(8).\n"
	"# Generated by 'memctl completion zsh' from memctl's command and option\n"
	"# tables: regenerate it, do not edit it.\n\n"
	"# The groups below the parent (-p, default: the caller's own cgroup), live.\n"
	"# Anyone who may create a group below the parent names it: memctl prints the\n"
	"# names quoted for the shell; (Q) unquotes them without expanding anything\n"
	"# (no eval, no _call_program), and compadd quotes them again for the line.\n"
	"_memctl_group_list() {\n"
	"  local g\n"
	"  reply=()\n"
	"  for g in ${(f)\"$(\"${memctl_prog:-memctl}\" \"$@\" completion groups 2>/dev/null)\"}; do\n"
	"    reply+=(\"${(Q)g}\")\n"
	"  done\n"
	"}\n\n"
	"_memctl_groups() {\n"
	"  local parent=${opt_args[-p]:-${opt_args[--parent]:-$memctl_parent}}\n"
	"  local -a reply\n"
	"  _memctl_group_list ${parent:+-p} $parent\n"
	"  compadd -a reply\n"
	"}\n\n"
	"# -p PARENT: self, or a group below it.\n"
	"_memctl_parent() {\n"
	"  local -a reply\n"
	"  _memctl_group_list\n"
	"  compadd self\n"
	"  compadd -p self/ -a reply\n"
	"}\n\n";

static void gen_zsh(FILE *f)
{
	const struct dialect zsh = {
		.prologue = "",
		.contexts_begin =
			"  case $state in\n"
			"  command)\n"
			"    _describe -t commands 'memctl command' commands && ret=0\n"
			"    ;;\n"
			"  argument)\n"
			"    # -p before the command: the command's _arguments resets opt_args\n"
			"    local memctl_parent=${opt_args[-p]:-${opt_args[--parent]}}\n"
			"    # the command, by name, unique prefix or alias\n"
			"    curcontext=${curcontext%:*:*}:memctl-$words[1]:\n"
			"    case $words[1] in\n",
		.contexts_end = "    esac\n    ;;\n  esac\n",
		.epilogue = "  return ret\n}\n\n_memctl \"$@\"\n",
		.context = zsh_context,
	};

	fputs(zsh_head, f);
	fputs("_memctl_knob_set() {\n  compadd -S '' -- ", f);
	put_knobs(f, true);
	fputs("\n}\n\n"
	      "_memctl() {\n"
	      "  local curcontext=$curcontext state line ret=1 memctl_prog=$words[1]\n"
	      "  typeset -A opt_args\n"
	      "  local -a commands\n"
	      "  commands=(\n", f);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		fprintf(f, "    '%s:", (*c)->name);
		zsh_desc(f, (*c)->summary);
		fputs("'\n", f);
	}
	fputs("  )\n", f);
	generate(f, &zsh);
}

/* ---- groups ---- */

/* A byte that may stand unquoted in a bash or zsh word, anywhere in it. */
static bool shell_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_./-+,@%:", c) != NULL;
}

/*
 * The length of the printable UTF-8 character at s (1 to 4), or 0 for a
 * byte that is not one: invalid UTF-8, or a C1 control (U+0080 to U+009F),
 * which some terminals obey as they obey ESC.
 */
static size_t utf8_printable(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] < 0x80 || s[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
		return 0;
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0;
	return n;
}

/*
 * Prints s as one word that bash and zsh read back as s and expand nothing
 * in: plain bytes as they are, each run of other bytes in $'...' with
 * quotes, backslashes, '!' and every control or non-printable byte as \xHH
 * (so no escape sequence reaches the terminal either). A plain prefix stays
 * plain, so what a user types still matches it.
 */
static void put_shell_word(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	bool quoted = false;

	if (!*p)
		fputs("''", f);
	while (*p) {
		size_t n = *p >= 0x80 ? utf8_printable(p) : 0;

		if (shell_plain(*p)) {
			if (quoted)
				fputc('\'', f);
			quoted = false;
			fputc(*p++, f);
			continue;
		}
		if (!quoted)
			fputs("$'", f);
		quoted = true;
		if (n) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		if (*p < 0x20 || *p >= 0x7f || *p == '\'' || *p == '\\' || *p == '!')
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
		p++;
	}
	if (quoted)
		fputc('\'', f);
}

static int list_groups(struct mc_ctx *ctx)
{
	struct mc_host_opts ho = { .cgroup_root = ctx->cgroup_root, .fake_version = ctx->fake_version };
	struct mc_subtree *rd = NULL;
	struct mc_host *h = NULL;
	char *parent = NULL;
	int r;

	r = mc_host_open(&ho, &h);
	if (r == 0 && (r = mc_host_resolve_parent(h, ctx->parent, &parent)) < 0) {
		mc_err("invalid parent '%s' (-p, --parent): %s", ctx->parent, mc_resolve_why(r, false));
		mc_host_free(h);
		return MC_EXIT_INVALID;
	}
	if (r == 0)
		r = mc_subtree_new(h, parent, &rd);
	if (r == 0)
		r = mc_subtree_scan(rd, true);
	if (r >= 0)
		for (size_t i = 1; i < mc_subtree_count(rd); i++) {
			put_shell_word(ctx->out_f, mc_subtree_entry(rd, i)->path);
			fputc('\n', ctx->out_f);
		}
	mc_subtree_free(rd);
	free(parent);
	if (h)
		mc_host_free(h);
	if (r < 0) {
		mc_err("cannot list the groups below '%s': %s", ctx->parent, mc_strerror(r));
		return r == -ENOENT ? MC_EXIT_INVALID : MC_EXIT_HOST;
	}
	return MC_EXIT_OK;
}

static int cmd_completion_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	if (strcmp(argv[0], "bash") == 0)
		generate(ctx->out_f, &bash);
	else if (strcmp(argv[0], "zsh") == 0)
		gen_zsh(ctx->out_f);
	else if (strcmp(argv[0], "groups") == 0)
		return list_groups(ctx);
	else {
		mc_err("completion: unknown shell '%s' (bash, zsh, or groups)", argv[0]);
		return MC_EXIT_INVALID;
	}
	return MC_EXIT_OK;
}

const struct mc_cmd cmd_completion_entry = {
	.name = "completion",
	.args = "bash|zsh",
	.min_args = 1,
	.max_args = 1,
	.summary = "print the bash or zsh completion script, made from this command table",
	.help = "The scripts are generated from memctl's command and option tables; the build\n"
		"installs them. 'memctl completion groups' prints the groups below -p PARENT,\n"
		"one per line, quoted for bash and zsh where a name needs it: the scripts call\n"
		"it to complete GROUP arguments.\n",
	.arg_complete = { MC_COMPLETE_WORDS },
	.arg_words = "bash zsh",
	.opts = (const struct mc_opt *const[]){ &mc_opt_parent, &mc_opt_cgroup_root, NULL },
	.exec = cmd_completion_exec,
};
