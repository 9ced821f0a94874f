"""The refactoring feature: rope refactorings served over LSP.

Nothing slow runs on the message loop: code actions are listed from the syntax tree
(``code_actions``); everything rope does runs in the engine's worker (a process of its own
per workspace folder in the server: ``refactor.process_engine``) and is awaited
(``lifecycle``), and ``$/cancelRequest`` cancels the awaiting task, which cancels the job
and so rope's task handle in the worker (a worker that does not stop is replaced).
Renames (``rename``) and refactor-on-save (``on_save``) have modules of their own;
``feature`` wires them to the server's hooks.
"""

from lsp_server.lsp.features.refactoring.code_actions import APPLY_COMMAND, MOVE_COMMAND
from lsp_server.lsp.features.refactoring.feature import RefactoringFeature

__all__ = ["APPLY_COMMAND", "MOVE_COMMAND", "RefactoringFeature"]
