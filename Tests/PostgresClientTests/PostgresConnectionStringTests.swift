import Testing

@testable import PostgresClient

/// The connection strings POSTERN_DATABASE_URL takes, read by libpq's own parser: no server needed.
@Suite("PostgreSQL connection strings")
struct PostgresConnectionStringTests {
    @Test("one host, as a URI or as key=value pairs, needs nothing more")
    func oneHost() throws {
        for text in [
            "postgres://postern:pw@db:5432/postern", "postgresql://db/postern?sslmode=require", "postgres:///postern",
            "host=db port=5432 dbname=postern", "dbname=postern",
        ] {
            let parsed = try PostgresConnectionString(validating: text)
            #expect(parsed.hostCount == 1, "\(text)")
        }
    }

    @Test("several hosts with target_session_attrs=read-write are accepted, in both forms")
    func severalHostsReadWrite() throws {
        let uri = try PostgresConnectionString(
            validating: "postgres://postern@h1:5432,h2:5433/postern?target_session_attrs=read-write&connect_timeout=2")
        #expect(uri.hostCount == 2)
        #expect(uri.targetSessionAttributes == "read-write")
        let pairs = try PostgresConnectionString(
            validating: "host=h1,h2,h3 port=1,2,3 dbname=postern target_session_attrs='read-write'")
        #expect(pairs.hostCount == 3)
        let addresses = try PostgresConnectionString(
            validating: "hostaddr=127.0.0.1,127.0.0.2 dbname=postern target_session_attrs=read-write")
        #expect(addresses.hostCount == 2)
    }

    @Test("several hosts without target_session_attrs=read-write are refused, naming the key")
    func severalHostsRefused() {
        for text in [
            "postgres://postern@h1:5432,h2:5433/postern", "postgres://h1,h2/p?target_session_attrs=any",
            "postgres://h1,h2/p?target_session_attrs=prefer-standby", "host=h1,h2 dbname=postern",
            "hostaddr=127.0.0.1,127.0.0.2 dbname=postern target_session_attrs=read-only",
        ] {
            #expect(throws: PostgresConnectionString.Refusal.multipleHostsWithoutReadWrite, "\(text)") {
                try PostgresConnectionString(validating: text)
            }
        }
        #expect(
            PostgresConnectionString.Refusal.multipleHostsWithoutReadWrite.description.contains(
                "target_session_attrs=read-write"))
    }

    @Test("what libpq cannot read is refused without echoing it")
    func unreadable() {
        for text in ["postgres://h/db?s3cret=1", "host=h password=s3cret bogus=1", "s3cret", "host='unterminated"] {
            #expect(throws: PostgresConnectionString.Refusal.unreadable, "\(text)") {
                try PostgresConnectionString(validating: text)
            }
        }
        #expect(!PostgresConnectionString.Refusal.unreadable.description.contains("s3cret"))
    }

    @Test("key=value is told from a URL of another scheme")
    func keyValueForm() {
        #expect(PostgresConnectionString.isKeyValueForm("host=h dbname=p"))
        #expect(!PostgresConnectionString.isKeyValueForm("mysql://h/db?x=1"))
        #expect(!PostgresConnectionString.isKeyValueForm("s3cret"))
    }
}
