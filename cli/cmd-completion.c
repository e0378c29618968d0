/*
 * memctl completion bash|zsh|groups: shell completion scripts generated
 * from the program's own tables, so they cannot drift from it.
 *
 * Commands come from mc_cmd_table, with every unique prefix memctl accepts;
 * what each argument position completes to comes from the command's args
 * string ("PROFILE" -> *.yaml files, "GROUP" -> live groups, "KNOB..." ->
 * knob names from the knob table, "a|b" -> those words). Options come from
 * mc_longopts and mc_shortopts; their descriptions and the kind of value
 * they take (the metavariable: PATH, FORMAT, DIR, FILE, COLUMN...) from
 * mc_options_help. Group names are listed at completion time by
 * `memctl completion groups`, which prints the groups below -p PARENT.
 *
 * The build runs this to produce the installed files (CMakeLists.txt).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "subtree.h"
#include "columns.h"

enum kind {
	K_NONE,      /* nothing to offer (a number) */
	K_FILE,
	K_DIR,
	K_PROFILE,   /* *.yaml, *.yml */
	K_GROUP,
	K_PARENT,    /* self, self/GROUP, /PATH */
	K_KNOB,      /* get: knob names */
	K_KNOB_SET,  /* set: knob= */
	K_COLUMN,    /* top's columns */
	K_WORDS,     /* a fixed list */
};

struct arg {
	enum kind kind;
	char words[128];   /* K_WORDS: space-separated */
};

/* What a value written as metavar in the help completes to. */
static const struct {
	const char *metavar;
	enum kind kind;
	const char *words;
} metavars[] = {
	{ "PATH", K_PARENT, NULL },
	{ "FORMAT", K_WORDS, "text json" },
	{ "DIR", K_DIR, NULL },
	{ "FILE", K_FILE, NULL },
	{ "COLUMN", K_COLUMN, NULL },
	{ "LIST", K_COLUMN, NULL },
	{ "N", K_NONE, NULL },
	{ "SECONDS", K_NONE, NULL },
};

/* One option, as the help describes it. */
struct opt {
	const char *name;       /* long name */
	char shortname;         /* 0: none */
	bool has_arg;
	struct arg arg;
	char desc[160];
};

/*
 * Finds "--name" in mc_options_help and reads its metavariable and the
 * first line of its description. -ENOENT when the help does not list it.
 */
static int opt_from_help(const struct option *o, struct opt *ret)
{
	size_t n = strlen(o->name);
	const char *p = mc_options_help, *meta;

	for (;;) {
		p = strstr(p, "--");
		if (!p)
			return -ENOENT;
		p += 2;
		if (strncmp(p, o->name, n) == 0 && (p[n] == ' ' || p[n] == '\n'))
			break;
	}
	*ret = (struct opt){ .name = o->name, .has_arg = o->has_arg != no_argument };
	if (o->val > 0 && o->val < 128 && strchr(mc_shortopts, o->val))
		ret->shortname = (char)o->val;
	p += n;
	meta = p + 1;
	if (*p == ' ' && *meta >= 'A' && *meta <= 'Z') {
		size_t ml = strspn(meta, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");

		ret->arg.kind = K_FILE;   /* an unknown metavariable: a file is the best guess */
		for (size_t i = 0; i < sizeof(metavars) / sizeof(metavars[0]); i++) {
			if (strlen(metavars[i].metavar) == ml && strncmp(meta, metavars[i].metavar, ml) == 0) {
				ret->arg.kind = metavars[i].kind;
				if (metavars[i].words)
					snprintf(ret->arg.words, sizeof(ret->arg.words), "%s",
						 metavars[i].words);
			}
		}
		p = meta + ml;
	}
	/* the description, with its continuation lines (indented, no option) */
	for (size_t off = 0; *p && off < sizeof(ret->desc) - 1;) {
		size_t l;

		p += strspn(p, " ");
		l = strcspn(p, "\n");
		off += (size_t)snprintf(ret->desc + off, sizeof(ret->desc) - off, "%s%.*s",
					off ? " " : "", (int)l, p);
		p += l;
		if (*p != '\n' || strncmp(p + 1, "          ", 10) != 0 || p[1 + strspn(p + 1, " ")] == '-')
			break;
		p++;
	}
	return 0;
}

/* The kind of one word of a command's args string ("[KNOB...]"). */
static void arg_kind(const char *w, size_t len, struct arg *ret, bool *ret_repeat)
{
	char t[64];

	*ret = (struct arg){ .kind = K_FILE };
	snprintf(t, sizeof(t), "%.*s", (int)len, w);
	t[strcspn(t, "]")] = '\0';
	*ret_repeat = strstr(t, "...") != NULL;
	t[strcspn(t, ".")] = '\0';
	if (strchr(t, '|')) {
		ret->kind = K_WORDS;
		for (char *p = t; *p; p++)
			if (*p == '|')
				*p = ' ';
		snprintf(ret->words, sizeof(ret->words), "%s", t);
	} else if (strcmp(t, "PROFILE") == 0) {
		ret->kind = K_PROFILE;
	} else if (strcmp(t, "GROUP") == 0) {
		ret->kind = K_GROUP;
	} else if (strcmp(t, "KNOB") == 0) {
		ret->kind = K_KNOB;
	} else if (strcmp(t, "KNOB=VALUE") == 0) {
		ret->kind = K_KNOB_SET;
	}
}

#define MAX_ARGS 8

/* A command's positional arguments; returns how many, *ret_repeat: the last repeats. */
static size_t cmd_args(const struct mc_cmd *c, struct arg *ret, bool *ret_repeat)
{
	const char *p = c->args;
	size_t n = 0;

	*ret_repeat = false;
	while (*p && n < MAX_ARGS) {
		size_t len;

		p += strspn(p, " [");
		len = strcspn(p, " ");
		if (!len)
			break;
		arg_kind(p, len, &ret[n++], ret_repeat);
		p += len;
	}
	return n;
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

static size_t load_opts(struct opt *v, size_t max)
{
	size_t n = 0;

	for (const struct option *o = mc_longopts; o->name && n < max; o++)
		if (opt_from_help(o, &v[n]) == 0)
			n++;
	return n;
}

/* ---- bash ---- */

static void bash_complete_kind(FILE *f, const struct arg *a, const char *indent)
{
	switch (a->kind) {
	case K_NONE:
		fprintf(f, "%s:\n", indent);
		break;
	case K_FILE:
		fprintf(f, "%s_filedir\n", indent);
		break;
	case K_DIR:
		fprintf(f, "%s_filedir -d\n", indent);
		break;
	case K_PROFILE:
		fprintf(f, "%s_filedir '@(yaml|yml)'\n", indent);
		break;
	case K_GROUP:
		fprintf(f, "%s_memctl_groups \"$parent\"\n", indent);
		break;
	case K_PARENT:
		fprintf(f, "%s_memctl_groups '' self/ self\n", indent);
		break;
	case K_KNOB:
		fprintf(f, "%sCOMPREPLY=($(compgen -W '", indent);
		put_knobs(f, false);
		fputs("' -- \"$cur\"))\n", f);
		break;
	case K_KNOB_SET:
		fprintf(f, "%sCOMPREPLY=($(compgen -W '", indent);
		put_knobs(f, true);
		fprintf(f, "' -- \"$cur\"))\n%scompopt -o nospace\n", indent);
		break;
	case K_COLUMN:
		fprintf(f, "%sCOMPREPLY=($(compgen -W '", indent);
		put_columns(f);
		fputs("' -- \"$cur\"))\n", f);
		break;
	case K_WORDS:
		fprintf(f, "%sCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n", indent, a->words);
		break;
	}
}

static void put_opt_pattern(FILE *f, const struct opt *o)
{
	if (o->shortname)
		fprintf(f, "-%c|", o->shortname);
	fprintf(f, "--%s", o->name);
}

static void gen_bash(FILE *f)
{
	struct opt opts[64];
	size_t n_opts = load_opts(opts, 64);

	fputs("# bash completion for memctl(8).\n"
	      "# Generated by 'memctl completion bash' from memctl's command and option\n"
	      "# tables: regenerate it, do not edit it.\n\n"
	      "# Groups below the parent $1 (default: the caller's own cgroup), from the\n"
	      "# live tree, each with prefix $2, and the words in $3.\n"
	      "_memctl_groups()\n{\n"
	      "\tlocal IFS=$'\\n' g\n"
	      "\tg=($(\"${_memctl_prog:-memctl}\" ${1:+-p \"$1\"} completion groups 2>/dev/null))\n"
	      "\tCOMPREPLY=($(compgen -W \"${3-}${IFS}${g[*]/#/${2-}}\" -- \"$cur\"))\n"
	      "}\n\n"
	      "_memctl()\n{\n"
	      "\tlocal cur prev words cword split\n"
	      "\t_init_completion -s -n = || return\n"
	      "\tlocal _memctl_prog=${words[0]}\n"
	      "\tlocal i w cmd= argi=0 parent=\n\n"
	      "\tfor ((i = 1; i < cword; i++)); do\n"
	      "\t\tw=${words[i]}\n"
	      "\t\tcase $w in\n"
	      "\t\t-p|--parent) parent=${words[i + 1]}; ((i++)); continue ;;\n"
	      "\t\t--parent=*) parent=${w#--parent=}; continue ;;\n", f);
	/* options that take a value skip it */
	fputs("\t\t", f);
	for (size_t i = 0, first = 1; i < n_opts; i++) {
		if (!opts[i].has_arg || strcmp(opts[i].name, "parent") == 0)
			continue;
		fputs(first ? "" : "|", f);
		put_opt_pattern(f, &opts[i]);
		first = 0;
	}
	fputs(") ((i++)); continue ;;\n"
	      "\t\t-*) continue ;;\n"
	      "\t\tesac\n"
	      "\t\tif [[ -z $cmd ]]; then cmd=$w; else ((argi++)); fi\n"
	      "\tdone\n\n"
	      "\tcase $prev in\n", f);
	for (size_t i = 0; i < n_opts; i++) {
		if (!opts[i].has_arg)
			continue;
		fputs("\t", f);
		put_opt_pattern(f, &opts[i]);
		fputs(")\n", f);
		bash_complete_kind(f, &opts[i].arg, "\t\t");
		fputs("\t\treturn ;;\n", f);
	}
	fputs("\tesac\n"
	      "\t$split && return\n\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '", f);
	for (size_t i = 0; i < n_opts; i++) {
		fprintf(f, "%s--%s", i ? " " : "", opts[i].name);
		if (opts[i].shortname)
			fprintf(f, " -%c", opts[i].shortname);
	}
	fputs("' -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tif [[ -z $cmd ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '", f);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
		fprintf(f, "%s%s", c == mc_cmd_table ? "" : " ", (*c)->name);
	fputs("' -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n\n"
	      "\t# the command, by name, unique prefix or alias; then its argument at argi\n"
	      "\tcase $cmd in\n", f);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		struct arg args[MAX_ARGS];
		bool repeat;
		size_t n = cmd_args(*c, args, &repeat);

		fputs("\t", f);
		put_prefixes(f, *c, "|");
		fputs(")\n", f);
		if (n == 0) {
			fputs("\t\t;;\n", f);
			continue;
		}
		fputs("\t\tcase $argi in\n", f);
		for (size_t i = 0; i < n; i++) {
			if (repeat && i == n - 1)
				fputs("\t\t*)\n", f);
			else
				fprintf(f, "\t\t%zu)\n", i);
			bash_complete_kind(f, &args[i], "\t\t\t");
			fputs("\t\t\t;;\n", f);
		}
		fputs("\t\tesac\n\t\t;;\n", f);
	}
	fputs("\tesac\n"
	      "} &&\n"
	      "\tcomplete -F _memctl memctl\n", f);
}

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

static void zsh_action(FILE *f, const struct arg *a)
{
	switch (a->kind) {
	case K_NONE:
		fputs(" ", f);
		break;
	case K_FILE:
		fputs("_files", f);
		break;
	case K_DIR:
		fputs("_files -/", f);
		break;
	case K_PROFILE:
		fputs("_files -g \"*.(yaml|yml)(-.)\"", f);
		break;
	case K_GROUP:
		fputs("_memctl_groups", f);
		break;
	case K_PARENT:
		fputs("_memctl_parent", f);
		break;
	case K_KNOB:
		fputs("(", f);
		put_knobs(f, false);
		fputs(")", f);
		break;
	case K_KNOB_SET:
		fputs("_memctl_knob_set", f);
		break;
	case K_COLUMN:
		fputs("(", f);
		put_columns(f);
		fputs(")", f);
		break;
	case K_WORDS:
		fprintf(f, "(%s)", a->words);
		break;
	}
}

/* The same as a command in a case branch. */
static void zsh_cmd(FILE *f, const struct arg *a)
{
	switch (a->kind) {
	case K_NONE:
		fputs(":", f);
		break;
	case K_KNOB:
		fputs("compadd -- ", f);
		put_knobs(f, false);
		break;
	case K_COLUMN:
		fputs("compadd -- ", f);
		put_columns(f);
		break;
	case K_WORDS:
		fprintf(f, "compadd -- %s", a->words);
		break;
	default:
		zsh_action(f, a);
		break;
	}
	fputs(" && ret=0", f);
}

static void gen_zsh(FILE *f)
{
	struct opt opts[64];
	size_t n_opts = load_opts(opts, 64);

	fputs("#compdef memctl\n"
	      "# zsh completion for memctl(8).\n"
	      "# Generated by 'memctl completion zsh' from memctl's command and option\n"
	      "# tables: regenerate it, do not edit it.\n\n"
	      "# Groups below the parent (-p, default: the caller's own cgroup), live.\n"
	      "_memctl_groups() {\n"
	      "  local parent=${opt_args[-p]:-${opt_args[--parent]}}\n"
	      "  local -a groups\n"
	      "  groups=(${(f)\"$(_call_program groups ${memctl_prog:-memctl} ${parent:+-p $parent} "
	      "completion groups 2>/dev/null)\"})\n"
	      "  compadd -a groups\n"
	      "}\n\n"
	      "# -p PARENT: self, or a group below it.\n"
	      "_memctl_parent() {\n"
	      "  local -a groups\n"
	      "  groups=(${(f)\"$(_call_program groups ${memctl_prog:-memctl} completion groups "
	      "2>/dev/null)\"})\n"
	      "  compadd self\n"
	      "  compadd -p self/ -a groups\n"
	      "}\n\n"
	      "_memctl_knob_set() {\n"
	      "  compadd -S '' -- ", f);
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
	fputs("  )\n"
	      "  _arguments -C -s -S \\\n", f);
	for (size_t i = 0; i < n_opts; i++) {
		const struct opt *o = &opts[i];

		fputs("    ", f);
		if (o->shortname)
			fprintf(f, "'(-%c --%s)'{-%c%s,--%s%s}'[", o->shortname, o->name, o->shortname,
				o->has_arg ? "+" : "", o->name, o->has_arg ? "=" : "");
		else
			fprintf(f, "'--%s%s[", o->name, o->has_arg ? "=" : "");
		zsh_desc(f, o->desc);
		fputs("]", f);
		if (o->has_arg) {
			fprintf(f, ":%s:", o->name);
			zsh_action(f, &o->arg);
		}
		fputs("' \\\n", f);
	}
	fputs("    '1:command:->command' \\\n"
	      "    '*::argument:->argument' && ret=0\n\n"
	      "  case $state in\n"
	      "  command)\n"
	      "    _describe -t commands 'memctl command' commands && ret=0\n"
	      "    ;;\n"
	      "  argument)\n"
	      "    # the command, by name, unique prefix or alias; CURRENT - 1 is the argument\n"
	      "    local arg=$(( CURRENT - 1 ))\n"
	      "    case $words[1] in\n", f);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		struct arg args[MAX_ARGS];
		bool repeat;
		size_t n = cmd_args(*c, args, &repeat);

		fputs("    ", f);
		put_prefixes(f, *c, "|");
		fputs(")\n", f);
		if (n == 0) {
			fputs("      ;;\n", f);
			continue;
		}
		fputs("      case $arg in\n", f);
		for (size_t i = 0; i < n; i++) {
			if (repeat && i == n - 1)
				fputs("      *)", f);
			else
				fprintf(f, "      %zu)", i + 1);
			fputs(" ", f);
			zsh_cmd(f, &args[i]);
			fputs(" ;;\n", f);
		}
		fputs("      esac\n      ;;\n", f);
	}
	fputs("    esac\n"
	      "    ;;\n"
	      "  esac\n"
	      "  return ret\n"
	      "}\n\n"
	      "_memctl \"$@\"\n", f);
}

/* ---- groups ---- */

static int list_groups(struct mc_ctx *ctx)
{
	struct mc_host_opts ho = { .cgroup_root = ctx->cgroup_root, .fake_version = ctx->fake_version };
	struct mc_subtree *rd = NULL;
	struct mc_host *h = NULL;
	char *parent = NULL;
	int r;

	r = mc_host_open(&ho, &h);
	if (r == 0)
		r = mc_host_resolve_parent(h, ctx->parent, &parent);
	if (r == 0)
		r = mc_subtree_new(h, parent, &rd);
	if (r == 0)
		r = mc_subtree_scan(rd, true);
	if (r >= 0)
		for (size_t i = 1; i < mc_subtree_count(rd); i++)
			fprintf(ctx->out_f, "%s\n", mc_subtree_entry(rd, i)->path);
	mc_subtree_free(rd);
	free(parent);
	if (h)
		mc_host_free(h);
	if (r < 0) {
		mc_err("cannot list the groups below '%s': %s", ctx->parent, mc_strerror(r));
		return MC_EXIT_HOST;
	}
	return MC_EXIT_OK;
}

static int cmd_completion_exec(struct mc_ctx *ctx, int argc, char **argv)
{
	if (strcmp(argv[0], "bash") == 0)
		gen_bash(ctx->out_f);
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
		"one per line: the scripts call it to complete GROUP arguments.\n",
	.exec = cmd_completion_exec,
};
