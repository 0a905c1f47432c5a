# SPDX-License-Identifier: GPL-3.0-or-later
"""Round trip of the trace writer (trace_draw.trace_record) through the real
destor read-file --trace.

Why: a trace record names a path in a format with one escape (docs/FORMAT.md,
"Trace file"): a path that itself ends in TAB digits TAB digits (or '-')
would be read as a shorter path and a byte range, so it is asked for as the
range 0 to the end.  gen-trace and import-trace --map object once wrote such
paths raw, and the replay served a range of another file with exit 0.  Here
a store holds files whose names carry TABs, backslashes, TAB-digit endings,
bytes that are not UTF-8 and (for --null traces) newlines and CRs, each of a
size no other file has and no misread range can reach; every record written
by trace_record, gen-trace and import-trace is replayed alone, and the bytes
destor served must be those of the file (or range) the writer meant.  The
reader that goes with it (trace_draw.parse_trace_record, which experiment
uses to account for a given --trace) must count what destor serves.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from test_trace_tools import SCRIPTS, DESTOR, have_destor, run

from destor_tools import destor_runner
from destor_tools import trace_import
from destor_tools import trace_draw
from destor_tools import experiment_store

# Names in a line trace; "end" is the file a misread "end<TAB>12<TAB>34"
# would name.  Sizes: 200 for "end", then unique sizes of 3000 bytes and up.
NAMES = [b"plain", b"tab\tin name", b"back\\slash", b"bs\\t12\\t34", b"end", b"end\t12\t34",
         b"end\t12\t-", b"end\t0\t-", b"sub/\t5\t6", b"trail\t", b"latin1 \xe9t\xe9\t1\t2",
         b"\xff\xfe\t7\t8", b"big\t18446744073709551616\t1"]
# Names a line can hold but gen-trace and import-trace leave to --null
# traces (a CR inside), and names only a --null trace can hold.
CR_NAMES = [b"mid\rcr\t9\t9", b"cr\r\t1\t1"]
LINE_CANNOT = [b"new\nline\t3\t4", b"ends in cr\r"]
NULL_NAMES = CR_NAMES + LINE_CANNOT


@unittest.skipUnless(have_destor(), "destor not built")
class TraceWriterRoundTrip(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trace-writer-")
        data = os.path.join(cls.tmp, "data").encode()
        cls.size = {}
        for i, name in enumerate(NAMES + NULL_NAMES):
            path = os.path.join(data, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            size = 200 if name == b"end" else 3000 + 1009 * i
            with open(path, "wb") as f:
                f.write(os.urandom(size))
            cls.size[name] = size
        cls.config = os.path.join(cls.tmp, "destor.config")
        with open(cls.config, "w") as f:
            f.write('working-directory "%s"\ncontainer-size 128K\n' % os.path.join(cls.tmp, "w"))
        subprocess.run([DESTOR, "-c", cls.config, "backup", data], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def files(self, null):
        files, _ = destor_runner.list_job_files(DESTOR, 0, self.config, keep_all=null)
        self.assertEqual(sorted(p for p, _ in files), sorted(NAMES + (NULL_NAMES if null else [])))
        return files

    def served(self, record, null):
        """Bytes destor serves for a trace of this one record."""
        t = os.path.join(self.tmp, "one.trace")
        with open(t, "wb") as f:
            f.write(record)
        p = subprocess.run([DESTOR, "-c", self.config, "read-file", "--trace", t, "--json"]
                           + (["--null"] if null else []), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, (record, p.stderr.decode("utf-8", "replace")))
        s = json.loads(p.stdout)
        self.assertEqual(s["requests"], 1, record)
        return s["bytes"]

    def check_trace(self, data, null, meant):
        """Every record of trace `data` serves meant[k] bytes."""
        end = b"\0" if null else b"\n"
        records = [r for r in data.split(end) if r and not r.startswith(b"#")]
        self.assertEqual(len(records), len(meant))
        for rec, want in zip(records, meant):
            self.assertEqual(self.served(rec + end, null), want, rec)

    def test_trace_record(self):
        for null in (False, True):
            for timed in (False, True):  # each record with its time first ('@SECONDS'), or none
                end = b"\0" if null else b"\n"
                data, meant = b"", []
                for path, size in self.files(null) + ([] if null else [(p, self.size[p]) for p in CR_NAMES]):
                    for off, n in ((None, None), (0, None), (5, 7), (size - 3, 100), (size, None)):
                        when = 1234567 * len(meant) if timed else None
                        rec = trace_draw.trace_record(0, path, end, off, n, when)
                        self.assertEqual(trace_draw.split_time(rec)[0], when)
                        data += rec
                        start = off or 0
                        meant.append(max(0, min(size - start, size if n is None else n)))
                self.check_trace(data, null, meant)

    def test_trace_record_refuses_what_a_line_cannot_hold(self):
        for path in LINE_CANNOT + [b"", b"nul\0byte"]:
            with self.assertRaises(trace_draw.ToolError, msg=path):
                trace_draw.trace_record(0, path)
        with self.assertRaises(trace_draw.ToolError):
            trace_draw.trace_record(0, b"nul\0byte", b"\0")

    def test_gen_trace(self):
        for null in (False, True):
            out = os.path.join(self.tmp, "g.trace")
            run([os.path.join(SCRIPTS, "gen-trace"), "--destor", DESTOR, "-c", self.config, "--dist",
                 "uniform", "--requests", "60", "--seed", "3", "-q", "-o", out] + (["--null"] if null else []))
            with open(out, "rb") as f:
                data = f.read()
            files = self.files(null)
            indices, _, _ = trace_draw.generate_indices(files, "uniform", 0.47, 3, 60)
            self.assertGreater(len(set(indices)), len(files) // 2)
            self.check_trace(data, null, [files[i][1] for i in indices])

    def test_import_trace(self):
        ids = os.path.join(self.tmp, "ids.txt")
        keys = ["k%d" % (i % 23) for i in range(40)]
        with open(ids, "w") as f:
            f.write("\n".join(keys) + "\n")
        msr = os.path.join(self.tmp, "msr.csv")
        reqs = [(i * 7919, 2500) for i in range(12)]
        with open(msr, "w") as f:
            f.writelines("1,h,0,Read,%d,%d,1\n" % r for r in reqs)
        for null in (False, True):
            files = self.files(null)
            out = os.path.join(self.tmp, "i.trace")
            flag = ["--null"] if null else []
            run([os.path.join(SCRIPTS, "import-trace"), "--destor", DESTOR, "-c", self.config, ids, "-f",
                 "txt", "--seed", "5", "-q", "-o", out] + flag)
            with open(out, "rb") as f:
                data = f.read()
            omap = trace_import.ObjectMap(files, 5)
            self.check_trace(data, null, [files[omap.file_of(k)][1] for k in keys])
            run([os.path.join(SCRIPTS, "import-trace"), "--destor", DESTOR, "-c", self.config, msr, "-f",
                 "msr", "-q", "-o", out] + flag)
            with open(out, "rb") as f:
                data = f.read()
            vmap = trace_import.VolumeMap(files)
            self.check_trace(data, null, [n for off, ln in reqs for _, _, n in vmap.pieces(off, ln)])

    def test_parse_trace_record_reads_as_destor(self):
        # the experiment's account of a given trace (parse_trace_record)
        # against the bytes destor serves for the same trace
        files = self.files(False)
        data = b"# a given trace\n"
        for path, size in files:
            data += trace_draw.trace_record(0, path)
            data += trace_draw.trace_record(0, path, offset=7, length=size)  # runs past the end
            data += trace_draw.trace_record(0, path, offset=size + 1)
        data += b"0\tend\t12\t34\r\n"
        t = os.path.join(self.tmp, "given.trace")
        with open(t, "wb") as f:
            f.write(data)
        p = subprocess.run([DESTOR, "-c", self.config, "read-file", "--trace", t, "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode("utf-8", "replace"))
        served = json.loads(p.stdout)
        info = experiment_store.given_trace_info(t, 0, files)
        self.assertEqual((info["requests"], info["bytes"]), (served["requests"], served["bytes"]))
        self.assertIsNone(info["seconds"])
        with open(t, "wb") as f:  # a timed trace: its time from the first request to the last
            f.write(b"# timed\n@2.5\t0\tend\n@2.5\t0\tend\n@9\t0\tplain\n")
        info = experiment_store.given_trace_info(t, 0, files)
        self.assertEqual((info["requests"], info["seconds"]), (3, 6.5))
        self.assertEqual(trace_draw.parse_trace_record(b"3\tend\t12\t34\t0\t-"), (3, b"end\t12\t34", 0, None))
        self.assertEqual(trace_draw.parse_trace_record(b"3\tend\t12\t34"), (3, b"end", 12, 34))
        self.assertEqual(trace_draw.parse_trace_record(b"3\t\t12\t34"), (3, b"\t12\t34", None, None))
        self.assertEqual(trace_draw.parse_trace_record(b"3\ta\t%s1\t-" % (b"0" * 5000)), (3, b"a", 1, None))
        self.assertEqual(trace_draw.parse_trace_record(b"3\ta\t%s\t-" % (b"9" * 5000))[2:], (None, None))
        self.assertEqual(trace_draw.parse_trace_record(b"3\ta\t18446744073709551615\t-")[2], (1 << 64) - 1)
        # a time first is read apart (as destor's trace_line_parse reads it)
        self.assertEqual(trace_draw.parse_trace_record(b"@1.5\t3\tend\t12\t34"), (3, b"end", 12, 34))
        self.assertEqual(trace_draw.split_time(b"@0.000000001\t3\ta"), (1, b"3\ta"))
        self.assertEqual(trace_draw.split_time(b"@18446744073.709551615\t3\ta")[0], (1 << 64) - 1)
        self.assertEqual(trace_draw.split_time(b"3\t@1\t"), (None, b"3\t@1\t"))
        for bad in (b"@1.\t3\ta", b"@.5\t3\ta", b"@1.0000000001\t3\ta", b"@18446744073.709551616\t3\ta",
                    b"@x\t3\ta", b"@5"):
            with self.assertRaises(trace_draw.ToolError, msg=bad):
                trace_draw.split_time(bad)
        self.assertEqual(trace_draw.format_time(0), b"@0")
        self.assertEqual(trace_draw.format_time(2500000000), b"@2.5")
        self.assertIsNone(trace_draw.parse_trace_record(b"3\ta\t18446744073709551616\t-")[2])
        for bad in (b"x\tpath", b"3", b"3\t", b"4294967296\tpath", b"9" * 5000 + b"\tpath"):
            with self.assertRaises(trace_draw.ToolError):
                trace_draw.parse_trace_record(bad)


if __name__ == "__main__":
    unittest.main()
