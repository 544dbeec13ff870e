"""The guest kernel's config fragments and their checker
(kernel/scripts/build.sh check-config): a .config that olddefconfig left
without a requested option fails the build."""
import os
import re
import subprocess
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_SH = os.path.join(TOP, "kernel", "scripts", "build.sh")
CONFIG_DIR = os.path.join(TOP, "kernel", "config")
SET = re.compile(r"^(CONFIG_\w+)=(.*)$")
UNSET = re.compile(r"^# (CONFIG_\w+) is not set$")


def requested(variant):
    """What the fragments of @variant ask for, later fragments winning:
    {symbol: value, or None for "is not set"}."""
    names = ["base.config", "guest.config"] + (["debug.config"] if variant == "debug" else [])
    want = {}
    for name in names:
        with open(os.path.join(CONFIG_DIR, name)) as f:
            for line in f:
                line = line.strip()
                m = SET.match(line)
                if m:
                    want[m.group(1)] = m.group(2)
                m = UNSET.match(line)
                if m:
                    want[m.group(1)] = None
    return want


def as_config(want):
    return "".join(f"{k}={v}\n" if v is not None else f"# {k} is not set\n" for k, v in want.items())


class CheckConfig(unittest.TestCase):
    def check(self, text, variant="normal"):
        with tempfile.NamedTemporaryFile("w", suffix=".config") as f:
            f.write(text)
            f.flush()
            env = dict(os.environ, KERNEL_VARIANT=variant, BUILD=tempfile.gettempdir())
            return subprocess.run(["bash", BUILD_SH, "check-config", f.name], env=env,
                                  capture_output=True, text=True, timeout=60)

    def test_every_request_met_passes(self):
        for variant in ("normal", "debug"):
            with self.subTest(variant=variant):
                r = self.check(as_config(requested(variant)), variant)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_dropped_option_fails_and_is_named(self):
        want = requested("normal")
        del want["CONFIG_DEADLINE_GROUP_SCHED"]
        r = self.check(as_config(want))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("requested 'CONFIG_DEADLINE_GROUP_SCHED=y', got 'unset'", r.stderr)

    def test_a_changed_value_fails(self):
        want = requested("normal")
        want["CONFIG_HZ_1000"] = "n"
        r = self.check(as_config(want).replace("CONFIG_HZ_1000=n\n", "CONFIG_HZ_250=y\n"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("CONFIG_HZ_1000", r.stderr)

    def test_an_option_asked_off_but_on_fails(self):
        want = requested("normal")
        self.assertIsNone(want["CONFIG_RT_GROUP_SCHED"])
        r = self.check(as_config(want) + "CONFIG_RT_GROUP_SCHED=y\n")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("CONFIG_RT_GROUP_SCHED should be unset", r.stderr)

    def test_debug_options_are_checked_only_for_the_debug_variant(self):
        self.assertEqual(self.check(as_config(requested("normal")), "debug").returncode, 1)

    def test_an_empty_config_fails(self):
        self.assertEqual(self.check("").returncode, 1)

    def test_a_missing_file_is_a_usage_error(self):
        r = subprocess.run(["bash", BUILD_SH, "check-config", "/nonexistent"],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("usage", r.stderr)

    def test_every_fragment_option_has_a_reason(self):
        """Each block of options in a fragment follows a comment saying why."""
        for name in ("base.config", "guest.config", "debug.config"):
            with open(os.path.join(CONFIG_DIR, name)) as f:
                blocks = f.read().split("\n\n")
            for block in blocks:
                lines = [x for x in block.strip().splitlines() if x]
                if lines and (SET.match(lines[0]) or UNSET.match(lines[0])):
                    self.fail(f"{name}: block without a reason: {lines[0]}")


if __name__ == "__main__":
    unittest.main()
