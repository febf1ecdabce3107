/// A batch's tile bytes end to end in one buffer that keeps its capacity when emptied, so a verify's
/// buffers are allocated once, not per batch (docs/benchmarks.md, "Designs measured and set aside").
final class ByteArena: @unchecked Sendable {  // `bytes` is used by one thread at a time: handed to `BatchPipeline`'s queues by dispatch, back through its lock
    private var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    /// Appends `data`; where it lies.
    func append(_ data: UnsafeRawBufferPointer) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: data)
        return start..<bytes.count
    }

    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T { try bytes.withUnsafeBytes(body) }

    /// Empties it, its capacity kept.
    func reset() { bytes.removeAll(keepingCapacity: true) }
}
