import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// The files of one pack's directory export, read through the model the mount shows the pack by (`PackStyle`), so the
/// two trees hold the same files.
struct PackTree {
    let pack: Pack
    let database: OfflineDatabase
    let style: PackStyle
    /// URLs in `style.json`: relative to the directory, or under the base URL.
    let styleURLs: StyleRewriter
    /// URLs in `sources/<id>/tiles.json`, two levels down: `../../`, or the base URL.
    let tileJSONURLs: StyleRewriter

    init(pack: Pack, database: OfflineDatabase, style: PackStyle, baseURL: String?) {
        self.pack = pack
        self.database = database
        self.style = style
        styleURLs = StyleRewriter(base: baseURL ?? "")
        tileJSONURLs = StyleRewriter(base: baseURL ?? "../../")
    }

    func write(into files: inout FileTree) throws -> DirectoryExport.Summary {
        var summary = DirectoryExport.Summary()
        if try holdsStyle() {
            try files.write(styleURLs.style(style.style, sources: style.sources), at: ["style.json"])
        }
        for source in style.sources {
            try writeSource(source, into: &files, &summary)
        }
        try writeGlyphs(into: &files)
        try writeSprites(into: &files)
        summary.files = files.files
        summary.bytes = files.bytes
        return summary
    }

    /// As the mount: a synthetic style while it names a source; a stored one while the pack holds it.
    private func holdsStyle() throws -> Bool {
        if style.isSynthetic { return !style.sources.isEmpty }
        return try database.packResourceID(url: style.style.url, in: pack.id) != nil
    }

    /// A tiled source's `tiles.json` and tiles, or a GeoJSON or image source's one file.
    private func writeSource(_ source: PackStyle.Source, into files: inout FileTree, _ summary: inout DirectoryExport.Summary)
        throws
    {
        let directory = ["sources", source.declared.directoryName]
        if let name = source.declared.dataFileName {
            if let url = source.declared.url, let data = try resource(url) { try files.write(data, at: directory + [name]) }
            return
        }
        if let url = source.declared.url {
            if let stored = try resource(url) { try files.write(exportedTileJSON(stored, source), at: directory + ["tiles.json"]) }
        } else {
            try files.write(tileJSONURLs.tileJSON(source), at: directory + ["tiles.json"])
        }
        try writeTiles(source, under: directory, into: &files, &summary)
    }

    /// The stored TileJSON naming the exported tiles (XYZ) instead of the origin's; one the model could not read is
    /// written as stored, as the mount shows it.
    private func exportedTileJSON(_ stored: Data, _ source: PackStyle.Source) -> Data {
        guard source.tiles != nil, var fields = JSONValue.parse(stored)?.object else { return stored }
        fields["tiles"] = .array([.string(tileJSONURLs.tilesTemplate(source))])
        fields["scheme"] = nil
        return Data(JSONValue.object(fields).compactText.utf8)
    }

    private func writeTiles(_ source: PackStyle.Source, under directory: [String], into files: inout FileTree,
        _ summary: inout DirectoryExport.Summary) throws
    {
        guard let columns = source.columns else { return }
        try database.forEachPackTile(columns) { z, x, storedY, data in
            let y = source.row(storedY, z: z)  // wrapping arithmetic: any z flips without a trap
            // The zoom first: at z 63 `1 << z` is negative, and a range up to it traps.
            guard (0...Self.maxZoom).contains(z), (0..<1 << z).contains(x), (0..<1 << z).contains(y) else {
                summary.skippedTiles += 1
                return
            }
            let content: Data?
            do {
                content = try ServedTile.content(of: data)
            } catch {
                throw InterchangeError.undecodable(what: "tile \(z)/\(x)/\(y) of source \(source.id)", pack: pack.name, reason: "\(error)")
            }
            guard let content else { return }
            try files.write(content, at: directory + [String(z), String(x), "\(y).\(source.fileExtension)"])
            summary.tiles += 1
        }
    }

    /// The deepest zoom a tile path names (the mount's inode holds 5 bits of zoom).
    static let maxZoom = 31
}

extension PackTree {
    /// Every glyph range the pack holds, for every font stack of the style.
    private func writeGlyphs(into files: inout FileTree) throws {
        let stacks = style.style.fontStackFiles
        guard !stacks.isEmpty else { return }
        let held = Dictionary(
            try database.packResources(of: .glyphs, in: pack.id).map { ($0.url, $0.id) }, uniquingKeysWith: { a, _ in a })
        for stack in stacks {
            for file in stack.files {
                guard let id = held[file.url], let data = try decoded(database.packResourceData(id, in: pack.id), file.url)
                else { continue }
                try files.write(data, at: ["glyphs", stack.name, file.name])
            }
        }
    }

    /// Each sprite sheet's JSON and PNG at 1x and @2x, those the pack holds.
    private func writeSprites(into files: inout FileTree) throws {
        for file in style.style.sprites.flatMap(\.files) {
            guard let data = try resource(file.url) else { continue }
            try files.write(data, at: ["sprites", file.name])
        }
    }

    /// The content of the pack's resource at `url`; nil when the pack holds none, or holds "no content".
    private func resource(_ url: String) throws -> Data? {
        guard let id = try database.packResourceID(url: url, in: pack.id) else { return nil }
        return try decoded(database.packResourceData(id, in: pack.id), url)
    }

    private func decoded(_ stored: StoredData?, _ url: String) throws -> Data? {
        do {
            return try stored?.decoded()
        } catch {
            throw InterchangeError.undecodable(what: url, pack: pack.name, reason: "\(error)")
        }
    }
}
