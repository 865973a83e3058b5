"""The deploy check's hosts and what runs on them (docs/deploy.md, "The deploy check"):
the data host's PostgreSQL and Redis, the app hosts' daphnes and workers and the beats
started from the systemd units, the edge's nginx with deploy/nginx/dobon.conf. Every
process runs inside its host's network namespace (`ip netns exec`), so that
deploy/check/topology.sh can end all of it."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from units import Unit, read_env_file, read_unit, write_env_file

ROOT = Path(__file__).resolve().parents[2]
WORK = Path("/tmp/dobon-deploy-check")
NAME = "dobon.test"
ADDRESS = {"client": "198.18.0.2", "edge": "198.18.0.10", "app1": "198.18.0.21",
           "app2": "198.18.0.22", "beat": "198.18.0.31", "data": "198.18.0.40"}
DAPHNE_PORTS = ("8001", "8002")
PG_BIN = Path("/usr/lib/postgresql")


def pg_bin(tool: str) -> str:
    versions = sorted(PG_BIN.glob("*/bin/" + tool))
    if not versions:
        raise SystemExit(f"PostgreSQL's {tool} is not installed (apt-get install postgresql)")
    return str(versions[-1])


def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, check=True, text=True, capture_output=True, **kwargs)  # type: ignore[call-overload, no-any-return]


def in_host(host: str, argv: list[str]) -> list[str]:
    return ["ip", "netns", "exec", f"dobon-{host}", *argv]


def wait_port(address: str, port: int, timeout: float, up: bool = True) -> float:
    """Seconds until the port accepts (up) or refuses (not up) a connection."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            with socket.create_connection((address, port), timeout=1):
                if up:
                    return time.monotonic() - start
        except OSError:
            if not up:
                return time.monotonic() - start
        time.sleep(0.1)
    raise TimeoutError(f"{address}:{port} not {'up' if up else 'down'} after {timeout} s")


@dataclass
class Process:
    host: str
    name: str
    argv: list[str]
    env: dict[str, str]
    user: str | None
    unit: Unit | None
    popen: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return WORK / "logs" / f"{self.host}-{self.name}.log"

    def start(self) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        with open(self.log, "ab") as log:
            self.popen = subprocess.Popen(
                in_host(self.host, [*prefix, *self.argv]), env=self.env, cwd=ROOT,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def stop(self) -> tuple[float, int | None]:
        """Stop it as systemd would: the unit's KillSignal to the main process, SIGKILL
        to the group after TimeoutStopSec. Returns (seconds taken, exit code)."""
        assert self.popen is not None
        signum = signal.Signals[self.unit.kill_signal if self.unit else "SIGTERM"]
        limit = self.unit.timeout_stop_seconds if self.unit else 10.0
        start = time.monotonic()
        self.popen.send_signal(signum)
        try:
            self.popen.wait(limit)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(10)
        return time.monotonic() - start, self.popen.returncode

    def log_text(self, tail: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-tail:] if self.log.exists() else ""


@dataclass
class Site:
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(50))
    db_password: str = field(default_factory=lambda: secrets.token_hex(16))
    redis_password: str = field(default_factory=lambda: secrets.token_hex(16))
    processes: list[Process] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    user: str | None = None

    @property
    def database_url(self) -> str:
        return f"postgres://dobon:{self.db_password}@{ADDRESS['data']}:5432/dobon"

    @property
    def redis_url(self) -> str:
        return f"redis://:{self.redis_password}@{ADDRESS['data']}:6379/0"

    # --- the data host --------------------------------------------------------------
    def start_postgres(self) -> None:
        data = WORK / "data" / "pg"
        data.mkdir(parents=True)
        shutil.chown(data.parent, "postgres")
        shutil.chown(data, "postgres")
        run(["runuser", "-u", "postgres", "--", pg_bin("initdb"), "-D", str(data), "-U",
             "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8"])
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write("host dobon dobon 198.18.0.0/24 scram-sha-256\n")
        postgres = Process("data", "postgres", [
            pg_bin("postgres"), "-D", str(data), "-c", f"listen_addresses={ADDRESS['data']}",
            "-c", "port=5432", "-c", f"unix_socket_directories={data}",
            "-c", "max_connections=200", "-c", "shared_buffers=64MB"],
            {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}, "postgres", None)
        postgres.start()
        self.processes.append(postgres)
        wait_port(ADDRESS["data"], 5432, 30)
        psql = ["runuser", "-u", "postgres", "--", pg_bin("psql"), "-h", str(data), "-U",
                "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c"]
        ready = [pg_bin("pg_isready"), "-q", "-h", str(data), "-t", "1"]
        for _ in range(60):
            if subprocess.run(in_host("data", ready)).returncode == 0:
                break
            time.sleep(0.5)
        run(in_host("data", [*psql, f"CREATE ROLE dobon LOGIN PASSWORD '{self.db_password}'"]))
        run(in_host("data", [*psql, "CREATE DATABASE dobon OWNER dobon"]))

    def redis(self) -> Process:
        found = [p for p in self.processes if p.name == "redis"]
        if found:
            return found[0]
        process = Process("data", "redis", [
            "redis-server", "--bind", ADDRESS["data"], "--port", "6379", "--save", "",
            "--appendonly", "no", "--requirepass", self.redis_password,
            "--dir", str(WORK / "data")],
            {"PATH": os.environ["PATH"]}, None, None)
        self.processes.append(process)
        return process

    def start_redis(self) -> None:
        self.redis().start()
        wait_port(ADDRESS["data"], 6379, 20)

    # --- the app and beat hosts -----------------------------------------------------
    def host_env(self, host: str, extra: dict[str, str]) -> dict[str, str]:
        """The host's /etc/dobon/dobon.env: deploy/dobon.env.example with its CHANGE
        values and this host's address filled in (the other lines as shipped), read back
        the way systemd reads it."""
        run_dir = WORK / host / "run"
        (run_dir / "metrics").mkdir(parents=True, exist_ok=True)
        (WORK / host / "state").mkdir(parents=True, exist_ok=True)
        if self.user:
            for path in (WORK / host, run_dir, run_dir / "metrics", WORK / host / "state"):
                shutil.chown(path, self.user)
        target = WORK / host / "dobon.env"
        write_env_file(ROOT / "deploy" / "dobon.env.example", target, {
            "SECRET_KEY": self.secret, "ALLOWED_HOSTS": NAME,
            "CSRF_TRUSTED_ORIGINS": f"https://{NAME}", "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url, "DOBON_BIND_ADDRESS": ADDRESS[host],
            "PROMETHEUS_MULTIPROC_DIR": str(run_dir / "metrics"),
            **extra,  # the check's own values (main.check_only_settings says why)
        })
        env = read_env_file(target)
        # What systemd gives a service besides its EnvironmentFile=.
        return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "LANG": "C.UTF-8", "HOME": str(WORK / host), "PYTHONUNBUFFERED": "1", **env}

    def paths(self, host: str) -> dict[str, str]:
        return {"/srv/dobon": str(ROOT), "/var/lib/dobon": str(WORK / host / "state"),
                "/run/dobon": str(WORK / host / "run")}

    def from_unit(self, host: str, unit_name: str, instance: str, env: dict[str, str],
                  name: str) -> Process:
        unit = read_unit(unit_name)
        argv = unit.command(instance, env, self.paths(host))
        process = Process(host, name, argv, env, self.user, unit)
        self.processes.append(process)
        return process

    def choose_user(self) -> None:
        """The units' User= when it exists here and may run the venv's interpreter;
        otherwise root, and the report says why."""
        wanted = read_unit("dobon-daphne@.service").user
        python = str(ROOT / ".venv" / "bin" / "python")
        try:
            run(["runuser", "-u", wanted, "--", python, "-c", "import django"])
            self.user = wanted
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            reason = (exc.stderr or "").strip().splitlines()[-1:] if isinstance(
                exc, subprocess.CalledProcessError) else [str(exc)]
            self.notes.append(f"processes run as root, not the units' User={wanted}: "
                              f"{wanted} cannot run {python} here ({' '.join(reason)[:120]})")

    def manage(self, env: dict[str, str], *args: str) -> str:
        """manage.py on app1, as the operator's deploy step does."""
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        done = subprocess.run(
            in_host("app1", [*prefix, str(ROOT / ".venv/bin/python"), "manage.py", *args]),
            env=env, cwd=ROOT, text=True, capture_output=True, timeout=300)
        if done.returncode:
            raise RuntimeError(
                f"manage.py {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-3000:]}")
        return done.stdout

    # --- the edge -------------------------------------------------------------------
    def make_certificates(self) -> Path:
        """A throwaway CA and a certificate for the test name signed by it (ECDSA P-256,
        90 days: within the profile's certificate rules)."""
        tls = WORK / "tls"
        tls.mkdir()
        def openssl(*args: str) -> None:
            run(["openssl", *args], cwd=tls)
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj",
                "/CN=Dobon deploy check throwaway CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "privkey.pem", "-out", "server.csr", "-subj", f"/CN={NAME}")
        (tls / "ext.cnf").write_text(
            f"subjectAltName=DNS:{NAME}\nbasicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", "fullchain.pem", "-days", "90", "-sha256",
                "-extfile", "ext.cnf")
        shutil.copy(tls / "ca.pem", tls / "chain.pem")
        openssl("genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "dh_param:ffdhe2048",
                "-out", "dhparam.pem")
        return tls / "ca.pem"

    def edge_config(self, upstreams: list[str]) -> Path:
        """deploy/nginx/dobon.conf with its placeholders filled: the name, the
        certificate files, the DH parameters and the upstream servers. Nothing else."""
        text = (ROOT / "deploy" / "nginx" / "dobon.conf").read_text()
        tls = WORK / "tls"
        text = text.replace("/etc/letsencrypt/live/dobon.example", str(tls))
        text = text.replace("/etc/nginx/dobon-dhparam.pem", str(tls / "dhparam.pem"))
        text = text.replace("dobon.example", NAME)
        servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+ (.*);$", text, re.M)
        if not servers:
            raise ValueError("dobon.conf: no `server 127.0.0.1:PORT …;` lines in its upstream")
        text = re.sub(r"^\s*server 127\.0\.0\.1:\d+ .*;\n", "", text, flags=re.M)
        lines = "".join(f"    server {u} {servers[0]};\n" for u in upstreams)
        text = text.replace("upstream dobon_daphnes {\n", "upstream dobon_daphnes {\n" + lines, 1)
        edge = WORK / "edge"
        (edge / "run").mkdir(parents=True)
        (edge / "dobon.conf").write_text(text)
        # Debian's own /etc/nginx/nginx.conf (its http-level ssl_protocols and all), with
        # the site in place of sites-enabled/* and this run's pid, log and temp paths.
        main = Path("/etc/nginx/nginx.conf").read_text()
        for old, here in (("include /etc/nginx/sites-enabled/*;", f"include {edge}/dobon.conf;"),
                          ("pid /run/nginx.pid;", f"pid {edge}/run/nginx.pid;"),
                          ("error_log /var/log/nginx/error.log;", f"error_log {edge}/error.log;"),
                          ("access_log /var/log/nginx/access.log;",
                           f"access_log {edge}/access.log;\n"
                           f"\tclient_body_temp_path {edge}/run/body;"
                           f"\n\tproxy_temp_path {edge}/run/proxy;")):
            if old not in main:
                raise ValueError(f"/etc/nginx/nginx.conf has no line {old!r}")
            main = main.replace(old, here)
        (edge / "nginx.conf").write_text(main)
        return edge / "nginx.conf"

    def start_edge(self, upstreams: list[str]) -> Process:
        config = self.edge_config(upstreams)
        tested = subprocess.run(in_host("edge", ["nginx", "-t", "-c", str(config)]),
                                text=True, capture_output=True)
        if tested.returncode:
            raise RuntimeError(f"nginx -t failed:\n{tested.stderr}")
        warnings = [line for line in tested.stderr.splitlines() if "warn" in line]
        self.notes.append("nginx -t: " + (" | ".join(warnings)[:300] or "clean"))
        process = Process("edge", "nginx", ["nginx", "-c", str(config), "-g", "daemon off;"],
                          {"PATH": os.environ["PATH"]}, None, None)
        process.start()
        self.processes.append(process)
        wait_port(ADDRESS["edge"], 443, 20)
        return process

    def kill_host(self, host: str) -> list[int]:
        """kill -9 of every process of a host, as a crash or a pulled plug would."""
        pids = subprocess.run(["ip", "netns", "pids", f"dobon-{host}"], text=True,
                              capture_output=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in self.processes:
            if process.host == host and process.popen is not None:
                process.popen.wait(10)
        return [int(p) for p in pids]
