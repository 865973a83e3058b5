"""The systemd units and the environment file, read the way systemd reads them, so that
the deploy check starts exactly what an operator's host would start (the units cannot
rot: a wrong ExecStart, user or variable fails the check)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

UNIT_DIR = Path(__file__).resolve().parents[1] / "systemd"
ENV_FILE = "/etc/dobon/dobon.env"  # what every unit must name in EnvironmentFile=
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Unit:
    """What the check needs of one [Service] section."""

    name: str
    exec_start: str
    user: str
    working_directory: str
    environment_file: str
    kill_signal: str
    timeout_stop_seconds: float

    def command(self, instance: str, env: dict[str, str], paths: dict[str, str]) -> list[str]:
        """ExecStart as argv: %i is the instance, $VAR and ${VAR} come from the
        environment file (systemd expands nothing else here), then the install paths of
        the units (/srv/dobon, /var/lib/dobon, /run/dobon) are mapped to this machine's."""
        line = self.exec_start.lstrip("-@+!:")
        line = line.replace("%i", instance).replace("%%", "%")
        missing = [m.group(1) or m.group(2) for m in VARIABLE.finditer(line)
                   if (m.group(1) or m.group(2)) not in env]
        if missing:
            raise ValueError(f"{self.name}: ExecStart uses {missing}, not in the environment file")
        line = VARIABLE.sub(lambda m: env[m.group(1) or m.group(2)], line)
        argv = shlex.split(line)
        return [map_path(arg, paths) for arg in argv]


def map_path(value: str, paths: dict[str, str]) -> str:
    for prefix, here in paths.items():
        if value == prefix or value.startswith(prefix + "/"):
            return here + value[len(prefix):]
    return value


def read_unit(name: str) -> Unit:
    """The [Service] keys of deploy/systemd/<name>. Every key the check relies on must
    be there: a unit without them is a defect the check reports."""
    keys: dict[str, str] = {}
    section = ""
    for raw in (UNIT_DIR / name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]" and "=" in line:
            key, value = line.split("=", 1)
            keys.setdefault(key.strip(), value.strip())  # the first one (ExecStart once)
    needed = ["ExecStart", "User", "WorkingDirectory", "EnvironmentFile", "KillSignal",
              "TimeoutStopSec"]
    absent = [k for k in needed if k not in keys]
    if absent:
        raise ValueError(f"{name}: [Service] has no {', '.join(absent)}")
    if keys["EnvironmentFile"].lstrip("-") != ENV_FILE:
        raise ValueError(f"{name}: EnvironmentFile is not {ENV_FILE}")
    return Unit(name, keys["ExecStart"], keys["User"], keys["WorkingDirectory"],
                keys["EnvironmentFile"], keys["KillSignal"], seconds(keys["TimeoutStopSec"]))


def seconds(value: str) -> float:
    """A systemd time span as the units write it: `20`, `20s`, `1min 30s`."""
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)\s*(min|ms|s|)", value):
        total += float(number) * {"min": 60.0, "ms": 0.001}.get(unit, 1.0)
    return total


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=value lines as systemd's EnvironmentFile= reads them: comments and blank
    lines skipped, one pair of surrounding quotes removed."""
    env: dict[str, str] = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"{path}: not KEY=value: {raw!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        env[key.strip()] = value
    return env


def write_env_file(template: Path, target: Path, values: dict[str, str]) -> None:
    """The example file with `values` put in place of its lines (a key the example does
    not have is an error: the example must list every setting the check needs)."""
    lines = template.read_text().splitlines()
    left = dict(values)
    out = []
    for raw in lines:
        setting = "=" in raw and not raw.lstrip().startswith("#")
        key = raw.split("=", 1)[0].strip() if setting else ""
        if key in left:
            out.append(f"{key}={left.pop(key)}")
        else:
            out.append(raw)
    if left:
        raise ValueError(f"{template.name} has no line for {sorted(left)}")
    target.write_text("\n".join(out) + "\n")
