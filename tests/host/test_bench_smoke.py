"""make check's bench smoke verdict (bench/run.py --smoke, smoke_tap())."""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_PY = os.path.join(HERE, "..", "..", "bench", "run.py")


def load_run():
    spec = importlib.util.spec_from_file_location("bench_run", RUN_PY)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


run = load_run()


def results(patched_parts="hot,depth,cap,dld,foot", figure_parts=None, problems=()):
    figure_parts = figure_parts if figure_parts is not None else patched_parts.split(",")
    return {"host": {"problems": [], "policy_scale": [{}] * 4, "dlconf_check": {"exit": 3}},
            "boots": [{"label": "patched-1", "image": "build/bzImage-normal", "parts": patched_parts,
                       "problems": list(problems), "figures": [{"part": p} for p in figure_parts]},
                      {"label": "stock-1", "image": "build/bzImage-normal", "parts": "hot", "standin": True,
                       "problems": [], "figures": [{"part": "hot"}]}]}


class SmokeTap(unittest.TestCase):
    def verdict(self, res, report="| 1 hot path | x | 1.0 | | - |\n", rc=0):
        with tempfile.TemporaryDirectory() as d:
            run.OUT = d
            if report is not None:
                with open(os.path.join(d, "report.md"), "w") as f:
                    f.write(report)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = run.smoke_tap(res, rc)
        return status, out.getvalue()

    def test_complete_run_passes(self):
        status, out = self.verdict(results())
        self.assertEqual(status, 0, out)
        self.assertIn("1..4", out)
        self.assertNotIn("not ok", out)
        self.assertIn("standing in for stock", out)

    def test_part_without_figures_fails(self):
        status, out = self.verdict(results(figure_parts=["hot", "depth", "cap", "foot"]))
        self.assertEqual(status, 1)
        self.assertIn("# no figures of part dld", out)

    def test_guest_problem_fails(self):
        status, out = self.verdict(results(problems=["not ok 4 - dld (30 s)"]))
        self.assertEqual(status, 1)
        self.assertIn("not ok 2 - patched-1", out)

    def test_missing_report_or_figure_fails(self):
        self.assertEqual(self.verdict(results(), report=None)[0], 1)
        self.assertEqual(self.verdict(results(), report="| 4 | RSS | not measured | | MISSED |\n")[0], 1)
        self.assertEqual(self.verdict(results(), rc=1)[0], 1)


if __name__ == "__main__":
    unittest.main()
