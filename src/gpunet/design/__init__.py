"""Design: the validated Fabric -> one structured config (plain dict) per switch.

All arithmetic, unit conversion and lookups happen here; the templates in gpunet/templates/switch/ only
test for presence and print. See docs/switch-rendering.md.
"""

from gpunet.design.switch import design_switch

__all__ = ["design_switch"]
