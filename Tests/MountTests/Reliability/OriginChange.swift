import Foundation
import TestSupport

/// New content at the fault server's origin, for refreshes that must switch a pack at once
/// (PackStore's Staging.swift): three Helsinki tiles take another tile's bytes (still valid
/// vector tiles, so `packfs verify` holds) and the sprite's JSON gains a newline. Written to the
/// server's overlay, so the server serves them from the next request on.
enum OriginChange {
    /// Origin path -> the world file whose bytes it serves when changed.
    static let swaps = [
        "/tiles/helsinki/12/2331/1185.pbf": "/tiles/helsinki/11/1165/592.pbf",
        "/tiles/helsinki/13/4663/2370.pbf": "/tiles/helsinki/13/4663/2371.pbf",
        "/tiles/helsinki/14/9326/4741.pbf": "/tiles/helsinki/14/9327/4742.pbf",
    ]
    static let sprite = "/sprites/bright.json"
    static var paths: Set<String> { Set(swaps.keys).union([sprite]) }

    /// The server serves the changed content.
    static func apply(to server: TestServer) throws {
        for (path, source) in swaps { try overlay(path, try original(source, server), server) }
        try overlay(sprite, try original(sprite, server) + Data("\n".utf8), server)
    }

    /// The server serves the world's content again (a change too, for a pack that has the other).
    static func revert(_ server: TestServer) throws {
        for path in paths { try FileManager.default.removeItem(atPath: server.overlayPath + path) }
    }

    /// Changed when it was not, and back: one change per refresh round.
    static func toggle(_ server: TestServer) throws {
        if FileManager.default.fileExists(atPath: server.overlayPath + sprite) { try revert(server) } else { try apply(to: server) }
    }

    /// The world's bytes for an origin path, as the server serves them unchanged.
    static func original(_ path: String, _ server: TestServer) throws -> Data {
        let data = try Data(contentsOf: ProjectPaths.world.appendingPathComponent(String(path.dropFirst())))
        guard path.hasSuffix(".json") else { return data }
        return Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "{base}", with: server.baseURL).utf8)
    }

    private static func overlay(_ path: String, _ data: Data, _ server: TestServer) throws {
        let url = URL(fileURLWithPath: server.overlayPath + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }
}
