/*
 * fake-systemd ADDRESS LOG UNIT=KIND[:CGROUP]...: stands in for systemd's manager on
 * a test's private D-Bus (tests/integration/32-units-bus.sh), so that the
 * test build of memctl (MEMCTL_TEST_SYSTEMD_BUS) can be driven through its
 * whole D-Bus path on a host without systemd: the calls it makes, with the
 * types it marshals, and its handling of systemd's errors. The real systemd
 * is tested in the systemd guest (tests/guest/systemd/50-units.sh).
 *
 * It owns org.freedesktop.systemd1 and answers what memctl uses of it:
 * Manager.GetUnit, LoadUnit, SetUnitProperties(name, runtime, a(sv)), and
 * per unit the Unit interface's Id, LoadState and ActiveState and the type
 * interface's ControlGroup (empty: not running) and Memory{Min,Low,High,Max,
 * SwapMax}. KIND is
 *   loaded   a loaded unit (properties start at 0, 0, infinity, infinity, infinity)
 *   masked   a unit whose LoadState is "masked"
 *   old      a systemd without MemoryMin (added in systemd 240)
 *   refuse   SetUnitProperties on it is refused (AccessDenied, as to a caller
 *            without the privilege)
 *   alias    (alias:UNIT) another name of UNIT: every call
 *            answers for UNIT, whose Id is UNIT
 * and CGROUP, when given, is the unit's ControlGroup (a group the test made
 * below its own cgroup, so that memctl reads the unit's state there); with
 * FAKE_SYSTEMD_CGROOT (the memory hierarchy's mount) it then writes each
 * property it is given to the group's file, as systemd does (v2: memory.max,
 * .high, .low, .min, .swap.max; v1: only MemoryMax, as memory.limit_in_bytes).
 * Any other name LoadUnit loads as "not-found"; GetUnit knows only the
 * named units. SetUnitProperties refuses runtime=false (memctl must never
 * write persistent drop-ins) and types other than "t", and sets all or
 * nothing, as systemd does. Every call that sets is logged to LOG as
 * "set UNIT PROPERTY VALUE", and "ready" when the name is owned; "ready" is
 * also printed on stdout, which is then closed, so a test can wait for it.
 * Every method call it receives is logged too, before it is answered, as
 * "call METHOD NAME" (GetUnit, LoadUnit, SetUnitProperties: the unit's name
 * as given) or "call Get PROPERTY", so a test can count what memctl asks.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define MAX_UNITS 16
#define N_PROPS 5

static const char *const props[N_PROPS] = {
	"MemoryMin", "MemoryLow", "MemoryHigh", "MemoryMax", "MemorySwapMax",
};

struct unit {
	char *name;
	char *path;
	char *load;          /* LoadState */
	char *active;        /* ActiveState */
	char *cgroup;        /* ControlGroup */
	uint64_t prop[N_PROPS];
	int old, refuse;
};

static struct unit units[MAX_UNITS];
static size_t n_units;
static FILE *log_file;
static volatile sig_atomic_t stop;

static const sd_bus_vtable unit_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Id", "s", NULL, offsetof(struct unit, name), 0),
	SD_BUS_PROPERTY("LoadState", "s", NULL, offsetof(struct unit, load), 0),
	SD_BUS_PROPERTY("ActiveState", "s", NULL, offsetof(struct unit, active), 0),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable service_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("ControlGroup", "s", NULL, offsetof(struct unit, cgroup), 0),
	SD_BUS_PROPERTY("MemoryMin", "t", NULL, offsetof(struct unit, prop[0]), 0),
	SD_BUS_PROPERTY("MemoryLow", "t", NULL, offsetof(struct unit, prop[1]), 0),
	SD_BUS_PROPERTY("MemoryHigh", "t", NULL, offsetof(struct unit, prop[2]), 0),
	SD_BUS_PROPERTY("MemoryMax", "t", NULL, offsetof(struct unit, prop[3]), 0),
	SD_BUS_PROPERTY("MemorySwapMax", "t", NULL, offsetof(struct unit, prop[4]), 0),
	SD_BUS_VTABLE_END,
};

/* The same without MemoryMin: a systemd before 240. */
static const sd_bus_vtable old_service_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("ControlGroup", "s", NULL, offsetof(struct unit, cgroup), 0),
	SD_BUS_PROPERTY("MemoryLow", "t", NULL, offsetof(struct unit, prop[1]), 0),
	SD_BUS_PROPERTY("MemoryHigh", "t", NULL, offsetof(struct unit, prop[2]), 0),
	SD_BUS_PROPERTY("MemoryMax", "t", NULL, offsetof(struct unit, prop[3]), 0),
	SD_BUS_PROPERTY("MemorySwapMax", "t", NULL, offsetof(struct unit, prop[4]), 0),
	SD_BUS_VTABLE_END,
};

/* Other names of units (NAME=alias:UNIT): what a symbolic link to a unit file makes. */
static struct {
	char *name, *unit;
} aliases[MAX_UNITS];
static size_t n_aliases;

static struct unit *find(const char *name)
{
	for (size_t i = 0; i < n_aliases; i++)
		if (strcmp(aliases[i].name, name) == 0)
			name = aliases[i].unit;
	for (size_t i = 0; i < n_units; i++)
		if (strcmp(units[i].name, name) == 0)
			return &units[i];
	return NULL;
}

/* Adds unit name with LoadState load (and cgroup, or NULL) and exports its object. */
static struct unit *add(sd_bus *bus, const char *name, const char *load, const char *cgroup,
			int old, int refuse)
{
	struct unit *u;

	if (n_units == MAX_UNITS)
		return NULL;
	u = &units[n_units];
	u->name = strdup(name);
	if (asprintf(&u->path, "/org/freedesktop/systemd1/unit/u%zu", n_units) < 0)
		return NULL;
	u->load = strdup(load);
	u->active = strdup(strcmp(load, "loaded") == 0 ? "active" : "inactive");
	u->cgroup = strdup(cgroup ? cgroup : "");
	u->prop[2] = u->prop[3] = u->prop[4] = UINT64_MAX;
	u->old = old;
	u->refuse = refuse;
	if (sd_bus_add_object_vtable(bus, NULL, u->path, "org.freedesktop.systemd1.Unit",
				     unit_vtable, u) < 0 ||
	    sd_bus_add_object_vtable(bus, NULL, u->path, "org.freedesktop.systemd1.Service",
				     old ? old_service_vtable : service_vtable, u) < 0)
		return NULL;
	n_units++;
	return u;
}

static int get_unit(sd_bus_message *m, void *data, sd_bus_error *err)
{
	const char *name;
	struct unit *u;
	int r = sd_bus_message_read(m, "s", &name);

	if (r < 0)
		return r;
	if (!(u = find(name)))
		return sd_bus_error_setf(err, "org.freedesktop.systemd1.NoSuchUnit",
					 "Unit %s not loaded.", name);
	return sd_bus_reply_method_return(m, "o", u->path);
}

static int load_unit(sd_bus_message *m, void *data, sd_bus_error *err)
{
	const char *name;
	struct unit *u;
	int r = sd_bus_message_read(m, "s", &name);

	if (r < 0)
		return r;
	u = find(name);
	if (!u && !(u = add(sd_bus_message_get_bus(m), name, "not-found", NULL, 0, 0)))
		return -ENOMEM;
	return sd_bus_reply_method_return(m, "o", u->path);
}

static int prop_index(const char *name)
{
	for (int i = 0; i < N_PROPS; i++)
		if (strcmp(props[i], name) == 0)
			return i;
	return -1;
}

/* Reads the a(sv) of SetUnitProperties into v (set[i]: given), all "t". */
static int read_props(sd_bus_message *m, struct unit *u, uint64_t *v, int *set, sd_bus_error *err)
{
	const char *name, *contents;
	int r;

	if ((r = sd_bus_message_enter_container(m, 'a', "(sv)")) < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
		int i;

		if ((r = sd_bus_message_read(m, "s", &name)) < 0)
			return r;
		i = prop_index(name);
		if (i < 0 || (i == 0 && u->old))
			return sd_bus_error_setf(err, "org.freedesktop.DBus.Error.PropertyReadOnly",
						 "Cannot set property %s, or unknown property.", name);
		if ((r = sd_bus_message_peek_type(m, NULL, &contents)) < 0)
			return r;
		if (strcmp(contents, "t") != 0)
			return sd_bus_error_setf(err, "org.freedesktop.DBus.Error.InvalidArgs",
						 "%s takes a 't', not '%s'", name, contents);
		if ((r = sd_bus_message_read(m, "v", "t", &v[i])) < 0)
			return r;
		set[i] = 1;
		if ((r = sd_bus_message_exit_container(m)) < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

/* systemd's write of property i of u into its cgroup, where the test gave one. */
static void write_cgroup(const struct unit *u, int i)
{
	static const char *const v2[N_PROPS] = {
		"memory.min", "memory.low", "memory.high", "memory.max", "memory.swap.max",
	};
	const char *root = getenv("FAKE_SYSTEMD_CGROOT");
	char *path = NULL;
	int v1;
	FILE *f;

	if (!root || !*u->cgroup || asprintf(&path, "%s%s/memory.limit_in_bytes", root, u->cgroup) < 0)
		return;
	v1 = access(path, F_OK) == 0;
	free(path);
	if ((v1 && i != 3) ||
	    asprintf(&path, "%s%s/%s", root, u->cgroup, v1 ? "memory.limit_in_bytes" : v2[i]) < 0)
		return;
	if ((f = fopen(path, "w"))) {
		if (u->prop[i] == UINT64_MAX)
			fputs(v1 ? "-1" : "max", f);
		else
			fprintf(f, "%" PRIu64, u->prop[i]);
		fclose(f);
	}
	free(path);
}

static int set_props(sd_bus_message *m, void *data, sd_bus_error *err)
{
	uint64_t v[N_PROPS];
	int set[N_PROPS] = { 0 }, runtime, r;
	const char *name;
	struct unit *u;

	if ((r = sd_bus_message_read(m, "sb", &name, &runtime)) < 0)
		return r;
	if (!(u = find(name)) || strcmp(u->load, "not-found") == 0)
		return sd_bus_error_setf(err, "org.freedesktop.systemd1.NoSuchUnit",
					 "Unit %s not found.", name);
	if (!runtime)
		return sd_bus_error_set(err, "org.freedesktop.DBus.Error.InvalidArgs",
					"memctl must set runtime properties only");
	if (u->refuse)
		return sd_bus_error_set(err, "org.freedesktop.DBus.Error.AccessDenied",
					"Access denied");
	if ((r = read_props(m, u, v, set, err)) < 0)
		return r;
	for (int i = 0; i < N_PROPS; i++)
		if (set[i]) {
			u->prop[i] = v[i];
			write_cgroup(u, i);
			fprintf(log_file, "set %s %s %" PRIu64 "\n", name, props[i], v[i]);
		}
	fflush(log_file);
	return sd_bus_reply_method_return(m, "");
}

/* The filter that logs each method call (see above); it answers none. */
static int log_call(sd_bus_message *m, void *data, sd_bus_error *err)
{
	const char *member = sd_bus_message_get_member(m), *a = NULL, *b = NULL;

	if (sd_bus_message_is_method_call(m, NULL, NULL) <= 0 || !member)
		return 0;
	if (strcmp(member, "Get") == 0)
		sd_bus_message_read(m, "ss", &a, &b);
	else if (strcmp(member, "GetUnit") == 0 || strcmp(member, "LoadUnit") == 0 ||
		 strcmp(member, "SetUnitProperties") == 0)
		sd_bus_message_read(m, "s", &b);
	fprintf(log_file, "call %s%s%s\n", member, b ? " " : "", b ? b : "");
	fflush(log_file);
	sd_bus_message_rewind(m, 1);
	return 0;
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("GetUnit", "s", "o", get_unit, 0),
	SD_BUS_METHOD("LoadUnit", "s", "o", load_unit, 0),
	SD_BUS_METHOD("SetUnitProperties", "sba(sv)", "", set_props, 0),
	SD_BUS_VTABLE_END,
};

static void on_term(int sig)
{
	stop = 1;
}

/* Connects to address, exports the manager and the units of argv. */
static int setup(sd_bus **ret, char **argv, int argc)
{
	sd_bus *bus = NULL;
	int r;

	if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_address(bus, argv[1])) < 0 ||
	    (r = sd_bus_set_bus_client(bus, 1)) < 0 || (r = sd_bus_start(bus)) < 0)
		return r;
	r = sd_bus_add_filter(bus, NULL, log_call, NULL);
	if (r >= 0)
		r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1",
					     "org.freedesktop.systemd1.Manager", manager_vtable, NULL);
	for (int i = 3; r >= 0 && i < argc; i++) {
		char *eq = strchr(argv[i], '='), *cg;
		const char *kind = eq ? eq + 1 : "loaded";

		if (eq)
			*eq = '\0';
		if ((cg = strchr(kind, ':')))
			*cg++ = '\0';
		if (strcmp(kind, "alias") == 0 && cg && n_aliases < MAX_UNITS) {
			aliases[n_aliases].name = argv[i];
			aliases[n_aliases++].unit = cg;
			continue;
		}
		if (!add(bus, argv[i], strcmp(kind, "masked") == 0 ? "masked" : "loaded", cg,
			 strcmp(kind, "old") == 0, strcmp(kind, "refuse") == 0))
			r = -ENOMEM;
	}
	if (r >= 0)
		r = sd_bus_request_name(bus, "org.freedesktop.systemd1", 0);
	*ret = bus;
	return r;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	sd_bus *bus = NULL;
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: fake-systemd ADDRESS LOG UNIT=KIND...\n");
		return 2;
	}
	if (!(log_file = fopen(argv[2], "a"))) {
		perror(argv[2]);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	if ((r = setup(&bus, argv, argc)) < 0) {
		fprintf(stderr, "fake-systemd: %s\n", strerror(-r));
		return 1;
	}
	fprintf(log_file, "ready\n");
	fflush(log_file);
	printf("ready\n");
	fclose(stdout);
	while (!stop) {
		r = sd_bus_process(bus, NULL);
		if (r < 0)
			break;
		if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0 && !stop)
			break;
	}
	sd_bus_flush_close_unref(bus);
	return 0;
}
