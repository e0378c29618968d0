#include <errno.h>
#include <string.h>

#include "unitname.h"

static const struct {
	const char *suffix;
	const char *interface;
} unit_types[] = {
	{ ".slice", "org.freedesktop.systemd1.Slice" },
	{ ".service", "org.freedesktop.systemd1.Service" },
	{ ".scope", "org.freedesktop.systemd1.Scope" },
	{ ".socket", "org.freedesktop.systemd1.Socket" },
	{ ".mount", "org.freedesktop.systemd1.Mount" },
	{ ".swap", "org.freedesktop.systemd1.Swap" },
};

#define N_TYPES (sizeof(unit_types) / sizeof(unit_types[0]))

static bool unit_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '-' || c == '_' || c == '.' || c == '\\' || c == '@';
}

/* The unit_types index of name's suffix, or N_TYPES. */
static size_t unit_type(const char *name, size_t len)
{
	if (len == 0 || len > 255)
		return N_TYPES;
	for (size_t i = 0; i < len; i++)
		if (!unit_char(name[i]))
			return N_TYPES;
	for (size_t i = 0; i < N_TYPES; i++) {
		size_t sl = strlen(unit_types[i].suffix);

		if (len > sl && memcmp(name + len - sl, unit_types[i].suffix, sl) == 0)
			return i;
	}
	return N_TYPES;
}

bool mc_sd_is_unit_name(const char *name, size_t len)
{
	return unit_type(name, len) < N_TYPES;
}

const char *mc_sd_unit_interface(const char *name)
{
	size_t t = unit_type(name, strlen(name));

	return t < N_TYPES ? unit_types[t].interface : NULL;
}

int mc_sd_target_check(const char *name, const char **ret_why)
{
	size_t len = strlen(name), t = unit_type(name, len);
	const char *at;

	if (t == N_TYPES) {
		*ret_why = "is not a systemd unit with a cgroup (a name of letters, digits and "
			   ":-_.\\@ ending in .service, .slice, .scope, .socket, .mount or .swap)";
		return -EINVAL;
	}
	at = strchr(name, '@');
	if (at && at[1] == '.' && name + len - strlen(unit_types[t].suffix) == at + 1) {
		*ret_why = "is a template without an instance (write 'name@instance.service')";
		return -EINVAL;
	}
	if (strcmp(name, "-.slice") == 0) {
		*ret_why = "is the root slice, whose cgroup (the root) has no memory limits";
		return -EINVAL;
	}
	return 0;
}
