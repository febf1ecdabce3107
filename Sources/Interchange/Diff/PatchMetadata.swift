/// A patch's metadata as martin's `mbtiles diff` writes it (`copy_metadata` with a diff file,
/// and its `dif` test snapshot): each row NEW has that OLD lacks or holds with another value,
/// with NEW's value; each row OLD has that NEW lacks, with NULL (applying the patch removes it);
/// rows the two share unchanged are left out. The hash rows are made, never copied:
/// - `agg_tiles_hash_before_apply`: OLD's tiles' hash, the one a patch must be applied to;
/// - `agg_tiles_hash_after_apply`: NEW's, the one applying it must give;
/// - `agg_tiles_hash`: the patch's own rows', so that `mbtiles validate` accepts the file.
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
