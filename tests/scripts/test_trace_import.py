# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of scripts/import-trace and trace_import.py.

Why: an imported trace is only worth replaying if every format is read as
its own description says and the mappings land each request on the bytes
they promise.  The fixtures in tests/fixtures/traces were written by hand
from each format's description (MSR Cambridge's seven CSV fields, FIU's
nine fields in 512-byte sectors, the ARC paper's .lis START COUNT IGNORED
REQNO in 512-byte blocks, UMass/SPC's ASU,LBA,SIZE,OPCODE,TIMESTAMP with
sectors and bytes, libCacheSim's csv with a -t column spec,
libCacheSim's 24-byte oracleGeneral records, one id per line), and the
expected records below were worked out by hand over a fake job of four
files: a (1000 bytes), b (empty), c (600) and d (2500), 4100 bytes end to
end, so c starts at byte 1000 and d at 1600.  The mapping tests drop the
times (--times drop); test_times checks them, kept by default, per format.
"""

import json
import os
import random
import subprocess
import shutil
import unittest

from test_trace_tools import fake_destor, planted_tmp_link, SCRIPTS, DESTOR, PYTHON, have_destor, run

FIX = os.path.join(os.path.dirname(SCRIPTS), "tests", "fixtures", "traces")
FILES = [(b"a", 1000), (b"b", 0), (b"c", 600), (b"d", 2500)]


class ImportTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.fake = fake_destor("trace-import-")
        listing = os.path.join(cls.tmp, "listing")
        with open(listing, "wb") as f:
            f.write(b"d\t0\tdir\0" + b"".join(b"f\t%d\t%s\0" % (s, p) for p, s in reversed(FILES)))
        cls.env = dict(os.environ, FAKE_LISTING=listing)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def imp(self, fixture, *args, check=True, times=False):
        out = os.path.join(self.tmp, "out.trace")
        if os.path.exists(out):
            os.unlink(out)
        p = run([os.path.join(SCRIPTS, "import-trace"), "--destor", self.fake, "-o", out,
                 fixture if os.path.isabs(fixture) else os.path.join(FIX, fixture)] + list(args) +
                ([] if times else ["--times", "drop"]), check=check, env=self.env)
        if not check:
            return p
        with open(out, "rb") as f:
            data = f.read()
        head = [l for l in data.split(b"\n") if l.startswith(b"#")]
        recs = [l for l in data.split(b"\n") if l and not l.startswith(b"#")]
        return head, recs

    def perm(self, seed):
        """The documented permutation: indices of the non-empty files in
        path order, shuffled by random.Random(seed)."""
        p = [0, 2, 3]
        random.Random(seed).shuffle(p)
        return [FILES[i][0] for i in p]

    def test_msr_volume(self):
        head, recs = self.imp("msr.csv", "-f", "msr")
        self.assertEqual(recs, [b"0\ta\t0\t1000", b"0\tc\t0\t200",      # 0+1200
                                b"0\td\t2400\t100", b"0\ta\t0\t200",     # 4000+300 wraps
                                b"0\ta\t900\t10"])                       # 5000 = 900 mod 4100
        text = b"\n".join(head).decode()
        self.assertIn("# source: msr.csv", text)
        self.assertIn("# format: msr", text)
        self.assertIn("# mapping: volume", text)
        self.assertIn("4100 bytes", text)
        self.assertIn("# seed: 1", text)
        self.assertIn("# requests in: 5 (4 reads, 1 writes)", text)
        self.assertIn("# requests skipped: 1 writes, 1 of zero length", text)
        self.assertIn("# records out: 5, 1510 bytes", text)

    def test_msr_writes_as_reads(self):
        _, recs = self.imp("msr.csv", "-f", "msr", "--writes", "as-reads")
        # the write at 4096 (d at 2496) for 512 bytes: 4 bytes of d, then 508 of a
        self.assertEqual(recs[2:4], [b"0\td\t2496\t4", b"0\ta\t0\t508"])
        self.assertEqual(len(recs), 7)

    def test_fiu_sectors(self):
        head, recs = self.imp("fiu.txt", "-f", "fiu")
        # lba 2, 3 sectors = bytes 1024..2560: c from 24 (576 bytes), d from 0 (960)
        # lba 10 = byte 5120 = 1020 mod 4100: c from 20, one sector
        self.assertEqual(recs, [b"0\tc\t24\t576", b"0\td\t0\t960", b"0\tc\t20\t512"])
        self.assertIn(b"# requests in: 3 (2 reads, 1 writes)", head)

    def test_lis_blocks(self):
        head, recs = self.imp("arc.lis", "-f", "lis")
        # start 2, 3 blocks = bytes 1024..2560 as in the fiu fixture; start 10
        # = 1020 mod 4100, one block; the zero-count request is skipped
        self.assertEqual(recs, [b"0\tc\t24\t576", b"0\td\t0\t960", b"0\tc\t20\t512"])
        self.assertIn(b"# format: lis", head)
        self.assertIn(b"# requests in: 3 (3 reads, 0 writes)", head)
        self.assertIn(b"# requests skipped: 0 writes, 1 of zero length", head)
        head, recs = self.imp("arc.lis", "-f", "lis", "--map", "object", "--seed", "3")
        p = self.perm(3)
        self.assertEqual(recs, [b"0\t" + p[0], b"0\t" + p[1]])  # 4K blocks 0 and 1
        self.assertIn(b"# distinct ids: 2", head)

    def test_spc_sectors_and_bytes(self):
        head, recs = self.imp("umass.spc", "-f", "spc")
        # LBA 2 (sectors), 1536 bytes: as above; the W is skipped; LBA 10, a
        # sixth field ignored
        self.assertEqual(recs, [b"0\tc\t24\t576", b"0\td\t0\t960", b"0\tc\t20\t512"])
        self.assertIn(b"# requests in: 3 (2 reads, 1 writes)", head)
        _, recs = self.imp("umass.spc", "-f", "spc", "--writes", "as-reads")
        # ASU 1's LBA 8 = byte 4096: d from 2496 for 4 bytes, then a from 0
        self.assertEqual(recs[2:4], [b"0\td\t2496\t4", b"0\ta\t0\t508"])
        head, recs = self.imp("umass.spc", "-f", "spc", "--map", "object", "--writes", "as-reads")
        self.assertIn(b"# distinct ids: 3", head)  # (ASU 0, block 0), (1, 1), (0, 1)

    def test_lis_spc_bad_records(self):
        for fixture, fmt, want in (("umass.spc", "lis", b"lis trace, record 1"),
                                   ("arc.lis", "spc", b"spc trace, record 1"),
                                   ("msr.csv", "spc", b"spc trace, record 1")):
            p = self.imp(fixture, "-f", fmt, check=False)
            self.assertEqual(p.returncode, 1, fixture)
            self.assertIn(want, p.stderr)

    def test_msr_object_blocks(self):
        head, recs = self.imp("msr.csv", "-f", "msr", "--map", "object", "--seed", "3")
        # reads at blocks 0, 0 (4000 // 4096), 1; the zero-length read is skipped
        p = self.perm(3)
        self.assertEqual(recs, [b"0\t" + p[0], b"0\t" + p[0], b"0\t" + p[1]])
        self.assertIn(b"# distinct ids: 2", head)
        self.assertIn(b"# seed: 3", head)

    def test_csv_spec(self):
        head, recs = self.imp("libcachesim.csv", "-f", "csv", "-t",
                              "time-col=1,obj-id-col=2,obj-size-col=3,op-col=4,has-header=true")
        p = self.perm(1)
        self.assertEqual(recs, [b"0\t" + p[0], b"0\t" + p[0], b"0\t" + p[1]])  # 100, 100, 300
        self.assertIn(b"# requests in: 4 (3 reads, 1 writes)", head)
        _, recs = self.imp("libcachesim.csv", "-f", "csv", "--writes", "as-reads", "-t",
                           "obj-id-col=2;op-col=4;header=true")
        self.assertEqual(recs, [b"0\t" + p[0], b"0\t" + p[1], b"0\t" + p[0], b"0\t" + p[2]])

    def test_oracle_general(self):
        head, recs = self.imp("oracle.bin", "-f", "oracle-general", "--seed", "5")
        p = self.perm(5)
        # ids 42, 7, 42; the size-0 record of id 9 is skipped
        self.assertEqual(recs, [b"0\t" + p[0], b"0\t" + p[1], b"0\t" + p[0]])
        self.assertIn(b"# requests in: 3 (3 reads, 0 writes)", head)

    def test_txt_ids(self):
        _, recs = self.imp("ids.txt", "-f", "txt")
        p = self.perm(1)
        self.assertEqual(recs, [b"0\t" + p[0], b"0\t" + p[1], b"0\t" + p[0], b"0\t" + p[2],
                                b"0\t" + p[1]])

    def test_times(self):
        """Each format's times, kept by default: '@SECONDS' before every
        record a request maps to, from the source's first request (skipped
        writes included), in the format's own unit: MSR's 100 ns ticks,
        FIU's nanoseconds, SPC's and csv's seconds, oracleGeneral's
        seconds; lis and txt have none."""
        p = self.perm(1)
        cases = [
            (("msr.csv", "-f", "msr"), [b"@0\t0\ta\t0\t1000", b"@0\t0\tc\t0\t200", b"@0.0000002\t0\td\t2400\t100",
                                        b"@0.0000002\t0\ta\t0\t200", b"@0.0000003\t0\ta\t900\t10"]),
            (("fiu.txt", "-f", "fiu"), [b"@0\t0\tc\t24\t576", b"@0\t0\td\t0\t960", b"@0.000000006\t0\tc\t20\t512"]),
            (("umass.spc", "-f", "spc"), [b"@0\t0\tc\t24\t576", b"@0\t0\td\t0\t960", b"@0.02\t0\tc\t20\t512"]),
            (("libcachesim.csv", "-f", "csv", "-t", "time-col=1,obj-id-col=2,op-col=4,has-header=true"),
             [b"@0\t0\t" + p[0], b"@2\t0\t" + p[0], b"@3\t0\t" + p[1]]),
            (("oracle.bin", "-f", "oracle-general", "--seed", "1"),
             [b"@0\t0\t" + p[0], b"@1\t0\t" + p[1], b"@2\t0\t" + p[0]]),
        ]
        for args, want in cases:
            head, recs = self.imp(*args, times=True)
            self.assertEqual(recs, want, args)
            self.assertIn(b"# times: '@SECONDS' first, seconds since the source's first request; 0 held at an "
                          b"earlier request's time where the source's went back", head)
        for args in (("arc.lis", "-f", "lis"), ("ids.txt", "-f", "txt"),
                     ("libcachesim.csv", "-f", "csv", "-t", "obj-id-col=2")):
            head, recs = self.imp(*args, times=True)
            self.assertFalse([r for r in recs if r.startswith(b"@")], args)
            self.assertFalse([h for h in head if h.startswith(b"# times")], args)
        # a time that goes back is held at the latest one, and counted
        back = os.path.join(self.tmp, "back.csv")
        with open(back, "w") as f:
            f.write("5,1\n7,2\n6,1\n9,3\n")
        head, recs = self.imp(back, "-f", "csv", "-t", "time-col=1,obj-id-col=2", times=True)
        self.assertEqual([r.split(b"\t")[0] for r in recs], [b"@0", b"@2", b"@2", b"@4"])
        self.assertIn(b"1 held at an earlier request's time", b"\n".join(head))
        # a time a destor trace cannot hold (2^64 ns after the first): an
        # error, exit 1 (it was an assertion's traceback)
        with open(back, "w") as f:
            f.write("0,1\n18446744074,2\n")
        p = self.imp(back, "-f", "csv", "-t", "time-col=1,obj-id-col=2", check=False, times=True)
        self.assertEqual((p.returncode, p.stderr.count(b"\n")), (1, 1), p.stderr)
        self.assertIn(b"import-trace: a request 18446744074 s after the first one: past what a destor trace's time "
                      b"holds", p.stderr)
        self.assertEqual(len(self.imp(back, "-f", "csv", "-t", "time-col=1,obj-id-col=2")[1]), 2)  # --times drop
        with open(back, "w") as f:
            f.write("5,1\nsoon,2\n")
        p = self.imp(back, "-f", "csv", "-t", "time-col=1,obj-id-col=2", check=False, times=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"csv trace, record 2: time 'soon' is not a number of seconds", p.stderr)

    def test_compressed(self):
        """A trace compressed with gzip, xz or bzip2 (as the public traces
        ship) is read through its codec: the same records as the plain
        file. A damaged one, and bytes that are not text in a text format,
        are errors (exit 1), never a shorter trace."""
        import bz2, gzip, lzma
        plain = self.imp("ids.txt", "-f", "txt")
        with open(os.path.join(FIX, "ids.txt"), "rb") as f:
            raw = f.read()
        for suffix, pack in ((".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress)):
            path = os.path.join(self.tmp, "ids.txt" + suffix)
            with open(path, "wb") as f:
                f.write(pack(raw))
            self.assertEqual(self.imp(path, "-f", "txt")[1], plain[1], suffix)
        with open(os.path.join(FIX, "oracle.bin"), "rb") as f:
            oracle = f.read()
        path = os.path.join(self.tmp, "oracle.bin.gz")
        with open(path, "wb") as f:
            f.write(gzip.compress(oracle))
        self.assertEqual(self.imp(path, "-f", "oracle-general", "--seed", "1")[1],
                         self.imp("oracle.bin", "-f", "oracle-general", "--seed", "1")[1])
        damaged = os.path.join(self.tmp, "damaged.gz")
        with open(damaged, "wb") as f:
            f.write(gzip.compress(raw * 50)[:-12])
        p = self.imp(damaged, "-f", "txt", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"cannot decompress", p.stderr)
        binary = os.path.join(self.tmp, "binary.bin")
        with open(binary, "wb") as f:
            f.write(b"\x01\xb5\x2f\xfd" + bytes(range(256)))
        p = self.imp(binary, "-f", "txt", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"is not a txt trace: byte 1 is not UTF-8 text", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out.trace")))

    def test_compressed_damaged(self):
        """An xz or bzip2 file of several streams whose later stream is
        damaged, or with bytes after its last stream, is an error: it was
        read as its first stream alone (4 of 8 requests, exit 0). xz's NUL
        stream padding (a multiple of 4 bytes) is no damage. A zstd or lz4
        file (libCacheSim ships oracleGeneral traces as .zst) is refused by
        name: one whose size was a multiple of 24 bytes was read as
        oracleGeneral records (exit 0)."""
        import bz2, lzma
        with open(os.path.join(FIX, "ids.txt"), "rb") as f:
            raw = f.read()
        plain = self.imp("ids.txt", "-f", "txt")[1]

        def write(name, data):
            path = os.path.join(self.tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            return path
        for suffix, pack in ((".xz", lzma.compress), (".bz2", bz2.compress)):
            one = pack(raw)
            self.assertEqual(self.imp(write("two" + suffix, one + one), "-f", "txt")[1], plain + plain, suffix)
            broken = bytes([one[0] ^ 0xFF]) + one[1:]
            for name, data in (("broken", one + broken), ("junk", one + b"junk\n")):
                p = self.imp(write(name + suffix, data), "-f", "txt", check=False)
                self.assertEqual(p.returncode, 1, name + suffix)
                self.assertIn(b"cannot decompress", p.stderr, name + suffix)
        one = lzma.compress(raw)
        self.assertEqual(self.imp(write("padded.xz", one + bytes(4) + one + bytes(8)), "-f", "txt")[1],
                         plain + plain)
        p = self.imp(write("padded3.xz", one + bytes(3)), "-f", "txt", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"cannot decompress", p.stderr)
        for magic, codec in ((b"\x28\xb5\x2f\xfd", b"zstd"), (b"\x04\x22\x4d\x18", b"lz4")):
            path = write("oracle." + codec.decode(), magic + bytes(24 * 10 - 4))
            for fmt in ("oracle-general", "txt"):
                p = self.imp(path, "-f", fmt, check=False)
                self.assertEqual(p.returncode, 1, (codec, fmt))
                self.assertIn(b"is " + codec + b"-compressed: decompress it first", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out.trace")))

    def test_out_of_memory(self):
        """A trace that does not fit in memory (here 256 MiB of gzip members
        of 16 MiB under a 192 MiB address-space limit) is a one-line error,
        exit 1, not a Python traceback."""
        import gzip, resource
        member = gzip.compress(b"x\n" * (8 << 20), 1)
        path = os.path.join(self.tmp, "huge.gz")
        with open(path, "wb") as f:
            f.write(member * 16)
        if os.path.exists(os.path.join(self.tmp, "out.trace")):
            os.unlink(os.path.join(self.tmp, "out.trace"))

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (192 << 20, 192 << 20))
        p = subprocess.run([PYTHON, os.path.join(SCRIPTS, "import-trace"), "--destor", self.fake, "-f", "txt",
                            "-o", os.path.join(self.tmp, "out.trace"), path], env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit)
        self.assertEqual((p.returncode, p.stderr), (1, b"import-trace: out of memory\n"))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out.trace")))

    def test_pipe_source(self):
        """A source that is a pipe (import-trace -f txt <(zcat ids.txt.gz))
        is read as the file would be; it was refused as 'not found'. A
        directory is refused by name."""
        with open(os.path.join(FIX, "ids.txt"), "rb") as f:
            raw = f.read()
        r, w = os.pipe()
        os.write(w, raw)  # the fixture fits in the pipe's buffer
        os.close(w)
        out = os.path.join(self.tmp, "out.trace")
        try:
            run([os.path.join(SCRIPTS, "import-trace"), "--destor", self.fake, "-o", out, "-f", "txt",
                 "--times", "drop", "/dev/fd/%d" % r], env=self.env, pass_fds=(r,))
        finally:
            os.close(r)
        with open(out, "rb") as f:
            recs = [l for l in f.read().split(b"\n") if l and not l.startswith(b"#")]
        self.assertEqual(recs, self.imp("ids.txt", "-f", "txt")[1])
        p = self.imp(self.tmp, "-f", "txt", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"is a directory", p.stderr)

    def test_planted_tmp_link(self):
        """import-trace does not write through a symlink planted at OUT.tmp."""
        recs = planted_tmp_link(self, os.path.join(self.tmp, "out.trace"), lambda: self.imp("ids.txt", "-f", "txt")[1])
        self.assertTrue(recs)

    def test_usage_errors(self):
        for args in (["-f", "txt", "--map", "volume"], ["-f", "csv"],
                     ["-f", "csv", "-t", "time-col=1"], ["-f", "csv", "-t", "obj-id-col=0"],
                     ["-f", "csv", "-t", "obj-id-col=2,colour=red"], ["-f", "msr", "-t", "obj-id-col=1"]):
            p = self.imp("ids.txt", *args, check=False)
            self.assertEqual(p.returncode, 2, args)
        p = self.imp("fiu.txt", "-f", "msr", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"msr trace, record 1", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out.trace")))

    def replay_import(self, name, contents, fmt, fixture):
        """Back up files `contents` ({name: bytes}) into a new store, import
        `fixture` over them and replay it in destor; its JSON summary."""
        work = os.path.join(self.tmp, name + "-store")
        data = os.path.join(self.tmp, name + "-data")
        os.makedirs(data)
        for fname, body in contents.items():
            with open(os.path.join(data, fname), "wb") as f:
                f.write(body)
        cfg = ["-p", "working-directory %s" % work]
        subprocess.run([DESTOR] + cfg + ["backup", data], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        out = os.path.join(self.tmp, name + ".trace")
        run([os.path.join(SCRIPTS, "import-trace"), "--destor", DESTOR] + cfg +
            ["-f", fmt, "-o", out, os.path.join(FIX, fixture)])
        p = subprocess.run([DESTOR] + cfg + ["read-file", "--trace", out, "--simulate", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr)
        # a DWPD write budget runs on a source's times, and only there
        p2 = subprocess.run([DESTOR] + cfg + ["-p", "ssd-cache-policy lru", "-p", "ssd-cache-write-budget-dwpd 1",
                                              "read-file", "--trace", out, "--simulate", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p2.returncode, 0 if fmt in ("msr", "fiu", "spc", "oracle-general") else 2, p2.stderr)
        return json.loads(p.stdout)

    @unittest.skipUnless(have_destor(), "destor not built")
    def test_destor_replays_volume_import(self):
        """Range records of --map volume are read by destor: the bytes it
        reads are the records' lengths."""
        summary = self.replay_import("volume", {p.decode(): os.urandom(s) for p, s in FILES if s},
                                     "msr", "msr.csv")
        self.assertEqual(summary["requests"], 5)
        self.assertEqual(summary["bytes"], 1510)  # the records' lengths, as the header says

    @unittest.skipUnless(have_destor(), "destor not built")
    def test_destor_replays_object_import(self):
        summary = self.replay_import("object", {"f%d" % i: bytes([i]) * (3000 + i) for i in range(5)},
                                     "txt", "ids.txt")
        self.assertEqual(summary["requests"], 5)

if __name__ == "__main__":
    unittest.main()
