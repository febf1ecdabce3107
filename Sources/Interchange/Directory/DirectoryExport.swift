import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// `packfs export DB NAME DIR/`: a pack as static files, laid out as the mount's `packs/<name>/` without the
/// primary source's second view at the root. Tiles raw (no gzip), rows XYZ; `style.json` rewritten by
/// `StyleRewriter` with URLs relative to the directory or under `baseURL`, each `tiles.json` naming the
/// exported tiles. Staged out of sight by `ExportDestination`.
public struct DirectoryExport: PackExport {
    public struct Summary: InterchangeSummary, Equatable {
        /// The pack's name, and the directory as given.
        public var pack = "", path = ""
        public var files = 0
        public var bytes: Int64 = 0
        public var tiles = 0
        /// Rows whose z/x/y lies outside the tile grid: no path names them (the mount skips them too).
        public var skippedTiles = 0

        public var lines: [String] {
            let skipped = skippedTiles > 0 ? " (\(skippedTiles) rows outside the tile grid left out)" : ""
            return ["\(pack) -> \(path): \(tiles) tiles, \(files) files, \(humanBytes(bytes))\(skipped)"]
        }

        public var json: JSONValue {
            .object([
                "pack": .string(pack), "path": .string(path), "files": .number(Double(files)),
                "bytes": .number(Double(bytes)), "tiles": .number(Double(tiles)),
                "skipped_tiles": .number(Double(skippedTiles)),
            ])
        }
    }

    let database: OfflineDatabase
    let pack: Pack
    let baseURL: String?

    /// `baseURL`: absolute http(s) URLs under it instead of relative ones (`/` added when missing); refused otherwise.
    public init(database: OfflineDatabase, pack: Pack, baseURL: String? = nil) throws {
        if let baseURL, let problem = Self.problem(with: baseURL) {
            throw InterchangeError.invalidBaseURL(baseURL, problem: problem)
        }
        self.database = database
        self.pack = pack
        self.baseURL = baseURL
    }

    /// Exports the pack to the directory `path`, which must not exist or be empty.
    public func write(to path: String) throws -> Summary {
        guard let style = try PackStyle.load(pack, from: database) else {
            throw InterchangeError.nothingToExport(pack: pack.name, lacking: "style and no tiles yet")
        }
        let destination = try ExportDestination(path: path)
        let staging = try destination.makeStaging()
        do {
            var files = FileTree(root: staging)
            var summary = try PackTree(pack: pack, database: database, style: style, baseURL: baseURL).write(into: &files)
            try destination.commit(staging)
            (summary.pack, summary.path) = (pack.name, path)
            return summary
        } catch {
            destination.discard(staging)
            throw error
        }
    }

    private static func problem(with baseURL: String) -> String? {
        let scheme = URLString.scheme(of: baseURL)
        guard scheme == "http" || scheme == "https" else { return "must be an absolute http or https URL" }
        if let syntax = URLSyntax.problem(in: baseURL) { return syntax }
        guard !baseURL.contains("?"), !baseURL.contains("#") else {
            return "must not hold a query or fragment (file names are appended to it)"
        }
        return nil
    }
}
