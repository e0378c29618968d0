#!/usr/bin/env bash
# Installs the Debian packages memctl needs to build and test, only those
# that are missing, then configures and builds one flavour:
#   scripts/setup.sh release   -> build/release (optimized)
#   scripts/setup.sh test      -> build/test (ASan+UBSan, -Werror, fault injection)
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}

pkgs=(build-essential cmake pkg-config libcgroup-dev libyaml-dev libreadline-dev
      libncurses-dev python3 groff-base man-db tmux jq time cgroup-tools bash-completion zsh
      systemd bsdextrautils)  # bench/: systemd-cgtop, column
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

case $flavour in
release) opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr) ;;
test)    opts=(-DCMAKE_BUILD_TYPE=Debug -DMEMCTL_SANITIZE=ON -DMEMCTL_WERROR=ON -DMEMCTL_FAULT_INJECTION=ON) ;;
*)       echo "usage: $0 release|test" >&2; exit 2 ;;
esac
cmake -S . -B "build/$flavour" "${opts[@]}" >/dev/null
cmake --build "build/$flavour" -j "$(nproc)"
