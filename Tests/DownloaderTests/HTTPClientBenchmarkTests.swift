import Downloader
import Foundation
import TestSupport
import XCTest

/// Throughput on loopback against `curl --parallel --parallel-max 20`, both fetching the same N
/// tile URLs from one nginx. Skipped unless PACKFS_BENCH_TILES is set (e.g. 2000 or 20000);
/// PACKFS_BENCH_PREGZIP=1 serves pre-gzipped siblings, PACKFS_BENCH_WORKERS sets nginx workers.
final class HTTPClientBenchmarkTests: XCTestCase {
    private var server: TestServer?
    private var world: TemporaryDirectory?

    override func tearDown() {
        server?.stop()
        world?.remove()
    }

    func testThroughputAgainstCurlParallel() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let count = environment["PACKFS_BENCH_TILES"].flatMap(Int.init) else {
            throw XCTSkip("set PACKFS_BENCH_TILES=2000 to run the benchmark")
        }
        let world = try Self.makeWorld(tiles: count)
        self.world = world
        let server = try TestServer.nginx(pregzip: environment["PACKFS_BENCH_PREGZIP"] == "1",
                                          workers: environment["PACKFS_BENCH_WORKERS"].flatMap(Int.init) ?? 1,
                                          world: world.url)
        self.server = server
        let urls = (0..<count).map { server.url(Self.tilePath($0)) }
        _ = try fetchWithClient(urls.prefix(200).map { $0 })
        for round in 1...3 {
            let curlCPU = CPUTime.children()
            let curl = try fetchWithCurl(urls, directory: world)
            let curlUsed = CPUTime.children() - curlCPU
            let ownCPU = CPUTime.process()
            let ours = try fetchWithClient(urls)
            let ownUsed = CPUTime.process() - ownCPU
            print(String(format: "round %d: %d tiles  PackFS %.0f req/s (%.2f s, CPU %.2f s)  "
                         + "curl --parallel %.0f req/s (%.2f s, CPU %.2f s)",
                         round, count, Double(count) / ours, ours, ownUsed, Double(count) / curl, curl, curlUsed))
        }
    }

    private func fetchWithClient(_ urls: [String]) throws -> TimeInterval {
        let http = try ClientUnderTest(testConfiguration(concurrency: 20, attempts: 3))
        defer { http.client.shutdown() }
        let started = Date()
        let results = http.fetch(urls, timeout: 600)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(results.allSatisfy { $0.outcome.response != nil })
        return elapsed
    }

    private func fetchWithCurl(_ urls: [String], directory: TemporaryDirectory) throws -> TimeInterval {
        let config = directory.path("curl.config")
        try urls.map { "url = \"\($0)\"\noutput = \"/dev/null\"\n" }.joined()
            .write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--parallel", "--parallel-max", "20", "-s", "-K", config]
        let started = Date()
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return Date().timeIntervalSince(started)
    }

    static func tilePath(_ index: Int) -> String { "/tiles/bench/\(index / 1000)/\(index % 1000).pbf" }

    /// Fixture styles plus `tiles` copies of the fixture's vector tiles under /tiles/bench.
    private static func makeWorld(tiles: Int) throws -> TemporaryDirectory {
        let world = try TemporaryDirectory(prefix: "packfs-bench-world")
        let files = FileManager.default
        try files.copyItem(at: ProjectPaths.world.appendingPathComponent("styles"), to: world.url.appendingPathComponent("styles"))
        try files.createDirectory(at: world.url.appendingPathComponent("tiles"), withIntermediateDirectories: true)
        try files.copyItem(at: ProjectPaths.world.appendingPathComponent("tiles/helsinki.json"),
                           to: world.url.appendingPathComponent("tiles/helsinki.json"))
        let sources = (fixturePaths("tiles/land", suffix: ".pbf") + fixturePaths("tiles/helsinki", suffix: ".pbf"))
            .map { try? Data(contentsOf: ProjectPaths.world.appendingPathComponent(String($0.dropFirst()))) }
            .compactMap { $0 }
        for index in 0..<tiles {
            let path = world.url.appendingPathComponent(String(tilePath(index).dropFirst()))
            if index % 1000 == 0 {
                try files.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            try sources[index % sources.count].write(to: path)
        }
        return world
    }
}

/// User + system CPU seconds, of this process or of its reaped children.
enum CPUTime {
    static func process() -> Double { seconds(RUSAGE_SELF.rawValue) }
    static func children() -> Double { seconds(RUSAGE_CHILDREN.rawValue) }

    private static func seconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        func value(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }
}
