import PackStore

/// A pack's `glyphs/` tree: a directory per font stack (`FontStacks`), a file for each of the 256 ranges,
/// held or not (the store knows which). The one list for the mount and a directory export.
public struct FontStackFiles: Sendable {
    public struct File: Sendable {
        public var name: String
        public var start: Int
        /// The resource the file holds.
        public var url: String
    }

    /// The stack's directory name.
    public var name: String
    public var files: [File]
}

extension Style {
    /// Every font stack's directory and range files; none without a `glyphs` template.
    public var fontStackFiles: [FontStackFiles] {
        guard let glyphs else { return [] }
        let ranges = GlyphTemplate.ranges(includeIdeographs: true)
        return fontStacks.map { stack in
            FontStackFiles(name: FontStacks.directoryName(of: stack), files: ranges.map {
                FontStackFiles.File(
                    name: GlyphTemplate.fileName(range: $0), start: $0.lowerBound, url: glyphs.url(fontStack: stack, range: $0))
            })
        }
    }
}
