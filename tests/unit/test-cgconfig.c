/* CMake defines it for the whole project; a direct compile may not. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgconfig.h"
#include "profile.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- sizes as the kernel reads them ---- */

static const struct {
	const char *s;
	bool v1;
	int err;
	uint64_t bytes;
	bool unlimited;
} sizes[] = {
	{ "1048576", true, 0, 1048576, false },
	{ "512M", true, 0, 512ULL << 20, false },
	{ "512m", false, 0, 512ULL << 20, false },
	{ "2g", true, 0, 2ULL << 30, false },
	{ "1T", true, 0, 1ULL << 40, false },
	{ "1P", true, 0, 1ULL << 50, false },
	{ "3E", true, 0, 3ULL << 60, false },
	{ "0x100000", true, 0, 1048576, false },
	{ "010", true, 0, 8, false },            /* base 0: a leading 0 is octal */
	{ "0", true, 0, 0, false },
	{ "\t64K  ", true, 0, 65536, false },   /* the kernel strips blanks */
	{ "-1", true, 0, UINT64_MAX, true },
	{ "max", false, 0, UINT64_MAX, true },
	{ "max", true, -EINVAL, 0, false },     /* v1 says -1 */
	{ "-1", false, -EINVAL, 0, false },     /* v2 says max */
	{ "", true, -EINVAL, 0, false },
	{ "1.5G", true, -EINVAL, 0, false },    /* no fractions in the kernel */
	{ "1GB", true, -EINVAL, 0, false },
	{ "1X", true, -EINVAL, 0, false },
	{ "09", true, -EINVAL, 0, false },
	{ "-2", true, -EINVAL, 0, false },
	{ "16E", true, -ERANGE, 0, false },
	{ "18446744073709551616", true, -ERANGE, 0, false },
	{ "0x", true, -EINVAL, 0, false },
};

static void test_sizes(void)
{
	for (size_t i = 0; i < N(sizes); i++) {
		uint64_t b = 7;
		bool u = false;
		const char *why = NULL;
		int r = mc_cgconfig_parse_size(sizes[i].s, sizes[i].v1, &b, &u, &why);

		tap_eq_int(r, sizes[i].err, "size '%s' (%s): result", sizes[i].s,
			   sizes[i].v1 ? "v1" : "v2");
		if (r == 0) {
			tap_eq_u64(b, sizes[i].bytes, "size '%s': bytes", sizes[i].s);
			tap_check(u == sizes[i].unlimited, "size '%s': unlimited", sizes[i].s);
		} else {
			tap_check(why && *why, "size '%s': a reason (%s)", sizes[i].s, why ? why : "-");
		}
	}
}

/* ---- conversions ---- */

struct diag_want {
	int line, col;
	const char *msg;   /* a substring */
};

struct good_case {
	const char *name;
	const char *conf;
	const char *parent;
	const char *yaml;           /* the profile from "version: 1" on */
	struct diag_want skipped[6];
	size_t n_skipped;
};

static const struct good_case good[] = {
	{ "v1 keys, nested path, memsw becomes swap_max",
	  "group daemons/www {\n"
	  "\tmemory {\n"
	  "\t\tmemory.limit_in_bytes = 1G;\n"
	  "\t\tmemory.soft_limit_in_bytes = 512M;\n"
	  "\t\tmemory.memsw.limit_in_bytes = 1536M;\n"
	  "\t}\n"
	  "}\n", "/",
	  "version: 1\nparent: /\ngroups:\n"
	  "  daemons:\n"
	  "    groups:\n"
	  "      www:\n"
	  "        max: 1G                 # memory.limit_in_bytes, line 3\n"
	  "        soft_limit: 512M        # memory.soft_limit_in_bytes, line 4\n"
	  "        swap_max: 512M          # memory.memsw.limit_in_bytes (line 5) - max\n",
	  { { 0 } }, 0 },
	{ "v2 keys, max and quoted values",
	  "group batch {\n"
	  "  memory {\n"
	  "    memory.max = \"4G\";\n"
	  "    memory.high = 3G;\n"
	  "    memory.low = 1g;\n"
	  "    memory.min = 0x10000000;\n"
	  "    memory.swap.max = max;\n"
	  "  }\n"
	  "}\n", "/",
	  "version: 1\nparent: /\ngroups:\n"
	  "  batch:\n"
	  "    max: 4G                 # memory.max, line 3\n"
	  "    high: 3G                # memory.high, line 4\n"
	  "    low: 1G                 # memory.low, line 5\n"
	  "    min: 256M               # memory.min, line 6\n"
	  "    swap_max: max           # memory.swap.max, line 7\n",
	  { { 0 } }, 0 },
	{ "-1 is max; memsw -1 is unlimited swap; odd bytes stay bytes",
	  "group a { memory { memory.limit_in_bytes = -1; memory.memsw.limit_in_bytes = -1; } }\n"
	  "group b { memory { memory.limit_in_bytes = 1000001; } }\n", "/",
	  "version: 1\nparent: /\ngroups:\n"
	  "  a:\n"
	  "    max: max                # memory.limit_in_bytes, line 1\n"
	  "    swap_max: max           # memory.memsw.limit_in_bytes, line 1\n"
	  "  b:\n"
	  "    max: 1000001            # memory.limit_in_bytes, line 2\n",
	  { { 0 } }, 0 },
	{ "sections of one group merge, the later value wins; empty memory block; -p",
	  "group a/b { memory { memory.limit_in_bytes = 1G; } }\n"
	  "group a/b { memory { memory.limit_in_bytes = 2G; memory.soft_limit_in_bytes = 1G; } }\n"
	  "group /a/c { memory { } }\n", "self/imported",
	  "version: 1\nparent: self/imported\ngroups:\n"
	  "  a:\n"
	  "    groups:\n"
	  "      b:\n"
	  "        max: 2G                 # memory.limit_in_bytes, line 2\n"
	  "        soft_limit: 1G          # memory.soft_limit_in_bytes, line 2\n"
	  "      c: {}\n",
	  { { 0 } }, 0 },
	{ "comments as cgconfigparser takes them; names that YAML must quote",
	  "# a comment\n"
	  "   # an indented one\n"
	  "* a star at the line's start\n"
	  "group \"web app/yes\" { memory { memory.limit_in_bytes = 64M; } }\n"
	  "group default { memory { memory.limit_in_bytes = 32M; } }\n", "/",
	  "version: 1\nparent: /\ngroups:\n"
	  "  \"web app\":\n"
	  "    groups:\n"
	  "      \"yes\":\n"
	  "        max: 64M                # memory.limit_in_bytes, line 4\n"
	  "  default:\n"
	  "    max: 32M                # memory.limit_in_bytes, line 5\n",
	  { { 0 } }, 0 },
	{ "everything memctl has no equivalent for is reported at its place",
	  "mount {\n  memory = /sys/fs/cgroup/memory;\n}\n"
	  "default { perm { task { uid = root; } admin { uid = root; } } }\n"
	  "group w {\n"
	  "  perm { task { uid = root; gid = web; } admin { uid = root; } }\n"
	  "  cpu { cpu.shares = 100; }\n"
	  "  memory { memory.limit_in_bytes = 1G; memory.swappiness = 10; }\n"
	  "}\n"
	  "template users/%u { memory { memory.limit_in_bytes = 1G; } }\n", "/",
	  "version: 1\nparent: /\ngroups:\n"
	  "  w:\n"
	  "    max: 1G                 # memory.limit_in_bytes, line 8\n",
	  { { 1, 1, "mount section not converted" },
	    { 4, 1, "default section not converted" },
	    { 6, 3, "perm block not converted" },
	    { 7, 3, "controller 'cpu' not converted" },
	    { 8, 40, "'memory.swappiness' not converted: memctl has no knob" },
	    { 10, 1, "template 'users/%u' not converted" } }, 6 },
	{ "values memctl's rules refuse are left out, not adjusted",
	  "group p { memory { memory.limit_in_bytes = 1G; memory.soft_limit_in_bytes = 2G; } }\n"
	  "group p/c { memory { memory.limit_in_bytes = 2G; memory.memsw.limit_in_bytes = 3G; } }\n"
	  "group v2 { memory { memory.max = 1G; memory.high = 2G; memory.low = 512M; } }\n"
	  "group s { memory { memory.memsw.limit_in_bytes = 1G; } }\n"
	  "group . { memory { memory.limit_in_bytes = 1G; } }\n", "/",
	  "version: 1\nparent: /\ngroups:\n"
	  "  p:\n"
	  "    max: 1G                 # memory.limit_in_bytes, line 1\n"
	  "    groups:\n"
	  "      c: {}\n"
	  "  v2:\n"
	  "    max: 1G                 # memory.max, line 3\n"
	  "    low: 512M               # memory.low, line 3\n"
	  "  s: {}\n",
	  { { 1, 48, "'memory.soft_limit_in_bytes' not converted: 2G is above memory.limit_in_bytes (1G)" },
	    { 2, 22, "'memory.limit_in_bytes' not converted: 2G is above the parent's limit (1G)" },
	    { 2, 50, "'memory.memsw.limit_in_bytes' not converted" },
	    { 3, 38, "'memory.high' not converted: 2G is above memory.max (1G)" },
	    { 4, 20, "'memory.memsw.limit_in_bytes' not converted" },
	    { 5, 20, "of the root group not converted" } }, 6 },
	{ "no memory anywhere: an empty profile",
	  "group c { cpu { cpu.shares = 1; } }\n", "/",
	  "version: 1\nparent: /\n",
	  { { 1, 11, "controller 'cpu' not converted" } }, 1 },
};

static void test_good(void)
{
	for (size_t i = 0; i < N(good); i++) {
		const struct good_case *t = &good[i];
		struct mc_cgconfig_result res = { 0 };
		struct mc_diags sk = { 0 }, er = { 0 };
		int r = mc_cgconfig_convert("in.conf", t->conf, strlen(t->conf), t->parent, &res, &sk,
					    &er);

		tap_eq_int(r, 0, "%s: converts", t->name);
		for (size_t j = 0; j < er.n; j++)
			printf("# unexpected error: %d:%d: %s\n", er.v[j].line, er.v[j].col, er.v[j].msg);
		if (r == 0) {
			const char *body = strstr(res.yaml, "\nversion: 1\n");
			struct mc_profile p;
			struct mc_diags pd = { 0 };

			tap_eq_str(body ? body + 1 : res.yaml, t->yaml, "%s: profile", t->name);
			tap_eq_int(mc_profile_parse("out.yaml", res.yaml, strlen(res.yaml), &p, &pd), 0,
				   "%s: the profile passes the profile parser", t->name);
			if (pd.n == 0)
				mc_profile_free(&p);
			mc_diags_free(&pd);
			/* every item left out is also listed in the profile's header */
			for (size_t j = 0; j < sk.n; j++)
				tap_check(strstr(res.yaml, sk.v[j].msg) != NULL,
					  "%s: header lists '%s'", t->name, sk.v[j].msg);
		}
		tap_eq_int((long long)sk.n, (long long)t->n_skipped, "%s: items not converted", t->name);
		for (size_t j = 0; j < sk.n && j < t->n_skipped; j++) {
			const struct diag_want *w = &t->skipped[j];
			const struct mc_diag *d = &sk.v[j];

			tap_check(d->line == w->line && d->col == w->col && strstr(d->msg, w->msg) &&
					  strcmp(d->file, "in.conf") == 0,
				  "%s: item %zu at %d:%d '%s' (got %s:%d:%d '%s')", t->name, j, w->line,
				  w->col, w->msg, d->file, d->line, d->col, d->msg);
		}
		mc_cgconfig_result_free(&res);
		mc_diags_free(&sk);
		mc_diags_free(&er);
	}
}

/* ---- errors ---- */

struct bad_case {
	const char *name;
	const char *conf;
	size_t len;        /* 0: strlen */
	struct diag_want first;
	size_t n;          /* errors expected */
};

static const struct bad_case bad[] = {
	{ "comment after other text", "group a { memory { } } # no\n", 0,
	  { 1, 24, "syntax error: '#' after other text" }, 1 },
	{ "indented star is no comment", "  * x\n", 0,
	  { 1, 3, "syntax error: unexpected character '*'" }, 1 },
	{ "missing semicolon", "group a {\n  memory {\n    memory.limit_in_bytes = 1G\n  }\n}\n", 0,
	  { 4, 3, "syntax error: expected ';' after the value, found '}'" }, 1 },
	{ "missing value", "group a { memory { memory.limit_in_bytes = ; } }\n", 0,
	  { 1, 44, "syntax error: expected a value after '=', found ';'" }, 1 },
	{ "unclosed group", "group a {\n  memory { }\n", 0,
	  { 3, 1, "expected '}' to close group 'a' (line 1), found end of file" }, 1 },
	{ "empty group", "group a {\n}\n", 0,
	  { 2, 1, "group 'a' needs at least one controller or perm block" }, 1 },
	{ "empty mount", "mount {\n}\n", 0, { 2, 1, "mount needs at least one entry" }, 1 },
	{ "unknown section", "groups a { memory { } }\n", 0,
	  { 1, 1, "expected group, template, mount, default or namespace, found 'groups'" }, 1 },
	{ "keyword as a name", "group perm { memory { } }\n", 0,
	  { 1, 7, "expected a group name, found keyword 'perm'" }, 1 },
	{ "unterminated quote", "group a { memory { memory.max = \"1G; } }\n", 0,
	  { 1, 33, "quoted string is not closed" }, 1 },
	{ "carriage return", "group a { memory { } }\r\n", 0,
	  { 1, 23, "carriage return" }, 1 },
	{ "NUL byte", "group a { memory { } }\0", 23, { 1, 23, "unexpected byte 0x00" }, 1 },
	{ "columns count characters, not bytes", "group \"\xc3\xa9t\xc3\xa9\" { memory { } } ;\n", 0,
	  { 1, 28, "expected group, template" }, 1 },
	{ "key twice in a block", "group a { memory {\n memory.max = 1G;\n memory.max = 2G;\n} }\n", 0,
	  { 3, 2, "'memory.max' is set twice in a controller block (first at line 2)" }, 1 },
	{ "v1 and v2 file for one knob",
	  "group a { memory { memory.limit_in_bytes = 1G; } }\ngroup a { memory { memory.max = 1G; } }\n", 0,
	  { 2, 20, "memory.max and memory.limit_in_bytes (line 1) both set max" }, 1 },
	{ "bad values, all reported",
	  "group a { memory {\n memory.limit_in_bytes = max;\n memory.high = 1.5G;\n memory.min = 12X;\n} }\n", 0,
	  { 2, 26, "invalid value 'max' for memory.limit_in_bytes: cgroup v1 takes -1" }, 3 },
	/* fuzz/cgconfig: a switch given a size was converted, then refused by the profile parser */
	{ "switch with a size",
	  "group a { memory { memory.reclaim_protect_active = 1k; } }\n", 0,
	  { 1, 52, "invalid value '1k' for memory.reclaim_protect_active: a switch is 0 or 1" }, 1 },
	{ "switch at max", "group a { memory { memory.reclaim_protect_active = max; } }\n", 0,
	  { 1, 52, "a switch is 0 or 1" }, 1 },
	{ "memsw below the limit",
	  "group a { memory { memory.limit_in_bytes = 2G; memory.memsw.limit_in_bytes = 1G; } }\n", 0,
	  { 1, 48, "memory.memsw.limit_in_bytes (1G) is below memory.limit_in_bytes (2G)" }, 1 },
	{ "invalid group name", "group a/../b { memory { } }\n", 0,
	  { 1, 7, "invalid group name '..' in 'a/../b'" }, 1 },
	{ "deeper than a profile nests",
	  "group 1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/26/27/28/29/30/31/32/33"
	  " { memory { } }\n", 0, { 1, 7, "nests deeper than 32 levels" }, 1 },
};

static void test_bad(void)
{
	for (size_t i = 0; i < N(bad); i++) {
		const struct bad_case *t = &bad[i];
		struct mc_cgconfig_result res = { .yaml = (char *)"untouched" };
		struct mc_diags sk = { 0 }, er = { 0 };
		size_t len = t->len ? t->len : strlen(t->conf);
		int r = mc_cgconfig_convert("bad.conf", t->conf, len, "/", &res, &sk, &er);

		tap_eq_int(r, -EINVAL, "%s: refused", t->name);
		tap_eq_str(res.yaml, "untouched", "%s: no result", t->name);
		tap_eq_int((long long)er.n, (long long)t->n, "%s: errors", t->name);
		if (er.n) {
			const struct mc_diag *d = &er.v[0];

			tap_check(d->line == t->first.line && d->col == t->first.col &&
					  strstr(d->msg, t->first.msg) && strcmp(d->file, "bad.conf") == 0,
				  "%s: at %d:%d '%s' (got %d:%d '%s')", t->name, t->first.line,
				  t->first.col, t->first.msg, d->line, d->col, d->msg);
		}
		mc_diags_free(&sk);
		mc_diags_free(&er);
	}
}

/* A parent the profile refuses: the self-check catches it, nothing is returned. */
static void test_bad_parent(void)
{
	struct mc_cgconfig_result res = { .yaml = (char *)"untouched" };
	struct mc_diags sk = { 0 }, er = { 0 };
	const char *conf = "group a { memory { memory.limit_in_bytes = 1G; } }\n";
	int r = mc_cgconfig_convert("in.conf", conf, strlen(conf), "relative/path", &res, &sk, &er);

	tap_eq_int(r, -EINVAL, "bad parent: refused");
	tap_check(er.n >= 2 && strstr(er.v[0].msg, "does not pass memctl check") &&
			  strstr(er.v[1].msg, "parent"),
		  "bad parent: the profile parser's message is passed on (%s)",
		  er.n >= 2 ? er.v[1].msg : "-");
	tap_eq_str(res.yaml, "untouched", "bad parent: no result");
	mc_diags_free(&sk);
	mc_diags_free(&er);
}

/* ---- the round trip: what check sees is what import reported ---- */

struct trip_case {
	const char *name;
	const char *conf;
	const char *groups[3];   /* the names check must see, in order (one level) */
	size_t n_groups;
	size_t n_settings;
};

#define LS "\xe2\x80\xa8"   /* U+2028, a line break to libyaml */
#define PS "\xe2\x80\xa9"   /* U+2029 */
#define NEL "\xc2\x85"       /* U+0085 */

static const struct trip_case trips[] = {
	{ "U+2028 in a name quoted in a comment cannot end it",
	  "group \"x" LS "groups: {evil: {max: 4K}}" LS "#\" { cpu { cpu.shares = 1; } }\n",
	  { NULL }, 0, 0 },
	{ "U+2029 in a comment",
	  "group \"x" PS "groups: {evil: {max: 4K}}" PS "#\" { cpu { cpu.shares = 1; } }\n",
	  { NULL }, 0, 0 },
	{ "U+0085 in a comment",
	  "group \"x" NEL "groups: {evil: {max: 4K}}" NEL "#\" { cpu { cpu.shares = 1; } }\n",
	  { NULL }, 0, 0 },
	{ "control and C1 characters in a comment",
	  "group \"x\x7f\xc2\x9b\xef\xbb\xbfy\" { cpu { cpu.shares = 1; } }\n", { NULL }, 0, 0 },
	{ "line separators inside a group name stay in the name",
	  "group \"a" LS "b: {max: 4K}\" { memory { memory.limit_in_bytes = 64M; } }\n"
	  "group \"c" NEL "d\" { memory { memory.limit_in_bytes = 32M; } }\n"
	  "group \"caf\xc3\xa9\xef\xbb\xbf" PS "\" { memory { } }\n",
	  { "a" LS "b: {max: 4K}", "c" NEL "d", "caf\xc3\xa9\xef\xbb\xbf" PS }, 3, 2 },
	{ "the kernel's no-limit values are max",
	  "group a { memory { memory.limit_in_bytes = 9223372036854771712; "
	  "memory.soft_limit_in_bytes = 9223372036854775807; memory.memsw.limit_in_bytes = "
	  "9223372036854771712; } }\n", { "a" }, 1, 3 },
	{ "a size below a page is left out",
	  "group a { memory { memory.limit_in_bytes = 100; memory.soft_limit_in_bytes = 4096; } }\n",
	  { "a" }, 1, 1 },
};

static void count_groups(const struct mc_group_spec *g, size_t n, size_t *groups,
			 size_t *settings)
{
	for (size_t i = 0; i < n; i++) {
		(*groups)++;
		for (int k = 0; k < MC_KNOB__COUNT; k++)
			*settings += g[i].knob[k].kind != MC_SIZE_UNSET;
		count_groups(g[i].children, g[i].n_children, groups, settings);
	}
}

static void test_round_trip(void)
{
	for (size_t i = 0; i < N(trips); i++) {
		const struct trip_case *t = &trips[i];
		struct mc_cgconfig_result res = { 0 };
		struct mc_diags sk = { 0 }, er = { 0 }, pd = { 0 };
		struct mc_profile p;
		size_t groups = 0, settings = 0;
		int r = mc_cgconfig_convert("in.conf", t->conf, strlen(t->conf), "/", &res, &sk, &er);

		tap_eq_int(r, 0, "%s: converts", t->name);
		for (size_t j = 0; j < er.n; j++)
			printf("# unexpected error: %d:%d: %s\n", er.v[j].line, er.v[j].col, er.v[j].msg);
		if (r == 0) {
			tap_eq_int((long long)res.groups, (long long)t->n_groups, "%s: groups reported",
				   t->name);
			tap_eq_int((long long)res.settings, (long long)t->n_settings,
				   "%s: settings reported", t->name);
			r = mc_profile_parse("out.yaml", res.yaml, strlen(res.yaml), &p, &pd);
			tap_eq_int(r, 0, "%s: the profile passes check", t->name);
		}
		if (r == 0) {
			count_groups(p.groups, p.n_groups, &groups, &settings);
			tap_eq_int((long long)groups, (long long)t->n_groups, "%s: check sees the groups",
				   t->name);
			tap_eq_int((long long)settings, (long long)t->n_settings,
				   "%s: check sees the settings", t->name);
			for (size_t j = 0; j < t->n_groups && j < p.n_groups; j++)
				tap_eq_str(p.groups[j].name, t->groups[j], "%s: name %zu", t->name, j);
			mc_profile_free(&p);
		}
		mc_cgconfig_result_free(&res);
		mc_diags_free(&pd);
		mc_diags_free(&sk);
		mc_diags_free(&er);
	}
}

/* A name that is not UTF-8 cannot be written into a profile: an error, nothing written. */
static void test_not_utf8(void)
{
	struct mc_cgconfig_result res = { .yaml = (char *)"untouched" };
	struct mc_diags sk = { 0 }, er = { 0 };
	const char *conf = "group \"a\xff" "b\" { memory { memory.limit_in_bytes = 1G; } }\n";
	int r = mc_cgconfig_convert("in.conf", conf, strlen(conf), "/", &res, &sk, &er);

	tap_eq_int(r, -EINVAL, "name not UTF-8: refused");
	tap_check(er.n == 1 && strstr(er.v[0].msg, "not UTF-8") && er.v[0].line == 1 &&
			  er.v[0].col == 7, "name not UTF-8: said at 1:7 (%s)", er.n ? er.v[0].msg : "-");
	tap_eq_str(res.yaml, "untouched", "name not UTF-8: no result");
	mc_diags_free(&sk);
	mc_diags_free(&er);
}

int main(void)
{
	test_sizes();
	test_good();
	test_bad();
	test_bad_parent();
	test_round_trip();
	test_not_utf8();
	return tap_done();
}
