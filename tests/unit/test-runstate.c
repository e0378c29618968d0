#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc-read.h"
#include "runstate.h"
#include "size.h"
#include "tap.h"

/*
 * The state memctl run publishes (host/runstate.c): what is formatted
 * parses back to the same values, hostile texts are refused with the line
 * that is wrong, and the file reader refuses symlinks, FIFOs, files others
 * may write and oversized files. Also the host-pressure and /proc/PID/status
 * parsers of host/proc-read.c.
 */

static struct mc_runstate sample(void)
{
	struct mc_runstate s = { .pid = getpid(), .started = 1700000000.5, .period_ms = 1000,
				 .interval = 42, .time = 1700000042.25, .duration = 0.0125,
				 .reclaimed_bytes = 3ULL << 30, .reclaim_requests = 7,
				 .reclaim_failures = 1 };
	struct mc_run_decision w = { .kind = MC_RUN_WRITE, .group = "/a/web", .policy = "active-set",
				     .knob = "memory.limit_in_bytes", .old_valid = true,
				     .old = MC_SIZE_MAX, .value = 1ULL << 30,
				     .reason = "caps 'web'\tat 1G\nso\\that" };
	struct mc_run_decision c = { .kind = MC_RUN_RECLAIM, .group = "/a/batch",
				     .policy = "soft-limit", .value = 64 << 20, .got = 60 << 20,
				     .err = -EBUSY, .reason = "above its soft limit" };
	struct mc_run_decision st = { .kind = MC_RUN_SET, .group = "/a/web", .policy = "thp-high",
				      .knob = "high", .value = 510 << 20, .reason = "2M boundary" };

	s.profile = strdup("/etc/memctl/profile yaml");
	s.parent = strdup("/a");
	mc_runstate_observe(&s, 0.0125);
	mc_runstate_observe(&s, 9);
	mc_runstate_add_group(&s, "/a/web", true, 123456789, false, 0);
	mc_runstate_add_group(&s, "/a/batch", false, 0, true, 5ULL << 30);
	mc_runstate_add_decision(&s, &w);
	mc_runstate_add_decision(&s, &c);
	mc_runstate_add_decision(&s, &st);
	mc_runstate_add_note(&s, "a note");
	mc_runstate_add_error(&s, "cannot set memory.limit_in_bytes on '/a/web': busy");
	return s;
}

static void test_roundtrip(void)
{
	struct mc_runstate s = sample(), p;
	char *buf = NULL;
	size_t cap = 0, len = 0, line = 0, pos = 0;
	const struct mc_run_decision *d;
	int r;

	tap_eq_int(mc_runstate_format(&s, &buf, &cap, &len), 0, "format");
	r = mc_runstate_parse(buf, len, &p, &line);
	tap_eq_int(r, 0, "the formatted text parses (line %zu)", line);
	if (r < 0) {
		printf("%s", buf);
		return;
	}
	tap_eq_int(p.pid, s.pid, "pid");
	tap_eq_str(p.profile, s.profile, "profile with a blank");
	tap_eq_str(p.parent, "/a", "parent");
	tap_eq_u64(p.interval, 42, "interval");
	tap_check(p.duration > 0.0124 && p.duration < 0.0126, "duration %f", p.duration);
	tap_eq_u64(p.reclaimed_bytes, 3ULL << 30, "reclaimed bytes");
	tap_eq_u64(p.reclaim_failures, 1, "reclaim failures");
	tap_eq_u64(p.hist_count, 2, "histogram count");
	tap_eq_u64(p.hist[4], 1, "12.5 ms in the 25 ms bucket");
	tap_eq_u64(p.hist[MC_RUN_HIST_N - 1], 1, "9 s in +Inf");
	tap_eq_u64(p.n_groups, 2, "groups");
	tap_eq_u64(mc_runstate_group(&p, "/a/web")->ws, 123456789, "working set");
	tap_eq_u64(mc_runstate_group(&p, "/a/batch")->cap, 5ULL << 30, "cap");
	d = mc_runstate_next(&p, "/a/web", &pos);
	tap_check(d && d->kind == MC_RUN_WRITE, "first decision of web is the write");
	if (d) {
		tap_eq_str(d->reason, "caps 'web'\tat 1G\nso\\that", "reason with tab, newline, backslash");
		tap_eq_u64(d->old, MC_SIZE_MAX, "old max");
		tap_eq_u64(d->value, 1ULL << 30, "new 1G");
	}
	d = mc_runstate_next(&p, "/a/web", &pos);
	tap_check(d && d->kind == MC_RUN_SET && strcmp(d->knob, "high") == 0, "then the setting");
	tap_check(!mc_runstate_next(&p, "/a/web", &pos), "and nothing more");
	pos = 0;
	d = mc_runstate_next(&p, "/a/batch", &pos);
	tap_check(d && d->kind == MC_RUN_RECLAIM && d->got == 60 << 20 && d->err == -EBUSY,
		  "reclaim asked and obtained, with its error");
	tap_eq_u64(p.n_errors, 1, "error kept");
	tap_eq_int(mc_runstate_owner(&p, 1, "/a/web/x"), 0, "a group below the parent is managed");
	tap_eq_int(mc_runstate_owner(&p, 1, "/ab"), -1, "/ab is not below /a");
	mc_runstate_release(&p);
	mc_runstate_release(&s);
	free(buf);
}

static const struct {
	const char *text;
	size_t line;
	const char *what;
} bad[] = {
	{ "", 1, "empty" },
	{ "memctl-run-state\t2\nend\n", 1, "another version" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\n", 4, "no end" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nend", 4, "last line without newline" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nend\ngroup\t/x\t-\t-\n", 5, "text after end" },
	{ "memctl-run-state\t1\npid\t-1\nparent\t/\nend\n", 2, "negative pid" },
	{ "memctl-run-state\t1\npid\t1\nparent\trelative\nend\n", 3, "relative parent" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/a/../b\nend\n", 3, "parent with .." },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\ngroup\t/x\t12x\t-\nend\n", 4, "bad size" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\ngroup\t/x\t99999999999999999999\t-\nend\n", 4,
	  "size past 64 bits" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\ngroup\t/x\t-\nend\n", 4, "missing field" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nset\t/x\tp\tlow\t1\tr\textra\nend\n", 4,
	  "extra field" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nset\t/x\tp\tLOW;rm\t1\tr\nend\n", 4,
	  "knob with odd characters" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nnote\tbad\\qescape\nend\n", 4, "bad escape" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nnote\tbell\a\nend\n", 4, "control byte" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nduration_hist\t1\t0.5\t0\t0\t0\t0\t0\t0\t0\t0"
	  "\t0\t0\t0\t0\nend\n", 4, "histogram that does not sum to its count" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nreclaim\t/x\tp\t1\t1\t99999\tr\nend\n", 4,
	  "errno out of range" },
	{ "memctl-run-state\t1\nparent\t/\nend\n", 4, "no pid" },
	/* fuzz/runstate: a start time of 32 digits printed as 36 characters, which the reader refused */
	{ "memctl-run-state\t1\npid\t1\nparent\t/\nstarted\t99999999999999999999999999999999\nend\n",
	  4, "start time past 1e11 s" },
	{ "memctl-run-state\t1\npid\t1\nparent\t/\ninterval\t1\t1\t100000000000.5\t0\nend\n", 4,
	  "duration past 1e11 s" },
};

static void test_hostile(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mc_runstate s;
		size_t line = 0;
		int r = mc_runstate_parse(bad[i].text, strlen(bad[i].text), &s, &line);

		tap_eq_int(r, -EINVAL, "refused: %s", bad[i].what);
		tap_eq_u64(line, bad[i].line, "  at line %zu", bad[i].line);
		if (r == 0)
			mc_runstate_release(&s);
	}
	{
		const char t[] = "memctl-run-state\t1\npid\t1\nparent\t/\nfuture\tx\ty\nend\n";
		struct mc_runstate s;
		size_t line;

		tap_eq_int(mc_runstate_parse(t, sizeof(t) - 1, &s, &line), 0,
			   "an unknown record (a newer memctl's) is skipped");
		mc_runstate_release(&s);
	}
}

static char dir[] = "/tmp/memctl-test-runstate.XXXXXX";

static int put(const char *name, const char *text, mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd < 0 || write(fd, text, strlen(text)) < 0 || fchmod(fd, mode) < 0) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return close(fd);
}

/*
 * Publishing, reading, listing and removing published state in a scratch
 * state directory, and the files others may have left there. It is long
 * because it is one story in that directory, step after step.
 */
static void test_files(void)
{
	struct mc_runstate s = sample(), *v = NULL, p;
	char *buf = NULL, name[64], path[256], link_target[256];
	size_t cap = 0, n = 0, refused = 0, line = 0;
	const char *problem = NULL;
	uint64_t sig1 = 0, sig2 = 0;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	tap_eq_int(mc_runstate_publish(dir, &s, &buf, &cap), 0, "publish");
	snprintf(name, sizeof(name), "run.%ld.state", (long)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	{
		struct stat st;

		tap_check(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
			  "published as %s, mode 0644", name);
	}
	tap_eq_int(mc_runstate_read(dir, name, &p, &line), 0, "read back");
	mc_runstate_release(&p);
	mc_runstate_dir_sig(dir, &sig1);
	tap_eq_int(mc_runstate_list(dir, &v, &n, &refused, &problem), 0, "list");
	tap_eq_u64(n, 1, "our own daemon is listed");
	for (size_t i = 0; i < n; i++)
		mc_runstate_release(&v[i]);
	free(v);
	/* a state file of a process that does not exist is ignored */
	put("run.1073741823.state", "memctl-run-state\t1\npid\t1073741823\nparent\t/\nend\n", 0644);
	tap_eq_int(mc_runstate_list(dir, &v, &n, &refused, &problem), 0, "list with a dead one");
	tap_eq_u64(n, 1, "a dead daemon's file is ignored");
	for (size_t i = 0; i < n; i++)
		mc_runstate_release(&v[i]);
	free(v);
	s.interval++;
	tap_eq_int(mc_runstate_publish(dir, &s, &buf, &cap), 0, "publish again");
	mc_runstate_dir_sig(dir, &sig2);
	tap_check(sig1 != sig2, "the signature changes with the file");
	/* hostile files */
	put("x.state", "memctl-run-state\t1\n", 0666);
	tap_eq_int(mc_runstate_read(dir, "x.state", &p, &line), -EPERM,
		   "a file others may write is refused");
	snprintf(link_target, sizeof(link_target), "%s/x.state", dir);
	snprintf(path, sizeof(path), "%s/l.state", dir);
	tap_check(symlink(link_target, path) == 0, "symlink made");
	tap_eq_int(mc_runstate_read(dir, "l.state", &p, &line), -ELOOP, "a symlink is refused");
	snprintf(path, sizeof(path), "%s/f.state", dir);
	tap_check(mkfifo(path, 0644) == 0, "fifo made");
	tap_eq_int(mc_runstate_read(dir, "f.state", &p, &line), -EINVAL,
		   "a FIFO is refused without blocking");
	snprintf(path, sizeof(path), "%s/big.state", dir);
	{
		int fd = open(path, O_WRONLY | O_CREAT, 0644);

		tap_check(fd >= 0 && ftruncate(fd, MC_RUNSTATE_MAX_BYTES + 1) == 0, "big file made");
		if (fd >= 0)
			close(fd);
	}
	tap_eq_int(mc_runstate_read(dir, "big.state", &p, &line), -EFBIG, "a file too big is refused");
	tap_eq_int(mc_runstate_read(dir, "../etc", &p, &line), -EINVAL, "a name with a slash is refused");
	{
		char hl[300];

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		snprintf(hl, sizeof(hl), "%s/h.state", dir);
		tap_check(link(path, hl) == 0, "hard link made");
		tap_eq_int(mc_runstate_read(dir, "h.state", &p, &line), -EPERM,
			   "a file with two links is refused");
		unlink(hl);
	}
	tap_check(chmod(dir, 0777) == 0, "state directory made writable by others");
	tap_eq_int(mc_runstate_read(dir, name, &p, &line), -EPERM,
		   "a state directory others may write is refused");
	chmod(dir, 0700);
	tap_eq_int(mc_runstate_unpublish(dir, getpid()), 0, "unpublish");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	tap_check(access(path, F_OK) < 0, "the file is gone");
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		tap_check(system(cmd) == 0, "cleanup");
	}
	mc_runstate_release(&s);
	free(buf);
}

/* Whether the watched signature of d is the listed one; sets *ret to it. */
static bool watched_is_listed(struct mc_runstate_watch *w, const char *d, uint64_t *ret)
{
	uint64_t plain = 1, watched = 2;

	mc_runstate_dir_sig(d, &plain);
	mc_runstate_dir_sig_watched(w, d, &watched);
	*ret = watched;
	return plain == watched;
}

/* A state file in d (its path in path) of a process that has ended. */
static bool dead_pid_file(const char *d, char *path, size_t len)
{
	pid_t child = fork();
	FILE *f;
	int st;

	if (child == 0)
		_exit(0);
	if (child < 0 || waitpid(child, &st, 0) != child)
		return false;
	snprintf(path, len, "%s/run.%ld.state", d, (long)child);
	f = fopen(path, "w");
	return f && fputs("memctl-run-state\t1\n", f) >= 0 && fclose(f) == 0;
}

/*
 * The watched signature of a state directory is the listed one through
 * everything that happens to it: made, a daemon publishing (again), a
 * file of a process that is gone, removed, replaced, moved away; and with
 * nothing changed it lists nothing.
 */
static void test_watch(void)
{
	struct mc_runstate s = sample();
	struct mc_runstate_watch w;
	char top[] = "/tmp/memctl-test-watch.XXXXXX", sd[64], moved[80], path[128], *buf = NULL;
	size_t cap = 0;
	uint64_t sig = 0, before;
	unsigned long listings;

	if (!mkdtemp(top)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(sd, sizeof(sd), "%s/state", top);
	snprintf(moved, sizeof(moved), "%s/moved", top);
	mc_runstate_watch_init(&w, true);
	tap_check(watched_is_listed(&w, sd, &sig) && sig == 0, "no directory: no state");
	tap_check(mkdir(sd, 0700) == 0, "state directory made");
	tap_check(watched_is_listed(&w, sd, &sig) && sig == 0, "an empty directory: no state");
	tap_eq_int(mc_runstate_publish(sd, &s, &buf, &cap), 0, "a daemon publishes");
	tap_check(watched_is_listed(&w, sd, &sig) && sig != 0, "its file is seen");
	before = sig;
	listings = w.listings;
	for (int i = 0; i < 3; i++)
		mc_runstate_dir_sig_watched(&w, sd, &sig);
	tap_check(sig == before && w.listings == listings,
		  "nothing changed: the same signature, no listing (%lu listings)", w.listings - listings);
	s.interval++;
	s.time += 1;
	tap_eq_int(mc_runstate_publish(sd, &s, &buf, &cap), 0, "it publishes again");
	tap_check(watched_is_listed(&w, sd, &sig) && sig != before, "the new file is seen");
	tap_check(dead_pid_file(sd, path, sizeof(path)), "the file of a process that is gone");
	before = sig;
	tap_check(watched_is_listed(&w, sd, &sig) && sig != before, "that file is seen too");
	unlink(path);
	tap_eq_int(mc_runstate_unpublish(sd, getpid()), 0, "the daemon unpublishes");
	tap_check(watched_is_listed(&w, sd, &sig) && sig == 0, "no state left");
	tap_check(rmdir(sd) == 0 && mkdir(sd, 0700) == 0, "directory removed and made again");
	tap_eq_int(mc_runstate_publish(sd, &s, &buf, &cap), 0, "published in the new one");
	tap_check(watched_is_listed(&w, sd, &sig) && sig != 0, "the new directory's file is seen");
	tap_check(rename(sd, moved) == 0 && mkdir(sd, 0700) == 0, "directory moved away, another made");
	tap_check(watched_is_listed(&w, sd, &sig) && sig == 0, "the other one is empty");
	tap_eq_int(mc_runstate_publish(moved, &s, &buf, &cap), 0, "a file in the one moved away");
	tap_check(watched_is_listed(&w, sd, &sig) && sig == 0, "not seen under the old name");
	mc_runstate_watch_release(&w);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		tap_check(system(cmd) == 0, "cleanup");
	}
	mc_runstate_release(&s);
	free(buf);
}

static void test_proc(void)
{
	uint64_t rss = 0, swap = 0;
	struct mc_psi p;
	char path[] = "/tmp/memctl-test-psi.XXXXXX";
	int fd = mkstemp(path);
	const char psi[] = "some avg10=1.50 avg60=0.75 avg300=0.25 total=123\n"
			   "full avg10=0.50 avg60=0.25 avg300=0.05 total=45\n";

	tap_eq_int(mc_parse_proc_status("Name:\tx\nVmRSS:\t  1024 kB\nVmSwap:\t 8 kB\n", &rss, &swap),
		   0, "status parsed");
	tap_eq_u64(rss, 1 << 20, "VmRSS in bytes");
	tap_eq_u64(swap, 8 << 10, "VmSwap in bytes");
	tap_eq_int(mc_parse_proc_status("Name:\tkthreadd\n", &rss, &swap), -ENOENT,
		   "a kernel thread has no VmRSS");
	tap_check(fd >= 0 && write(fd, psi, sizeof(psi) - 1) == (ssize_t)sizeof(psi) - 1, "psi file");
	close(fd);
	tap_eq_int(mc_host_pressure(path, &p), 0, "host pressure read");
	tap_check(p.some_avg10 == 1.5 && p.full_avg300 == 0.05 && p.some_total == 123,
		  "host pressure values");
	unlink(path);
	tap_eq_int(mc_host_pressure(path, &p), -ENOENT, "no file: -ENOENT");
}

int main(void)
{
	test_roundtrip();
	test_hostile();
	test_files();
	test_watch();
	test_proc();
	return tap_done();
}
