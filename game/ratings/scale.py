"""How a rating is shown (docs/ratings.md): a number players like, "?" while it is
provisional, and a rank of 級 (kyu) and 段 (dan).

- **Displayed rating** = max(0, round(1000 + 40 × ordinal)), the ordinal being
  openskill's mu − 3σ. A new player (mu 25, σ 25/3: ordinal 0) would show 1000; a
  player as good as the normal CPU, once σ is down to 2, about 1800.
- **Provisional** while fewer than `PROVISIONAL_GAMES` (10) rated games or σ above
  `PROVISIONAL_SIGMA` (7.5): pages show "?" and no rank; the JSON gives the number and
  `"provisional": true`. σ starts at 8.33; after 10 games it was 7.0–7.3 for four
  newcomers playing only each other, 6.25 for two, 5.3 against CPU anchors (simulated
  with random results): the bound catches players whose games said almost nothing
  (all ties), not ordinary newcomers.
- **Rank**: 初段 (1 dan) from 1800, one dan more every 100 up to 9段 from 2600; below
  1800 one kyu more every 100 down: 1級 1700–1799 … 9級 900–999, 10級 below 900.

>>> displayed(25.0, 25 / 3)
1000
>>> rank_of(1800), rank_of(1799), rank_of(2650), rank_of(850)
(('dan', 1), ('kyu', 1), ('dan', 9), ('kyu', 10))
"""

from __future__ import annotations

from game.ratings.model import Skill

PROVISIONAL_GAMES = 10
PROVISIONAL_SIGMA = 7.5
BASE, PER_ORDINAL = 1000, 40
FIRST_DAN, STEP, MAX_DAN, MAX_KYU = 1800, 100, 9, 10


def displayed(mu: float, sigma: float) -> int:
    return max(0, round(BASE + PER_ORDINAL * Skill(mu, sigma).ordinal))


def is_provisional(games: int, sigma: float) -> bool:
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


def rank_of(rating: int) -> tuple[str, int]:
    """("dan", n) or ("kyu", n) for a displayed rating."""
    if rating >= FIRST_DAN:
        return "dan", min(MAX_DAN, 1 + (rating - FIRST_DAN) // STEP)
    return "kyu", min(MAX_KYU, 1 + (FIRST_DAN - 1 - rating) // STEP)
