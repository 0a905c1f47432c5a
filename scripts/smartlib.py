"""smartlib: shared code of smart-sample, smart-diff and endurance-compare.

Why it exists: the paper measured SSD write amplification by reading the
drive's S.M.A.R.T. counters before and after a run (section V.C.3) and
projected lifetime from write speed and the rated TBW (Table 1).  The three
scripts must read the counters, convert their units and do that arithmetic
in exactly the same way, so all of it lives here.

Units used throughout:
  * Counters are kept in bytes internally.
  * ATA LBA counters count logical blocks of the drive's
    "logical_block_size" (512 bytes when smartctl does not say).
  * NVMe data units are 1000 x 512 = 512,000 bytes (NVMe base spec).
  * /sys/block/DEV/stat counts 512-byte sectors whatever the device's
    block size (kernel Documentation/block/stat.rst).
  * Reports use the paper's binary units by default: 1 KB = 1024 B,
    1 MB = 1024 KB, 1 GB = 1024 MB, 1 TB = 1024 GB, printed as
    KiB/MiB/GiB/TiB.  "decimal" units (powers of 1000) are available.
  * A day is 86,400 seconds.

Standard library only.
"""

import csv
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import time

KIB = 1024
MIB = 1024 ** 2
GIB = 1024 ** 3
TIB = 1024 ** 4
NVME_DATA_UNIT = 512000          # bytes per NVMe "data unit"
SYSFS_SECTOR = 512               # bytes per /sys/block stat sector
DEFAULT_LBA = 512
SECONDS_PER_DAY = 86400

UNITS = {
    # name: (step between prefixes, labels for 1, k, M, G, T, P)
    "binary": (1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]),
    "decimal": (1000, ["B", "kB", "MB", "GB", "TB", "PB"]),
}

# Directories searched for smartctl/fstrim after $PATH: on Debian they live
# in /usr/sbin, which an ordinary user's PATH often lacks.
SBIN_DIRS = ["/usr/sbin", "/sbin", "/usr/local/sbin"]

SMARTCTL_TIMEOUT = 60


class SmartError(Exception):
    """A problem the user must fix; the message is meant to be printed."""


# ---------------------------------------------------------------------------
# Units and arithmetic

def unit_step(units):
    if units not in UNITS:
        raise SmartError("unknown units %r (use binary or decimal)" % units)
    return UNITS[units][0]


def unit_bytes(prefix, units="binary"):
    """Bytes in one unit with the given prefix index (0=B, 2=MB, 3=GB...)."""
    return unit_step(units) ** prefix


def unit_label(prefix, units="binary"):
    unit_step(units)
    return UNITS[units][1][prefix]


def fmt_bytes(n, units="binary", prefix=None, digits=1):
    """Human-readable byte count; None prints as 'n/a'."""
    if n is None:
        return "n/a"
    step = unit_step(units)
    if prefix is None:
        prefix = 0
        while prefix < 5 and abs(n) >= step ** (prefix + 1):
            prefix += 1
    value = n / step ** prefix
    if prefix == 0:
        return "%d %s" % (n, UNITS[units][1][0])
    return "%.*f %s" % (digits, value, UNITS[units][1][prefix])


_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*"
                      r"([kKmMgGtTpP]?)(i?)([bB]?)\s*$")


def parse_size(text, units="binary", default_prefix="T"):
    """Parse '36500GB', '600TB', '0.6PiB', '150' (bare number = TB).

    GB/TB follow `units` (binary by default, as the paper counts
    1 GB = 1024 MB); an explicit 'i' (GiB, TiB) is always binary.
    Returns bytes as an int.  Raises SmartError on bad input.
    """
    m = _SIZE_RE.match(str(text))
    if not m:
        raise SmartError("cannot read size %r; write e.g. 600TB or 36500GB"
                         % text)
    number, letter, binary, bee = m.groups()
    if not letter and (binary or bee):
        if binary:
            raise SmartError("cannot read size %r" % text)
    if not letter and not bee:
        letter = default_prefix
    value = float(number)
    if not math.isfinite(value) or value <= 0:
        raise SmartError("size %r must be positive" % text)
    prefix = " KMGTP".index(letter.upper()) if letter else 0
    step = 1024 if binary else unit_step(units)
    return int(round(value * step ** prefix))


def write_rate(nbytes, seconds):
    """Bytes per second, or None when either is unknown or seconds <= 0."""
    if nbytes is None or seconds is None or seconds <= 0:
        return None
    return nbytes / seconds


def lifetime_days(tbw_bytes, rate_bytes_per_s):
    """Days until `tbw_bytes` have been written at a constant rate.

    Table 1 of the paper: TBW 36,500 GB at 50.7 MB/s (1 GB = 1024 MB)
    gives 36500 * 1024 / 50.7 s = 8.5 days.
    """
    if tbw_bytes is None or not rate_bytes_per_s or rate_bytes_per_s <= 0:
        return None
    return tbw_bytes / rate_bytes_per_s / SECONDS_PER_DAY


def waf(nand_bytes, host_bytes):
    """Write amplification factor = NAND bytes / host bytes (None if
    unknown or host wrote nothing)."""
    if nand_bytes is None or host_bytes is None or host_bytes <= 0:
        return None
    return nand_bytes / host_bytes


def waf_from_pages(host_pages, ftl_pages):
    """WAF from Crucial/Micron page counters: (host + FTL) / host pages."""
    if host_pages is None or ftl_pages is None or host_pages <= 0:
        return None
    return (host_pages + ftl_pages) / host_pages


# ---------------------------------------------------------------------------
# Tool lookup

def find_tool(name, explicit=None, env_var=None, extra_dirs=None):
    """Path of an executable: explicit path, $ENV_VAR, $PATH, then sbin dirs.

    Returns None when not found (an explicit path that is not executable
    also gives None, so the caller reports it).
    """
    if explicit is None and env_var:
        explicit = os.environ.get(env_var) or None
    if explicit is not None:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        return None
    found = shutil.which(name)
    if found:
        return found
    dirs = SBIN_DIRS if extra_dirs is None else extra_dirs
    return shutil.which(name, path=os.pathsep.join(dirs)) if dirs else None


# ---------------------------------------------------------------------------
# smartctl

# Bits of smartctl's exit status (smartctl(8), "RETURN VALUES").
EXIT_CMDLINE = 0x01
EXIT_OPEN = 0x02
EXIT_SMART_CMD = 0x04
EXIT_HEALTH_MASK = 0xF8


def run_smartctl(device, smartctl, dev_type=None, timeout=SMARTCTL_TIMEOUT):
    """Run `smartctl --json -a DEVICE`.

    Returns (data, problems): data is the decoded JSON document or None,
    problems a list of messages for the user.  Never raises for smartctl's
    own failures.
    """
    argv = [smartctl, "--json", "-a"]
    if dev_type:
        argv += ["-d", dev_type]
    argv.append(device)
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
    except FileNotFoundError:
        return None, ["smartctl not found at %s" % smartctl]
    except PermissionError:
        return None, ["smartctl at %s is not executable" % smartctl]
    except subprocess.TimeoutExpired:
        return None, ["smartctl did not answer within %d s" % timeout]
    except OSError as e:
        return None, ["cannot run smartctl: %s" % e]
    text = proc.stdout.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        first = (text.strip().splitlines() or
                 proc.stderr.decode("utf-8", "replace").strip().splitlines()
                 or ["no output"])[0]
        return None, ["smartctl gave no JSON (exit %d: %s); smartmontools "
                      "7.0 or later is needed for --json"
                      % (proc.returncode, first[:200])]
    return data, smartctl_problems(data, device, proc.returncode)


def smartctl_problems(data, device, returncode=None):
    """Turn smartctl's messages and exit status into clear messages."""
    problems = []
    info = data.get("smartctl") if isinstance(data.get("smartctl"), dict) \
        else {}
    status = info.get("exit_status", returncode)
    if not isinstance(status, int):
        status = returncode if isinstance(returncode, int) else 0
    texts = []
    for msg in info.get("messages") or []:
        if isinstance(msg, dict) and msg.get("severity") in ("error",
                                                            "warning"):
            texts.append(str(msg.get("string", "")).strip())
    joined = " ".join(texts)
    low = joined.lower()
    if status & EXIT_OPEN:
        if "permission denied" in low or "operation not permitted" in low:
            problems.append(
                "smartctl cannot open %s: permission denied; reading "
                "S.M.A.R.T. needs root (sudo) or CAP_SYS_RAWIO+CAP_SYS_ADMIN"
                % device)
        elif "no such device" in low or "no such file" in low:
            problems.append("smartctl: %s: no such device" % device)
        else:
            problems.append("smartctl cannot open %s: %s"
                            % (device, joined or "exit status %d" % status))
    elif status & EXIT_CMDLINE:
        if "unable to detect device type" in low:
            problems.append("smartctl cannot tell what kind of device %s is "
                            "(virtual disk, or a USB bridge needing -d sat?)"
                            % device)
        else:
            problems.append("smartctl refused the command: %s"
                            % (joined or "exit status %d" % status))
    elif status & EXIT_SMART_CMD:
        problems.append("smartctl: some S.M.A.R.T. commands failed on %s%s"
                        % (device, ": " + joined if joined else ""))
    if status & EXIT_HEALTH_MASK:
        problems.append("smartctl reports drive health problems on %s "
                        "(exit status %d; see smartctl -a)" % (device, status))
    support = data.get("smart_support")
    if isinstance(support, dict) and support.get("available") is False:
        problems.append("%s has no S.M.A.R.T. support" % device)
    elif isinstance(support, dict) and support.get("enabled") is False:
        problems.append("S.M.A.R.T. is disabled on %s (smartctl -s on %s)"
                        % (device, device))
    return problems


# ATA attribute names whose raw value counts host writes/reads, with the
# size of one raw unit ("lba" = the drive's logical block size).
ATA_HOST_WRITES = {
    "Total_LBAs_Written": "lba",
    "Total_Host_Sector_Write": "lba",
    "Host_Writes_32MiB": 32 * MIB,
    "Host_Writes_MiB": MIB,
    "Host_Writes_GiB": GIB,
    "Lifetime_Writes_GiB": GIB,
}
ATA_HOST_READS = {
    "Total_LBAs_Read": "lba",
    "Host_Reads_32MiB": 32 * MIB,
    "Host_Reads_MiB": MIB,
    "Host_Reads_GiB": GIB,
    "Lifetime_Reads_GiB": GIB,
}
# Vendor counters of bytes written to NAND flash.
ATA_NAND_WRITES = {
    "NAND_Writes_1GiB": GIB,
    "NAND_Writes_GiB": GIB,
    "NAND_Writes_32MiB": 32 * MIB,
}
# Crucial/Micron count flash pages instead (page size is not reported).
ATA_HOST_PAGES = ("Host_Program_Page_Count",)
ATA_FTL_PAGES = ("FTL_Program_Page_Count", "Bckgnd_Program_Page_Cnt")
# Attributes whose normalized value is the remaining life in percent,
# in order of preference.
ATA_LIFE_LEFT = ("Media_Wearout_Indicator", "Percent_Lifetime_Remain",
                 "SSD_Life_Left", "Wear_Leveling_Count")

# Columns of a sample, in CSV order.
COLUMNS = [
    "timestamp", "epoch", "device", "source", "protocol", "model", "serial",
    "firmware", "logical_block_size",
    "host_bytes_written", "host_bytes_read", "host_write_unit",
    "nand_bytes_written", "nand_write_unit",
    "host_program_pages", "ftl_program_pages",
    "ata_host_write_attr", "ata_host_write_raw", "ata_host_read_raw",
    "nvme_data_units_written", "nvme_data_units_read",
    "life_used_pct", "life_indicator",
    "media_wearout_indicator", "percent_lifetime_remain",
    "wear_leveling_count", "wear_leveling_count_raw",
    "percentage_used", "available_spare", "media_errors",
    "reallocated_sectors", "power_on_hours",
    "sysfs_name", "sysfs_bytes_written", "sysfs_bytes_read",
    "sysfs_bytes_discarded", "sysfs_parent", "sysfs_parent_bytes_written",
    "boot_id", "missing", "messages", "raw",
]
INT_COLUMNS = {
    "logical_block_size", "host_bytes_written", "host_bytes_read",
    "host_write_unit", "nand_bytes_written", "nand_write_unit",
    "host_program_pages", "ftl_program_pages", "ata_host_write_raw",
    "ata_host_read_raw", "nvme_data_units_written", "nvme_data_units_read",
    "media_wearout_indicator", "percent_lifetime_remain",
    "wear_leveling_count", "wear_leveling_count_raw", "percentage_used",
    "available_spare", "media_errors", "reallocated_sectors",
    "power_on_hours", "sysfs_bytes_written", "sysfs_bytes_read",
    "sysfs_bytes_discarded", "sysfs_parent_bytes_written",
}
FLOAT_COLUMNS = {"epoch", "life_used_pct"}

# What each protocol is expected to expose; anything absent is listed in
# the sample's "missing" column.
EXPECTED = {
    "ATA": ["host_bytes_written", "host_bytes_read", "nand_bytes_written",
            "life_used_pct", "reallocated_sectors", "power_on_hours"],
    "NVMe": ["host_bytes_written", "host_bytes_read", "nand_bytes_written",
             "life_used_pct", "available_spare", "media_errors",
             "power_on_hours"],
}


def _int(value):
    """A JSON integer (not bool) or None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def empty_sample():
    s = {c: None for c in COLUMNS}
    s["missing"] = []
    s["messages"] = []
    s["raw"] = {}
    return s


def parse_smartctl(data, device=None):
    """Fields of a sample from a `smartctl --json -a` document.

    Returns a dict with (a subset of) the COLUMNS keys plus 'messages',
    'missing' (lists) and 'raw' (every attribute / log field, kept as read).
    """
    out = empty_sample()
    dev = data.get("device") if isinstance(data.get("device"), dict) else {}
    out["device"] = dev.get("name") or device
    proto = dev.get("protocol")
    if not proto:
        if "nvme_smart_health_information_log" in data:
            proto = "NVMe"
        elif "ata_smart_attributes" in data:
            proto = "ATA"
    out["protocol"] = proto
    for key, col in (("model_name", "model"), ("serial_number", "serial"),
                     ("firmware_version", "firmware")):
        if isinstance(data.get(key), str):
            out[col] = data[key].strip()
    lbs = _int(data.get("logical_block_size"))
    out["logical_block_size"] = lbs
    local = data.get("local_time")
    if isinstance(local, dict) and _int(local.get("time_t")) is not None:
        out["epoch"] = float(local["time_t"])
    pot = data.get("power_on_time")
    if isinstance(pot, dict) and _int(pot.get("hours")) is not None:
        out["power_on_hours"] = pot["hours"]

    if proto == "NVMe" or "nvme_smart_health_information_log" in data:
        _parse_nvme(data, out)
    if isinstance(data.get("ata_smart_attributes"), dict):
        _parse_ata(data, out, lbs)
    if out["protocol"] in EXPECTED and not _has_smart_data(data):
        out["messages"].append("no S.M.A.R.T. attribute data in smartctl "
                               "output")
    return out


def _has_smart_data(data):
    return bool(data.get("nvme_smart_health_information_log") or
                (data.get("ata_smart_attributes") or {}).get("table"))


def _parse_nvme(data, out):
    log = data.get("nvme_smart_health_information_log")
    if not isinstance(log, dict):
        return
    out["raw"]["nvme"] = log
    written = _int(log.get("data_units_written"))
    read = _int(log.get("data_units_read"))
    out["nvme_data_units_written"] = written
    out["nvme_data_units_read"] = read
    if written is not None:
        out["host_bytes_written"] = written * NVME_DATA_UNIT
        out["host_write_unit"] = NVME_DATA_UNIT
    if read is not None:
        out["host_bytes_read"] = read * NVME_DATA_UNIT
    used = _int(log.get("percentage_used"))
    out["percentage_used"] = used
    if used is not None:
        out["life_used_pct"] = float(used)
        out["life_indicator"] = "percentage_used"
    for key in ("available_spare", "media_errors"):
        out[key] = _int(log.get(key))
    if _int(log.get("power_on_hours")) is not None:
        out["power_on_hours"] = log["power_on_hours"]


def _parse_ata(data, out, lbs):
    table = data["ata_smart_attributes"].get("table")
    if not isinstance(table, list):
        return
    by_name = {}
    by_id = {}
    raw = {}
    for attr in table:
        if not isinstance(attr, dict) or _int(attr.get("id")) is None:
            continue
        rawv = attr.get("raw") if isinstance(attr.get("raw"), dict) else {}
        entry = {"name": attr.get("name"), "value": _int(attr.get("value")),
                 "worst": _int(attr.get("worst")),
                 "thresh": _int(attr.get("thresh")),
                 "raw": _int(rawv.get("value")),
                 "raw_string": rawv.get("string")}
        raw[str(attr["id"])] = entry
        by_id.setdefault(attr["id"], entry)
        if isinstance(attr.get("name"), str):
            by_name.setdefault(attr["name"], entry)
    out["raw"]["ata"] = raw
    lba = lbs if lbs else DEFAULT_LBA
    if not lbs:
        out["messages"].append("smartctl did not report the logical block "
                               "size; assuming %d bytes per LBA" % lba)

    def counter(names):
        for name, unit in names.items():
            e = by_name.get(name)
            if e and e["raw"] is not None:
                return name, e["raw"], (lba if unit == "lba" else unit)
        return None, None, None

    name, value, unit = counter(ATA_HOST_WRITES)
    if name:
        out["ata_host_write_attr"] = name
        out["ata_host_write_raw"] = value
        out["host_bytes_written"] = value * unit
        out["host_write_unit"] = unit
    name, value, unit = counter(ATA_HOST_READS)
    if name:
        out["ata_host_read_raw"] = value
        out["host_bytes_read"] = value * unit
    name, value, unit = counter(ATA_NAND_WRITES)
    if name:
        out["nand_bytes_written"] = value * unit
        out["nand_write_unit"] = unit
    for names, col in ((ATA_HOST_PAGES, "host_program_pages"),
                       (ATA_FTL_PAGES, "ftl_program_pages")):
        for n in names:
            if by_name.get(n) and by_name[n]["raw"] is not None:
                out[col] = by_name[n]["raw"]
                break
    for n, col in (("Media_Wearout_Indicator", "media_wearout_indicator"),
                   ("Percent_Lifetime_Remain", "percent_lifetime_remain"),
                   ("Wear_Leveling_Count", "wear_leveling_count")):
        if by_name.get(n):
            out[col] = by_name[n]["value"]
    if by_name.get("Wear_Leveling_Count"):
        out["wear_leveling_count_raw"] = by_name["Wear_Leveling_Count"]["raw"]
    for n in ATA_LIFE_LEFT:
        e = by_name.get(n)
        if e and e["value"] is not None and 0 <= e["value"] <= 100:
            out["life_used_pct"] = float(100 - e["value"])
            out["life_indicator"] = n
            break
    if by_id.get(5) and by_id[5]["raw"] is not None:
        out["reallocated_sectors"] = by_id[5]["raw"]
    if out["power_on_hours"] is None:
        e = by_name.get("Power_On_Hours")
        if e and e["raw"] is not None:
            out["power_on_hours"] = e["raw"]


# ---------------------------------------------------------------------------
# /sys/block fallback

def read_block_stat(path):
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


def block_name(device):
    """Kernel name of a device path: /dev/disk/by-id/x -> sda1 etc."""
    path = device if device.startswith("/") else os.path.join("/dev", device)
    return os.path.basename(os.path.realpath(path))


def resolve_block(device, sysfs="/sys"):
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


def block_identity(name, sysfs="/sys"):
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


def sysfs_counters(device, sysfs="/sys"):
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


def boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return None


def device_of_path(path, sysfs="/sys"):
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


def path_is_on_device(path, device, sysfs="/sys"):
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


# ---------------------------------------------------------------------------
# Sampling

def now_iso(epoch):
    t = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond //
                                                         1000)


def take_sample(device, smartctl=None, dev_type=None, use_smart=True,
                use_sysfs=True, sysfs="/sys", clock=time.time):
    """One sample of DEVICE.  Never raises for device or tool problems:
    whatever cannot be read is listed in 'missing' and explained in
    'messages'."""
    s = empty_sample()
    s["device"] = device
    sources = []
    if use_smart:
        if smartctl is None:
            s["messages"].append("smartctl not found (install smartmontools "
                                 "7 or later); S.M.A.R.T. counters skipped")
        else:
            data, problems = run_smartctl(device, smartctl, dev_type)
            s["messages"].extend(problems)
            if data is not None:
                parsed = parse_smartctl(data, device)
                s["messages"].extend(parsed.pop("messages"))
                parsed.pop("missing")
                parsed.pop("epoch")
                parsed["device"] = device
                for k, v in parsed.items():
                    if v is not None and v != {}:
                        s[k] = v
                if _has_smart_data(data):
                    sources.append("smartctl")
    if use_sysfs:
        fields, problems = sysfs_counters(device, sysfs)
        s["messages"].extend(problems)
        model = fields.pop("_sysfs_model", None)
        serial = fields.pop("_sysfs_serial", None)
        s.update(fields)
        if "sysfs_bytes_written" in fields:
            sources.append("sysfs")
            if s["model"] is None and model:
                s["model"] = model
            if s["serial"] is None and serial:
                s["serial"] = serial
        s["boot_id"] = boot_id()
    s["source"] = "+".join(sources) or "none"
    if "smartctl" in sources:
        expected = EXPECTED.get(s["protocol"], ["host_bytes_written"])
        s["missing"] = [k for k in expected if s[k] is None]
    elif use_smart:
        s["missing"] = ["smart"]
    if use_sysfs and "sysfs" not in sources:
        s["missing"].append("sysfs_bytes_written")
    if s["protocol"] == "NVMe" and s["nand_bytes_written"] is None:
        s["messages"].append("the NVMe standard health log has no NAND "
                             "write counter; WAF needs a vendor log")
    epoch = clock()
    s["epoch"] = epoch
    s["timestamp"] = now_iso(epoch)
    return s


def has_write_counter(s):
    return s.get("host_bytes_written") is not None or \
        s.get("sysfs_bytes_written") is not None


def summary_line(s, units="binary"):
    parts = [s["timestamp"], s["device"], "source=" + s["source"]]
    if s.get("host_bytes_written") is not None:
        parts.append("host_written=" + fmt_bytes(s["host_bytes_written"],
                                                 units))
    if s.get("nand_bytes_written") is not None:
        parts.append("nand_written=" + fmt_bytes(s["nand_bytes_written"],
                                                 units))
    if s.get("sysfs_bytes_written") is not None:
        parts.append("kernel_written=" + fmt_bytes(s["sysfs_bytes_written"],
                                                   units))
    if s.get("life_used_pct") is not None:
        parts.append("life_used=%g%%" % s["life_used_pct"])
    if s.get("missing"):
        parts.append("missing=" + ",".join(s["missing"]))
    return " ".join(parts)


# ---------------------------------------------------------------------------
# CSV files of samples

def sample_to_row(s):
    row = {}
    for c in COLUMNS:
        v = s.get(c)
        if c in ("missing", "messages"):
            row[c] = ";".join(v or [])
        elif c == "raw":
            row[c] = json.dumps(v or {}, sort_keys=True,
                                separators=(",", ":"))
        elif v is None:
            row[c] = ""
        elif isinstance(v, float):
            row[c] = repr(v)
        else:
            row[c] = str(v)
    return row


def row_to_sample(row, where="row"):
    s = empty_sample()
    for c in COLUMNS:
        v = row.get(c)
        if v is None or v == "":
            continue
        try:
            if c in INT_COLUMNS:
                s[c] = int(v)
            elif c in FLOAT_COLUMNS:
                s[c] = float(v)
                if not math.isfinite(s[c]):
                    raise ValueError(v)
            elif c in ("missing", "messages"):
                s[c] = [x for x in v.split(";") if x]
            elif c == "raw":
                s[c] = json.loads(v)
            else:
                s[c] = v
        except ValueError:
            raise SmartError("%s: column %s has a bad value %r"
                             % (where, c, v[:40]))
    if s["epoch"] is None:
        raise SmartError("%s: no epoch timestamp" % where)
    return s


def identity(s):
    """What tells drives apart: the serial number, else the device name."""
    return s.get("serial") or s.get("device")


def read_csv_samples(path):
    try:
        f = open(path, newline="")
    except OSError as e:
        raise SmartError("cannot read %s: %s" % (path, e.strerror or e))
    with f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        if "epoch" not in header or "device" not in header:
            raise SmartError("%s is not a smart-sample CSV file (no epoch/"
                             "device columns)" % path)
        samples = []
        try:
            for i, row in enumerate(reader, start=2):
                samples.append(row_to_sample(row, "%s line %d" % (path, i)))
        except csv.Error as e:
            raise SmartError("%s: %s" % (path, e))
    if not samples:
        raise SmartError("%s holds no samples" % path)
    return samples


def read_samples(path):
    """Samples from a smart-sample CSV or a saved `smartctl --json -a`
    document (its local_time gives the time)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096).lstrip()
    except OSError as e:
        raise SmartError("cannot read %s: %s" % (path, e.strerror or e))
    if head.startswith(b"{"):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise SmartError("%s: not valid JSON: %s" % (path, e))
        if not isinstance(data, dict):
            raise SmartError("%s: not a smartctl JSON document" % path)
        s = parse_smartctl(data)
        s["source"] = "smartctl"
        if s["epoch"] is None:
            raise SmartError("%s: smartctl JSON without local_time.time_t"
                             % path)
        s["timestamp"] = now_iso(s["epoch"])
        if not _has_smart_data(data):
            problems = smartctl_problems(data, s["device"] or path)
            raise SmartError("%s holds no S.M.A.R.T. data%s" %
                             (path, ": " + "; ".join(problems)
                              if problems else ""))
        return [s]
    return read_csv_samples(path)


def check_csv_for_append(path, device_identity=None):
    """Before appending to PATH: header must match, rows must be of the same
    drive.  Returns the identity found in the file (or None)."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, [])
            if header != COLUMNS:
                raise SmartError(
                    "%s exists with different columns (another tool, or an "
                    "older version); use a new --out file" % path)
            seen = set()
            for row in reader:
                if len(row) == len(COLUMNS):
                    rec = dict(zip(COLUMNS, row))
                    seen.add(rec["serial"] or rec["device"])
    except (OSError, csv.Error) as e:
        raise SmartError("cannot read %s: %s" % (path, e))
    if device_identity and seen and device_identity not in seen:
        raise SmartError("%s holds samples from another drive (%s), not %s; "
                         "use a different --out file"
                         % (path, ", ".join(sorted(seen)), device_identity))
    return next(iter(seen)) if len(seen) == 1 else None


class CsvAppender:
    """Appends samples to a CSV file, flushing and fsyncing every row so an
    interrupted run keeps all rows already taken."""

    def __init__(self, path_or_file):
        if hasattr(path_or_file, "write"):
            self.f = path_or_file
            self.close_f = False
            need_header = True
        else:
            need_header = (not os.path.exists(path_or_file) or
                           os.path.getsize(path_or_file) == 0)
            self.f = open(path_or_file, "a", newline="")
            self.close_f = True
        self.w = csv.DictWriter(self.f, fieldnames=COLUMNS)
        if need_header:
            self.w.writeheader()
            self._sync()

    def _sync(self):
        self.f.flush()
        try:
            os.fsync(self.f.fileno())
        except (OSError, ValueError, AttributeError):
            pass            # pipes and terminals cannot be fsynced

    def append(self, s):
        self.w.writerow(sample_to_row(s))
        self._sync()

    def close(self):
        if self.close_f:
            self.f.close()


def write_samples(path, samples):
    app = CsvAppender(path)
    try:
        for s in samples:
            app.append(s)
    finally:
        app.close()


# ---------------------------------------------------------------------------
# Differences between two samples

def _delta(before, after, key, warnings, label):
    a, b = before.get(key), after.get(key)
    if a is None or b is None:
        return None
    if b < a:
        warnings.append("%s went backwards (%d -> %d): drive reset or "
                        "replaced, or the kernel counter restarted at boot; "
                        "ignored" % (label, a, b))
        return None
    return b - a


def check_same_drive(before, after):
    """Raise SmartError when the samples are of different drives; return
    warnings when it cannot be told for sure."""
    warnings = []
    sa, sb = before.get("serial"), after.get("serial")
    if sa and sb:
        if sa != sb:
            raise SmartError(
                "BEFORE and AFTER are from different drives: %s (serial %s) "
                "and %s (serial %s)" % (before.get("model") or
                                        before.get("device"), sa,
                                        after.get("model") or
                                        after.get("device"), sb))
    else:
        if before.get("device") != after.get("device"):
            raise SmartError("BEFORE is of %s and AFTER of %s, and there is "
                             "no serial number to show they are the same "
                             "drive" % (before.get("device"),
                                        after.get("device")))
        warnings.append("no serial number in both samples; trusting that "
                        "%s was the same drive both times"
                        % before.get("device"))
    return warnings


def diff_samples(before, after, tbw_bytes=None, units="binary",
                 seconds=None):
    """Everything smart-diff reports, as a dict (JSON-ready).

    `seconds` overrides the interval used for the write rate (e.g. the
    replay's run time); by default it is the time between the samples.
    """
    unit_step(units)
    warnings = check_same_drive(before, after)
    notes = []
    interval = after["epoch"] - before["epoch"]
    if interval < 0:
        raise SmartError("AFTER was taken before BEFORE (%s < %s); swap the "
                         "arguments" % (after.get("timestamp"),
                                        before.get("timestamp")))
    if interval == 0:
        warnings.append("the two samples have the same time; no rates")
    if seconds is None:
        seconds = interval
    res = {"device": after.get("device"), "model": after.get("model"),
           "serial": after.get("serial"),
           "before": before.get("timestamp"), "after": after.get("timestamp"),
           "interval_s": interval, "rate_seconds": seconds,
           "units": ("binary: 1 KiB = 1024 B, 1 GiB = 1024 MiB (the paper's "
                     "1 GB = 1024 MB)" if units == "binary" else
                     "decimal: 1 kB = 1000 B, 1 GB = 1000 MB")}
    boots = (before.get("boot_id"), after.get("boot_id"))
    same_boot = not (boots[0] and boots[1] and boots[0] != boots[1])
    host = _delta(before, after, "host_bytes_written", warnings,
                  "S.M.A.R.T. host bytes written")
    kern = None
    if same_boot:
        kern = _delta(before, after, "sysfs_bytes_written", warnings,
                      "kernel bytes written")
    elif before.get("sysfs_bytes_written") is not None:
        warnings.append("the machine rebooted between the samples; kernel "
                        "write counters are not comparable")
    res["smart_host_bytes_written"] = host
    res["kernel_bytes_written"] = kern
    if host is not None:
        res["host_bytes_written"], res["host_source"] = host, "smart"
    elif kern is not None:
        res["host_bytes_written"], res["host_source"] = kern, "kernel"
    else:
        res["host_bytes_written"], res["host_source"] = None, None
    res["host_bytes_read"] = _delta(before, after, "host_bytes_read",
                                    warnings, "S.M.A.R.T. host bytes read")
    nand = _delta(before, after, "nand_bytes_written", warnings,
                  "NAND bytes written")
    res["nand_bytes_written"] = nand
    hp = _delta(before, after, "host_program_pages", warnings,
                "host program pages")
    fp = _delta(before, after, "ftl_program_pages", warnings,
                "FTL program pages")
    res["host_program_pages"], res["ftl_program_pages"] = hp, fp
    res["waf"], res["waf_method"] = None, None
    res["nand_bytes_estimate"] = nand
    if nand is not None and host:
        res["waf"] = waf(nand, host)
        res["waf_method"] = "NAND bytes / host bytes"
    elif hp and fp is not None:
        res["waf"] = waf_from_pages(hp, fp)
        res["waf_method"] = "(host pages + FTL pages) / host pages"
        if host is not None:
            # The page size is not reported; host bytes x WAF estimates it.
            res["nand_bytes_estimate"] = int(round(host * res["waf"]))
    elif host == 0 and (nand is not None or hp is not None):
        warnings.append("no host writes in the interval; WAF undefined")
    # Counter resolution: a coarse counter (Intel counts 32 MiB and 1 GiB
    # steps) makes small deltas meaningless.
    for key, d in (("host_write_unit", host), ("nand_write_unit", nand)):
        unit = after.get(key)
        if unit and d is not None and d < 20 * unit:
            warnings.append("%s counter moves in steps of %s; %s over the "
                            "interval is within %d%% of one step (run "
                            "longer)" % ("host" if key.startswith("host")
                                         else "NAND",
                                         fmt_bytes(unit, units),
                                         fmt_bytes(d, units),
                                         100 if d == 0 else
                                         math.ceil(100.0 * unit / d)))
    lb, la = before.get("life_used_pct"), after.get("life_used_pct")
    res["life_indicator"] = after.get("life_indicator")
    res["life_used_pct_before"], res["life_used_pct_after"] = lb, la
    res["life_used_pct_change"] = (la - lb) if la is not None and \
        lb is not None else None
    rate = write_rate(res["host_bytes_written"], seconds)
    res["write_rate_bytes_per_s"] = rate
    res["write_rate_mb_per_s"] = (rate / unit_bytes(2, units)
                                  if rate is not None else None)
    res["write_rate_unit"] = unit_label(2, units) + "/s"
    res["tbw_bytes"] = tbw_bytes
    res["lifetime_days_tbw"] = lifetime_days(tbw_bytes, rate)
    if tbw_bytes and rate == 0:
        warnings.append("no host writes in the interval; lifetime from TBW "
                        "is unbounded")
    res["lifetime_days_pct"] = res["remaining_days_pct"] = None
    change = res["life_used_pct_change"]
    if change is not None and change < 0:
        warnings.append("wear indicator went backwards (%g -> %g); ignored"
                        % (lb, la))
    elif change and interval > 0:
        days_per_pct = interval / SECONDS_PER_DAY / change
        res["lifetime_days_pct"] = 100 * days_per_pct
        res["remaining_days_pct"] = max(0.0, 100 - la) * days_per_pct
    elif change == 0:
        notes.append("wear indicator did not move over the interval; a "
                     "longer run is needed for a lifetime from it")
    for key, label in (("media_errors", "media errors"),
                       ("reallocated_sectors", "reallocated sectors")):
        d = _delta(before, after, key, warnings, label)
        res[key + "_change"] = d
        if d:
            warnings.append("%s grew by %d during the interval" % (label, d))
    res["missing"] = sorted(set(after.get("missing") or []) |
                            set(before.get("missing") or []))
    res["warnings"] = warnings
    res["notes"] = notes
    return res


def fmt_num(v, digits=2):
    if v is None:
        return "n/a"
    if isinstance(v, int):
        return "{:,}".format(v)
    if v != 0 and abs(v) < 0.5 * 10 ** -digits:
        return "%.2g" % v          # do not print a tiny figure as 0.0
    return "%.*f" % (digits, v)


def diff_table(res, units="binary"):
    """Rows (label, text) for printing a diff."""
    mb = unit_label(2, units)
    rows = [
        ("drive", "%s (serial %s)" % (res.get("model") or res["device"],
                                      res.get("serial") or "unknown")),
        ("interval", "%s -> %s (%.1f s)" % (res["before"], res["after"],
                                            res["interval_s"])),
        ("host bytes written", "%s [%s]" % (
            _bytes_text(res["host_bytes_written"], units),
            {"smart": "S.M.A.R.T.", "kernel": "kernel /sys/block",
             None: "no counter"}[res["host_source"]])),
    ]
    if res["host_source"] == "smart" and \
            res["kernel_bytes_written"] is not None:
        rows.append(("kernel bytes written",
                     _bytes_text(res["kernel_bytes_written"], units)))
    rows += [
        ("host bytes read", _bytes_text(res["host_bytes_read"], units)),
        ("NAND bytes written", _bytes_text(res["nand_bytes_written"], units)
         if res["nand_bytes_written"] is not None or
         res["nand_bytes_estimate"] is None else
         "about %s (host bytes x WAF)" % fmt_bytes(res["nand_bytes_estimate"],
                                                   units, digits=2)),
        ("write amplification", "%s%s" % (
            fmt_num(res["waf"], 3),
            " (%s)" % res["waf_method"] if res["waf_method"] else "")),
        ("wear indicator", "n/a" if res["life_used_pct_change"] is None else
         "%g%% -> %g%% used (%s)" % (res["life_used_pct_before"],
                                     res["life_used_pct_after"],
                                     res["life_indicator"])),
        ("write rate", "%s %s" % (fmt_num(res["write_rate_mb_per_s"], 2),
                                  mb + "/s")),
    ]
    if res["tbw_bytes"]:
        rows.append(("lifetime at this rate",
                     "%s days (TBW %s)" % (fmt_num(res["lifetime_days_tbw"],
                                                   1),
                                           fmt_bytes(res["tbw_bytes"], units,
                                                     digits=2))))
    rows.append(("lifetime from wear",
                 "n/a" if res["lifetime_days_pct"] is None else
                 "%s days in all, %s days left" % (
                     fmt_num(res["lifetime_days_pct"], 1),
                     fmt_num(res["remaining_days_pct"], 1))))
    rows.append(("units", res["units"]))
    return rows


def _bytes_text(n, units):
    if n is None:
        return "n/a"
    return "%s (%s bytes)" % (fmt_bytes(n, units, digits=2),
                              "{:,}".format(n))


def format_rows(rows):
    width = max(len(k) for k, _ in rows)
    return "\n".join("%-*s  %s" % (width, k, v) for k, v in rows)
