import JSON

/// The page of a collection a request asks for (`?page=N`, 1 when absent) and the `hydra:view` that describes it.
///
/// Rules, as API Platform pages mail.tm's collections and as Postern bounds them:
/// 1. `page` absent: page 1. Present: a whole decimal number from 1 to the configured bound (1,000,000); anything
///    else (`0`, `-1`, `1.5`, `abc`, an empty value, a number past the bound) is a 400, nothing read.
/// 2. A page past the last is an empty `hydra:member` (200), as API Platform answers it.
/// 3. `hydra:view` appears only when the collection has more than one page: `@id` the page's IRI, `hydra:first`,
///    `hydra:last`, `hydra:previous` (not on the first page) and `hydra:next` (not on the last or past it).
public struct MailTMPage: Sendable, Equatable {
    /// The page, 1-based.
    public let number: Int
    /// Items a page holds (30).
    public let size: Int

    /// Reads `query` (the value of `page`, nil when absent) within `1...maximum`.
    /// - Throws: ``MailTMError/badRequest(_:)`` for a value that is not a whole number in range.
    public init(query: String?, size: Int, maximum: Int) throws(MailTMError) {
        self.size = size
        guard let query else {
            number = 1
            return
        }
        guard !query.isEmpty, query.utf8.count <= 10, query.utf8.allSatisfy({ (48...57).contains($0) }),
            let number = Int(query)
        else { throw .badRequest("Page should be a whole number.") }
        guard number >= 1 else { throw .badRequest("Page should not be less than 1") }
        guard number <= maximum else { throw .badRequest("Page should not be greater than \(maximum)") }
        self.number = number
    }

    /// The offset of the page's first item.
    public var offset: Int { (number - 1) * size }

    /// The last page of a collection of `total` items (1 for an empty one).
    public func lastPage(total: Int) -> Int { max(1, (total + size - 1) / size) }

    /// The `hydra:view` of this page of a collection at `path` with `total` items; nil when it has one page.
    public func view(path: String, total: Int) -> JSONValue? {
        let last = lastPage(total: total)
        guard last > 1 else { return nil }
        func iri(_ page: Int) -> JSONValue { .string("\(path)?page=\(page)") }
        var pairs: [(String, JSONValue)] = [
            ("@id", iri(number)), ("@type", .string("hydra:PartialCollectionView")), ("hydra:first", iri(1)),
            ("hydra:last", iri(last)),
        ]
        if number > 1 { pairs.append(("hydra:previous", iri(number - 1))) }
        if number < last { pairs.append(("hydra:next", iri(number + 1))) }
        return .object(pairs)
    }
}
