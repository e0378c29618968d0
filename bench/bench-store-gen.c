/*
 * bench-store-gen: writes a synthetic history store as `memctl record`
 * would have written it over days, through the store's own writer
 * (mc_store_append, with the writer's sharding by UTC day and its
 * retention by age and size), on an explicit clock: sample k is stamped
 * START + k * INTERVAL plus a few milliseconds of jitter, as a recorder's
 * timer gives, so a week takes minutes instead of a week. A measuring
 * instrument for bench/store-week.sh, not a test.
 *
 *   bench-store-gen DIR [--groups 1000] [--days 7] [--interval 5]
 *                   [--warmup-hours 4] [--version 1|2] [--retain-days 7]
 *                   [--max-size-mb 1024] [--end UNIX] [--seed 1]
 *
 * The tree is a host's (about GROUPS groups): services below system.slice,
 * sessions below user.slice/user-1000.slice, containers below machine.slice
 * (each with three children), batch jobs below batch and workers below web,
 * the recorded parent at the top. Each leaf has a kind: idle (a value
 * changes now and then), steady (anonymous memory wanders around a target,
 * page cache grows to a cap and is reclaimed, faults count up every
 * sample), busy (streams through page cache at its limit: refaults, scans,
 * limit hits), and job (lives from minutes to hours, then its slot stays
 * empty for a while and a job of a new name takes it). Containers restart
 * under new names about every two days. Activity follows the time of day.
 * Values are as the subtree reader gives them on a v1 or v2 host (the v2
 * names; memory.stat, numa_stat, events and usage hierarchical, task
 * counts per group), in pages of 4 KiB; counters never decrease.
 *
 * The run writes WARMUP hours before the DAYS that the store keeps, so
 * that retention deletes the oldest shard as it would on a host; it ends
 * at END (default 2026-12-01 00:05 UTC). It prints, one "key<TAB>value" a
 * line: samples written, groups born (churn), the fewest and most groups
 * a sample had, the store's bytes, the first and last time written, and
 * the generator's own CPU and wall seconds.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-util.h"
#include "store.h"

#define PAGE 4096ull
#define SPD 86400.0

enum kind { K_INNER, K_IDLE, K_STEADY, K_BUSY, K_JOB };

/* The values a group holds of its own; the sample shows them summed over its subtree. */
enum {
	V_ANON, V_FILE, V_SHMEM, V_MAPPED, V_DIRTY, V_WB, V_THP, V_SWAPC, V_UNEV, V_KERNEL,
	V_SLAB, V_SOCK, V_PGFAULT, V_PGMAJ, V_RF_ANON, V_RF_FILE, V_ACT_ANON, V_ACT_FILE,
	V_RST_FILE, V_NODERECLAIM, V_PGSCAN, V_PGSTEAL, V_PGREFILL, V_PGACT, V_PGDEACT,
	V_THP_ALLOC, V_EV_HIGH, V_EV_MAX, V_EV_OOM, V_EV_OOMKILL, V_PSI_SOME, V_PSI_FULL,
	NV,
	/* derived when a sample is filled, not held */
	D_IANON = NV, D_AANON, D_IFILE, D_AFILE, D_STACK, D_PTABLES, D_SRECL, D_SUNRECL,
	D_ZERO, ND
};

/* A key of a file as the reader names it, the value it shows, and its share per NUMA node. */
struct key {
	const char *name;
	int v;
};

static const struct key v1_stat[] = {
	{ "file", V_FILE }, { "anon", V_ANON }, { "anon_thp", V_THP }, { "shmem", V_SHMEM },
	{ "file_mapped", V_MAPPED }, { "file_dirty", V_DIRTY }, { "file_writeback", V_WB },
	{ "workingset_refault_anon", V_RF_ANON }, { "workingset_refault_file", V_RF_FILE },
	{ "swapcached", V_SWAPC }, { "pgfault", V_PGFAULT }, { "pgmajfault", V_PGMAJ },
	{ "inactive_anon", D_IANON }, { "active_anon", D_AANON }, { "inactive_file", D_IFILE },
	{ "active_file", D_AFILE }, { "unevictable", V_UNEV },
};
static const struct key v2_stat[] = {
	{ "anon", V_ANON }, { "file", V_FILE }, { "kernel", V_KERNEL }, { "kernel_stack", D_STACK },
	{ "pagetables", D_PTABLES }, { "sec_pagetables", D_ZERO }, { "percpu", D_ZERO },
	{ "sock", V_SOCK }, { "vmalloc", D_ZERO }, { "shmem", V_SHMEM }, { "zswap", D_ZERO },
	{ "zswapped", D_ZERO }, { "file_mapped", V_MAPPED }, { "file_dirty", V_DIRTY },
	{ "file_writeback", V_WB }, { "swapcached", V_SWAPC }, { "anon_thp", V_THP },
	{ "file_thp", D_ZERO }, { "shmem_thp", D_ZERO }, { "inactive_anon", D_IANON },
	{ "active_anon", D_AANON }, { "inactive_file", D_IFILE }, { "active_file", D_AFILE },
	{ "unevictable", V_UNEV }, { "slab_reclaimable", D_SRECL },
	{ "slab_unreclaimable", D_SUNRECL }, { "slab", V_SLAB },
	{ "workingset_refault_anon", V_RF_ANON }, { "workingset_refault_file", V_RF_FILE },
	{ "workingset_activate_anon", V_ACT_ANON }, { "workingset_activate_file", V_ACT_FILE },
	{ "workingset_restore_anon", D_ZERO }, { "workingset_restore_file", V_RST_FILE },
	{ "workingset_nodereclaim", V_NODERECLAIM }, { "pgscan", V_PGSCAN },
	{ "pgsteal", V_PGSTEAL }, { "pgscan_kswapd", V_PGSCAN }, { "pgscan_direct", D_ZERO },
	{ "pgsteal_kswapd", V_PGSTEAL }, { "pgsteal_direct", D_ZERO }, { "pgfault", V_PGFAULT },
	{ "pgmajfault", V_PGMAJ }, { "pgrefill", V_PGREFILL }, { "pgactivate", V_PGACT },
	{ "pgdeactivate", V_PGDEACT }, { "pglazyfree", D_ZERO }, { "pglazyfreed", D_ZERO },
	{ "thp_fault_alloc", V_THP_ALLOC }, { "thp_collapse_alloc", D_ZERO },
};
static const struct key v1_events[] = { { "max", V_EV_MAX }, { "oom_kill", V_EV_OOMKILL } };
static const struct key v2_events[] = {
	{ "low", D_ZERO }, { "high", V_EV_HIGH }, { "max", V_EV_MAX }, { "oom", V_EV_OOM },
	{ "oom_kill", V_EV_OOMKILL }, { "oom_group_kill", D_ZERO },
};
static const struct key v1_numa[] = { { "file", V_FILE }, { "anon", V_ANON }, { "unevictable", V_UNEV } };
static const struct key v2_numa[] = {
	{ "anon", V_ANON }, { "file", V_FILE }, { "kernel_stack", D_STACK }, { "pagetables", D_PTABLES },
	{ "shmem", V_SHMEM }, { "file_mapped", V_MAPPED }, { "file_dirty", V_DIRTY },
	{ "file_writeback", V_WB }, { "swapcached", V_SWAPC }, { "anon_thp", V_THP },
	{ "inactive_anon", D_IANON }, { "active_anon", D_AANON }, { "inactive_file", D_IFILE },
	{ "active_file", D_AFILE }, { "unevictable", V_UNEV }, { "slab_reclaimable", D_SRECL },
	{ "slab_unreclaimable", D_SUNRECL }, { "workingset_refault_anon", V_RF_ANON },
	{ "workingset_refault_file", V_RF_FILE }, { "workingset_activate_file", V_ACT_FILE },
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The host's /proc/meminfo keys (this host kind's); the first few follow the tree. */
static const char *const meminfo_keys[] = {
	"MemTotal", "MemFree", "MemAvailable", "Cached", "AnonPages", "Dirty", "Writeback",
	"Shmem", "Mapped", "Active(anon)", "Inactive(anon)", "Active(file)", "Inactive(file)",
	"Buffers", "SwapCached", "Active", "Inactive", "Unevictable", "Mlocked", "SwapTotal",
	"SwapFree", "Zswap", "Zswapped", "KReclaimable", "Slab", "SReclaimable", "SUnreclaim",
	"KernelStack", "PageTables", "SecPageTables", "NFS_Unstable", "Bounce", "WritebackTmp",
	"CommitLimit", "Committed_AS", "VmallocTotal", "VmallocUsed", "VmallocChunk", "Percpu",
	"AnonHugePages", "ShmemHugePages", "ShmemPmdMapped", "FileHugePages", "FilePmdMapped",
	"Balloon", "HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp",
	"Hugepagesize", "Hugetlb", "DirectMap4k", "DirectMap2M", "DirectMap1G",
};
#define MI_FOLLOW 13
/* /proc/vmstat's reclaim fields; those with a value index follow the tree's sums. */
static const struct key vmstat_keys[] = {
	{ "workingset_nodes", D_ZERO }, { "workingset_refault_anon", V_RF_ANON },
	{ "workingset_refault_file", V_RF_FILE }, { "workingset_activate_anon", V_ACT_ANON },
	{ "workingset_activate_file", V_ACT_FILE }, { "workingset_restore_anon", D_ZERO },
	{ "workingset_restore_file", V_RST_FILE }, { "workingset_nodereclaim", V_NODERECLAIM },
	{ "pswpin", D_ZERO }, { "pswpout", D_ZERO }, { "allocstall_dma", D_ZERO },
	{ "allocstall_dma32", D_ZERO }, { "allocstall_normal", V_EV_MAX },
	{ "allocstall_movable", D_ZERO }, { "pgactivate", V_PGACT }, { "pgdeactivate", V_PGDEACT },
	{ "pglazyfree", D_ZERO }, { "pgmajfault", V_PGMAJ }, { "pglazyfreed", D_ZERO },
	{ "pgrefill", V_PGREFILL }, { "pgsteal_kswapd", V_PGSTEAL }, { "pgsteal_direct", D_ZERO },
	{ "pgsteal_khugepaged", D_ZERO }, { "pgscan_kswapd", V_PGSCAN }, { "pgscan_direct", D_ZERO },
	{ "pgscan_khugepaged", D_ZERO }, { "pgscan_direct_throttle", D_ZERO },
	{ "pgscan_anon", D_ZERO }, { "pgscan_file", V_PGSCAN }, { "pgsteal_anon", D_ZERO },
	{ "pgsteal_file", V_PGSTEAL }, { "slabs_scanned", V_PGSCAN }, { "kswapd_inodesteal", D_ZERO },
	{ "kswapd_low_wmark_hit_quickly", D_ZERO }, { "kswapd_high_wmark_hit_quickly", D_ZERO },
	{ "pageoutrun", D_ZERO }, { "pgrotated", D_ZERO }, { "oom_kill", V_EV_OOMKILL },
	{ "compact_stall", D_ZERO }, { "compact_fail", D_ZERO }, { "compact_success", D_ZERO },
};

struct cfg {
	const char *dir;
	size_t groups;
	double days, interval, warmup_h, retain_days, end;
	int version;
	uint64_t max_mb, seed;
};

/* One slot of the tree: a group, or (a job's slot between jobs) none. */
struct slot {
	int kind;
	int parent;               /* slot index, -1: the recorded parent */
	int depth;
	const char *base;         /* the name's stem ("job-", "ctr-", a service's) */
	unsigned serial;          /* the name's number, new at each birth */
	bool present;
	uint64_t until;           /* sample index of its end (jobs, containers); 0: none */
	double rate;              /* pages of activity a sample */
	uint64_t anon_target, file_cap, limit;
	uint64_t v[NV];           /* its own values */
	uint64_t tot[ND];         /* over its subtree, derived ones included */
	uint64_t tasks;
	struct mc_hist_group g;   /* what a sample shows of it (kvs keys borrowed) */
};

struct gen {
	struct cfg c;
	struct slot *s;
	size_t n, cap;
	uint64_t rng;
	unsigned next_serial;
	uint64_t born;
	const struct key *stat, *events, *numa;
	size_t n_stat, n_events, n_numa, nodes;
	struct mc_kvs meminfo, vmstat;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 2685821657736338717ull;
}

static double frnd(struct gen *g)
{
	return (double)(rnd(g) >> 11) / 9007199254740992.0;
}

/* A length of time of `lo` to `hi` samples, uniform in its logarithm. */
static uint64_t life(struct gen *g, double lo, double hi)
{
	return (uint64_t)exp(log(lo) + frnd(g) * (log(hi) - log(lo)));
}

static int add_slot(struct gen *g, int kind, int parent, const char *base)
{
	struct slot *sl;

	if (mc_array_reserve(&g->s, &g->cap, g->n + 1, sizeof(*g->s)) < 0)
		bench_die("realloc", ENOMEM);
	sl = &g->s[g->n];
	memset(sl, 0, sizeof(*sl));
	sl->kind = kind;
	sl->parent = parent;
	sl->depth = parent < 0 ? 0 : g->s[parent].depth + 1;
	sl->base = base;
	sl->present = true;
	sl->serial = g->next_serial++;
	return (int)g->n++;
}

/* Sizes and rates of a leaf at its birth, by kind. */
static void born(struct gen *g, struct slot *sl, uint64_t k)
{
	double big = sl->kind == K_BUSY ? 8 : sl->kind == K_JOB ? 2 : 1, r = frnd(g), f = frnd(g);

	/* most groups are small, a few large: MiB cubed */
	memset(sl->v, 0, sizeof(sl->v));
	sl->anon_target = (uint64_t)((1 + r * r * r * 400) * big) * 256 * PAGE;
	sl->file_cap = (uint64_t)((1 + f * f * f * 200) * big) * 256 * PAGE;
	sl->limit = sl->kind == K_BUSY ? (sl->file_cap + sl->anon_target) * 5 / 4 : UINT64_MAX;
	sl->rate = sl->kind == K_IDLE ? 1 : (1 + frnd(g) * 40) * big;
	sl->v[V_ANON] = sl->anon_target / 8 / PAGE * PAGE;
	sl->v[V_KERNEL] = (16 + rnd(g) % 64) * PAGE;
	sl->v[V_SLAB] = sl->v[V_KERNEL] / 2;
	sl->tasks = sl->kind == K_IDLE ? rnd(g) % 2 : 1 + rnd(g) % 8;
	if (sl->kind == K_JOB)
		sl->until = k + life(g, 24, 2160);   /* 2 minutes to 3 hours */
	g->born++;
}

/* The tree of about c.groups groups: slices, their services, sessions, containers, jobs, workers. */
static void build_tree(struct gen *g)
{
	size_t want = g->c.groups > 12 ? g->c.groups - 7 : 5;
	size_t ctr = want / 10, svc = want * 15 / 100, ses = want / 50 + 1, job = want * 15 / 100 + 1;
	size_t wrk = want - 4 * ctr - svc - ses - job;
	int root = add_slot(g, K_INNER, -1, ""), p;

	p = add_slot(g, K_INNER, root, "system.slice");
	for (size_t i = 0; i < svc; i++)
		add_slot(g, i % 4 ? K_IDLE : K_STEADY, p, "svc-");
	p = add_slot(g, K_INNER, add_slot(g, K_INNER, root, "user.slice"), "user-1000.slice");
	for (size_t i = 0; i < ses; i++)
		add_slot(g, K_IDLE, p, "session-");
	p = add_slot(g, K_INNER, root, "machine.slice");
	for (size_t i = 0; i < ctr; i++) {
		int c = add_slot(g, K_INNER, p, "ctr-");

		add_slot(g, i % 4 ? K_STEADY : K_BUSY, c, "app");
		add_slot(g, K_IDLE, c, "sidecar");
		add_slot(g, K_IDLE, c, "init");
	}
	p = add_slot(g, K_INNER, root, "batch");
	for (size_t i = 0; i < job; i++)
		add_slot(g, K_JOB, p, "job-");
	p = add_slot(g, K_INNER, root, "web");
	for (size_t i = 0; i < wrk; i++)
		add_slot(g, i % 5 == 0 ? K_BUSY : i % 5 < 3 ? K_IDLE : K_STEADY, p, "worker-");
	for (size_t i = 0; i < g->n; i++) {
		struct slot *sl = &g->s[i];

		sl->limit = UINT64_MAX;
		if (sl->kind != K_INNER)
			born(g, sl, 0);
		if (strcmp(sl->base, "ctr-") == 0)
			sl->until = life(g, SPD / g->c.interval, 3 * SPD / g->c.interval);
		if (sl->kind == K_JOB)
			sl->until = 1 + rnd(g) % sl->until;   /* the jobs running at the start are midway */
	}
}

static int name_of(const struct slot *sl, char *buf, size_t len)
{
	const char *sfx = strcmp(sl->base, "svc-") == 0 ? ".service" :
			  strcmp(sl->base, "session-") == 0 ? ".scope" : "";
	size_t n = strlen(sl->base);

	if (n == 0 || sl->base[n - 1] != '-')
		return snprintf(buf, len, "%s", sl->base);
	return snprintf(buf, len, "%s%05u%s", sl->base, sl->serial, sfx);
}

/* Gives slot i and everything below it (preorder: the slots after it that are deeper) their paths. */
static void set_paths(struct gen *g, size_t i)
{
	for (size_t j = i; j < g->n && (j == i || g->s[j].depth > g->s[i].depth); j++) {
		struct slot *sl = &g->s[j];
		char name[64], *path;
		const char *up = sl->parent > 0 ? g->s[sl->parent].g.g.path : "";

		name_of(sl, name, sizeof(name));
		if (asprintf(&path, "%s%s%s", up, *up ? "/" : "", name) < 0)
			bench_die("asprintf", ENOMEM);
		free(sl->g.g.path);
		sl->g.g.path = path;
	}
}

static void add_keys(struct mc_kvs *kv, const struct key *k, size_t n)
{
	if (mc_kvs_reserve(kv, n) < 0)
		bench_die("realloc", ENOMEM);
	for (size_t i = 0; i < n; i++)
		mc_kvs_add_borrowed(kv, k[i].name, 0);
}

/* The files of every slot's group, keys in place; values come with each sample. */
static void init_groups(struct gen *g)
{
	static const int v1_knobs[] = { MC_KNOB_MAX, MC_KNOB_SOFT, MC_KNOB_SWAP };
	static const int v2_knobs[] = { MC_KNOB_MAX, MC_KNOB_HIGH, MC_KNOB_LOW, MC_KNOB_MIN, MC_KNOB_SWAP };
	bool v2 = g->c.version == 2;

	for (size_t i = 0; i < g->n; i++) {
		struct mc_group_snap *s = &g->s[i].g.g;

		s->present = s->usage_valid = g->s[i].g.tasks_valid = true;
		for (size_t k = 0; k < (v2 ? N(v2_knobs) : N(v1_knobs)); k++)
			s->raw_valid[v2 ? v2_knobs[k] : v1_knobs[k]] = true;
		add_keys(&s->stat, g->stat, g->n_stat);
		add_keys(&s->events, g->events, g->n_events);
		s->n_numa = g->nodes;
		if (!(s->numa = calloc(g->nodes, sizeof(*s->numa))))
			bench_die("calloc", ENOMEM);
		for (size_t nd = 0; nd < g->nodes; nd++)
			add_keys(&s->numa[nd], g->numa, g->n_numa);
		s->psi.valid = v2;
	}
	set_paths(g, 0);
}

static uint64_t pages(double bytes)
{
	return bytes <= 0 ? 0 : (uint64_t)(bytes / PAGE) * PAGE;
}

/* Page cache past the cap is reclaimed, and the reclaim counted as the kernel would. */
static void reclaim(struct gen *g, struct slot *sl)
{
	uint64_t *v = sl->v, r = v[V_FILE] - sl->file_cap * 7 / 8, n = r / PAGE;

	v[V_FILE] -= r;
	v[V_DIRTY] = v[V_DIRTY] > v[V_FILE] ? v[V_FILE] : v[V_DIRTY];
	v[V_PGSCAN] += n + n / 2 + rnd(g) % (n / 4 + 1);
	v[V_PGSTEAL] += n;
	v[V_PGREFILL] += n / 2;
	v[V_PGDEACT] += n / 4;
	v[V_RF_FILE] += n / (sl->kind == K_BUSY ? 3 : 10);
	v[V_ACT_FILE] += n / 20;
	v[V_RST_FILE] += n / 50;
	v[V_NODERECLAIM] += rnd(g) % 4 == 0;
	if (sl->limit != UINT64_MAX) {
		v[V_EV_MAX] += 1 + n / 256;
		v[V_EV_HIGH] += 1 + n / 64;
	}
	v[V_PSI_SOME] = 100 + rnd(g) % 2000;
}

/* One sample's change of a leaf's own values; act is the time of day's activity. */
static void step_leaf(struct gen *g, struct slot *sl, double act)
{
	uint64_t *v = sl->v;
	double a;
	int64_t d;

	if (sl->kind == K_IDLE) {
		if (frnd(g) > 0.03)
			return;
		v[V_PGFAULT] += 1 + rnd(g) % 20;
		v[V_ANON] = pages((double)v[V_ANON] + ((double)(rnd(g) % 3) - 1) * PAGE);
		return;
	}
	a = sl->rate * act * (0.5 + frnd(g));
	v[V_PGFAULT] += (uint64_t)(a * 8);
	v[V_PGMAJ] += frnd(g) < 0.1 ? 1 + (uint64_t)(a / 8) : 0;
	v[V_PGACT] += (uint64_t)(a / 4);
	v[V_THP_ALLOC] += frnd(g) < 0.05;
	if (frnd(g) < 0.5) {   /* anonymous memory wanders around its target */
		d = ((int64_t)sl->anon_target - (int64_t)v[V_ANON]) / 64 +
		    (int64_t)((frnd(g) - 0.5) * 2 * a) * (int64_t)PAGE;
		v[V_ANON] = pages((double)v[V_ANON] + (double)d);
		v[V_ANON] = v[V_ANON] < PAGE ? PAGE : v[V_ANON];
		v[V_THP] = v[V_ANON] / 3 / (2u << 20) * (2u << 20);
	}
	if (sl->kind == K_BUSY || frnd(g) < 0.3) {   /* page cache: read and written */
		v[V_FILE] += pages(a * (sl->kind == K_BUSY ? 32 : 1) * PAGE);
		v[V_DIRTY] = pages(a * (sl->kind == K_BUSY ? 16 : 0.5) * PAGE * frnd(g));
		v[V_WB] = rnd(g) % 4 ? 0 : v[V_DIRTY] / 4 / PAGE * PAGE;
		v[V_MAPPED] = v[V_FILE] / 5 / PAGE * PAGE;
	}
	if (frnd(g) < 0.2)
		v[V_SOCK] = pages(frnd(g) * a * PAGE);
	if (rnd(g) % 64 == 0)
		v[V_SHMEM] = pages(frnd(g) * (double)v[V_ANON] / 16);
	v[V_PSI_SOME] = v[V_PSI_SOME] * 9 / 10;
	if (v[V_FILE] > sl->file_cap)
		reclaim(g, sl);
	v[V_PSI_FULL] += v[V_PSI_SOME] * 500;
}

/* Jobs end, their slots stay empty a while, new jobs come; containers restart under new names. */
static void churn(struct gen *g, uint64_t k)
{
	for (size_t i = 0; i < g->n; i++) {
		struct slot *sl = &g->s[i];

		if (!sl->until || k < sl->until)
			continue;
		if (sl->kind == K_JOB && sl->present) {
			sl->present = false;
			sl->until = k + life(g, 1, 120);
			continue;
		}
		sl->serial = g->next_serial++;
		if (sl->kind == K_JOB) {
			born(g, sl, k);
			sl->present = true;
		} else {   /* a container: it and its children begin again */
			g->born++;
			sl->until = k + life(g, SPD / g->c.interval, 3 * SPD / g->c.interval);
			for (size_t j = i + 1; j < g->n && g->s[j].depth > sl->depth; j++)
				born(g, &g->s[j], k);
		}
		set_paths(g, i);
	}
}

static void derive(uint64_t *t)
{
	t[D_IANON] = t[V_ANON] / 6 / PAGE * PAGE;
	t[D_AANON] = t[V_ANON] - t[D_IANON];
	t[D_IFILE] = t[V_FILE] * 3 / 5 / PAGE * PAGE;
	t[D_AFILE] = t[V_FILE] - t[D_IFILE];
	t[D_STACK] = t[V_KERNEL] / 4 / PAGE * PAGE;
	t[D_PTABLES] = t[V_ANON] / 512 / PAGE * PAGE;
	t[D_SRECL] = t[V_SLAB] * 2 / 3 / PAGE * PAGE;
	t[D_SUNRECL] = t[V_SLAB] - t[D_SRECL];
	t[D_ZERO] = 0;
	t[V_PSI_SOME] = t[V_PSI_SOME] > 10000 ? 10000 : t[V_PSI_SOME];
}

/* Every group's values over its subtree: children come after their parent, so backwards. */
static void sum_tree(struct gen *g)
{
	for (size_t i = 0; i < g->n; i++)
		memset(g->s[i].tot, 0, sizeof(g->s[i].tot));
	for (size_t i = g->n; i-- > 0;) {
		struct slot *sl = &g->s[i];

		if (!sl->present)
			continue;
		for (int j = 0; j < NV; j++)
			sl->tot[j] += sl->v[j];
		derive(sl->tot);
		if (sl->parent < 0)
			continue;
		for (int j = 0; j < NV; j++)   /* pressure: the worst child's, not a sum */
			g->s[sl->parent].tot[j] = j != V_PSI_SOME ? g->s[sl->parent].tot[j] + sl->tot[j] :
						  g->s[sl->parent].tot[j] > sl->tot[j] ? g->s[sl->parent].tot[j] : sl->tot[j];
	}
}

static void fill_kvs(struct mc_kvs *kv, const struct key *k, const uint64_t *t, double share)
{
	for (size_t i = 0; i < kv->n; i++)
		kv->v[i].val = share == 1 ? t[k[i].v] : (uint64_t)((double)t[k[i].v] * share);
}

/* The group of slot sl as the subtree reader would give it now. */
static void fill_group(struct gen *g, struct slot *sl)
{
	struct mc_group_snap *s = &sl->g.g;
	const uint64_t *t = sl->tot;
	bool v2 = g->c.version == 2;

	s->usage = t[V_ANON] + t[V_FILE] + t[V_SHMEM] + (v2 ? t[V_KERNEL] + t[V_SOCK] : 0);
	s->raw[MC_KNOB_MAX] = sl->limit;
	s->raw[MC_KNOB_SOFT] = s->raw[MC_KNOB_HIGH] = UINT64_MAX;
	s->raw[MC_KNOB_SWAP] = UINT64_MAX;
	s->raw[MC_KNOB_LOW] = s->raw[MC_KNOB_MIN] = 0;
	fill_kvs(&s->stat, g->stat, t, 1);
	fill_kvs(&s->events, g->events, t, 1);
	for (size_t nd = 0; nd < g->nodes; nd++)
		fill_kvs(&s->numa[nd], g->numa, t, g->nodes == 1 ? 1 : nd ? 0.4 : 0.6);
	if (v2) {
		s->psi.some_avg10 = (double)t[V_PSI_SOME] / 100;
		s->psi.some_avg60 = s->psi.some_avg10 / 2;
		s->psi.some_avg300 = s->psi.some_avg10 / 5;
		s->psi.some_total = t[V_PSI_FULL] * 2;
		s->psi.full_avg10 = s->psi.some_avg10 / 3;
		s->psi.full_total = t[V_PSI_FULL];
	}
	sl->g.tasks = sl->tasks;
	if (rnd(g) % 4096 == 0 && sl->kind != K_INNER)
		sl->tasks += rnd(g) % 2 || !sl->tasks ? 1 : (uint64_t)-1;
}

static void init_host(struct gen *g)
{
	for (size_t i = 0; i < N(meminfo_keys); i++)
		mc_kvs_add_borrowed(&g->meminfo, meminfo_keys[i], i < MI_FOLLOW ? 0 : (i * 7919 % 97) << 20);
	for (size_t i = 0; i < N(vmstat_keys); i++)
		mc_kvs_add_borrowed(&g->vmstat, vmstat_keys[i].name, 0);
	g->meminfo.v[0].val = 256ull << 30;
}

/* The host's figures: those of the root group where /proc has the same, the others as they were. */
static void fill_host(struct gen *g, struct mc_hist_sample *s)
{
	const uint64_t *t = g->s[0].tot;
	uint64_t total = g->meminfo.v[0].val, used = g->s[0].g.g.usage + (6ull << 30);
	const uint64_t mi[MI_FOLLOW] = {
		total, used < total ? total - used : 0, used < total ? total - used + t[D_IFILE] : 0,
		t[V_FILE], t[V_ANON], t[V_DIRTY], t[V_WB], t[V_SHMEM], t[V_MAPPED], t[D_AANON],
		t[D_IANON], t[D_AFILE], t[D_IFILE],
	};

	for (size_t i = 0; i < MI_FOLLOW; i++)
		g->meminfo.v[i].val = mi[i];
	fill_kvs(&g->vmstat, vmstat_keys, t, 1);
	s->host.meminfo = g->meminfo;
	s->host.vmstat = g->vmstat;
	s->host.psi.valid = true;
	s->host.psi.some_avg10 = (double)t[V_PSI_SOME] / 100;
	s->host.psi.some_total = t[V_PSI_FULL];
	s->parent_limit_valid = true;
	s->parent_limit = total;
}

static double now_s(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Sample k: the tree moved on by one interval, into s (groups borrowed from the slots). */
static void make_sample(struct gen *g, uint64_t k, double t, struct mc_hist_sample *s)
{
	double act = 0.6 + 0.4 * sin(2 * M_PI * fmod(t, SPD) / SPD);

	churn(g, k);
	for (size_t i = 0; i < g->n; i++)
		if (g->s[i].kind != K_INNER && g->s[i].present)
			step_leaf(g, &g->s[i], act);
	sum_tree(g);
	s->n_groups = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->s[i].present) {
			fill_group(g, &g->s[i]);
			s->groups[s->n_groups++] = g->s[i].g;
		}
	fill_host(g, s);
}

static int run(struct gen *g)
{
	static char parent[] = "/memctl-gen";
	struct mc_store_opts o = { .retain_s = (uint64_t)(g->c.retain_days * SPD),
				   .max_bytes = g->c.max_mb << 20 };
	double span = g->c.days * SPD + g->c.warmup_h * 3600, t0 = g->c.end - span, t = t0, first = 0;
	uint64_t n = (uint64_t)(span / g->c.interval) + 1;
	struct mc_hist_sample s = { .parent = parent, .cgroup_version = g->c.version };
	size_t lo = SIZE_MAX, hi = 0;
	double c0 = now_s(CLOCK_PROCESS_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
	struct mc_store_writer *w;
	char *why = NULL;
	int r;

	if ((r = mc_store_writer_open(g->c.dir, &o, &w, &why)) < 0)
		bench_die(why ? why : "mc_store_writer_open", r);
	if (!(s.groups = calloc(g->n, sizeof(*s.groups))))
		bench_die("calloc", ENOMEM);
	for (uint64_t k = 0; k < n; k++) {
		/* a recorder's timer: the interval and a few milliseconds late */
		t = t0 + (double)k * g->c.interval + frnd(g) * 0.02;
		s.time = t;
		first = k ? first : t;
		make_sample(g, k, t, &s);
		lo = s.n_groups < lo ? s.n_groups : lo;
		hi = s.n_groups > hi ? s.n_groups : hi;
		if ((r = mc_store_append(w, &s)) < 0)
			bench_die("mc_store_append", r);
	}
	printf("samples\t%llu\nborn\t%llu\ngroups_min\t%zu\ngroups_max\t%zu\nbytes\t%llu\n"
	       "first\t%.3f\nlast\t%.3f\ncpu_s\t%.2f\nwall_s\t%.2f\n",
	       (unsigned long long)n, (unsigned long long)g->born, lo, hi,
	       (unsigned long long)mc_store_writer_bytes(w), first, t,
	       now_s(CLOCK_PROCESS_CPUTIME_ID) - c0, now_s(CLOCK_MONOTONIC) - w0);
	mc_store_writer_close(w);
	free(s.groups);
	return 0;
}

static void release(struct gen *g)
{
	for (size_t i = 0; i < g->n; i++)
		mc_group_snap_free(&g->s[i].g.g);
	free(g->s);
	mc_kvs_free(&g->meminfo);
	mc_kvs_free(&g->vmstat);
}

static double num(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "bench-store-gen: --%s takes a number from %g to %g, not '%s'\n", opt, lo, hi, s);
		exit(2);
	}
	return v;
}

static const struct option long_opts[] = {
	{ "groups", 1, NULL, 'g' }, { "days", 1, NULL, 'd' }, { "interval", 1, NULL, 'i' },
	{ "warmup-hours", 1, NULL, 'w' }, { "version", 1, NULL, 'v' }, { "retain-days", 1, NULL, 'r' },
	{ "max-size-mb", 1, NULL, 'm' }, { "end", 1, NULL, 'e' }, { "seed", 1, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

static void parse(int argc, char **argv, struct cfg *c)
{
	int o;

	while ((o = getopt_long(argc, argv, "", long_opts, NULL)) != -1)
		switch (o) {
		case 'g': c->groups = (size_t)num("groups", optarg, 1, 1 << 20); break;
		case 'd': c->days = num("days", optarg, 0.0001, 366); break;
		case 'i': c->interval = num("interval", optarg, 0.01, 86400); break;
		case 'w': c->warmup_h = num("warmup-hours", optarg, 0, 24 * 366); break;
		case 'v': c->version = (int)num("version", optarg, 1, 2); break;
		case 'r': c->retain_days = num("retain-days", optarg, 0, 366); break;
		case 'm': c->max_mb = (uint64_t)num("max-size-mb", optarg, 0, 1 << 24); break;
		case 'e': c->end = num("end", optarg, 1e9, 1e10); break;
		case 's': c->seed = (uint64_t)num("seed", optarg, 1, 1e15); break;
		default: exit(2);
		}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: bench-store-gen DIR [--groups N] [--days D] [--interval S] "
				"[--warmup-hours H] [--version 1|2] [--retain-days D] [--max-size-mb M] "
				"[--end UNIX] [--seed N]\n");
		exit(2);
	}
	c->dir = argv[optind];
}

int main(int argc, char **argv)
{
	struct gen g = { .c = { .groups = 1000, .days = 7, .interval = 5, .warmup_h = 4, .version = 1,
				.retain_days = 7, .max_mb = 1024, .end = 1796083500, .seed = 1 } };
	bool v2;

	parse(argc, argv, &g.c);
	v2 = g.c.version == 2;
	g.rng = g.c.seed * 0x9e3779b97f4a7c15ull;
	g.stat = v2 ? v2_stat : v1_stat;
	g.n_stat = v2 ? N(v2_stat) : N(v1_stat);
	g.events = v2 ? v2_events : v1_events;
	g.n_events = v2 ? N(v2_events) : N(v1_events);
	g.numa = v2 ? v2_numa : v1_numa;
	g.n_numa = v2 ? N(v2_numa) : N(v1_numa);
	g.nodes = v2 ? 2 : 1;
	build_tree(&g);
	init_groups(&g);
	init_host(&g);
	run(&g);
	release(&g);
	return 0;
}
