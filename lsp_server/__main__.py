"""``python -m lsp_server``: serve the language server over stdio."""

if __name__ == "__main__":
    from lsp_server.refactor.rope_spare import start_early

    start_early()  # before the command line's imports: rope's worker starts meanwhile

    from lsp_server.cli import main

    raise SystemExit(main(["serve", *__import__("sys").argv[1:]]))
