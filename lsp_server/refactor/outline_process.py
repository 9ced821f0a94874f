"""The outline worker process: parses the documents the language server sends and answers
with their outlines (``python -m lsp_server.refactor.outline_process``; the parent side is
``outline_service``).

Parsing a long module holds the interpreter lock for as long as it takes; here it holds
only this process's. Messages in: ``{"id", "text"}``; out: ``{"id", "outline"}`` (the
``outline_to_wire`` form, None for a text that is not valid Python). End of input ends
the process.
"""

from __future__ import annotations

import os
import sys

from lsp_server.refactor.outline import outline_of, outline_to_wire
from lsp_server.sandbox import ChannelClosed, inherited_channel


def main() -> int:
    channel = inherited_channel()
    if channel is None:
        print("outline_process is started by reks, with a channel", file=sys.stderr)
        return 2
    while True:
        try:
            message = channel.receive()
        except ChannelClosed:
            return 0
        outline = outline_to_wire(outline_of(message["text"]))
        try:
            channel.send({"id": message["id"], "outline": outline})
        except OSError:  # the server is gone
            return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)
