#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, apply the quickstart
# profile to real cgroups below the cgroup this shell runs in, and show them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
memctl=build/release/memctl
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
set -x
$sudo $memctl check profiles/quickstart.yaml
$sudo $memctl plan profiles/quickstart.yaml
$sudo $memctl apply profiles/quickstart.yaml
$sudo $memctl plan profiles/quickstart.yaml
