import Basics
import PackStore

/// What a diff wrote: its tile rows by kind, each side's tile count, the patch's three hashes.
public struct DiffSummary: InterchangeSummary, Equatable {
    public var path: String
    public var changed: Int
    public var added: Int
    public var deleted: Int
    public var oldTiles: Int
    public var newTiles: Int
    /// OLD's tiles' hash: `agg_tiles_hash_before_apply`.
    public var beforeApply: String
    /// NEW's: `agg_tiles_hash_after_apply`.
    public var afterApply: String
    /// The patch's own `agg_tiles_hash`.
    public var hash: String

    public var lines: [String] {
        [
            "\(path): \(changed) changed, \(added) added, \(deleted) deleted (OLD \(oldTiles) tiles, NEW \(newTiles) tiles)",
            "agg_tiles_hash_before_apply \(beforeApply), agg_tiles_hash_after_apply \(afterApply), agg_tiles_hash \(hash)",
        ]
    }

    public var json: JSONValue {
        .object([
            "path": .string(path), "changed": .number(Double(changed)), "added": .number(Double(added)),
            "deleted": .number(Double(deleted)), "old_tiles": .number(Double(oldTiles)),
            "new_tiles": .number(Double(newTiles)), "agg_tiles_hash_before_apply": .string(beforeApply),
            "agg_tiles_hash_after_apply": .string(afterApply), "agg_tiles_hash": .string(hash),
        ])
    }
}
