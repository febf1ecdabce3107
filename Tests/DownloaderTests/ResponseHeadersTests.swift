import Basics
import CCurl
@testable import Downloader
import Foundation
@testable import HTTP
import PackStore
import XCTest

final class ResponseHeadersTests: XCTestCase {
    private let now: Int64 = 1_700_000_000

    private func fields(_ lines: [String]) -> ResponseHeaderFields {
        var fields = ResponseHeaderFields()
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            bytes.withUnsafeBufferPointer { fields.consume(line: $0) }
        }
        return fields
    }

    func testCacheHeadersFromATypicalResponse() {
        let headers = fields([
            "HTTP/1.1 200 OK", "content-type: application/x-protobuf", "ETag: W/\"6b01-1e7e\"",
            "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT", "Cache-Control: public, max-age=3600",
            "Expires: Thu, 01 Dec 2039 16:00:00 GMT", "CONTENT-ENCODING: GZIP", "Content-Length: 42",
        ])
        XCTAssertEqual(headers.cacheHeaders(now: now),
                       CacheHeaders(expires: now + 3600, modified: 784_111_777, etag: "W/\"6b01-1e7e\""))
        XCTAssertEqual(headers.contentEncoding, "gzip")
        XCTAssertEqual(headers.contentLength, 42)
    }

    /// Numbers a server chooses: the largest max-age saturates, one past it is ignored, and a
    /// Retry-After date far in the past or future gives a delay, never an overflow.
    func testExtremeNumbersFromAServer() {
        XCTAssertEqual(fields(["Cache-Control: max-age=9223372036854775807"]).cacheHeaders(now: now).expires, Int64.max)
        XCTAssertNil(fields(["Cache-Control: max-age=9223372036854775808"]).cacheHeaders(now: now).expires)
        XCTAssertEqual(fields(["Cache-Control: max-age=-5"]).cacheHeaders(now: now).expires, now)
        XCTAssertEqual(fields(["Retry-After: -9223372036854775808"]).retryAfterDelay(now: now), 0)
        XCTAssertEqual(fields(["Retry-After: Sun, 06 Nov 1994 08:49:37 GMT"]).retryAfterDelay(now: now), 0)
        XCTAssertEqual(fields(["Retry-After: Fri, 31 Dec 9999 23:59:59 GMT"]).retryAfterDelay(now: Int64.min), 253_402_300_799 + 9.223372036854775808e18)
    }

    func testExpiresAndRevalidation() {
        XCTAssertEqual(fields(["Expires: Sun, 06 Nov 1994 08:49:37 GMT"]).cacheHeaders(now: now).expires, 784_111_777)
        XCTAssertEqual(fields(["Expires: 0"]).cacheHeaders(now: now).expires, now, "invalid means expired")
        XCTAssertEqual(fields(["Cache-Control: s-maxage=60"]).cacheHeaders(now: now).expires, now + 60)
        XCTAssertEqual(fields(["Cache-Control: s-maxage=60, max-age=10"]).cacheHeaders(now: now).expires, now + 10)
        XCTAssertTrue(fields(["Cache-Control: max-age=0, must-revalidate"]).cacheHeaders(now: now).mustRevalidate)
        XCTAssertTrue(fields(["Cache-Control: private", "Cache-Control: no-cache"]).cacheHeaders(now: now).mustRevalidate)
        XCTAssertEqual(fields([]).cacheHeaders(now: now), CacheHeaders())
    }

    func testAStatusLineStartsAFreshHeaderBlock() {
        let headers = fields(["HTTP/1.1 100 Continue", "ETag: \"interim\"", "", "HTTP/1.1 200 OK", "Retry-After: 5"])
        XCTAssertNil(headers.etag)
        XCTAssertEqual(headers.retryAfter, "5")
    }

    func testRetryAfterInSecondsOrAsADate() {
        XCTAssertEqual(fields(["Retry-After: 120"]).retryAfterDelay(now: now), 120)
        let date = HTTPDate.format(now + 30)
        XCTAssertEqual(fields(["Retry-After: \(date)"]).retryAfterDelay(now: now), 30)
        XCTAssertEqual(fields(["Retry-After: \(HTTPDate.format(now - 30))"]).retryAfterDelay(now: now), 0)
        XCTAssertNil(fields(["Retry-After: soon"]).retryAfterDelay(now: now))
    }

    func testHTTPDatesRoundTrip() {
        XCTAssertEqual(HTTPDate.format(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), 784_111_777)
        for t: Int64 in [0, 951_782_400, now] { XCTAssertEqual(HTTPDate.parse(HTTPDate.format(t)), t) }
    }

    /// The IMF-fixdate reader agrees with libcurl's parser on every day from 1970 to 2400 (leap
    /// years, century rules) at varying times, and leaves anything it does not fully accept to it.
    func testFixdateReaderAgreesWithLibcurl() {
        var generator = SystemRandomNumberGenerator()
        for day: Int64 in stride(from: 0, to: 157_000, by: 1) {
            let t = day * 86_400 + Int64.random(in: 0..<86_400, using: &generator)
            let text = HTTPDate.format(t)
            XCTAssertEqual(HTTPDate.fixdate(text), t, text)
            if day % 97 == 0 { XCTAssertEqual(Int64(curl_getdate(text, nil)), t, text) }
        }
        for odd in ["Sun, 31 Feb 2021 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 nov 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Wed, 31 Dec 1969 23:59:59 GMT",
                    "Sun, 06 Nov 1994 08:49:37 GMT "] {
            XCTAssertNil(HTTPDate.fixdate(odd), odd)
        }
    }

    func testConditionalRequestHeaders() {
        var list = RequestHeaders.conditional(HTTPValidators(etag: "\"abc\"", modified: 784_111_777))
        defer { curl_slist_free_all(list) }
        var lines: [String] = []
        while let node = list {
            lines.append(String(cString: node.pointee.data))
            list = node.pointee.next
        }
        XCTAssertEqual(lines, ["Accept-Encoding: gzip, deflate", "If-None-Match: \"abc\"",
                               "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"])
        let injected = RequestHeaders.conditional(HTTPValidators(etag: "\"a\"\r\nX-Evil: 1"))
        XCTAssertNil(injected?.pointee.next, "a validator with a line break is dropped")
        curl_slist_free_all(injected)
    }

    /// A Last-Modified that libcurl reads as the last second of year 2147483647, 12 hours west
    /// of GMT, is stored as a date in year 2147483648; a refresh writes it back as
    /// If-Modified-Since, and that year overflowed Int32 there (a trap in the daemon).
    func testALastModifiedPastTheLargestYearIsWrittenBackWithoutTrapping() {
        let modified = fields(["Last-Modified: Tue, 31 Dec 2147483647 23:59:59 -1200"]).cacheHeaders(now: now).modified
        XCTAssertEqual(modified, 67_767_976_233_575_999)
        XCTAssertEqual(HTTPDate.format(67_767_976_233_575_999), "Wed, 01 Jan 2147483648 11:59:59 GMT")
        var list = RequestHeaders.conditional(HTTPValidators(modified: modified))
        defer { curl_slist_free_all(list) }
        var lines: [String] = []
        while let node = list {
            lines.append(String(cString: node.pointee.data))
            list = node.pointee.next
        }
        XCTAssertEqual(lines.last, "If-Modified-Since: Wed, 01 Jan 2147483648 11:59:59 GMT")
    }
}

final class RetryPolicyTests: XCTestCase {
    func testBackoffDoublesWithJitterAndHonoursRetryAfter() {
        let policy = RetryPolicy(maxAttempts: 8, baseDelay: 0.2, maxDelay: 5, maxRetryAfter: 60)
        var random = SystemRandomNumberGenerator()
        for attempt in 1...10 {
            let full = min(5, 0.2 * pow(2, Double(attempt - 1)))
            let delay = policy.delay(afterAttempt: attempt, retryAfter: nil, using: &random)
            XCTAssert(delay >= full / 2 && delay <= full, "attempt \(attempt): \(delay)")
        }
        XCTAssertEqual(policy.delay(afterAttempt: 1, retryAfter: 7, using: &random), 7)
        XCTAssertEqual(policy.delay(afterAttempt: 1, retryAfter: 3600, using: &random), 60)
    }

    func testRetryQueuePopsInDueOrder() {
        var queue = RetryQueue<String>()
        for (name, due) in [("c", 30), ("a", 10), ("d", 30), ("b", 20)] { queue.insert(name, due: UInt64(due)) }
        XCTAssertEqual(queue.earliestDue, 10)
        XCTAssertNil(queue.popDue(now: 5))
        var popped: [String] = []
        while let next = queue.popDue(now: 100) { popped.append(next) }
        XCTAssertEqual(popped, ["a", "b", "c", "d"])
        for (name, due) in [("x", 3), ("y", 1), ("z", 2)] { queue.insert(name, due: UInt64(due)) }
        XCTAssertEqual(queue.remove(where: { $0 == "y" }), ["y"])
        XCTAssertEqual(queue.popDue(now: 10), "z")
    }

    func testStatusesAndCurlCodes() {
        XCTAssertTrue(RetryPolicy.isTransient(status: 503))
        XCTAssertTrue(RetryPolicy.isTransient(status: 429))
        XCTAssertFalse(RetryPolicy.isTransient(status: 403))
        XCTAssertTrue(RetryPolicy.isTransient(CURLE_PARTIAL_FILE))
        XCTAssertTrue(RetryPolicy.isTransient(CURLE_RECV_ERROR))
        XCTAssertTrue(RetryPolicy.isTransient(CURLE_GOT_NOTHING))
        // An answer that is not HTTP: another resource's leftover bytes on a reused connection.
        XCTAssertTrue(RetryPolicy.isTransient(CURLE_UNSUPPORTED_PROTOCOL))
        XCTAssertTrue(RetryPolicy.isTransient(CURLE_WEIRD_SERVER_REPLY))
        XCTAssertFalse(RetryPolicy.isTransient(CURLE_PEER_FAILED_VERIFICATION))
        XCTAssertFalse(RetryPolicy.isTransient(CURLE_URL_MALFORMAT))
    }
}

final class AttemptClassifierTests: XCTestCase {
    private let classifier = AttemptClassifier(decoder: BodyDecoder(), bodyLimit: 1 << 20)
    private let url = "http://127.0.0.1/x"

    private func step(status: Int = 200, code: CURLcode = CURLE_OK, headers: [String] = [], body: Data = Data(),
                      redirect: String? = nil) -> AttemptStep {
        var fields = ResponseHeaderFields()
        for line in headers { Array((line + "\r\n").utf8).withUnsafeBufferPointer { fields.consume(line: $0) } }
        let result = AttemptResult(code: code, message: "boom", status: status, headers: fields, body: body,
                                   bodyTooLarge: false, redirectURL: redirect, newConnections: 0)
        return classifier.classify(result, url: url, now: 1000)
    }

    func testStatusesMapToOutcomes() {
        guard case .finish(.success(.ok(let response))) = step(body: Data("{}".utf8)) else { return XCTFail() }
        XCTAssertEqual(response.content, Data("{}".utf8))
        guard case .finish(.success(.noContent(404, _))) = step(status: 404),
              case .finish(.success(.noContent(204, _))) = step(status: 204),
              case .finish(.success(.notModified)) = step(status: 304),
              case .finish(.failure(.status(403, _))) = step(status: 403),
              case .finish(.failure(.status(410, _))) = step(status: 410),
              case .redirect("http://127.0.0.1/y") = step(status: 301, redirect: "http://127.0.0.1/y"),
              case .finish(.failure(.status(302, _))) = step(status: 302)
        else { return XCTFail("a status was misclassified") }
    }

    func testTransientFailuresAreRetried() {
        guard case .retry(.status(503, _), nil) = step(status: 503),
              case .retry(.status(429, _), 7) = step(status: 429, headers: ["Retry-After: 7"]),
              case .retry(.network(18, "boom", _), nil) = step(code: CURLE_PARTIAL_FILE),
              case .retry(.network(56, _, _), nil) = step(code: CURLE_RECV_ERROR),
              case .retry(.corruptBody, nil) = step(headers: ["Content-Encoding: gzip"], body: Data([0x1F, 0x8B, 8, 0]))
        else { return XCTFail("a transient failure was not retried") }
        guard case .finish(.failure(.network(60, _, _))) = step(code: CURLE_PEER_FAILED_VERIFICATION),
              case .finish(.failure(.unsupportedEncoding("br", _))) = step(headers: ["Content-Encoding: br"], body: Data([1]))
        else { return XCTFail("a permanent failure was retried") }
    }
}
