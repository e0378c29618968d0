# memctl exec GROUP -- COMMAND: the command runs in the group from its
# first instruction (its own /proc/self/cgroup says so), as the same
# process memctl was (its PID is in the group's cgroup.procs), with its own
# exit status and its own options; memctl's own failures have their
# documented codes and run nothing. GROUP follows set's rules: "..",
# a missing group, the root, a control character in the name and (on a
# fake tree, as cgroupfs has none) a symbolic link are refused.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

apply_tree "apply the profile's groups" max=256M web/max=64M
want="${T_SELF%/}/$P/web"

# the memory line of /proc/PID/cgroup (v1), or the unified one (v2)
memcg_of() {
	if [ "$T_VERSION" = 1 ]; then
		grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' "$1" | cut -d: -f3
	else
		sed -n 's/^0:://p' "$1"
	fi
}

out=$(mc exec "$P/web" -- cat /proc/self/cgroup); rc=$?
check_rc $rc 0 "exec cat"
printf '%s\n' "$out" > "$T_TMP/cg"
check_eq "$(memcg_of "$T_TMP/cg")" "$want" "the command's own /proc/self/cgroup names the group"

# The same process: the PID the shell started is the command, in cgroup.procs.
"$MEMCTL" exec "$P/web" -- sleep 30 &   # not mc: a function would fork a subshell
pid=$!
for i in $(seq 1 500); do
	[ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break
	sleep 0.01
done
check_eq "$(cat /proc/$pid/comm 2>/dev/null)" sleep "memctl became the command (same PID)"
check_eq "$(memcg_of /proc/$pid/cgroup)" "$want" "/proc/PID/cgroup of the command"
grep -qx "$pid" "$T_DIR/$P/web/cgroup.procs" && pass "its PID is in the group's cgroup.procs" ||
	fail "cgroup.procs: $(cat "$T_DIR/$P/web/cgroup.procs")"
kill $pid
wait $pid 2>/dev/null
[ -s "$T_DIR/$P/web/cgroup.procs" ] && fail "the group still holds tasks" || pass "the group is empty again"

# The command's exit status, and its options are its own.
mc exec "$P/web" -- sh -c 'exit 7'
check_rc $? 7 "the command's exit status"
out=$(mc exec "$P/web" sh -c 'echo "$0|$1|$2"' -q --help); rc=$?
check_rc $rc 0 "words after COMMAND are the command's"
check_eq "$out" "-q|--help|" "options after COMMAND reach it untouched"
out=$(mc exec -p "self/$P" web -- sh -c 'echo ok'); rc=$?
check_eq "$out|$rc" "ok|0" "-p PARENT with a relative GROUP"
out=$(mc exec "$want" -- sh -c 'echo ok'); rc=$?
check_eq "$out|$rc" "ok|0" "an absolute GROUP"

# Commands that cannot run: 127 and 126, like env(1).
err=$(mc exec "$P/web" -- "$T_TMP/no-such-command" 2>&1); rc=$?
check_rc $rc 127 "a command that does not exist"
echo "$err" | grep -q "cannot run '$T_TMP/no-such-command'" && pass "says it cannot run it" ||
	fail "message: $err"
printf 'echo hi\n' > "$T_TMP/not-exec"
chmod 644 "$T_TMP/not-exec"
err=$(mc exec "$P/web" -- "$T_TMP/not-exec" 2>&1); rc=$?
check_rc $rc 126 "a file that is not executable"

# Groups memctl refuses; nothing runs (the marker file is not made).
refused() {	# WANT_RC WHAT GROUP [GREP]
	local err rc
	rm -f "$T_TMP/ran"
	err=$(mc exec "$3" -- touch "$T_TMP/ran" 2>&1); rc=$?
	check_rc $rc "$1" "$2"
	[ -e "$T_TMP/ran" ] && fail "$2: the command ran" || pass "$2: nothing ran"
	if [ -n "${4:-}" ]; then
		echo "$err" | grep -q -- "$4" && pass "$2: says why" || fail "$2: message: $err"
	fi
}
refused 2 "a missing group" "$P/nope" "memctl apply"
[ -d "$T_DIR/$P/nope" ] && fail "exec created a group" || pass "exec created no group"
refused 2 "'..' in GROUP" "$P/web/../../x" "'..'"
refused 2 "'..' in an absolute GROUP" "/../$P" "'..'"
refused 2 "the root cgroup" "/" "root"
refused 2 "an empty GROUP" "" "empty"
HOSTILE=$(printf 'h\033[31mx')
mkdir "$T_DIR/$P/$HOSTILE" || fail "mkdir of a hostile name"
err=$(mc exec "$P/$HOSTILE" -- true 2>&1); rc=$?
check_rc $rc 2 "a control character in the group's name"
printf '%s' "$err" | LC_ALL=C grep -q $'\033' && fail "the escape reached the terminal raw" ||
	pass "the name is shown escaped"
rmdir "$T_DIR/$P/$HOSTILE"
if [ "$T_VERSION" = 2 ]; then
	# P enables memory for web: v2 lets no process live there
	refused 3 "a v2 group with controllers for its children" "$P" "leaf"
fi

# A symbolic link is never followed (a fake tree: cgroupfs has none).
F=$T_TMP/fake
mkdir -p "$F/svc" "$T_TMP/outside"
echo "cpu memory" > "$F/cgroup.controllers"
for f in memory.max memory.high memory.low memory.min memory.swap.max; do echo max > "$F/svc/$f"; done
: > "$F/svc/cgroup.procs"
ln -s "$T_TMP/outside" "$F/svc/link"
err=$(MEMCTL_CGROUP_ROOT=$F MEMCTL_CGROUP_VERSION=2 MEMCTL_FAKE_SELF=/svc mc exec link -- true 2>&1); rc=$?
check_rc $rc 2 "a group that is a symbolic link"
[ -e "$T_TMP/outside/cgroup.procs" ] && fail "wrote behind the symlink" ||
	pass "nothing written behind the symlink"

# The shell does not run exec (it would replace the shell).
out=$(echo "exec $P/web -- touch $T_TMP/ran" | mc shell 2>&1); rc=$?
[ $rc -ne 0 ] && pass "the shell refuses exec (exit $rc)" || fail "shell ran exec: $out"
[ -e "$T_TMP/ran" ] && fail "the shell's exec ran the command" || pass "the shell ran nothing"
summary
