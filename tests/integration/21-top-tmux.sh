# memctl top on a real terminal: ncurses under tmux (private socket, fixed
# size) against real groups below our cgroup. Keys change the screen (sort,
# reverse, filter, collapse, search, detail, help), 'e' edits a limit that
# reaches the kernel (and a bad value is refused in the status line), a
# resize redraws, q and SIGTERM leave a sane terminal.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v tmux > /dev/null || skip "tmux is not installed"

T_TMP=$(mktemp -d)
. "$(dirname "$0")/lib-tmux.sh"

P=$T_PREFIX
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
groups:
  $P:
    max: 1G
    groups:
      big:
        max: 512M
        groups:
          kid:
            max: 256M
      small:
        max: 128M
YAML
mc -q apply "$T_TMP/p.yaml"
check_rc $? 0 "apply the test groups"
if [ "$T_VERSION" = 1 ]; then MAXF=memory.limit_in_bytes; else MAXF=memory.max; fi

# The pane runs top, then records how it ended and the terminal modes.
start_top() {
	rm -f "$T_TMP/pid" "$T_TMP/done"
	tmux_start top 100 30 \
		"sh -c 'echo \$\$ > $T_TMP/pid; exec env MEMCTL_STATE_DIR=$T_STATE TERM=xterm-256color \
$MEMCTL top -d 0.3 --sort group -p self/$P'; echo rc=\$? > $T_TMP/done; stty -a >> $T_TMP/done; sleep 600"
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
expect "cannot set max on .*small': '12X" "a bad value is refused in the status line"
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
summary
