# memctl run inside the limits memctl.service puts on it, on real groups
# below the test's own cgroup (systemd is not running here, so the limits
# are reproduced, each from the built unit file, not from a copy here):
#   CapabilityBoundingSet= and NoNewPrivileges=  -> setpriv around memctl
#   SystemCallFilter=@system-service             -> every system call memctl
#     made (strace -f) must be in the set systemd-analyze expands it to
# ProtectSystem=, MemoryDenyWriteExecute= and the namespaces are not
# reproduced: that would need a private mount namespace remounted
# read-only, which this shared machine's tests do not do.
. "$(dirname "$0")/../integration/lib.sh"
prereq_root
prereq_memcg
case $("$MEMCTL" --version) in
*"test build"*) skip "the sanitizer runtime makes system calls the release binary does not: run from the release build" ;;
esac
for t in setpriv strace systemd-analyze; do
	command -v $t > /dev/null || skip "$t is missing"
done
UNIT=${MEMCTL_BUILD_DIR:?}/dist/memctl.service
[ -f "$UNIT" ] || skip "no built unit at $UNIT"

T_TMP=$(mktemp -d)
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
filter=$(sed -n 's/^SystemCallFilter=//p' "$UNIT")
[ -n "$caps" ] && [ -n "$filter" ] || { fail "unit lacks CapabilityBoundingSet= or SystemCallFilter="; summary; exit; }
grep -qx "NoNewPrivileges=yes" "$UNIT" && pass "unit sets NoNewPrivileges" || fail "NoNewPrivileges"
bset=-all
for c in $caps; do bset="$bset,+$(echo "${c#CAP_}" | tr 'A-Z' 'a-z')"; done
echo "# bounding set: $bset; filter: $filter"

G=$T_PREFIX-svc
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
interval: 1s
groups:
  $G:
    max: 64M
    soft_limit: 32M
    groups:
      worker:
        max: 50%
YAML

sandbox() { setpriv --no-new-privs --bounding-set="$bset" --inh-caps=-all -- "$@"; }

# the sandbox really is in force: the capability bounding set of a process in it
bnd=$(sandbox awk '/^CapBnd:/ {print $2}' /proc/self/status)
full=$(awk '/^CapBnd:/ {print $2}' /proc/self/status)
[ "$bnd" != "$full" ] && pass "bounding set reduced ($full -> $bnd)" || fail "bounding set not reduced ($bnd)"

sandbox strace -f -qq -o "$T_TMP/trace" "$MEMCTL" -s "$T_STATE" run --once "$T_TMP/p.yaml" 2> "$T_TMP/err"
rc=$?; check_rc $rc 0 "memctl run --once with the unit's capabilities and no new privileges"; [ $rc -eq 0 ] || cat "$T_TMP/err"
check_eq "$(kval "$G" memory.limit_in_bytes 2>/dev/null || kval "$G" memory.max)" $((64 << 20)) "the kernel has the limit"
check_eq "$(kval "$G/worker" memory.limit_in_bytes 2>/dev/null || kval "$G/worker" memory.max)" $((32 << 20)) \
	"and the child's"
grep -q "mlockall" "$T_TMP/err" && fail "memory could not be locked: $(grep mlockall "$T_TMP/err")" ||
	pass "memory locked (CAP_IPC_LOCK in the set)"

# expand the filter's groups (@name) recursively into system call names
expand() {
	local item
	for item in $(systemd-analyze syscall-filter "$1" | sed -n 's/^    \([^#]\)/\1/p'); do
		case $item in
		@*) grep -qx "$item" "$T_TMP/seen" 2>/dev/null || { echo "$item" >> "$T_TMP/seen"; expand "$item"; } ;;
		*) echo "$item" ;;
		esac
	done
}
: > "$T_TMP/seen"
for f in $filter; do expand "$f"; done | sort -u > "$T_TMP/allowed"
sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p' "$T_TMP/trace" | sort -u > "$T_TMP/used"
echo "# $(wc -l < "$T_TMP/used") distinct system calls used, $(wc -l < "$T_TMP/allowed") allowed by $filter"
[ -s "$T_TMP/used" ] && grep -qx openat "$T_TMP/used" && pass "trace recorded memctl's calls" ||
	fail "trace is empty"
outside=$(comm -23 "$T_TMP/used" "$T_TMP/allowed" | tr '\n' ' ')
check_eq "$outside" "" "every system call memctl run made is allowed by SystemCallFilter=$filter"

summary
