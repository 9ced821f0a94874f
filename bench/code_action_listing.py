"""Listing code actions in a large parsed module: the time of a listing, against the peer
``ast.parse`` of the same module, in the same run.

The editor asks for code actions on every cursor move; the outline service hands the
listing the module's tree, parsed once per document version. A listing must cost a small
fraction of that parse whatever the module's length (the behaviour itself, no reparse and
no walk of the module per listing, is tested in ``tests/refactor/test_settings_actions.py``;
this prints the time, which a test must not assert).

    python bench/code_action_listing.py [--functions 3000] [--repeat 50]
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import time

from lsp_server.refactor.actions import offers_at

HEADER = (
    "import os\n\n\nclass Account:\n    def deposit(self, amount):\n        return amount\n\n\n"
)


def module(functions: int) -> str:
    body = "\n".join(f"def f{i}(a, b):\n    return a + b * {i}\n" for i in range(functions))
    return HEADER + body


def median_seconds(work: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()}")
    text = module(args.functions)
    tree = ast.parse(text)
    last = text.index(f"def f{args.functions - 1}")
    at_name, at_use = last + 5, text.index("return a", last) + 7
    offers_at(text, at_use, None, tree)  # the first listing walks the module once
    parse = median_seconds(lambda: ast.parse(text), max(3, args.repeat // 10))
    for label, offset in (("at a def's name", at_name), ("at a name's use", at_use)):
        listing = median_seconds(lambda o=offset: offers_at(text, o, None, tree), args.repeat)
        print(
            f"{args.functions} functions, {len(text.splitlines())} lines, {label}: listing "
            f"{listing * 1000:.2f} ms, ast.parse {parse * 1000:.1f} ms "
            f"(listing / parse = {listing / parse:.3f})"
        )
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
