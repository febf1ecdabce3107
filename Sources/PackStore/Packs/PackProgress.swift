import Basics
/// MapLibre's `OfflineRegionStatus` for one pack, as `progress.json` and `packfs status` show it.
/// Byte counts are stored sizes; `completed_resources` counts tiles too, as MapLibre does.
public struct PackProgress: Equatable, Sendable {
    public var status: PackStatus
    /// What the pack holds; zeros while `counted` is false.
    public var counts: PackCounts
    /// False while the pack's figures are being counted (`Counting`): a database an app filled, until counted once.
    public var counted: Bool
    /// The need estimated at planning (`PackEstimate`); nil before the first plan and for an app's packs.
    public var estimate: JSONValue?
    /// The pack is whole and its hash is being computed in the background (`PendingHashes`).
    public var hashing: Bool

    public init(status: PackStatus, counts: PackCounts?, estimate: JSONValue? = nil, hashing: Bool = false) {
        self.status = status
        self.counts = counts ?? PackCounts()
        counted = counts != nil
        self.estimate = estimate
        self.hashing = hashing
    }

    public var completedResources: Int { counts.resources + counts.tiles }
    public var completedBytes: Int64 { counts.resourceBytes + counts.tileBytes }

    /// For packs with no recorded requirement (made by an app), what is stored is all we know.
    public var requiredResources: Int { max(status.requiredResources, completedResources) }
    public var requiredTiles: Int { max(status.requiredTiles, counts.tiles) }

    /// MapLibre's fields, and `estimate` once recorded. Figures being counted are null, and `counting` says so;
    /// `hashing` is there while a whole pack's hash is being computed.
    public var json: JSONValue {
        func known(_ value: some BinaryInteger) -> JSONValue { counted ? .number(Double(value)) : .null }
        var fields: [String: JSONValue] = [
            "state": .string(status.state.rawValue),
            "completed_resources": known(completedResources),
            "completed_bytes": known(completedBytes),
            "completed_tiles": known(counts.tiles),
            "completed_tile_bytes": known(counts.tileBytes),
            "required_resources": .number(Double(requiredResources)),
            "required_tiles": .number(Double(requiredTiles)),
            "required_resources_is_precise": .bool(status.requiredIsPrecise),
            "error": status.error.map(JSONValue.string) ?? .null,
        ]
        if let estimate { fields["estimate"] = estimate }
        if !counted { fields["counting"] = .bool(true) }
        if hashing { fields["hashing"] = .bool(true) }
        return .object(fields)
    }
}

extension OfflineDatabase {
    public func progress(of region: RegionID) throws -> PackProgress {
        try read { db in
            PackProgress(
                status: try Self.status(of: region, db), counts: try Counting.counts(of: region, db),
                estimate: try Self.estimate(of: region, db), hashing: try Self.hashesPending(of: region, db))
        }
    }
}
