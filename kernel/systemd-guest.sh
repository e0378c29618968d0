# The systemd guest of kernel/run-guest.sh --systemd (sourced by it): the
# Debian root file system of kernel/rootfs.sh, booted with systemd as PID 1.
#
# Disks (virtio, in this order, so the guest sees them by name):
#   /dev/vda  a copy-on-write overlay of the cached root image (ext4, the
#             guest's /); thrown away after the run, the image stays pristine
#   /dev/vdb  the test input, a tar read-only: runner.sh and the tests of
#             tests/guest/systemd, tests/guest/systemd/lib.sh, the static
#             programs (bin/), the memctl package (memctl.deb), the repository's
#             profiles/ and bench/ scripts the demo runs
#   /dev/vdc  the results: the guest writes a tar of its results directory
#             here before it powers off; run-guest.sh unpacks it into --out
# The console carries the tests' output and the end marker, as for the
# initramfs guests.

# systemd_guest_deb: the memctl package to install in the guest: --deb, or
# one cpack builds from the build directory of the memctl binary given.
systemd_guest_deb() {
	if [ -n "$deb" ]; then
		[ -r "$deb" ] || { log "no package at '$deb'"; exit 2; }
		cp "$deb" "$work/in/memctl.deb"
		return 0
	fi
	[ -n "$memctl_given" ] || { log "warning: no memctl binary, so no package; the guest has none"; return 0; }
	local bdir
	bdir=$(cd "$(dirname "$memctl_given")" && pwd)
	[ -f "$bdir/CPackConfig.cmake" ] ||
		{ log "warning: '$bdir' is no CMake build directory (no CPackConfig.cmake); the guest has no memctl"; return 0; }
	command -v dpkg-shlibdeps >/dev/null || {
		[ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q dpkg-dev >&2; } ||
		{ log "dpkg-shlibdeps (dpkg-dev) is needed to build the package"; exit 77; }
	(cd "$bdir" && cpack -G DEB -B "$work/cpack" > "$work/cpack.log" 2>&1) ||
		{ cat "$work/cpack.log" >&2; log "cpack failed in '$bdir'"; exit 1; }
	cp "$work"/cpack/memctl_*.deb "$work/in/memctl.deb"
	# The tests check the unit as shipped: a build configured with another
	# prefix (or an old cached unit directory) would install it elsewhere.
	dpkg-deb -c "$work/in/memctl.deb" > "$work/deb.list"
	grep -q ' \./lib/systemd/system/memctl\.service$' "$work/deb.list" || {
		log "the package from '$bdir' does not install /lib/systemd/system/memctl.service;"
		log "configure that build with -DCMAKE_INSTALL_PREFIX=/usr -UMEMCTL_SYSTEMD_UNITDIR (scripts/setup.sh does)"
		exit 1; }
	log "package: $(basename "$work"/cpack/memctl_*.deb) from $bdir"
}

# systemd_guest_prepare: the root image, the input and result disks, the
# kernel command line and the qemu command (the array qemu: the machine of
# qemu-machine.sh with these disks).
systemd_guest_prepare() {
	local img rc=0 f
	if ! command -v qemu-img >/dev/null; then
		{ [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive \
			apt-get -o DPkg::Lock::Timeout=600 install -y -q qemu-utils >&2; } ||
			{ log "qemu-img (qemu-utils) is not installed"; exit 77; }
	fi
	# A cached image is booted under a shared lock only: rootfs.sh takes
	# its exclusive one just to look, which would wait for every guest
	# booting the image.
	img=$("$here/rootfs.sh" --print-path)
	if [ ! -f "$img" ]; then
		img=$("$here/rootfs.sh" | tail -n1) || rc=$?
		[ "$rc" = 0 ] || exit "$rc"
	fi
	# Hold the image's lock shared while we boot it, so that rootfs.sh does
	# not prune it under us.
	exec 6<"$img.lock"
	flock -s 6
	qemu-img create -q -f qcow2 -b "$img" -F raw "$work/root.qcow2"

	mkdir -p "$work/in/tests" "$work/in/bin" "$work/in/bench" "$work/in/profiles"
	cp "$repo/tests/guest/systemd/runner.sh" "$work/in/runner.sh"
	for f in "$repo"/tests/guest/systemd/*.sh; do
		cp "$f" "$work/in/tests/"
	done
	for f in "$MEMCTL_GUEST_BIN"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$work/in/bin/"
	done
	cp "$repo"/bench/stats.sh "$work/in/bench/"
	for f in "$repo"/bench/guest/systemd-*.sh; do
		[ -e "$f" ] && cp "$f" "$work/in/bench/"
	done
	cp "$repo"/profiles/*.yaml "$work/in/profiles/"
	systemd_guest_deb
	tar -C "$work/in" -cf "$work/in.tar" .
	# A disk is a whole number of sectors.
	truncate -s "%1M" "$work/in.tar"
	truncate -s 512M "$work/out.img"

	# root= on the overlay; systemd mounts cgroup2 itself (with
	# memory_recursiveprot); show_status=error keeps the console to
	# failures and the tests' own output.
	cmdline="root=/dev/vda rw rootfstype=ext4 init=/lib/systemd/systemd"
	cmdline="$cmdline systemd.unified_cgroup_hierarchy=1 systemd.show_status=error"
	cmdline="$cmdline $(qemu_cmdline_base "$baseline" "$zram")"
	if [ "$test" = shell ]; then
		# A root shell on the console instead of the tests.
		cmdline="$cmdline systemd.unit=emergency.target systemd.setenv=SYSTEMD_SULOGIN_FORCE=1"
	else
		for f in $(echo "$test" | tr , ' '); do
			case $f in
			all) ;;
			bench/*) [ -f "$repo/bench/guest/${f#bench/}" ] ||
				{ log "no benchmark '${f#bench/}' in bench/guest"; exit 2; } ;;
			*) [ -f "$repo/tests/guest/systemd/$f" ] ||
				{ log "no test '$f' in tests/guest/systemd"; exit 2; } ;;
			esac
		done
	fi
	cmdline="$cmdline$(qemu_cmdline_test "$test" "$args" "$append")"

	qemu_machine "$kernel"
	qemu+=(-drive "file=$work/root.qcow2,format=qcow2,if=virtio,cache=unsafe"
		-drive "file=$work/in.tar,format=raw,if=virtio,readonly=on"
		-drive "file=$work/out.img,format=raw,if=virtio,cache=unsafe"
		-append "$cmdline")
}

# systemd_guest_results: unpack the results disk into --out DIR.
systemd_guest_results() {
	[ -n "$outdir" ] || return 0
	mkdir -p "$outdir"
	tar -x -f "$work/out.img" -C "$outdir" 2>/dev/null ||
		log "warning: no results on the results disk"
}
