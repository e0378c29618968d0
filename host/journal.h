#ifndef MEMCTL_JOURNAL_H
#define MEMCTL_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "plan.h"

/*
 * Journal records and the step kinds that make them.
 *
 * Every kind of step that changes the host (mkdir, write, enable, sysctl)
 * is one entry of a table in journal.c: its journal line, how it is done,
 * how it is undone, and how it is described to people. The transaction
 * (txn.c), the v1 reclaimer (reclaim.c) and the front ends go through the
 * functions below, so a new kind of step is added in that table alone.
 *
 * A journal is text, one record per line, the path last so that it may
 * contain spaces (group names cannot contain newlines):
 *
 *   memctl-journal 2
 *   pid 1234
 *   parent /abs/parent                    (every group below is inside it)
 *   mkdir /abs/parent/group
 *   enable memory /abs/parent/group
 *   write KNOB OLD NEW /abs/parent/group  (OLD/NEW decimal or "max"; OLD "-": new group)
 *   sysctl NAME OLD NEW
 *   unit PROPERTY OLD NEW UNIT           (a systemd unit's MemoryMax...; set through systemd)
 *   unitfile KNOB OLD NEW /abs/x.service (soft_limit or reclaim_protect_active in a unit's
 *                                         cgroup, which systemd does not write; any parent)
 *   rmdir CREATED KNOBS /abs/parent/group (CREATED "created" or "-"; KNOBS "-" or
 *                                         "max=RAW,soft_limit=RAW...": what undo puts back)
 *   end
 *   failed TEXT                           (optional: the apply's own rollback failed)
 *
 * A journal without "end" was never complete: nothing was written after it.
 */

/* One journaled change. kind is MC_STEP_MKDIR, _WRITE, _ENABLE, _SYSCTL, _UNIT or _RMDIR. */
struct mc_jrec {
	enum mc_step_kind kind;
	enum mc_knob knob;        /* WRITE, UNIT (its mc_knob_unit_property) */
	bool old_valid;           /* WRITE: false for a file of a group being created */
	uint64_t old_raw;         /* WRITE, SYSCTL */
	uint64_t new_raw;         /* WRITE, SYSCTL */
	char *path;               /* absolute group path; SYSCTL: the sysctl's name; UNIT: the unit's */
	/* RMDIR: the knob values undo recreates the group with (mc_step's), and
	 * whether memctl had created the group */
	uint64_t saved_raw[MC_KNOB__COUNT];
	uint32_t saved_mask;
	bool created;
};

struct mc_journal {
	long pid;                 /* of the memctl that wrote it */
	char *parent;             /* absolute cgroup path every record lies in */
	struct mc_jrec *v;
	size_t n;
	size_t cap;
	bool complete;            /* "end" was read */
	char *failure;            /* the "failed" line's text, or NULL */
};

/* Longest journal accepted (a plan of many thousand steps fits). */
#define MC_JOURNAL_MAX (64u << 20)

/*
 * Builds the journal of plan's changing steps (those mc_step_changes says
 * so), with pid and the plan's parent. Returns 0 or -errno (-ENOMEM,
 * -EINVAL / -ENAMETOOLONG for a group path that cannot be joined).
 */
int mc_journal_from_plan(const struct mc_plan *plan, long pid, struct mc_journal *ret);

/* Appends a copy of rec (its path is duplicated). 0 or -ENOMEM. */
int mc_journal_add(struct mc_journal *j, const struct mc_jrec *rec);

/*
 * Formats j as journal text ending in "end\n" (and the "failed" line when
 * j->failure is set), newly allocated. 0 or -ENOMEM.
 */
int mc_journal_format(const struct mc_journal *j, char **ret, size_t *ret_len);

/*
 * Parses journal text (len bytes, need not be NUL-terminated). Everything is
 * checked before anything is acted on: the header, every record's syntax and
 * values, and that every group path is a clean absolute cgroup path (no "."
 * or "..") equal to or below the parent line, which must come before the
 * first record; a complete journal has a pid and a parent. Text after "end" other than one "failed" line is an error.
 * Returns 0, or -EBADMSG with the offending 1-based line in *ret_line, or
 * -ENOMEM. *ret is not written on failure.
 */
int mc_journal_parse(const char *buf, size_t len, struct mc_journal *ret, unsigned *ret_line);

void mc_journal_free(struct mc_journal *j);

/*
 * Carries out rec (apply). Returns 0 or the write's -errno; -EIO when the
 * kernel kept another value (then in *ret_readback, may be NULL).
 */
int mc_jrec_do(struct mc_host *h, const struct mc_jrec *rec, uint64_t *ret_readback);

/*
 * Undoes rec: puts back the old value, removes the group created. Looks
 * first, so a record whose change never happened, or was undone already,
 * is left alone: that makes undo right wherever an apply stopped, and safe
 * to repeat. strict (rollback from a journal, later and maybe after others
 * wrote): a value that is neither the old one nor the one the apply wrote
 * was changed since by someone else and is left as it is (-ESTALE), so
 * rolling back one apply never undoes another's change. Returns 1 when it
 * changed something, 0 when there was nothing to undo, or -errno;
 * *ret_what names what could not be undone ("max", "removing the group
 * created"), static.
 */
int mc_jrec_undo(struct mc_host *h, const struct mc_jrec *rec, bool strict, const char **ret_what);

/*
 * A step as people read it, from the same table: the plan's columns, the
 * line apply prints once the step is done, and the short form of top's
 * decision column. Covers every kind of step, also NOTE and RECLAIM.
 */
struct mc_step_text {
	const char *action;       /* create, write, skip, reclaim, enable, sysctl */
	const char *file;         /* the plan's file column, "" when none */
	char *value;              /* "512M -> 256M", "(new) -> 1G", "+memory", "64M", or "" */
	char *done;               /* "web: memory.max 1G -> 512M", "created web" */
	char *brief;              /* "memory.max -> 512M", "reclaim 64M", "create" */
};

/* Fills ret for s (strings allocated). 0 or -ENOMEM (ret then needs no free). */
int mc_step_describe(const struct mc_step *s, struct mc_step_text *ret);
void mc_step_text_free(struct mc_step_text *t);

/*
 * Says why step s (its group abs, absolute) failed with err: "cannot set
 * memory.max on '/a/web': CAUSE", with what the kernel kept (readback) for
 * -EIO and the bound for -ETIMEDOUT. cause is the caller's text for err.
 * Newly allocated, or NULL without memory.
 */
char *mc_step_failure(const struct mc_step *s, const char *abs, int err, uint64_t readback,
		      const char *cause);

#endif
