import Basics
import PackStore

/// The estimate as `packfs estimate --json` prints it and `progress.json` shows it: counts, bytes
/// and what was unknown, then each source zoom by zoom and each resource group, every figure with
/// its basis. A byte figure with any part unknown is null; `known_bytes` sums the known parts.
extension Estimate {
    public var json: JSONValue { json(zoomRows: true) }

    /// What a download records for `progress.json`: per-source totals only when zoom rows would make
    /// it long, since the file is also the `user.packfs.progress` attribute, which Linux caps at 64 KiB.
    var recordedJSON: JSONValue {
        let full = json
        return full.compactText.utf8.count <= Self.recordedLimit ? full : json(zoomRows: false)
    }

    static let recordedLimit = 16_384

    private func json(zoomRows: Bool) -> JSONValue {
        .object([
            "tiles": number(tiles), "resources": number(resources), "required_resources": number(resources + tiles),
            "bytes": figure(bytes, unknown: unknownTiles + unknownResources), "known_bytes": number(bytes),
            "tile_bytes": figure(tileBytes, unknown: unknownTiles),
            "resource_bytes": figure(resourceBytes, unknown: unknownResources),
            "unknown_tiles": number(unknownTiles), "unknown_resources": number(unknownResources),
            "sources": .array(sources.map { $0.json(zoomRows: zoomRows) }),
            "resource_groups": .array(resourceGroups.map(\.json)),
        ])
    }
}

extension Estimate.Source {
    func json(zoomRows: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "url_template": .string(urlTemplate), "tiles": number(tiles),
            "bytes": figure(bytes, unknown: unknownTiles), "known_bytes": number(bytes), "unknown_tiles": number(unknownTiles),
            "minzoom": zooms.map { number($0.lowerBound) } ?? .null,
            "maxzoom": zooms.map { number($0.upperBound) } ?? .null,
        ]
        if zoomRows { fields["zooms"] = .array(perZoom.map(\.json)) }
        return .object(fields)
    }
}

extension Estimate.Zoom {
    var json: JSONValue {
        var fields: [String: JSONValue] = [
            "zoom": number(zoom), "tiles": number(tiles), "bytes": bytes.map(number) ?? .null,
        ]
        fields.merge(basis.json) { _, new in new }
        return .object(fields)
    }
}

extension ByteBasis {
    /// `basis` and what it rests on: `samples`, `between` (interpolated), `from` (extrapolated).
    var json: [String: JSONValue] {
        switch self {
        case .stored(let count): return ["basis": .string("stored"), "samples": number(count)]
        case .sampled(let count): return ["basis": .string("sampled"), "samples": number(count)]
        case .interpolated(let low, let high): return ["basis": .string("interpolated"), "between": .array([number(low), number(high)])]
        case .extrapolated(let zoom): return ["basis": .string("extrapolated"), "from": number(zoom)]
        case .unknown: return ["basis": .string("unknown")]
        }
    }
}

extension ResourceTally {
    var json: JSONValue {
        .object([
            "group": .string(group.rawValue), "count": number(count), "bytes": figure(bytes, unknown: unknown),
            "known_bytes": number(bytes),
            "fetched": number(fetched), "stored": number(stored), "sampled": number(sampled),
            "estimated": number(estimated), "unknown": number(unknown),
        ])
    }
}

private func number<T: BinaryInteger>(_ value: T) -> JSONValue { .number(Double(value)) }

/// `value`, or null when `unknown` rows of unknown size are left out of it.
private func figure(_ value: Int64, unknown: Int) -> JSONValue { unknown > 0 ? .null : number(value) }
