#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "host-internal.h"
#include "systemd.h"

/*
 * Who writes a cgroup, by systemd's single-writer rule (see systemd.h).
 *
 * The deepest unit-named component decides, not the first: below
 * user@1000.service (delegated to the user's systemd) that manager creates
 * app.slice/foo.service again, and the owner of foo.service's subtree is
 * the user's systemd unless foo.service itself is delegated. A component
 * that is not a unit name (memctl's own groups, a container runtime's) does
 * not change the owner of the subtree it sits in: it is still the deepest
 * unit's, delegated or not.
 *
 * The markers are read, not the unit files: systemd need not be running
 * (a container, a test), and on a host where it is, the cgroup is what it
 * configured. Nothing falls back silently: a marker that cannot be read
 * anywhere gives MC_SD_UNKNOWN, with the places probed.
 */

const char *mc_sd_owner_name(enum mc_sd_owner o)
{
	static const char *const names[] = {
		[MC_SD_FOREIGN] = "foreign",
		[MC_SD_DELEGATED] = "delegated",
		[MC_SD_UNDELEGATED] = "undelegated",
		[MC_SD_ROOT] = "root",
		[MC_SD_UNKNOWN] = "unknown",
	};
	return o <= MC_SD_UNKNOWN ? names[o] : "unknown";
}

void mc_sd_check_free(struct mc_sd_check *c)
{
	free(c->unit);
	free(c->unit_cgroup);
	free(c->marker);
	free(c->probed);
	memset(c, 0, sizeof(*c));
}

/* systemd's boolean spellings; anything else is not a "yes". */
static bool xattr_true(const char *v, ssize_t n)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if ((size_t)n == strlen(yes[i]) && strncasecmp(v, yes[i], (size_t)n) == 0)
			return true;
	return false;
}

/* Appends "; " (when not first) and s to *list. */
static int list_append(char **list, const char *s)
{
	char *n;

	if (asprintf(&n, "%s%s%s", *list ? *list : "", *list ? "; " : "", s) < 0)
		return -ENOMEM;
	free(*list);
	*list = n;
	return 0;
}

/*
 * Reads the markers on the directory fd (shown as where). Returns 1 when
 * one says delegated (and sets c->marker), 0 when they could be read and
 * none does, -errno when neither attribute could be read (-EOPNOTSUPP,
 * -EACCES...). Adds where and the outcome to c->probed.
 */
static int probe_fd(struct mc_sd_check *c, int fd, const char *where)
{
	static const char *const names[] = { "trusted.delegate", "user.delegate" };
	int readable = 0, err = -ENODATA;
	char *note;

	for (size_t i = 0; i < 2; i++) {
		char v[16];
		ssize_t n = fgetxattr(fd, names[i], v, sizeof(v));

		if (n >= 0 && xattr_true(v, n)) {
			if (asprintf(&c->marker, "%s: %s", where, names[i]) < 0)
				return -ENOMEM;
			if (list_append(&c->probed, c->marker) < 0)
				return -ENOMEM;
			return 1;
		}
		if (n >= 0 || errno == ENODATA)
			readable = 1;
		else
			err = errno == ERANGE ? -EINVAL : -errno;
	}
	if (asprintf(&note, "%s: %s", where, readable ? "no marker" : strerror(-err)) < 0)
		return -ENOMEM;
	if (list_append(&c->probed, note) < 0)
		err = -ENOMEM;
	free(note);
	return readable && err != -ENOMEM ? 0 : err;
}

/*
 * Probes the unit's directory below mount: fd is that directory opened, or
 * the open's -errno (recorded in c->probed as the reason, and returned).
 */
static int probe_dir(struct mc_sd_check *c, const char *mount, int fd)
{
	char *where, *note;
	int r;

	if (asprintf(&where, "%s%s", mount, c->unit_cgroup) < 0)
		r = -ENOMEM;
	else if (fd >= 0)
		r = probe_fd(c, fd, where);
	else if (asprintf(&note, "%s: %s", where, strerror(-fd)) < 0)
		r = -ENOMEM;
	else {
		r = list_append(&c->probed, note) < 0 ? -ENOMEM : fd;
		free(note);
	}
	free(where);
	if (fd >= 0)
		close(fd);
	return r;
}

/* Opens the unit's directory below a mount of systemd's own hierarchy and probes it. */
static int probe_mount(struct mc_sd_check *c, const char *mount)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s%s", mount, c->unit_cgroup) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	return probe_dir(c, mount, fd < 0 ? -errno : fd);
}

/* The mounts where systemd keeps its unit tree when memory is on v1. */
static bool systemd_hierarchy(const struct mc_mount *m)
{
	const char *o;

	if (strcmp(m->type, "cgroup2") == 0)
		return true;
	for (o = m->options; (o = strstr(o, "name=systemd")); o++)
		if ((o == m->options || o[-1] == ',') && (o[12] == '\0' || o[12] == ','))
			return true;
	return false;
}

/*
 * Probes every place the unit's marker can be: its directory in the memory
 * hierarchy, then (memory on v1, real host) in systemd's hierarchies.
 * Returns 1 (delegated), 0 (readable, not delegated), <0 (unreadable).
 */
static int probe_unit(struct mc_host *h, struct mc_sd_check *c)
{
	const struct mc_host_status *st = &h->st;
	int fd = -1, r, best;

	r = cgfs_open_group(h, c->unit_cgroup, O_RDONLY, &fd);
	r = probe_dir(c, st->memory_mount, r < 0 ? r : fd);
	if (r == -ENOMEM || r == 1)
		return r;
	best = r;
	if (h->fake || st->memory_version != MC_CGV1)
		return best;
	for (size_t i = 0; i < st->n_mounts; i++) {
		if (!systemd_hierarchy(&st->mounts[i]))
			continue;
		r = probe_mount(c, st->mounts[i].path);
		if (r == -ENOMEM || r == 1)
			return r;
		if (r == 0)
			best = 0;
	}
	return best;
}

bool mc_sd_unit_of(const char *path, const char **ret, size_t *ret_len)
{
	const char *p = path, *comp;
	bool found = false;

	while (*p) {
		size_t len;

		while (*p == '/')
			p++;
		comp = p;
		len = strcspn(p, "/");
		p += len;
		if (len && mc_sd_is_unit_name(comp, len)) {
			*ret = comp;
			*ret_len = len;
			found = true;
		}
	}
	return found;
}

int mc_host_sd_check(struct mc_host *h, const char *parent, struct mc_sd_check *ret)
{
	struct mc_sd_check c = { 0 };
	const char *unit = NULL;
	size_t unit_end = 0, len = 0;
	int r;

	r = cgfs_check_path(parent);
	if (r < 0)
		return r;
	c.systemd_running = !h->fake && access("/run/systemd/system", F_OK) == 0;
	if (mc_sd_unit_of(parent, &unit, &len))
		unit_end = (size_t)(unit - parent) + len;
	else
		unit = NULL;
	if (!unit) {
		bool root = parent[strspn(parent, "/")] == '\0';

		c.owner = root && c.systemd_running ? MC_SD_ROOT : MC_SD_FOREIGN;
		*ret = c;
		return 0;
	}
	c.unit = strndup(unit, (size_t)(parent + unit_end - unit));
	c.unit_cgroup = strndup(parent, unit_end);
	if (!c.unit || !c.unit_cgroup) {
		mc_sd_check_free(&c);
		return -ENOMEM;
	}
	r = probe_unit(h, &c);
	if (r == -ENOMEM) {
		mc_sd_check_free(&c);
		return r;
	}
	c.owner = r == 1 ? MC_SD_DELEGATED : r == 0 ? MC_SD_UNDELEGATED : MC_SD_UNKNOWN;
	*ret = c;
	return 0;
}
