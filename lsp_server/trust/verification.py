"""A skipped test that failed later: the shape of the refactoring that broke it is never
trusted again.

The store settles the tests REKS skipped (``lsp_server.rts.verification``); here each
failed one's task becomes a known-failing shape in the user's known-failure file
(``known_failures.learn``): the features of the request as it was asked for (where, in
the text before the task), so the next identical refactoring is treated as a hand edit.
The listener learns before it checks each new task, so a failure that any test run found
counts from the next refactoring on.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lsp_server.astgen.features import request_features
from lsp_server.rts.provenance import Provenance, TaskTarget
from lsp_server.rts.store import DependencyStore, StoreError, TaskEvidence, store_path
from lsp_server.rts.verification import Alarm, alarms
from lsp_server.trust import known_failures
from lsp_server.trust.checks import project_texts

log = logging.getLogger(__name__)

ORACLE = "verify-skipped"
"""The oracle of a learnt shape: a test REKS skipped failed later."""
_EXAMPLE_LIMIT = 20_000


def evidence_provenance(alarm: Alarm, evidence: TaskEvidence) -> Provenance:
    """The task as the engine described it, rebuilt from the store's evidence."""
    target = None if evidence.target is None else TaskTarget(**evidence.target)
    return Provenance(
        alarm.kind,
        alarm.description,
        files_before={path: texts[0] for path, texts in evidence.files.items()},
        files_after={path: texts[1] for path, texts in evidence.files.items()},
        target=target,
    )


def shape_of(
    root: Path, alarm: Alarm, provenance: Provenance
) -> known_failures.FailureShape | None:
    """The known-failure shape of the alarm's task; None without a target to describe."""
    target = provenance.target
    source = None if target is None else provenance.files_before.get(target.path)
    if target is None or source is None:
        return None
    files = None
    if target.action == "move" and provenance.kind == "move-global":
        files = project_texts(root, provenance, after=False)
    features = request_features(
        target.action, source, target.offset, target.end, files, target.path
    )
    return known_failures.FailureShape(
        engine="reks",
        refactoring=target.action,
        oracle=ORACLE,
        features=features,
        signature=(("task", alarm.description),),
        count=len(alarm.tests),
        example=(provenance.files_after.get(target.path) or "")[:_EXAMPLE_LIMIT],
        detail=f"tests REKS skipped failed afterwards: {', '.join(alarm.tests[:3])}",
    )


def learn_failures(root: Path | str) -> list[tuple[Alarm, known_failures.FailureShape | None]]:
    """Turn every failed verification not learnt yet into a known-failure shape; the
    alarms with their shapes (None: the task had no target to describe)."""
    root = Path(root)
    if not store_path(root).exists():
        return []
    try:
        store = DependencyStore(root, create=False)
    except StoreError:
        return []
    learnt: list[tuple[Alarm, known_failures.FailureShape | None]] = []
    with store:
        for alarm in alarms(store, store.unlearnt_failures()):
            evidence = store.task_evidence(alarm.task_id)
            shape = None
            if evidence is not None:
                shape = shape_of(root, alarm, evidence_provenance(alarm, evidence))
            if shape is not None:
                known_failures.learn(shape)
                log.warning("reks: the shape of `%s` is no longer trusted", alarm.description)
            store.mark_learnt(alarm.task_id)
            learnt.append((alarm, shape))
    return learnt
