"""Usernames that look alike are the same name.

`username_key` folds a name to a skeleton in the spirit of Unicode TR39's confusable
detection: NFKC (full-width ｂｏｂ is bob), case folding (Alice is alice), then letters
of Cyrillic, Greek and a few other scripts that are drawn like Latin ones map to those,
as do digits drawn like letters, and the katakana / kanji pairs that share a shape. Two
names with the same key may not both exist (a unique column, `User.username_key`).

Japanese names stay allowed: only the handful of look-alike pairs below fold, so
`たろう`, `山田` and `ドボン王` keep their own keys.
"""

from __future__ import annotations

import unicodedata

# One character drawn like another (TR39 confusables.txt, single characters that
# matter for names; the right-hand side is the Latin or the more common form).
_LOOK_ALIKES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q",
    "ѕ": "s", "т": "t", "у": "y", "ԝ": "w", "х": "x", "ү": "y", "ь": "b", "ɡ": "g",
    "ё": "e", "з": "3", "ө": "o", "п": "n", "г": "r", "ո": "n",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j", "ω": "w",
    "μ": "u", "ζ": "z",
    # Latin look-alikes in other blocks, and digits drawn like letters
    "ı": "i", "ȷ": "j", "ł": "l", "ø": "o", "ß": "b", "0": "o", "1": "l", "|": "l",
    # Katakana / kanji / symbols that share a shape
    "カ": "力", "エ": "工", "ロ": "口", "ニ": "二", "ハ": "八", "タ": "夕", "ト": "卜",
    "ー": "一", "‐": "-", "−": "-", "–": "-", "—": "-", "ｰ": "一",
}

# After folding, these still look like one another: i, l and the vertical bar.
_SAME_STROKE = {"i": "l"}

# Characters that draw nothing (a name must not differ by an invisible character).
_INVISIBLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}


# Letters below this code point (Latin, Greek, Cyrillic) lose their accents in the key.
_ACCENTED_SCRIPTS_END = "\u0530"


def normalize_username(username: str) -> str:
    """The form a username is stored in: NFKC, without surrounding spaces."""
    return unicodedata.normalize("NFKC", username).strip()


def username_key(username: str) -> str:
    """The skeleton two look-alike names share. Example:

    >>> username_key("аlice") == username_key("alice") == username_key("ALICE")
    True
    """
    text = normalize_username(username).casefold()
    # Accents on Latin, Greek and Cyrillic letters are small: é looks like e at a glance.
    # Kana keep theirs (か and が are different names).
    text = unicodedata.normalize("NFD", text)
    folded: list[str] = []
    for char in text:
        if char in _INVISIBLE:
            continue
        if unicodedata.category(char) == "Mn" and folded and folded[-1] < _ACCENTED_SCRIPTS_END:
            continue
        char = _LOOK_ALIKES.get(char, char)
        folded.append(_SAME_STROKE.get(char, char))
    return unicodedata.normalize("NFC", "".join(folded))
