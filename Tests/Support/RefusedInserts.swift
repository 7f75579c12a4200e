import Storage

extension SQLDatabase {
    /// Makes every `INSERT` into `table` fail from now on (a `BEFORE INSERT` trigger that raises, SQLite's or
    /// PostgreSQL's), so a test can show that a write whose last row goes there leaves nothing behind; ``allowInserts(into:)``
    /// lifts it. `table` is a constant of the test's, never input.
    public func refuseInserts(into table: String) throws {
        try writeSync { connection in
            switch connection.dialect {
            case .sqlite:
                try connection.execute(
                    "CREATE TRIGGER refuse_\(table) BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'refused'); END")
            case .postgres:
                try connection.execute(
                    """
                    CREATE FUNCTION refuse_\(table)() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'refused'; END $$;
                    CREATE TRIGGER refuse_\(table) BEFORE INSERT ON \(table)
                        FOR EACH ROW EXECUTE FUNCTION refuse_\(table)();
                    """)
            }
        }
    }

    /// Lets `INSERT`s into `table` through again (``refuseInserts(into:)``).
    public func allowInserts(into table: String) throws {
        try writeSync { connection in
            switch connection.dialect {
            case .sqlite: try connection.execute("DROP TRIGGER refuse_\(table)")
            case .postgres: try connection.execute("DROP TRIGGER refuse_\(table) ON \(table)")
            }
        }
    }
}
