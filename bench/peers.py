#!/usr/bin/env python3
"""Whole-process timings of emboss against its peers, in one run.

Runs each command of each case in turn, round after round (after one warm-up round), and
prints the median wall time, the peak memory (GNU time) and the ratio to emboss. The peers
are ../shared/peers/ (or PEERS=...): ImageMagick 6 and librsvg2-bin from Debian, Pillow
from PyPI, installed by hand, never by emboss's set-up.

    python3 bench/peers.py [--rounds 7] [--cases ABCE]

Two emboss binaries when both are built: `.build/release/emboss` (`swift build -c release`,
Swift's runtime linked dynamically) and `.build-static/release/emboss` (`bash install.sh
--static-swift-stdlib`, as the release archive ships it: the runtime inside the binary, so
no dynamic linking of it at start-up). Each peer's ratio is given to both.

Cases: A "Hello, World" 128 px in 1000x200, B "EMBOSS" 512 px in 2600x700, C "Ag" 1200 px
in 4096x4096 (all with --canvas, ink centred, as the peers' scripts do), E engraving case
C's picture to a 1-bit bitmap (emboss threshold and floyd-steinberg against ImageMagick's
threshold and Floyd-Steinberg).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMBOSS = os.path.join(ROOT, ".build/release/emboss")
STATIC = os.path.join(ROOT, ".build-static/release/emboss")
PEERS = os.environ.get("PEERS", os.path.join(ROOT, "../shared/peers"))

CASES = {
    "A": ("Hello, World", "128", "1000x200"),
    "B": ("EMBOSS", "512", "2600x700"),
    "C": ("Ag", "1200", "4096x4096"),
}


def commands(case, out):
    if case == "E":
        picture = os.path.join(out, "C-emboss.png")
        return {
            "emboss threshold": [EMBOSS, "engrave", picture, "-o", f"{out}/e1.png"],
            **({"emboss static threshold": [STATIC, "engrave", picture, "-o", f"{out}/e5.png"]}
               if os.path.exists(STATIC) else {}),
            "emboss floyd-steinberg": [
                EMBOSS, "engrave", picture, "--dither", "floyd-steinberg", "-o", f"{out}/e2.png"],
            "imagemagick threshold": [
                "bash", f"{PEERS}/imagemagick-engrave.sh", picture, f"{out}/e3.png", "50",
                "threshold"],
            "imagemagick fs": [
                "bash", f"{PEERS}/imagemagick-engrave.sh", picture, f"{out}/e4.png", "50", "fs"],
        }
    text, size, canvas = CASES[case]
    return {
        "emboss": [EMBOSS, "render", text, "--size", size, "--canvas", canvas,
                   "-o", f"{out}/{case}-emboss.png"],
        **({"emboss static": [STATIC, "render", text, "--size", size, "--canvas", canvas,
                              "-o", f"{out}/{case}-static.png"]}
           if os.path.exists(STATIC) else {}),
        "rsvg": ["bash", f"{PEERS}/rsvg.sh", text, f"{out}/{case}-rsvg.png", size, canvas],
        "imagemagick": ["bash", f"{PEERS}/imagemagick.sh", text, f"{out}/{case}-im.png", size,
                        canvas],
    }


def timed(command):
    """Wall seconds and peak resident KiB (GNU time) of one run."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], capture_output=True,
                            text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    return wall, int(result.stderr.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cases", default="ABCE")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        if "E" in args.cases:  # the picture to engrave
            timed(commands("C", out)["emboss"])
        for case in args.cases:
            runs = commands(case, out)
            for command in runs.values():  # warm-up
                timed(command)
            times = {name: [] for name in runs}
            memory = {name: 0 for name in runs}
            for _ in range(args.rounds):
                for name, command in runs.items():
                    wall, peak = timed(command)
                    times[name].append(wall)
                    memory[name] = max(memory[name], peak)
            names = list(runs)
            base = statistics.median(times[names[0]])
            static = [n for n in names if "static" in n]
            static_base = statistics.median(times[static[0]]) if static else None
            print(f"case {case} ({args.rounds} rounds, alternating):")
            for name in runs:
                median = statistics.median(times[name])
                ratio = f"  x{median / base:5.2f}"
                if static_base:
                    ratio += f"  x{median / static_base:5.2f} of static"
                print(f"  {name:24} median {median * 1000:8.1f} ms  min "
                      f"{min(times[name]) * 1000:8.1f} ms  peak {memory[name] / 1024:7.1f} MiB"
                      + ratio)


if __name__ == "__main__":
    main()
