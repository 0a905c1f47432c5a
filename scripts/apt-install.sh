#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# apt-install.sh: install Debian packages with apt-get, as root or through
# sudo (scripts/setup.sh's install step). It exists because apt-get fails at
# once when another apt or dpkg holds its locks (unattended-upgrades on a
# fresh machine, a second setup running): the install waits for dpkg's lock
# through apt's own DPkg::Lock::Timeout, and the update, which takes the
# package lists' lock and fails at once whatever that option says, is tried
# again every 2 s while another process holds that lock, up to the same time.
# Usage: apt-install.sh PACKAGE...   Exit 0 when installed, 1 otherwise.
set -eu
WAIT=600  # seconds to wait for another apt
if [ $# -eq 0 ]; then
    echo "apt-install: no package given" >&2
    exit 2
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
apt() {
    $SUDO env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get -o "DPkg::Lock::Timeout=$WAIT" "$@"
}

deadline=$(($(date +%s) + WAIT))
said=""
while ! out=$(apt update -qq 2>&1); do
    case $out in
    *"Could not get lock"*) ;;
    *)
        printf '%s\n' "$out" >&2
        echo "apt-install: apt-get update failed" >&2
        exit 1 ;;
    esac
    if [ "$(date +%s)" -ge "$deadline" ]; then
        printf '%s\n' "$out" >&2
        echo "apt-install: another apt held the package lists for $WAIT s; giving up" >&2
        exit 1
    fi
    if [ -z "$said" ]; then
        echo "apt-install: another apt holds the package lists; waiting for it (up to $WAIT s)" >&2
        said=1
    fi
    sleep 2
done
[ -z "$out" ] || printf '%s\n' "$out" >&2
if ! apt install -y -qq "$@" >/dev/null; then
    echo "apt-install: apt-get install failed" >&2
    exit 1
fi
