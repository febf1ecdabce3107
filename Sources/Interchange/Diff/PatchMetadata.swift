/// A patch's metadata as martin's `mbtiles diff` writes it (`copy_metadata` with a diff file, and its `dif` test
/// snapshot): each row NEW adds or changes, with NEW's value; each row NEW dropped, with NULL (applying removes it);
/// shared rows left out. The hash rows are made, never copied: `before_apply` OLD's tiles' hash, `after_apply` NEW's,
/// `agg_tiles_hash` the patch's own rows' (so `mbtiles validate` accepts the file).
enum PatchMetadata {
    static let hash = "agg_tiles_hash"
    static let beforeApply = "agg_tiles_hash_before_apply"
    static let afterApply = "agg_tiles_hash_after_apply"

    /// Whether a file's metadata makes it a patch.
    static func isPatch(_ metadata: [String: String]) -> Bool {
        metadata[beforeApply] != nil || metadata[afterApply] != nil
    }

    /// The rows, by name, the three hashes last.
    static func rows(
        old: [String: String], new: [String: String], before: String, after: String, patch: String
    ) -> [MBTilesWriter.MetadataRow] {
        let made: Set = [hash, beforeApply, afterApply]
        var rows: [MBTilesWriter.MetadataRow] = []
        for name in Set(old.keys).union(new.keys).subtracting(made).sorted() {
            switch (old[name], new[name]) {
            case (let was, let value?) where was != value: rows.append((name, value))
            case (.some, nil): rows.append((name, nil))
            default: break
            }
        }
        return rows + [(beforeApply, before), (afterApply, after), (hash, patch)]
    }
}
