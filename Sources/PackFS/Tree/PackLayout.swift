import FoundationEssentials
import PackStore
import StyleModel

/// What a pack's style (`PackStyle`, read as the downloader read it, or synthetic) says about its tree: sources with
/// their tiles, the primary, glyph and sprite files. A source whose TileJSON is not stored yet has no tiles to show.
/// A class, never changed once made: every request of a pack shares one (`PackView`), and a struct of these
/// fields cost each request a retain and release of every string and array in them, on counts all the FUSE
/// threads touch.
final class PackLayout: Sendable {
    typealias Source = PackStyle.Source

    typealias FontStack = FontStackFiles
    typealias GlyphFile = FontStackFiles.File

    let pack: Pack
    let style: Style?
    /// True when `style` was made from the pack's tiles (it has no usable stored style).
    let isSynthetic: Bool
    let sources: [Source]
    /// Index in `sources` of the primary source (`PackStyle.primary`).
    let primary: Int?
    let fontStacks: [FontStack]
    let spriteFiles: [SpriteSheet.File]

    init(pack: Pack, style: Style? = nil, isSynthetic: Bool = false, sources: [Source] = [], primary: Int? = nil,
         fontStacks: [FontStack] = [], spriteFiles: [SpriteSheet.File] = []) {
        self.pack = pack
        self.style = style
        self.isSynthetic = isSynthetic
        self.sources = sources
        self.primary = primary
        self.fontStacks = fontStacks
        self.spriteFiles = spriteFiles
    }

    static func load(_ pack: Pack, from database: OfflineDatabase) throws -> PackLayout {
        guard let packStyle = try PackStyle.load(pack, from: database) else { return PackLayout(pack: pack) }
        let style = packStyle.style
        return PackLayout(
            pack: pack, style: style, isSynthetic: packStyle.isSynthetic, sources: packStyle.sources,
            primary: packStyle.primary, fontStacks: style.fontStackFiles, spriteFiles: style.sprites.flatMap(\.files))
    }

    /// The source at `ref.index` (a primary view only for the primary, and only while its tiles are known).
    func source(_ ref: SourceRef) -> Source? {
        holds(ref) ? sources[ref.index] : nil
    }

    /// Whether `source(ref)` is there, without a copy of it.
    func holds(_ ref: SourceRef) -> Bool {
        sources.indices.contains(ref.index) && (!ref.primary || ref.index == primary)
    }

    /// The stored key of the file `name` (`<y>.<ext>`) in column z/x of source `index`, or nil when no tile
    /// has that name (XYZ row in, stored row out). Read in place, field by field: a copy of the source, or of
    /// its `TileSource`, retains each string in it, on counts every FUSE thread shares, and every cold tile's
    /// lookup asks.
    func tileKey(atSource index: Int, named name: String, z: Int, x: Int) -> TileKey? {
        let inPlace = name.utf8.withContiguousStorageIfAvailable { tileKey(atSource: index, named: $0, z: z, x: x) }
        return inPlace ?? Array(name.utf8).withUnsafeBufferPointer { tileKey(atSource: index, named: $0, z: z, x: x) }
    }

    /// As `tileKey(atSource:named:z:x:)`, of a name's bytes (the kernel's, for `PackFilesystem.quickLookup`).
    func tileKey(atSource index: Int, named name: UnsafeBufferPointer<UInt8>, z: Int, x: Int) -> TileKey? {
        guard sources.indices.contains(index), let y = Self.row(named: name, extension: sources[index].fileExtension),
            y < 1 << z, let pixelRatio = sources[index].columns?.pixelRatio, let scheme = sources[index].tiles?.scheme,
            let template = sources[index].tiles?.urlTemplate
        else { return nil }
        return TileSource.key(urlTemplate: template, scheme: scheme, z: z, x: x, y: y, keyPixelRatio: pixelRatio)
    }

    /// The y of a tile file `name` (`<y>.<ext>`) whose extension is `ext`, or nil.
    static func row(named bytes: UnsafeBufferPointer<UInt8>, extension ext: String) -> Int? {
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let suffix = bytes[(dot + 1)...]
        let matches = ext.utf8.withContiguousStorageIfAvailable { suffix.elementsEqual($0) } ?? suffix.elementsEqual(ext.utf8)
        return matches ? PackFilesystem.coordinate(bytes[..<dot]) : nil
    }

    /// The primary source (its tiles are at the pack's top), if the pack has one.
    var primarySource: Source? { primary.flatMap { sources.indices.contains($0) ? sources[$0] : nil } }
}
