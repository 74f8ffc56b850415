"""How graph-opt keeps plugins honest: the names graph-opt and xDSL already
define (a plugin may not take them), and guards that turn a crash or a
``sys.exit`` in a plugin's op verifier or pass into one error naming the
plugin and the op it was working on, with the op's location.

Used by :mod:`graphopt.plugins`; plugin authors do not call it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType, TracebackType

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from graphopt.dialects import project_dialects
from graphopt.errors import PluginError
from graphopt.transforms import PASS_LOCATIONS
from graphopt.transforms.pipelines import NAMED_PIPELINES


@dataclass(frozen=True)
class PluginOrigin:
    """The plugin being registered: how to name it, and where its code is."""

    spec: str | None
    module: ModuleType | None

    def describe(self) -> str:
        return f"plugin '{self.spec}'" if self.spec is not None else "a direct registry call"

    def owns_file(self, filename: str) -> bool:
        path = getattr(self.module, "__file__", None)
        if not path:
            return False
        path = os.path.abspath(path)
        if os.path.basename(path) == "__init__.py":  # a package: every file in it
            return os.path.abspath(filename).startswith(os.path.dirname(path) + os.sep)
        return os.path.abspath(filename) == path


# --------------------------------------------------------------------------
# what is built in (for collisions)
# --------------------------------------------------------------------------


def _xdsl_universes() -> Iterator[tuple[str, object]]:
    """(source, Universe) for xDSL itself and every other installed xDSL
    universe except graph-opt's own (which publishes graph-opt's builtins)."""
    from xdsl.universe import XDSL_UNIVERSE

    yield "xDSL", XDSL_UNIVERSE
    for ep in entry_points(group="xdsl.universe"):
        if ep.name in ("xdsl", "graphopt"):
            continue
        try:
            yield f"the xDSL universe '{ep.name}'", ep.load()
        except Exception:  # noqa: BLE001 - a broken universe is xdsl-opt's to report
            continue


def _universe_source(name: str, table: str) -> str | None:
    """The xDSL universe whose ``table`` (``all_passes``...) has ``name``."""
    return next((s for s, u in _xdsl_universes() if name in getattr(u, table, {})), None)


def builtin_pass_source(name: str) -> str | None:
    """Who defines the pass (or named pipeline) ``name``, if it is not a plugin."""
    if name in PASS_LOCATIONS:
        return "graph-opt"
    if name in NAMED_PIPELINES:
        return "graph-opt (a named pipeline)"
    return _universe_source(name, "all_passes")


def builtin_dialect_source(name: str) -> str | None:
    return "graph-opt" if name in project_dialects() else _universe_source(name, "all_dialects")


def builtin_op_source(op_name: str) -> str | None:
    """Who defines the op ``op_name`` (looked up in the dialect its prefix names)."""
    prefix = op_name.split(".", 1)[0]
    factories = [("graph-opt", project_dialects().get(prefix))]
    factories += [(s, getattr(u, "all_dialects", {}).get(prefix)) for s, u in _xdsl_universes()]
    for source, factory in factories:
        if factory is None:
            continue
        if any(op.name == op_name for op in factory().operations):
            return f"{source} (dialect '{prefix}')"
    return None


# --------------------------------------------------------------------------
# a plugin's code failing at run time
# --------------------------------------------------------------------------


def describe_failure(err: BaseException) -> str:
    if isinstance(err, SystemExit):
        return f"called sys.exit({err.code!r})"
    return f"raised {type(err).__name__}: {err}"


def _op_in_traceback(tb: TracebackType | None, plugin: PluginOrigin) -> Operation | None:
    """The innermost op a frame of the plugin's own code was working on."""
    found: Operation | None = None
    while tb is not None:
        frame = tb.tb_frame
        if plugin.owns_file(frame.f_code.co_filename):
            for value in frame.f_locals.values():
                if isinstance(value, Operation) and not isinstance(value, ModuleOp):
                    found = value
        tb = tb.tb_next
    return found


def _location(op: Operation) -> str | None:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return None


def guard_verifier(op_cls: type[Operation], plugin: PluginOrigin) -> None:
    """Make a crash in ``op_cls``'s verifier a verifier error naming the plugin."""
    if getattr(op_cls.verify_, "__graphopt_plugin__", None) is not None:
        return
    original = op_cls.verify_

    def verify_(self: Operation) -> None:
        try:
            original(self)
        except VerifyException:
            raise
        except (Exception, SystemExit) as err:
            # ``from None``: the message is the diagnostic (the crash stays
            # in ``__context__``); xDSL reports a verifier's cause instead.
            raise VerifyException(
                f"{self.name}: the verifier of {plugin.describe()} {describe_failure(err)}"
            ) from None

    verify_.__graphopt_plugin__ = plugin  # type: ignore[attr-defined]
    verify_.__doc__ = original.__doc__
    op_cls.verify_ = verify_  # type: ignore[method-assign]


def guard_pass(pass_cls: type[ModulePass], plugin: PluginOrigin) -> None:
    """Make a crash in a plugin pass one error naming the pass, the plugin and
    the op its code was working on (with that op's location)."""
    if getattr(pass_cls.apply, "__graphopt_plugin__", None) is not None:
        return
    original = pass_cls.apply

    def apply(self: ModulePass, ctx: Context, op: ModuleOp) -> None:
        try:
            original(self, ctx, op)
        except DiagnosticException:  # the plugin's own diagnostic: keep it
            raise
        except (Exception, SystemExit) as err:
            culprit = _op_in_traceback(err.__traceback__, plugin)
            where = f" on {culprit.name}" if culprit is not None else ""
            message = f"pass '{self.name}' of {plugin.describe()} {describe_failure(err)}{where}"
            location = _location(culprit) if culprit is not None else None
            raise PluginError(message, location=location) from err

    apply.__graphopt_plugin__ = plugin  # type: ignore[attr-defined]
    pass_cls.apply = apply  # type: ignore[method-assign]


def guard_rule(kind_name: str, label: str, rule: object, plugin: PluginOrigin) -> object:
    """``rule`` (a plugin's rule of kind ``kind_name`` for the op class
    ``label``), made to turn a crash into one error naming the rule, the
    plugin and the op it was given (with that op's location).  A rewrite
    pattern is guarded in place; a callable rule is wrapped; anything else
    (data, classes) is returned as it is."""

    def failure(err: BaseException, args: tuple) -> PluginError:
        culprit = next((a for a in args if isinstance(a, Operation)), None)
        culprit = culprit or _op_in_traceback(err.__traceback__, plugin)
        where = f" on {culprit.name}" if culprit is not None else ""
        message = f"the {kind_name} for '{label}' of {plugin.describe()} {describe_failure(err)}{where}"
        return PluginError(message, location=_location(culprit) if culprit is not None else None)

    if isinstance(rule, RewritePattern):
        original = rule.match_and_rewrite

        def match_and_rewrite(op: Operation, rewriter: PatternRewriter) -> None:
            try:
                original(op, rewriter)
            except DiagnosticException:
                raise
            except (Exception, SystemExit) as err:
                raise failure(err, (op,)) from err

        rule.match_and_rewrite = match_and_rewrite  # type: ignore[method-assign]
        return rule
    if not callable(rule) or isinstance(rule, type):
        return rule

    @functools.wraps(rule)
    def guarded(*args, **kwargs):
        try:
            return rule(*args, **kwargs)
        except DiagnosticException:  # the plugin's own diagnostic: keep it
            raise
        except (Exception, SystemExit) as err:
            raise failure(err, args) from err

    return guarded
