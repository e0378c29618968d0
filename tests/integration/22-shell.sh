# memctl shell: readline under tmux (completion of commands, groups and
# knobs; history file), and scripts on stdin and with -f: same exit status
# as the commands, the failing line named, --keep-going.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
P=$T_PREFIX
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
groups:
  $P:
    max: 1G
    groups:
      small:
        max: 128M
YAML
mc -q apply "$T_TMP/p.yaml"
check_rc $? 0 "apply the test groups"
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
