"""Finding code from a rule id (issue #35): every package says what it holds, and rule
citations use the § form that a search does not confuse with card codes
(docs/engine-conventions.md, "Citing a rule in code")."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from rule_citations import is_trump_path, old_citations, rewrite

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("game", "accounts", "dobon_site", "tests", "static/js")
DOCTEST = '"""e.g.\n>>> check(11)\nValueError: ... (H1)\n"""'


def _tracked(*patterns: str) -> list[Path]:
    names = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    return [ROOT / name for name in names]


def _packages() -> list[Path]:
    found = [p for p in (ROOT / top for top in ("game", "accounts", "dobon_site"))]
    for top in list(found):
        found += [p.parent for p in top.rglob("__init__.py") if p.parent != top]
    return sorted(set(found))


@pytest.mark.parametrize("package", _packages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_package_says_what_it_holds(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
    assert docstring and len(docstring.split()) >= 6, f"{package}: no docstring"


def test_the_service_layer_is_described_module_by_module() -> None:
    docstring = ast.get_docstring(ast.parse((ROOT / "game/services/__init__.py").read_text()))
    assert docstring is not None
    modules = {p.stem for p in (ROOT / "game/services").glob("*.py")} - {"__init__"}
    unnamed = {m for m in modules if m not in docstring}
    assert unnamed == set(), f"game/services/__init__.py does not say what these hold: {unnamed}"


def test_no_module_is_named_by_suffix() -> None:
    """views_tokens.py and the like: a concern is a module of a package (game/views/)."""
    suffixed = [p for p in _tracked("game", "accounts") if "_" in p.stem
                and p.stem.split("_")[0] in {"views", "models", "forms", "services", "tests"}]
    assert suffixed == []


def test_no_rule_citation_in_the_old_bare_form() -> None:
    files = [p for p in _tracked(*SOURCES) if p.suffix in {".py", ".js", ".mjs"}
             and "migrations" not in p.parts and p.name != "rule_citations.py"]
    assert len(files) > 300
    bare = [f"{p.relative_to(ROOT)}:{line}: {rule_id}"
            for p in files for line, rule_id in old_citations(p)]
    assert bare == [], "cite rules as §R7.2 (docs/engine-conventions.md):\n" + "\n".join(bare)


@pytest.mark.parametrize(("text", "expected"), [
    ("# R7.2: a cut-in closes", "# §R7.2: a cut-in closes"),
    ('"""R7 — cut-ins: identical card."""', '"""§R7 — cut-ins: identical card."""'),
    ("# the red seven (R7, R9.1) and T19", "# the red seven (§R7, §R9.1) and §T19"),
    ("# RULES.md R1-R15; R12 / R13", "# RULES.md §R1-§R15; §R12 / §R13"),
    ("# H6: alice plays R7 and swaps", "# §H6: alice plays R7 and swaps"),
    ("# bob's R9 B9 G9 Y3 make 30", "# bob's R9 B9 G9 Y3 make 30"),
    ("# bob (R2 R3 = 5) dobons alice's R5", "# bob (R2 R3 = 5) dobons alice's R5"),
    ("# A's G1 cannot return", "# A's G1 cannot return"),
    ('# hands=[["R7"], ["H6"]]', '# hands=[["R7"], ["H6"]]'),
    ('# messages such as "(R4.1)"', '# messages such as "(R4.1)"'),
    (DOCTEST, DOCTEST),
    ("# HOUSE-RULES.md G4, §7 and G10", "# HOUSE-RULES.md §G4, §7 and §G10"),
    ("# §R7.2 already", "# §R7.2 already"),
])
def test_citations_are_told_from_card_codes(text: str, expected: str) -> None:
    assert rewrite(text, trump=False) == expected


def test_in_the_trump_code_h_is_a_suit_unless_it_is_plainly_a_rule() -> None:
    assert is_trump_path(Path("game/rules/trump/game.py"))
    assert rewrite("# seat 0's H7 opens its chance (T11.1)", trump=True) == \
        "# seat 0's H7 opens its chance (§T11.1)"
    assert rewrite("# 2 holds S4 H6 (10): H6.4 elsewhere", trump=True) == \
        "# 2 holds S4 H6 (10): §H6.4 elsewhere"
