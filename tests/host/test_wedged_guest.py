"""tests/harness/guestwatch.py: the per-test limit taken from the boot
arguments, how long a results port has been silent, and the QEMU monitor
replies kept for a wedged guest."""
import os
import socket
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import guestwatch  # noqa: E402


class PerTestTimeout(unittest.TestCase):
    def test_default(self):
        self.assertEqual(guestwatch.per_test_timeout(""), guestwatch.GUEST_TEST_TIMEOUT)
        self.assertEqual(guestwatch.per_test_timeout(None), guestwatch.GUEST_TEST_TIMEOUT)

    def test_from_boot_args(self):
        self.assertEqual(guestwatch.per_test_timeout("cgroup_no_v1=all dlsched.timeout=900 x=1"), 900)
        self.assertEqual(guestwatch.per_test_timeout("dlsched.timeout=60"), 60)

    def test_not_fooled(self):
        # Another option ending in the same name, or no number.
        self.assertEqual(guestwatch.per_test_timeout("xdlsched.timeout=5"), guestwatch.GUEST_TEST_TIMEOUT)
        self.assertEqual(guestwatch.per_test_timeout("dlsched.timeout=abc"), guestwatch.GUEST_TEST_TIMEOUT)
        self.assertEqual(guestwatch.per_test_timeout("dlsched.timeout=60x"), guestwatch.GUEST_TEST_TIMEOUT)


class SilentFor(unittest.TestCase):
    def test_results(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r")
            self.assertIsNone(guestwatch.silent_for(path))
            open(path, "w").close()
            self.assertIsNone(guestwatch.silent_for(path))
            with open(path, "w") as f:
                f.write("DLSCHED-RESULTS\n")
            os.utime(path, (0, os.path.getmtime(path) - 100))
            self.assertGreaterEqual(guestwatch.silent_for(path), 100)


class Monitor(unittest.TestCase):
    def serve(self, reply):
        """A one-shot fake monitor answering @reply; returns (path, got)."""
        d = tempfile.mkdtemp()
        path = os.path.join(d, "m.sock")
        srv = socket.socket(socket.AF_UNIX)
        srv.bind(path)
        srv.listen(1)
        got = []

        def run():
            conn, _ = srv.accept()
            with conn:
                got.append(conn.recv(1024))
                conn.sendall(reply)
            srv.close()

        threading.Thread(target=run, daemon=True).start()
        self.addCleanup(lambda: (os.path.exists(path) and os.unlink(path), os.rmdir(d)))
        return path, got

    def test_reply_without_echo_and_escapes(self):
        path, got = self.serve(b"QEMU 7.2 monitor\r\n(qemu) i\x1b[K\x1b[Din\x1b[K\r\nCPU#0\r\nRIP=ffff\r\n")
        out = guestwatch.monitor_command(path, "info registers -a", wait=0.5)
        self.assertEqual(got, [b"info registers -a\n"])
        self.assertIn("CPU#0", out)
        self.assertIn("RIP=ffff", out)
        self.assertNotIn("\x1b", out)
        self.assertNotIn("(qemu)", out)

    def test_no_monitor(self):
        out = guestwatch.monitor_command("/nonexistent/m.sock", "info cpus", wait=0.2)
        self.assertTrue(out.startswith("(monitor: "), out)


if __name__ == "__main__":
    unittest.main()
