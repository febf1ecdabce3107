import Basics
import Foundation

/// `coverage.geojson` as tests read it. JSONDecoder, not JSONSerialization: on Linux the latter
/// parses some numbers one unit in the last place off (40.979898069620134 as 40.97989806962015),
/// and the document's numbers are checked exactly.
public struct CoverageDocument: Decodable, Equatable {
    public struct Feature: Decodable, Equatable {
        public struct Properties: Decodable, Equatable {
            public var zoom: Int
            public var tiles: Int
        }
        public struct Geometry: Decodable, Equatable {
            public var type: String
            /// Polygons, each rings (the exterior first), each positions [longitude, latitude].
            public var coordinates: [[[[Double]]]]
        }
        public var type: String
        public var properties: Properties
        public var geometry: Geometry
    }
    public var type: String
    public var features: [Feature]
    public var counting: Bool?

    public init(_ data: Data) throws {
        self = try JSONDecoder().decode(CoverageDocument.self, from: data)
    }

    /// The feature of zoom `z`.
    public func zoom(_ z: Int) -> Feature? { features.first { $0.properties.zoom == z } }

    /// Web Mercator tile edges in degrees, computed here on their own (the test's reference).
    public static func longitude(_ x: Int, _ z: Int) -> Double { Double(x) / pow(2, Double(z)) * 360 - 180 }
    public static func latitude(_ y: Int, _ z: Int) -> Double {
        atan(sinh(Double.pi * (1 - 2 * Double(y) / pow(2, Double(z))))) * 180 / Double.pi
    }

    /// A ring of tile corners (x, y) of zoom z in degrees.
    public static func ring(_ corners: [(Int, Int)], z: Int) -> [[Double]] {
        corners.map { [longitude($0.0, z), latitude($0.1, z)] }
    }
}
