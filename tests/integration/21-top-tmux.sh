# memctl top on a real terminal: ncurses under tmux (private socket, fixed
# size) against real groups below our cgroup. Keys change the screen (sort,
# reverse, filter, collapse, search, detail, help), 'e' edits a limit that
# reaches the kernel (and a bad value is refused in the status line), a
# resize redraws, q and SIGTERM leave a sane terminal. The host's memory
# pressure in the second line is /proc/pressure/memory's. With `memctl run`
# running, top shows that daemon's decisions with their full reason at
# 80x24 (read from the state it publishes), and "simulated" only without it.
# Among 1000 groups, one off screen that grows is on the screen at once.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v tmux > /dev/null || skip "tmux is not installed"

. "$(dirname "$0")/lib-tmux.sh"
apply_tree "apply the test groups" max=1G big/max=512M big/kid/max=256M small/max=128M
if [ "$T_VERSION" = 1 ]; then MAXF=memory.limit_in_bytes; else MAXF=memory.max; fi

# The pane runs top, then records how it ended and the terminal modes.
# (explicit columns, so the same ones show on v1 and v2; defaults are tested below)
COLS_LIST=usage,pct,min,low,high,max,soft_limit,anon,file,active,inactive,wset
XDG=$T_TMP/xdg
# a session that keeps the private server up while the tests end and start others
tm new-session -d -s keep "sleep 3600"
start_top() {
	rm -f "$T_TMP/pid" "$T_TMP/done"
	tmux_start top 100 30 \
		"sh -c 'echo \$\$ > $T_TMP/pid; exec env MEMCTL_STATE_DIR=$T_STATE XDG_CONFIG_HOME=$XDG \
TERM=xterm-256color $MEMCTL top -d ${TOP_DELAY:-0.3} --sort group ${1:---columns $COLS_LIST} -p self/$P'; \
echo rc=\$? > $T_TMP/done; stty -a >> $T_TMP/done; sleep 600"
}
wait_done() {
	local i
	for i in $(seq 1 100); do [ -s "$T_TMP/done" ] && grep -q icanon "$T_TMP/done" && return 0; sleep 0.05; done
	return 1
}

start_top
expect "^  - big .* 512M" "big shown with max 512M"
expect "^      kid .* 256M" "kid shown below big"
expect "^    small .* 128M" "small shown with max 128M"
expect "sort group" "title names the sort column"

# sort: reverse puts small before big; > moves to the next column
keys r
expect "sort group \(rev\)" "r reverses"
order=$(screen | awk '$1 == "-" && $2 == "big" {print "big"} $1 == "small" {print "small"}' | tr '\n' ' ')
check_eq "$order" "small big " "reversed name order"
keys r '>'
expect "sort usage" "> sorts by the next column (usage)"
keys '<'
expect "sort group " "< goes back"

# filter by name
keys f; text small; keys Enter
expect "filter: small" "filter shown in the title"
expect_gone " big " "filter hides big"
expect "^    small " "filter keeps small"
keys f BSpace BSpace BSpace BSpace BSpace Enter
expect "^  - big " "empty filter shows everything again"

# incremental search selects; Enter collapses the selected group
keys /; text bi; keys Enter Enter
expect "^  \+ big " "big collapsed (+)"
expect_gone "^      kid " "kid hidden while big is collapsed"
keys Enter
expect "^      kid " "expanded again"

# detail pane of the selected group, then help
keys i
expect "^-- memory.stat" "detail pane shows memory.stat"
expect "/$P/big\$" "detail pane names the selected group"
keys i
expect_gone "^-- memory.stat" "detail pane closes"
keys '?'
expect "memctl top: keys" "help overlay"
keys x
expect_gone "memctl top: keys" "any key closes the help"

# edit through set: reaches the kernel, shows in the row and the status line
keys /; text small; keys Enter e; text max=64M; keys Enter
expect "small: .* 128M -> 64M" "status line reports the change"
check_eq "$(kval "$P/small" $MAXF)" 67108864 "the kernel has max=64M"
expect "^    small .* 64M " "row shows the new max"
keys e; text max=12X; keys Enter
expect "'12X'" "a bad value is refused in the status line"
joined=$(screen | tail -n 3 | tr '\n' ' ')
case $joined in *"cannot set max on "*"small': '12X'"*) pass "the whole message, wrapped: $joined" ;;
*) fail "status lines: $joined" ;; esac
check_eq "$(kval "$P/small" $MAXF)" 67108864 "refused edit changed nothing"
keys e; text max=2G; keys Enter
expect "above" "a max above the parent's is refused"
check_eq "$(kval "$P/small" $MAXF)" 67108864 "still 64M"

# resize: the frame is redrawn for the new size
expect_gone "INACT" "INACT does not fit in 100 columns"
tm resize-window -t "$T_SESSION" -x 140 -y 40
expect "INACT" "after the resize to 140 columns INACT is shown"
check_eq "$(screen | wc -l)" 40 "40 lines captured"
expect "^    small .* 64M " "rows redrawn"
# a limit another process writes (top keeps knob values until inotify reports a write)
echo 100663296 > "$T_DIR/$P/small/$MAXF"
expect "^    small .* 96M " "row shows the limit another process wrote"
echo 67108864 > "$T_DIR/$P/small/$MAXF"
expect "^    small .* 64M " "and the one written back"
# Rows are drawn over the last frame, only those that changed handed to
# ncurses: after frames that changed a value and moved the selection, the
# table with its attributes (capture-pane -e) is what a frame drawn from a
# blank screen shows (closing the help draws one; paused, nothing is read).
echo 83886080 > "$T_DIR/$P/small/$MAXF"
expect "^    small .* 80M " "a row changed over the last frame"
keys Up
expect "^  - big " "the selection moved"
keys p
expect "\[paused\]" "paused"
table_e() { tm capture-pane -e -p -t "$T_SESSION" | sed -n '1,20p'; }
table_e > "$T_TMP/over"
keys '?'
expect "memctl top: keys" "help over the table"
keys x
expect_gone "memctl top: keys" "help closed: the table drawn from a blank screen"
table_e > "$T_TMP/blank"
if cmp -s "$T_TMP/over" "$T_TMP/blank"; then
	pass "the table drawn over the last frames is the one drawn from blank"
else
	fail "the table drawn over the last frames differs:"; diff "$T_TMP/over" "$T_TMP/blank" | cat -v
fi
keys p
expect_gone "\[paused\]" "resumed"
echo 67108864 > "$T_DIR/$P/small/$MAXF"
expect "^    small .* 64M " "and 64M again"

keys q
wait_done && pass "q exits" || fail "q did not end top"
check_eq "$(head -n1 "$T_TMP/done")" "rc=0" "exit status 0"
grep -qE '(^| )icanon' "$T_TMP/done" && grep -qE '(^| )echo( |$)' "$T_TMP/done" &&
	pass "terminal restored (icanon echo)" || fail "terminal modes: $(cat "$T_TMP/done")"
tm kill-session -t top

start_top
expect "^    small " "top started again"
kill -TERM "$(cat "$T_TMP/pid")"
wait_done && pass "SIGTERM ends top" || fail "SIGTERM did not end top"
grep -qE '(^| )icanon' "$T_TMP/done" && pass "terminal restored after SIGTERM" ||
	fail "terminal modes: $(cat "$T_TMP/done")"
tm kill-session -t top

# --- a storm of resizes while top refreshes every 50 ms ---
# refresh() takes in a SIGWINCH that came during a frame and changes LINES
# before the frame's end; the frame's kept lines were sized for the old
# LINES (a heap overflow under ASan that ended top within 150 resizes in 2 of 4 tries here)
TOP_DELAY=0.05 start_top
expect "^    small " "top at 50 ms a refresh"
for i in $(seq 1 600); do
	tm resize-window -t "$T_SESSION" -x 100 -y $((30 + (i % 2) * 10))
	sleep 0.0$((RANDOM % 3 + 1))
	[ -s "$T_TMP/done" ] && break
done
[ -s "$T_TMP/done" ] && fail "top ended during the resizes ($(head -n1 "$T_TMP/done")); screen:" && screen
expect "^    small " "600 resizes between 30 and 40 lines: top still draws the table"
keys q
wait_done && check_eq "$(head -n1 "$T_TMP/done")" "rc=0" "and exits with status 0" ||
	fail "q did not end top after the resizes"
tm kill-session -t top

# --- the detail pane: the kernel's exact values, every line, scrollable ---
# the parent row ($P, max 1G: memory.stat's hierarchical limits are >= 1 GiB)
start_top " "
expect "^- /" "top with the default columns"
keys Home i
expect "^-- memory.stat" "detail pane of the parent row (the root row is selectable)"
seen=$T_TMP/seen
: > "$seen"
for i in $(seq 1 40); do
	screen >> "$seen"
	grep -q "^-- events" "$seen" && grep -q "^-- pressure" "$seen" && break
	keys NPage
	sleep 0.15
done
statf=$T_DIR/$P/memory.stat
n_ok=0 n_bad=0
while read -r key val; do
	got=$(awk -v k="$key" '$1 == k { print $2; exit }' "$seen")
	if [ "$got" = "$val" ]; then n_ok=$((n_ok + 1)); else n_bad=$((n_bad + 1)); echo "# $key: file $val, pane '$got'"; fi
done < "$statf"
[ "$n_bad" -eq 0 ] && [ "$n_ok" -gt 10 ] &&
	pass "all $n_ok lines of memory.stat in the pane, exact (e.g. $(grep -m1 hierarchical_memory_limit "$statf"))" ||
	fail "$n_bad of $((n_ok + n_bad)) memory.stat values differ in the pane"
big=$(awk '$2 >= 1073741824 && $2 < 9223372036854771712 { print $1; exit }' "$statf")
[ -n "$big" ] && grep -qE "^$big +$(awk -v k="$big" '$1 == k { print $2 }' "$statf")\$" "$seen" &&
	pass "a counter >= 1 GiB ($big) shown with every digit" || fail "no value >= 1 GiB checked ($big)"
keys i

# --- columns the host cannot fill are hidden; help says why ---
# every column shown by default has a value on some row (scanned at 250 columns)
tm resize-window -t "$T_SESSION" -x 250 -y 30
sleep 0.5
screen > "$T_TMP/wide"
empty=$(python3 - "$T_TMP/wide" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
hi = next(i for i, l in enumerate(lines) if l.startswith("GROUP"))
head = lines[hi]
rows = [l for l in lines[hi + 1:] if re.match(r"^[ +-]*[-+ ] ?\S", l) and l.strip()]
rows = [l for l in rows if not l.startswith("?") and not l.startswith("--")][:4]
out = []
for m in re.finditer(r"\S+", head):
    t, e = m.group(), m.end()
    if t in ("GROUP", "DECISION", "NUMA"):
        continue
    cells = [l[:e].split()[-1] if l[:e].split() else "" for l in rows]
    if cells and all(c == "-" for c in cells):
        out.append(t)
print(" ".join(out))
PY
)
[ -z "$empty" ] && pass "no column is '-' on every row by default" || fail "columns all '-': $empty"
if [ "$T_VERSION" = 1 ]; then
	head_line=$(grep "^GROUP" "$T_TMP/wide")
	case $head_line in *" MIN "*|*" LOW "*|*" HIGH"*|*" SOME "*|*THPFB*) fail "v1 shows a v2 column: $head_line" ;;
	*) pass "v1: MIN, LOW, HIGH, SOME, THPFB hidden" ;; esac
	keys '?'
	for i in $(seq 1 10); do screen | grep -q "^min .*cgroup v1 has no such file" && break; keys NPage; sleep 0.2; done
	expect "hidden by default" "the help, scrolled, lists the hidden columns"
	expect "^min +cgroup v1 has no such file" "and says why min is hidden"
	keys x
fi

# --- the column chooser's choice survives a restart ---
keys c
expect "^columns: Up/Down select" "c opens the column chooser"
# the first column after GROUP is usage: hide it, save
keys Down; sleep 0.1; keys Up Space Enter
expect "columns saved in $XDG/memctl/top.conf" "the choice is saved"
grep -q '^columns=' "$XDG/memctl/top.conf" && ! grep -q 'columns=usage' "$XDG/memctl/top.conf" &&
	pass "top.conf has the columns without usage" || fail "top.conf: $(cat "$XDG/memctl/top.conf")"
expect_gone "^GROUP +USAGE" "usage hidden"
keys q
tm kill-session -t top
start_top " "
expect "^GROUP +%LIM" "after a restart the saved columns are shown (no USAGE)"
keys 1
expect "preset 1: memory" "preset 1 (memory)"
expect "^GROUP +USAGE" "the memory preset shows usage"
keys q
tm kill-session -t top
printf 'columns=usage,nosuch\n' > "$XDG/memctl/top.conf"
start_top " "
expect "top.conf:1: unknown column 'nosuch'" "a bad top.conf is reported, not half used"
expect "^GROUP +USAGE" "and the default columns shown"
keys q
tm kill-session -t top

# --- filter: a new one replaces the old; one matching nothing says so ---
start_top
keys f; text small; keys Enter
expect "filter: small" "filter small"
keys f; text kid; keys Enter
expect "filter: kid\b" "f starts empty: the new filter is kid, not smallkid"
keys f; text zzzz; keys Enter
expect "no group matches the filter 'zzzz'" "a filter matching nothing says so"
keys f Enter

# --- a resize to 80x24 in the middle of an edit keeps the screen sane ---
keys /; text small; keys Enter e
text max=100M-this-is-a-long-value-that-goes-past-eighty-columns-of-the-screen-xyz
tm resize-window -t "$T_SESSION" -x 80 -y 24
sleep 0.5
check_eq "$(screen | wc -l)" 24 "24 lines after the resize"
expect "columns-of-the-screen-xyz\$" "the edit line shows the end of the input where the cursor is"
expect "^GROUP" "the table is still drawn"
keys Escape
keys e; text maxx=1G; keys Enter
expect "unknown knob 'maxx'" "an edit error at 80 columns"
msg=$(screen | tail -n 3 | tr '\n' ' ' | tr -s ' ')
case $msg in *"did you mean 'max'?"*) pass "the error keeps its \"did you mean\": $msg" ;;
*) fail "the error lost its hint: $msg" ;; esac
keys q
tm kill-session -t top
# --- host pressure, the daemon's decisions, simulated only without it ---
R=$T_PREFIX-run
# its own directory on disk (or T_TMP), removed at exit with the rest
WSD=$(disk_tmpdir 2>/dev/null) || WSD=$T_TMP
WSF=$WSD/ws.dat
trap '[ "$WSD" = "$T_TMP" ] || rm -rf "$WSD"; tm kill-server 2> /dev/null; cleanup' EXIT
head -c 24M /dev/urandom > "$WSF"
cat > "$T_TMP/run.yaml" <<YAML
version: 1
parent: self
interval: 300ms
groups:
  $R:
    max: 512M
    groups:
      ws:
        protect: active
      other:
        soft_limit: 0
YAML
mc -q apply "$T_TMP/run.yaml"
check_rc $? 0 "apply the groups memctl run manages"
# a job whose file is read twice: its pages are active, a working set to protect
sh -c "echo \$\$ > '$T_DIR/$R/ws/cgroup.procs'; exec sh -c 'cat \"$WSF\" > /dev/null; cat \"$WSF\" > /dev/null; exec sleep 600'" &
WS_PID=$!
"$MEMCTL" run "$T_TMP/run.yaml" 2> "$T_TMP/run.log" &
RUN_PID=$!
trap 'kill $WS_PID $RUN_PID 2>/dev/null; [ "$WSD" = "$T_TMP" ] || rm -rf "$WSD"; tm kill-server 2> /dev/null; cleanup' EXIT
STATEF=$T_STATE/run.$RUN_PID.state
dec_line() { awk -F'\t' -v g="$T_SELF/$R/$1" '$1 == "set" && $2 == g { print; exit }' "$STATEF" 2>/dev/null; }
if [ "$T_VERSION" = 1 ]; then DG=other; else DG=ws; fi
for i in $(seq 1 100); do [ -n "$(dec_line $DG)" ] && break; sleep 0.1; done
line=$(dec_line $DG)
[ -n "$line" ] && pass "memctl run published a decision for $DG" ||
	{ fail "no decision for $DG in $STATEF:"; cat "$STATEF" "$T_TMP/run.log"; }
policy=$(echo "$line" | cut -f3) reason=$(echo "$line" | cut -f6)

tmux_start run 80 24 "env MEMCTL_STATE_DIR=$T_STATE TERM=xterm-256color $MEMCTL top -d 0.3 \
--sort group --profile $T_TMP/run.yaml -p self/$R; sleep 600"
expect "\| run $RUN_PID: #[0-9]+ " "the second line names the running daemon"
# host pressure: the screen's numbers are /proc/pressure/memory's avg60 and avg300 (avg10
# moves fast); both move while the host works, so screen and kernel are read together
close_to() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.5 && d > -0.5) }'; }
if [ -r /proc/pressure/memory ]; then
	ok=
	for i in $(seq 1 30); do
		psi_line=$(screen | sed -n 2p)
		kern=$(cat /proc/pressure/memory)
		s60=$(echo "$psi_line" | awk '$1 == "PSI" { print $4 }')
		s300=$(echo "$psi_line" | awk '$1 == "PSI" { print $5 }')
		k60=$(echo "$kern" | awk '$1 == "some" { sub("avg60=", "", $3); print $3 }')
		k300=$(echo "$kern" | awk '$1 == "some" { sub("avg300=", "", $4); print $4 }')
		[ -n "$s60" ] && close_to "$s60" "$k60" && close_to "$s300" "$k300" && { ok=1; break; }
		sleep 0.1
	done
	[ -n "$ok" ] &&
		pass "host pressure some avg60 $s60, avg300 $s300 as /proc/pressure/memory ($k60, $k300)" ||
		fail "host pressure on screen '$psi_line', kernel: $kern"
else
	expect "^PSI: none" "no /proc/pressure/memory: the line says so"
fi
keys /; text $DG; keys Enter
expect "^$policy: " "the decision of $DG is shown with its policy at 80x24"
# the reason changes with the working set: the screen must show the state's of the moment
found=
for i in $(seq 1 40); do
	joined=$(screen | tr '\n' ' ' | tr -s ' ')
	want=$(dec_line $DG | cut -f6 | tr -s ' ')
	case $joined in *"$want"*) found=1; break ;; esac
	sleep 0.1
done
[ -n "$found" ] && pass "its full reason is on the 80x24 screen" ||
	{ fail "reason '$want' not on the screen:"; screen; }
expect_gone "simulated" "no 'simulated' while memctl run manages the groups"

# batch JSON: a timestamp per line, the daemon, its structured decisions
mc -o json top -b -n 1 -p self/$R > "$T_TMP/b.json"
jq -e --arg g "$T_SELF/$R/$DG" --arg pol "$policy" --argjson pid $RUN_PID --argjson now "$(date +%s)" '
	(.time - $now | fabs) < 30 and (.runs[0].pid == $pid) and
	([.groups[] | select(.path == $g) | .decisions[] | select(.policy == $pol and .kind == "set")
	  | has("knob") and has("old") and has("new") and (.reason | length > 0)] | any)' \
	"$T_TMP/b.json" > /dev/null && pass "top -b -o json: time, the daemon, structured decisions" ||
	fail "top -b -o json: $(head -c 2000 "$T_TMP/b.json")"
kill -TERM $RUN_PID; wait $RUN_PID 2>/dev/null
[ ! -e "$STATEF" ] && pass "a stopped daemon removes its state file" || fail "$STATEF left behind"
expect "no memctl run: simulated" "without the daemon, the line says decisions are simulated"
tm kill-session -t run

# Sorted by usage (the default), a group off screen that grows shows up at
# once, not at its turn: with 1000 groups and 16 sort keys a refresh, a
# group's turn comes every 63 refreshes, and the screen shows 26 rows.
# Each of two groups writes 16 MiB of page cache (charged to it, and to
# its parent's usage with it) and must be on the screen within 6 s (1 s
# refreshes; it takes two, the rest is room for a loaded host); that a
# turn happens to read it that soon is 6 in 63 each.
# The second grows 8 s after the first: a parent's children are read at
# most once every 8 refreshes.
M=$T_PREFIX-many
mkdir "$T_DIR/$M"
for i in $(seq -f %04g 1 1000); do mkdir "$T_DIR/$M/g$i"; done
tmux_start many 100 30 "env MEMCTL_STATE_DIR=$T_STATE TERM=xterm-256color $MEMCTL top -d 1 -p self/$M"
expect "^    g0001 " "1000 groups on the screen"
for g in g0700 g0400; do
	sh -c "echo \$\$ > '$T_DIR/$M/$g/cgroup.procs'; exec head -c 16M /dev/zero > '$T_TMP/grown.$g'"
	shown=
	for i in $(seq 1 60); do
		screen | grep -q "^    $g " && { shown=1; break; }
		sleep 0.1
	done
	[ -n "$shown" ] && pass "$g, grown by 16 MiB off screen, is on it within 6 s" ||
		{ fail "$g grew by 16 MiB and is not on the screen after 6 s:"; screen; }
	[ $g = g0400 ] || sleep 8
done
tm kill-session -t many
rm -f "$T_TMP"/grown.*
summary
