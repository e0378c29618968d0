# Helpers of the guest benchmarks (busybox sh), on top of tests/guest/lib.sh.
# Sourced by bench/guest/NN-*.sh, which run inside the memctl test host as
# /tests/bench/NN-*.sh (kernel/run-guest.sh TEST=bench/NN-*.sh).
#
# A benchmark prints its measurements as
#   BENCH EXPERIMENT SCENARIO key=value ...
# lines, which bench/guest.sh collects from both kernels and tabulates. It
# asserts nothing: a step that cannot be done is reported with
#   BENCH-ERROR EXPERIMENT message
# and the script goes on with the next scenario.
. /tests/lib.sh
export MEMCTL_STATE_DIR=/tmp/memctl-state
mkdir -p $MEMCTL_STATE_DIR

# Arguments (memctl_args= of the kernel command line, from bench/guest.sh):
# quick (small sizes), rounds=N (rounds of the interleaved arms),
# arms=A+B+... (run only these arms; see want).
QUICK=0 ROUNDS_ARG= ARMS_ARG=
for _a in "$@"; do
	case $_a in
	quick) QUICK=1 ;;
	rounds=*) ROUNDS_ARG=${_a#rounds=} ;;
	arms=*) ARMS_ARG=${_a#arms=} ;;
	*) echo "BENCH-ERROR ${E:-bench} unknown argument '$_a'"; exit 2 ;;
	esac
done
# rounds DEFAULT: sets ROUNDS, the number of rounds of a script's arms:
# rounds=N when bench/guest.sh passed it (--rounds), else DEFAULT.
rounds() {
	ROUNDS=${ROUNDS_ARG:-$1}
	case $ROUNDS in ''|*[!0-9]*|0) echo "BENCH-ERROR $E bad rounds '$ROUNDS'"; exit 2 ;; esac
}
KERNEL=baseline
patched && KERNEL=patched
# want NAME: is arm NAME to run? Every arm unless arms= named some; a
# script's scenario function returns at once for the others.
want() {
	[ -z "$ARMS_ARG" ] && return 0
	case "+$ARMS_ARG+" in *"+$1+"*) return 0 ;; esac
	return 1
}

bench() { echo "BENCH $E $*"; }
# An arm (scenario) repeated in rounds: bench_round NAME key=value... prints
# one round as scenario NAME#N (kept in results.tsv, where bench/guest.sh
# takes the quartiles and rank tests from; not tabulated) and keeps it;
# bench_medians NAME then prints scenario NAME with the median of every
# numeric key over its rounds (and rounds=N). Scripts run their arms round
# by round (ABCABC..., not AAA BBB), so that a change of the host's load
# falls on every arm alike, and measure the memctl arm twice per round (the
# second as NAME-aa: the A/A control that gives the noise its number).
bench_round() {
	_bn=$1; shift
	echo "$*" >> /tmp/rounds-$E-$_bn
	bench "$_bn#$(wc -l < /tmp/rounds-$E-$_bn)" "$@"
}
# AWK_MEDIAN: an awk function, median(a, m), of a[1..m]; it sorts a in place
# (insertion sort: a handful of rounds), so a[m] is the maximum after it.
AWK_MEDIAN='function median(a, m,  x, y, z) {
	for (x = 2; x <= m; x++) { y = a[x]; for (z = x - 1; z >= 1 && a[z] > y; z--) a[z + 1] = a[z]; a[z + 1] = y }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }'
bench_medians() {
	[ -s /tmp/rounds-$E-$1 ] || return 0
	bench $1 $(awk "$AWK_MEDIAN"' { for (i = 1; i <= NF; i++) { k = substr($i, 1, index($i, "=") - 1)
			v = substr($i, index($i, "=") + 1)
			if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
			val[k, NR] = v } }
		END { for (j = 1; j <= nk; j++) { k = keys[j]; m = 0
				for (r = 1; r <= NR; r++) if (val[k, r] ~ /^-?[0-9.]+$/) a[++m] = val[k, r] + 0
				if (m < NR) { printf " %s=%s", k, val[k, 1]; continue }
				printf " %s=%s", k, median(a, m) }
			printf " rounds=%d\n", NR }' /tmp/rounds-$E-$1)
}
berr() { echo "BENCH-ERROR $E $*"; }
# field KEY LINE: the value of KEY=... in a key=value line.
field() { echo " $2" | sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p"; }

# mkgroup PATH: (re)create GROUP below the cgroup2 root with the memory
# controller enabled for its children (memctl does not do that yet for
# groups it creates on v2).
mkgroup() {
	rmgroup "$1"
	mkdir -p "$CG/$1"
	echo +memory > "$CG/$1/cgroup.subtree_control"
}
# rmgroup PATH: remove a group tree (its processes must have ended).
rmgroup() {
	[ -d "$CG/$1" ] || return 0
	find "$CG/$1" -depth -type d -exec rmdir {} \; 2>/dev/null
}

# spawn_in OUT GROUP COMMAND...: start COMMAND in GROUP in the background,
# its output to OUT; $! is the command's own PID (run_in with & would give
# the PID of a subshell around it).
spawn_in() {
	o=$1 g=$2; shift 2
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/$g" "$@" > "$o" 2>&1 &
}

# memctl_start PROFILE LOG: memctl run in the background; sets MEMCTL_PID.
# It waits until the first interval has been applied (the log's first
# line) so the measured part starts with memctl's settings in place.
memctl_start() {
	: > "$2"
	memctl run "$1" > "$2" 2>&1 &
	MEMCTL_PID=$!
	i=0
	while [ $i -lt 300 ] && [ ! -s "$2" ] && kill -0 $MEMCTL_PID 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	kill -0 $MEMCTL_PID 2>/dev/null || { berr "memctl run exited: $(tail -n 3 "$2" | tr '\n' ' ')"; MEMCTL_PID=; return 1; }
	return 0
}
# memctl_stop: stops memctl run; prints its CPU seconds (user+sys) and
# counts its reclaims into MEMCTL_RECLAIMS.
memctl_stop() {
	MEMCTL_CPU=0 MEMCTL_SYS=0
	[ -n "$MEMCTL_PID" ] || return 0
	if [ -r /proc/$MEMCTL_PID/stat ]; then
		set -- $(sed 's/.*) //' /proc/$MEMCTL_PID/stat)
		# fields 14 and 15 of stat are utime and stime; after the comm
		# field is cut they are the 12th and 13th
		eval "ut=\${12} st=\${13}"
		hz=100
		MEMCTL_CPU=$(awk -v u=$ut -v s=$st -v hz=$hz 'BEGIN { printf "%.2f", (u + s) / hz }')
		MEMCTL_SYS=$(awk -v s=$st -v hz=$hz 'BEGIN { printf "%.2f", s / hz }')
	fi
	kill -TERM $MEMCTL_PID 2>/dev/null
	wait $MEMCTL_PID 2>/dev/null
	MEMCTL_PID=
}

# memctl_reclaims LOG: from memctl run's log, its reclaims (MEMCTL_NRECL),
# what they got (MEMCTL_RGOT, MiB) and their wall and CPU seconds
# (MEMCTL_RWALL, MEMCTL_RCPU: "got SIZE in W ms, cpu C ms" of each)
memctl_reclaims() {
	set -- $(sed -n 's/.*: reclaim .*got \([0-9]*[KMGT]*\) in \([0-9.]*\) ms, cpu \([0-9.]*\) ms.*/\1 \2 \3/p' "$1" |
		awk '{ u = substr($1, length($1)); m = 1 / 1048576
		       if (u == "K") m = 1 / 1024; else if (u == "M") m = 1; else if (u == "G") m = 1024; else if (u == "T") m = 1048576
		       n++; g += ($1 + 0) * m; w += $2; c += $3 }
		     END { printf "%d %.1f %.3f %.3f", n, g, w / 1000, c / 1000 }')
	MEMCTL_NRECL=$1 MEMCTL_RGOT=$2 MEMCTL_RWALL=$3 MEMCTL_RCPU=$4
}

# pair_profile FILE GROUP LIMIT_MIB "CHILD: SPEC" "CHILD: SPEC": a profile
# of one group below the root with a limit and two children, run every
# second.
pair_profile() {
	cat > "$1" <<EOF
version: 1
parent: /
interval: 1s
groups:
  $2:
    max: ${3}M
    groups:
      $4
      $5
EOF
}

# pair_setup PROTECTED OTHER MODE: group P with the limit LIMIT (MiB) and
# the children PROTECTED and OTHER; MODE knob: the patched kernel's
# protection on P; oracle: what an expert who knows the protected job's
# size sets by hand, memory.low of PROTECTED = LOW (MiB) and OTHER capped
# at LIMIT - LOW - 8 MiB. Fails (after a BENCH-ERROR line, with P removed)
# when a write fails.
pair_setup() {
	mkgroup P
	echo ${LIMIT}M > $CG/P/memory.max
	mkdir $CG/P/$1 $CG/P/$2
	[ $3 = knob ] && echo 1 > $CG/P/memory.reclaim_protect_active
	[ $3 = oracle ] || return 0
	echo ${LOW}M > $CG/P/$1/memory.low && echo $((LIMIT - LOW - 8))M > $CG/P/$2/memory.max && return 0
	berr "$name: cannot write memory.low or memory.max"
	rmgroup P
	return 1
}

# uptime in centiseconds, and a difference of two as seconds
ucs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }
secs() { awk -v a=$1 -v b=$2 'BEGIN { printf "%.2f", (b - a) / 100 }'; }
