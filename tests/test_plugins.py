"""Third-party backends: loaded by import path (module:attr) and through the entry-point group."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.backends import registry
from aclnn_conformance.backends.examples.my_backend import MyBackend
from aclnn_conformance.suites.calls import apply_adam_w_quant as aawq_calls
from aclnn_conformance.reports.certify import PLAIN_ASSERTS

ROOT = Path(__file__).resolve().parent.parent
TARGET = "aclnn_conformance.backends.examples.my_backend:MyBackend"


def _dist_info(site: Path, name: str = "my-backend", target: str = TARGET) -> Path:
    """An installed-distribution stand-in declaring one backend entry point."""
    info = site / "example_aclnn_plugin-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: example-aclnn-plugin\n"
                                   "Version: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINT_GROUP}]\n{name} = {target}\n")
    return site


@pytest.mark.parametrize("target", [TARGET, "aclnn_conformance.backends.examples.my_backend:make_backend"])
def test_import_path(target):
    backend = registry.load_backend(target)
    assert isinstance(backend, MyBackend) and backend.name == "my-backend"
    assert backend.available() == (True, "")
    assert "atlas-a2" in backend.products()
    result = backend.run(aawq_calls.make_call("plugin", (1, 256)), "atlas-a2")
    assert result.status == 0 and backend.calls == 1
    assert set(result.storages) >= {"varRef", "mRef", "vRef"}


def test_entry_point(tmp_path, monkeypatch):
    assert "my-backend" not in registry.backend_names()
    monkeypatch.syspath_prepend(str(_dist_info(tmp_path)))
    assert "my-backend" in registry.backend_names()
    backend = registry.load_backend("my-backend")
    assert isinstance(backend, MyBackend)


def test_entry_point_errors(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(_dist_info(tmp_path, "broken", "no_such_module:Backend")))
    with pytest.raises(registry.UnknownBackend, match="cannot load backend 'broken'"):
        registry.load_backend("broken")
    with pytest.raises(registry.UnknownBackend, match="unknown backend 'nothing'.*broken"):
        registry.load_backend("nothing")
    with pytest.raises(registry.UnknownBackend, match="is not a backend"):
        registry.load_backend("builtins:object")


@pytest.mark.parametrize("how", ["entry-point", "import-path"])
def test_pytest_command_line(tmp_path, how):
    """``pytest --backend`` reaches the plug-in both ways and the suite judges it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if how == "entry-point":
        env["PYTHONPATH"] = str(_dist_info(tmp_path / "site"))
        name = "my-backend"
    else:
        name = TARGET
    out = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_rules.py", "--backend", name, "--product",
         "atlas-a2", "-q", "-p", "no:cacheprovider", "-k", "one_fault and AAWQ-DTYPE", "--op", "apply_adam_w_quant",
         "--report-dir", str(tmp_path / "report")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert " passed" in out.stdout and " failed" not in out.stdout
    records = [json.loads(line) for line in
               (tmp_path / "report" / "records.jsonl").read_text().splitlines() if line.strip()]
    assert records and {(r["backend"], r["backend_version"]) for r in records} == {
        ("my-backend", "0.1.0")}
