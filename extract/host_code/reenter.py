"""The reader's calls back up its own layers. Reading an expression can inline a helper of the checkout
(the walk), and the walk reads expressions and conditions; the reader is recursive by nature. The modules
of this package import only the ones below them, so a call from a family module up to the walk, the
condition reader or the expression reader goes through this table, which the module defining each entry
fills when it is imported (the package imports every module before any reading starts)."""
from __future__ import annotations

from typing import Any, Callable

decided: Callable[..., Any]   # promotion._decided
tensor_dtype: Callable[..., Any]   # casts._tensor_dtype
dims_decided: Callable[..., Any]   # ranks._dims_decided
expr_min_rank: Callable[..., Any]   # ranks._expr_min_rank
min_rank_checked: Callable[..., Any]   # ranks._min_rank_checked
shape_expr_at: Callable[..., Any]   # shapes._shape_expr_at
shape_expr_of: Callable[..., Any]   # shapes._shape_expr_of
view_shape_held: Callable[..., Any]   # shapes._view_shape_held
value_test: Callable[..., Any]   # scalars._value_test
checks_nothing: Callable[..., Any]   # kernels._checks_nothing
shape_like: Callable[..., Any]   # kernels._shape_like
tensor_shape_expr: Callable[..., Any]   # kernels._tensor_shape_expr
atom: Callable[..., Any]   # conditions._atom
converted: Callable[..., Any]   # conditions._converted
decide: Callable[..., Any]   # conditions._decide
guard: Callable[..., Any]   # conditions._guard
guard_atom: Callable[..., Any]   # conditions._guard_atom
guarded_args: Callable[..., Any]   # conditions._guarded_args
has_atom: Callable[..., Any]   # conditions._has_atom
rank_int_rule: Callable[..., Any]   # guard_rules.rank_int_rule
value: Callable[..., Any]   # values._value
forget_assigned: Callable[..., Any]   # branches._forget_assigned
forget_if_mutated: Callable[..., Any]   # branches._forget_if_mutated
run_guarded_if: Callable[..., Any]   # branches._run_guarded_if
bind: Callable[..., Any]   # walk._bind
call_fn: Callable[..., Any]   # walk._call_fn
run_block: Callable[..., Any]   # walk._run_block
read_loop: Callable[..., Any]   # walk._read_loop
run_decl: Callable[..., Any]   # walk._run_decl
run_function: Callable[..., Any]   # walk._run_function
