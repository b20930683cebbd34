#!/usr/bin/env python3
"""Link launcher (RULE_LAUNCH_LINK) that links one executable statically.

CMake passes the whole link command line. Every shared library on it that has
a static archive beside it (and every -lNAME with a libNAME.a in the system
library folder) is replaced by that archive; the archives are grouped so their
order does not matter, and libstdc++/libgcc are linked statically. glibc stays
dynamic. Used for the CLI, whose start-up time is dominated by resolving the
symbols of ~60 shared libraries.
"""
import os
import re
import subprocess
import sys

SYSTEM_DIR = "/usr/lib/x86_64-linux-gnu"
KEEP_DYNAMIC = {"c", "m", "dl", "pthread", "rt", "gcc_s", "atomic"}
# Needed by a static libgrpc (the shared one brings them itself).
EXTRA = ["libssl.a", "libcrypto.a"]


def static_for(arg):
    m = re.match(r"^(/.*/lib[^/]+?)\.so(\.[0-9.]+)?$", arg)
    if m:
        path = m.group(1) + ".a"
        if os.path.basename(m.group(1)) == "libcudart":
            path = os.path.join(os.path.dirname(m.group(1)),
                                "libcudart_static.a")
        return path if os.path.exists(path) else None
    m = re.match(r"^-l([A-Za-z0-9_+.-]+)$", arg)
    if m and m.group(1) not in KEEP_DYNAMIC:
        path = os.path.join(SYSTEM_DIR, "lib%s.a" % m.group(1))
        return path if os.path.exists(path) else None
    return None


def main(argv):
    out, archives = [], []
    for arg in argv:
        path = static_for(arg)
        if path is None:
            out.append(arg)
        elif path not in archives:
            archives.append(path)
    extra = [os.path.join(SYSTEM_DIR, name) for name in EXTRA]
    command = (out + ["-Wl,--start-group"] + archives +
               [p for p in extra if os.path.exists(p)] +
               ["-Wl,--end-group", "-static-libstdc++", "-static-libgcc",
                "-ldl", "-lpthread", "-lrt", "-lm"])
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
