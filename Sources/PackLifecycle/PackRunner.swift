import Basics
import Downloader
import FoundationEssentials
import PackStore
import StyleModel

/// The database side of the lifecycle: runs made from the stored definition, states recorded,
/// failures reported, events sent. Shared by the manager and its lanes.
struct PackRunner: Sendable {
    let database: OfflineDatabase
    let options: DownloadOptions
    let events: (any PackEventSink)?
    /// Computes the hash a completed run leaves owed.
    let hasher: PackHasher?

    /// A run of `mode` over the pack's definition as stored now. Nil when the pack is gone
    /// (removed: nothing to say) or cannot run (reported: state `error`, a log line).
    func makeRun(_ region: RegionID, _ mode: PackDownload.Mode) -> PackDownload? {
        do {
            let definition = try definition(of: try database.pack(id: region))
            let run = PackDownload(database: database, region: region, definition: definition, options: options, mode: mode)
            run.onMembersLeft = { [events] tiles, resources in
                events?.packMembersLeft(region, tiles: tiles, resources: resources)
            }
            run.onSwitched = { [events] switched in events?.packContentSwitched(switched) }
            return run
        } catch StoreError.regionNotFound {
            return nil
        } catch {
            // A failure to read the pack itself: said once, in the log (no state can be stored).
            log("pack \(region.rawValue): \(error)")
            return nil
        }
    }

    /// The pack's definition, or the pack goes to `error` and the failure is thrown.
    func definition(of pack: Pack) throws -> RegionDefinition {
        guard let definition = pack.definition else {
            throw fail(pack, reason: "its definition cannot be read: \(pack.definitionText)")
        }
        // Refused, not failed: the pack stays as imported, complete.
        guard !ImportedFiles.isImported(definition.styleURL) else { throw LifecycleError.imported(name: pack.name) }
        return definition
    }

    /// Marks a run in the database before it sends anything, so a crash counts against the pack
    /// (InterruptedRuns.swift). A mark that cannot be written is logged; the run goes on.
    func starting(_ region: RegionID) {
        do {
            try database.markRunUnderWay(region)
        } catch {
            log("pack \(name(of: region)): marking its run under way failed: \(error)")
        }
    }

    /// A run ended: its mark goes, a failure is logged (the run stored it) and the sink told.
    func ended(_ region: RegionID, _ mode: PackDownload.Mode, _ status: PackStatus) {
        do {
            try database.markRunEnded(region, finished: status.state == .complete || status.state == .error)
        } catch {
            log("pack \(name(of: region)): marking its run ended failed: \(error)")
        }
        if status.state == .error {
            log(LifecycleError.packFailed(name: name(of: region), reason: status.error ?? "failed").description)
        }
        events?.packRunEnded(region, mode: mode)
        if status.state == .complete { hasher?.wake() }
    }

    /// Records `reason` as the pack's state `error`, logs it, and returns it to throw.
    func fail(_ pack: Pack, reason: String) -> LifecycleError {
        let failure = LifecycleError.packFailed(name: pack.name, reason: reason)
        log(failure.description)
        do {
            try record(pack.id) { status in
                status.state = .error
                status.error = reason
            }
        } catch {
            log("pack \(pack.name): recording its error failed: \(error)")
        }
        return failure
    }

    /// Changes the pack's recorded state (the counts stay as the last run left them).
    func record(_ region: RegionID, _ change: (inout PackStatus) -> Void) throws {
        var status = try database.status(of: region)
        change(&status)
        try database.setStatus(status, of: region)
    }

    func name(of region: RegionID) -> String {
        (try? database.pack(id: region).name) ?? "region-\(region.rawValue)"
    }

    /// One line on stderr: the mount's log.
    func log(_ line: String) {
        StandardError.write("packfs: \(line)\n")
    }
}
