import PackStore
import StyleModel

/// The resources of an estimate, as it reports them.
public enum ResourceGroup: String, CaseIterable, Sendable {
    case style
    case tileJSON = "tilejson"
    /// GeoJSON sources' `data`.
    case data
    /// Image sources' images.
    case image
    case sprites
    case glyphs
}

/// Each resource a plan needs, with its group and its size class: the resources whose sizes
/// stand in for its own when its own is unknown.
///
/// Size classes. Sprite files by suffix (`.json`, `.png`, `@2x.json`, `@2x.png`). Glyph ranges in
/// two strata, since a font's bytes sit in the ranges of the scripts it draws and the rest are a
/// few dozen bytes: "alphabetic" (U+0000-U+05FF and U+1D00-U+24FF, which map fonts draw) and the
/// others. GeoJSON data and images each form one class.
struct ResourceSizing {
    struct Entry {
        var url: String
        var kind: ResourceKind
        var group: ResourceGroup
        var sizeClass: String
        /// Lower is sampled first within its class.
        var rank: Int
    }

    /// Samples per class at most: two for the alphabetic glyph ranges (Basic Latin and the
    /// punctuation range, the two every font of a map style holds), one for each other class.
    static func sampleCount(of sizeClass: String) -> Int { sizeClass == alphabetic ? 2 : 1 }

    static let alphabetic = "glyphs alphabetic"
    static let otherScripts = "glyphs other"
    /// Range starts sampled first, in the first font stack: U+0000 and U+2000 (alphabetic), U+0600
    /// (other scripts). Ranges differ far more than the stacks of a style do.
    static let preferredRanges = [0x0000, 0x2000, 0x0600]

    var entries: [Entry] = []

    init(style: Style, resources: [StyleResource], includeIdeographs: Bool) {
        let tileJSONs = Set(style.tileSources.compactMap(\.url))
        var special: [String: (sizeClass: String, rank: Int)] = [:]
        for sheet in style.sprites {
            for (index, file) in sheet.files.enumerated() { special[file.url] = ("sprites \(index)", 0) }
        }
        if let glyphs = style.glyphs {
            for (stackIndex, stack) in style.fontStacks.enumerated() {
                for range in GlyphTemplate.ranges(includeIdeographs: includeIdeographs) {
                    let preferred = Self.preferredRanges.firstIndex(of: range.lowerBound) ?? Self.preferredRanges.count
                    special[glyphs.url(fontStack: stack, range: range)] = (
                        Self.isAlphabetic(start: range.lowerBound) ? Self.alphabetic : Self.otherScripts,
                        stackIndex * 10_000 + preferred)
                }
            }
        }
        entries = resources.map { resource in
            let group = Self.group(of: resource, tileJSONs: tileJSONs)
            let (sizeClass, rank) = special[resource.url] ?? (group.rawValue, 0)
            return Entry(url: resource.url, kind: resource.kind, group: group, sizeClass: sizeClass, rank: rank)
        }
    }

    static func group(of resource: StyleResource, tileJSONs: Set<String>) -> ResourceGroup {
        switch resource.kind {
        case .style: return .style
        case .source: return tileJSONs.contains(resource.url) ? .tileJSON : .data
        case .image: return .image
        case .spriteJSON, .spriteImage: return .sprites
        case .glyphs: return .glyphs
        case .unknown, .tile: return .data  // never in a plan's resources
        }
    }

    static func isAlphabetic(start: Int) -> Bool {
        (0x0000...0x0500).contains(start) || (0x1D00...0x2400).contains(start)
    }

    /// Each group's counts and bytes: exact where a size is known (stored, fetched to plan,
    /// sampled), else the mean of the known sizes of its class.
    func tallies(fetched: [String: Int64], stored: [String: Int64], sampled: [String: Int64]) -> [ResourceTally] {
        var classBytes: [String: (count: Int, bytes: Int64)] = [:]
        func known(_ url: String) -> Int64? { stored[url] ?? fetched[url] ?? sampled[url] }
        for entry in entries {
            guard let size = known(entry.url) else { continue }
            classBytes[entry.sizeClass, default: (0, 0)].count += 1
            classBytes[entry.sizeClass, default: (0, 0)].bytes += size
        }
        var tallies = ResourceGroup.allCases.map { ResourceTally(group: $0) }
        for entry in entries {
            guard let index = ResourceGroup.allCases.firstIndex(of: entry.group) else { continue }
            tallies[index].count += 1
            if let size = stored[entry.url] {
                tallies[index].add(size, to: \.stored)
            } else if let size = fetched[entry.url] {
                tallies[index].add(size, to: \.fetched)
            } else if let size = sampled[entry.url] {
                tallies[index].add(size, to: \.sampled)
            } else if let mean = classBytes[entry.sizeClass] {
                tallies[index].add(mean.bytes / Int64(mean.count), to: \.estimated)
            } else {
                tallies[index].unknown += 1
            }
        }
        return tallies.filter { $0.count > 0 }
    }

    /// Up to `sampleCount` URLs of each class with no known size, lowest rank first.
    func samples(known: [String: Int64]) -> [(url: String, kind: ResourceKind)] {
        var byClass: [String: [Entry]] = [:]
        for entry in entries where known[entry.url] == nil { byClass[entry.sizeClass, default: []].append(entry) }
        var classesWithKnown = Set<String>()
        for entry in entries where known[entry.url] != nil { classesWithKnown.insert(entry.sizeClass) }
        return byClass.keys.sorted().filter { !classesWithKnown.contains($0) }.flatMap { sizeClass in
            (byClass[sizeClass] ?? []).sorted { $0.rank < $1.rank }.prefix(Self.sampleCount(of: sizeClass)).map { ($0.url, $0.kind) }
        }
    }
}

/// One group of an estimate's resources: how many, and how their bytes are known.
public struct ResourceTally: Equatable, Sendable {
    public var group: ResourceGroup
    public var count = 0
    /// Sizes known exactly, by where they came from.
    public var fetched = 0
    public var stored = 0
    public var sampled = 0
    /// Sized by the mean of their class's known sizes.
    public var estimated = 0
    /// With nothing to go by (their bytes are not in `bytes`).
    public var unknown = 0
    public var bytes: Int64 = 0

    public init(group: ResourceGroup) { self.group = group }

    mutating func add(_ size: Int64, to counter: WritableKeyPath<ResourceTally, Int>) {
        self[keyPath: counter] += 1
        bytes += size
    }
}
