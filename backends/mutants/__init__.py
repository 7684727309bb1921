"""Deliberately broken backends: each is the emulator with one small, realistic defect.

They prove the suite's detection power: every mutant in ``MUTANTS`` must be failed by the CI tier,
on a case that exercises (or whose status is decided by) one of the rules in its ``killed_by``
(``aclnn-conformance mutate``; tests/test_mutants.py). Each operator's record names its set
(``Operator.mutants``: a ``MutantSet`` in its own module here); the tuples below are views of the
registry. Each class is importable on its own, so a mutant runs through the suites like any
backend::

    pytest suites --backend aclnn_conformance.backends.mutants:DecayBeforeStep --product atlas-a2

``EQUIVALENT`` (``equivalent``): the standards accept the defect by design; ``GAPS`` (``gap``): a
precision standard that should see the defect does not. Both are run and reported, and must stay
unkilled: once a change kills one, it moves to ``MUTANTS``. ``CONTROLS`` are defect-free variants
that must never be killed: the emulator's kernel as it is, and implementations that are correct
under the arithmetic model but compute otherwise than the oracle.
"""
from __future__ import annotations

from typing import Any

from aclnn_conformance.backends.mutants.base import Mutant, MutantSet
from aclnn_conformance.spec.registry import operators


_read: list = []   # [(the registry's records object, its mutant sets)]: read once per registry


def mutant_sets() -> dict[str, MutantSet]:
    """key -> the MutantSet of every operator that declares one (read again when the registry is)."""
    found = operators()
    if not _read or _read[0][0] is not found:
        _read[:] = [(found, {key: record.piece("mutants") for key, record in found.items()
                             if record.has("mutants")})]
    return dict(_read[0][1])


def _all(kind: str) -> tuple[type[Mutant], ...]:
    return tuple(cls for group in mutant_sets().values() for cls in getattr(group, kind))


def by_name(name: str) -> type[Mutant]:
    """A mutant class by its ``name`` (``mutant-<slug>``), its slug or its class name."""
    everything = _all("mutants") + _all("equivalent") + _all("gaps") + _all("controls")
    for cls in everything:
        if name in (cls.name, cls.name.removeprefix("mutant-"), cls.__name__):
            return cls
    # the generated sets of the extracted operators the ci sample leaves out (the full tier's)
    from aclnn_conformance.backends.mutants.surface import outside_sample
    rest = outside_sample()
    for cls in rest.mutants + rest.equivalent + rest.gaps + rest.controls:
        if name in (cls.name, cls.name.removeprefix("mutant-"), cls.__name__):
            return cls
    known = ", ".join(c.name for c in everything)
    raise ValueError(f"unknown mutant {name!r}; known: {known}")


def __getattr__(name: str) -> Any:
    """``MUTANTS``, ``EQUIVALENT``, ``GAPS``, ``CONTROLS`` (views of the registry), and any mutant
    class by its class name (``backends.mutants:DecayBeforeStep``)."""
    views = {"MUTANTS": "mutants", "EQUIVALENT": "equivalent", "GAPS": "gaps", "CONTROLS": "controls"}
    if name in views:
        return _all(views[name])
    if name[:1].isupper():
        for kind in views.values():
            for cls in _all(kind):
                if cls.__name__ == name:
                    return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MUTANTS", "EQUIVALENT", "GAPS", "CONTROLS", "Mutant", "MutantSet", "by_name",
           "mutant_sets"]
