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
    out_dir = Path(os.environ.get("DEPLOY_CHECK_OUT", "/tmp/dobon-deploy-check-last"))
    if out_dir.is_dir():
        (out_dir / "sslyze.txt").write_text(out)
    # The verdict is the compliance section's line for the target ("OK - Compliant." or
    # "FAILED - Not compliant." with the reasons after it). The certificate is not in
    # any public trust store (the throwaway CA): sslyze says so above, and the profile
    # does not ask it.
    section = out.split("COMPLIANCE AGAINST", 1)[1] if "COMPLIANCE AGAINST" in out else ""
    verdict = [line.strip() for line in section.splitlines() if f"{name}:443" in line
               or line.strip().startswith("*")]
    compliant = any(line.endswith("OK - Compliant.") for line in verdict)
    return done.returncode == 0 and compliant, " | ".join(verdict)[:900] or out[-600:]


# (what is tried, openssl s_client options, whether the edge must accept it). sslyze's
# verdict passed an nginx that offered no TLS 1.3 at all (the default-server trap noted
# in deploy/nginx/dobon.conf): these say what the profile means, one handshake each.
PROBES = [
    ("TLS 1.3 with X25519", ["-tls1_3", "-groups", "X25519"], True),
    ("TLS 1.3 with P-256", ["-tls1_3", "-groups", "P-256"], True),
    ("TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256",
     ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"], True),
    ("TLS 1.2 ECDHE-ECDSA-CHACHA20-POLY1305",
     ["-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305"], True),
    ("TLS 1.2 CBC (ECDHE-ECDSA-AES128-SHA)",
     ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"], False),
    ("TLS 1.1", ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"], False),
    ("TLS 1.0", ["-tls1", "-cipher", "DEFAULT:@SECLEVEL=0"], False),
]


def handshake(name: str, address: str, ca: Path, options: list[str]) -> tuple[bool, str]:
    done = subprocess.run(
        ["openssl", "s_client", "-connect", f"{address}:443", "-servername", name,
         "-CAfile", str(ca), "-verify_return_error", *options],
        input="", text=True, capture_output=True, timeout=20)
    out = done.stdout + done.stderr
    cipher = next((line.split("Cipher is", 1)[1].strip() for line in out.splitlines()
                   if "Cipher is" in line), "(NONE)")
    accepted = done.returncode == 0 and cipher not in ("(NONE)", "0000")
    return accepted, cipher


def probes(name: str, address: str, ca: Path) -> list[tuple[str, bool, str]]:
    """(probe, as the profile wants, what happened) for each of PROBES."""
    results = []
    for label, options, wanted in PROBES:
        accepted, cipher = handshake(name, address, ca, options)
        results.append((label, accepted == wanted,
                        f"{'accepted' if accepted else 'refused'} ({cipher}), "
                        f"{'must be accepted' if wanted else 'must be refused'}"))
    return results
