import Basics
import FoundationEssentials
import SQLiteDB

/// A stored value's bytes where SQLite holds them for the row being stepped, valid only inside the call
/// it is passed to: `packfs verify` and the hash read every byte of a pack (`forEachPackTileBytes`)
/// without a `Data` copy or a `Row` per tile.
public struct StoredBytes {
    public let bytes: UnsafeRawBufferPointer
    public let compressed: Bool

    public init(bytes: UnsafeRawBufferPointer, compressed: Bool) {
        self.bytes = bytes
        self.compressed = compressed
    }

    /// A copy that outlives the row.
    public var stored: StoredData { StoredData(bytes: Data(bytes), compressed: compressed) }
}

extension StatementRow {
    /// An integer column, or `Row.stored`'s error (`RowDecoding`) for anything else.
    func storedInt(_ index: Int, _ column: String) throws -> Int {
        guard let value = integer(index).flatMap({ Int(exactly: $0) }) else {
            throw StoreError.invalidData(Row.mismatch(databaseValue(index), column, Int.self))
        }
        return value
    }

    /// Calls `body` with `data` and `compressed` at `index` and `index + 1`, read as
    /// `OfflineDatabase.storedData` reads them: a blob's or text's bytes in place (any other value throws),
    /// compressed when a nonzero number.
    func withStoredBytes<T>(_ index: Int, of table: String, _ body: (StoredBytes) throws -> T) throws -> T {
        guard holdsBytes(index) else {
            throw StoreError.invalidData(Row.mismatch(databaseValue(index), "\(table).data", Data.self))
        }
        let compressed = integer(index + 1).map { $0 != 0 } ?? Bool.fromDatabaseValue(databaseValue(index + 1)) ?? false
        return try withUnsafeBlob(at: index) { bytes in
            try body(StoredBytes(bytes: bytes ?? UnsafeRawBufferPointer(start: nil, count: 0), compressed: compressed))
        }
    }
}
