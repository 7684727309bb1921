"""The arithmetic model of each function class of the elementwise surface (what a correct device
may do), and the standards an API's outputs are judged by (spec/standards_surface.py)."""
from __future__ import annotations

from aclnn_conformance.spec.precision import ArithmeticModel
from aclnn_conformance.spec.standards_surface import CLASS_STANDARD


def _model(function_class: str, order: str, correctly_rounded: tuple[str, ...],
           faithful: tuple[str, ...], may: tuple[str, ...], may_not: tuple[str, ...]) -> ArithmeticModel:
    return ArithmeticModel(
        function_class, "1", order=order, correctly_rounded=correctly_rounded, faithful=faithful,
        reciprocal_division=function_class == "rounded", fused_multiply_add=function_class == "rounded",
        final_cast={}, may=may, may_not=may_not,
        source="issue 21 item 2; the API's document (value table entry); spec/standards_surface.py")


# one model per function class (the ``operator`` field names the class); an operator's record takes
# its class's model through ``arithmetic_model_for``
CLASS_MODELS: dict[str, ArithmeticModel] = {m.operator: m for m in (
    _model("exact", "the document's function, element by element after broadcasting, or a "
                    "reduction's maximum or minimum over each slice of the dims the call names",
           ("none: every result is exactly representable",), (),
           ("any order of evaluation; either zero where the entry says an IEEE max/min or select "
            "may give either",
            "a reduction's slice holding NaN: NaN or the extreme of its other values (not judged: "
            "the documents do not say)"),
           ("any difference in value", "a NaN not propagated", "a subnormal flushed to zero",
            "another output dtype than the host code's", "a reduction over other dims than the call's",
            "an output shape inferred without keepdim")),
    _model("rounded", "the document's formula in its order, operands cast to the compute dtype "
                      "the host code chooses, one cast to the output dtype",
           ("addition", "subtraction", "multiplication", "the final cast (round to nearest even)"),
           ("divide", "square root"),
           ("compute fp16/bf16 in float32 and cast once at the end",
            "round each operation in the compute dtype instead",
            "fuse any multiply-add of the formula (one rounding), or not",
            "divide as a faithful reciprocal times the dividend, take square roots faithfully",
            "hold a scalar or literal in the compute dtype or in float32"),
           ("another formula or order that changes the mathematics", "round twice at the end",
            "a systematic bias (every element leaning one way)",
            "another promotion or output dtype than the host code's")),
    _model("transcendental", "the document's function; any algorithm",
           (), ("every function: within the vendor's standard for the API and dtype",),
           ("any algorithm whose results meet the vendor's standard for the API and output dtype",
            "compute fp16/bf16 in float32 and cast once"),
           ("errors beyond the vendor's standard", "a NaN or Inf where the function has none, or "
            "none where it has one", "another promotion or output dtype than the host code's")),
)}


def arithmetic_model_for(key: str, function_class: str) -> ArithmeticModel:
    """The class's model under an operator's key (an Operator record checks that its model is its own)."""
    from dataclasses import replace
    return replace(CLASS_MODELS[function_class], operator=key)


def standards_for(api_or_key: str) -> dict[str, str]:
    """{output: standard} of an API with a value entry (the ``standards`` of its OpSpec)."""
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(api_or_key)
    return {entry.output: CLASS_STANDARD[entry.function_class]}
