"""The one process sandbox: fork or start a worker process, talk over a pipe in one wire
format (length-prefixed JSON), bound its time, and turn any death into a result.

- ``wire``: frames and channels (``Channel``, ``FrameReader``).
- ``forked``: ``Forker.run(work, timeout)`` runs a function in a forked child and returns an
  ``Outcome`` (ok, raised, exited, crashed, timeout).
- ``process``: ``SandboxProcess`` starts ``python -m ...`` (any interpreter) with a channel;
  the child side calls ``inherited_channel()``.

Standard library only (and nothing else of ours), so any interpreter and any small zygote
process can import it.
"""

from lsp_server.sandbox.forked import CRASHED, EXITED, OK, RAISED, TIMEOUT, Forker, Outcome
from lsp_server.sandbox.process import (
    CHANNEL_ENV,
    PACKAGE_PARENT,
    ProcessDied,
    SandboxProcess,
    SiblingProcess,
    inherited_channel,
    inherited_siblings,
)
from lsp_server.sandbox.wire import Channel, ChannelClosed, ChannelError, ChannelTimeout

__all__ = [
    "CHANNEL_ENV",
    "CRASHED",
    "EXITED",
    "OK",
    "PACKAGE_PARENT",
    "RAISED",
    "TIMEOUT",
    "Channel",
    "ChannelClosed",
    "ChannelError",
    "ChannelTimeout",
    "Forker",
    "Outcome",
    "ProcessDied",
    "SandboxProcess",
    "SiblingProcess",
    "inherited_channel",
    "inherited_siblings",
]
