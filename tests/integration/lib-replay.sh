# A recorded history of real groups for the replay tests (sourced after
# lib.sh and prereq_memcg; skips without jq; sets T_TMP, a temporary
# directory, unless the test has, and P, the test's group): groups below
# our cgroup change in three phases while a workload runs in them, and
# after each phase the test keeps what the kernel's files say, records one
# sample with `memctl record -n 1`, and reads the files again.
#
#   replay_phases        record_phases, one check; the test ends if it fails
#   record_phases        makes the groups, runs the phases, fills:
#   STORE                the store's directory
#   SAMPLE_T[1..3]       each sample's recording time (unix seconds, from the store)
#   $T_TMP/kept.K        per phase K, one line per group: NAME USAGE_BEFORE USAGE_AFTER MAX TASKS
#                        (NAME "." is the parent)
#   kept K NAME FIELD    one kept value (FIELD: ub ua max tasks)
#   stop_workloads       ends what the phases started (the test's EXIT trap calls it)
#   record_run           a store by `memctl run --once --record` in $T_TMP/runstore,
#                        of $P-run (max 64M) and $P-run/a (max 32M); run's output
#                        in $T_TMP/run.out; one check
#
# The workload: a process in web that writes a file (its page cache is
# charged to web) and stays; sleeping tasks in batch.
# Phase 1: web (max 256M, 8M written), batch (max 128M, one task).
# Phase 2: web's max 192M, 24M written instead; batch has two tasks; new (max 64M) appears.
# Phase 3: batch is gone; web's max 160M, 16M written instead.

command -v jq > /dev/null || skip "jq is not installed"
T_TMP=${T_TMP:-$(mktemp -d)}
P=$T_PREFIX
STORE=$T_TMP/store
R_PIDS=""
if [ "$T_VERSION" = 1 ]; then
	MAXF=memory.limit_in_bytes USAGEF=memory.usage_in_bytes
else
	MAXF=memory.max USAGEF=memory.current
fi

stop_workloads() {
	local p
	for p in $R_PIDS; do kill "$p" 2> /dev/null; done
	for p in $R_PIDS; do wait "$p" 2> /dev/null; done
	R_PIDS=""
}

# run_in GROUP CMD...: starts CMD in GROUP (relative to our cgroup), in the
# background, and returns once the process is in the group's cgroup.procs.
run_in() {
	local g=$1 i
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$T_DIR/$g" "$@" &
	R_PIDS="$R_PIDS $!"
	for i in $(seq 1 200); do grep -qx "$!" "$T_DIR/$g/cgroup.procs" && return 0; sleep 0.02; done
	echo "not ok - process $! did not arrive in $g"
	return 1
}

# fill_in GROUP MB: a process in GROUP that writes MB megabytes of a file
# (page cache charged to GROUP, which stays while the file does) and then
# sleeps; the one before it ends and its file goes (uncharging its cache).
fill_in() {
	local i
	[ -n "${R_FILL:-}" ] && { kill "$R_FILL"; wait "$R_FILL" 2> /dev/null; rm -f "$T_TMP/fill.$R_FILL"; }
	run_in "$1" sh -c 'head -c "$0" /dev/zero > "$1" && touch "$1.done" && exec sleep 600' \
		"$(($2 << 20))" "$T_TMP/fill.next" || return 1
	R_FILL=${R_PIDS##* }
	for i in $(seq 1 200); do [ -e "$T_TMP/fill.next.done" ] && break; sleep 0.05; done
	[ -e "$T_TMP/fill.next.done" ] || { echo "not ok - writing ${2}M in $1 did not end"; return 1; }
	mv "$T_TMP/fill.next" "$T_TMP/fill.$R_FILL"
	rm -f "$T_TMP/fill.next.done"
}

# keep_values K: NAME USAGE MAX TASKS of every group below $P now, into $T_TMP/now.K
keep_values() {
	local d name
	: > "$T_TMP/now.$1"
	for d in "$T_DIR/$P" "$T_DIR/$P"/*/; do
		d=${d%/}
		[ -d "$d" ] || continue
		name=${d#$T_DIR/$P}; name=${name#/}; name=${name:-.}
		echo "$name $(cat "$d/$USAGEF") $(cat "$d/$MAXF") $(wc -l < "$d/cgroup.procs")" >> "$T_TMP/now.$1"
	done
}

# record_one K: keeps the values, records one sample, keeps the usage after it.
record_one() {
	keep_values "$1.before"
	mc record -p "self/$P" --dir "$STORE" -n 1 > "$T_TMP/record.$1" 2>&1 ||
		{ echo "not ok - memctl record (phase $1): $(cat "$T_TMP/record.$1")"; return 1; }
	keep_values "$1.after"
	# (awk, not join: the QEMU guest's busybox has none)
	awk 'NR == FNR { after[$1] = $2; next } ($1 in after) { print $1, $2, after[$1], $3, $4 }' \
		"$T_TMP/now.$1.after" "$T_TMP/now.$1.before" > "$T_TMP/kept.$1"
}

kept() {
	awk -v n="$2" -v f="$3" '$1 == n { print (f == "ub" ? $2 : f == "ua" ? $3 : f == "max" ? $4 : $5) }' \
		"$T_TMP/kept.$1"
}

# setmax GROUP BYTES
setmax() { echo "$2" > "$T_DIR/$1/$MAXF"; }

record_phases() {
	mkparent "$P" || return 1
	mkdir "$T_DIR/$P/web" "$T_DIR/$P/batch" || return 1
	setmax "$P" $((512 << 20)) && setmax "$P/web" $((256 << 20)) && setmax "$P/batch" $((128 << 20)) ||
		return 1
	fill_in "$P/web" 8 || return 1
	run_in "$P/batch" sleep 600 || return 1
	record_one 1 || return 1
	setmax "$P/web" $((192 << 20))
	fill_in "$P/web" 24 || return 1
	run_in "$P/batch" sleep 600 || return 1
	mkdir "$T_DIR/$P/new" && setmax "$P/new" $((64 << 20)) || return 1
	record_one 2 || return 1
	for p in $(cat "$T_DIR/$P/batch/cgroup.procs"); do kill "$p" && wait "$p" 2> /dev/null; done
	# an ended task may hold the group for a moment after it left cgroup.procs
	for i in $(seq 1 100); do rmdir "$T_DIR/$P/batch" 2> /dev/null && break; sleep 0.05; done
	[ ! -d "$T_DIR/$P/batch" ] || { echo "not ok - cannot remove $P/batch"; return 1; }
	setmax "$P/web" $((160 << 20))
	fill_in "$P/web" 16 || return 1
	record_one 3 || return 1
	mc top -b --replay "$STORE" -o json > "$T_TMP/all.json" || return 1
	mapfile -t SAMPLE_T < <(jq -r '.time' "$T_TMP/all.json")
	SAMPLE_T=("" "${SAMPLE_T[@]}")
	[ "${#SAMPLE_T[@]}" = 4 ] || { echo "not ok - ${#SAMPLE_T[@]} samples in the store, want 3"; return 1; }
}

replay_phases() {
	record_phases || { fail "recording the phases"; summary; exit 1; }
	pass "three samples recorded at ${SAMPLE_T[*]}"
}

record_run() {
	tree_profile "$T_TMP/run.yaml" "$P-run" max=64M a/max=32M
	local rc
	mc run "$T_TMP/run.yaml" --once --record "$T_TMP/runstore" > "$T_TMP/run.out" 2>&1
	rc=$?
	check_rc $rc 0 "memctl run --once --record"
	[ $rc = 0 ] || sed 's/^/# run: /' "$T_TMP/run.out"
}

