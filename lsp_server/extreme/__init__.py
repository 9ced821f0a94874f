"""Pseudo-tested code: extreme transformations, the forking runner, and the Reneri
diagnosis of every transformation the tests do not detect."""
