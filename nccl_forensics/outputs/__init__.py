"""Renderers: model objects in, text out. Only this package writes user-facing text.

The console every command writes through is `console.make_console` (rich is not imported by a command whose
output is JSON)."""
