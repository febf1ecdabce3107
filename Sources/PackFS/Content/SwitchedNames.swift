import PackStore

extension OfflineDatabase {
    /// The tag of a row's current version (`RowTag`): 0 unless a switch changed it during this
    /// mount (`switchedRow` reads nothing before one did).
    func rowTag(_ kind: SwitchedKind, _ id: Int64) throws -> RowTag {
        RowTag(version: try switchedRow(kind, id)?.version ?? 0)
    }
}

/// Where a switched row shows, for the kernel to forget the names leading to its old version (`RowTag`).
extension TreeCaches {
    /// `rowTag`, a row that cannot be read taken for one no switch changed.
    func tag(_ kind: SwitchedKind, _ id: Int64) -> RowTag {
        (try? database.rowTag(kind, id)) ?? .initial
    }

    /// A tile's name in each place its tile set shows. A pack whose layout cannot be read names
    /// nothing: its old names then lead to the old version until the kernel's entries time out.
    func forgetNames(of key: TileKey, in region: RegionID, _ batch: inout NotificationBatch) {
        guard let layout = try? layout(of: try database.pack(id: region)) else { return }
        for (ref, source) in Self.sources(showing: key, in: layout) {
            let name = "\(source.row(key.y, z: key.z)).\(source.fileExtension)"
            batch.add(parent: .column(region, ref, z: key.z, x: key.x), name: name)
        }
    }

    /// A resource's name: a sprite file in `sprites/`, a glyph range in `glyphs/<stack>/`.
    func forgetNames(of url: String, in region: RegionID, _ batch: inout NotificationBatch) {
        guard let layout = try? layout(of: try database.pack(id: region)) else { return }
        for file in layout.spriteFiles where file.url == url { batch.add(parent: .pack(region, .sprites), name: file.name) }
        guard layout.fontStacks.contains(where: { $0.files.contains { $0.url == url } }),
            let stacks = try? PackFilesystem.fontStacks(layout, in: database)
        else { return }
        for stack in stacks {
            for range in stack.ranges where range.file.url == url {
                batch.add(parent: .fontStack(region, stack.id), name: range.file.name)
            }
        }
    }
}
