#!/usr/bin/env python3
"""Flat faces: a linear bevel on a tilted convex heptagon (a mask with exact coverage) is a
set of planes, so each face must come out one colour. Prints, per material and direction,
the largest spread (max - min over the face, any channel, 8-bit levels) of any face, over
pixels more than 1.5 px from the polygon's edge, from every mitre and from the plateau.
The position-dependent terms that put an intended gradient across a flat face (a camera at a
finite distance, waviness) and the shading laid over it (shadows, occlusion) are turned off:
what is measured is the relief's geometry.

usage: bench/flat_faces.py [--emboss PATH] [MATERIAL...]      Needs Pillow and NumPy.
"""
import argparse, math, os, subprocess, sys, tempfile
import numpy as np
from PIL import Image
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from supersample_masks import polygon_coverage

p = argparse.ArgumentParser()
p.add_argument("--emboss", default=".build/release/emboss")
p.add_argument("materials", nargs="*", default=["default", "chrome", "gold", "mercury"])
a = p.parse_args()
d = tempfile.mkdtemp()
MITRE = float(os.environ.get("MITRE", "1.5"))
c, r, radius = 50, 40, 14
poly = [(c + r * math.cos(math.radians(17 + 360 * i / 7)), c + r * math.sin(math.radians(17 + 360 * i / 7))) for i in range(7)]
cov = polygon_coverage(poly, 100, 100)
mask = os.path.join(d, "mask.png")
Image.fromarray(np.round(cov * 65535).astype(np.uint16)).save(mask)
ys, xs = np.mgrid[0:100, 0:100] + 0.5
dist = []
for i in range(7):
    (ax, ay), (bx, by) = poly[i], poly[(i + 1) % 7]
    L = math.hypot(bx - ax, by - ay); ux, uy = (bx - ax) / L, (by - ay) / L
    dist.append(np.abs(ux * (ys - ay) - uy * (xs - ax)))
dist = np.stack(dist)
order = np.sort(dist, axis=0)
face = np.argmin(dist, axis=0)
ok = (cov >= 1) & (order[0] > 1.5) & (order[0] < radius - 1.5) & (order[1] - order[0] > MITRE)
for material in a.materials:
    for direction in ("raised", "lowered"):
        out = os.path.join(d, f"{material}-{direction}.png")
        subprocess.run([a.emboss, "render", "--mask", mask, "--mask-mode", "coverage", "--invert-mask",
                        "--padding", "0", "--canvas", "100x100", "--material", material, "--profile", "linear",
                        "--radius", str(radius), "--direction", direction,
                        "--set", "camera.distance=0", "--set", "detail.waviness=0", "--set", "shadow.opacity=0",
                        "--set", "occlusion.strength=0", "-o", out], check=True)
        img = np.asarray(Image.open(out).convert("RGB")).astype(int)
        worst = 0
        for f in range(7):
            px = img[ok & (face == f)]
            worst = max(worst, int((px.max(axis=0) - px.min(axis=0)).max()))
        print(f"{material} {direction}: largest spread on a face {worst} levels")
