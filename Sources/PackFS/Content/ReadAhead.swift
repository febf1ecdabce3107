import Basics
import FoundationEssentials
import PackStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads ahead of a reader that walks tiles one after another (a tile server's thread, `cp -r`, `tar`,
/// a renderer's tile worker): when a caller's tile lookup is a step to an edge neighbour of its last
/// one, the next `depth` tiles along that step are decoded on a spare core into the content cache, so
/// the caller's next lookup and read find them there instead of waiting for the row and its inflate.
/// A serial reader leaves the other cores idle; this uses one of them. Only for a caller that read the
/// tile it looked up before (`du` and `ls -l` look tiles up without reading them). Never against demand: a tile
/// is read ahead only while fewer requests are being served than there are cores and the machine has
/// a core to spare (its runnable tasks, /proc/loadavg); what waited in the queue meanwhile is dropped.
/// `-o read_ahead=`: `auto` reads ahead while a core is spare, `on` whenever a step is seen (tests,
/// benchmarks), `off` (the mount's default) never.
public enum ReadAheadMode: String, Sendable {
    case auto, on, off
}

final class ReadAhead: Sendable {
    struct Place: Hashable, Sendable {
        var region: RegionID
        var key: TileKey
    }

    /// How many tiles ahead of a caller's last step.
    static let depth = 2
    /// Requests being served now (`PackFilesystem.serving`), against the cores.
    let demand = Atomic<Int>(0)
    private let cores = max(ProcessInfo.processInfo.activeProcessorCount, 2)
    private let state = LockedState(State())
    private let worker = BackgroundWorker(name: "PackFS read-ahead")
    private let mode: ReadAheadMode

    init(mode: ReadAheadMode) { self.mode = mode }

    /// Whether the mount reads ahead: when off, the hot paths skip even the bookkeeping.
    var isOn: Bool { mode != .off }

    private struct State {
        /// Each caller's last tile and its inode (FUSE's pid is the calling thread's id).
        var last: [Int32: (place: Place, inode: Inode)] = [:]
        /// Tiles read lately, by inode.
        var read = Set<Inode>()
        var queue: [Place] = []
        /// Places queued lately, not queued again.
        var recent = Set<Place>()
        var recentOrder: [Place] = []
        /// Tiles read ahead and not yet asked for, by inode.
        var fetched = Set<Inode>()
        var figures = Figures()
    }

    /// For status.json: tiles read ahead, and how many of them a lookup then asked for.
    struct Figures: Equatable {
        var tiles = 0
        var used = 0
    }

    var figures: Figures { state.withLock { $0.figures } }

    /// Notes `caller`'s lookup of `place` and plans the tiles after it; `fetch` reads one ahead and
    /// gives the inode it cached the content under (nil: nothing cached).
    func looked(up place: Place, inode: Inode, by caller: Int32, fetch: @escaping @Sendable (Place) -> Inode?) {
        let planned = state.withLock { state -> Bool in
            let previous = state.last.updateValue((place, inode), forKey: caller)
            // A bound on callers seen: a busy server's threads come and go.
            if state.last.count > 64 { state.last = [caller: (place, inode)] }
            guard let previous, state.read.contains(previous.inode) else { return false }
            let ahead = Self.ahead(of: place, after: previous.place).filter { !state.recent.contains($0) }
            for next in ahead { Self.remember(next, in: &state) }
            state.queue.append(contentsOf: ahead)
            // The newest plans matter; a reader far ahead of the queue leaves stale places behind.
            if state.queue.count > 4 * Self.depth { state.queue.removeFirst(state.queue.count - 4 * Self.depth) }
            return !ahead.isEmpty
        }
        guard planned else { return }
        worker.wake { [self] stopped in
            while !stopped(), let next = next() {
                guard let inode = fetch(next) else { continue }
                state.withLock { state in
                    state.figures.tiles += 1
                    if state.fetched.count >= 64 { state.fetched.removeAll() }
                    state.fetched.insert(inode)
                }
            }
        }
    }

    /// A tile was read (its content served).
    func read(_ inode: Inode) {
        state.withLock { state in
            if state.read.count >= 256 { state.read.removeAll() }
            state.read.insert(inode)
        }
    }

    /// A lookup found the content of `inode` cached: counted if it was read ahead.
    func claim(_ inode: Inode) {
        state.withLock { state in
            if state.fetched.remove(inode) != nil { state.figures.used += 1 }
        }
    }

    /// Stops the thread (at unmount, before the store closes).
    func stop() { worker.stop() }

    /// The next place to read, or nil: the queue is empty, or the cores are busy (the queue is dropped).
    private func next() -> Place? {
        let spare = mode == .on || MachineLoad.hasSpareCore(cores: cores)  // this thread is one of them
        return state.withLock { state in
            guard spare, mode == .on || demand.load(ordering: .relaxed) < cores else {
                state.queue.removeAll()
                return nil
            }
            return state.queue.popLast()
        }
    }

    /// The `depth` places after `place` along the step from `previous`, if that step went to an edge
    /// neighbour in the same tile set and zoom, inside the zoom's grid.
    static func ahead(of place: Place, after previous: Place) -> [Place] {
        let (key, last) = (place.key, previous.key)
        guard place.region == previous.region, key.urlTemplate == last.urlTemplate,
            key.pixelRatio == last.pixelRatio, key.z == last.z, (0...30).contains(key.z)
        else { return [] }
        let (dx, dy) = (key.x - last.x, key.y - last.y)
        guard abs(dx) + abs(dy) == 1 else { return [] }
        let side = 1 << key.z
        return (1...depth).compactMap { step in
            var next = place
            next.key.x += dx * step
            next.key.y += dy * step
            return (0..<side).contains(next.key.x) && (0..<side).contains(next.key.y) ? next : nil
        }
    }

    private static func remember(_ place: Place, in state: inout State) {
        state.recent.insert(place)
        state.recentOrder.append(place)
        guard state.recentOrder.count > 256 else { return }
        for old in state.recentOrder.prefix(128) { state.recent.remove(old) }
        state.recentOrder.removeFirst(128)
    }
}
