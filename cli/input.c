/*
 * What the operator gives memctl: input files (profiles, scripts) read
 * through host/file.h's checks, and GROUP arguments turned into cgroup paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "escape.h"
#include "file.h"
#include "when.h"

int mc_read_input(const struct mc_ctx *ctx, const char *what, const char *path, size_t max,
		  char **ret_buf, size_t *ret_len)
{
	struct mc_read_opts o = {
		.max = max,
		/*
		 * As root, the file decides what is written to the kernel's memory
		 * settings: like sshd and sudo with theirs, refuse one that someone
		 * else could have changed (host/file.h says what is checked).
		 */
		.trust = geteuid() == 0 && !ctx->insecure_profile,
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

int mc_load_profile(const struct mc_ctx *ctx, const char *path, struct mc_profile *ret)
{
	struct mc_diags d = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int r;

	if ((r = mc_read_input(ctx, "profile", path, MC_PROFILE_MAX_BYTES, &buf, &len)) != 0)
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

const char *mc_resolve_why(int r, bool group)
{
	if (r == -EINVAL && group)
		return "'.', '..' and empty parts are not group names";
	if (r == -EINVAL)
		return "not self, self/GROUP or an absolute path of group names ('.', '..' and "
		       "empty parts are not names)";
	return mc_strerror(r);
}

int mc_resolve_parent_opt(struct mc_ctx *ctx, char **ret)
{
	int r = mc_host_resolve_parent(ctx->host, ctx->parent, ret);

	if (r < 0) {
		mc_err("invalid parent '%s' (-p, --parent): %s", ctx->parent, mc_resolve_why(r, false));
		return r == -ENOMEM ? MC_EXIT_HOST : MC_EXIT_INVALID;
	}
	return 0;
}

int mc_resolve_group(struct mc_ctx *ctx, const char *arg, char **ret)
{
	char *spec, *parent = NULL;
	int r, rc;

	if (!arg[0]) {
		mc_err("invalid group '': it is empty (a GROUP names a group below the parent; "
		       "the parent itself is -p PARENT)");
		return MC_EXIT_INVALID;
	}
	/* a relative GROUP is below -p: when -p is what is wrong, say so */
	if (arg[0] != '/') {
		if ((rc = mc_resolve_parent_opt(ctx, &parent)) != 0)
			return rc;
		free(parent);
	}
	if (arg[0] == '/')
		spec = strdup(arg);
	else if (asprintf(&spec, "%s/%s", ctx->parent, arg) < 0)
		spec = NULL;
	if (!spec) {
		mc_err("out of memory");
		return MC_EXIT_HOST;
	}
	r = mc_host_resolve_parent(ctx->host, spec, ret);
	free(spec);
	if (r < 0) {
		mc_err("invalid group '%s': %s", arg, mc_resolve_why(r, true));
		return r == -ENOMEM ? MC_EXIT_HOST : MC_EXIT_INVALID;
	}
	return 0;
}

int mc_time_opt(const char *opt, const char *text, int64_t now_ns, int64_t *ret_ns)
{
	struct mc_when_error e = { 0 };
	char *t, *at;
	int r = mc_when_parse(text, now_ns, now_ns, ret_ns, &e);

	if (r == 0)
		return 0;
	/* the operator's text, shown on a terminal: escaped */
	t = mc_esc_text_dup(text);
	at = mc_esc_text_dup(text + (e.at <= strlen(text) ? e.at : 0));
	if (at && *at && e.at > 0)
		mc_err("invalid time '%s' for %s: %s (at '%s')", t ? t : "?", opt, e.why, at);
	else
		mc_err("invalid time '%s' for %s: %s", t ? t : "?", opt, e.why);
	free(t);
	free(at);
	return MC_EXIT_INVALID;
}
