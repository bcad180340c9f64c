"""Render: structured config per switch -> vendor CLI text (Jinja2, one folder per platform) and a
Markdown summary, written to intended/<fabric>/. See docs/switch-rendering.md."""

from gpunet.render.intended import WriteReport, write_intended
from gpunet.render.renderer import RenderedSwitch, render_fabric, render_switch

__all__ = ["RenderedSwitch", "WriteReport", "render_fabric", "render_switch", "write_intended"]
