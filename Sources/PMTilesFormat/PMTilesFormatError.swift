/// What is wrong with PMTiles bytes or a tile no id can name; the layer that read the bytes says where they came from.
public enum PMTilesFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Bytes that break the spec: the detail says which and how.
    case malformed(String)
    /// A tile outside the grid PMTiles ids cover.
    case tileOutsideGrid(tile: String, grid: String)

    public var description: String {
        switch self {
        case .malformed(let detail): return detail
        case .tileOutsideGrid(let tile, let grid): return "tile \(tile) lies outside \(grid)"
        }
    }
}
