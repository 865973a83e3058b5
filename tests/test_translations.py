"""The one gettext catalog (issue #35): `make messages` keeps every Japanese translation,
and one English word that needs two Japanese ones is told apart by its msgctxt.

The make-messages test runs the Makefile's own target in a copy of the project, so the
committed catalog is never touched, and compares what msgfmt compiles before and after:
a compiled catalog holds exactly the translated, non-fuzzy entries, so an entry that went
missing, changed or turned fuzzy is a difference."""

from __future__ import annotations

import gettext
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import translation

from tests.conftest import skip_unless_services

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Path("dobon_site/locale/ja/LC_MESSAGES/django.po")
# What makemessages reads (Python, templates, static) and what runs it; not the venv,
# the history, the tests (ignored by the target) or the benchmark records.
COPIED = ["Makefile", "manage.py", "pyproject.toml", "requirements.lock",
          "dobon_site", "game", "accounts", "templates", "static"]


def _need_gettext() -> None:
    if shutil.which("msgfmt") is None or shutil.which("msgmerge") is None:
        skip_unless_services("needs GNU gettext (apt-get install gettext)")


def _compiled(po: Path, into: Path) -> dict[object, str]:
    """The translated, non-fuzzy entries of a .po as gettext reads them: keys are
    msgid, "msgctxt\\x04msgid", or (msgid, n) for plural forms."""
    subprocess.run(["msgfmt", "-o", str(into), str(po)], check=True)
    with into.open("rb") as f:
        return dict(gettext.GNUTranslations(f)._catalog)  # type: ignore[attr-defined]


def _make_messages_in_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "staticfiles")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=ignore)
        else:
            shutil.copy2(source, copy / name)
    # `-o install`: the copy uses this test's interpreter instead of building a venv.
    subprocess.run(["make", "-s", "-o", "install", "messages",
                    f"BIN={Path(sys.executable).parent}"],
                   cwd=copy, check=True, capture_output=True, timeout=300)
    return copy


@pytest.fixture(scope="module")
def after_make_messages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _need_gettext()
    return _make_messages_in_copy(tmp_path_factory.mktemp("messages"))


def test_make_messages_loses_no_translation(after_make_messages: Path, tmp_path: Path) -> None:
    committed = (ROOT / CATALOG).read_bytes()
    before = _compiled(ROOT / CATALOG, tmp_path / "before.mo")
    after = _compiled(after_make_messages / CATALOG, tmp_path / "after.mo")

    lost = {key: text for key, text in before.items() if after.get(key) != text}
    assert lost == {}, f"make messages would lose or change these translations: {lost}"
    assert len(before) > 600  # the whole site's catalog, not an empty file
    assert (ROOT / CATALOG).read_bytes() == committed  # the copy was used, not this tree


def test_make_messages_leaves_no_fuzzy_or_untranslated_entry(after_make_messages: Path) -> None:
    """Every string the site shows has its Japanese: the committed catalog is what
    `make messages` makes of the code (a new string without a translation fails here)."""
    result = subprocess.run(
        ["msgattrib", "--only-fuzzy", str(after_make_messages / CATALOG)],
        check=True, capture_output=True, text=True)
    assert result.stdout == ""
    result = subprocess.run(
        ["msgattrib", "--untranslated", "--no-obsolete", str(after_make_messages / CATALOG)],
        check=True, capture_output=True, text=True)
    assert result.stdout == "", "untranslated:\n" + result.stdout


def test_one_catalog_and_no_app_catalogs(after_make_messages: Path) -> None:
    """An app's own locale/ would take that app's strings out of the site catalog at the
    next makemessages (that is how game/locale lost ~300 translations)."""
    found = sorted(str(p.relative_to(after_make_messages))
                   for p in after_make_messages.rglob("locale") if p.is_dir())
    assert found == ["dobon_site/locale"]


@pytest.mark.parametrize(("language", "stacking", "trump"), [
    ("ja", "標準", "スタンダード"),
    ("en", "standard", "standard"),
])
def test_standard_is_two_words_in_japanese(language: str, stacking: str, trump: str) -> None:
    """§H3's draw stacking "standard" is 標準; the trump preset "standard" is スタンダード
    (msgctxt "draw stacking" / "trump preset")."""
    from game.house_text import value_text
    from game.services.engines import seat_range_message

    with translation.override(language):
        assert value_text("stacking", "standard") == stacking
        assert f"({trump})" in seat_range_message("standard") or f"（{trump}）" in \
            seat_range_message("standard")
