"""``POST /validate``: the codecov.yml validator over HTTP, answering text as Codecov's does."""

from __future__ import annotations

import pytest
import webtest

from flask_coverage.codecov_yml.loader import MAX_YAML_BYTES


def post(testapp: webtest.TestApp, body: bytes, status: int = 200) -> str:
    return testapp.post("/validate", body, content_type="application/octet-stream", status=status).text


def test_a_valid_file_answers_valid_and_what_was_understood(testapp: webtest.TestApp) -> None:
    answer = testapp.post("/validate", b"coverage:\n  range: 70..90\n  precision: 1\n", status=200)
    assert answer.content_type == "text/plain"
    assert answer.text.startswith("Valid!\n\n{")
    assert '"range": [\n      70.0,\n      90.0\n    ]' in answer.text
    assert "Note:" not in answer.text


def test_keys_not_acted_on_are_noted(testapp: webtest.TestApp) -> None:
    text = post(testapp, b"flags:\n  unit:\n    carryforward_mode: labels\n")
    assert text.startswith("Valid!")
    assert "Note: ['flags', 'unit', 'carryforward_mode']: valid, not acted on by this service" in text


def test_v1_is_the_same_validator(testapp: webtest.TestApp) -> None:
    assert testapp.post("/validate/v1", b"comment: false\n", status=200).text.startswith("Valid!")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"", "No content posted.\n"),
        (b"   \n", "No content posted.\n"),
        (b"# nothing\n", "No content posted.\n"),
        (b"coverage:\n  precision: many\n", "Error at ['coverage', 'precision']: \nmust be an integer\n"),
        (b"foo: 1\n", "Error at ['foo']: \nunknown key\n"),
        (b"a: [1\n", "Can't parse YAML"),
        (b"a: &x 1\nb: *x\n", "Can't parse YAML: anchors and aliases"),
        (b"a: !!python/name:os.system x\n", "Can't parse YAML: tags"),
        (b"- a\n", "The file must be a mapping"),
        (b"a: " + b"x" * MAX_YAML_BYTES, f"The file is larger than {MAX_YAML_BYTES:,} bytes."),
    ],
)
def test_bad_files_answer_400_saying_why(testapp: webtest.TestApp, body: bytes, expected: str) -> None:
    assert post(testapp, body, status=400).startswith(expected)


def test_get_says_how_to_use_it(testapp: webtest.TestApp) -> None:
    text = testapp.get("/validate", status=200).text
    assert "curl -X POST --data-binary @codecov.yml http://localhost/validate" in text
