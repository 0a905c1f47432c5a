# SPDX-License-Identifier: GPL-3.0-or-later
"""smart_sysfs: host byte counters from the kernel's /sys/block statistics,
and which block device a path lives on (smart-sample, endurance-compare;
docs/SMART.md).

Why it exists: when smartctl cannot read a drive (no permission, virtual
disk, USB bridge) the kernel still counts the bytes written to it, which is
enough for a write rate and a lifetime from TBW; it also lets the tools
check that the cache directory really is on the measured drive.

Units: /sys/block/DEV/stat counts 512-byte sectors whatever the device's
block size (kernel Documentation/block/stat.rst).

Standard library only.
"""

import os
import re
from typing import Any
from .errors import SmartError


SYSFS_SECTOR = 512               # bytes per /sys/block stat sector


def read_block_stat(path: str) -> dict[str, int | None]:
    """Parse a /sys/block/.../stat file into bytes read/written/discarded."""
    with open(path) as f:
        fields = f.read().split()
    if len(fields) < 7 or not all(x.isdigit() for x in fields):
        raise SmartError("%s: unexpected format" % path)
    n = [int(x) for x in fields]
    return {"bytes_read": n[2] * SYSFS_SECTOR,
            "bytes_written": n[6] * SYSFS_SECTOR,
            "bytes_discarded": (n[13] * SYSFS_SECTOR
                                if len(n) >= 14 else None)}


def block_name(device: str) -> str:
    """Kernel name of a device path: /dev/disk/by-id/x -> sda1 etc."""
    path = device if device.startswith("/") else os.path.join("/dev", device)
    return os.path.basename(os.path.realpath(path))


def resolve_block(device: str, sysfs: str = "/sys") -> dict[str, Any] | None:
    """Find the kernel's stat files for DEVICE.

    Returns {'name', 'stat', 'parent', 'parent_stat', 'namespaces'} or None.
    A partition also yields its parent disk; an NVMe controller
    (/dev/nvme0) yields the sum of its namespaces.
    """
    name = block_name(device)
    cls = os.path.join(sysfs, "class", "block", name)
    if os.path.exists(os.path.join(cls, "stat")):
        info = {"name": name, "stat": [os.path.join(cls, "stat")],
                "parent": None, "parent_stat": None}
        if os.path.exists(os.path.join(cls, "partition")):
            parent = os.path.basename(os.path.dirname(os.path.realpath(cls)))
            pstat = os.path.join(sysfs, "class", "block", parent, "stat")
            if os.path.exists(pstat):
                info["parent"] = parent
                info["parent_stat"] = pstat
        return info
    ctrl = os.path.join(sysfs, "class", "nvme", name)
    if os.path.isdir(ctrl):
        names = sorted(n for n in os.listdir(ctrl)
                       if re.match(re.escape(name) + r"n\d+$", n) and
                       os.path.exists(os.path.join(sysfs, "class", "block",
                                                   n, "stat")))
        if names:
            return {"name": "+".join(names),
                    "stat": [os.path.join(sysfs, "class", "block", n, "stat")
                             for n in names],
                    "parent": None, "parent_stat": None}
    return None


def block_identity(name: str, sysfs: str = "/sys") -> dict[str, str]:
    """Model and serial as the kernel shows them (may be None)."""
    base = os.path.join(sysfs, "class", "block", name)
    found = {}
    for key, paths in (("model", ["device/model"]),
                       ("serial", ["device/serial", "serial"])):
        for p in paths:
            try:
                with open(os.path.join(base, p)) as f:
                    v = f.read().strip()
                if v:
                    found[key] = v
                    break
            except OSError:
                pass
    return found


def sysfs_counters(device: str, sysfs: str = "/sys") -> tuple[dict[str, Any], list[str]]:
    """Host byte counters from the kernel; (fields, problems)."""
    info = resolve_block(device, sysfs)
    if info is None:
        return {}, ["no kernel block statistics for %s (not a block device "
                    "under %s/class/block)" % (device, sysfs)]
    fields = {"sysfs_name": info["name"]}
    try:
        stats = [read_block_stat(p) for p in info["stat"]]
        fields["sysfs_bytes_written"] = sum(s["bytes_written"] for s in stats)
        fields["sysfs_bytes_read"] = sum(s["bytes_read"] for s in stats)
        if all(s["bytes_discarded"] is not None for s in stats):
            fields["sysfs_bytes_discarded"] = sum(s["bytes_discarded"]
                                                  for s in stats)
        if info["parent_stat"]:
            fields["sysfs_parent"] = info["parent"]
            fields["sysfs_parent_bytes_written"] = \
                read_block_stat(info["parent_stat"])["bytes_written"]
    except (OSError, SmartError) as e:
        return fields, ["cannot read kernel block statistics: %s" % e]
    if "+" not in info["name"]:
        ident = block_identity(info["parent"] or info["name"], sysfs)
        fields["_sysfs_model"] = ident.get("model")
        fields["_sysfs_serial"] = ident.get("serial")
    return fields, []


def boot_id() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return None


def device_of_path(path: str, sysfs: str = "/sys") -> str | None:
    """Kernel block device name holding `path` (e.g. 'vda1'), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    link = os.path.join(sysfs, "dev", "block",
                        "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev)))
    if not os.path.exists(link):
        return None
    return os.path.basename(os.path.realpath(link))


def path_is_on_device(path: str, device: str, sysfs: str = "/sys") -> bool | None:
    """True/False whether `path`'s filesystem lives on DEVICE (or one of its
    partitions); None when it cannot be told (e.g. device-mapper, overlay)."""
    holder = device_of_path(path, sysfs)
    info = resolve_block(device, sysfs)
    if holder is None or info is None:
        return None
    names = set(info["name"].split("+"))
    if holder in names:
        return True
    cls = os.path.join(sysfs, "class", "block", holder)
    if os.path.exists(os.path.join(cls, "partition")):
        parent = os.path.basename(os.path.dirname(os.path.realpath(cls)))
        if parent in names:
            return True
    if os.path.isdir(os.path.join(cls, "slaves")) and \
            os.listdir(os.path.join(cls, "slaves")):
        return None          # stacked device: cannot tell simply
    return False

