"""Checking the refactoring engine: bounded-exhaustive program generators and oracles."""
