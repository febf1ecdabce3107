import Basics
import FoundationEssentials
import PackStore
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Settles a pack's hand drops (`OfflineDatabase.settleDrops`) once every process that dropped files from it has ended,
/// checked every `interval`: a killed daemon leaves `rm -r`'s pack whole, while an `rm` of a few files holds once it is
/// gone. Not a delay after the last unlink: a slowed `rm -r` could outlast it, leaving half a pack after a kill.
final class DropSettler: Sendable {
    /// Per pack, the processes whose drops are not settled yet.
    private let droppers = LockedState<[RegionID: Set<Int32>]>([:])

    /// Notes a drop by process `pid`; `settle` runs once no such process of the pack is left.
    func noteDrop(_ region: RegionID, by pid: Int32, interval: TimeInterval, settle: @escaping @Sendable () -> Void) {
        let first = droppers.withLock { droppers -> Bool in
            defer { droppers[region, default: []].insert(pid) }
            return droppers[region] == nil
        }
        if first { check(region, interval: interval, settle: settle) }
    }

    private func check(_ region: RegionID, interval: TimeInterval, settle: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self else { return }
            let done = self.droppers.withLock { droppers -> Bool in
                let alive = (droppers[region] ?? []).filter(Self.isRunning)
                droppers[region] = alive.isEmpty ? nil : alive
                return alive.isEmpty
            }
            if done { settle() } else { self.check(region, interval: interval, settle: settle) }
        }
    }

    /// Whether process `pid` still exists (0 or less: a process the kernel could not name).
    private static func isRunning(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }
}

/// The names of the last `capacity` packs this mount removed: the kernel may still hold one of them.
final class RemovedPacks: Sendable {
    static let capacity = 256
    private let names = LockedState<[(region: RegionID, name: String)]>([])

    func note(_ region: RegionID, name: String) {
        names.withLock { names in
            names.append((region, name))
            if names.count > Self.capacity { names.removeFirst(names.count - Self.capacity) }
        }
    }

    func name(of region: RegionID) -> String? {
        names.withLock { names in names.last { $0.region == region }?.name }
    }
}
