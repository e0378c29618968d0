#ifndef MEMCTL_CGCONFIG_H
#define MEMCTL_CGCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/*
 * memctl import: the memory settings of a libcgroup cgconfig.conf (the
 * format of cgconfig.conf(5), as cgconfigparser(8) of libcgroup 2.0 reads
 * it) turned into a memctl profile (memctl-profile(5)).
 *
 * The syntax is read as cgconfigparser reads it: a file it rejects is
 * rejected here, with the place. Group names are paths from the root of
 * the memory hierarchy and become nested groups below the profile's
 * parent. What has no memctl equivalent (other controllers, perm, default,
 * mount, namespace and template sections, memory.* files memctl has no
 * knob for, the root group's settings, values memctl's ordering rules
 * refuse) is left out and reported, each at its own place.
 */

struct mc_cgconfig_result {
	char *yaml;          /* the profile, NUL-terminated */
	size_t groups;       /* groups in it, including the intermediate ones */
	size_t settings;     /* knob values converted */
};

/*
 * Converts buf (len bytes, need not be NUL-terminated); file is used in
 * messages only, parent is the profile's parent ("/" puts the groups where
 * cgconfigparser creates them). Everything left out is appended to
 * skipped. Returns 0 and fills *ret (the profile passes mc_profile_parse);
 * -EINVAL when the input is not a valid cgconfig.conf or a value is one the
 * kernel would refuse (errors non-empty, *ret not written); -ENOMEM.
 */
int mc_cgconfig_convert(const char *file, const char *buf, size_t len, const char *parent,
			struct mc_cgconfig_result *ret, struct mc_diags *skipped,
			struct mc_diags *errors);

void mc_cgconfig_result_free(struct mc_cgconfig_result *r);

/*
 * Parses a memory size as the kernel reads a memory.* file: a number
 * (decimal, 0x hexadecimal or 0 octal) with an optional K, M, G, T, P or E
 * suffix in either case, blanks around it ignored; "-1" (v1) or "max" (v2)
 * mean no limit (*ret_unlimited). Returns 0, or -EINVAL / -ERANGE with a
 * static reason in *ret_why.
 */
int mc_cgconfig_parse_size(const char *s, bool v1, uint64_t *ret_bytes, bool *ret_unlimited,
			   const char **ret_why);

#endif
