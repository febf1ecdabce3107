import ArgumentParser
import Basics
import PackStore

struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "The ambient cache: rows no pack holds.",
        discussion: """
            size        print the ambient cache's size and limit
            clear       delete every ambient row
            invalidate  mark ambient rows for revalidation
            limit BYTES set the limit (suffixes K, M, G: powers of 1024) and trim to it
            preload URL FILE
                        store FILE's bytes under URL in the ambient cache, as if a renderer
                        had fetched it (MGLOfflineStorage's preloadData), with --expires,
                        --modified, --etag and --must-revalidate as its cache headers
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case size, clear, invalidate, limit, preload
    }

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "size, clear, invalidate, limit or preload.") var action: Action
    @Argument(help: "With limit: the new limit in bytes. With preload: URL and FILE.") var values: [String] = []
    @OptionGroup var preloading: PreloadOptions
    @OptionGroup var output: OutputOptions

    /// With limit: the limit (`validate` refused text that is none).
    var bytes: String? { action == .limit ? values.first : nil }

    func validate() throws {
        switch action {
        case .limit:
            guard values.count == 1, let bytes else { throw ValidationError("cache limit needs BYTES") }
            guard ByteCount.parse(bytes) != nil else {
                throw ValidationError("cache limit: \"\(bytes)\" is not a byte count (e.g. 52428800, 50M)")
            }
        case .preload:
            guard values.count == 2 else { throw ValidationError("cache preload needs URL and FILE") }
            try preloading.validate(url: values[0])
        case .size, .clear, .invalidate:
            guard values.isEmpty else { throw ValidationError("cache \(action.rawValue) takes no arguments") }
        }
        if action != .preload && preloading.isSet {
            throw ValidationError("--expires, --modified, --etag, --must-revalidate, --kind and --disk-quota go with preload")
        }
    }

    func run() throws {
        if action == .size { return try printSize() }
        if action == .preload { return try preload(url: values[0], file: values[1]) }
        let database = try db.openForChange()
        defer { try? database.close() }
        switch action {
        case .clear: report(try database.clearAmbient())
        case .limit:
            guard let limit = bytes.flatMap(ByteCount.parse) else { throw ValidationError("cache limit needs BYTES") }
            report(try database.setAmbientLimit(limit))
        case .invalidate:
            let rows = try database.invalidateAmbient()
            output.json ? printJSON(.object(["invalidated": .number(Double(rows))])) : print("invalidated \(rows) ambient rows")
        case .size, .preload: break
        }
    }

    private func printSize() throws {
        let database = try db.openForReading()
        defer { try? database.close() }
        let limit = try database.ambientLimit()
        guard let usage = try database.ambientUsage() else {
            if output.json {
                printJSON(.object(["bytes": .null, "limit": .number(Double(limit)), "resources": .null, "tiles": .null, "counting": .bool(true)]))
            } else {
                print("ambient cache: \(notCountedYet); limit \(humanBytes(limit)) (\(limit) bytes)")
            }
            return
        }
        if output.json {
            printJSON(.object([
                "bytes": .number(Double(usage.bytes)), "limit": .number(Double(limit)),
                "resources": .number(Double(usage.resources)), "tiles": .number(Double(usage.tiles)),
            ]))
        } else {
            print("ambient cache: \(humanBytes(usage.bytes)) (\(usage.bytes) bytes) in \(usage.resources) resources"
                + " and \(usage.tiles) tiles; limit \(humanBytes(limit)) (\(limit) bytes)")
        }
    }

    func report(_ eviction: EvictionReport) {
        if output.json {
            printJSON(.object([
                "removed_resources": .number(Double(eviction.resources)),
                "removed_tiles": .number(Double(eviction.tiles)), "removed_bytes": .number(Double(eviction.bytes)),
            ]))
        } else {
            print("removed \(eviction.resources) resources and \(eviction.tiles) tiles (\(humanBytes(eviction.bytes)))")
        }
    }
}

/// Byte counts on the command line: digits with an optional K, M or G (powers of 1024).
enum ByteCount {
    static func parse(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = text.uppercased()
        if digits.hasSuffix("IB") { digits.removeLast(2) } else if digits.hasSuffix("B") { digits.removeLast() }
        var scale: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            scale = unit
            digits.removeLast()
        }
        guard let value = Int64(digits), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : product
    }
}
