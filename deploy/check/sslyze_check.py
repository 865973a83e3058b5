"""sslyze against the edge with Mozilla's "intermediate" profile. sslyze lives in a venv
of its own (deploy/check/run makes it before the hosts exist, pinned): installed into
the project's venv it would pull cryptography, pyOpenSSL, service-identity and autobahn
back to older releases than the lock file's, and autobahn is daphne's websocket
implementation in production (docs/deploy.md, "The deploy check")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SSLYZE = Path(os.environ.get("DOBON_SSLYZE", "/var/tmp/dobon-sslyze-6.3.1/bin/sslyze"))


def scan(name: str, address: str, ca: Path) -> tuple[bool, str]:
    if not SSLYZE.exists():
        return False, f"{SSLYZE} is missing (deploy/check/run installs it)"
    done = subprocess.run(
        [str(SSLYZE), "--mozilla_config=intermediate", f"--certinfo_ca_file={ca}",
         f"{name}:443{{{address}}}"], text=True, capture_output=True, timeout=180)
    out = done.stdout + done.stderr
    verdict = [line.strip() for line in out.splitlines() if "ompliance" in line or "FAILED" in line
               or "is compliant" in line or "not compliant" in line]
    problems = [line.strip() for line in out.splitlines() if line.strip().startswith("*")]
    detail = " | ".join(verdict[-3:] + problems[:6]) or out[-600:]
    return done.returncode == 0 and "not compliant" not in out.lower(), detail[:900]
