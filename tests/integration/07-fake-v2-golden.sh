# cgroup v2 file names on a fake v2 tree (until the QEMU test host gives a
# real one): status, plan, apply and get compared byte for byte with golden
# files. MEMCTL_REGEN_GOLDEN=1 rewrites the golden files instead.
. "$(dirname "$0")/lib.sh"

T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT
ROOT=$T_TMP/cg

# A v2 hierarchy: root with cgroup.controllers, a delegated /svc, and two
# existing groups under it with the files a v2 kernel has.
mkgroup() {	# PATH MAX HIGH LOW
	fake_v2_group "$ROOT$1" "cgroup.controllers=cpu memory pids" memory.max="$2" memory.high="$3" \
		memory.low="$4" 'memory.stat=anon 524288\nfile 524288\nactive_anon 0\ninactive_anon 524288'
}
mkdir -p "$ROOT"
echo "cpu memory pids" > "$ROOT/cgroup.controllers"
mkgroup /svc 4294967296 max 0
mkgroup /svc/web 1073741824 805306368 0
mkgroup /svc/web/cache max max 0
mkgroup /svc/batch max max 0

export MEMCTL_CGROUP_ROOT=$ROOT MEMCTL_CGROUP_VERSION=2 MEMCTL_FAKE_SELF=/svc MEMCTL_FAKE_MEM_TOTAL=16G MEMCTL_STATE_DIR=$T_TMP/state
cat > "$T_TMP/p.yaml" <<'YAML'
version: 1
parent: self
groups:
  web:
    max: 512M
    high: 256M
    low: 64M
    groups:
      cache:
        max: 25%
  batch:
    max: 1G
    swap_max: 0
YAML

# (outputs go through a file: a pipeline would run golden in a subshell and lose its count)
# (host_pressure is the real host's /proc/pressure/memory, not the fake tree's)
mc status | grep -v '^cpus ' | sed -e "s|$ROOT|@ROOT@|" -e 's/^\(  host_pressure  *\)\(yes\|no\).*/\1@HOST@/' > "$T_TMP/out"
golden fake-v2-status.txt < "$T_TMP/out"
mc plan "$T_TMP/p.yaml" > "$T_TMP/out"; golden fake-v2-plan.txt < "$T_TMP/out"
mc -o json plan "$T_TMP/p.yaml" > "$T_TMP/out"; golden fake-v2-plan.json < "$T_TMP/out"
mc apply "$T_TMP/p.yaml" > "$T_TMP/out"; golden fake-v2-apply.txt < "$T_TMP/out"
check_eq "$(cat "$ROOT/svc/web/memory.high")" 268435456 "memory.high written to the v2 file"
check_eq "$(cat "$ROOT/svc/web/cache/memory.max")" 134217728 "cache max = 25% of 512M"
check_eq "$(cat "$ROOT/svc/batch/memory.swap.max")" 0 "memory.swap.max written"
mc get web > "$T_TMP/out"; golden fake-v2-get.txt < "$T_TMP/out"
out=$(mc -o json plan "$T_TMP/p.yaml")
echo "$out" | grep -q '"changes":0' && pass "plan after apply is empty" || fail "plan after apply: $out"
summary
