import Foundation

/// martin's MBTiles fixtures (Fixtures/martin/*.sql, SQL dumps), built into files with the
/// `sqlite3` shell as martin's own tests build them, and the hashes martin computes for them
/// (its e2e-tests `mbtiles_diff.rs` and `validate_accepts_zoomed_world_cities` snapshots).
public enum MartinFixtures {
    public static let directory = ProjectPaths.fixtures.appendingPathComponent("martin")

    /// `agg_tiles_hash` as martin computes it from the tiles, by fixture name: mbtiles_diff.rs
    /// (`cache.mbtiles`, a copy of world_cities: "agg_tiles_hash.new"; `applied.mbtiles`, the
    /// modified tiles) and the zoomed_world_cities validate snapshot.
    public static let hashes = [
        "world_cities": "08934F8E3E58DED510920E1DE6F4E78F",
        "world_cities_modified": "72D8C992AF67EC97093B0087933FA160",
        "zoomed_world_cities": "AC15E26A1FCF82FDB6D0E8F43EE37821",
    ]

    /// The `agg_tiles_hash` rows the dumps hold, where they are stale (martin's own copy says
    /// "agg_tiles_hash.old=84792BF4..."): such a file is refused on import unless accepted.
    public static let staleHashes = [
        "world_cities": "84792BF4EE9AEDDC5B1A60E707011FEE",
        "world_cities_modified": "578FB5BD64746C39E3D344662947FD0D",
    ]

    /// Builds fixture `name` as `directory/file` (default `name.mbtiles`) and returns its path.
    public static func build(_ name: String, in directory: TemporaryDirectory, as file: String? = nil) throws -> String {
        let path = directory.path(file ?? "\(name).mbtiles")
        let sql = Self.directory.appendingPathComponent("\(name).sql").path
        let outcome = try Command.run("/bin/sh", ["-c", "sqlite3 \"$1\" < \"$2\"", "sh", path, sql])
        guard outcome.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "sqlite3 \(path) < \(sql): \(outcome.text)"])
        }
        return path
    }
}
