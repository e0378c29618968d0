# memctl status and systemd's single-writer rule on a pure cgroup v2 host,
# where memory and systemd's unit tree are one hierarchy and systemd puts
# its delegation markers on the unit's cgroup itself. The groups are named
# like systemd units; the markers are set here, as systemd does for
# Delegate=yes (the host side, tests/integration/30-systemd-delegation.sh,
# covers the hybrid layout). memctl says "warning:" in lower case: the
# guest runner takes an upper-case "WARNING:" in the log for the kernel's.
T=systemd-delegation
. /tests/lib.sh
command -v memctl >/dev/null || skip "no memctl binary in the initramfs"
command -v setxattr >/dev/null || skip "no setxattr helper in the initramfs"
mkdir -p $CG/demo.slice/app.service/work $CG/plain

# verdict PARENT: memctl status's systemd line for that parent
verdict() { memctl -p "$1" status 2>/tmp/err | sed -n 's/^systemd *//p'; }

v=$(verdict /plain); say "/plain: $v"
check "a group outside any unit is foreign" \
	test "$v" = "not running; the parent is in no systemd unit's cgroup"
v=$(verdict /demo.slice/app.service/work); say "app.service/work: $v"
check "below an unmarked service: systemd's" \
	test "$v" = "not running; warning: the parent is in app.service, which systemd manages without delegation"
check "the warning goes to stderr" grep -q "warning: systemd writes '/demo.slice/app.service/work'" /tmp/err

check "set trusted.delegate on the v2 group" setxattr $CG/demo.slice/app.service trusted.delegate 1
v=$(verdict /demo.slice/app.service/work); say "app.service/work: $v"
check "trusted.delegate=1 read from the memory hierarchy itself: delegated" \
	test "$v" = "not running; the parent is in app.service, delegated ($CG/demo.slice/app.service: trusted.delegate)"
check "no warning then" test ! -s /tmp/err
v=$(verdict /demo.slice); say "demo.slice: $v"
check "the slice above stays systemd's" \
	test "$v" = "not running; warning: the parent is in demo.slice, which systemd manages without delegation"

rmdir $CG/demo.slice/app.service/work $CG/demo.slice/app.service $CG/demo.slice $CG/plain
finish
