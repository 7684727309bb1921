"""Scalar values and strings: conditions on aclScalar values (``ToFloat()`` and its kin, with
float32 rounding; ``std::fabs(p - c) < eps``), a scalar converted to a tensor, a scalar local, a
return on a value test, string arguments compared with words, a string chosen by an integer, the
numbers a template function takes."""
from __future__ import annotations

import re

from aclnn_conformance.extract.cpp import Function, Stmt, match_close, split_args, statements
from aclnn_conformance.extract.host_code.model import T, Unreadable, Walk, _macro, _split_top, _strip
from aclnn_conformance.extract.host_code.promotion import _dexpr_of
from aclnn_conformance.extract.host_code.statements import _returns_success_only
from aclnn_conformance.extract.host_code.integers import _FLIP, _INT_TYPE, _compare_split, _iexpr_of, _int_constant
from aclnn_conformance.extract.host_code.casts import _TO_KIND
from aclnn_conformance.extract.host_code.nulls import _nonnull_guarded
from aclnn_conformance.extract.host_code.products import _bool_helper_condition
import aclnn_conformance.extract.host_code.reenter as reenter


def _string_choice(w: Walk, expr: str, env: dict) -> tuple | None:
    """``F(n)`` with F a function of the op_api file taking one integer and returning a string by a
    chain of tests of it against constants (``if (n == K1) { return A; } else if (n == K2) { return B;
    } return C;``), each word a literal or a file string (``static std::string A = "mean";``) that
    only F's returns name, F called nowhere but as an argument, n an integer the walk knows:
    ("string-choice", ((test, word) in order...), the word returned when none holds); None otherwise."""
    expr = _strip(expr)
    call = _macro(expr)
    fn = w.index.own.functions.get(call[0]) if call and match_close(expr, expr.index("(")) == len(expr) - 1 \
        else None
    if fn is None or len(fn.params) != 1 or len(call[1]) != 1 or \
            not _INT_TYPE.fullmatch(fn.param_types[0].strip()) or not re.search(r"\bstring\b", fn.returns):
        return None
    text = w.index.own.text
    defined = sum(len(x) + 1 for x in text.split("\n")[:fn.line - 1])   # where F's definition begins
    for use in re.finditer(rf"\b{re.escape(fn.name)}\s*\(", text):   # an argument, never assigned or changed
        end = match_close(text, use.end() - 1)
        if not defined <= use.start() < fn.body_offset and not re.match(r"\s*[,)]", text[end + 1:]):
            return None
    try:
        n = _iexpr_of(w, reenter.value(w, call[1][0], env))
    except Unreadable:
        return None
    chain = _string_chain(w, fn, statements(fn.body, fn.body_offset))
    if n is None or chain is None or chain[1] is None:
        return None
    return ("string-choice", tuple((("==", n, k), word) for k, word in chain[0]), chain[1])


def _string_chain(w: Walk, fn: Function, stmts: tuple[Stmt, ...]) -> tuple[list, str | None] | None:
    """The (constant, word) tests of ``if (p == K) { return W; }`` (else-if) statements in order, and
    the word of the return ending them (None when they fall off the end)."""
    tests: list = []
    for i, s in enumerate(stmts):
        if s.kind == "return":
            word = _file_word(w, fn, s.text.strip()[len("return"):])
            return None if word is None or i != len(stmts) - 1 else (tests, word)
        if s.kind != "if" or len(s.then) != 1 or s.then[0].kind != "return":
            return None
        two = _split_top(_strip(s.cond), "==")
        k = [_int_constant(w, x) for x in two if _strip(x) != fn.params[0]] if len(two) == 2 else []
        word = _file_word(w, fn, s.then[0].text.strip()[len("return"):])
        if len(k) != 1 or k[0] is None or word is None:
            return None
        tests.append((k[0], word))
        if s.orelse:
            inner = _string_chain(w, fn, s.orelse)
            if inner is None or inner[1] is not None and i != len(stmts) - 1:
                return None
            tests += inner[0]
            if inner[1] is not None:
                return tests, inner[1]
    return tests, None


def _file_word(w: Walk, fn: Function, expr: str) -> str | None:
    """A string literal, or a file string ``static std::string A = "w";`` that only ``fn`` returns."""
    expr = _strip(expr)
    if re.fullmatch(r'"\w*"', expr):
        return expr[1:-1]
    text = w.index.own.text
    decl = re.findall(rf'\bstatic\s+(?:const\s+)?std::string\s+{re.escape(expr)}\s*=\s*"(\w*)"\s*;', text) \
        if re.fullmatch(r"[A-Za-z_]\w*", expr) else []
    named = len(re.findall(rf"\b{re.escape(expr)}\b", text)) if decl else 0
    returned = len(re.findall(rf"\breturn\s+{re.escape(expr)}\s*;", fn.body)) if decl else 0
    return decl[0] if len(decl) == 1 and named == 1 + returned else None


def _string_is(chosen: tuple, word: str) -> tuple | None:
    """The integer test that a ("string-choice", ...) gives ``word``: its first test naming it holding
    after the earlier ones fail, or none holding for the last word."""
    _, tests, last = chosen
    ways, failed = [], []
    for test, said in tests:
        if said == word:
            ways.append(("and", *failed, test) if failed else test)
        failed.append(("!=", *test[1:]))
    if last == word:
        ways.append(("and", *failed) if len(failed) > 1 else failed[0] if failed else None)
    if None in ways or not ways:
        return None
    return ways[0] if len(ways) == 1 else ("or", *ways)


def _converted_scalar(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``executor->ConvertToTensor(s, D)`` of an aclScalar argument s whose null check was read
    before: ("converted", s, D). opbase's ConvertToTensor (op_executor.cpp:568-574) returns nullptr
    only when the tensor cannot be allocated; the aclTensor it builds (common_types.cpp:284-370)
    stores the scalar's value in any dtype. None for anything else."""
    m = re.fullmatch(r"[\w.]+(?:\.get\(\))?\s*->\s*ConvertToTensor\((.*)\)", _strip(rhs), re.S)
    args = split_args(m.group(1)) if m else []
    if len(args) != 2 or not isinstance(env.get(_strip(args[0])), T):
        return None
    scalar = env[_strip(args[0])].name
    if not any(e.kind == "check" and e.template == "null" and e.args_dict().get("param") == scalar
               for e in w.events) and not _nonnull_guarded(w, scalar):
        return None
    try:
        dtype = _dexpr_of(w, args[1], env)
    except Unreadable:
        dtype = None
    return ("converted", scalar, dtype)


def _scalar_tensor(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``executor->ConvertToTensor(s, D)`` of an aclScalar argument s not known non-null here:
    ("scalar-tensor", s, D), a tensor of rank 0 where it returns one (opbase common_types.cpp:284-285);
    a null check of it stays the reader's to read (no kernel made it). None for anything else."""
    m = re.fullmatch(r"[\w.]+(?:\.get\(\))?\s*->\s*ConvertToTensor\((.*)\)", _strip(rhs), re.S)
    args = split_args(m.group(1)) if m else []
    held = env.get(_strip(args[0])) if len(args) == 2 else None
    if not isinstance(held, T) or "aclScalar" not in w.ptypes.get(held.name, ""):
        return None
    try:
        dtype = _dexpr_of(w, args[1], env)
    except Unreadable:
        dtype = None
    return ("scalar-tensor", held.name, dtype)


def _string_of(w: Walk, expr: str, env: dict) -> str | None:
    """The string argument (``const char*``) ``expr`` holds: the argument, ``std::string(arg)``, or a
    local holding one; None for anything else."""
    expr = _strip(expr)
    m = re.fullmatch(r"(?:std::)?string\(\s*(\w+)\s*\)", expr)
    held = env.get(m.group(1) if m else expr)
    if isinstance(held, tuple) and held[:1] == ("string-of",):
        return held[1]
    if isinstance(held, T) and re.search(r"\bchar\s*\*", w.ptypes.get(held.name, "")):
        return held.name
    return None


def _string_local(w: Walk, text: str, env: dict) -> tuple[str, tuple] | None:
    """``std::string mode(arg);`` (or ``= arg``, ``= std::string(arg)``, ``{arg}``) of a string
    argument: (local, ("string-of", argument)); None for anything else."""
    m = re.fullmatch(r"(?:const\s+)?(?:std::)?string\s+(\w+)\s*(?:\((.+)\)|\{(.+)\}|=(.+?))\s*;?", text.strip(),
                     re.S)
    if not m:
        return None
    arg = _string_of(w, m.group(2) or m.group(3) or m.group(4), env)
    return None if arg is None else (m.group(1), ("string-of", arg))


_PREFIX_TEST = re.compile(r'strncmp\(\s*(\w+)\s*,\s*"(\w+)"\s*,\s*strlen\(\s*"\2"\s*\)\s*\)\s*(==|!=)\s*0')


def _string_test(w: Walk, cond: str, env: dict) -> tuple[str, list[str], bool] | None:
    """A failure condition that a string argument is none of some words: ``s != "a" && s != "b"``
    or ``!(s == "a" || s == "b")``, or begins with none of them (``strncmp(s, "a", strlen("a")) != 0``,
    ops-nn norm/instance_norm/op_host/op_api/aclnn_instance_norm.cpp:65-66): (argument, the words,
    whether a word is a prefix); None for anything else or a mix of the two."""
    cond = _strip(cond)
    if cond.startswith("!(") and match_close(cond, 1) == len(cond) - 1:
        parts, op = _split_top(_strip(cond[2:-1]), "||"), "=="
    else:
        parts, op = _split_top(cond, "&&"), "!="
    prefixed = [_PREFIX_TEST.fullmatch(_strip(p)) for p in parts]
    if all(prefixed):
        names = {_string_of(w, m.group(1), env) for m in prefixed}
        if len(names) != 1 or None in names or any(m.group(3) != op for m in prefixed):
            return None
        return names.pop(), [m.group(2) for m in prefixed], True
    names, words = set(), []
    for part in parts:
        two = _split_top(part, op)
        if len(two) != 2:
            return None
        lit = [x for x in two if re.fullmatch(r'"\w+"', _strip(x))]
        other = [x for x in two if x not in lit]
        if len(lit) != 1 or len(other) != 1:
            return None
        name = _string_of(w, other[0], env)
        if name is None:
            return None
        names.add(name)
        words.append(_strip(lit[0])[1:-1])
    return (names.pop(), words, False) if len(names) == 1 else None


def value_test_local(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``bool b = (strncmp(format, "NHWC", strlen("NHWC")) == 0);``: ("value-test", t), the test of
    the call's values the local holds (ops-nn norm/instance_norm_v3/op_host/op_api/
    aclnn_instance_norm.cpp:153); None for anything else (a lone flag or bool argument is itself)."""
    test = _value_test(w, rhs, env)
    return None if test is None or test[0] == "flag" else ("value-test", test)


def _scalar_local(text: str, env: dict) -> tuple | None:
    """``float v = x->ToFloat();`` of an aclScalar argument: ("number", x, how v holds it); None for
    anything else, and where the local's type changes the value (``int32_t v = x->ToFloat()``)."""
    m = re.fullmatch(r"(?:const\s+)?(float|double|auto|int32_t|int64_t)\s+\w+\s*=\s*(\w+)\s*->\s*"
                     r"To(Float|Double|Int32|Int64)\(\)\s*;?", text)
    if not m or not isinstance(env.get(m.group(2)), T):
        return None
    kind = _TO_KIND[m.group(3)]
    declared = {"float": "float", "double": "double", "int32_t": "int32", "int64_t": "int64"}.get(m.group(1), kind)
    if declared != kind and not (declared == "float" and kind == "double"):
        return None   # a double read into a float holds what ToFloat gives; other mixes are not read
    return ("number", env[m.group(2)].name, declared)


_TEMPLATE_CALL = re.compile(r"([A-Za-z_]\w*)\s*<\s*([\w:]+)\s*>\s*\(")
_NUMBER_TYPES = {"float": "float", "double": "double", "int64_t": "int64", "int32_t": "int32"}


def _template_numbers(w: Walk, fn: Function, type_arg: str, args: list[str], env: dict) -> None:
    """A call ``fn<type_arg>(args)`` of ``template <typename T>`` fn: each parameter of type T must
    receive a scalar value read as ``type_arg`` (a ``float`` local of ``x->ToFloat()`` for
    ``F<float>``), so that the callee compares the values the C++ compares; Unreadable otherwise."""
    tm = re.match(r"template\s*<\s*(?:typename|class)\s+(\w+)\s*>", fn.returns)
    kind = _NUMBER_TYPES.get(type_arg.split("::")[-1])
    if tm is None or kind is None or len(args) != len(fn.params):
        raise Unreadable(f"the call {fn.name}<{type_arg}>(...)")
    for arg, ctype in zip(args, fn.param_types):
        if re.sub(r"\bconst\b|&", "", ctype).strip() != tm.group(1):
            continue
        held = env.get(_strip(arg))
        if not (isinstance(held, tuple) and held[:1] == ("number",) and held[2] == kind):
            raise Unreadable(f"{arg.strip()!r} passed as {type_arg} to {fn.name}")


def _value_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (C) { return true; }`` (or success) with C a test of scalar or float argument values, or a
    bool helper of such a test: the rest of the function checks the calls where C does not hold (its
    checks carry ``when`` not C)."""
    if not _returns_success_only(stmt, logs=True):
        return False
    cond, scope = _strip(stmt.cond), env
    helper = _bool_helper_condition(w, cond, env)
    if helper is not None:
        cond, scope = helper
    test = _value_test(w, cond, scope)
    if test is None:
        return False
    w.guards.append(("not", ("value", test)))   # popped when the function ends (_run_function)
    return True


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFlL]?")
_ZERO_CAST = re.compile(r"\bstatic_cast\s*<\s*[\w:]+\s*>\s*\(\s*0\s*\)")


def _bool_param(w: Walk, name: str) -> bool:
    """A ``bool`` (or ``const bool``) argument of the API."""
    return re.sub(r"^const\s+", "", w.ptypes.get(name, "").strip()) == "bool"


def _value_test(w: Walk, cond: str, env: dict) -> tuple | None:
    """``cond`` as a spec.templates.value_test over the API's aclScalar values (``x->ToFloat()``,
    ``x->ToDouble()`` against a number) and bool arguments; None when any part is something else."""
    cond = _strip(cond)
    if cond.startswith("!") and not cond.startswith("!="):
        inner = _value_test(w, cond[1:], env)
        return None if inner is None else ("not", inner)
    for op, name in (("||", "or"), ("&&", "and")):
        parts = _split_top(cond, op)
        if len(parts) > 1:
            tests = [_value_test(w, p, env) for p in parts]
            return None if None in tests else (name, *tests)
    if isinstance(env.get(cond), T) and _bool_param(w, env[cond].name):
        return ("flag", env[cond].name)
    held = env.get(cond)
    if isinstance(held, tuple) and held[:1] == ("value-test",):   # a bool local holding a test of values
        return held[1]
    prefix = _PREFIX_TEST.fullmatch(cond)
    string = _string_of(w, prefix.group(1), env) if prefix else None
    if string is not None:   # strncmp(s, "W", strlen("W")) == 0: s begins with W
        begins = ("prefix", string, (prefix.group(2),))
        return begins if prefix.group(3) == "==" else ("not", begins)
    flag = re.fullmatch(r"(\w+)\s*([!=]=)\s*(true|false)", cond)
    if flag and isinstance(env.get(flag.group(1)), T) and _bool_param(w, env[flag.group(1)].name):
        holds = (flag.group(2) == "==") == (flag.group(3) == "true")   # training == false: not the flag
        return ("flag", env[flag.group(1)].name) if holds else ("not", ("flag", env[flag.group(1)].name))
    special = re.fullmatch(r"(?:std::)?is(nan|inf)\((.+)\)", cond)
    if special:
        held = _number_read(w, special.group(2), env)
        return None if held is None else (special.group(1), *held)
    cmp = _compare_split(_ZERO_CAST.sub("0", cond))   # static_cast<T>(0) is 0 in any arithmetic T
    if cmp is None:
        return None
    a, op, b = cmp
    for x, y, o in ((a, b, op), (b, a, _FLIP[op])):
        held = _number_read(w, x, env)
        if held is not None and _NUMBER.fullmatch(_strip(y)):
            return ("cmp", *held, o, float(_strip(y).rstrip("fFlL")))
        limit = w.index.constant(_strip(y)) if held is not None and re.fullmatch(r"[A-Z_][A-Z0-9_]*", _strip(y)) \
            else None
        if limit is not None and abs(limit) <= 2 ** 53:   # a named integer constant, exact as a float
            return ("cmp", *held, o, float(limit))
        other = _number_read(w, y, env) if held is not None else None
        if other is not None and other[1] == held[1]:   # two values read alike: compared as they are held
            return ("cmp", *held, o, ("arg", *other))
        near = _near_test(w, x, y, o, env)
        if near is not None:
            return near
    return None


def _near_test(w: Walk, x: str, y: str, op: str, env: dict) -> tuple | None:
    """``std::fabs(p - c) < eps``: c - eps < p < c + eps (the difference is exact near c, Sterbenz);
    ``<=``, ``>`` and ``>=`` alike, and eps may be ``std::numeric_limits<float>::epsilon()`` (2**-23:
    ops-nn matmul/addmv/op_host/op_api/aclnn_addmv.cpp:106 ``std::abs(alpha->ToFloat() - 1.0f) > ...``).
    A NaN p is near nothing and far from nothing, as IEEE compares it."""
    m = re.fullmatch(r"(?:std::)?f?abs\((.+?)\s*-\s*(" + _NUMBER.pattern + r")\)", _strip(x))
    eps_text = _strip(y)
    eps = 2.0 ** -23 if re.fullmatch(r"(?:std::)?numeric_limits<\s*float\s*>::epsilon\(\)", eps_text) else \
        float(eps_text.rstrip("fFlL")) if _NUMBER.fullmatch(eps_text) else None
    if not m or eps is None or op not in ("<", "<=", ">", ">="):
        return None
    held = _number_read(w, m.group(1), env)
    if held is None or held[1] == "int":
        return None
    c = float(m.group(2).rstrip("fFlL"))
    if op in ("<", "<="):
        return ("and", ("cmp", *held, ">" if op == "<" else ">=", c - eps), ("cmp", *held, op, c + eps))
    return ("or", ("cmp", *held, "<" if op == ">" else "<=", c - eps), ("cmp", *held, op, c + eps))


def _number_read(w: Walk, expr: str, env: dict) -> tuple[str, str] | None:
    """(parameter, how it is read): ``x->ToFloat()`` (and ToDouble, ToInt32, ToInt64) of an aclScalar
    argument or a local holding one, or a float, double or integer argument itself (``float& p`` too);
    None for anything else."""
    expr = _strip(expr)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*To(Float|Double|Int32|Int64)\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return env[m.group(1)].name, _TO_KIND[m.group(2)]
    held = env.get(expr)
    if isinstance(held, tuple) and held[:1] == ("number",):
        return held[1], held[2]
    if isinstance(env.get(expr), T):
        ctype = re.sub(r"\bconst\b|&", "", w.ptypes.get(env[expr].name, "")).strip()
        if ctype in ("float", "double"):
            return env[expr].name, ctype
        if ctype in ("int64_t", "int32_t", "int", "uint64_t", "int8_t"):
            return env[expr].name, "int"
    return None


def _has_compare(t: tuple) -> bool:
    """A value test with a float or scalar comparison in it (one on integers alone is an attr rule)."""
    return (t[0] in ("cmp", "nan", "inf") and t[2] != "int") or \
        any(isinstance(x, tuple) and _has_compare(x) for x in t[1:])


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.value_test = _value_test
