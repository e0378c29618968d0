# memctl record on real groups while a workload changes them: at three
# moments the test stops the workload, keeps the kernel's files, waits for
# a sample taken after that, then changes the limits and the workload. The
# dump of the store must show, at each of those samples, what the kernel's
# files said: usage, limits, anonymous memory, task count, limit hits. A
# group made during the recording appears from then on, one removed
# disappears. Then memctl run --record writes the same store format with
# its decisions.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
BUILD=${MEMCTL_BUILD_DIR:-$(dirname "$MEMCTL")}
WL=${MEMCTL_WORKLOADS:-$BUILD/tests/workloads}
[ -x "$WL/hog" ] || skip "no hog workload at $WL"
T_TMP=$(mktemp -d)
S=$T_TMP/store
P=$T_PREFIX
mkparent "$P" || { fail "cannot make $P"; summary; exit 1; }
mkdir "$T_DIR/$P/a" "$T_DIR/$P/b"
if [ "$T_VERSION" = 1 ]; then
	usage_f=memory.usage_in_bytes limit_f=memory.limit_in_bytes anon_key=total_rss
else
	usage_f=memory.current limit_f=memory.max anon_key=anon
fi
rec_pid= hog_pid= sleeper= sleeper2= forker=
stop_all() {
	[ -n "$hog_pid" ] && { kill -CONT "$hog_pid"; kill "$hog_pid"; wait "$hog_pid"; } 2>/dev/null
	[ -n "$rec_pid" ] && { kill "$rec_pid"; wait "$rec_pid"; } 2>/dev/null
	[ -n "$sleeper" ] && { kill "$sleeper"; wait "$sleeper"; } 2>/dev/null
	[ -n "$sleeper2" ] && { kill "$sleeper2"; wait "$sleeper2"; } 2>/dev/null
	[ -n "$forker" ] && { pkill -P "$forker"; kill "$forker"; wait "$forker"; } 2>/dev/null
	hog_pid= rec_pid= sleeper= sleeper2= forker=
	cleanup
}
trap stop_all EXIT

# the number of samples in the store so far: its index entries (32 bytes
# each after a 32-byte header; the writer indexes a record once it is whole)
samples() {
	local f n=0
	for f in "$S"/*.mci; do [ -f "$f" ] && n=$((n + ($(stat -c %s "$f") - 32) / 32)); done
	echo $n
}
# waits (bounded) until the store has at least $1 samples
wait_samples() {
	local i
	for i in $(seq 1 600); do
		[ "$(samples)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
# kernel value as the store keeps it: v1's "no limit" is the page counter's maximum
knob() {
	local v
	v=$(kval "$1" "$2")
	case $v in max) echo max ;; *) [ "$v" -ge 9223372036854771712 ] 2>/dev/null && echo max || echo "$v" ;; esac
}
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$T_DIR/$1/memory.stat"; }

# fewer samples on a slow test host (the QEMU guest sets MEMCTL_TEST_SCALE): each dump reads them all
IVAL=$([ -n "${MEMCTL_TEST_SCALE:-}" ] && echo 500ms || echo 100ms)
"$MEMCTL" record -p "self/$P" --dir "$S" --interval "$IVAL" 2> "$T_TMP/rec.log" &
rec_pid=$!
wait_samples 1 || fail "no first sample: $(cat "$T_TMP/rec.log")"

sizes="24M 40M 8M"
limits="200M 120M 300M"
i=0
for size in $sizes; do
	i=$((i + 1))
	limit=$(echo "$limits" | cut -d' ' -f$i)
	echo $(( ${limit%M} << 20 )) > "$T_DIR/$P/a/$limit_f"
	[ -n "$hog_pid" ] && { kill -CONT "$hog_pid"; kill "$hog_pid"; wait "$hog_pid"; } 2>/dev/null
	[ $i = 3 ] && { rmdir "$T_DIR/$P/b"; mkdir "$T_DIR/$P/c"; }
	"$WL/hog" "$size" 400 > "$T_TMP/hog.out" 2>&1 &
	hog_pid=$!
	echo $hog_pid > "$T_DIR/$P/a/cgroup.procs"
	for _ in $(seq 1 200); do grep -q grown= "$T_TMP/hog.out" && break; sleep 0.05; done
	grep -q grown= "$T_TMP/hog.out" || fail "step $i: hog did not grow: $(cat "$T_TMP/hog.out")"
	kill -STOP $hog_pid
	wait_stopped $hog_pid || fail "step $i: hog did not stop"
	n0=$(samples)
	# what the kernel says now, while nothing in a moves
	echo "$i $(kval "$P/a" $usage_f) $(knob "$P/a" $limit_f) $(stat_of "$P/a" $anon_key)" \
	     "$(wc -l < "$T_DIR/$P/a/cgroup.procs")" >> "$T_TMP/kept"
	# a sample taken wholly after that moment: the second one from now
	echo "$i $((n0 + 2))" >> "$T_TMP/which"
	wait_samples $((n0 + 2)) || fail "step $i: no sample after keeping the files"
	# anonymous memory is exact (usage is not: see the slack below)
	[ "$(stat_of "$P/a" $anon_key)" = "$(awk -v i=$i '$1 == i { print $4 }' "$T_TMP/kept")" ] ||
		fail "step $i: memory moved while the workload was stopped (the check would be void)"
done
kill "$rec_pid"; wait "$rec_pid"; rc=$?
rec_pid=
check_rc $rc 0 "record stops on SIGTERM"
grep -q "stopping after" "$T_TMP/rec.log" || fail "record did not say it stopped: $(cat "$T_TMP/rec.log")"

mc dump --dir "$S" > "$T_TMP/dump.csv"; check_rc $? 0 "dump reads the store"
head -n1 "$T_TMP/dump.csv" | grep -qx 'time,group,metric,value,text' && pass "CSV header" || fail "CSV header"
BASE=${T_SELF%/}/$P   # the recorded parent, absolute ("/" has no trailing slash to drop)
A=$BASE/a
while read -r i k; do
	t=$(awk -F, -v g="$A" -v k="$k" '$2 == g && $3 == "usage" { if (++n == k) { print $1; exit } }' "$T_TMP/dump.csv")
	at() { awk -F, -v g="$A" -v t="$t" -v m="$1" '$1 == t && $2 == g && $3 == m { print $4 }' "$T_TMP/dump.csv"; }
	read -r _ usage limit anon tasks < <(awk -v i="$i" '$1 == i' "$T_TMP/kept")
	# v1's usage counts the per-CPU charge batches (64 pages a CPU), which
	# other groups' charges drain now and then: the same up to those
	got=$(at usage)
	slack=$((64 * $(getconf PAGESIZE 2>/dev/null || echo 4096) * $(grep -c ^processor /proc/cpuinfo)))
	d=$(( ${got:-0} - usage )); d=${d#-}
	[ -n "$got" ] && [ "$d" -le $slack ] && pass "step $i: usage at $t is the kernel's ($got, kept $usage)" ||
		fail "step $i: usage at $t is $got, the kernel's was $usage"
	check_eq "$(at limit.max)" "$limit" "step $i: limit max at $t is the kernel's"
	check_eq "$(at stat.anon)" "$anon" "step $i: memory.stat anon at $t is the kernel's $anon_key"
	check_eq "$(at tasks)" "$tasks" "step $i: task count at $t"
	[ "$i" = 3 ] && { g=c; gone=b; } || { g=b; gone=c; }
	present=$(awk -F, -v g="$BASE/$g" -v t="$t" '$1 == t && $2 == g && $3 == "usage"' "$T_TMP/dump.csv" | wc -l)
	absent=$(awk -F, -v g="$BASE/$gone" -v t="$t" '$1 == t && $2 == g' "$T_TMP/dump.csv" | wc -l)
	check_eq "$present $absent" "1 0" "step $i: $g is in the sample, $gone is not"
done < "$T_TMP/which"

# --groups, --from/--to, JSON
n_all=$(samples)
first=$(awk -F, 'NR == 2 { print $1 }' "$T_TMP/dump.csv")
# the CSV rounds times to milliseconds: a window of 2 ms around the first holds it alone
lo=$(awk -v t="$first" 'BEGIN { printf "%.3f", t - 0.001 }')
hi=$(awk -v t="$first" 'BEGIN { printf "%.3f", t + 0.001 }')
n_from=$(mc dump --dir "$S" --groups a --from "@$lo" --to "@$hi" | awk -F, '$3 == "usage"' | wc -l)
check_eq "$n_from" 1 "--from and --to the first sample's time: one sample"
others=$(mc dump --dir "$S" --groups a | awk -F, 'NR > 1 && $2 != "" && $2 != g' g="$A" | wc -l)
check_eq "$others" 0 "--groups keeps only the groups that match (and the host's rows)"
mc dump --dir "$S" --from "@4000000000" > "$T_TMP/none.csv"; check_rc $? 0 "a range after the store"
check_eq "$(wc -l < "$T_TMP/none.csv")" 1 "dumps the header only"
mc dump --dir "$S" --from "not a time" 2> "$T_TMP/err"; check_rc $? 2 "a bad --from"
grep -q "invalid --from 'not a time'" "$T_TMP/err" && pass "says what is wrong" || fail "message: $(cat "$T_TMP/err")"
mc dump --dir "$T_TMP/nostore" 2> "$T_TMP/err"; check_rc $? 2 "a store that is not there"
if command -v jq > /dev/null; then
	check_eq "$(mc dump --dir "$S" -o json | jq length)" "$n_all" "JSON: one object per sample"
fi

# memctl run --record: the same store, with the interval's decisions
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: $BASE
interval: 2s
groups:
  a:
    max: 256M
YAML
# (interval 2s: it bounds how long a write may take, and the guest is slow)
R=$T_TMP/run-store
{ kill -CONT "$hog_pid"; kill "$hog_pid"; wait "$hog_pid"; } 2>/dev/null
hog_pid=
mc run --once --record "$R" "$T_TMP/p.yaml" > "$T_TMP/run.out" 2>&1; rc=$?
check_rc $rc 0 "run --once --record"
[ $rc = 0 ] || cat "$T_TMP/run.out"
mc dump --dir "$R" > "$T_TMP/run.csv"
grep -q "^[0-9.]*,$A,decision.write,268435456,profile: " "$T_TMP/run.csv" &&
	pass "the store holds run's write of a's limit with its reason" ||
	fail "no decision in $(grep decision "$T_TMP/run.csv")"
grep -q ",,run.interval,1," "$T_TMP/run.csv" && pass "and the interval" || fail "no run.interval"
# run records the snapshot it decided on (the tree is read once an interval),
# with its writes brought in: the sample is read when the interval begins,
# before a write the test makes take 400 ms (MEMCTL_SLOW_WRITE: the first
# knob write, in builds with failure injection), and it holds the limit written
sed -i 's/max: 256M/max: 200M/' "$T_TMP/p.yaml"
MEMCTL_SLOW_WRITE=1:400 "$MEMCTL" run --once --record "$R" "$T_TMP/p.yaml" > "$T_TMP/run.out" 2>&1
check_rc $? 0 "run --once --record with a slow write"
if command -v jq > /dev/null; then
	mc dump --dir "$R" -o json | jq -c '.[-1]' > "$T_TMP/last.json"
	read -r t end dur < <(jq -r '"\(.time) \(.run.time) \(.run.duration_seconds)"' "$T_TMP/last.json")
	# the release build has no MEMCTL_SLOW_WRITE: there the write is not slowed
	slow=0.4
	"$MEMCTL" --version | grep -q "fault injection" || slow=0
	awk -v t="$t" -v e="$end" -v d="$dur" -v s=$slow 'BEGIN { exit !(t <= e - s && t >= e - d - 0.001) }' &&
		pass "the sample is the tree run read as the interval began ($t; the interval ended $end, took $dur s)" ||
		fail "the sample at $t is not the interval's snapshot (the interval ended $end, took $dur s)"
	check_eq "$(jq -r --arg g "$A" '.groups[] | select(.group == $g) | .limits.max' "$T_TMP/last.json")" \
		"$(kval "$P/a" "$limit_f")" "and holds a's limit as run wrote it, the kernel's"
fi
mc record -p "self/$P" --dir "$S" --interval 1s -n 1 2> "$T_TMP/err"; check_rc $? 0 "a second recording appends ($(cat "$T_TMP/err"))"
mc record -p "self/$P" --dir "$S" --retain 1x -n 1 2> "$T_TMP/err"; check_rc $? 2 "a bad --retain"

# Task counts as the kernel has them, read each sample through a kept
# descriptor where that is right (cgroup v1 keeps a group's process list
# for a second after a read: within it the file is opened afresh). The
# test never reads t's cgroup.procs itself (an open would refresh the
# kernel's list): where the process is, /proc/PID/cgroup says. On v1 an
# empty group is not read until its cgroup.procs or tasks is written: u
# gains its process through tasks (a thread's move).
mkdir "$T_DIR/$P/t" "$T_DIR/$P/u"
tasks_at() { # GROUP SAMPLE...: GROUP's task count in each SAMPLE-th sample, on one line
	local grp=$1
	shift
	mc dump --dir "$S" --groups "$grp" | awk -F, -v g="$BASE/$grp" -v w="$*" '
		BEGIN { n = split(w, k, " ") }
		$2 == g && $3 == "tasks" { c++; for (i = 1; i <= n; i++) if (k[i] == c) v[i] = $4 }
		END { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), v[i]; print "" }'
}
# (v1: below 2 s the file is opened afresh each sample, from 2 s on the kept
# descriptor is read; v2 reads the kept descriptor at any interval)
ivals=$IVAL
[ "$T_VERSION" = 1 ] && ivals="$IVAL 2500ms"
for ival in $ivals; do
	S=$T_TMP/tasks-$ival
	"$MEMCTL" record -p "self/$P" --dir "$S" --interval "$ival" 2> "$T_TMP/rec.log" &
	rec_pid=$!
	wait_samples 2 || fail "$ival: no first samples: $(cat "$T_TMP/rec.log")"
	sleep 300 &
	sleeper=$!
	echo $sleeper > "$T_DIR/$P/t/cgroup.procs"
	grep -q ":$T_SELF/$P/t\$\|:${T_SELF%/}/$P/t\$" /proc/$sleeper/cgroup || fail "$ival: the process is not in t"
	sleep 300 &
	sleeper2=$!
	if [ "$T_VERSION" = 1 ]; then
		echo $sleeper2 > "$T_DIR/$P/u/tasks"
	else
		echo $sleeper2 > "$T_DIR/$P/u/cgroup.procs"
	fi
	n=$(( $(samples) + 2 ))
	wait_samples $n || fail "$ival: no samples after the move"
	kill $sleeper $sleeper2; wait $sleeper $sleeper2 2> /dev/null
	sleeper= sleeper2=
	m=$(( $(samples) + 2 ))
	wait_samples $m || fail "$ival: no samples after the exit"
	kill "$rec_pid"; wait "$rec_pid"
	rec_pid=
	check_eq "$(tasks_at t $n $m)" "1 0" \
		"$ival: t's task count after a process moved in, and after it exited"
	check_eq "$(tasks_at u 1 $n $m)" "0 1 0" \
		"$ival: u's, empty, then its process moved in through tasks (v1), then gone"
done

# Task counts as processes fork, exit and move. On v1 memctl counts a group
# that holds processes from the kernel's fork and exit events where it can
# (memctl status: task_events), reading its cgroup.procs only when one of
# its processes forked or exited, a process moved in, or at every 16th
# sample (host/subtree.c). A bash in f forks a child (2), the child is
# killed (1), the bash moves to f2 within the recorded parent (f 0, f2 1),
# then to a group outside it: no event tells f2 that, so within 16 samples.
mkdir "$T_DIR/$P/f" "$T_DIR/$P/f2" "$T_DIR/$P-out"
# The bash takes one line of the fifo per step, from one descriptor held
# open by both ends: opened again per step, a read could meet the end of
# the previous writer (EOF) and skip a step (seen in the TCG guest).
mkfifo "$T_TMP/go"
exec {go}<> "$T_TMP/go"
bash -c 'exec 3< "$1"; read -r _ <&3; sleep 300 & echo $! > "$2"; read -r _ <&3; kill $!; wait; read -r _ <&3' \
	forker "$T_TMP/go" "$T_TMP/kid" &
forker=$!
echo $forker > "$T_DIR/$P/f/cgroup.procs"
S=$T_TMP/fork
"$MEMCTL" record -p "self/$P" --dir "$S" --interval "$IVAL" 2> "$T_TMP/rec.log" &
rec_pid=$!
next_sample() { # waits for a sample begun after now; prints its number
	local n=$(( $(samples) + 2 ))
	wait_samples $n || fail "no samples: $(cat "$T_TMP/rec.log")"
	echo $n
}
s1=$(next_sample)
echo >&$go
for _ in $(seq 1 200); do [ -s "$T_TMP/kid" ] && break; sleep 0.05; done
[ -s "$T_TMP/kid" ] || fail "the bash did not fork"
s2=$(next_sample)
echo >&$go
for _ in $(seq 1 200); do kill -0 "$(cat "$T_TMP/kid")" 2> /dev/null || break; sleep 0.05; done
s3=$(next_sample)
echo $forker > "$T_DIR/$P/f2/cgroup.procs"
s4=$(next_sample)
echo $forker > "$T_DIR/$P-out/cgroup.procs"
s5=$(( $(next_sample) + 16 ))
wait_samples $s5 || fail "no samples after the move out"
kill "$rec_pid"; wait "$rec_pid"
rec_pid=
echo >&$go; wait $forker
exec {go}>&-
forker=
check_eq "$(tasks_at f $s1 $s2 $s3 $s4)" "1 2 1 0" \
	"f's task count: a bash, its child forked, the child gone, the bash moved to f2"
check_eq "$(tasks_at f2 $s3 $s4 $s5)" "0 1 0" \
	"f2's: empty, the bash moved in, the bash moved out of the recorded parent (within 16 samples)"
if [ "$T_VERSION" = 1 ]; then
	"$MEMCTL" status | grep -q '^  task_events *yes' ||
		echo "# note: task_events not available, every count was read each sample"
fi
summary
