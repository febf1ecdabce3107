import SQLiteDB

/// Reading a column of a file PackFS did not write: MapLibre's tables are not STRICT, so an app's or a
/// damaged file may hold text where an integer belongs, invalid UTF-8, or NULL anywhere. These throw a
/// `StoreError` naming the column, so one bad row fails alone (EIO and a log line), never the daemon.
extension Row {
    /// The value of `column` (a name in the query), or `StoreError.invalidData`.
    func stored<Value: DatabaseValueConvertible>(_ column: String, of table: String) throws -> Value {
        do {
            return try decode(Value.self, forColumn: column)
        } catch {
            throw StoreError.invalidData(Self.mismatch(self[column] as DatabaseValue?, "\(table).\(column)", Value.self))
        }
    }

    /// The value at `index` (the query's column order), or `StoreError.invalidData`.
    func stored<Value: DatabaseValueConvertible>(at index: Int, _ column: String) throws -> Value {
        do {
            return try decode(Value.self, atIndex: index)
        } catch {
            throw StoreError.invalidData(Self.mismatch(self[index] as DatabaseValue?, column, Value.self))
        }
    }

    /// The value of `column`, nil when NULL, missing or not convertible: in bookkeeping, "not recorded".
    func lenient<Value: DatabaseValueConvertible>(_ column: String) -> Value? {
        (try? decode(Value?.self, forColumn: column)) ?? nil
    }

    static func mismatch(_ value: DatabaseValue?, _ column: String, _ type: Any.Type) -> String {
        let shown = value.map { String(String(describing: $0).prefix(80)) } ?? "nothing"
        return "\(column) holds \(shown), which is no \(type)"
    }
}
