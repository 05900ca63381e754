"""The topology renderers by format name; each module is imported only when its format is asked for."""
from __future__ import annotations

import importlib

from ..topo.model import Communicator, TopoWarning

RENDERERS = {
    "rich": "nccl_forensics.outputs.topo_terminal:render_terminal",
    "json": "nccl_forensics.outputs.topo_json:render_json",
    "dot": "nccl_forensics.outputs.topo_dot:render_dot",
    "mermaid": "nccl_forensics.outputs.topo_mermaid:render_mermaid",
    "svg": "nccl_forensics.outputs.topo_svg:render_svg",
}


def render(fmt: str, comms: list[Communicator], warnings: list[TopoWarning], **options) -> str:
    """Render with one of RENDERERS (options: channel, all_channels, highlight)."""
    module, _, func = RENDERERS[fmt].partition(":")
    return getattr(importlib.import_module(module), func)(comms, warnings, **options)
