# memctl's own integration tests (tests/integration/NN-*.sh, bash), run on
# cgroup v2 in the guest: the same scripts as on the v1 host; each one
# skips (77) what does not apply to this host.
T=integration
. /tests/lib.sh
command -v memctl >/dev/null || skip "no memctl binary in the initramfs"
command -v bash >/dev/null || skip "no bash in the initramfs"
export MEMCTL=/usr/bin/memctl MEMCTL_SOURCE_DIR=/src PATH=/usr/local/gnu:$PATH
for t in /src/tests/integration/[0-9]*.sh; do
	n=$(basename $t .sh)
	t0=$(cut -d' ' -f1 /proc/uptime)
	timeout 90 bash $t > /tmp/it.log 2>&1
	rc=$?
	[ $rc = 124 ] && echo "(timed out after 90 s)" >> /tmp/it.log
	say "$n: exit $rc after $(awk -v a=$t0 '{ printf "%.1f", $1 - a }' /proc/uptime) s"
	case $rc in
	0) ok "$n" ;;
	77) echo "SKIP $T: $n: $(grep -m1 SKIP /tmp/it.log)" ;;
	*) cat /tmp/it.log; not_ok "$n (exit $rc)" ;;
	esac
	echo "RESULT integration $n=$rc"
done
finish
