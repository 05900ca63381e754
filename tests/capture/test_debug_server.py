"""torch's debug server: worker addresses from the job's TCPStore, JSON and text fetched from each rank's worker
server (a stand-in HTTP server here; the real one is in test_live_capture.py). Nothing is followed or unpickled."""
from __future__ import annotations

import datetime
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nccl_forensics.capture.debug_server import _valid_url, capture_from_debug_server
from nccl_forensics.capture.find import Job, RankProc
from nccl_forensics.capture.procs import read_proc

from .conftest import needs_torch

FR = {"version": "2.10", "pg_config": {}, "pg_status": {}, "entries": []}


class Worker(BaseHTTPRequestHandler):
    def do_POST(self):
        rank = self.server.rank
        if rank == 1:                                   # a worker that redirects somewhere else
            self.send_response(302)
            self.send_header("Location", "http://example.invalid/")
            self.end_headers()
            return
        if self.path == "/handler/fr_trace_json":
            body = json.dumps(FR).encode() if rank == 0 else b"\x80\x04not json"
        else:
            body = b"Thread 0x00007f2c4f9dbb80 (most recent call first):\n  File \"t.py\", line 3 in <module>\n"
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def workers():
    servers = []
    for rank in range(3):
        server = ThreadingHTTPServer(("127.0.0.1", 0), Worker)
        server.rank = rank
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield servers
    for server in servers:
        server.shutdown()
        server.server_close()


@needs_torch
def test_fr_and_stacks_come_from_each_ranks_worker_server(workers, tmp_path):
    import torch.distributed as dist

    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=datetime.timedelta(seconds=10))
    scoped = dist.PrefixStore("debug_server", store)
    for rank, server in enumerate(workers):
        scoped.set(f"rank{rank}", f"http://127.0.0.1:{server.server_address[1]}")
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(store.port)}
    me = read_proc(os.getpid())
    ranks = [RankProc(os.getpid(), me, r, 4, r, env, [sys.executable]) for r in range(4)]
    items, how = capture_from_debug_server(Job("j", None, None, 4, ranks), tmp_path, "n1")
    assert how == "debug server: 3 worker address(es) in the store"
    status = {(i.kind, i.rank): (i.status, i.path) for i in items}
    assert status[("debug_server_fr_trace_json", 0)] == ("copied", "fr/fr_trace_json_rank_0.json")
    assert json.loads((tmp_path / "fr" / "fr_trace_json_rank_0.json").read_text()) == FR
    assert status[("debug_server_dump_traceback", 0)][0] == "copied"
    assert status[("debug_server_fr_trace_json", 1)] == ("failed", None), "a redirect is not followed"
    assert status[("debug_server_fr_trace_json", 2)] == ("failed", None), "what is not JSON is not kept"
    assert not (tmp_path / "fr" / "fr_trace_json_rank_2.json").exists()
    assert status[("debug_server", 3)] == ("missing", None)


def test_only_plain_http_addresses_as_the_job_wrote_them_are_used():
    assert _valid_url("http://node-1:41234") and _valid_url("http://[::1]:5")
    assert not _valid_url("https://node-1:41234") and not _valid_url("file:///etc/passwd")
    assert not _valid_url("http://node-1:41234/elsewhere") and not _valid_url("http://node-1")
