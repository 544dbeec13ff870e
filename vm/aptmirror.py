#!/usr/bin/env python3
"""Find the Debian mirror this machine's apt already uses, for debootstrap.

The repository never names a mirror host: the guest rootfs comes from
whatever archive the build machine is configured for. Both apt source
formats are read: one-line ``deb URI SUITE COMP...`` (sources.list, *.list)
and deb822 stanzas (*.sources).

    aptmirror.py [--suite bookworm] [--root /]

prints the first archive URI that serves SUITE with component main.
"""

import argparse
import glob
import os
import sys


def _strip_options(fields):
    """Drop a leading "[arch=amd64 signed-by=...]" block of a one-line entry."""
    if fields and fields[0].startswith("["):
        for i, field in enumerate(fields):
            if field.endswith("]"):
                return fields[i + 1:]
        return []
    return fields


def parse_one_line(text):
    """Yield (types, uris, suites, components) from sources.list syntax."""
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        kind, rest = fields[0], _strip_options(fields[1:])
        if len(rest) < 2:
            continue
        yield [kind], [rest[0]], [rest[1]], rest[2:]


def parse_deb822(text):
    """Yield (types, uris, suites, components) from deb822 *.sources stanzas."""
    stanza = {}
    key = None

    def flush():
        if stanza and stanza.get("enabled", "yes").lower() != "no":
            yield (stanza.get("types", "").split(), stanza.get("uris", "").split(),
                   stanza.get("suites", "").split(), stanza.get("components", "").split())

    for raw in text.splitlines() + [""]:
        if raw.startswith("#"):
            continue
        if not raw.strip():
            yield from flush()
            stanza, key = {}, None
            continue
        if raw[0] in " \t" and key:
            stanza[key] += " " + raw.strip()
            continue
        if ":" in raw:
            key, value = raw.split(":", 1)
            key = key.strip().lower()
            stanza[key] = value.strip()


def usable_uri(uri):
    return uri.startswith(("http://", "https://", "file:/", "ftp://"))


def find_mirror(root="/", suite="bookworm"):
    """Return the first URI serving `suite`/main, or None."""
    etc = os.path.join(root, "etc/apt")
    sources = []
    main_list = os.path.join(etc, "sources.list")
    if os.path.exists(main_list):
        sources.append(main_list)
    sources += sorted(glob.glob(os.path.join(etc, "sources.list.d/*.list")))
    sources += sorted(glob.glob(os.path.join(etc, "sources.list.d/*.sources")))
    for path in sources:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        parse = parse_deb822 if path.endswith(".sources") else parse_one_line
        for types, uris, suites, components in parse(text):
            if "deb" not in types or suite not in suites or "main" not in components:
                continue
            for uri in uris:
                if usable_uri(uri):
                    return uri.rstrip("/")
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="bookworm")
    ap.add_argument("--root", default="/")
    args = ap.parse_args(argv)
    uri = find_mirror(args.root, args.suite)
    if not uri:
        print(f"aptmirror: no apt source serves {args.suite}/main under {args.root}etc/apt",
              file=sys.stderr)
        return 1
    print(uri)
    return 0


if __name__ == "__main__":
    sys.exit(main())
