#!/bin/bash
# Build the root file system of the systemd test host: Debian 12 (bookworm)
# minbase with systemd as PID 1, as an ext4 image that kernel/run-guest.sh
# --systemd boots under QEMU.
#
#   kernel/rootfs.sh [--print-path] [--no-install]
#
# Contents: debootstrap --variant=minbase plus the packages in $pkgs below:
# systemd, dbus, util-linux, procps, the shared libraries the memctl package
# depends on (so that its .deb installs with dpkg -i, no network in the
# guest), ansible-core, python3-apt and sudo for the fleet playbook.  The
# image carries one unit of its own, memctl-guest.service, which unpacks the
# test input from the second virtio disk and runs its runner (see
# tests/guest/systemd/README.md); everything else comes per boot, so changing
# a test never rebuilds the image.
#
# The mirror is the one this machine's apt uses for bookworm's main
# component (apt-get indextargets), so no address is kept here.
#
# Cache: ${MEMCTL_ROOTFS_CACHE:-/var/cache/memctl-rootfs}/rootfs-KEY.img,
# where KEY hashes this script (the package list and the set-up are in it);
# a changed script builds a new image and removes the old ones.  On success
# the last line printed is the image's path.  The image is never booted
# directly: run-guest.sh boots a throw-away copy-on-write overlay of it.
#
# Exit codes: 0 built or cached, 77 a prerequisite is missing and could not
# be installed (a skip), anything else a failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MEMCTL_ROOTFS_CACHE:-/var/cache/memctl-rootfs}
suite=bookworm
print_path=0 install=1
for arg; do
	case $arg in
	--print-path) print_path=1 ;;
	--no-install) install=0 ;;
	-h|--help) sed -n '2,27p' "$0"; exit 0 ;;
	*) echo "rootfs.sh: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done
log() { echo "rootfs.sh: $*" >&2; }

# What the guest gets on top of minbase.  The memctl package's Depends
# (dpkg-shlibdeps: libc6, libcgroup2, libyaml-0-2, libreadline8,
# libncursesw6, libtinfo6, libsystemd0) and those of a sanitizer build
# (libasan8, libubsan1), then the tools the guest tests use.  debootstrap
# does not resolve virtual packages: python3-cryptography (for
# ansible-core) needs python3-cffi-backend named.
pkgs=(systemd systemd-sysv dbus util-linux procps
	libsystemd0 libcgroup2 libyaml-0-2 libreadline8 libncursesw6 libtinfo6
	libasan8 libubsan1
	ansible-core python3-apt sudo
	python3-cffi-backend
	jq kmod e2fsprogs)

key=$(sha256sum < "$0" | cut -c1-16)
img=$cache/rootfs-$key.img
if [ "$print_path" = 1 ]; then
	echo "$img"
	exit 0
fi

need_tools() {
	command -v debootstrap >/dev/null && command -v mkfs.ext4 >/dev/null && return 0
	if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing debootstrap e2fsprogs"
		{ DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q debootstrap e2fsprogs ||
		  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q debootstrap e2fsprogs; }; } >&2 ||
			{ log "cannot install debootstrap"; exit 77; }
	else
		log "debootstrap is not installed (run as root to install it)"
		exit 77
	fi
}

# The mirror this machine's apt takes bookworm's main component from.
mirror() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(IDENTIFIER)' 2>/dev/null |
		awk -v s="$suite" '$2 == s && $3 == "main" && $4 == "Packages" { print $1; exit }'
}

[ "$(id -u)" = 0 ] || { log "debootstrap needs root"; exit 77; }
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
	{ log "cannot write the root file system cache '$cache' (set MEMCTL_ROOTFS_CACHE)"; exit 77; }
# A built image is only read, under a shared lock (booting guests may
# hold one). Building takes it exclusively: one builder at a time, a
# second caller waits, then reuses the image.
cached() {
	[ -f "$img" ] || return 1
	log "cached root file system $key"
	echo "$img"
}
exec 9>"$img.lock"
flock -s 9
cached && exit 0
flock 9
cached && exit 0
need_tools
url=$(mirror)
[ -n "$url" ] || { log "apt has no source for $suite main (apt-get indextargets)"; exit 77; }

work=$cache/build-$key
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
root=$work/root
t0=$(date +%s.%N)
# debootstrap mounts /proc and /sys in the target: in a mount namespace of
# its own, so that nothing stays mounted on this machine if it fails.
log "debootstrap $suite from $url"
if ! unshare --mount --propagation private \
	debootstrap --variant=minbase --include="$(IFS=,; echo "${pkgs[*]}")" \
		"$suite" "$root" "$url" > "$work/debootstrap.log" 2>&1; then
	tail -n 30 "$work/debootstrap.log" >&2
	[ -f "$root/debootstrap/debootstrap.log" ] && tail -n 30 "$root/debootstrap/debootstrap.log" >&2
	log "debootstrap failed"
	exit 1
fi
log "debootstrap done in $(echo "$(date +%s.%N) - $t0" | bc) s"

# The guest's identity and quiet defaults.  A fixed machine-id: an empty one
# makes the boot a "first boot" (presets, systemd-firstboot's prompts).
echo memctl-guest > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 memctl-guest\n' > "$root/etc/hosts"
echo "$key$key" > "$root/etc/machine-id"
# No fstab entries: the kernel mounts / (root=/dev/vda rw), and without udev
# a device entry would wait for its .device unit until the timeout.
: > "$root/etc/fstab"
# Nothing logs in on the console, and no timer of its own runs during a test.
for u in serial-getty@.service getty@.service console-getty.service \
	apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer systemd-timesyncd.service; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done
# Volatile journal: the tests read it; nothing of a boot is kept.
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' > "$root/etc/systemd/journald.conf.d/memctl-guest.conf"

# The test entry point.  /dev/vdb holds a tar of the test input (written by
# run-guest.sh --systemd); its runner.sh runs the tests and powers off.
install -d "$root/usr/local/sbin"
cat > "$root/usr/local/sbin/memctl-guest-boot" <<'EOF'
#!/bin/sh
# Unpack the test input from /dev/vdb and run it (memctl-guest.service).
in=/var/lib/memctl-guest/in
rm -rf "$in" && mkdir -p "$in" || exit 1
if ! tar -x -C "$in" -f /dev/vdb; then
	echo "MEMCTL-GUEST-START no test input on /dev/vdb"
	echo "MEMCTL-GUEST-END rc=1"
	sync
	systemctl poweroff --force --force
fi
exec "$in/runner.sh"
EOF
chmod 0755 "$root/usr/local/sbin/memctl-guest-boot"
cat > "$root/etc/systemd/system/memctl-guest.service" <<'EOF'
[Unit]
Description=memctl guest tests (input from /dev/vdb, results to /dev/vdc)
After=multi-user.target dbus.service systemd-journald.service

[Service]
Type=simple
ExecStart=/usr/local/sbin/memctl-guest-boot
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/memctl-guest.service \
	"$root/etc/systemd/system/multi-user.target.wants/memctl-guest.service"
rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*_Packages

# An ext4 image from the directory, without a loop mount; sparse, so its
# size is room for the tests' files, not disk use.
t1=$(date +%s.%N)
truncate -s 4G "$work/rootfs.img"
mkfs.ext4 -q -F -b 4096 -L memctl-root -d "$root" "$work/rootfs.img" > "$work/mkfs.log" 2>&1 ||
	{ cat "$work/mkfs.log" >&2; log "mkfs.ext4 -d failed"; exit 1; }
mv "$work/rootfs.img" "$img"
log "image in $(echo "$(date +%s.%N) - $t1" | bc) s; $(du -sh "$root" | cut -f1) of files; total $(echo "$(date +%s.%N) - $t0" | bc) s"

# Images of an older script are dead weight: remove those nobody uses
# (run-guest.sh holds the lock shared while it boots one).
for old in "$cache"/rootfs-*.img.lock; do
	[ "$old" = "$img.lock" ] && continue
	(
		exec 8>"$old" && flock -n 8 || exit 0
		rm -f "${old%.lock}" "$old"
	) || true
done
echo "$img"
