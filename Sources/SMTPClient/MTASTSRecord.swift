/// The `_mta-sts.<domain>` TXT record (RFC 8461 §3.1): that the domain publishes a policy, and the id that changes
/// whenever the policy does (so that a sender knows its cached copy is stale).
///
/// `v=STSv1; id=20160831085700Z;`
public struct MTASTSRecord: Sendable, Equatable {
    /// The policy's id: 1 to 32 letters and digits.
    public let id: String

    /// A record with the given id.
    public init(id: String) {
        self.id = id
    }

    /// Parses one TXT record's text (its strings already joined).
    ///
    /// `v=STSv1` first, then fields separated by `;` with optional spaces or tabs around it, a trailing `;` allowed:
    /// exactly one `id=` of 1 to 32 letters and digits, and extension fields (`name=value`, the name of letters,
    /// digits, `_`, `-` and `.` up to 32 characters, the value printable without `;` or `=`), which are ignored.
    /// - Throws: ``MTASTSError`` naming the problem.
    public static func parse(_ text: String) throws(MTASTSError) -> MTASTSRecord {
        var fields = text.split(separator: ";", omittingEmptySubsequences: false).map(trimmed)
        if fields.count > 1, fields.last == "" { fields.removeLast() }
        guard fields.first == "v=STSv1" else { throw .notAnSTSRecord }
        var id: String?
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "=") else { throw .malformedRecord }
            let name = field[..<equals]
            let value = field[field.index(after: equals)...]
            guard !name.isEmpty, name.count <= 32,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }),
                !value.isEmpty, value.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "=" })
            else { throw .malformedRecord }
            guard name == "id" else { continue }
            guard id == nil else { throw .duplicateField("id") }
            guard value.count <= 32, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw .malformedRecord
            }
            id = String(value)
        }
        guard let id else { throw .missingField("id") }
        return MTASTSRecord(id: id)
    }

    /// Picks the domain's record out of every TXT record at `_mta-sts.<domain>` (RFC 8461 §3.1): those that do not
    /// start with `v=STSv1;` are discarded; exactly one must be left, and valid. Nil means the domain has no
    /// available policy (none published, several, or an invalid one): the sender goes on as without MTA-STS.
    public static func select(from records: [String]) -> MTASTSRecord? {
        let candidates = records.filter { $0.hasPrefix("v=STSv1;") || $0 == "v=STSv1" }
        guard candidates.count == 1 else { return nil }
        return try? parse(candidates[0])
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let start = text.drop { $0 == " " || $0 == "\t" }
        var end = start
        while end.last == " " || end.last == "\t" { end = end.dropLast() }
        return end
    }
}
