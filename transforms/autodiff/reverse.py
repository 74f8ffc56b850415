"""Reverse-mode differentiation of one graph function (NNVM's Gradient pass).

``differentiate(fn, wrt, seed, name)`` returns a new function ``@name`` that
recomputes ``fn``'s forward graph and appends its backward graph:

* arguments: ``fn``'s arguments, then (``seed="head"``) one head gradient per
  float output; with ``seed="ones"`` every output is seeded with ones, so a
  scalar loss needs no head gradient;
* results: ``fn``'s results, then the gradient of each ``wrt`` argument.

``fn``'s arguments and results keep their source names (``graph.name``, an
ONNX model's input and output names); where ``fn`` has one, the gradient
function derives the new ones from it, as onnxruntime's training graphs do:
the head gradient of output ``y`` is ``y_grad``, and so is the gradient
result of argument ``y`` (made distinct with a ``_1``... suffix if ``fn``
already uses the name).

The walk visits the ops in reverse order (a valid reverse topological order of
an SSA block) and only inside the cone between the outputs and ``wrt``: a
value gets gradient contributions only if it depends on a ``wrt`` argument
(and is a float tensor), and a rule runs only if one of its results has a
contribution.  At each op the contributions of every result are summed by
ONE n-ary ``graph.add_n`` (one contribution passes through; none is a
symbolic zero, ``None``, that is never materialised), then the op's rule
maps the result gradients to operand gradients.  A ``wrt`` argument nothing
depends on gets an explicit zero tensor.  Backward ops the outputs do not
need (e.g. a rule's gradient for an operand only one of several uses needed)
are erased at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Operation, SSAValue

from graphopt.diagnostics import attach_location, location_of
from graphopt.dialects import graph
from graphopt.transforms.autodiff.rules import (
    GradContext,
    GradientError,
    check_rule_result,
    gradient_rule_for,
    is_float,
)
from graphopt.transforms.plan_devices import DEVICE_GROUP_ATTR, device_group_of


def _describe_value(v: SSAValue, index: int) -> str:
    return f"%{v.name_hint}" if v.name_hint else f"argument #{index}"


def resolve_wrt(fn: func.FuncOp, wrt: Sequence[int | str] | None) -> list[int]:
    """Argument indices for ``wrt`` (indices, source names -- ``graph.name``
    -- or SSA name hints); default: every float argument."""
    args = fn.body.block.args
    fname = fn.sym_name.data
    if not wrt:
        return [i for i, a in enumerate(args) if is_float(a)]
    out: list[int] = []
    for item in wrt:
        key = item.lstrip("%") if isinstance(item, str) else item
        if isinstance(key, str) and key.isdigit():
            key = int(key)
        if isinstance(key, int):
            if not 0 <= key < len(args):
                raise GradientError(
                    f"autodiff: @{fname} has {len(args)} arguments; wrt index {key} is out of range"
                )
            index = key
        else:
            sources = graph.arg_source_names(fn)
            matches = [i for i, n in enumerate(sources) if n == key]
            matches += [i for i, a in enumerate(args) if a.name_hint == key]
            if not matches:
                names = ", ".join(_describe_value(a, i) for i, a in enumerate(args))
                raise GradientError(
                    f"autodiff: @{fname} has no argument %{key} (its arguments: {names})"
                )
            index = matches[0]
        if not is_float(args[index]):
            raise GradientError(
                f"autodiff: cannot differentiate @{fname} with respect to "
                f"{_describe_value(args[index], index)} of type {args[index].type}: "
                "only float tensors have gradients"
            )
        if index not in out:
            out.append(index)
    return out


def follow_device_group(forward: Operation, backward: Sequence[Operation]) -> None:
    """Backward ops run where their forward op runs: they inherit its device
    group (see ``plan-devices``)."""
    group = device_group_of(forward)
    if group is None:
        return
    for op in backward:
        if device_group_of(op) is None:
            op.attributes[DEVICE_GROUP_ATTR] = forward.attributes[DEVICE_GROUP_ATTR]


def _reach(block_args: Sequence[SSAValue], ops: Sequence[Operation]) -> set[SSAValue]:
    """Float values that depend on ``block_args``."""
    reach: set[SSAValue] = {a for a in block_args if is_float(a)}
    for op in ops:
        if any(v in reach for v in op.operands):
            reach.update(r for r in op.results if is_float(r))
    return reach


def _erase_unused(ctx: GradContext) -> None:
    for op in reversed(ctx.emitted):
        if op.parent is not None and all(not r.uses for r in op.results):
            op.detach()
            op.erase()


def differentiate(
    fn: func.FuncOp, wrt: Sequence[int], seed: str = "head", name: str | None = None
) -> func.FuncOp:
    """The gradient function of ``fn`` (see the module docstring); not inserted
    in any module."""
    if seed not in ("head", "ones"):
        raise GradientError(f"autodiff: seed must be 'head' or 'ones', got '{seed}'")
    fname = fn.sym_name.data
    if fn.is_declaration:
        raise GradientError(f"autodiff: @{fname} is a declaration, it has no body")
    grad_fn = fn.clone()
    grad_fn.sym_name = type(fn.sym_name)(name or f"{fname}_grad")
    block = grad_fn.body.block
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp):
        raise GradientError(f"autodiff: @{fname} does not end in func.return")
    outputs = list(ret.operands)
    xs = [block.args[i] for i in wrt]
    ops = [op for op in block.ops if op is not ret]
    reach = _reach(xs, ops)
    ctx = GradContext(block, ret)
    contributions: dict[SSAValue, list[SSAValue]] = {}

    # Seeds: one head gradient per float output.
    for k, y in enumerate(outputs):
        if not is_float(y):
            continue
        if seed == "head":
            head = block.insert_arg(y.type, len(block.args))
            head.name_hint = f"d_out{k}"
        else:
            head = None
        if y in reach:
            if head is None:
                head = ctx.ones(y.type)
            contributions.setdefault(y, []).append(head)

    def aggregate(v: SSAValue) -> SSAValue | None:
        parts = contributions.pop(v, None)
        return ctx.add_n(parts) if parts else None

    for op in reversed(ops):
        if not any(r in contributions for r in op.results):
            continue
        grads = [aggregate(r) for r in op.results]
        rule = gradient_rule_for(op)
        if rule is None:
            # The forward use (new gradient ops have no source location).
            users = [u.operation for r in op.results for u in r.uses]
            users = [u for u in users if location_of(u)]
            raise attach_location(
                GradientError(
                    f"autodiff: {op.name} has no gradient rule, but the gradient of "
                    f"@{fname} flows through it (register one with register_gradient_rule)"
                ),
                op,
                [(users[0], "the gradient reaches it through this use")] if users else [],
            )
        ctx.operand_needs = [v in reach for v in op.operands]
        first_new = len(ctx.emitted)
        results = check_rule_result(op, rule(ctx, op, grads))
        follow_device_group(op, ctx.emitted[first_new:])
        for v, g, need in zip(op.operands, results, ctx.operand_needs):
            if need and g is not None:
                contributions.setdefault(v, []).append(g)

    grads_out: list[SSAValue] = []
    for x in xs:
        g = aggregate(x) if x in contributions else None
        grads_out.append(g if g is not None else ctx.zeros(x.type))
    new_ret = func.ReturnOp(*outputs, *grads_out)
    block.insert_op_before(new_ret, ret)
    ret.detach()
    ret.erase()
    _erase_unused(ctx)
    grad_fn.function_type = FunctionType.from_lists(
        [a.type for a in block.args], [v.type for v in new_ret.operands]
    )
    arg_names = graph.arg_source_names(fn)
    result_names = graph.result_source_names(fn)
    if seed == "head":
        for k, y in enumerate(outputs):
            if is_float(y):
                arg_names.append(_derived(result_names[k], "_grad", arg_names))
    result_names += [_derived(graph.arg_source_names(fn)[i], "_grad", result_names) for i in wrt]
    graph.set_arg_source_names(grad_fn, arg_names)
    graph.set_result_source_names(grad_fn, result_names)
    return grad_fn


def _derived(name: str | None, suffix: str, taken: Sequence[str | None]) -> str | None:
    """``name + suffix``, made distinct from ``taken``; none without ``name``."""
    if name is None:
        return None
    return graph.unique_name(name + suffix, (n for n in taken if n is not None))
