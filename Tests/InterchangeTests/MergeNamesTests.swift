@testable import Interchange
import XCTest

/// Free names for merged packs: `name-2`, `name-3`..., twins up to normalisation count as taken,
/// and a long name is shortened to fit PackName's 248 bytes.
final class MergeNamesTests: XCTestCase {
    func testAFreeNameStaysAndATakenOneGetsTheFirstFreeSuffix() {
        XCTAssertEqual(MergeNames.free("trip", taken: ["city"]), "trip")
        XCTAssertEqual(MergeNames.free("trip", taken: ["trip", "trip-2", "trip-4"]), "trip-3")
    }

    func testANormalisationTwinIsTaken() {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        XCTAssertEqual(MergeNames.free(nfd, taken: [nfc]), nfd + "-2")
    }

    func testALongNameIsShortenedByWholeCharacters() {
        let base = String(repeating: "\u{E4}", count: 124)  // 248 bytes
        let name = MergeNames.free(base, taken: [base])
        XCTAssertLessThanOrEqual(name.utf8.count, 248)
        XCTAssertEqual(name, String(repeating: "\u{E4}", count: 123) + "-2")
        XCTAssertTrue(MergeNames.isSuffixed(name, of: base))
    }

    func testOnlyTheSuffixesFreeGivesCount() {
        XCTAssertTrue(MergeNames.isSuffixed("trip-2", of: "trip"))
        XCTAssertTrue(MergeNames.isSuffixed("trip-12", of: "trip"))
        XCTAssertFalse(MergeNames.isSuffixed("trip-1", of: "trip"))
        XCTAssertFalse(MergeNames.isSuffixed("trip", of: "trip"))
        XCTAssertFalse(MergeNames.isSuffixed("trip-x", of: "trip"))
        XCTAssertFalse(MergeNames.isSuffixed("other-2", of: "trip"))
        XCTAssertFalse(MergeNames.isSuffixed("trip-99999999999999999999", of: "trip"))
    }
}
