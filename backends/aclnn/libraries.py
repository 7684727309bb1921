"""Finding the CANN libraries the aclnn backend loads.

The search follows the usual CANN environment (what ``source <toolkit>/set_env.sh`` sets up):

1. ``ACLNN_LIBRARIES``: an explicit, colon-separated list of library files and/or directories. When
   it is set, nothing else is searched. Files are loaded in the order given; a directory contributes
   every known library name it holds. This is how a custom operator package (or a stand-in library)
   is put in front: symbols are taken from the first loaded library that has them.
2. Otherwise each of these directories, in order:
   ``$ASCEND_HOME_PATH/lib64``, ``$ASCEND_TOOLKIT_HOME/lib64``, every entry of ``$LD_LIBRARY_PATH``,
   and ``/usr/local/Ascend/ascend-toolkit/latest/lib64`` as the last default; custom operator
   packages are looked for in ``$ASCEND_CUSTOM_OPP_PATH/*/op_api/lib`` and
   ``<toolkit>/opp/vendors/*/op_api/lib``.

For each library name the first directory holding it wins. The runtime (libascendcl.so) and at least
one operator library are required; libnnopbase.so (aclCreateTensor in newer toolkits) and the split
operator libraries are loaded when present.
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

OVERRIDE_ENV = "ACLNN_LIBRARIES"
TOOLKIT_ENVS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
DEFAULT_TOOLKIT = "/usr/local/Ascend/ascend-toolkit/latest"

RUNTIME_LIBRARY = "libascendcl.so"
TENSOR_LIBRARIES = ("libnnopbase.so",)
OPERATOR_LIBRARIES = ("libopapi.so", "libopapi_math.so", "libopapi_nn.so")
CUSTOM_LIBRARY = "libcust_opapi.so"
KNOWN_LIBRARIES = (RUNTIME_LIBRARY, *TENSOR_LIBRARIES, *OPERATOR_LIBRARIES, CUSTOM_LIBRARY)


@dataclass(frozen=True)
class LibrarySearch:
    """The outcome of one search: the files to load (in load order) or what was missing."""

    libraries: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()            # required library names not found
    searched: tuple[str, ...] = ()           # where it looked, one short phrase each
    toolkit_roots: tuple[str, ...] = ()      # toolkit directories seen (for the version files)
    override: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.libraries) and not self.missing

    def reason(self) -> str:
        """One line: what was missing and where it looked."""
        if self.ok:
            return ""
        if self.override:
            what = "no library file" if not self.libraries else ", ".join(self.missing)
            return f"{what} found from {OVERRIDE_ENV}: " + "; ".join(self.searched)
        return (f"{' and '.join(self.missing)} not found; searched " + "; ".join(self.searched)
                + f" (install the CANN toolkit and source its set_env.sh, or set {OVERRIDE_ENV})")


def _split_path(value: str | None) -> list[str]:
    return [p for p in (value or "").split(os.pathsep) if p.strip()]


def _describe_dir(label: str, directory: str | None) -> str:
    if directory is None:
        return f"{label} (unset)"
    state = "" if os.path.isdir(directory) else " (absent)"
    return f"{label}={directory}{state}" if label else f"{directory}{state}"


def _search_override(value: str) -> LibrarySearch:
    files: list[str] = []
    searched: list[str] = []
    for entry in _split_path(value):
        path = Path(entry).expanduser()
        if path.is_file():
            files.append(str(path))
            searched.append(str(path))
        elif path.is_dir():
            found = [str(path / n) for n in KNOWN_LIBRARIES if (path / n).is_file()]
            files += found
            searched.append(f"{path} ({len(found)} known libraries)")
        else:
            searched.append(f"{path} (absent)")
    unique = tuple(dict.fromkeys(files))
    roots = tuple(dict.fromkeys(str(Path(f).parent.parent) for f in unique))
    return LibrarySearch(libraries=unique, missing=() if unique else ("library",),
                         searched=tuple(searched), toolkit_roots=roots, override=True)


def _custom_dirs(roots: list[str], custom_opp: list[str]) -> list[str]:
    dirs = []
    for base in custom_opp:
        dirs += sorted(glob.glob(os.path.join(base, "op_api", "lib")))
        dirs += sorted(glob.glob(os.path.join(base, "*", "op_api", "lib")))
    for root in roots:
        dirs += sorted(glob.glob(os.path.join(root, "opp", "vendors", "*", "op_api", "lib")))
    return list(dict.fromkeys(dirs))


def find_libraries(env: Mapping[str, str] | None = None) -> LibrarySearch:
    """Search the environment (``os.environ`` by default) for the CANN libraries."""
    env = os.environ if env is None else env
    if env.get(OVERRIDE_ENV, "").strip():
        return _search_override(env[OVERRIDE_ENV])

    searched: list[str] = []
    dirs: list[str] = []
    roots: list[str] = []
    for var in TOOLKIT_ENVS:
        root = env.get(var, "").strip() or None
        searched.append(_describe_dir(var, None if root is None else os.path.join(root, "lib64")))
        if root:
            roots.append(root)
            dirs.append(os.path.join(root, "lib64"))
    ld_dirs = _split_path(env.get("LD_LIBRARY_PATH"))
    searched.append("LD_LIBRARY_PATH" + (" (unset)" if not ld_dirs else f"={os.pathsep.join(ld_dirs)}"))
    dirs += ld_dirs
    roots.append(DEFAULT_TOOLKIT)
    dirs.append(os.path.join(DEFAULT_TOOLKIT, "lib64"))
    searched.append(_describe_dir("", os.path.join(DEFAULT_TOOLKIT, "lib64")))
    dirs = list(dict.fromkeys(os.path.normpath(d) for d in dirs))

    def first(name: str, where: list[str]) -> str | None:
        for d in where:
            candidate = os.path.join(d, name)
            if os.path.isfile(candidate):
                return candidate
        return None

    runtime = first(RUNTIME_LIBRARY, dirs)
    tensor = [p for p in (first(n, dirs) for n in TENSOR_LIBRARIES) if p]
    operators = [p for p in (first(n, dirs) for n in OPERATOR_LIBRARIES) if p]
    custom_dirs = _custom_dirs(roots, _split_path(env.get("ASCEND_CUSTOM_OPP_PATH")))
    custom = [os.path.join(d, CUSTOM_LIBRARY) for d in custom_dirs
              if os.path.isfile(os.path.join(d, CUSTOM_LIBRARY))]
    missing = []
    if runtime is None:
        missing.append(RUNTIME_LIBRARY)
    if not operators and not custom:
        missing.append(f"{OPERATOR_LIBRARIES[0]} (or {', '.join(OPERATOR_LIBRARIES[1:])}, "
                       f"{CUSTOM_LIBRARY})")
    # toolkit roots that exist, including the one the runtime was found in
    if runtime is not None:
        roots.insert(0, str(Path(runtime).resolve().parent.parent))
        roots.insert(0, str(Path(runtime).parent.parent))
    existing_roots = tuple(dict.fromkeys(r for r in roots if os.path.isdir(r)))
    libraries = tuple(p for p in ([runtime] if runtime else []) + tensor + operators + custom)
    return LibrarySearch(libraries=libraries if not missing else (), missing=tuple(missing),
                         searched=tuple(searched), toolkit_roots=existing_roots)


# ---- the toolkit version, from the files an installation carries ----

_VERSION_FILES = ("version.cfg", "version.info", "*/ascend_toolkit_install.info",
                  "runtime/version.info", "compiler/version.info")
_VERSION_PATTERNS = (
    re.compile(r"^\s*(?:toolkit_)?(?:running_)?version\s*=\s*\[?([0-9A-Za-z.\-_]+)", re.I | re.M),
    re.compile(r"^\s*\w*_running_version\s*=\s*\[?([0-9A-Za-z.\-_]+)", re.I | re.M),
)


def toolkit_version(roots: tuple[str, ...] | list[str]) -> str | None:
    """The version a toolkit's version file states (the first one found), or None."""
    for root in roots:
        for pattern in _VERSION_FILES:
            for path in sorted(glob.glob(os.path.join(root, pattern))):
                try:
                    text = Path(path).read_text(errors="replace")
                except OSError:
                    continue
                for regex in _VERSION_PATTERNS:
                    match = regex.search(text)
                    if match:
                        return match.group(1)
    return None
