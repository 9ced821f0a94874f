"""``python -m lsp_server``: serve the language server over stdio."""

import os
import sys

if __name__ == "__main__":
    # ``-m`` put the working directory first on the path, and editors start the server in
    # the workspace folder: its modules (an ``asyncio.py``, a copy of the standard library)
    # would be imported in place of the server's own (issue 15).
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]

    from lsp_server.lsp.first_message import read_first_message
    from lsp_server.refactor.rope_spare import bind_early, start_early

    start_early()  # before the command line's imports: rope's worker starts meanwhile
    if "--tcp" not in sys.argv:
        read_first_message(bind_early)  # the client's initialize names the root: tell it

    from lsp_server.cli import main

    raise SystemExit(main(["serve", *sys.argv[1:]]))
