import Foundation
@testable import PackFS
import XCTest

/// What a READ gets of a file's content: the bytes at its offset, at most its size; all of it as it is.
final class ReadPartTests: XCTestCase {
    private let content = Data((0..<100).map { UInt8($0) })

    func testAReadOfTheWholeFileGetsItUncut() {
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 0, size: 100), content)
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 0, size: 131_072), content)
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 0, size: .max), content)
    }

    func testAReadAtAnOffsetGetsItsPart() {
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 10, size: 5), Data([10, 11, 12, 13, 14]))
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 0, size: 3), Data([0, 1, 2]))
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 98, size: .max), Data([98, 99]), "no overflow past Int.max")
        let slice = content[50...]
        XCTAssertEqual(PackFilesystem.part(of: slice, offset: 1, size: 2), Data([51, 52]), "a slice's offsets are its own")
    }

    func testAReadPastTheEndOrOfNothingGetsNothing() {
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 100, size: 10), Data())
        XCTAssertEqual(PackFilesystem.part(of: content, offset: -1, size: 10), Data())
        XCTAssertEqual(PackFilesystem.part(of: content, offset: 0, size: 0), Data())
        XCTAssertEqual(PackFilesystem.part(of: Data(), offset: 0, size: 10), Data())
    }
}
