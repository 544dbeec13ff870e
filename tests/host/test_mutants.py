"""make check-mutants' reading of guest results (tests/harness/mutants)."""
import importlib.machinery
import importlib.util
import os
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MUTANTS = os.path.join(TOP, "tests", "harness", "mutants")


def load():
    loader = importlib.machinery.SourceFileLoader("mutants", MUTANTS)
    spec = importlib.util.spec_from_loader("mutants", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


mutants = load()

RESULTS = """DLSCHED-RESULTS 1
# cgroup v2
# test 00-kernel.sh
TAP version 13
1..2
ok 1 - release
not ok 2 - the series is in the kernel
# command failed
# exit 1 0
# test 19-dl-lockdep.sh
TAP version 13
1..0 # SKIP no lockdep in this kernel
# exit 4 0
# test 10-dl-sysctl
TAP version 13
1..2
ok 1 - a
ok 2 - b
# sched_dl_total_bw after 10-dl-sysctl: 0
# exit 0 3
# test 46-dl-wait-interval
TAP version 13
1..3
ok 1 - a
# exit 124 240
# test 47-dl-param-ex
TAP version 13
1..3
ok 1 - a
"""


class Outcomes(unittest.TestCase):
    def test_statuses(self):
        out = mutants.test_outcomes(RESULTS)
        self.assertEqual(out["00-kernel"], ("fail", "2 the series is in the kernel"))
        self.assertEqual(out["19-dl-lockdep"], ("skip", "no lockdep in this kernel"))
        self.assertEqual(out["10-dl-sysctl"], ("pass", ""))
        self.assertEqual(out["46-dl-wait-interval"][0], "timeout")
        self.assertEqual(out["47-dl-param-ex"][0], "fail")

    def test_mutant_files(self):
        names = mutants.mutants()
        self.assertGreaterEqual(len(names), 8)
        for name in names:
            desc, path = mutants.mutant_info(name)
            self.assertTrue(desc, f"{name}.patch has no 'Mutant:' line")
            self.assertTrue(path.startswith(("kernel/", "include/", "fs/")), f"{name}.patch: {path}")

    def test_mainline_tests_exist(self):
        guest = os.listdir(os.path.join(TOP, "tests", "guest"))
        for t in mutants.MAINLINE:
            self.assertTrue(any(f.rsplit(".", 1)[0] == t for f in guest), t)


if __name__ == "__main__":
    unittest.main()
