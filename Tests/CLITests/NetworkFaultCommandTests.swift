import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Network faults seen from the command line that the fault server cannot make.
final class NetworkFaultCommandTests: CLITestCase {
    /// DNS failure without leaving loopback: `packfs download` runs inside `unshare --net`, a new
    /// network namespace with no interface up (not even loopback), so no query can leave the
    /// machine whatever /etc/resolv.conf names, and every lookup fails at once, as on a device
    /// without network. The name is under `.invalid` (RFC 2606) besides. The failure is retried
    /// like any network failure (here 3 attempts from 10 ms apart, where the defaults would wait
    /// about 18 s), then the pack ends in `error` naming the host and the URL, and the command
    /// exits 1.
    func testAHostThatDoesNotResolveEndsInErrorNamingTheHostAndTheURL() throws {
        let unshare = URL(fileURLWithPath: "/usr/bin/unshare")
        guard FileManager.default.isExecutableFile(atPath: unshare.path) else {
            if isCI { XCTFail("unshare (util-linux) is missing") }
            throw XCTSkip("unshare (util-linux) is missing")
        }
        // Root makes the namespace directly; anyone else through a user namespace of their own.
        let namespace = geteuid() == 0 ? ["--net"] : ["--net", "--map-root-user"]
        let probe = try run(unshare, namespace + ["/bin/true"])
        guard probe.status == 0 else {
            if isCI { XCTFail("unshare --net is not permitted: \(probe.stderr)") }
            throw XCTSkip("unshare --net is not permitted: \(probe.stderr)")
        }
        let style = "http://tiles.packfs.invalid/styles/bright.json"
        let region = temp.path("region.json")
        try #"{"style": "\#(style)", "bounds": [24.93, 60.16, 24.96, 60.18], "maxzoom": 14}"#
            .write(toFile: region, atomically: true, encoding: .utf8)
        let outcome = try run(unshare, namespace + [Packfs.path, "download", db, "hki", region,
                                                    "--retries", "3", "--retry-delay", "0.01"])
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        let expected = "\(style): Could not resolve host: tiles.packfs.invalid (curl error 6)"
        XCTAssertTrue(outcome.stderr.hasSuffix("packfs: \(expected)\n"), outcome.stderr)
        let status = JSONValue.parse(Data(try packfs("status", db, "hki", "--json").stdout.utf8))
        XCTAssertEqual(status?["state"], .string("error"))
        XCTAssertEqual(status?["error"], .string(expected))
    }
}
