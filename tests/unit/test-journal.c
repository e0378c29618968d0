#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "state.h"
#include "tap.h"

/*
 * The journal parser against well-formed and hostile journals, the round
 * trip of what apply writes, and the state directory's refusals (symlink,
 * group-writable, FIFO, hard link) without root: a journal is input that
 * someone else may have shaped, and rollback acts on it as root.
 */

#define HDR "memctl-journal 2\npid 42\nparent /p\n"

static int parse(const char *text, struct mc_journal *j, unsigned *line)
{
	*line = 0;
	return mc_journal_parse(text, strlen(text), j, line);
}

static void test_good(void)
{
	struct mc_journal j;
	unsigned line;
	int r;

	r = parse(HDR "mkdir /p/web\nenable memory /p/web\n"
		      "write max - 268435456 /p/web\nwrite soft_limit max 1048576 /p/a b\n"
		      "sysctl vm.max_reclaimers_per_node 0 4\nend\n", &j, &line);
	tap_eq_int(r, 0, "a journal apply writes parses");
	if (r < 0)
		return;
	tap_eq_int(j.pid, 42, "pid");
	tap_eq_str(j.parent, "/p", "parent");
	tap_eq_int((long long)j.n, 5, "five records");
	tap_check(j.complete, "complete");
	tap_eq_int(j.v[0].kind, MC_STEP_MKDIR, "mkdir record");
	tap_check(j.v[2].kind == MC_STEP_WRITE && !j.v[2].old_valid && j.v[2].new_raw == 268435456,
		  "write of a new group's file");
	tap_check(j.v[3].old_valid && j.v[3].old_raw == UINT64_MAX, "old value max");
	tap_eq_str(j.v[3].path, "/p/a b", "a path with a space");
	tap_eq_str(j.v[4].path, "vm.max_reclaimers_per_node", "sysctl name");
	mc_journal_free(&j);

	r = parse(HDR "write max 1 2 /p/x\nend\nfailed could not undo max of '/p/x': busy\n", &j,
		  &line);
	tap_eq_int(r, 0, "a failed apply's journal parses");
	if (r == 0) {
		tap_eq_str(j.failure, "could not undo max of '/p/x': busy", "failure text");
		mc_journal_free(&j);
	}
	r = parse(HDR "mkdir /p/x\n", &j, &line);
	tap_check(r == 0 && !j.complete, "a journal without end is incomplete, not damaged");
	if (r == 0)
		mc_journal_free(&j);
	r = parse("memctl-journal 2\npid 1\nparent /\nwrite max 1 2 /anything\nend\n", &j, &line);
	tap_eq_int(r, 0, "parent / holds every group");
	if (r == 0)
		mc_journal_free(&j);
}

/* Journals a hostile or damaged state directory could hold: all refused. */
static const struct {
	const char *text;
	unsigned line;
	const char *what;
} bad[] = {
	{ "", 1, "empty" },
	{ "memctl-journal 1\npid 1\nmkdir /p/x\nend\n", 1, "version 1: no parent, refused" },
	{ HDR "write max 1 2 /p/../../etc\nend\n", 4, "'..' in a path" },
	{ HDR "write max 1 2 /p/./x\nend\n", 4, "'.' in a path" },
	{ HDR "write max 1 2 /other/x\nend\n", 4, "a group outside the parent" },
	{ HDR "write max 1 2 /px\nend\n", 4, "a sibling whose name starts like the parent" },
	{ HDR "mkdir /p\nend\n", 4, "mkdir of the parent itself (rollback would remove it)" },
	{ HDR "enable memory /p\nend\n", 4, "enable on the parent itself" },
	{ HDR "write max 1 2 p/x\nend\n", 4, "a relative path" },
	{ HDR "write max 1 2 /p//x\nend\n", 4, "an empty component" },
	{ HDR "write max 1 2 /p/x/\nend\n", 4, "a trailing slash" },
	{ "memctl-journal 2\npid 1\nmkdir /p/x\nparent /p\nend\n", 3, "a record before the parent" },
	{ "memctl-journal 2\npid 1\nparent /p/../x\nend\n", 3, "a parent with '..'" },
	{ HDR "parent /q\nend\n", 4, "two parents" },
	{ HDR "write nosuch 1 2 /p/x\nend\n", 4, "an unknown knob" },
	{ HDR "write memory.max 1 2 /p/x\nend\n", 4, "a file name instead of the knob name" },
	{ HDR "write max 18446744073709551616 2 /p/x\nend\n", 4, "a value over 64 bits" },
	{ HDR "write max -1 2 /p/x\nend\n", 4, "a negative value" },
	{ HDR "write max 1 2\nend\n", 4, "no path" },
	{ HDR "sysctl ../../sys/kernel/x 1 2\nend\n", 4, "a sysctl name with a path" },
	{ HDR "sysctl vm.x 1 9223372036854775808\nend\n", 4, "a sysctl value over LONG_MAX" },
	{ HDR "sysctl vm.x 1 2 3\nend\n", 4, "trailing words after a sysctl" },
	{ HDR "rm -rf /\nend\n", 4, "an unknown record" },
	{ HDR "unit MemoryMax 1 2 ../../x.service\nend\n", 4, "a unit name with a path" },
	{ HDR "unit MemoryMax 1 2 backup\nend\n", 4, "a unit name without a unit type" },
	{ HDR "unit MemoryMax 1 2 a.target\nend\n", 4, "a unit type without a cgroup" },
	{ HDR "unit MemoryMax 1 2 -.slice\nend\n", 4, "the root slice" },
	{ HDR "unit CPUQuota 1 2 a.service\nend\n", 4, "a property memctl does not set" },
	{ HDR "unit max 1 2 a.service\nend\n", 4, "a knob name instead of the property" },
	{ HDR "unit MemoryMax - 2 a.service\nend\n", 4, "a unit record without its old value" },
	{ HDR "unit MemoryMax 1 2 a.service b\nend\n", 4, "a unit name with a space" },
	{ HDR "unitfile max 1 2 /system.slice/a.service\nend\n", 4,
	  "a unit's file systemd manages (max goes through systemd)" },
	{ HDR "unitfile soft_limit 1 2 /etc/passwd\nend\n", 4, "a unit file outside any unit" },
	{ HDR "unitfile soft_limit 1 2 /x/../a.service\nend\n", 4, "'..' in a unit's cgroup" },
	{ HDR "unitfile soft_limit - 2 /a.service\nend\n", 4, "a unit file without its old value" },
	{ HDR "end\nmkdir /p/x\n", 5, "a record after end" },
	{ HDR "end\nfailed a\nfailed b\n", 6, "two failed lines" },
	{ HDR "end", 4, "a last line without its newline" },
	{ "memctl-journal 2\npid 0\nparent /p\nend\n", 2, "pid 0" },
	{ "memctl-journal 2\npid 1\npid 2\nparent /p\nend\n", 3, "two pids" },
	{ "memctl-journal 2\npid 1\nend\n", 3, "end without a parent" },
	{ "memctl-journal 2\nparent /p\nend\n", 3, "end without a pid" },
	{ HDR "rmdir /p/x\nend\n", 4, "rmdir without its created word and knobs" },
	{ HDR "rmdir yes - /p/x\nend\n", 4, "rmdir with a created word that is neither" },
	{ HDR "rmdir - max=1,max=2 /p/x\nend\n", 4, "rmdir saving a knob twice" },
	{ HDR "rmdir - max=1, /p/x\nend\n", 4, "rmdir with a trailing comma" },
	{ HDR "rmdir - memory.max=1 /p/x\nend\n", 4, "rmdir saving a file name" },
	{ HDR "rmdir - max= /p/x\nend\n", 4, "rmdir saving no value" },
	{ HDR "rmdir - - /p\nend\n", 4, "rmdir of the parent itself" },
	{ HDR "rmdir created - /q/x\nend\n", 4, "rmdir outside the parent" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mc_journal j = { 0 };
		unsigned line;
		int r = parse(bad[i].text, &j, &line);

		tap_eq_int(r, -EBADMSG, "refused: %s", bad[i].what);
		tap_eq_int(line, bad[i].line, "  at line %u", bad[i].line);
		if (r == 0)
			mc_journal_free(&j);
	}
	{
		static const char nul[] = HDR "mkdir /p/x\0y\nend\n";
		struct mc_journal j;
		unsigned line = 0;

		tap_eq_int(mc_journal_parse(nul, sizeof(nul) - 1, &j, &line), -EBADMSG,
			   "refused: a NUL byte");
	}
}

/* What apply writes reads back as the same records. */
static void test_round_trip(void)
{
	struct mc_step steps[] = {
		{ .kind = MC_STEP_MKDIR, .group = (char *)"web" },
		{ .kind = MC_STEP_NOTE, .group = (char *)"web", .knob = MC_KNOB_HIGH },
		{ .kind = MC_STEP_WRITE, .group = (char *)"web", .knob = MC_KNOB_MAX,
		  .file = "memory.max", .new_raw = 1 << 20 },
		{ .kind = MC_STEP_WRITE, .group = (char *)"db", .knob = MC_KNOB_SWAP,
		  .file = "memory.swap.max", .old_valid = true, .old_raw = UINT64_MAX, .new_raw = 0 },
		{ .kind = MC_STEP_SYSCTL, .group = (char *)"", .file = "vm.max_reclaimers_per_node",
		  .old_valid = true, .old_raw = 0, .new_raw = 2 },
		{ .kind = MC_STEP_UNIT, .group = (char *)"backup.service", .knob = MC_KNOB_MAX,
		  .file = "MemoryMax", .old_valid = true, .old_raw = UINT64_MAX, .new_raw = 2u << 30 },
		{ .kind = MC_STEP_UNIT, .group = (char *)"db@main.service", .knob = MC_KNOB_LOW,
		  .file = "MemoryLow", .old_valid = true, .old_raw = 4096, .new_raw = 0 },
		{ .kind = MC_STEP_UNIT_FILE, .group = (char *)"backup.service", .knob = MC_KNOB_SOFT,
		  .file = "memory.soft_limit", .old_valid = true, .old_raw = UINT64_MAX, .new_raw = 0,
		  .cgroup = (char *)"/system.slice/backup.service" },
		{ .kind = MC_STEP_RMDIR, .group = (char *)"old one", .created = true,
		  .saved_mask = 1u << MC_KNOB_MAX | 1u << MC_KNOB_SOFT,
		  .saved_raw = { [MC_KNOB_MAX] = 1 << 25, [MC_KNOB_SOFT] = UINT64_MAX } },
		{ .kind = MC_STEP_RMDIR, .group = (char *)"bare" },
	};
	struct mc_plan plan = { .parent = (char *)"/a/b", .steps = steps, .n = 10 };
	struct mc_journal j, back;
	char *text;
	size_t len;
	unsigned line;
	int r;

	r = mc_journal_from_plan(&plan, 7, &j);
	tap_eq_int(r, 0, "journal from a plan");
	if (r < 0)
		return;
	tap_eq_int((long long)j.n, 9, "the note is not journaled");
	tap_eq_int(mc_journal_format(&j, &text, &len), 0, "format");
	r = mc_journal_parse(text, len, &back, &line);
	tap_eq_int(r, 0, "what apply writes parses back");
	if (r == 0) {
		tap_eq_int((long long)back.n, 9, "same records");
		for (size_t i = 0; i < back.n && i < j.n; i++)
			tap_check(back.v[i].kind == j.v[i].kind && back.v[i].knob == j.v[i].knob &&
				  back.v[i].old_valid == j.v[i].old_valid &&
				  back.v[i].old_raw == j.v[i].old_raw &&
				  back.v[i].new_raw == j.v[i].new_raw &&
				  back.v[i].created == j.v[i].created &&
				  back.v[i].saved_mask == j.v[i].saved_mask &&
				  memcmp(back.v[i].saved_raw, j.v[i].saved_raw,
					 sizeof(j.v[i].saved_raw)) == 0 &&
				  strcmp(back.v[i].path, j.v[i].path) == 0, "record %zu round-trips", i);
		tap_check(strstr(text, "rmdir created max=33554432,soft_limit=max /a/b/old one\n") &&
			  strstr(text, "rmdir - - /a/b/bare\n"), "rmdir lines: %s", text);
		tap_eq_str(back.v[0].path, "/a/b/web", "groups are absolute, below the parent");
		tap_eq_str(back.v[4].path, "backup.service", "a unit is named, not joined to the parent");
		tap_eq_str(back.v[6].path, "/system.slice/backup.service",
			   "a unit's file is in the unit's cgroup, outside the parent");
		tap_check(strstr(text, "\nunit MemoryMax max 2147483648 backup.service\n") != NULL,
			  "the unit's line names the property, old and new value and the unit");
		mc_journal_free(&back);
	}
	free(text);
	mc_journal_free(&j);
}

static char dir[] = "/tmp/memctl-test-journal.XXXXXX";

static int rm_entry(const char *path, const struct stat *s, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* dir/rel, in one of four buffers, so that two may be passed at once. */
static char *at(const char *rel)
{
	static char buf[4][256];
	static unsigned next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, rel);
	return b;
}

/* Takes the lock in state (relative to dir); returns the error, why in *why. */
static int take(const char *state, char **why)
{
	struct mc_lock_info info;
	struct mc_lock *l;
	int r = mc_lock_take(at(state), false, &l, &info);

	if (r == 0)
		mc_lock_release(l);
	*why = info.why;
	return r;
}

static void expect_refused(const char *state, const char *want, const char *what)
{
	char *why = NULL;
	int r = take(state, &why);

	tap_eq_int(r, -EPERM, "refused: %s", what);
	tap_check(why && strstr(why, want), "  says '%s' (%s)", want, why ? why : "nothing");
	free(why);
}

static void test_state_dir(void)
{
	char *why = NULL;
	struct stat st;
	int fd;

	if (!mkdtemp(dir)) {
		tap_check(false, "mkdtemp");
		return;
	}
	tap_eq_int(take("s", &why), 0, "a new state dir is created and locked");
	free(why);
	tap_check(stat(at("s"), &st) == 0 && (st.st_mode & 07777) == 0700, "created 0700");
	tap_check(stat(at("s/lock"), &st) == 0 && st.st_size == 0,
		  "nothing is written into the lock file");

	tap_check(symlink(at("s"), at("link")) == 0, "symlink to a good state dir");
	expect_refused("link", "symbolic link", "a symlinked state dir");

	mkdir(at("gw"), 0770);
	chmod(at("gw"), 0770);
	expect_refused("gw", "writable by group or others", "a group-writable state dir");

	mkdir(at("fifo"), 0700);
	mkfifo(at("fifo/journal"), 0600);
	expect_refused("fifo", "FIFO", "a FIFO named journal (and no blocking on it)");

	mkdir(at("fifo2"), 0700);
	mkfifo(at("fifo2/reclaim.3"), 0600);
	expect_refused("fifo2", "FIFO", "a FIFO named reclaim.3");

	mkdir(at("hard"), 0700);
	fd = open(at("victim"), O_WRONLY | O_CREAT, 0600);
	if (fd >= 0) {
		tap_check(write(fd, "precious\n", 9) == 9, "a file outside");
		close(fd);
	}
	tap_check(link(at("victim"), at("hard/lock")) == 0, "hard link as the lock");
	expect_refused("hard", "more than one hard link", "a hard-linked lock");
	tap_check(stat(at("victim"), &st) == 0 && st.st_size == 9, "its target is untouched");

	mkdir(at("ww"), 0700);
	fd = open(at("ww/journal"), O_WRONLY | O_CREAT, 0666);
	if (fd >= 0)
		close(fd);
	chmod(at("ww/journal"), 0666);
	expect_refused("ww", "writable by group or others", "a world-writable journal");

	mkdir(at("sl"), 0700);
	tap_check(symlink(at("victim"), at("sl/journal.tmp")) == 0, "symlink as journal.tmp");
	expect_refused("sl", "symbolic link", "a symlink in the state dir");

	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	test_good();
	test_bad();
	test_round_trip();
	test_state_dir();
	return tap_done();
}
