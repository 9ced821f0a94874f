"""``python -m lsp_server``: serve the language server over stdio."""

import os
import sys

if __name__ == "__main__":
    # ``-m`` put the working directory first on the path, and editors start the server in
    # the workspace folder: its modules (an ``asyncio.py``, a copy of the standard library)
    # would be imported in place of the server's own (issue 15).
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]

    from lsp_server.refactor.rope_spare import start_early

    start_early()  # before the command line's imports: rope's worker starts meanwhile

    from lsp_server.cli import main

    raise SystemExit(main(["serve", *sys.argv[1:]]))
