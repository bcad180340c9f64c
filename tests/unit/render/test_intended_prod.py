"""intended/prod/ is what the example inventory renders to: this fails when it is stale."""

from __future__ import annotations

from gpunet.model.check import load_fabric
from gpunet.render import render_fabric, write_intended
from tests.conftest import REPO_ROOT


def test_intended_prod_is_up_to_date() -> None:
    rendered = render_fabric(load_fabric(REPO_ROOT / "inventories" / "prod"))
    report = write_intended(rendered, REPO_ROOT / "intended" / "prod", check=True)
    stale = report.missing + report.changed + report.extra
    assert not stale, f"intended/prod is stale ({', '.join(stale)}): run `gpunet render -i inventories/prod`"
    assert len(report.unchanged) == 2 * len(rendered)
