"""Where the map step runs: `local` (this machine's worker processes)."""
