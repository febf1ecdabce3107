@testable import Downloader
@testable import HTTP
import XCTest

final class JobQueueTests: XCTestCase {
    private func job(_ index: Int) -> Job<Int> {
        Job(HTTPRequest(url: "http://127.0.0.1/tiles/\(index).pbf", validators: nil, tag: index))
    }

    /// First in, first out across bursts, with popped jobs compacted away: the array never holds
    /// many more than twice the jobs still queued (a queue that never empties once held 4,096
    /// popped jobs, 2 MB of URLs, in a download).
    func testJobsLeaveInOrderAndPoppedOnesDoNotPileUp() {
        var queue = JobQueue<Int>()
        var next = 0, expected = 0, most = 0
        for _ in 0..<200 {
            queue.append(contentsOf: (next..<next + 256).map(job))
            next += 256
            for _ in 0..<250 {
                XCTAssertEqual(queue.popFirst()?.request.tag, expected)
                expected += 1
                most = max(most, queue.held)
            }
            XCTAssertLessThanOrEqual(queue.held, 2 * (next - expected) + 64 + 256, "held after \(expected) pops")
        }
        while let popped = queue.popFirst() {
            XCTAssertEqual(popped.request.tag, expected)
            expected += 1
        }
        XCTAssertEqual(expected, next)
        XCTAssertTrue(queue.isEmpty)
        XCTAssertLessThan(most, 4 * 1200 + 64 + 256, "the array stays near what is queued")
    }
}
