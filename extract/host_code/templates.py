"""Function templates: a call binding a template's parameters (a parameter pack, ``const Ts&... args``,
takes the remaining arguments; a type parameter, ``const T& t``, is deduced from the declared C++ type
of its argument), a pack expanded into a call (``F(args...)``: the same function on the pack's
arguments), and ``if constexpr`` decided when the template is instantiated: ``sizeof...(args)`` is the
pack's length, ``std::is_same_v`` compares types, ``std::remove_const_t`` drops a top-level const."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from tree_sitter import Node

from aclnn_conformance.extract.cpp import Function, Stmt
from aclnn_conformance.extract.syntax import Parsed, parsed
from aclnn_conformance.extract.host_code.model import Unreadable, Walk

_POINTERS = ("pointer_declarator", "abstract_pointer_declarator")
_REFERENCES = ("reference_declarator", "abstract_reference_declarator")


@dataclass(frozen=True)
class CppType:
    """A C++ type as the checks compare it: its base type's name, whether that is const, and per
    pointer level from the base outward whether that pointer is const (``const aclTensor*``:
    ("aclTensor", True, (False,)); ``aclTensor* const``: ("aclTensor", False, (True,)))."""
    base: str
    const: bool = False
    pointers: tuple[bool, ...] = ()

    def without_top_const(self) -> CppType:
        """``std::remove_const_t``: only the const of the type itself goes (the last pointer's, or the
        base's when no pointer), never that of what a pointer points to."""
        if self.pointers:
            return replace(self, pointers=(*self.pointers[:-1], False))
        return replace(self, const=False)

    def with_top_const(self) -> CppType:
        """The type made const itself (``const T`` of a pointer T: the pointer const)."""
        if self.pointers:
            return replace(self, pointers=(*self.pointers[:-1], True))
        return replace(self, const=True)


@dataclass(frozen=True)
class Declared:
    """A declaration's type: the type, whether it is a reference, whether it declares a pack."""
    type: CppType
    reference: bool = False
    pack: bool = False


@dataclass(frozen=True)
class Pack:
    """A parameter pack bound in a call: the values the walk holds for its arguments and their
    declared types (None where the reader does not know it)."""
    values: tuple[Any, ...]
    types: tuple[CppType | None, ...]


def _declared(tree: Parsed, node: Node) -> Declared | None:
    """The type a parameter declaration or a type descriptor spells; None when its base is no plain or
    qualified name (a template, a function type)."""
    kind = node.child_by_field_name("type")
    if kind is None or kind.type not in ("type_identifier", "primitive_type", "qualified_identifier",
                                         "sized_type_specifier"):
        return None
    const = any(c.type == "type_qualifier" and tree.source(c) == "const" for c in node.children)
    pointers: list[bool] = []
    reference = pack = False
    declarator = node.child_by_field_name("declarator")
    while declarator is not None:
        if declarator.type in _POINTERS:
            pointers.append(any(c.type == "type_qualifier" and tree.source(c) == "const" for c in declarator.children))
        elif declarator.type in _REFERENCES:
            reference = True
        elif declarator.type in ("variadic_declarator", "variadic_reference_declarator"):
            pack = True
        elif declarator.type not in ("identifier", "type_qualifier"):
            return None   # an array, a function pointer: no type the checks compare
        inner = [c for c in declarator.named_children if c.type != "type_qualifier"]
        declarator = inner[-1] if inner and declarator.type != "identifier" else None
    return Declared(CppType(tree.source(kind), const, tuple(pointers)), reference, pack)


def declared_type(text: str) -> Declared | None:
    """The type of a parameter declared as ``text`` (the type written before its name)."""
    tree = parsed(f"{text} _p", "void _f(", ");")
    function = tree.root.children[0].child_by_field_name("declarator") if tree.root.children else None
    params = function.child_by_field_name("parameters") if function is not None else None
    if params is None or len(params.named_children) != 1 or tree.root.has_error:
        return None
    return _declared(tree, params.named_children[0])


def _deduced(param: Declared, argument: CppType | None) -> CppType | None:
    """The template argument deduced for a parameter declared ``T``, ``const T&`` or ``T&`` from an
    argument of the declared type ``argument``: by value the argument's own const goes; through a
    ``const T&`` the const the parameter adds is not T's ([temp.deduct.call]); None when unknown."""
    if argument is None or param.type.pointers:
        return None
    if not param.reference or param.type.const:
        return argument.without_top_const()
    return argument


def _argument_type(w: Walk, text: str, env: dict) -> CppType | None:
    """The declared type of an argument that is a parameter of the function being walked (through the
    type its own template parameter was deduced as, ``const T& t``); None else."""
    declared = declared_type(w.param_types[text]) if text in w.param_types else None
    if declared is None or declared.pack:
        return None
    bound = env.get(declared.type.base)
    if not isinstance(bound, CppType):
        return declared.type
    if declared.type.pointers:
        return None   # ``T*`` of a deduced T: not read
    return bound.with_top_const() if declared.type.const else bound


def template_bindings(w: Walk, fn: Function, args: list[str], env: dict,
                      read: Callable[[str], Any]) -> dict[str, Any] | None:
    """The bindings of a call of the template ``fn``: each parameter its argument's value (``read``),
    a pack the remaining arguments (a pack expanded in the call, ``args...``, giving its own), each type
    parameter the type deduced from its argument. None when ``fn`` declares no template parameters."""
    if not fn.type_params:
        return None
    values: list[Any] = []
    types: list[CppType | None] = []
    for text in (a.strip() for a in args):
        expanded = env.get(text[:-3].strip()) if text.endswith("...") else None
        if isinstance(expanded, Pack):
            values.extend(expanded.values)
            types.extend(expanded.types)
        elif text.endswith("..."):
            raise Unreadable(f"the expansion {text!r} of a pack the reader does not hold")
        else:
            values.append(read(text))
            types.append(_argument_type(w, text, env))
    declared = [declared_type(t) for t in fn.param_types]
    packs = [i for i, d in enumerate(declared) if d is not None and d.pack]
    if packs and packs != [len(fn.params) - 1] or not packs and len(values) != len(fn.params) or \
            len(values) < len(fn.params) - len(packs):
        raise Unreadable(f"call of {fn.name} with {len(values)} arguments for {len(fn.params)} parameters")
    bound: dict[str, Any] = {}
    for i, (param, d) in enumerate(zip(fn.params, declared)):
        if i in packs:
            bound[param] = Pack(tuple(values[i:]), tuple(types[i:]))
            continue
        bound[param] = values[i]
        if d is not None and d.type.base in fn.type_params:
            deduced = _deduced(d, types[i])
            if deduced is not None:   # a type parameter's name in the body denotes this type
                bound[d.type.base] = deduced
    return bound


def constexpr_decided(stmt: Stmt, env: dict) -> bool | None:
    """The side an ``if constexpr`` takes, from the template arguments and packs ``env`` binds; None
    when ``stmt`` is no ``if constexpr``; unread when the reader cannot decide its condition."""
    if "constexpr" not in stmt.text:   # most statements: no parse needed to know
        return None
    tree = parsed(stmt.text + " {}", "void _f() {", "}")
    body = tree.root.children[0].child_by_field_name("body") if tree.root.children else None
    node = body.named_children[0] if body is not None and body.named_children else None
    if node is None or node.type != "if_statement" or not any(c.type == "constexpr" for c in node.children):
        return None
    condition = node.child_by_field_name("condition")
    value = _constant(tree, condition.named_children[-1], env) if condition and condition.named_children else None
    if not isinstance(value, bool):
        raise Unreadable(f"the compile-time condition {stmt.cond.strip()!r}")
    return value


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def _constant(tree: Parsed, node: Node, env: dict) -> bool | int | None:
    """A constant expression over packs' lengths and type traits; None when it holds anything else."""
    if node.type == "parenthesized_expression" and node.named_children:
        return _constant(tree, node.named_children[0], env)
    if node.type == "number_literal":
        return int(tree.source(node)) if tree.source(node).isdigit() else None
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "unary_expression" and tree.source(node.child_by_field_name("operator")) == "!":
        inner = _constant(tree, node.child_by_field_name("argument"), env)
        return not inner if isinstance(inner, bool) else None
    if node.type == "sizeof_expression" and any(c.type == "..." for c in node.children):
        pack = env.get(tree.source(node.named_children[-1])) if node.named_children else None
        return len(pack.values) if isinstance(pack, Pack) else None
    if node.type == "binary_expression":
        op = tree.source(node.child_by_field_name("operator"))
        left = _constant(tree, node.child_by_field_name("left"), env)
        right = _constant(tree, node.child_by_field_name("right"), env)
        if left is None or right is None:
            return None
        if op in ("&&", "||"):
            return (left and right if op == "&&" else left or right) if {type(left), type(right)} == {bool} else None
        return _COMPARE[op](left, right) if op in _COMPARE else None
    return _is_same(tree, node, env)


def _trait(tree: Parsed, node: Node, names: tuple[str, ...]) -> list[Node] | None:
    """The template arguments of ``std::<name><...>`` for one of ``names``; None when ``node`` is not one."""
    if node.type != "qualified_identifier" or tree.source(node.child_by_field_name("scope") or node) != "std":
        return None
    name = node.child_by_field_name("name")
    if name is None or name.type not in ("template_function", "template_type"):
        return None
    named = name.child_by_field_name("name")
    arguments = name.child_by_field_name("arguments")
    if named is None or tree.source(named) not in names or arguments is None:
        return None
    return list(arguments.named_children)


def _is_same(tree: Parsed, node: Node, env: dict) -> bool | None:
    """``std::is_same_v<A, B>``: whether the two types are one."""
    arguments = _trait(tree, node, ("is_same_v",))
    if arguments is None or len(arguments) != 2:
        return None
    a, b = (_type_argument(tree, n, env) for n in arguments)
    # the pointee's const counts: a T deduced from ``const aclTensor*`` is not ``aclTensor*``
    return None if a is None or b is None else a == b


def _type_argument(tree: Parsed, node: Node, env: dict) -> CppType | None:
    """The type a template argument names: a type parameter the call bound, ``std::remove_const_t``
    of one, or a type spelled out (``aclTensor*``)."""
    if node.type != "type_descriptor":
        return None
    declared = _declared(tree, node)
    if declared is None or declared.reference or declared.pack:
        return None
    kind = node.child_by_field_name("type")
    removed = _trait(tree, kind, ("remove_const_t",))
    if removed is not None:
        inner = _type_argument(tree, removed[0], env) if len(removed) == 1 else None
        if inner is None or declared.type.const or declared.type.pointers:
            return None
        return inner.without_top_const()
    bound = env.get(declared.type.base)
    if isinstance(bound, CppType):   # a type parameter: what the call deduced, with what the argument adds
        if declared.type.const or declared.type.pointers:
            return None
        return bound
    return declared.type
