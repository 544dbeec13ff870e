"""The Debian packages (debian/, scripts/mkdeb.sh, docs/packaging.md).

The version and the lintian overrides are checked on every run. The
reproducibility check needs two package builds (about 2 min each): it runs
with DLSCHED_DEB_REPRODUCIBLE=1 (builds twice, at two paths, into a
temporary directory), or compares two finished builds given as
DLSCHED_DEB_BUILDS="DIR_A DIR_B"; otherwise it is skipped. make
deb-check-reproducible does the same check on its own.
"""
import glob
import os
import re
import subprocess
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MKDEB = os.path.join(TOP, "scripts", "mkdeb.sh")


def git(*args):
    # Dates in UTC, as mkdeb.sh gives them.
    return subprocess.run(["git", "-C", TOP, *args], capture_output=True, text=True, check=True,
                          env=dict(os.environ, TZ="UTC")).stdout.strip()


def in_git_checkout():
    try:
        return git("rev-parse", "--is-inside-work-tree") == "true"
    except (OSError, subprocess.CalledProcessError):
        return False


def dld_version():
    with open(os.path.join(TOP, "dld", "types.h")) as f:
        return re.search(r'^#define DLD_VERSION "([^"]+)"$', f.read(), re.M).group(1)


def debs(directory):
    """{name: bytes} of the .debs in DIRECTORY."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.deb"))):
        with open(path, "rb") as f:
            out[os.path.basename(path)] = f.read()
    return out


class Version(unittest.TestCase):
    def test_version_from_the_tree(self):
        if not in_git_checkout():
            self.skipTest("not a git checkout")
        out = subprocess.run([MKDEB, "version"], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        m = re.fullmatch(r"(.+)\+git(\d{8})\.([0-9a-f]{7,})(\.dirty)?", out.stdout.strip())
        self.assertTrue(m, out.stdout)
        self.assertEqual(m.group(1), dld_version())
        self.assertEqual(m.group(2), git("log", "-1", "--date=format-local:%Y%m%d", "--format=%cd"))
        self.assertTrue(git("rev-parse", "HEAD").startswith(m.group(3)))

    def test_tracked_changelog_has_the_programs_version(self):
        # A plain dpkg-buildpackage in the tree takes debian/changelog as it is.
        with open(os.path.join(TOP, "debian", "changelog")) as f:
            first = f.readline()
        self.assertEqual(re.match(r"dlsched \(([^)]+)\)", first).group(1), dld_version())


class LintianOverrides(unittest.TestCase):
    def test_each_override_has_a_reason(self):
        files = glob.glob(os.path.join(TOP, "debian", "*lintian-overrides")) + \
            glob.glob(os.path.join(TOP, "debian", "source", "lintian-overrides"))
        for path in files:
            with open(path) as f:
                lines = f.read().splitlines()
            for n, line in enumerate(lines, 1):
                if not line.strip() or line.startswith("#"):
                    continue
                block = lines[:n - 1]
                # The lines above this one, up to a blank line: a comment among them.
                while block and block[-1].strip() and not block[-1].startswith("#"):
                    block.pop()
                with self.subTest(override=f"{os.path.relpath(path, TOP)}:{n}"):
                    self.assertTrue(block and block[-1].startswith("#"), f"no comment above: {line}")


class Reproducible(unittest.TestCase):
    def assert_identical(self, a, b):
        da, db = debs(a), debs(b)
        self.assertTrue(da, f"no .deb in {a}")
        self.assertEqual(sorted(da), sorted(db))
        for name in da:
            with self.subTest(deb=name):
                self.assertTrue(da[name] == db[name], f"{name} differs between {a} and {b}")

    def test_two_builds_are_byte_identical(self):
        given = os.environ.get("DLSCHED_DEB_BUILDS", "").split()
        if len(given) == 2:
            self.assert_identical(*given)
            return
        if os.environ.get("DLSCHED_DEB_REPRODUCIBLE") != "1":
            self.skipTest("two package builds: DLSCHED_DEB_REPRODUCIBLE=1, or DLSCHED_DEB_BUILDS='A B' "
                          "(make deb-check-reproducible checks the same)")
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([MKDEB, "reproducible", d], capture_output=True, text=True, timeout=3600)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr[-4000:])
            self.assert_identical(os.path.join(d, "a"), os.path.join(d, "b"))


if __name__ == "__main__":
    unittest.main()
