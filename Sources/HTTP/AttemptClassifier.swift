import Basics
import CCurl
import FoundationEssentials

/// What the loop does after an attempt ends.
enum AttemptStep {
    case finish(HTTPOutcome)
    /// Worth another attempt; `retryAfter` (seconds) is the server's lower bound on the wait.
    case retry(HTTPError, retryAfter: Double?)
    /// A 3xx: follow `target` once the loop has checked its host.
    case redirect(target: String)
}

/// Maps one attempt's raw result to an answer, a retry or an error: the one place that decides.
/// No handle and no clock but `now`, so every path is testable without a server.
struct AttemptClassifier {
    let decoder: BodyDecoder
    let bodyLimit: Int

    func classify(_ result: AttemptResult, url: String, now: Int64) -> AttemptStep {
        guard result.code == CURLE_OK else { return networkFailure(result, url: url) }
        let status = result.status
        switch status {
        case 204, 404:
            return .finish(.success(.noContent(status: status, headers: result.headers.cacheHeaders(now: now))))
        case 200..<300:
            return decoded(result, url: url, now: now)
        case 304:
            return .finish(.success(.notModified(result.headers.cacheHeaders(now: now))))
        case 300..<400:
            guard let target = result.redirectURL else { return .finish(.failure(.status(status, url: url))) }
            return .redirect(target: target)
        case _ where RetryPolicy.isTransient(status: status):
            return .retry(.status(status, url: url), retryAfter: result.headers.retryAfterDelay(now: now))
        default:
            // Any other 4xx is not retried: the request (or the server's view of it) is wrong.
            return .finish(.failure(.status(status, url: url)))
        }
    }

    /// A 2xx with a body to decode: the step comes from `decoded`, which may run on another thread.
    static func needsDecoding(_ result: AttemptResult) -> Bool {
        result.code == CURLE_OK && result.status != 204 && (200..<300).contains(result.status)
    }

    private func networkFailure(_ result: AttemptResult, url: String) -> AttemptStep {
        if result.bodyTooLarge { return .finish(.failure(.bodyTooLarge(limit: bodyLimit, url: url))) }
        if let refused = result.refusedAddress {
            return .finish(.failure(.addressRefused(url: url, address: refused.address, scope: refused.scope)))
        }
        let error = HTTPError.network(code: Int(result.code.rawValue), message: result.message, url: url)
        return RetryPolicy.isTransient(result.code) ? .retry(error, retryAfter: nil) : .finish(.failure(error))
    }

    func decoded(_ result: AttemptResult, url: String, now: Int64) -> AttemptStep {
        do {
            let coding = result.headers.contentEncoding
            // Parts of a file, cut apart by the caller: kept as received, not compressed whole.
            let body = result.isRange && (coding ?? "identity") == "identity"
                ? BodyDecoder.Decoded(content: result.body, stored: StoredData(bytes: result.body, compressed: false))
                : try decoder.decode(result.body, contentEncoding: coding, limit: bodyLimit, url: url)
            let response = HTTPResponse(
                status: result.status, content: body.content, stored: body.stored,
                headers: result.headers.cacheHeaders(now: now), wireBytes: result.body.count)
            return .finish(.success(.ok(response)))
        } catch {
            let failure = error as? HTTPError ?? .corruptBody(reason: "\(error)", url: url)
            // A corrupt body was damaged in transit as far as we can tell: the next attempt may get it whole.
            if case .corruptBody = failure { return .retry(failure, retryAfter: nil) }
            return .finish(.failure(failure))
        }
    }
}
