/* CMake defines it for the whole project; a direct compile may not. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "tap.h"

#ifndef MEMCTL_SOURCE_DIR
#define MEMCTL_SOURCE_DIR "."
#endif

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* Two lines that make a profile valid, so that cases start on line 3. */
#define HDR "version: 1\nparent: self\n"

/*
 * One invalid profile and the first diagnostic it must produce: exactly
 * there, with this key path, and a message containing msg. n is the total
 * number of diagnostics expected.
 */
struct bad_case {
	const char *name;
	const char *yaml;
	size_t len;          /* 0: strlen(yaml); set for inputs holding a NUL */
	int line, col;
	const char *path;    /* NULL: the diagnostic has no key path */
	const char *msg;
	size_t n;
};

static const struct bad_case bad[] = {
	/* YAML syntax: libyaml's problem text at its problem mark. */
	{ "syntax: bad indentation", HDR "interval: 5s\n  reclaim: 2\n", 0,
	  4, 10, NULL, "syntax error: mapping values are not allowed in this context", 1 },
	{ "syntax: after events were delivered", HDR "groups:\n  web:\n    max: 1G\n  - oops\n", 0,
	  6, 3, NULL, "syntax error: did not find expected key", 1 },
	{ "syntax: unterminated flow mapping", HDR "groups: {web: {max: 1G}\n", 0,
	  4, 1, NULL, "syntax error: did not find expected ',' or '}' (while parsing a flow mapping at line 3, column 9)", 1 },
	{ "syntax: tab indentation", HDR "groups:\n\tweb: {}\n", 0,
	  4, 1, NULL, "syntax error: found character that cannot start any token", 1 },
	{ "syntax: unterminated quote", HDR "groups:\n  web:\n    max: \"1G\n", 0,
	  6, 1, NULL, "syntax error: found unexpected end of stream", 1 },

	/* A non-zero size below a page: the kernel would make it 0 ("max: 5" of "max: 512M"). */
	{ "size below a page", HDR "groups:\n  web:\n    max: 5\n", 0,
	  5, 10, "groups.web.max", "size '5' is below one page (4096 bytes): the kernel would make it 0; write 0 or at least 4K", 1 },
	{ "protect below a page", HDR "groups:\n  web:\n    protect: 4095\n", 0,
	  5, 14, "groups.web.protect", "size '4095' is below one page (4096 bytes): the kernel would make it 0; write 0 or at least 4K", 1 },

	/* Unknown keys, with a suggestion when one is close. */
	{ "unknown top-level key", HDR "intervall: 5s\n", 0,
	  3, 1, "intervall", "unknown key 'intervall', did you mean 'interval'?", 1 },
	{ "unknown knob", HDR "groups:\n  web:\n    hgih: 1G\n", 0,
	  5, 5, "groups.web.hgih", "unknown key 'hgih', did you mean 'high'?", 1 },
	{ "unknown reclaim key", HDR "reclaim:\n  concurency: 2\n", 0,
	  4, 3, "reclaim.concurency", "unknown key 'concurency', did you mean 'concurrency'?", 1 },
	{ "unknown key, nested group", HDR "groups:\n  web:\n    groups:\n      cache:\n        maxx: 1G\n", 0,
	  7, 9, "groups.web.groups.cache.maxx", "unknown key 'maxx', did you mean 'max'?", 1 },
	{ "unknown key, no suggestion", HDR "groups:\n  web:\n    colour: blue\n", 0,
	  5, 5, "groups.web.colour", "unknown key 'colour'", 1 },
	{ "child group without groups:", HDR "groups:\n  web:\n    cache:\n      max: 1G\n", 0,
	  5, 5, "groups.web.cache", "unknown key 'cache' (child groups go under 'groups:')", 1 },
	{ "merge key", HDR "x-t: &t {max: 1G}\ngroups:\n  web:\n    <<: *t\n", 0,
	  6, 5, "groups.web.<<", "unknown key '<<': merge keys are not supported", 1 },
	{ "x- keys only at the top level", HDR "groups:\n  web:\n    x-note: hi\n", 0,
	  5, 5, "groups.web.x-note", "unknown key 'x-note'", 1 },

	/* Duplicate keys: the second occurrence, naming the first's line. */
	{ "duplicate top-level key", HDR "version: 1\n", 0,
	  3, 1, "version", "duplicate key 'version', first defined at line 1", 1 },
	{ "duplicate knob", HDR "groups:\n  web:\n    max: 1G\n    max: 2G\n", 0,
	  6, 5, "groups.web.max", "duplicate key 'max', first defined at line 5", 1 },
	{ "duplicate knob, quoted", HDR "groups:\n  web:\n    max: 1G\n    \"max\": 2G\n", 0,
	  6, 5, "groups.web.max", "duplicate key 'max', first defined at line 5", 1 },
	{ "duplicate group", HDR "groups:\n  web: {}\n  db: {}\n  web: {}\n", 0,
	  6, 3, "groups.web", "duplicate group 'web', first defined at line 4", 1 },
	{ "duplicate in flow mapping", HDR "reclaim: {numa: off, concurrency: 2, numa: off}\n", 0,
	  3, 38, "reclaim.numa", "duplicate key 'numa', first defined at line 3", 1 },

	/* Wrong types. */
	{ "groups: 5", HDR "groups: 5\n", 0,
	  3, 9, "groups", "expected a mapping of groups, found a scalar", 1 },
	{ "groups: a sequence", HDR "groups:\n  - web\n", 0,
	  4, 3, "groups", "expected a mapping of groups, found a sequence", 1 },
	{ "knob: a sequence", HDR "groups:\n  web:\n    max: [1G]\n", 0,
	  5, 10, "groups.web.max", "expected a size, found a sequence", 1 },
	{ "knob: a mapping", HDR "groups:\n  web:\n    max:\n      a: 1\n", 0,
	  6, 7, "groups.web.max", "expected a size, found a mapping", 1 },
	{ "group body: a scalar", HDR "groups:\n  web: 5\n", 0,
	  4, 8, "groups.web", "expected a mapping of group settings, found a scalar", 1 },
	{ "group body: a sequence", HDR "groups:\n  web:\n    - max: 1G\n", 0,
	  5, 5, "groups.web", "expected a mapping of group settings, found a sequence", 1 },
	{ "group body: quoted empty string", HDR "groups:\n  web: \"\"\n", 0,
	  4, 8, "groups.web", "expected a mapping of group settings, found a scalar", 1 },
	{ "reclaim: a scalar", HDR "reclaim: fast\n", 0,
	  3, 10, "reclaim", "expected a mapping of reclaim settings, found a scalar", 1 },
	{ "version: a sequence", "version: [1]\nparent: self\n", 0,
	  1, 10, "version", "expected a version number, found a sequence", 1 },
	{ "parent: a mapping", "version: 1\nparent: {a: 1}\n", 0,
	  2, 9, "parent", "expected a cgroup path, found a mapping", 1 },
	{ "thp: a mapping", HDR "groups:\n  web:\n    thp: {a: 1}\n", 0,
	  5, 10, "groups.web.thp", "expected true or false, found a mapping", 1 },
	{ "top level: a sequence", "- a\n- b\n", 0,
	  1, 1, NULL, "expected a mapping of profile settings, found a sequence", 1 },
	{ "top level: a scalar", "hello\n", 0,
	  1, 1, NULL, "expected a mapping of profile settings, found a scalar", 1 },
	{ "key: a sequence", HDR "? [a, b]\n: 1\n", 0,
	  3, 3, NULL, "expected a key, found a sequence", 1 },
	{ "group name: a mapping", HDR "groups:\n  ? {a: 1}\n  : {}\n", 0,
	  4, 5, "groups", "expected a key, found a mapping", 1 },

	/* Empty values: reported at the key. */
	{ "empty knob", HDR "groups:\n  web:\n    max:\n    high: 1G\n", 0,
	  5, 5, "groups.web.max", "empty value, expected a size", 1 },
	{ "empty quoted knob", HDR "groups:\n  web:\n    max: \"\"\n", 0,
	  5, 5, "groups.web.max", "empty value, expected a size", 1 },
	{ "null knob", HDR "groups:\n  web:\n    soft_limit: ~\n", 0,
	  5, 5, "groups.web.soft_limit", "empty value, expected a size", 1 },
	{ "empty protect", HDR "groups:\n  web:\n    protect:\n", 0,
	  5, 5, "groups.web.protect", "empty value, expected 'active', 'none' or a size", 1 },
	{ "empty thp", HDR "groups:\n  web:\n    thp: ''\n", 0,
	  5, 5, "groups.web.thp", "empty value, expected true or false", 1 },
	{ "empty version", "version:\nparent: self\n", 0,
	  1, 1, "version", "empty value, expected a version number", 1 },
	{ "empty interval", HDR "interval:\n", 0,
	  3, 1, "interval", "empty value, expected a duration", 1 },
	{ "escaped NUL in a value", HDR "groups:\n  web:\n    max: \"1\\0G\"\n", 0,
	  5, 10, "groups.web.max", "value contains a NUL character", 1 },
	{ "escaped NUL in a key", HDR "groups:\n  \"a\\0b\": {}\n", 0,
	  4, 3, "groups", "key contains a NUL character", 1 },

	/* Sizes. */
	{ "size overflows 64 bits", HDR "groups:\n  web:\n    max: 99999999999999999999\n", 0,
	  5, 10, "groups.web.max", "size '99999999999999999999' does not fit in 64 bits", 1 },
	{ "size overflows with a suffix", HDR "groups:\n  web:\n    swap_max: 16777216T\n", 0,
	  5, 15, "groups.web.swap_max", "size '16777216T' does not fit in 64 bits", 1 },
	{ "size negative", HDR "groups:\n  web:\n    max: -1G\n", 0,
	  5, 10, "groups.web.max", "size '-1G' is negative", 1 },
	{ "size unknown suffix", HDR "groups:\n  web:\n    max: 12X\n", 0,
	  5, 10, "groups.web.max", "size '12X' has an unknown suffix 'X'", 1 },
	{ "size unknown suffix, quoted", HDR "groups:\n  web:\n    max: '12X'\n", 0,
	  5, 10, "groups.web.max", "size '12X' has an unknown suffix 'X'", 1 },
	{ "size decimal unit", HDR "groups:\n  web:\n    high: 1e9\n", 0,
	  5, 11, "groups.web.high", "size '1e9' has an unknown suffix 'e9'", 1 },
	{ "percentage over 100", HDR "groups:\n  web:\n    high: 101%\n", 0,
	  5, 11, "groups.web.high", "size '101%' is above 100%", 1 },
	{ "percentage with 3 decimals", HDR "groups:\n  web:\n    low: 1.234%\n", 0,
	  5, 10, "groups.web.low", "size '1.234%' has more than two decimals", 1 },
	{ "size not a number", HDR "groups:\n  web:\n    min: lots\n", 0,
	  5, 10, "groups.web.min", "size 'lots' is not a number", 1 },
	{ "size fraction of a byte", HDR "groups:\n  web:\n    min: 1.5\n", 0,
	  5, 10, "groups.web.min", "size '1.5' has a fraction of a byte", 1 },
	{ "protect: unknown word", HDR "groups:\n  web:\n    protect: always\n", 0,
	  5, 14, "groups.web.protect", "protect 'always' is not 'active', 'none' or a size", 1 },
	{ "protect: typo", HDR "groups:\n  web:\n    protect: activ\n", 0,
	  5, 14, "groups.web.protect", "did you mean 'active'?", 1 },
	{ "protect: bad size", HDR "groups:\n  web:\n    protect: 5Q\n", 0,
	  5, 14, "groups.web.protect", "size '5Q' has an unknown suffix 'Q'", 1 },
	{ "thp: not a boolean", HDR "groups:\n  web:\n    thp: maybe\n", 0,
	  5, 10, "groups.web.thp", "thp 'maybe' is not a boolean, expected true or false", 1 },
	{ "thp: a number is not a boolean", HDR "groups:\n  web:\n    thp: 1\n", 0,
	  5, 10, "groups.web.thp", "thp '1' is not a boolean", 1 },

	/* Order within a group, and a child against its parent. */
	{ "low above high", HDR "groups:\n  web:\n    low: 2G\n    high: 1G\n", 0,
	  5, 10, "groups.web.low", "low '2G' is above high '1G'", 1 },
	{ "min above low, percentages", HDR "groups:\n  web:\n    min: 20%\n    low: 10%\n", 0,
	  5, 10, "groups.web.min", "min '20%' is above low '10%'", 1 },
	{ "min above high past an incomparable low", HDR "groups:\n  web:\n    min: 2G\n    low: 10%\n    high: 1G\n", 0,
	  5, 10, "groups.web.min", "min '2G' is above high '1G'", 1 },
	{ "high above max, written after it", HDR "groups:\n  web:\n    max: 1G\n    high: 1025M\n", 0,
	  6, 11, "groups.web.high", "high '1025M' is above max '1G'", 1 },
	{ "soft_limit above max", HDR "groups:\n  web:\n    max: 1G\n    soft_limit: 2G\n", 0,
	  6, 17, "groups.web.soft_limit", "soft_limit '2G' is above max '1G'", 1 },
	{ "chain broken twice", HDR "groups:\n  web: {min: 3G, low: 2G, high: 1G}\n", 0,
	  4, 14, "groups.web.min", "min '3G' is above low '2G'", 2 },
	{ "child max above parent's", HDR "groups:\n  web:\n    max: 1G\n    groups:\n      cache:\n        max: 2G\n", 0,
	  8, 14, "groups.web.groups.cache.max", "max '2G' is above the parent's max '1G'", 1 },

	/* Group names. */
	{ "group name empty", HDR "groups:\n  \"\": {}\n", 0,
	  4, 3, "groups.", "group name '' is empty", 1 },
	{ "group name .", HDR "groups:\n  .: {}\n", 0,
	  4, 3, "groups..", "group name '.' is '.' or '..'", 1 },
	{ "group name ..", HDR "groups:\n  web:\n    groups:\n      ..: {}\n", 0,
	  6, 7, "groups.web.groups...", "group name '..' is '.' or '..'", 1 },
	{ "group name with /", HDR "groups:\n  a/b: {}\n", 0,
	  4, 3, "groups.a/b", "group name 'a/b' contains '/'", 1 },
	{ "group name with a control character", HDR "groups:\n  \"a\\tb\": {}\n", 0,
	  4, 3, "groups.a\\x09b", "group name 'a\\x09b' contains a control character", 1 },
	{ "group name with an escape", HDR "groups:\n  \"a\\eb\": {}\n", 0,
	  4, 3, "groups.a\\x1bb", "contains a control character", 1 },

	/* Aliases. */
	{ "unknown alias", HDR "groups:\n  web: *nope\n", 0,
	  4, 8, NULL, "unknown alias '*nope'", 1 },
	{ "alias inside its own anchor", HDR "groups: &g\n  web:\n    groups: *g\n", 0,
	  5, 13, NULL, "alias '*g' refers to a node that contains it", 1 },
	{ "bad size through an alias", HDR "x-s: &s 12X\ngroups:\n  web:\n    max: *s\n", 0,
	  6, 10, "groups.web.max", "size '12X' has an unknown suffix 'X'", 1 },
	{ "bad key inside an aliased body", HDR "x-t: &t\n  hihg: 1G\ngroups:\n  web: *t\n  db: *t\n", 0,
	  4, 3, "groups.web.hihg", "unknown key 'hihg', did you mean 'high'?", 2 },

	/* The text itself. */
	{ "NUL byte", "version: 1\nparent: se\0lf\n", 25,
	  2, 11, NULL, "profile contains a NUL byte", 1 },
	/* libyaml points at the octet that is wrong: here the second one */
	{ "invalid UTF-8", "version: 1\nparent: \"/caf\xc3\x28\"\n", 0,
	  2, 15, NULL, "invalid text: invalid trailing UTF-8 octet (0x28)", 1 },
	{ "invalid UTF-8 after a multibyte character", "version: 1\nparent: \"/\xc3\xa9\xff\"\n", 0,
	  2, 12, NULL, "invalid text: invalid leading UTF-8 octet (0xff)", 1 },
	{ "truncated UTF-8 at the end", "version: 1\nparent: self\n#\xe2\x82", 0,
	  3, 2, NULL, "invalid text: incomplete UTF-8 octet sequence", 1 },
	{ "UTF-16", "\xff\xfev\0e\0", 6,
	  1, 1, NULL, "profile is UTF-16; profiles must be UTF-8", 1 },
	{ "control character in text", "version: 1\nparent: \"/a\x01\"\n", 0,
	  2, 12, NULL, "invalid text: control characters are not allowed (0x01)", 1 },
	{ "two documents", HDR "---\nversion: 1\n", 0,
	  3, 1, NULL, "more than one YAML document", 1 },
	{ "two documents, explicit", "---\n" HDR "...\n---\n" HDR, 0,
	  5, 1, NULL, "more than one YAML document", 1 },
	{ "empty file", "", 0,
	  1, 1, NULL, "empty profile", 1 },
	{ "only comments", "# nothing here\n\n", 0,
	  1, 1, NULL, "empty profile", 1 },
	{ "empty document", "---\n", 0,
	  2, 1, NULL, "empty profile", 1 },
	{ "null document", "~\n", 0,
	  1, 1, NULL, "empty profile", 1 },
	{ "CRLF line ends", "version: 1\r\nparent: self\r\ngroups:\r\n  web:\r\n    max: 12X\r\n", 0,
	  5, 10, "groups.web.max", "size '12X' has an unknown suffix 'X'", 1 },
	{ "UTF-8 byte order mark", "\xef\xbb\xbfversion: 3\nparent: self\n", 0,
	  1, 10, "version", "unsupported version '3'", 1 },
	{ "columns count characters", HDR "groups:\n  caf\xc3\xa9: {max: 1Q}\n", 0,
	  4, 15, "groups.caf\xc3\xa9.max", "size '1Q' has an unknown suffix 'Q'", 1 },

	/* version and parent. */
	{ "version 2", "version: 2\nparent: self\n", 0,
	  1, 10, "version", "unsupported version '2', this memctl reads version 1", 1 },
	{ "version 1.0", "version: 1.0\nparent: self\n", 0,
	  1, 10, "version", "unsupported version '1.0'", 1 },
	{ "version missing", "parent: self\n", 0,
	  1, 1, NULL, "missing required key 'version'", 1 },
	{ "parent missing", "version: 1\n", 0,
	  1, 1, NULL, "missing required key 'parent'", 1 },
	{ "both missing", "interval: 5s\n", 0,
	  1, 1, NULL, "missing required key 'version'", 2 },
	{ "parent relative", "version: 1\nparent: web\n", 0,
	  2, 9, "parent", "parent 'web' is not an absolute cgroup path, '/' or 'self'", 1 },
	{ "parent selfish", "version: 1\nparent: selfish\n", 0,
	  2, 9, "parent", "parent 'selfish' is not an absolute cgroup path", 1 },
	{ "parent ..", "version: 1\nparent: /a/../b\n", 0,
	  2, 9, "parent", "parent '/a/../b' contains a '.' or '..' component", 1 },
	{ "parent self/.", "version: 1\nparent: self/.\n", 0,
	  2, 9, "parent", "parent 'self/.' contains a '.' or '..' component", 1 },
	{ "parent //", "version: 1\nparent: /a//b\n", 0,
	  2, 9, "parent", "parent '/a//b' contains '//'", 1 },
	{ "parent leading //", "version: 1\nparent: //\n", 0,
	  2, 9, "parent", "parent '//' contains '//'", 1 },
	{ "parent trailing /", "version: 1\nparent: /a/\n", 0,
	  2, 9, "parent", "parent '/a/' ends with '/'", 1 },
	{ "parent control character", "version: 1\nparent: \"/a\\tb\"\n", 0,
	  2, 9, "parent", "parent '/a\\x09b': component 'a\\x09b' contains a control character", 1 },

	/* interval and reclaim. */
	{ "interval zero", HDR "interval: 0\n", 0,
	  3, 11, "interval", "interval '0' is not above zero", 1 },
	{ "interval zero ms", HDR "interval: 0ms\n", 0,
	  3, 11, "interval", "interval '0ms' is not above zero", 1 },
	{ "interval above 1h", HDR "interval: 61m\n", 0,
	  3, 11, "interval", "interval '61m' is longer than 1h", 1 },
	{ "interval huge", HDR "interval: 99999999999999999999999h\n", 0,
	  3, 11, "interval", "is longer than 1h", 1 },
	{ "interval negative", HDR "interval: -5s\n", 0,
	  3, 11, "interval", "interval '-5s' is negative", 1 },
	{ "interval unknown unit", HDR "interval: 5d\n", 0,
	  3, 11, "interval", "interval '5d' has an unknown unit (use ms, s, m or h)", 1 },
	{ "interval with a space", HDR "interval: 5 s\n", 0,
	  3, 11, "interval", "has an unknown unit", 1 },
	{ "interval below a millisecond", HDR "interval: 1.5ms\n", 0,
	  3, 11, "interval", "interval '1.5ms' is not a whole number of milliseconds", 1 },
	{ "interval not a duration", HDR "interval: often\n", 0,
	  3, 11, "interval", "interval 'often' is not a duration", 1 },
	{ "concurrency 0", HDR "reclaim:\n  concurrency: 0\n", 0,
	  4, 16, "reclaim.concurrency", "concurrency '0' is not an integer from 1 to 1024", 1 },
	{ "concurrency 1025", HDR "reclaim:\n  concurrency: 1025\n", 0,
	  4, 16, "reclaim.concurrency", "concurrency '1025' is not an integer from 1 to 1024", 1 },
	{ "concurrency huge", HDR "reclaim:\n  concurrency: 99999999999999999999\n", 0,
	  4, 16, "reclaim.concurrency", "is not an integer from 1 to 1024", 1 },
	{ "switch knob not 0 or 1", HDR "groups:\n  web:\n    reclaim_protect_active: 2\n", 0,
	  5, 29, "groups.web.reclaim_protect_active", "'reclaim_protect_active' is a switch: 0 or 1, not '2'", 1 },
	{ "switch knob as a size", HDR "groups:\n  web:\n    reclaim_protect_active: 1M\n", 0,
	  5, 29, "groups.web.reclaim_protect_active", "is a switch: 0 or 1", 1 },
	{ "concurrency fraction", HDR "reclaim:\n  concurrency: 1.5\n", 0,
	  4, 16, "reclaim.concurrency", "concurrency '1.5' is not an integer", 1 },
	{ "kernel_per_node negative", HDR "reclaim:\n  kernel_per_node: -1\n", 0,
	  4, 20, "reclaim.kernel_per_node", "kernel_per_node '-1' is not auto or an integer from 0 (no cap) to 1024", 1 },
	{ "kernel_per_node 1025", HDR "reclaim:\n  kernel_per_node: 1025\n", 0,
	  4, 20, "reclaim.kernel_per_node", "kernel_per_node '1025' is not auto or an integer from 0", 1 },
	{ "numa typo", HDR "reclaim:\n  numa: round_robin\n", 0,
	  4, 9, "reclaim.numa", "unknown numa mode 'round_robin', did you mean 'round-robin'?", 1 },
	{ "numa unknown", HDR "reclaim:\n  numa: interleave\n", 0,
	  4, 9, "reclaim.numa", "unknown numa mode 'interleave', expected weighted, round-robin or off", 1 },

	/* units: systemd units as targets, their names untrusted */
	{ "unit without a type", HDR "units:\n  postgresql: {max: 1G}\n", 0,
	  4, 3, "units.postgresql", "unit 'postgresql' is not a systemd unit with a cgroup", 1 },
	{ "unit type without a cgroup", HDR "units:\n  backup.timer: {}\n", 0,
	  4, 3, "units.backup.timer", "is not a systemd unit with a cgroup", 1 },
	{ "unit name with a slash", HDR "units:\n  ../etc.service: {}\n", 0,
	  4, 3, "units.../etc.service", "is not a systemd unit with a cgroup", 1 },
	{ "unit name with a control character", HDR "units:\n  \"a\\x1bb.service\": {}\n", 0,
	  4, 3, "units.a\\x1bb.service", "is not a systemd unit with a cgroup", 1 },
	{ "unit template", HDR "units:\n  app@.service: {}\n", 0,
	  4, 3, "units.app@.service", "is a template without an instance", 1 },
	{ "root slice", HDR "units:\n  -.slice: {}\n", 0,
	  4, 3, "units.-.slice", "is the root slice", 1 },
	{ "unit percentage", HDR "units:\n  a.service:\n    high: 50%\n", 0,
	  5, 11, "units.a.service.high", "a unit's high must be a size or 'max', not a percentage", 1 },
	{ "unit with child groups", HDR "units:\n  a.service:\n    groups: {x: {}}\n", 0,
	  5, 5, "units.a.service.groups", "a unit has no child groups here", 1 },
	{ "unit order", HDR "units:\n  a.service: {low: 2G, max: 1G}\n", 0,
	  4, 20, "units.a.service.low", "low '2G' is above max '1G'", 1 },
	{ "unit duplicate", HDR "units:\n  a.service: {}\n  a.service: {}\n", 0,
	  5, 3, "units.a.service", "duplicate unit 'a.service', first defined at line 4", 1 },
	{ "unit knob typo", HDR "units:\n  a.service: {mx: 1G}\n", 0,
	  4, 15, "units.a.service.mx", "unknown key 'mx', did you mean 'max'?", 1 },
	{ "units not a mapping", HDR "units: [a.service]\n", 0,
	  3, 8, "units", "expected a mapping of systemd units, found a sequence", 1 },
};

static size_t case_len(const struct bad_case *c)
{
	return c->len ? c->len : strlen(c->yaml);
}

static void check_bad(const struct bad_case *c)
{
	struct mc_profile p = { .version = 77 };
	struct mc_diags d = { 0 };
	int r = mc_profile_parse("t.yaml", c->yaml, case_len(c), &p, &d);

	tap_eq_int(r, -EINVAL, "%s: rejected", c->name);
	tap_check(p.version == 77 && p.groups == NULL, "%s: *ret not written", c->name);
	tap_eq_int((long long)d.n, (long long)c->n, "%s: %zu diagnostic(s)", c->name, c->n);
	if (d.n == 0) {
		mc_diags_free(&d);
		return;
	}
	tap_eq_int(d.v[0].line, c->line, "%s: line", c->name);
	tap_eq_int(d.v[0].col, c->col, "%s: column", c->name);
	tap_eq_str(d.v[0].file, "t.yaml", "%s: file", c->name);
	tap_eq_str(d.v[0].path, c->path, "%s: path", c->name);
	tap_check(d.v[0].msg && strstr(d.v[0].msg, c->msg), "%s: message has '%s'", c->name, c->msg);
	if (!d.v[0].msg || !strstr(d.v[0].msg, c->msg))
		printf("#   got '%s'\n", d.v[0].msg ? d.v[0].msg : "(null)");
	for (size_t i = 0; i < d.n; i++) {
		/* The style every message follows: lowercase, no trailing period. */
		size_t l = strlen(d.v[i].msg);

		tap_check(l > 0 && d.v[i].msg[l - 1] != '.' &&
			  !(d.v[i].msg[0] >= 'A' && d.v[i].msg[0] <= 'Z'),
			  "%s: message %zu style", c->name, i);
	}
	mc_diags_free(&d);
}

/* Parses text that must be valid; diagnostics are printed when it is not. */
static int parse_ok(const char *name, const char *yaml, size_t len, struct mc_profile *p)
{
	struct mc_diags d = { 0 };
	int r = mc_profile_parse("t.yaml", yaml, len, p, &d);

	tap_eq_int(r, 0, "%s: accepted", name);
	for (size_t i = 0; i < d.n; i++) {
		char *s;

		if (mc_diag_format(&d.v[i], &s) == 0) {
			printf("#   %s\n", s);
			free(s);
		}
	}
	tap_eq_int((long long)d.n, 0, "%s: no diagnostics", name);
	mc_diags_free(&d);
	return r;
}

static const struct mc_group_spec *find_group(const struct mc_group_spec *v, size_t n,
					      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

/*
 * An unlimited lower knob means "no limit of its own": accepted under any
 * upper limit, as the kernel does and as the planner treats it.
 */
static void test_unlimited_lower_knobs(void)
{
	static const char *const ok[] = {
		"version: 1\nparent: self\ngroups:\n  web:\n    high: max\n    max: 1G\n",
		"version: 1\nparent: self\ngroups:\n  web:\n    soft_limit: max\n    max: 1G\n",
		"version: 1\nparent: self\ngroups:\n  web:\n    max: 50%\n    groups:\n      cache: {max: max}\n",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct mc_profile p;

		if (parse_ok("unlimited lower knob", ok[i], strlen(ok[i]), &p) == 0)
			mc_profile_free(&p);
	}
}

/*
 * A profile using every key, parsed and checked field by field. It is long
 * because it is that profile's text and one check per field.
 */
static void test_full_profile(void)
{
	static const char yaml[] =
		"# a comment\n"
		"version: 1\n"
		"parent: /machine.slice/app\n"
		"interval: 500ms\n"
		"reclaim:\n"
		"  concurrency: 8\n"
		"  numa: round-robin\n"
		"x-defaults: &small {max: 256M, soft_limit: 128M}\n"
		"groups:\n"
		"  web:\n"
		"    max: 50%\n"
		"    high: 45.5%\n"
		"    low: 10%\n"
		"    min: 5%\n"
		"    protect: active\n"
		"    thp: yes\n"
		"    groups:\n"
		"      cache: *small\n"
		"      logs:\n"
		"  batch: {max: max, swap_max: \"0\", protect: none, thp: Off}\n"
		"  db:\n"
		"    max: 4GiB\n"
		"    protect: 1.5G\n";
	struct mc_profile p;
	const struct mc_group_spec *web, *batch, *db, *cache, *logs;

	if (parse_ok("full profile", yaml, sizeof(yaml) - 1, &p) < 0)
		return;
	tap_eq_str(p.file, "t.yaml", "file kept for messages");
	tap_eq_int(p.version, 1, "version");
	tap_eq_str(p.parent, "/machine.slice/app", "parent");
	tap_eq_int(p.parent_pos.line, 3, "parent line");
	tap_eq_int(p.parent_pos.col, 9, "parent column");
	tap_eq_u64(p.interval_ms, 500, "interval");
	tap_eq_int(p.concurrency, 8, "concurrency");
	tap_eq_int(p.numa, MC_NUMA_ROUND_ROBIN, "numa");
	tap_eq_int((long long)p.n_groups, 3, "three groups");
	web = find_group(p.groups, p.n_groups, "web");
	batch = find_group(p.groups, p.n_groups, "batch");
	db = find_group(p.groups, p.n_groups, "db");
	tap_check(web && batch && db, "web, batch and db found");
	if (!web || !batch || !db) {
		mc_profile_free(&p);
		return;
	}
	tap_eq_int(web->pos.line, 10, "web line");
	tap_eq_int(web->pos.col, 3, "web column");
	tap_eq_int(web->knob[MC_KNOB_MAX].kind, MC_SIZE_PERCENT, "web max is a percentage");
	tap_eq_int(web->knob[MC_KNOB_MAX].centipct, 5000, "web max 50%%");
	tap_eq_int(web->knob[MC_KNOB_HIGH].centipct, 4550, "web high 45.5%%");
	tap_eq_int(web->knob[MC_KNOB_LOW].centipct, 1000, "web low 10%%");
	tap_eq_int(web->knob[MC_KNOB_MIN].centipct, 500, "web min 5%%");
	tap_eq_int(web->knob[MC_KNOB_SOFT].kind, MC_SIZE_UNSET, "web soft_limit unset");
	tap_eq_int(web->knob[MC_KNOB_SWAP].kind, MC_SIZE_UNSET, "web swap_max unset");
	tap_eq_int(web->knob_pos[MC_KNOB_HIGH].line, 12, "web high line");
	tap_eq_int(web->knob_pos[MC_KNOB_HIGH].col, 11, "web high column");
	tap_eq_int(web->protect, MC_PROTECT_ACTIVE, "web protect active");
	tap_eq_int(web->protect_pos.line, 15, "web protect line");
	tap_eq_int(web->thp, 1, "web thp yes");
	tap_eq_int(web->thp_pos.line, 16, "web thp line");
	tap_eq_int((long long)web->n_children, 2, "web has two children");
	cache = find_group(web->children, web->n_children, "cache");
	logs = find_group(web->children, web->n_children, "logs");
	tap_check(cache && logs, "cache and logs found");
	if (cache && logs) {
		tap_eq_u64(cache->knob[MC_KNOB_MAX].bytes, 256 * MiB, "cache max through the alias");
		tap_eq_u64(cache->knob[MC_KNOB_SOFT].bytes, 128 * MiB, "cache soft_limit through the alias");
		tap_eq_int(cache->knob_pos[MC_KNOB_MAX].line, 8, "alias values keep the anchor's line");
		tap_eq_int(cache->pos.line, 18, "cache name line");
		tap_eq_int(cache->thp, -1, "cache thp unset");
		tap_eq_int(cache->protect, MC_PROTECT_UNSET, "cache protect unset");
		for (int k = 0; k < MC_KNOB__COUNT; k++)
			tap_eq_int(logs->knob[k].kind, MC_SIZE_UNSET, "logs knob %s unset",
				   mc_knob_info((enum mc_knob)k)->name);
		tap_eq_int((long long)logs->n_children, 0, "logs has no children");
	}
	tap_eq_int(batch->knob[MC_KNOB_MAX].kind, MC_SIZE_UNLIMITED, "batch max is 'max'");
	tap_eq_int(batch->knob[MC_KNOB_SWAP].kind, MC_SIZE_BYTES, "batch swap_max, quoted, is bytes");
	tap_eq_u64(batch->knob[MC_KNOB_SWAP].bytes, 0, "batch swap_max 0");
	tap_eq_int(batch->protect, MC_PROTECT_NONE, "batch protect none");
	tap_eq_int(batch->thp, 0, "batch thp Off");
	tap_eq_u64(db->knob[MC_KNOB_MAX].bytes, 4 * GiB, "db max 4GiB");
	tap_eq_int(db->protect, MC_PROTECT_SIZE, "db protect is a size");
	tap_eq_u64(db->protect_size.bytes, GiB + GiB / 2, "db protect 1.5G");
	mc_profile_free(&p);
	tap_check(p.groups == NULL && p.parent == NULL && p.file == NULL, "free clears the profile");
}

static void test_defaults(void)
{
	static const char yaml[] = "version: 1\nparent: self\n";
	struct mc_profile p;

	if (parse_ok("minimal profile", yaml, sizeof(yaml) - 1, &p) < 0)
		return;
	tap_eq_u64(p.interval_ms, 5000, "interval defaults to 5s");
	tap_eq_int(p.concurrency, 1, "concurrency defaults to 1");
	tap_check(!p.has_kernel_per_node, "kernel_per_node: the sysctl is left alone by default");
	tap_eq_int(p.numa, MC_NUMA_WEIGHTED, "numa defaults to weighted");
	tap_eq_int((long long)p.n_groups, 0, "no groups");
	mc_profile_free(&p);
	{
		static const char y2[] = "version: 1\nparent: self\nreclaim: {kernel_per_node: 0}\n";

		if (parse_ok("kernel_per_node 0", y2, sizeof(y2) - 1, &p) < 0)
			return;
		tap_check(p.has_kernel_per_node && p.kernel_per_node == 0 && !p.kernel_per_node_auto,
			  "kernel_per_node 0 (no cap) is given");
		mc_profile_free(&p);
	}
	{
		static const char y3[] = "version: 1\nparent: self\nreclaim: {kernel_per_node: auto}\n";

		if (parse_ok("kernel_per_node auto", y3, sizeof(y3) - 1, &p) < 0)
			return;
		tap_check(p.has_kernel_per_node && p.kernel_per_node_auto, "kernel_per_node auto is given");
		mc_profile_free(&p);
	}
}

static const struct {
	const char *text;
	int thp;
} thp_words[] = {
	{ "true", 1 }, { "TRUE", 1 }, { "True", 1 }, { "yes", 1 }, { "Yes", 1 }, { "on", 1 },
	{ "ON", 1 }, { "false", 0 }, { "False", 0 }, { "no", 0 }, { "NO", 0 }, { "off", 0 },
	{ "'true'", 1 }, { "\"off\"", 0 },
};

static const struct {
	const char *text;
	uint64_t ms;
} intervals[] = {
	{ "5s", 5000 }, { "500ms", 500 }, { "1m", 60000 }, { "1h", 3600000 }, { "2", 2000 },
	{ "0.5s", 500 }, { "1.5m", 90000 }, { "1ms", 1 }, { "0.001", 1 }, { "60m", 3600000 },
	{ "3600", 3600000 }, { "'10s'", 10000 },
};

static const struct {
	const char *text;
	const char *want;
} parents[] = {
	{ "/", "/" }, { "self", "self" }, { "self/a/b", "self/a/b" }, { "/a/b", "/a/b" },
	{ "\"/\"", "/" }, { "/machine.slice", "/machine.slice" }, { "/a/...", "/a/..." },
};

static const struct {
	const char *name;
	const char *groups;
	size_t n_groups;
} group_forms[] = {
	{ "group with nothing", "groups:\n  web:\n", 1 },
	{ "group with {}", "groups:\n  web: {}\n", 1 },
	{ "group with ~", "groups:\n  web: ~\n", 1 },
	{ "group with null", "groups:\n  web: null\n", 1 },
	{ "groups with nothing", "groups:\n", 0 },
	{ "groups {}", "groups: {}\n", 0 },
	{ "x- keys at the top level", "x-anything: [1, {a: b}]\ngroups:\n  a: {}\n", 1 },
	{ "bytes and percentages not compared", "groups:\n  a: {low: 2G, high: 10%, max: 20%}\n", 1 },
	{ "equal limits", "groups:\n  a: {min: 1G, low: 1G, high: 1G, max: 1G, soft_limit: 1G}\n", 1 },
	{ "child percentage under a byte limit", "groups:\n  a:\n    max: 1G\n    groups:\n      b: {max: 100%}\n", 1 },
	{ "child bytes under a percentage", "groups:\n  a:\n    max: 50%\n    groups:\n      b: {max: 64G}\n", 1 },
	{ "child under an unlimited parent", "groups:\n  a:\n    max: max\n    groups:\n      b: {max: max}\n", 1 },
	{ "max 'max' above everything", "groups:\n  a: {low: 1T, high: max, max: max}\n", 1 },
	{ "same child names under different parents", "groups:\n  a: {groups: {c: {}}}\n  b: {groups: {c: {}}}\n", 2 },
	{ "alias used as a groups mapping", "x-g: &g {c: {}, d: {}}\ngroups:\n  a: {groups: *g}\n  b: {groups: *g}\n", 2 },
	{ "alias as a key", "x-k: &k web\ngroups:\n  *k : {}\n", 1 },
	{ "unicode group name", "groups:\n  caf\xc3\xa9: {}\n", 1 },
};

static void test_valid_forms(void)
{
	char *yaml;
	struct mc_profile p;

	for (size_t i = 0; i < N(thp_words); i++) {
		if (asprintf(&yaml, HDR "groups:\n  a:\n    thp: %s\n", thp_words[i].text) < 0)
			return;
		if (parse_ok(thp_words[i].text, yaml, strlen(yaml), &p) == 0) {
			tap_eq_int(p.groups[0].thp, thp_words[i].thp, "thp: %s", thp_words[i].text);
			mc_profile_free(&p);
		}
		free(yaml);
	}
	for (size_t i = 0; i < N(intervals); i++) {
		if (asprintf(&yaml, HDR "interval: %s\n", intervals[i].text) < 0)
			return;
		if (parse_ok(intervals[i].text, yaml, strlen(yaml), &p) == 0) {
			tap_eq_u64(p.interval_ms, intervals[i].ms, "interval: %s", intervals[i].text);
			mc_profile_free(&p);
		}
		free(yaml);
	}
	for (size_t i = 0; i < N(parents); i++) {
		if (asprintf(&yaml, "version: 1\nparent: %s\n", parents[i].text) < 0)
			return;
		if (parse_ok(parents[i].text, yaml, strlen(yaml), &p) == 0) {
			tap_eq_str(p.parent, parents[i].want, "parent: %s", parents[i].text);
			mc_profile_free(&p);
		}
		free(yaml);
	}
	for (size_t i = 0; i < N(group_forms); i++) {
		if (asprintf(&yaml, HDR "%s", group_forms[i].groups) < 0)
			return;
		if (parse_ok(group_forms[i].name, yaml, strlen(yaml), &p) == 0) {
			tap_eq_int((long long)p.n_groups, (long long)group_forms[i].n_groups,
				   "%s: group count", group_forms[i].name);
			mc_profile_free(&p);
		}
		free(yaml);
	}
	{
		static const char *const modes[] = { "weighted", "round-robin", "off" };

		for (size_t i = 0; i < N(modes); i++) {
			if (asprintf(&yaml, HDR "reclaim: {numa: %s, concurrency: 1024}\n", modes[i]) < 0)
				return;
			if (parse_ok(modes[i], yaml, strlen(yaml), &p) == 0) {
				tap_eq_int(p.numa, (int)i, "numa: %s", modes[i]);
				tap_eq_int(p.concurrency, 1024, "concurrency: 1024");
				mc_profile_free(&p);
			}
			free(yaml);
		}
	}
}

/* The buffer need not end with a NUL: nothing past len is read. */
static void test_unterminated_buffer(void)
{
	char *buf = malloc(64);
	struct mc_profile p;
	static const char yaml[] = HDR "interval: 7s";

	if (!buf)
		return;
	memcpy(buf, yaml, sizeof(yaml) - 1);
	memset(buf + sizeof(yaml) - 1, 'X', 64 - (sizeof(yaml) - 1));
	if (parse_ok("unterminated buffer", buf, sizeof(yaml) - 1, &p) == 0) {
		tap_eq_u64(p.interval_ms, 7000, "unterminated buffer: value read up to len");
		mc_profile_free(&p);
	}
	free(buf);
}

/* A growing string, for the generated profiles below. */
struct text {
	char *s;
	size_t len, cap;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *more;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&more, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	/* doubling: 100000 small appends must not copy the text each time */
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = 2 * (t->len + (size_t)n + 1);
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	memcpy(t->s + t->len, more, (size_t)n + 1);
	t->len += (size_t)n;
	free(more);
}

/* Groups nested depth deep; *ret_line and *ret_col give the deepest name. */
static char *nested_groups(int depth, int *ret_line, int *ret_col)
{
	struct text t = { 0 };
	int line = 3;

	text_add(&t, HDR "groups:\n");
	for (int i = 1; i <= depth; i++) {
		int indent = 2 + (i - 1) * 4;

		text_add(&t, "%*sg%d:\n", indent, "", i);
		line++;
		*ret_line = line;
		*ret_col = indent + 1;
		if (i < depth) {
			text_add(&t, "%*sgroups:\n", indent + 2, "");
			line++;
		}
	}
	return t.s;
}

/*
 * The parser's bounds (group depth, YAML nesting, alias expansion, node
 * count, name and path lengths, the number of errors), each met or passed.
 * It is long because it is one list of cases, each a few lines.
 */
static void test_limits(void)
{
	struct mc_diags d = { 0 };
	struct mc_profile p;
	struct text t = { 0 };
	char *yaml;
	int line = 0, col = 0, r;

	/* Exactly MC_PROFILE_MAX_DEPTH levels are fine, one more is not. */
	yaml = nested_groups(MC_PROFILE_MAX_DEPTH, &line, &col);
	if (parse_ok("groups nested to the limit", yaml, strlen(yaml), &p) == 0)
		mc_profile_free(&p);
	free(yaml);

	yaml = nested_groups(MC_PROFILE_MAX_DEPTH + 1, &line, &col);
	r = mc_profile_parse("t.yaml", yaml, strlen(yaml), &p, &d);
	tap_eq_int(r, -EINVAL, "groups nested too deep: rejected");
	tap_eq_int((long long)d.n, 1, "groups nested too deep: one diagnostic");
	if (d.n) {
		tap_eq_int(d.v[0].line, line, "groups nested too deep: line");
		tap_eq_int(d.v[0].col, col, "groups nested too deep: column");
		tap_check(strstr(d.v[0].msg, "groups are nested deeper than 32 levels") != NULL,
			  "groups nested too deep: message");
		tap_check(strstr(d.v[0].path, ".groups.g33") != NULL, "groups nested too deep: path");
	}
	mc_diags_free(&d);
	free(yaml);

	/* Deep flow nesting must stop at a bound, not recurse. */
	text_add(&t, HDR "x-deep: ");
	for (int i = 0; i < 100000; i++)
		text_add(&t, "[");
	r = mc_profile_parse("t.yaml", t.s, t.len, &p, &d);
	tap_eq_int(r, -EINVAL, "deep YAML nesting: rejected");
	tap_eq_int((long long)d.n, 1, "deep YAML nesting: one diagnostic");
	if (d.n) {
		tap_eq_int(d.v[0].line, 3, "deep YAML nesting: line");
		/* the root mapping is level 1, so the 128th '[' is level 129 */
		tap_eq_int(d.v[0].col, 9 + 127, "deep YAML nesting: column");
		tap_check(strstr(d.v[0].msg, "YAML nesting is deeper than 128 levels") != NULL,
			  "deep YAML nesting: message");
	}
	mc_diags_free(&d);
	free(t.s);
	t = (struct text){ 0 };

	/*
	 * Billion laughs through group bodies: ten aliases per level, nine
	 * levels. The expansion must stop at the node budget, reported at the
	 * alias where it started.
	 */
	text_add(&t, HDR "x-l0: &l0 {max: 1M}\n");
	for (int i = 1; i <= 9; i++) {
		text_add(&t, "x-l%d: &l%d {groups: {", i, i);
		for (int j = 0; j < 10; j++)
			text_add(&t, "%sg%d: *l%d", j ? ", " : "", j, i - 1);
		text_add(&t, "}}\n");
	}
	text_add(&t, "groups:\n  bomb: *l9\n");
	r = mc_profile_parse("t.yaml", t.s, t.len, &p, &d);
	tap_eq_int(r, -EINVAL, "alias bomb: rejected");
	tap_eq_int((long long)d.n, 1, "alias bomb: one diagnostic");
	if (d.n) {
		tap_eq_int(d.v[0].line, 14, "alias bomb: line of the alias");
		tap_eq_int(d.v[0].col, 9, "alias bomb: column of the alias");
		tap_eq_str(d.v[0].msg, "alias expansion exceeds 100000 nodes", "alias bomb: message");
	}
	mc_diags_free(&d);
	free(t.s);
	t = (struct text){ 0 };

	/* Too many nodes in the text itself. */
	text_add(&t, HDR "x-many: [0");
	for (int i = 0; i < 100000; i++)
		text_add(&t, ",1");
	text_add(&t, "]\n");
	r = mc_profile_parse("t.yaml", t.s, t.len, &p, &d);
	tap_eq_int(r, -EINVAL, "too many nodes: rejected");
	tap_check(d.n == 1 && strstr(d.v[0].msg, "more than 100000 YAML nodes"),
		  "too many nodes: message");
	mc_diags_free(&d);
	free(t.s);
	t = (struct text){ 0 };

	/* A long name: 255 bytes are fine, 256 are not. */
	text_add(&t, HDR "groups:\n  %0255d: {}\n", 7);
	if (parse_ok("255-byte group name", t.s, t.len, &p) == 0)
		mc_profile_free(&p);
	free(t.s);
	t = (struct text){ 0 };
	text_add(&t, HDR "groups:\n  %0256d: {}\n", 7);
	r = mc_profile_parse("t.yaml", t.s, t.len, &p, &d);
	tap_eq_int(r, -EINVAL, "256-byte group name: rejected");
	tap_check(d.n == 1 && d.v[0].line == 4 && d.v[0].col == 3 &&
		  strstr(d.v[0].msg, "is longer than 255 bytes") &&
		  strstr(d.v[0].msg, "...'"), "256-byte group name: message, value shortened");
	mc_diags_free(&d);
	free(t.s);
	t = (struct text){ 0 };

	/*
	 * One long scalar through many aliases: few nodes, much text. The walk
	 * stops at its byte budget (16 MiB), at the alias that led there.
	 */
	text_add(&t, HDR "x-a: &a %0400000d1G\ngroups:\n", 0);
	for (int i = 0; i < 1000; i++)
		text_add(&t, "  g%04d: {max: *a}\n", i);
	r = mc_profile_parse("t.yaml", t.s, t.len, &p, &d);
	tap_eq_int(r, -EINVAL, "long scalar aliased: rejected");
	tap_check(d.n == 1 && strcmp(d.v[0].msg, "alias expansion exceeds 16 MiB of text") == 0 &&
		  d.v[0].col == 16 && d.v[0].line > 40 && d.v[0].line < 50,
		  "long scalar aliased: message at the alias (%d:%d %s)", d.n ? d.v[0].line : 0,
		  d.n ? d.v[0].col : 0, d.n ? d.v[0].msg : "-");
	mc_diags_free(&d);
	free(t.s);
	t = (struct text){ 0 };

	/* A group's whole cgroup path must fit: 17 names of 210 bytes do not. */
	text_add(&t, HDR "groups:\n");
	for (int i = 0; i < 17; i++)
		text_add(&t, "%*s%0210d:\n%*sgroups:\n", 2 + 4 * i, "", i, 4 + 4 * i, "");
	text_add(&t, "%*sleaf: {}\n", 2 + 4 * 17, "");
	r = mc_profile_parse("t.yaml", t.s, t.len, &p, &d);
	tap_eq_int(r, -EINVAL, "path too long: rejected");
	tap_check(d.n == 1 && strstr(d.v[0].msg, "cgroup path is 3587 bytes long, more than the 3584") &&
		  d.v[0].line == 4 + 2 * 16 && d.v[0].col == 3 + 4 * 16,
		  "path too long: message at the group (%d:%d %s)", d.n ? d.v[0].line : 0,
		  d.n ? d.v[0].col : 0, d.n ? d.v[0].msg : "-");
	mc_diags_free(&d);
	free(t.s);
	t = (struct text){ 0 };

	/* Many errors: all are collected up to a cap, then one line says so. */
	text_add(&t, HDR "groups:\n  web:\n");
	for (int i = 0; i < 150; i++)
		text_add(&t, "    bad%d: 1\n", i);
	r = mc_profile_parse("t.yaml", t.s, t.len, &p, &d);
	tap_eq_int(r, -EINVAL, "many errors: rejected");
	tap_eq_int((long long)d.n, 101, "many errors: 100 and a last word");
	if (d.n == 101) {
		tap_eq_int(d.v[99].line, 104, "many errors: the 100th in order");
		tap_eq_str(d.v[100].msg, "too many errors, stopping after 100", "many errors: cap");
	}
	mc_diags_free(&d);
	free(t.s);
}

/* Every problem in a file is reported in one run, in file order. */
static void test_all_errors_collected(void)
{
	static const char yaml[] =
		"version: 1\n"                 /* 1 */
		"parent: self\n"               /* 2 */
		"interval: 0\n"                /* 3 */
		"groups:\n"                    /* 4 */
		"  web:\n"                     /* 5 */
		"    max: 12X\n"               /* 6 */
		"    hgih: 1G\n"               /* 7 */
		"    groups:\n"                /* 8 */
		"      a/b: {}\n"              /* 9 */
		"      cache: {max: 2G, low: 3G}\n"  /* 10 */
		"  db:\n"                      /* 11 */
		"    thp: maybe\n"             /* 12 */
		"  db: {}\n";                  /* 13 */
	static const struct {
		int line, col;
		const char *path;
	} want[] = {
		{ 3, 11, "interval" },
		{ 6, 10, "groups.web.max" },
		{ 7, 5, "groups.web.hgih" },
		{ 9, 7, "groups.web.groups.a/b" },
		{ 10, 29, "groups.web.groups.cache.low" },
		{ 12, 10, "groups.db.thp" },
		{ 13, 3, "groups.db" },
	};
	struct mc_diags d = { 0 };
	struct mc_profile p;
	int r = mc_profile_parse("t.yaml", yaml, sizeof(yaml) - 1, &p, &d);

	tap_eq_int(r, -EINVAL, "many problems: rejected");
	tap_eq_int((long long)d.n, (long long)N(want), "many problems: all reported");
	for (size_t i = 0; i < N(want) && i < d.n; i++) {
		tap_eq_int(d.v[i].line, want[i].line, "many problems #%zu: line", i);
		tap_eq_int(d.v[i].col, want[i].col, "many problems #%zu: column", i);
		tap_eq_str(d.v[i].path, want[i].path, "many problems #%zu: path", i);
	}
	mc_diags_free(&d);
}

/* Diagnostics already in the list are kept and left where they are. */
static void test_diags_appended(void)
{
	struct mc_diags d = { 0 };
	struct mc_profile p;
	static const char yaml[] = "version: 9\nparent: self\n";

	mc_diags_add(&d, "other", 99, 1, NULL, "earlier problem");
	tap_eq_int(mc_profile_parse("t.yaml", yaml, sizeof(yaml) - 1, &p, &d), -EINVAL,
		   "appending: rejected");
	tap_eq_int((long long)d.n, 2, "appending: two diagnostics");
	if (d.n == 2) {
		tap_eq_str(d.v[0].msg, "earlier problem", "appending: earlier one first");
		tap_eq_int(d.v[1].line, 1, "appending: new one after");
	}
	mc_diags_free(&d);
}

static const struct {
	const char *name;
	const char *why;   /* NULL: valid */
} names[] = {
	{ "web", NULL },
	{ "web.slice", NULL },
	{ "...", NULL },
	{ ".hidden", NULL },
	{ "caf\xc3\xa9", NULL },
	{ "a b", NULL },
	{ "", "is empty" },
	{ ".", "is '.' or '..'" },
	{ "..", "is '.' or '..'" },
	{ "a/b", "contains '/'" },
	{ "/", "contains '/'" },
	{ "a\tb", "contains a control character" },
	{ "a\x7f", "contains a control character" },
	{ "\n", "contains a control character" },
};

static void test_group_names(void)
{
	char long_name[MC_GROUP_NAME_MAX + 2];

	for (size_t i = 0; i < N(names); i++) {
		const char *why = NULL;
		int r = mc_group_name_check(names[i].name, &why);

		tap_eq_int(r, names[i].why ? -EINVAL : 0, "group name #%zu", i);
		if (names[i].why)
			tap_eq_str(why, names[i].why, "group name #%zu: reason", i);
	}
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[MC_GROUP_NAME_MAX] = '\0';
	{
		const char *why = NULL;

		tap_eq_int(mc_group_name_check(long_name, &why), 0, "255-byte name is valid");
		long_name[MC_GROUP_NAME_MAX] = 'a';
		long_name[MC_GROUP_NAME_MAX + 1] = '\0';
		tap_eq_int(mc_group_name_check(long_name, &why), -EINVAL, "256-byte name is not");
		tap_eq_str(why, "is longer than 255 bytes", "256-byte name: reason");
	}
}

static struct mc_size sz_bytes(uint64_t b)
{
	return (struct mc_size){ .kind = MC_SIZE_BYTES, .bytes = b };
}

static struct mc_size sz_pct(uint32_t c)
{
	return (struct mc_size){ .kind = MC_SIZE_PERCENT, .centipct = c };
}

/*
 * The planner's use: after resolving percentages, compare bytes.
 * It is long because it is one table of knob chains with their verdicts.
 */
static void test_check_order_resolved(void)
{
	struct mc_group_spec child = { .name = "cache", .thp = -1 };
	struct mc_group_spec g = { .name = "web", .thp = -1, .children = &child, .n_children = 1 };
	uint64_t resolved[MC_KNOB__COUNT] = { 0 };
	struct mc_diags d = { 0 };
	int r;

	g.knob[MC_KNOB_MAX] = sz_pct(5000);
	g.knob_pos[MC_KNOB_MAX] = (struct mc_pos){ 4, 10 };
	g.knob[MC_KNOB_HIGH] = sz_bytes(600 * MiB);
	g.knob_pos[MC_KNOB_HIGH] = (struct mc_pos){ 5, 11 };
	child.knob[MC_KNOB_MAX] = sz_bytes(700 * MiB);
	child.knob_pos[MC_KNOB_MAX] = (struct mc_pos){ 8, 14 };

	/* From the spec alone, 600M against 50% cannot be decided. */
	r = mc_group_check_order("t.yaml", "groups.web", &g, NULL, &d);
	tap_eq_int(r, 0, "spec: bytes and a percentage are not compared");
	tap_eq_int((long long)d.n, 0, "spec: no diagnostics");

	/* 50% of 1G is 512M: high and the child's max are both above it. */
	resolved[MC_KNOB_MAX] = 512 * MiB;
	resolved[MC_KNOB_HIGH] = 600 * MiB;
	r = mc_group_check_order("t.yaml", "groups.web", &g, resolved, &d);
	tap_eq_int(r, 2, "resolved: two problems");
	tap_eq_int((long long)d.n, 2, "resolved: two diagnostics");
	if (d.n == 2) {
		tap_eq_str(d.v[0].path, "groups.web.high", "resolved: high's path");
		tap_eq_int(d.v[0].line, 5, "resolved: high's line");
		tap_eq_int(d.v[0].col, 11, "resolved: high's column");
		tap_eq_str(d.v[0].msg, "high '600M' is above max '50%' (512M)", "resolved: high's message");
		tap_eq_str(d.v[1].path, "groups.web.groups.cache.max", "resolved: child's path");
		tap_eq_int(d.v[1].line, 8, "resolved: child's line");
		tap_eq_str(d.v[1].msg, "max '700M' is above the parent's max '50%' (512M)",
			   "resolved: child's message");
	}
	mc_diags_free(&d);

	/* A parent resolved to no limit bounds nothing. */
	resolved[MC_KNOB_MAX] = MC_SIZE_MAX;
	child.knob[MC_KNOB_MAX] = (struct mc_size){ .kind = MC_SIZE_UNLIMITED };
	r = mc_group_check_order("t.yaml", "groups.web", &g, resolved, &d);
	tap_eq_int(r, 0, "resolved: unlimited parent");
	mc_diags_free(&d);

	/* An unlimited child under a resolved limit has no limit of its own: fine. */
	resolved[MC_KNOB_MAX] = GiB;
	r = mc_group_check_order("t.yaml", "groups.web", &g, resolved, &d);
	tap_eq_int(r, 0, "resolved: unlimited child under a limit");
	mc_diags_free(&d);
	child.knob[MC_KNOB_MAX] = sz_bytes(2 * GiB);

	/* A cgroup path (memctl set) is the diagnostic's path as it is. */
	g.n_children = 1;
	g.knob[MC_KNOB_HIGH] = sz_bytes(2 * GiB);
	resolved[MC_KNOB_HIGH] = 2 * GiB;
	r = mc_group_check_order("(command line)", "/a/web", &g, resolved, &d);
	tap_eq_int(r, 2, "cgroup path: two problems");
	if (d.n == 2) {
		tap_eq_str(d.v[0].path, "/a/web", "cgroup path: the group");
		tap_eq_str(d.v[0].msg, "high '2G' is above max '50%' (1G)", "cgroup path: message");
		tap_eq_str(d.v[1].path, "/a/web/cache", "cgroup path: the child");
	}
	mc_diags_free(&d);
	r = mc_group_check_order(NULL, "/", &g, resolved, &d);
	if (d.n == 2)
		tap_eq_str(d.v[1].path, "/cache", "cgroup path: child of the root");
	mc_diags_free(&d);

	/* Without a path, the knob name alone. */
	g.n_children = 0;
	resolved[MC_KNOB_HIGH] = 2 * GiB;
	r = mc_group_check_order(NULL, NULL, &g, resolved, &d);
	tap_eq_int(r, 1, "no path: one problem");
	if (d.n == 1)
		tap_eq_str(d.v[0].path, "high", "no path: the knob name");
	mc_diags_free(&d);
}

static void test_diag_format(void)
{
	static const struct {
		struct mc_diag d;
		const char *want;
	} cases[] = {
		{ { "p.yaml", 3, 5, "groups.web.max", "size '12X' has an unknown suffix 'X'" },
		  "p.yaml:3:5: groups.web.max: size '12X' has an unknown suffix 'X'" },
		{ { "p.yaml", 3, 5, NULL, "empty profile" }, "p.yaml:3:5: empty profile" },
		{ { "p.yaml", 3, 0, "x", "m" }, "p.yaml:3: x: m" },
		{ { "p.yaml", 0, 0, "x", "m" }, "p.yaml: x: m" },
		{ { NULL, 0, 0, "web", "m" }, "web: m" },
		{ { NULL, 0, 0, NULL, "m" }, "m" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		char *s = NULL;

		tap_eq_int(mc_diag_format(&cases[i].d, &s), 0, "format #%zu", i);
		tap_eq_str(s, cases[i].want, "format #%zu text", i);
		free(s);
	}
}

static char *read_file(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	*ret_len = len;
	return buf;
}

/* Every shipped profile parses, is safe to try anywhere (parent: self) and has groups. */
static void test_shipped_profiles(void)
{
	const char *dir = MEMCTL_SOURCE_DIR "/profiles";
	DIR *dh = opendir(dir);
	struct dirent *e;
	int found = 0;

	tap_check(dh != NULL, "open %s", dir);
	if (!dh)
		return;
	while ((e = readdir(dh))) {
		size_t l = strlen(e->d_name), len = 0;
		struct mc_profile p;
		char *path, *buf;

		if (l < 6 || strcmp(e->d_name + l - 5, ".yaml") != 0)
			continue;
		found++;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			abort();
		buf = read_file(path, &len);
		tap_check(buf != NULL, "read %s", e->d_name);
		if (buf && parse_ok(e->d_name, buf, len, &p) == 0) {
			tap_eq_str(p.parent, "self", "%s: parent is self", e->d_name);
			tap_check(p.n_groups > 0 || p.n_units > 0, "%s: has groups or units", e->d_name);
			mc_profile_free(&p);
		}
		free(buf);
		free(path);
	}
	closedir(dh);
	tap_check(found >= 3, "found %d shipped profiles", found);
}

/* The example: two units, one protected, one yielding and capped. */
static void test_units(void)
{
	static const char yaml[] =
		HDR "units:\n"
		"  postgresql.service: {protect: active}\n"
		"  backup.service: {soft_limit: 0, max: 2G, swap_max: max}\n"
		"  db@main.service:\n    low: 256M\n    thp: true\n"
		"  system-x\\x2dy.slice: {}\n";
	struct mc_profile p;

	if (parse_ok("units", yaml, strlen(yaml), &p) < 0)
		return;
	tap_eq_int((long long)p.n_units, 4, "units: four");
	tap_eq_int((long long)p.n_groups, 0, "units are not groups");
	if (p.n_units == 4) {
		tap_eq_str(p.units[0].name, "postgresql.service", "unit name");
		tap_eq_int(p.units[0].protect, MC_PROTECT_ACTIVE, "protect: active");
		tap_check(p.units[1].knob[MC_KNOB_SOFT].kind == MC_SIZE_BYTES &&
			  p.units[1].knob[MC_KNOB_SOFT].bytes == 0, "soft_limit 0");
		tap_eq_u64(p.units[1].knob[MC_KNOB_MAX].bytes, 2 * GiB, "max 2G");
		tap_eq_int(p.units[1].knob[MC_KNOB_SWAP].kind, MC_SIZE_UNLIMITED, "swap_max max");
		tap_eq_int(p.units[1].pos.line, 5, "a unit's position is its key's");
		tap_eq_int(p.units[1].knob_pos[MC_KNOB_MAX].line, 5, "and each knob's");
		tap_eq_u64(p.units[2].knob[MC_KNOB_LOW].bytes, 256 * MiB, "block style");
		tap_eq_int(p.units[2].thp, 1, "thp");
		tap_eq_str(p.units[3].name, "system-x\\x2dy.slice", "an escaped slice name");
	}
	mc_profile_free(&p);
}

int main(void)
{
	test_units();
	for (size_t i = 0; i < N(bad); i++)
		check_bad(&bad[i]);
	test_full_profile();
	test_unlimited_lower_knobs();
	test_defaults();
	test_valid_forms();
	test_unterminated_buffer();
	test_limits();
	test_all_errors_collected();
	test_diags_appended();
	test_group_names();
	test_check_order_resolved();
	test_diag_format();
	test_shipped_profiles();
	return tap_done();
}
