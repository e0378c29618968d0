#!/usr/bin/env bash
# Apply cost: `memctl apply` of an N-group profile (journal, writes and
# read-back of every value included) against cgconfigparser (Debian's
# cgroup-tools) loading an equivalent cgconfig.conf, both creating their
# groups below our own memory cgroup. Each group has two memory settings
# (memory.limit_in_bytes, memory.soft_limit_in_bytes). Rounds interleave the
# tools; every tree is checked against the values asked for after each
# round (outside the timing) and removed before the next.
#
#   bench/apply.sh [--quick] [--groups N] [--rounds N]
#
# Ways: memctl-new (creates the tree), memctl-change (the same tree, every
# value different: a journal entry and a write per value), memctl-same
# (nothing to change: snapshot and plan only), cgconfigparser-new,
# cgconfigparser-again (loads the same file over the existing tree). Rows of
# apply.tsv: way, groups, wall and CPU (user+system) milliseconds, medians,
# CPU ratio to cgconfigparser-new.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
[ "$T_VERSION" = 1 ] || skip "the equivalent cgconfig.conf is written for cgroup v1 knobs"
command -v cgconfigparser > /dev/null || skip "cgconfigparser is not installed (Debian package cgroup-tools)"

N=1000
ROUNDS=5
[ "$B_QUICK" = 1 ] && N=20 ROUNDS=1
parse_opts "[--groups N] [--rounds N]" groups rounds
N=${OPT_GROUPS:-$N} ROUNDS=${OPT_ROUNDS:-$ROUNDS}
T_TMP=$(mktemp -d)
MC=$T_PREFIX-memctl
CG=$T_PREFIX-cgc

# Group i's values in bytes (page-aligned); the changed profile doubles the step.
VALUES='function vmax(k, i) { return 67108864 + i * 65536 * k }
	function vsoft(k, i) { return 33554432 + i * 32768 * k }'
# "gNNNNN max soft" for every group of profile $1 (1 or 2)
values() { awk -v n="$N" -v k="$1" "$VALUES"' BEGIN { for (i = 1; i <= n; i++) printf "g%05d %d %d\n", i, vmax(k, i), vsoft(k, i) }'; }
yaml() {
	values "$1" | awk -v top="$MC" 'BEGIN { printf "version: 1\nparent: self\ngroups:\n  %s:\n    groups:\n", top }
		{ printf "      %s: { max: %s, soft_limit: %s }\n", $1, $2, $3 }'
}
yaml 1 > "$T_TMP/p1.yaml"
yaml 2 > "$T_TMP/p2.yaml"
values 1 | awk -v base="${T_SELF#/}/$CG" '{ printf "group %s/%s {\n\tmemory {\n\t\tmemory.limit_in_bytes = %s;\n", base, $1, $2
	printf "\t\tmemory.soft_limit_in_bytes = %s;\n\t}\n}\n", $3 }' > "$T_TMP/cgconfig.conf"

# The tree $1 holds exactly N groups with the values of profile $2.
check_tree() {
	local got
	got=$(cd "$T_DIR/$1" && grep -H . g*/memory.limit_in_bytes g*/memory.soft_limit_in_bytes |
		awk -F'[/:]' '{ v[$1] = v[$1] " " $3 } END { for (g in v) print g v[g] }' | sort)
	[ "$got" = "$(values "$2")" ] || die "$1: the groups or their values differ from what was asked"
}

# Runs a command, appends "way wall_ms cpu_ms" to times; stdout/err kept for errors.
TIMEFORMAT='%R %U %S'
timed() {
	local way=$1 t
	shift
	t=$({ time "$@" > "$T_TMP/out" 2>&1; } 2>&1) || die "$way failed: $(head -n5 "$T_TMP/out")"
	echo "$t" | awk -v w="$way" '{ printf "%s %.1f %.1f\n", w, $1 * 1000, ($2 + $3) * 1000 }' >> "$T_TMP/times"
}

host_line
echo "apply: $N groups, two memory settings each, $ROUNDS rounds (medians); memctl journal in" \
	"$T_STATE ($(stat -f -c %T "$T_STATE")); $(
	dpkg-query -W -f='cgroup-tools ${Version}' cgroup-tools)"
: > "$T_TMP/times"
for r in $(seq 1 "$ROUNDS"); do
	timed memctl-new "$MEMCTL" -q apply "$T_TMP/p1.yaml"
	check_tree "$MC" 1
	timed memctl-change "$MEMCTL" -q apply "$T_TMP/p2.yaml"
	check_tree "$MC" 2
	timed memctl-same "$MEMCTL" -q apply "$T_TMP/p2.yaml"
	timed cgconfigparser-new cgconfigparser -l "$T_TMP/cgconfig.conf"
	check_tree "$CG" 1
	timed cgconfigparser-again cgconfigparser -l "$T_TMP/cgconfig.conf"
	check_tree "$CG" 1
	rmgroups "$T_DIR/$MC"
	rmgroups "$T_DIR/$CG"
done

tsv_header way groups wall_ms cpu_ms x_cgconfigparser_cpu x_cgconfigparser_wall
med() { awk -v w="$1" -v f="$2" '$1 == w { print $f }' "$T_TMP/times" | median; }
base_cpu=$(med cgconfigparser-new 3)
base_wall=$(med cgconfigparser-new 2)
for way in memctl-new memctl-change memctl-same cgconfigparser-new cgconfigparser-again; do
	tsv_row "$way" "$N" "$(med "$way" 2)" "$(med "$way" 3)" "$(ratio "$(med "$way" 3)" "$base_cpu")" \
		"$(ratio "$(med "$way" 2)" "$base_wall")"
done
table
echo "x_cgconfigparser: over cgconfigparser-new's CPU (user+system) and wall time, same run"
echo "results: $B_TSV"
