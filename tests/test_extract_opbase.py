"""An infer function a checkout only declares (``OPBASE_API``) read in hicann/opbase: with an opbase
checkout given, the reduction its definition gives is the kernel's shape and its rule cites the
definition in hicann/opbase at the opbase's commit; without one, or for a body that is not the
reduction, the check stays unread as before. The checkout's cmake names the opbase commit it builds
with: another one given is read all the same, with a notice on the command line and in the data."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from aclnn_conformance.cli import main
from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.extract.infershape import InferShapeIndex
from aclnn_conformance.extract.opbase import (Citation, OpbaseError, OpbaseSource, choose_opbase, open_opbase,
                                              opbase_declarations)
from snippet_walk import CHECK_HEADER
from test_extract_kernel_shape import API, KERNEL, NAMES, OWN_FORM

DECLARED = """
namespace Ops {
namespace Base {
// Do infershape for OP which is single-input single-output and in-shape equal out-shape.
%sge::graphStatus InferShape4Reduce(gert::InferShapeContext *context);
}  // namespace Base
} // namespace Ops
"""

WRAPPER = """
#include "op_host/infershape_reduce_util.h"
using namespace Ops::Base;

namespace ops {
static ge::graphStatus InferShape4ReduceSnip(gert::InferShapeContext* context)
{
    return Ops::Base::InferShape4Reduce(context);
}

IMPL_OP_INFERSHAPE(ReduceSnip).InferShape(InferShape4ReduceSnip).InputsDataDependency({1});
} // namespace ops
"""

# opbase's definition (src/op_common/op_host/infershape_reduce_util.cpp:23-56): an op's own reduce
# infer body under opbase's name and namespace, in its spacing (``const bool *keepDims``)
DEFINED = (OWN_FORM.replace("namespace ops {", "namespace Ops {\nnamespace Base {")
           .replace("static ge::graphStatus InferShape4Own(gert::InferShapeContext* context)",
                    "ge::graphStatus InferShape4Reduce(gert::InferShapeContext *context)")
           .replace("const bool* keepDims", "const bool *keepDims")
           .replace("IMPL_OP_INFERSHAPE(ReduceSnip).InferShape(InferShape4Own).InputsDataDependency({1});\n}",
                    "}  // namespace Base\n}  // namespace Ops"))
DEFINED_AT = "src/op_common/op_host/infershape_reduce_util.cpp"


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _checkout(root: Path, declared: str = "OPBASE_API ", named: str | None = None) -> Path:
    files = {"common/inc/op_api/infershape_reduce_util.h": DECLARED % declared,
             "common/inc/op_api/aclnn_check.h": CHECK_HEADER,
             "math/reduce_snip/op_host/reduce_snip_infershape.cpp": WRAPPER,
             "math/reduce_snip/op_api/reduce_snip.cpp": KERNEL % ""}
    if named is not None:
        files["cmake/third_party/opbase.cmake"] = f"# the opbase this checkout builds with\nset(OPBASE_TAG_ID {named})\n"
    return _write(root, files)


def _opbase(root: Path, empty_dims: str = "0", git: bool = True) -> Path:
    _write(root, {DEFINED_AT: DEFINED % empty_dims, "src/nnopbase/README.md": "runtime\n"})
    if git:
        for cmd in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com",
                                                   "commit", "-q", "-m", "opbase"]):
            subprocess.run(["git", "-C", str(root), *cmd], check=True, capture_output=True)
    return root


def _head(root: Path) -> str:
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def _walk(root: Path, opbase: Path | None) -> list:
    src = read_source("snippet.cpp", API % ("auto reduceDims = dims;", "keepDim"))
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    kernels = KernelIndex(root, OpbaseSource(open_opbase(opbase)) if opbase else None)
    return walk_api(Index(src, [read_source("aclnn_check.h", CHECK_HEADER)], [], kernels), fn,
                    {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")


# ---- the infer function followed into opbase ----

def test_a_declared_only_infer_is_read_in_opbase_and_cites_its_definition(tmp_path):
    root, opbase = _checkout(tmp_path / "ops"), _opbase(tmp_path / "opbase")
    assert "InferShape4Reduce" in opbase_declarations(root)
    got = InferShapeIndex(root, OpbaseSource(open_opbase(opbase))).reduce_infer("ReduceSnip")
    line = DEFINED.splitlines().index("ge::graphStatus InferShape4Reduce(gert::InferShapeContext *context)") + 1
    # empty dims keep the shape; the registration is the checkout's, the body opbase's at its commit
    assert (got.noop, got.path, got.line) == (True, "math/reduce_snip/op_host/reduce_snip_infershape.cpp", 6)
    assert got.body == Citation("hicann/opbase", _head(opbase), DEFINED_AT, line)


def test_the_rule_of_the_kernel_shape_cites_opbase_and_without_it_stays_unread(tmp_path):
    root, opbase = _checkout(tmp_path / "ops"), _opbase(tmp_path / "opbase")
    read = _walk(root, opbase)
    assert [(e.kind, e.template) for e in read] == [("check", "reduced_shape")]
    assert dict(read[0].args) == {"param": "out", "of": "self", "dims": "dims", "keepdim": "keepDim",
                                  "noop": True, "scalar_same": True}
    assert [(c.repository, c.path) for c in read[0].cites] == [("hicann/opbase", DEFINED_AT)]
    unread = _walk(root, None)
    assert [e.kind for e in unread] == ["unread"]
    assert unread[0].text.startswith("the shape of a kernel's result the reader does not know")


@pytest.mark.parametrize("declared,empty_dims", [
    ("", "0"),            # declared without OPBASE_API: not opbase's to define
    ("OPBASE_API ", "1"),  # opbase's body does something else on empty dims
])
def test_an_infer_not_declared_for_opbase_or_another_body_there_is_not_read(tmp_path, declared, empty_dims):
    root = _checkout(tmp_path / "ops", declared=declared)
    opbase = _opbase(tmp_path / "opbase", empty_dims=empty_dims)
    assert InferShapeIndex(root, OpbaseSource(open_opbase(opbase))).reduce_infer("ReduceSnip") is None
    assert [e.kind for e in _walk(root, opbase)] == ["unread"]


def test_a_function_opbase_defines_twice_is_not_read(tmp_path):
    root, opbase = _checkout(tmp_path / "ops"), _opbase(tmp_path / "opbase", git=False)
    shutil.copy(opbase / DEFINED_AT, opbase / "src/op_common/op_host/infershape_reduce_copy.cpp")
    assert OpbaseSource(open_opbase(opbase)).definition("InferShape4Reduce") is None
    assert InferShapeIndex(root, OpbaseSource(open_opbase(opbase))).reduce_infer("ReduceSnip") is None


# ---- the opbase each checkout reads, and the commit it names ----

def test_each_checkout_reads_the_opbase_at_the_commit_it_names(tmp_path):
    first, second = _opbase(tmp_path / "a"), _opbase(tmp_path / "b", empty_dims="0 ")
    given = [open_opbase(first), open_opbase(second)]
    root = _checkout(tmp_path / "ops", named=_head(second))
    chosen = choose_opbase(root, "hicann/ops-math", given)
    assert (chosen.opbase.root, chosen.notice) == (second, None)
    assert chosen.provenance() == {"repository": "hicann/opbase", "commit": _head(second), "named": _head(second)}


def test_another_commit_than_the_named_one_is_read_with_a_notice(tmp_path):
    opbase = open_opbase(_opbase(tmp_path / "opbase"))
    root = _checkout(tmp_path / "ops", named="929902e577bb809a377a6ab17cb7b00a4dfddc1a")
    chosen = choose_opbase(root, "hicann/ops-math", [opbase])
    assert chosen.opbase == opbase
    assert chosen.notice == ("hicann/ops-math names opbase 929902e577bb (cmake/third_party/opbase.cmake:2); "
                             f"the opbase read is at {opbase.commit[:12]}")
    unpacked = open_opbase(_opbase(tmp_path / "unpacked", git=False))   # no git checkout: its commit unknown
    assert unpacked.commit == ""
    assert choose_opbase(root, "hicann/ops-math", [unpacked]).notice.endswith("is at an unknown commit")


def test_a_checkout_naming_no_commit_reads_the_first_opbase_without_notice(tmp_path):
    opbase = open_opbase(_opbase(tmp_path / "opbase"))
    chosen = choose_opbase(_checkout(tmp_path / "ops"), "hicann/ops-math", [opbase])
    assert (chosen.opbase, chosen.named, chosen.notice) == (opbase, None, None)
    assert choose_opbase(_checkout(tmp_path / "other"), "hicann/ops-math", []) is None


def test_a_folder_without_opbase_layout_is_refused(tmp_path):
    with pytest.raises(OpbaseError, match="not an opbase checkout"):
        open_opbase(_write(tmp_path / "half", {"src/op_common/x.cpp": ""}))


# ---- the command line: the data's rule, provenance and notice ----

def _documented_checkout(root: Path, named: str) -> Path:
    """The fixture checkout with an op_api file of aclnnSnip and its document."""
    _checkout(root, named=named)
    doc = (Path(__file__).parent / "fixtures/vendor_style/acts/shp/docs/aclnnShpDim.md").read_text()
    doc = doc.replace("aclnnShpDim", "aclnnSnip").replace(
        "  int64_t dim,\n", "  const aclIntArray *dims,\n  bool keepDim,\n")
    row = re.search(r"    <tr><td>dim（int64_t）</td>.*\n", doc).group(0)
    doc = doc.replace(row, row.replace("dim（int64_t）", "dims（aclIntArray*）")
                      + row.replace("dim（int64_t）", "keepDim（bool）"))
    return _write(root, {"math/reduce_snip/docs/aclnnSnip.md": doc,
                         "math/reduce_snip/op_api/aclnn_snip.cpp":
                             API % ("auto reduceDims = dims;", "keepDim")})


def _rule(out: Path) -> dict:
    record = json.loads((out / "math" / "snip.json").read_text())
    return record, next(r for r in record["rules"] if r["known_by"] != "doc" and r["category"] in ("shape", "unread"))


def test_the_extraction_reads_opbase_cites_it_and_records_the_commit_and_the_notice(tmp_path, capsys):
    opbase = _opbase(tmp_path / "opbase")
    root = _documented_checkout(tmp_path / "my-ops", named="929902e577bb809a377a6ab17cb7b00a4dfddc1a")
    assert main(["extract", str(root), "--out", str(tmp_path / "plain")]) == 0
    record, rule = _rule(tmp_path / "plain")
    assert rule["template"] == "unread" and "opbase" not in record["vendor"]
    assert "opbase" not in json.loads((tmp_path / "plain" / "scope.json").read_text())
    capsys.readouterr()

    assert main(["extract", str(root), "--out", str(tmp_path / "out"), "--opbase", str(opbase)]) == 0
    printed = capsys.readouterr().out
    notice = f"my-ops names opbase 929902e577bb (cmake/third_party/opbase.cmake:2); the opbase read is at {_head(opbase)[:12]}"
    assert f"extract: {notice} ({opbase}); read all the same" in printed
    record, rule = _rule(tmp_path / "out")
    assert rule["template"] == "reduced_shape"
    assert {"repository": "hicann/opbase", "commit": _head(opbase), "path": DEFINED_AT,
            "line": DEFINED.splitlines().index("ge::graphStatus InferShape4Reduce(gert::InferShapeContext *context)") + 1
            } in rule["citations"]
    assert record["vendor"]["opbase"] == {"repository": "hicann/opbase", "commit": _head(opbase),
                                          "named": "929902e577bb809a377a6ab17cb7b00a4dfddc1a", "notice": notice}
    scope = json.loads((tmp_path / "out" / "scope.json").read_text())
    assert scope["opbase"] == [{"for": "my-ops", **record["vendor"]["opbase"]}]


def test_an_opbase_option_that_is_no_opbase_checkout_is_a_one_line_error(tmp_path, capsys):
    root = _documented_checkout(tmp_path / "my-ops", named="929902e577bb")
    assert main(["extract", str(root), "--out", str(tmp_path / "out"), "--opbase", str(tmp_path / "my-ops")]) == 2
    assert capsys.readouterr().err.strip().endswith("not an opbase checkout")
