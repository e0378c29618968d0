/*
 * The apply transaction: journal, ordered execution, rollback.
 *
 * The journal (format in journal.h) is written to a temporary file,
 * fsynced, renamed into place and the directory fsynced, all before the
 * first write to the host. Rollback replays it backwards, and every undo
 * looks before it writes (a file already holding its old value is left
 * alone), so it is correct wherever the apply was interrupted, and can be
 * run again if it is itself interrupted. The journal names the parent its
 * apply worked under; the parser refuses any record outside it, so a
 * rollback writes nothing outside that parent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "txn.h"
#include "unitname.h"

#define JOURNAL "journal"

/* How long rollback waits for the host-wide lock of a journal's parent. */
#define ROLLBACK_LOCK_WAIT_MS 60000

static void note_rollback_error(struct mc_host *h, struct mc_txn_result *res, int err,
				const char *what, const struct mc_jrec *rec)
{
	const char *group = rec->path;

	if (res->rollback_err)
		return;
	res->rollback_err = err;
	if (rec->kind == MC_STEP_UNIT)
		mc_bus_error_copy(mc_host_bus_error(h), &res->rollback_bus);
	if (asprintf(&res->rollback_what, "%s of '%s'", what, group) < 0)
		res->rollback_what = NULL;
}

/*
 * Undoes records [0, upto) of j in reverse; counts what changed in
 * res->undone. strict: see mc_jrec_undo; what was left alone is counted in
 * res->left_alone, the first named in res->left_what.
 */
static void undo(struct mc_host *h, const struct mc_journal *j, size_t upto, bool strict,
		 struct mc_txn_result *res)
{
	for (size_t i = upto; i-- > 0;) {
		const char *what;
		int r = mc_jrec_undo(h, &j->v[i], strict, &what);

		if (r == -ESTALE) {
			if (!res->left_alone++ &&
			    asprintf(&res->left_what, "%s of '%s'", what, j->v[i].path) < 0)
				res->left_what = NULL;
		} else if (r < 0) {
			note_rollback_error(h, res, r, what, &j->v[i]);
		} else {
			res->undone += (size_t)r;
		}
	}
	res->rolled_back = res->rollback_err == 0;
}

/*
 * The apply's own rollback failed: say so in the journal, so that status
 * reports a failed apply rather than an interrupted one. Best effort: the
 * journal without the line still rolls back the same way.
 */
static void journal_mark_failed(struct mc_lock *l, struct mc_journal *j,
				const struct mc_txn_result *res)
{
	j->failure = mc_asprintf("could not undo %s: %s",
				 res->rollback_what ? res->rollback_what : "a change",
				 strerror(-res->rollback_err));
	if (j->failure)
		mc_state_journal_write(l, JOURNAL, j);
}

/* The plan index of the k-th changing step. */
static size_t plan_index(const struct mc_plan *plan, size_t k)
{
	for (size_t i = 0; i < plan->n; i++)
		if (mc_step_changes(&plan->steps[i]) && k-- == 0)
			return i;
	return plan->n;
}

int mc_txn_apply(struct mc_host *h, struct mc_lock *l, const struct mc_plan *plan,
		 struct mc_txn_result *res)
{
	struct mc_journal j;
	char **names;
	long deadline;
	size_t n;
	int r;

	memset(res, 0, sizeof(*res));
	if (mc_plan_n_changes(plan) == 0)
		return 0;
	if ((r = mc_state_journals(l, &names, &n)) < 0)
		return r;
	mc_state_names_free(names, n);
	if (n)
		return -EALREADY;
	if ((r = mc_journal_from_plan(plan, (long)getpid(), &j)) < 0)
		return r;
	/* a damaged record of created groups is refused before anything is written */
	if ((r = mc_state_created_check(l, &j)) < 0 || (r = mc_state_journal_write(l, JOURNAL, &j)) < 0) {
		mc_journal_free(&j);
		return r;
	}
	for (size_t k = 0; k < j.n; k++) {
		r = mc_jrec_do(h, &j.v[k], &res->readback);
		if (r < 0) {
			res->failed_step = plan_index(plan, k);
			res->failed_err = r;
			/* the undo's own calls would replace what the bus said */
			if (j.v[k].kind == MC_STEP_UNIT)
				mc_bus_error_copy(mc_host_bus_error(h), &res->failed_bus);
			/*
			 * A write that read back differently did change the file: undo it
			 * too. The undo writes are bounded each, not by the deadline
			 * that may have stopped the apply.
			 */
			deadline = mc_host_write_deadline(h);
			mc_host_set_write_deadline(h, 0);
			undo(h, &j, r == -EIO ? k + 1 : k, false, res);
			mc_host_set_write_deadline(h, deadline);
			res->record_err = mc_state_created_sync(l, h, &j, false);
			if (res->rolled_back)
				mc_state_journal_remove(l, JOURNAL);
			else
				journal_mark_failed(l, &j, res);
			mc_journal_free(&j);
			return r;
		}
		res->done++;
	}
	/* before the journal goes: a rollback after a crash here syncs it back */
	res->record_err = mc_state_created_sync(l, h, &j, true);
	mc_journal_free(&j);
	return mc_state_journal_remove(l, JOURNAL);
}

void mc_unit_ids_clear(struct mc_unit_ids *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->name[i]);
		free(c->id[i]);
	}
	free(c->name);
	free(c->id);
	memset(c, 0, sizeof(*c));
}

/* The Id c keeps for name, or NULL. */
static const char *unit_ids_find(const struct mc_unit_ids *c, const char *name)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (strcmp(c->name[i], name) == 0)
			return c->id[i];
	return NULL;
}

/*
 * Keeps name's Id in c. Without memory it is not kept, which costs only
 * asking systemd again next time.
 */
static void unit_ids_keep(struct mc_unit_ids *c, const char *name, const char *id)
{
	char *nc, *ic;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		char **vn = realloc(c->name, cap * sizeof(*vn)), **vi;

		if (!vn)
			return;
		c->name = vn;
		if (!(vi = realloc(c->id, cap * sizeof(*vi))))
			return;
		c->id = vi;
		c->cap = cap;
	}
	nc = strdup(name);
	ic = strdup(id);
	if (!nc || !ic) {
		free(nc);
		free(ic);
		return;
	}
	c->name[c->n] = nc;
	c->id[c->n++] = ic;
}

/* Unit name's Id into *ret (allocated): kept in c, else systemd's (kept), else name. */
static int unit_lock_id(struct mc_host *h, struct mc_unit_ids *c, const char *name, char **ret)
{
	const char *known = unit_ids_find(c, name);

	if (known)
		*ret = strdup(known);
	else if (mc_host_unit_id(h, name, ret) == 0) {
		if (c)
			unit_ids_keep(c, name, *ret);
	} else
		*ret = strdup(name);
	return *ret ? 0 : -ENOMEM;
}

int mc_txn_lock_units(struct mc_host *h, struct mc_lock *l, const char *const *units, size_t n,
		      long timeout_ms, struct mc_unit_ids *c, const char **ret_busy,
		      long *ret_holder)
{
	char **ids = calloc(n ? n : 1, sizeof(*ids));
	const char *busy = NULL;
	int r = ids ? 0 : -ENOMEM;

	*ret_busy = NULL;
	*ret_holder = 0;
	for (size_t i = 0; i < n && r == 0; i++)
		r = unit_lock_id(h, c, units[i], &ids[i]);
	if (r == 0)
		r = mc_lock_units(l, (const char *const *)ids, n, timeout_ms, &busy, ret_holder);
	for (size_t i = 0; i < n && busy; i++)
		if (ids[i] == busy)
			*ret_busy = units[i];
	for (size_t i = 0; ids && i < n; i++)
		free(ids[i]);
	free(ids);
	if (r < 0 && r != -EWOULDBLOCK)
		mc_unit_ids_clear(c);
	return r;
}

/*
 * The units journal j changes: a unit step names its unit, a file written
 * in a unit's cgroup lies in the directory named after the unit. Allocated
 * array of pointers into j (*ret_n of them).
 */
static int journal_units(const struct mc_journal *j, const char ***ret, size_t *ret_n)
{
	const char **v = calloc(j->n ? j->n : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < j->n; i++) {
		const char *p = j->v[i].path, *base = strrchr(p, '/');

		if (j->v[i].kind == MC_STEP_UNIT)
			v[n++] = p;
		else if (j->v[i].kind == MC_STEP_UNIT_FILE && base &&
			 mc_sd_is_unit_name(base + 1, strlen(base + 1)))
			v[n++] = base + 1;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The subtree and unit locks a rollback of j needs, waited for (bounded). */
static int lock_for_rollback(struct mc_host *h, struct mc_lock *l, const struct mc_journal *j,
			     struct mc_txn_result *res)
{
	const char **units = NULL, *busy;
	long holder;
	size_t n = 0;
	int r;

	r = mc_lock_subtree(l, h, j->parent, ROLLBACK_LOCK_WAIT_MS, &holder);
	if (r == 0 && (r = journal_units(j, &units, &n)) == 0)
		r = mc_txn_lock_units(h, l, units, n, ROLLBACK_LOCK_WAIT_MS, NULL, &busy, &holder);
	free(units);
	if (r < 0)
		res->lock_holder = holder;
	return r;
}

/* Replays one journal backwards. Returns 0 (journal removed) or -errno. */
static int rollback_one(struct mc_host *h, struct mc_lock *l, const char *name,
			struct mc_txn_result *res)
{
	struct mc_journal j;
	int r;

	r = mc_state_journal_read(l, name, &j, &res->bad_line);
	if (r < 0) {
		res->bad_journal = strdup(name);
		return r;
	}
	if (!j.complete) {
		/* It was being written when memctl died: no host write had started. */
		mc_journal_free(&j);
		return mc_state_journal_remove(l, name);
	}
	/* Another memctl (with another state dir) may be working on these groups or units. */
	r = lock_for_rollback(h, l, &j, res);
	if (r < 0) {
		mc_journal_free(&j);
		return r;
	}
	undo(h, &j, j.n, true, res);
	if (!res->record_err)
		res->record_err = mc_state_created_sync(l, h, &j, false);
	mc_journal_free(&j);
	if (res->rollback_err)
		return res->rollback_err;
	return mc_state_journal_remove(l, name);
}

int mc_txn_rollback(struct mc_host *h, struct mc_lock *l, bool *ret_found, size_t *ret_restored,
		    struct mc_txn_result *res)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	memset(res, 0, sizeof(*res));
	*ret_found = false;
	*ret_restored = 0;
	if ((r = mc_state_journals(l, &names, &n)) < 0)
		return r;
	/* The apply's journal and v1 reclaim slots touch different files: any order. */
	for (size_t i = 0; i < n && r == 0; i++) {
		*ret_found = true;
		r = rollback_one(h, l, names[i], res);
	}
	mc_state_names_free(names, n);
	*ret_restored = res->undone;
	res->rolled_back = r == 0;
	return r;
}

void mc_txn_result_release(struct mc_txn_result *res)
{
	free(res->rollback_what);
	free(res->bad_journal);
	free(res->left_what);
	mc_bus_error_release(&res->failed_bus);
	mc_bus_error_release(&res->rollback_bus);
	res->left_what = NULL;
	res->rollback_what = NULL;
	res->bad_journal = NULL;
}
