import ArgumentParser
import FoundationEssentials
import Interchange

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Write the patch that turns one version of a tile set into another (martin's format).",
        usage: """
            packfs diff OLD.mbtiles NEW.mbtiles OUT.mbtiles
            packfs diff --old-pack DB NAME NEW.mbtiles OUT.mbtiles
            packfs diff OLD.mbtiles --new-pack DB NAME OUT.mbtiles
            packfs diff --old-pack DB OLDNAME --new-pack DB NEWNAME OUT.mbtiles
            """,
        discussion: """
            OLD and NEW are MBTiles files, or packs: --old-pack DB makes OLD the name of a pack \
            in the offline database DB, --new-pack DB the same for NEW. A pack counts as the file \
            'packfs export DB NAME x.mbtiles' would write (its tiled source, or the one --source \
            names when it has several), so diffing a pack and diffing its export give the same \
            patch. Both must hold the same kind of tiles (their format).

            OUT is martin's patch (mbtiles diff): an MBTiles file holding only the tiles that \
            differ, changed and added ones with NEW's bytes, deleted ones as rows with NULL \
            tile_data; metadata rows that differ (NULL for a row NEW dropped); \
            agg_tiles_hash_before_apply (OLD's hash), agg_tiles_hash_after_apply (NEW's) and the \
            patch's own agg_tiles_hash, all computed from the tiles (hashes stored in OLD or NEW \
            are not read). packfs patch, martin's mbtiles apply-patch and the SQL in martin's \
            docs apply it. OUT must not exist: it is written under a hidden name beside it and \
            moved into place when complete, so a failure leaves no file. OUT \
            s3://bucket/key.mbtiles: written to a staging directory, then uploaded as packfs \
            export uploads (replacing an object of that key).
            """)

    @Argument(help: "The tile set the patch applies to: an MBTiles file, or with --old-pack DB a pack's name.")
    var old: String
    @Argument(help: "The tile set applying the patch gives: an MBTiles file, or with --new-pack DB a pack's name.")
    var new: String
    @Argument(help: "The patch file to write (it must not exist), or s3://bucket/key.mbtiles to upload.")
    var out: String
    @Option(name: .customLong("old-pack"), help: ArgumentHelp("OLD names a pack in the offline database DB.", valueName: "DB"))
    var oldPack: String?
    @Option(name: .customLong("new-pack"), help: ArgumentHelp("NEW names a pack in the offline database DB.", valueName: "DB"))
    var newPack: String?
    @Option(help: ArgumentHelp(
        "The tiled source of each pack side (its id in the pack's style), for a pack with several.", valueName: "ID"))
    var source: String?
    @OptionGroup(title: "Upload to S3") var objectStorage: ObjectStorageOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if source != nil, oldPack == nil, newPack == nil {
            throw ValidationError("--source applies to a pack side (--old-pack DB, --new-pack DB)")
        }
        if out.lowercased().hasPrefix("s3://"), !out.lowercased().hasSuffix(".mbtiles") {
            throw ValidationError("\(out): a patch is an MBTiles file: name an s3://bucket/key.mbtiles object")
        }
        _ = try objectStorage.upload(for: out, environment: ProcessInfo.processInfo.environment)
    }

    func run() throws {
        let upload = try objectStorage.upload(for: out, environment: ProcessInfo.processInfo.environment)
        let oldSide = try side(old, in: oldPack)
        defer { oldSide.close() }
        let newSide = try side(new, in: newPack)
        defer { newSide.close() }
        let diff = TileDiff(old: oldSide, new: newSide)
        guard let upload else { return output.print(try diff.write(to: out)) }
        output.print(try upload.run { staged in try diff.write(to: staged) })
    }

    /// A file, or the pack `argument` names in `database`.
    private func side(_ argument: String, in database: String?) throws -> any DiffSide {
        guard let database else { return try FileDiffSide(path: argument) }
        return try PackDiffSide(pack: argument, database: database, source: source)
    }
}
