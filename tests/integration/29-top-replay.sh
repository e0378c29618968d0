# memctl top -b --replay over a history recorded here: groups below our
# cgroup change in three phases while a workload runs in them
# (lib-replay.sh); the test keeps the kernel's files before and after each
# recorded sample. Batch replay's JSON at each recorded time must hold the
# values the kernel's files had then (limits and task counts exactly, usage
# within what the files said around the sample), with the groups that
# existed then and no others; --from/--to and -t choose samples; bad times
# are refused naming the option and the text.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v jq > /dev/null || skip "jq is not installed"

T_TMP=$(mktemp -d)
P=$T_PREFIX
. "$(dirname "$0")/lib-replay.sh"
trap 'stop_workloads; cleanup' EXIT
record_phases || { fail "recording the phases"; summary; exit 1; }
pass "three samples recorded at ${SAMPLE_T[*]}"

# The kernel's usage_in_bytes is exact only to the per-CPU charge batches
# (32 pages a CPU on v1 and v2): the recorded value must lie within what the
# files said just before and just after the sample, widened by that much.
SLACK=$(( 32 * $(getconf PAGESIZE) * $(nproc) ))
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

# --from / --to / -t pick samples by time
at() { mc top -b --replay "$STORE" -o json "$@" | jq -r '.time' | tr '\n' ' '; }
check_eq "$(at --from "@${SAMPLE_T[2]}")" "${SAMPLE_T[2]} ${SAMPLE_T[3]} " "--from the second sample's time"
check_eq "$(at --to "@${SAMPLE_T[2]}")" "${SAMPLE_T[1]} ${SAMPLE_T[2]} " "--to the second sample's time"
check_eq "$(at --from "@${SAMPLE_T[2]}" --to "@${SAMPLE_T[2]}")" "${SAMPLE_T[2]} " "--from = --to: one sample"
check_eq "$(at -t "@${SAMPLE_T[3]}")" "${SAMPLE_T[3]} " "-t: that sample"
mid=$(awk -v a="${SAMPLE_T[2]}" -v b="${SAMPLE_T[3]}" 'BEGIN { printf "%.3f", (a + b) / 2 }')
check_eq "$(at -t "@$mid")" "${SAMPLE_T[2]} " "-t between two samples: the one before"
check_eq "$(at -t "now")" "${SAMPLE_T[3]} " "-t now: the newest"
check_eq "$(at -n 2)" "${SAMPLE_T[1]} ${SAMPLE_T[2]} " "-n 2: the first two"
check_eq "$(at --from "1 hour ago" --to now)" "${SAMPLE_T[*]:1} " "--from '1 hour ago' --to now: all"
local_t=$(date -d "@${SAMPLE_T[1]%.*}" '+%Y-%m-%d %H:%M:%S')
check_eq "$(at --from "$local_t" -n 1)" "${SAMPLE_T[1]} " \
	"--from a local time ($local_t, the first sample's whole second): from the first sample on"
out=$(mc top -b --replay "$STORE" --from "@1000" --to "@2000" 2>&1)
check_rc $? 0 "a span with no sample"
case $out in *"no sample was recorded between @1000 and @2000"*) pass "says so: $out" ;;
*) fail "a span with no sample: $out" ;; esac

# the text batch says it is a replay and of when
head=$(mc top -b --replay "$STORE" -t "@${SAMPLE_T[1]}" | head -n 1)
case $head in "memctl top: REPLAY $(date -d "@${SAMPLE_T[1]%.*}" '+%Y-%m-%d %H:%M:%S')"*" of $STORE: "*)
	pass "text header: $head" ;; *) fail "text header: $head" ;; esac

# bad times and combinations: exit 2, naming the option and the text
bad() {	# WANT-RC PATTERN ARGS...
	local want=$1 pat=$2 out rc
	shift 2
	out=$(mc top -b --replay "$STORE" "$@" 2>&1)
	rc=$?
	check_rc $rc "$want" "top $*"
	case $out in *$pat*) pass "says: $out" ;; *) fail "top $*: '$out' lacks '$pat'" ;; esac
}
bad 2 "invalid time '2026-13-01 03:00' for -t: month must be 01 to 12 (at '13-01 03:00')" -t "2026-13-01 03:00"
bad 2 "invalid time 'yesterday' for --from: not a time" --from yesterday
bad 2 "invalid time '99999999999999999999d ago' for --to: number too big" --to "99999999999999999999d ago"
bad 2 "invalid time '10m' for -t: a duration needs 'ago'" -t 10m
bad 2 "--from '@2000' is after --to '@1000'" --from @2000 --to @1000
bad 2 "-t shows one sample" -t now --from @1000
bad 2 "cannot read the store in '$T_TMP/nothing-here'" -t now --replay "$T_TMP/nothing-here"
out=$(mc top -b -t now 2>&1); rc=$?
check_rc $rc 2 "-t without --replay"
case $out in *"-t is a time of a recorded history: it needs --replay DIR"*) pass "says: $out" ;;
*) fail "-t without --replay: $out" ;; esac
summary
