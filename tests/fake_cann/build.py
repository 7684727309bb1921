"""Build the stand-in CANN libraries from fake_cann.c with the system C compiler.

Two layouts:
- ``build_split(out_dir)``: a toolkit-like tree ``out_dir/lib64`` holding libascendcl.so (runtime),
  libnnopbase.so (aclCreateTensor), libopapi.so (ApplyAdamWQuant) and libopapi_math.so
  (WeightQuantPreprocess, Add, PowTensorScalar, LtScalar), the last three linked against the first. Point ASCEND_HOME_PATH at
  ``out_dir``, or list the files in ACLNN_LIBRARIES.
- ``build_single(out_dir)``: every symbol in one library, ``out_dir/libfake_cann.so``.

Command line: ``python tests/fake_cann/build.py OUT_DIR`` builds the split tree and prints an
ACLNN_LIBRARIES value for it, so that the whole suite can be run against the stand-in:
``ACLNN_LIBRARIES=$(python tests/fake_cann/build.py /tmp/fake) pytest suites --backend aclnn
--product atlas-a2``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).with_name("fake_cann.c")
SPLIT_PARTS = (("libascendcl.so", "FAKE_RUNTIME"), ("libnnopbase.so", "FAKE_TENSOR"),
               ("libopapi.so", "FAKE_AAWQ"), ("libopapi_math.so", "FAKE_WQP"),
               ("libopapi_nn.so", "FAKE_QMM"))
CFLAGS = ("-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Wno-unused-parameter",
          "-fvisibility=hidden", "-Wl,--no-undefined")


def compiler() -> str | None:
    return os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")


def _compile(out: Path, defines: tuple[str, ...], link_dir: Path | None = None) -> Path:
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler (gcc or cc) on PATH")
    cmd = [cc, *CFLAGS, *(f"-D{d}" for d in defines), "-o", str(out), str(SOURCE)]
    if link_dir is not None:
        cmd += [f"-L{link_dir}", "-lascendcl", "-Wl,-rpath,$ORIGIN"]
    cmd += ["-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building {out.name} failed:\n{' '.join(cmd)}\n{proc.stderr}")
    return out


def build_split(out_dir: str | Path) -> list[Path]:
    """The four libraries under ``out_dir/lib64``, runtime first."""
    lib64 = Path(out_dir) / "lib64"
    lib64.mkdir(parents=True, exist_ok=True)
    built = []
    for name, define in SPLIT_PARTS:
        link = None if define == "FAKE_RUNTIME" else lib64
        built.append(_compile(lib64 / name, (define,), link))
    return built


def build_single(out_dir: str | Path) -> Path:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return _compile(out_dir / "libfake_cann.so", ())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUT_DIR")
    print(":".join(str(p) for p in build_split(sys.argv[1])))
