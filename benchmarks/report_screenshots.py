"""Open gpunet-validate HTML reports in headless Chromium: screenshot and time each (a report,
never a pass/fail test).

Run: .venv/bin/python benchmarks/report_screenshots.py REPORT.html [...] [--out DIR]

Needs Debian's `chromium` (`apt-get install chromium`; not part of CI's setup). Each report is
drawn at 1,400 px wide; the time is Chromium's whole run (start, parse, lay out, paint, write
the PNG), so it bounds what a person waits for. Look at the PNGs to judge the page.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

WIDTH, HEIGHT = 1400, 2400


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    args = parser.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium is not installed: apt-get install chromium", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    print("| report | KiB | Chromium s | screenshot |\n| --- | ---: | ---: | --- |")
    for report in args.reports:
        png = args.out / (report.stem + ".png")
        command = [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png.resolve()}", report.resolve().as_uri(),
        ]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False, timeout=300)
        seconds = time.perf_counter() - start
        print(f"| {report} | {report.stat().st_size / 1024:.0f} | {seconds:.1f} | {png} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
