"""Flight-recorder dumps and stacks from torch's debug server (`torch.distributed.debug.start_debug_server`).

Every rank of such a job runs a worker HTTP server and writes its address (`http://<host>:<port>`) into the
job's TCPStore under `debug_server/rank<R>`. We read those keys with the job's own interpreter
(store_lookup.py), then ask each rank *of this node* directly — so a hung or dead rank 0, which hosts the
HTML frontend, does not matter. Only JSON and text come back: `fr_trace_json` is parsed with `json`
(nothing received is ever unpickled) and saved as `fr/fr_trace_json_rank_<R>.json`; `dump_traceback`
(faulthandler's format) as `stacks/rank<R>.stack-<host>-<pid>.txt`. Addresses are used only as the job
wrote them: no scanning, no proxies, no redirects.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .evidence import Item
from .find import Job, RankProc
from .procs import cwd

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
        futures = [pool.submit(_fetch_rank, r, urls.get(r.rank), bundle, host) for r in ranks]
        items = [item for f in futures for item in f.result()]
    return items, how


def worker_urls(ranks: list[RankProc], addr: str, port: int) -> tuple[dict[int, str], str]:
    args = [str(_LOOKUP), addr, str(port), STORE_PREFIX, *(str(r.rank) for r in ranks)]
    why = "no interpreter with torch to read the job's store"
    for python, env in job_interpreters(ranks[0]):
        try:
            done = subprocess.run([python, *args], capture_output=True, text=True, timeout=LOOKUP_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL, env=env)
            reply = json.loads(done.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
            why = f"store lookup with {python} failed: {type(exc).__name__}"
            continue
        if "error" in reply:
            why = f"store {addr}:{port} not readable: {reply['error']}"
            if "ModuleNotFoundError" in reply["error"]:
                continue
            return {}, why
        urls = {int(k): v for k, v in reply.get("urls", {}).items() if _valid_url(v)}
        return urls, (f"debug server: {len(urls)} worker address(es) in the store" if urls
                      else "no debug server (no worker address in the job's store)")
    return {}, why


def job_interpreters(r: RankProc) -> list[tuple[str, dict[str, str]]]:
    """(interpreter, environment) to run the lookup with: the rank's own interpreter with the rank's paths
    (its torch speaks the job's store protocol), then ours."""
    found = []
    argv0 = r.cmdline[0] if r.cmdline else ""
    if argv0:
        path = argv0 if os.path.isabs(argv0) else shutil.which(argv0, path=r.env.get("PATH"))
        if path and not os.path.isabs(path):
            path = os.path.join(cwd(r.pid) or "/", path)
        if path and os.path.basename(path).startswith("python") and os.access(path, os.X_OK):
            found.append((path, _lookup_env(r.env)))
    if sys.executable not in (p for p, _ in found):
        found.append((sys.executable, _lookup_env(dict(os.environ))))
    return found


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
            (bundle / rel).write_bytes(body)
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


def _lookup_env(env: dict[str, str]) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV")
    return {k: v for k, v in env.items() if k in keep} | {"OMP_NUM_THREADS": "1"}


def _one_line(exc: Exception) -> str:
    reason = getattr(exc, "reason", None) or exc
    return " ".join(f"{type(exc).__name__}: {reason}".split())[:200]
