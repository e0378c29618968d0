/*
 * systemd's D-Bus API for units as targets (see sdbus.h), through
 * libsystemd's sd-bus.
 *
 * Every call is bounded (BUS_TIMEOUT_USEC): a systemd that does not answer
 * must not hang an apply. Failures are sorted into what an operator can act
 * on (no bus, no such unit, not loaded, too old, refused) from D-Bus's error
 * names, and D-Bus's own message is kept as the detail; nothing is guessed.
 * "No bus" is decided before connecting when systemd is not running at all
 * (no /run/systemd/system, the check sd_booted makes), so a host without
 * systemd gets that answer rather than a socket error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "diag.h"
#include "host-internal.h"
#include "sdbus.h"
#include "unitname.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"
#define BUS_TIMEOUT_USEC (15ULL * 1000 * 1000)

struct host_bus {
	sd_bus *bus;
	struct mc_bus_error err;
};

void mc_host_bus_close(struct mc_host *h)
{
	if (!h->bus)
		return;
	if (h->bus->bus)
		sd_bus_flush_close_unref(h->bus->bus);
	mc_bus_error_release(&h->bus->err);
	free(h->bus);
	h->bus = NULL;
}

const struct mc_bus_error *mc_host_bus_error(const struct mc_host *h)
{
	static const struct mc_bus_error none = { MC_BUS_OK, NULL, NULL, NULL };

	return h->bus ? &h->bus->err : &none;
}

void mc_bus_error_copy(const struct mc_bus_error *e, struct mc_bus_error *ret)
{
	if (e->fail == MC_BUS_OK)
		return;
	mc_bus_error_release(ret);
	ret->fail = e->fail;
	ret->property = e->property;
	ret->unit = e->unit ? strdup(e->unit) : NULL;
	ret->detail = e->detail ? strdup(e->detail) : NULL;
}

void mc_bus_error_release(struct mc_bus_error *e)
{
	free(e->unit);
	free(e->detail);
	memset(e, 0, sizeof(*e));
}

/* Records a failure (unit and detail copied; either may be NULL). Returns err. */
static int bus_fail(struct host_bus *b, int err, enum mc_bus_fail fail, const char *unit,
		    const char *property, const char *detail)
{
	free(b->err.unit);
	free(b->err.detail);
	b->err.fail = fail;
	b->err.unit = unit ? strdup(unit) : NULL;
	b->err.property = property;
	b->err.detail = detail ? strdup(detail) : NULL;
	return err;
}

/* A D-Bus error sorted into what memctl reports. Returns -errno. */
static int bus_fail_error(struct host_bus *b, int r, const sd_bus_error *e, const char *unit,
			  const char *property, enum mc_bus_fail otherwise)
{
	static const struct {
		const char *name;
		enum mc_bus_fail fail;
		int err;
	} names[] = {
		{ "org.freedesktop.DBus.Error.ServiceUnknown", MC_BUS_NO_BUS, -ENOTCONN },
		{ "org.freedesktop.DBus.Error.NameHasNoOwner", MC_BUS_NO_BUS, -ENOTCONN },
		{ "org.freedesktop.systemd1.NoSuchUnit", MC_BUS_NO_UNIT, -ENOENT },
		{ "org.freedesktop.systemd1.UnitMasked", MC_BUS_NOT_LOADED, -ENOMEDIUM },
		{ "org.freedesktop.DBus.Error.UnknownProperty", MC_BUS_TOO_OLD, -EOPNOTSUPP },
	};
	const char *detail = e && e->message ? e->message : strerror(-r);

	for (size_t i = 0; e && e->name && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(e->name, names[i].name) == 0)
			return bus_fail(b, names[i].err, names[i].fail, unit, property, detail);
	return bus_fail(b, r < 0 ? r : -EIO, otherwise, unit, property, detail);
}

int mc_host_bus_refuse(struct mc_host *h, int err, enum mc_bus_fail fail, const char *unit,
		       const char *property, const char *detail)
{
	if (!h->bus && !(h->bus = calloc(1, sizeof(*h->bus))))
		return -ENOMEM;
	return bus_fail(h->bus, err, fail, unit, property, detail);
}

/*
 * The test build's bus: MEMCTL_TEST_SYSTEMD_BUS names a D-Bus address to
 * use as the system bus, where a test's own service stands in for systemd
 * (tests/integration/fake-systemd.c). 1 when it is set (then *ret or the
 * error), 0 when not.
 */
static int test_bus(struct host_bus *b, int *ret)
{
#ifdef MEMCTL_FAULT_INJECTION
	const char *addr = getenv("MEMCTL_TEST_SYSTEMD_BUS");
	int r;

	if (!addr || !*addr)
		return 0;
	r = sd_bus_new(&b->bus);
	if (r >= 0 && (r = sd_bus_set_address(b->bus, addr)) >= 0 &&
	    (r = sd_bus_set_bus_client(b->bus, 1)) >= 0)
		r = sd_bus_start(b->bus);
	if (r < 0) {
		sd_bus_unref(b->bus);
		b->bus = NULL;
		*ret = bus_fail(b, -ENOTCONN, MC_BUS_NO_BUS, NULL, NULL, strerror(-r));
	} else {
		*ret = 0;
	}
	return 1;
#else
	return 0;
#endif
}

/* The host's bus, connected on first use. 0 or -errno (recorded). */
static int bus_get(struct mc_host *h, struct host_bus **ret)
{
	struct host_bus *b = h->bus;
	int r;

	if (!b && !(b = h->bus = calloc(1, sizeof(*b))))
		return -ENOMEM;
	b->err.fail = MC_BUS_OK;
	*ret = b;
	/* a connection systemd or the bus closed (daemon-reexec): memctl run connects again */
	if (b->bus && sd_bus_is_open(b->bus) <= 0)
		b->bus = sd_bus_flush_close_unref(b->bus);
	if (b->bus)
		return 0;
	if (test_bus(b, &r))
		return r < 0 ? r : sd_bus_set_method_call_timeout(b->bus, BUS_TIMEOUT_USEC);
	if (h->fake || access("/run/systemd/system", F_OK) < 0)
		return bus_fail(b, -ENOTCONN, MC_BUS_NO_BUS, NULL, NULL,
				h->fake ? "a fake cgroup tree has no systemd" :
				"systemd is not running on this host (no /run/systemd/system)");
	r = sd_bus_open_system(&b->bus);
	if (r < 0) {
		b->bus = NULL;
		return bus_fail(b, -ENOTCONN, MC_BUS_NO_BUS, NULL, NULL, strerror(-r));
	}
	r = sd_bus_set_method_call_timeout(b->bus, BUS_TIMEOUT_USEC);
	return r < 0 ? bus_fail(b, r, MC_BUS_FAILED, NULL, NULL, strerror(-r)) : 0;
}

/* Manager method (GetUnit or LoadUnit) of unit name: its object path (allocated). */
static int call_unit_method(struct host_bus *b, const char *method, const char *name,
			    sd_bus_error *e, char **ret)
{
	sd_bus_message *reply = NULL;
	const char *path;
	int r;

	r = sd_bus_call_method(b->bus, SD_DEST, SD_PATH, SD_MANAGER, method, e, &reply, "s", name);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &path);
	if (r >= 0 && !(*ret = strdup(path)))
		r = -ENOMEM;
	sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

/*
 * The object path of unit name (allocated). GetUnit first: it needs no
 * privilege, so an unprivileged plan can read a loaded unit; LoadUnit only
 * for a unit systemd has not loaded (which is how "not found" is told).
 */
static int unit_path(struct host_bus *b, const char *name, char **ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	if (!mc_sd_is_unit_name(name, strlen(name)))
		return bus_fail(b, -EINVAL, MC_BUS_NO_UNIT, name, NULL, "not a unit name");
	r = call_unit_method(b, "GetUnit", name, &e, ret);
	if (r < 0 && sd_bus_error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit")) {
		sd_bus_error_free(&e);
		r = call_unit_method(b, "LoadUnit", name, &e, ret);
	}
	if (r < 0)
		r = bus_fail_error(b, r, &e, name, NULL, MC_BUS_FAILED);
	sd_bus_error_free(&e);
	return r;
}

/* A string property of the unit at path. */
static int get_string(struct host_bus *b, const char *unit, const char *path, const char *iface,
		      const char *prop, char **ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_get_property_string(b->bus, SD_DEST, path, iface, prop, &e, ret);

	if (r < 0)
		r = bus_fail_error(b, r, &e, unit, NULL, MC_BUS_FAILED);
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

/* Knob k's property of the unit at path; -EOPNOTSUPP (recorded) when systemd has none. */
static int get_prop(struct host_bus *b, const char *unit, const char *path, enum mc_knob k,
		    uint64_t *ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	const char *prop = mc_knob_unit_property(k);
	uint64_t v;
	int r;

	if (!prop)
		return -EINVAL;
	r = sd_bus_get_property_trivial(b->bus, SD_DEST, path, mc_sd_unit_interface(unit), prop, &e,
					't', &v);
	if (r < 0) {
		r = bus_fail_error(b, r, &e, unit, prop, MC_BUS_FAILED);
		sd_bus_error_free(&e);
		return r;
	}
	*ret = v;   /* systemd's infinity is UINT64_MAX, which is MC_SIZE_MAX */
	return 0;
}

/* -ENOENT / -ENOMEDIUM (recorded) unless the unit is loaded. */
static int check_loaded(struct host_bus *b, const char *name, const char *path)
{
	char *load = NULL;
	int r = get_string(b, name, path, SD_UNIT, "LoadState", &load);

	if (r < 0)
		return r;
	if (strcmp(load, "not-found") == 0)
		r = bus_fail(b, -ENOENT, MC_BUS_NO_UNIT, name, NULL, "no unit file (LoadState=not-found)");
	else if (strcmp(load, "loaded") != 0) {
		char *d = mc_asprintf("LoadState=%s", load);

		r = bus_fail(b, -ENOMEDIUM, MC_BUS_NOT_LOADED, name, NULL, d ? d : load);
		free(d);
	}
	free(load);
	return r;
}

/* Opens the bus, loads unit name and checks it is loaded; its object path in *ret. */
static int unit_open(struct mc_host *h, const char *name, struct host_bus **ret_b, char **ret)
{
	int r;

	if ((r = bus_get(h, ret_b)) < 0)
		return r;
	if ((r = unit_path(*ret_b, name, ret)) < 0)
		return r;
	if ((r = check_loaded(*ret_b, name, *ret)) < 0) {
		free(*ret);
		*ret = NULL;
	}
	return r;
}

int mc_host_unit_read(struct mc_host *h, const char *name, struct mc_unit_info *ret)
{
	struct mc_unit_info u = { 0 };
	struct host_bus *b;
	char *path = NULL;
	int r;

	if ((r = unit_open(h, name, &b, &path)) < 0)
		return r;
	r = get_string(b, name, path, mc_sd_unit_interface(name), "ControlGroup", &u.cgroup);
	if (r == 0)
		r = get_string(b, name, path, SD_UNIT, "ActiveState", &u.active_state);
	for (int k = 0; k < MC_KNOB__COUNT && r == 0; k++) {
		if (!mc_knob_unit_property((enum mc_knob)k))
			continue;
		r = get_prop(b, name, path, (enum mc_knob)k, &u.prop[k]);
		u.prop_known[k] = r == 0;
		if (r == -EOPNOTSUPP)
			r = 0;   /* the planner refuses it if the profile asks for it */
	}
	free(path);
	if (r < 0) {
		mc_unit_info_free(&u);
		return r;
	}
	b->err.fail = MC_BUS_OK;
	*ret = u;
	return 0;
}

void mc_unit_info_free(struct mc_unit_info *u)
{
	free(u->cgroup);
	free(u->active_state);
	memset(u, 0, sizeof(*u));
}

int mc_host_unit_id(struct mc_host *h, const char *name, char **ret)
{
	struct host_bus *b;
	char *path = NULL, *id = NULL;
	int r;

	if ((r = bus_get(h, &b)) < 0 || (r = unit_path(b, name, &path)) < 0)
		return r;
	r = get_string(b, name, path, SD_UNIT, "Id", &id);
	free(path);
	if (r == 0 && !mc_sd_is_unit_name(id, strlen(id)))
		r = bus_fail(b, -EBADMSG, MC_BUS_FAILED, name, NULL, "its Id is not a unit name");
	if (r < 0) {
		free(id);
		return r;
	}
	*ret = id;
	return 0;
}

int mc_host_unit_get(struct mc_host *h, const char *name, enum mc_knob k, uint64_t *ret)
{
	struct host_bus *b;
	char *path = NULL;
	int r;

	if ((r = unit_open(h, name, &b, &path)) < 0)
		return r;
	r = get_prop(b, name, path, k, ret);
	free(path);
	return r;
}

/* SetUnitProperties(name, runtime=true, [(prop, <t v>)]). */
static int set_prop(struct host_bus *b, const char *name, const char *prop, uint64_t v)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(b->bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
					   "SetUnitProperties");
	if (r >= 0)
		r = sd_bus_message_append(m, "sb", name, 1);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(sv)");
	if (r >= 0)
		r = sd_bus_message_append(m, "(sv)", prop, "t", v);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r < 0) {
		sd_bus_message_unref(m);
		return bus_fail(b, r, MC_BUS_FAILED, name, prop, strerror(-r));
	}
	r = sd_bus_call(b->bus, m, 0, &e, NULL);
	sd_bus_message_unref(m);
	if (r < 0)
		r = bus_fail_error(b, r, &e, name, prop, MC_BUS_REFUSED);
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int mc_host_unit_set(struct mc_host *h, const char *name, enum mc_knob k, uint64_t v,
		     uint64_t *ret_readback)
{
	const char *prop = mc_knob_unit_property(k);
	struct host_bus *b;
	char *path = NULL;
	uint64_t back = 0;   /* set by get_prop when it succeeds */
	int r;

	if (!prop)
		return -EINVAL;
	if ((r = unit_open(h, name, &b, &path)) < 0)
		return r;
	if ((r = host_write_begin(h)) < 0) {
		free(path);
		return bus_fail(b, r, MC_BUS_REFUSED, name, prop, strerror(-r));
	}
	r = set_prop(b, name, prop, v);
	if (r == 0)
		r = get_prop(b, name, path, k, &back);
	free(path);
	if (r < 0)
		return r;
	host_write_done(h);
	if (back != v) {
		if (ret_readback)
			*ret_readback = back;
		return -EIO;
	}
	return 0;
}
