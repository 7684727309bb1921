"""The registry reads an operator-data file when its record is first asked for: a run of one operator
reads that operator's file alone, listing the keys reads none, and a file not named by its API's key
or a key claimed twice is refused, naming the files."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aclnn_conformance.spec import OPS, registry

PROJECT = registry.PROJECT_DATA


@pytest.fixture()
def reads(monkeypatch) -> list[str]:
    """The data files the registry reads from now on (by stem), on a registry read anew."""
    seen: list[str] = []
    read = registry._read_data_file

    def counted(path: Path):
        seen.append(path.stem)
        return read(path)

    monkeypatch.setattr(registry, "_read_data_file", counted)
    monkeypatch.setattr(registry, "_extra_folders", [])
    monkeypatch.delenv(registry.SPEC_DATA_ENV, raising=False)
    registry.reset()
    yield seen
    registry.reset()


def test_listing_keys_reads_no_file_and_one_operator_reads_its_own(reads):
    keys = list(registry.operators())
    assert "gelu" in keys and "apply_adam_w" in keys and len(keys) > 400
    assert "gelu" in OPS and "no_such_operator" not in OPS
    assert registry.is_data_operator("gelu") and not registry.is_data_operator("apply_adam_w")
    assert reads == []
    assert registry.operator("aclnnGelu").key == "gelu"   # by API name: the file of its key
    assert OPS["gelu"].api == "aclnnGelu"
    assert registry.operator_keys("gelu,aclnnAbs") == ("gelu", "abs")
    assert reads == ["gelu", "abs"]


def test_every_record_is_read_when_all_are_asked_for(reads):
    records = list(registry.operators().values())
    assert len(records) == len(registry.operators()) and len(reads) == len(set(reads)) > 400
    assert {r.key for r in records} == set(registry.operators())


def _one_file_folder(tmp_path: Path, key: str, name: str) -> Path:
    (source,) = PROJECT.glob(f"*/{key}.json")
    folder = tmp_path / "data"
    (folder / source.parent.name).mkdir(parents=True)
    shutil.copy(source, folder / source.parent.name / f"{name}.json")
    return folder


def test_a_file_not_named_by_its_apis_key_is_refused_when_read(reads, tmp_path):
    registry.add_data_folder(_one_file_folder(tmp_path, "gelu", "gelu_renamed"))
    assert "gelu_renamed" in registry.operators()
    with pytest.raises(registry.RegistryError, match=r"gelu_renamed\.json: holds aclnnGelu \(key gelu\); "
                                                     r".* named by its API's key: gelu\.json"):
        registry.operator("gelu_renamed")


def test_a_key_in_two_folders_is_refused_naming_both_files_before_any_is_read(reads, tmp_path):
    registry.add_data_folder(_one_file_folder(tmp_path, "gelu", "gelu"))
    with pytest.raises(registry.RegistryError, match=r"'gelu' is declared twice: by data file .*"
                                                     r"gelu\.json and by data file .*data/.*gelu\.json"):
        registry.operators()
    assert reads == []


def test_a_data_file_taking_a_hand_written_operators_key_is_refused(reads, tmp_path):
    folder = _one_file_folder(tmp_path, "gelu", "apply_adam_w")
    path = next(folder.glob("*/apply_adam_w.json"))
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "key": "apply_adam_w", "api": "aclnnApplyAdamW"}), encoding="utf-8")
    registry.add_data_folder(folder)
    with pytest.raises(registry.RegistryError, match=r"'apply_adam_w' is declared twice: by module "
                                                     r".*apply_adam_w and by data file"):
        registry.operators()
