"""Where the map step runs: `local` (this machine's worker processes); Ray: `../on_ray.py`."""
