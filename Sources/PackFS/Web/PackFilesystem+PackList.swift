import Basics
import FoundationEssentials
import PackStore

/// The root's web files (`--web-base`): `packs.json`, which the page polls, and the page's (`WebPage`).
extension PackFilesystem {
    static let packListName = "packs.json"

    /// The root's children beyond `status.json` and `packs/`: none without a web base.
    func webChildren() -> [Child] {
        guard webBase != nil else { return [] }
        let page = webPage?.files.enumerated().map { index, file in
            (name: file.name, node: Node.webFile(UInt32(index)), cookie: Int64(6 + index))
        }
        return [(Self.packListName, .packList, 5)] + (page ?? [])
    }

    /// The root's web file called `name`, if the mount shows one.
    func webChild(named name: String) -> Node? {
        guard webBase != nil else { return nil }
        if name == Self.packListName { return .packList }
        return webPage?.index(of: name).map { .webFile(UInt32($0)) }
    }

    /// The page's file number `index` (`.stale`: the page has no such file).
    func pageFile(_ index: UInt32) throws -> WebPage.File {
        guard let files = webPage?.files, Int(index) < files.count else { throw FilesystemError.stale }
        return files[Int(index)]
    }

    /// `packs.json`: per pack, its `progress.json` fields but the estimate, its `name`, `bounds` and
    /// `web_style` (null while an app's database is being counted). The work grows with the number
    /// of packs, never their tiles: the list, states, counts and layouts are cached ones.
    func packListJSON() throws -> Data {
        var entries: [JSONValue] = []
        // Left out, as in the listing of packs/.
        for pack in try database.packs() where (0...InodeCodec.maxRegion).contains(pack.id.rawValue) {
            let progress = try database.progress(of: pack.id)
            var fields = progress.json.object ?? [:]
            // A few kilobytes a pack, for a page polling every second: progress.json has it.
            fields["estimate"] = nil
            fields["name"] = .string(pack.name)
            fields["bounds"] = Self.bounds(of: pack).map { .array($0.map(JSONValue.number)) } ?? .null
            fields["web_style"] = progress.counted ? .bool(try holdsStyle(try caches.layout(of: pack))) : .null
            entries.append(.object(fields))
        }
        return Data((JSONValue.object(["packs": .array(entries)]).compactText + "\n").utf8)
    }

    /// `[west, south, east, north]` of the pack's region: its bounds, or its geometry's.
    static func bounds(of pack: Pack) -> [Double]? {
        switch pack.definition?.area {
        case .bounds(let box)?: return [box.west, box.south, box.east, box.north]
        case .geometry(let geometry)?: return geometry.bounds.map { [$0.west, $0.south, $0.east, $0.north] }
        case nil: return nil
        }
    }
}
