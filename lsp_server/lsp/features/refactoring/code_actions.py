"""Refactoring code actions: listed from the document's outline (cheap, on every cursor move),
computed by rope in ``codeAction/resolve`` or, for clients without resolve support, by a
command that applies the edit with ``workspace/applyEdit``."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server.lsp.convert import offset_at, position_at, uri_to_path
from lsp_server.lsp.features.refactoring.lifecycle import (
    announce,
    compute,
    encoding_of,
    failed,
    root_of,
    text_of,
    to_edit,
    too_large,
)
from lsp_server.refactor.actions import Offer
from lsp_server.refactor.destinations import project_module_finder
from lsp_server.refactor.model import RefactorRequest
from lsp_server.refactor.outline_offers import offers_in_outline, offers_without_outline
from lsp_server.refactor.outline_service import Analysis
from lsp_server.sandbox import ChannelError

if TYPE_CHECKING:
    from lsp_server.lsp.features.refactoring.feature import RefactoringFeature

log = logging.getLogger(__name__)

APPLY_COMMAND = "reks.refactor.apply"
"""Compute a code action and apply it with ``workspace/applyEdit`` (clients without resolve)."""
MOVE_COMMAND = "reks.refactor.move"
"""Move, with the destination as argument (``{"destination": ...}``), prompted by the client."""


# -- code actions --------------------------------------------------------------------------------
INLINE_OUTLINE_CHARS = 20_000
"""Every document is outlined by the outline worker process when its text comes, so that
its parse never holds the server's interpreter lock (see ``refactor.outline_service``); a
code action on a document up to this size whose outline the worker has not made yet
takes the worker's when it comes within ``WORKER_GRACE``, else makes it on a thread of the
server (a few milliseconds); a longer one guesses."""


WORKER_GRACE = 0.03
"""Seconds a code action on a short document waits for the worker's outline of its text
before it is made on a thread of the server (``OutlineService.outline_short``)."""


async def _analysis(feature: RefactoringFeature, uri: str, text: str) -> Analysis:
    """The outline of ``text``, made for it (awaited). A document the worker cannot
    outline has none (``(text, None)``)."""
    ready = await _ready_analysis(feature, uri, text)
    if ready is not None and ready[0] == text:
        return ready
    try:
        return await asyncio.wrap_future(feature.outlines.analyse(uri, text))
    except ChannelError as exc:
        log.warning("no outline of %s: %s", uri, exc)
        return text, None


async def _ready_analysis(feature: RefactoringFeature, uri: str, text: str) -> Analysis | None:
    """An outline of the document without waiting for the outline worker: that of
    ``text`` when it is ready, else the last one made (of an earlier text: the caller
    checks what it covers; None before the first). The outline of ``text`` is asked for
    meanwhile, once the document is quiet (``OutlineService.typed``). A short document
    is outlined on a thread, at once."""
    service = feature.outlines
    if len(text) <= INLINE_OUTLINE_CHARS:
        done = service.latest(uri)
        if done is None or done[0] != text:
            # asked of the worker when the text came (``document_changed``): usually made
            # there by now, or within the grace; made here, on a thread of the server,
            # only when it is not
            done = await asyncio.wrap_future(service.outline_short(uri, text, WORKER_GRACE))
        return done
    service.typed(uri, text)  # the code action after the next pause finds it
    return service.latest(uri)


def _client_resolves_edits(feature: RefactoringFeature) -> bool:
    caps = feature.host.lsp.client_capabilities
    action = caps.text_document.code_action if caps.text_document else None
    resolve = action.resolve_support if action else None
    return bool(resolve and "edit" in resolve.properties)


def _offer_data(uri: str, offer: Offer, text: str, encoding: str, names: Any) -> dict[str, Any]:
    args = dict(offer.args)
    if offer.default_name is not None:
        args[offer.name_arg] = getattr(names, offer.default_name)
    return {
        "uri": uri,
        "action": offer.action,
        "position": _pos(position_at(text, offer.offset, encoding)),
        "end": None if offer.end is None else _pos(position_at(text, offer.end, encoding)),
        "args": args,
        "text_length": len(text),
    }


def _pos(position: types.Position) -> dict[str, int]:
    return {"line": position.line, "character": position.character}


async def code_actions(
    feature: RefactoringFeature, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """Applicable refactorings from the document's outline; no rope work (see module
    docstring). The long work (the outline of a long document) runs in a worker process
    and the rest on a thread: the message loop only reads the document's text, and a
    document too large to analyse gets a message instead."""
    uri = params.text_document.uri
    text = feature.host.lsp.workspace.get_text_document(uri).source
    if too_large(feature, uri, text):
        return []
    encoding = encoding_of(feature)
    settings = feature.host.settings
    resolves = _client_resolves_edits(feature)
    offers = await _offers(feature, uri, text, params, encoding)
    out: list[types.CodeAction] = []
    for offer in offers:
        if not getattr(settings.actions, offer.setting, True):
            continue
        data = _offer_data(uri, offer, text, encoding, settings.defaultNames)
        if offer.needs:
            data["args"].update({need: None for need in offer.needs})
            command = types.Command(title=offer.title, command=MOVE_COMMAND, arguments=[data])
            out.append(types.CodeAction(title=offer.title, kind=offer.kind, command=command))
        elif resolves:
            out.append(types.CodeAction(title=offer.title, kind=offer.kind, data=data))
        else:
            command = types.Command(title=offer.title, command=APPLY_COMMAND, arguments=[data])
            out.append(types.CodeAction(title=offer.title, kind=offer.kind, command=command))
    return out


async def _offers(
    feature: RefactoringFeature,
    uri: str,
    text: str,
    params: types.CodeActionParams,
    encoding: str,
) -> list[Offer]:
    """The offers at the request's range of kinds the client asked for: from the last
    outline of the document when it covers the place of the request unchanged, else
    from the statements around it as guessed from the lines (never waiting for the
    outline worker: issue 15 item 1's p99)."""
    only = list(params.context.only or [])
    finder = project_module_finder(root_of(feature, uri_to_path(uri)))

    def at_cursor(analysis: Analysis | None) -> list[Offer]:
        start = offset_at(text, params.range.start, encoding)
        end = offset_at(text, params.range.end, encoding)
        stop = end if end > start else None
        if analysis is not None:
            outlined, outline = analysis
            if outline is None and outlined == text:
                return []  # not valid Python
            if outline is not None:
                found = offers_in_outline(text, outline, start, stop, finder, outlined)
                if found is not None:
                    return found
        # No outline covers the place (none made yet, or it changed since the last):
        # waiting for one can take seconds on a long module, so guess it.
        known = analysis[1].facts if analysis is not None and analysis[1] else None
        return offers_without_outline(text, start, stop, finder, known)

    offers = await asyncio.to_thread(at_cursor, await _ready_analysis(feature, uri, text))
    return [
        offer
        for offer in offers or []
        if not only or any(offer.kind == k or offer.kind.startswith(f"{k}.") for k in only)
    ]


async def _request(
    feature: RefactoringFeature, data: dict[str, Any], title: str | None
) -> RefactorRequest:
    """The refactoring that ``data`` (a code action's, or a command's arguments) asks for,
    once checked against what is offered at its place: forged or stale data (another
    action, a title of another action, arguments it does not take) is refused."""
    try:
        uri = str(data["uri"])
        path, text = text_of(feature, uri)
        encoding = encoding_of(feature)
        start = offset_at(text, types.Position(**data["position"]), encoding)
        end = data.get("end")
        end_offset = None if end is None else offset_at(text, types.Position(**end), encoding)
        request = RefactorRequest(str(data["action"]), path, start, end_offset, dict(data["args"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise failed(f"malformed refactoring arguments: {exc}") from exc
    outlined, outline = await _analysis(feature, uri, text)
    if outlined != text:
        raise failed("the document changed while it was analysed; ask for code actions again")
    offers: list[Offer] | None = None
    if outline is not None:
        offers = await asyncio.to_thread(offers_in_outline, text, outline, start, end_offset)
    if not any(_matches(offer, request, title) for offer in offers or []):
        what = f"`{title}`" if title is not None else f"`{request.action}`"
        raise failed(
            f"{what} is not offered at that place (the document changed since, or the"
            " request was not one of the offered actions); ask for code actions again"
        )
    return request


def _matches(offer: Offer, request: RefactorRequest, title: str | None) -> bool:
    allowed = {*offer.args, offer.name_arg, *offer.needs}
    return (
        offer.action == request.action
        and (title is None or offer.title == title)
        and set(request.args) <= allowed
    )


async def resolve_code_action(
    feature: RefactoringFeature, action: types.CodeAction
) -> types.CodeAction:
    if not isinstance(action.data, dict):
        return action
    request = await _request(feature, action.data, action.title)
    result = await compute(feature, request)
    action.edit = await to_edit(feature, result)
    feature.pending.add(root_of(feature, request.path), result)
    return action


async def execute_refactoring(feature: RefactoringFeature, arguments: list[Any] | None) -> None:
    """``reks.refactor.apply`` / ``reks.refactor.move``: compute, then ``workspace/applyEdit``."""
    if not arguments or not isinstance(arguments[0], dict):
        raise failed("missing refactoring arguments")
    data = dict(arguments[0])
    # Lua clients turn an empty table into a JSON list: read `[]` as "no arguments".
    args = data.get("args") or {}
    if not isinstance(args, dict):
        raise failed("refactoring arguments must be an object")
    if "destination" in data:  # the client fills in the destination at the top level
        args = {**args, "destination": data.pop("destination")}
    data["args"] = args
    if data.get("action") == "move" and not args.get("destination"):
        raise failed("move needs a destination (a module path or dotted name)")
    request = await _request(feature, data, None)
    result = await compute(feature, request)
    edit = await to_edit(feature, result)
    response = await feature.host.lsp.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=edit, label=result.provenance.description)
    )
    if not response.applied:
        raise failed(f"the editor did not apply the edit: {response.failure_reason or 'refused'}")
    announce(feature, root_of(feature, request.path), result)
