"""A screenshot of the review page over the sample notes (invented notes), for README:

    python experiments/review_screenshot.py [--out experiments/results/review-page.png]

Prepares a review of ``samples/notes`` with the installed model (``itdeid review --no-serve``
into a temporary folder), serves it on 127.0.0.1, opens it in headless Chromium (Debian's
``chromium`` and ``chromium-driver``, driven by Selenium as the browser test drives them),
clicks the first tag so the chosen-tag outline shows, and saves a PNG. Writes a short
provenance file beside the image (``.md``: command, date, machine, code).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from itdeid.errors import UserError
from itdeid.evaluation.report import header
from itdeid.review.server import ReviewServer
from itdeid.review.store import ReviewStore

from common import publish, run_script

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1100,820", "--hide-scrollbars")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="experiments/results/review-page.png")
    args = p.parse_args(argv)
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        raise UserError("needs Debian's chromium and chromium-driver: apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "review"
        done = subprocess.run([sys.executable, "-m", "itdeid", "review", str(ROOT / "samples" / "notes"),
                               "--corrections", str(folder), "--sample", "3", "--no-serve"],
                              capture_output=True, text=True)
        if done.returncode:
            raise UserError(f"itdeid review failed: {done.stderr.strip()}")
        server = ReviewServer(ReviewStore.open(folder))
        server.start()
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in FLAGS + (f"--user-data-dir={Path(tmp) / 'profile'}",):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
        try:
            driver.get(server.url)
            WebDriverWait(driver, 20).until(lambda d: d.find_elements("css selector", "#text mark"))
            driver.find_elements("css selector", "#text mark")[0].click()
            WebDriverWait(driver, 5).until(lambda d: d.find_elements("css selector", "#text mark.chosen"))
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(args.out)
        finally:
            driver.quit()
            server.shutdown()
            server.server_close()
    publish(header("The review page over the sample notes") + f"- image: `{Path(args.out).name}`\n",
            Path(args.out).with_suffix(".md"))
    return 0


if __name__ == "__main__":
    run_script(main, "review_screenshot.py")
