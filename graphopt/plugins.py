"""The plugin API: how user code extends graph-opt.

A plugin is a Python module (or a ``.py`` file) with a top-level function
``register(registry: PluginRegistry) -> None``.  It is loaded by
``graph-opt --load-plugin PATH_OR_MODULE`` (repeatable) or discovered through
the entry-point group ``graphopt.plugins`` (an entry point names the module or
its ``register`` function).  Inside ``register`` a plugin may:

* ``registry.add_dialect(dialect)`` -- new dialects and their ops;
* ``registry.add_pass(PassClass)`` -- a new ``ModulePass`` under its ``name``;
* ``registry.add_pattern_pass(name, patterns)`` -- a pass made of rewrite
  patterns, applied greedily until nothing changes;
* ``registry.add_canonicalization_pattern(OpClass, pattern)`` -- a pattern
  xDSL's ``canonicalize`` runs on ``OpClass`` ops;
* ``registry.add_compute_rule(OpClass, rule)`` -- how ``lower-graph-to-loop``
  computes an element of ``OpClass``'s result (see ``lowering.compute_rules``);
* ``registry.add_gradient_rule(OpClass, rule)`` -- how ``autodiff``
  differentiates ``OpClass`` (see ``transforms.autodiff.rules``);

Example::

    from graphopt.plugins import PluginRegistry

    def register(registry: PluginRegistry) -> None:
        registry.add_pattern_pass("relu-cleanup", [FoldReluRelu(), FoldMulOne()])

``examples/plugins/relu_cleanup.py`` is a complete, tested plugin.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from types import ModuleType

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

ENTRY_POINT_GROUP = "graphopt.plugins"


class PluginError(Exception):
    """A plugin could not be loaded or registered."""


@dataclass
class PluginRegistry:
    """What plugins have registered, consulted by the tools at start-up."""

    dialects: dict[str, Callable[[], Dialect]] = field(default_factory=dict)
    passes: dict[str, Callable[[], type[ModulePass]]] = field(default_factory=dict)
    loaded: list[str] = field(default_factory=list)

    def add_dialect(self, dialect: Dialect) -> None:
        self.dialects[dialect.name] = lambda: dialect

    def add_pass(self, pass_cls: type[ModulePass]) -> None:
        self.passes[pass_cls.name] = lambda: pass_cls

    def add_canonicalization_pattern(self, op_class: type, pattern: RewritePattern) -> None:
        from graphopt.transforms.graph_canonicalization import (
            register_canonicalization_pattern,
        )

        register_canonicalization_pattern(op_class, pattern)

    def add_compute_rule(self, op_class: type, rule: Callable) -> None:
        from graphopt.lowering.compute_rules import register_compute_rule

        register_compute_rule(op_class)(rule)

    def add_gradient_rule(self, op_class: type, rule: Callable) -> None:
        from graphopt.transforms.autodiff import register_gradient_rule

        register_gradient_rule(op_class, rule)

    def add_pattern_pass(
        self, name: str, patterns: Sequence[RewritePattern], doc: str = ""
    ) -> type[ModulePass]:
        """Register a pass that applies ``patterns`` until a fixed point."""
        pass_cls = pattern_pass(name, patterns, doc)
        self.add_pass(pass_cls)
        return pass_cls


def pattern_pass(
    name: str, patterns: Sequence[RewritePattern], doc: str = ""
) -> type[ModulePass]:
    """A ``ModulePass`` class named ``name`` that applies ``patterns`` greedily."""
    frozen_patterns = tuple(patterns)

    def apply(self: ModulePass, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(list(frozen_patterns), dce_enabled=False)
        ).rewrite_module(op)

    cls_name = "".join(part.capitalize() for part in name.split("-")) + "Pass"
    cls = type(
        cls_name,
        (ModulePass,),
        {"name": name, "apply": apply, "__doc__": doc or f"Pattern pass {name}."},
    )
    return dataclass(frozen=True)(cls)


REGISTRY = PluginRegistry()
"""The process-wide registry the tools read."""


def _import_plugin(spec: str) -> ModuleType:
    looks_like_path = spec.endswith(".py") or os.sep in spec or "/" in spec
    if looks_like_path:
        path = os.path.abspath(spec)
        if not os.path.isfile(path):
            raise PluginError(f"plugin file '{spec}' does not exist")
        mod_name = "graphopt_plugin_" + os.path.splitext(os.path.basename(path))[0]
        mod_spec = importlib.util.spec_from_file_location(mod_name, path)
        if mod_spec is None or mod_spec.loader is None:
            raise PluginError(f"cannot load plugin file '{spec}'")
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[mod_name] = module
        mod_spec.loader.exec_module(module)
        return module
    return importlib.import_module(spec)


def load_plugin(spec: str, registry: PluginRegistry = REGISTRY) -> None:
    """Import the plugin ``spec`` (a file path or a module name) and register it."""
    if spec in registry.loaded:
        return
    try:
        module = _import_plugin(spec)
    except PluginError:
        raise
    except Exception as err:  # the plugin's own code failed
        raise PluginError(
            f"plugin '{spec}' failed to import: {type(err).__name__}: {err}"
        ) from err
    register = getattr(module, "register", None)
    if not callable(register):
        raise PluginError(f"plugin '{spec}' has no function register(registry)")
    _call_register(spec, register, registry)


def _call_register(
    spec: str, register: Callable[[PluginRegistry], None], registry: PluginRegistry
) -> None:
    try:
        register(registry)
    except Exception as err:
        raise PluginError(
            f"plugin '{spec}' failed to register: {type(err).__name__}: {err}"
        ) from err
    registry.loaded.append(spec)


def load_entry_point_plugins(registry: PluginRegistry = REGISTRY) -> None:
    """Load every plugin installed under the ``graphopt.plugins`` entry-point group."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.value in registry.loaded:
            continue
        try:
            target = ep.load()
        except Exception as err:
            raise PluginError(
                f"plugin entry point '{ep.name}' ({ep.value}) failed to import: "
                f"{type(err).__name__}: {err}"
            ) from err
        register = target if callable(target) else getattr(target, "register", None)
        if not callable(register):
            raise PluginError(
                f"plugin entry point '{ep.name}' ({ep.value}) has no register(registry)"
            )
        _call_register(ep.value, register, registry)


__all__ = [
    "ENTRY_POINT_GROUP",
    "REGISTRY",
    "PatternRewriter",
    "PluginError",
    "PluginRegistry",
    "RewritePattern",
    "load_entry_point_plugins",
    "load_plugin",
    "pattern_pass",
]
