"""The value tables of the documented surface: for each elementwise API, its function as its document
defines it, its function class, its domain, its torch mapping and the vendor's accuracy standard,
read from ``spec/data/values/<family>.json`` (data only: facts with their citations), each a JSON
list of entries (the extracted operators' loader takes an API as value-judged when an entry names it).

An entry is found by API name (``aclnnGelu``) or by operator key.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

VALUE_TABLE_SCHEMA = "aclnn-conformance/value-table/1"
VALUES_FOLDER = Path(__file__).resolve().parent / "data" / "values"
FUNCTION_CLASSES = ("exact", "rounded", "transcendental")
# what a reduction entry's ``reduction.kind`` may name (oracle/surface_reductions.py computes each;
# the summing kinds through oracle/surface_sums.py under the summation model)
# each element of a slice along one dim against the slice's exponentials, the output in the input's
# shape: e^x_i / sum_j e^x_j (the normalized exponential) and its logarithm
NORMALIZED_EXP, LOG_NORMALIZED_EXP = "normalized-exp", "log-normalized-exp"
# each element of a slice over the trailing dims the weight covers against the slice's root mean
# square: x_i / sqrt(mean(x^2) + epsilon) * weight_i (oracle/surface_norms.py), the output in the
# input's shape, the reciprocal root (and an added input's sum) as outputs by role
RMS_NORMALIZED = "rms-normalized"
# each element of a slice over the trailing dims against the slice's mean and variance: (x_i - mean) /
# sqrt(var + epsilon) * weight_i + bias_i (oracle/surface_layer_norms.py), the mean and the reciprocal
# root as outputs by role; ``dims`` may name an integer array (the normalized shape)
LAYER_NORMALIZED = "layer-normalized"
# the variance of each slice about its mean over the divisor n - correction, and its square root
VARIANCE, STANDARD_DEVIATION = "variance", "standard-deviation"
REDUCTION_KINDS = ("max", "min", "sum", "nan-sum", "average", "argmax", "argmin", "prefix-sum",
                   NORMALIZED_EXP, LOG_NORMALIZED_EXP, VARIANCE, STANDARD_DEVIATION, RMS_NORMALIZED,
                   LAYER_NORMALIZED)
# whether every element of a slice is nonzero, whether some element is (a truth value per slice)
TRUTH_KINDS = ("all-true", "any-true")
# the product of a slice's elements, and every prefix's product (the output in the input's shape)
PRODUCT_KINDS = ("product", "prefix-product")
REDUCTION_KINDS += TRUTH_KINDS + PRODUCT_KINDS
# an average: the sum divided by the slice's length; a prefix-sum: every prefix's sum, in the input's
# shape; a nan-sum: the sum with each NaN term taken as 0
SUMMING_KINDS = ("sum", "nan-sum", "average", "prefix-sum")
SCAN_KINDS = ("prefix-sum", "prefix-product")
INDEX_KINDS = ("argmax", "argmin")   # the index of the slice's extreme along one dim
NORMALIZING_KINDS = (NORMALIZED_EXP, LOG_NORMALIZED_EXP)
DEVIATION_KINDS = (VARIANCE, STANDARD_DEVIATION)   # the reduction block names its ``correction``
# the input split along one dim into two halves, an elementwise function of the halves (the entry's
# ``function`` over the names of ``reduction.halves``): the output's shape is the input's with dim halved
HALVES = "halves"
# a backward of the halves (``reduction.gradient`` names the output's gradient, of the halves' shape):
# the output in the input's shape, ``function`` its first half and ``reduction.second_function`` its second
# the gradients of a normalized exponential and of its logarithm along one dim, given the forward
# output (``reduction.forward``) and the output's gradient (``reduction.input``): the input's shape
NORMALIZED_EXP_GRAD, LOG_NORMALIZED_EXP_GRAD = "normalized-exp-grad", "log-normalized-exp-grad"
NORMALIZED_GRAD_KINDS = (NORMALIZED_EXP_GRAD, LOG_NORMALIZED_EXP_GRAD)
REDUCTION_KINDS = REDUCTION_KINDS + (HALVES,) + NORMALIZED_GRAD_KINDS
NORM_KINDS = (RMS_NORMALIZED, LAYER_NORMALIZED)   # a normalization over trailing dims, with outputs by role
# every prefix's maximum (minimum) along one dim and its position, the outputs in the input's shape
# (oracle/surface_running.py), each output named by its role in ``outputs``
RUNNING_KINDS = ("prefix-max", "prefix-min")
# the positions that sort each slice along one dim (ascending, or descending by the attribute the
# block's ``descending`` names; oracle/surface_order.py), the output in the input's shape
ORDER_KINDS = ("sort-order",)
REDUCTION_KINDS = REDUCTION_KINDS + RUNNING_KINDS + ORDER_KINDS
# two operands' elementwise products summed (a dot product) and a matrix's main diagonal summed: terms
# the summation model sums (oracle/surface_contractions.py), every element into one 0-d output
INNER_PRODUCT, DIAGONAL_SUM = "inner-product", "diagonal-sum"
CONTRACTION_KINDS = (INNER_PRODUCT, DIAGONAL_SUM)
REDUCTION_KINDS = REDUCTION_KINDS + CONTRACTION_KINDS
SUMMING_KINDS = SUMMING_KINDS + CONTRACTION_KINDS   # their terms summed under the summation model


class UnknownValueEntry(LookupError):
    """No value-table entry for that API or key."""


@dataclass(frozen=True)
class ValueEntry:
    """One API's row of a value table."""

    api: str
    key: str
    family: str
    function: str                     # an expression over the API's parameter names (oracle/surface_functions.py)
    function_class: str               # exact | rounded | transcendental
    domain: str
    inputs: tuple[str, ...]           # the parameters the function reads, in the API's order
    output: str                       # the tensor the API writes
    inplace: bool
    defaults: Mapping[str, Any]       # values of optional parameters the call leaves out
    torch: Mapping[str, Any]          # {"function", "args"} or {"expression", "why"}
    atk: Mapping[str, Any]
    tolerance: Mapping[str, Mapping[str, Any]]   # output dtype -> TTK rtol/atol with its source
    published_standard: Mapping[str, str] | None
    source: Mapping[str, Any]
    sample: Mapping[str, Any] = field(default_factory=dict)   # the harness's own values (range, attrs, dtypes)
    zero_sign: str = "judged"         # judged | either (an IEEE max/min or select may give either zero)
    note: str = ""
    # a reduction: {"kind", "input", "dims", "keepdim"[, "noop"][, "dtype"][, "index_dtype"]}, the
    # parameters by role (``index_dtype``: an index reduction's output dtype in the harness's calls)
    # (``dtype``: the attribute naming the dtype the host code casts the input to before the kernel)
    # (``correction``: a variance's attribute subtracted from n in the divisor; ``correction_flag``:
    # that attribute is a bool, true meaning 1; ``outputs``: the outputs by role where there are two;
    # ``open_without_divisor``: n - correction <= 0 with n > 1 left open; an extreme's ``outputs``
    # name each output by the kind it holds, {"max": "out", "argmax": "indices"}; ``one_dim``: dims
    # is one integer dim)
    # a norm kind (NORM_KINDS): ``dims`` names the tensor whose rank gives the trailing reduced dims,
    # ``outputs`` the other outputs by role ({"rstd": ..., "sum": ...}), judged beside ``output``
    reduction: Mapping[str, Any] | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def sums(self) -> bool:
        """A summing reduction (judged under the summation model, not its class's formula order)."""
        return self.reduction is not None and self.reduction.get("kind") in SUMMING_KINDS

    @property
    def scans(self) -> bool:
        """A scan (every prefix of each slice along one dim: the output has the input's shape)."""
        return self.reduction is not None and self.reduction.get("kind") in SCAN_KINDS

    @property
    def normalizes(self) -> bool:
        """A normalized exponential or its logarithm along one dim (the output has the input's shape)."""
        return self.reduction is not None and self.reduction.get("kind") in NORMALIZING_KINDS

    @property
    def normalized_grads(self) -> bool:
        """The gradient of a normalized exponential or of its logarithm along one dim
        (oracle/surface_normalized_grads.py)."""
        return self.reduction is not None and self.reduction.get("kind") in NORMALIZED_GRAD_KINDS

    @property
    def norms(self) -> bool:
        """A normalization over trailing dims with more than one output (oracle/surface_norms.py)."""
        return self.reduction is not None and self.reduction.get("kind") in NORM_KINDS

    @property
    def keeps_shape(self) -> bool:
        """The output has the input's shape (a scan, a normalized exponential): one dim, no keepdim."""
        return self.scans or self.normalizes or self.normalized_grads or self.norms or self.runs or self.orders

    @property
    def orders(self) -> bool:
        """The positions that sort each slice along one dim (oracle/surface_order.py)."""
        return self.reduction is not None and self.reduction.get("kind") in ORDER_KINDS

    @property
    def runs(self) -> bool:
        """Every prefix's extreme along one dim and its position (oracle/surface_running.py)."""
        return self.reduction is not None and self.reduction.get("kind") in RUNNING_KINDS

    @property
    def halves(self) -> bool:
        """An elementwise function of the input's two halves along one dim (oracle/surface_halves.py)."""
        return self.reduction is not None and self.reduction.get("kind") == HALVES

    @property
    def multiplies(self) -> bool:
        """A product or prefix product (judged under the product model, spec/surface_models.py)."""
        return self.reduction is not None and self.reduction.get("kind") in PRODUCT_KINDS

    @property
    def truths(self) -> bool:
        """A truth reduction (every element of a slice nonzero, some element nonzero)."""
        return self.reduction is not None and self.reduction.get("kind") in TRUTH_KINDS

    @property
    def indexes(self) -> bool:
        """An index reduction (the position of each slice's extreme along one dim)."""
        return self.reduction is not None and self.reduction.get("kind") in INDEX_KINDS

    @property
    def contracts(self) -> bool:
        """A dot product or a diagonal's sum: terms drawn from the operands, then summed
        (oracle/surface_contractions.py)."""
        return self.reduction is not None and self.reduction.get("kind") in CONTRACTION_KINDS

    @property
    def outputs(self) -> tuple[str, ...]:
        """Every tensor the API writes, each judged: ``output``, then the others the reduction block
        names by role (``outputs``: {"average": "meanOut", ...})."""
        roles = (self.reduction or {}).get("outputs") or {}
        return (self.output,) + tuple(name for name in roles.values() if name != self.output)

    @property
    def paired_index(self) -> tuple[str, str] | None:
        """An extreme's other output by role that is its position along the one dim: (the role's
        index kind, the output's name), e.g. ("argmax", "indices"); none where there is no such output."""
        for role, name in ((self.reduction or {}).get("outputs") or {}).items():
            if role in INDEX_KINDS and name != self.output:
                return role, name
        return None

    @property
    def deviates(self) -> bool:
        """A variance or standard deviation (judged under the variance model, oracle/surface_variance.py)."""
        return self.reduction is not None and self.reduction.get("kind") in DEVIATION_KINDS

    def citation(self) -> str:
        s = self.source
        return f"{s['repository']}@{s['commit'][:12]} {s['document']}:{s['formula_line']}"


def _entry(doc: Mapping[str, Any]) -> ValueEntry:
    if doc["class"] not in FUNCTION_CLASSES:
        raise ValueError(f"value entry {doc.get('api')}: class {doc['class']!r} is not one of "
                         f"{FUNCTION_CLASSES}")
    reduction = doc.get("reduction")
    if reduction is not None and (reduction.get("kind") not in REDUCTION_KINDS or
                                  not {"input", "dims"} <= set(reduction) or
                                  ("keepdim" not in reduction
                                   and reduction.get("kind") not in SCAN_KINDS + NORMALIZING_KINDS + (HALVES,)
                                   + NORMALIZED_GRAD_KINDS + NORM_KINDS + RUNNING_KINDS + ORDER_KINDS
                                   + CONTRACTION_KINDS)):
        raise ValueError(f"value entry {doc.get('api')}: a reduction names its kind (one of "
                         f"{REDUCTION_KINDS}), input, dims and keepdim; got {reduction!r}")
    return ValueEntry(api=doc["api"], key=doc["key"], family=doc["family"], function=doc["function"],
                      function_class=doc["class"], domain=doc["domain"],
                      inputs=tuple(doc["inputs"]), output=doc["output"],
                      inplace=bool(doc.get("inplace")), defaults=dict(doc.get("defaults", {})),
                      torch=dict(doc["torch"]), atk=dict(doc.get("atk", {})),
                      tolerance=dict(doc.get("tolerance", {})),
                      published_standard=doc.get("published_standard"),
                      source=dict(doc["source"]), zero_sign=doc.get("zero_sign", "judged"),
                      sample=dict(doc.get("sample", {})), note=doc.get("note", ""),
                      reduction=dict(reduction) if reduction is not None else None, raw=doc)


def load_value_table(path: str | Path) -> list[ValueEntry]:
    """A value table: a JSON list of entries, each with its ``schema``."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, list):
        raise ValueError(f"{path}: a value table is a JSON list of entries")
    for entry in doc:
        if entry.get("schema") != VALUE_TABLE_SCHEMA:
            raise ValueError(f"{path}: {entry.get('api')}: schema {entry.get('schema')!r}, expected "
                             f"{VALUE_TABLE_SCHEMA}")
    return [_entry(e) for e in doc]


# the project's value folder (another in its place while the registry reads another data folder as
# the project's: ``agreement --data``), then those of added data folders (--spec-data)
_PROJECT_FOLDER: list[Path] = [VALUES_FOLDER]
_ADDED_FOLDERS: list[Path] = []


def _forget_entries() -> None:
    value_entries.cache_clear()
    _by_key.cache_clear()


def use_value_folder(folder: str | Path) -> None:
    """Read the value tables of ``folder`` in place of the project's own (``spec.registry.
    use_project_data``: a data folder read as the project's brings its own ``values/``)."""
    folder = Path(folder).resolve()
    _PROJECT_FOLDER[0] = folder
    if folder in _ADDED_FOLDERS:
        _ADDED_FOLDERS.remove(folder)
    _forget_entries()


def add_value_folder(folder: str | Path) -> None:
    """Read the value tables of ``folder`` too (a data folder's ``values/``, beside its operators)."""
    folder = Path(folder).resolve()
    if folder != _PROJECT_FOLDER[0] and folder not in _ADDED_FOLDERS and folder.is_dir():
        _ADDED_FOLDERS.append(folder)
        _forget_entries()


@lru_cache(maxsize=None)
def value_entries() -> dict[str, ValueEntry]:
    """API name -> entry, over every value table of the project and of the added data folders."""
    found: dict[str, ValueEntry] = {}
    folders = [f for f in (_PROJECT_FOLDER[0], *_ADDED_FOLDERS) if f.is_dir()]
    for path in [p for folder in folders for p in sorted(folder.glob("*.json"))]:
        if not isinstance(json.loads(path.read_text(encoding="utf-8")), list):
            continue  # the vocabulary of the functions, not a table
        for entry in load_value_table(path):
            if entry.api in found:
                raise ValueError(f"{path}: {entry.api} has two value entries")
            found[entry.api] = entry
    return found


def value_entry(op: str) -> ValueEntry:
    """The entry of an operator, by API name or key (the extracted operators' keys are the
    entries' keys: the API name without ``aclnn`` in snake_case)."""
    entries = value_entries()
    if op in entries:
        return entries[op]
    found = _by_key().get(op)
    if found is None:
        raise UnknownValueEntry(f"no value entry for {op!r}")
    return found


@lru_cache(maxsize=None)
def _by_key() -> dict[str, ValueEntry]:
    return {e.key: e for e in value_entries().values()}


def has_value_entry(op: str) -> bool:
    try:
        value_entry(op)
    except UnknownValueEntry:
        return False
    return True


def value_domain_rule(entry: ValueEntry, key: str, prefix: str) -> Any:
    """The value rule of a value-judged API, ``<prefix>-VALUE-001``: its function over its domain,
    judged by its class's standard; a call outside the domain (``outside_domain``) is not judged.
    Every value case names it."""
    from aclnn_conformance.spec.rules import NOT_JUDGED, Rule
    return Rule(id=f"{prefix}-VALUE-001", op=key, kind="value", category="value",
                text=f"{entry.function} over {entry.domain} ({entry.function_class})",
                source=entry.citation(), expect={"cann": NOT_JUDGED, "doc": NOT_JUDGED},
                violated=outside_domain)


_COMPUTABLE = frozenset({"FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "INT16", "INT32", "INT64",
                         "UINT8", "BOOL"})


def operand_shape(case: Any, entry: ValueEntry, name: str) -> tuple[int, ...] | None:
    """The shape an input tensor takes in the function's broadcast: its own, or for a per-channel
    operand (``channel_operands``: {name: {"of": input, "dim": 1}}) one element broadcast to all, or
    one per channel of that input's dim laid along it (the input of rank 1 or less has one channel);
    None for a per-channel operand of another size (outside the function)."""
    arg = case.tensors[name]
    shape = tuple(arg.desc.shape)
    channel = (entry.raw.get("channel_operands") or {}).get(name)
    if channel is None:
        return shape
    of = tuple(case.tensor(channel["of"]).desc.shape)
    size = 1
    for d in shape:
        size *= d
    if size == 1:
        return ()
    dim = channel["dim"]
    if len(of) <= dim or size != of[dim]:
        return None
    return tuple(size if i == dim else 1 for i in range(len(of)))


def outside_domain(case: Any) -> bool:
    """Whether a call is outside what the entry's function defines: an operand or the output
    missing, a dtype the function is not computed in, or operands that do not broadcast to the
    output (such calls succeed only where a profile does not check them; their values are not
    judged). A transcendental computed in DOUBLE is outside too: no vendor standard gives a number
    for float64, and a float64 NumPy evaluation is no finer than the result it would judge."""
    try:
        entry = value_entry(case.op)
    except UnknownValueEntry:
        return False
    out = case.tensors.get(entry.output)
    if out is None or out.desc.dtype.name not in _COMPUTABLE:
        return True
    if entry.norms:
        return _outside_norm(case, entry)
    others = [case.tensors.get(name) for name in entry.outputs[1:]]
    if any(o is None or o.desc.dtype.name not in _COMPUTABLE or _outside_reduction(case, entry, o)
           for o in others):
        return True
    if entry.reduction is not None:
        return _outside_reduction(case, entry, out)
    if entry.raw.get("movement"):   # data movement: the output's shape from an attribute
        from aclnn_conformance.spec.surface_movement import outside_movement
        return outside_movement(case, entry, _COMPUTABLE)
    if entry.raw.get("conversion"):   # a conversion's target attribute must name the output's dtype
        src = case.tensors.get(entry.raw["conversion"]["input"])
        target = case.attrs.get(entry.raw["conversion"]["attr"])
        target = target.get("value") if isinstance(target, Mapping) else target
        # the host code casts to the attribute's dtype and copies into out: judged where they agree
        return src is None or src.desc.dtype.name not in _COMPUTABLE or target is None or \
            int(target) != int(out.desc.dtype)
    shapes = []
    for name in entry.inputs:
        if name in case.tensors:
            arg = case.tensors[name]
            if arg is None or arg.desc.dtype.name not in _COMPUTABLE:
                return True
            shape = operand_shape(case, entry, name)
            if shape is None:   # a per-channel operand of neither one element nor one per channel
                return True
            # an outer product's left operand (``columns``) is read as a column
            shapes.append(shape + ((1,) if name in entry.raw.get("columns", ()) else ()))
            if (entry.function_class == "transcendental" and arg.desc.dtype.name == "DOUBLE"
                    and "float64" not in entry.tolerance):
                return True
        elif name not in case.attrs and name not in entry.defaults:
            return True
        elif name in case.attrs and case.attrs[name] is None and name not in entry.defaults:
            return True
    try:
        import numpy as np
        if np.broadcast_shapes(*shapes, tuple(out.desc.shape)) != tuple(out.desc.shape):
            return True
    except ValueError:
        return True
    return _subtracts_booleans(case, entry)


def norm_sources(entry: ValueEntry) -> tuple[str, ...]:
    """The tensors normalized: the addends, or the one input."""
    red = entry.reduction
    return tuple(red.get("addends") or (red["input"],))


def norm_reduced_rank(case: Any, entry: ValueEntry) -> int:
    """The number of trailing dims reduced: the rank of the tensor ``dims`` names (or the length of
    the integer array it names)."""
    dims = entry.reduction["dims"]
    if dims not in case.tensors:
        value = case.attrs.get(dims)
        return len(value) if isinstance(value, (list, tuple)) else 0
    return case.tensor(dims).desc.ndim


def _outside_norm(case: Any, entry: ValueEntry) -> bool:
    """A call outside the documents' function: an operand or output missing or not a float tensor,
    a weight that is not the input's trailing shape, an output of another shape than the input's
    (the reciprocal root: the leading dims, with or without the reduced ones as 1)."""
    red = entry.reduction
    # ``dims`` an integer array (not a tensor); ``optional``: tensors a call may leave null
    shaped = (red["dims"],) if red["dims"] in case.tensors else ()
    names = norm_sources(entry) + shaped + entry.outputs
    for extra in (red.get("weight"), red.get("bias")):
        if extra and extra not in names:
            names += (extra,)
    optional = set(red.get("optional", ()))
    for name in names:
        arg = case.tensors.get(name)
        if arg is None and name in optional:
            continue
        if arg is None or arg.desc.dtype.name not in ("FLOAT", "FLOAT16", "BF16"):
            return True
    shape = tuple(case.tensor(norm_sources(entry)[0]).desc.shape)
    k = norm_reduced_rank(case, entry)
    if any(tuple(case.tensor(n).desc.shape) != shape for n in norm_sources(entry)) or not 1 <= k <= len(shape):
        return True
    trailing = shape[len(shape) - k:]
    if not shaped and tuple(int(v) for v in case.attrs.get(red["dims"])) != trailing:
        return True
    for name in shaped + tuple(n for n in (red.get("weight"), red.get("bias")) if n):
        if case.tensors.get(name) is not None and tuple(case.tensor(name).desc.shape) != trailing:
            return True
    outputs = red.get("outputs", {})
    for role, name in [("y", entry.output), *outputs.items()]:
        if case.tensors.get(name) is None:
            continue
        got = tuple(case.tensor(name).desc.shape)
        if role in ("rstd", "average"):
            lead = shape[:len(shape) - k]
            if got not in (lead + (1,) * k, lead):
                return True
        elif got != shape:
            return True
    return False


def _subtracts_booleans(case: Any, entry: ValueEntry) -> bool:
    """Every tensor operand BOOL (the compute dtype then BOOL) in a function that subtracts or
    negates: no document says what BOOL - BOOL yields (the vendor's Sub accepts the dtype), and
    booleans have no subtraction to evaluate it with, so its values are not judged."""
    import ast
    tensors = [case.tensors[n] for n in entry.inputs if case.tensors.get(n) is not None]
    if not tensors or any(t.desc.dtype.name != "BOOL" for t in tensors):
        return False
    return any(isinstance(node, (ast.Sub, ast.USub))
               for node in ast.walk(ast.parse(entry.function, mode="eval")))


def fixed_call(case: Any, entry: ValueEntry) -> Any:
    """The call with the dims and keepdim its API fixes (the reduction block's ``fixed_dims``:
    {"from": k, "keepdim": bool}, every dim from k on) written as the attributes the block's
    ``dims`` and ``keepdim`` roles name, so that the reductions read them as a call's; other calls
    as they are."""
    red = entry.reduction or {}
    fixed = red.get("fixed_dims")
    src = case.tensors.get(red.get("input")) if fixed else None
    if not fixed or src is None:
        return case
    return case.with_attrs(**{red["dims"]: list(range(int(fixed["from"]), src.desc.ndim)),
                              red["keepdim"]: bool(fixed.get("keepdim", False))})


def reduction_shape(case: Any, entry: ValueEntry) -> tuple[int, ...] | None:
    """The shape the entry's reduction leaves for the call (None: no input, or a dim out of range)."""
    from aclnn_conformance.spec.templates import reduced_shape
    red = entry.reduction or {}
    case = fixed_call(case, entry)
    src = case.tensors.get(red.get("input"))
    if src is None:
        return None
    if entry.keeps_shape:
        return tuple(src.desc.shape)
    if entry.halves:   # the halves' shape, or the input's for a backward (spec/surface_halves.py)
        from aclnn_conformance.spec.surface_halves import halves_output_shape
        return halves_output_shape(case, entry)
    flag = lambda name: bool(case.attrs.get(name)) if name else False
    return reduced_shape(tuple(src.desc.shape), case.attrs.get(red["dims"]), flag(red.get("keepdim")),
                         flag(red.get("noop")))


def _outside_reduction(case: Any, entry: ValueEntry, out: Any) -> bool:
    """A reduction's call outside its function: its input missing or of a dtype it is not computed
    in, or an output whose shape is not the reduction's."""
    src = case.tensors.get(entry.reduction["input"])
    if src is None or src.desc.dtype.name not in _COMPUTABLE:
        return True
    if (entry.function_class == "transcendental" and "DOUBLE" in (src.desc.dtype.name, out.desc.dtype.name)
            and "float64" not in entry.tolerance):   # no number of the vendor's for a DOUBLE result
        return True
    return reduction_shape(case, entry) != tuple(out.desc.shape)


def tolerance_aux(entry: ValueEntry, out_dtype: Any) -> dict[str, Any]:
    """The vendor's numbers for the API's output dtype: TTK's rtol/atol with their source, or
    nothing (the published standard by dtype, in the standard itself)."""
    import numpy as np

    from aclnn_conformance.spec.precision import dtype_name
    found = entry.tolerance.get(dtype_name(np.dtype(out_dtype)))
    if not found:
        return {"source": (entry.published_standard or {}).get("source", "published standard")}
    return {"rtol": found["rtol"], "atol": found["atol"], "source": found["source"]}


def reduction_operands(case: Any, entry: ValueEntry) -> tuple[Any, Any, Any, tuple[int, ...]]:
    """A reduction call's input view (read once), its output argument, the output's dtype and shape."""
    import numpy as np
    arg = case.tensor(entry.reduction["input"])
    out_arg = case.tensor(entry.output)
    return (np.asarray(arg.view_of(arg.storage)), out_arg, np.dtype(out_arg.storage.dtype),
            tuple(out_arg.desc.shape))
