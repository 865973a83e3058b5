"""nginx in front of the benchmark's daphnes (issue #30: a rolling restart behind a proxy).

Debian's nginx (`/usr/sbin/nginx`) with a configuration written into a temporary prefix:
one loopback port, an `upstream` of the daphnes, the websocket upgrade, and
X-Forwarded-For appended (the players name their room's address in it, so the daphnes
run with DOBON_PROXY_COUNT=2: the player's entry, then nginx's).

`max_fails=0`: a daphne that refuses connections while it restarts is never marked
down; each new connection tries it, is refused at once (loopback) and goes to the next
daphne (`proxy_next_upstream error`, nginx's default, which retries a refused connect
for any method: nothing was sent yet). docs/deploy.md's site for real hosts is a
different file (deploy/nginx/dobon.conf).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

NGINX = "/usr/sbin/nginx"


def config(port: int, upstreams: list[int], prefix: Path, as_root: bool) -> str:
    """The whole nginx.conf: `port` on loopback in front of daphnes on `upstreams`."""
    servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=0;" for p in upstreams)
    temp = " ".join(f"{kind}_temp_path {prefix / 'temp' / kind};"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""{"user root;" if as_root else ""}
worker_processes 1;
error_log {prefix / "error.log"} warn;
pid {prefix / "nginx.pid"};
events {{ worker_connections 8192; }}
http {{
  access_log off;
  {temp}
  map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
  upstream dobon {{
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://dobon;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_connect_timeout 2s;
      # Above daphne's ping interval (20 s): a quiet socket is not cut by the proxy.
      proxy_read_timeout 60s;
      proxy_send_timeout 60s;
    }}
  }}
}}
"""


class Nginx:
    """One nginx master (and its worker) for the run; `stop` ends it."""

    def __init__(self, prefix: Path, port: int, upstreams: list[int]) -> None:
        self.prefix, self.port, self.upstreams = prefix, port, upstreams
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if not Path(NGINX).exists():
            raise SystemExit(f"{NGINX} not found: apt-get install -y nginx")
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (self.prefix / "temp" / kind).mkdir(parents=True, exist_ok=True)
        conf = self.prefix / "nginx.conf"
        conf.write_text(config(self.port, self.upstreams, self.prefix, os.geteuid() == 0))
        log = open(self.prefix / "nginx.out", "wb")  # noqa: SIM115 (lives with the process)
        self.process = subprocess.Popen(
            [NGINX, "-p", str(self.prefix), "-c", str(conf), "-g", "daemon off;"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_listening(self.port, self.process, self.prefix)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGQUIT)  # nginx's graceful stop
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)

    def remove(self) -> None:
        shutil.rmtree(self.prefix / "temp", ignore_errors=True)


def wait_listening(port: int, process: subprocess.Popen[bytes], prefix: Path,
                   timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            said = [(prefix / name).read_text(errors="replace")[-2000:]
                    for name in ("nginx.out", "error.log") if (prefix / name).exists()]
            raise SystemExit("nginx exited: " + "\n".join(said))
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nginx did not listen on {port}")
