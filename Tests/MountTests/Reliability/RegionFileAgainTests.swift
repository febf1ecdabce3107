import Foundation
import TestSupport
import XCTest

/// Region files copied in once the kernel has stopped sending opens and releases (stateless
/// opens, from the mount's first open on: no release comes even for a created file). Found by
/// the soak: the draft of every such `cp` stayed for good, so `mv` of its region file was EBUSY
/// ever after, and once the pack was removed the old draft showed in its place and the same
/// definition copied in again was taken for one already judged: no pack came back.
final class RegionFileAgainTests: CrashRigTestCase {
    override class var slowSeconds: Double { 0 }

    func testRenameRemoveAndCopyTheSameFileAgain() throws {
        try rig.mount(concurrency: 20)
        _ = FileManager.default.contents(atPath: rig.mountpoint + "/status.json")  // the first open
        try rig.write(.helsinkiLow, to: "a")
        rig.waitForState("a")
        let mv = try Command.run("/bin/mv", [packs + "/a.region", packs + "/b.region"])
        XCTAssertEqual(mv.status, 0, mv.text)
        rig.waitForState("b")
        for round in 0..<3 {
            XCTAssertEqual(try Command.run("/bin/rm", [packs + "/b.region"]).status, 0)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs), [], "round \(round): nothing left")
            try rig.write(.helsinkiLow, to: "b")  // at once, the same text as before
            rig.waitForState("b")
        }
        try rig.verifyPack("b", .helsinkiLow)
        rig.unmount()
    }
}
