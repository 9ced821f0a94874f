"""Field-exhaustive test suites (Ponzio et al., FSE 2016): Korat-style search and incremental SAT.

A suite is field-exhaustive within a scope when every value any field of any object takes in
some valid instance is taken in at least one input of the suite.

- ``model``: the bounded heap of a class (finitization from ``fex_scope(n)`` and annotations).
- ``korat``: Route A, the user's ``rep_ok`` on candidates, pruned by the fields it read.
- ``relational`` + ``sat``: Route B, ``__fex_spec__`` to CNF, one solve per uncovered target.
- ``select``, ``heap``: pairs covered by an instance, canonical labelling, greedy selection.
- ``suite``: ``generate(cls, scope)`` in this process; ``run``: for a project, in its
  interpreter (``worker``); ``emit``: the pytest module and JSON; ``editor``: the code lens.
- ``choices``: field-exhaustive subsets of generated programs (``engine-test --suite``).

``model``, ``heap``, ``select``, ``korat``, ``suite`` and ``worker`` use only the standard
library (and ``lsp_server.jobs``): they run inside the project's interpreter.
"""
