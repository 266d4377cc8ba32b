"""Generate the cffi declarations of the raid package from the public headers (include/), at build time.

The C compiler preprocesses include/raid.h (and so every include/raid/*.h it includes) with the system
includes removed (cffi knows size_t, int64_t, ...) and __attribute__ defined away (RAID_API is
__attribute__((visibility("default"))) under GCC and Clang); the result is the cdef, checked by cffi and
written with the out-of-line ABI-mode module that loads the shared library with dlopen at import:

    python gen_ffi.py --cc CC --include DIR --out PKGDIR

writes PKGDIR/raid_cdef.h (the declarations as cffi reads them) and PKGDIR/_raid_ffi.py. Nothing here
mirrors a struct or a prototype by hand: a change of the headers changes the binding at the next build.
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import cffi

SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s*<[^>]*>\s*$', re.M)


def preprocess(cc, include):
    include = pathlib.Path(include)
    with tempfile.TemporaryDirectory() as tmp:
        for h in include.rglob("*.h"):
            dst = pathlib.Path(tmp) / h.relative_to(include)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(SYSTEM_INCLUDE.sub("", h.read_text()))
        cmd = [*cc.split(), "-E", "-P", "-std=c11", "-D__attribute__(x)=", "-I", tmp, str(pathlib.Path(tmp) / "raid.h")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"gen_ffi: {' '.join(cmd)} failed:\n{r.stderr}")
    # Blank lines only; the declarations are kept as the compiler wrote them.
    return "\n".join(line for line in r.stdout.splitlines() if line.strip()) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", required=True)
    ap.add_argument("--include", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if shutil.which(a.cc.split()[0]) is None:
        sys.exit(f"gen_ffi: no C compiler '{a.cc}'")
    cdef = preprocess(a.cc, a.include)
    ffi = cffi.FFI()
    ffi.cdef(cdef)
    ffi.set_source("_raid_ffi", None)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "raid_cdef.h").write_text(cdef)
    ffi.emit_python_code(str(out / "_raid_ffi.py"))


if __name__ == "__main__":
    main()
