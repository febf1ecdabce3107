// FuzzBodies: what each libFuzzer target does with one input, as a library, so that the fuzz
// executables (Tests/Fuzz/Targets, built only with PACKFS_FUZZ=1 by scripts/fuzz.sh) and the
// unit tests that replay every finding (Fixtures/hostile/fuzz-findings/<target>/) run the same
// code. Only public API is used: a body sees PackFS as the daemon's callers do.
//
// A body returns for any input PackFS handles (an error is a handled input); it throws
// `FuzzBodies.Failure` when an invariant breaks (a value that does not read back, a listing whose
// names do not look up), and a trap is a crash. The executables turn a `Failure` into a trap, so
// libFuzzer keeps the input either way.
import Foundation

public enum FuzzBodies {
    /// The targets, by the name their executable, corpus and findings directory carry.
    public enum Target: String, CaseIterable, Sendable {
        case region, style, tilejson, geojson, regiontext, database, pmtiles
    }

    /// A broken invariant, in words.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `target`'s body on `data`.
    public static func run(_ target: Target, _ data: Data) throws {
        switch target {
        case .region: try regionFile(data)
        case .style: try style(data)
        case .tilejson: try tileJSON(data)
        case .geojson: try geoJSON(data)
        case .regiontext: try regionText(data)
        case .database: try database(data)
        case .pmtiles:
            try archive(data)
            try remoteArchive(data)
        }
    }

    /// For the executables: runs the body and traps on a broken invariant, naming it.
    public static func fuzz(_ target: Target, _ bytes: UnsafePointer<UInt8>?, _ count: Int) {
        do {
            try run(target, bytes.map { Data(bytes: $0, count: count) } ?? Data())
        } catch {
            fatalError("\(target.rawValue): \(error)")
        }
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(description: message()) }
    }

    /// Where the documents of the bodies claim to come from (nothing is fetched).
    static let styleURL = "http://127.0.0.1:9/styles/fuzz.json"
    static let tileJSONURL = "http://127.0.0.1:9/tiles/fuzz.json"

    /// A private directory for the bodies that need files, made once per process.
    static let scratch: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("packfs-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
}
