import Basics
import PackStore

/// Which tiles to fetch to measure tile sizes the database lacks: `budget` in all, over every tile set.
///
/// Per tile set, in order: the deepest zoom (about three quarters of the tiles, so it weighs
/// most), the shallowest, a second tile at the deepest, then the middle of the widest stretch of
/// zooms not yet measured (by a sample or the database). Tile sets take turns, the largest first,
/// so every set gets a sample before any gets a second.
enum TileSampling {
    /// Where in a zoom's cover a sample is taken.
    enum Spot: Equatable, Sendable {
        /// The cover's centre tile.
        case centre
        /// Halfway from the centre to the cover's north-west corner: near the centre, not on it.
        case near
    }

    struct Pick: Equatable, Sendable {
        /// Index of the tile set.
        var set: Int
        var zoom: Int
        var spot: Spot
    }

    /// What the choice needs to know of one tile set.
    struct SetShape {
        var zooms: ClosedRange<Int>
        /// Zooms already measured (from the database).
        var measured: Set<Int>
        var tiles: Int
        /// Tiles at the deepest zoom (a second sample there needs two).
        var deepestTiles: Int
    }

    static func picks(_ sets: [SetShape], budget: Int) -> [Pick] {
        var pickers = sets.map(ZoomPicker.init)
        let order = sets.indices.sorted { sets[$0].tiles > sets[$1].tiles }
        var picks: [Pick] = []
        var active = Set(order)
        while picks.count < budget, !active.isEmpty {
            for set in order where active.contains(set) && picks.count < budget {
                if let (zoom, spot) = pickers[set].next() {
                    picks.append(Pick(set: set, zoom: zoom, spot: spot))
                } else {
                    active.remove(set)
                }
            }
        }
        return picks
    }

    /// The `n`th column (from 0) of ascending runs; the last one when `n` is past the end.
    static func column(_ n: Int, of runs: [ClosedRange<Int>]) -> Int {
        var rest = n
        for run in runs {
            if rest < run.count { return run.lowerBound + rest }
            rest -= run.count
        }
        return runs.last?.upperBound ?? 0
    }

    /// The sample zooms of one tile set, one at a time, in the order described above.
    struct ZoomPicker {
        let zooms: ClosedRange<Int>
        var anchors: Set<Int>
        let deepestHasTwo: Bool
        var sampledDeepest = false
        var tookNear = false

        init(_ shape: SetShape) {
            zooms = shape.zooms
            anchors = shape.measured.filter(shape.zooms.contains)
            deepestHasTwo = shape.deepestTiles > 1
        }

        mutating func next() -> (Int, Spot)? {
            if anchors.insert(zooms.upperBound).inserted {
                sampledDeepest = true
                return (zooms.upperBound, .centre)
            }
            if anchors.insert(zooms.lowerBound).inserted { return (zooms.lowerBound, .centre) }
            if sampledDeepest, deepestHasTwo, !tookNear {
                tookNear = true
                return (zooms.upperBound, .near)
            }
            // The widest stretch between measured zooms (the deeper one on a tie), split in two.
            let sorted = anchors.sorted()
            var widest: (low: Int, high: Int)?
            for (low, high) in zip(sorted, sorted.dropFirst()) where high - low >= 2 {
                if let best = widest, best.high - best.low > high - low { continue }
                widest = (low, high)
            }
            guard let (low, high) = widest else { return nil }
            let middle = (low + high + 1) / 2
            anchors.insert(middle)
            return (middle, .centre)
        }
    }
}

extension TileCover {
    /// The tile at `spot` of the cover of `area` at `zoom`, nil for an empty cover: a geometry's in
    /// the middle of the row where the cover's tiles reach the spot's share (a half, a quarter).
    static func tile(at spot: TileSampling.Spot, covering area: RegionDefinition.Area, zoom: Int,
                     within bounds: Bounds?) -> TileCoordinate? {
        let share = spot == .centre ? 2 : 4
        if case .bounds(let box) = area {
            guard let rect = TileGrid(zoom: zoom).rect(of: box, within: bounds) else { return nil }
            return TileCoordinate(
                z: zoom, x: TileSampling.column(rect.width / share, of: rect.columns),
                y: rect.rows.lowerBound + rect.rows.count / share)
        }
        let cover = TileCover(area, zoom: zoom, within: bounds)
        let target = cover.count / share
        var seen = 0
        var spans = cover.spans.makeIterator()
        var next = spans.next()
        while let first = next {
            var runs: [ClosedRange<Int>] = []
            while let span = next, span.y == first.y {
                runs.append(span.x)
                next = spans.next()
            }
            let width = runs.reduce(0) { $0 + $1.count }
            if seen + width > target { return TileCoordinate(z: zoom, x: TileSampling.column(width / 2, of: runs), y: first.y) }
            seen += width
        }
        return nil
    }
}
