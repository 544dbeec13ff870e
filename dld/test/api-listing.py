#!/usr/bin/env python3
"""The D-Bus API of an introspection XML file, one member per line, sorted:

    method NAME IN-SIGNATURE OUT-SIGNATURE
    property NAME TYPE
    signal NAME SIGNATURE

("-" for an empty signature; sorted by code point, as LC_ALL=C sort), the
form api-listing.awk gives busctl's
table: the two are compared to check dld's vtable and dlconf's test double
against dld/org.dlsched.Dld1.xml."""
import sys
import xml.etree.ElementTree as ET


def sig(args):
    return "".join(a.get("type") for a in args) or "-"


def listing(path, interface):
    lines = []
    for iface in ET.parse(path).getroot().iter("interface"):
        if iface.get("name") != interface:
            continue
        for m in iface.findall("method"):
            ins = [a for a in m.findall("arg") if a.get("direction", "in") == "in"]
            outs = [a for a in m.findall("arg") if a.get("direction") == "out"]
            lines.append(f"method {m.get('name')} {sig(ins)} {sig(outs)}")
        for p in iface.findall("property"):
            lines.append(f"property {p.get('name')} {p.get('type')}")
        for s in iface.findall("signal"):
            lines.append(f"signal {s.get('name')} {sig(s.findall('arg'))}")
    return sorted(lines)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: api-listing.py XML INTERFACE")
    print("\n".join(listing(sys.argv[1], sys.argv[2])))
