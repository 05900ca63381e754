r"""Text from evidence made harmless for where it goes: a terminal, Markdown, HTML, a mermaid label, a CSV cell.

Evidence is written by anyone (a thread name, a WARN line, a file name, a job's argv). On a terminal an escape
sequence in it could set the clipboard (OSC 52), plant a link (OSC 8), retitle the window or hide lines, so
`strip_escapes` removes every escape sequence and control character before text reaches an output: CSI
(`ESC [` and 8-bit CSI), OSC (`ESC ]` to BEL or ST), DCS/SOS/PM/APC (`ESC P`, `ESC X`, `ESC ^`, `ESC _` to ST),
two- and three-byte escapes (`ESC (B`, `ESC 7`), the C1 controls U+0080-U+009F, and the C0 controls but
tab and newline. An unterminated string sequence is removed to the end of the text.

    >>> strip_escapes("\x1b]52;c;aGk=\x07rank \x1b[31m3\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\")
    'rank 3 link'
"""
from __future__ import annotations

import re

_ESCAPES = re.compile(
    r"""
      (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?                        # CSI ... final
    | (?:\x1b[]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)   # OSC, DCS, SOS, PM, APC ... BEL or ST
    | \x1b[ -/]*[0-~]?                                          # ESC (intermediates) final
    | [\x00-\x08\x0b-\x1f\x7f-\x9f]                             # the other C0 controls, DEL, C1
    """,
    re.X | re.S,
)
_MARKDOWN_SPECIAL = re.compile(r"([\\`<>&\[\]|])")          # raw HTML, entities, links, images, code, tables
_MARKDOWN_PROSE = re.compile(r"([\\<>&\[\]|])")              # the same, our own `code spans` kept
_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def strip_escapes(text: str) -> str:
    """`text` without any escape sequence or control character (tab and newline kept)."""
    if text.isascii() and text.isprintable():
        return text
    return _ESCAPES.sub("", text)


def has_escapes(text: str) -> bool:
    return not (text.isascii() and text.isprintable()) and _ESCAPES.search(text) is not None


def markdown_text(text: str, code_spans: bool = False) -> str:
    """Evidence text inside Markdown: no escape sequence, one line, and every character through which Markdown
    would make HTML, an entity, a link or image, a code span or a table cell backslash-escaped. With
    `code_spans`, backticks stay (a sentence of ncclf's that quotes names in `code`)."""
    pattern = _MARKDOWN_PROSE if code_spans else _MARKDOWN_SPECIAL
    return pattern.sub(r"\\\1", " ".join(strip_escapes(str(text)).split("\n")))


def markdown_code(text: str) -> str:
    """Evidence text for a Markdown code span or an indented code block: no escape sequence, no backtick that
    could end the span, one line."""
    return " ".join(strip_escapes(str(text)).replace("`", "'").split("\n"))


def html_text(text: str) -> str:
    """Evidence text inside HTML or SVG (element content or a quoted attribute)."""
    text = strip_escapes(str(text))
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#39;"))


def mermaid_label(text: str) -> str:
    """A quoted mermaid label: mermaid reads `#...;` entities and renders labels as HTML, so quotes, markup and
    entity starts become entities."""
    text = " ".join(strip_escapes(str(text)).split())
    for char, entity in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"), ("&", "#amp;"),
                         ("`", "#96;"), ("|", "#124;"), ("[", "#91;"), ("]", "#93;"), ("{", "#123;"),
                         ("}", "#125;")):
        text = text.replace(char, entity) if char != "#" else text.replace("#", "\0")
    return '"' + text.replace("\0", "#35;") + '"'


def csv_cell(value):
    """A CSV cell a spreadsheet will not run: text starting with = + - @ (or a tab/CR) gets a leading `'`;
    escape sequences removed. Numbers and None pass as they are."""
    if not isinstance(value, str):
        return value
    value = strip_escapes(value)
    return "'" + value if value.startswith(_CSV_FORMULA) else value


class SafeConsoleMixin:
    """Mixed into a rich Console before Console: every text segment is stripped of escape sequences as it is
    written (the console's own styles are added after, so colours stay)."""

    def _render_buffer(self, buffer):
        return super()._render_buffer(
            seg if seg.control else seg._replace(text=strip_escapes(seg.text)) for seg in buffer)
