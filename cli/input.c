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
#include "file.h"

bool mc_insecure_profiles;

int mc_read_input(const char *what, const char *path, size_t max, char **ret_buf,
		  size_t *ret_len)
{
	struct mc_read_opts o = {
		.max = max,
		/*
		 * As root, the file decides what is written to the kernel's memory
		 * settings: like sshd and sudo with theirs, refuse one that someone
		 * else could have changed (host/file.h says what is checked).
		 */
		.trust = geteuid() == 0 && !mc_insecure_profiles,
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

int mc_load_profile(const char *path, struct mc_profile *ret)
{
	struct mc_diags d = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int r;

	if ((r = mc_read_input("profile", path, MC_PROFILE_MAX_BYTES, &buf, &len)) != 0)
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

int mc_resolve_group(struct mc_ctx *ctx, const char *arg, char **ret)
{
	char *spec;
	int r;

	if (arg[0] == '/')
		spec = strdup(arg);
	else if (asprintf(&spec, "%s/%s", ctx->parent, arg) < 0)
		spec = NULL;
	if (!spec)
		return -ENOMEM;
	r = mc_host_resolve_parent(ctx->host, spec, ret);
	free(spec);
	return r;
}
