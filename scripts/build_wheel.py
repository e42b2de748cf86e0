#!/usr/bin/env python3
"""Packs a built graphsafe binary into a Python wheel, with the standard library only (no network,
no pip, no setuptools): `pip install graphsafe-<version>-py3-none-linux_<arch>.whl` puts `graphsafe`
in the environment's bin/.

    python3 scripts/build_wheel.py [--build-dir build] [--out-dir build/dist] [--with-cuda-module]

The wheel holds the binary as a script (`{name}-{version}.data/scripts/graphsafe`), so it carries
the Python analysis. The binary links Debian 12's yaml-cpp, fmt and toml++ shared libraries, so the
platform tag is the plain `linux_<arch>` (not manylinux): the wheel is for Debian 12 machines, or
machines with those libraries. With --with-cuda-module it also carries the CUDA C++ frontend as
`{name}-{version}.data/data/lib/graphsafe/libgraphsafe_cuda.so`, which pip installs into the
environment's lib/graphsafe/, where the binary looks for it (PREFIX/bin/../lib/graphsafe); the
module needs Debian's Clang 19 libraries (libclang-cpp19, libllvm19, libclang-common-19-dev) at
run time. Files are stripped of debug information when `strip` is on PATH (--no-strip keeps them),
and the archive is reproducible: fixed timestamps, sorted entries.
"""

import argparse
import base64
import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

NAME = "graphsafe"
SUMMARY = "Static analyzer for CUDA graph capture hazards in PyTorch Python code and CUDA C++"
# ZIP cannot hold times before 1980; a fixed time makes the wheel the same on every build.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def project_version(binary):
    """The version the binary reports (`graphsafe 0.1.0`): the CMake project version."""
    output = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout
    match = re.search(r"(\d+(?:\.\d+)*)", output)
    if not match:
        sys.exit(f"build_wheel: cannot read a version from `{binary} --version`: {output!r}")
    return match.group(1)


def platform_tag():
    # sysconfig says `linux-x86_64`; the wheel tag is `linux_x86_64`.
    return re.sub(r"[-.]", "_", sysconfig.get_platform())


def stripped(path, scratch, strip):
    if not strip or shutil.which("strip") is None:
        with open(path, "rb") as f:
            return f.read()
    copy = os.path.join(scratch, os.path.basename(path))
    shutil.copyfile(path, copy)
    subprocess.run(["strip", "--strip-unneeded", copy], check=True)
    with open(copy, "rb") as f:
        return f.read()


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def write_wheel(path, entries):
    """entries: (archive name, bytes, executable); RECORD is added last."""
    dist_info = next(name.split("/")[0] for name, _, _ in entries if ".dist-info/" in name)
    record = io.StringIO()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name, data, executable in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if executable else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            wheel.writestr(info, data)
            record.write(f"{name},{record_hash(data)},{len(data)}\n")
        record_name = f"{dist_info}/RECORD"
        record.write(f"{record_name},,\n")
        info = zipfile.ZipInfo(record_name, date_time=FIXED_TIME)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        wheel.writestr(info, record.getvalue())


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(root, "build"),
                        help="the CMake build tree holding graphsafe (default: build/)")
    parser.add_argument("--binary", help="the graphsafe binary (default: BUILD_DIR/graphsafe)")
    parser.add_argument("--out-dir", help="where to write the wheel (default: BUILD_DIR/dist)")
    parser.add_argument("--with-cuda-module", action="store_true",
                        help="also carry BUILD_DIR/libgraphsafe_cuda.so (needs Clang 19 at run time)")
    parser.add_argument("--module", help="the CUDA module to carry (implies --with-cuda-module)")
    parser.add_argument("--no-strip", action="store_true", help="keep debug information")
    args = parser.parse_args()

    binary = args.binary or os.path.join(args.build_dir, NAME)
    if not os.access(binary, os.X_OK):
        sys.exit(f"build_wheel: no graphsafe binary at {binary}: build first (bash scripts/dev.sh build)")
    module = args.module
    if module is None and args.with_cuda_module:
        module = os.path.join(args.build_dir, "libgraphsafe_cuda.so")
    if module is not None and not os.path.isfile(module):
        sys.exit(f"build_wheel: no CUDA module at {module} (configure with -DGRAPHSAFE_CUDA_FRONTEND=ON)")
    out_dir = args.out_dir or os.path.join(args.build_dir, "dist")

    version = project_version(binary)
    tag = f"py3-none-{platform_tag()}"
    dist_info = f"{NAME}-{version}.dist-info"
    data = f"{NAME}-{version}.data"
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        "Requires-Python: >=3",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: C++",
        "Classifier: Topic :: Software Development :: Quality Assurance",
        "Description-Content-Type: text/plain",
        "",
        "graphsafe as one binary, installed as the `graphsafe` command. It analyzes Python on its own;",
        "CUDA C++ needs the C++ frontend module (see docs/install.md in the graphsafe repository).",
        "",
    ])
    wheel_file = "\n".join([
        "Wheel-Version: 1.0",
        f"Generator: graphsafe scripts/build_wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {tag}",
        "",
    ])

    with tempfile.TemporaryDirectory() as scratch:
        entries = [
            (f"{data}/scripts/{NAME}", stripped(binary, scratch, not args.no_strip), True),
            (f"{dist_info}/METADATA", metadata.encode(), False),
            (f"{dist_info}/WHEEL", wheel_file.encode(), False),
        ]
        if module is not None:
            entries.append((f"{data}/data/lib/graphsafe/libgraphsafe_cuda.so",
                            stripped(module, scratch, not args.no_strip), False))
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, f"{NAME}-{version}-{tag}.whl")
        write_wheel(path, entries)
    print(path)


if __name__ == "__main__":
    main()
