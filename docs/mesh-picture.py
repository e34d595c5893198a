#!/usr/bin/env python3
"""Draws a binary STL as the README shows it: tilted toward the viewer, lit from the top
left, every facet flat-shaded (so the triangulation's refinement shows on the bevels).

    python3 docs/mesh-picture.py MODEL.stl PICTURE.png [WIDTH]

Needs numpy and Pillow. A plain z-buffer rasterizer at twice the size, box-filtered down.
"""
import struct
import sys

import numpy as np
from PIL import Image


def main():
    path, out = sys.argv[1], sys.argv[2]
    width = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    data = open(path, "rb").read()
    count = struct.unpack("<I", data[80:84])[0]
    records = np.frombuffer(
        data[84:84 + 50 * count],
        dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", 9), ("a", "<u2")]))
    tri = records["v"].reshape(-1, 3, 3).astype(np.float64)
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True) + 1e-12
    # Tilt about x (the far edge away from the viewer), then a little about z.
    tilt, turn = np.radians(-52), np.radians(10)
    rx = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]])
    rz = np.array([[np.cos(turn), -np.sin(turn), 0], [np.sin(turn), np.cos(turn), 0], [0, 0, 1]])
    rotation = rx @ rz
    view = tri @ rotation.T
    facing = (normals @ rotation.T)[:, 2] > 0
    light = np.array([-0.35, 0.25, 0.9])
    light /= np.linalg.norm(light)
    shade = 0.22 + 0.78 * np.clip(normals @ light, 0, 1)
    lo = view.reshape(-1, 3).min(0)
    hi = view.reshape(-1, 3).max(0)
    big = 2 * width
    scale = (big - 40) / (hi[0] - lo[0])
    height = int((hi[1] - lo[1]) * scale) + 40
    screen = np.empty_like(view)
    screen[..., 0] = (view[..., 0] - lo[0]) * scale + 20
    screen[..., 1] = height - ((view[..., 1] - lo[1]) * scale + 20)
    screen[..., 2] = view[..., 2]
    image = np.full((height, big), 1.0)
    depth = np.full((height, big), -np.inf)
    for t in np.nonzero(facing)[0]:
        a, b, c = screen[t]
        x0 = max(0, int(np.floor(min(a[0], b[0], c[0]))))
        x1 = min(big - 1, int(np.ceil(max(a[0], b[0], c[0]))))
        y0 = max(0, int(np.floor(min(a[1], b[1], c[1]))))
        y1 = min(height - 1, int(np.ceil(max(a[1], b[1], c[1]))))
        if x1 < x0 or y1 < y0:
            continue
        xs, ys = np.meshgrid(np.arange(x0, x1 + 1) + 0.5, np.arange(y0, y1 + 1) + 0.5)
        d = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1])
        if abs(d) < 1e-12:
            continue
        l1 = ((b[1] - c[1]) * (xs - c[0]) + (c[0] - b[0]) * (ys - c[1])) / d
        l2 = ((c[1] - a[1]) * (xs - c[0]) + (a[0] - c[0]) * (ys - c[1])) / d
        l3 = 1 - l1 - l2
        inside = (l1 >= 0) & (l2 >= 0) & (l3 >= 0)
        z = l1 * a[2] + l2 * b[2] + l3 * c[2]
        window = depth[y0:y1 + 1, x0:x1 + 1]
        nearer = inside & (z > window)
        window[nearer] = z[nearer]
        image[y0:y1 + 1, x0:x1 + 1][nearer] = shade[t]
    # A warm gray plastic.
    rgb = np.stack([image * 0.92, image * 0.86, image * 0.78], axis=-1)
    rgb[np.isinf(depth)] = 1.0
    small = rgb[: height // 2 * 2, : big].reshape(height // 2, 2, width, 2, 3).mean(axis=(1, 3))
    Image.fromarray((np.clip(small, 0, 1) * 255).round().astype(np.uint8)).save(out)


if __name__ == "__main__":
    main()
