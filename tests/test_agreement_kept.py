"""Nothing lost: every vendor expectation the extracted spec agreed with when the reader moved onto its
package (spec/data/agreeing_rows.txt, 3,892 rows at ops-math c41933244c31 / ops-nn e5c3fa9327ea, a
test line in a loop, read for each of its calls, listed once)
still agrees in the committed agreement (spec/data/agreement.json), which `aclnn-conformance
agreement` rewrites whenever the reader or the data change."""
from __future__ import annotations

import json
from pathlib import Path

from aclnn_conformance.extract.agreement import holds_bar

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


def test_the_readme_headline_per_family_is_the_committed_agreement():
    """The README's per-family line (issue: a headline per family) gives what agreement.json holds."""
    doc = json.loads((DATA / "agreement.json").read_text(encoding="utf-8"))
    readme = (DATA.parents[1] / "README.md").read_text(encoding="utf-8")
    for family, per in doc["per_family"].items():
        agree, of = sum(v["agree"] for v in per.values()), sum(v["of"] for v in per.values())
        st = doc["st_validity"]["per_family"][family]
        line = next((x for x in readme.splitlines() if x.startswith(f"| {family} | ")), None)
        assert line is not None, f"the README has no headline line for {family}"
        assert line.startswith(f"| {family} | {agree:,} of {of:,} | {st['valid']:,} of {st['cases']:,}"), line
        assert line.split("|")[4].strip().startswith("yes" if holds_bar(per) else "no"), line
