/*
 * Snapshot cost: reads the live subtree below one cgroup several ways, the
 * ways interleaved round by round so that a noisy neighbour slows them all
 * alike, and prints one TSV row per way (see usage()). A measuring
 * instrument for bench/snapshot.sh, not a test: it asserts nothing about
 * time.
 *
 * The ways:
 *   floor      pread at offset 0 of every file memctl's snapshot reads,
 *              on descriptors opened once beforehand: the kernel's cost of
 *              generating the files, and nothing else (no readdir, no
 *              parsing, no allocation). When the descriptor limit cannot hold
 *              every file, on the first groups' files only (its row says how
 *              many groups: compare per group)
 *   floor-stat the floor of memory.stat alone (what lcg-stats reads)
 *   floor-limit every file of every group within the descriptors memctl
 *              may keep (mc_host_fd_budget): that many files on descriptors
 *              opened beforehand, the others opened relative to their
 *              group's directory, read and closed, as memctl must past its
 *              budget: the least any reader can do under this process's
 *              RLIMIT_NOFILE (the same as floor when everything fits)
 *   memctl     mc_host_snapshot + mc_snapshot_free on one host handle (its
 *              descriptors kept open between rounds, as in `memctl top`/`run`)
 *   memctl-1st the first mc_host_snapshot of a fresh handle (opens everything);
 *              one sample per round, each on a new handle
 *   openread   open + read + close of the same files, path by path
 *   lcg-walk   libcgroup: cgroup_walk_tree_* alone, listing the groups
 *   lcg-stats  libcgroup: the same walk, then
 *              cgroup_read_stats_* on each (memory.stat only)
 *   lcg-get    libcgroup: the same walk, then cgroup_new_cgroup +
 *              cgroup_get_cgroup on each (every file of every controller
 *              the group is in)
 *
 * Per way, per round, wall time and this thread's CPU time are measured;
 * the row gives the medians. Ways given together share the descriptor
 * limit (memctl's handle keeps up to half of it open), so a tree of
 * thousands of groups is best measured one way per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libcgroup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench-util.h"
#include "host-internal.h" /* host_slot_file: the floor reads exactly the snapshot's files */
#include "host.h"

enum way { FLOOR, FLOOR_STAT, FLOOR_LIMIT, MEMCTL, MEMCTL_FIRST, OPENREAD, LCG_WALK, LCG_STATS,
	   LCG_GET, WAY__COUNT };
static const char *const way_name[WAY__COUNT] = { "floor", "floor-stat", "floor-limit", "memctl",
						  "memctl-1st", "openread", "lcg-walk",
						  "lcg-stats", "lcg-get" };

static void usage(void)
{
	fprintf(stderr,
		"usage: bench-snapshot [--rounds N] [--nofile N] [--ways LIST] CGROUP\n"
		"  CGROUP: absolute path in the memory hierarchy; the subtree below it is read\n"
		"  --ways: comma-separated, from floor,floor-stat,floor-limit,memctl,memctl-1st,openread,\n"
		"          lcg-walk,lcg-stats,lcg-get\n"
		"  --nofile N: set RLIMIT_NOFILE (soft and hard) to N first; default: soft = hard\n"
		"output: way groups files rounds wall_us cpu_us memctl_fds (TSV: medians per round;\n"
		"memctl_fds: descriptors the memctl handle keeps open between snapshots)\n");
	exit(2);
}

/* The files of every group of a snapshot, as paths below the mount. */
struct files {
	char **path;
	char **dir;         /* [g]: group g's directory */
	const char **name;  /* [i]: file i's name in its directory */
	int *fd;
	size_t n;
	size_t n_groups;
	size_t *first;      /* [g]: index of group g's first file; [n_groups] = n */
	size_t *stat;       /* [g]: index of group g's memory.stat */
	size_t n_open;      /* the floor's: files of the first n_open_groups groups */
	size_t n_open_groups;
};

static void files_collect(struct mc_host *h, const struct mc_snapshot *s, const char *mount,
			  struct files *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->path = calloc(s->n * HOST_FILE__COUNT, sizeof(char *));
	ret->name = calloc(s->n * HOST_FILE__COUNT, sizeof(char *));
	ret->dir = calloc(s->n, sizeof(char *));
	ret->fd = calloc(s->n * HOST_FILE__COUNT, sizeof(int));
	ret->first = calloc(s->n + 1, sizeof(size_t));
	ret->stat = calloc(s->n, sizeof(size_t));
	if (!ret->path || !ret->name || !ret->dir || !ret->fd || !ret->first || !ret->stat)
		bench_die("calloc", ENOMEM);
	for (size_t i = 0; i < s->n; i++) {
		ret->first[i] = ret->n;
		if (asprintf(&ret->dir[i], "%s%s%s%s", mount, s->parent, *s->groups[i].path ? "/" : "",
			     s->groups[i].path) < 0)
			bench_die("asprintf", ENOMEM);
		for (int f = 0; f < HOST_FILE__COUNT; f++) {
			const char *name = host_slot_file(h, f);
			char *p;

			if (!name)
				continue;
			if (asprintf(&p, "%s%s%s%s/%s", mount, s->parent, *s->groups[i].path ? "/" : "",
				     s->groups[i].path, name) < 0)
				bench_die("asprintf", ENOMEM);
			if (access(p, R_OK) != 0) { /* v1's root has no limit files, say */
				free(p);
				continue;
			}
			if (f == HOST_FILE_STAT)
				ret->stat[i] = ret->n;
			ret->name[ret->n] = name;
			ret->path[ret->n++] = p;
		}
	}
	ret->n_groups = s->n;
	ret->first[s->n] = ret->n;
}

/*
 * Opens the files of as many whole groups as fit in room descriptors: the
 * floor of a tree too large for one process's descriptors is measured on
 * its first groups (and compared per group).
 */
static void files_open(struct files *fs, size_t room)
{
	size_t g;

	for (g = 0; g < fs->n_groups && fs->first[g + 1] <= room; g++) {
		for (size_t i = fs->first[g]; i < fs->first[g + 1]; i++) {
			fs->fd[i] = open(fs->path[i], O_RDONLY | O_CLOEXEC);
			if (fs->fd[i] < 0)
				bench_die(fs->path[i], errno);
		}
	}
	fs->n_open_groups = g;
	fs->n_open = fs->first[g];
}

static char buf[1 << 16];

/* Reads whole files; the kernel generates a cgroup file in one read if it fits. */
static void read_all(int fd, const char *path)
{
	ssize_t r = pread(fd, buf, sizeof(buf), 0);

	if (r < 0)
		bench_die(path, errno);
	if ((size_t)r == sizeof(buf))
		bench_die(path, EFBIG);
}

static void way_floor(const struct files *fs)
{
	for (size_t i = 0; i < fs->n_open; i++)
		read_all(fs->fd[i], fs->path[i]);
}

static void way_floor_stat(const struct files *fs)
{
	for (size_t g = 0; g < fs->n_open_groups; g++)
		read_all(fs->fd[fs->stat[g]], fs->path[fs->stat[g]]);
}

/* The kept descriptors first (fs->fd of files_open), then each remaining group through its directory. */
static void way_floor_limit(const struct files *fs, size_t kept)
{
	for (size_t g = 0; g < fs->n_groups; g++) {
		int dfd = -1;

		for (size_t i = fs->first[g]; i < fs->first[g + 1]; i++) {
			int fd;

			if (i < kept) {
				read_all(fs->fd[i], fs->path[i]);
				continue;
			}
			if (dfd < 0 && (dfd = open(fs->dir[g], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
				bench_die(fs->dir[g], errno);
			fd = openat(dfd, fs->name[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				bench_die(fs->path[i], errno);
			read_all(fd, fs->path[i]);
			close(fd);
		}
		if (dfd >= 0)
			close(dfd);
	}
}

static void way_openread(const struct files *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		int fd = open(fs->path[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			bench_die(fs->path[i], errno);
		read_all(fd, fs->path[i]);
		close(fd);
	}
}

static size_t way_memctl(struct mc_host *h, const char *cgroup)
{
	struct mc_snapshot s;
	int r = mc_host_snapshot(h, cgroup, &s);
	size_t n;

	if (r < 0)
		bench_die("mc_host_snapshot", r);
	n = s.n;
	mc_snapshot_free(&s);
	return n;
}

/* Walks the subtree with libcgroup; calls fn on each group's path below the mount. */
static size_t lcg_walk(const char *cgroup, void (*fn)(const char *rel))
{
	struct cgroup_file_info info;
	void *handle = NULL;
	int base, r;
	size_t n = 0, mlen = 0;
	char *mount = NULL;

	if ((r = cgroup_get_subsys_mount_point("memory", &mount)) != 0)
		bench_die(cgroup_strerror(r), EIO);
	mlen = strlen(mount);
	r = cgroup_walk_tree_begin("memory", cgroup, 0, &handle, &info, &base);
	while (r == 0) {
		if (info.type == CGROUP_FILE_TYPE_DIR) {
			const char *rel = info.full_path + mlen;

			fn(*rel ? rel : "/");
			n++;
		}
		r = cgroup_walk_tree_next(0, &handle, &info, base);
	}
	if (r != ECGEOF)
		bench_die(cgroup_strerror(r), EIO);
	cgroup_walk_tree_end(&handle);
	free(mount);
	return n;
}

static void lcg_walk_one(const char *rel)
{
}

static void lcg_stats_one(const char *rel)
{
	struct cgroup_stat st;
	void *handle = NULL;
	int r = cgroup_read_stats_begin("memory", rel, &handle, &st);

	while (r == 0)
		r = cgroup_read_stats_next(&handle, &st);
	if (r != ECGEOF)
		bench_die(cgroup_strerror(r), EIO);
	cgroup_read_stats_end(&handle);
}

static void lcg_get_one(const char *rel)
{
	struct cgroup *cg = cgroup_new_cgroup(rel);
	int r;

	if (!cg)
		bench_die("cgroup_new_cgroup", ENOMEM);
	if ((r = cgroup_get_cgroup(cg)) != 0)
		bench_die(cgroup_strerror(r), EIO);
	cgroup_free(&cg);
}

/* The ways asked for (--ways, default all), --rounds and --nofile; the cgroup. */
static const char *parse_args(int argc, char **argv, bool want[WAY__COUNT], int *rounds,
			      long *nofile)
{
	static const struct option lo[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "nofile", required_argument, NULL, 'n' },
		{ "ways", required_argument, NULL, 'w' },
		{ 0 },
	};
	int c;

	for (int w = 0; w < WAY__COUNT; w++)
		want[w] = true;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			*rounds = atoi(optarg);
			break;
		case 'n':
			*nofile = atol(optarg);
			break;
		case 'w':
			memset(want, 0, WAY__COUNT * sizeof(*want));
			for (char *save, *t = strtok_r(optarg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				int w;

				for (w = 0; w < WAY__COUNT && strcmp(t, way_name[w]) != 0; w++)
					;
				if (w == WAY__COUNT)
					usage();
				want[w] = true;
			}
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || *rounds < 1)
		usage();
	return argv[optind];
}

/* One round of way w; how many groups (or files) it covered. */
static size_t run_way(int w, struct mc_host *h, struct mc_host *fresh, struct files *fs,
		      const char *cgroup)
{
	switch (w) {
	case FLOOR:
		way_floor(fs);
		return fs->n_open_groups;
	case FLOOR_STAT:
		way_floor_stat(fs);
		return fs->n_open_groups;
	case FLOOR_LIMIT:
		way_floor_limit(fs, fs->n_open);
		return fs->n_groups;
	case MEMCTL:
		return way_memctl(h, cgroup);
	case MEMCTL_FIRST:
		return way_memctl(fresh, cgroup);
	case OPENREAD:
		way_openread(fs);
		return fs->n_groups;
	case LCG_WALK:
		return lcg_walk(cgroup, lcg_walk_one);
	case LCG_STATS:
		return lcg_walk(cgroup, lcg_stats_one);
	case LCG_GET:
		return lcg_walk(cgroup, lcg_get_one);
	}
	return 0;
}

static void files_free(struct files *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		if (i < fs->n_open)
			close(fs->fd[i]);
		free(fs->path[i]);
	}
	for (size_t g = 0; g < fs->n_groups; g++)
		free(fs->dir[g]);
	free(fs->dir);
	free(fs->name);
	free(fs->path);
	free(fs->fd);
	free(fs->first);
	free(fs->stat);
}

/* The ways' medians over rounds interleaved way by way, one TSV row each. */
static void measure(const bool want[WAY__COUNT], int rounds, struct mc_host *h, struct files *fs,
		    const char *cgroup, size_t kept)
{
	struct bench_times t[WAY__COUNT];
	size_t seen[WAY__COUNT] = { 0 };
	int r;

	for (int w = 0; w < WAY__COUNT; w++)
		bench_times_init(&t[w], rounds);
	for (int i = 0; i < rounds; i++) {
		for (int w = 0; w < WAY__COUNT; w++) {
			struct mc_host *fresh = NULL;
			struct bench_clock clk;

			if (!want[w])
				continue;
			if (w == MEMCTL_FIRST && (r = mc_host_open(NULL, &fresh)) < 0)
				bench_die("mc_host_open", r);
			bench_clock_start(&clk);
			seen[w] = run_way(w, h, fresh, fs, cgroup);
			bench_clock_stop(&clk, &t[w], i);
			if (fresh)
				mc_host_free(fresh);
		}
	}
	for (int w = 0; w < WAY__COUNT; w++) {
		if (!want[w])
			continue;
		printf("%s\t%zu\t%zu\t%d\t%.1f\t%.1f\t%zu\n", way_name[w], seen[w],
		       w == FLOOR ? fs->n_open : w == FLOOR_STAT ? fs->n_open_groups : fs->n, rounds,
		       bench_median(t[w].wall, (size_t)rounds), bench_median(t[w].cpu, (size_t)rounds), kept);
	}
	for (int w = 0; w < WAY__COUNT; w++)
		bench_times_free(&t[w]);
}

int main(int argc, char **argv)
{
	bool want[WAY__COUNT];
	int rounds = 15;
	struct rlimit rl;
	long nofile = 0;
	const char *cgroup = parse_args(argc, argv, want, &rounds, &nofile);

	/* As memctl's main does: soft up to hard; or both to --nofile. */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		bench_die("getrlimit", errno);
	if (nofile > 0)
		rl.rlim_cur = rl.rlim_max = (rlim_t)nofile;
	else
		rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		bench_die("setrlimit RLIMIT_NOFILE", errno);

	struct mc_host *h;
	struct mc_snapshot s0;
	struct files fs;
	int r;

	if ((r = mc_host_open(NULL, &h)) < 0)
		bench_die("mc_host_open", r);
	if ((r = mc_host_snapshot(h, cgroup, &s0)) < 0)
		bench_die(cgroup, r);
	files_collect(h, &s0, mc_host_status(h)->memory_mount, &fs);
	mc_snapshot_free(&s0);
	/* Descriptors open now are the handle's: all groups', or its budget's worth. */
	size_t kept = 0, budget = mc_host_fd_budget(h);

	for (int fd = 3; fd < (int)rl.rlim_cur; fd++)
		kept += fcntl(fd, F_GETFD) >= 0;
	/* Each way can run alone (bench/snapshot.sh runs one per process), with all descriptors. */
	if (!want[MEMCTL]) {
		mc_host_free(h);
		h = NULL;
	}
	if (want[FLOOR] || want[FLOOR_STAT] || want[FLOOR_LIMIT]) {
		size_t used = 0, room;

		for (int fd = 0; fd < (int)rl.rlim_cur; fd++)
			used += fcntl(fd, F_GETFD) >= 0;
		room = (size_t)rl.rlim_cur - used - 64;
		/* floor-limit keeps no more than memctl may (given together, the floors do too) */
		files_open(&fs, want[FLOOR_LIMIT] && budget < room ? budget : room);
		if (fs.n_open_groups == 0)
			bench_die("no descriptors left for the floor", EMFILE);
	}
	if ((want[LCG_WALK] || want[LCG_STATS] || want[LCG_GET]) && (r = cgroup_init()) != 0)
		bench_die(cgroup_strerror(r), EIO);
	measure(want, rounds, h, &fs, cgroup, kept);
	files_free(&fs);
	if (h)
		mc_host_free(h);
	return 0;
}
