import Basics
import FoundationEssentials
import SQLiteDB

extension OfflineDatabase {
    /// Creates pack `name` and stores its content in the same transaction: `fill` gets the batch and the new pack's
    /// id, stores and links what it holds, and returns the final definition (an imported file's zoom range is known
    /// only once its tiles are stored). A taken name, or any error `fill` throws, leaves the database as it was.
    public func createPack(
        name: String, definition: RegionDefinition, metadata: JSONValue?,
        filling fill: (StoreBatch, RegionID) throws -> RegionDefinition
    ) throws -> Pack {
        try PackName.validate(name)
        let id = try writePacks { batch -> RegionID in
            let db = batch.database
            try Self.requireFree(name, db)
            let id = try Self.insertPack(name: name, definition: definition, metadata: metadata, db)
            let final = try fill(batch, id)
            if final != definition {
                try db.execute(
                    sql: "UPDATE regions SET definition = ? WHERE id = ?",
                    arguments: [final.mapLibreJSON, id.rawValue])
            }
            return id
        }
        return try pack(id: id)
    }
}
