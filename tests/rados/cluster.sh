# SPDX-License-Identifier: GPL-3.0-or-later
# cluster.sh: a real single-node Ceph cluster for the RADOS tests (sourced,
# not run): one monitor and one OSD bound to 127.0.0.1, `auth none`, pool
# size 1, everything (config, data, sockets, logs) under one directory.
# Daemons are started and stopped by the PIDs recorded here, never by name,
# so that several clusters (make -j2, other users) can run side by side.
#
#   cluster_start DIR [memstore|bluestore]   start; sets CEPH_CONF, RADOS_POOL
#   osd_kill                                 SIGKILL the OSD, wait for its end
#   osd_start                                start the OSD again, wait for it
#   mon_kill                                 SIGKILL the monitor, wait for its end
#   mon_start                                start the monitor again (its store kept)
#   cluster_stop                             stop both daemons
#
# memstore keeps objects in the OSD's memory (fast; lost with the OSD);
# bluestore keeps them in a file under DIR (what a killed OSD comes back to).

CLUSTER_DIR=
CEPH_CONF=
RADOS_POOL=destor
MON_PID=
OSD_PID=

# A TCP port on 127.0.0.1 nobody listens on now.
free_port() {
    /usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for SECONDS CMD...: run CMD every 0.2 s until it succeeds; fail
# after SECONDS.
wait_for() {
    limit=$(($1 * 5))
    shift
    i=0
    until "$@" > /dev/null 2>&1; do
        i=$((i + 1))
        if [ "$i" -ge "$limit" ]; then
            echo "cluster: timed out waiting for: $*" >&2
            return 1
        fi
        sleep 0.2
    done
}

ceph_cmd() { timeout 30 ceph -c "$CEPH_CONF" --connect-timeout 20 "$@"; }

cluster_start() {
    CLUSTER_DIR=$1
    store=${2:-memstore}
    mkdir -p "$CLUSTER_DIR/mon" "$CLUSTER_DIR/osd" "$CLUSTER_DIR/run" "$CLUSTER_DIR/log"
    port=$(free_port)
    fsid=$(/usr/bin/python3 -c 'import uuid; print(uuid.uuid4())')
    CEPH_CONF="$CLUSTER_DIR/ceph.conf"
    cat > "$CEPH_CONF" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$port]
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
run dir = $CLUSTER_DIR/run
log file = $CLUSTER_DIR/log/\$name.log
pid file = $CLUSTER_DIR/run/\$name.pid
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
osd crush chooseleaf type = 0
mon data avail warn = 1
mon data avail crit = 0
client mount timeout = 20
[mon]
admin socket = $CLUSTER_DIR/run/\$name.asok
mon data = $CLUSTER_DIR/mon/\$name
[osd]
admin socket = $CLUSTER_DIR/run/\$name.asok
osd data = $CLUSTER_DIR/osd/\$name
osd objectstore = $store
osd journal size = 100
osd memory target = 536870912
memstore device bytes = 4294967296
bluestore block create = true
bluestore block size = 4294967296
bluestore fsck on mkfs = false
bluestore cache autotune = false
bluestore cache size = 134217728
EOF
    monmaptool --create --addv a "[v2:127.0.0.1:$port]" --fsid "$fsid" "$CLUSTER_DIR/monmap" > /dev/null
    ceph-mon --mkfs -i a --monmap "$CLUSTER_DIR/monmap" -c "$CEPH_CONF" > "$CLUSTER_DIR/log/mkfs-mon" 2>&1
    mon_start
    ceph_cmd osd create > /dev/null
    mkdir -p "$CLUSTER_DIR/osd/osd.0"
    ceph-osd --mkfs -i 0 -c "$CEPH_CONF" > "$CLUSTER_DIR/log/mkfs-osd" 2>&1
    osd_start
    ceph_cmd osd pool create "$RADOS_POOL" 8 > /dev/null 2>&1
    ceph_cmd osd pool set "$RADOS_POOL" size 1 --yes-i-really-mean-it > /dev/null 2>&1
    wait_for 60 timeout 10 rados -c "$CEPH_CONF" -p "$RADOS_POOL" put cluster-ready "$CEPH_CONF"
}

mon_start() {
    ceph-mon -f -i a -c "$CEPH_CONF" >> "$CLUSTER_DIR/log/mon.out" 2>&1 &
    MON_PID=$!
}

mon_kill() {
    stop_pid "$MON_PID" KILL
    MON_PID=
}

osd_start() {
    ceph-osd -f -i 0 -c "$CEPH_CONF" > "$CLUSTER_DIR/log/osd.out" 2>&1 &
    OSD_PID=$!
    wait_for 60 sh -c "ceph -c '$CEPH_CONF' --connect-timeout 10 osd stat | grep -q '1 up'"
}

# stop_pid PID SIGNAL: signal PID and wait for it to end.
stop_pid() {
    [ -n "$1" ] || return 0
    kill "-$2" "$1" 2> /dev/null || true
    wait "$1" 2> /dev/null || true
}

osd_kill() {
    stop_pid "$OSD_PID" KILL
    OSD_PID=
    # Tell the monitor at once (it would notice only after its grace time),
    # so that osd_start waits for the new OSD, not the dead one's record.
    ceph_cmd osd down 0 > /dev/null 2>&1
}

cluster_stop() {
    stop_pid "$OSD_PID" TERM
    stop_pid "$MON_PID" TERM
    OSD_PID=
    MON_PID=
}
