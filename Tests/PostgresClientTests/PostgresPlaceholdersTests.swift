import Testing

@testable import PostgresClient

@Suite("PostgreSQL placeholders")
struct PostgresPlaceholdersTests {
    @Test("each ? outside quotes and comments becomes $1, $2, ... in order")
    func numbers() {
        let (sql, count) = PostgresPlaceholders.numbered("SELECT a FROM t WHERE b = ? AND c IN (?, ?)")
        #expect(sql == "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)")
        #expect(count == 3)
    }

    @Test("a ? inside a string, a quoted identifier, a comment or a dollar-quoted body stays text")
    func quoted() {
        let cases: [(String, String, Int)] = [
            ("SELECT '?' , ?", "SELECT '?' , $1", 1),
            ("SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1", 1),
            ("SELECT \"odd?name\" FROM t WHERE x = ?", "SELECT \"odd?name\" FROM t WHERE x = $1", 1),
            ("SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2", 2),
            ("SELECT /* ? */ ?", "SELECT /* ? */ $1", 1),
            ("DO $$ BEGIN PERFORM '?'; END $$; SELECT ?", "DO $$ BEGIN PERFORM '?'; END $$; SELECT $1", 1),
            ("SELECT $tag$ ? $tag$, ?", "SELECT $tag$ ? $tag$, $1", 1),
            ("SELECT $1", "SELECT $1", 0),
            ("SELECT 'unterminated ?", "SELECT 'unterminated ?", 0),
        ]
        for (input, expected, count) in cases {
            let result = PostgresPlaceholders.numbered(input)
            #expect(result.sql == expected, "\(input)")
            #expect(result.count == count, "\(input)")
        }
    }

    @Test("text that is not ASCII passes through unchanged")
    func unicode() {
        let (sql, count) = PostgresPlaceholders.numbered("SELECT 'ünïcödé ✉' || ?")
        #expect(sql == "SELECT 'ünïcödé ✉' || $1")
        #expect(count == 1)
    }
}
