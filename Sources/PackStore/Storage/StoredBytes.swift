import Basics
import FoundationEssentials
import SQLiteDB

/// A stored value's bytes where SQLite holds them for the row being stepped, as `StoredData`
/// (`data` NOT NULL): valid only inside the call it is passed to. The whole-pack walks hand
/// tiles out so (`forEachPackTileBytes`): `packfs verify` and the hash read every byte of a pack,
/// and neither a copy per tile into `Data` nor a `Row` per tile is made.
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
    /// An integer column (the queries select only integers where they use this), with the
    /// error of `Row.stored` (`RowDecoding`) for anything else.
    func storedInt(_ index: Int, _ column: String) throws -> Int {
        guard let value = integer(index).flatMap({ Int(exactly: $0) }) else {
            throw StoreError.invalidData(Row.mismatch(databaseValue(index), column, Int.self))
        }
        return value
    }

    /// Calls `body` with `data` and `compressed` at `index` and `index + 1`, as
    /// `OfflineDatabase.storedData` reads them: a blob or a text's bytes where SQLite holds them
    /// (any other value throws), and compressed when a number other than 0 (anything else is
    /// not).
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
