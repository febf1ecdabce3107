import SQLiteDB

/// Tests only: GRDB's non-optional subscripts (`row["id"] as Int`), which trap when the value is
/// NULL, missing or does not convert. The tests read rows they wrote themselves; PackFS's own code
/// cannot reach these (it reads with `decode`, or SQLiteDB's optional subscripts). Disfavored:
/// `row["id"] as Int?` is SQLiteDB's lenient subscript, as in PackFS's code.
extension Row {
    @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        trapping(column: index) { try decode(Value.self, atIndex: index) }
    }

    @_disfavoredOverload
    public subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value {
        trapping(column: name) { try decode(Value.self, forColumn: name) }
    }

    private func trapping<Value>(column: CustomStringConvertible, _ decode: () throws -> Value) -> Value {
        do {
            return try decode()
        } catch {
            fatalError("row \(self), column \(column): \(error)")
        }
    }
}
