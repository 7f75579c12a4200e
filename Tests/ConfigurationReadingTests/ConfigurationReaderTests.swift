import ConfigurationReading
import Testing

@Suite("ConfigurationReader: scoped names, strict parsing, refusals naming the whole key")
struct ConfigurationReaderTests {
    static let values = [
        "POSTERN_X_COUNT": " 12 ", "POSTERN_X_BAD": "twelve", "POSTERN_X_ON": "Yes", "POSTERN_X_OFF": "0",
        "POSTERN_X_MODE": " LOOPBACK ", "POSTERN_X_LIST": "a, ,b ,", "POSTERN_X_EMPTY": "", "POSTERN_X_RAW": " s3 ",
    ]
    static var reader: ConfigurationReader { ConfigurationReader { values[$0] } }

    @Test("a scope prefixes every name it reads, and errors name the whole key")
    func scoping() throws {
        let scoped = Self.reader.scoped(to: "POSTERN").scoped(to: "X")
        #expect(scoped.prefix == "POSTERN_X_" && scoped.key("COUNT") == "POSTERN_X_COUNT")
        #expect(try scoped.integer("COUNT") == 12)
        let error = #expect(throws: ConfigurationError.self) { try scoped.integer("BAD") }
        #expect(error?.key == "POSTERN_X_BAD" && error?.description.hasPrefix("POSTERN_X_BAD: ") == true)
    }

    @Test("unset and empty read as nil, so the caller's default stands; text is trimmed, raw is not")
    func unsetAndEmpty() throws {
        let x = Self.reader.scoped(to: "POSTERN_X")
        #expect(try x.integer("NONE") == nil && x.text("NONE") == nil && x.list("NONE") == nil)
        #expect(try x.integer("EMPTY") == nil && x.nonEmptyText("EMPTY") == nil && x.raw("EMPTY") == nil)
        #expect(x.text("EMPTY") == "" && x.list("EMPTY") == [])
        #expect(x.raw("RAW") == " s3 " && x.text("RAW") == "s3")
    }

    @Test("switches, choices and lists parse strictly")
    func parsing() throws {
        let x = Self.reader.scoped(to: "POSTERN_X")
        #expect(try x.flag("ON") == true && x.flag("OFF") == false)
        #expect(try x.choice("MODE", ["loopback", "never"]) == "loopback")
        #expect(x.list("LIST") == ["a", "b"])
        #expect(throws: ConfigurationError.self) { try x.flag("COUNT") }
        let choice = #expect(throws: ConfigurationError.self) { try x.choice("MODE", ["always"]) }
        #expect(choice?.key == "POSTERN_X_MODE")
    }
}
