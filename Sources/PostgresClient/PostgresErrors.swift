import Storage

/// PostgreSQL's SQLSTATE classes as storage errors.
enum PostgresErrors {
    static func storageError(sqlState: String, message: String) -> StorageError {
        let detail = sqlState.isEmpty ? message : "\(message) (SQLSTATE \(sqlState))"
        switch sqlState {
        case "23505": return StorageError(.constraintUnique, detail)
        case "53100": return StorageError(.full, detail)
        case "25006": return StorageError(.readOnly, detail)
        case "55P03", "57014": return StorageError(.busy, detail)  // lock not available, statement timeout
        case "57P01", "57P02", "57P03": return StorageError(.unavailable, detail)  // shutting down, starting up
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": return StorageError(.constraint, detail)
        case "08": return StorageError(.unavailable, detail)
        case "53": return StorageError(.busy, detail)
        case "58": return StorageError(.io, detail)
        case "XX": return StorageError(.corrupt, detail)
        default: return StorageError(.server, detail)
        }
    }
}
