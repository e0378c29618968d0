#!/usr/bin/env bash
# Installs the Debian packages memctl needs to build and test, only those
# that are missing, then configures and builds one flavour:
#   scripts/setup.sh release   -> build/release (optimized)
#   scripts/setup.sh test      -> build/test (ASan+UBSan, -Werror, fault injection)
#   scripts/setup.sh deps      -> the packages alone, nothing built
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}

pkgs=(build-essential cmake pkg-config libcgroup-dev libyaml-dev libreadline-dev libsystemd-dev
      libncurses-dev libzstd-dev python3 groff-base man-db tmux jq time cgroup-tools bash-completion zsh
      systemd bsdextrautils python3-prometheus-client  # bench/: systemd-cgtop, column
      dbus-daemon  # tests/integration/32-units-bus: a private bus for a stand-in systemd
      busybox-static   # the test host's shell and awk (tests/unit/test-stats.sh, kernel/)
      debootstrap qemu-utils)  # the systemd guest's root file system and its overlay (kernel/rootfs.sh)
# install_missing [APT-OPTION...] -- PKG...: installs those not yet installed.
install_missing() {
	local opts=() missing=() p sudo=""
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	echo "installing: ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get -o DPkg::Lock::Timeout=600 update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		${opts[@]+"${opts[@]}"} "${missing[@]}"
}
install_missing -- "${pkgs[@]}"
# Packaging and fleet-example checks (tests/dist), without recommendations:
# ansible-core alone is enough for --syntax-check, and recommends all of ansible.
install_missing --no-install-recommends -- dpkg-dev lintian strace ansible-core prometheus python3-yaml

# For the export test, two of Prometheus's own programs: promtool (checks
# the metrics format) and node_exporter (its textfile collector is what
# reads memctl's file). Installing their packages would also install and
# start a Prometheus server and an exporter on the test host, so only the
# binaries are taken out of Debian's packages, into /var/cache/memctl-tools.
tools_dir=/var/cache/memctl-tools
for pb in prometheus:promtool prometheus-node-exporter:prometheus-node-exporter; do
	pkg=${pb%%:*} bin=${pb#*:}
	command -v "$bin" > /dev/null || [ -x "$tools_dir/$bin" ] && continue
	echo "taking $bin out of Debian's $pkg package into $tools_dir"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && { apt-get download -q "$pkg" ||
		{ $sudo apt-get -o DPkg::Lock::Timeout=600 update -q && apt-get download -q "$pkg"; }; })
	dpkg-deb --fsys-tarfile "$tmp/${pkg}"_*.deb | tar -x -C "$tmp" "./usr/bin/$bin"
	$sudo install -D -m 0755 "$tmp/usr/bin/$bin" "$tools_dir/$bin"
	rm -rf "$tmp"
done

case $flavour in
deps)    exit 0 ;;   # the packages only (scripts/test.sh, before its kernel builds start)
release) opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr) ;;
# The test flavour installs where the package does (prefix /usr), so that the
# .deb cpack makes from it (the systemd guest's) is laid out as shipped.
test)    opts=(-DCMAKE_BUILD_TYPE=Debug -DMEMCTL_SANITIZE=ON -DMEMCTL_WERROR=ON -DMEMCTL_FAULT_INJECTION=ON
               -DCMAKE_INSTALL_PREFIX=/usr -UMEMCTL_SYSTEMD_UNITDIR) ;;
*)       echo "usage: $0 release|test|deps" >&2; exit 2 ;;
esac
cmake -S . -B "build/$flavour" "${opts[@]}" >/dev/null
cmake --build "build/$flavour" -j "$(nproc)"
