"""Issue 11: login and sign-up floods are refused for a while, without hashing.

The finding: 200 wrong passwords in a row were all answered (each one hashed), then
the right one worked.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.hashers import MD5PasswordHasher
from django.urls import reverse

from accounts.models import SignupAttempt

pytestmark = pytest.mark.django_db

LOGIN = reverse("accounts:login")
SIGNUP = reverse("accounts:signup")
NEW_PASSWORD = "tangerine-umbrella-741"


class CountingHasher(MD5PasswordHasher):
    """A real hasher that counts its work: the throttle must refuse before hashing."""

    algorithm = "counting_md5"
    calls = 0

    def verify(self, password: str, encoded: str) -> bool:
        CountingHasher.calls += 1
        return super().verify(password, encoded)

    def encode(self, password: str, salt: str) -> str:
        CountingHasher.calls += 1
        return super().encode(password, salt)


@pytest.fixture
def counting_hasher(settings):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    CountingHasher.calls = 0
    return CountingHasher


@pytest.fixture
def limits(settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.DOBON_LOGIN_ADDRESS_FAILURE_LIMIT = 3
    settings.DOBON_SIGNUP_LIMIT = 3


def _fail(client, username: str, ip: str = "203.0.113.5"):
    return client.post(LOGIN, {"username": username, "password": "wrong"}, REMOTE_ADDR=ip)


def test_wrong_passwords_lock_the_pair_and_the_right_one_is_refused_unhashed(
    client, limits, counting_hasher, password, django_user_model
):
    user = django_user_model.objects.create_user("victim", password=password)
    assert user.password.startswith("counting_md5$")
    for _ in range(2):
        assert _fail(client, "victim").status_code == 200  # the form, with its error
    locked = _fail(client, "victim")  # the third failure reaches the limit
    assert locked.status_code == 429
    assert 'data-testid="locked-out"' in locked.content.decode()

    counting_hasher.calls = 0
    response = client.post(LOGIN, {"username": "victim", "password": password},
                           REMOTE_ADDR="203.0.113.5")  # the same address, right password
    assert response.status_code == 429
    assert counting_hasher.calls == 0  # refused before any hashing
    assert "_auth_user_id" not in client.session


def test_case_and_width_variants_count_against_the_same_name(client, limits, alice, password):
    for variant in ("ALICE", "Alice", "ａｌｉｃｅ"):
        _fail(client, variant)
    response = client.post(LOGIN, {"username": "alice", "password": password},
                           REMOTE_ADDR="203.0.113.5")
    assert response.status_code == 429


# -- issue 20: the two attacks on the old per-username-or-address lock ----------------------


def _log_in(client, username: str, password: str, ip: str = "203.0.113.5"):
    response = client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)
    if response.status_code == 302:
        client.post(reverse("accounts:logout"))
    return response


def test_logging_in_to_ones_own_account_between_guesses_does_not_reset_them(
    client, limits, settings, counting_hasher, mallory, password, django_user_model
):
    """The finding: 4 wrong passwords for the victim, then a success to one's own account,
    repeated: 40 guesses, none refused. A success now forgets only its own pair."""
    settings.DOBON_LOGIN_ADDRESS_FAILURE_LIMIT = 100  # the pair alone must hold
    django_user_model.objects.create_user("victim", password=password)
    refused = 0
    for _ in range(5):
        for _ in range(2):
            refused += _fail(client, "victim").status_code == 429
        assert _log_in(client, "mallory", password).status_code == 302  # her own account
    assert refused >= 1
    counting_hasher.calls = 0
    assert _log_in(client, "victim", password).status_code == 429
    assert counting_hasher.calls == 0


def test_an_address_guessing_many_names_is_stopped_however_often_it_succeeds(
    client, limits, settings, mallory, password
):
    settings.DOBON_LOGIN_ADDRESS_FAILURE_LIMIT = 6
    for round_ in range(2):
        for name in (f"v{round_}a", f"v{round_}b"):  # never three for one name
            assert _fail(client, name).status_code == 200
        assert _log_in(client, "mallory", password).status_code == 302
    assert _fail(client, "v2a").status_code == 200
    assert _fail(client, "v2b").status_code == 429  # the sixth failure from the address
    assert _log_in(client, "mallory", password).status_code == 429  # the address, for anyone


def test_wrong_passwords_from_elsewhere_do_not_lock_the_owner_out(
    client, limits, alice, password
):
    """The finding: 5 wrong passwords locked a username for its owner too, from any address."""
    for _ in range(5):
        _fail(client, "alice", ip="203.0.113.66")
    assert _log_in(client, "alice", password, ip="203.0.113.66").status_code == 429
    assert _log_in(client, "alice", password, ip="192.0.2.10").status_code == 302


def test_a_name_attacked_from_many_addresses_is_slowed_down_not_locked(
    client, limits, settings, counting_hasher, alice, password
):
    settings.DOBON_LOGIN_USERNAME_SLOWDOWN = 6
    assert _log_in(client, "alice", password, ip="192.0.2.10").status_code == 302  # her home
    for i in range(3):  # a botnet: two guesses per address, under the pair limit
        _fail(client, "alice", ip=f"198.51.100.{i}")
        _fail(client, "alice", ip=f"198.51.100.{i}")
    # A new address now gets one try: a wrong guess is its last, the right password waits.
    assert _fail(client, "alice", ip="198.51.100.50").status_code == 429
    counting_hasher.calls = 0
    assert _log_in(client, "alice", password, ip="198.51.100.50").status_code == 429
    assert counting_hasher.calls == 0
    # Alice passes: at once from a new address, and after typos from her usual one.
    assert _log_in(client, "alice", password, ip="192.0.2.77").status_code == 302
    _fail(client, "alice", ip="192.0.2.10")
    assert _log_in(client, "alice", password, ip="192.0.2.10").status_code == 302


def test_one_address_trying_many_names_is_locked(client, limits, counting_hasher, alice, password):
    for name in ("a1", "a2", "a3"):
        _fail(client, name)
    counting_hasher.calls = 0
    response = client.post(LOGIN, {"username": "alice", "password": password},
                           REMOTE_ADDR="203.0.113.5")
    assert response.status_code == 429
    assert counting_hasher.calls == 0
    # alice herself, from her own address, still gets in.
    response = client.post(LOGIN, {"username": "alice", "password": password},
                           REMOTE_ADDR="192.0.2.44")
    assert response.status_code == 302


def test_lockout_message_is_japanese_by_default_and_english_on_request(client, limits):
    for _ in range(3):
        response = _fail(client, "victim")
    assert "15 分後にもう一度お試しください" in response.content.decode()
    client.cookies["django_language"] = "en"
    response = _fail(client, "victim")
    assert "Try again in 15 minutes" in response.content.decode()


def test_a_success_before_the_limit_starts_the_count_again(client, limits, alice, password):
    _fail(client, "alice")
    _fail(client, "alice")
    assert client.post(LOGIN, {"username": "alice", "password": password}).status_code == 302
    client.post(reverse("accounts:logout"))
    _fail(client, "alice")
    _fail(client, "alice")
    assert client.post(LOGIN, {"username": "alice", "password": password}).status_code == 302


def test_admin_sees_the_lockout_and_clears_it(client, limits, alice, password, django_user_model):
    for _ in range(3):
        _fail(client, "alice")
    boss = django_user_model.objects.create_superuser("boss", "b@example.com", password)
    admin = client_class_login(boss)
    listing = admin.get(reverse("admin:axes_accessattempt_changelist"))
    assert listing.status_code == 200
    assert "alice" in listing.content.decode()

    attempts = list(AccessAttempt.objects.values_list("pk", flat=True))
    response = admin.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "delete_selected", "_selected_action": attempts, "post": "yes"},
    )
    assert response.status_code == 302
    assert not AccessAttempt.objects.exists()
    response = client.post(LOGIN, {"username": "alice", "password": password},
                           REMOTE_ADDR="203.0.113.5")
    assert response.status_code == 302


def client_class_login(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


# -- sign-up floods ---------------------------------------------------------------------------


def _sign_up(client, username: str, ip: str = "203.0.113.7"):
    data = {"username": username, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    return client.post(SIGNUP, data, REMOTE_ADDR=ip)


def test_a_sign_up_flood_is_refused_without_creating_or_hashing(
    client, limits, counting_hasher, django_user_model
):
    for name in ("flood1", "flood2", "flood3"):
        assert _sign_up(client, name).status_code == 302
        client.post(reverse("accounts:logout"))
    counting_hasher.calls = 0
    response = _sign_up(client, "flood4")
    assert response.status_code == 429
    assert 'data-testid="signup-throttled"' in response.content.decode()
    assert counting_hasher.calls == 0
    assert not django_user_model.objects.filter(username="flood4").exists()
    # Another address may still sign up.
    assert _sign_up(client, "welcome", ip="192.0.2.80").status_code == 302


def test_invalid_sign_up_forms_count_too(client, limits):
    for _ in range(3):
        client.post(SIGNUP, {"username": "x", "password1": "a", "password2": "b"},
                    REMOTE_ADDR="203.0.113.8")
    assert _sign_up(client, "patient", ip="203.0.113.8").status_code == 429


def test_the_window_passes(client, limits, settings):
    settings.DOBON_SIGNUP_WINDOW = settings.DOBON_SIGNUP_WINDOW * 0  # everything is old
    for name in ("w1", "w2", "w3", "w4"):
        assert _sign_up(client, name).status_code == 302
        client.post(reverse("accounts:logout"))


def test_admin_lists_and_clears_sign_up_attempts(client, limits, password, django_user_model):
    for name in ("s1", "s2", "s3"):
        _sign_up(client, name)
        client.post(reverse("accounts:logout"))
    assert _sign_up(client, "s4").status_code == 429
    boss = django_user_model.objects.create_superuser("boss", "b@example.com", password)
    admin = client_class_login(boss)
    listing = admin.get(reverse("admin:accounts_signupattempt_changelist"))
    assert "203.0.113.7" in listing.content.decode()
    ids = list(SignupAttempt.objects.values_list("pk", flat=True))
    admin.post(
        reverse("admin:accounts_signupattempt_changelist"),
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert not SignupAttempt.objects.exists()
    assert _sign_up(client, "s4").status_code == 302


def test_behind_a_proxy_the_forwarded_address_counts(client, limits, settings):
    settings.DOBON_PROXY_COUNT = 1
    for name in ("p1", "p2", "p3"):
        # The client forges the left part; the proxy appends the real address.
        client.post(SIGNUP, {"username": name}, REMOTE_ADDR="10.0.0.2",
                    HTTP_X_FORWARDED_FOR=f"1.2.3.{len(name)}, 198.51.100.20")
    assert SignupAttempt.objects.filter(ip_address="198.51.100.20").count() == 3
    response = client.post(SIGNUP, {"username": "p4"}, REMOTE_ADDR="10.0.0.2",
                           HTTP_X_FORWARDED_FOR="9.9.9.9, 198.51.100.20")
    assert response.status_code == 429
