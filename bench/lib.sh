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
#   rmgroups DIR     remove DIR and everything below it, deepest first (for
#               up to 5 s: a job that just ended may still be leaving it)
#   bench_setup_v1 WHY   for benchmarks that run workloads in groups: root,
#               a v1 memory controller (else skip, saying WHY), a scratch
#               directory T_TMP in /var/tmp (on disk: page cache on tmpfs
#               cannot be reclaimed without swap), and an EXIT trap that ends
#               the jobs, then removes the groups and the files
#   B_PIDS, B_RUN_PID    the jobs started (workloads; memctl run), which
#               stop_jobs ends (SIGTERM) and waits for
#   WL, need_workloads W..., mkfile PATH SIZE   the workload programs
#   wait_until TRIES CMD...  runs CMD every 0.1 s until it succeeds (false
#               after TRIES tries)
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
rmgroups() {
	local i
	for i in $(seq 1 50); do
		[ -d "$1" ] || return 0
		find "$1" -depth -type d -exec rmdir {} + 2>/dev/null
		[ -d "$1" ] && sleep 0.1
	done
	[ ! -d "$1" ] || die "cannot remove $1"
}

WL=${WORKLOADS:-$(dirname "$MEMCTL")/tests/workloads}
need_workloads() {
	local w
	for w; do [ -x "$WL/$w" ] || die "no workload '$WL/$w' (built with memctl, or set WORKLOADS)"; done
}
mkfile() { "$WL/mkfile" "$1" "$2" > /dev/null || die "cannot write $1"; }

wait_until() {
	local tries=$1 i
	shift
	for i in $(seq 1 "$tries"); do "$@" && return 0; sleep 0.1; done
	return 1
}

B_PIDS="" B_RUN_PID=""
stop_jobs() {
	local p
	for p in $B_PIDS; do kill -TERM "$p" 2>/dev/null; done
	# a disowned job cannot be waited for: watch it go
	for p in $B_PIDS; do wait "$p" 2>/dev/null || while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
	if [ -n "$B_RUN_PID" ]; then
		kill -TERM "$B_RUN_PID" 2>/dev/null
		wait "$B_RUN_PID" 2>/dev/null
	fi
	B_PIDS="" B_RUN_PID=""
}
bench_cleanup() { stop_jobs; cleanup; }
bench_setup_v1() {
	prereq_root
	prereq_memcg
	[ "$T_VERSION" = 1 ] || skip "$1"
	T_TMP=$(disk_tmpdir) || die "no scratch directory on disk in /var/tmp (or it is tmpfs)"
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

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
