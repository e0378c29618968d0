# Files that are not what they claim, and folders others can write to:
# input files that are FIFOs, devices, pipes or /proc files are refused at
# once with "not a regular file" (never a hang); output files never replace
# a device, FIFO or symbolic link; a profile is trusted only when the whole
# path that leads to it is (every folder owned by root, not writable by
# others unless sticky, and the links on the way too).
. "$(dirname "$0")/lib.sh"
prereq_root

T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT
good() {
	printf 'version: 1\nparent: self\ngroups:\n  t26-g:\n    max: 64M\n' > "$1"
	chmod 0644 "$1"
}
cgconf() { printf 'group a {\n  memory {\n    memory.limit_in_bytes = 64M;\n  }\n}\n' > "$1"; }

# --- input: never blocks, never reads what is not a regular file ---
mkfifo "$T_TMP/fifo"
mknod "$T_TMP/null" c 1 3
for f in "$T_TMP/fifo" "$T_TMP/null" /dev/null /proc/self/status /sys/kernel/mm/transparent_hugepage/enabled; do
	[ -e "$f" ] || continue
	for cmd in check import; do
		err=$(timeout 10 "$MEMCTL" $cmd "$f" 2>&1 </dev/null); rc=$?
		check_rc $rc 2 "$cmd $f refused"
		echo "$err" | grep -q "not a regular file" && pass "$cmd $f: says not a regular file" ||
			fail "$cmd $f: message: $err"
	done
done
err=$(timeout 10 "$MEMCTL" check <(printf 'version: 1\n') 2>&1); rc=$?
check_rc $rc 2 "check of a pipe (/dev/fd/N) refused"
echo "$err" | grep -q "not a regular file" && pass "pipe: says not a regular file" || fail "pipe: $err"
cgconf "$T_TMP/a.conf"
out=$(timeout 10 "$MEMCTL" import - < "$T_TMP/a.conf" 2>/dev/null); rc=$?
check_rc $rc 0 "import - (stdin) is still allowed"
echo "$out" | grep -q "max: 64M" && pass "import - converts stdin" || fail "import -: $out"

# --- output: only a regular file is replaced, or a new one created ---
ln -s "$T_TMP/victim" "$T_TMP/link"
for t in null fifo link; do
	before=$(stat -c '%F %t:%T' "$T_TMP/$t")
	err=$(timeout 10 "$MEMCTL" import "$T_TMP/a.conf" "$T_TMP/$t" 2>&1); rc=$?
	check_rc $rc 2 "import to a $before refused"
	echo "$err" | grep -q "not a regular file" && pass "import to $t: says why" || fail "import to $t: $err"
	check_eq "$(stat -c '%F %t:%T' "$T_TMP/$t")" "$before" "$t is left as it was"
	err=$(timeout 10 "$MEMCTL" export --file "$T_TMP/$t" 2>&1); rc=$?
	[ $rc -ne 0 ] && pass "export --file to $t refused (exit $rc)" || fail "export --file replaced $t"
	check_eq "$(stat -c '%F %t:%T' "$T_TMP/$t")" "$before" "$t is left as it was by export"
done
[ -e "$T_TMP/victim" ] && fail "the symbolic link's target was created" || pass "nothing written through the link"
left=$(find "$T_TMP" -name '.*.??????' | wc -l)
check_eq "$left" 0 "no temporary file left behind"
timeout 10 "$MEMCTL" import "$T_TMP/a.conf" "$T_TMP/new.yaml" 2>/dev/null
check_rc $? 0 "import to a new file"
timeout 10 "$MEMCTL" import "$T_TMP/a.conf" "$T_TMP/new.yaml" 2>/dev/null
check_rc $? 0 "import over a regular file"
check_eq "$(stat -c %a "$T_TMP/new.yaml")" 644 "the profile is mode 0644"

# --- trust: the whole resolved path, as sshd and sudo check it ---
refused() { # PATH WHAT GREP
	local err rc
	err=$("$MEMCTL" check "$1" 2>&1); rc=$?
	check_rc $rc 2 "$2 refused"
	echo "$err" | grep -q -- "$3" && pass "$2: names the reason" || fail "$2: message: $err"
	"$MEMCTL" --insecure-profile check "$1" >/dev/null 2>&1
	check_rc $? 0 "$2: accepted with --insecure-profile"
}
mkdir -p "$T_TMP/open/sub" "$T_TMP/safe"
chmod 0777 "$T_TMP/open"
good "$T_TMP/open/sub/p.yaml"
refused "$T_TMP/open/sub/p.yaml" "profile in a subfolder of a 0777 folder" "folder '$T_TMP/open' on its path is writable by others"
good "$T_TMP/open/p.yaml"
ln -s "$T_TMP/open/p.yaml" "$T_TMP/safe/link.yaml"
refused "$T_TMP/safe/link.yaml" "symlink from a safe folder into a 0777 folder" "folder '$T_TMP/open' on its path"
ln -s ../open/sub "$T_TMP/safe/dirlink"
refused "$T_TMP/safe/dirlink/p.yaml" "relative symlink to a folder below a 0777 folder" "folder '$T_TMP/open' on its path"
mkdir "$T_TMP/theirs"; good "$T_TMP/theirs/p.yaml"; chown 65534 "$T_TMP/theirs"
refused "$T_TMP/theirs/p.yaml" "profile in a folder owned by another user" "owned by uid 65534"
(cd "$T_TMP/open/sub" && "$MEMCTL" check p.yaml >/dev/null 2>&1); check_rc $? 2 "relative path below a 0777 folder refused"
chmod 1777 "$T_TMP/open"
"$MEMCTL" check "$T_TMP/open/sub/p.yaml" >/dev/null; check_rc $? 0 "sticky folder (like /tmp) with root's entries accepted"
"$MEMCTL" check "$T_TMP/safe/link.yaml" >/dev/null; check_rc $? 0 "symlink into a sticky folder accepted"
ln -s "$T_TMP/safe/p.yaml" "$T_TMP/open/theirs.yaml"; chown -h 65534 "$T_TMP/open/theirs.yaml"
good "$T_TMP/safe/p.yaml"
if [ "$(cat /proc/sys/fs/protected_symlinks 2>/dev/null)" = 1 ]; then
	# The kernel itself refuses to follow it (fs.protected_symlinks), even
	# with --insecure-profile: memctl must still refuse, naming the error.
	err=$("$MEMCTL" --insecure-profile check "$T_TMP/open/theirs.yaml" 2>&1)
	check_rc $? 2 "another user's symlink in a sticky folder refused (by the kernel: protected_symlinks)"
	echo "$err" | grep -q "Permission denied" && pass "names the kernel's refusal" || fail "message: $err"
else
	refused "$T_TMP/open/theirs.yaml" "another user's symlink in a sticky folder" "is owned by uid 65534 in '$T_TMP/open'"
fi
mkdir "$T_TMP/open/theirdir"; good "$T_TMP/open/theirdir/p.yaml"; chown 65534 "$T_TMP/open/theirdir"
refused "$T_TMP/open/theirdir/p.yaml" "another user's folder in a sticky folder" "owned by uid 65534"
chmod 0775 "$T_TMP/safe"
refused "$T_TMP/safe/p.yaml" "group-writable folder" "writable by its group"
chmod 0755 "$T_TMP/safe"
"$MEMCTL" check "$T_TMP/safe/p.yaml" >/dev/null; check_rc $? 0 "profile on a trusted path accepted"
summary
