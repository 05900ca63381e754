"""Flight-recorder dumps and stacks from torch's debug server (`torch.distributed.debug.start_debug_server`).

Every rank of such a job runs a worker HTTP server and writes its address (`http://<host>:<port>`) into the
job's TCPStore under `debug_server/rank<R>`. We read those keys with ncclf's own interpreter, isolated
(store_lookup.py; never the job's interpreter or paths), then ask each rank *of this node* directly (an
address that is not this node's is not contacted) — so a hung or dead rank 0, which hosts the
HTML frontend, does not matter. Only JSON and text come back: `fr_trace_json` is parsed with `json`
(nothing received is ever unpickled) and saved as `fr/fr_trace_json_rank_<R>.json`; `dump_traceback`
(faulthandler's format) as `stacks/rank<R>.stack-<host>-<pid>.txt`. Addresses are used only as the job
wrote them: no scanning, no proxies, no redirects.
"""
from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import subprocess
import sys
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .evidence import Item, write_private
from .find import Job, RankProc

STORE_PREFIX = "debug_server"
LOOKUP_TIMEOUT_S = 30.0
FETCH_TIMEOUT_S = 10.0
MAX_BYTES = 256 * 1024 * 1024
_LOOKUP = Path(__file__).with_name("store_lookup.py")


def capture_from_debug_server(job: Job, bundle: Path, host: str) -> tuple[list[Item], str]:
    """(what was fetched or failed, one line on how the lookup went)."""
    ranks = [r for r in job.ranks if r.rank is not None]
    env = ranks[0].env if ranks else {}
    if not ranks or not env.get("MASTER_ADDR") or not env.get("MASTER_PORT", "").isdigit():
        return [], "no MASTER_ADDR/MASTER_PORT: no store to look the debug server up in"
    urls, how = worker_urls(ranks, env["MASTER_ADDR"], int(env["MASTER_PORT"]))
    if not urls:
        return [], how
    with ThreadPoolExecutor(max_workers=min(16, 2 * len(ranks))) as pool:
        futures = [pool.submit(_fetch_rank, r, None if r.rank is None else urls.get(r.rank), bundle, host)
                   for r in ranks]
        items = [item for f in futures for item in f.result()]
    return items, how


def worker_urls(ranks: list[RankProc], addr: str, port: int) -> tuple[dict[int, str], str]:
    args = [str(_LOOKUP), addr, str(port), STORE_PREFIX, *(str(r.rank) for r in ranks)]
    python, env = lookup_interpreter()
    try:
        done = subprocess.run([python, "-I", *args], capture_output=True, text=True, timeout=LOOKUP_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, env=env, cwd="/")
        reply = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        return {}, f"store lookup with {python} failed: {type(exc).__name__}"
    if "error" in reply:
        if "ModuleNotFoundError" in reply["error"]:
            return {}, "no torch beside ncclf's interpreter to read the job's store"
        return {}, f"store {addr}:{port} not readable: {reply['error']}"
    urls = {int(k): v for k, v in reply.get("urls", {}).items() if _valid_url(v)}
    local = {r: u for r, u in urls.items() if on_this_node(urllib.parse.urlsplit(u).hostname or "")}
    how = (f"debug server: {len(local)} worker address(es) in the store" if local
           else "no debug server (no worker address of this node in the job's store)")
    if len(local) < len(urls):
        how += f"; {len(urls) - len(local)} address(es) of other hosts not contacted"
    return local, how


def lookup_interpreter() -> tuple[str, dict[str, str]]:
    """(interpreter, environment) for the store lookup: ncclf's own interpreter, run isolated (`-I`) with an
    environment of ours. Nothing the job's environment or argv names (its interpreter, PATH, PYTHONPATH,
    LD_LIBRARY_PATH, HOME) is ever run: the job may belong to another user."""
    env = {"PATH": os.defpath, "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    if os.environ.get("HOME"):
        env["HOME"] = os.environ["HOME"]
    return sys.executable, env


def on_this_node(host: str) -> bool:
    """Is `host` (a name or an address) one of this node's addresses? Each address it resolves to (through
    the resolver the system is configured with) must be bindable here, i.e. local."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    if not infos:
        return False
    for family, _, _, _, address in infos:
        ip = ipaddress.ip_address(str(address[0]).split("%")[0])
        if ip.is_loopback:
            continue
        try:
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.bind((address[0], 0, *address[2:]) if family == socket.AF_INET6 else (address[0], 0))
        except OSError:
            return False
    return True


def _fetch_rank(r: RankProc, url: str | None, bundle: Path, host: str) -> list[Item]:
    if url is None:
        return [Item("debug_server", r.rank, "", status="missing", reason="this rank wrote no worker address")]
    safe_host = re.sub(r"[^\w.]+", "_", host)
    wanted = [("fr_trace_json", Path("fr") / f"fr_trace_json_rank_{r.rank}.json"),
              ("dump_traceback", Path("stacks") / f"rank{r.rank}.stack-{safe_host}-{r.pid}.txt")]
    items = []
    for handler, rel in wanted:
        source = f"{url}/handler/{handler}"
        item = Item("debug_server_" + handler, r.rank, source, str(rel))
        try:
            body = fetch(source)
            if handler == "fr_trace_json" and not isinstance(json.loads(body), dict):
                raise ValueError("not a JSON object")
            (bundle / rel).parent.mkdir(parents=True, exist_ok=True)
            write_private(bundle / rel, body)
        except (OSError, ValueError) as exc:
            item.path, item.status, item.reason = None, "failed", _one_line(exc)
        items.append(item)
    return items


def fetch(url: str) -> bytes:
    """POST to one worker handler (as torch's frontend does); at most MAX_BYTES, no proxy, no redirect."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
    request = urllib.request.Request(url, data=b"", method="POST")
    with opener.open(request, timeout=FETCH_TIMEOUT_S) as resp:
        body = resp.read(MAX_BYTES + 1)
    if len(body) > MAX_BYTES:
        raise ValueError(f"reply larger than {MAX_BYTES} bytes")
    return body


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _valid_url(url: str) -> bool:
    try:
        parts = urllib.parse.urlsplit(url)
        return parts.scheme == "http" and bool(parts.hostname) and parts.port is not None and not parts.path.strip("/")
    except ValueError:
        return False


def _one_line(exc: Exception) -> str:
    reason = getattr(exc, "reason", None) or exc
    return " ".join(f"{type(exc).__name__}: {reason}".split())[:200]
