# memctl shell: readline under tmux (completion of commands, groups and
# knobs; history file), and scripts on stdin and with -f: same exit status
# as the commands, the failing line named, --keep-going.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

apply_tree "apply the test groups" max=1G small/max=128M
if [ "$T_VERSION" = 1 ]; then MAXF=memory.limit_in_bytes; else MAXF=memory.max; fi
G=$P/small

# --- scripts ---
out=$(printf 'get %s max\nset %s max=32M\nget %s max\n' "$G" "$G" "$G" | mc shell); rc=$?
check_rc $rc 0 "piped script"
check_eq "$(echo "$out" | head -n1)" 128M "first get"
check_eq "$(echo "$out" | tail -n1)" 32M "get after set"
check_eq "$(kval "$G" $MAXF)" 33554432 "the kernel has 32M"

printf '# comment\n\nget %s max\nset %s max=12X\nget %s max\n' "$G" "$G" "$G" > "$T_TMP/bad.mc"
out=$(mc shell < "$T_TMP/bad.mc" 2> "$T_TMP/err"); rc=$?
check_rc $rc 2 "a failing line ends the script with its status"
check_eq "$out" 32M "lines after the failing one did not run"
grep -q "<stdin>:4: 'set $G max=12X' failed (exit status 2)" "$T_TMP/err" &&
	pass "the failing line is named" || fail "stderr: $(cat "$T_TMP/err")"
out=$(mc shell --keep-going < "$T_TMP/bad.mc" 2> /dev/null); rc=$?
check_rc $rc 2 "--keep-going exits with the last failure's status"
check_eq "$(echo "$out" | wc -l)" 2 "--keep-going ran the line after the failure"
out=$(mc -f "$T_TMP/bad.mc" 2> "$T_TMP/err"); rc=$?
check_rc $rc 2 "memctl -f FILE"
grep -q "$T_TMP/bad.mc:4:" "$T_TMP/err" && pass "-f names FILE:LINE" || fail "stderr: $(cat "$T_TMP/err")"
out=$(printf 'frobnicate\n' | mc shell 2>&1); rc=$?
check_rc $rc 2 "unknown command"
out=$(printf -- '-o json get %s max\nhelp\nquit\nget %s max\n' "$G" "$G" | mc shell); rc=$?
check_rc $rc 0 "options per line, help, quit"
echo "$out" | grep -q '"max":33554432' && pass "-o json inside the shell" || fail "output: $out"
echo "$out" | grep -q "^  set " && pass "help lists the commands" || fail "help: $out"
check_eq "$(echo "$out" | grep -c '^32M$')" 0 "nothing runs after quit"

# --- each line parses its options from scratch ---
printf 'version: 1\nparent: self\ngroups: {}\n' > "$T_TMP/open.yaml"
chmod 0666 "$T_TMP/open.yaml"
out=$(printf -- '--insecure-profile check %s\ncheck %s\n' "$T_TMP/open.yaml" "$T_TMP/open.yaml" |
	mc shell --keep-going 2> "$T_TMP/err"); rc=$?
check_rc $rc 2 "--insecure-profile on one line does not hold for the next"
grep -q "<stdin>:2: 'check" "$T_TMP/err" && grep -q "refusing profile" "$T_TMP/err" &&
	pass "line 2 refuses the open profile" || fail "stderr: $(cat "$T_TMP/err")"
echo "$out" | grep -q ": ok" && pass "line 1 accepted it" || fail "output: $out"
out=$(printf -- '--cgroup-root %s/none status\nget %s max\n' "$T_TMP" "$G" | mc shell --keep-going 2> "$T_TMP/err"); rc=$?
check_rc $rc 3 "--cgroup-root on a line is used, not ignored"
grep -q "<stdin>:1:" "$T_TMP/err" && grep -q "controller in $T_TMP/none" "$T_TMP/err" &&
	pass "line 1 looked in the other hierarchy" || fail "stderr: $(cat "$T_TMP/err")"
check_eq "$out" 32M "the next line is back on the shell's hierarchy"
out=$(printf -- 'get --once %s max\n' "$G" | mc shell 2> "$T_TMP/err"); rc=$?
check_rc $rc 2 "an option the line's command does not take"
grep -q "get does not take option '--once'" "$T_TMP/err" && pass "names the option" ||
	fail "stderr: $(cat "$T_TMP/err")"

# --- scripts running scripts: bounded; -f scripts trusted like profiles ---
printf -- '-f %s/self.mc\n' "$T_TMP" > "$T_TMP/self.mc"
mc -f "$T_TMP/self.mc" > /dev/null 2> "$T_TMP/err"; rc=$?
check_rc $rc 2 "a script that runs itself stops"
grep -q "more than 8 deep" "$T_TMP/err" && pass "says it nests too deep" || fail "stderr: $(head -c 600 "$T_TMP/err")"
check_eq "$(grep -c "self.mc:1: '-f" "$T_TMP/err")" 8 "each level names FILE:LINE"
printf -- 'shel -f %s/self2.mc\n' "$T_TMP" > "$T_TMP/self2.mc"
mc shell -f "$T_TMP/self2.mc" > /dev/null 2> "$T_TMP/err"; rc=$?
check_rc $rc 2 "'shel -f' (a prefix) of itself stops too"
out=$(printf -- '-f -\nget %s max\n' "$G" | mc shell 2> "$T_TMP/err"); rc=$?
check_rc $rc 2 "'-f -' inside a script on stdin"
grep -q "'-f -' inside a script that reads stdin" "$T_TMP/err" && pass "says why" ||
	fail "stderr: $(cat "$T_TMP/err")"
printf 'shell\n' | mc shell 2> "$T_TMP/err"; rc=$?
check_rc $rc 2 "a shell inside the shell"
printf 'get %s max\n' "$G" > "$T_TMP/inc.mc"
printf -- '-f %s/inc.mc\n' "$T_TMP" > "$T_TMP/outer.mc"
check_eq "$(mc -f "$T_TMP/outer.mc")" 32M "a script may run another"
chmod 0666 "$T_TMP/inc.mc"
mc -f "$T_TMP/inc.mc" > /dev/null 2> "$T_TMP/err"; rc=$?
check_rc $rc 2 "a script others may write is refused"
grep -q "refusing script '$T_TMP/inc.mc': it is writable by others" "$T_TMP/err" &&
	pass "says why" || fail "stderr: $(cat "$T_TMP/err")"
check_eq "$(mc --insecure-profile -f "$T_TMP/inc.mc")" 32M "--insecure-profile accepts it"
mkfifo "$T_TMP/fifo.mc"
timeout 5 "$MEMCTL" -f "$T_TMP/fifo.mc" 2> "$T_TMP/err"; rc=$?
check_rc $rc 2 "a FIFO as script does not block"
grep -q "not a regular file" "$T_TMP/err" && pass "says it is not a regular file" ||
	fail "stderr: $(cat "$T_TMP/err")"
printf 'get %s max\0set %s max=1M\nget %s max\n' "$G" "$G" "$G" > "$T_TMP/nul.mc"
out=$(mc -f "$T_TMP/nul.mc" 2> "$T_TMP/err"); rc=$?
check_rc $rc 2 "a NUL byte in a line"
grep -q "nul.mc:1: the line holds a NUL byte" "$T_TMP/err" && pass "names FILE:LINE" ||
	fail "stderr: $(cat "$T_TMP/err")"
check_eq "$out" "" "nothing of that line ran"
check_eq "$(kval "$G" $MAXF)" 33554432 "the kernel still has 32M"

# --- readline under tmux (a prompt "memctl> " reads "memctl>": " ?$") ---
if ! command -v tmux > /dev/null; then
	echo "# tmux is not installed: interactive part skipped"
	summary
	exit
fi
. "$(dirname "$0")/lib-tmux.sh"
HIST=$T_TMP/history
tmux_start sh 120 30 \
	"env MEMCTL_STATE_DIR=$T_STATE MEMCTL_HISTORY=$HIST TERM=xterm $MEMCTL shell; echo rc=\$? > $T_TMP/done; sleep 600"
expect "^memctl>" "prompt"
text se; keys Tab
expect "^memctl> set ?\$" "se<TAB> completes to 'set '"
text "$P/sm"; keys Tab
expect "^memctl> set $G ?\$" "a group prefix completes to the group"
text ma; keys Tab
expect "^memctl> set $G max=\$" "ma<TAB> completes the knob with '='"
text 48M; keys Enter
expect "128M|32M -> 48M" "set ran"
check_eq "$(kval "$G" $MAXF)" 50331648 "the kernel has 48M"
text "get $G max"; keys Enter
expect "^48M\$" "get shows 48M"
keys C-u; text "top --so"; keys Tab
expect "^memctl> top --sort ?\$" "an option of the line's command completes"
text "us"; keys Tab
expect "^memctl> top --sort usage ?\$" "its value completes from the column table"
keys C-u; text "get -o "; keys Tab Tab
expect "^json +text" "get -o offers get's formats"
keys C-u
text "pl"; keys Tab
expect "^memctl> plan ?\$" "pl<TAB> completes to 'plan '"
text "$T_TMP/ba"; keys Tab
expect "^memctl> plan $T_TMP/bad.mc ?\$" "profile paths complete as file names"
keys C-u; text quit; keys Enter
for i in $(seq 1 100); do [ -s "$T_TMP/done" ] && break; sleep 0.05; done
check_eq "$(cat "$T_TMP/done" 2> /dev/null)" "rc=0" "quit exits 0"
grep -qx "set $G max=48M" "$HIST" && grep -qx "get $G max" "$HIST" &&
	pass "history file written" || fail "history: $(cat "$HIST" 2> /dev/null)"
summary
