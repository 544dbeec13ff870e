"""Unit tests of the apt mirror lookup (vm/aptmirror.py)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "vm"))
import aptmirror  # noqa: E402


class FindMirror(unittest.TestCase):
    def root(self, files):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        for path, text in files.items():
            full = os.path.join(d.name, "etc/apt", path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return d.name

    def test_one_line_format(self):
        root = self.root({"sources.list": "# comment\ndeb-src http://src.example/debian bookworm main\n"
                                          "deb [arch=amd64 signed-by=/k.gpg] http://m.example/debian/ bookworm main contrib\n"})
        self.assertEqual(aptmirror.find_mirror(root), "http://m.example/debian")

    def test_deb822_format(self):
        root = self.root({"sources.list.d/debian.sources":
                          "Types: deb\n# a note\nURIs: http://deb.example/debian\nSuites: bookworm bookworm-updates\n"
                          "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
                          "Types: deb\nURIs: http://sec.example/debian-security\nSuites: bookworm-security\nComponents: main\n"})
        self.assertEqual(aptmirror.find_mirror(root), "http://deb.example/debian")

    def test_skips_other_suites_and_third_party(self):
        root = self.root({"sources.list.d/a.list": "deb https://packages.example/apt cloud-sdk-bookworm main\n",
                          "sources.list.d/b.sources": "Types: deb\nURIs: https://node.example/node_20.x\nSuites: nodistro\nComponents: main\n",
                          "sources.list.d/c.sources": "Types: deb\nURIs: http://right.example/debian\nSuites: bookworm\nComponents: main\n"})
        self.assertEqual(aptmirror.find_mirror(root), "http://right.example/debian")

    def test_disabled_stanza_and_security_suite(self):
        root = self.root({"sources.list.d/x.sources":
                          "Enabled: no\nTypes: deb\nURIs: http://off.example/debian\nSuites: bookworm\nComponents: main\n\n"
                          "Types: deb\nURIs: http://sec.example/debian-security\nSuites: bookworm-security\nComponents: main\n"})
        self.assertIsNone(aptmirror.find_mirror(root))

    def test_requires_main(self):
        root = self.root({"sources.list": "deb http://m.example/debian bookworm non-free\n"})
        self.assertIsNone(aptmirror.find_mirror(root))

    def test_other_suite(self):
        root = self.root({"sources.list": "deb http://m.example/debian trixie main\n"})
        self.assertEqual(aptmirror.find_mirror(root, "trixie"), "http://m.example/debian")
        self.assertIsNone(aptmirror.find_mirror(root, "bookworm"))

    def test_cdrom_is_skipped(self):
        root = self.root({"sources.list": "deb cdrom:[Debian 12]/ bookworm main\ndeb http://m.example/debian bookworm main\n"})
        self.assertEqual(aptmirror.find_mirror(root), "http://m.example/debian")


if __name__ == "__main__":
    unittest.main()
