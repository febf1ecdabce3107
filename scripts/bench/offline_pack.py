"""Writes a pack into an offline database that `packfs reset` made, as the generators of the
scale benchmarks need it: the region named "big", its style as a resource, and tile rows stored
as PackFS stores them (zlib, `compressed = 1`). Used by gen_pack.py and gen_coverage_pack.py."""
import json


def insert_pack(db, definition, style_url, style, template, tiles):
    """Inserts the region, its style and the (z, x, y, data) rows of `tiles` under `template`;
    returns the region's id (its memberships are the caller's: one benchmark times them)."""
    region = db.execute("INSERT INTO regions (definition, description) VALUES (?, ?)",
                        (definition, json.dumps({"name": "big"}).encode())).lastrowid
    resource = db.execute(
        "INSERT INTO resources (url, kind, data, compressed, accessed) VALUES (?, 1, ?, 0, 0)",
        (style_url, json.dumps(style).encode())).lastrowid
    db.execute("INSERT INTO region_resources (region_id, resource_id) VALUES (?, ?)", (region, resource))
    db.executemany("INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) "
                   "VALUES (?, 1, ?, ?, ?, ?, 1, 0)", ((template, *row) for row in tiles))
    return region
