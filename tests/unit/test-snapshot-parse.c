#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"
#include "snapshot.h"
#include "tap.h"

/*
 * The pure parsers of engine/snapshot.c against the kernel's own text: the
 * v1 samples were read on a Debian 12 host (kernel 6.18, cgroup v1 memory
 * controller), the v2 ones follow Documentation/admin-guide/cgroup-v2.rst
 * and a 6.1 kernel's output. Tables first, then the checks that walk them.
 */

/* memory.stat of a v1 group (kernel 6.18). */
static const char v1_stat[] =
	"cache 1536000\n"
	"rss 1687552\n"
	"rss_huge 0\n"
	"shmem 0\n"
	"mapped_file 57344\n"
	"dirty 24576\n"
	"writeback 0\n"
	"workingset_refault_anon 0\n"
	"workingset_refault_file 351\n"
	"swap 0\n"
	"swapcached 0\n"
	"pgpgin 14680\n"
	"pgpgout 13889\n"
	"pgfault 34852\n"
	"pgmajfault 12\n"
	"inactive_anon 1568768\n"
	"active_anon 12288\n"
	"inactive_file 516096\n"
	"active_file 1015808\n"
	"unevictable 0\n"
	"hierarchical_memory_limit 9223372036854771712\n"
	"hierarchical_memsw_limit 9223372036854771712\n"
	"total_cache 1536000\n"
	"total_rss 1687552\n"
	"total_rss_huge 0\n"
	"total_shmem 0\n"
	"total_mapped_file 57344\n"
	"total_dirty 24576\n"
	"total_writeback 0\n"
	"total_workingset_refault_anon 0\n"
	"total_workingset_refault_file 351\n"
	"total_swap 0\n"
	"total_swapcached 0\n"
	"total_pgpgin 14680\n"
	"total_pgpgout 13889\n"
	"total_pgfault 34852\n"
	"total_pgmajfault 12\n"
	"total_inactive_anon 1568768\n"
	"total_active_anon 12288\n"
	"total_inactive_file 516096\n"
	"total_active_file 1015808\n"
	"total_unevictable 0\n";

/* memory.stat of a v2 group (6.1 layout). */
static const char v2_stat[] =
	"anon 221184\n"
	"file 4096000\n"
	"kernel 339968\n"
	"kernel_stack 16384\n"
	"pagetables 45056\n"
	"sec_pagetables 0\n"
	"percpu 0\n"
	"sock 0\n"
	"vmalloc 0\n"
	"shmem 0\n"
	"zswap 0\n"
	"zswapped 0\n"
	"file_mapped 2580480\n"
	"file_dirty 0\n"
	"file_writeback 0\n"
	"swapcached 0\n"
	"anon_thp 0\n"
	"file_thp 0\n"
	"shmem_thp 0\n"
	"inactive_anon 200704\n"
	"active_anon 20480\n"
	"inactive_file 1515520\n"
	"active_file 2580480\n"
	"unevictable 0\n"
	"slab_reclaimable 137584\n"
	"slab_unreclaimable 120616\n"
	"slab 258200\n"
	"workingset_refault_anon 0\n"
	"workingset_refault_file 17\n"
	"workingset_activate_anon 0\n"
	"workingset_activate_file 3\n"
	"workingset_restore_anon 0\n"
	"workingset_restore_file 0\n"
	"workingset_nodereclaim 0\n"
	"pgscan 1024\n"
	"pgsteal 998\n"
	"pgscan_kswapd 0\n"
	"pgscan_direct 1024\n"
	"pgsteal_kswapd 0\n"
	"pgsteal_direct 998\n"
	"pgfault 4410\n"
	"pgmajfault 61\n"
	"pgrefill 0\n"
	"pgactivate 640\n"
	"pgdeactivate 0\n"
	"pglazyfree 0\n"
	"pglazyfreed 0\n"
	"thp_fault_alloc 0\n"
	"thp_collapse_alloc 0\n";

static const char v2_events[] =
	"low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n";

struct kv_want {
	const char *key;
	uint64_t val;
};

static const struct flat_case {
	const char *name;
	const char *text;
	size_t len;          /* 0: strlen(text) */
	int rc;
	size_t n;            /* keys appended */
	struct kv_want want[4];
} flat_cases[] = {
	{ "v1 memory.stat", v1_stat, 0, 0, 42,
	  { { "cache", 1536000 }, { "hierarchical_memory_limit", 9223372036854771712ULL },
	    { "total_active_file", 1015808 }, { "pgmajfault", 12 } } },
	{ "v2 memory.stat", v2_stat, 0, 0, 49,
	  { { "anon", 221184 }, { "file", 4096000 }, { "pgsteal_direct", 998 },
	    { "thp_collapse_alloc", 0 } } },
	{ "v2 memory.events", v2_events, 0, 0, 6,
	  { { "high", 12 }, { "max", 3 }, { "oom_kill", 1 }, { "oom_group_kill", 0 } } },
	{ "empty file", "", 0, 0, 0, { { NULL, 0 } } },
	{ "no trailing newline", "a 1\nb 2", 0, 0, 2, { { "a", 1 }, { "b", 2 } } },
	{ "blank lines and blanks", "\n  a   7 \n\n\tb\t8\n", 0, 0, 2, { { "a", 7 }, { "b", 8 } } },
	{ "length, not NUL, ends the buffer", "a 1\nb 2\nc 3\n", 8, 0, 2,
	  { { "a", 1 }, { "b", 2 } } },
	{ "largest u64", "x 18446744073709551615\n", 0, 0, 1,
	  { { "x", 18446744073709551615ULL } } },
	{ "negative drift reads as 0", "x -5\ny 3\n", 0, 0, 2, { { "x", 0 }, { "y", 3 } } },
	{ "key without value", "cache\n", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "two values", "cache 1 2\n", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "not a number", "cache 12k\n", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "bare minus", "cache -\n", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "over 64 bits", "x 18446744073709551616\n", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "bad line after good ones", "a 1\nb 2\nc\n", 0, -EINVAL, 0, { { NULL, 0 } } },
	/* lines off the kernel's one-space form go the general way, to the same result */
	{ "tab, two spaces, trailing blank", "a\t5\nb  6\nc 7 \nd 8\n", 0, 0, 4,
	  { { "a", 5 }, { "b", 6 }, { "c", 7 }, { "d", 8 } } },
	{ "space then newline", "a 1\nb \n", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "space at the end", "a 1\nb ", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "digits then a letter", "a 5x\n", 0, -EINVAL, 0, { { NULL, 0 } } },
	{ "key and value cut by the length", "ab 12\n", 4, 0, 1, { { "ab", 1 } } },
	{ "19 and 22 digits, keys past eight bytes", "nineteen_digits 9999999999999999999\n"
	  "twenty_two_digit_value 0000000000000000000042\n", 0, 0, 2,
	  { { "nineteen_digits", 9999999999999999999ULL }, { "twenty_two_digit_value", 42 } } },
	{ "20 digits over 64 bits", "k 99999999999999999999\n", 0, -EINVAL, 0, { { NULL, 0 } } },
};

static void test_flat(void)
{
	for (size_t i = 0; i < sizeof(flat_cases) / sizeof(flat_cases[0]); i++) {
		const struct flat_case *c = &flat_cases[i];
		struct mc_kvs kv = { 0 };
		size_t len = c->len ? c->len : strlen(c->text);
		int r;

		/* A key already there shows that the parser appends and, on error, keeps it. */
		mc_kvs_add(&kv, "pre", 3, 99);
		r = mc_parse_flat_keyed(c->text, len, &kv);
		tap_eq_int(r, c->rc, "flat: %s: rc", c->name);
		tap_eq_u64(kv.n, 1 + c->n, "flat: %s: keys", c->name);
		for (size_t j = 0; j < 4 && c->want[j].key; j++) {
			uint64_t v = 1234567;

			tap_eq_int(mc_kvs_get(&kv, c->want[j].key, &v), 0, "flat: %s: has %s",
				   c->name, c->want[j].key);
			tap_eq_u64(v, c->want[j].val, "flat: %s: %s", c->name, c->want[j].key);
		}
		tap_eq_str(kv.n ? kv.v[0].key : NULL, "pre", "flat: %s: earlier key kept", c->name);
		mc_kvs_free(&kv);
	}
}

/*
 * The parser against a plain tokenizer written here (blank-separated key
 * and counter per line, blank lines skipped, a leading '-' reads as 0), on
 * random text of the bytes that matter: the fast path for the kernel's
 * own form must give what the general one gives, whatever the line.
 */
static int flat_reference(const char *t, size_t len, struct mc_kvs *kv)
{
	size_t pos = 0;

	while (pos < len) {
		const char *tok[3];
		size_t tl[3], n = 0, end = pos;
		uint64_t v = 0;
		const char *d;
		size_t dl;

		while (end < len && t[end] != '\n')
			end++;
		for (size_t i = pos; i < end;) {
			while (i < end && (t[i] == ' ' || t[i] == '\t'))
				i++;
			if (i == end)
				break;
			if (n < 3)
				tok[n] = t + i;
			while (i < end && t[i] != ' ' && t[i] != '\t')
				i++;
			if (n < 3)
				tl[n] = (size_t)(t + i - tok[n]);
			n++;
		}
		pos = end + 1;
		if (n == 0)
			continue;
		if (n != 2)
			return -EINVAL;
		d = tok[1];
		dl = tl[1];
		if (dl && d[0] == '-') {
			d++;
			dl--;
		}
		if (dl == 0)
			return -EINVAL;
		for (size_t i = 0; i < dl; i++) {
			if (d[i] < '0' || d[i] > '9' || v > (UINT64_MAX - (uint64_t)(d[i] - '0')) / 10)
				return -EINVAL;
			v = v * 10 + (uint64_t)(d[i] - '0');
		}
		mc_kvs_add(kv, tok[0], tl[0], tok[1][0] == '-' ? 0 : v);
	}
	return 0;
}

static unsigned flat_rand(unsigned *seed, unsigned n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

/*
 * Random text: with lines true, lines of a key of 1 to 30 letters, a
 * space, 1 to 22 digits and a newline, each byte replaced now and then by
 * one that matters (keys past the eight bytes the fast path takes at a
 * time); else up to 13 bytes drawn from those that matter.
 */
static size_t flat_text(unsigned *seed, bool lines, char *t, size_t cap)
{
	static const char odd[] = " \t\n-a9";
	size_t len = 0;

	if (!lines) {
		size_t n = flat_rand(seed, 14);

		for (; len < n; len++)
			t[len] = "a1 1\n\ta9 \n9-"[flat_rand(seed, 13)];
		return len;
	}
	for (unsigned l = flat_rand(seed, 4); l-- > 0 && len + 56 < cap;) {
		for (unsigned k = 1 + flat_rand(seed, 30); k-- > 0;)
			t[len++] = (char)('a' + flat_rand(seed, 26));
		t[len++] = ' ';
		for (unsigned d = 1 + flat_rand(seed, 22); d-- > 0;)
			t[len++] = (char)('0' + flat_rand(seed, 10));
		t[len++] = '\n';
	}
	for (size_t i = 0; i < len; i++)
		if (flat_rand(seed, 64) == 0)
			t[i] = odd[flat_rand(seed, sizeof(odd) - 1)];
	return len;
}

static void flat_random(const char *what, bool lines)
{
	unsigned seed = 12345, bad = 0, failed = 0;

	for (int it = 0; it < 20000; it++) {
		char t[256];
		size_t len = flat_text(&seed, lines, t, sizeof(t));
		struct mc_kvs a = { 0 }, b = { 0 };
		int ra, rb;

		ra = mc_parse_flat_keyed(t, len, &a);
		rb = flat_reference(t, len, &b);
		bad += rb < 0;
		if (ra != rb || (ra == 0 && a.n != b.n)) {
			failed++;
		} else {
			for (size_t i = 0; ra == 0 && i < a.n; i++)
				failed += strcmp(a.v[i].key, b.v[i].key) != 0 || a.v[i].val != b.v[i].val;
		}
		mc_kvs_free(&a);
		mc_kvs_free(&b);
	}
	tap_eq_int((int)failed, 0, "flat: random %s parses as the plain tokenizer does", what);
	tap_check(bad > 500 && bad < 19500, "flat: random %s holds good and bad files (%u bad)", what,
		  bad);
}

static void test_flat_random(void)
{
	flat_random("bytes", false);
	flat_random("lines", true);
}

static const struct psi_case {
	const char *name;
	const char *text;
	int rc;
	double some10, some300, full60;
	uint64_t some_total, full_total;
} psi_cases[] = {
	/* /proc/pressure/cpu of the v1 host: the same format as memory.pressure. */
	{ "host cpu pressure",
	  "some avg10=0.14 avg60=0.11 avg300=0.08 total=3104097\n"
	  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
	  0, 0.14, 0.08, 0.0, 3104097, 0 },
	{ "host io pressure",
	  "some avg10=0.00 avg60=0.01 avg300=0.05 total=2331573\n"
	  "full avg10=0.00 avg60=0.01 avg300=0.05 total=2245778\n",
	  0, 0.0, 0.05, 0.01, 2331573, 2245778 },
	{ "v2 memory.pressure under load",
	  "some avg10=12.53 avg60=4.87 avg300=1.02 total=987654321\n"
	  "full avg10=8.10 avg60=3.25 avg300=0.75 total=123456789\n",
	  0, 12.53, 1.02, 3.25, 987654321, 123456789 },
	{ "some only (old cpu.pressure)",
	  "some avg10=1.00 avg60=2.00 avg300=3.00 total=42\n", 0, 1.0, 3.0, 0.0, 42, 0 },
	{ "unknown field and line are skipped",
	  "some avg10=1.00 avg60=2.00 avg300=3.00 total=42 avg900=4.00\nnew x=1\n",
	  0, 1.0, 3.0, 0.0, 42, 0 },
	{ "integer average", "some avg10=100 avg60=0 avg300=0 total=1\n", 0, 100.0, 0.0, 0.0,
	  1, 0 },
	{ .name = "no some line",
	  .text = "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", .rc = -EINVAL },
	{ .name = "empty",
	  .text = "", .rc = -EINVAL },
	{ .name = "missing total",
	  .text = "some avg10=0.00 avg60=0.00 avg300=0.00\n", .rc = -EINVAL },
	{ .name = "bad average",
	  .text = "some avg10=0.x avg60=0.00 avg300=0.00 total=0\n", .rc = -EINVAL },
	{ .name = "field without =",
	  .text = "some avg10 avg60=0.00 avg300=0.00 total=0\n", .rc = -EINVAL },
	{ .name = "negative total",
	  .text = "some avg10=0.00 avg60=0.00 avg300=0.00 total=-1\n", .rc = -EINVAL },
};

static bool near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

static void test_psi(void)
{
	for (size_t i = 0; i < sizeof(psi_cases) / sizeof(psi_cases[0]); i++) {
		const struct psi_case *c = &psi_cases[i];
		struct mc_psi p = { .some_total = 777 };
		int r = mc_parse_psi(c->text, strlen(c->text), &p);

		tap_eq_int(r, c->rc, "psi: %s: rc", c->name);
		if (c->rc < 0) {
			tap_check(!p.valid && p.some_total == 777, "psi: %s: result untouched", c->name);
			continue;
		}
		tap_check(p.valid, "psi: %s: valid", c->name);
		tap_check(near(p.some_avg10, c->some10), "psi: %s: some avg10 %.2f", c->name,
			  p.some_avg10);
		tap_check(near(p.some_avg300, c->some300), "psi: %s: some avg300 %.2f", c->name,
			  p.some_avg300);
		tap_check(near(p.full_avg60, c->full60), "psi: %s: full avg60 %.2f", c->name,
			  p.full_avg60);
		tap_eq_u64(p.some_total, c->some_total, "psi: %s: some total", c->name);
		tap_eq_u64(p.full_total, c->full_total, "psi: %s: full total", c->name);
	}
}

/* numa_stat of a v1 group on the one-node host (values are pages). */
static const char v1_numa[] =
	"total=768 N0=768\n"
	"file=383 N0=383\n"
	"anon=385 N0=385\n"
	"unevictable=0 N0=0\n"
	"hierarchical_total=768 N0=768\n"
	"hierarchical_file=383 N0=383\n"
	"hierarchical_anon=385 N0=385\n"
	"hierarchical_unevictable=0 N0=0\n";

/* numa_stat of a v2 group on two nodes (values are bytes). */
static const char v2_numa[] =
	"anon N0=786432 N1=262144\n"
	"file N0=4194304 N1=4194304\n"
	"active_anon N0=0 N1=0\n"
	"inactive_file N0=2097152 N1=4194304\n";

static const struct numa_case {
	const char *name;
	const char *text;
	bool v1;
	int rc;
	size_t n_nodes;
	size_t keys0;        /* keys on node 0 */
	struct {
		size_t node;
		const char *key;
		uint64_t val;
	} want[3];
} numa_cases[] = {
	{ "v1 pages become bytes", v1_numa, true, 0, 1, 8,
	  { { 0, "file", 383 * 4096ULL }, { 0, "anon", 385 * 4096ULL },
	    { 0, "hierarchical_total", 768 * 4096ULL } } },
	{ "v2 two nodes", v2_numa, false, 0, 2, 4,
	  { { 0, "anon", 786432 }, { 1, "anon", 262144 }, { 1, "inactive_file", 4194304 } } },
	/* The line's first token names the field with or without v1's "=total". */
	{ "v1 mode, v2-shaped line", "anon N0=2\n", true, 0, 1, 1,
	  { { 0, "anon", 8192 }, { 0, NULL, 0 } } },
	{ "sparse nodes", "anon N0=1 N2=3\n", false, 0, 3, 1,
	  { { 0, "anon", 1 }, { 2, "anon", 3 }, { 0, NULL, 0 } } },
	{ "empty", "", false, 0, 0, 0, { { 0, NULL, 0 } } },
	{ .name = "bad node token",
	  .text = "anon X0=1\n", .v1 = false, .rc = -EINVAL },
	{ .name = "bad node value",
	  .text = "anon N0=1x\n", .v1 = false, .rc = -EINVAL },
	{ .name = "node without number",
	  .text = "anon N=1\n", .v1 = false, .rc = -EINVAL },
	{ .name = "absurd node number",
	  .text = "anon N5000=1\n", .v1 = false, .rc = -EINVAL },
	{ .name = "empty field name",
	  .text = "=5 N0=1\n", .v1 = true, .rc = -EINVAL },
	{ .name = "pages overflow bytes",
	  .text = "anon=1 N0=18446744073709551615\n", .v1 = true, .rc = -EINVAL },
};

static void test_numa(void)
{
	for (size_t i = 0; i < sizeof(numa_cases) / sizeof(numa_cases[0]); i++) {
		const struct numa_case *c = &numa_cases[i];
		struct mc_kvs *nodes = (struct mc_kvs *)&nodes;
		size_t n = 12345;
		int r = mc_parse_numa_stat(c->text, strlen(c->text), 4096, c->v1, &nodes, &n);

		tap_eq_int(r, c->rc, "numa: %s: rc", c->name);
		if (r < 0) {
			tap_check(n == 12345 && nodes == (struct mc_kvs *)&nodes,
				  "numa: %s: results untouched", c->name);
			continue;
		}
		tap_eq_u64(n, c->n_nodes, "numa: %s: nodes", c->name);
		tap_eq_u64(n ? nodes[0].n : 0, c->keys0, "numa: %s: keys on node 0", c->name);
		for (size_t j = 0; j < 3 && c->want[j].key; j++) {
			uint64_t v = 0;
			int g = c->want[j].node < n ?
				mc_kvs_get(&nodes[c->want[j].node], c->want[j].key, &v) : -ERANGE;

			tap_eq_int(g, 0, "numa: %s: N%zu has %s", c->name, c->want[j].node,
				   c->want[j].key);
			tap_eq_u64(v, c->want[j].val, "numa: %s: N%zu %s", c->name, c->want[j].node,
				   c->want[j].key);
		}
		for (size_t j = 0; j < n; j++)
			mc_kvs_free(&nodes[j]);
		free(nodes);
	}
}

static const struct knob_case {
	const char *text;
	int rc;
	uint64_t val;
} knob_cases[] = {
	{ "max\n", 0, MC_SIZE_MAX },
	{ "max", 0, MC_SIZE_MAX },
	{ "0\n", 0, 0 },
	{ "104857600\n", 0, 104857600 },
	{ "  4096 \n", 0, 4096 },
	/*
	 * v1's "no limit": PAGE_COUNTER_MAX pages, and anything from the
	 * smallest such value on any page size (64K: 0x7fffffffffff0000) up.
	 */
	{ "9223372036854771712\n", 0, MC_SIZE_MAX },
	{ "9223372036854775807\n", 0, MC_SIZE_MAX },
	{ "9223372036854710272\n", 0, MC_SIZE_MAX },
	{ "9223372036854710271\n", 0, 9223372036854710271ULL },
	{ "-1\n", 0, MC_SIZE_MAX },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "maxi\n", -EINVAL, 0 },
	{ "12a\n", -EINVAL, 0 },
	{ "-2\n", -EINVAL, 0 },
	{ "1 2\n", -EINVAL, 0 },
	{ "18446744073709551616\n", -EINVAL, 0 },
};

static void test_knob_value(void)
{
	for (size_t i = 0; i < sizeof(knob_cases) / sizeof(knob_cases[0]); i++) {
		const struct knob_case *c = &knob_cases[i];
		uint64_t v = 42;
		int r = mc_parse_knob_value(c->text, strlen(c->text), &v);

		tap_eq_int(r, c->rc, "knob value '%.*s': rc", (int)strcspn(c->text, "\n"), c->text);
		tap_eq_u64(v, c->rc < 0 ? 42 : c->val, "knob value '%.*s': value",
			   (int)strcspn(c->text, "\n"), c->text);
	}
}

/* The model helpers: lookup by path, and freeing a whole snapshot (ASan checks). */
static void test_model(void)
{
	struct mc_snapshot s = { 0 };
	const char *paths[] = { "", "web", "web/cache", "batch" };
	uint64_t v = 0;

	s.parent = strdup("/memctl");
	s.n = 4;
	s.groups = calloc(s.n, sizeof(*s.groups));
	for (size_t i = 0; i < s.n; i++) {
		s.groups[i].path = strdup(paths[i]);
		s.groups[i].present = true;
	}
	mc_parse_flat_keyed(v2_stat, strlen(v2_stat), &s.groups[1].stat);
	mc_parse_flat_keyed(v2_events, strlen(v2_events), &s.groups[1].events);
	mc_parse_numa_stat(v2_numa, strlen(v2_numa), 4096, false, &s.groups[2].numa,
			   &s.groups[2].n_numa);

	tap_check(mc_snapshot_find(&s, "") == &s.groups[0], "find: parent is \"\"");
	tap_check(mc_snapshot_find(&s, "web/cache") == &s.groups[2], "find: nested group");
	tap_check(mc_snapshot_find(&s, "web/") == NULL, "find: no normalisation of paths");
	tap_check(mc_snapshot_find(&s, "nope") == NULL, "find: absent group");
	tap_eq_int(mc_kvs_get(&s.groups[1].stat, "anon", &v), 0, "kvs_get: present key");
	tap_eq_u64(v, 221184, "kvs_get: value");
	tap_eq_int(mc_kvs_get(&s.groups[1].stat, "ano", &v), -ENOENT, "kvs_get: prefix is not a key");
	tap_eq_int(mc_kvs_get(&s.groups[0].stat, "anon", &v), -ENOENT, "kvs_get: empty list");

	mc_snapshot_free(&s);
	tap_check(s.n == 0 && s.groups == NULL && s.parent == NULL, "snapshot_free clears");
	mc_snapshot_free(&s);
	tap_check(true, "snapshot_free twice is harmless");
}

/* A key map: "a" renamed to a constant, "b" copied, anything else left out. */
static const char *test_map_name(void *arg, const char *key, size_t len, bool *ret_copy)
{
	(*(int *)arg)++;
	if (len == 1 && key[0] == 'a')
		return "renamed";
	*ret_copy = len == 1 && key[0] == 'b';
	return NULL;
}

static void test_key_map(void)
{
	int calls = 0;
	struct mc_key_map map = { .name = test_map_name, .arg = &calls };
	struct mc_kvs kv = { 0 };
	struct mc_kvs *nodes = NULL;
	size_t n = 0;
	uint64_t v = 0;

	static const char flat[] = "a 1\nb 2\nc 3\n", bad[] = "a 1\nb x\n",
			  numa[] = "a N0=1 N1=2\nc N0=5\nb N1=3\n";

	tap_eq_int(mc_parse_flat_keyed_map(flat, strlen(flat), &map, &kv), 0, "map: parses");
	tap_check(kv.n == 2 && strcmp(kv.v[0].key, "renamed") == 0 && kv.v[0].borrowed &&
			  strcmp(kv.v[1].key, "b") == 0 && !kv.v[1].borrowed && calls == 3,
		  "map: renamed without a copy, copied, left out");
	tap_eq_int(mc_parse_flat_keyed_map(bad, strlen(bad), &map, &kv), -EINVAL,
		   "map: a bad line still fails");
	tap_eq_u64(kv.n, 2, "map: and appends nothing");
	mc_kvs_free(&kv);
	tap_eq_int(mc_parse_numa_stat_map(numa, strlen(numa), 4096, false, &map, &nodes, &n), 0, "numa map: parses");
	tap_check(n == 2 && nodes[0].n == 1 && mc_kvs_get(&nodes[0], "renamed", &v) == 0 && v == 1 &&
			  mc_kvs_get(&nodes[1], "b", &v) == 0 && v == 3 && nodes[1].n == 2,
		  "numa map: renamed, copied and left out per node");
	for (size_t i = 0; i < n; i++)
		mc_kvs_free(&nodes[i]);
	free(nodes);
}

int main(void)
{
	test_flat();
	test_flat_random();
	test_key_map();
	test_psi();
	test_numa();
	test_knob_value();
	test_model();
	return tap_done();
}
