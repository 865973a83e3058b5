"""Rule citations in the code's comments and docstrings (docs/engine-conventions.md, "Citing
a rule"): `§R7.2`, `§H6`, `§T19.3`, `§G10`, so that `grep -rn '§R7'` finds the code of rule
§R7 and not the red 7 (`R7`) or the six of hearts (`H6`), which keep their plain form.

`old_citations(path)` lists the citations of a file still in the old bare form; the test
(tests/test_rule_citations.py) wants none. `python tests/rule_citations.py FILE…` rewrote
them (`--write`); it only touches comments and docstrings, never a string the code uses
(an error message, a card list in a doctest's call, a rule key of a table).

A bare id is a citation when it cannot be a card: it has a subsection (§R7.2, §T21.Q12), it
is a T id (no card is T…), an R id of two digits (cards are 0-9), §G10 and up, or an H id
outside the trump code (whose H cards are hearts). A short R/G/H id is a citation only by
its context: after "(", "RULES", "rule", a rule book's name, "§" or another citation in
a list (§R3.2, §R13; §T1-§T20; §R12 / §R13), or opening a comment or docstring as its subject
("# §R10: …", '\"\"\"R7 — cut-ins'). A short id among card codes ("R9 B9 G9") or after a
possessive ("A's G1") is a card.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path

ID = r"[RHTG]\d{1,2}(?:\.(?:Q?\d+))*"
BARE = re.compile(rf"(?<![\w§`.$+]){ID}(?![\w+`])")
QUOTES = "\"'"
# What makes a short id a citation when it sits right before it.
CITING_BEFORE = re.compile(
    r"(?:\(|RULES(?:\.md)?\s|HOUSE-RULES(?:\.md)?\s|TRUMP-RULES(?:\.md)?\s|[Rr]ules?\s|"
    rf"§{ID}(?:\s*(?:,|/|-|–|—|and|or|&)\s*)|{ID}(?:\s*(?:,|/|-|–|and|or|&)\s*))$"
)
CARD_NEIGHBOUR = re.compile(r"^(?:[RGBYW][0-9SRD+]|[SHDC]\d{1,2}|JK|W\+4|[RGBY]\+2)\b")
CARD_WORD = re.compile(r"\[?(?:[RGBY][0-9SR]|[RGBY]\+2|W\+?4?|[SHDC]\d{1,2}|JK)")


def is_trump_path(path: Path) -> bool:
    return "trump" in path.as_posix()


def _is_citation(text: str, start: int, rule_id: str, trump: bool) -> bool:
    end = start + len(rule_id)
    if _quoted(text, start, end):
        return False  # "R7": a card code, or an id the code uses as data ("(R4.1)")
    if _in_doctest(text, start):
        return False
    letter, number = rule_id[0], rule_id[1:].split(".")[0]
    if "." in rule_id or letter == "T":
        return True
    if letter == "R" and len(number) == 2:
        return True
    if letter == "G" and len(number) == 2:
        return True
    if letter == "H" and not trump and not _among_cards(text, start, rule_id):
        return True
    if _among_cards(text, start, rule_id):
        return False
    before = text[:start]
    if CITING_BEFORE.search(before[-40:]):
        return True
    return _opens_the_text(before, text[end:])


def _quoted(text: str, start: int, end: int) -> bool:
    if text[start - 1:start] == "(" and text[end:end + 1] == ")":
        start, end = start - 1, end + 1
    return start > 0 and text[start - 1] in QUOTES and text[end:end + 1] == text[start - 1]


def _in_doctest(text: str, start: int) -> bool:
    """Within a doctest's example or its expected output (the code's own words)."""
    lines = text[:start].split("\n")
    for line in reversed(lines):
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            return True
        if not stripped:
            return False
    return False


def _among_cards(text: str, start: int, rule_id: str) -> bool:
    """Next to a card code with a space between (cards are listed "R9 B9 G9"; cited ids
    with commas), or after a possessive ("A's G1")."""
    after = text[start + len(rule_id):]
    before = text[:start]
    previous = before.split()[-1] if before.split() else ""
    return bool((after.startswith(" ") and CARD_NEIGHBOUR.match(after[1:]))
                or (before.endswith(" ") and CARD_WORD.fullmatch(previous))
                or previous.endswith("'s"))


def _opens_the_text(before: str, after: str) -> bool:
    """'# §R10: …', '\"\"\"R7 — …', '# -- §H14: sessions --'."""
    lead = before.lstrip("#\"' \t\nrbuRBU").replace("--", "").strip()
    return lead == "" and bool(re.match(r"\s*(?::|—|–|-\s|\s·)", after))


def rewrite(text: str, trump: bool) -> str:
    """`text` (a comment or a docstring) with its citations in the § form."""
    out, last = [], 0
    for match in BARE.finditer(text):
        if _is_citation(text, match.start(), match.group(), trump):
            out += [text[last:match.start()], "§", match.group()]
            last = match.end()
    out.append(text[last:])
    return "".join(out)


def _prose_tokens(source: str) -> list[tokenize.TokenInfo]:
    """The comments and docstrings of a module (a docstring: a string statement alone)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    prose = []
    for i, token in enumerate(tokens):
        if token.type == tokenize.COMMENT:
            prose.append(token)
        elif token.type == tokenize.STRING and _stands_alone(tokens, i):
            prose.append(token)
    return prose


def _stands_alone(tokens: list[tokenize.TokenInfo], i: int) -> bool:
    skip = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
    j = i - 1
    while j >= 0 and tokens[j].type in skip:
        j -= 1
    k = i + 1
    while k < len(tokens) and tokens[k].type in {tokenize.NL, tokenize.COMMENT}:
        k += 1
    opens = j < 0 or tokens[j].type in {tokenize.NEWLINE, tokenize.ENCODING}
    closes = k >= len(tokens) or tokens[k].type in {tokenize.NEWLINE, tokenize.ENDMARKER}
    return opens and closes


# A JS comment: a whole line of one ("// …", "/** …", " * …") or "// …" after code.
JS_COMMENT = re.compile(r"^\s*(?://|/\*+|\*)(?!/).*$|(?<=\s)//\s.*$", re.MULTILINE)


def _prose_spans(path: Path, source: str) -> list[tuple[int, int]]:
    """(begin, end) offsets in `source` of the comments and docstrings."""
    if path.suffix in (".js", ".mjs"):
        return [m.span() for m in JS_COMMENT.finditer(source)]
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return [(offsets[t.start[0] - 1] + t.start[1], offsets[t.end[0] - 1] + t.end[1])
            for t in _prose_tokens(source)]


def old_citations(path: Path) -> list[tuple[int, str]]:
    """(line, id) of each citation of `path` still in the bare form."""
    source = path.read_text(encoding="utf-8")
    trump = is_trump_path(path)
    found = []
    for begin, end in _prose_spans(path, source):
        text = source[begin:end]
        for match in BARE.finditer(text):
            if _is_citation(text, match.start(), match.group(), trump):
                found.append((source.count("\n", 0, begin + match.start()) + 1, match.group()))
    return found


def rewrite_file(path: Path) -> bool:
    source = path.read_text(encoding="utf-8")
    trump = is_trump_path(path)
    edits = []
    for begin, end in _prose_spans(path, source):
        new = rewrite(source[begin:end], trump)
        if new != source[begin:end]:
            edits.append((begin, end, new))
    for begin, end, new in reversed(edits):
        source = source[:begin] + new + source[end:]
    if edits:
        path.write_text(source, encoding="utf-8")
    return bool(edits)


if __name__ == "__main__":
    write = "--write" in sys.argv
    for name in (a for a in sys.argv[1:] if a != "--write"):
        if write:
            rewrite_file(Path(name))
        else:
            for line, rule_id in old_citations(Path(name)):
                print(f"{name}:{line}: {rule_id}")
