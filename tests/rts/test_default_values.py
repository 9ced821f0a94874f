"""A default value is part of what running the function does, not of what referring to it
sees: a changed default selects the tests that ran the body or read signatures
(``__defaults__``, ``inspect.signature``), not every test that reads an attribute of the
same name (``str.encode`` against a method ``encode``); adding or removing a default changes
which calls bind, and selects every test that refers to the function, on real pytest
sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "codec.py",
        """
        class Codec:
            def encode(self, data, algorithm="HS256"):
                return algorithm + ":" + data


        def decode(text, separator=":"):
            return text.split(separator)[1]
        """,
    )
    write(
        pytester,
        "test_codec.py",
        """
        import inspect
        from inspect import signature

        import pytest

        from codec import Codec, decode


        def test_encode():
            assert Codec().encode("x").endswith(":x")


        def test_str_encode():
            assert "x".encode() == b"x" and Codec is not None


        def test_bad_call():
            with pytest.raises(TypeError):
                Codec().encode()


        def test_defaults():
            assert Codec.encode.__defaults__


        def test_signature():
            assert inspect.signature(decode).parameters["separator"].default


        def test_signature_global():
            assert signature(Codec.encode).parameters


        def test_token_signature():
            token = {"signature": b"s"}
            assert token["signature"] and Codec().encode


        def test_decode():
            assert decode("a:b") == "b"


        def test_decode_bad_call():
            with pytest.raises(TypeError):
                decode()
        """,
    )
    assert len(run(pytester)) == 9
    return pytester


def test_a_changed_default_selects_the_tests_that_ran_the_body_or_read_signatures(
    project: pytest.Pytester,
) -> None:
    edit(project, "codec.py", 'algorithm="HS256"', "algorithm=None")
    edit(project, "codec.py", "return algorithm +", 'return (algorithm or "HS256") +')
    # test_bad_call never ran the body (the call did not bind); test_str_encode read an
    # attribute named ``encode``, test_token_signature one named ``signature`` (a token's):
    # none of them sees the default.
    assert run(project) == {"test_encode", "test_defaults", "test_signature_global"}
    edit(project, "codec.py", 'separator=":"', 'separator=":" ""')
    # test_defaults reads defaults, of ``Codec.encode`` only.
    assert run(project) == {"test_decode", "test_signature"}


def test_a_default_added_selects_every_test_that_refers_to_the_function(
    project: pytest.Pytester,
) -> None:
    edit(project, "codec.py", "encode(self, data,", 'encode(self, data="",')
    # ``Codec().encode()`` binds now: the test that expected a TypeError sees it.
    readers = {"test_str_encode", "test_bad_call", "test_defaults", "test_token_signature"}
    assert run(project) == {"test_encode", "test_signature_global", *readers}


GENERATOR = """

GENERATORS = []


class Generator:
    GENERATORS.append("generator")

    def signature(self):
        return "()"
"""


def test_a_method_named_signature_reads_no_signatures(project: pytest.Pytester) -> None:
    # jinja's CodeGenerator.signature: the class body (which stays in the module unit, for
    # its registration) binds the name and reads no signature, so the tests importing the
    # module do not see every default value.
    codec = project.path / "codec.py"
    codec.write_text(codec.read_text() + GENERATOR)
    assert len(run(project)) == 9  # the module changed
    edit(project, "codec.py", 'algorithm="HS256"', "algorithm=None")
    edit(project, "codec.py", "return algorithm +", 'return (algorithm or "HS256") +')
    assert run(project) == {"test_encode", "test_defaults", "test_signature_global"}
