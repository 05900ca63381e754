"""Renderers: model objects in, text out. Only this package writes user-facing text."""
