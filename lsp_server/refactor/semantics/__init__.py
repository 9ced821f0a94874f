"""Semantic checks per refactoring kind, run over rope's output before it is offered."""
