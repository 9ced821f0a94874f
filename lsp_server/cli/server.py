"""``reks serve``: run the language server."""

from __future__ import annotations

import argparse


def _serve(args: argparse.Namespace) -> int:
    from lsp_server.lsp.first_message import install_first_message, read_first_message
    from lsp_server.refactor.rope_spare import bind_early, start_early

    start_early()  # first: rope's worker starts while the server imports pygls (issue 15)
    if not args.tcp:
        read_first_message(bind_early)  # and learns the workspace root meanwhile
    from lsp_server.server import create_server

    server = create_server()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        install_first_message()
        return server.serve_stdio()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the language server (stdio by default)")
    p.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=2087)
    p.set_defaults(handler=_serve)
