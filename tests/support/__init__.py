"""Helpers the test suite shares."""

# The suite's own pytest subprocesses (temporary projects, extreme workers, the servers'
# test runs) never use pytest-lsp's plugin, and importing it (lsprotocol's types) costs
# about 1.3 s of CPU in every process: 38% of the extreme tests' CPU.
SUBPROCESS_PYTEST_ADDOPTS = "-p no:pytest-lsp"
