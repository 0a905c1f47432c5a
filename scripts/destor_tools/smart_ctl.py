# SPDX-License-Identifier: GPL-3.0-or-later
"""smart_ctl: finds smartctl, runs `smartctl --json -a` and turns its JSON
into the fields of a wear sample (smart-sample, smart-diff,
endurance-compare; docs/SMART.md).

Why it exists: the drive's own counters (host and NAND bytes written, wear
indicators) are what the paper's write-amplification figures rest on
(section V.C.3); reading them, and explaining clearly why they could not be
read, is one job.  The columns of a sample (COLUMNS) are defined here,
since parsing smartctl's output is what fills most of them.

Units:
  * ATA LBA counters count logical blocks of the drive's
    "logical_block_size" (512 bytes when smartctl does not say).
  * NVMe data units are 1000 x 512 = 512,000 bytes (NVMe base spec).

Standard library only.
"""

import json
import os
import shutil
import subprocess
from typing import Any, Sequence
from .units import GIB, MIB


NVME_DATA_UNIT = 512000          # bytes per NVMe "data unit"
DEFAULT_LBA = 512

# Directories searched for smartctl/fstrim after $PATH: on Debian they live
# in /usr/sbin, which an ordinary user's PATH often lacks.
SBIN_DIRS = ["/usr/sbin", "/sbin", "/usr/local/sbin"]

SMARTCTL_TIMEOUT = 60


# ---------------------------------------------------------------------------
# Tool lookup

def find_tool(name: str, explicit: str | None = None, env_var: str | None = None,
              extra_dirs: Sequence[str] | None = None) -> str | None:
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


def run_smartctl(device: str, smartctl: str, dev_type: str | None = None,
                 timeout: float = SMARTCTL_TIMEOUT) -> tuple[dict[str, Any] | None, list[str]]:
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


def smartctl_problems(data: dict[str, Any], device: str, returncode: int | None = None) -> list[str]:
    """Turn smartctl's messages and exit status into clear messages."""
    problems = []
    info: dict[str, Any] = data["smartctl"] if isinstance(data.get("smartctl"), dict) else {}
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


def empty_sample() -> dict[str, Any]:
    s: dict[str, Any] = {c: None for c in COLUMNS}
    s["missing"] = []
    s["messages"] = []
    s["raw"] = {}
    return s


def parse_smartctl(data: dict[str, Any], device: str | None = None) -> dict[str, Any]:
    """Fields of a sample from a `smartctl --json -a` document.

    Returns a dict with (a subset of) the COLUMNS keys plus 'messages',
    'missing' (lists) and 'raw' (every attribute / log field, kept as read).
    """
    out = empty_sample()
    dev: dict[str, Any] = data["device"] if isinstance(data.get("device"), dict) else {}
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
    if out["protocol"] in EXPECTED and not has_smart_data(data):
        out["messages"].append("no S.M.A.R.T. attribute data in smartctl "
                               "output")
    return out


def has_smart_data(data: dict[str, Any]) -> bool:
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
    by_name: dict[str, Any] = {}
    by_id: dict[int, Any] = {}
    raw: dict[str, Any] = {}
    for attr in table:
        if not isinstance(attr, dict) or _int(attr.get("id")) is None:
            continue
        rawv: dict[str, Any] = attr["raw"] if isinstance(attr.get("raw"), dict) else {}
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

