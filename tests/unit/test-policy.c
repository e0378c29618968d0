/*
 * Policy engine tests. Every expected value below was computed by hand from
 * the rules in engine/policy.c's top comment (the arithmetic is written
 * next to each case), not copied from a run.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "tap.h"
#include "units.h"

#define K4 (4096ULL)
#define M (1024ULL * 1024)
#define G (1024ULL * M)
#define UNL MC_SIZE_MAX
#define NA 1 /* "no file" marker in a snapshot row */
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- building blocks ---- */

struct split_case {
	const char *name;
	uint64_t demand;
	size_t n;
	uint64_t usage[4], soft[4], prot[4];
	bool use_prot;
	bool stream[4];
	bool use_stream;
	uint64_t want[4];
	uint64_t want_total;
};

static const struct split_case split_cases[] = {
	/* excess 100 + 20 = 120 >= 60: 60*100/120 = 50, 60*20/120 = 10 */
	{ "first pass only", 60 * M, 3, { 200 * M, 100 * M, 50 * M }, { 100 * M, 80 * M, UNL },
	  { 0 }, false, { 0 }, false, { 50 * M, 10 * M, 0 }, 60 * M },
	/* excess 50 + 20 = 70 given whole; 130 left by usage 200:100:100 = 65, 32.5, 32.5 */
	{ "first pass + fallback", 200 * M, 3, { 200 * M, 100 * M, 100 * M },
	  { 150 * M, 80 * M, UNL }, { 0 }, false, { 0 }, false,
	  { 115 * M, 52 * M + 512 * 1024, 32 * M + 512 * 1024 }, 200 * M },
	/* child 0 gives its 20M excess first, not the whole demand: then 80 by 300:100 */
	{ "excess cap", 100 * M, 2, { 300 * M, 100 * M }, { 280 * M, UNL }, { 0 }, false, { 0 },
	  false, { 80 * M, 20 * M }, 100 * M },
	/* pass 1 takes 100 + 100; the rest 300: child 0 has 100 left, child 1 none */
	{ "children cannot give it all", 500 * M, 2, { 200 * M, 100 * M }, { 100 * M, 0 }, { 0 },
	  false, { 0 }, false, { 200 * M, 100 * M }, 300 * M },
	/* by usage 90:30, but child 0 may give 300-250 = 50; the other 70 from child 1 */
	{ "protection floor", 120 * M, 2, { 300 * M, 100 * M }, { UNL, UNL }, { 250 * M, 0 }, true,
	  { 0 }, false, { 50 * M, 70 * M }, 120 * M },
	/* excess counts from max(soft 100, protect 250): 50; then child 0 has nothing left */
	{ "protection bounds the first pass", 100 * M, 2, { 300 * M, 200 * M }, { 100 * M, UNL },
	  { 250 * M, 0 }, true, { 0 }, false, { 50 * M, 50 * M }, 100 * M },
	/* without streaming this is 40:10:10 (next case); the streamer gives all 60 */
	{ "streaming first", 60 * M, 3, { 400 * M, 100 * M, 100 * M }, { UNL, UNL, UNL }, { 0 },
	  false, { false, true, false }, true, { 0, 60 * M, 0 }, 60 * M },
	{ "same without streaming: by usage", 60 * M, 3, { 400 * M, 100 * M, 100 * M },
	  { UNL, UNL, UNL }, { 0 }, false, { 0 }, false, { 40 * M, 10 * M, 10 * M }, 60 * M },
	/* the streamer's 100 is not enough: 50 more by usage 400:100 */
	{ "streamers not enough", 150 * M, 3, { 400 * M, 100 * M, 100 * M }, { UNL, UNL, UNL },
	  { 0 }, false, { false, true, false }, true, { 40 * M, 100 * M, 10 * M }, 150 * M },
	/* 10/3 = 3 each, the leftover byte to the first with a fraction */
	{ "exact totals", 10, 3, { 100, 100, 100 }, { UNL, UNL, UNL }, { 0 }, false, { 0 }, false,
	  { 4, 3, 3 }, 10 },
	{ "no demand", 0, 2, { 100, 100 }, { 0, 0 }, { 0 }, false, { 0 }, false, { 0, 0 }, 0 },
};

static void test_split(void)
{
	for (size_t c = 0; c < N(split_cases); c++) {
		const struct split_case *sc = &split_cases[c];
		uint64_t take[4] = { 9, 9, 9, 9 }, got;
		bool ok = true;

		got = mc_softlimit_split_stream(sc->demand, sc->usage, sc->soft,
						sc->use_prot ? sc->prot : NULL,
						sc->use_stream ? sc->stream : NULL, sc->n, take);
		tap_eq_u64(got, sc->want_total, "split %s: total", sc->name);
		for (size_t i = 0; i < sc->n; i++) {
			if (take[i] != sc->want[i]) {
				printf("#   child %zu: got %llu, want %llu\n", i,
				       (unsigned long long)take[i], (unsigned long long)sc->want[i]);
				ok = false;
			}
		}
		tap_check(ok, "split %s: per child", sc->name);
		if (!sc->use_stream) {
			uint64_t t2[4];

			got = mc_softlimit_split(sc->demand, sc->usage, sc->soft,
						 sc->use_prot ? sc->prot : NULL, sc->n, t2);
			tap_check(got == sc->want_total && memcmp(t2, take, sc->n * sizeof(*t2)) == 0,
				  "split %s: mc_softlimit_split agrees", sc->name);
		}
	}
}

/*
 * mc_soft_low_split: the lows of one parent's children, claiming at most
 * room between them.
 */
static void test_soft_low_split(void)
{
	static const struct {
		const char *name;
		uint64_t room;
		size_t n;
		uint64_t need[3], have[3];
		bool fits;
		uint64_t want[3];
	} c[] = {
		/* a claims its soft limit 128M at usage 5M, b (soft 0) nothing: fits */
		{ "claims fit: each gets its claim", 128 * M, 2, { 128 * M, 0 }, { 5 * M, 0 }, true,
		  { 128 * M, 0 } },
		/* 100 + 100 > 128: haves 40 + 20, the 68M left by 60:80 = 29.14M, 38.86M (pages down) */
		{ "over-claimed: haves and a share of the rest", 128 * M, 2, { 100 * M, 100 * M },
		  { 40 * M, 20 * M }, false, { 40 * M + 7460 * K4, 20 * M + 9947 * K4 } },
		/* a protected sibling's 64M is its need and its have: a gets the other 64M */
		{ "a fixed protection takes its room first", 128 * M, 2, { 64 * M, 100 * M },
		  { 64 * M, 10 * M }, false, { 64 * M, 64 * M } },
		/* the haves alone exceed room: the haves (the kernel scales nothing more here) */
		{ "haves over room: the haves", 100 * M, 2, { 100 * M, 100 * M }, { 60 * M, 50 * M },
		  false, { 60 * M, 50 * M } },
		/* a have above its need counts as the need */
		{ "have above need", 128 * M, 2, { 100 * M, 100 * M }, { 150 * M, 0 }, false,
		  { 100 * M, 28 * M } },
		/* no limit: everything fits, no overflow in the sums */
		{ "unlimited room", UNL, 3, { UNL, UNL, 5 * M }, { 0, 0, 0 }, true, { UNL, UNL, 5 * M } },
	};

	for (size_t i = 0; i < N(c); i++) {
		uint64_t got[3] = { 9, 9, 9 }, sum = 0, held = 0;
		bool fits = mc_soft_low_split(c[i].room, c[i].need, c[i].have, c[i].n, 4096, got);
		bool ok = fits == c[i].fits;

		for (size_t k = 0; k < c[i].n; k++) {
			if (got[k] != c[i].want[k]) {
				printf("#   child %zu: got %llu, want %llu\n", k,
				       (unsigned long long)got[k], (unsigned long long)c[i].want[k]);
				ok = false;
			}
			sum = sum > UNL - got[k] ? UNL : sum + got[k];
			held += c[i].have[k] < c[i].need[k] ? c[i].have[k] : c[i].need[k];
		}
		tap_check(ok, "soft low split %s", c[i].name);
		/* (held cannot overflow: no case with room UNL has a have) */
		tap_check(sum <= c[i].room || held > c[i].room,
			  "soft low split %s: the lows claim no more than room unless the haves do",
			  c[i].name);
	}
}

static void test_ws(void)
{
	static const struct {
		const char *name;
		uint64_t prev, active, refault, max;
		double alpha;
		uint64_t want;
	} c[] = {
		{ "no history: starts at active", 0, 100 * M, 0, UNL, 0.5, 100 * M },
		{ "no history, refaults raise it", 0, 100 * M, 20 * M, UNL, 0.5, 120 * M },
		/* 100 + 0.5 * (200 - 100) */
		{ "smoothed up", 100 * M, 200 * M, 0, UNL, 0.5, 150 * M },
		/* 200 + 0.25 * (100 - 200) */
		{ "smoothed down", 200 * M, 100 * M, 0, UNL, 0.25, 175 * M },
		/* 150 + 30 */
		{ "smoothed with refaults", 100 * M, 200 * M, 30 * M, UNL, 0.5, 180 * M },
		{ "capped by max", 100 * M, 200 * M, 30 * M, 160 * M, 0.5, 160 * M },
		/* default alpha 0.3: 100 + 0.3 * 100 */
		{ "invalid alpha: default 0.3", 100 * M, 200 * M, 0, UNL, 0.0, 130 * M },
		{ "alpha 1: no smoothing", 100 * M, 40 * M, 0, UNL, 1.0, 40 * M },
	};

	for (size_t i = 0; i < N(c); i++)
		tap_eq_u64(mc_ws_estimate(c[i].prev, c[i].active, c[i].refault, c[i].max, c[i].alpha),
			   c[i].want, "working set: %s", c[i].name);
}

/*
 * A usage drop the kernel caused is not a job freeing memory (hold 3,
 * alpha 0.5). Following it would lower a protected job's estimate while
 * reclaim takes its pages, and so give its neighbours more room to press
 * it: feedback in the wrong direction.
 */
static void ws_update_reclaimed(void)
{
	/* v1 (steals unknown): 20M of a 64M job were reclaimed, it refaults
	 * 4M an interval; then idle: the clamp to usage waits out the hold
	 * of 3 after the last refaults; in the 4th the decay (52M) and the
	 * usage (44M) bound it */
	static const uint64_t want[] = { 64 * M, 64 * M, 64 * M, 64 * M, 44 * M };
	struct mc_ws_state st = { .est = 64 * M };
	struct mc_ws_sample in = { .active = 40 * M, .refault = 4 * M, .usage = 44 * M,
				   .stolen = UNL };
	bool ok = true;

	for (size_t k = 0; k < N(want); k++) {
		uint64_t e = mc_ws_update(&st, &in, UNL, 0.5, 3, 4096);

		if (e != want[k]) {
			printf("#   interval %zu: got %llu, want %llu\n", k + 1, (unsigned long long)e,
			       (unsigned long long)want[k]);
			ok = false;
		}
		in.refault = 0;
	}
	tap_check(ok, "working set: reclaimed from (v1), it holds until the hold after the refaults");

	/* v2: the kernel stole 20M, no refaults yet: held; nothing stolen: freed */
	st = (struct mc_ws_state){ .est = 64 * M };
	in = (struct mc_ws_sample){ .active = 40 * M, .usage = 44 * M, .stolen = 20 * M };
	tap_eq_u64(mc_ws_update(&st, &in, UNL, 0.5, 3, 4096), 64 * M,
		   "working set: stolen from (v2), a usage drop does not lower it");
	st = (struct mc_ws_state){ .est = 64 * M };
	in.stolen = 0;
	tap_eq_u64(mc_ws_update(&st, &in, UNL, 0.5, 3, 4096), 44 * M,
		   "working set: nothing stolen (v2), a usage drop is memory freed");

	/* 10M refaulted, 6M of them activated (on the active list already):
	 * 50 + 4 = 54M, not 60M */
	st = (struct mc_ws_state){ 0 };
	in = (struct mc_ws_sample){ .active = 50 * M, .refault = 10 * M, .reactivated = 6 * M,
				    .usage = UNL };
	tap_eq_u64(mc_ws_update(&st, &in, UNL, 0.5, 3, 4096), 54 * M,
		   "working set: activated refaults are not counted twice");
	/* more activations than refaults (counters read at different times) */
	st = (struct mc_ws_state){ 0 };
	in.reactivated = 12 * M;
	tap_eq_u64(mc_ws_update(&st, &in, UNL, 0.5, 3, 4096), 50 * M,
		   "working set: activations beyond the refaults count as all of them");
}

/*
 * The estimate across intervals (hold 3, alpha 0.5, pages of 4K). The
 * deadband of 64M is 1M (1% is 0.64M).
 * It is long because it is one table of interval sequences and the few
 * direct cases after it.
 */
static void test_ws_update(void)
{
	static const struct {
		const char *name;
		uint64_t start;
		size_t n;
		uint64_t active[6], refault[6], usage[6];
		uint64_t want[6];
		uint64_t touched[6];
	} c[] = {
		/* 60 and 58 are 4M and 6M below 64M, for 1 and 2 intervals; the
		 * next pass makes the pages active again before the hold of 3 ends */
		{ "a job between passes keeps its estimate", 64 * M, 6,
		  { 64 * M, 60 * M, 58 * M, 64 * M, 59 * M, 61 * M }, { 0 },
		  { UNL, UNL, UNL, UNL, UNL, UNL },
		  { 64 * M, 64 * M, 64 * M, 64 * M, 64 * M, 64 * M } },
		/* below for 1, 2, 3 intervals: held; 4: 64 + 0.5 (40 - 64) = 52;
		 * 5: 52 + 0.5 (40 - 52) = 46; 6, the third after the hold: 40 */
		{ "an idle job's estimate follows after the hold", 64 * M, 6,
		  { 40 * M, 40 * M, 40 * M, 40 * M, 40 * M, 40 * M }, { 0 },
		  { UNL, UNL, UNL, UNL, UNL, UNL },
		  { 64 * M, 64 * M, 64 * M, 52 * M, 46 * M, 40 * M } },
		{ "a job that grows is followed at once", 32 * M, 2, { 64 * M, 64 * M }, { 0 },
		  { UNL, UNL }, { 64 * M, 64 * M } },
		/* usage 32M + refaults 0 bounds it */
		{ "a job that frees memory is followed at once", 64 * M, 2, { 30 * M, 30 * M }, { 0 },
		  { 32 * M, 32 * M }, { 32 * M, 32 * M } },
		/* 50 + 10 = 60; then 50 + 0 is 10M below: held */
		{ "refaults raise it", 0, 2, { 50 * M, 50 * M }, { 10 * M, 0 }, { UNL, UNL },
		  { 60 * M, 60 * M } },
		/* 10M + 1 byte, up to a page */
		{ "rounded up to a page", 0, 1, { 10 * M + 1 }, { 0 }, { UNL }, { 10 * M + K4 } },
		/* active 40M for 6 intervals, but 24M (23.5M: within the 1M
		 * deadband) of pages come back into use every interval: no decay */
		{ "a job whose pages come back into use keeps its estimate", 64 * M, 6,
		  { 40 * M, 40 * M, 40 * M, 40 * M, 40 * M, 40 * M }, { 0 },
		  { UNL, UNL, UNL, UNL, UNL, UNL },
		  { 64 * M, 64 * M, 64 * M, 64 * M, 64 * M, 64 * M },
		  { 24 * M, 24 * M, 23 * M + 512 * 1024, 24 * M, 24 * M, 24 * M } },
		/* it uses 16M of them: 40 + 8 = 48M seen; after the hold of 3:
		 * 64 + 0.5 (48 - 64) = 56, then 56 + 0.5 (48 - 56) = 52 */
		{ "evidence for part of it: follows what is in use", 64 * M, 5,
		  { 40 * M, 40 * M, 40 * M, 40 * M, 40 * M }, { 0 }, { UNL, UNL, UNL, UNL, UNL },
		  { 64 * M, 64 * M, 64 * M, 56 * M, 52 * M }, { 8 * M, 8 * M, 8 * M, 8 * M, 8 * M } },
		/* activations are pages on the active list already: they do not raise it */
		{ "activations do not raise it", 32 * M, 2, { 32 * M, 32 * M }, { 0 }, { UNL, UNL },
		  { 32 * M, 32 * M }, { 20 * M, 20 * M } },
	};

	for (size_t i = 0; i < N(c); i++) {
		struct mc_ws_state st = { .est = c[i].start };
		bool ok = true;

		for (size_t k = 0; k < c[i].n; k++) {
			struct mc_ws_sample in = { c[i].active[k], c[i].refault[k], c[i].touched[k],
						   c[i].usage[k] };
			uint64_t e = mc_ws_update(&st, &in, UNL, 0.5, 3, 4096);

			if (e != c[i].want[k] || st.est != e) {
				printf("#   interval %zu: got %llu, want %llu\n", k + 1,
				       (unsigned long long)e, (unsigned long long)c[i].want[k]);
				ok = false;
			}
		}
		tap_check(ok, "working set over intervals: %s", c[i].name);
	}
	{
		struct mc_ws_state st = { .est = 64 * M, .below = 2 };

		/* 63.5M is within the deadband (1M): the count starts over */
		tap_eq_u64(mc_ws_update(&st, &(struct mc_ws_sample){ 63 * M + 512 * 1024, 0, 0, UNL },
					UNL, 0.5, 3, 4096), 64 * M,
			   "working set: within the deadband it holds");
		tap_eq_int(st.below, 0, "working set: within the deadband the hold starts over");
		st = (struct mc_ws_state){ 0 };
		tap_eq_u64(mc_ws_update(&st, &(struct mc_ws_sample){ 100 * M, 0, 0, UNL }, 80 * M, 0.5,
					3, 4096), 80 * M,
			   "working set: capped at max");
	}
	ws_update_reclaimed();
}

/*
 * The deadband: max(1% of the value, 1 MiB), up to a page. 1% of 192M is
 * 2013265.92 bytes, 491.5 pages: 492 pages = 2015232. 1% of 120M is
 * 1258291.2 bytes: 308 pages = 1261568.
 */
static void test_deadband(void)
{
	tap_eq_u64(mc_deadband(192 * M, 4096), 2015232, "deadband: 1%% of 192M, up to a page");
	tap_eq_u64(mc_deadband(50 * M, 4096), 1 * M, "deadband: at least 1M");
	tap_eq_u64(mc_deadband(UNL, 4096), 1 * M, "deadband: of no limit, 1M");
	tap_eq_u64(mc_deadband(120 * M, 0), 1261568, "deadband: page 0 counts as 4K");
	tap_eq_u64(mc_deadband_hold(120 * M, true, 120 * M + K4, false, 4096), 120 * M,
		   "deadband: a change of 4K is not written");
	tap_eq_u64(mc_deadband_hold(120 * M, true, 119 * M, false, 4096), 120 * M,
		   "deadband: 1M below 120M is within 1261568: kept");
	tap_eq_u64(mc_deadband_hold(120 * M, true, 118 * M, false, 4096), 118 * M,
		   "deadband: 2M is beyond it: written");
	tap_eq_u64(mc_deadband_hold(120 * M, true, 120 * M - K4, true, 4096), 120 * M - K4,
		   "deadband: urgent: written however small");
	tap_eq_u64(mc_deadband_hold(120 * M, false, 120 * M - K4, false, 4096), 120 * M - K4,
		   "deadband: no live value: written");
	tap_eq_u64(mc_deadband_hold(UNL, true, 120 * M, false, 4096), 120 * M,
		   "deadband: from no limit: written");
}

static void test_thp(void)
{
	static const struct {
		const char *name;
		uint64_t high, max;
		unsigned cpus;
		uint64_t floor;
		int want_r;
		uint64_t want;
	} c[] = {
		{ "aligned with room: unchanged", 256 * M, 512 * M, 2, 0, 0, 256 * M },
		{ "rounded down to 2M", 255 * M, 512 * M, 2, 0, 0, 254 * M },
		/* gap 2M x 2 = 4M: min(255, 256 - 4) = 252 */
		{ "lowered for the gap", 255 * M, 256 * M, 2, 0, 0, 252 * M },
		/* floor 16M > 4M: 256 - 16 = 240 */
		{ "configured floor", 255 * M, 256 * M, 2, 16 * M, 0, 240 * M },
		/* gap 2M: min(300M+1, 299M) = 299M, down to 298M */
		{ "gap then alignment", 300 * M + 1, 301 * M, 1, 0, 0, 298 * M },
		{ "cpus 0 counts as 1", 255 * M, 256 * M, 0, 0, 0, 254 * M },
		{ "unlimited max: only alignment", 255 * M, UNL, 8, 0, 0, 254 * M },
		{ "max equal to the gap: high 0", 4 * M, 4 * M, 2, 0, 0, 0 },
		{ "max below the gap: -ERANGE", 2 * M, 3 * M, 2, 0, -ERANGE, 0 },
		{ "max below the floor: -ERANGE", 2 * M, 10 * M, 1, 16 * M, -ERANGE, 0 },
	};
	static const struct {
		uint64_t in, want;
	} up[] = {
		{ 0, 0 }, { 1, 2 * M }, { 2 * M, 2 * M }, { 2 * M + 1, 4 * M }, { 45 * M, 46 * M },
		{ UINT64_MAX, UINT64_MAX - (2 * M - 1) },
	};

	for (size_t i = 0; i < N(c); i++) {
		uint64_t h = 12345;
		int r = mc_thp_high(c[i].high, c[i].max, c[i].cpus, c[i].floor, &h);

		tap_eq_int(r, c[i].want_r, "thp high %s: result", c[i].name);
		if (c[i].want_r == 0)
			tap_eq_u64(h, c[i].want, "thp high %s: value", c[i].name);
		else
			tap_eq_u64(h, 12345, "thp high %s: *ret not written", c[i].name);
	}
	for (size_t i = 0; i < N(up); i++)
		tap_eq_u64(mc_thp_round_up(up[i].in), up[i].want, "thp round up %llu",
			   (unsigned long long)up[i].in);
}

static void test_headroom_and_cap(void)
{
	/* 1G / 50 = 21474836.48 -> 21474836, up to a page: 5243 pages */
	tap_eq_u64(mc_policy_headroom(1 * G, 0, 4096), 5243 * K4, "headroom: 2%% of 1G, page aligned");
	tap_eq_u64(mc_policy_headroom(256 * M, 0, 4096), 8 * M, "headroom: 8M floor");
	tap_eq_u64(mc_policy_headroom(UNL, 0, 4096), 8 * M, "headroom: unlimited");
	tap_eq_u64(mc_policy_headroom(1 * G, 10 * M + 1, 4096), 10 * M + K4, "headroom: configured");

	static const struct {
		const char *name;
		uint64_t limit, prot, headroom, own, want;
	} c[] = {
		{ "256 - 160 - 8", 256 * M, 160 * M, 8 * M, UNL, 88 * M },
		/* 256 - 240 - 8 = 8 < max(2 x 8, 16) */
		{ "floored at 16M", 256 * M, 240 * M, 8 * M, UNL, 16 * M },
		{ "1G - 200 - 20", 1 * G, 200 * M, 20 * M, UNL, 804 * M },
		{ "own max lower", 1 * G, 200 * M, 20 * M, 500 * M, 500 * M },
		/* nothing left: 2 x 20 = 40 */
		{ "floored at 2 x headroom", 1 * G, 1 * G, 20 * M, UNL, 40 * M },
		{ "own max below the floor wins", 1 * G, 2 * G, 20 * M, 30 * M, 30 * M },
		{ "page aligned", 256 * M + 100, 160 * M, 8 * M, UNL, 88 * M },
		/* the 16M floor would exceed the parent's 10M */
		{ "never above the parent's limit", 10 * M, 5 * M, 8 * M, UNL, 10 * M },
	};
	for (size_t i = 0; i < N(c); i++)
		tap_eq_u64(mc_sibling_cap(c[i].limit, c[i].prot, c[i].headroom, c[i].own, 4096),
			   c[i].want, "v1 sibling cap: %s", c[i].name);
}

/* ---- NUMA ---- */

/*
 * The refaults of a node discount its weight by refault x hold: 75M with
 * 2M refaulted in the last interval and a hold of 10 weighs 55M; 8M with
 * 1M weighs 0; without refaults a node keeps its size; a huge refault
 * count saturates instead of wrapping.
 */
static void test_numa_weight(void)
{
	tap_eq_u64(mc_numa_weight(75 * M, 2 * M, 10), 55 * M, "numa weight: 75M less 10 x 2M");
	tap_eq_u64(mc_numa_weight(8 * M, 1 * M, 10), 0, "numa weight: refaults beyond it: 0");
	tap_eq_u64(mc_numa_weight(225 * M, 0, 10), 225 * M, "numa weight: no refaults: its size");
	tap_eq_u64(mc_numa_weight(225 * M, UINT64_MAX / 2, 10), 0, "numa weight: saturates");
	tap_eq_u64(mc_numa_weight(225 * M, 5 * M, 0), 225 * M, "numa weight: hold 0: its size");
}

static void test_numa_single(void)
{
	int64_t def[3] = { 0 };
	uint64_t out[3];
	size_t next = 0;

	/* credits 6M, 2M: three units to node 0, one to node 1 */
	mc_numa_split(def, (const uint64_t[]){ 3, 1 }, 2, 8 * M, 2 * M, out);
	tap_check(out[0] == 6 * M && out[1] == 2 * M && def[0] == 0 && def[1] == 0,
		  "numa 3:1, 8M in 2M units: 6M + 2M, no deficit left");

	/* 1:1, one unit per call: credits 1M each, the tie goes to node 0, then node 1 is owed */
	def[0] = def[1] = 0;
	mc_numa_split(def, (const uint64_t[]){ 1, 1 }, 2, 2 * M, 2 * M, out);
	tap_check(out[0] == 2 * M && out[1] == 0 && def[0] == -(int64_t)M && def[1] == (int64_t)M,
		  "numa 1:1 first unit: node 0, deficits -1M/+1M");
	mc_numa_split(def, (const uint64_t[]){ 1, 1 }, 2, 2 * M, 2 * M, out);
	tap_check(out[0] == 0 && out[1] == 2 * M && def[0] == 0 && def[1] == 0,
		  "numa 1:1 second unit: node 1, deficits back to 0");

	/*
	 * 1:3, 5M + 4K in 2M units: credits 1311744 and 3935232; node 1 is
	 * owed one whole unit, then still owed most; the 1M + 4K below a unit
	 * goes to the heaviest node: all to node 1.
	 */
	def[0] = def[1] = 0;
	mc_numa_split(def, (const uint64_t[]){ 1, 3 }, 2, 5 * M + K4, 2 * M, out);
	tap_check(out[0] == 0 && out[1] == 5 * M + K4 && def[0] == 1311744 && def[1] == -1311744,
		  "numa 1:3 with a remainder: unit to the most owed, remainder to the heaviest");

	/* all weights 0: the nodes count as equal */
	def[0] = def[1] = 0;
	mc_numa_split(def, (const uint64_t[]){ 0, 0 }, 2, 4 * M, 2 * M, out);
	tap_check(out[0] == 2 * M && out[1] == 2 * M, "numa all weights 0: equal split");

	/* round-robin: 5 units over 3 nodes from 0: 2, 2, 1 and node 2 is next */
	mc_numa_round_robin(&next, (const uint64_t[]){ 1, 1, 1 }, 3, 10 * M, 2 * M, out);
	tap_check(out[0] == 4 * M && out[1] == 4 * M && out[2] == 2 * M && next == 2,
		  "round-robin 5 units: 4M 4M 2M, next node 2");
	/* one unit to node 2, then the 4K remainder to node 0, whose turn it is */
	mc_numa_round_robin(&next, (const uint64_t[]){ 1, 1, 1 }, 3, 2 * M + K4, 2 * M, out);
	tap_check(out[0] == K4 && out[1] == 0 && out[2] == 2 * M && next == 0,
		  "round-robin continues at node 2, remainder to node 0");
	/* node 1 has nothing to reclaim: skipped */
	next = 0;
	mc_numa_round_robin(&next, (const uint64_t[]){ 1, 0, 1 }, 3, 6 * M, 2 * M, out);
	tap_check(out[0] == 4 * M && out[1] == 0 && out[2] == 2 * M && next == 2,
		  "round-robin skips a node with weight 0");
}

static void test_numa_cheap(void)
{
	tap_eq_u64(mc_numa_cheap(64 * M, 0, 2 * M), 64 * M, "numa cheap: nothing mapped: all of it");
	tap_eq_u64(mc_numa_cheap(64 * M, 30 * M, 2 * M), 34 * M / 16,
		   "numa cheap: 30M mapped, 2M to take: 34M x 2/32");
	tap_eq_u64(mc_numa_cheap(64 * M, 30 * M, 30 * M), 17 * M,
		   "numa cheap: 30M mapped, 30M to take: 34M x 1/2");
	tap_eq_u64(mc_numa_cheap(64 * M, 64 * M, 2 * M), 0, "numa cheap: all mapped: 0");
	tap_eq_u64(mc_numa_cheap(8 * M, 9 * M, 2 * M), 0, "numa cheap: more mapped than inactive: 0");
	tap_eq_u64(mc_numa_cheap(8 * M, 4 * M, 0), 0, "numa cheap: nothing to take, some mapped: 0");
	tap_eq_u64(mc_numa_cheap(UINT64_MAX, 1, UINT64_MAX), UINT64_MAX - 2,
		   "numa cheap: no overflow (%llu)",
		   (unsigned long long)mc_numa_cheap(UINT64_MAX, 1, UINT64_MAX));
}

static void test_numa_level(void)
{
	uint64_t out[3];

	mc_numa_level((const uint64_t[]){ 225 * M, 75 * M }, 2, 160 * M, out);
	tap_check(out[0] == 155 * M && out[1] == 5 * M,
		  "numa level 225M:75M for 160M: both down to 70M (155M, 5M)");
	mc_numa_level((const uint64_t[]){ 64 * M, 20 * M, 8 * M }, 3, 30 * M, out);
	tap_check(out[0] == 30 * M && out[1] == 0 && out[2] == 0,
		  "numa level 64M:20M:8M for 30M: the smaller nodes are left alone");
	mc_numa_level((const uint64_t[]){ 64 * M, 20 * M, 8 * M }, 3, 50 * M, out);
	tap_check(out[0] == 47 * M && out[1] == 3 * M && out[2] == 0,
		  "numa level for 50M: node 1 joins below 20M (47M, 3M, 0)");
	mc_numa_level((const uint64_t[]){ 6 * M, 2 * M }, 2, 10 * M, out);
	tap_check(out[0] == 6 * M && out[1] == 2 * M, "numa level beyond the total: the weights");
	mc_numa_level((const uint64_t[]){ 0, 0 }, 2, 4 * M, out);
	tap_check(out[0] == 0 && out[1] == 0, "numa level of zero weights: zeros");
	mc_numa_level((const uint64_t[]){ UINT64_MAX, UINT64_MAX - 1 }, 2, UINT64_MAX, out);
	tap_check((unsigned __int128)out[0] + out[1] >= UINT64_MAX && out[0] == out[1] + 1,
		  "numa level near UINT64_MAX: no overflow (%llu, %llu)", (unsigned long long)out[0],
		  (unsigned long long)out[1]);
}

/*
 * 1000 intervals of varying amounts (1..7 units of 37 pages, plus a
 * sub-unit remainder every third interval): each node's share of the total
 * must be within 1% (relative) of its weight share.
 */
static void numa_converge(const uint64_t *w, size_t n, bool round_robin, double *ret_share,
			  bool *ret_within)
{
	int64_t def[4] = { 0 };
	uint64_t tot[4] = { 0 }, out[4], all = 0, wsum = 0;
	size_t next = 0;

	for (int i = 0; i < 1000; i++) {
		uint64_t unit = 37 * K4;
		uint64_t amount = (uint64_t)(i % 7 + 1) * unit + (i % 3 == 0 ? 5 * K4 : 0);

		if (round_robin)
			mc_numa_round_robin(&next, w, n, amount, unit, out);
		else
			mc_numa_split(def, w, n, amount, unit, out);
		for (size_t j = 0; j < n; j++) {
			tot[j] += out[j];
			all += out[j];
		}
	}
	*ret_within = true;
	for (size_t j = 0; j < n; j++)
		wsum += w[j];
	for (size_t j = 0; j < n; j++) {
		double share = (double)tot[j] / (double)all, want = (double)w[j] / (double)wsum;
		double err = share > want ? share - want : want - share;

		ret_share[j] = share;
		if (want == 0 ? tot[j] != 0 : err > 0.01 * want)
			*ret_within = false;
	}
}

static void test_numa_converge(void)
{
	static const struct {
		const char *name;
		uint64_t w[4];
		size_t n;
	} c[] = {
		{ "3:1", { 300 * M, 100 * M }, 2 },
		{ "5:3:2", { 500 * M, 300 * M, 200 * M }, 3 },
		{ "4:0:1 (node 1 gets nothing)", { 400 * M, 0, 100 * M }, 3 },
	};
	double share[4];
	bool within;

	for (size_t i = 0; i < N(c); i++) {
		numa_converge(c[i].w, c[i].n, false, share, &within);
		tap_check(within, "numa weighted %s: 1000 intervals within 1%% of the weights (%.4f %.4f %.4f %.4f)",
			  c[i].name, share[0], share[1], c[i].n > 2 ? share[2] : 0.0,
			  c[i].n > 3 ? share[3] : 0.0);
	}
	/* The same intervals split round-robin follow 1/n, not the weights. */
	numa_converge(c[0].w, c[0].n, true, share, &within);
	tap_check(!within && share[0] > 0.49 && share[0] < 0.51,
		  "numa round-robin 3:1 does not converge to the weights (node 0 share %.4f, not 0.75)",
		  share[0]);
	numa_converge(c[1].w, c[1].n, true, share, &within);
	tap_check(!within, "numa round-robin 5:3:2 does not converge to the weights");
}

/* ---- mc_policy_check ---- */

static void test_check(void)
{
	static const char yaml[] =
		"version: 1\n"
		"parent: self\n"
		"groups:\n"
		"  web:\n"
		"    max: 256M\n"
		"    high: 255M\n"
		"    thp: true\n"
		"  batch:\n"
		"    max: 256M\n"
		"    high: 255M\n"
		"  cache:\n"
		"    max: 50%\n"
		"    high: 49%\n"
		"    thp: true\n"
		"  app:\n"
		"    groups:\n"
		"      db: {max: 1G, high: 1016M, thp: true}\n";
	struct mc_policy_config cfg = { .cpus = 2 };
	struct mc_diags d = { 0 };
	struct mc_profile p;
	int r;

	r = mc_profile_parse("t.yaml", yaml, strlen(yaml), &p, &d);
	tap_eq_int(r, 0, "check: the profile parses");
	if (r < 0) {
		mc_diags_free(&d);
		return;
	}
	/* web: 256 - 255 = 1M < 4M; batch is not THP; cache is a percentage; db has 8M */
	r = mc_policy_check(&p, &cfg, &d);
	tap_eq_int(r, 1, "check: one THP group too close to its max");
	if (d.n == 1) {
		tap_eq_int(d.v[0].line, 6, "check: diag at the high value's line");
		tap_eq_int(d.v[0].col, 11, "check: diag at the high value's column");
		tap_eq_str(d.v[0].path, "groups.web.high", "check: key path");
		tap_eq_str(d.v[0].msg,
			   "high '255M' leaves 1M below max '256M'; a THP group needs at least 4M (2M x 2 CPUs)",
			   "check: message");
	}
	mc_diags_free(&d);

	/* A floor of 16M also catches db (1G - 1016M = 8M), at line 17 col 27. */
	cfg.thp_floor = 16 * M;
	r = mc_policy_check(&p, &cfg, &d);
	tap_eq_int(r, 2, "check with a 16M floor: two problems");
	if (d.n == 2) {
		tap_check(d.v[1].line == 17 && d.v[1].col == 27 &&
			  strcmp(d.v[1].path, "groups.app.db.high") == 0,
			  "check: nested group's diag at 17:27 (got %d:%d %s)", d.v[1].line, d.v[1].col,
			  d.v[1].path);
		tap_eq_str(d.v[1].msg,
			   "high '1016M' leaves 8M below max '1024M'; a THP group needs at least 16M (the configured THP floor)",
			   "check: floor message");
	}
	mc_diags_free(&d);
	mc_profile_free(&p);
}

/* ---- whole intervals on hand-built snapshots ---- */

struct kv {
	const char *key;
	uint64_t val;
};

struct gdef {
	const char *path;
	uint64_t raw[MC_KNOB__COUNT];   /* max high low min soft swap; NA = no file */
	uint64_t usage;
	struct kv stat[8];
	struct kv numa[2][2];           /* per node */
	size_t n_numa;
	double psi10;                   /* > 0: PSI present */
	struct kv events[2];            /* memory.events */
};

static void kvs_fill(struct mc_kvs *kv, const struct kv *v, size_t n)
{
	for (size_t i = 0; i < n && v[i].key; i++)
		if (mc_kvs_add(kv, v[i].key, strlen(v[i].key), v[i].val) < 0)
			abort();
}

static void snap_build(struct mc_snapshot *s, const struct gdef *defs, size_t n,
		       uint64_t parent_limit)
{
	memset(s, 0, sizeof(*s));
	s->parent = strdup("/test");
	s->parent_limit = parent_limit;
	s->groups = calloc(n, sizeof(*s->groups));
	if (!s->parent || !s->groups)
		abort();
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		struct mc_group_snap *g = &s->groups[i];

		g->path = strdup(defs[i].path);
		g->present = true;
		for (int k = 0; k < MC_KNOB__COUNT; k++) {
			g->raw[k] = defs[i].raw[k];
			g->raw_valid[k] = defs[i].raw[k] != NA;
		}
		g->usage = defs[i].usage;
		g->usage_valid = true;
		kvs_fill(&g->stat, defs[i].stat, N(defs[i].stat));
		kvs_fill(&g->events, defs[i].events, N(defs[i].events));
		if (defs[i].n_numa) {
			g->numa = calloc(defs[i].n_numa, sizeof(*g->numa));
			g->n_numa = defs[i].n_numa;
			for (size_t j = 0; j < defs[i].n_numa; j++)
				kvs_fill(&g->numa[j], defs[i].numa[j], 2);
		}
		if (defs[i].psi10 > 0) {
			g->psi.valid = true;
			g->psi.some_avg10 = defs[i].psi10;
		}
	}
}

static void spec_init(struct mc_group_spec *g, const char *name)
{
	memset(g, 0, sizeof(*g));
	g->name = (char *)name;
	g->thp = -1;
}

static struct mc_size B(uint64_t v)
{
	return (struct mc_size){ .kind = MC_SIZE_BYTES, .bytes = v };
}

static const char *size_str(uint64_t v, char *buf)
{
	if (mc_size_format(v, buf, 24) < 0)
		strcpy(buf, "?");
	return buf;
}

/* "group file=value; ..." and "group bytes [n0,n1]; ..." */
static char *dec_str(const struct mc_decisions *d, const struct mc_caps *caps, bool reclaims)
{
	static char buf[2048];
	size_t off = 0;
	char v[24];

	buf[0] = '\0';
	if (!reclaims) {
		for (size_t i = 0; i < d->n_set; i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s %s=%s", i ? "; " : "",
						d->set[i].group, caps->file[d->set[i].knob],
						size_str(d->set[i].value, v));
		return buf;
	}
	for (size_t i = 0; i < d->n_reclaim; i++) {
		const struct mc_reclaim *rc = &d->reclaim[i];

		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s %s", i ? "; " : "",
					rc->group, size_str(rc->bytes, v));
		for (size_t j = 0; rc->node_bytes && j < rc->n_nodes; j++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", j ? "," : " [",
						size_str(rc->node_bytes[j], v));
		if (rc->node_bytes)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "]");
	}
	return buf;
}

static const char *reason_of(const struct mc_decisions *d, const char *group, bool reclaim,
			     enum mc_knob k)
{
	if (reclaim) {
		for (size_t i = 0; i < d->n_reclaim; i++)
			if (strcmp(d->reclaim[i].group, group) == 0)
				return d->reclaim[i].reason;
	} else {
		for (size_t i = 0; i < d->n_set; i++)
			if (strcmp(d->set[i].group, group) == 0 && d->set[i].knob == k)
				return d->set[i].reason;
	}
	return "";
}

/*
 * The unit letters (K, M, G, T) the sizes of line s use, as a bit mask: a
 * size is a number that starts after no letter, digit or '.', directly
 * followed by a unit letter and then no letter or digit.
 */
static unsigned units_used(const char *s)
{
	static const char letters[] = "KMGT";
	unsigned mask = 0;

	for (const char *p = s; *p; p++) {
		const char *q = p, *u;

		if (*p < '0' || *p > '9' || (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '.')))
			continue;
		while ((*q >= '0' && *q <= '9') || *q == '.')
			q++;
		if (*q && (u = strchr(letters, *q)) && !isalnum((unsigned char)q[1]))
			mask |= 1u << (u - letters);
		p = q - 1;
	}
	return mask;
}

/* The reason has want in it, and writes every size in one unit. */
static void check_reason(const char *name, const char *reason, const char *want)
{
	unsigned m = units_used(reason);

	tap_check(strstr(reason, want) != NULL && (m & (m - 1)) == 0,
		  "%s: reason has \"%s\", in one unit (got \"%s\")", name, want, reason);
}

/*
 * Decides one interval of p on the snapshot of rows[0..n) below /test's
 * limit into *ret (the caller frees it); the snapshot is freed here.
 */
static void decide_rows(struct mc_policy *pol, const struct mc_profile *p, const struct gdef *rows,
			size_t n, uint64_t limit, const struct mc_caps *caps, struct mc_decisions *ret)
{
	struct mc_snapshot s;

	snap_build(&s, rows, n, limit);
	if (mc_policy_decide(pol, p, &s, caps, ret, NULL) < 0)
		abort();
	mc_snapshot_free(&s);
}

static const struct mc_caps caps_v2 = {
	.ver = MC_CGV2,
	.file = { "memory.max", "memory.high", "memory.low", "memory.min", NULL, "memory.swap.max" },
	.page_size = 4096,
	.mem_total = 16 * G,
};

static const struct mc_caps caps_v2p = {
	.ver = MC_CGV2,
	.file = { "memory.max", "memory.high", "memory.low", "memory.min", "memory.soft_limit",
		  "memory.swap.max", "memory.reclaim_protect_active" },
	.patched = true,
	.page_size = 4096,
	.mem_total = 16 * G,
};

/*
 * On the policy: a group with 64M of inactive cache on node 0 that nobody
 * reads again and 64M on node 1 that it refaults 1M (256 pages) of an
 * interval. Interval 1 has no refault history: an equal split of what its
 * parent needs back (usage 520M over a limit of 512M less a headroom of
 * 10488K: 18680K). Interval 2: node 1 weighs 64M - 10 x 1M = 54M, node 0
 * 64M, so node 0 gives more. The line prints one unit: 65536K, 55296K.
 */
static uint64_t numa_interval(struct mc_policy *pol, uint64_t rf1_pages, uint64_t ret[2],
			      char **ret_why)
{
	struct gdef rows[] = {
		{ "", { 512 * M, UNL, 0, 0, NA, UNL }, 520 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "r", { UNL, UNL, 0, 0, NA, UNL }, 520 * M,
		  { { "inactive_file", 128 * M }, { "active_file", 300 * M } },
		  { { { "inactive_file", 64 * M }, { "workingset_refault_file", 0 } },
		    { { "inactive_file", 64 * M }, { "workingset_refault_file", rf1_pages } } }, 2, 0 },
	};
	struct mc_group_spec g[1];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_WEIGHTED, .groups = g, .n_groups = 1 };
	struct mc_decisions d;
	uint64_t total = 0;

	spec_init(&g[0], "r");
	decide_rows(pol, &p, rows, N(rows), 512 * M, &caps_v2p, &d);
	ret[0] = ret[1] = 0;
	for (size_t i = 0; i < d.n_reclaim; i++)
		if (strcmp(d.reclaim[i].group, "r") == 0 && d.reclaim[i].node_bytes) {
			ret[0] = d.reclaim[i].node_bytes[0];
			ret[1] = d.reclaim[i].node_bytes[1];
			total = d.reclaim[i].bytes;
			if (ret_why)
				*ret_why = strdup(d.reclaim[i].reason);
		}
	mc_decisions_free(&d);
	return total;
}

static void test_numa_refaults(void)
{
	struct mc_policy_config cfg = { .cpus = 1, .ws_hold = 10 };
	struct mc_policy *pol;
	uint64_t out[2], total;
	char *why = NULL;

	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	total = numa_interval(pol, 1000, out, NULL);
	tap_check(total > 0 && out[0] + out[1] == total &&
		  (out[0] > out[1] ? out[0] - out[1] : out[1] - out[0]) <= 4096,
		  "numa refaults 1: no history, an equal split (%llu, %llu)", (unsigned long long)out[0],
		  (unsigned long long)out[1]);
	total = numa_interval(pol, 1000 + 256, out, &why);
	tap_check(total > 0 && out[0] + out[1] == total && out[0] > out[1],
		  "numa refaults 2: the node that refaults gives less (%llu, %llu)",
		  (unsigned long long)out[0], (unsigned long long)out[1]);
	check_reason("numa refaults 2", why ? why : "",
		     "(the largest weights first; weights: inactive file not mapped x reclaim / (reclaim + mapped), less what the node refaulted x the hold 65536K, 55296K)");
	free(why);
	mc_policy_free(pol);
}

static const struct mc_caps caps_v1 = {
	.ver = MC_CGV1,
	.file = { "memory.limit_in_bytes", NULL, NULL, NULL, "memory.soft_limit_in_bytes",
		  "memory.memsw.limit_in_bytes" },
	.page_size = 4096,
	.mem_total = 16 * G,
};

/*
 * v2, stock kernel. The parent's limit is 2G, headroom 24M: usage 2224M is
 * 200M above 2024M. web is protect: active: memctl never reclaims it (its
 * memory.low and the kernel keep it). Excess over the soft limit: batch
 * 104 - 64 = 40 < 200: all of it, and the other 160M come from stream
 * first, because it streams (inactive file 300M > half its 400M, no
 * refaults). stream's numa weights 225:75 split its 160M as 120M + 40M.
 * web's working set: no history, active
 * 100 + 150 = 250M -> memory.low 250M; batch's soft limit 64M below its
 * usage 104M -> memory.low 64M; cache is THP with high 255M, max 256M, 2
 * CPUs: 256 - 4 = 252M.
 */
static const struct gdef v2_rows[] = {
	{ "", { 2 * G, UNL, 0, 0, NA, UNL }, 2224 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
	{ "web", { 512 * M, UNL, 0, 0, NA, UNL }, 350 * M,
	  { { "active_anon", 100 * M }, { "active_file", 150 * M }, { "inactive_file", 50 * M },
	    { "workingset_refault_anon", 0 }, { "workingset_refault_file", 0 } },
	  { { { 0 } } }, 0, 0 },
	{ "batch", { UNL, UNL, 0, 0, NA, UNL }, 104 * M,
	  { { "inactive_file", 20 * M }, { "active_file", 50 * M } }, { { { 0 } } }, 0, 0 },
	{ "stream", { UNL, UNL, 0, 0, NA, UNL }, 400 * M,
	  { { "inactive_file", 300 * M }, { "active_file", 10 * M }, { "workingset_refault_file", 0 } },
	  { { { "inactive_file", 225 * M } }, { { "inactive_file", 75 * M } } }, 2, 0 },
	{ "cache", { 256 * M, 255 * M, 0, 0, NA, UNL }, 84 * M,
	  { { "anon_thp", 40 * M }, { "thp_fault_fallback_charge", 10 } }, { { { 0 } } }, 0, 0 },
};

static void v2_profile(struct mc_group_spec g[4], struct mc_profile *p)
{
	spec_init(&g[0], "web");
	g[0].knob[MC_KNOB_MAX] = B(512 * M);
	g[0].knob[MC_KNOB_SOFT] = B(128 * M);
	g[0].protect = MC_PROTECT_ACTIVE;
	spec_init(&g[1], "batch");
	g[1].knob[MC_KNOB_SOFT] = B(64 * M);
	spec_init(&g[2], "stream");
	spec_init(&g[3], "cache");
	g[3].knob[MC_KNOB_MAX] = B(256 * M);
	g[3].knob[MC_KNOB_HIGH] = B(255 * M);
	g[3].thp = 1;
	memset(p, 0, sizeof(*p));
	p->file = "t.yaml";
	p->version = 1;
	p->parent = "/test";
	p->numa = MC_NUMA_WEIGHTED;
	p->groups = g;
	p->n_groups = 4;
}

/*
 * Four intervals of the engine on v2: the decisions of each checked against
 * values computed by hand. It is long because each interval builds on the
 * state the one before left.
 */
static void test_decide_v2(void)
{
	struct mc_policy_config cfg = { .headroom = 24 * M, .cpus = 2, .ws_alpha = 0.5 };
	struct mc_group_spec g[4];
	struct gdef rows[N(v2_rows)];
	struct mc_profile p;
	struct mc_snapshot s;
	struct mc_decisions d;
	struct mc_diags diags = { 0 };
	struct mc_policy *pol;
	uint64_t ws;
	int r;

	v2_profile(g, &p);
	tap_eq_int(mc_policy_new(&cfg, &pol), 0, "v2: policy created");

	/* interval 1 */
	snap_build(&s, v2_rows, N(v2_rows), 2 * G);
	r = mc_policy_decide(pol, &p, &s, &caps_v2, &d, &diags);
	tap_eq_int(r, 0, "v2 interval 1: decides");
	tap_eq_str(dec_str(&d, &caps_v2, false),
		   "web memory.low=250M; batch memory.low=64M; cache memory.high=252M",
		   "v2 interval 1: settings");
	tap_eq_str(dec_str(&d, &caps_v2, true), "stream 160M [155M,5M]; batch 40M",
		   "v2 interval 1: reclaims, largest first, stream's node 0 down to 70M first, none from web");
	check_reason("v2 web low", reason_of(&d, "web", false, MC_KNOB_LOW),
		     "working set 250M (active 250M, refaults 0/interval): memory.low 250M");
	check_reason("v2 batch low", reason_of(&d, "batch", false, MC_KNOB_LOW),
		     "protects up to its soft limit 64M (stock v2 has no memory.soft_limit): memory.low 64M");
	check_reason("v2 cache high", reason_of(&d, "cache", false, MC_KNOB_HIGH),
		     "lowers high 255M to 252M: a THP group needs 4M (2M x 2 CPUs) between high and max 256M");
	tap_eq_str(reason_of(&d, "web", true, 0), "", "v2: the protect: active group is not reclaimed by memctl");
	check_reason("v2 batch reclaim", reason_of(&d, "batch", true, 0),
		     "'batch' is 40M above its soft limit 64M: gives 40M of the 200M '/test' needs back");
	check_reason("v2 stream reclaim", reason_of(&d, "stream", true, 0),
		     "gives 160M first as it streams (inactive file 300M of usage 400M, refaults 0/interval) of the 200M '/test' needs back");
	check_reason("v2 stream reclaim", reason_of(&d, "stream", true, 0),
		     "per node N0 155M, N1 5M (the largest weights first; weights: inactive file not mapped x reclaim / (reclaim + mapped) 225M, 75M)");
	tap_eq_int((long long)d.n_notes, 1, "v2 interval 1: one note");
	if (d.n_notes == 1)
		tap_eq_str(d.notes[0],
			   "NUMA split computed for 'stream' but this host cannot reclaim per node (no memory.reclaim nodes=)",
			   "v2 interval 1: NUMA is not enforceable on a stock kernel");
	tap_eq_int(mc_policy_working_set(pol, "web", &ws), 0, "v2 interval 1: web has an estimate");
	tap_eq_u64(ws, 250 * M, "v2 interval 1: estimate 250M");
	tap_eq_int(mc_policy_working_set(pol, "batch", &ws), -ENOENT, "v2: batch is not protected");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);

	/*
	 * interval 2: no demand (2000M < 2024M). web: active 200M, 2560 pages
	 * refaulted (10M): 210M is 40M below the estimate 250M, more than its
	 * deadband (1% of 250M = 2.5M), but 10M of refaults are more than the
	 * deadband too: reclaim is taking its pages, so the estimate holds at
	 * 250M without counting towards the hold. cache's fallback counter went
	 * 10 -> 22.
	 */
	memcpy(rows, v2_rows, sizeof(rows));
	rows[0].usage = 2000 * M;
	rows[1].stat[1].val = 100 * M;
	rows[1].stat[4].val = 2560;
	rows[4].stat[1].val = 22;
	snap_build(&s, rows, N(rows), 2 * G);
	r = mc_policy_decide(pol, &p, &s, &caps_v2, &d, &diags);
	tap_eq_int(r, 0, "v2 interval 2: decides");
	tap_eq_str(dec_str(&d, &caps_v2, false),
		   "web memory.low=250M; batch memory.low=64M; cache memory.high=252M",
		   "v2 interval 2: settings are emitted again, web's low holds");
	tap_eq_str(dec_str(&d, &caps_v2, true), "", "v2 interval 2: no demand, no reclaim");
	check_reason("v2 web low 2", reason_of(&d, "web", false, MC_KNOB_LOW),
		     "working set 250M (active 200M, refaults 10M/interval, held: it refaults, reclaim is taking its pages): memory.low 250M");
	tap_check(d.n_notes == 1 &&
		  strcmp(d.notes[0], "'cache': 12 huge-page charges fell back to small pages since the last interval") == 0,
		  "v2 interval 2: THP fallbacks reported (%s)", d.n_notes ? d.notes[0] : "none");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);

	/* interval 3: web is gone; its state is dropped */
	memcpy(rows, v2_rows, sizeof(rows));
	rows[0].usage = 1 * G;
	rows[1] = rows[4];
	snap_build(&s, rows, N(rows) - 1, 2 * G);
	r = mc_policy_decide(pol, &p, &s, &caps_v2, &d, &diags);
	tap_eq_int(r, 0, "v2 interval 3: decides without web");
	tap_eq_int(mc_policy_working_set(pol, "web", &ws), -ENOENT, "v2 interval 3: web's state dropped");
	tap_eq_str(dec_str(&d, &caps_v2, false), "batch memory.low=64M; cache memory.high=252M",
		   "v2 interval 3: settings for present groups only");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);

	/* interval 4: web is back as a new group: estimate from active, no refault history */
	memcpy(rows, v2_rows, sizeof(rows));
	rows[0].usage = 1 * G;
	rows[1].stat[1].val = 100 * M;
	rows[1].stat[4].val = 2560;
	snap_build(&s, rows, N(rows), 2 * G);
	r = mc_policy_decide(pol, &p, &s, &caps_v2, &d, &diags);
	tap_eq_int(r, 0, "v2 interval 4: decides");
	tap_eq_int(mc_policy_working_set(pol, "web", &ws), 0, "v2 interval 4: web has an estimate again");
	tap_eq_u64(ws, 200 * M, "v2 interval 4: starts over at active 200M");
	tap_eq_int((long long)diags.n, 0, "v2: no diagnostics");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);
	mc_diags_free(&diags);
}

/*
 * The deadband on memory.low (v2): web's working set is 250M (active 100 +
 * 150); its live low is 8K below, within the deadband (1% of 250M - 8K is
 * 2.5M): the live value is kept, so nothing is written. 3M below is beyond
 * it: 250M is written. And a working set that fell is followed down: 240M
 * live is 10M below 250M, so 250M is written; 260M live (last interval's)
 * is 10M above, so 250M too. batch's stock soft limit 64M fits the
 * parent's 2G beside web's 250M, so its memory.low is 64M at usage 50M,
 * and no function of usage: it is written exactly, 8K off or 14M
 * (test_v2_soft_low has the deadband of a share that moves).
 */
static void test_v2_low_deadband(void)
{
	struct mc_policy_config cfg = { .headroom = 24 * M, .cpus = 2 };
	static const uint64_t live[] = { 250 * M - 8192, 247 * M, 260 * M };
	static const uint64_t want[] = { 250 * M - 8192, 250 * M, 250 * M };
	static const uint64_t live_b[] = { 64 * M - 8192, 50 * M, 64 * M };
	static const uint64_t want_b[] = { 64 * M, 64 * M, 64 * M };
	struct mc_group_spec g[4];
	struct gdef rows[N(v2_rows)];
	struct mc_profile p;

	v2_profile(g, &p);
	for (size_t i = 0; i < N(live); i++) {
		struct mc_policy *pol;
		struct mc_snapshot s;
		struct mc_decisions d;
		uint64_t got = 0, got_b = 0;

		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		memcpy(rows, v2_rows, sizeof(rows));
		rows[1].raw[MC_KNOB_LOW] = live[i];
		rows[2].raw[MC_KNOB_LOW] = live_b[i];
		rows[2].usage = 50 * M;
		snap_build(&s, rows, N(rows), 2 * G);
		if (mc_policy_decide(pol, &p, &s, &caps_v2, &d, NULL) < 0)
			abort();
		for (size_t k = 0; k < d.n_set; k++)
			if (d.set[k].knob == MC_KNOB_LOW && strcmp(d.set[k].group, "web") == 0)
				got = d.set[k].value;
			else if (d.set[k].knob == MC_KNOB_LOW && strcmp(d.set[k].group, "batch") == 0)
				got_b = d.set[k].value;
		tap_eq_u64(got, want[i], "v2 low deadband: live %llu", (unsigned long long)live[i]);
		tap_eq_u64(got_b, want_b[i], "v2 soft-limit low deadband: live %llu",
			   (unsigned long long)live_b[i]);
		mc_decisions_free(&d);
		mc_snapshot_free(&s);
		mc_policy_free(pol);
	}
}

/* The intervals the decisions report knob k of group converged after, 0: none. */
static unsigned settled_of(const struct mc_decisions *d, const char *group, enum mc_knob k)
{
	for (size_t i = 0; i < d->n_settled; i++)
		if (d->settled[i].knob == k && strcmp(d->settled[i].group, group) == 0)
			return d->settled[i].intervals;
	return 0;
}

/*
 * Decides one interval of p on s (freed here) and returns the value set for
 * group's knob k (0: none); *ret_why (may be NULL) gets a copy of its
 * reason, *ret_settled (may be NULL) the intervals the engine reports that
 * knob converged after (0: not reported this interval).
 */
static uint64_t decided(struct mc_policy *pol, const struct mc_profile *p, struct mc_snapshot *s,
			const struct mc_caps *caps, const char *group, enum mc_knob k,
			char **ret_why, unsigned *ret_settled)
{
	struct mc_decisions d;
	uint64_t v = 0;

	if (mc_policy_decide(pol, p, s, caps, &d, NULL) < 0)
		abort();
	for (size_t i = 0; i < d.n_set; i++)
		if (strcmp(d.set[i].group, group) == 0 && d.set[i].knob == k) {
			v = d.set[i].value;
			if (ret_why)
				*ret_why = strdup(d.set[i].reason);
		}
	if (ret_settled)
		*ret_settled = settled_of(&d, group, k);
	mc_decisions_free(&d);
	mc_snapshot_free(s);
	return v;
}

/*
 * One interval of a job re-reading its 64M (usage 66M) below a 1G parent,
 * with active_file active, pgactivate activations so far (v2; 0: the v1
 * snapshot, which has none) and memory.low live (v2). Returns the decided
 * memory.low (v2), the estimate and (ret_settled may be NULL) the
 * intervals the engine reports memory.low converged after (0: none).
 */
static uint64_t ws_interval(struct mc_policy *pol, bool v2, uint64_t active, uint64_t activations,
			    uint64_t live_low, uint64_t *ret_est, unsigned *ret_settled)
{
	struct gdef rows[] = {
		{ "", { 1 * G, UNL, 0, 0, NA, UNL }, 200 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "job", { UNL, UNL, live_low, 0, NA, UNL }, 66 * M,
		  { { "active_file", active }, { "inactive_file", 66 * M - active },
		    { "workingset_refault_file", 0 }, { v2 ? "pgactivate" : NULL, activations } },
		  { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec g[1];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_OFF, .groups = g, .n_groups = 1 };
	struct mc_snapshot s;
	uint64_t low;

	if (!v2)
		rows[1].raw[MC_KNOB_LOW] = NA;
	spec_init(&g[0], "job");
	g[0].protect = MC_PROTECT_ACTIVE;
	snap_build(&s, rows, N(rows), 1 * G);
	low = decided(pol, &p, &s, v2 ? &caps_v2 : &caps_v1, "job", MC_KNOB_LOW, NULL, ret_settled);
	if (mc_policy_working_set(pol, "job", ret_est) < 0)
		abort();
	return low;
}

/*
 * The estimate does not decay while the job keeps touching its pages. The
 * job's first pass makes all 64M active; from then on the kernel keeps
 * moving its pages to the inactive list and its passes bring them back:
 *   - v2: active 40M, and 6144 pages (24M) activated every interval: 40 +
 *     24 = 64M in use, so memory.low stays 64M for 24 intervals, with no
 *     write after the first. The same job idle (no activations): after the
 *     hold (10 intervals) the estimate follows the active size down, 64 +
 *     0.3 (40 - 64) = 56.8M at interval 12, and memory.low with it.
 *   - v1 (no activation counter): active 40M and 52M by turns; the 12M it
 *     grows by in every other interval are pages back in use (52 + 12 =
 *     64M), so the estimate stays 64M; without that it would decay after
 *     the hold, as the 40M intervals are 24M below it.
 */
static void test_ws_in_use(void)
{
	struct mc_policy_config cfg = { .cpus = 1 };

	for (int idle = 0; idle <= 1; idle++) {
		struct mc_policy *pol;
		uint64_t low = 0, est = 0, act = 1000, low_at = 0;
		size_t writes = 0, decayed_at = 0;

		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		for (size_t k = 1; k <= 25; k++) {
			uint64_t next = ws_interval(pol, true, k == 1 ? 64 * M : 40 * M, act, low, &est,
						    NULL);

			writes += next != low;
			if (!decayed_at && est < 64 * M) {
				decayed_at = k;
				low_at = next;
			}
			low = next;
			if (!idle)
				act += 24 * M / K4;
		}
		if (!idle) {
			tap_check(decayed_at == 0 && low == 64 * M && writes == 1,
				  "ws in use, v2: memory.low stays 64M over 25 intervals, written once (est %llu, low %llu, writes %zu)",
				  (unsigned long long)est, (unsigned long long)low, writes);
		} else {
			tap_check(decayed_at == 12,
				  "ws idle, v2: the estimate follows the active size after the hold, at interval 12 (%zu)",
				  decayed_at);
			tap_check(low_at < 56 * M + 900 * 1024 && low_at > 56 * M,
				  "ws idle, v2: memory.low follows it down (%llu)", (unsigned long long)low_at);
		}
		mc_policy_free(pol);
	}
	{
		struct mc_policy *pol;
		uint64_t est = 0, lowest = UNL;

		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		for (size_t k = 1; k <= 25; k++) {
			ws_interval(pol, false, k == 1 ? 64 * M : k % 2 ? 52 * M : 40 * M, 0, 0, &est,
				    NULL);
			if (est < lowest)
				lowest = est;
		}
		tap_eq_u64(lowest, 64 * M, "ws in use, v1: active growth keeps the estimate at 64M");
		mc_policy_free(pol);
	}
}

/* ---- stock v2 soft limits as memory.low ---- */

struct sl_group {
	const char *name;
	uint64_t soft;      /* UNL: none */
	uint64_t protect;   /* protect: SIZE, 0: none */
	uint64_t max;       /* profile and live, UNL: none */
	uint64_t usage;
	uint64_t live_low;
};

/*
 * Decides one interval on stock v2 of up to 3 groups below /test, whose
 * limit is limit, each with its profile soft limit, protect: SIZE and max
 * and its live usage and memory.low. Writes the decided memory.low of each
 * to ret[] (NA: none decided) and, when ret_why is not NULL, a copy of the
 * first group's reason to it; the intervals the first group's memory.low
 * is reported converged after to *ret_settled when that is not NULL.
 */
static void sl_interval(struct mc_policy *pol, uint64_t limit, const struct sl_group *in, size_t n,
			uint64_t *ret, char **ret_why, unsigned *ret_settled)
{
	struct gdef rows[4] = { { "", { limit, UNL, 0, 0, NA, UNL }, 0, { { 0 } }, { { { 0 } } }, 0, 0 } };
	struct mc_group_spec g[3];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_OFF, .groups = g, .n_groups = n };
	struct mc_snapshot s;
	struct mc_decisions d;

	for (size_t i = 0; i < n; i++) {
		spec_init(&g[i], in[i].name);
		if (in[i].soft != UNL)
			g[i].knob[MC_KNOB_SOFT] = B(in[i].soft);
		if (in[i].max != UNL)
			g[i].knob[MC_KNOB_MAX] = B(in[i].max);
		if (in[i].protect) {
			g[i].protect = MC_PROTECT_SIZE;
			g[i].protect_size = B(in[i].protect);
		}
		rows[i + 1] = (struct gdef){ in[i].name, { in[i].max, UNL, in[i].live_low, 0, NA, UNL },
					     in[i].usage, { { 0 } }, { { { 0 } } }, 0, 0 };
		rows[0].usage += in[i].usage;
	}
	snap_build(&s, rows, n + 1, limit);
	if (mc_policy_decide(pol, &p, &s, &caps_v2, &d, NULL) < 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		ret[i] = NA;
		for (size_t k = 0; k < d.n_set; k++)
			if (d.set[k].knob == MC_KNOB_LOW && strcmp(d.set[k].group, in[i].name) == 0) {
				ret[i] = d.set[k].value;
				if (i == 0 && ret_why)
					*ret_why = strdup(d.set[k].reason);
			}
	}
	if (ret_settled)
		*ret_settled = settled_of(&d, in[0].name, MC_KNOB_LOW);
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
}

/*
 * A group below its soft limit is protected up to it, not up to its usage,
 * bounded by the parent's limit, its own max, and so that the protections
 * of the parent's children claim no more than its limit; only the share an
 * over-claimed limit leaves moves with the usages, and only that is
 * subject to the deadband. The parent /test has 128M in every case.
 */
static void test_v2_soft_low(void)
{
	/* a's share when a (soft 100M, usage 40M) and c (100M, 20M) claim 200M of 128M */
	static const uint64_t share_a = 40 * M + 7460 * K4, share_c = 20 * M + 9947 * K4;
	static const struct {
		const char *name;
		size_t n;
		struct sl_group g[3];
		uint64_t want[3];
		const char *why;   /* in the first group's reason */
	} c[] = {
		{ "below its soft limit: protected up to it at usage 5M", 2,
		  { { "a", 128 * M, 0, UNL, 5 * M, 0 }, { "b", 0, 0, UNL, 100 * M, 0 } },
		  { 128 * M, 0 },
		  "protects up to its soft limit 128M (stock v2 has no memory.soft_limit): memory.low 128M" },
		{ "a soft limit above the parent's limit: bounded by it", 2,
		  { { "a", 256 * M, 0, UNL, 5 * M, 0 }, { "b", 0, 0, UNL, 100 * M, 0 } },
		  { 128 * M, 0 },
		  "protects up to its soft limit 256M, bounded by the limit 128M of '/test' (stock v2 has no memory.soft_limit): memory.low 128M" },
		{ "its own max bounds it", 2,
		  { { "a", 128 * M, 0, 64 * M, 5 * M, 0 }, { "b", 0, 0, UNL, 100 * M, 0 } },
		  { 64 * M, 0 }, " (limited by max 64M): memory.low 64M" },
		{ "siblings claim more than the limit: usage and a share each", 3,
		  { { "a", 100 * M, 0, UNL, 40 * M, 0 }, { "c", 100 * M, 0, UNL, 20 * M, 0 },
		    { "b", 0, 0, UNL, 60 * M, 0 } },
		  { share_a, share_c, 0 },
		  "the protections below '/test' claim more than its limit 131072K, so each keeps what it holds below them and a share of the rest" },
		{ "a protected sibling's room comes first", 2,
		  { { "a", 100 * M, 0, UNL, 10 * M, 0 }, { "web", UNL, 64 * M, UNL, 70 * M, 0 } },
		  { 64 * M, 64 * M }, "protects 64M of its soft limit 100M at usage 10M" },
		{ "a share within the deadband of the live low: kept", 3,
		  { { "a", 100 * M, 0, UNL, 40 * M, share_a - 2 * K4 },
		    { "c", 100 * M, 0, UNL, 20 * M, share_c }, { "b", 0, 0, UNL, 60 * M, 0 } },
		  { share_a - 2 * K4, share_c, 0 }, "within the deadband 1024K of the live 70792K: kept" },
		{ "a soft limit that fits is written exactly, deadband or not", 2,
		  { { "a", 128 * M, 0, UNL, 5 * M, 128 * M - 2 * K4 }, { "b", 0, 0, UNL, 100 * M, 0 } },
		  { 128 * M, 0 }, "soft limit 131072K (stock v2 has no memory.soft_limit): memory.low 131072K" },
	};
	struct mc_policy_config cfg = { .cpus = 1 };

	for (size_t i = 0; i < N(c); i++) {
		struct mc_policy *pol;
		uint64_t got[3];
		char *why = NULL;
		bool ok = true;

		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		sl_interval(pol, 128 * M, c[i].g, c[i].n, got, &why, NULL);
		for (size_t k = 0; k < c[i].n; k++)
			if (got[k] != c[i].want[k]) {
				printf("#   %s: got %llu, want %llu\n", c[i].g[k].name,
				       (unsigned long long)got[k], (unsigned long long)c[i].want[k]);
				ok = false;
			}
		tap_check(ok, "v2 soft low, %s", c[i].name);
		check_reason(c[i].name, why ? why : "", c[i].why);
		free(why);
		mc_policy_free(pol);
	}
}

/*
 * What the guest measured (docs/BENCHMARKS-guest.md, soft-limit ordering):
 * a fills its 80M buffer beside b under a 128M parent, a soft limit 128M,
 * b 0, one interval per step: 5M, 19M, 40M, 80M. a's memory.low is 128M
 * from the first interval on (it used to follow a's usage an interval
 * late: 5M, 19M, 40M), written once, and reported converged after 1
 * interval in the second.
 */
static void test_v2_soft_low_grows(void)
{
	static const uint64_t fill[] = { 5 * M, 19 * M, 40 * M, 80 * M };
	struct mc_policy_config cfg = { .cpus = 1 };
	struct mc_policy *pol;
	uint64_t live = 0, got[2];
	unsigned writes = 0, settled = 0, settled_at = 0;
	bool always = true;

	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	for (size_t k = 0; k < N(fill); k++) {
		struct sl_group g[2] = { { "a", 128 * M, 0, UNL, fill[k], live },
					 { "b", 0, 0, UNL, 120 * M - fill[k], 0 } };

		sl_interval(pol, 128 * M, g, 2, got, NULL, &settled);
		always &= got[0] == 128 * M;
		writes += got[0] != live;
		if (settled && !settled_at)
			settled_at = (unsigned)k + 1;
		live = got[0];
	}
	tap_check(always && writes == 1,
		  "v2 soft low while a fills: 128M from the first interval, written once (last %llu, writes %u)",
		  (unsigned long long)got[0], writes);
	tap_check(settled_at == 2, "v2 soft low while a fills: converged in interval 2 (%u)", settled_at);
	mc_policy_free(pol);
}

/*
 * One interval of a (soft limit 128M, usage 80M, live memory.low a_low)
 * beside b (soft limit 0, usage 47M, workingset_refault_anon counter
 * b_refault pages) under /test's 128M at 127M, headroom 8M: /test needs 7M
 * back, all of it b's (above its soft limit). Returns b's reclaimed bytes
 * (0: none) and sets *ret_left when a note says b is left to the kernel.
 */
static uint64_t futile_interval(struct mc_policy *pol, const struct mc_caps *caps, uint64_t a_low,
				uint64_t b_refault, bool *ret_left)
{
	bool v1 = caps->ver == MC_CGV1;
	struct gdef rows[] = {
		{ "", { 128 * M, UNL, 0, 0, NA, UNL }, 127 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "a", { UNL, UNL, v1 ? NA : a_low, 0, v1 || caps->patched ? UNL : NA, UNL }, 80 * M,
		  { { "workingset_refault_anon", 0 } }, { { { 0 } } }, 0, 0 },
		{ "b", { UNL, UNL, v1 ? NA : 0, 0, v1 || caps->patched ? 0 : NA, UNL }, 47 * M,
		  { { "workingset_refault_anon", b_refault } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec g[2];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_OFF, .groups = g, .n_groups = 2 };
	struct mc_decisions d;
	uint64_t got = 0;

	spec_init(&g[0], "a");
	g[0].knob[MC_KNOB_SOFT] = B(128 * M);
	spec_init(&g[1], "b");
	g[1].knob[MC_KNOB_SOFT] = B(0);
	decide_rows(pol, &p, rows, N(rows), 128 * M, caps, &d);
	for (size_t i = 0; i < d.n_reclaim; i++)
		if (strcmp(d.reclaim[i].group, "b") == 0)
			got = d.reclaim[i].bytes;
	*ret_left = false;
	for (size_t i = 0; i < d.n_notes; i++)
		*ret_left |= strncmp(d.notes[i], "'b' is left to the kernel's reclaim for its 7M", 46) == 0;
	mc_decisions_free(&d);
	return got;
}

/*
 * A group above its soft limit is left to the kernel's reclaim when the
 * kernel spares its sibling: on v2, a is within its memory.low 128M, so
 * b's 7M share is left, in the first interval and after, whatever b
 * refaulted. Not when a is outside its low (live 0: the kernel's limit
 * reclaim would take from a too, so memctl's reclaim of b first is the
 * ordering), or on v1 (whose limit reclaim spares nobody). On the patched
 * kernel a below its soft limit is spared by the kernel's ordering, low or
 * not.
 */
static void test_v2_futile_reclaim(void)
{
	static const struct {
		const char *name;
		const struct mc_caps *caps;
		uint64_t a_low, refault2;   /* b's counter in interval 2, pages */
		uint64_t want;              /* b's reclaim in intervals 1 and 2 */
	} c[] = {
		{ "v2, b refaults 16M, a within its low: left to the kernel", &caps_v2, 128 * M,
		  1000 + 4096, 0 },
		{ "v2, b refaults 1M: left to the kernel too", &caps_v2, 128 * M, 1000 + 256, 0 },
		{ "v2, a outside its low: reclaimed", &caps_v2, 0, 1000 + 4096, 7 * M },
		{ "v1: reclaimed", &caps_v1, 0, 1000 + 4096, 7 * M },
		{ "patched, a below its soft limit: left to the kernel", &caps_v2p, 0, 1000 + 4096, 0 },
	};
	struct mc_policy_config cfg = { .headroom = 8 * M, .cpus = 1 };

	for (size_t i = 0; i < N(c); i++) {
		struct mc_policy *pol;
		uint64_t first, second;
		bool left1, left2;

		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		first = futile_interval(pol, c[i].caps, c[i].a_low, 1000, &left1);
		second = futile_interval(pol, c[i].caps, c[i].a_low, c[i].refault2, &left2);
		tap_check(first == c[i].want && left1 == !c[i].want,
			  "futile reclaim, %s: interval 1 (got %llu, note %d)", c[i].name,
			  (unsigned long long)first, left1);
		tap_check(second == c[i].want && left2 == !c[i].want,
			  "futile reclaim, %s: interval 2 (got %llu, note %d)", c[i].name,
			  (unsigned long long)second, left2);
		mc_policy_free(pol);
	}
}

/*
 * A pressure demand that those above their soft limit cannot meet: /test
 * (1G, far below it) has PSI some 50%, so it needs its headroom 20M back;
 * b (soft limit 0) holds 2M, a (soft limit 128M) 30M. On v2 the kernel
 * protects a below its soft limit (its memory.low, or the patch's
 * ordering), and nothing forces the 20M: memctl leaves a alone, and b to
 * the kernel's reclaim, which takes from b first. On v1 memctl's reclaim
 * is the ordering and falls back to a: 18M.
 */
static void test_v2_soft_floor(void)
{
	static const struct {
		const char *name;
		const struct mc_caps *caps;
		const char *want;
	} c[] = {
		{ "v2", &caps_v2, "" },
		{ "patched v2", &caps_v2p, "" },
		{ "v1", &caps_v1, "a 18M; b 2M" },
	};
	struct mc_policy_config cfg = { .headroom = 20 * M, .cpus = 1 };

	for (size_t i = 0; i < N(c); i++) {
		bool v1 = c[i].caps->ver == MC_CGV1, file = v1 || c[i].caps->patched;
		struct gdef rows[] = {
			{ "", { 1 * G, UNL, 0, 0, NA, UNL }, 32 * M, { { 0 } }, { { { 0 } } }, 0, 50.0 },
			{ "a", { UNL, UNL, v1 ? NA : 128 * M, 0, file ? 128 * M : NA, UNL }, 30 * M,
			  { { 0 } }, { { { 0 } } }, 0, 0 },
			{ "b", { UNL, UNL, v1 ? NA : 0, 0, file ? 0 : NA, UNL }, 2 * M, { { 0 } },
			  { { { 0 } } }, 0, 0 },
		};
		struct mc_group_spec g[2];
		struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
					.numa = MC_NUMA_OFF, .groups = g, .n_groups = 2 };
		struct mc_policy *pol;
		struct mc_snapshot s;
		struct mc_decisions d;

		spec_init(&g[0], "a");
		g[0].knob[MC_KNOB_SOFT] = B(128 * M);
		spec_init(&g[1], "b");
		g[1].knob[MC_KNOB_SOFT] = B(0);
		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		snap_build(&s, rows, N(rows), 1 * G);
		if (mc_policy_decide(pol, &p, &s, c[i].caps, &d, NULL) < 0)
			abort();
		tap_eq_str(dec_str(&d, c[i].caps, true), c[i].want,
			   "soft floor, %s: who gives the pressure demand", c[i].name);
		mc_decisions_free(&d);
		mc_snapshot_free(&s);
		mc_policy_free(pol);
	}
}

/* The patched kernel: soft limits are the kernel's, NUMA splits are enforced. */
static void test_decide_v2_patched(void)
{
	struct mc_policy_config cfg = { .headroom = 24 * M, .cpus = 2, .ws_alpha = 0.5 };
	struct mc_group_spec g[4];
	struct mc_profile p;
	struct mc_snapshot s;
	struct mc_decisions d;
	struct mc_policy *pol;
	struct gdef rows[N(v2_rows)];

	memcpy(rows, v2_rows, sizeof(rows));
	for (size_t i = 0; i < N(rows); i++)
		rows[i].raw[MC_KNOB_SOFT] = UNL;
	rows[2].raw[MC_KNOB_SOFT] = 64 * M;
	v2_profile(g, &p);
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	snap_build(&s, rows, N(rows), 2 * G);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v2p, &d, NULL), 0, "patched v2: decides");
	/* no memory.low from soft limits: the kernel has memory.soft_limit */
	tap_eq_str(dec_str(&d, &caps_v2p, false),
		   "web memory.low=250M; cache memory.high=252M; web memory.reclaim_protect_active=1; "
		   "batch memory.reclaim_protect_active=0; stream memory.reclaim_protect_active=0; "
		   "cache memory.reclaim_protect_active=0",
		   "patched v2: settings, the active-set switch on for the protect: active group only");
	check_reason("patched web switch", reason_of(&d, "web", false, MC_KNOB_PROTECT_ACTIVE),
		     "protect: active: its own reclaim takes inactive pages first");
	tap_eq_str(dec_str(&d, &caps_v2p, true), "stream 160M [155M,5M]; batch 40M",
		   "patched v2: the same reclaims");
	tap_check(d.n_notes == 1 && strncmp(d.notes[0], "reclaim at the limit of the profile's parent '/test'", 51) == 0,
		  "patched v2: one note, the parent's switch is not memctl's; NUMA is enforced (%s)",
		  d.n_notes ? d.notes[0] : "none");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);
}

/*
 * v1. Parent limit 512M, headroom 8M: usage 510M is 6M above 504M. No soft
 * limits, so the 6M come by usage, streamers first: stream (inactive file
 * 150M > 100M) gives all 6M, split 1:1 by numa_stat "file" (v1 has no
 * inactive_file per node). web's working set from active_anon +
 * active_file (v2 names: the host layer renames v1's total_* keys): 60 +
 * 100 = 160M, its usage 170M. v1 has no memory.low: the unprotected
 * siblings are capped so that the limit leaves room for web's usage (the
 * larger), the headroom and the deadband (1% of 512M = 5368709.12 bytes,
 * up to a page: 1311 pages = 5244K): 524288K - 174080K - 8192K - 5244K =
 * 336772K. batch (anon_thp, v1's total_rss_huge, > 0: THP) is 5M above its
 * high 100M: emulated, rounded up to 6M; logs is 4K above its high 30M (one
 * unit per reason: 30724K above 30720K).
 */
static void test_decide_v1(void)
{
	struct mc_policy_config cfg = { .headroom = 8 * M, .cpus = 2, .ws_alpha = 0.5 };
	static const struct gdef rows[] = {
		{ "", { 512 * M, NA, NA, NA, UNL, UNL }, 510 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "web", { UNL, NA, NA, NA, UNL, UNL }, 170 * M,
		  { { "active_anon", 60 * M }, { "active_file", 100 * M },
		    { "inactive_file", 5 * M } },
		  { { { 0 } } }, 0, 0 },
		{ "stream", { 1 * G, NA, NA, NA, UNL, UNL }, 200 * M,
		  { { "inactive_file", 150 * M }, { "active_file", 20 * M } },
		  { { { "file", 100 * M }, { "anon", 10 * M } }, { { "file", 100 * M }, { "anon", 30 * M } } },
		  2, 0 },
		{ "batch", { UNL, NA, NA, NA, UNL, UNL }, 105 * M,
		  { { "anon_thp", 4 * M }, { "inactive_file", 10 * M } }, { { { 0 } } }, 0, 0 },
		{ "logs", { UNL, NA, NA, NA, UNL, UNL }, 30 * M + K4, { { 0 } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec g[4];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_WEIGHTED, .groups = g, .n_groups = 4 };
	struct mc_snapshot s;
	struct mc_decisions d;
	struct mc_policy *pol;
	uint64_t ws;

	spec_init(&g[0], "web");
	g[0].protect = MC_PROTECT_ACTIVE;
	spec_init(&g[1], "stream");
	g[1].knob[MC_KNOB_MAX] = B(1 * G);
	spec_init(&g[2], "batch");
	g[2].knob[MC_KNOB_HIGH] = B(100 * M);
	spec_init(&g[3], "logs");
	g[3].knob[MC_KNOB_HIGH] = B(30 * M);
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	snap_build(&s, rows, N(rows), 512 * M);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v1, &d, NULL), 0, "v1: decides");
	tap_eq_str(dec_str(&d, &caps_v1, false),
		   "stream memory.limit_in_bytes=336772K; batch memory.limit_in_bytes=336772K; logs memory.limit_in_bytes=336772K",
		   "v1: unprotected siblings capped, no memory.low");
	tap_eq_str(dec_str(&d, &caps_v1, true), "batch 6M; stream 6M [3M,3M]; logs 4K",
		   "v1: reclaims");
	check_reason("v1 stream cap", reason_of(&d, "stream", false, MC_KNOB_MAX),
		     "caps 'stream' at 336772K so the limit 524288K of '/test' leaves room for the protected 'web' 174080K (its usage; working set 163840K), headroom 8192K and a deadband 5244K");
	check_reason("v1 stream reclaim", reason_of(&d, "stream", true, 0),
		     "gives 6M first as it streams (inactive file 150M of usage 200M, refaults 0/interval) of the 6M '/test' needs back (usage 510M above limit 512M minus headroom 8M)");
	check_reason("v1 stream reclaim", reason_of(&d, "stream", true, 0),
		     "; weights: file 100M, 100M)");
	check_reason("v1 batch reclaim", reason_of(&d, "batch", true, 0),
		     "usage 105M is 5M above high 100M: emulates high on v1; rounded up to whole 2M huge pages: 6M");
	check_reason("v1 logs reclaim", reason_of(&d, "logs", true, 0),
		     "usage 30724K is 4K above high 30720K: emulates high on v1");
	tap_check(d.n_notes == 1 && strstr(d.notes[0], "NUMA split computed for 'stream'"),
		  "v1: NUMA split is reported as not enforceable");
	tap_eq_int(mc_policy_working_set(pol, "web", &ws), 0, "v1: web's estimate");
	tap_eq_u64(ws, 160 * M, "v1: estimate from active_anon + active_file");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);
}

/* v1 caps: the cap against the child's own max, its soft limit, and the floor. */
static void test_v1_caps(void)
{
	static const struct {
		const char *name;
		uint64_t stream_max;    /* profile, UNL = unset */
		uint64_t stream_soft;   /* live */
		uint64_t protect_size;  /* web: 0 = protect: active (working set 160M) */
		uint64_t want;
		const char *why;
	} c[] = {
		/* web's usage 170M over its working set 160M: 512M - 170M - 8M - 5244K (deadband) */
		{ "plain", UNL, UNL, 0, 336772 * 1024, "caps 'stream' at 336772K so the limit 524288K" },
		{ "own max lower", 300 * M, UNL, 0, 300 * M, "caps 'stream' at 307200K (its own max is lower)" },
		{ "not below the soft limit", UNL, 400 * M, 0, 400 * M,
		  "caps 'stream' at 409600K (not below its soft limit)" },
		/* 512M - 500M - 8M - 5244K < 0: floor max(2 x 8, 16) = 16M */
		{ "floor", UNL, UNL, 500 * M, 16 * M,
		  "caps 'stream' at 16384K (the floor: 2 x headroom, at least 16384K) so the limit 524288K of '/test' leaves room for the protected 'web' 512000K, headroom 8192K and a deadband 5244K" },
	};
	struct mc_policy_config cfg = { .headroom = 8 * M, .cpus = 1 };

	for (size_t i = 0; i < N(c); i++) {
		struct gdef rows[] = {
			{ "", { 512 * M, NA, NA, NA, UNL, UNL }, 100 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
			{ "web", { UNL, NA, NA, NA, UNL, UNL }, 170 * M,
			  { { "active_anon", 60 * M }, { "active_file", 100 * M } }, { { { 0 } } }, 0, 0 },
			{ "stream", { UNL, NA, NA, NA, c[i].stream_soft, UNL }, 10 * M, { { 0 } },
			  { { { 0 } } }, 0, 0 },
		};
		struct mc_group_spec g[2];
		struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
					.numa = MC_NUMA_OFF, .groups = g, .n_groups = 2 };
		struct mc_snapshot s;
		struct mc_decisions d;
		struct mc_policy *pol;

		spec_init(&g[0], "web");
		g[0].protect = c[i].protect_size ? MC_PROTECT_SIZE : MC_PROTECT_ACTIVE;
		g[0].protect_size = B(c[i].protect_size);
		spec_init(&g[1], "stream");
		if (c[i].stream_max != UNL)
			g[1].knob[MC_KNOB_MAX] = B(c[i].stream_max);
		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		snap_build(&s, rows, N(rows), 512 * M);
		tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v1, &d, NULL), 0, "v1 cap %s: decides",
			   c[i].name);
		tap_check(d.n_set == 1 && d.set[0].knob == MC_KNOB_MAX &&
			  strcmp(d.set[0].group, "stream") == 0 && d.set[0].value == c[i].want,
			  "v1 cap %s: stream max %llu (got %s)", c[i].name,
			  (unsigned long long)c[i].want, dec_str(&d, &caps_v1, false));
		check_reason("v1 cap", reason_of(&d, "stream", false, MC_KNOB_MAX), c[i].why);
		mc_decisions_free(&d);
		mc_snapshot_free(&s);
		mc_policy_free(pol);
	}
}

/*
 * The max decided for the second of two groups below a 192M parent
 * (rows[1] and rows[2]), the first with protect: active.
 */
static uint64_t pair_decided(struct mc_policy *pol, const struct gdef *rows, size_t n,
			     const struct mc_caps *caps, char **ret_why, unsigned *ret_settled)
{
	struct mc_group_spec g[2];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_OFF, .groups = g, .n_groups = 2 };
	struct mc_snapshot s;

	spec_init(&g[0], rows[1].path);
	g[0].protect = MC_PROTECT_ACTIVE;
	spec_init(&g[1], rows[2].path);
	snap_build(&s, rows, n, 192 * M);
	return decided(pol, &p, &s, caps, rows[2].path, MC_KNOB_MAX, ret_why, ret_settled);
}

/*
 * The analog of the active-set seed (docs/BENCHMARKS.md) on v1, one
 * interval: a 192M parent (headroom 8M, deadband 2015232), ws (protect:
 * active) with active file ws_active and usage ws_usage, stream at its
 * live cap. Returns the cap decided for
 * stream; *ret_why (may be NULL) gets a copy of its reason, *ret_settled
 * (may be NULL) the intervals the engine reports stream's cap converged
 * after (0: not reported this interval).
 */
static uint64_t v1_interval_rf(struct mc_policy *pol, uint64_t live_cap, uint64_t ws_active,
			       uint64_t ws_usage, uint64_t ws_refaults, uint64_t parent_usage,
			       char **ret_why, unsigned *ret_settled)
{
	struct gdef rows[] = {
		{ "", { 192 * M, NA, NA, NA, UNL, UNL }, parent_usage, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "ws", { UNL, NA, NA, NA, UNL, UNL }, ws_usage,
		  { { "active_file", ws_active }, { "inactive_file", ws_usage - ws_active },
		    { "workingset_refault_file", ws_refaults } },
		  { { { 0 } } }, 0, 0 },
		{ "stream", { live_cap, NA, NA, NA, UNL, UNL }, 100 * M,
		  { { "inactive_file", 90 * M }, { "workingset_refault_file", 0 } }, { { { 0 } } }, 0, 0 },
	};
	return pair_decided(pol, rows, N(rows), &caps_v1, ret_why, ret_settled);
}

/*
 * v2: web (protect: active, 64M of active file) and hog (anonymous memory,
 * no swap) in a 192M parent. While memory.low holds, memctl sets only
 * web's memory.low and leaves hog's max alone. Once memory.events low of
 * web rises (the kernel reclaimed it below its protection: hog left it
 * nothing else), hog is capped as on v1 - 192M - 64M - 8M - 2015232 =
 * 123813888 - and stays capped in later intervals without new breaches.
 */
static uint64_t v2_low_interval(struct mc_policy *pol, uint64_t low_events, char **ret_why)
{
	struct gdef rows[] = {
		{ "", { 192 * M, UNL, 0, 0, NA, UNL }, 190 * M, { { 0 } }, { { { 0 } } }, 0, 0, { { 0 } } },
		{ "web", { UNL, UNL, 64 * M, 0, NA, UNL }, 64 * M,
		  { { "active_file", 64 * M }, { "workingset_refault_file", 0 }, { "pgactivate", 0 } },
		  { { { 0 } } }, 0, 0, { { "low", low_events } } },
		{ "hog", { UNL, UNL, 0, 0, NA, 0 }, 126 * M, { { "active_anon", 126 * M } },
		  { { { 0 } } }, 0, 0, { { 0 } } },
	};
	return pair_decided(pol, rows, N(rows), &caps_v2, ret_why, NULL);
}

static void test_v2_low_breached(void)
{
	struct mc_policy_config cfg = { .cpus = 1 };
	struct mc_policy *pol;
	char *why = NULL;

	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	tap_eq_u64(v2_low_interval(pol, 0, NULL), 0, "v2 low holds 1: no cap on the sibling");
	tap_eq_u64(v2_low_interval(pol, 0, NULL), 0, "v2 low holds 2: still no cap");
	tap_eq_u64(v2_low_interval(pol, 3, &why), 123813888,
		   "v2 low breached: the sibling is capped as on v1");
	check_reason("v2 low breached", why ? why : "",
		     "memory.low did not hold 'web': the kernel reclaimed it below its protection");
	free(why);
	why = NULL;
	tap_eq_u64(v2_low_interval(pol, 3, &why), 123813888,
		   "v2 low breached before: the cap stays");
	check_reason("v2 low breached before", why ? why : "", "memory.low did not hold 'web' before");
	free(why);
	mc_policy_free(pol);
}

/* v1_interval_rf for a job that does not refault. */
static uint64_t v1_interval(struct mc_policy *pol, uint64_t live_cap, uint64_t ws_active,
			    uint64_t ws_usage, uint64_t parent_usage, char **ret_why,
			    unsigned *ret_settled)
{
	return v1_interval_rf(pol, live_cap, ws_active, ws_usage, 0, parent_usage, ret_why,
			      ret_settled);
}

/*
 * The kernel reclaims 20M of the protected job (64M, usage 64M) when the
 * parent reaches its limit; the job refaults 1024 pages (4M) an interval
 * getting them back. Its estimate holds at 64M, so the streamers' cap
 * (192M - 64M - 8M - 2015232 = 123813888) stays: following the usage down
 * to 44M + 4M would raise it by 16M and hand the streamers the pages they
 * pressed out. The reason still names the 64M protected.
 */
static void test_v1_reclaimed(void)
{
	struct mc_policy_config cfg = { .cpus = 1 };
	struct mc_policy *pol;
	uint64_t cap, cap2;
	char *why = NULL;

	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	cap = v1_interval_rf(pol, UNL, 64 * M, 64 * M, 0, 166 * M, NULL, NULL);
	tap_eq_u64(cap, 123813888, "v1 reclaimed 1: the cap is written");
	cap2 = v1_interval_rf(pol, cap, 40 * M, 44 * M, 1024, 192 * M, NULL, NULL);
	tap_eq_u64(cap2, cap, "v1 reclaimed 2: reclaim from the job does not raise the cap");
	cap2 = v1_interval_rf(pol, cap, 42 * M, 46 * M, 2048, 192 * M, &why, NULL);
	tap_eq_u64(cap2, cap, "v1 reclaimed 3: while it refaults the cap stays");
	check_reason("v1 reclaimed 3", why ? why : "", "the protected 'ws' 65536K");
	free(why);
	mc_policy_free(pol);
}

/*
 * The deadband on a v1 cap. Interval 1: 192M - ws's usage 66M - 8M -
 * 2015232 = 121716736 (118864K), written. 2: ws 8K larger: 118856K is
 * within the deadband of the live cap (1% of 121716736, up to a page:
 * 298 pages = 1192K): kept. 3: the same, but the parent is at 189000K,
 * above 192M - 8M = 188416K: urgent, written. 4: ws grows to 70M: 201326592
 * - 73400320 - 8388608 - 2015232 = 117522432 (114768K), 4088K lower: written.
 */
static void test_v1_deadband(void)
{
	struct mc_policy_config cfg = { .cpus = 1 };
	struct mc_policy *pol;
	uint64_t cap;
	char *why = NULL;

	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	cap = v1_interval(pol, UNL, 64 * M, 66 * M, 166 * M, NULL, NULL);
	tap_eq_u64(cap, 121716736, "v1 deadband 1: the cap is written");
	cap = v1_interval(pol, cap, 64 * M, 66 * M + 8192, 185432 * 1024, &why, NULL);
	tap_eq_u64(cap, 121716736, "v1 deadband 2: 8K more working set does not move the cap");
	check_reason("v1 deadband 2", why ? why : "",
		     "keeps 'stream' at 118864K: the cap 118856K it would get is within the deadband 1192K");
	free(why);
	cap = v1_interval(pol, cap, 64 * M, 66 * M + 8192, 189000 * 1024, NULL, NULL);
	tap_eq_u64(cap, 121708544, "v1 deadband 3: near the parent's limit the 8K are written");
	cap = v1_interval(pol, cap, 70 * M, 70 * M, 186000 * 1024, NULL, NULL);
	tap_eq_u64(cap, 117522432, "v1 deadband 4: beyond the deadband the cap moves");
	mc_policy_free(pol);
}

/*
 * After a workload change the decision converges within 3 intervals, and
 * the engine reports after how many. v1: the job's working set is 32M
 * (usage 33M) for 8 intervals, then 64M (usage 66M), then 16M (usage 17M:
 * it freed the rest). The caps they need: 201326592 - 66M - 8M - 2015232
 * = 121716736, and 201326592 - 17M - 8M - 2015232 = 173096960. Each phase
 * counts the intervals that wrote the cap (decided != live) and checks
 * that the engine reports the same count, once, in the interval after the
 * last write, and that the cap ends within the deadband of the one needed.
 * v2: memory.low of a job whose active pages grow from 32M to 64M, then
 * go idle at 40M: after the hold (10 intervals, no write), 3 writes
 * (56.8M, 49.56M, 40M), reported as 3. Prints what each change took.
 */
static void converge_check(const char *name, const uint64_t *vals, const unsigned *settled,
			   size_t n, uint64_t live, uint64_t want)
{
	size_t writes = 0, last = 0, reports = 0, report_at = 0;
	unsigned reported = 0;
	uint64_t d;

	for (size_t k = 0; k < n; k++) {
		if (vals[k] != live) {
			writes++;
			last = k + 1;
		}
		if (settled[k]) {
			reports++;
			reported = settled[k];
			report_at = k + 1;
		}
		live = vals[k];
	}
	d = vals[n - 1] > want ? vals[n - 1] - want : want - vals[n - 1];
	printf("# %s: converged after %u interval(s), %zu write(s), %llu at the end\n", name,
	       reported, writes, (unsigned long long)vals[n - 1]);
	tap_check(writes >= 1 && writes <= 3 && d < mc_deadband(want, 4096),
		  "converge: %s within 3 intervals (%zu writes, ends %llu off)", name, writes,
		  (unsigned long long)d);
	tap_check(reports == 1 && reported == writes && report_at == last + 1,
		  "converge: %s reported once, after %zu interval(s), in interval %zu (got %zu reports, %u, in %zu)",
		  name, writes, last + 1, reports, reported, report_at);
}

static void test_converge(void)
{
	static const struct {
		const char *name;
		uint64_t active, usage, want;
	} phase[] = {
		{ "v1 start", 32 * M, 33 * M, 201326592 - 33 * M - 8 * M - 2015232 },
		{ "v1 grows to 64M", 64 * M, 66 * M, 121716736 },
		{ "v1 shrinks to 16M", 16 * M, 17 * M, 173096960 },
	};
	struct mc_policy_config cfg = { .cpus = 1 };
	struct mc_policy *pol;
	uint64_t cap = UNL, low = 0, est;

	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	for (size_t ph = 0; ph < N(phase); ph++) {
		uint64_t caps[8], live = cap;
		unsigned settled[8];

		for (size_t k = 0; k < N(caps); k++) {
			uint64_t stream = cap == UNL ? 100 * M : cap - M;

			cap = v1_interval(pol, cap, phase[ph].active, phase[ph].usage,
					  phase[ph].usage + stream, NULL, &settled[k]);
			caps[k] = cap;
		}
		converge_check(phase[ph].name, caps, settled, N(caps), live, phase[ph].want);
	}
	mc_policy_free(pol);

	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	for (int ph = 0; ph < 3; ph++) {
		static const char *const names[] = { "v2 start", "v2 grows to 64M", "v2 goes idle" };
		uint64_t lows[16], live = low;
		unsigned settled[16];

		for (size_t k = 0; k < N(lows); k++) {
			low = ws_interval(pol, true, ph == 0 ? 32 * M : ph == 1 ? 64 * M : 40 * M,
					  1000, low, &est, &settled[k]);
			lows[k] = low;
		}
		converge_check(names[ph], lows, settled, N(lows), live,
			       ph == 0 ? 32 * M : ph == 1 ? 64 * M : 40 * M);
	}
	mc_policy_free(pol);
}

/*
 * One unit per line: the largest unit that divides every size (and the
 * extra values) of a message; decimals only where a caller asks for a unit
 * that does not divide.
 */
static void test_units(void)
{
	char a[MC_UNITS_MARK_LEN], b[MC_UNITS_MARK_LEN], c[MC_UNITS_MARK_LEN];
	uint64_t extra[2] = { 120 * M, 0 };
	unsigned sh = 99;
	char *s;

	s = mc_units_resolve(mc_asprintf("protected %s and headroom %s, limit %s",
					 mc_units_mark(104873165, a), mc_units_mark(8 * M, b),
					 mc_units_mark(UNL, c)), NULL, 0, &sh);
	tap_eq_str(s ? s : "", "protected 104873165 and headroom 8388608, limit max",
		   "units: a size no unit divides puts the line in bytes");
	tap_eq_int(sh, 0, "units: shift 0");
	free(s);
	s = mc_units_resolve(mc_asprintf("at %s of %s", mc_units_mark(118864 * 1024, a),
					 mc_units_mark(192 * M, b)), extra, 2, &sh);
	tap_eq_str(s ? s : "", "at 118864K of 196608K", "units: K divides both: K for both");
	free(s);
	s = mc_units_resolve(mc_asprintf("%s and %s", mc_units_mark(2 * G, a), mc_units_mark(64 * M, b)),
			     extra, 2, &sh);
	tap_eq_str(s ? s : "", "2048M and 64M", "units: the extra 120M keeps it in M");
	tap_eq_int(sh, 20, "units: shift 20");
	free(s);
	s = mc_units_resolve(mc_asprintf("zero %s", mc_units_mark(0, a)), NULL, 0, &sh);
	tap_eq_str(s ? s : "", "zero 0", "units: 0 is 0");
	free(s);
	tap_eq_str(mc_units_format(118 * M + 512 * 1024 + 1, 20, a), "118.50M",
		   "units: decimals where the unit does not divide");
	tap_eq_str(mc_units_format(3 * K4, 10, a), "12K", "units: format in K");
	{
		uint64_t v[] = { 1 * G, 512 * M, UNL, 0 };
		uint64_t w[] = { 2 * G, 4 * G };

		tap_eq_int(mc_units_shift(v, N(v)), 20, "units: 1G and 512M share M (max and 0 ignored)");
		tap_eq_int(mc_units_shift(w, N(w)), 30, "units: 2G and 4G share G");
		tap_eq_int(mc_units_shift(&v[2], 2), 40, "units: nothing to divide: T");
		tap_eq_int(mc_units_shift((uint64_t[]){ 104873165 }, 1), 0, "units: bytes");
	}
}

/*
 * The patched kernel's active-set switch in a nested profile: on in the
 * protect: active group and its profile ancestors, off elsewhere, the
 * profile's own value kept, and no note when no top-level group needs the
 * parent's switch.
 * It is long because it is one tree (its rows a table) decided on the
 * patched kernel and again on stock v2.
 */
static void test_protect_switches(void)
{
	struct mc_policy_config cfg = { .headroom = 24 * M, .cpus = 1 };
	struct gdef rows[] = {
		/* the operator turned the switch on at the parent */
		{ "", { 1 * G, UNL, 0, 0, NA, UNL, 1 }, 100 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "app", { UNL, UNL, 0, 0, NA, UNL }, 60 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "app/db", { UNL, UNL, 0, 0, NA, UNL }, 40 * M,
		  { { "active_file", 30 * M } }, { { { 0 } } }, 0, 0 },
		{ "app/logs", { UNL, UNL, 0, 0, NA, UNL }, 20 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "other", { UNL, UNL, 0, 0, NA, UNL }, 40 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec top[2], kids[2];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_WEIGHTED, .groups = top, .n_groups = 2 };
	struct mc_snapshot s;
	struct mc_decisions d;
	struct mc_policy *pol;
	char *sw = NULL;

	spec_init(&top[0], "app");
	spec_init(&kids[0], "db");
	kids[0].protect = MC_PROTECT_ACTIVE;
	spec_init(&kids[1], "logs");
	top[0].children = kids;
	top[0].n_children = 2;
	spec_init(&top[1], "other");
	top[1].knob[MC_KNOB_PROTECT_ACTIVE] = B(1);   /* the operator's own word */
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	snap_build(&s, rows, N(rows), 1 * G);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v2p, &d, NULL), 0, "switches: decides");
	for (size_t i = 0; i < d.n_set; i++)
		if (d.set[i].knob == MC_KNOB_PROTECT_ACTIVE) {
			char *n = NULL;

			if (asprintf(&n, "%s%s=%llu", sw ? sw : "", d.set[i].group,
				     (unsigned long long)d.set[i].value) < 0)
				abort();
			free(sw);
			sw = n;
			if (asprintf(&n, "%s ", sw) < 0)
				abort();
			free(sw);
			sw = n;
		}
	tap_eq_str(sw ? sw : "", "app/db=1 app/logs=0 app=1 ",
		   "switches: on along the path to the protected group, off beside it, the profile's kept");
	check_reason("switch app", reason_of(&d, "app", false, MC_KNOB_PROTECT_ACTIVE),
		     "protect: active below: reclaim rooted here takes inactive pages first");
	tap_check(d.n_notes == 0, "switches: no note when the parent's switch is on (%s)",
		  d.n_notes ? d.notes[0] : "none");
	free(sw);
	mc_decisions_free(&d);
	mc_snapshot_free(&s);

	/* without the patch there is no switch to set */
	snap_build(&s, rows, N(rows), 1 * G);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v2, &d, NULL), 0, "stock v2: decides");
	{
		size_t n = 0;

		for (size_t i = 0; i < d.n_set; i++)
			n += d.set[i].knob == MC_KNOB_PROTECT_ACTIVE;
		tap_eq_int((long long)n, 0, "stock v2: no switch settings");
	}
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);
}

/*
 * Nested demand and PSI, v2. The parent's 1100M are 100M above 1000M
 * (limit 1G, headroom 24M): by usage 600:400 app gives 60M and other 40M;
 * app has groups, so its 60M are split again, 300:300 -> 30M + 30M. Then
 * the parent below its limit but under pressure (PSI 25 > 10) needs the
 * headroom, 24M: 600:400 -> 14.4M + 9.6M, in pages 3686.4 + 2457.6 ->
 * 3687 + 2457 (the leftover page to app), app's 3687 pages -> 1844 + 1843.
 */
static void test_decide_nested_psi(void)
{
	struct mc_policy_config cfg = { .headroom = 24 * M, .cpus = 1 };
	struct gdef rows[] = {
		{ "", { 1 * G, UNL, 0, 0, NA, UNL }, 1100 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "app", { UNL, UNL, 0, 0, NA, UNL }, 600 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "app/fe", { UNL, UNL, 0, 0, NA, UNL }, 300 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "app/be", { UNL, UNL, 0, 0, NA, UNL }, 300 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "other", { UNL, UNL, 0, 0, NA, UNL }, 400 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "notinprofile", { UNL, UNL, 0, 0, NA, UNL }, 400 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec top[3], kids[2];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_WEIGHTED, .groups = top, .n_groups = 3 };
	struct mc_snapshot s;
	struct mc_decisions d;
	struct mc_policy *pol;

	spec_init(&top[0], "app");
	spec_init(&kids[0], "fe");
	spec_init(&kids[1], "be");
	top[0].children = kids;
	top[0].n_children = 2;
	spec_init(&top[1], "other");
	spec_init(&top[2], "missing");
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	snap_build(&s, rows, N(rows), 1 * G);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v2, &d, NULL), 0, "nested: decides");
	tap_eq_str(dec_str(&d, &caps_v2, true), "other 40M; app/be 30M; app/fe 30M",
		   "nested: the group with children passes its share down");
	check_reason("nested fe", reason_of(&d, "app/fe", true, 0),
		     "gives 30M in proportion to its usage 300M of the 60M 'app' needs back (its share of what '/test' needs back)");
	tap_eq_int((long long)d.n_set, 0, "nested: no settings");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);

	rows[0].usage = 900 * M;
	rows[0].psi10 = 25.0;
	snap_build(&s, rows, N(rows), 1 * G);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v2, &d, NULL), 0, "psi: decides");
	tap_eq_str(dec_str(&d, &caps_v2, true), "other 9828K; app/fe 7376K; app/be 7372K",
		   "psi: the headroom is taken under pressure");
	check_reason("psi other", reason_of(&d, "other", true, 0),
		     "of the 24576K '/test' needs back (memory pressure 25.00% (some avg10) above 10.00%: headroom 24576K)");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);
}

/*
 * Pressure that a limit explains adds no demand. Q (max 128M, headroom 8M)
 * holds 126M, within two headrooms of its limit, and its tasks stall 40%
 * of the time; the host's parent (RAM, no limit) 42%. Q's pressure is its
 * limit's: it needs back what its usage is over limit - headroom, 6M, and
 * the parent's 42% less the 40% Q explains is under the threshold. With Q
 * at 60M, far below its limit, nothing explains its stalls: the headroom,
 * 8M, is its demand.
 */
static uint64_t psi_limits_case(uint64_t q_usage, char **ret_why)
{
	struct mc_policy_config cfg = { .headroom = 8 * M, .cpus = 1 };
	struct gdef rows[] = {
		{ "", { UNL, UNL, 0, 0, NA, UNL }, 200 * M, { { 0 } }, { { { 0 } } }, 0, 42.0 },
		{ "Q", { 128 * M, UNL, 0, 0, NA, UNL }, q_usage, { { 0 } }, { { { 0 } } }, 0, 40.0 },
		{ "Q/a", { UNL, UNL, 0, 0, NA, UNL }, q_usage / 2, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "Q/b", { UNL, UNL, 0, 0, NA, UNL }, q_usage / 2, { { 0 } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec top[1], kids[2];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_OFF, .groups = top, .n_groups = 1 };
	struct mc_decisions d;
	struct mc_policy *pol;
	uint64_t got = 0;

	spec_init(&top[0], "Q");
	spec_init(&kids[0], "a");
	kids[0].knob[MC_KNOB_SOFT] = B(128 * M);
	spec_init(&kids[1], "b");
	kids[1].knob[MC_KNOB_SOFT] = B(0);
	top[0].children = kids;
	top[0].n_children = 2;
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	decide_rows(pol, &p, rows, N(rows), 16 * G, &caps_v2, &d);
	for (size_t i = 0; i < d.n_reclaim; i++) {
		got += d.reclaim[i].bytes;
		if (ret_why && strcmp(d.reclaim[i].group, "Q/b") == 0)
			*ret_why = strdup(d.reclaim[i].reason);
	}
	mc_decisions_free(&d);
	mc_policy_free(pol);
	return got;
}

/*
 * With every child above its soft limit nobody is to be spared: there is
 * no ordering for the kernel to keep, and the headroom is memctl's. Q (max
 * 128M, headroom 8M) at 126M, both children at soft limit 0: memctl
 * reclaims the 6M itself, 3M from each.
 */
static void test_soft_all_above(void)
{
	struct mc_policy_config cfg = { .headroom = 8 * M, .cpus = 1 };
	struct gdef rows[] = {
		{ "", { 128 * M, UNL, 0, 0, NA, UNL }, 126 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "a", { UNL, UNL, 0, 0, NA, UNL }, 63 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "b", { UNL, UNL, 0, 0, NA, UNL }, 63 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec g[2];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.numa = MC_NUMA_OFF, .groups = g, .n_groups = 2 };
	struct mc_decisions d;
	struct mc_policy *pol;

	spec_init(&g[0], "a");
	g[0].knob[MC_KNOB_SOFT] = B(0);
	spec_init(&g[1], "b");
	g[1].knob[MC_KNOB_SOFT] = B(0);
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	decide_rows(pol, &p, rows, N(rows), 128 * M, &caps_v2, &d);
	tap_eq_str(dec_str(&d, &caps_v2, true), "a 3M; b 3M",
		   "soft limits, all above: memctl keeps the headroom itself");
	mc_decisions_free(&d);
	mc_policy_free(pol);
}

static void test_psi_limits(void)
{
	char *why = NULL;

	tap_eq_u64(psi_limits_case(126 * M, &why), 6 * M, "psi at a limit: the usage demand only");
	check_reason("psi at a limit", why ? why : "", "(usage 126M above limit 128M minus headroom 8M)");
	tap_check(why && !strstr(why, "pressure"), "psi at a limit: no pressure in the reason: %s",
		  why ? why : "(none)");
	free(why);
	why = NULL;
	tap_eq_u64(psi_limits_case(60 * M, &why), 8 * M, "psi far below the limit: the headroom");
	check_reason("psi below a limit", why ? why : "",
		     "(memory pressure 40.00% (some avg10) above 10.00%: headroom 8M)");
	free(why);
}

/* A THP group whose max leaves no room: a diagnostic at the high key, no setting. */
static void test_decide_thp_erange(void)
{
	struct mc_policy_config cfg = { .cpus = 2 };
	struct gdef rows[] = {
		{ "", { UNL, UNL, 0, 0, NA, UNL }, 100 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "tiny", { 3 * M, 2 * M, 0, 0, NA, UNL }, 1 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec g;
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.groups = &g, .n_groups = 1 };
	struct mc_snapshot s;
	struct mc_decisions d;
	struct mc_diags diags = { 0 };
	struct mc_policy *pol;

	spec_init(&g, "tiny");
	g.thp = 1;
	g.knob[MC_KNOB_HIGH] = B(2 * M);
	g.knob_pos[MC_KNOB_HIGH] = (struct mc_pos){ 9, 11 };
	g.knob[MC_KNOB_MAX] = B(3 * M);
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	snap_build(&s, rows, N(rows), 16 * G);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v2, &d, &diags), 0, "thp erange: decides");
	tap_eq_int((long long)d.n_set, 0, "thp erange: no high setting");
	tap_check(diags.n == 1 && diags.v[0].line == 9 && diags.v[0].col == 11 &&
		  strcmp(diags.v[0].msg, "max '3M' leaves no room for high: a THP group needs at least 4M (2M x 2 CPUs) between high and max") == 0,
		  "thp erange: diagnostic at the high key (%s)", diags.n ? diags.v[0].msg : "none");
	mc_diags_free(&diags);
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);
}

/*
 * NUMA state across intervals, patched v2 (enforced: no note). Every
 * interval the parent (limit 1G, headroom 24M, usage 1002M) needs 2M, all
 * from the THP group hp: one 2M unit, weights 300.5M:299.5M, levelled
 * from the top to 1.5M:0.5M (both down to 299M). Deficit round-robin
 * credits 1.5M and 0.5M per interval: node 0, node 0 (tie), node 1, node 0,
 * then the deficits are back at zero. 100 intervals: 75 units (150M) and
 * 25 (50M). Without the kept deficits every unit would go to node 0.
 * Round-robin alternates: 50 units each.
 */
static void test_decide_numa_state(void)
{
	struct mc_policy_config cfg = { .headroom = 24 * M, .cpus = 1 };
	struct gdef rows[] = {
		{ "", { 1 * G, UNL, 0, 0, UNL, UNL }, 1002 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "hp", { UNL, UNL, 0, 0, UNL, UNL }, 500 * M, { { 0 } },
		  { { { "inactive_file", 300 * M + 128 * K4 } }, { { "inactive_file", 300 * M - 128 * K4 } } },
		  2, 0 },
	};
	struct mc_group_spec g;
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.groups = &g, .n_groups = 1 };

	spec_init(&g, "hp");
	g.thp = 1;
	for (int mode = 0; mode < 2; mode++) {
		struct mc_policy *pol;
		uint64_t tot[2] = { 0, 0 };
		bool shape = true;
		size_t notes = 0;

		p.numa = mode ? MC_NUMA_ROUND_ROBIN : MC_NUMA_WEIGHTED;
		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		for (int i = 0; i < 100; i++) {
			struct mc_snapshot s;
			struct mc_decisions d;

			snap_build(&s, rows, N(rows), 1 * G);
			if (mc_policy_decide(pol, &p, &s, &caps_v2p, &d, NULL) < 0)
				abort();
			if (d.n_reclaim != 1 || d.reclaim[0].bytes != 2 * M || !d.reclaim[0].node_bytes ||
			    d.reclaim[0].n_nodes != 2)
				shape = false;
			else
				for (int j = 0; j < 2; j++)
					tot[j] += d.reclaim[0].node_bytes[j];
			notes += d.n_notes;
			mc_decisions_free(&d);
			mc_snapshot_free(&s);
		}
		tap_check(shape, "numa %s: one 2M reclaim split over 2 nodes every interval",
			  mode ? "round-robin" : "weighted");
		tap_eq_u64(tot[0], mode ? 100 * M : 150 * M, "numa %s over 100 intervals: node 0",
			   mode ? "round-robin" : "weighted");
		tap_eq_u64(tot[1], mode ? 100 * M : 50 * M, "numa %s over 100 intervals: node 1",
			   mode ? "round-robin" : "weighted");
		tap_eq_int((long long)notes, 0, "numa %s: enforceable on the patched kernel, no note",
			   mode ? "round-robin" : "weighted");
		mc_policy_free(pol);
	}
}

/*
 * Mapped cache weighs nothing and may cost scans: node 1 holds more
 * inactive file (50M) than node 0 (30M), but 40M of it is mapped, so 10M
 * can be taken, and taking the 2M the parent needs may scan 42M: weight
 * 10M x 2/42, 121 whole pages (484K). The 2M come from node 0 alone.
 */
static void test_decide_numa_mapped(void)
{
	struct mc_policy_config cfg = { .headroom = 24 * M, .cpus = 1 };
	struct gdef rows[] = {
		{ "", { 1 * G, UNL, 0, 0, UNL, UNL }, 1002 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "app", { UNL, UNL, 0, 0, UNL, UNL }, 500 * M, { { 0 } },
		  { { { "inactive_file", 30 * M } },
		    { { "inactive_file", 50 * M }, { "file_mapped", 40 * M } } }, 2, 0 },
	};
	struct mc_group_spec g;
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.groups = &g, .n_groups = 1, .numa = MC_NUMA_WEIGHTED };
	struct mc_policy *pol;
	struct mc_snapshot s;
	struct mc_decisions d;

	spec_init(&g, "app");
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	snap_build(&s, rows, N(rows), 1 * G);
	if (mc_policy_decide(pol, &p, &s, &caps_v2p, &d, NULL) < 0)
		abort();
	tap_eq_str(dec_str(&d, &caps_v2p, true), "app 2M [2M,0]",
		   "numa mapped: all from node 0, whose cache is not mapped");
	check_reason("numa mapped", reason_of(&d, "app", true, 0),
		     "per node N0 2048K, N1 0 (the largest weights first; weights: inactive file not mapped x reclaim / (reclaim + mapped) 30720K, 484K)");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);
}

/*
 * Settings stay valid for the planner (min <= low <= high <= max): db's
 * working set 50M is below its min 100M, so low is raised to 100M; hp's
 * THP high 255M becomes 252M (max 256M, gap 2M x 2), below its profile low
 * 254M, so low follows it down. v1 with an unlimited parent (limit = RAM):
 * no cap can leave room, which a note says.
 * It is long because it is one tree decided on v2 and then on v1, each with
 * its checks.
 */
static void test_decide_valid_chain(void)
{
	struct mc_policy_config cfg = { .cpus = 2 };
	struct gdef rows[] = {
		{ "", { UNL, UNL, 0, 0, NA, UNL }, 1 * G, { { 0 } }, { { { 0 } } }, 0, 0 },
		{ "db", { 1 * G, UNL, 0, 0, NA, UNL }, 300 * M, { { "active_anon", 50 * M } },
		  { { { 0 } } }, 0, 0 },
		{ "hp", { 256 * M, 255 * M, 254 * M, 0, NA, UNL }, 100 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
	};
	struct mc_group_spec g[2];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.groups = g, .n_groups = 2 };
	struct mc_snapshot s;
	struct mc_decisions d;
	struct mc_policy *pol;

	spec_init(&g[0], "db");
	g[0].protect = MC_PROTECT_ACTIVE;
	g[0].knob[MC_KNOB_MAX] = B(1 * G);
	g[0].knob[MC_KNOB_MIN] = B(100 * M);
	spec_init(&g[1], "hp");
	g[1].thp = 1;
	g[1].knob[MC_KNOB_MAX] = B(256 * M);
	g[1].knob[MC_KNOB_HIGH] = B(255 * M);
	g[1].knob[MC_KNOB_LOW] = B(254 * M);
	if (mc_policy_new(&cfg, &pol) < 0)
		abort();
	snap_build(&s, rows, N(rows), 16 * G);
	tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v2, &d, NULL), 0, "chain: decides");
	tap_eq_str(dec_str(&d, &caps_v2, false),
		   "db memory.low=100M; hp memory.high=252M; hp memory.low=252M",
		   "chain: low raised to min, low lowered with a THP high");
	check_reason("chain db", reason_of(&d, "db", false, MC_KNOB_LOW),
		     "working set 50M (active 50M, refaults 0/interval) (raised to min 100M): memory.low 100M");
	check_reason("chain hp", reason_of(&d, "hp", false, MC_KNOB_LOW),
		     "profile low 254M (limited by high 252M): memory.low 252M");
	mc_decisions_free(&d);
	mc_snapshot_free(&s);
	mc_policy_free(pol);

	{
		struct gdef rows1[] = {
			{ "", { UNL, NA, NA, NA, UNL, UNL }, 1 * G, { { 0 } }, { { { 0 } } }, 0, 0 },
			{ "db", { UNL, NA, NA, NA, UNL, UNL }, 300 * M, { { "active_anon", 50 * M } },
			  { { { 0 } } }, 0, 0 },
			{ "hp", { UNL, NA, NA, NA, UNL, UNL }, 100 * M, { { 0 } }, { { { 0 } } }, 0, 0 },
		};

		g[1].knob[MC_KNOB_HIGH] = B(200 * M);
		g[0].knob[MC_KNOB_MIN] = (struct mc_size){ 0 };
		g[1].knob[MC_KNOB_LOW] = (struct mc_size){ 0 };
		if (mc_policy_new(&cfg, &pol) < 0)
			abort();
		snap_build(&s, rows1, N(rows1), 16 * G);
		tap_eq_int(mc_policy_decide(pol, &p, &s, &caps_v1, &d, NULL), 0, "v1 unlimited: decides");
		tap_eq_int((long long)d.n_set, 0, "v1 unlimited parent: no caps");
		tap_check(d.n_notes == 1 &&
			  strcmp(d.notes[0], "'db' is protected only from memctl's reclaims: '/test' has no memory limit to leave it room in (cgroup v1 has no memory.low)") == 0,
			  "v1 unlimited parent: a note says why (%s)", d.n_notes ? d.notes[0] : "none");
		mc_decisions_free(&d);
		mc_snapshot_free(&s);
		mc_policy_free(pol);
	}
}

static void test_config(void)
{
	struct mc_policy *pol = NULL;

	tap_eq_int(mc_policy_new(&(struct mc_policy_config){ .cpus = 0 }, &pol), -EINVAL,
		   "config: cpus 0 refused");
	tap_eq_int(mc_policy_new(&(struct mc_policy_config){ .cpus = 1, .ws_alpha = 1.5 }, &pol),
		   -EINVAL, "config: alpha above 1 refused");
	tap_eq_int(mc_policy_new(&(struct mc_policy_config){ .cpus = 1, .psi_some_threshold = -1 },
				 &pol),
		   -EINVAL, "config: negative PSI threshold refused");
	tap_check(pol == NULL, "config: *ret not written on failure");
}

int main(void)
{
	test_split();
	test_soft_low_split();
	test_ws();
	test_ws_update();
	test_deadband();
	test_thp();
	test_headroom_and_cap();
	test_numa_single();
	test_numa_level();
	test_numa_cheap();
	test_numa_weight();
	test_numa_refaults();
	test_numa_converge();
	test_check();
	test_config();
	test_decide_v2();
	test_decide_v2_patched();
	test_decide_v1();
	test_v1_caps();
	test_decide_nested_psi();
	test_psi_limits();
	test_soft_all_above();
	test_protect_switches();
	test_decide_thp_erange();
	test_decide_numa_state();
	test_decide_numa_mapped();
	test_decide_valid_chain();
	test_v1_deadband();
	test_v1_reclaimed();
	test_v2_low_breached();
	test_v2_low_deadband();
	test_v2_soft_low();
	test_v2_soft_low_grows();
	test_v2_futile_reclaim();
	test_v2_soft_floor();
	test_ws_in_use();
	test_converge();
	test_units();
	return tap_done();
}
