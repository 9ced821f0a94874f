"""Trust but verify: whether a refactoring task is trusted by the REKS rules.

``checks`` holds the semantic checks per refactoring kind, ``known_failures`` the shapes the
engine tests found rope to get wrong, and ``task_listener`` joins a ``RefactorEngine`` to
both and to the REKS rules of ``rts``. Imports downwards only (``rts``, ``refactor``,
``astgen``, ``project``); the server and the CLI install the listener.
"""
