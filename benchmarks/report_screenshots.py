"""Open gpunet-validate HTML reports in headless Chromium: screenshot and time each (a report,
never a pass/fail test).

Run: .venv/bin/python benchmarks/report_screenshots.py REPORT.html [...] [--out DIR]

Needs Debian's `chromium` (`apt-get install chromium`, as root; not part of CI's setup or
scripts/setup.sh). Each report is drawn at 1,400 px wide; the time is Chromium's whole run
(start, parse, lay out, paint, write the PNG), so it bounds what a person waits for. The first row
is an empty page: Chromium's own start at the moment's load, to subtract. "browser CPU" is
user + sys of the browser and the processes it waits for: the renderer, which draws the page, is
not reliably among them (`--single-process` would count it, but wrote no PNG for a 16,384-host
report and an empty `--dump-dom`), so compare wall times against the empty page's. Look at the
PNGs to judge the page.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTH, HEIGHT = 1400, 2400


def draw(browser: str, report: Path, png: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MiB of the largest waited process) of one headless Chromium run."""
    command = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png.resolve()}", report.resolve().as_uri(),
    ]  # fmt: skip
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink)
        _, _, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


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
    print("| report | KiB | Chromium wall s | browser CPU s | browser peak MiB | screenshot |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        blank = Path(scratch) / "empty-page.html"
        blank.write_text("<!DOCTYPE html><html><body></body></html>\n")
        for report in [blank, *args.reports]:
            png = args.out / (report.stem + ".png")
            seconds, cpu, peak = draw(browser, report, png)
            size = report.stat().st_size / 1024
            print(f"| {report} | {size:.0f} | {seconds:.1f} | {cpu:.1f} | {peak:.0f} | {png} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
