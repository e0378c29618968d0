# memctl top -b --replay over a history recorded here: groups below our
# cgroup change in three phases while a workload runs in them
# (lib-replay.sh); the test keeps the kernel's files before and after each
# recorded sample. Batch replay's JSON at each recorded time must hold the
# values the kernel's files had then (limits and task counts exactly, usage
# within what the files said around the sample), with the groups that
# existed then and no others; --from/--to and -t choose samples; bad times
# are refused naming the option and the text; the decisions memctl run
# --record recorded are those replay gives, with their reasons; a corrupt
# record is named and stepped over.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
. "$(dirname "$0")/lib-replay.sh"
trap 'stop_workloads; cleanup' EXIT
replay_phases

# The kernel's usage_in_bytes is exact only to the per-CPU charge batches
# (32 pages a CPU on v1 and v2): the recorded value must lie within what the
# files said just before and just after the sample, widened by that much.
# (from /proc: the QEMU guest's busybox has no getconf)
PAGE=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
SLACK=$(( 32 * PAGE * $(grep -c '^processor' /proc/cpuinfo) ))
check_sample() {	# K JSON-LINE
	local k=$1 json=$2 name g got lo hi ub ua
	for name in $(awk '{ print $1 }' "$T_TMP/kept.$k"); do
		[ "$name" = . ] && g="" || g=$name
		got=$(jq -r --arg g "$g" '.groups[] | select(.group == $g) | "\(.usage) \(.max) \(.tasks)"' <<< "$json")
		[ -n "$got" ] || { fail "sample $k: group '$name' missing"; continue; }
		set -- $got
		check_eq "$2" "$(kept "$k" "$name" max)" "sample $k: $name's max is the kernel's then"
		check_eq "$3" "$(kept "$k" "$name" tasks)" "sample $k: $name's task count is the kernel's then"
		ub=$(kept "$k" "$name" ub) ua=$(kept "$k" "$name" ua)
		lo=$(( (ub < ua ? ub : ua) - SLACK )) hi=$(( (ub > ua ? ub : ua) + SLACK ))
		if [ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ]; then
			pass "sample $k: $name's usage $1 lies within the kernel's $ub .. $ua"
		else
			fail "sample $k: $name's usage $1 is not the kernel's $ub .. $ua"
		fi
	done
	got=$(jq -r '[.groups[].group] | sort | join(" ")' <<< "$json")
	want=$(awk '{ print ($1 == "." ? "" : $1) }' "$T_TMP/kept.$k" | sort | tr '\n' ' ' | sed 's/ $//')
	check_eq "$got" "$want" "sample $k: the groups of then, no others"
}

for k in 1 2 3; do
	check_sample $k "$(sed -n "${k}p" "$T_TMP/all.json")"
done
check_eq "$(jq -r '.replay' "$T_TMP/all.json" | sort -u)" "$STORE" "each line names the store"
# the 8M, then 24M web wrote show in its usage
u1=$(jq -r '.groups[] | select(.group == "web") | .usage' <<< "$(sed -n 1p "$T_TMP/all.json")")
u2=$(jq -r '.groups[] | select(.group == "web") | .usage' <<< "$(sed -n 2p "$T_TMP/all.json")")
[ "$u2" -gt $((u1 + (12 << 20))) ] && pass "web's usage grew with what it wrote ($u1 -> $u2)" ||
	fail "web's usage did not follow what it wrote ($u1 -> $u2)"

# --from / --to / -t pick samples by time, and bad times are refused: every
# query is a line of one `memctl shell` script (one process: in the QEMU
# guest a memctl start costs seconds). Each JSON query sorts by a column of
# its own, so its lines can be told apart by their "sort"; the refused ones
# are named by their line in the shell's "failed (exit status N)" message.
# a store memctl run --record wrote (its decisions are checked below), and a
# copy of the phases' store with its second record corrupted
record_run
cp -a "$STORE" "$T_TMP/bad"
mci=$(ls "$T_TMP/bad"/*.mci | head -n 1) mcd=$(ls "$T_TMP/bad"/*.mcd | head -n 1)
# the second record's offset: index entries of 32 bytes after a 32-byte header, offset at 8
off=$(od -An -t u8 -j $((32 + 32 + 8)) -N 8 "$mci" | tr -d ' ')
printf '\377\377\377\377' | dd of="$mcd" bs=1 seek=$((off + 40)) conv=notrunc 2> /dev/null
mid=$(awk -v a="${SAMPLE_T[2]}" -v b="${SAMPLE_T[3]}" 'BEGIN { printf "%.3f", (a + b) / 2 }')
local_t=$(date -d "@${SAMPLE_T[1]%.*}" '+%Y-%m-%d %H:%M:%S')
R="top -b --replay $STORE"
cat > "$T_TMP/queries" <<QUERIES
$R -o json --sort usage --from @${SAMPLE_T[2]}
$R -o json --sort pct --to @${SAMPLE_T[2]}
$R -o json --sort min --from @${SAMPLE_T[2]} --to @${SAMPLE_T[2]}
$R -o json --sort low -t @${SAMPLE_T[3]}
$R -o json --sort high -t @$mid
$R -o json --sort max -t now
$R -o json --sort soft_limit -n 2
$R -o json --sort anon --from "1 hour ago" --to now
$R -o json --sort file --from "$local_t" -n 1
$R --from @1000 --to @2000
$R -t @${SAMPLE_T[1]} --sort active
$R -t "2026-13-01 03:00"
$R --from yesterday
$R --to "99999999999999999999d ago"
$R -t 10m
$R --from @2000 --to @1000
$R -t now --from @1000
top -b -t now --replay $T_TMP/nothing-here
top -b -t now
top -b --replay $T_TMP/runstore -o json --sort inactive
top -b --replay $T_TMP/bad -o json --sort thp
QUERIES
mc shell --keep-going -f "$T_TMP/queries" > "$T_TMP/q.out" 2> "$T_TMP/q.err"
check_rc $? 2 "the queries ran; the last refused one's status"
at() { grep '^{' "$T_TMP/q.out" | jq -r --arg s "$1" 'select(.sort == $s) | .time' | tr '\n' ' '; }
check_eq "$(at usage)" "${SAMPLE_T[2]} ${SAMPLE_T[3]} " "--from the second sample's time"
check_eq "$(at pct)" "${SAMPLE_T[1]} ${SAMPLE_T[2]} " "--to the second sample's time"
check_eq "$(at min)" "${SAMPLE_T[2]} " "--from = --to: one sample"
check_eq "$(at low)" "${SAMPLE_T[3]} " "-t: that sample"
check_eq "$(at high)" "${SAMPLE_T[2]} " "-t between two samples: the one before"
check_eq "$(at max)" "${SAMPLE_T[3]} " "-t now: the newest"
check_eq "$(at soft_limit)" "${SAMPLE_T[1]} ${SAMPLE_T[2]} " "-n 2: the first two"
check_eq "$(at anon)" "${SAMPLE_T[*]:1} " "--from '1 hour ago' --to now: all"
check_eq "$(at file)" "${SAMPLE_T[1]} " \
	"--from a local time ($local_t, the first sample's whole second): from the first sample on"
grep -q "^memctl: warning: no sample was recorded between @1000 and @2000$" "$T_TMP/q.err" &&
	! grep -q "queries:10:" "$T_TMP/q.err" && pass "a span with no sample: a warning, exit 0" ||
	fail "a span with no sample: $(cat "$T_TMP/q.err")"
# the text batch says it is a replay and of when
head=$(grep "^memctl top: REPLAY" "$T_TMP/q.out")
case $head in "memctl top: REPLAY $(date -d "@${SAMPLE_T[1]%.*}" '+%Y-%m-%d %H:%M:%S')"*" of $STORE: "*"sorted by active")
	pass "text header: $head" ;; *) fail "text header: '$head'" ;; esac
refused() {	# LINE MESSAGE
	grep -q "queries:$1: .* failed (exit status 2)" "$T_TMP/q.err" && pass "line $1 refused (exit 2)" ||
		fail "line $1 not refused with exit status 2: $(cat "$T_TMP/q.err")"
	grep -qF -- "$2" "$T_TMP/q.err" && pass "says: $2" || fail "no '$2' in: $(cat "$T_TMP/q.err")"
}
refused 12 "memctl: invalid time '2026-13-01 03:00' for -t: month must be 01 to 12 (at '13-01 03:00')"
refused 13 "memctl: invalid time 'yesterday' for --from: not a time"
refused 14 "memctl: invalid time '99999999999999999999d ago' for --to: number too big"
refused 15 "memctl: invalid time '10m' for -t: a duration needs 'ago' (10m ago) or a sign (-10m)"
refused 16 "memctl: --from '@2000' is after --to '@1000'"
refused 17 "memctl: -t shows one sample, --from and --to a span: give one or the other"
refused 18 "memctl: cannot read the store in '$T_TMP/nothing-here'"
refused 19 "memctl: -t is a time of a recorded history: it needs --replay DIR"
# -p names a live parent: one other than the store's is refused, not ignored
mc -p /memctl-no-such-parent top -b --replay "$STORE" -t now > /dev/null 2> "$T_TMP/p.err"
check_rc $? 2 "-p other than the recorded parent"
grep -qF -- "-p '/memctl-no-such-parent': the store in '$STORE' recorded the groups below" "$T_TMP/p.err" &&
	pass "says which parent the store recorded" || fail "-p: $(cat "$T_TMP/p.err")"

# the decisions memctl run recorded with the sample are those replay gives
grep '^{' "$T_TMP/q.out" | jq -c 'select(.sort == "inactive")' > "$T_TMP/run.json"
check_eq "$(jq -r '.runs | length' "$T_TMP/run.json")" 1 "the sample holds the run that recorded it"
check_eq "$(jq -r --arg g "$P-run/a" '.groups[] | select(.group == $g) | .max' "$T_TMP/run.json")" \
	"$(kval "$P-run/a" "$MAXF")" "the recorded max of $P-run/a is the kernel's"
got=$(jq -r --arg g "$P-run/a" '.groups[] | select(.group == $g) | .decisions[] |
	select(.kind == "write") | "\(.policy) \(.knob) \(.new) \(.reason)"' "$T_TMP/run.json")
check_eq "$got" "profile $MAXF 33554432 profile: max 32M" "its decision as recorded: the write and its reason"
grep -q "$P-run/a: $MAXF (new) -> 32M: profile: max 32M" "$T_TMP/run.out" &&
	pass "the same decision memctl run reported" || fail "run said: $(cat "$T_TMP/run.out")"

# the corrupt record: said, stepped over (the samples around it still print), exit 2
grep -q "queries:21: .* failed (exit status 2)" "$T_TMP/q.err" && pass "a store with a corrupt record: exit 2" ||
	fail "the corrupt store's line did not fail with 2: $(cat "$T_TMP/q.err")"
check_eq "$(at thp)" "${SAMPLE_T[1]} ${SAMPLE_T[3]} " "the samples before and after the corrupt one still print"
grep -qF "warning: skipping a record of '$T_TMP/bad': '$mcd': record at $off: " "$T_TMP/q.err" &&
	pass "the corrupt record is named: $(grep -F "skipping a record" "$T_TMP/q.err")" ||
	fail "corrupt record: $(cat "$T_TMP/q.err")"
summary
