"""Skill ratings without Django (issue #34, docs/ratings.md): the model on top of
openskill (`model`), the CPU anchors and how they were fitted (`anchors`), and how a
rating is shown (`scale`: the displayed number, provisional, 級/段)."""
