import Basics
import FoundationEssentials
import HTTP
import PackStore

/// `BodyDecoder`s for whichever thread needs one: a decoder is not thread-safe, and archive
/// ranges complete on any of the decode pool's workers.
final class BodyDecoders: @unchecked Sendable {  // `lock` guards `free`
    private let lock = Lock()
    private var free: [BodyDecoder] = []

    func with<T>(_ body: (BodyDecoder) throws -> T) rethrows -> T {
        let decoder = lock.withLock { free.popLast() } ?? BodyDecoder()
        defer { lock.withLock { free.append(decoder) } }
        return try body(decoder)
    }
}
