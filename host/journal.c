/*
 * The step kinds, as one table: for each kind its journal line (format and
 * parse), how it is done and undone on the host, and how it reads to
 * people. Kinds that are not journaled (NOTE, RECLAIM) only describe.
 *
 * The parser trusts nothing: a journal is read back from a directory whose
 * files could, on a badly set up host, have been written by someone else,
 * so every line is checked and every group path must lie inside the parent
 * the journal names before rollback acts on any of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "host-internal.h"
#include "journal.h"
#include "sdbus.h"
#include "size.h"
#include "unitname.h"
#include "units.h"

#define JOURNAL_MAGIC "memctl-journal 2"

struct step_kind {
	const char *action;   /* plan column */
	const char *word;     /* journal line's first word; NULL: never journaled */
	/* Writes the line's arguments after the word (no newline). */
	int (*format)(FILE *f, const struct mc_jrec *r);
	/* Parses the arguments (after "word "); path is left to the caller's check. */
	int (*parse)(const char *args, struct mc_jrec *r);
	int (*exec)(struct mc_host *h, const struct mc_jrec *r, uint64_t *ret_readback);
	int (*undo)(struct mc_host *h, const struct mc_jrec *r, bool strict, const char **ret_what);
	int (*describe)(const struct mc_step *s, struct mc_step_text *t);
	/* The failure's message without the cause, e.g. "cannot create group '/a'". */
	char *(*failure)(const struct mc_step *s, const char *abs);
	bool group_below;     /* path must be strictly below the parent (not the parent) */
};

static void fmt_raw(uint64_t v, char buf[static 24])
{
	if (v == MC_SIZE_MAX)
		strcpy(buf, "max");
	else
		snprintf(buf, 24, "%" PRIu64, v);
}

/* A decimal (or "max") that is all of s. */
static int parse_raw(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 3 && memcmp(s, "max", 3) == 0) {
		*ret = MC_SIZE_MAX;
		return 0;
	}
	if (len == 0 || len > 20)
		return -EBADMSG;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -EBADMSG;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return 0;
}

/* The next space-separated word of *p; its length in *ret_len. */
static const char *next_word(const char **p, size_t *ret_len)
{
	const char *s = *p, *e = strchr(s, ' ');

	if (!e)
		e = s + strlen(s);
	*ret_len = (size_t)(e - s);
	*p = *e ? e + 1 : e;
	return s;
}

static int dup_path(const char *s, struct mc_jrec *r)
{
	r->path = strdup(s);
	return r->path ? 0 : -ENOMEM;
}

/*
 * The unit a step's line writes its sizes v[0..n) in: the step's own (that
 * of its reason, which the line shows too), else the largest dividing them.
 */
static unsigned step_unit(const struct mc_step *s, const uint64_t *v, size_t n)
{
	return s->unit_valid ? s->unit : mc_units_shift(v, n);
}

/* The old and new value of s in one unit, into a and b. */
static void fmt_pair(const struct mc_step *s, char a[static 24], char b[static 24])
{
	uint64_t v[2] = { s->new_raw, s->old_raw };
	unsigned u = step_unit(s, v, s->old_valid ? 2 : 1);

	mc_units_format(s->old_raw, u, a);
	mc_units_format(s->new_raw, u, b);
}

/*
 * What an undo does after reading the current value (e: the read's result):
 * 0 nothing (already the old value), -ESTALE (strict, and someone else's
 * value since), 1 the old value must be written back, or the read's -errno.
 */
static int undo_needed(int e, uint64_t cur, const struct mc_jrec *r, bool strict)
{
	if (e < 0)
		return e;
	if (cur == r->old_raw)
		return 0;
	return strict && cur != r->new_raw ? -ESTALE : 1;
}

/* mkdir: a group this apply creates. */

static int mkdir_format(FILE *f, const struct mc_jrec *r)
{
	return fprintf(f, "%s", r->path);
}

static int path_parse(const char *args, struct mc_jrec *r)
{
	return dup_path(args, r);
}

static int mkdir_do(struct mc_host *h, const struct mc_jrec *r, uint64_t *ret_readback)
{
	return mc_host_mkdir(h, r->path);
}

static int mkdir_undo(struct mc_host *h, const struct mc_jrec *r, bool strict,
		      const char **ret_what)
{
	int e;

	if (!mc_host_group_exists(h, r->path))
		return 0;
	e = mc_host_rmdir(h, r->path);
	if (e == -ENOENT)
		return 0;
	*ret_what = "removing the group created";
	return e < 0 ? e : 1;
}

static int mkdir_describe(const struct mc_step *s, struct mc_step_text *t)
{
	t->file = "";
	t->value = strdup("");
	t->done = mc_asprintf("created %s", s->group);
	t->brief = mc_asprintf("create");
	return 0;
}

static char *mkdir_failure(const struct mc_step *s, const char *abs)
{
	return mc_asprintf("cannot create group '%s'", abs);
}

/* enable: v2's memory controller for a new group's children. */

static int enable_format(FILE *f, const struct mc_jrec *r)
{
	return fprintf(f, "memory %s", r->path);
}

static int enable_parse(const char *args, struct mc_jrec *r)
{
	if (strncmp(args, "memory ", 7) != 0)
		return -EBADMSG;
	return dup_path(args + 7, r);
}

static int enable_do(struct mc_host *h, const struct mc_jrec *r, uint64_t *ret_readback)
{
	return mc_host_delegate_memory(h, r->path, true);
}

/*
 * Only groups memctl created get this, and their removal follows: that is
 * the change counted, so this one counts as nothing.
 */
static int enable_undo(struct mc_host *h, const struct mc_jrec *r, bool strict,
		       const char **ret_what)
{
	int e = mc_host_delegate_memory(h, r->path, false);

	*ret_what = "cgroup.subtree_control";
	return e == -ENOENT ? 0 : e < 0 ? e : 0;
}

static int enable_describe(const struct mc_step *s, struct mc_step_text *t)
{
	t->file = "cgroup.subtree_control";
	t->value = strdup("+memory");
	t->done = mc_asprintf("%s: cgroup.subtree_control +memory", s->group);
	t->brief = mc_asprintf("enable memory for children");
	return 0;
}

static char *enable_failure(const struct mc_step *s, const char *abs)
{
	return mc_asprintf("cannot enable the memory controller for the children of '%s' "
			   "(cgroup.subtree_control +memory)", abs);
}

/* write: one knob file. */

static int write_format(FILE *f, const struct mc_jrec *r)
{
	char old[24], new[24];

	fmt_raw(r->old_raw, old);
	fmt_raw(r->new_raw, new);
	return fprintf(f, "%s %s %s %s", mc_knob_info(r->knob)->name, r->old_valid ? old : "-",
		       new, r->path);
}

static int write_parse(const char *args, struct mc_jrec *r)
{
	const char *p = args, *w;
	char kn[32];
	size_t len;

	w = next_word(&p, &len);
	if (len == 0 || len >= sizeof(kn))
		return -EBADMSG;
	memcpy(kn, w, len);
	kn[len] = '\0';
	if (mc_knob_lookup(kn, &r->knob) < 0 || strcmp(mc_knob_info(r->knob)->name, kn) != 0)
		return -EBADMSG;
	w = next_word(&p, &len);
	r->old_valid = !(len == 1 && w[0] == '-');
	if (r->old_valid && parse_raw(w, len, &r->old_raw) < 0)
		return -EBADMSG;
	w = next_word(&p, &len);
	if (parse_raw(w, len, &r->new_raw) < 0)
		return -EBADMSG;
	return dup_path(p, r);
}

static int write_do(struct mc_host *h, const struct mc_jrec *r, uint64_t *ret_readback)
{
	return mc_host_write_knob(h, r->path, r->knob, r->new_raw, ret_readback);
}

static int write_undo(struct mc_host *h, const struct mc_jrec *r, bool strict,
		      const char **ret_what)
{
	uint64_t cur = 0;
	int e;

	if (!r->old_valid)
		return 0;   /* the group is new: its removal undoes this */
	*ret_what = mc_knob_info(r->knob)->name;
	e = mc_host_read_knob(h, r->path, r->knob, &cur);
	e = undo_needed(e, cur, r, strict);
	if (e != 1)
		return e;
	e = mc_host_write_knob(h, r->path, r->knob, r->old_raw, NULL);
	return e < 0 ? e : 1;
}

static int write_describe(const struct mc_step *s, struct mc_step_text *t)
{
	char a[24], b[24];

	fmt_pair(s, a, b);
	t->file = s->file;
	t->value = mc_asprintf("%s -> %s", s->old_valid ? a : "(new)", b);
	t->done = t->value ? mc_asprintf("%s: %s %s", s->group, s->file, t->value) : NULL;
	t->brief = mc_asprintf("%s -> %s", s->file, b);
	return 0;
}

static char *write_failure(const struct mc_step *s, const char *abs)
{
	return mc_asprintf("cannot set %s on '%s'", s->file, abs);
}

/* sysctl: memctl's kernel patch's host-wide settings. */

static int sysctl_format(FILE *f, const struct mc_jrec *r)
{
	return fprintf(f, "%s %" PRIu64 " %" PRIu64, r->path, r->old_raw, r->new_raw);
}

static int sysctl_parse(const char *args, struct mc_jrec *r)
{
	const char *p = args, *name, *w;
	size_t len, nlen;

	name = next_word(&p, &nlen);
	if (nlen == 0 || nlen > 64)
		return -EBADMSG;
	for (size_t i = 0; i < nlen; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789_.", name[i]))
			return -EBADMSG;
	w = next_word(&p, &len);
	if (parse_raw(w, len, &r->old_raw) < 0 || r->old_raw > LONG_MAX)
		return -EBADMSG;
	w = next_word(&p, &len);
	if (parse_raw(w, len, &r->new_raw) < 0 || r->new_raw > LONG_MAX || *p)
		return -EBADMSG;
	r->old_valid = true;
	r->path = strndup(name, nlen);
	return r->path ? 0 : -ENOMEM;
}

static int sysctl_do(struct mc_host *h, const struct mc_jrec *r, uint64_t *ret_readback)
{
	return mc_host_sysctl_write(h, r->path, (long)r->new_raw);
}

static int sysctl_undo(struct mc_host *h, const struct mc_jrec *r, bool strict,
		       const char **ret_what)
{
	long cur;
	int e;

	*ret_what = "sysctl";
	e = mc_host_sysctl_read(h, r->path, &cur);
	if (e == 0 && (uint64_t)cur == r->old_raw)
		return 0;
	if (e == 0 && strict && (uint64_t)cur != r->new_raw)
		return -ESTALE;
	if (e == 0)
		e = mc_host_sysctl_write(h, r->path, (long)r->old_raw);
	return e < 0 ? e : 1;
}

static int sysctl_describe(const struct mc_step *s, struct mc_step_text *t)
{
	t->file = s->file;
	t->value = mc_asprintf("%" PRIu64 " -> %" PRIu64, s->old_raw, s->new_raw);
	t->done = mc_asprintf("%s %" PRIu64 " -> %" PRIu64, s->file, s->old_raw, s->new_raw);
	t->brief = mc_asprintf("%s -> %" PRIu64, s->file, s->new_raw);
	return 0;
}

static char *sysctl_failure(const struct mc_step *s, const char *abs)
{
	return mc_asprintf("cannot set %s to %" PRIu64, s->file, s->new_raw);
}

/* rmdir: an empty group removed (rm, apply --prune); undo recreates it with its knobs. */

static int rmdir_format(FILE *f, const struct mc_jrec *r)
{
	bool first = true;
	char v[24];

	fprintf(f, "%s ", r->created ? "created" : "-");
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		if (!(r->saved_mask & (1u << k)))
			continue;
		fmt_raw(r->saved_raw[k], v);
		fprintf(f, "%s%s=%s", first ? "" : ",", mc_knob_info((enum mc_knob)k)->name, v);
		first = false;
	}
	return fprintf(f, "%s %s", first ? "-" : "", r->path);
}

/* "KNOB=RAW" pairs separated by commas, each knob once; len bytes at s. */
static int saved_parse(const char *s, size_t len, struct mc_jrec *r)
{
	if (len == 1 && s[0] == '-')
		return 0;
	while (len > 0) {
		const char *comma = memchr(s, ',', len), *eq;
		size_t pl = comma ? (size_t)(comma - s) : len;
		char kn[32];
		enum mc_knob k;

		eq = memchr(s, '=', pl);
		if (!eq || eq == s || (size_t)(eq - s) >= sizeof(kn) || (comma && pl + 1 == len))
			return -EBADMSG;
		memcpy(kn, s, (size_t)(eq - s));
		kn[eq - s] = '\0';
		if (mc_knob_lookup(kn, &k) < 0 || strcmp(mc_knob_info(k)->name, kn) != 0 ||
		    (r->saved_mask & (1u << k)) ||
		    parse_raw(eq + 1, pl - (size_t)(eq + 1 - s), &r->saved_raw[k]) < 0)
			return -EBADMSG;
		r->saved_mask |= 1u << k;
		s += comma ? pl + 1 : pl;
		len -= comma ? pl + 1 : pl;
	}
	return 0;
}

static int rmdir_parse(const char *args, struct mc_jrec *r)
{
	const char *p = args, *w;
	size_t len;

	w = next_word(&p, &len);
	if (len == 7 && memcmp(w, "created", 7) == 0)
		r->created = true;
	else if (len != 1 || w[0] != '-')
		return -EBADMSG;
	w = next_word(&p, &len);
	if (len == 0 || saved_parse(w, len, r) < 0)
		return -EBADMSG;
	return dup_path(p, r);
}

static int rmdir_do(struct mc_host *h, const struct mc_jrec *r, uint64_t *ret_readback)
{
	return mc_host_remove_group(h, r->path);
}

/* Writes the saved value of k to the recreated group unless it has it already. */
static int restore_knob(struct mc_host *h, const struct mc_jrec *r, enum mc_knob k)
{
	uint64_t cur;
	int e;

	if (!(r->saved_mask & (1u << k)))
		return 0;
	e = mc_host_read_knob(h, r->path, k, &cur);
	if (e == 0 && cur == r->saved_raw[k])
		return 0;
	return mc_host_write_knob(h, r->path, k, r->saved_raw[k], NULL);
}

/*
 * A group that is there was not removed (or was recreated already): nothing
 * to undo. Otherwise it is made again and its knobs written, swap last (on
 * v1 the memory+swap limit may not be below the limit).
 */
static int rmdir_undo(struct mc_host *h, const struct mc_jrec *r, bool strict,
		      const char **ret_what)
{
	int e;

	*ret_what = "recreating the group removed";
	if (mc_host_group_exists(h, r->path))
		return 0;
	e = mc_host_mkdir(h, r->path);
	for (int k = 0; k < MC_KNOB__COUNT && e == 0; k++) {
		if (k == MC_KNOB_SWAP)
			continue;
		*ret_what = mc_knob_info((enum mc_knob)k)->name;
		e = restore_knob(h, r, (enum mc_knob)k);
	}
	if (e == 0) {
		*ret_what = mc_knob_info(MC_KNOB_SWAP)->name;
		e = restore_knob(h, r, MC_KNOB_SWAP);
	}
	return e < 0 ? e : 1;
}

static int rmdir_describe(const struct mc_step *s, struct mc_step_text *t)
{
	t->file = "";
	t->value = strdup("");
	t->done = mc_asprintf("removed %s", s->group);
	t->brief = mc_asprintf("remove");
	return 0;
}

static char *rmdir_failure(const struct mc_step *s, const char *abs)
{
	return mc_asprintf("cannot remove group '%s'", abs);
}

/* unit: a systemd unit's memory property, set through systemd's bus (sdbus.h). */

static int unit_format(FILE *f, const struct mc_jrec *r)
{
	char old[24], new[24];

	fmt_raw(r->old_raw, old);
	fmt_raw(r->new_raw, new);
	return fprintf(f, "%s %s %s %s", mc_knob_unit_property(r->knob), old, new, r->path);
}

/* "PROPERTY OLD NEW UNIT": the property one of mc_knob_unit_property, the unit's name checked. */
static int unit_parse(const char *args, struct mc_jrec *r)
{
	const char *p = args, *w, *why;
	size_t len;

	w = next_word(&p, &len);
	r->knob = MC_KNOB__COUNT;
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		const char *prop = mc_knob_unit_property((enum mc_knob)k);

		if (prop && strlen(prop) == len && memcmp(prop, w, len) == 0)
			r->knob = (enum mc_knob)k;
	}
	if (r->knob == MC_KNOB__COUNT)
		return -EBADMSG;
	w = next_word(&p, &len);
	if (parse_raw(w, len, &r->old_raw) < 0)
		return -EBADMSG;
	w = next_word(&p, &len);
	if (parse_raw(w, len, &r->new_raw) < 0 || mc_sd_target_check(p, &why) < 0)
		return -EBADMSG;
	r->old_valid = true;
	return dup_path(p, r);
}

static int unit_do(struct mc_host *h, const struct mc_jrec *r, uint64_t *ret_readback)
{
	return mc_host_unit_set(h, r->path, r->knob, r->new_raw, ret_readback);
}

static int unit_undo(struct mc_host *h, const struct mc_jrec *r, bool strict,
		     const char **ret_what)
{
	uint64_t cur = 0;
	int e;

	*ret_what = mc_knob_unit_property(r->knob);
	e = mc_host_unit_get(h, r->path, r->knob, &cur);
	e = undo_needed(e, cur, r, strict);
	if (e != 1)
		return e;
	e = mc_host_unit_set(h, r->path, r->knob, r->old_raw, NULL);
	return e < 0 ? e : 1;
}

static int unit_describe(const struct mc_step *s, struct mc_step_text *t)
{
	char a[24], b[24];

	fmt_pair(s, a, b);
	t->file = s->file;
	t->value = mc_asprintf("%s -> %s via systemd", a, b);
	t->done = t->value ? mc_asprintf("%s: %s %s", s->group, s->file, t->value) : NULL;
	t->brief = mc_asprintf("%s -> %s via systemd", s->file, b);
	return 0;
}

static char *unit_failure(const struct mc_step *s, const char *abs)
{
	return mc_asprintf("cannot set %s of unit '%s' through systemd", s->file, s->group);
}

/*
 * unitfile: a knob file of a unit's cgroup that systemd does not manage
 * (soft_limit, reclaim_protect_active), written directly. The path lies
 * outside the journal's parent, so the parser holds it to the most it can
 * be: a clean cgroup path ending in a unit's name, and one of those knobs.
 */

static int unitfile_parse(const char *args, struct mc_jrec *r)
{
	const char *base, *why;
	int e = write_parse(args, r);

	if (e < 0)
		return e;
	base = strrchr(r->path, '/');
	if (!r->old_valid || (r->knob != MC_KNOB_SOFT && r->knob != MC_KNOB_PROTECT_ACTIVE) ||
	    !cgfs_clean_path(r->path) || !base || mc_sd_target_check(base + 1, &why) < 0) {
		free(r->path);
		r->path = NULL;
		return -EBADMSG;
	}
	return 0;
}

static int unitfile_describe(const struct mc_step *s, struct mc_step_text *t)
{
	char a[24], b[24];

	fmt_pair(s, a, b);
	t->file = s->file;
	t->value = mc_asprintf("%s -> %s", a, b);
	t->done = t->value ? mc_asprintf("%s: %s %s (in its cgroup)", s->group, s->file,
					 t->value) : NULL;
	t->brief = mc_asprintf("%s -> %s", s->file, b);
	return 0;
}

static char *unitfile_failure(const struct mc_step *s, const char *abs)
{
	return mc_asprintf("cannot set %s in the cgroup of unit '%s' (%s)", s->file, s->group,
			   s->cgroup ? s->cgroup : "?");
}

/* Steps that are never journaled: a setting this host cannot carry out, a reclaim. */

static int note_describe(const struct mc_step *s, struct mc_step_text *t)
{
	t->file = s->knob < MC_KNOB__COUNT ? mc_knob_info(s->knob)->name : s->file;
	t->value = strdup("");
	t->done = mc_asprintf("%s: %s", s->group, s->reason ? s->reason : "");
	t->brief = mc_asprintf("note");
	return 0;
}

static int reclaim_describe(const struct mc_step *s, struct mc_step_text *t)
{
	char v[24];
	size_t len = 0;
	unsigned u = step_unit(s, &s->bytes, 1);
	FILE *f = open_memstream(&t->value, &len);

	if (!f)
		return -ENOMEM;
	fputs(mc_units_format(s->bytes, u, v), f);
	for (size_t n = 0; s->node_bytes && n < s->n_nodes; n++)
		fprintf(f, "%s N%zu=%s", n ? "," : " (", n, mc_units_format(s->node_bytes[n], u, v));
	if (s->node_bytes && s->n_nodes)
		fputc(')', f);
	if (fclose(f) != 0)
		return -ENOMEM;
	t->file = "";
	t->done = mc_asprintf("%s: reclaim %s", s->group, t->value);
	t->brief = mc_asprintf("reclaim %s", mc_units_format(s->bytes, u, v));
	return 0;
}

static const struct step_kind kinds[] = {
	[MC_STEP_MKDIR] = { "create", "mkdir", mkdir_format, path_parse, mkdir_do, mkdir_undo,
			    mkdir_describe, mkdir_failure, true },
	[MC_STEP_WRITE] = { "write", "write", write_format, write_parse, write_do, write_undo,
			    write_describe, write_failure, false },
	[MC_STEP_NOTE] = { .action = "skip", .describe = note_describe },
	[MC_STEP_RECLAIM] = { .action = "reclaim", .describe = reclaim_describe },
	[MC_STEP_ENABLE] = { "enable", "enable", enable_format, enable_parse, enable_do,
			     enable_undo, enable_describe, enable_failure, true },
	[MC_STEP_SYSCTL] = { "sysctl", "sysctl", sysctl_format, sysctl_parse, sysctl_do,
			     sysctl_undo, sysctl_describe, sysctl_failure, false },
	[MC_STEP_UNIT] = { "write", "unit", unit_format, unit_parse, unit_do, unit_undo,
			   unit_describe, unit_failure, false },
	[MC_STEP_UNIT_FILE] = { "write", "unitfile", write_format, unitfile_parse, write_do,
				write_undo, unitfile_describe, unitfile_failure, false },
	[MC_STEP_RMDIR] = { "remove", "rmdir", rmdir_format, rmdir_parse, rmdir_do, rmdir_undo,
			    rmdir_describe, rmdir_failure, true },
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static const struct step_kind *kind_of(enum mc_step_kind k)
{
	return (unsigned)k < N_KINDS && kinds[k].action ? &kinds[k] : NULL;
}

int mc_journal_add(struct mc_journal *j, const struct mc_jrec *rec)
{
	struct mc_jrec copy = *rec;

	if (mc_array_reserve(&j->v, &j->cap, j->n + 1, sizeof(*j->v)) < 0)
		return -ENOMEM;
	copy.path = strdup(rec->path);
	if (!copy.path)
		return -ENOMEM;
	j->v[j->n++] = copy;
	return 0;
}

int mc_journal_from_plan(const struct mc_plan *plan, long pid, struct mc_journal *ret)
{
	struct mc_journal j = { .pid = pid };
	int r = 0;

	j.parent = strdup(plan->parent);
	if (!j.parent)
		return -ENOMEM;
	for (size_t i = 0; i < plan->n && r == 0; i++) {
		const struct mc_step *s = &plan->steps[i];
		struct mc_jrec rec = { .kind = s->kind, .knob = s->knob, .old_valid = s->old_valid,
				       .old_raw = s->old_raw, .new_raw = s->new_raw,
				       .saved_mask = s->saved_mask, .created = s->created };
		char *abs = NULL;

		memcpy(rec.saved_raw, s->saved_raw, sizeof(rec.saved_raw));

		if (!mc_step_changes(s))
			continue;
		if (s->kind == MC_STEP_SYSCTL)
			rec.path = (char *)s->file;
		else if (s->kind == MC_STEP_UNIT)
			rec.path = s->group;   /* a unit's name, not a group below the parent */
		else if (s->kind == MC_STEP_UNIT_FILE)
			rec.path = s->cgroup;  /* the unit's cgroup, wherever systemd put it */
		else if ((r = mc_path_join(plan->parent, s->group, &abs)) == 0)
			rec.path = abs;
		if (r == 0)
			r = mc_journal_add(&j, &rec);
		free(abs);
	}
	if (r < 0) {
		mc_journal_free(&j);
		return r;
	}
	*ret = j;
	return 0;
}

int mc_journal_format(const struct mc_journal *j, char **ret, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	fprintf(f, JOURNAL_MAGIC "\npid %ld\nparent %s\n", j->pid, j->parent);
	for (size_t i = 0; i < j->n; i++) {
		const struct step_kind *k = kind_of(j->v[i].kind);

		if (!k || !k->word)
			continue;
		fprintf(f, "%s ", k->word);
		k->format(f, &j->v[i]);
		fputc('\n', f);
	}
	fputs("end\n", f);
	if (j->failure)
		fprintf(f, "failed %s\n", j->failure);
	return host_text_close(f, &buf, &len, ret, ret_len);
}

void mc_journal_free(struct mc_journal *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].path);
	free(j->v);
	free(j->parent);
	free(j->failure);
	*j = (struct mc_journal){ 0 };
}

/* Whether path is parent or below it (below: strictly). */
static bool inside(const char *path, const char *parent, bool below)
{
	size_t pl = strlen(parent);

	if (strcmp(path, parent) == 0)
		return !below;
	if (pl == 1)
		return true;    /* parent "/": every clean path is below it */
	return strncmp(path, parent, pl) == 0 && path[pl] == '/';
}

/* One record line: "WORD ARGS". */
static int parse_record(struct mc_journal *j, const char *line)
{
	const char *args = strchr(line, ' ');
	struct mc_jrec rec = { 0 };
	const struct step_kind *k = NULL;
	size_t wl;
	int r;

	if (!args || !j->parent)
		return -EBADMSG;
	wl = (size_t)(args - line);
	for (size_t i = 0; i < N_KINDS && !k; i++)
		if (kinds[i].word && strlen(kinds[i].word) == wl && memcmp(kinds[i].word, line, wl) == 0)
			k = &kinds[i];
	if (!k)
		return -EBADMSG;
	rec.kind = (enum mc_step_kind)(k - kinds);
	if ((r = k->parse(args + 1, &rec)) < 0)
		return r;
	if (rec.kind != MC_STEP_SYSCTL && rec.kind != MC_STEP_UNIT && rec.kind != MC_STEP_UNIT_FILE &&
	    (!cgfs_clean_path(rec.path) || !inside(rec.path, j->parent, k->group_below))) {
		free(rec.path);
		return -EBADMSG;
	}
	r = mc_journal_add(j, &rec);
	free(rec.path);
	return r;
}

/* Parses one line (NUL-terminated, no newline) at 1-based lineno. */
static int parse_line(struct mc_journal *j, const char *line, unsigned lineno, bool *after_end)
{
	uint64_t v;

	if (lineno == 1)
		return strcmp(line, JOURNAL_MAGIC) == 0 ? 0 : -EBADMSG;
	if (*after_end) {
		if (strncmp(line, "failed ", 7) != 0 || j->failure)
			return -EBADMSG;
		j->failure = strdup(line + 7);
		return j->failure ? 0 : -ENOMEM;
	}
	if (strcmp(line, "end") == 0) {
		j->complete = *after_end = true;
		return j->parent && j->pid ? 0 : -EBADMSG;
	}
	if (strncmp(line, "pid ", 4) == 0) {
		if (j->pid || j->n || parse_raw(line + 4, strlen(line + 4), &v) < 0 || v == 0 ||
		    v > INT32_MAX)
			return -EBADMSG;
		j->pid = (long)v;
		return 0;
	}
	if (strncmp(line, "parent ", 7) == 0) {
		if (j->parent || !cgfs_clean_path(line + 7))
			return -EBADMSG;
		j->parent = strdup(line + 7);
		return j->parent ? 0 : -ENOMEM;
	}
	return parse_record(j, line);
}

struct parse_state {
	struct mc_journal j;
	bool after_end;
};

static int parse_one(void *arg, const char *line, unsigned lineno)
{
	struct parse_state *ps = arg;

	return parse_line(&ps->j, line, lineno, &ps->after_end);
}

int mc_journal_parse(const char *buf, size_t len, struct mc_journal *ret, unsigned *ret_line)
{
	struct parse_state ps = { 0 };
	unsigned lineno;
	bool bad_end;
	int r;

	r = host_each_line(buf, len, MC_JOURNAL_MAX, parse_one, &ps, &lineno, &bad_end);
	if (r < 0) {
		if (ret_line)
			*ret_line = lineno;
		mc_journal_free(&ps.j);
		return r;
	}
	*ret = ps.j;
	return 0;
}

int mc_jrec_do(struct mc_host *h, const struct mc_jrec *rec, uint64_t *ret_readback)
{
	const struct step_kind *k = kind_of(rec->kind);

	return k && k->exec ? k->exec(h, rec, ret_readback) : -EINVAL;
}

int mc_jrec_undo(struct mc_host *h, const struct mc_jrec *rec, bool strict, const char **ret_what)
{
	const struct step_kind *k = kind_of(rec->kind);

	*ret_what = "undo";
	return k && k->undo ? k->undo(h, rec, strict, ret_what) : -EINVAL;
}

int mc_step_describe(const struct mc_step *s, struct mc_step_text *ret)
{
	const struct step_kind *k = kind_of(s->kind);
	struct mc_step_text t = { 0 };

	if (!k)
		return -EINVAL;
	t.action = k->action;
	if (k->describe(s, &t) < 0 || !t.value || !t.done || !t.brief) {
		mc_step_text_free(&t);
		return -ENOMEM;
	}
	*ret = t;
	return 0;
}

void mc_step_text_free(struct mc_step_text *t)
{
	free(t->value);
	free(t->done);
	free(t->brief);
	t->value = t->done = t->brief = NULL;
}

char *mc_step_failure(const struct mc_step *s, const char *abs, int err, uint64_t readback,
		      const char *cause)
{
	const struct step_kind *k = kind_of(s->kind);
	char *head, *out, a[24], b[24];
	uint64_t kept[2] = { readback, s->new_raw };
	unsigned u = mc_units_shift(kept, 2);

	if (!k || !k->failure)
		return NULL;
	head = k->failure(s, abs);
	if (!head)
		return NULL;
	/* head names no size: the two values alone make the line's unit */
	if (err == -EIO && (s->kind == MC_STEP_WRITE || s->kind == MC_STEP_UNIT_FILE))
		out = mc_asprintf("%s: the kernel kept %s instead of %s", head,
				  mc_units_format(readback, u, a), mc_units_format(s->new_raw, u, b));
	else if (err == -EIO && s->kind == MC_STEP_UNIT)
		out = mc_asprintf("%s: systemd kept %s instead of %s", head,
				  mc_units_format(readback, u, a), mc_units_format(s->new_raw, u, b));
	else if (err == -EIO && s->kind == MC_STEP_ENABLE)
		out = mc_asprintf("%s: the kernel did not keep it", head);
	else if (err == -EIO)
		out = mc_asprintf("%s: the kernel kept another value", head);
	else if (err == -EBUSY && s->kind == MC_STEP_RMDIR)
		out = mc_asprintf("%s: it holds tasks or child groups now (%s)", head, cause);
	else
		out = mc_asprintf("%s: %s", head, cause);
	free(head);
	return out;
}
