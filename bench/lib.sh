# Shared setup for the benchmarks bench/NAME.sh (sourced). A benchmark
# asserts nothing about time: it measures, prints a table and writes its
# rows to $BENCH_RESULTS/NAME.tsv (a header line, then tab-separated rows).
# It exits 0 when it measured, 77 when it cannot run here (reason printed),
# anything else when it broke.
#
# Cgroups come from tests/integration/lib.sh: only below this shell's own
# memory cgroup (T_SELF, directory T_DIR), named $T_PREFIX..., removed on
# exit; T_STATE is a private memctl state directory.
#
#   B_NAME      the benchmark's name;  B_QUICK  1 with --quick (small sizes,
#               a few seconds: proves the benchmark still runs)
#   B_TSV       the results file;  BUILD  the build tree with memctl and bench/
#   tsv_header COL... / tsv_row VAL...   write the results file
#   table       print the results file as an aligned table
#   mkgroups DIR N   create N child groups g00001... in DIR (made if missing)
#   rmgroups DIR     remove DIR and everything below it, deepest first
#   wall        seconds since the epoch, with nanoseconds
#   ratio A B   A / B, two decimals;  median  of the numbers on stdin
#   stats_summary, stats_mwu   medians with quartiles, the rank test
#               (bench/stats.sh, which guest benchmarks source on their own)

B_NAME=$(basename "$0" .sh)
B_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$B_ROOT/build/release}
export MEMCTL=${MEMCTL:-$BUILD/memctl}
export MEMCTL_SOURCE_DIR=$B_ROOT
B_QUICK=0
B_ARGS=()
for a in "$@"; do
	if [ "$a" = --quick ]; then B_QUICK=1; else B_ARGS+=("$a"); fi
done
. "$B_ROOT/tests/integration/lib.sh"
. "$B_ROOT/bench/stats.sh"
BENCH_RESULTS=${BENCH_RESULTS:-$B_ROOT/build/bench-results/$B_NAME-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$BENCH_RESULTS" || { echo "$B_NAME: cannot create $BENCH_RESULTS" >&2; exit 1; }
B_TSV=$BENCH_RESULTS/$B_NAME.tsv

die() { echo "$B_NAME: $*" >&2; exit 1; }
need_bin() { [ -x "$1" ] || die "no $1 (scripts/setup.sh release, or set BUILD)"; }
need_bin "$MEMCTL"

tsv_header() { (IFS=$'\t'; echo "$*") > "$B_TSV"; }
tsv_row() { (IFS=$'\t'; echo "$*") >> "$B_TSV"; }
table() { column -t -s $'\t' "$B_TSV"; }

mkgroups() {
	mkdir -p "$1" && (cd "$1" && seq -f 'g%05g' 1 "$2" | xargs mkdir) || die "cannot create groups in $1"
}
rmgroups() { [ ! -d "$1" ] || find "$1" -depth -type d -exec rmdir {} + || die "cannot remove $1"; }

wall() { date +%s.%N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

# The host, for the results: CPUs, kernel, where the memory controller is.
host_line() {
	echo "host: $(nproc) CPUs, kernel $(uname -r), memory controller cgroup v$T_VERSION at $T_MOUNT," \
		"own memory cgroup $T_SELF"
}
# the median of the numbers on stdin, one a line
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# Options besides --quick: parse_opts USAGE NAME... takes "--NAME VALUE" for
# each NAME and sets OPT_NAME (upper case, '-' as '_'); anything else prints
# "usage: SCRIPT [--quick] USAGE" and exits 2.
parse_opts() {
	local usage=$1 i=0 o n ok
	shift
	while [ $i -lt ${#B_ARGS[@]} ]; do
		o=${B_ARGS[$i]#--} ok=0
		for n in "$@"; do [ "--$o" = "${B_ARGS[$i]}" ] && [ "$o" = "$n" ] && ok=1; done
		if [ $ok = 0 ] || [ $((i + 1)) -ge ${#B_ARGS[@]} ]; then
			echo "usage: $0 [--quick] $usage" >&2
			exit 2
		fi
		o=${o^^}
		printf -v "OPT_${o//-/_}" '%s' "${B_ARGS[$((i + 1))]}"
		i=$((i + 2))
	done
}
