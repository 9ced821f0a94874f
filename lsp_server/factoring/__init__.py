"""Test factoring: capture a slow test's calls across a boundary and replay them."""
