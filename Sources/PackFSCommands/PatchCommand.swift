import ArgumentParser
import Downloader
import FoundationEssentials
import Interchange
import PackStore

struct PatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patch",
        abstract: "Apply a patch in martin's format (mbtiles diff) to a pack.",
        discussion: """
            PATCH is an MBTiles file of the tiles that changed (a NULL tile deletes one) whose \
            metadata names the agg_tiles_hash it applies to (agg_tiles_hash_before_apply) and the \
            one it gives (agg_tiles_hash_after_apply), as `packfs diff` and martin's `mbtiles diff` \
            write it; or an http(s) URL of one, fetched with the network options. It applies to \
            the pack's tiled source whose tiles hash to before_apply (--source names one), in one \
            transaction checked against after_apply before it commits: refused, nothing changed, \
            when the pack is not the patch's base, the patch's result is not after_apply, or the \
            patch holds binary diffs (bsdiffraw, bsdiffrawgz). Tiles are shared by URL, as in \
            MapLibre: a pack holding a patched tile sees the change too. On a mount, copy the \
            patch to packs/NAME.patch instead.
            """)

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The pack's name.") var name: String
    @Argument(help: "The patch: a file, or an http(s) URL.") var patch: String
    @Option(help: "Patch this tiled source (its id in the pack's style).") var source: String?
    @OptionGroup(title: "Fetching a patch from a URL") var network: NetworkOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let scheme = Self.scheme(of: patch), scheme != "http", scheme != "https" {
            throw ValidationError("\(patch): only http and https URLs are fetched; a patch file is given by its path")
        }
    }

    func run() throws {
        guard Self.scheme(of: patch) != nil else {
            // A file is judged before the database is opened.
            let file = try PatchFile(path: patch)
            return try apply(file, database: try db.openForChange())
        }
        let database = try db.openForChange()
        SpoolFile.removeLeftovers(besideDatabase: database.path)
        let spool = try SpoolFile(besideDatabase: database.path)
        defer { spool.remove() }
        var offset: Int64 = 0
        try RemoteFile.fetch(patch, options: network.downloadOptions) { data in
            try spool.write(data, at: offset)
            offset += Int64(data.count)
        }
        try apply(try PatchFile(path: spool.path, name: patch), database: database)
    }

    private func apply(_ file: PatchFile, database: OfflineDatabase) throws {
        defer { try? database.close() }
        let pack = try database.pack(named: name)
        output.print(try PackPatch(database: database, pack: pack, source: source).apply(file))
    }

    /// The URL scheme PATCH starts with (lower-cased), or nil for a path.
    static func scheme(of text: String) -> String? {
        guard let range = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        return scheme.lowercased()
    }
}
