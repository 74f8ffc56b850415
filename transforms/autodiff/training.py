"""Training steps: forward, backward and an SGD update in ONE function.

``training_step(fn, params, lr)`` builds ``@<fn>_train(args...) -> (loss,
new_params...)`` where ``fn`` returns a single float loss with one element
and ``new_p = p - lr * dloss/dp`` for every parameter argument (named
``<p>_new`` where the parameter has a source name, ``graph.name``).  Compiled, it
is one native function: the whole step, no Python in between.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType

from graphopt.dialects import graph
from graphopt.transforms.autodiff.reverse import differentiate
from graphopt.transforms.autodiff.rules import GradContext, GradientError, is_float, shape_of


def training_step(
    fn: func.FuncOp, params: Sequence[int], lr: float, name: str | None = None
) -> func.FuncOp:
    """The SGD training step of loss function ``fn`` (not inserted in a module)."""
    fname = fn.sym_name.data
    outputs = fn.function_type.outputs.data
    ret = fn.body.block.last_op
    if len(outputs) != 1 or ret is None or not is_float(ret.operands[0]) or prod(
        shape_of(ret.operands[0])
    ) != 1:
        got = ", ".join(str(t) for t in outputs) or "nothing"
        raise GradientError(
            f"autodiff: a training step needs @{fname} to return one float loss with "
            f"one element, but it returns {got}"
        )
    step = differentiate(fn, params, seed="ones", name=name or f"{fname}_train")
    block = step.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    loss, *grads = ret.operands
    ctx = GradContext(block, ret)
    new_params = []
    for index, g in zip(params, grads):
        p = block.args[index]
        new_params.append(ctx.sub(p, ctx.mul(g, ctx.scalar(lr, g))))
    new_ret = func.ReturnOp(loss, *new_params)
    block.insert_op_before(new_ret, ret)
    ret.detach()
    ret.erase()
    step.function_type = FunctionType.from_lists(
        [a.type for a in block.args], [v.type for v in new_ret.operands]
    )
    # The loss keeps its source name; a parameter with one names its new value.
    arg_names = graph.arg_source_names(fn)
    result_names = graph.result_source_names(fn)
    for index in params:
        new = f"{arg_names[index]}_new" if arg_names[index] is not None else None
        result_names.append(
            graph.unique_name(new, (n for n in result_names if n is not None)) if new else None
        )
    graph.set_result_source_names(step, result_names)
    return step
