#!/usr/bin/env python3
"""Renders two MapLibre styles at the same views with MapLibre Native (pymgl) and compares the
pictures pixel for pixel.

usage: render_compare.py REFERENCE CANDIDATE OUTDIR [--view NAME:ZOOM:LON:LAT ...]

REFERENCE and CANDIDATE are each a style URL (http://, https://, file://) that MapLibre Native loads
itself, or a path to a style JSON file whose text is handed to MapLibre (URLs inside it are still
fetched by MapLibre). Typically REFERENCE is the origin server's style and CANDIDATE the pack's
style.json in a PackFS mount.

For every view both styles are rendered at 512x512, pixel ratio 1, bearing 0, pitch 0; the RGBA
buffers are written to OUTDIR/<view>-reference.png and OUTDIR/<view>-candidate.png (and, where they
differ, OUTDIR/<view>-diff.png with differing pixels in magenta) and compared exactly. One line per
view reports the number of differing pixels.

Guards against a comparison that proves nothing (two empty renders are equal too):
  - the first view of each style must hold many distinct colours and mostly pixels that are not the
    background colour;
  - the reference style rendered at the first view without its symbol layers must differ from the
    full render by many pixels (so labels and icons, i.e. glyphs and sprites, were really drawn;
    a candidate that lost them then differs from the reference);
  - every view of each style must be more than one colour.

A style that MapLibre cannot finish rendering (a glyph range, the sprite or the style itself failing
to load makes a still render fail) counts as a failed view.

Exit status: 0 when every view is identical and no guard fails; 1 otherwise; 2 on bad usage or when
pymgl cannot be imported. Needs EGL_PLATFORM=surfaceless (set here when absent) on a machine with
Mesa's EGL and DRI drivers (Debian: libegl-mesa0 libgl1-mesa-dri).
"""

import argparse
import json
import os
import struct
import sys
import zlib

os.environ.setdefault("EGL_PLATFORM", "surfaceless")

WIDTH = 512
HEIGHT = 512
RATIO = 1

# name, zoom, longitude, latitude. The first view is the one the guards inspect: the fixture
# README's picture of central Helsinki. Zoom 4 is centred on the middle of the z4 tile 9/4 that
# holds Helsinki, so the 512 px viewport (one 512 px tile wide at zoom 4) shows that tile and, at the
# map's edges, nothing of its neighbours: a pack holds the tiles covering its region, not the
# neighbours, and a view the pack does not cover cannot equal the origin's picture.
DEFAULT_VIEWS = [
    ("z15.5", 15.5, 24.944, 60.171),
    ("z14", 14.0, 24.944, 60.171),
    ("z12", 12.0, 24.944, 60.171),
    ("z4", 4.0, 33.75, 61.606396),
]

# Thresholds of the guards, for a 512x512 picture of the fixture style.
MIN_COLOURS = 200
MIN_NOT_BACKGROUND = 0.30
MIN_SYMBOL_PIXELS = 2000


def parse_view(text):
    try:
        name, zoom, lon, lat = text.split(":")
        return (name, float(zoom), float(lon), float(lat))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not NAME:ZOOM:LON:LAT: {text}")


def load_style(style):
    """What pymgl.Map takes: a URL as it is, a file's JSON text otherwise."""
    if style.startswith(("http://", "https://", "file://")):
        return style
    with open(style, encoding="utf-8") as handle:
        return handle.read()


def style_without_symbols(style):
    """The style's JSON with every symbol layer removed (a URL is fetched first)."""
    if style.startswith(("http://", "https://")):
        import urllib.request
        with urllib.request.urlopen(style) as response:
            text = response.read().decode("utf-8")
    elif style.startswith("file://"):
        with open(style[len("file://"):], encoding="utf-8") as handle:
            text = handle.read()
    else:
        with open(style, encoding="utf-8") as handle:
            text = handle.read()
    document = json.loads(text)
    document["layers"] = [layer for layer in document["layers"] if layer.get("type") != "symbol"]
    return json.dumps(document)


def render(pymgl, style, view):
    """The RGBA bytes (premultiplied as MapLibre reads them back) of `style` at `view`."""
    _, zoom, lon, lat = view
    with pymgl.Map(style, WIDTH, HEIGHT, RATIO, lon, lat, zoom) as rendered:
        rendered.setBearing(0)
        rendered.setPitch(0)
        buffer = rendered.renderBuffer()
    data = bytes(buffer.tobytes())
    if len(data) != WIDTH * HEIGHT * 4:
        raise RuntimeError(f"unexpected buffer size {len(data)} (shape {getattr(buffer, 'shape', None)})")
    return data


def describe(error):
    """pymgl's RuntimeError is often empty; MapLibre Native printed the reason on stderr."""
    return str(error) or "RuntimeError (MapLibre Native's reason is printed above)"


def pixels(data):
    return [data[i:i + 4] for i in range(0, len(data), 4)]


def write_png(path, data, width=WIDTH, height=HEIGHT):
    """An 8-bit RGBA PNG of `data` (no filter, zlib level 6)."""
    stride = width * 4
    raw = b"".join(b"\x00" + data[row * stride:(row + 1) * stride] for row in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    with open(path, "wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6))
                     + chunk(b"IEND", b""))


def differing(a, b):
    return sum(1 for i in range(0, len(a), 4) if a[i:i + 4] != b[i:i + 4])


def diff_image(a, b):
    out = bytearray(len(a))
    for i in range(0, len(a), 4):
        if a[i:i + 4] != b[i:i + 4]:
            out[i:i + 4] = b"\xff\x00\xff\xff"
        else:
            grey = (a[i] + a[i + 1] + a[i + 2]) // 12 + 160
            out[i:i + 4] = bytes((grey, grey, grey, 255))
    return bytes(out)


def content_problems(label, data, detailed, min_colours=MIN_COLOURS, min_drawn=MIN_NOT_BACKGROUND):
    """Why `data` is not a real picture ([] when it is): one colour; and where `detailed`, fewer
    than `min_colours` colours or less than `min_drawn` of its pixels over the background."""
    every = pixels(data)
    colours = {}
    for pixel in every:
        colours[pixel] = colours.get(pixel, 0) + 1
    if len(colours) == 1:
        return [f"{label}: blank (one colour, {every[0].hex()})"]
    if not detailed:
        return []
    problems = []
    if len(colours) < min_colours:
        problems.append(f"{label}: only {len(colours)} distinct colours (want >= {min_colours})")
    # The background colour is the commonest one in a map that has not drawn its layers.
    background = bytes((0xf8, 0xf4, 0xf0, 0xff))
    share = 1 - colours.get(background, 0) / len(every)
    if share < min_drawn:
        problems.append(f"{label}: only {share:.0%} of pixels differ from the background colour #f8f4f0")
    return problems


def compare(outdir, name, a, b):
    """The pixels that differ between `a` and `b`; both written to OUTDIR as <name>-reference.png
    and <name>-candidate.png, and where they differ, <name>-diff.png."""
    write_png(os.path.join(outdir, f"{name}-reference.png"), a)
    write_png(os.path.join(outdir, f"{name}-candidate.png"), b)
    count = differing(a, b)
    if count:
        write_png(os.path.join(outdir, f"{name}-diff.png"), diff_image(a, b))
    return count


def verdict(outdir, failures, views):
    """Prints where the images are and the verdict; the exit status (1 on any failure)."""
    print(f"images in {outdir}")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print(f"OK: {len(views)} views identical")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference")
    parser.add_argument("candidate")
    parser.add_argument("outdir")
    parser.add_argument("--view", action="append", type=parse_view, help="NAME:ZOOM:LON:LAT (repeatable)")
    arguments = parser.parse_args()
    try:
        import pymgl
    except ImportError as error:
        print(f"render_compare: pymgl is not importable: {error}", file=sys.stderr)
        return 2
    views = arguments.view or DEFAULT_VIEWS
    os.makedirs(arguments.outdir, exist_ok=True)
    reference = load_style(arguments.reference)
    candidate = load_style(arguments.candidate)

    failures = []

    def rendered(which, style, view):
        """`style` drawn at `view`, or None after recording why it did not render. MapLibre Native
        fails a still render when a glyph range, the sprite or the style cannot be loaded (its
        message is on stderr): a pack that lost them ends here."""
        try:
            return render(pymgl, style, view)
        except RuntimeError as error:
            failure = f"{view[0]}: the {which} did not render: {describe(error)}"
            failures.append(failure)
            print(failure, flush=True)
            return None

    for index, view in enumerate(views):
        name = view[0]
        a = rendered("reference", reference, view)
        if a is None:
            continue
        b = rendered("candidate", candidate, view)
        if b is None:
            continue
        count = compare(arguments.outdir, name, a, b)
        problems = content_problems(f"{name} reference", a, index == 0) + content_problems(f"{name} candidate", b, index == 0)
        if count:
            failures.append(f"{name}: {count} pixels differ")
        failures += problems
        colours = len(set(pixels(a)))
        print(f"{name} zoom {view[1]:g} centre {view[2]:g},{view[3]:g}: {count} differing pixels of {WIDTH * HEIGHT}"
              f" (reference {colours} colours){'; ' + '; '.join(problems) if problems else ''}", flush=True)
        if index == 0:
            bare = render(pymgl, style_without_symbols(arguments.reference), view)
            write_png(os.path.join(arguments.outdir, f"{name}-reference-nosymbols.png"), bare)
            drawn = differing(a, bare)
            print(f"{name}: symbol layers (labels, icons) account for {drawn} pixels of the reference", flush=True)
            if drawn < MIN_SYMBOL_PIXELS:
                failures.append(f"{name}: labels and icons drew only {drawn} pixels (want >= {MIN_SYMBOL_PIXELS})")

    return verdict(arguments.outdir, failures, views)


if __name__ == "__main__":
    sys.exit(main())
