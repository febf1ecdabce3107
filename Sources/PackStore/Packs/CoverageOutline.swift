/// The union of one zoom's tiles as polygons with holes, drawn from the runs each column holds (`Runs`), in tile
/// grid coordinates: vertex (X, R) is the corner at column line X and row line R (R grows southward, as XYZ rows).
///
/// How: the boundary is where a held cell meets one not held. Vertical edges come from the difference of
/// neighbouring columns' runs, horizontal ones from the runs' ends (merged along a row line), so the work grows
/// with the boundary, not the tiles. Each edge is directed with the held cell on its left (north up) and followed
/// into rings: exteriors counter-clockwise, holes clockwise, as RFC 7946 wants. Where held cells touch only at a
/// corner the walk turns left, keeping them apart: polygons are 4-connected groups of tiles and share no edge. A
/// ring that comes back to a corner it passed (a pocket open only at a corner) is cut there into simple rings,
/// the pocket's clockwise: a hole touching the shell at that corner.
enum CoverageOutline {
    struct Point: Hashable, Sendable {
        var x: Int64
        var r: Int64
    }

    /// Rings of one polygon: the exterior first, then its holes; each closed (last == first).
    typealias Polygon = [[Point]]

    /// A column's runs of rows, as inclusive ranges (any order; overlapping or touching ones merge).
    struct Column: Sendable {
        var x: Int64
        var runs: [ClosedRange<Int64>]
    }

    private enum Heading: Int {
        case east, north, west, south
        /// The heading after a left turn, then straight on, then a right turn: the order tried.
        func turned(_ turns: Int) -> Heading { Heading(rawValue: (rawValue + turns) % 4) ?? self }
    }

    private struct Edge {
        var from: Point
        var to: Point
        var heading: Heading
        /// The run holding the cell on the edge's left (its polygon).
        var run: Int
    }

    /// The polygons of the union of `columns`' cells.
    static func polygons(_ columns: [Column]) -> [Polygon] {
        let sorted = columns.sorted { $0.x < $1.x }.map { Column(x: $0.x, runs: Runs.union($0.runs)) }
        var runs: [(x: Int64, rows: ClosedRange<Int64>)] = []
        var first: [Int64: Int] = [:]
        for column in sorted where !column.runs.isEmpty {
            if first[column.x] == nil { first[column.x] = runs.count }
            runs += column.runs.map { (column.x, $0) }
        }
        var components = connect(runs, first)
        let edges = verticalEdges(runs, first) + horizontalEdges(runs)
        var shells: [Int: [Point]] = [:]
        var holes: [Int: [[Point]]] = [:]
        var order: [Int] = []
        for (ring, run) in trace(edges) {
            let component = components.root(run)
            if area(ring) > 0 {
                if shells[component] == nil { order.append(component) }
                shells[component] = ring
            } else {
                holes[component, default: []].append(ring)
            }
        }
        // In a fixed order (rings from their least corner, holes and polygons by it), whatever order the edges were
        // found in, so the file's bytes change only when the tiles do.
        let polygons = order.compactMap { component in
            shells[component].map { [canonical($0)] + (holes[component] ?? []).map(canonical).sorted { less($0[0], $1[0]) } }
        }
        return polygons.sorted { less($0[0][0], $1[0][0]) }
    }

    private static func less(_ a: Point, _ b: Point) -> Bool { (a.x, a.r) < (b.x, b.r) }

    /// The closed ring started from its least corner.
    private static func canonical(_ ring: [Point]) -> [Point] {
        let open = ring.dropLast()
        guard let start = open.indices.min(by: { less(open[$0], open[$1]) }) else { return ring }
        let rotated = Array(open[start...] + open[..<start])
        return rotated + rotated.prefix(1)
    }

    /// Runs of neighbouring columns whose rows overlap share an edge: one polygon.
    private static func connect(_ runs: [(x: Int64, rows: ClosedRange<Int64>)], _ first: [Int64: Int]) -> UnionFind {
        var components = UnionFind(count: runs.count)
        var index = 0
        while index < runs.count {
            let x = runs[index].x
            var end = index
            while end < runs.count, runs[end].x == x { end += 1 }
            if x < Int64.max, var other = first[x + 1] {
                var mine = index
                while mine < end, other < runs.count, runs[other].x == x + 1 {
                    let (a, b) = (runs[mine].rows, runs[other].rows)
                    if a.overlaps(b) { components.join(mine, other) }
                    if a.upperBound < b.upperBound { mine += 1 } else { other += 1 }
                }
            }
            index = end
        }
        return components
    }

    /// Along each column line X, the rows held on one side only: held on the east (column X) gives a west edge,
    /// heading south; held on the west (column X - 1) an east edge, heading north.
    private static func verticalEdges(_ runs: [(x: Int64, rows: ClosedRange<Int64>)], _ first: [Int64: Int]) -> [Edge] {
        var lines = Set<Int64>()
        for run in runs {
            lines.insert(run.x)
            if run.x < Int64.max { lines.insert(run.x + 1) }
        }
        func column(_ x: Int64) -> [(rows: ClosedRange<Int64>, run: Int)] {
            guard let start = first[x] else { return [] }
            var result: [(rows: ClosedRange<Int64>, run: Int)] = []
            var index = start
            while index < runs.count, runs[index].x == x {
                result.append((runs[index].rows, index))
                index += 1
            }
            return result
        }
        var edges: [Edge] = []
        for line in lines.sorted() {
            let west = line > Int64.min ? column(line - 1) : []
            let east = column(line)
            for piece in difference(east, west) {
                edges.append(Edge(
                    from: Point(x: line, r: piece.rows.lowerBound), to: Point(x: line, r: piece.rows.upperBound + 1),
                    heading: .south, run: piece.run))
            }
            for piece in difference(west, east) {
                edges.append(Edge(
                    from: Point(x: line, r: piece.rows.upperBound + 1), to: Point(x: line, r: piece.rows.lowerBound),
                    heading: .north, run: piece.run))
            }
        }
        return edges
    }

    /// The rows of `a` outside every range of `b` (both sorted and disjoint), with `a`'s runs.
    private static func difference(
        _ a: [(rows: ClosedRange<Int64>, run: Int)], _ b: [(rows: ClosedRange<Int64>, run: Int)]
    ) -> [(rows: ClosedRange<Int64>, run: Int)] {
        var result: [(rows: ClosedRange<Int64>, run: Int)] = []
        var next = 0
        for piece in a {
            var low: Int64? = piece.rows.lowerBound
            while next < b.count, b[next].rows.upperBound < piece.rows.lowerBound { next += 1 }
            var index = next
            while let start = low, index < b.count, b[index].rows.lowerBound <= piece.rows.upperBound {
                let cut = b[index].rows
                if start < cut.lowerBound { result.append((start...(cut.lowerBound - 1), piece.run)) }
                low = cut.upperBound < piece.rows.upperBound ? max(start, cut.upperBound + 1) : nil
                index += 1
            }
            if let start = low, start <= piece.rows.upperBound { result.append((start...piece.rows.upperBound, piece.run)) }
        }
        return result
    }

    /// Each run's north edge (heading west) and south edge (heading east), merged where neighbouring columns share one.
    private static func horizontalEdges(_ runs: [(x: Int64, rows: ClosedRange<Int64>)]) -> [Edge] {
        struct Key: Hashable {
            var r: Int64
            var south: Bool
        }
        var open: [Key: (from: Int64, to: Int64, run: Int)] = [:]
        var edges: [Edge] = []
        func close(_ key: Key, _ segment: (from: Int64, to: Int64, run: Int)) {
            edges.append(key.south
                ? Edge(from: Point(x: segment.from, r: key.r), to: Point(x: segment.to, r: key.r), heading: .east, run: segment.run)
                : Edge(from: Point(x: segment.to, r: key.r), to: Point(x: segment.from, r: key.r), heading: .west, run: segment.run))
        }
        for (index, run) in runs.enumerated() where run.x < Int64.max && run.rows.upperBound < Int64.max {
            for key in [Key(r: run.rows.lowerBound, south: false), Key(r: run.rows.upperBound + 1, south: true)] {
                if let segment = open[key], segment.to == run.x {
                    open[key]?.to = run.x + 1
                } else {
                    if let segment = open[key] { close(key, segment) }
                    open[key] = (run.x, run.x + 1, index)
                }
            }
        }
        for (key, segment) in open.sorted(by: { ($0.key.r, $0.value.from) < ($1.key.r, $1.value.from) }) { close(key, segment) }
        return edges
    }

    /// Follows the edges into simple closed rings, a run on each one's left; corners are handled as the header says.
    private static func trace(_ edges: [Edge]) -> [(ring: [Point], run: Int)] {
        var leaving: [Point: Int] = [:]
        var second = [Int](repeating: -1, count: edges.count)
        for (index, edge) in edges.enumerated() {
            if let other = leaving.updateValue(index, forKey: edge.from) { second[index] = other }
        }
        var used = [Bool](repeating: false, count: edges.count)
        var rings: [(ring: [Point], run: Int)] = []
        for start in edges.indices where !used[start] {
            var path: [Point] = [edges[start].from]
            // Where the path passed corners with two edges leaving (and its start).
            var seen: [Point: Int] = [edges[start].from: 0]
            var current = start
            while true {
                used[current] = true
                let edge = edges[current]
                var candidates: [Int] = []
                if let first = leaving[edge.to] {
                    for index in [first, second[first]] where index >= 0 && !used[index] { candidates.append(index) }
                }
                let corner = candidates.count > 1 || (leaving[edge.to].map { second[$0] >= 0 } ?? false)
                if let index = seen[edge.to] {
                    rings.append((simplified(Array(path[index...]) + [edge.to]), edge.run))
                    seen = seen.filter { $0.value <= index }
                    path.removeSubrange((index + 1)...)
                } else {
                    if corner { seen[edge.to] = path.count }
                    path.append(edge.to)
                }
                let next = [1, 0, 3].lazy.compactMap { turns in
                    candidates.first { edges[$0].heading == edge.heading.turned(turns) }
                }.first
                guard let next else { break }
                current = next
            }
        }
        return rings
    }

    /// A closed ring without the corners where it goes straight on.
    private static func simplified(_ ring: [Point]) -> [Point] {
        guard ring.count > 4 else { return ring }
        var points = Array(ring.dropLast())
        var index = 0
        while index < points.count, points.count > 3 {
            let before = points[(index + points.count - 1) % points.count]
            let after = points[(index + 1) % points.count]
            let here = points[index]
            if (before.x == here.x && here.x == after.x) || (before.r == here.r && here.r == after.r) {
                points.remove(at: index)
            } else {
                index += 1
            }
        }
        return points + [points[0]]
    }

    /// Twice the signed area, north up: positive for a counter-clockwise ring. Double: zoom-31 products overflow Int64.
    static func area(_ ring: [Point]) -> Double {
        var sum = 0.0
        for (a, b) in zip(ring, ring.dropFirst()) {
            sum += Double(a.x) * Double(-b.r) - Double(b.x) * Double(-a.r)
        }
        return sum
    }
}

/// Disjoint sets of run indices (path halving, union by index).
struct UnionFind {
    private var parent: [Int]

    init(count: Int) { parent = Array(0..<count) }

    mutating func root(_ element: Int) -> Int {
        var node = element
        while parent[node] != node {
            parent[node] = parent[parent[node]]
            node = parent[node]
        }
        return node
    }

    mutating func join(_ a: Int, _ b: Int) {
        let (ra, rb) = (root(a), root(b))
        if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }
}
