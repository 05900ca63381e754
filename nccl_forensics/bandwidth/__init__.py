"""Communication cost: `cost` (predicted), `probe` and `probe_worker` (measured), `scaling` (efficiency)."""
