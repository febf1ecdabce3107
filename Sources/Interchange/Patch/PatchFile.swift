import Basics
import FoundationEssentials

/// A patch in martin's format: a flat MBTiles file of changed tiles (a NULL `tile_data` deletes one) whose metadata
/// names the tile set's hash before and after. Opened read-only; refused without both hashes or with binary diffs.
public final class PatchFile {
    /// martin's binary-diff tables (`--patch-type bin-diff-raw`, `bin-diff-gz`).
    static let binaryDiffTables = ["bsdiffraw", "bsdiffrawgz"]

    /// The file's name, for messages.
    public let name: String
    /// 32 uppercase hex digits each.
    public let before: String
    public let after: String
    private let reader: MBTilesReader

    /// `name`: how messages call the file (a URL it came from; else the path's last part).
    public init(path: String, name: String? = nil) throws {
        self.name = name ?? URL(fileURLWithPath: path).lastPathComponent
        reader = try MBTilesReader.open(path)
        do {
            let metadata = try reader.metadata()
            let keys = [PatchMetadata.beforeApply, PatchMetadata.afterApply]
            let missing = keys.filter { Self.hash(metadata[$0]) == nil }
            guard missing.isEmpty, let before = Self.hash(metadata[keys[0]]), let after = Self.hash(metadata[keys[1]])
            else { throw PatchError.notAPatch(self.name, missing: missing) }
            let binary = Self.binaryDiffTables.filter(try reader.tableNames().contains)
            guard binary.isEmpty else { throw PatchError.binaryDiff(self.name, tables: binary) }
            self.before = before
            self.after = after
        } catch {
            reader.close()
            throw error
        }
    }

    deinit { reader.close() }

    /// Each row in martin's order (zoom, column, TMS row): the tile's new bytes, or nil to delete it.
    func forEachTile(_ body: (_ z: Int, _ column: Int, _ tmsRow: Int, _ data: Data?) throws -> Void) throws {
        try reader.forEachRow(body)
    }

    /// A hash as martin writes it (any case, spaces around), upper-cased; nil unless it is 32 hex digits.
    static func hash(_ value: String?) -> String? {
        guard let text = value?.trimmedSpaces.uppercased(), text.utf8.count == 32,
            text.utf8.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) })
        else { return nil }
        return text
    }
}
