import Basics
import PackStore

/// Why a patch was not applied. Every case leaves the pack as it was: the checks that need its tiles run inside the
/// transaction that would apply it.
public enum PatchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An MBTiles file without martin's patch metadata (`missing`: the rows it lacks).
    case notAPatch(String, missing: [String])
    /// A patch of martin's binary-diff kind, which PackFS does not apply: its tile rows alone would apply half of it.
    case binaryDiff(String, tables: [String])
    /// The pack is not the tile set the patch was made from: `found` is each candidate source's hash now.
    case wrongBase(pack: String, expected: String, found: [SourceHash])
    /// The patched tiles do not hash to `after_apply`: rolled back.
    case wrongResult(pack: String, expected: String, computed: String)
    /// The pack is downloading or refreshing: its tiles are changing under the patch.
    case packBusy(String)
    /// A patch row whose place is no tile of the grid, or whose data is not a blob.
    case damaged(String, detail: String)

    public struct SourceHash: Equatable, Sendable {
        public var source: String
        public var hash: String
    }

    /// Redacted (`Redaction`): a patch's URL may carry a user and password or a token.
    public var description: String { Redaction.text(plainDescription) }

    private var plainDescription: String {
        switch self {
        case .notAPatch(let file, let missing):
            return "\(file) is not a patch: its metadata has no \(missing.joined(separator: " or "))"
                + " (make one with `packfs diff` or martin's `mbtiles diff`)"
        case .binaryDiff(let file, let tables):
            return "\(file) holds binary diffs (\(tables.joined(separator: ", "))), which PackFS does not apply;"
                + " nothing changed (make the patch with `mbtiles diff --patch-type whole` or `packfs diff`)"
        case .wrongBase(let pack, let expected, let found):
            let now = found.map { "\($0.source) \($0.hash)" }.joined(separator: ", ")
            return "pack \"\(pack)\" is not what the patch applies to: it needs agg_tiles_hash \(expected),"
                + " the pack's tiles hash to \(now.isEmpty ? "nothing (no tiled source)" : now); nothing changed"
        case .wrongResult(let pack, let expected, let computed):
            return "pack \"\(pack)\": the patched tiles hash to \(computed), not the patch's"
                + " agg_tiles_hash_after_apply \(expected); rolled back, nothing changed"
        case .packBusy(let pack):
            return "pack \"\(pack)\" is downloading or refreshing: patch it once it is complete or suspended"
        case .damaged(let file, let detail): return "\(file): \(detail); nothing changed"
        }
    }
}
