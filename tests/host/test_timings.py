"""tests/harness/timings.py: the per-stage record of one run."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))

import timings  # noqa: E402


class AddStage(unittest.TestCase):
    def test_same_run_appends_and_totals(self):
        data = timings.add_stage(None, "r1", "kernel", 12.34, True, "t0")
        data = timings.add_stage(data, "r1", "guest: v2", 80.0, False, "t1")
        self.assertEqual(data["run"], "r1")
        self.assertEqual(data["started"], "t0")
        self.assertEqual([s["stage"] for s in data["stages"]], ["kernel", "guest: v2"])
        self.assertEqual(data["stages"][0], {"stage": "kernel", "seconds": 12.3, "status": "ok"})
        self.assertEqual(data["stages"][1]["status"], "failed")
        self.assertEqual(data["total_seconds"], 92.3)

    def test_another_run_starts_afresh(self):
        data = timings.add_stage(None, "r1", "kernel", 5, True, "t0")
        data = timings.add_stage(data, "r2", "image", 7, True, "t9")
        self.assertEqual(data["run"], "r2")
        self.assertEqual(data["started"], "t9")
        self.assertEqual(len(data["stages"]), 1)
        self.assertEqual(data["total_seconds"], 7)

    def test_table(self):
        data = timings.add_stage(None, "r", "kernel", 1200.4, True, "t")
        data = timings.add_stage(data, "r", "host", 30, False, "t")
        lines = timings.format_table(data)
        self.assertEqual(lines[0].split(), ["stage", "seconds", "status"])
        self.assertEqual(lines[1].split(), ["kernel", "1200", "ok"])
        self.assertEqual(lines[2].split(), ["host", "30", "failed"])
        self.assertEqual(lines[3].split(), ["total", "1230"])
        self.assertEqual(timings.format_table(None), [])

    def test_load_ignores_garbage(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("{not json")
        try:
            self.assertIsNone(timings.load(f.name))
        finally:
            os.unlink(f.name)
        self.assertIsNone(timings.load("/nonexistent/timings.json"))


class Record(unittest.TestCase):
    def test_stages_ending_together_are_all_kept(self):
        import multiprocessing
        import tempfile
        with tempfile.TemporaryDirectory() as build:
            env = {"BUILD": build, "DLSCHED_RUN_ID": "together"}
            old = {k: os.environ.get(k) for k in env}
            os.environ.update(env)
            try:
                procs = [multiprocessing.Process(target=timings.record, args=(f"stage {i}", i, True))
                         for i in range(16)]
                for p in procs:
                    p.start()
                for p in procs:
                    p.join()
                data = timings.load(timings.path())
            finally:
                for k, v in old.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
        self.assertEqual(sorted(s["stage"] for s in data["stages"]), sorted(f"stage {i}" for i in range(16)))
        self.assertEqual(data["total_seconds"], sum(range(16)))


if __name__ == "__main__":
    unittest.main()
