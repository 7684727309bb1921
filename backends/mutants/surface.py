"""Interface mutants of every data operator, generated from its data: an accepted dtype missing from
a list, a check missing, two checks of different statuses run in swapped order; and a control, the
checks of one status run in another order (correct: the first violated check of a status gives
the same status whichever of them runs first). Each class is built per operator, named after its
rule ids."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.call_layer import to_raw_call
from aclnn_conformance.backends.emulator.surface import call_view, checks, first_violation
from aclnn_conformance.backends.mutants.base import Mutant, MutantSet, MutantSetsByKey
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.templates import guard_holds, view_of_case


class SurfaceMutant(Mutant):
    """The emulator with the operator's checks in ``order`` (a changed copy of the data's)."""

    order: tuple = ()

    def mutate(self, case: Case, product: str) -> RunResult:
        hit = first_violation(self.op, call_view(to_raw_call(case), product), self.order)
        normal = first_violation(self.op, call_view(to_raw_call(case), product))
        if hit == normal:
            return self.emulate(case, product)
        if hit is None:  # the mutant accepts what the emulator rejects: nothing is written
            return RunResult(int(Status.SUCCESS), case.copy_storages(), 0, "launch", "")
        return self.reject(case, hit[1], f"{hit[0]} violated")


class DtypeMissing(SurfaceMutant):
    """Rejects one dtype its list accepts."""

    dtype = ""
    param = ""

    def mutate(self, case: Case, product: str) -> RunResult:
        view = call_view(to_raw_call(case), product)
        t = view.tensor(self.param)
        first = first_violation(self.op, view)
        if t is not None and t.dtype == self.dtype and first is None:
            return self.reject(case, 161002, f"{self.param} dtype {self.dtype} not supported")
        return self.emulate(case, product)


def _slug(rule_id: str) -> str:
    return rule_id.lower()


# Every extracted operator's mutants are built the same way from its data, so a fixed-seed sample of
# the operators shows the suite's detection power at a cost the main job can pay.
MUTANT_SHARE = 0.03
MUTANT_SEED = "aclnn-conformance-mutants-1"


def _draw(key: str) -> float:
    import hashlib
    digest = hashlib.sha1(f"{MUTANT_SEED}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2 ** 32


def value_group(entry: Any) -> tuple:
    """What decides which value mutants an entry gets: its family, function class and reduction kind
    (or its conversion block: a cast's rounding, overflow and wrap mutants)."""
    kind = (entry.reduction or {}).get("kind") or ("conversion" if entry.raw.get("conversion") else None)
    kind = kind or (entry.raw.get("movement") or {}).get("kind")   # data movement: its kind's own mutants
    return entry.family, entry.function_class, kind


def sampled(key: str) -> bool:
    """In the ci sample: drawn (``MUTANT_SHARE`` of the operators by a fixed hash), or the first
    operator in draw order whose values are judged of a (family, function class, reduction kind)
    group that the drawn ones leave without one, so that every kind of value mutant of every family
    (the summing, scanning, index and normalizing reductions' own) runs in the ci tier."""
    if _draw(key) < MUTANT_SHARE:
        return True
    from aclnn_conformance.spec.registry import is_data_operator, operators
    keys = tuple(sorted(k for k in operators() if is_data_operator(k)))
    return key in _completion(MUTANT_SHARE, keys)


@lru_cache(maxsize=4)
def _completion(share: float, keys: tuple[str, ...]) -> frozenset[str]:
    from aclnn_conformance.backends.mutants.surface_values import _judged_somewhere
    from aclnn_conformance.spec.surface_values import has_value_entry, value_entry

    def group(k: str) -> tuple:
        return value_group(value_entry(k))

    valued = sorted((k for k in keys if has_value_entry(k)), key=_draw)
    covered = {group(k) for k in valued if _draw(k) < share and _judged_somewhere(k)}
    added = set()
    for k in valued:
        if group(k) not in covered and _judged_somewhere(k):
            covered.add(group(k))
            added.add(k)
    return frozenset(added)


def outside_sample() -> MutantSet:
    """The generated mutants, controls and gaps of every extracted operator the ci sample leaves out,
    as one set: the full tier runs them beside the registry's."""
    from aclnn_conformance.spec.registry import is_data_operator, operators
    sets = [mutant_set(key, everyone=True) for key in operators() if is_data_operator(key) and not sampled(key)]
    return MutantSet(*(tuple(cls for s in sets for cls in getattr(s, kind))
                       for kind in ("mutants", "controls", "equivalent", "gaps")))


@lru_cache(maxsize=None)
def mutant_set(key: str, everyone: bool = False) -> MutantSet:
    """The operator's interface mutants and control, and its value mutants and controls (none for an
    operator outside the sample, unless ``everyone``)."""
    if not (everyone or sampled(key)):
        return MutantSet()
    from aclnn_conformance.spec.registry import operator
    record = operator(key)
    order = checks(key)
    faulted = record.piece("faults")
    made: list[type] = []
    controls: list[type] = []
    base = record.piece("base_call")()
    ids = [rid for rid, _, _ in order]
    # one accepted dtype missing: the base call's dtype of the first code-read dtype list. Where no product
    # expects the base call to succeed (it reaches a check the extractor could not read, or the
    # products that take it do not support the API), nothing can kill it: a gap of the spec,
    # named, run and kept unkilled
    gap = _unjudged_base(record, base, key)
    for rid, _, expect in order:
        rule = next(r for r in data_of(key)["rules"] if r["id"] == rid)
        # a list the code checks (the run is under cann, where a document-only list is not judged)
        when = rule["args"].get("when")   # a list under a guard the base call does not take: not its list
        if when is not None and guard_holds(view_of_case(base), when) is not True:
            continue
        if rule["template"] == "dtype_in" and rule["known_by"] == "code" and rule["args"]["param"] in base.tensors:
            arg = base.tensors[rule["args"]["param"]]
            if arg is not None and arg.desc.dtype.name in rule["args"]["dtypes"]:
                made.append(DtypeMissing.declare(
                    f"DtypeMissing_{rid.replace('-', '_')}", name=f"mutant-{_slug(rid)}-dtype-missing",
                    defect=f"{rule['args']['param']} {arg.desc.dtype.name} rejected, though {rid} accepts it",
                    killed_by=(rid,), op=key, param=rule["args"]["param"], dtype=arg.desc.dtype.name, gap=gap))
                break
    # a check missing: the first faulted check
    for rid in ids:
        if rid in faulted:
            made.append(SurfaceMutant.declare(
                f"CheckMissing_{rid.replace('-', '_')}", name=f"mutant-{_slug(rid)}-missing",
                defect=f"check {rid} is not made", killed_by=(rid,), op=key,
                order=tuple(o for o in order if o[0] != rid)))
            break
    # two checks of different statuses in swapped order: the first fault pair that sees it
    pair = _swappable_pair(key, order)
    if pair:
        a, b, swapped = pair
        made.append(SurfaceMutant.declare(
            f"Swapped_{a.replace('-', '_')}_{b.replace('-', '_')}", name=f"mutant-{_slug(a)}-after-{_slug(b)}",
            defect=f"{b} checked before {a}", killed_by=(a, b), op=key, order=swapped))
    # the control: each run of consecutive checks of one status reversed
    runs: list[list] = []
    for o in order:
        if runs and runs[-1][0][2].get("status") == o[2].get("status"):
            runs[-1].append(o)
        else:
            runs.append([o])
    reordered = tuple(o for run in runs for o in reversed(run))
    if reordered != order:
        controls.append(SurfaceMutant.declare(
            f"Control_{key}", name=f"control-{key.replace('_', '-')}-same-status-reordered",
            defect="no defect: each run of checks of one status in reverse order", op=key, order=reordered))
    mutants, gaps = tuple(m for m in made if not getattr(m, "gap", "")), tuple(m for m in made if getattr(m, "gap", ""))
    from aclnn_conformance.spec.surface_values import has_value_entry
    if has_value_entry(key):  # the value mutants and controls of a value-judged operator
        from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS as VALUE_SETS
        values = getattr(VALUE_SETS, key)
        return MutantSet(mutants=mutants + values.mutants, controls=tuple(controls) + values.controls,
                         equivalent=values.equivalent, gaps=gaps)
    return MutantSet(mutants=mutants, controls=tuple(controls), gaps=gaps)


def _unjudged_base(record, base: Case, key: str) -> str:
    """Why no product expects the base call, nor a ci table case of its dtypes, to succeed ("" when
    one does: that call can show a dtype rejected)."""
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.spec.rules import expected_outcome
    from aclnn_conformance.spec.single_calls import table_cases
    dtypes = {n: a.desc.dtype for n, a in base.tensors.items() if a is not None}
    calls = [base] + [c for c in table_cases(key, "ci")
                      if all(c.tensors.get(n) is not None and c.tensors[n].desc.dtype == d for n, d in dtypes.items())]
    found = [expected_outcome(record.spec, c, p, "cann") for c in calls for p in PRODUCT_IDS]
    if any(e.kind == "success" for e in found):
        return ""
    why = sorted({f"{e.kind} by {e.rule_id}" for e in found if e.rule_id})
    return (f"no product expects the base call to succeed ({', '.join(why)}: the extractor did not "
            f"read that check, or the product is unsupported), so no valid call can show a dtype "
            f"rejected")


def _swappable_pair(key: str, order: tuple) -> tuple[str, str, tuple] | None:
    """(earlier, later, the order with the later moved before the earlier) for the first fault pair
    of the operator whose status the swap changes on some product."""
    from aclnn_conformance.spec.faults import fault_pair_cases
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.spec.registry import operator
    ids = [o[0] for o in order]
    for case in fault_pair_cases(operator(key).spec):
        a, b = case.rule_ids
        if a not in ids or b not in ids:
            continue
        moved = [o for o in order if o[0] != b]
        moved.insert([o[0] for o in moved].index(a), order[ids.index(b)])
        swapped = tuple(moved)
        raw = to_raw_call(case)
        for product in PRODUCT_IDS:
            view = call_view(raw, product)
            normal, mutated = first_violation(key, view), first_violation(key, view, swapped)
            if normal and mutated and normal[1] != mutated[1]:
                return a, b, swapped
    return None


MUTANT_SETS = MutantSetsByKey(mutant_set)
