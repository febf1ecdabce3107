#!/usr/bin/env python3
"""Writes the hostile-input corpus (Fixtures/hostile/<kind>/...) and its manifest.json.

Every case is defined once, in a cases_*.py module: the bytes, what is wrong with
them, and the substring the error must hold (usually the field's name). The tests read
manifest.json; this script only has to run again when a case is added or changed:

    python3 Fixtures/hostile/generate.py

Output is deterministic (no clock, no randomness without a fixed seed), so a rerun changes no
committed file unless a case changed. `{base}` in a document stands for the server's base URL:
the unit tests put a fixed address there, the mount tests the test server's (nginx-world.sh
substitutes it in every .json file it serves).
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases_archives  # noqa: E402
import cases_binary  # noqa: E402
import cases_geojson  # noqa: E402
import cases_regions  # noqa: E402
import cases_styles  # noqa: E402

# The kinds, in manifest order; fuzz-findings/ is kept by hand (scripts/fuzz.sh adds to it).
KINDS = ["regions", "styles", "tilejson", "geojson", "sprites", "glyphs", "databases", "names", "archives"]


def main():
    cases = cases_regions.cases() + cases_styles.cases() + cases_geojson.cases() + cases_binary.cases() + cases_archives.cases()
    seen = set()
    for kind in KINDS:
        shutil.rmtree(os.path.join(HERE, kind), ignore_errors=True)
    manifest = []
    for case in cases:
        path = case.pop("file")
        assert path not in seen, "two cases write " + path
        assert path.split("/")[0] in KINDS, "unknown kind in " + path
        seen.add(path)
        content = case.pop("content")
        full = os.path.join(HERE, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as out:
            out.write(content if isinstance(content, bytes) else content.encode("utf-8"))
        manifest.append(dict(file=path, **case))
    with open(os.path.join(HERE, "manifest.json"), "w", encoding="utf-8") as out:
        json.dump({"cases": manifest}, out, indent=1, ensure_ascii=True, sort_keys=True)
        out.write("\n")
    counts = {}
    for entry in manifest:
        counts[entry["kind"]] = counts.get(entry["kind"], 0) + 1
    print(len(manifest), "cases:", ", ".join("%s %d" % item for item in sorted(counts.items())))


if __name__ == "__main__":
    main()
