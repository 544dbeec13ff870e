"""vm/boot.sh refuses bad settings with one clear line, before it starts QEMU."""
import os
import subprocess
import tempfile
import unittest

BOOT = os.path.join(os.path.dirname(__file__), "..", "..", "vm", "boot.sh")


class BootEnv(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.build = d.name
        # Stand-ins: boot.sh only checks that they exist before its settings.
        for name in ("bzImage-normal", "guest.img"):
            open(os.path.join(self.build, name), "w").close()

    def boot(self, args, **env):
        full = dict(os.environ, BUILD=self.build, DLSCHED_CACHE=os.path.join(self.build, "cache"))
        for key in ("VCPUS", "GUEST_MEM", "GUEST_TIMEOUT", "QEMU_ACCEL", "KERNEL_IMAGE"):
            full.pop(key, None)
        full.update(env)
        return subprocess.run(["bash", BOOT, *args], env=full, capture_output=True, text=True, timeout=60)

    def refused(self, want, args=("check", "log", "results"), **env):
        p = self.boot(args, **env)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(want, p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.build, "cache")), "a refused boot took the lock")

    def test_vcpus(self):
        for bad in ("abc", "0", "-1", "2x", " "):
            with self.subTest(VCPUS=bad):
                self.refused(f"VCPUS must be a number or \"host\", not '{bad}'", VCPUS=bad)

    def test_guest_mem(self):
        for bad in ("abc", "0", "100", "-2048", "1.5G"):
            with self.subTest(GUEST_MEM=bad):
                self.refused(f"GUEST_MEM must be a number of MiB, 512 or more, not '{bad}'", GUEST_MEM=bad)

    def test_guest_timeout(self):
        for bad in ("abc", "0", "-5", "10s"):
            with self.subTest(GUEST_TIMEOUT=bad):
                self.refused(f"GUEST_TIMEOUT must be a number of seconds, not '{bad}'", GUEST_TIMEOUT=bad)

    def test_accel(self):
        self.refused("QEMU_ACCEL must be tcg or kvm", QEMU_ACCEL="xen")

    def test_mode(self):
        self.refused("usage: boot.sh run | boot.sh check LOG RESULTS", args=("boot",))

    def test_missing_kernel(self):
        os.unlink(os.path.join(self.build, "bzImage-normal"))
        self.refused("bzImage-normal missing (make kernel)")

    def test_missing_kernel_image(self):
        missing = os.path.join(self.build, "bzImage-stock")
        self.refused(f"{missing} missing (make kernel)", KERNEL_IMAGE=missing)


if __name__ == "__main__":
    unittest.main()
