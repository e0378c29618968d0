#ifndef MEMCTL_UNITNAME_H
#define MEMCTL_UNITNAME_H

#include <stdbool.h>
#include <stddef.h>

/*
 * systemd's unit names, as pure text rules: the profile's `units:` keys and
 * the host's reading of cgroup paths (host/systemd.c) use the same ones.
 */

/*
 * True when name is a systemd unit name that has a cgroup: a non-empty
 * prefix of the characters systemd allows in unit names, then .slice,
 * .service, .scope, .socket, .mount or .swap. len bytes of name are looked at.
 */
bool mc_sd_is_unit_name(const char *name, size_t len);

/*
 * The D-Bus interface that carries the unit's cgroup properties
 * ("org.freedesktop.systemd1.Service" for a .service), from the suffix of
 * name; NULL when name is not a unit name of mc_sd_is_unit_name.
 */
const char *mc_sd_unit_interface(const char *name);

/*
 * Checks a unit a profile names as a target: a unit name of
 * mc_sd_is_unit_name, not a template without its instance ("app@.service",
 * which has no cgroup), not the root slice "-.slice" (the root cgroup has no
 * memory limits). Returns 0 or -EINVAL with a static reason in *ret_why.
 */
int mc_sd_target_check(const char *name, const char **ret_why);

#endif
