#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# setup.sh: install what destor-plc needs on Debian 12 (as root, or with
# sudo when available) and build it in ./build. Safe to run again.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="build-essential autoconf automake pkg-config libglib2.0-dev libssl-dev
libdeflate-dev zlib1g-dev libdb-dev libcunit1-dev libjson-glib-dev python3 python3-matplotlib
python3-numpy python3-distributed smartmontools openssl time valgrind groff man-db strace
ceph-mon ceph-osd librados-dev libxxhash-dev liblz4-dev libzstd-dev libfuse3-dev fuse3
python3-setuptools python3-pip python3-venv mypy"

missing=""
for p in $PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    ./scripts/apt-install.sh $missing
fi

[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q ${CONFIGURE_FLAGS:-}
make -s -j2 >/dev/null
echo "setup: built $(pwd)/destor"
