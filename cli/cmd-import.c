/*
 * memctl import CGCONFIG [PROFILE]: a libcgroup cgconfig.conf's memory
 * settings as a memctl profile (engine/cgconfig.c does the converting).
 *
 * The profile goes to stdout, or replaces PROFILE atomically (a temporary
 * file in the same directory, renamed over it), so a failed import never
 * leaves half a profile behind; only a regular file is replaced. Everything that is not converted is named
 * on stderr at its place; the exit status says whether anything was left
 * out (MC_EXIT_INCOMPLETE), so scripts can tell a full conversion from a
 * partial one. The output is never written when the input has an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgconfig.h"
#include "cmd.h"
#include "file.h"

/* cgconfig.conf files are small; a bigger one is not what we think it is. */
#define CGCONFIG_MAX_BYTES (16 * 1024 * 1024)

struct import_opts {
	const char *parent;       /* -p: where the groups go (default /) */
};

/*
 * Reads the file in (stdin for "-", called name in messages) whole into a
 * new *ret_buf of *ret_len bytes. On failure says why on stderr and returns
 * a negative errno.
 */
static int read_input(const char *in, const char *name, char **ret_buf, size_t *ret_len)
{
	int r;

	if (strcmp(in, "-") == 0) {
		r = mc_file_read_fd(STDIN_FILENO, CGCONFIG_MAX_BYTES, ret_buf, ret_len);
	} else {
		struct mc_read_opts ro = { .max = CGCONFIG_MAX_BYTES };

		r = mc_file_read(in, &ro, ret_buf, ret_len, NULL);
	}
	if (r < 0)
		mc_err("cannot read '%s': %s", name,
		       r == -EFBIG ? "larger than 16 MiB, not a cgconfig.conf" : mc_strerror(r));
	return r;
}

static int cmd_import_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct import_opts *o = opts;
	const char *in = argv[0], *out = argc > 1 ? argv[1] : NULL;
	const char *name = strcmp(in, "-") == 0 ? "<stdin>" : in;
	struct mc_cgconfig_result res;
	struct mc_diags skipped = { 0 }, errors = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int r, rc;

	if (read_input(in, name, &buf, &len) < 0)
		return MC_EXIT_INVALID;
	r = mc_cgconfig_convert(name, buf, len, o->parent, &res,
				&skipped, &errors);
	free(buf);
	if (r == -ENOMEM) {
		mc_err("out of memory");
		rc = MC_EXIT_HOST;
		goto out;
	}
	mc_print_diags(&errors);
	if (r == 0)
		mc_print_diags(&skipped);
	if (r < 0) {
		mc_err("'%s' not converted: %zu error%s%s", name, errors.n, errors.n == 1 ? "" : "s",
		       out ? "; nothing written" : "");
		rc = MC_EXIT_INVALID;
		goto out;
	}
	if (out) {
		/* a profile must not be writable by others: memctl refuses those as root */
		r = mc_file_replace(out, res.yaml, strlen(res.yaml), 0644);
		if (r < 0) {
			mc_err("cannot write '%s': %s%s", out, mc_strerror(r), r == -MC_ENOTREG ?
			       " (only a regular file is replaced, or a new one created)" : "");
			mc_cgconfig_result_free(&res);
			rc = r == -MC_ENOTREG ? MC_EXIT_INVALID : MC_EXIT_HOST;
			goto out;
		}
	} else {
		fputs(res.yaml, ctx->out_f);
	}
	if (!ctx->quiet)
		mc_err("%s: %zu group%s, %zu setting%s converted; %zu item%s not converted", name,
		       res.groups, res.groups == 1 ? "" : "s", res.settings,
		       res.settings == 1 ? "" : "s", skipped.n, skipped.n == 1 ? "" : "s");
	mc_cgconfig_result_free(&res);
	rc = skipped.n ? MC_EXIT_INCOMPLETE : MC_EXIT_OK;
out:
	mc_diags_free(&skipped);
	mc_diags_free(&errors);
	return rc;
}

static const struct mc_opt import_opt_parent = {
	"parent", 'p', MC_OPT_STRING, "PATH", "the profile's parent (default: /, the hierarchy root)",
	MC_COMPLETE_PARENT, NULL, false, offsetof(struct import_opts, parent),
};

const struct mc_cmd cmd_import_entry = {
	.name = "import",
	.args = "CGCONFIG [PROFILE]",
	.min_args = 1,
	.max_args = 2,
	.summary = "convert a libcgroup cgconfig.conf's memory settings into a profile",
	.help = "CGCONFIG is a cgconfig.conf(5) file ('-': stdin). The profile goes to stdout,\n"
		"or replaces PROFILE atomically. Groups keep their paths from the hierarchy\n"
		"root (parent: /), or -p PARENT puts them below PARENT. v1 and v2 memory.*\n"
		"files become max, high, low, min, soft_limit and swap_max (v1: swap_max =\n"
		"memsw - limit). Everything else (other controllers, perm, default, mount,\n"
		"template sections, memory files without a knob, values memctl's rules\n"
		"refuse) is reported as FILE:LINE:COLUMN and left out: exit status 5.\n"
		"Syntax errors and values the kernel would refuse: exit status 2, no output.\n",
	.arg_complete = { MC_COMPLETE_FILE, MC_COMPLETE_PROFILE },
	.opts = (const struct mc_opt *const[]){ &import_opt_parent, &mc_opt_quiet, NULL },
	.opts_size = sizeof(struct import_opts),
	.opts_default = &(const struct import_opts){ .parent = "/" },
	.exec = cmd_import_exec,
};
