#!/usr/bin/env python3
"""Packs a built graphsafe into two Python wheels, with the standard library only (no network, no
pip, no setuptools):

    python3 scripts/build_wheel.py [--build-dir build] [--out-dir build/dist] [--cuda]

  graphsafe-<version>-py3-none-<platform>.whl        `graphsafe` in the environment's bin/: the
                                                     Python analysis
  graphsafe_cuda-<version>-py3-none-<platform>.whl   (--cuda) the CUDA C++ frontend module and
                                                     Clang's resource headers, in the
                                                     environment's lib/graphsafe/, where the
                                                     binary looks; requires graphsafe==<version>

`pip install graphsafe` alone analyzes Python; `pip install graphsafe-cuda` adds C++. The files
come from `cmake --install BUILD_DIR --component graphsafe|cuda --strip`, the layout of every other
install form. The platform tag is measured from the files, never assumed: manylinux_2_X_<arch>
when they need no library but glibc's and libgcc_s (PEP 600) and glibc 2.X at most (the newest
GLIBC_ symbol version readelf finds), else the plain linux_<arch>. The archive is reproducible:
fixed timestamps, sorted entries.
"""

import argparse
import base64
import gzip
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

SUMMARY = {
    "graphsafe": "Static analyzer for CUDA graph capture hazards in PyTorch Python code and CUDA C++",
    "graphsafe-cuda": "The CUDA C++ frontend of graphsafe (Clang 19 LibTooling, linked in)",
}
DESCRIPTION = {
    "graphsafe": [
        "graphsafe as one binary, installed as the `graphsafe` command. It analyzes Python on its",
        "own; `pip install graphsafe-cuda` adds the analysis of CUDA C++ files.",
    ],
    "graphsafe-cuda": [
        "The module graphsafe loads to analyze CUDA C++ files: Clang 19 LibTooling linked into one",
        "shared object, with Clang's resource headers. Installed next to `graphsafe` (lib/graphsafe/).",
    ],
}
# What a manylinux wheel may link (PEP 600 and the manylinux policies): glibc's libraries and
# libgcc_s. Anything else must be inside the file.
MANYLINUX_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libgcc_s.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
# ZIP cannot hold times before 1980; a fixed time makes the wheel the same on every build.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def project_version(binary):
    """The version the binary reports (`graphsafe 0.1.0`): the CMake project version."""
    output = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout
    match = re.search(r"(\d+(?:\.\d+)*)", output)
    if not match:
        sys.exit(f"build_wheel: cannot read a version from `{binary} --version`: {output!r}")
    return match.group(1)


def glibc_needs(path):
    """(the shared libraries an ELF file needs, the newest GLIBC_2.X it needs as (2, X))."""
    dynamic = subprocess.run(["readelf", "--dynamic", "--wide", path], check=True,
                             capture_output=True, text=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    versions = subprocess.run(["readelf", "--version-info", "--wide", path], check=True,
                              capture_output=True, text=True).stdout
    glibc = [tuple(int(n) for n in v.split(".")) for v in re.findall(r"GLIBC_(\d+\.\d+)", versions)]
    return needed, max(glibc, default=(2, 17))


def platform_tag(files):
    machine = re.sub(r"[-.]", "_", sysconfig.get_platform()).removeprefix("linux_")
    newest = (2, 17)
    for path in files:
        needed, glibc = glibc_needs(path)
        if not needed <= MANYLINUX_LIBRARIES:
            return f"linux_{machine}"
        newest = max(newest, glibc)
    return f"manylinux_{newest[0]}_{newest[1]}_{machine}"


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


def install_component(build_dir, component, prefix):
    result = subprocess.run(["cmake", "--install", build_dir, "--component", component,
                             "--prefix", prefix, "--strip"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"build_wheel: cmake --install --component {component} failed:\n{result.stderr}")


def files_under(root):
    for directory, _, names in os.walk(root):
        for name in names:
            yield os.path.join(directory, name)


def build(name, version, build_dir, out_dir, root):
    """Writes the wheel of distribution `name` and returns its path."""
    component = "graphsafe" if name == "graphsafe" else "cuda"
    with tempfile.TemporaryDirectory() as prefix:
        install_component(build_dir, component, prefix)
        data = f"{name.replace('-', '_')}-{version}.data"
        dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
        entries = []
        elf_files = []
        if name == "graphsafe":
            binary = os.path.join(prefix, "bin", "graphsafe")
            with open(binary, "rb") as f:
                entries.append((f"{data}/scripts/graphsafe", f.read(), True))
            elf_files.append(binary)
        else:
            module_dir = os.path.join(prefix, "lib", "graphsafe")
            for path in sorted(files_under(module_dir)):
                relative = os.path.relpath(path, prefix).replace(os.sep, "/")
                with open(path, "rb") as f:
                    entries.append((f"{data}/data/{relative}", f.read(), False))
                if path.endswith(".so"):
                    elf_files.append(path)
            if not elf_files:
                sys.exit(f"build_wheel: {build_dir} has no CUDA module to install "
                         "(configure with -DGRAPHSAFE_CUDA_FRONTEND=ON)")
        tag = f"py3-none-{platform_tag(elf_files)}"
        notices_gz = os.path.join(prefix, "share", "doc", name, "third-party-notices.gz")
        licenses = {"LICENSE": open(os.path.join(root, "LICENSE"), "rb").read()}
        if os.path.isfile(notices_gz):
            with gzip.open(notices_gz, "rb") as f:
                licenses["THIRD-PARTY-NOTICES"] = f.read()
    metadata = [
        "Metadata-Version: 2.4",
        f"Name: {name}",
        f"Version: {version}",
        f"Summary: {SUMMARY[name]}",
        "License-Expression: Apache-2.0",
    ]
    metadata += [f"License-File: {license_name}" for license_name in sorted(licenses)]
    metadata += [
        "Requires-Python: >=3",
        "Home-page: https://github.com/graphsafe/graphsafe",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: C++",
        "Classifier: Topic :: Software Development :: Quality Assurance",
    ]
    if name == "graphsafe-cuda":
        metadata.append(f"Requires-Dist: graphsafe=={version}")
    metadata += ["Description-Content-Type: text/plain", ""] + DESCRIPTION[name] + [""]
    wheel_file = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: graphsafe scripts/build_wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {tag}",
        "",
    ])
    entries.append((f"{dist_info}/METADATA", "\n".join(metadata).encode(), False))
    entries.append((f"{dist_info}/WHEEL", wheel_file.encode(), False))
    for license_name, text in licenses.items():
        entries.append((f"{dist_info}/licenses/{license_name}", text, False))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name.replace('-', '_')}-{version}-{tag}.whl")
    write_wheel(path, entries)
    return path


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(root, "build"),
                        help="the CMake build tree (default: build/)")
    parser.add_argument("--out-dir", help="where to write the wheels (default: BUILD_DIR/dist)")
    parser.add_argument("--cuda", action="store_true",
                        help="also write the graphsafe-cuda wheel (the C++ frontend module)")
    args = parser.parse_args()

    binary = os.path.join(args.build_dir, "graphsafe")
    if not os.access(binary, os.X_OK):
        sys.exit(f"build_wheel: no graphsafe binary at {binary}: build first (bash scripts/dev.sh build)")
    if shutil.which("readelf") is None:
        sys.exit("build_wheel: readelf (binutils) is needed to measure the platform tag")
    out_dir = args.out_dir or os.path.join(args.build_dir, "dist")
    version = project_version(binary)
    print(build("graphsafe", version, args.build_dir, out_dir, root))
    if args.cuda:
        print(build("graphsafe-cuda", version, args.build_dir, out_dir, root))


if __name__ == "__main__":
    main()
