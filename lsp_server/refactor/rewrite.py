"""Rewrites inside classes and functions: encapsulate field, local to field, method to
method object, use function, introduce factory."""

from __future__ import annotations

from rope.refactor.encapsulate_field import EncapsulateField
from rope.refactor.introduce_factory import IntroduceFactory
from rope.refactor.localtofield import LocalToField
from rope.refactor.method_object import MethodObject
from rope.refactor.usefunction import UseFunction

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.names import check_identifier
from lsp_server.refactor.provenance import Hints


def encapsulate_field(ctx: Context) -> Planned:
    encapsulator = EncapsulateField(ctx.project, ctx.resource, ctx.offset)
    name = str(encapsulator.name)
    getter = ctx.arg("getter") or None
    setter = ctx.arg("setter") or None
    for accessor in (getter, setter):
        if accessor is not None:
            check_identifier(str(accessor))
    files, skipped = ctx.scope_files(name)
    changes = encapsulator.get_changes(
        getter=getter, setter=setter, resources=files, task_handle=ctx.job.handle
    )
    # The getter and setter are new code, not made from existing units.
    hints = Hints(creates=True)
    return Planned(changes, "encapsulate-field", f"encapsulate field `{name}`", hints, skipped)


def local_to_field(ctx: Context) -> Planned:
    changes = LocalToField(ctx.project, ctx.resource, ctx.offset).get_changes()
    return Planned(changes, "local-to-field", "local variable to field", Hints())


def method_object(ctx: Context) -> Planned:
    refactoring = MethodObject(ctx.project, ctx.resource, ctx.offset)
    default = "_" + "".join(p.capitalize() for p in refactoring.pyfunction.get_name().split("_"))
    classname = str(ctx.arg("classname") or default)
    check_identifier(classname)
    source = ctx.unit_at(ctx.request.offset)
    changes = refactoring.get_changes(classname=classname)
    # The new class's __init__/__call__ are made from the method.
    return Planned(
        changes, "method-object", "method to method object", Hints(derived_from=[source])
    )


def use_function(ctx: Context) -> Planned:
    user = UseFunction(ctx.project, ctx.resource, ctx.offset)
    name = str(user.get_function_name())
    files, skipped = ctx.scope_files(None)
    changes = user.get_changes(resources=files, task_handle=ctx.job.handle)
    return Planned(changes, "use-function", f"use function `{name}`", Hints(), skipped)


def introduce_factory(ctx: Context) -> Planned:
    name = ctx.str_arg("name")
    check_identifier(name)
    factory = IntroduceFactory(ctx.project, ctx.resource, ctx.offset)
    files, skipped = ctx.scope_files(str(factory.old_name))
    changes = factory.get_changes(
        name,
        global_factory=bool(ctx.arg("global", False)),
        resources=files,
        task_handle=ctx.job.handle,
    )
    return Planned(
        changes, "introduce-factory", f"introduce factory `{name}`", Hints(creates=True), skipped
    )
