"""Stored JSON (db/compiled/templates.py) is ASCII and reads as the same JSON."""
import json

import pytest

from db.compiled.templates import SEPARATOR, ascii_json, dumps, make_template, render

TEXTS = [
    "plain",
    "കലോത്സവം 2026",  # Malayalam: U+0D00..U+0D7F
    "Éclair, Ölfest, ñ",  # U+0080..U+00FF, which backslashreplace writes as \xNN
    "emoji 😀 and 𝄞",  # beyond U+FFFF: a surrogate pair
    "a literal \\x41 and \\U0001f600 and \\u0d15 stay text",
    "quote \" backslash \\ tab \t newline \n",
    "\x1e control",  # the template separator, escaped in JSON
]


@pytest.mark.parametrize("text", TEXTS)
def test_dumps_is_ascii_and_the_same_json(text):
    value = {"name": text, "list": [text, 1, None, True], "nested": {"k": text}}
    stored = dumps(value)
    assert stored.isascii() and SEPARATOR not in stored
    assert json.loads(stored) == value


@pytest.mark.parametrize("text", TEXTS)
def test_ascii_json_of_utf8_json_is_the_same_json(text):
    utf8 = json.dumps({"t": text}, ensure_ascii=False)
    assert ascii_json(utf8).isascii() and json.loads(ascii_json(utf8)) == {"t": text}
    assert ascii_json(ascii_json(utf8)) == ascii_json(utf8)  # ASCII text is left as it is


def test_a_template_with_slots_stays_ascii_and_fills_alike():
    template = make_template({"name": "കഥകളി", "next": None, "é": 1}, ("next",))
    assert template.isascii()
    assert json.loads(render(template, {"next": '{"at":"ñ"}'})) == {"name": "കഥകളി", "next": {"at": "ñ"}, "é": 1}
