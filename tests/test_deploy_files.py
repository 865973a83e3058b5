"""The files an operator copies (deploy/, docs/deploy.md) against the code they describe:
every README setting in the example environment, unit ExecStart lines that resolve with
it and start the site's real entry points, and the nginx rules the site's settings rely
on. `make deploy-check` runs them for real; these catch the drift in a second."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy" / "check"))

from units import read_env_file, read_unit, seconds, write_env_file  # noqa: E402

EXAMPLE = ROOT / "deploy" / "dobon.env.example"
NGINX = (ROOT / "deploy" / "nginx" / "dobon.conf").read_text()
PATHS = {"/srv/dobon": "/opt/here", "/var/lib/dobon": "/state", "/run/dobon": "/rt"}


def readme_settings() -> list[str]:
    """The variable names of README.md's configuration table."""
    table = (ROOT / "README.md").read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for row in table.splitlines():
        if row.startswith("| `"):
            names += re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])
    return names


def test_every_readme_setting_is_in_the_example_environment():
    names = readme_settings()
    assert len(names) > 60  # the table was found
    example = read_env_file(EXAMPLE)
    assert sorted(set(names) - set(example)) == []


def test_every_example_line_has_a_comment_above_it_or_in_its_group():
    """Each KEY= line is preceded (within its block) by a comment saying what it is."""
    block_has_comment = False
    for line in EXAMPLE.read_text().splitlines():
        if not line.strip():
            block_has_comment = False
        elif line.startswith("#"):
            block_has_comment = True
        else:
            assert block_has_comment, f"no comment for {line!r}"


def test_the_example_is_production_safe():
    env = read_env_file(EXAMPLE)
    assert env["DEBUG"] == "false"
    assert env["DOBON_PROXY_COUNT"] == "1"
    assert env["SECURE_PROXY_SSL_HEADER"] == "X-Forwarded-Proto"
    assert env["DOBON_INPROCESS_SCHEDULER"] == "false"
    assert env["SECRET_KEY"].startswith("CHANGE")


@pytest.mark.parametrize("name, instance, program", [
    ("dobon-daphne@.service", "8001",
     ["/opt/here/.venv/bin/python", "-m", "dobon_site.server", "-b", "127.0.0.1", "-p", "8001",
      "dobon_site.asgi:application"]),
    ("dobon-worker.service", "", ["/opt/here/.venv/bin/celery", "-A", "dobon_site", "worker"]),
    ("dobon-beat.service", "", ["/opt/here/.venv/bin/celery", "-A", "dobon_site", "beat"]),
])
def test_units_start_the_sites_entry_points_with_the_example_environment(name, instance, program):
    unit = read_unit(name)
    argv = unit.command(instance, read_env_file(EXAMPLE), PATHS)
    assert argv[: len(program)] == program
    assert unit.user == "dobon"
    assert unit.kill_signal == "SIGTERM"
    assert unit.timeout_stop_seconds > 10  # above DOBON_SHUTDOWN_SECONDS' default


def test_beat_keeps_its_schedule_in_its_state_directory():
    argv = read_unit("dobon-beat.service").command("", read_env_file(EXAMPLE), PATHS)
    assert argv[argv.index("--schedule") + 1] == "/state/celerybeat-schedule"
    assert "StateDirectory=dobon" in (ROOT / "deploy/systemd/dobon-beat.service").read_text()


def test_a_variable_missing_from_the_environment_is_an_error():
    unit = read_unit("dobon-daphne@.service")
    env = read_env_file(EXAMPLE)
    del env["DOBON_BIND_ADDRESS"]
    with pytest.raises(ValueError, match="DOBON_BIND_ADDRESS"):
        unit.command("8001", env, PATHS)


def test_units_are_hardened():
    for path in (ROOT / "deploy" / "systemd").glob("*.service"):
        text = path.read_text()
        for option in ("ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                       "NoNewPrivileges=yes", "EnvironmentFile=/etc/dobon/dobon.env",
                       "User=dobon", "Restart=always"):
            assert option in text, f"{path.name}: {option}"
        # The metrics directory is shared by the host's processes: a unit's own
        # RuntimeDirectory would be emptied by that unit's restart (docs/operations.md).
        assert "RuntimeDirectory" not in text


def test_the_metrics_directory_is_made_at_boot_for_every_unit():
    env = read_env_file(EXAMPLE)
    tmpfiles = (ROOT / "deploy" / "systemd" / "dobon.tmpfiles").read_text()
    assert f"d {env['PROMETHEUS_MULTIPROC_DIR']} 0750 dobon dobon -" in tmpfiles
    for path in (ROOT / "deploy" / "systemd").glob("*.service"):
        assert "ReadWritePaths=/run/dobon" in path.read_text(), path.name


def test_write_env_file_refuses_a_key_the_example_lacks(tmp_path):
    with pytest.raises(ValueError, match="NOT_A_SETTING"):
        write_env_file(EXAMPLE, tmp_path / "env", {"NOT_A_SETTING": "1"})
    write_env_file(EXAMPLE, tmp_path / "env", {"SECRET_KEY": "x" * 50})
    assert read_env_file(tmp_path / "env")["SECRET_KEY"] == "x" * 50


def test_systemd_time_spans():
    assert seconds("20") == 20 and seconds("20s") == 20 and seconds("1min 30s") == 90


def test_nginx_sets_the_forwarded_headers_from_its_own_view():
    """DOBON_PROXY_COUNT=1 and SECURE_PROXY_SSL_HEADER trust these headers: nginx must
    overwrite what the client sent, never append to it."""
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in NGINX
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in NGINX
    assert "proxy_add_x_forwarded_for" not in NGINX
    assert "proxy_set_header Host $host;" in NGINX


def test_nginx_timeouts_are_above_daphnes_ping():
    from dobon_site.server import LIMITS
    ping = max(int(LIMITS["--ping-interval"]), int(LIMITS["--ping-timeout"]))
    for directive in ("proxy_read_timeout", "proxy_send_timeout"):
        values = [int(v) for v in re.findall(rf"{directive} (\d+)s;", NGINX)]
        assert values and min(values) > ping, directive


def test_nginx_upgrades_the_websocket_paths():
    from game.live.routing import websocket_urlpatterns
    assert all(str(p.pattern).startswith("ws/") for p in websocket_urlpatterns)
    assert "location /ws/ {" in NGINX
    assert "proxy_set_header Upgrade $http_upgrade;" in NGINX
    assert "proxy_http_version 1.1;" in NGINX


def test_nginx_tls_is_mozilla_intermediate_and_in_the_default_server():
    assert "ssl_protocols TLSv1.2 TLSv1.3;" in NGINX
    assert "ssl_session_tickets off;" in NGINX
    assert 'add_header Strict-Transport-Security "max-age=63072000" always;' in NGINX
    assert "server_tokens off;" in NGINX
    # The ssl_* lines only count in the listen socket's default server (dobon.conf).
    site = NGINX[NGINX.index("listen 443 ssl http2 default_server;"):]
    assert "ssl_protocols TLSv1.2 TLSv1.3;" in site
    assert NGINX.count("listen 443") == 1
