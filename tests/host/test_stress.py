"""make stress's settings and report, and make check-fixes' verdicts (tests/harness/dlcheck)."""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
DLCHECK = os.path.join(TOP, "tests", "harness", "dlcheck")


def load_dlcheck():
    # A script without .py: load it as the module it also is, leaving no
    # bytecode next to it.
    loader = importlib.machinery.SourceFileLoader("dlcheck", DLCHECK)
    spec = importlib.util.spec_from_loader("dlcheck", loader)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


dlcheck = load_dlcheck()


class StressSettings(unittest.TestCase):
    def test_defaults(self):
        s = dlcheck.stress_settings({})
        self.assertEqual(s["TESTS"], "29-*")
        self.assertEqual(s["boot_args"], "dlsched.stress_seconds=600 dlsched.timeout=900")
        self.assertEqual(s["GUEST_TIMEOUT"], "1800")

    def test_seconds(self):
        s = dlcheck.stress_settings({"STRESS_SECONDS": "60"})
        self.assertEqual(s["boot_args"], "dlsched.stress_seconds=60 dlsched.timeout=360")
        self.assertEqual(s["GUEST_TIMEOUT"], "1260")

    def test_empty_seconds_is_the_default(self):
        # make passes STRESS_SECONDS='' when it is not set
        self.assertIn("dlsched.stress_seconds=600 ", dlcheck.stress_settings({"STRESS_SECONDS": ""})["boot_args"])

    def test_overrides(self):
        s = dlcheck.stress_settings({"STRESS_SECONDS": "30", "TESTS": "2*", "GUEST_TIMEOUT": "99"})
        self.assertEqual((s["TESTS"], s["GUEST_TIMEOUT"]), ("2*", "99"))

    def test_stress_args(self):
        s = dlcheck.stress_settings({"STRESS_SECONDS": "60", "STRESS_ARGS": "--no-hotplug,--jobs,2"})
        self.assertEqual(s["boot_args"], "dlsched.stress_seconds=60 dlsched.timeout=360 "
                         "dlsched.stress_args=--no-hotplug,--jobs,2")
        self.assertNotIn("stress_args", dlcheck.stress_settings({"STRESS_ARGS": ""})["boot_args"])

    def test_bad_stress_args(self):
        for bad in ("--no-hotplug --jobs 2", "a;b", "--x,", ",--x", "--jobs=2", "$(id)"):
            with self.subTest(STRESS_ARGS=bad):
                with self.assertRaises(ValueError) as cm:
                    dlcheck.stress_settings({"STRESS_ARGS": bad})
                self.assertIn("STRESS_ARGS takes dlstress options joined with commas", str(cm.exception))

    def test_bad_seconds(self):
        for bad in ("abc", "0", "-5", "1.5", " 60", "60s", "010"):
            with self.subTest(STRESS_SECONDS=bad):
                with self.assertRaises(ValueError) as cm:
                    dlcheck.stress_settings({"STRESS_SECONDS": bad})
                self.assertEqual(str(cm.exception), f"STRESS_SECONDS must be a number of seconds, not '{bad}'")

    def test_bad_seconds_fail_before_any_boot(self):
        env = dict(os.environ, STRESS_SECONDS="ten", BUILD=os.path.join(HERE, "no-such-build"))
        p = subprocess.run([DLCHECK, "stress"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("FAIL stress: settings: STRESS_SECONDS must be a number of seconds, not 'ten'", p.stdout)
        self.assertIn("0 passed, 1 failed", p.stdout)
        self.assertNotIn("=== guest", p.stdout)


RESULTS = """DLSCHED-RESULTS 1
# kernel 6.1.0-dlsched-debug
# cgroup v2
# test 19-dl-lockdep.sh
TAP version 13
1..0 # SKIP no lockdep
# exit 4 0
# test 29-dl-stress.sh
TAP version 13
1..8
# dlstress: 60 s, seed 1, cgroup v2
# check run: ok
ok 1 - dlstress ran 60 s and exited 0
not ok 2 - pool: sched_dl_total_bw back to its starting value
# FAIL sched_dl_total_bw 5, 0 at start (+5)
# sched_dl_total_bw after 29-dl-stress.sh: 0
# exit 1 75
# test 40-dl-cbs-isolation
TAP version 13
# exit 0 3
DLSCHED-END
"""


class FixesOutcomes(unittest.TestCase):
    RESULTS = "# test fx-a\n1..1\nok 1\n# exit 0 7\n# test fx-b\n1..1\nok 1\n# exit 0 3\n"

    def test_a_splat_fails_the_test_it_came_in(self):
        # The exit line as the console shows it: after the shell's prompt.
        console = ("[ 26.1] WARNING: bad unlock balance detected!\n"
                   "\x1b[?2004hroot@dlsched:~# dlsched: fx-a: exit 0 (7s)\n"
                   "dlsched: fx-b: exit 0 (3s)\n")
        self.assertEqual(dlcheck.test_outcomes(self.RESULTS, console), {"fx-a": "fail", "fx-b": "pass"})

    def test_a_clean_console_leaves_the_results(self):
        console = "dlsched: fx-a: exit 0 (7s)\nroot@dlsched:~# dlsched: fx-b: exit 0 (3s)\n"
        self.assertEqual(dlcheck.test_outcomes(self.RESULTS, console), {"fx-a": "pass", "fx-b": "pass"})

    def test_a_guest_that_stopped_in_a_test_fails_it(self):
        # A panic: the results end inside fx-b, with no exit line.
        results = "# test fx-a\n1..1\nok 1\n# exit 0 7\n# test fx-b\n1..1\nok 1 - the scene is set\n"
        console = "dlsched: fx-a: exit 0 (7s)\n[ 9.6] Oops: divide error: 0000 [#1] PREEMPT SMP\n"
        self.assertEqual(dlcheck.test_outcomes(results, console), {"fx-a": "pass", "fx-b": "fail"})

    def test_an_exit_line_is_not_taken_from_the_next_test(self):
        results = "# test fx-a\n1..1\n# test fx-b\n1..1\nok 1\n# exit 0 3\n"
        self.assertEqual(dlcheck.test_outcomes(results, ""), {"fx-a": "fail", "fx-b": "pass"})


class TestOutput(unittest.TestCase):
    def test_the_stress_document_only(self):
        self.assertEqual(dlcheck.test_output(RESULTS, "29-"), [
            "dlstress: 60 s, seed 1, cgroup v2",
            "check run: ok",
            "ok 1 - dlstress ran 60 s and exited 0",
            "not ok 2 - pool: sched_dl_total_bw back to its starting value",
            "FAIL sched_dl_total_bw 5, 0 at start (+5)",
        ])

    def test_no_such_test(self):
        self.assertEqual(dlcheck.test_output(RESULTS, "99-"), [])


class GuestRunner(unittest.TestCase):
    """vm/guest/dlsched-run-tests hands dlsched.stress_seconds to the tests."""

    def test_stress_seconds_from_the_command_line(self):
        with open(os.path.join(TOP, "vm", "guest", "dlsched-run-tests")) as f:
            runner = f.read()
        # Its command-line parser and the export, run against a given command line.
        start = runner.index("cmdline_value() {")
        parser = runner[start:runner.index("\n}\n", start) + 3].replace("/proc/cmdline", '"$CMDLINE"')
        export = next(line for line in runner.splitlines() if "DLSCHED_STRESS_SECONDS" in line
                      and "export" in line)
        script = f'{parser}\n{export}\necho "${{DLSCHED_STRESS_SECONDS-unset}}"\n'
        for cmdline, want in (("root=/dev/vda dlsched.stress_seconds=600 quiet", "600"),
                              ("root=/dev/vda dlsched.mode=check", "unset")):
            with self.subTest(cmdline=cmdline), tempfile.NamedTemporaryFile("w") as f:
                f.write(cmdline + "\n")
                f.flush()
                env = {k: v for k, v in os.environ.items() if k != "DLSCHED_STRESS_SECONDS"}
                env["CMDLINE"] = f.name
                p = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                                   timeout=30)
                self.assertEqual(p.stdout.strip(), want, p.stderr)


if __name__ == "__main__":
    unittest.main()


class Tiers(unittest.TestCase):
    def tier(self, value):
        saved = os.environ.pop("TIER", None)
        try:
            if value is not None:
                os.environ["TIER"] = value
            return dlcheck.tier()
        finally:
            os.environ.pop("TIER", None)
            if saved is not None:
                os.environ["TIER"] = saved

    def test_default_is_the_gate(self):
        self.assertEqual(self.tier(None), "gate")
        self.assertEqual(self.tier(""), "gate")

    def test_full(self):
        self.assertEqual(self.tier("full"), "full")

    def test_unknown_tier_is_an_error(self):
        for bad in ("Full", "nightly", "gate "):
            with self.assertRaises(ValueError):
                self.tier(bad)

    def test_full_runs_every_test_the_gate_runs(self):
        gate, full = dlcheck.DEFAULT_GUEST_TESTS["gate"], dlcheck.DEFAULT_GUEST_TESTS["full"]
        self.assertEqual(gate["v2"], full["v2"])
        self.assertEqual(full["v1"], full["v2"])
