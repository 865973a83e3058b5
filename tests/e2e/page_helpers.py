"""Shared steps of the browser tests of the pages around the table."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.conftest import PASSWORD


def log_in(page: Page, base: str, username: str, language: str = "ja") -> None:
    """Log in through the form, in `language` (the switcher's cookie), and wait for the
    header to name the person."""
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_test_id("nav-profile")).to_have_text(username)
