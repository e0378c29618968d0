# The kernel's own memcg selftest (tools/testing/selftests/cgroup/
# test_memcontrol, built statically from the same source).  Prints each
# result as "RESULT selftests <name>=ok|fail|skip"; the host side checks
# that the patched kernel fails none that pass on the baseline.
T=selftests
. /tests/lib.sh
need_disk
command -v test_memcontrol >/dev/null || skip "test_memcontrol was not built"
# Runs with the guest's zram swap on, so test_memcg_swap_max runs too.
# It creates its page-cache files in the working directory (O_TMPFILE).
cd /mnt/disk
test_memcontrol > /tmp/selftest.log 2>&1
rc=$?
# Output to a file is block-buffered and its forked children print the
# inherited buffer again: keep the first copy of each line.
awk '!seen[$0]++' /tmp/selftest.log > /tmp/selftest.uniq
cat /tmp/selftest.uniq
awk '/^(not )?ok [0-9]+ / { print }' /tmp/selftest.uniq | while read -r a b c d e; do
	case "$a $b" in
	"not ok") echo "RESULT selftests $d=fail" ;;
	*) [ "$c" = "#" ] && echo "RESULT selftests $e=skip" || echo "RESULT selftests $c=ok" ;;
	esac
done
say "test_memcontrol exit status $rc"
exit 0
