#!/bin/bash
# Guest side of the systemd guest (kernel/run-guest.sh --systemd): started
# by memctl-guest.service once the boot reached multi-user.target, with the
# console as stdout.  Sets up zram swap, installs the memctl package with
# dpkg, runs the test named by memctl_test= (or every NN-*.sh for "all"),
# writes the results directory to /dev/vdc and powers off.  The console's
# last line from here is "MEMCTL-GUEST-END rc=N".
in=$(cd "$(dirname "$0")" && pwd)
export MEMCTL_GUEST_IN=$in MEMCTL_GUEST_OUT=/var/lib/memctl-guest/out
export PATH=$in/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
out=$MEMCTL_GUEST_OUT
rm -rf "$out" && mkdir -p "$out"

test= args= zram=256M
for w in $(cat /proc/cmdline); do
	case $w in
	memctl_test=*) test=${w#memctl_test=} ;;
	memctl_args=*) args=$(echo "${w#memctl_args=}" | tr , ' ') ;;
	memctl_zram=*) zram=${w#memctl_zram=} ;;
	esac
done

end() {	# RC: results out, marker, power off
	journalctl -b -o short-monotonic --no-pager > "$out/journal.txt" 2>&1
	echo "MEMCTL-GUEST-END rc=$1"
	tar -C "$out" -cf /dev/vdc . && sync
	systemctl poweroff --force --force
	exit "$1"
}

if [ "$zram" != 0 ] && [ -e /sys/block/zram0/disksize ]; then
	{ echo "$zram" > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
		swapon /dev/zram0; } || echo "runner: zram swap setup failed"
fi
echo "MEMCTL-GUEST-START kernel=$(uname -r) nodes=$(ls -d /sys/devices/system/node/node* | wc -l)" \
	"systemd=$(systemctl --version | awk 'NR == 1 { print $2 }')" \
	"cgroup=$(stat -fc %T /sys/fs/cgroup) up=$(cut -d' ' -f1 /proc/uptime)s"
echo "runner: cgroup2 mount: $(awk '$2 == "/sys/fs/cgroup" { print $4 }' /proc/mounts)"
state=$(systemctl is-system-running --wait 2>&1)
echo "runner: system $state after $(cut -d' ' -f1 /proc/uptime) s"
[ "$state" = running ] || systemctl --failed --no-legend --plain | sed 's/^/runner: failed unit: /'

if [ -f "$in/memctl.deb" ]; then
	if dpkg -i "$in/memctl.deb" > "$out/dpkg.log" 2>&1; then
		echo "runner: installed $(dpkg-query -W -f='${Package} ${Version}' memctl)"
	else
		cat "$out/dpkg.log"
		echo "runner: dpkg -i memctl.deb failed"
		end 1
	fi
else
	echo "runner: no memctl package in the input"
fi
# A sanitizer build's LeakSanitizer stops the process with ptrace at exit,
# which the units' SystemCallFilter= refuses, and then fails the exit: in
# the units (only there) leak detection is off.  The release package needs
# no drop-in.
if memctl --version 2>/dev/null | grep -q sanitizers; then
	for u in memctl.service memctl@.service; do
		mkdir -p "/run/systemd/system/$u.d"
		printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' > "/run/systemd/system/$u.d/sanitizer.conf"
	done
	systemctl daemon-reload
	echo "runner: sanitizer build: leak detection off in memctl's units (drop-in sanitizer.conf)"
fi

if [ "$test" = all ]; then
	tests=$(cd "$in/tests" && ls [0-9]*.sh)
else
	tests=$(echo "$test" | tr , ' ')   # TEST[,TEST...]: these, in this order
fi
rc=0
for t in $tests; do
	t0=$(cut -d' ' -f1 /proc/uptime)
	# bench/NAME is a guest benchmark (bench/guest/NAME), anything else a test.
	case $t in
	bench/*) script=$in/$t tmo=7200 ;;
	*) script=$in/tests/$t tmo=900 ;;
	esac
	(cd "$in/tests" && timeout $tmo bash "$script" $args)
	trc=$?
	[ "$trc" = 124 ] && echo "runner: $t timed out after $tmo s"
	echo "runner: $t exit $trc after $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime) s"
	echo "RESULT runner ${t%.sh}=$trc"
	if [ "$trc" != 0 ] && [ "$trc" != 77 ]; then
		echo "runner: the journal's last 40 lines after $t (all of it: journal.txt)"
		journalctl -b -n 40 -o short-monotonic --no-pager | sed 's/^/journal: /'
	fi
	# One test: its status; several: the first that failed.  All: every
	# test must pass; the image carries what they need, so a skip there is
	# a failure too.
	if [ "$test" != all ]; then
		[ "$rc" = 0 ] && rc=$trc
	elif [ "$trc" != 0 ]; then
		[ "$trc" = 77 ] && echo "runner: $t skipped, which the systemd guest does not allow"
		rc=1
	fi
done
end "$rc"
