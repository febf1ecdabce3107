/// Groups the byte extents of the tiles a region needs from an archive into few range requests,
/// as `pmtiles extract` does: extents that overlap always share a request, and touching ones up
/// to `maxLength`; across a gap, the smallest gaps are bridged first, while the bytes fetched for
/// nothing stay within `overfetch` of the bytes needed, and no request grows past `maxLength`.
enum RangeMerger {
    /// One request: its bytes, and which of the extents (by index) it carries.
    struct Group: Equatable {
        var offset: UInt64
        var length: UInt64
        var members: [Int]
    }

    static func merge(_ extents: [(offset: UInt64, length: UInt64)], overfetch: Double, maxLength: UInt64) -> [Group] {
        let order = extents.indices.sorted { extents[$0].offset < extents[$1].offset }
        // Runs of extents that touch or overlap, in offset order.
        var runs: [Group] = []
        var needed: UInt64 = 0
        for index in order {
            let (offset, length) = extents[index]
            let end = offset + length
            // Overlapping extents (one content for several tiles) always share; touching ones
            // while the request stays within `maxLength`.
            if var last = runs.last, offset < last.offset + last.length
                || (offset == last.offset + last.length && end - last.offset <= maxLength)
            {
                let grown = max(last.offset + last.length, end) - last.offset
                needed += grown - last.length
                last.length = grown
                last.members.append(index)
                runs[runs.count - 1] = last
            } else {
                runs.append(Group(offset: offset, length: length, members: [index]))
                needed += length
            }
        }
        return bridged(runs, budget: UInt64(Double(needed) * max(overfetch, 0)), maxLength: maxLength)
    }

    /// Joins neighbouring runs across the smallest gaps the budget allows.
    private static func bridged(_ runs: [Group], budget: UInt64, maxLength: UInt64) -> [Group] {
        guard runs.count > 1 else { return runs }
        let gaps = (0..<(runs.count - 1)).map { runs[$0 + 1].offset - (runs[$0].offset + runs[$0].length) }
        var joined = [Bool](repeating: false, count: gaps.count)
        var spent: UInt64 = 0
        for gap in gaps.indices.sorted(by: { gaps[$0] < gaps[$1] }) {
            guard spent + gaps[gap] <= budget else { break }
            spent += gaps[gap]
            joined[gap] = true
        }
        var groups = [runs[0]]
        for index in 1..<runs.count {
            let run = runs[index]
            let last = groups[groups.count - 1]
            let length = run.offset + run.length - last.offset
            if joined[index - 1], length <= maxLength {
                groups[groups.count - 1].length = length
                groups[groups.count - 1].members += run.members
            } else {
                groups.append(run)
            }
        }
        return groups
    }
}
