# plan output on the real cgroup hierarchy, compared byte for byte with a
# golden file (our cgroup path and group prefix replaced by @SELF@ / @P@).
# MEMCTL_REGEN_GOLDEN=1 rewrites the golden files instead.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
[ "$T_VERSION" = 1 ] || skip "the golden files are for a cgroup v1 memory controller"
[ -f "$T_DIR/memory.memsw.limit_in_bytes" ] || skip "no swap accounting (memory.memsw.*)"

T_TMP=$(mktemp -d)
cat > "$T_TMP/old.yaml" <<YAML
version: 1
parent: self
groups:
  $T_PREFIX-db:
    max: 1G
    swap_max: 512M
    soft_limit: 256M
YAML
cat > "$T_TMP/new.yaml" <<YAML
version: 1
parent: self
groups:
  $T_PREFIX-db:
    max: 2G
    soft_limit: 1G
    high: 1536M
    groups:
      wal:
        max: 10%
        soft_limit: 64M
  $T_PREFIX-cache:
    max: 256M
    swap_max: 0
YAML
mc -q apply "$T_TMP/old.yaml"
check_rc $? 0 "apply the old state"

normalize() { sed -e "s|${T_SELF%/}|@SELF@|g" -e "s|$T_PREFIX|@P@|g"; }
mc plan "$T_TMP/new.yaml" | normalize > "$T_TMP/out"; golden v1-plan.txt < "$T_TMP/out"
mc -o json plan "$T_TMP/new.yaml" | normalize > "$T_TMP/out"; golden v1-plan.json < "$T_TMP/out"
mc apply "$T_TMP/new.yaml" | normalize > "$T_TMP/out"; golden v1-apply.txt < "$T_TMP/out"
check_eq "$(kval $T_PREFIX-db memory.memsw.limit_in_bytes)" $(((2048 + 512) << 20)) \
	"memsw kept the 512M swap allowance above the new max"
check_eq "$(kval $T_PREFIX-db/wal memory.limit_in_bytes)" 214745088 "10% of 2G, page aligned"
summary
