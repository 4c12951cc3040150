"""Every derivative formula reads only names it is given: the op's parameters, grad / grads / result /
needs, Python's builtins and the helpers of mindtorch.ops.formulas (torch among them)."""

import ast
import builtins

import mindtorch
import pytest
from mindtorch.ops import formulas
from mindtorch.ops.derivatives import compile_derivative
from mindtorch.ops.registry import OPS
from mindtorch.ops.schema import Op

GIVEN = {"grad", "grads", "result", "needs"}


def free_names(expr):
    """Names an expression reads that it does not bind itself (lambda parameters, comprehension targets)."""
    tree = ast.parse(expr, mode="eval")
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound


def unresolved(op, formulas_of_op):
    known = GIVEN | {p.name for p in op.params} | set(vars(formulas)) | set(vars(builtins))
    missing = {}
    for params, expr in formulas_of_op.items():
        compile(expr, f"<derivative of {op.qualname}>", "eval")
        names = sorted(free_names(expr) - known)
        if names:
            missing[params] = names
    return missing


def test_every_formula_name_resolves_in_the_formulas_namespace():
    bad = {}
    for qualname, op in OPS.items():
        if op.derivative is None:
            continue
        missing = unresolved(op, op.derivative.formulas)
        if missing:
            bad[qualname] = missing
    assert not bad, f"formulas read names that are neither parameters nor helpers of ops/formulas.py: {bad}"


def test_every_formula_compiles_into_a_backward():
    for op in OPS.values():
        if op.derivative is not None:
            assert callable(op.derivative.fn), op.qualname


def test_an_unknown_name_is_reported():
    op = Op("fake_op(Tensor self, Tensor other) -> Tensor")
    assert unresolved(op, {"self": "grad * other", "other": "sum_to(grad * self, shape_of(other))"}) == {}
    assert unresolved(op, {"self": "no_such_helper(grad, self)"}) == {"self": ["no_such_helper"]}
    # a helper private to a family module is not visible to formulas
    assert unresolved(op, {"self": "_fmt(grad)"}) == {"self": ["_fmt"]}
    # names a formula binds itself are not free
    assert unresolved(op, {"self": "[g * other for g in grads]"}) == {}


def test_a_formula_does_not_see_the_declaring_module():
    op = Op("fake_op(Tensor self) -> Tensor")
    op.derivative = compile_derivative(op, {"self": "helper_only_here(grad)"})
    helper_only_here = lambda g: g  # noqa: F841  (present in this frame, must stay invisible)
    with pytest.raises(NameError):
        op.derivative.fn([mindtorch.ones(2)], [True], None)
