"""``python -m lsp_server``: serve the language server over stdio."""

from lsp_server.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["serve", *__import__("sys").argv[1:]]))
