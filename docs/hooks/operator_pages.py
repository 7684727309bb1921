"""MkDocs hook: the manual's per-operator pages (rules, errata, values), generated at build time from the
operator records, so that no table of one operator is written by hand and none goes stale, and the
host-code reader's list of constructs, from its package's docstring. A page per
hand-specified operator (every rule with what each profile expects, the document's sentence and its
source; the errata; the precision standard of each output) and one table of the extracted operators."""
from __future__ import annotations

from mkdocs.structure.files import File

SECTION = "Rules, errata and values per operator"


def _records():
    # imported here: the build needs the project installed only when it runs, not to be configured
    from aclnn_conformance.spec import registry
    records = list(registry.operators().values())
    hand = [r for r in records if not r.modules[0].startswith("data:")]
    extracted = [r for r in records if r.modules[0].startswith("data:")]
    return hand, extracted


def _cell(value) -> str:
    text = " ".join(str(value).split())
    return text.replace("|", "\\|") or "-"


def _expect(expect) -> str:
    from aclnn_conformance.spec.rules import ByProduct
    if isinstance(expect, ByProduct):
        parts = [f"{product}: {e.describe()}" for product, e in expect.by.items()]
        return "; ".join(parts + [f"else {expect.default.describe()}"])
    return expect.describe()


def _supported(spec) -> str:
    return "; ".join(f"`{profile}`: {', '.join(sorted(products)) or 'none'}"
                     for profile, products in spec.supported.items())


def _standards(spec) -> str:
    if not spec.values_judged:
        return "status only (values not judged)"
    parts = []
    for profile, outputs in spec.standards.items():
        named = ", ".join(f"{out} {std}" for out, std in outputs.items()) if isinstance(outputs, dict) else outputs
        parts.append(f"`{profile}`: {named}")
    return "; ".join(parts) or "values judged"


def operator_page(record) -> str:
    spec = record.spec
    profiles = list(dict.fromkeys(p for rule in spec.rules for p in rule.expect))
    lines = [f"# {spec.api} (`{spec.key}`)", "",
             "Generated from the operator's record when the manual is built (`aclnn-conformance list rules "
             f"{spec.key}` prints the same). The rules are in the spec's order; a profile's expectation is "
             "what a call breaking the rule must return.", "",
             f"- document: `{spec.doc}`",
             f"- supported: {_supported(spec)}",
             f"- output standards: {_standards(spec)}",
             f"- {len(spec.rules)} rules, {len(spec.errata)} errata", "",
             "## Rules", "",
             "| rule | kind | category | step | " + " | ".join(f"`{p}`" for p in profiles)
             + " | the document says | source |",
             "|---|---|---|---|" + "---|" * len(profiles) + "---|---|"]
    for rule in spec.rules:
        expects = [_cell(_expect(rule.expect[p])) if p in rule.expect else "-" for p in profiles]
        lines.append(f"| {rule.id} | {_cell(rule.kind)} | {_cell(rule.category)} | {_cell(rule.step)} | "
                     + " | ".join(expects) + f" | {_cell(rule.text)} | {_cell(rule.source)} |")
    lines += ["", "## Doc errata", ""]
    if spec.errata:
        lines += ["| erratum | the document says | cann does | source |", "|---|---|---|---|"]
        lines += [f"| {e.id} | {_cell(e.doc_says)} | {_cell(e.cann_does)} | {_cell(e.source)} |"
                  for e in spec.errata]
    else:
        lines.append("None: the `doc` and `cann` profiles agree on this operator.")
    return "\n".join(lines) + "\n"


def index_page(hand, extracted) -> str:
    lines = [f"# {SECTION}", "",
             "Generated from the operator records when the manual is built: nothing here is written by "
             "hand. The operators specified by hand have a page each; the extracted operators are one row "
             "each below (`aclnn-conformance list rules OP` prints any operator's rules with their "
             "sources, `aclnn-conformance matrix --product P --op OP` what it accepts on a product).", "",
             "## Specified by hand", "",
             "| operator | API | rules | errata | values |", "|---|---|---|---|---|"]
    for r in hand:
        s = r.spec
        lines.append(f"| [{s.key}]({s.key}.md) | {s.api} | {len(s.rules)} | {len(s.errata)} | "
                     f"{'judged' if s.values_judged else 'status only'} |")
    lines += ["", f"## Extracted ({len(extracted)})", "",
              "| operator | API | document | rules | errata | values | supported under `cann` |",
              "|---|---|---|---|---|---|---|"]
    for r in sorted(extracted, key=lambda r: r.spec.api):
        s = r.spec
        cann = ", ".join(sorted(s.supported.get("cann", ()))) or "none"
        lines.append(f"| {s.key} | {s.api} | {_cell(s.doc)} | {len(s.rules)} | {len(s.errata)} | "
                     f"{'judged' if s.values_judged else 'status only'} | {cann} |")
    return "\n".join(lines) + "\n"


CONSTRUCTS = "extractor-constructs.md"


def constructs_page() -> str:
    """The host-code reader's modules and the C++ constructs each reads: its package docstring, kept
    beside the code it describes, rendered here so that the list and the code cannot part."""
    import re
    from aclnn_conformance.extract import host_code
    text = re.sub(r"``([^`]+)``", r"`\1`", host_code.__doc__ or "")
    return ("# The host-code reader's constructs\n\nGenerated from the docstring of the package "
            "`extract/host_code/`.\n\n" + text.strip() + "\n")


def on_config(config):
    hand, _ = _records()
    config.nav.append({"The host-code reader's constructs": CONSTRUCTS})
    config.nav.append({SECTION: ["rules/index.md", *({r.spec.api: f"rules/{r.spec.key}.md"} for r in hand)]})
    return config


def on_files(files, config):
    hand, extracted = _records()
    files.append(File.generated(config, CONSTRUCTS, content=constructs_page()))
    files.append(File.generated(config, "rules/index.md", content=index_page(hand, extracted)))
    for record in hand:
        files.append(File.generated(config, f"rules/{record.spec.key}.md", content=operator_page(record)))
    return files
