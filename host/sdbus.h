#ifndef MEMCTL_SDBUS_H
#define MEMCTL_SDBUS_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "knob.h"

/*
 * systemd units as targets: their memory settings go through systemd's
 * D-Bus API (libsystemd's sd-bus), so that systemd stays the one writer of
 * their cgroups. Every property is set with SetUnitProperties(runtime=true):
 * it lasts until reboot (a drop-in below /run/systemd/system.control) and
 * survives daemon-reload, which a write to cgroupfs would not.
 *
 * The bus is opened on first use and kept with the host (mc_host_free
 * closes it). Like the rest of host/, nothing here prints: a failure is
 * -errno, and the host keeps what went wrong (mc_host_bus_error) for the
 * front end to word.
 */

enum mc_bus_fail {
	MC_BUS_OK = 0,
	MC_BUS_NO_BUS,        /* no systemd on the system bus (not running, no socket) */
	MC_BUS_NO_UNIT,       /* systemd knows no such unit (no unit file) */
	MC_BUS_NOT_LOADED,    /* the unit exists but is not loaded (masked, bad-setting...) */
	MC_BUS_TOO_OLD,       /* this systemd has no such property */
	MC_BUS_REFUSED,       /* systemd refused to set the property */
	MC_BUS_FAILED,        /* any other D-Bus failure */
};

struct mc_bus_error {
	enum mc_bus_fail fail;
	char *unit;             /* the unit concerned, or NULL */
	const char *property;   /* the property concerned (static), or NULL */
	char *detail;           /* D-Bus's or systemd's own words, or what was found; or NULL */
};

/* What memctl needs of a unit. */
struct mc_unit_info {
	char *cgroup;           /* its cgroup path (ControlGroup), "" when it has none now */
	char *active_state;     /* "active", "inactive"... */
	uint64_t prop[MC_KNOB__COUNT];      /* per mc_knob_unit_property, MC_SIZE_MAX = infinity */
	bool prop_known[MC_KNOB__COUNT];    /* false: this systemd has no such property */
};

/*
 * Reads unit name: loads it (LoadUnit), checks that it is loaded, reads its
 * cgroup and every memory property. Returns 0 and fills *ret (free it with
 * mc_unit_info_free), or -errno with mc_host_bus_error saying what failed:
 * -ENOTCONN no systemd bus, -ENOENT no such unit, -ENOMEDIUM not loaded,
 * -EINVAL a name that is not a unit name, other -errno from D-Bus.
 */
int mc_host_unit_read(struct mc_host *h, const char *name, struct mc_unit_info *ret);
void mc_unit_info_free(struct mc_unit_info *u);

/*
 * The unit's own name (systemd's Id), allocated into *ret: an alias gives
 * the name of the unit it stands for. 0, or -errno as mc_host_unit_read
 * (-EBADMSG when systemd's answer is not a unit name).
 */
int mc_host_unit_id(struct mc_host *h, const char *name, char **ret);

/*
 * Reads the unit property of knob k (mc_knob_unit_property) of unit name.
 * 0 or -errno as mc_host_unit_read, -EOPNOTSUPP for a property this
 * systemd lacks.
 */
int mc_host_unit_get(struct mc_host *h, const char *name, enum mc_knob k, uint64_t *ret);

/*
 * Sets knob k's unit property of unit name to v (runtime: until reboot)
 * and reads it back. Counts as a write for the test-only failure injection
 * (MEMCTL_FAIL_WRITE, MEMCTL_STOP_AFTER_WRITE). Returns 0; -EIO when
 * systemd kept another value (then in *ret_readback, which may be NULL);
 * or -errno with mc_host_bus_error saying why (MC_BUS_REFUSED: systemd's
 * error).
 */
int mc_host_unit_set(struct mc_host *h, const char *name, enum mc_knob k, uint64_t v,
		     uint64_t *ret_readback);

/*
 * Copies e into *ret (strings duplicated) when e records a failure, else
 * leaves *ret as it is (zeroed by the caller: MC_BUS_OK). Without memory the
 * copy keeps the kind and property and loses the texts.
 */
void mc_bus_error_copy(const struct mc_bus_error *e, struct mc_bus_error *ret);
void mc_bus_error_release(struct mc_bus_error *e);

/* What the last call above found: fail is MC_BUS_OK when it succeeded. */
const struct mc_bus_error *mc_host_bus_error(const struct mc_host *h);

/*
 * Records a failure found by the caller (a property the profile needs that
 * mc_host_unit_read found missing), for mc_host_bus_error. Returns err.
 */
int mc_host_bus_refuse(struct mc_host *h, int err, enum mc_bus_fail fail, const char *unit,
		       const char *property, const char *detail);

/* Closes the host's bus connection (mc_host_free does). */
void mc_host_bus_close(struct mc_host *h);

#endif
