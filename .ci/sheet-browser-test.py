#!/usr/bin/env python3
"""A batch's gang sheet in a real browser: headless Chromium opens the sheet SVG and must
draw it at the bed's size in millimeters (96 CSS pixels per inch), with every row's
engraving image loaded and drawn where its cut line is.

usage: sheet-browser-test.py EMBOSS_BINARY [--screenshot PNG]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def fail(message):
    print(f"sheet browser test: FAILED: {message}")
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("emboss")
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="emboss-sheet-")
    try:
        rows = os.path.join(work, "names.csv")
        with open(rows, "w", encoding="utf-8") as f:
            f.write("text\nAda\nGrace\nLinus\nKen\nBarbara\nEdsger\n")
        run = subprocess.run(
            [args.emboss, "batch", rows, "--name", os.path.join(work, "out/{row}.png"),
             "--svg", os.path.join(work, "out/{row}.svg"), "--height", "8mm", "--dpi", "200",
             "--sheet", "100x60mm", "--gap", "4mm", "--sheet-name", os.path.join(work, "sheets/sheet-{sheet:03}.svg"),
             "--quiet"], capture_output=True, text=True)
        if run.returncode != 0:
            fail(f"emboss batch exited {run.returncode}: {run.stderr}")
        sheet = os.path.join(work, "sheets", "sheet-001.svg")
        if not os.path.exists(sheet):
            fail("no sheet written: " + str(os.listdir(work)))
        manifest = [json.loads(line) for line in open(rows + ".manifest.jsonl", encoding="utf-8")]
        placed = [m for m in manifest if m.get("sheet") == 1]
        if not placed:
            fail("the manifest places no row on sheet 1")

        options = webdriver.ChromeOptions()
        options.add_argument("--headless=new")
        options.add_argument("--no-sandbox")
        options.add_argument("--disable-dev-shm-usage")
        options.add_argument("--allow-file-access-from-files")
        options.add_argument("--window-size=800,600")
        for binary in ["/usr/bin/chromium", "/usr/bin/chromium-browser"]:
            if os.path.exists(binary):
                options.binary_location = binary
        driver = webdriver.Chrome(
            service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        driver.set_script_timeout(60)
        try:
            driver.get("file://" + sheet)
            size = driver.execute_script(
                "const r = document.documentElement.getBoundingClientRect(); return [r.width, r.height]")
            expected = [100 / 25.4 * 96, 60 / 25.4 * 96]
            if any(abs(a - b) > 0.5 for a, b in zip(size, expected)):
                fail(f"the sheet is drawn at {size} CSS px; 100 x 60 mm is {expected}")
            # Every engraving image loads: drawn into a canvas, each must have ink.
            report = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const images = [...document.querySelectorAll('image')];
                Promise.all(images.map((node) => new Promise((resolve) => {
                  const href = node.getAttribute('href') || node.getAttribute('xlink:href');
                  const img = document.createElementNS('http://www.w3.org/1999/xhtml', 'img');
                  img.onload = () => {
                    const c = document.createElementNS('http://www.w3.org/1999/xhtml', 'canvas');
                    c.width = img.naturalWidth; c.height = img.naturalHeight;
                    const g = c.getContext('2d');
                    g.drawImage(img, 0, 0);
                    let ink = 0;
                    try {
                      const d = g.getImageData(0, 0, c.width, c.height).data;
                      for (let i = 0; i < d.length; i += 4) if (d[i] < 128) ink++;
                    } catch (e) { ink = -1; }
                    const box = node.getBoundingClientRect();
                    resolve({href, ok: true, ink, w: box.width, h: box.height});
                  };
                  img.onerror = () => resolve({href, ok: false});
                  img.src = new URL(href, document.baseURI).href;
                }))).then(done);
            """)
            if len(report) != len(placed):
                fail(f"{len(report)} images on the sheet for {len(placed)} rows")
            for image in report:
                if not image["ok"]:
                    fail(f"an engraving does not load in the browser: {image['href']}")
                if image["w"] <= 0 or image["h"] <= 0:
                    fail(f"an engraving is drawn with no size: {image}")
                if image["ink"] == 0:
                    fail("an engraving loaded with no ink in it")
            if args.screenshot:
                driver.save_screenshot(args.screenshot)
        finally:
            driver.quit()
        print(f"sheet browser test: passed (100 x 60 mm drawn at {size[0]:.1f} x {size[1]:.1f} CSS px, "
              f"{len(report)} engravings loaded)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
