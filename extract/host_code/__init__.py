"""The hand-written op_api, read per product: ``aclnnXxxGetWorkspaceSize`` walked statement by statement
(CheckParams and the helpers it calls inlined, the common helpers read from the checkout's headers),
with the product branches (``GetCurNpuArch()``, ``GetSocVersion()``, ``IsRegBase``) decided for one
product at a time. The walk yields, per product, the checks in the order they run, each a template of
``spec.templates`` with its arguments, status and citation, the empty-tensor early return, and
``unread`` wherever a construct is outside what the reader recognises (never a guess).

The C++ is read from its syntax tree: ``tree-sitter`` with its C++ grammar, through ``extract/cpp.py``
(definitions, dtype lists, constants and statements from the tree's nodes; comments and string
literals blanked by node, lines kept for the citations) and ``extract/syntax.py`` (brackets paired,
arguments split, expressions split at their operator tokens, a switch's labels and a statement's block
found by the parser). A statement macro the grammar does not know (``OP_CHECK_NULL(x, return false)``)
is left as an error node and read from its tokens, in ``extract/syntax.py`` alone; a definition whose
body the parser's recovery ran past is closed where its tokens close it and the rest parsed anew. No
module tokenizes C++ or matches brackets by hand.

The modules and the constructs each reads (a new construct goes into its family's module, with its
fixture tests in tests/test_extract_*.py):

- ``walk``: The walk: GetWorkspaceSize statement by statement, CheckParams and the helpers it calls inlined
  (``_call_fn``), blocks (the side of a branch the product decides read as part of its block),
  declarations (``auto [M, N] =`` of a pair an integer helper returns), ``CHECK_RET``, returns, the check
  macros' table, and the status a called function ends with (a status function returning a call it does
  not follow, a function template called with template arguments or a helper of a header not found, is
  unread there, never a success); a check returning another bool function's answer fails where that one
  does; a header of the op's family named from the checkout's root brings its same-named source.
- ``branches``: Branches: ``if``/``else`` on a condition (decided by the product, guarded by the call's
  dtypes, or unread with its assignments forgotten), the choices a guarded branch leaves, ``if
  (!Checker(...))``, ``if (F(...) != ACLNN_SUCCESS)``, ``CHECK_RET(F(...) == ACLNN_SUCCESS, code)``, locals a
  function mutates after a point (a tensor local declared without a value and set by kernels or compute
  helpers on every path a kernel's result), a check whose else fails nowhere (``else { return true; }``, an else-if
  returning success) read as the check followed by the else, a chain of arms returning true but the last
  (one failure), a switch on an integer argument (its if-else chain), two kernels of one result chosen on data.
- ``statements``: What a statement or a branch is, read from its text without walking it: a branch that only
  logs and fails (its status), one that returns success, whether a text makes a parameter check, what the rest
  of a function after a statement may reach, and the locals a loop or switch not followed assigns.
- ``conditions``: Conditions and guards: a failure condition as an OR of atoms each one check, an atom read by
  the family that knows it (``IsPrivateFormat`` included), guards on the call's dtypes, shapes or integers and
  the rule violated exactly when a guard holds, a bool helper on dtypes inlined, both sides of an unread
  condition making the same checks.
- ``values``: Expressions: the value the walk holds for a C++ expression (an API argument, a dtype, a shape,
  an integer, a kernel result, a call of a checkout function whose body is one return; a local chosen on a
  guard the walk holds, its side), the entry of every family's readers of an expression.
- ``nulls``: Null checks: ``OP_CHECK_NULL`` and ``CHECK_NOT_NULL``, ``if (x == nullptr) return true`` and the
  checks after it, ``OP_CHECK_NULL(x, return false)`` for a status, optional arguments (``p != nullptr &&
  ...``, ``if (p != nullptr) {checks}`` and a local it assigns, a choice on p's null-ness after it), a null
  pointer flag, two pointer arguments compared, the null check of a contiguous copy, an element count set
  only when non-null, an optional tensor refused when given, ``a == nullptr && b == nullptr`` (both
  refused together), ``if (a && b) {checks}`` (two optional tensors given together), ``if (x == nullptr ||
  x->IsEmpty()) return true`` and the checks after it (made when x is given and holds an element).
- ``dtypes``: Dtype lists and checks: ``OP_CHECK_DTYPE_NOT_SUPPORT`` over per-product lists,
  ``OP_CHECK_DTYPE_NOT_MATCH``/``NOT_SAME``, the data_type_utils.h classes, dtype atoms of a failure,
  conjunctions of dtype conditions, ``std::find`` in a list, dtype pairs, constant maps and their ``find``,
  dtype lists in place, ``switch`` on a dtype.
- ``promotion``: Dtypes the code computes: a dtype expression read from C++ (``PromoteType`` chains, a choice
  on a condition, ``GetDataType()`` of a tensor of the compute path), the dtype names one may take, and a
  failure on a dtype chosen on a condition the reader cannot decide.
- ``shapes``: Shapes, broadcasting and formats: shape locals (braced, split, built from dims, ``SetDim``,
  ``AppendDim``), a view shape the walk holds, ``BroadcastInferShape`` (checked or dropped),
  ``OP_CHECK_SHAPE_NOT_EQUAL``, ``OP_CHECK_BROADCAST*``, ``CHECK_SHAPE_ALL_EQUAL``, shape and storage format
  comparisons, ``CheckShapeAndScalarSame``, a shape expression's rank.
- ``rank_shapes``: Shapes built over a tensor's rank: ``SetDimNum(rank)``, the leading dims copied in a loop
  under ``if (rank > k)``, the last k set by ``SetDim(rank - j, E)`` (the padded out shape of a pad).
- ``rank_loops``: Loops over a tensor's dims up to its rank (``for (i = start; i < rank; i++) { if
  (shape.GetDim(i) <= 0) fail; }``), unrolled over the ranks the checks before allow.
- ``int_choices``: Integers chosen by branches: an if / else-if chain of integer tests each assigning one integer
  (the wrap and clamps of a slice's start and end), and a void helper changing integers passed by reference.
- ``ranks``: Ranks and dims: rank guards and rank comparisons (``GetDimNum()``), locals chosen by the rank,
  conjunctions of dim comparisons, int arrays of every dim, returns at rank 0 or with no dims, a negative dim
  wrapped by the rank, dim sizes read where the rank holds them, ``OP_CHECK_*_DIM`` (a bound that is an
  integer expression, such as an array's length, as an integer test), an int array of constants a helper
  returns (``getBaseShape``).
- ``int_helpers``: An integer helper of the checkout inlined (``div_rtn``): integer locals, early returns,
  a local stepped under a test, logs, one final return; an ``int`` local narrowed to 32 bits; a
  ``std::pair`` of two integers returned (``return {M, N};``), with a loop multiplying one local or the
  other by a ternary on the index (``(i < beginAxis ? M : N) *= s.GetDim(i)``); an ``int8_t`` helper
  returning a constant or its argument, its product terms decided (``routeCubeMathType4ToCubeMathType0DAV_2201``).
- ``integers``: Integers and tests on them: arithmetic over constants and rank-dependent integers (``lin``),
  an integer array's length, integer attributes compared with bounds (``attr_*`` rules), comparisons split and
  negated, a test over integers as a ``spec.templates`` integer test, an integer choice.
- ``scalars``: Scalar values and strings: conditions on aclScalar values (``ToFloat()`` and its kin, with
  float32 rounding; ``std::fabs(p - c) < eps``), a scalar converted to a tensor, a scalar local, a return on a
  value test, string arguments compared with words, a string chosen by an integer, the numbers a template
  function takes.
- ``reductions``: Reductions: a reduction kernel's shape (``rshape``), the mask of dims seen in a dim loop (a
  duplicate refused, a local wrapped by the rank, ``GetPosDim``), a reduced dim that must not be empty outside
  rank 0, the infer-shape helpers of the checkout recognised by their whole body (mask form, array form, npu
  output size), ``ToShapeVector`` and ``AllocIntArray`` of the dims held.
- ``kernels``: Kernel results: what ``l0op::K(...)`` returns (its dtype expression, its shape: broadcast,
  chosen on a branch, allocated, unsqueezed, tiled, a helper's shape, a shape a helper of the kernel's file
  infers), a helper that calls a kernel and checks
  nothing, a kernel chosen on a condition, lambdas and choices between tensors of the compute path,
  ``ViewCopy`` into an API tensor and its null check, a null kernel result.
- ``casts``: Kernel results' dtypes and the casts on them: the dtype a kernel function allocates or returns
  (one tensor, a tuple, a view of a parameter, a local chosen on a flag), the dtype of a tensor of the compute
  path, ``l0op::Cast`` that cannot fail, ``OP_CHECK_RESULT_DTYPE_CAST_FAILED`` and ``CanCast``.
- ``cast_routes``: The routes ``l0op::Cast`` has per NPU architecture, read from ops-math's cast.cpp (the
  AiCore pair lists its ``IsAiCoreSupport`` reaches on each arch, the AICPU list), and the rule that a null
  check of a Cast's result fails, with its status, on the pairs without a route.
- ``empty``: Empty tensors: the empty-tensor early return of GetWorkspaceSize (or of a status function it
  calls), ``FillScalar`` on an empty tensor, the tensors an emptiness test names, an emptiness helper, loops
  finding a 0 dim or a 0 element, a second empty return after the first, parameter checks after the return
  (unread), an empty then-branch on an emptiness test (``if (E) {} else {...}``: the calls with E not judged
  from there, the else read for the others).
- ``products``: Product branches: if/else-if chains and switches on the product (``GetCurNpuArch()``,
  ``GetSocVersion()`` in opbase's enum order, ``IsRegBase``), decided per product; bool helpers whose result
  the product decides; a helper's statements with its product branches taken.
- ``loops``: Loops over shapes and arrays: copies of an int array, batch dims checked broadcastable, dims
  appended to shapes, negative dims refused, slices of a shape set or compared, element counts (of every
  dim, or of dims a to b: a product of a slice), a loop over an ``aclIntArray`` dim checking each element,
  an integer array compared with a shape's trailing dims (a normalized shape) and with each given
  optional tensor's, dims held in locals compared between two shapes or with a constant (in order too, and
  skipping one dim: the integer test ``any-index``).
- ``aggregates``: Aggregates of the API's arguments: a struct initialised with them (``InputParams p{self,
  ...}``), an array of structs or of values (``bool mask[3] = {a, b, c}``), its length by ``sizeof``, a member
  read (``p.self``, ``list[1].param``) as the value it holds, an integer helper of constant returns
  (``GetMaskIdx(i)``), and a loop of a known count over them read once per index (``if (!mask[i])
  continue;`` a guard on the rest).
- ``lambdas``: A local lambda of one ``return`` capturing by reference (``auto ok = [&](const op::Shape& s)
  { return s == e1 || s == e2; };``): each later call of it written out with its arguments.
- ``searches``: An integer array searched with ``std::find_if`` over a vector copy of it and checked not found
  (each element's check; a lambda taking ``int`` leaves the elements past 32 bits unread), and a dim loop
  making the wrapped dims unique through a ``std::set``.
- ``flags``: A check guarded by a bool argument in the same condition (``if (mask && !CheckType(...))``), or by
  a bool local holding a guard, read as the check under that guard.
- ``partial``: A branch on ``!(A && B)`` holding checks with A read and B a value no call view holds
  (``aclTensor::Size()``): the checks under ``!A``, the calls where A holds not judged from there; a
  failure on ``x->Size() && ... && C`` with x tensors: C's checks where no such view is empty (a view with
  elements has a storage with elements), the calls with an empty one not judged from there.
- ``routing``: A branch on a lower layer's routing predicate (``l0op::SupportNoTranspose``): its early
  ``return false`` on null or empty tensors and on the architecture read (its own file's lists cited), the
  other side alone where the architecture makes it false; elsewhere the checks both sides make first, then
  the other side's under the guard that the predicate is false, and the remaining calls not judged.
- ``string_choices``: A string a helper names by an if-else chain on its integer parameter (``GetReduceStr``),
  compared with one of the constants it returns: the comparison read as the test on the integer argument.
- ``guard_rules``: Guards as rules: a helper's failure branch on ranks or integers (a rank range, or the
  integer test of its comparisons), a failing ``!IsContiguous(t)``, locals chosen by a rank test decided by
  the branch on it, and the array lengths an earlier check leaves.
- ``scalar_shapes``: A shape's ``IsScalar()`` as its rank test, and a rank local set to a constant in a
  guarded branch kept as a choice on it.
- ``set_dim_index``: ``s.SetDim(dim, v)`` at an index computed from a dim argument, and its size read through
  ``IsScalar()``.
- ``array_elements``: A loop over an integer array's elements checking each against a bound computed once
  (the integer test ``any-elem``).
- ``dim_loops``: Loops over a shape's dims: compared with another shape at every dim but one, checked from a
  dim on (``any-dim``), of a constant count run pass by pass; a shape passed by pointer to a helper only
  reading it; a definition's default arguments; the text of the branch a call does not take left out of
  what changes a local on its way.
- ``templates``: Function templates: a call binding a parameter pack (``const Ts&... args``) to the remaining
  arguments and a type parameter (``const T& t``) to the type deduced from its argument's declared type, a
  pack expanded into a call (``F(args...)``), ``if constexpr`` decided by the instantiation (``sizeof...``,
  ``std::is_same_v``, ``std::remove_const_t``).
- ``model``: What the reader works with: the product table and status names, the events it yields (``Event``),
  the argument wrappers (``T``, ``DList``, ``Opaque``), the index of an op_api file's functions and of the
  checkout's kernels (``Index``, ``KernelIndex``), the walk's state (``Walk``), the constants of a file
  (``#define``, ``enum``) and the small helpers every family shares (a call's name and arguments, the
  top-level operators and ternary branches of an expression, from the parser's tokens).
- ``reenter``: The reader's calls back up its own layers. Reading an expression can inline a helper of the
  checkout (the walk), and the walk reads expressions and conditions; the reader is recursive by nature. The
  modules of this package import only the ones below them, so a call from a family module up to the walk, the
  condition reader or the expression reader goes through this table, which the module defining each entry
  fills when it is imported (the package imports every module before any reading starts).

Each module imports only modules below it (model at the bottom, the walk at the top); the few calls
back up (a family reading an expression, a condition or a helper's body) go through ``reenter``.
"""
from __future__ import annotations

# every module is imported here, before any reading: each fills its entries of reenter
from aclnn_conformance.extract.host_code import (aggregates, array_elements, branches, cast_routes, casts, conditions,
                                                 dim_loops, dtypes, empty, flags, guard_rules, int_choices, integers,
                                                 kernels, loops, model, nulls, partial, products, promotion,
                                                 rank_loops, rank_shapes, ranks, reductions, reenter, routing,
                                                 scalar_shapes, scalars, searches, set_dim_index, shapes, statements,
                                                 string_choices, templates, values, walk)  # noqa: F401
from aclnn_conformance.extract.host_code.casts import CAST_ALWAYS
from aclnn_conformance.extract.host_code.model import Event, Index, KernelIndex, T, Unreadable, _args
from aclnn_conformance.extract.host_code.walk import walk_api

__all__ = ["CAST_ALWAYS", "Event", "Index", "KernelIndex", "T", "Unreadable", "_args", "walk_api"]
