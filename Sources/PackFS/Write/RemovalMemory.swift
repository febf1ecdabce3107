import Foundation
import PackStore

/// Settles a pack's hand drops (`OfflineDatabase.settleDrops`) once it has rested from unlinks:
/// `rm -r` unlinks file after file without pause, so its drops stay restorable until its last
/// rmdir removes the pack, while a user's `rm` of a few files holds after the delay.
final class DropSettler: Sendable {
    private let latest = LockedState<[RegionID: Int]>([:])

    /// Runs `settle` once `delay` passes with no other drop from `region`.
    func noteDrop(_ region: RegionID, after delay: TimeInterval, settle: @escaping @Sendable () -> Void) {
        let serial = latest.withLock { serials -> Int in
            serials[region, default: 0] += 1
            return serials[region, default: 0]
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [latest] in
            guard latest.withLock({ $0[region] == serial }) else { return }
            settle()
        }
    }
}

/// The names of the packs this mount removed, by region, the last `capacity` of them: a node of
/// a removed pack says which name the kernel may still hold for it.
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
