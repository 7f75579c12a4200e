import Foundation
import Testing

/// Decision 32 (docs/decisions/0032-migrations-expand-then-contract.md): a PostgreSQL migration after 0058 only expands
/// the schema, unless each contracting statement's migration says `-- contracts NNNN: ...`, naming an older migration
/// after whose release nothing reads what it removes. The previous release keeps serving on the migrated database
/// during a rolling upgrade, so nothing it queries may go away or narrow under it.
@Suite("Migrations expand, then contract in a later release")
struct MigrationRuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The last migration made before the rule; it and those before it are not checked.
    static let lastBeforeRule = 58

    /// The contracting statements of `sql` (comments removed), each named by what it does. A unique index on a table
    /// the same migration creates narrows nothing the previous release writes.
    static func contractions(in sql: String) -> [String] {
        let text = sql.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n").uppercased()
        var found: [String] = []
        var created: Set<Substring> = []
        for statement in text.split(separator: ";") {
            let list = statement.split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == ")" || $0 == "," })
            let words = list.joined(separator: " ")
            func has(_ phrase: String) -> Bool { " \(words) ".contains(" \(phrase) ") }
            func after(_ word: String) -> Substring? { list.firstIndex(of: Substring(word)).map { list.index(after: $0) }
                .flatMap { $0 < list.endIndex ? list[$0] : nil } }
            if has("CREATE TABLE"), let name = list.drop(while: { $0 != "TABLE" }).dropFirst()
                .first(where: { !["IF", "NOT", "EXISTS"].contains($0) }) {
                created.insert(name)
            }
            if has("DROP TABLE") { found.append("drops a table") }
            if has("DROP COLUMN") { found.append("drops a column") }
            if has("DROP CONSTRAINT") { found.append("drops a constraint") }
            if has("DROP TRIGGER") { found.append("drops a trigger") }
            if has("DROP FUNCTION") { found.append("drops a function") }
            if has("RENAME") { found.append("renames") }
            if has("ALTER COLUMN"), has("TYPE") { found.append("changes a column's type") }
            if has("SET NOT NULL") { found.append("makes a column NOT NULL") }
            if has("ADD CONSTRAINT") { found.append("adds a constraint") }
            if has("CREATE UNIQUE INDEX"), !(after("ON").map(created.contains) ?? false) {
                found.append("adds a unique index")
            }
            if has("ADD COLUMN"), has("NOT NULL"), !has("DEFAULT") { found.append("adds a NOT NULL column without a default") }
        }
        return found
    }

    /// The migrations `-- contracts NNNN:` lines name.
    static func contractsMarkers(in sql: String) -> [Int] {
        sql.split(separator: "\n").compactMap { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("-- contracts ") else { return nil }
            return Int(text.dropFirst("-- contracts ".count).prefix(while: \.isNumber))
        }
    }

    /// Why migration `version` with `sql` breaks the rule, nil when it keeps it.
    static func violation(version: Int, sql: String) -> String? {
        let contractions = contractions(in: sql)
        guard !contractions.isEmpty else { return nil }
        let markers = contractsMarkers(in: sql)
        guard !markers.isEmpty else {
            return "it \(contractions.joined(separator: ", ")) without a `-- contracts NNNN: ...` line"
        }
        if let bad = markers.first(where: { $0 >= version }) {
            return "its `-- contracts \(bad)` names a migration that is not older than it"
        }
        return nil
    }

    @Test("the check tells an expansion from a contraction, and takes a contraction that names its expansion")
    func check() {
        for expanding in [
            "ALTER TABLE owners ADD COLUMN password_removed_at BIGINT;",
            "ALTER TABLE t ADD COLUMN n BIGINT NOT NULL DEFAULT 0;",
            "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL);\nCREATE INDEX t_by_id ON t (id);",
            "-- DROP TABLE in a comment is no statement\nUPDATE t SET n = 1 WHERE n IS NULL;",
            "CREATE TABLE IF NOT EXISTS k (a TEXT NOT NULL);\nCREATE UNIQUE INDEX k_one ON k (a);",
        ] {
            #expect(Self.violation(version: 59, sql: expanding) == nil, "\(expanding)")
        }
        for contracting in [
            "DROP TABLE old_sessions;", "ALTER TABLE t DROP COLUMN n;", "ALTER TABLE t RENAME COLUMN a TO b;",
            "ALTER TABLE t ALTER COLUMN n TYPE TEXT;", "ALTER TABLE t ALTER COLUMN n SET NOT NULL;",
            "ALTER TABLE t ADD COLUMN n BIGINT NOT NULL;", "ALTER TABLE t DROP CONSTRAINT t_key;",
            "CREATE UNIQUE INDEX t_one ON t (a);", "DROP TRIGGER t_enqueue ON t;",
            "ALTER TABLE t ADD CONSTRAINT t_check CHECK (n > 0);",
        ] {
            #expect(Self.violation(version: 59, sql: contracting) != nil, "\(contracting)")
            #expect(Self.violation(version: 59, sql: "-- contracts 0057: nothing reads it since 0057's release\n"
                + contracting) == nil)
            #expect(Self.violation(version: 59, sql: "-- contracts 0059: this one\n" + contracting) != nil)
        }
    }

    @Test("every PostgreSQL migration after 0058 only expands, or names the migration its contraction follows")
    func shippedMigrations() throws {
        let directory = Self.root.appendingPathComponent("migrations/postgres")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
        #expect(names.count > Self.lastBeforeRule / 2, "migrations/postgres not found at \(directory.path)")
        for name in names.sorted() {
            guard let version = Int(name.prefix(while: \.isNumber)), version > Self.lastBeforeRule else { continue }
            let sql = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            #expect(Self.violation(version: version, sql: sql) == nil, "\(name): \(Self.violation(version: version, sql: sql) ?? "")")
        }
    }

    @Test("the migrations before the rule are what decision 32 says: 0011, 0024, 0028, 0033 and 0034 contract")
    func beforeTheRule() throws {
        let directory = Self.root.appendingPathComponent("migrations/postgres")
        let contracting = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().filter { name in
            guard let version = Int(name.prefix(while: \.isNumber)), version <= Self.lastBeforeRule else { return false }
            return !Self.contractions(in: try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
                .isEmpty
        }
        #expect(contracting.map { String($0.prefix(4)) } == ["0011", "0024", "0028", "0033", "0034"])
    }
}
