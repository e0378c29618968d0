# memctl top --replay on a real terminal: ncurses under tmux over a history
# recorded here (lib-replay.sh: three phases of real groups with a workload,
# the kernel's files kept at each sample). The screen at a recorded time
# says it is a replay and of when, and shows the limits and task counts the
# kernel's files had then and the usage the store recorded; ] and [ step
# to the next and previous sample and stop at the ends; t goes to a time
# (absolute, or -10m from the sample shown) and refuses a bad one in the
# status line; e edits nothing; the detail pane shows the recorded values;
# q leaves a sane terminal; over what memctl run --record wrote, the second
# line names the run and the selected group's decision shows with its
# reason. A bad -t is refused before the screen starts.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v tmux > /dev/null || skip "tmux is not installed"
. "$(dirname "$0")/lib-tmux.sh"
. "$(dirname "$0")/lib-replay.sh"
trap 'stop_workloads; tm kill-server 2> /dev/null; cleanup' EXIT
replay_phases

# mc_fmt_size_short, as the screen shows sizes: 1024-based, one decimal below 10
short() {
	awk -v v="$1" 'BEGIN { u = -1; x = v; while (x >= 1024 && u < 5) { x /= 1024; u++ }
		if (u < 0) { printf "%d", v; exit } c = substr("KMGTPE", u + 1, 1)
		if (x < 9.95 && x != int(x)) printf "%.1f%s", x, c; else printf "%.0f%s", x, c }'
}
# a sample's time as the title shows it: local time to the millisecond (".000" left out)
stamp() {
	local f
	f=$(awk -v t="$1" 'BEGIN { printf "%.3f", t }')
	f=${f#*.}
	echo "$(date -d "@${1%.*}" '+%Y-%m-%d %H:%M:%S')$([ "$f" = 000 ] || echo ".$f")"
}
# the row of NAME on the screen: its cells after the name
cells() { screen | awk -v n="$1" '$1 == n || ($1 ~ /^[-+]$/ && $2 == n) { sub(/^ *[-+]? *[^ ]+ +/, ""); print; exit }'; }
# what the screen must show for NAME at sample K: usage (as recorded), max, tasks (as the kernel had them)
want_cells() {
	local line=$(sed -n "${1}p" "$T_TMP/all.json")
	local u=$(jq -r --arg g "$2" '.groups[] | select(.group == $g) | .usage' <<< "$line")
	echo "$(short "$u") $(short "$(kept "$1" "$2" max)") $(kept "$1" "$2" tasks)"
}
check_row() {	# K NAME
	local got
	if wait_screen "^ *[-+]? *$2 " match; then got=$(cells "$2" | tr -s ' '); else got="(no row)"; fi
	check_eq "$got" "$(want_cells "$1" "$2")" "sample $1: $2 shows usage, max and tasks of then"
}
at_sample() {	# K
	expect "REPLAY $(stamp "${SAMPLE_T[$1]}")  " "title: REPLAY $(stamp "${SAMPLE_T[$1]}") (sample $1)"
}

# a session that keeps the private server up between the sessions of the test
tm new-session -d -s keep "sleep 3600"
tmux_start replay 110 30 \
	"sh -c 'echo \$\$ > $T_TMP/pid; exec env TERM=xterm-256color XDG_CONFIG_HOME=$T_TMP/xdg \
$MEMCTL top --replay $STORE -t @${SAMPLE_T[2]} --sort group --columns usage,max,tasks'; \
echo rc=\$? > $T_TMP/done; stty -a >> $T_TMP/done; sleep 600"
at_sample 2
check_row 2 web
check_row 2 batch
check_row 2 new
expect "\[ \] sample  t jump" "the status line names the replay keys"

keys ']'
at_sample 3
check_row 3 web
check_row 3 new
expect_gone "^ *batch " "batch is gone at sample 3"
keys ']'
expect "the last recorded sample" "] at the last sample says so"
at_sample 3

keys '['
at_sample 2
keys '['
at_sample 1
check_row 1 web
check_row 1 batch
expect_gone "^ *new " "new is not there yet at sample 1"
keys '['
expect "the first recorded sample" "[ at the first sample says so"

# t: an absolute time, then -10m from the sample shown, then a bad one
keys t; text "@${SAMPLE_T[3]}"; keys Enter
at_sample 3
check_row 3 web
keys t; tm send-keys -t "$T_SESSION" -l -- "-10m"; keys Enter
expect "before the first sample: showing the first" "-10m before the first sample: the first"
at_sample 1
keys t; text "2026-13-01 03:00"; keys Enter
expect "invalid time '2026-13-01 03:00': month must be 01 to 12" "a bad time is refused in the status line"
at_sample 1

# nothing to edit; the detail pane shows what was recorded
keys e
expect "nothing to edit" "e edits nothing in a replay"
keys /; text web; keys Enter i
expect "^-- memory.stat \(recorded\)" "the detail pane shows the recorded memory.stat"
expect "^-- processes: 1 in the group itself then" "and the recorded task count"
keys i

keys q
for i in $(seq 1 100); do grep -q icanon "$T_TMP/done" 2> /dev/null && break; sleep 0.05; done
check_eq "$(head -n 1 "$T_TMP/done" 2> /dev/null)" "rc=0" "q exits with status 0"
grep -qE '(^| )icanon' "$T_TMP/done" && pass "terminal restored" || fail "terminal modes: $(cat "$T_TMP/done")"
tm kill-session -t replay

# the decisions memctl run recorded: the second line names the run, the
# selected group's decision with its reason is shown in full
record_run
tmux_start runrec 110 30 "env TERM=xterm-256color XDG_CONFIG_HOME=$T_TMP/xdg $MEMCTL top --replay $T_TMP/runstore --sort group; sleep 600"
expect "\| run [0-9]+: #1 [0-9.]+s after" "the second line names the run that recorded the sample, whose interval ended after reading it"
keys /; text "$P-run"; keys Enter Down
expect "^profile: $MAXF \(new\) -> 32M: profile: max 32M" "the selected group's recorded decision, with its reason"
tm kill-session -t runrec

# a bad -t is refused before the screen starts, naming the option and the text
tmux_start bad 100 10 "sh -c '$MEMCTL top --replay $STORE -t \"10 ago\" 2>&1; echo rc=\$?; sleep 600'"
expect "invalid time '10 ago' for -t: a number needs a unit" "a bad -t names the option and the text"
expect "rc=2" "exit status 2"
summary
