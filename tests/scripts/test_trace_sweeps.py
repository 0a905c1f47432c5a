# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of sweeps: seeds, parallel points, resuming, Dask (parallel_sweep.py,
scripts/replay and scripts/experiment).

Why: a sweep is only trustworthy if the seed summary is the textbook mean
and Student-t interval, if running points in parallel or on a Dask cluster
gives the same numbers as running them one by one, and if an interrupted
sweep keeps what it finished instead of starting over.  The Dask test
starts a scheduler and two workers on 127.0.0.1 (bounded waits; all three
are stopped when the test ends).
"""

import csv
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from test_trace_tools import SCRIPTS, DESTOR, PYTHON, have_destor, run

from destor_tools import destor_runner
from destor_tools import parallel_sweep

WALL = set(parallel_sweep.WALL_CLOCK_FIELDS)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


def hold_wrapper(tmp):
    """A destor wrapper whose plc replays wait while TMP/HOLD exists and
    which logs every read-file run to TMP/runs.log as it starts: (wrapper,
    hold, log)."""
    hold = os.path.join(tmp, "HOLD")
    log = os.path.join(tmp, "runs.log")
    wrapper = os.path.join(tmp, "destor-hold")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\n# destor, but a plc replay waits while %s exists\n'
                'for a; do [ "$a" = read-file ] && echo "$*" >> %s; done\n'
                'for a; do [ "$a" = "ssd-cache-policy plc" ] && while [ -e %s ]; do sleep 0.05; done; done\n'
                'exec %s "$@"\n' % (hold, log, hold, DESTOR))
    os.chmod(wrapper, 0o755)
    open(hold, "w").close()
    return wrapper, hold, log


def wait_for(pred, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not pred():
        time.sleep(0.05)


def comparable(rows):
    return [{k: v for k, v in r.items() if k not in WALL} for r in rows]


class SummaryTests(unittest.TestCase):

    def test_parse_seeds(self):
        self.assertEqual(parallel_sweep.parse_seeds("1-5"), [1, 2, 3, 4, 5])
        self.assertEqual(parallel_sweep.parse_seeds("7,1,3-4"), [7, 1, 3, 4])
        for bad in ("", "a", "5-1", "1-x"):
            with self.assertRaises(parallel_sweep.UsageError):
                parallel_sweep.parse_seeds(bad)

    def test_mean_ci_student_t(self):
        # 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.303: half-width 4.303 / sqrt(3)
        m, h = parallel_sweep.mean_ci([1, 2, 3])
        self.assertEqual(m, 2.0)
        self.assertAlmostEqual(h, 4.303 / 3 ** 0.5, places=9)
        # 10 values 0..9: s = sqrt(82.5/9), t(0.975, 9) = 2.262
        m, h = parallel_sweep.mean_ci(range(10))
        self.assertAlmostEqual(h, 2.262 * (82.5 / 9) ** 0.5 / 10 ** 0.5, places=9)
        self.assertTrue(parallel_sweep.mean_ci([4])[1] != parallel_sweep.mean_ci([4])[1])  # nan for one value

    def test_aggregate(self):
        rows = [{"policy": "lru", "seed": 1, "hits": 10, "mode": "simulate"},
                {"policy": "plc", "seed": 1, "hits": 4, "mode": "simulate"},
                {"policy": "lru", "seed": 2, "hits": 14, "mode": "simulate"},
                {"policy": "plc", "seed": 2, "hits": 4, "mode": "simulate"}]
        agg = parallel_sweep.aggregate(rows, ["policy"])
        self.assertEqual([(r["policy"], r["seed"]) for r in agg],
                         [("lru", "mean"), ("lru", "ci95"), ("plc", "mean"), ("plc", "ci95")])
        self.assertEqual(agg[0]["hits"], 12.0)
        self.assertAlmostEqual(agg[1]["hits"], 12.706 * 8 ** 0.5 / 2 ** 0.5)
        self.assertEqual(agg[3]["hits"], 0.0)
        self.assertEqual(agg[0]["mode"], "simulate")


@unittest.skipUnless(have_destor(), "destor not built")
class SweepTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trace-sweeps-")
        cls.data = os.path.join(cls.tmp, "data")
        run([os.path.join(SCRIPTS, "gen-dataset"), "--out", cls.data, "--preset", "tiny"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def experiment(self, out, *extra, destor=DESTOR, check=True):
        return run([os.path.join(SCRIPTS, "experiment"), "cache-size", "--quick", "--dataset", self.data,
                    "--destor", destor, "--out", os.path.join(self.tmp, out)] + list(extra), check=check)

    def test_seeds_mean_and_interval(self):
        self.experiment("seeds", "--seeds", "1-2", "--jobs", "2")
        rows = read_csv(os.path.join(self.tmp, "seeds", "cache-size.csv"))
        self.assertEqual(len(rows), 3 * 2 * 2 + 3 * 2 * 2)  # 3 sizes x 2 policies x (2 seeds + mean + ci95)
        for x in ("10", "20", "40"):
            for pol in ("lru", "plc"):
                g = {r["seed"]: r for r in rows if r["x"] == x and r["policy"] == pol}
                a, b = float(g["1"]["ssd_bytes_written"]), float(g["2"]["ssd_bytes_written"])
                self.assertAlmostEqual(float(g["mean"]["ssd_bytes_written"]), (a + b) / 2, places=3)
                self.assertAlmostEqual(float(g["ci95"]["ssd_bytes_written"]),
                                       12.706 * abs(a - b) / 2 ** 0.5 / 2 ** 0.5, delta=1e-6 * (a + b) + 1e-3)
                self.assertEqual(g["mean"]["seeds"], "2")
        # the seeds used different traces
        self.assertNotEqual(rows[0]["trace"], rows[1]["trace"])
        with open(os.path.join(self.tmp, "seeds", "REPORT.md")) as f:
            self.assertIn("mean over the 2 seeds", f.read())
        # a second local run with another --jobs gives the same numbers
        self.experiment("seeds-serial", "--seeds", "1-2", "--jobs", "1")
        again = read_csv(os.path.join(self.tmp, "seeds-serial", "cache-size.csv"))
        self.assertEqual(comparable(again), comparable(rows))

    def test_interrupted_experiment_resumes(self):
        wrapper, hold, log = hold_wrapper(self.tmp)
        out = os.path.join(self.tmp, "resume")
        journal = os.path.join(out, "cache-size.points.jsonl")
        p = subprocess.Popen([PYTHON, os.path.join(SCRIPTS, "experiment"), "cache-size", "--quick",
                              "--dataset", self.data, "--destor", wrapper, "--out", out, "--jobs", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_for(lambda: os.path.exists(journal) and len(read_lines(journal)) >= 2)
            time.sleep(0.3)  # the plc run is waiting now
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 130, err)
        kept = len(read_lines(journal)) - 1
        self.assertEqual(kept, 1)  # lru at 10% finished; plc at 10% was stopped
        os.unlink(hold)
        os.unlink(log)
        q = self.experiment("resume", "--jobs", "1", destor=wrapper)
        self.assertIn("resuming: 1 of 6 points already done", q.stderr.decode())
        with open(log) as f:
            runs = f.read().splitlines()
            self.assertEqual(len(runs), 5, runs)  # only the points missing
        self.assertFalse(os.path.exists(journal))
        rows = read_csv(os.path.join(out, "cache-size.csv"))
        self.experiment("fresh")
        self.assertEqual(comparable(rows), comparable(read_csv(os.path.join(self.tmp, "fresh", "cache-size.csv"))))

    def test_dask_cluster_matches_local(self):
        try:
            import distributed  # noqa: F401
        except ImportError:
            self.skipTest("python3-distributed not installed")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        addr = "tcp://127.0.0.1:%d" % port
        procs = []

        def stop():
            for pr in procs:
                if pr.poll() is None:
                    pr.terminate()
            for pr in procs:
                try:
                    pr.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    pr.kill()
                    pr.wait()
        self.addCleanup(stop)
        logs = os.path.join(self.tmp, "dask")
        os.makedirs(logs)
        common = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=logs)
        procs.append(subprocess.Popen(["/usr/bin/python3", "-m", "distributed.cli.dask_scheduler", "--host",
                                       "127.0.0.1", "--port", str(port), "--no-dashboard"], **common))
        for i in range(2):
            procs.append(subprocess.Popen(["/usr/bin/python3", "-m", "distributed.cli.dask_worker", addr,
                                           "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                                           "--local-directory", os.path.join(logs, "w%d" % i)], **common))
        from distributed import Client
        deadline = time.monotonic() + 90
        while True:
            try:
                with Client(addr, timeout="5s") as c:
                    c.wait_for_workers(2, timeout=max(1, deadline - time.monotonic()))
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        self.experiment("dask", "--seeds", "1-2", "--scheduler", addr)
        self.experiment("local", "--seeds", "1-2", "--jobs", "1")
        d = read_csv(os.path.join(self.tmp, "dask", "cache-size.csv"))
        loc = read_csv(os.path.join(self.tmp, "local", "cache-size.csv"))
        self.assertEqual(len(d), 24)
        self.assertEqual(comparable(d), comparable(loc))


@unittest.skipUnless(have_destor(), "destor not built")
class ReplaySweepTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="replay-sweeps-")
        data = os.path.join(cls.tmp, "data")
        os.makedirs(data)
        for i in range(40):
            with open(os.path.join(data, "f%02d" % i), "wb") as f:
                f.write(os.urandom(20000 + 1000 * i))
        cls.config = os.path.join(cls.tmp, "destor.config")
        with open(cls.config, "w") as f:
            f.write('working-directory "%s"\ncontainer-size 128K\n' % os.path.join(cls.tmp, "w"))
        subprocess.run([DESTOR, "-c", cls.config, "backup", data], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for s in (1, 2, 3):
            run([os.path.join(SCRIPTS, "gen-trace"), "--destor", DESTOR, "-c", cls.config, "--requests", "200",
                 "--seed", str(s), "-q", "-o", os.path.join(cls.tmp, "t%d.trace" % s)])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def replay(self, *args, check=True):
        return run([os.path.join(SCRIPTS, "replay"), "--destor", DESTOR, "-c", self.config, "-q"] + list(args),
                   check=check)

    def test_replay_seeds(self):
        out = os.path.join(self.tmp, "r")
        self.replay(os.path.join(self.tmp, "t{seed}.trace"), "--seeds", "1-3", "--policies", "lru,plc",
                    "--out-prefix", out)
        rows = read_csv(out + ".csv")
        self.assertEqual([(r["seed"], r["policy"]) for r in rows],
                         [("1", "lru"), ("1", "plc"), ("2", "lru"), ("2", "plc"), ("3", "lru"), ("3", "plc"),
                          ("mean", "lru"), ("ci95", "lru"), ("mean", "plc"), ("ci95", "plc")])
        hits = [float(r["hit_ratio"]) for r in rows if r["policy"] == "lru" and r["seed"] in "123"]
        m, h = parallel_sweep.mean_ci(hits)
        self.assertAlmostEqual(float(rows[6]["hit_ratio"]), m, places=6)
        self.assertAlmostEqual(float(rows[7]["hit_ratio"]), h, places=6)
        with open(out + ".md") as f:
            self.assertIn("| ci95 |", f.read())

    def ctrl_c(self, name):
        """Start a replay of lru then plc, press Ctrl-C (SIGINT) while plc
        runs: lru's row is kept, exit 130.  The replay gets SIGINT's default
        disposition and its own session whatever this test inherited (a
        shell's `cmd &` without job control, nohup-like wrappers or a CI
        runner start it ignored, and Python then never raises
        KeyboardInterrupt), and stdin is closed, as under CI; on failure
        the whole session is killed, so no wrapper or destor outlives it."""
        wrapper, hold, log = hold_wrapper(self.tmp)
        if os.path.exists(log):
            os.unlink(log)
        out = os.path.join(self.tmp, name)
        p = subprocess.Popen([PYTHON, os.path.join(SCRIPTS, "replay"), "--destor", wrapper, "-c", self.config,
                              "-q", os.path.join(self.tmp, "t1.trace"), "--policies", "lru,plc", "--jobs", "1",
                              "--out-prefix", out], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            wait_for(lambda: os.path.exists(log) and len(read_lines(log)) >= 2)  # plc started, waits
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
            os.unlink(hold)
        self.assertEqual(p.returncode, 130, err)
        self.assertEqual([r["policy"] for r in read_csv(out + ".csv")], ["lru"])
        with open(out + ".md") as f:
            self.assertIn("Interrupted", f.read())

    def test_ctrl_c_keeps_finished_rows(self):
        self.ctrl_c("int")

    def test_ctrl_c_when_started_with_sigint_ignored(self):
        # what issue 28 item 9 met: the suite run from a shell that ignored
        # SIGINT for it, which the replay inherited
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.ctrl_c("int-ignored")
        finally:
            signal.signal(signal.SIGINT, old)

    def test_bad_arguments_fail_before_any_run(self):
        t = os.path.join(self.tmp, "t1.trace")
        for args in (["--cache-size", "lots"], ["--cache-size", "0"], ["--cache-size", "150%"],
                     ["--seeds", "1-3"], ["--jobs", "0"], ["--policies", "lru,nope"]):
            t0 = time.monotonic()
            p = self.replay(t, "--out-prefix", os.path.join(self.tmp, "bad"), *args, check=False)
            self.assertEqual(p.returncode, 2, args)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "bad.csv")), args)
        p = self.replay(os.path.join(self.tmp, "t{seed}.trace"), "--seeds", "1-4",
                        "--out-prefix", os.path.join(self.tmp, "bad"), check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("t4.trace not found", p.stderr.decode())

    def test_real_mode_removes_its_cache_dir(self):
        out = os.path.join(self.tmp, "real")
        self.replay(os.path.join(self.tmp, "t1.trace"), "--real", "--policies", "lru", "--out-prefix", out)
        self.assertFalse(os.path.exists(out + ".cache"))
        self.replay(os.path.join(self.tmp, "t1.trace"), "--real", "--policies", "lru", "--out-prefix", out,
                    "--keep-cache")
        self.assertTrue(os.path.isdir(out + ".cache"))

    def test_real_mode_cache_dir_with_a_blank(self):
        # destor takes one value per key: the path goes quoted, whole (issue
        # 28; before, unquoted, destor cut it at the blank)
        base = os.path.join(self.tmp, "my ssd")
        cache = os.path.join(base, "cache")
        os.makedirs(cache)  # the user's: replay keeps it
        out = os.path.join(self.tmp, "blank")
        self.replay(os.path.join(self.tmp, "t1.trace"), "--real", "--policies", "lru", "--cache-dir", cache,
                    "--out-prefix", out)
        self.assertTrue(os.listdir(cache))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "my")))
        self.assertEqual([r["policy"] for r in read_csv(out + ".csv")], ["lru"])


class StopTests(unittest.TestCase):

    def test_no_destor_starts_while_stopping(self):
        # A sweep's worker thread that was between two destor runs when
        # Ctrl-C came must not start another once the stop has been sent,
        # or the interrupted sweep waits for the whole run.
        marker = os.path.join(tempfile.mkdtemp(prefix="stop-tests-"), "started")
        cmd = [sys.executable, "-c", "open(%r, 'w').close()" % marker]
        destor_runner.stop_children()
        try:
            with self.assertRaises(destor_runner.ToolError):
                destor_runner.start_destor(cmd)
        finally:
            destor_runner.resume_children()
        self.assertFalse(os.path.exists(marker))
        p = destor_runner.start_destor(cmd)
        self.assertEqual(p.wait(), 0)
        destor_runner.reap_destor(p)
        self.assertTrue(os.path.exists(marker))
        shutil.rmtree(os.path.dirname(marker))


if __name__ == "__main__":
    unittest.main()
