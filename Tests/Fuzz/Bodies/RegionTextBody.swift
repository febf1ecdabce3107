import Basics
import Foundation
import PackFS
import PackStore

/// Region text through the mount's write path (`RegionTextScan` inside `RegionDrafts`, then
/// `RegionFile.parse` as the pack manager runs it): a region file created, written in chunks as
/// `cp` or a shell would, released.
extension FuzzBodies {
    /// Input: one byte n (chunks, 1 to 16), n chunk lengths (one byte each), then the text; the
    /// last chunk takes what the lengths leave. Held to:
    /// - a text that is one JSON object (trailing whitespace allowed) reaches the pack manager
    ///   exactly once, whole: judging a prefix would refuse a good file because of how it was
    ///   split into writes;
    /// - a text whose first bytes can start no JSON object (NUL, binary junk) fails the write
    ///   that brought its first such byte with EINVAL, as `cp` must learn.
    static func regionText(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard let first = bytes.first else { return }
        let chunks = Int(first % 16) + 1
        guard bytes.count > chunks else { return }
        let text = Data(bytes[(chunks + 1)...])
        var lengths = bytes[1...chunks].map(Int.init)
        lengths[lengths.count - 1] = max(0, text.count - lengths.dropLast().reduce(0, +))
        let (submissions, refused) = try write(text, in: lengths)
        if let junk = firstJunk(text) {
            try check(refused.contains { $0.contains(junk) },
                      "byte \(text[junk]) at \(junk) starts no JSON object, but its write was not refused (chunks \(lengths))")
        }
        guard let parsed = JSONValue.parse(text), parsed.object != nil else { return }
        let judged = submissions.map { String(decoding: $0, as: UTF8.self) }
        try check(submissions.count == 1 && submissions.first.map(trimmed) == trimmed(text),
                  "a JSON object written in chunks \(lengths) was judged as \(judged)")
    }

    /// The offset of the text's first byte that is no blank (nor a byte of UTF-8's byte order
    /// mark, which the scan passes over) when that byte cannot start a JSON object; nil otherwise.
    private static func firstJunk(_ text: Data) -> Int? {
        guard let index = text.firstIndex(where: { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }),
              text[index] != UInt8(ascii: "{")
        else { return nil }
        return index - text.startIndex
    }

    /// Creates `fuzz.region`, writes `text` in chunks of `lengths`, releases it; returns what
    /// reached the pack manager and the ranges of the writes refused with EINVAL.
    private static func write(_ text: Data, in lengths: [Int]) throws -> ([Data], [Range<Int>]) {
        let (filesystem, recorder) = try writeSide.get()
        recorder.reset()
        let packs = try filesystem.lookup(parent: .root, name: "packs", caller: caller).attributes.inode
        let (entry, options) = try filesystem.create(
            parent: packs, name: "fuzz.region", mode: 0o644, flags: O_WRONLY | O_CREAT | O_TRUNC, caller: caller)
        var offset = 0
        var refused: [Range<Int>] = []
        for length in lengths where offset < text.count {
            let end = min(text.count, offset + length)
            // A refusal fails the write that decided the text (EINVAL): the writer goes on.
            do {
                _ = try filesystem.write(
                    inode: entry.attributes.inode, handle: options.handle, offset: Int64(offset), data: text[offset..<end])
            } catch FilesystemError.invalid {
                refused.append(offset..<end)
            } catch {
                // Any other refusal is no verdict on the text.
            }
            offset = end
        }
        filesystem.release(inode: entry.attributes.inode, handle: options.handle)
        return (recorder.submissions, refused)
    }

    private static func trimmed(_ data: Data) -> Data {
        var end = data.endIndex
        while end > data.startIndex, [0x20, 0x0A, 0x0D, 0x09].contains(data[end - 1]) { end -= 1 }
        return Data(data[..<end])
    }

    static let caller = Caller(uid: getuid(), gid: getgid(), pid: 1)

    /// One filesystem over an empty database for the whole process (opening one per input would
    /// measure SQLite, not the scanner).
    private static let writeSide = Result { () throws -> (PackFilesystem, Recorder) in
        let database = try OfflineDatabase.open(path: scratch.appendingPathComponent("regiontext.db").path, mode: .mount)
        let recorder = Recorder()
        return (PackFilesystem(database: database, mountpoint: "/fuzz", controller: recorder), recorder)
    }
}

/// A pack manager that keeps what it is handed and judges it as the real one parses it.
final class Recorder: PackController, @unchecked Sendable {  // `handed` is guarded by `lock`
    private let lock = NSLock()
    private var handed: [Data] = []

    var submissions: [Data] { lock.withLock { handed } }

    func reset() { lock.withLock { handed = [] } }

    func regionFileSubmitted(name: String, content: Data) throws {
        lock.withLock { handed.append(content) }
        _ = try RegionFile.parse(content)
    }

    func removePack(_ region: RegionID) throws {}
    func refreshPack(_ region: RegionID) throws {}
    func setPackActive(_ region: RegionID, _ active: Bool) throws {}
    func patchSubmitted(_ region: RegionID, path: String, fileName: String) throws -> TileChanges {
        throw CocoaError(.featureUnsupported)
    }
}
