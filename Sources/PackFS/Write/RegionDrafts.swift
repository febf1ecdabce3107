import Basics
import FoundationEssentials
import PackStore

/// Region files open for writing, by pack name. All handles on one name share one buffer, as on a disk, dropped with
/// the last handle. A draft is "dirty" until judged: after create (even left empty), a write, an O_TRUNC open or a
/// truncate. Released untouched (`touch`), it changes nothing; judged content is not submitted twice.
final class RegionDrafts: Sendable {
    /// Bounds what a stray `cp` of a large file can pin in memory; a region file is kilobytes.
    static let maxBytes = 16 << 20

    struct Draft: Equatable {
        var serial: UInt32
        var name: String
        var content: Data
        var dirty: Bool
        var handles: Int
        var scan = RegionTextScan()
        /// The content of the last verdict, without trailing whitespace.
        var judged: Data?
        /// Went past `maxBytes`: the text is dropped, never judged, and every later write or
        /// truncate through its handles fails the same way.
        var oversized = false

        /// Whether the content should be judged now: changed since the last verdict, and decided
        /// (`submission` then tells a change of trailing whitespace alone from a new text).
        var isDue: Bool { dirty && !oversized && scan.state != .open }

        static func trimmed(_ text: Data) -> Data {
            var end = text.endIndex
            while end > text.startIndex, RegionTextScan.isWhitespace(text[end - 1]) { end -= 1 }
            return text[..<end]
        }

        /// Brings the scan up to date after a change from `changedFrom` on (`RegionTextScan.advance`).
        mutating func rescan(changedFrom: Int, written: Range<Int>) {
            if changedFrom < scan.position { scan = RegionTextScan() }
            scan.advance(over: content, written: written)
        }
    }

    struct Submission: Equatable {
        var name: String
        var content: Data
    }

    private struct State {
        var byName: [String: Draft] = [:]
        var nameByHandle: [UInt64: String] = [:]
        var nextSerial: UInt32 = 1
        var nextHandle: UInt64 = 1
        /// Handles opened on the kernel's behalf when opens are stateless (writes arrive with
        /// handle 0): one per name, judged and dropped once it settles.
        var implicitByName: [String: UInt64] = [:]
        /// Lets a settle scheduled after one change tell whether another came since.
        var implicitChanges: UInt64 = 0
        var lastImplicitChange: [String: UInt64] = [:]

        mutating func open(name: String, current: Data, truncate: Bool, dirty: Bool) -> UInt64 {
            var draft = byName[name] ?? Draft(serial: nextSerial, name: name, content: current, dirty: false, handles: 0)
            if byName[name] == nil { nextSerial &+= 1 }
            if truncate {
                draft.content = Data()
                draft.oversized = false
                draft.rescan(changedFrom: 0, written: 0..<0)
            }
            draft.dirty = draft.dirty || dirty || truncate
            draft.handles += 1
            byName[name] = draft
            let handle = nextHandle
            nextHandle &+= 1
            nameByHandle[handle] = name
            return handle
        }

        /// Changes `name`'s draft in place, taken out of the dictionary so its buffer has one
        /// owner: else each write copies the whole text, quadratic for a text written in pieces.
        mutating func changeDraft(_ name: String, _ change: (inout Draft) throws -> Void) throws {
            guard var draft = byName.removeValue(forKey: name) else { throw FilesystemError.notPermitted }
            defer { byName[name] = draft }
            try change(&draft)
        }

        mutating func discard(_ name: String) {
            byName[name] = nil
            nameByHandle = nameByHandle.filter { $0.value != name }
            implicitByName[name] = nil
            lastImplicitChange[name] = nil
        }

        mutating func release(handle: UInt64) -> String? {
            guard let name = nameByHandle.removeValue(forKey: handle), var draft = byName[name] else { return nil }
            if implicitByName[name] == handle { implicitByName[name] = nil }
            draft.handles -= 1
            guard draft.handles <= 0 else {
                byName[name] = draft
                return nil
            }
            byName[name] = nil
            return name
        }
    }

    private let state = LockedState(State())

    /// A new handle on `name`'s draft; `current` is what a new draft starts from.
    func open(name: String, current: Data, truncate: Bool, dirty: Bool) -> UInt64 {
        state.withLock { $0.open(name: name, current: current, truncate: truncate, dirty: dirty) }
    }

    /// Writes `data` at `offset` of the handle's draft (a hole reads as zeros).
    func write(handle: UInt64, offset: Int64, data: Data) throws -> Int {
        try state.withLock { state in
            guard let name = state.nameByHandle[handle] else { throw FilesystemError.notPermitted }
            // Subtracted, not added: the kernel's offset may be near Int64.max.
            guard offset >= 0, offset <= Int64(Self.maxBytes) - Int64(data.count) else { throw FilesystemError.tooLarge }
            try state.changeDraft(name) { draft in
                guard !draft.oversized else { throw FilesystemError.tooLarge }
                let end = Int(offset) + data.count
                if draft.content.count < end { draft.content.append(Data(count: end - draft.content.count)) }
                let start = draft.content.startIndex + Int(offset)
                draft.content.replaceSubrange(start..<start + data.count, with: data)
                draft.rescan(changedFrom: Int(offset), written: Int(offset)..<end)
                draft.dirty = true
            }
            return data.count
        }
    }

    /// ftruncate on an open region file; false when `name` has no draft (it is not open for writing).
    func resize(name: String, to size: UInt64) throws -> Bool {
        try state.withLock { state in
            guard state.byName[name] != nil else { return false }
            guard size <= Self.maxBytes, state.byName[name]?.oversized != true else { throw FilesystemError.tooLarge }
            try state.changeDraft(name) { draft in
                let changedFrom = min(draft.content.count, Int(size))
                if draft.content.count > Int(size) {
                    draft.content = draft.content.prefix(Int(size))
                } else {
                    draft.content.append(Data(count: Int(size) - draft.content.count))
                }
                draft.rescan(changedFrom: changedFrom, written: changedFrom..<changedFrom)
                draft.dirty = true
            }
            return true
        }
    }

    /// The name of the draft `handle` writes to; nil for anything but a write handle.
    func name(handle: UInt64) -> String? { state.withLock { $0.nameByHandle[handle] } }

    func isDue(name: String) -> Bool { state.withLock { $0.byName[name]?.isDue ?? false } }

    /// The content to judge if it changed beyond trailing whitespace; from now on it counts as judged.
    func submission(name: String) -> Submission? {
        state.withLock { state in
            guard var draft = state.byName[name], draft.dirty, !draft.oversized else { return nil }
            let trimmed = Draft.trimmed(draft.content)
            let changed = trimmed != draft.judged
            draft.dirty = false
            draft.judged = trimmed
            state.byName[name] = draft
            return changed ? Submission(name: name, content: draft.content) : nil
        }
    }

    func isLastHandle(_ handle: UInt64) -> Bool {
        state.withLock { state in state.nameByHandle[handle].flatMap { state.byName[$0] }?.handles == 1 }
    }

    /// Drops a handle; returns the draft's name when that was its last handle (the draft is gone).
    func release(handle: UInt64) -> String? { state.withLock { $0.release(handle: handle) } }

    /// The implicit handle for `name`, opened (from `current`) if there is none.
    func implicitHandle(name: String, current: Data) -> UInt64 {
        state.withLock { state in
            if let handle = state.implicitByName[name] { return handle }
            let handle = state.open(name: name, current: current, truncate: false, dirty: false)
            state.implicitByName[name] = handle
            return handle
        }
    }

    /// Notes a change to `name`'s implicit draft; returns its number for `isLatestChange`.
    func noteImplicitChange(name: String) -> UInt64 {
        state.withLock { state in
            state.implicitChanges &+= 1
            state.lastImplicitChange[name] = state.implicitChanges
            return state.implicitChanges
        }
    }

    func isLatestChange(_ change: UInt64, name: String) -> Bool {
        state.withLock { $0.lastImplicitChange[name] == change }
    }

    /// A created file's `handle` that no release will close (stateless opens) settles as an
    /// implicit handle does, unless `name` already has one.
    func settleWithoutRelease(name: String, handle: UInt64) {
        state.withLock { state in
            if state.implicitByName[name] == nil { state.implicitByName[name] = handle }
        }
    }

    /// `name` no longer names a pack: a judged draft goes, so a new text for it is judged afresh.
    /// False, and the draft stays, when it is not judged yet.
    @discardableResult
    func dropJudged(name: String) -> Bool {
        state.withLock { state in
            guard let draft = state.byName[name] else { return true }
            guard !draft.dirty else { return false }
            state.discard(name)
            return true
        }
    }

    /// Marks `name`'s draft `oversized`; its handles stay open until released.
    func refuseOversized(name: String) {
        state.withLock { state in
            guard var draft = state.byName[name] else { return }
            draft.oversized = true
            draft.dirty = false
            draft.content = Data()
            state.byName[name] = draft
            state.lastImplicitChange[name] = nil
        }
    }

    /// Drops `name`'s draft whatever its state; a later write through one of its handles is refused.
    func discard(name: String) { state.withLock { $0.discard(name) } }

    /// Whether `name`'s draft has an implicit handle (one no release will close).
    func isImplicit(name: String) -> Bool { state.withLock { $0.implicitByName[name] != nil } }

    /// Drops `name`'s implicit handle (its writer has settled).
    func releaseImplicit(name: String) -> String? {
        state.withLock { state in
            state.lastImplicitChange[name] = nil
            guard let handle = state.implicitByName.removeValue(forKey: name) else { return nil }
            return state.release(handle: handle)
        }
    }

    func draft(named name: String) -> Draft? { state.withLock { $0.byName[name] } }

    /// Where `name`'s buffer lives (for tests: a write that copied the text moved it).
    func bufferAddress(named name: String) -> UInt? {
        state.withLock { $0.byName[name]?.content.withUnsafeBytes { $0.baseAddress.map { UInt(bitPattern: $0) } } }
    }

    func draft(_ serial: UInt32) -> Draft? { state.withLock { $0.byName.values.first { $0.serial == serial } } }

    var all: [Draft] { state.withLock { $0.byName.values.sorted { $0.name < $1.name } } }
}
