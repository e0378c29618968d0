#ifndef MEMCTL_SYSTEMD_H
#define MEMCTL_SYSTEMD_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"
#include "unitname.h"

/*
 * systemd's single-writer rule, checked for a parent memctl is about to
 * manage: every cgroup has one writer. systemd writes the cgroups of its
 * units (slice, service, scope, socket, mount, swap) and everything below a
 * unit unless that unit has Delegate=yes, in which case the subtree belongs
 * to the unit's processes (memctl run in memctl.service, a container
 * manager, the user's own systemd in user@UID.service). memctl should only
 * manage a delegated subtree, or a part of the tree systemd does not own.
 *
 * systemd marks the cgroup of a unit with Delegate=yes with the extended
 * attributes trusted.delegate=1 and user.delegate=1 (systemd 252 in Debian
 * 12 sets both). Those are read on the unit's directory in the memory
 * hierarchy and, when memory is on cgroup v1, in systemd's own hierarchy
 * (the cgroup2 mount of a hybrid host, or name=systemd), where systemd
 * puts them.
 */

enum mc_sd_owner {
	MC_SD_FOREIGN = 0,   /* no component names a systemd unit: not systemd's cgroup */
	MC_SD_DELEGATED,     /* inside a unit with Delegate=yes: the unit's processes write it */
	MC_SD_UNDELEGATED,   /* inside a unit without delegation: systemd is the writer */
	MC_SD_ROOT,          /* the root cgroup of a host run by systemd (its -.slice) */
	MC_SD_UNKNOWN,       /* inside a unit, but no delegation marker could be read */
};

struct mc_sd_check {
	enum mc_sd_owner owner;
	bool systemd_running;   /* /run/systemd/system exists (never looked at on a fake tree) */
	char *unit;             /* deepest unit component of the path ("app.service"), or NULL */
	char *unit_cgroup;      /* its cgroup path ("/system.slice/app.service"), or NULL */
	char *marker;           /* where delegation was found ("DIR: trusted.delegate"), or NULL */
	char *probed;           /* directories looked at, "; "-separated, or NULL */
};

/* mc_sd_is_unit_name: unitname.h (the engine's, shared with the profile). */

/*
 * The unit a cgroup path lies in: its deepest component that names a unit
 * (mc_sd_is_unit_name), at *ret for *ret_len bytes. False when there is
 * none (ret untouched). Pure: the owner by delegation is mc_host_sd_check's.
 */
bool mc_sd_unit_of(const char *path, const char **ret, size_t *ret_len);

/*
 * Decides who writes the cgroup parent (an absolute cgroup path in the
 * memory hierarchy): finds the deepest component that names a unit and
 * looks for its delegation marker. Fills ret (free it with
 * mc_sd_check_free) and returns 0, -EINVAL for a bad path, -ENOMEM.
 * Errors reading a marker do not fail the check: with none readable the
 * owner is MC_SD_UNKNOWN and probed says where it was looked for.
 */
int mc_host_sd_check(struct mc_host *h, const char *parent, struct mc_sd_check *ret);
void mc_sd_check_free(struct mc_sd_check *c);

/* "foreign", "delegated", "undelegated", "root", "unknown". */
const char *mc_sd_owner_name(enum mc_sd_owner o);

#endif
