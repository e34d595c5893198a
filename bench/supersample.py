#!/usr/bin/env python3
"""1x against 4x (size, radius and depth x4, box-filtered down in linear light): PSNR in dB
of the sRGB colors over the ink, as the relief's quality targets state it.

usage: bench/supersample.py [--emboss PATH] [--keep DIR] [--length KEY=PIXELS ...] TEXT MATERIAL SIZE RADIUS [extra render args...]

A `--set` value is taken as given (it does not scale with the text), so a length set by hand
goes through `--length`: KEY=PIXELS at 1x, KEY=4*PIXELS at 4x.
Needs Pillow and NumPy (pip install pillow numpy).
"""
import argparse, os, subprocess, sys, tempfile
import numpy as np
from PIL import Image

def srgb_to_linear(c):
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)

def linear_to_srgb(c):
    c = np.clip(c, 0, 1)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--emboss", default=".build/release/emboss")
    p.add_argument("--keep")
    p.add_argument("--canvas", default=None, help="1x canvas WxH (default: measured from a 1x render)")
    p.add_argument("--length", action="append", default=[], metavar="KEY=PIXELS",
                   help="a length key set by hand, scaled x4 for the 4x render")
    p.add_argument("text"); p.add_argument("material"); p.add_argument("size", type=float)
    p.add_argument("radius", type=float); p.add_argument("extra", nargs="*")
    a = p.parse_args()
    d = a.keep or tempfile.mkdtemp()
    os.makedirs(d, exist_ok=True)
    def render(scale, out, canvas, stages=None):
        cmd = [a.emboss, "render", a.text, "--material", a.material, "--size", str(a.size * scale),
               "--radius", str(a.radius * scale), "--background", "#101418", "-o", out] + a.extra
        for setting in a.length:
            key, value = setting.split("=", 1)
            cmd += ["--set", f"{key}={float(value) * scale:g}"]
        if canvas: cmd += ["--canvas", canvas]
        if stages: cmd += ["--save-stages", stages]
        subprocess.run(cmd, check=True)
    if a.canvas:
        w, h = map(int, a.canvas.split("x"))
    else:
        render(1, os.path.join(d, "probe.png"), None)
        w, h = Image.open(os.path.join(d, "probe.png")).size
    render(1, os.path.join(d, "1x.png"), f"{w}x{h}", os.path.join(d, "stages"))
    render(4, os.path.join(d, "4x.png"), f"{4*w}x{4*h}")
    one = srgb_to_linear(np.asarray(Image.open(os.path.join(d, "1x.png")).convert("RGB"), dtype=np.float64) / 255)
    four = srgb_to_linear(np.asarray(Image.open(os.path.join(d, "4x.png")).convert("RGB"), dtype=np.float64) / 255)
    down = four.reshape(h, 4, w, 4, 3).mean(axis=(1, 3))
    mask = np.asarray(Image.open(os.path.join(d, "stages", "mask.png")).convert("L")) > 0
    x = linear_to_srgb(one)[mask] * 255
    y = linear_to_srgb(down)[mask] * 255
    mse = np.mean((x - y) ** 2)
    db = float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)
    Image.fromarray((linear_to_srgb(down) * 255 + 0.5).astype(np.uint8)).save(os.path.join(d, "4x-down.png"))
    err = np.abs(linear_to_srgb(one) - linear_to_srgb(down)).max(axis=2) * 255
    Image.fromarray(np.clip(err * 8, 0, 255).astype(np.uint8)).save(os.path.join(d, "diff8.png"))
    print(f"{a.text!r} {a.material} size {a.size} radius {a.radius} {' '.join(a.extra + a.length)}: {db:.2f} dB over {mask.sum()} ink pixels")

main()
