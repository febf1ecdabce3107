import CCurl
import Foundation

/// What the loop does after an attempt ends.
enum AttemptStep {
    case finish(HTTPOutcome)
    /// Worth another attempt; `retryAfter` (seconds) is the server's lower bound on the wait.
    case retry(HTTPError, retryAfter: Double?)
    /// A 3xx: follow `target` once the loop has checked its host.
    case redirect(target: String)
}

/// Maps one attempt's raw result to the next step. No handle and no clock except `now`, so every
/// status and failure path is testable without a server.
struct AttemptClassifier {
    let decoder: BodyDecoder
    let bodyLimit: Int

    func classify(_ result: AttemptResult, url: String, now: Int64) -> AttemptStep {
        guard result.code == CURLE_OK else { return networkFailure(result, url: url) }
        let status = result.status
        switch status {
        case 204, 404:
            return .finish(.noContent(status: status, headers: result.headers.cacheHeaders(now: now)))
        case 200..<300:
            return decoded(result, url: url, now: now)
        case 304:
            return .finish(.notModified(result.headers.cacheHeaders(now: now)))
        case 300..<400:
            guard let target = result.redirectURL else { return .finish(.failed(.status(status, url: url))) }
            return .redirect(target: target)
        case _ where RetryPolicy.isTransient(status: status):
            return .retry(.status(status, url: url), retryAfter: result.headers.retryAfterDelay(now: now))
        case 400..<500:
            return .finish(.clientError(status: status))
        default:
            return .finish(.failed(.status(status, url: url)))
        }
    }

    /// A 2xx with a body to decode: the step comes from `decoded`, which may run on another thread.
    static func needsDecoding(_ result: AttemptResult) -> Bool {
        result.code == CURLE_OK && result.status != 204 && (200..<300).contains(result.status)
    }

    private func networkFailure(_ result: AttemptResult, url: String) -> AttemptStep {
        if result.bodyTooLarge { return .finish(.failed(.bodyTooLarge(limit: bodyLimit, url: url))) }
        let error = HTTPError.network(code: Int(result.code.rawValue), message: result.message, url: url)
        return RetryPolicy.isTransient(result.code) ? .retry(error, retryAfter: nil) : .finish(.failed(error))
    }

    func decoded(_ result: AttemptResult, url: String, now: Int64) -> AttemptStep {
        do {
            let body = try decoder.decode(result.body, contentEncoding: result.headers.contentEncoding, limit: bodyLimit)
            let response = HTTPResponse(
                status: result.status, content: body.content, stored: body.stored,
                headers: result.headers.cacheHeaders(now: now), wireBytes: result.body.count)
            return .finish(.ok(response))
        } catch BodyFailure.corrupt(let reason) {
            // Damaged in transit as far as we can tell: the next attempt may get it whole.
            return .retry(.badBody(reason: reason, url: url), retryAfter: nil)
        } catch BodyFailure.unsupportedEncoding(let coding) {
            return .finish(.failed(.badBody(reason: "unsupported Content-Encoding \(coding)", url: url)))
        } catch {
            return .finish(.failed(.bodyTooLarge(limit: bodyLimit, url: url)))
        }
    }
}
