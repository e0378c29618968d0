# Attacks on a root memctl, each tried and shown refused: profiles others
# could have changed, names that climb out of the parent, symlinks in the
# cgroup tree, a state directory others could read; and no shell spawned.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)

one_group_profile "$T_TMP/p.yaml"
chmod 0666 "$T_TMP/p.yaml"
err=$(mc apply "$T_TMP/p.yaml" 2>&1); rc=$?
check_rc $rc 2 "world-writable profile refused"
echo "$err" | grep -q "refusing profile '$T_TMP/p.yaml': it is writable by others (mode 0666)" &&
	pass "says which file and why" || fail "message: $err"
[ -d "$T_DIR/$T_PREFIX-g" ] && fail "group created from a refused profile" || pass "nothing created"
chmod 0620 "$T_TMP/p.yaml"
mc check "$T_TMP/p.yaml" >/dev/null 2>&1; check_rc $? 2 "group-writable profile refused"
mc --insecure-profile check "$T_TMP/p.yaml" >/dev/null; check_rc $? 0 "--insecure-profile accepts it"
chmod 0644 "$T_TMP/p.yaml"
chown 65534 "$T_TMP/p.yaml"
err=$(mc check "$T_TMP/p.yaml" 2>&1); rc=$?
check_rc $rc 2 "profile owned by another user refused"
echo "$err" | grep -q "owned by uid 65534" && pass "names the owner" || fail "message: $err"
chown 0 "$T_TMP/p.yaml"
mkdir "$T_TMP/open"; chmod 0777 "$T_TMP/open"
one_group_profile "$T_TMP/open/p.yaml"
err=$(mc check "$T_TMP/open/p.yaml" 2>&1); rc=$?
check_rc $rc 2 "profile in a world-writable directory without sticky bit refused"
echo "$err" | grep -q "without the sticky bit" && pass "says why" || fail "message: $err"
chmod 1777 "$T_TMP/open"
mc check "$T_TMP/open/p.yaml" >/dev/null; check_rc $? 0 "sticky directory (like /tmp) accepted"

# Names that would leave the parent's subtree never reach the kernel.
for name in '..' '../escape' 'a/b' '.'; do
	printf 'version: 1\nparent: self\ngroups:\n  "%s":\n    max: 1M\n' "$name" > "$T_TMP/n.yaml"
	mc apply "$T_TMP/n.yaml" >/dev/null 2>&1; check_rc $? 2 "group name '$name' refused"
done
printf 'version: 1\nparent: self\ngroups:\n  "a\\tb":\n    max: 1M\n' > "$T_TMP/n.yaml"
mc apply "$T_TMP/n.yaml" >/dev/null 2>&1; check_rc $? 2 "control character in a name refused"
printf 'version: 1\nparent: /../etc\ngroups:\n  g: {max: 1M}\n' > "$T_TMP/n.yaml"
mc apply "$T_TMP/n.yaml" >/dev/null 2>&1; check_rc $? 2 "parent with '..' refused"
mc set "../$T_PREFIX-x" max=1M >/dev/null 2>&1; check_rc $? 2 "set with '..' refused"
mc get "/../../etc" >/dev/null 2>&1; check_rc $? 2 "get with '..' refused"

# A symlink inside the cgroup tree is never followed. cgroupfs itself does
# not allow symlinks, so this uses a fake tree: a group that is a symlink to
# a directory elsewhere, whose file must stay untouched.
F=$T_TMP/fake
mkdir -p "$F/svc" "$T_TMP/outside"
echo "cpu memory" > "$F/cgroup.controllers"
for f in memory.max memory.high memory.low memory.min memory.swap.max; do echo max > "$F/svc/$f"; done
echo max > "$T_TMP/outside/memory.max"
ln -s "$T_TMP/outside" "$F/svc/web"
err=$(MEMCTL_CGROUP_ROOT=$F MEMCTL_CGROUP_VERSION=2 MEMCTL_FAKE_SELF=/svc mc set web max=1M 2>&1); rc=$?
[ $rc -ne 0 ] && pass "set through a symlinked group fails (exit $rc)" || fail "set followed a symlink"
check_eq "$(cat "$T_TMP/outside/memory.max")" max "the file behind the symlink is untouched"

# The state directory is created private.
S=$T_TMP/newstate
one_group_profile "$T_TMP/p2.yaml"
MEMCTL_STATE_DIR=$S mc -q apply "$T_TMP/p2.yaml"
check_rc $? 0 "apply with a new state directory"
check_eq "$(stat -c %a "$S")" 700 "state directory created with mode 0700"

# No shell, no program is ever started with profile content: the one exec
# is memctl exec's, of the command its operator names, in cli/cmd-exec.c.
# (The QEMU guest has neither nm nor the C sources: checked on the build host.)
if command -v nm >/dev/null && [ -d "$SRC/cli" ]; then
	imports=$(nm -D --undefined-only "$MEMCTL" 2>/dev/null | awk '{print $2}' | sed 's/@.*//' |
		grep -E '^(system|popen|execl|execlp|execle|execv|execve|execvp|execvpe|posix_spawn|posix_spawnp|fork|vfork)$')
	check_eq "$imports" "execvp" "memctl imports no spawn, fork, system or popen, and one exec"
	callers=$(grep -rlE '\b(system|popen|exec[lv]p?e?|posix_spawnp?|v?fork) *\(' "$SRC"/engine "$SRC"/host \
		"$SRC"/view "$SRC"/tui "$SRC"/util "$SRC"/cli | sed "s|^$SRC/||" | sort | tr '\n' ' ')
	check_eq "$callers" "cli/cmd-exec.c " "only memctl exec calls exec"
else
	echo "# no nm or no C sources on this host: the exec imports are checked where memctl is built"
fi
summary
