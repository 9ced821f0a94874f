"""Entity placeholders for templates that hold several same-named entities.

A template writes each occurrence as ``$key`` (``$cm``: the member of C, ``$dm``: an
unrelated member of D with the same name, ``$C``: the class). ``mark`` turns the chosen
entity's occurrences into ``«name»`` (expected renamed) and puts the rename cursor
``«@name»`` on its first occurrence at or after ``site``; every other entity becomes its
plain name.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"\$([A-Za-z]+)")


def mark(template: str, names: dict[str, str], entity: str, site: str | None = None) -> str | None:
    """The template with ``entity`` marked; None if the entity has no occurrence at ``site``
    (``site`` is a text of the template, the cursor goes on the first occurrence after it)."""
    if "$" + entity not in template:
        return None
    start = 0
    if site is not None:
        start = template.find(site)
        if start < 0:
            return None
    first = None
    for match in _PLACEHOLDER.finditer(template):
        if match.group(1) == entity and match.start() >= start:
            first = match.start()
            break
    if first is None:
        return None

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        name = names[key]
        if key != entity:
            return name
        return f"«@{name}»" if match.start() == first else f"«{name}»"

    return _PLACEHOLDER.sub(replace, template)
