import Foundation

/// A region of the fixture world's bright style, written as a region file for a server.
struct RegionSpec: Hashable, CustomStringConvertible {
    var bounds: [Double]
    var minZoom: Int
    var maxZoom: Int

    /// Central Helsinki to z14: every source of the style (322 resources).
    static let helsinki = RegionSpec(bounds: [24.93, 60.16, 24.96, 60.18], minZoom: 0, maxZoom: 14)
    /// Helsinki to z11 only: a redefinition that drops zooms.
    static let helsinkiLow = RegionSpec(bounds: [24.93, 60.16, 24.96, 60.18], minZoom: 0, maxZoom: 11)
    /// Europe to z4: the land source's tiles there, relief and a few Helsinki tiles.
    static let europe = RegionSpec(bounds: [-25, 34, 45, 71], minZoom: 0, maxZoom: 4)
    /// The whole world to z4: about 650 resources, the large pack removals remove.
    static let world = RegionSpec(bounds: [-180, -85, 180, 85], minZoom: 0, maxZoom: 4)

    func json(base: String) -> String {
        let numbers = bounds.map { "\($0)" }.joined(separator: ", ")
        return """
            {"style": "\(base)/styles/bright.json", "bounds": [\(numbers)], "minzoom": \(minZoom), "maxzoom": \(maxZoom)}
            """
    }

    var description: String { "bounds \(bounds) z\(minZoom)-\(maxZoom)" }
}

/// Counts and durations from the environment: short runs in CI, long ones by script.
enum ReliabilityRun {
    static var isLong: Bool { ProcessInfo.processInfo.environment["PACKFS_LONG"] == "1" }

    /// SIGKILLs per kind: PACKFS_CRASH_KILLS, else 20 in the long run and 2 in the short one.
    static var killsPerKind: Int {
        if let text = ProcessInfo.processInfo.environment["PACKFS_CRASH_KILLS"], let count = Int(text), count > 0 {
            return count
        }
        return isLong ? 20 : 2
    }

    /// The soak's length in seconds: PACKFS_SOAK_SECONDS, else 180 long and 15 short.
    static var soakSeconds: Double {
        if let text = ProcessInfo.processInfo.environment["PACKFS_SOAK_SECONDS"], let seconds = Double(text), seconds > 0 {
            return seconds
        }
        return isLong ? 180 : 15
    }

    /// One line the reliability script collects: `RELIABILITY <name> key=value ...`.
    static func report(_ name: String, _ figures: KeyValuePairs<String, CustomStringConvertible>) {
        let text = figures.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print("RELIABILITY \(name) \(text)")
    }
}
