#!/usr/bin/env python3
"""1x against 4x for analytic shapes given as masks with exact coverage (picture masks: the
relief traces their 0.5 iso-line): a thin ring, a W with acute notches, a disk, a tilted
convex polygon. Radius and depth x4 at 4x; box-filtered down in linear light; PSNR of the
sRGB colors over the ink.

usage: bench/supersample_masks.py [--emboss PATH] [--material NAME] [--camera DISTANCE] [--keep DIR] [SHAPE...]
A picture mask has no text size to scale the material's lengths by: for a material with a
camera (default, chrome, ...) give its distance with --camera, which is set at 1x and x4 at
4x (without it the two renders see the canvas from different distances). Other lengths
(shadow, occlusion, detail) are not scaled: compare such materials with SupersampleTests.
Needs Pillow and NumPy.
"""
import argparse, math, os, subprocess, tempfile
import numpy as np
from PIL import Image

W = [(6.3, 8.2), (26.1, 8.2), (37.4, 60.5), (52.2, 8.2), (68.9, 8.2), (83.6, 60.5), (94.8, 8.2),
     (114.6, 8.2), (93.5, 90.7), (74.1, 90.7), (60.4, 38.1), (46.8, 90.7), (27.4, 90.7)]

def polygon_coverage(poly, width, height):
    """Exact area coverage of a simple polygon per pixel (clipping per pixel)."""
    out = np.zeros((height, width))
    xs = [p[0] for p in poly]; ys = [p[1] for p in poly]
    for y in range(max(0, int(min(ys))), min(height, int(max(ys)) + 1)):
        for x in range(max(0, int(min(xs))), min(width, int(max(xs)) + 1)):
            pts = poly
            for f in (lambda p: p[0] - x, lambda p: x + 1 - p[0], lambda p: p[1] - y, lambda p: y + 1 - p[1]):
                res = []
                for i in range(len(pts)):
                    a, b = pts[i - 1], pts[i]
                    fa, fb = f(a), f(b)
                    if fb >= 0:
                        if fa < 0: t = fa / (fa - fb); res.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
                        res.append(b)
                    elif fa >= 0:
                        t = fa / (fa - fb); res.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
                pts = res
                if not pts: break
            if len(pts) >= 3:
                area = 0
                for i in range(len(pts)):
                    area += pts[i - 1][0] * pts[i][1] - pts[i][0] * pts[i - 1][1]
                out[y, x] = abs(area) / 2
    return out

def sampled(inside, width, height, n):
    ys, xs = np.mgrid[0:height, 0:width]
    acc = np.zeros((height, width))
    for j in range(n):
        for i in range(n):
            acc += inside(xs + (i + 0.5) / n, ys + (j + 0.5) / n)
    return acc / (n * n)

def shape(name, k):
    s = float(k)
    if name == "ring":
        cx, cy, r0, r1 = 32.3 * s, 31.6 * s, 17.2 * s, 23.4 * s
        return sampled(lambda x, y: ((x - cx) ** 2 + (y - cy) ** 2 <= r1 * r1) & ((x - cx) ** 2 + (y - cy) ** 2 >= r0 * r0), 64 * k, 64 * k, 16 if k == 1 else 8), 4
    if name == "disk":
        cx, cy, r = 40.3 * s, 39.6 * s, 30.2 * s
        return sampled(lambda x, y: (x - cx) ** 2 + (y - cy) ** 2 <= r * r, 80 * k, 80 * k, 16 if k == 1 else 8), 10
    if name == "w":
        return polygon_coverage([(x * s, y * s) for x, y in W], 122 * k, 100 * k), 6
    if name == "polygon":
        c, r = 50 * s, 40 * s
        poly = [(c + r * math.cos(math.radians(17 + 360 * i / 7)), c + r * math.sin(math.radians(17 + 360 * i / 7))) for i in range(7)]
        return polygon_coverage(poly, 100 * k, 100 * k), 14
    raise SystemExit("unknown shape " + name)

def lin(c): return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
def enc(c):
    c = np.clip(c, 0, 1); return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--emboss", default=".build/release/emboss")
    p.add_argument("--material", default="default")
    p.add_argument("--profile", default="round")
    p.add_argument("--camera", type=float, default=None,
                   help="the material's camera distance: set at 1x, x4 at 4x")
    p.add_argument("--keep")
    p.add_argument("shapes", nargs="*", default=["ring", "w", "disk", "polygon"])
    a = p.parse_args()
    d = a.keep or tempfile.mkdtemp()
    os.makedirs(d, exist_ok=True)
    for name in a.shapes:
        imgs = {}
        for k in (1, 4):
            cov, radius = shape(name, k)
            path = os.path.join(d, f"{name}-mask{k}.png")
            Image.fromarray(np.round(cov * 65535).astype(np.uint16)).save(path)
            out = os.path.join(d, f"{name}-{k}x.png")
            subprocess.run([a.emboss, "render", "--mask", path, "--mask-mode", "coverage", "--invert-mask",
                            "--padding", "0", "--canvas", f"{cov.shape[1]}x{cov.shape[0]}",
                            "--material", a.material, "--profile", a.profile, "--radius", str(radius * k),
                            "--background", "#050607", "-o", out]
                           + (["--set", f"camera.distance={a.camera * k}"] if a.camera else []),
                           check=True)
            imgs[k] = (np.asarray(Image.open(out).convert("RGB"), dtype=float) / 255, cov)
        one, cov = imgs[1]
        h, w = cov.shape
        down = enc(lin(imgs[4][0]).reshape(h, 4, w, 4, 3).mean(axis=(1, 3)))
        m = cov > 0
        mse = np.mean(((one[m] - down[m]) * 255) ** 2)
        Image.fromarray((down * 255 + 0.5).astype(np.uint8)).save(os.path.join(d, f"{name}-4x-down.png"))
        print(f"{name} ({a.material}, {a.profile}): {10 * math.log10(255 ** 2 / mse):.2f} dB")

if __name__ == "__main__":
    main()
