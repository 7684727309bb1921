"""Nothing lost: every vendor expectation the extracted spec agreed with when the reader moved onto its
package (spec/data/agreeing_rows.txt, 3,892 rows at ops-math c41933244c31 / ops-nn e5c3fa9327ea, a
test line in a loop, read for each of its calls, listed once)
still agrees in the committed agreement (spec/data/agreement.json), which `aclnn-conformance
agreement` rewrites whenever the reader or the data change."""
from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "spec" / "data"


def _kept() -> list[tuple[str, str, str]]:
    lines = (DATA / "agreeing_rows.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split(" ")) for line in lines if line and not line.startswith("#")]


def test_every_row_that_agreed_still_agrees():
    kept = _kept()
    assert len(kept) >= 3892 and len(set(kept)) == len(kept)
    doc = json.loads((DATA / "agreement.json").read_text(encoding="utf-8"))
    rows = {(r["source"], r["product"], r["api"]): r for r in doc["rows"]}
    # an API held out of the operator data later has no rows: it is listed apart, with its reason
    held = {h["api"] for h in doc.get("held_out", ()) if h["why"] and sum(h["expectations"].values())}
    lost = [" ".join(k) for k in kept if k[2] not in held and (k not in rows or not rows[k]["agree"])]
    assert not lost, f"{len(lost)} expectation(s) no longer agree: " + "; ".join(lost[:10])
