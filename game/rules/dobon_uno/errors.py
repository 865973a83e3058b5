"""The one exception an action raises when the rules refuse it."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow now; the game is left unchanged.

    ``code`` is a short snake_case reason that the service layer passes straight to the
    client; ``str(error)`` is a human message. It subclasses ``ValueError`` so that an
    unknown card code inside an action (code ``"unknown_card"``) is also the
    ``ValueError`` that ENGINE_API.md promises.

    >>> err = IllegalAction("not_your_turn", "it is seat 2's turn")
    >>> err.code, str(err)
    ('not_your_turn', "it is seat 2's turn")
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"IllegalAction({self.code!r}, {self.message!r})"
