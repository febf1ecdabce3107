import Basics
import Downloader
import HTTP
import TestSupport
import Foundation
import XCTest

/// Gathers completions from the loop thread; tests wait for a count. The waiter is woken once,
/// when the count is reached, not per completion: a wake-up per completion would cost the loop
/// thread a futex call and the benchmark a context switch per request.
final class CompletionCollector: @unchecked Sendable {  // `items` and `target` are guarded by `condition`
    private let condition = NSCondition()
    private var items: [HTTPCompletion<Int>] = []
    private var target = Int.max

    func add(_ completion: HTTPCompletion<Int>) {
        condition.lock()
        items.append(completion)
        if items.count >= target { condition.broadcast() }
        condition.unlock()
    }

    /// Waits until `count` completions arrived in all; returns them in arrival order (fewer on
    /// timeout).
    func wait(count: Int, timeout: TimeInterval) -> [HTTPCompletion<Int>] {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        target = count
        while items.count < count, condition.wait(until: deadline) {}
        target = Int.max
        return items
    }

    var all: [HTTPCompletion<Int>] {
        condition.lock()
        defer { condition.unlock() }
        return items
    }
}

/// A client with a collector, for one test.
struct ClientUnderTest {
    let client: HTTPClient<Int>
    let collector: CompletionCollector

    init(_ configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
         allowHost: @escaping @Sendable (String, Int) -> Bool = { _, _ in true }) throws {
        let collector = CompletionCollector()
        self.collector = collector
        client = try HTTPClient<Int>(configuration: configuration, allowHost: allowHost) { collector.add($0) }
    }

    /// Fetches `urls` (tag = index) and returns the completions ordered by tag.
    func fetch(_ urls: [String], validators: HTTPValidators? = nil, timeout: TimeInterval = 120,
               file: StaticString = #filePath, line: UInt = #line) -> [HTTPCompletion<Int>] {
        let before = collector.all.count
        client.submit(contentsOf: urls.enumerated().map { HTTPRequest(url: $1, validators: validators, tag: $0) })
        let got = collector.wait(count: before + urls.count, timeout: timeout).dropFirst(before)
        XCTAssertEqual(got.count, urls.count, "completions before the timeout", file: file, line: line)
        return got.sorted { $0.tag < $1.tag }
    }

    func fetch(_ url: String, validators: HTTPValidators? = nil) -> HTTPCompletion<Int>? {
        fetch([url], validators: validators).first
    }
}

extension HTTPOutcome {
    var response: HTTPResponse? {
        if case .success(.ok(let response)) = self { return response }
        return nil
    }
}

extension HTTPCompletion {
    /// The error the request ended with; nil for an answer.
    var failure: HTTPError? {
        if case .failure(let error) = outcome { return error }
        return nil
    }
}

/// Quick test settings: fast backoff, many attempts (fault tests inject up to 70% failures).
func testConfiguration(concurrency: Int = 20, attempts: Int = 40) -> HTTPClientConfiguration {
    var configuration = HTTPClientConfiguration()
    configuration.concurrency = concurrency
    configuration.retry = RetryPolicy(maxAttempts: attempts, baseDelay: 0.01, maxDelay: 0.2)
    configuration.connectTimeout = 5
    configuration.stallTimeout = 10
    return configuration
}

/// Paths of fixture files under `folder` (relative to Fixtures/world), percent-encoded, sorted.
func fixturePaths(_ folder: String, suffix: String) -> [String] {
    let root = ProjectPaths.world.appendingPathComponent(folder)
    let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    return files.filter { $0.hasSuffix(suffix) }.sorted().map {
        "/\(folder)/\($0)".addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0
    }
}
