"""The generated aclnn layer of an operator, read from its OpDef (``op_host/<op>_def.cpp``): the checks
the generated GetWorkspaceSize and the nnopbase runtime make before the tiling, as events.

What the runtime does (``../shared/notes/apply_adam_w_quant.md`` section 10, read from opbase): the
generated code rejects a null REQUIRED tensor (161001); the runtime rewrites the ND-like formats to
ND and matches each tensor's (dtype, format) against the columns of the OpDef the SoC's AddConfig
names (161002 when no column matches); a SoC no AddConfig names has no kernel (an error, inferred);
every output empty skips the tiling. The tiling's own checks are not read (as for every extracted
API). A construct outside this subset (DataTypeList, Follow, a list held in a variable, columns of
unequal length) leaves the layer unread."""
from __future__ import annotations

import re
from dataclasses import dataclass

from aclnn_conformance.extract.cpp import match_close, split_args, strip_comments
from aclnn_conformance.extract.host_code import Event, Unreadable, _args
from aclnn_conformance.spec.enums import ND_LIKE_FORMATS

# the OpDef's SoC names -> the products (the kirin and mc62 configurations serve no product here)
SOC_PRODUCTS = {"ascend950": "ascend950", "ascend910_93": "atlas-a3", "ascend910b": "atlas-a2",
                "ascend310b": "atlas-200i-500-a2", "ascend310p": "atlas-inference", "ascend910": "atlas-training"}
_CTOR = re.compile(r"explicit\s+(\w+)\s*\(\s*const\s+char\s*\*\s*\w+\s*\)\s*:\s*OpDef\s*\(\s*\w+\s*\)\s*\{")
_HELPER = re.compile(r"OpAICoreConfig\s+(\w+)\s*\(\s*\)\s*(?:const\s*)?\{")
_DEF = re.compile(r"^(this->|\w+\.)(Input|Output)\(\s*\"(\w+)\"\s*\)")
_ND_LIKE = {"ND"} | {f.name for f in ND_LIKE_FORMATS}
# a list named at file scope: static const std::vector<ge::DataType> xDtype = {ge::DT_FLOAT, ...};
_NAMED_LIST = re.compile(r"std::vector\s*<\s*ge::(?:DataType|Format)\s*>\s+(\w+)\s*=\s*\{")
_UNREAD_CALLS = ("DataTypeList", "FormatList", "Follow", "DataTypeForBinQuery", "FormatForBinQuery")


@dataclass(frozen=True)
class TensorDef:
    """One Input or Output of an OpDef (or of one SoC's OpAICoreConfig)."""

    role: str                        # input | output
    name: str                        # the OpDef's name ("x", "grad_y")
    param_type: str                  # REQUIRED | OPTIONAL | DYNAMIC
    dtypes: tuple[str, ...]          # one per column, aclDataType names ("FLOAT16")
    formats: tuple[str, ...]         # one per column, aclFormat names ("ND")
    line: int


@dataclass(frozen=True)
class OpDef:
    path: str
    name: str
    tensors: tuple[TensorDef, ...]                    # the op-level definitions, in order
    configs: dict[str, tuple[TensorDef, ...]]         # OpAICoreConfig variable -> its own definitions
    socs: tuple[tuple[str, str | None, int], ...]     # (SoC, its config variable or None, line)

    def for_product(self, product: str) -> tuple[tuple[TensorDef, ...], int] | None:
        """The definitions that serve ``product`` (a config's own replace the op-level ones of the
        same name) and the AddConfig line; None when no AddConfig names its SoC."""
        for soc, config, line in self.socs:
            if SOC_PRODUCTS.get(soc) == product:
                own = {d.name + d.role: d for d in self.configs.get(config or "", ())}
                return tuple(own.get(d.name + d.role, d) for d in self.tensors), line
        return None


def read_opdef(path: str, text: str) -> OpDef:
    """The OpDef of a ``_def.cpp``; Unreadable when a construct is outside the subset read."""
    clean = strip_comments(text)
    m = _CTOR.search(clean)
    if m is None:
        raise Unreadable("no OpDef constructor")
    lists = {n.group(1): clean[n.end():match_close(clean, n.end() - 1, "{", "}")]
             for n in _NAMED_LIST.finditer(clean)}
    helpers: dict[str, tuple[TensorDef, ...]] = {}
    for h in _HELPER.finditer(clean):
        end = match_close(clean, h.end() - 1, "{", "}")
        defs, _configs, _socs, returned = _read_body(clean, h.end(), end, {}, lists)
        if returned is not None:
            helpers[h.group(1)] = _configs.get(returned, ())
    end = match_close(clean, m.end() - 1, "{", "}")
    tensors, configs, socs, _ = _read_body(clean, m.end(), end, helpers, lists)
    if not tensors:
        raise Unreadable("the OpDef defines no Input or Output")
    return OpDef(path, m.group(1), tuple(tensors), configs, tuple(socs))


def _read_body(clean: str, start: int, end: int, helpers: dict,
               lists: dict[str, str]) -> tuple[list, dict, list, str | None]:
    tensors: list[TensorDef] = []
    configs: dict[str, list[TensorDef]] = {}
    socs: list[tuple[str, str | None, int]] = []
    returned = None
    offset = start
    for stmt in clean[start:end].split(";"):
        line = clean.count("\n", 0, offset + len(stmt) - len(stmt.lstrip())) + 1
        offset += len(stmt) + 1
        s = " ".join(stmt.split())
        if not s:
            continue
        if d := _DEF.match(s):
            owner = d.group(1)
            defined = _tensor_def(d.group(2).lower(), d.group(3), s, line, lists)
            if owner == "this->":
                tensors.append(defined)
            else:
                configs.setdefault(owner[:-1], []).append(defined)
        elif a := re.match(r"this->AICore\(\)\.AddConfig\(\s*\"(\w+)\"\s*(?:,\s*(\w+)\s*)?\)$", s):
            socs.append((a.group(1), a.group(2), line))
        elif c := re.match(r"OpAICoreConfig\s+(\w+)\s*=\s*(\w+)\(\s*\)$", s):
            if c.group(2) not in helpers:
                raise Unreadable(f"the configuration {c.group(1)} comes from {c.group(2)}(), which is not read")
            configs[c.group(1)] = list(helpers[c.group(2)])
        elif r := re.match(r"return\s+(\w+)$", s):
            returned = r.group(1)
    return tensors, configs, socs, returned


def _tensor_def(role: str, name: str, stmt: str, line: int, lists: dict[str, str]) -> TensorDef:
    for call in _UNREAD_CALLS:
        if f".{call}(" in stmt:
            raise Unreadable(f"{role} {name}: {call} is not read")
    ptype = re.search(r"\.ParamType\(\s*(\w+)\s*\)", stmt)
    if ptype and ptype.group(1) not in ("REQUIRED", "OPTIONAL"):
        raise Unreadable(f"{role} {name}: a {ptype.group(1)} parameter (a tensor list) is not read")
    dtypes = _list_of(stmt, "DataType", "ge::DT_", name, lists)
    formats = _list_of(stmt, "Format", "ge::FORMAT_", name, lists)
    if len(dtypes) != len(formats):
        raise Unreadable(f"{role} {name}: {len(dtypes)} dtypes beside {len(formats)} formats")
    return TensorDef(role, name, ptype.group(1) if ptype else "REQUIRED", dtypes, formats, line)


def _list_of(stmt: str, call: str, prefix: str, name: str, lists: dict[str, str]) -> tuple[str, ...]:
    """The items of ``.DataType({...})`` (or ``.Format``), written in place or named at file scope."""
    if m := re.search(rf"\.{call}\(\s*\{{", stmt):
        text = stmt[m.end():match_close(stmt, m.end() - 1, "{", "}")]
    elif (m := re.search(rf"\.{call}\(\s*(\w+)\s*\)", stmt)) and m.group(1) in lists:
        text = lists[m.group(1)]
    else:
        raise Unreadable(f"{name}: no {call} list written in place or named at file scope")
    items = [x.strip() for x in split_args(text)]
    if not all(x.startswith(prefix) for x in items):
        raise Unreadable(f"{name}: a {call} item that is not a {prefix} constant")
    return tuple(x[len(prefix):] for x in items)


def bind(opdef: OpDef, documented: list[str]) -> dict[str, str]:
    """The OpDef's tensor names -> the document's tensor parameters (``documented``, in the
    prototype's order), by position: the generated prototype lists the inputs, then the outputs (an
    output named as an input is that input, one ``Ref`` parameter)."""
    order: list[str] = []
    for d in opdef.tensors:
        if d.name not in order:
            order.append(d.name)
    if len(order) != len(documented):
        raise Unreadable(f"the OpDef has {len(order)} tensors ({', '.join(order)}), the document's "
                         f"prototype {len(documented)}")
    return dict(zip(order, documented))


def generated_events(opdef: OpDef, names: dict[str, str], product: str) -> list[Event]:
    """The checks of the generated layer on ``product``, in order (see the module's docstring)."""
    events: list[Event] = []
    path = opdef.path
    seen: set[str] = set()
    for d in opdef.tensors:   # the generated code: each REQUIRED tensor once, in the prototype's order
        if d.name not in seen and d.param_type == "REQUIRED":
            events.append(Event("check", "null", _args(param=names[d.name]), 161001, path, d.line,
                                f"generated: {names[d.name]} == nullptr"))
        seen.add(d.name)
    served = opdef.for_product(product)
    if served is None:
        events.append(Event("check", "product", (), None, path, opdef.socs[0][2] if opdef.socs else 1,
                            "no AddConfig names the SoC: no kernel serves the call"))
        return events
    defs, line = served
    by_name: dict[str, TensorDef] = {}
    for d in defs:   # a Ref tensor is matched once, as its input
        by_name.setdefault(d.name, d)
    columns = {len(d.dtypes) for d in by_name.values()}
    if len(columns) != 1:
        raise Unreadable(f"the definitions serving {product} have columns of unequal counts")
    params = [names[n] for n in by_name]
    for n, d in by_name.items():
        events.append(Event("check", "dtype_in", _args(param=names[n], dtypes=sorted(set(d.dtypes))),
                            161002, path, d.line, f"{d.role} {n}: DataType({', '.join(d.dtypes)})"))
    for n, d in by_name.items():
        accepted = set(d.formats) | (_ND_LIKE if "ND" in d.formats else set())
        events.append(Event("check", "format_in", _args(param=names[n], formats=sorted(accepted)),
                            161002, path, d.line, f"{d.role} {n}: Format({', '.join(d.formats)}); the "
                            "runtime rewrites NCL, NCDHW, DHWCN, NHWC and NCHW to ND"))
    combinations = sorted({tuple((d.dtypes[i], d.formats[i]) for d in by_name.values())
                           for i in range(columns.pop())})
    every = 1
    for d in by_name.values():
        every *= len(set(zip(d.dtypes, d.formats)))
    if len(combinations) < every:   # the columns tie the tensors' dtypes together
        events.append(Event("check", "combination_in",
                            _args(params=params, combinations=tuple(combinations)),
                            161002, path, line, "the (dtype, format) columns of the OpDef: "
                            + "; ".join("(" + ", ".join(p[0] for p in c) + ")" for c in combinations)[:300]))
    outputs = sorted({names[d.name] for d in defs if d.role == "output"})
    if outputs:
        events.append(Event("empty", "empty", _args(params=outputs, any=False), 0, path, line,
                            "every output empty: the runtime skips the tiling"))
    return events

