import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where an estimated size comes from.
public enum ByteBasis: Equatable, Sendable {
    /// The mean of this many tiles (or resources) the database already holds.
    case stored(Int)
    /// The mean of this many fetched from the server for the estimate.
    case sampled(Int)
    /// Between two measured zooms, in log space.
    case interpolated(between: Int, and: Int)
    /// Beyond the last measured zoom: that zoom's mean.
    case extrapolated(from: Int)
    /// Nothing to go by (nothing stored, no samples).
    case unknown
}

/// Mean stored bytes per tile at each zoom of one tile set, from the zooms measured (stored, sampled).
///
/// Zooms between two measured ones are interpolated linearly in log(1 + bytes), since sizes change
/// by roughly constant factors per zoom (the 1 lets an empty zoom anchor the curve). Zooms beyond
/// the measured ones take the nearest one's mean: nothing says which way they go.
struct ZoomSizes {
    struct Measure: Equatable {
        var mean: Double
        var basis: ByteBasis
    }

    /// One entry per zoom of `zooms`: measured, filled in, or nil when no zoom was measured.
    static func fill(_ zooms: ClosedRange<Int>, measured: [Int: Measure]) -> [Measure?] {
        let known = measured.keys.filter(zooms.contains).sorted()
        return zooms.map { z in
            if let measure = measured[z] { return measure }
            let below = known.last { $0 < z }, above = known.first { $0 > z }
            switch (below, above) {
            case let (low?, high?):
                return Measure(mean: interpolate(z, low, mean(low), high, mean(high)), basis: .interpolated(between: low, and: high))
            case let (near?, nil), let (nil, near?):
                return Measure(mean: mean(near), basis: .extrapolated(from: near))
            case (nil, nil):
                return nil
            }
        }

        func mean(_ z: Int) -> Double { measured[z]?.mean ?? 0 }
    }

    static func interpolate(_ z: Int, _ low: Int, _ lowMean: Double, _ high: Int, _ highMean: Double) -> Double {
        let t = Double(z - low) / Double(high - low)
        let logLow = log1p(max(lowMean, 0)), logHigh = log1p(max(highMean, 0))
        return expm1(logLow + t * (logHigh - logLow))
    }
}
