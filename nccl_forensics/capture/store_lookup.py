"""Read the debug server's worker addresses from a job's TCPStore; prints one JSON object on stdout.

    python store_lookup.py HOST PORT PREFIX RANK [RANK ...]

A standalone script: `ncclf capture` runs it with the job's own interpreter (whose torch speaks the job's
store protocol), so it imports nothing from ncclf. It connects as a plain client (no worker check-in:
`wait_for_workers=False`), only checks and reads keys `<PREFIX>/rank<R>`, and never writes. Output:
`{"urls": {"0": "http://host:port", ...}}` or `{"error": "one line"}`.
"""
import datetime
import json
import sys

CONNECT_TIMEOUT_S = 5


def lookup(host: str, port: int, prefix: str, ranks: list) -> dict:
    import torch.distributed as dist  # the job's torch, imported only in this helper process

    store = dist.TCPStore(host, port, is_master=False, wait_for_workers=False,
                          timeout=datetime.timedelta(seconds=CONNECT_TIMEOUT_S))
    scoped = dist.PrefixStore(prefix, store)
    urls = {}
    for rank in ranks:
        key = f"rank{rank}"
        if scoped.check([key]):
            urls[str(rank)] = scoped.get(key).decode(errors="replace")
    return {"urls": urls}


def main(argv: list) -> int:
    try:
        result = lookup(argv[0], int(argv[1]), argv[2], [int(r) for r in argv[3:]])
    except Exception as exc:  # noqa: BLE001 - one line back to the caller, whatever went wrong
        result = {"error": " ".join(f"{type(exc).__name__}: {exc}".split())[:300]}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
