"""The plugin API: how user code extends graph-opt.

A plugin is a Python module (or a ``.py`` file) with a top-level function
``register(registry: PluginRegistry) -> None``.  Every entry point sees the
same plugins: ``graph-opt`` and ``graph-run`` take ``--load-plugin
PATH_OR_MODULE`` (repeatable), ``graphopt.compile(..., plugins=[...])`` takes
the same specs, and all three load the plugins installed under the
entry-point group ``graphopt.plugins`` (an entry point names the module or its
``register`` function).  Inside ``register`` a plugin may:

* ``registry.add_dialect(dialect)`` -- new dialects and their ops;
* ``registry.add_pass(PassClass)`` -- a new ``ModulePass`` under its ``name``;
* ``registry.add_pattern_pass(name, patterns)`` -- a pass made of rewrite
  patterns, applied greedily until nothing changes;
* ``registry.add_rule(KIND, OpClass, rule)`` -- how a transformation treats
  ``OpClass`` ops (and its subclasses), for every kind of
  :mod:`graphopt.rules`: ``COMPUTE`` and ``LOOP_ORDER`` (``lower-graph-to-loop``),
  ``GEMM_PLAN`` (the GEMM schedule), ``GRADIENT`` (``autodiff``),
  ``CANONICALIZATION`` (a pattern ``canonicalize`` runs), ``DECOMPOSITION``
  (``decompose``), ``SPLAT`` (``fold-constants``), ``FUSION`` (``fuse-ops``).

Plugins are held to the rules of the rest of the compiler:

* a name is never silently replaced: a pass, dialect or op whose name is
  already taken -- by xDSL, by graph-opt or by another plugin -- is refused
  with a :class:`PluginError` naming both sources, and so is a rule for an
  op class that already has one of that kind (patterns only add up);
* a plugin that raises, or calls ``sys.exit``, while it is imported or
  registered gives a :class:`PluginError` naming it, and what it registered
  is rolled back;
* an installed (entry-point) plugin that fails only gives a warning, so one
  broken package does not disable ``--help``, ``--version`` or the others;
* an op verifier, a pass or a rule of a plugin that raises gives one error
  naming the op, its location and the plugin, not an "internal error".

``examples/plugins/relu_cleanup.py`` is a complete, tested plugin.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from types import ModuleType

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from graphopt import rules
from graphopt.dialects import project_dialects
from graphopt.errors import PluginError
from graphopt.plugin_guards import (
    PluginOrigin,
    builtin_dialect_source,
    builtin_op_source,
    builtin_pass_source,
    describe_failure,
    guard_pass,
    guard_rule,
    guard_verifier,
)
from graphopt.rules import KINDS, RuleKind
from graphopt.transforms import project_passes

ENTRY_POINT_GROUP = "graphopt.plugins"


class PluginWarning(UserWarning):
    """An installed plugin could not be loaded and was skipped."""


@dataclass
class PluginRegistry:
    """What plugins have registered, consulted by the tools at start-up.

    ``sources`` records who registered each name (``("pass", "cse")`` ->
    ``"plugin 'x.py'"``), so that a collision can name both sides.
    """

    dialects: dict[str, Callable[[], Dialect]] = field(default_factory=dict)
    passes: dict[str, Callable[[], type[ModulePass]]] = field(default_factory=dict)
    loaded: list[str] = field(default_factory=list)
    sources: dict[tuple[str, str], str] = field(default_factory=dict)
    entry_points_loaded: bool = False
    _current: PluginOrigin | None = None

    # -- what a plugin calls --------------------------------------------------

    def add_dialect(self, dialect: Dialect) -> None:
        """Register ``dialect`` and its ops; their names must be new."""
        plugin = self._plugin()
        self._claim("dialect", dialect.name, builtin_dialect_source(dialect.name))
        op_names = [op.name for op in dialect.operations]
        for name in op_names:
            self._claim("op", name, builtin_op_source(name))
        for op_cls in dialect.operations:
            guard_verifier(op_cls, plugin)
        self.sources[("dialect", dialect.name)] = plugin.describe()
        for name in op_names:
            self.sources[("op", name)] = plugin.describe()
        self.dialects[dialect.name] = lambda: dialect

    def add_pass(self, pass_cls: type[ModulePass]) -> None:
        """Register ``pass_cls`` under its ``name``, which must be new."""
        plugin = self._plugin()
        self._claim("pass", pass_cls.name, builtin_pass_source(pass_cls.name))
        guard_pass(pass_cls, plugin)
        self.sources[("pass", pass_cls.name)] = plugin.describe()
        self.passes[pass_cls.name] = lambda: pass_cls

    def add_rule(self, kind: RuleKind, op_class: type, rule: object) -> None:
        """Register ``rule`` as ``op_class``'s rule of ``kind`` (one of
        :data:`graphopt.rules.KINDS`).  Kinds of one rule per class refuse a
        class that already has one (from graph-opt or another plugin); a
        subclass of it may have its own, which then wins for that subclass."""
        if kind not in KINDS:
            raise PluginError(f"{self._plugin().describe()} registers a rule of an unknown kind {kind!r}")
        if not isinstance(op_class, type):
            raise PluginError(f"{self._plugin().describe()} registers a {kind.name} for {op_class!r}, which is not a class")
        me = self._plugin().describe()
        label = getattr(op_class, "name", op_class.__name__)
        if not kind.several and (owner := kind.owner(op_class)) is not None:
            raise PluginError(f"{me} registers a {kind.name} for '{label}', which {owner} already defines")
        kind.add(op_class, guard_rule(kind.name, label, rule, self._plugin()), me)

    def add_pattern_pass(
        self, name: str, patterns: Sequence[RewritePattern], doc: str = ""
    ) -> type[ModulePass]:
        """Register a pass that applies ``patterns`` until a fixed point."""
        pass_cls = pattern_pass(name, patterns, doc)
        self.add_pass(pass_cls)
        return pass_cls

    # -- bookkeeping ----------------------------------------------------------

    def _plugin(self) -> PluginOrigin:
        return self._current or PluginOrigin(None, None)

    def _claim(self, kind: str, name: str, builtin: str | None) -> None:
        """Refuse ``name`` when a builtin or another plugin already has it."""
        me = self._plugin().describe()
        owner = builtin or self.sources.get((kind, name))
        if owner is not None:
            raise PluginError(f"{me} registers {kind} '{name}', which {owner} already defines")

    def _snapshot(self) -> tuple[dict, dict, dict, tuple]:
        return dict(self.dialects), dict(self.passes), dict(self.sources), rules.snapshot()

    def _restore(self, snapshot: tuple[dict, dict, dict, tuple]) -> None:
        dialects, passes, sources, rule_tables = snapshot
        self.dialects, self.passes, self.sources = dict(dialects), dict(passes), dict(sources)
        rules.restore(rule_tables)


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


# --------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------


REGISTRY = PluginRegistry()
"""The process-wide registry the tools and ``graphopt.compile`` read."""


def project_context(allow_unregistered: bool = False) -> Context:
    """An xDSL ``Context`` with every xDSL dialect, graph-opt's and plugins'."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    for name, factory in {**project_dialects(), **REGISTRY.dialects}.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass ``graph-opt -p`` knows: xDSL's, graph-opt's and plugins'."""
    passes = dict(Universe.get_multiverse().all_passes)
    passes.update(project_passes())
    passes.update(REGISTRY.passes)
    return passes


def _spec_name(spec: str | os.PathLike[str] | ModuleType) -> str:
    if isinstance(spec, ModuleType):
        return spec.__name__
    return os.fspath(spec)


def _looks_like_path(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or "/" in spec


def _loaded_key(spec: str) -> str:
    """One key per plugin: a file by its real path, however it was spelled."""
    return os.path.realpath(spec) if _looks_like_path(spec) else spec


def _import_plugin(spec: str) -> ModuleType:
    if _looks_like_path(spec):
        path = os.path.abspath(spec)
        if not os.path.isfile(path):
            raise PluginError(f"plugin file '{spec}' does not exist")
        mod_name = "graphopt_plugin_" + os.path.splitext(os.path.basename(path))[0]
        mod_spec = importlib.util.spec_from_file_location(mod_name, path)
        if mod_spec is None or mod_spec.loader is None:
            raise PluginError(f"cannot load plugin file '{spec}'")
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[mod_name] = module
        try:
            mod_spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(mod_name, None)
            raise
        return module
    return importlib.import_module(spec)


def load_plugin(
    spec: str | os.PathLike[str] | ModuleType, registry: PluginRegistry = REGISTRY
) -> None:
    """Import the plugin ``spec`` (a file path, a module name or a module) and
    register it.  Loading one twice is a no-op; a failure raises
    :class:`PluginError` and leaves ``registry`` as it was."""
    name = _spec_name(spec)
    if _loaded_key(name) in registry.loaded:
        return
    if isinstance(spec, ModuleType):
        module = spec
    else:
        before_import = rules.snapshot()  # rules its module registers on import
        try:
            module = _import_plugin(name)
        except PluginError:
            rules.restore(before_import)
            raise
        except (Exception, SystemExit) as err:  # the plugin's own code failed
            rules.restore(before_import)
            raise PluginError(f"plugin '{name}' {_import_failure(err)}") from err
    register = getattr(module, "register", None)
    if not callable(register):
        raise PluginError(f"plugin '{name}' has no function register(registry)")
    _call_register(PluginOrigin(name, module), register, registry)


def _import_failure(err: BaseException) -> str:
    if isinstance(err, SystemExit):
        return f"{describe_failure(err)} while it was imported"
    return f"failed to import: {type(err).__name__}: {err}"


def _call_register(
    plugin: PluginOrigin, register: Callable[[PluginRegistry], None], registry: PluginRegistry
) -> None:
    snapshot = registry._snapshot()
    registry._current = plugin
    try:
        register(registry)
    except PluginError:
        registry._restore(snapshot)
        raise
    except (Exception, SystemExit) as err:
        registry._restore(snapshot)
        raise PluginError(f"{plugin.describe()} failed to register: {describe_failure(err).removeprefix('raised ')}") from err
    finally:
        registry._current = None
    registry.loaded.append(_loaded_key(plugin.spec))


def _warn(message: str) -> None:
    warnings.warn(message, PluginWarning, stacklevel=3)


def load_entry_point_plugins(
    registry: PluginRegistry = REGISTRY, warn: Callable[[str], None] | None = _warn
) -> None:
    """Load every plugin installed under the ``graphopt.plugins`` entry-point
    group, once per registry.  One that fails is skipped with ``warn(message)``
    (a :class:`PluginWarning` by default) and the others still load; with
    ``warn=None`` the first failure raises :class:`PluginError`."""
    if registry.entry_points_loaded:
        return
    registry.entry_points_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.value in registry.loaded:
            continue
        try:
            _load_entry_point(ep, registry)
        except PluginError as err:
            if warn is None:
                raise
            warn(f"{err}; the plugin is skipped")


def _load_entry_point(ep, registry: PluginRegistry) -> None:
    label = f"plugin entry point '{ep.name}' ({ep.value})"
    try:
        target = ep.load()
    except (Exception, SystemExit) as err:
        raise PluginError(f"{label} {_import_failure(err)}") from err
    register = target if callable(target) else getattr(target, "register", None)
    if not callable(register):
        raise PluginError(f"{label} has no register(registry)")
    module = sys.modules.get(ep.module)
    _call_register(PluginOrigin(ep.value, module), register, registry)


def load_plugins(
    specs: Iterable[str | os.PathLike[str] | ModuleType] = (),
    *,
    registry: PluginRegistry = REGISTRY,
    entry_points: bool = True,
    warn: Callable[[str], None] | None = _warn,
    strict: bool = True,
) -> None:
    """What every entry point calls: the installed plugins (a failure warns),
    then ``specs`` in order (a failure raises :class:`PluginError`, or with
    ``strict=False`` -- for ``--help`` and ``--version`` -- warns)."""
    if entry_points:
        load_entry_point_plugins(registry, warn)
    for spec in specs:
        try:
            load_plugin(spec, registry)
        except PluginError as err:
            if strict or warn is None:
                raise
            warn(str(err))


def load_cli_plugins(tool: str, specs: Sequence[str], argv: Sequence[str]) -> None:
    """The command-line tools' start-up: installed plugins, then ``--load-plugin``
    specs.  Warnings go to stderr as ``tool: warning: ...``.  With ``-h``,
    ``--help`` or ``--version`` in ``argv`` a broken ``--load-plugin`` is only a
    warning too, so help and the version are always shown."""

    def warn(message: str) -> None:
        print(f"{tool}: warning: {message}", file=sys.stderr)

    informational = any(a in ("-h", "--help", "--version") for a in argv)
    load_plugins(specs, warn=warn, strict=not informational)


__all__ = [
    "ENTRY_POINT_GROUP",
    "REGISTRY",
    "PatternRewriter",
    "PluginError",
    "PluginRegistry",
    "PluginWarning",
    "RewritePattern",
    "available_passes",
    "load_cli_plugins",
    "load_entry_point_plugins",
    "load_plugin",
    "load_plugins",
    "pattern_pass",
    "project_context",
]
