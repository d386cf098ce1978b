#!/usr/bin/env python3
"""svg_margin_check.py PLAN.svg OUT_PREFIX: render PLAN.svg with rsvg-convert on a canvas with a
margin around the picture and fail when anything is drawn in the margin; fail when a link label
(the texts of <g id="link-labels">) is drawn over a cluster box (the rounded rects of <g
class="cluster">): both are rendered alone and their pixels must not meet; also fail unless the
legend names every stage 0 .. pp-1 (pp read from the picture's title line). Reads rsvg-convert's PNG itself (8-bit
RGBA, non-interlaced, as rsvg-convert writes it), so it needs nothing beyond Python."""
import re
import struct
import subprocess
import sys
import zlib

MARGIN = 200


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color == 6 and interlace == 0, "expected 8-bit RGBA, not interlaced"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride, bpp = width * 4, 4
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, rows


def render(svg_text, path):
    open(path + ".svg", "w").write(svg_text)
    r = subprocess.run(["rsvg-convert", "-o", path + ".png", path + ".svg"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("rsvg-convert failed: " + r.stderr.strip())
    return read_png(path + ".png")


def labels_over_boxes(svg, head, out):
    """Pixels where a link label and a cluster box are both drawn, with each label's text."""
    links = re.search(r'<g id="link-labels">(.*?)</g>', svg, re.S)
    labels = re.findall(r"<text[^>]*>[^<]*</text>", links.group(1)) if links else []
    boxes = re.findall(r'<rect [^>]*rx="[^"]*"[^>]*/>', svg)
    if not labels or not boxes:
        return []
    _, _, box_rows = render(head + "".join(boxes) + "</svg>", out + ".boxes")
    hits = []
    for k, label in enumerate(labels):
        width, height, rows = render(head + label + "</svg>", out + ".label%d" % k)
        n = sum(1 for y in range(height) for x in range(width) if rows[y][4 * x + 3] > 64 and box_rows[y][4 * x + 3])
        if n:
            hits.append((re.sub(r"<[^>]*>", "", label), n))
    return hits


def main():
    svg_path, out = sys.argv[1], sys.argv[2]
    svg = open(svg_path).read()
    pp = re.search(r"\bpp=(\d+)", svg)
    if not pp:
        print("# the picture names no pp= degree"); return 1
    stages = int(pp.group(1))
    root = re.search(r'<svg [^>]*width="([\d.]+)" height="([\d.]+)" viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    if not root:
        print("# no <svg width height viewBox='0 0 W H'> root"); return 1
    w, h = float(root.group(1)), float(root.group(2))
    padded = svg.replace(root.group(0), root.group(0).replace(
        'width="%s" height="%s" viewBox="0 0 %s %s"' % root.groups(),
        'width="%g" height="%g" viewBox="%d %d %g %g"' % (w + 2 * MARGIN, h + 2 * MARGIN, -MARGIN, -MARGIN,
                                                         w + 2 * MARGIN, h + 2 * MARGIN)), 1)
    open(out + ".padded.svg", "w").write(padded)
    r = subprocess.run(["rsvg-convert", "-o", out + ".png", out + ".padded.svg"], capture_output=True, text=True)
    if r.returncode != 0:
        print("# rsvg-convert failed: " + r.stderr.strip()); return 1
    width, height, rows = read_png(out + ".png")
    # One pixel of anti-aliasing at the picture's own edge is allowed.
    x0, y0, x1, y1 = MARGIN - 1, MARGIN - 1, MARGIN + w + 1, MARGIN + h + 1
    outside = [(x, y) for y in range(height) for x in range(width)
               if rows[y][4 * x + 3] and not (x0 <= x < x1 and y0 <= y < y1)]
    status = 0
    if outside:
        xs, ys = [p[0] - MARGIN for p in outside], [p[1] - MARGIN for p in outside]
        print("# %d pixels drawn outside the %gx%g picture, from (%d,%d) to (%d,%d)" %
              (len(outside), w, h, min(xs), min(ys), max(xs), max(ys)))
        status = 1
    head = svg[:svg.index(">", svg.index("<svg ")) + 1]
    for text, n in labels_over_boxes(svg, head, out):
        print("# link label '%s' drawn over a cluster box (%d pixels)" % (text, n))
        status = 1
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    missing = [s for s in range(stages) if not any(re.fullmatch(r"stage %d \(\d+ layers?\)" % s, t) for t in texts)]
    if missing:
        print("# legend lacks stages %s" % missing)
        status = 1
    return status


sys.exit(main())
