"""Field-exhaustive test suites: Korat-style search and incremental SAT."""
