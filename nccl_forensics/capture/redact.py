"""One redaction for every command line that goes into a bundle (the manifest, py-spy's `Process N: ...` header,
the notes): a bundle is copied to shared folders, a job's argv often carries a token.

Hidden, each as `<redacted>`:
- the value of an option named like a secret, in every form: `--password x`, `--hf-token=y`, `--api_key x`;
- the value of a short option once a secret-named long form came before it (`--use-password -p X`), and of
  `-p` always (`mysql -pX`, `-p X`: a password far more often than anything a bundle needs);
- the password of a URL (`https://user:pw@host`) and secret-named query parameters (`?token=...`);
- the value of an environment-like `NAME=value` argument whose name looks like a secret (`HF_TOKEN=...`,
  `optimizer.api_key=...`);
- values shaped like well-known tokens (`hf_...`, `ghp_...`, `sk-...`, `AKIA...`, `xoxb-...`) wherever they are.

    >>> redact_argv(["train.py", "--token=abc", "--password", "x", "https://u:pw@h/r", "HF_TOKEN=hf_1"])
    ['train.py', '--token=<redacted>', '--password', '<redacted>', 'https://u:<redacted>@h/r', 'HF_TOKEN=<redacted>']
"""
from __future__ import annotations

import re

HIDDEN = "<redacted>"
SECRET_NAME = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|PASSPHRASE|\bPASS\b|_PASS\b|PWD|CREDENTIAL|AUTH|"
                         r"COOKIE|SESSION|PRIVATE|SIGNATURE|BEARER", re.I)
_ALWAYS_SECRET_SHORT = {"-p"}
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][\w+.-]*://[^/\s:@]*:)(?P<pw>[^/\s@]*)(?P<at>@)")
_QUERY_SECRET = re.compile(r"(?P<head>[?&;](?P<name>[^=&;#\s]+)=)(?P<value>[^&;#\s]*)")
_ENV_LIKE = re.compile(r"^(?P<name>[A-Za-z_][\w.\-]*)=")
_TOKEN_SHAPES = re.compile(r"\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|"
                           r"sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|"
                           r"glpat-[A-Za-z0-9_-]{20,}|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,})")


def redact_argv(argv: list[str]) -> list[str]:
    """`argv` with every secret (see the module docstring) replaced by `<redacted>`."""
    out: list[str] = []
    hide_next = secret_seen = False
    for arg in argv:
        if hide_next:
            hide_next = False
            if not _is_option(arg):                        # `--password -k X`: a flag, then another option
                out.append(HIDDEN)
                continue
        if arg.startswith("--") and SECRET_NAME.search(arg.split("=", 1)[0]):
            name, eq, _ = arg.partition("=")
            out.append(f"{name}={HIDDEN}" if eq else arg)
            hide_next = not eq
            secret_seen = True
            continue
        if _is_short_option(arg) and len(arg) == 2 and (secret_seen or arg in _ALWAYS_SECRET_SHORT):
            out.append(arg)                                # -p X
            hide_next = True
            continue
        if _is_short_option(arg) and arg[:2] in _ALWAYS_SECRET_SHORT and len(arg) > 2:
            out.append(arg[:2] + ("=" if arg[2] == "=" else "") + HIDDEN)      # -pX, -p=X
            continue
        out.append(redact_text(arg))
    return out


def redact_text(text: str) -> str:
    """One argument (or a line of text): URL passwords, secret query parameters, `NAME=value` with a secret
    name, token-shaped values."""
    m = _ENV_LIKE.match(text)
    if m and SECRET_NAME.search(m.group("name")):
        return f"{m.group('name')}={HIDDEN}"
    text = _URL_PASSWORD.sub(lambda m: m.group("head") + HIDDEN + m.group("at"), text)
    text = _QUERY_SECRET.sub(lambda m: m.group("head") + HIDDEN if SECRET_NAME.search(m.group("name"))
                             else m.group(0), text)
    return _TOKEN_SHAPES.sub(HIDDEN, text)


def redact_command_line(line: str) -> str:
    """A command line printed as one string (py-spy's `Process 42: python train.py --token x`), word by word."""
    words = line.split(" ")
    return " ".join(redact_argv(words))


def _is_option(arg: str) -> bool:
    return arg.startswith("-") and len(arg) > 1 and not arg[1].isdigit() and arg[1] != "."


def _is_short_option(arg: str) -> bool:
    return len(arg) >= 2 and arg[0] == "-" and arg[1] != "-" and arg[1].isalpha()
