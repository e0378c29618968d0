/* Which cgroup names are systemd units (host/systemd.c): only the unit
 * types that have a cgroup, with a non-empty name of unit characters. */
#include <stdio.h>
#include <string.h>

#include "systemd.h"
#include "tap.h"

static const struct {
	const char *name;
	bool unit;
} names[] = {
	{ "system.slice", true },
	{ "-.slice", true },
	{ "user-1000.slice", true },
	{ "user@1000.service", true },
	{ "memctl@web.service", true },
	{ "session-3.scope", true },
	{ "docker-0f3a.scope", true },
	{ "dbus.socket", true },
	{ "boot-efi.mount", true },
	{ "dev-sda2.swap", true },
	{ "system-getty\\x2dstatic.slice", true },
	{ ".service", false },          /* empty prefix */
	{ "service", false },
	{ "x.servicefoo", false },
	{ "x.target", false },          /* no cgroup */
	{ "x.timer", false },
	{ "x.device", false },
	{ "web", false },
	{ "my app.service", false },    /* space is not a unit character */
	{ "app.SERVICE", false },
	{ "", false },
};

int main(void)
{
	char longname[300];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		tap_check(mc_sd_is_unit_name(names[i].name, strlen(names[i].name)) == names[i].unit,
			  "'%s' is %sa unit", names[i].name, names[i].unit ? "" : "not ");
	/* only len bytes count: a component inside a longer path */
	tap_check(mc_sd_is_unit_name("a.service/b", 9), "length bounds the name");
	tap_check(!mc_sd_is_unit_name("a.service/b", 11), "the rest of the path is not a name");
	/* systemd's limit is 255 bytes */
	memset(longname, 'a', sizeof(longname));
	memcpy(longname + 249, ".slice", 6);
	tap_check(mc_sd_is_unit_name(longname, 255), "255 bytes is a unit name");
	memcpy(longname + 250, ".slice", 6);
	tap_check(!mc_sd_is_unit_name(longname, 256), "256 bytes is not");
	tap_eq_str(mc_sd_owner_name(MC_SD_UNDELEGATED), "undelegated", "owner names");
	/* the unit that owns a group: the deepest unit of its path (top's UNIT column) */
	{
		static const struct {
			const char *path, *unit;
		} owners[] = {
			{ "/system.slice/db.service/work", "db.service" },
			{ "/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope", "x.scope" },
			{ "/system.slice", "system.slice" },
			{ "/process_api/abc/t-47/plain/x.servicefoo", NULL },
			{ "/", NULL },
			{ "/a.service//b", "a.service" },
		};
		for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++) {
			const char *u = NULL;
			size_t ul = 0;
			char got[64] = "(none)";

			if (mc_sd_unit_of(owners[i].path, &u, &ul))
				snprintf(got, sizeof(got), "%.*s", (int)ul, u);
			tap_eq_str(got, owners[i].unit ? owners[i].unit : "(none)", "unit of '%s'",
				   owners[i].path);
		}
	}
	return tap_done();
}
